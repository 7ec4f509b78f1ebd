/* test_sink.c: the log's exact text. A synthetic frame (a running worker, a failed one with
 * unmeasured numbers and an error that needs escaping, and the aggregate), a frame without
 * workers, a window that was not observed (its rates left out, the flag 0/false), and sweep
 * rows, each written through a sink in CSV and in JSON lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/sink.h"
#include "tap.h"

static const struct gd_breakdown unmeasured = { .gen_us = NAN,
	                                        .h2d_us = NAN,
	                                        .kernel_us = NAN,
	                                        .d2h_us = NAN,
	                                        .queue_wait_us = NAN,
	                                        .other_us = NAN,
	                                        .gap_kernel_us = NAN,
	                                        .gap_batch_us = NAN };

static void write_frames(struct gd_sink *s)
{
	struct gd_sample w[2] = {
		{ .id = 1,
		  .pid = 4242,
		  .state = GD_ST_RUNNING,
		  .mbit_s = 123.456789,
		  .batches = 10,
		  .symbols = 5000000,
		  .win_batches = 3,
		  .kernel_busy = 0.51234,
		  .sample_every = 16,
		  .observer_share = 0.0123,
		  .gen_busy = 0.25,
		  .bd = { .gen_us = 100.125,
		          .h2d_us = 20.5,
		          .kernel_us = 300.75,
		          .d2h_us = 10.0,
		          .queue_wait_us = 4.5,
		          .other_us = 5.333,
		          .gap_kernel_us = 1.5,
		          .gap_batch_us = 2.25 } },
		{ .id = 2,
		  .pid = 4243,
		  .state = GD_ST_FAILED,
		  .mbit_s = NAN,
		  .kernel_busy = NAN,
		  .observer_share = NAN,
		  .gen_busy = NAN,
		  .bd = unmeasured,
		  .lost = 7,
		  .error = "clBuildProgram: \"decode\" failed\nline 2\\" },
	};
	struct gd_frame f = {
		.t_s = 12.3456,
		.unix_s = 1795968000.25,
		.observed = true,
		.window_s = 1.0,
		.procs = 2,
		.agg = { .mbit_s = 123.456789,
		         .batches = 10,
		         .symbols = 5000000,
		         .bd = unmeasured,
		         .lost = 7 },
		.device_busy = 0.75,
		.headroom = 164.609052,
		.timebase = GD_TB_HOSTTIMER,
		.profile = GD_PROF_SAMPLED,
		.ceiling = 600.0,
		.of_ceiling = 0.205761315,
		.nworkers = 2,
		.workers = w,
	};
	sink_frame(s, &f);
	/* No workers left, no device times: the header is not repeated; device_busy and headroom
	 * are left empty. */
	f.t_s = 13.3461;
	f.window_s = 1.0005;
	f.procs = 0;
	f.nworkers = 0;
	f.agg.mbit_s = 0;
	f.device_busy = NAN;
	f.headroom = NAN;
	f.profile = GD_PROF_FULL;
	f.ceiling = NAN;
	f.of_ceiling = NAN;
	f.busy_from_sum = true;
	f.timebase = GD_TB_NONE;
	sink_frame(s, &f);
	/* A window the supervisor did not observe (it was stopped): rates are left out, the flag
	 * says why, totals and lost are carried. */
	f.t_s = 16.3461;
	f.window_s = 3.0;
	f.observed = false;
	f.procs = 1;
	f.nworkers = 1;
	w[0].mbit_s = NAN;
	w[0].kernel_busy = NAN;
	w[0].gen_busy = NAN;
	w[0].bd = unmeasured;
	w[0].batches = 900;
	w[0].lost = 880;
	f.agg.mbit_s = NAN;
	f.agg.batches = 900;
	f.agg.lost = 880;
	sink_frame(s, &f);
	/* What the user did, between frames: an action on one worker and one on all of them. */
	struct gd_event add = { .t_s = 16.5, .unix_s = 1795968004.4, .action = "add", .id = 3, .pid = 4300 };
	struct gd_event pause = { .t_s = 16.75, .unix_s = 1795968004.65, .action = "pause" };
	sink_event(s, &add);
	sink_event(s, &pause);
}

static void write_sweep(struct gd_sink *s)
{
	const struct gd_sweep_row rows[] = {
		{ 1, 1, 100.5, 1.0, 0.5, 12.25, 201.0, 0.1675, "all" },
		{ 2, 4, 190.25, 1.893, 0.95, 3.125, 200.263158, NAN, "1:0" },
		/* A first step at 0 Mbit/s leaves the speedup NAN: JSON null, an empty CSV cell (JSON has no
		   NaN). */
		{ 4, 1, 0.0, NAN, NAN, NAN, NAN, NAN, "" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		sink_sweep_row(s, &rows[i]);
}

/* What the sink wrote to a temporary file, or NULL. The caller frees it. */
static char *sink_text(enum gd_format fmt, void (*write)(struct gd_sink *s))
{
	char path[] = "/tmp/gputop-decode-test-sink.XXXXXX", err[256];
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	struct gd_sink *s = sink_new(fd, true, fmt);
	char *text = NULL;
	FILE *in = NULL;
	if (s) {
		write(s);
		if (sink_close(s, err, sizeof(err)) == 0)
			in = fopen(path, "r");
	}
	if (in) {
		text = calloc(1, 1 << 16);
		if (text)
			fread(text, 1, (1 << 16) - 1, in);
		fclose(in);
	}
	unlink(path);
	return text;
}

static void check(enum gd_format fmt, void (*write)(struct gd_sink *s), const char *want, const char *what)
{
	char *got = sink_text(fmt, write);
	if (!tap_ok(got && strcmp(got, want) == 0, "%s", what))
		printf("#   got:\n%s\n#   want:\n%s\n", got ? got : "(nothing)", want);
	free(got);
}

static const char frames_csv[] =
    "t_s,kind,id,pid,state,procs,mbit_s,batches,symbols,kernel_busy,gap_kernel_us,gap_batch_us,gen_us,h2d_us,"
    "kernel_us,d2h_us,other_us,device_busy,headroom,lost,queue_wait_us,profile,ceiling,of_ceiling,sample_"
    "every,observer_share,gen_busy,observed,unix_s,device\n"
    "12.346,worker,1,4242,running,,123.4568,10,5000000,0.5123,1.50,2.25,100.12,20.50,300.75,10.00,5.33,,,0,4."
    "50,,,,16,0.0123,0.250,1,1795968000.250,\n"
    "12.346,worker,2,4243,failed,,,0,0,,,,,,,,,,,7,,,,,,,,1,1795968000.250,\n"
    "12.346,aggregate,,,,2,123.4568,10,5000000,,,,,,,,,0.7500,164.6091,7,,sampled,600.0000,0.2058,,,,1,"
    "1795968000.250,\n"
    "13.346,aggregate,,,,0,0.0000,10,5000000,,,,,,,,,,,7,,full,,,,,,1,1795968000.250,\n"
    "16.346,worker,1,4242,running,,,900,5000000,,,,,,,,,,,880,,,,,16,0.0123,,0,1795968000.250,\n"
    "16.346,aggregate,,,,1,,900,5000000,,,,,,,,,,,880,,full,,,,,,0,1795968000.250,\n"
    "16.500,event,3,4300,add,,,,,,,,,,,,,,,,,,,,,,,,1795968004.400,\n"
    "16.750,event,,,pause,,,,,,,,,,,,,,,,,,,,,,,,1795968004.650,\n";

static const char frames_jsonl[] =
    "{\"t_s\":12.346,\"kind\":\"worker\",\"state\":\"running\",\"id\":1,\"pid\":4242,\"mbit_s\":123.4568,"
    "\"batches\":10,\"symbols\":5000000,\"kernel_busy\":0.5123,\"gap_kernel_us\":1.50,\"gap_batch_us\":2.25,"
    "\"gen_us\":100.12,\"h2d_us\":20.50,\"kernel_us\":300.75,\"d2h_us\":10.00,\"other_us\":5.33,\"lost\":0,"
    "\"queue_wait_us\":4.50,\"sample_every\":16,\"observer_share\":0.0123,\"gen_busy\":0.250,\"observed\":"
    "true,\"unix_s\":1795968000.250,\"window_batches\":3}\n"
    "{\"t_s\":12.346,\"kind\":\"worker\",\"state\":\"failed\",\"id\":2,\"pid\":4243,\"batches\":0,"
    "\"symbols\":0,\"lost\":7,\"observed\":true,\"unix_s\":1795968000.250,\"window_batches\":0,\"error\":"
    "\"clBuildProgram: \\\"decode\\\" failed\\u000aline 2\\\\\"}\n"
    "{\"t_s\":12.346,\"kind\":\"aggregate\",\"procs\":2,\"mbit_s\":123.4568,\"batches\":10,\"symbols\":"
    "5000000,\"device_busy\":0.7500,\"headroom\":164.6091,\"lost\":7,\"profile\":\"sampled\",\"ceiling\":600."
    "0000,\"of_ceiling\":0.2058,\"observed\":true,\"unix_s\":1795968000.250,\"window_s\":1.000,\"timebase\":"
    "\"host-timer\",\"device_busy_method\":\"union\"}\n"
    "{\"t_s\":13.346,\"kind\":\"aggregate\",\"procs\":0,\"mbit_s\":0.0000,\"batches\":10,\"symbols\":5000000,"
    "\"lost\":7,\"profile\":\"full\",\"observed\":true,\"unix_s\":1795968000.250,\"window_s\":1.000,"
    "\"timebase\":\"none\",\"device_busy_method\":\"sum-capped\"}\n"
    "{\"t_s\":16.346,\"kind\":\"worker\",\"state\":\"running\",\"id\":1,\"pid\":4242,\"batches\":900,"
    "\"symbols\":5000000,\"lost\":880,\"sample_every\":16,\"observer_share\":0.0123,\"observed\":false,"
    "\"unix_s\":1795968000.250}\n"
    "{\"t_s\":16.346,\"kind\":\"aggregate\",\"procs\":1,\"batches\":900,\"symbols\":5000000,\"lost\":880,"
    "\"profile\":\"full\",\"observed\":false,\"unix_s\":1795968000.250,\"window_s\":3.000,\"timebase\":"
    "\"none\",\"device_busy_method\":\"sum-capped\"}\n"
    "{\"t_s\":16.500,\"kind\":\"event\",\"state\":\"add\",\"id\":3,\"pid\":4300,\"unix_s\":1795968004.400}\n"
    "{\"t_s\":16.750,\"kind\":\"event\",\"state\":\"pause\",\"unix_s\":1795968004.650}\n";

static const char sweep_csv[] =
    "procs,queues,mbit_s,speedup,device_busy,gap_batch_us,headroom,of_ceiling,device\n"
    "1,1,100.5000,1.0000,0.5000,12.2500,201.0000,0.1675,all\n"
    "2,4,190.2500,1.8930,0.9500,3.1250,200.2632,,1:0\n"
    "4,1,0.0000,,,,,,\n";

static const char sweep_jsonl[] =
    "{\"kind\":\"sweep\",\"procs\":1,\"queues\":1,\"mbit_s\":100.5000,\"speedup\":1.0000,\"device_busy\":0."
    "5000,\"gap_batch_us\":12.2500,\"headroom\":201.0000,\"of_ceiling\":0.1675,\"device\":\"all\"}\n"
    "{\"kind\":\"sweep\",\"procs\":2,\"queues\":4,\"mbit_s\":190.2500,\"speedup\":1.8930,\"device_busy\":0."
    "9500,\"gap_batch_us\":3.1250,\"headroom\":200.2632,\"device\":\"1:0\"}\n"
    "{\"kind\":\"sweep\",\"procs\":4,\"queues\":1,\"mbit_s\":0.0000,\"speedup\":null}\n";

int main(void)
{
	check(GD_FMT_CSV, write_frames, frames_csv, "CSV frames: header once, empty cells where not carried");
	check(GD_FMT_JSONL, write_frames, frames_jsonl, "JSONL frames: fields left out where not carried");
	check(GD_FMT_CSV, write_sweep, sweep_csv, "CSV sweep rows");
	check(GD_FMT_JSONL, write_sweep, sweep_jsonl, "JSONL sweep rows");
	return tap_done();
}

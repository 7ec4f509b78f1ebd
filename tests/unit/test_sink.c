/* test_sink.c: the log's exact text. A synthetic frame (a running worker, a failed one with
 * unmeasured numbers and an error that needs escaping, and the aggregate), a frame without
 * workers, a window that was not observed (its rates left out, the flag 0/false), and sweep
 * rows (runs and summaries), each written through a sink in CSV and in JSON lines; the run
 * header first in each, with the version, host, devices and the run's options object as the
 * caller rendered it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "output/sink.h"
#include "tap.h"

static const struct gd_breakdown unmeasured = GD_BREAKDOWN_NONE;
static const struct gd_idle undiagnosed = GD_IDLE_NONE;

static void write_frames(struct gd_sink *s)
{
	struct gd_sample w[2] = {
		{ .id = 1,
		  .device = 0,
		  .pid = 4242,
		  .state = GD_ST_RUNNING,
		  .rate = 123.456789,
		  .batches = 10,
		  .items = 5000000,
		  .win_batches = 3,
		  .kernel_busy = 0.51234,
		  .transfer_busy = 0.0312,
		  .copy_busy = NAN,
		  .commands_s = NAN,
		  .sample_every = 16,
		  .observer_share = 0.0123,
		  .gen_busy = 0.25,
		  .bd = { .gen_us = 100.125,
		          .h2d_us = 20.5,
		          .kernel_us = 300.75,
		          .d2h_us = 10.0,
		          .copy_us = NAN,
		          .queue_wait_us = 4.5,
		          .other_us = 5.333,
		          .overlap_us = 0.5,
		          .gap_kernel_us = 1.5,
		          .gap_batch_us = 2.25,
		          .batch_overlap_us = 3.75,
		          .gap_kernel_p50_us = 1.25,
		          .gap_kernel_p99_us = 4.0,
		          .gap_batch_p50_us = 2.0,
		          .gap_batch_p99_us = 8.5 },
		  .idle = { { 0.3, 0.1, 0.05, 0, 0, 0.0377 }, 0.25 },
		  .tot = { .kernel_s = 6.25, .transfer_s = 0.5, .copy_s = NAN } },
		{ .id = 2,
		  .device = 1,
		  .pid = 4243,
		  .state = GD_ST_FAILED,
		  .rate = NAN,
		  .kernel_busy = NAN,
		  .transfer_busy = NAN,
		  .copy_busy = NAN,
		  .commands_s = NAN,
		  .tot = { .kernel_s = NAN, .transfer_s = NAN, .copy_s = NAN },
		  .observer_share = NAN,
		  .gen_busy = NAN,
		  .bd = unmeasured,
		  .idle = undiagnosed,
		  .lost = 7,
		  .error = "clBuildProgram: \"decode\" failed\nline 2\\" },
	};
	struct gd_frame f = {
		.t_s = 12.3456,
		.unix_s = 1795968000.25,
		.observed = true,
		.window_s = 1.0,
		.procs = 2,
		.agg = { .device = -1,
		         .rate = 123.456789,
		         .batches = 10,
		         .items = 5000000,
		         .bd = unmeasured,
		         .idle = undiagnosed,
		         .lost = 7 },
		.nworkers = 2,
		.device_busy = 0.75,
		.headroom = 164.609052,
		.timebase = GD_TB_HOSTTIMER,
		.profile = GD_PROF_SAMPLED,
		.ceiling = 600.0,
		.of_ceiling = 0.205761315,
		.ceiling_4x = 750.0,
		.workers = w,
	};
	f.agg.bd.gap_kernel_p50_us = 1.25; /* every worker's gaps: here the one that measured any */
	f.agg.bd.gap_kernel_p99_us = 4.0;
	f.agg.bd.gap_batch_p50_us = 2.0;
	f.agg.bd.gap_batch_p99_us = 8.5;
	/* Two devices: a row for each, between the workers and the aggregate; its figures are
	 * that device's (the second one's worker failed: nothing measured). */
	f.ndevs = 2;
	f.devs[0] = (struct gd_devframe){ .agg = f.agg,
		                          .procs = 1,
		                          .device_busy = 0.5123,
		                          .headroom = 240.967,
		                          .ceiling = 300.0,
		                          .of_ceiling = 0.41152263,
		                          .ceiling_4x = 375.0 };
	f.devs[0].agg.device = 0;
	f.devs[0].agg.idle = (struct gd_idle){ { 0.4, 0.05, 0.02, 0.01, 0, 0.0077 }, NAN };
	f.agg.idle = (struct gd_idle){ { 0.2, 0.03, 0.01, 0.005, 0, 0.005 }, NAN };
	str_copy(f.devs[0].ref, sizeof(f.devs[0].ref), "0:1");
	f.devs[1] =
	    (struct gd_devframe){ .ref = "1:0",
		                  .agg = { .device = 1, .bd = unmeasured, .idle = undiagnosed, .lost = 7 },
		                  .device_busy = NAN,
		                  .headroom = NAN,
		                  .busy_from_sum = true,
		                  .ceiling = NAN,
		                  .of_ceiling = NAN,
		                  .ceiling_4x = NAN };
	/* No vendor library answers for these devices (src/vendor/). */
	f.driver_util = f.sm_active = f.sm_occupancy = f.mem_used_bytes = NAN;
	for (int d = 0; d < 2; d++)
		f.devs[d].driver_util = f.devs[d].sm_active = f.devs[d].sm_occupancy =
		    f.devs[d].mem_used_bytes = NAN;
	sink_frame(s, &f);
	f.ndevs = 1; /* one device: no device rows */
	f.agg.bd = unmeasured;
	f.agg.idle = undiagnosed;
	/* No workers left, no device times: the header is not repeated; device_busy and headroom
	 * are left empty. */
	f.t_s = 13.3461;
	f.window_s = 1.0005;
	f.procs = 0;
	f.nworkers = 0;
	f.agg.rate = 0;
	f.device_busy = NAN;
	f.headroom = NAN;
	f.profile = GD_PROF_FULL;
	f.ceiling = NAN;
	f.of_ceiling = NAN;
	f.ceiling_4x = NAN;
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
	w[0].rate = NAN;
	w[0].kernel_busy = NAN;
	w[0].gen_busy = NAN;
	w[0].bd = unmeasured;
	w[0].idle = undiagnosed;
	w[0].batches = 900;
	w[0].lost = 880;
	f.agg.rate = NAN;
	f.agg.batches = 900;
	f.agg.lost = 880;
	sink_frame(s, &f);
	/* What the user did, between frames: an action on one worker and one on all of them. */
	struct gd_event add = { .t_s = 16.5, .unix_s = 1795968004.4, .action = "add", .id = 3, .pid = 4300 };
	struct gd_event pause = { .t_s = 16.75, .unix_s = 1795968004.65, .action = "pause" };
	sink_event(s, &add);
	sink_event(s, &pause);
}

/* A sweep row's figures in their order: procs, queues, Mbit/s, speedup, busy, gap, headroom,
 * share of the ceiling. */
#define ROWQ(p, q, m, s, b, g, h, c, w)                                                                    \
	.procs = (p), .queues = (q), .rate = (m), .speedup = (s), .device_busy = (b), .gap_batch_us = (g), \
	.headroom = (h), .of_ceiling = (c), .queue_wait_us = (w), .cores = NAN, .predicted = NAN
#define ROW(p, q, m, s, b, g, h, c) ROWQ(p, q, m, s, b, g, h, c, NAN)

static struct gd_sweep_row predicted(struct gd_sweep_row r, double p)
{
	r.predicted = p;
	return r;
}

/* The summary of one run (--repeat 1): min = max = mean, no sd, no noise note. */
static struct gd_sweep_row once(struct gd_sweep_row r)
{
	r.rate_spread = (struct gd_spread){ 1, r.rate, r.rate, r.rate, NAN };
	r.speedup_spread = (struct gd_spread){ 1, r.speedup, r.speedup, r.speedup, NAN };
	r.within_spread = -1;
	r.runs = 1;
	return r;
}

static void write_sweep(struct gd_sink *s)
{
	const struct gd_sweep_row rows[] = {
		once((struct gd_sweep_row){ ROWQ(1, 1, 100.5, 1.0, 0.5, 12.25, 201.0, 0.1675, 3.5),
		                            .device = "all" }),
		/* Predicted from the first step: what filling its idle time alone would give. */
		once(predicted((struct gd_sweep_row){ ROW(2, 4, 190.25, 1.893, 0.95, 3.125, 200.263158, NAN),
		                                      .device = "all" },
		               201.0)),
		/* One device's share of that step (runs on two or more devices): no speedup of its own. */
		once((struct gd_sweep_row){ ROW(1, 4, 95.0, NAN, 0.9, 3.0, 105.555556, NAN),
		                            .device = "1:0" }),
		/* A step in which no batch completed: its rate not measured, no speedup: JSON null, an
		   empty CSV cell (JSON has no NaN), never 0; its one run counted. */
		once((struct gd_sweep_row){ ROW(4, 1, NAN, NAN, NAN, NAN, NAN, NAN), .device = "all" }),
	};
	sink_set_kernel(s, "saxpy", "Mitem/s"); /* a user kernel's sweep: its name and unit in each row */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		sink_sweep_row(s, &rows[i]);
}

/* --repeat 2 of --sweep 1,2: each run as it ends, then the summaries. */
static void write_repeats(struct gd_sink *s)
{
	const struct gd_sweep_row runs[] = {
		{ ROW(1, 1, 100.0, 1.0, 0.5, 12.0, 200.0, NAN), .rep = 1, .device = "all" },
		{ ROW(2, 1, 118.0, 1.18, 0.6, 10.0, 196.666667, NAN), .rep = 1, .device = "all" },
		{ ROW(1, 1, 110.0, 1.0, 0.5, 12.0, 220.0, NAN), .rep = 2, .device = "all" },
		{ ROW(2, 1, 99.0, 0.9, 0.6, 10.0, 165.0, NAN), .rep = 2, .device = "all" },
	};
	for (size_t i = 0; i < GD_ARRAY_LEN(runs); i++)
		sink_sweep_row(s, &runs[i]);
	const struct gd_sweep_row sum[] = {
		{ ROW(1, 1, 105.0, 1.0, 0.5, 12.0, 210.0, NAN), .rep = 0, .device = "all", .runs = 2,
		  .rate_spread = { 2, 105.0, 100.0, 110.0, 7.071068 },
		  .speedup_spread = { 2, 1.0, 1.0, 1.0, 0.0 }, .within_spread = -1 },
		{ ROW(2, 1, 108.5, 1.033333, 0.6, 10.0, 180.833333, NAN), .rep = 0, .device = "all",
		  .runs = 2, .rate_spread = { 2, 108.5, 99.0, 118.0, 13.435029 },
		  .speedup_spread = { 2, 1.04, 0.9, 1.18, 0.19799 }, .within_spread = 1 },
	};
	for (size_t i = 0; i < GD_ARRAY_LEN(sum); i++)
		sink_sweep_row(s, &sum[i]);
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
    "t_s,kind,id,pid,state,procs,mbit_s,batches,symbols,kernel_busy,gap_kernel_us,gap_batch_us,"
    "gen_us,h2d_us,kernel_us,d2h_us,other_us,device_busy,headroom,lost,queue_wait_us,profile,ce"
    "iling,of_ceiling,sample_every,observer_share,gen_busy,observed,unix_s,gap_kernel_p50_us,ga"
    "p_kernel_p99_us,gap_batch_p50_us,gap_batch_p99_us,run,kernel,rate_unit,device,overlap_us,b"
    "atch_overlap_us,idle_host,idle_transfer,idle_launch,idle_wait,idle_other,hidden,source,com"
    "mand,via,launches,waits,h2d_bytes,d2h_bytes,exit_status,ceiling_4x,rate,items,items_s,batc"
    "hes_s,commands,commands_s,copy_bytes,transfer_busy,copy_busy,copy_us,idle_copy,kernel_s,tr"
    "ansfer_s,copy_s\n12.346,worker,1,4242,running,,123.4568,10,5000000,0.5123,1.50,2.25,100.12,"
    "20.50,300.75,10.00,5.33,,,0,4.50,,,,16,0.0123,0.250,1,1795968000.250,1.25,4.00,2.00,8.50,,"
    ",,0:1,0.50,3.75,0.3000,0.1000,0.0500,0.0000,0.0377,0.2500,worker,,,,,,,,,123.4568,5000000,"
    "123456789.0,3.000,,,,0.0312,,,0.0000,6.250000,0.500000,\n12.346,worker,2,4243,failed,,,0,0,"
    ",,,,,,,,,,7,,,,,,,,1,1795968000.250,,,,,,,,1:0,,,,,,,,,worker,,,,,,,,,,0,,,,,,,,,,,,\n12.34"
    "6,device,,,,1,123.4568,10,5000000,,,,,,,,,0.5123,240.9670,7,,sampled,300.0000,0.4115,,,,1,"
    "1795968000.250,1.25,4.00,2.00,8.50,,decode,Mbit/s,0:1,,,0.4000,0.0500,0.0200,0.0100,0.0077"
    ",,,,,,,,,,375.0000,123.4568,5000000,123456789.0,0.000,,,,,,,0.0000,,,\n12.346,device,,,,0,0"
    ".0000,0,0,,,,,,,,,,,7,,sampled,,,,,,1,1795968000.250,,,,,,decode,Mbit/s,1:0,,,,,,,,,,,,,,,"
    ",,,0.0000,0,0.0,0.000,,,,,,,,,,\n12.346,aggregate,,,,2,123.4568,10,5000000,,,,,,,,,0.7500,1"
    "64.6091,7,,sampled,600.0000,0.2058,,,,1,1795968000.250,1.25,4.00,2.00,8.50,,decode,Mbit/s,"
    "all,,,0.2000,0.0300,0.0100,0.0050,0.0050,,,,,,,,,,750.0000,123.4568,5000000,123456789.0,0."
    "000,,,,,,,0.0000,,,\n13.346,aggregate,,,,0,0.0000,10,5000000,,,,,,,,,,,7,,full,,,,,,1,17959"
    "68000.250,,,,,,decode,Mbit/s,all,,,,,,,,,,,,,,,,,,0.0000,5000000,0.0,0.000,,,,,,,,,,\n16.34"
    "6,worker,1,4242,running,,,900,5000000,,,,,,,,,,,880,,,,,16,0.0123,,0,1795968000.250,,,,,,,"
    ",0:1,,,,,,,,,worker,,,,,,,,,,5000000,,,,,,0.0312,,,,6.250000,0.500000,\n16.346,aggregate,,,"
    ",1,,900,5000000,,,,,,,,,,,880,,full,,,,,,0,1795968000.250,,,,,,decode,Mbit/s,all,,,,,,,,,,"
    ",,,,,,,,,5000000,,,,,,,,,,,,\n16.500,event,3,4300,add,,,,,,,,,,,,,,,,,,,,,,,,1795968004.400"
    ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n16.750,event,,,pause,,,,,,,,,,,,,,,,,,,,,,,,179596"
    "8004.650,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n";

static const char frames_jsonl[] =
    "{\"t_s\":12.346,\"kind\":\"worker\",\"state\":\"running\",\"id\":1,\"pid\":4242,\"mbit_s\":123.4568,"
    "\"batch"
    "es\":10,\"symbols\":5000000,\"kernel_busy\":0.5123,\"gap_kernel_us\":1.50,\"gap_batch_us\":2.25,\"ge"
    "n_us\":100.12,\"h2d_us\":20.50,\"kernel_us\":300.75,\"d2h_us\":10.00,\"other_us\":5.33,\"lost\":0,\"qu"
    "eue_wait_us\":4.50,\"sample_every\":16,\"observer_share\":0.0123,\"gen_busy\":0.250,\"observed\":tr"
    "ue,\"unix_s\":1795968000.250,\"gap_kernel_p50_us\":1.25,\"gap_kernel_p99_us\":4.00,\"gap_batch_p5"
    "0_us\":2.00,\"gap_batch_p99_us\":8.50,\"device\":\"0:1\",\"overlap_us\":0.50,\"batch_overlap_us\":3.7"
    "5,\"idle_host\":0.3000,\"idle_transfer\":0.1000,\"idle_launch\":0.0500,\"idle_wait\":0.0000,\"idle_"
    "other\":0.0377,\"hidden\":0.2500,\"source\":\"worker\",\"window_batches\":3,\"rate\":123.4568,\"items\""
    ":5000000,\"items_s\":123456789.0,\"batches_s\":3.000,\"transfer_busy\":0.0312,\"idle_copy\":0.0000"
    ",\"kernel_s\":6.250000,\"transfer_s\":0.500000}\n{\"t_s\":12.346,\"kind\":\"worker\",\"state\":"
    "\"failed\""
    ",\"id\":2,\"pid\":4243,\"batches\":0,\"symbols\":0,\"lost\":7,\"observed\":true,\"unix_s\":1795968000.25"
    "0,\"device\":\"1:0\",\"source\":\"worker\",\"window_batches\":0,\"error\":\"clBuildProgram: "
    "\\\"decode\\\" "
    "failed?line "
    "2\\\\\",\"items\":0}\n{\"t_s\":12.346,\"kind\":\"device\",\"procs\":1,\"mbit_s\":123.4568,\"bat"
    "ches\":10,\"symbols\":5000000,\"device_busy\":0.5123,\"headroom\":240.9670,\"lost\":7,\"profile\":\"sa"
    "mpled\",\"ceiling\":300.0000,\"of_ceiling\":0.4115,\"observed\":true,\"unix_s\":1795968000.250,\"gap"
    "_kernel_p50_us\":1.25,\"gap_kernel_p99_us\":4.00,\"gap_batch_p50_us\":2.00,\"gap_batch_p99_us\":8"
    ".50,\"kernel\":\"decode\",\"rate_unit\":\"Mbit/"
    "s\",\"device\":\"0:1\",\"idle_host\":0.4000,\"idle_transfe"
    "r\":0.0500,\"idle_launch\":0.0200,\"idle_wait\":0.0100,\"idle_other\":0.0077,\"ceiling_4x\":375.000"
    "0,\"window_s\":1.000,\"timebase\":\"host-timer\",\"device_busy_method\":\"union\",\"rate\":123.4568,\"i"
    "tems\":5000000,\"items_s\":123456789.0,\"batches_s\":0.000,\"idle_copy\":0.0000}\n{\"t_s\":12.346,\"k"
    "ind\":\"device\",\"procs\":0,\"mbit_s\":0.0000,\"batches\":0,\"symbols\":0,\"lost\":7,\"profile\":"
    "\"sample"
    "d\",\"observed\":true,\"unix_s\":1795968000.250,\"kernel\":\"decode\",\"rate_unit\":\"Mbit/"
    "s\",\"device\""
    ":\"1:0\",\"window_s\":1.000,\"timebase\":\"host-timer\",\"device_busy_method\":\"sum-capped\",\"rate\":0"
    ".0000,\"items\":0,\"items_s\":0.0,\"batches_s\":0.000}\n{\"t_s\":12.346,\"kind\":\"aggregate\","
    "\"procs\":"
    "2,\"mbit_s\":123.4568,\"batches\":10,\"symbols\":5000000,\"device_busy\":0.7500,\"headroom\":164.609"
    "1,\"lost\":7,\"profile\":\"sampled\",\"ceiling\":600.0000,\"of_ceiling\":0.2058,\"observed\":true,\"uni"
    "x_s\":1795968000.250,\"gap_kernel_p50_us\":1.25,\"gap_kernel_p99_us\":4.00,\"gap_batch_p50_us\":2"
    ".00,\"gap_batch_p99_us\":8.50,\"kernel\":\"decode\",\"rate_unit\":\"Mbit/"
    "s\",\"device\":\"all\",\"idle_ho"
    "st\":0.2000,\"idle_transfer\":0.0300,\"idle_launch\":0.0100,\"idle_wait\":0.0050,\"idle_other\":0.0"
    "050,\"ceiling_4x\":750.0000,\"window_s\":1.000,\"timebase\":\"host-timer\",\"device_busy_method\":\"u"
    "nion\",\"rate\":123.4568,\"items\":5000000,\"items_s\":123456789.0,\"batches_s\":0.000,\"idle_copy\":"
    "0.0000}\n{\"t_s\":13.346,\"kind\":\"aggregate\",\"procs\":0,\"mbit_s\":0.0000,\"batches\":10,"
    "\"symbols\":"
    "5000000,\"lost\":7,\"profile\":\"full\",\"observed\":true,\"unix_s\":1795968000.250,\"kernel\":\"decode"
    "\",\"rate_unit\":\"Mbit/"
    "s\",\"device\":\"all\",\"window_s\":1.000,\"timebase\":\"none\",\"device_busy_meth"
    "od\":\"sum-capped\",\"rate\":0.0000,\"items\":5000000,\"items_s\":0.0,\"batches_s\":0.000}\n{\"t_s\":16."
    "346,\"kind\":\"worker\",\"state\":\"running\",\"id\":1,\"pid\":4242,\"batches\":900,\"symbols\":5000000,"
    "\"l"
    "ost\":880,\"sample_every\":16,\"observer_share\":0.0123,\"observed\":false,\"unix_s\":1795968000.25"
    "0,\"device\":\"0:1\",\"source\":\"worker\",\"items\":5000000,\"transfer_busy\":0.0312,\"kernel_s\":6.250"
    "000,\"transfer_s\":0.500000}\n{\"t_s\":16.346,\"kind\":\"aggregate\",\"procs\":1,\"batches\":900,\"symbo"
    "ls\":5000000,\"lost\":880,\"profile\":\"full\",\"observed\":false,\"unix_s\":1795968000.250,\"kernel\":"
    "\"decode\",\"rate_unit\":\"Mbit/"
    "s\",\"device\":\"all\",\"window_s\":3.000,\"timebase\":\"none\",\"device_bu"
    "sy_method\":\"sum-capped\",\"items\":5000000}\n{\"t_s\":16.500,\"kind\":\"event\",\"state\":\"add\","
    "\"id\":3"
    ",\"pid\":4300,\"unix_s\":1795968004.400}\n{\"t_s\":16.750,\"kind\":\"event\",\"state\":\"pause\",\"unix_"
    "s\""
    ":1795968004.650}\n";

#define SWEEP_HEADER                                                                                         \
	"procs,queues,mbit_s,speedup,device_busy,gap_batch_us,headroom,of_ceiling,runs,rep,mbit_s_min,mbit_" \
	"s_"                                                                                                 \
	"max,mbit_s_sd,speedup_min,speedup_max,speedup_sd,within_spread,kind,run,kernel,rate_unit,queue_"    \
	"wait_"                                                                                              \
	"us,device,predicted_mbit_s,rate,rate_min,rate_max,rate_sd,predicted_rate\n"

/* The first columns as they always were; the spreads and kind after them. */
static const char sweep_csv[] = SWEEP_HEADER
    "1,1,100.5000,1.0000,0.5000,12.2500,201.0000,0.1675,1,,100.5000,100.5000,,1.0000,1.0000,,,sweep,,saxp"
    "y,Mitem/s,3.50,all,,100.5000,100.5000,100.5000,,\n"
    "2,4,190.2500,1.8930,0.9500,3.1250,200.2632,,1,,190.2500,190.2500,,1.8930,1.8930,,,sweep,,saxpy,Mitem"
    "/s,,all,201.0000,190.2500,190.2500,190.2500,,201.0000\n"
    "1,4,95.0000,,0.9000,3.0000,105.5556,,1,,95.0000,95.0000,,,,,,sweep,,saxpy,Mitem/s,,1:0,,95.0000,95.0"
    "000,95.0000,,\n"
    "4,1,,,,,,,1,,,,,,,,,sweep,,saxpy,Mitem/s,,all,,,,,,\n";

static const char sweep_jsonl[] =
    "{\"kind\":\"sweep\",\"procs\":1,\"queues\":1,\"mbit_s\":100.5000,\"speedup\":1.0000,\"device_busy\":"
    "0.5000,\"gap_batch_us\":12.2500,\"headroom\":201.0000,\"of_ceiling\":0.1675,\"runs\":1,\"mbit_s_min"
    "\":100.5000,\"mbit_s_max\":100.5000,\"speedup_min\":1.0000,\"speedup_max\":1.0000,\"kernel\":\"saxpy"
    "\",\"rate_unit\":\"Mitem/s\",\"queue_wait_us\":3.50,\"device\":\"all\",\"rate\":100.5000,\"rate_min"
    "\":100.5000,\"rate_max\":100.5000}\n"
    "{\"kind\":\"sweep\",\"procs\":2,\"queues\":4,\"mbit_s\":190.2500,\"speedup\":1.8930,\"device_busy\":"
    "0.9500,\"gap_batch_us\":3.1250,\"headroom\":200.2632,\"runs\":1,\"mbit_s_min\":190.2500,\"mbit_s_max"
    "\":190.2500,\"speedup_min\":1.8930,\"speedup_max\":1.8930,\"kernel\":\"saxpy\",\"rate_unit\":\"Mitem"
    "/s\",\"device\":\"all\",\"predicted_mbit_s\":201.0000,\"rate\":190.2500,\"rate_min\":190.2500,\"rate"
    "_max\":190.2500,\"predicted_rate\":201.0000}\n"
    "{\"kind\":\"sweep\",\"procs\":1,\"queues\":4,\"mbit_s\":95.0000,\"speedup\":null,\"device_busy\":0.9"
    "000,\"gap_batch_us\":3.0000,\"headroom\":105.5556,\"runs\":1,\"mbit_s_min\":95.0000,\"mbit_s_max\":9"
    "5.0000,\"kernel\":\"saxpy\",\"rate_unit\":\"Mitem/s\",\"device\":\"1:0\",\"rate\":95.0000,\"rate_min"
    "\":95.0000,\"rate_max\":95.0000}\n"
    "{\"kind\":\"sweep\",\"procs\":4,\"queues\":1,\"mbit_s\":null,\"speedup\":null,\"runs\":1,\"kernel\":"
    "\"saxpy\",\"rate_unit\":\"Mitem/s\",\"device\":\"all\",\"rate\":null}\n";

static const char repeats_csv[] = SWEEP_HEADER
    "1,1,100.0000,1.0000,0.5000,12.0000,200.0000,,,1,,,,,,,,repeat,,decode,Mbit/s,,all,,100.0000,,,,\n"
    "2,1,118.0000,1.1800,0.6000,10.0000,196.6667,,,1,,,,,,,,repeat,,decode,Mbit/s,,all,,118.0000,,,,\n"
    "1,1,110.0000,1.0000,0.5000,12.0000,220.0000,,,2,,,,,,,,repeat,,decode,Mbit/s,,all,,110.0000,,,,\n"
    "2,1,99.0000,0.9000,0.6000,10.0000,165.0000,,,2,,,,,,,,repeat,,decode,Mbit/s,,all,,99.0000,,,,\n"
    "1,1,105.0000,1.0000,0.5000,12.0000,210.0000,,2,,100.0000,110.0000,7.0711,1.0000,1.0000,0.0000,,sweep"
    ",,decode,Mbit/s,,all,,105.0000,100.0000,110.0000,7.0711,\n"
    "2,1,108.5000,1.0333,0.6000,10.0000,180.8333,,2,,99.0000,118.0000,13.4350,0.9000,1.1800,0.1980,1,swee"
    "p,,decode,Mbit/s,,all,,108.5000,99.0000,118.0000,13.4350,\n";

static const char repeats_jsonl[] =
    "{\"kind\":\"repeat\",\"procs\":1,\"queues\":1,\"mbit_s\":100.0000,\"speedup\":1.0000,\"device_busy\""
    ":0.5000,\"gap_batch_us\":12.0000,\"headroom\":200.0000,\"rep\":1,\"kernel\":\"decode\",\"rate_unit\""
    ":\"Mbit/s\",\"device\":\"all\",\"rate\":100.0000}\n"
    "{\"kind\":\"repeat\",\"procs\":2,\"queues\":1,\"mbit_s\":118.0000,\"speedup\":1.1800,\"device_busy\""
    ":0.6000,\"gap_batch_us\":10.0000,\"headroom\":196.6667,\"rep\":1,\"kernel\":\"decode\",\"rate_unit\""
    ":\"Mbit/s\",\"device\":\"all\",\"rate\":118.0000}\n"
    "{\"kind\":\"repeat\",\"procs\":1,\"queues\":1,\"mbit_s\":110.0000,\"speedup\":1.0000,\"device_busy\""
    ":0.5000,\"gap_batch_us\":12.0000,\"headroom\":220.0000,\"rep\":2,\"kernel\":\"decode\",\"rate_unit\""
    ":\"Mbit/s\",\"device\":\"all\",\"rate\":110.0000}\n"
    "{\"kind\":\"repeat\",\"procs\":2,\"queues\":1,\"mbit_s\":99.0000,\"speedup\":0.9000,\"device_busy\":"
    "0.6000,\"gap_batch_us\":10.0000,\"headroom\":165.0000,\"rep\":2,\"kernel\":\"decode\",\"rate_unit\":"
    "\"Mbit/s\",\"device\":\"all\",\"rate\":99.0000}\n"
    "{\"kind\":\"sweep\",\"procs\":1,\"queues\":1,\"mbit_s\":105.0000,\"speedup\":1.0000,\"device_busy\":"
    "0.5000,\"gap_batch_us\":12.0000,\"headroom\":210.0000,\"runs\":2,\"mbit_s_min\":100.0000,\"mbit_s_ma"
    "x\":110.0000,\"mbit_s_sd\":7.0711,\"speedup_min\":1.0000,\"speedup_max\":1.0000,\"speedup_sd\":0.000"
    "0,\"kernel\":\"decode\",\"rate_unit\":\"Mbit/s\",\"device\":\"all\",\"rate\":105.0000,\"rate_min\":1"
    "00.0000,\"rate_max\":110.0000,\"rate_sd\":7.0711}\n"
    "{\"kind\":\"sweep\",\"procs\":2,\"queues\":1,\"mbit_s\":108.5000,\"speedup\":1.0333,\"device_busy\":"
    "0.6000,\"gap_batch_us\":10.0000,\"headroom\":180.8333,\"runs\":2,\"mbit_s_min\":99.0000,\"mbit_s_max"
    "\":118.0000,\"mbit_s_sd\":13.4350,\"speedup_min\":0.9000,\"speedup_max\":1.1800,\"speedup_sd\":0.198"
    "0,\"within_spread\":true,\"kernel\":\"decode\",\"rate_unit\":\"Mbit/s\",\"device\":\"all\",\"rate\":"
    "108.5000,\"rate_min\":99.0000,\"rate_max\":118.0000,\"rate_sd\":13.4350}\n";

/* ---- the run header ---- */

/* The options object as the caller renders it (every option of the run, resolved): the sink
 * carries it as it is. */
static const char run_options[] = "{\"procs\":2,\"size\":1000,\"output\":\"a \\\"b\\\".csv\",\"mode\":"
                                  "\"pipelined\",\"queues\":4,\"headless\":true,\"sample-every\":null}";
/* The same in a CSV cell: every quote doubled. */
static const char run_options_csv[] =
    "{\"\"procs\"\":2,\"\"size\"\":1000,\"\"output\"\":\"\"a \\\"\"b\\\"\".csv\"\","
    "\"\"mode\"\":\"\"pipelined\"\",\"\"queues\"\":4,\"\"headless\"\":true,"
    "\"\"sample-every\"\":null}";
static const char sweep_options[] =
    "{\"sweep\":\"1,2x4\",\"repeat\":3,\"duration\":10,\"mode\":\"kernel-only\"}";
static const char sweep_options_csv[] =
    "{\"\"sweep\"\":\"\"1,2x4\"\",\"\"repeat\"\":3,\"\"duration\"\":10,\"\"mode\"\":\"\"kernel-only\"\"}";

static const struct gd_device run_devs[2] = { { .platform = 0,
	                                        .index = 1,
	                                        .ref = "0:1",
	                                        .name = "Test \"GPU\" \\ 1",
	                                        .platform_name = "Test Platform",
	                                        .version = "OpenCL 3.0 test",
	                                        .driver = "555.42",
	                                        .gpu = true,
	                                        .fp64 = true },
	                                      { .platform = 1,
	                                        .index = 0,
	                                        .ref = "1:0",
	                                        .name = "second",
	                                        .platform_name = "Other",
	                                        .version = "OpenCL 1.2",
	                                        .driver = "1" } };

static void write_run_frames(struct gd_sink *s)
{
	sink_run(s, run_devs, 1, run_options, false);
	struct gd_frame f = {
		.t_s = 1, .observed = true, .window_s = 1, .device_busy = NAN, .headroom = NAN
	};
	f.agg.bd = unmeasured;
	f.agg.idle = undiagnosed;
	sink_frame(s, &f);
}

static void write_run_only(struct gd_sink *s)
{
	sink_run(s, run_devs, 1, run_options, false);
}

static void write_run_two_devices(struct gd_sink *s)
{
	sink_run(s, run_devs, 2, run_options, false);
}

static void write_run_sweep(struct gd_sink *s)
{
	sink_run(s, run_devs, 1, sweep_options, true);
	write_sweep(s);
}

/* Line i (from 0) of text, in buf. */
static const char *line_of(const char *text, int i, char *buf, size_t n)
{
	for (; text && i > 0; i--) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	snprintf(buf, n, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
	return buf;
}

static bool starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The run object ends with the options as given: want, then the object's closing brace and
 * what closes the row (end). */
static bool ends_with_options(const char *line, const char *quote, const char *want, const char *end)
{
	char key[64], text[1024];
	snprintf(key, sizeof(key), "%soptions%s:", quote, quote);
	const char *at = strstr(line, key);
	snprintf(text, sizeof(text), "%s%s}%s", key, want, end);
	return at && strcmp(at, text) == 0;
}

static void test_run_header(void)
{
	char host[256] = "", want[1024], buf[4096];
	gethostname(host, sizeof(host) - 1);
	char *csv = sink_text(GD_FMT_CSV, write_run_frames);
	char *jsonl = sink_text(GD_FMT_JSONL, write_run_frames);
	line_of(csv, 1, buf, sizeof(buf));
	char empty[64] = "0.000,run,"; /* t_s, kind, then id .. observed (26 columns) empty */
	memset(empty + strlen(empty), ',', 26);
	tap_ok(strncmp(csv ? csv : "", frames_csv, strcspn(frames_csv, "\n") + 1) == 0 && starts(buf, empty),
	       "CSV: the header, then the run row first: kind run at t_s 0, the frame columns empty");
	snprintf(
	    want, sizeof(want),
	    ",,,,,\"{\"\"version\"\":\"\"" GD_VERSION
	    "\"\",\"\"host\"\":\"\"%s\"\",\"\"device_name\"\":\"\"Test "
	    "\\\"\"GPU\\\"\" \\\\ 1\"\",\"\"platform\"\":\"\"Test "
	    "Platform\"\",\"\"driver\"\":\"\"555.42\"\",\"\""
	    "opencl\"\":\"\"OpenCL 3.0 test\"\",\"\"gpu\"\":true,\"\"fp64\"\":true,"
	    "\"\"devices\"\":[{\"\"device\"\":\"\"0:1\"\",\"\"name\"\":\"\"Test \\\"\"GPU\\\"\" \\\\ 1\"\"}],"
	    "\"\"options\"\":",
	    host);
	tap_ok(strstr(buf, want) != NULL, "CSV: the run cell is JSON in one quoted cell, quotes doubled");
	double unix_s = 0;
	sscanf(buf + strlen(empty), "%lf", &unix_s);
	tap_ok(unix_s > 1.6e9, "CSV: the run row has unix_s (%.3f)", unix_s);
	if (!tap_ok(ends_with_options(buf, "\"\"", run_options_csv,
	                              "\""
	                              ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"),
	            "CSV: the options object closes the run cell as given, its quotes doubled; the kernel, "
	            "unit, device, overlap and idle columns empty"))
		printf("#   %s\n", buf);
	line_of(csv, 2, buf, sizeof(buf));
	tap_ok(starts(buf, "1.000,aggregate,"), "CSV: the frame follows the run row");

	line_of(jsonl, 0, buf, sizeof(buf));
	tap_ok(starts(buf, "{\"t_s\":0.000,\"kind\":\"run\",\"unix_s\":"),
	       "JSONL: the first line is the run row (t_s, kind run, unix_s)");
	snprintf(want, sizeof(want),
	         ",\"run\":{\"version\":\"" GD_VERSION
	         "\",\"host\":\"%s\",\"device_name\":\"Test \\\"GPU\\\" \\\\ 1\","
	         "\"platform\":\"Test Platform\",\"driver\":\"555.42\",\"opencl\":\"OpenCL 3.0 "
	         "test\",\"gpu\":true,"
	         "\"fp64\":true,\"devices\":[{\"device\":\"0:1\",\"name\":\"Test \\\"GPU\\\" \\\\ 1\"}],"
	         "\"options\":",
	         host);
	tap_ok(strstr(buf, want) != NULL && strcmp(buf + strlen(buf) - 3, "}}}") == 0,
	       "JSONL: run is an object: version, host, device (escaped), platform, driver, OpenCL version, "
	       "options");
	if (!tap_ok(ends_with_options(buf, "\"", run_options, "}"),
	            "JSONL: the options object closes the run object, as given"))
		printf("#   %s\n", buf);
	line_of(jsonl, 1, buf, sizeof(buf));
	tap_ok(starts(buf, "{\"t_s\":1.000,\"kind\":\"aggregate\""), "JSONL: the frame follows");
	free(csv);
	free(jsonl);

	/* A log with no row after the header still has it: sink_close writes it. */
	jsonl = sink_text(GD_FMT_JSONL, write_run_only);
	tap_ok(starts(jsonl, "{\"t_s\":0.000,\"kind\":\"run\"") && strchr(jsonl, '\n') &&
	           strchr(jsonl, '\n')[1] == '\0',
	       "a run with no window: its log is the run row alone");
	free(jsonl);

	/* Every device of the run by its P:D and name; the facts before them are the first one's. */
	jsonl = sink_text(GD_FMT_JSONL, write_run_two_devices);
	line_of(jsonl, 0, buf, sizeof(buf));
	tap_ok(strstr(buf, "\"device_name\":\"Test \\\"GPU\\\" \\\\ 1\",\"platform\":\"Test Platform\",") &&
	           strstr(buf, ",\"devices\":[{\"device\":\"0:1\",\"name\":\"Test \\\"GPU\\\" \\\\ 1\"},"
	                       "{\"device\":\"1:0\",\"name\":\"second\"}],\"options\":"),
	       "two devices: the first one's facts, then each device's P:D and name");
	free(jsonl);

	csv = sink_text(GD_FMT_CSV, write_run_sweep);
	line_of(csv, 1, buf, sizeof(buf));
	tap_ok(strncmp(csv ? csv : "", SWEEP_HEADER, strlen(SWEEP_HEADER)) == 0 &&
	           starts(buf, ",,,,,,,,,,,,,,,,,run,\"{"),
	       "sweep CSV: the sweep header, then the run row: kind run, the run cell");
	if (!tap_ok(ends_with_options(buf, "\"\"", sweep_options_csv, "\",,,,,,,,,,"),
	            "sweep CSV: the sweep's options object closes the run cell, as given"))
		printf("#   %s\n", buf);
	line_of(csv, 2, buf, sizeof(buf));
	tap_ok(starts(buf, "1,1,100.5000,"), "sweep CSV: the steps follow");
	free(csv);
	jsonl = sink_text(GD_FMT_JSONL, write_run_sweep);
	line_of(jsonl, 0, buf, sizeof(buf));
	tap_ok(starts(buf, "{\"kind\":\"run\",\"run\":{\"version\":") &&
	           ends_with_options(buf, "\"", sweep_options, "}"),
	       "sweep JSONL: the run row first, with the sweep's options");
	free(jsonl);
}

/* ---- --fields and --no-header ---- */

static struct gd_fields cols;
static bool cols_header;

static void write_columns(struct gd_sink *s)
{
	sink_set_columns(s, &cols, cols_header);
	if (cols.sweep)
		write_sweep(s);
	else
		write_frames(s);
}

/* The text's first n lines equal want. */
static bool opens_with(const char *text, const char *want)
{
	return text && strncmp(text, want, strlen(want)) == 0;
}

static void test_columns(void)
{
	char err[256] = "";
	tap_ok(sink_fields_parse("kind,id,error,t_s", false, &cols, err, sizeof(err)) == 0 && cols.n == 4 &&
	           !cols.sweep,
	       "--fields kind,id,error,t_s: four of the frame rows' fields (%s)", err);
	cols_header = true;
	char *got = sink_text(GD_FMT_CSV, write_columns);
	const char *want = "kind,id,error,t_s\nworker,1,,12.346\n"
	                   "worker,2,\"clBuildProgram: \"\"decode\"\" failed?line 2\\\",12.346\n"
	                   "device,,,12.346\n";
	if (!tap_ok(opens_with(got, want),
	            "CSV: exactly those columns in that order, a JSONL-only field too, quoted where it holds "
	            "quotes, a line end cleaned to '?'"))
		printf("#   got:\n%s\n", got ? got : "(nothing)");
	free(got);
	cols_header = false;
	got = sink_text(GD_FMT_CSV, write_columns);
	tap_ok(opens_with(got, "worker,1,,12.346\nworker,2,"),
	       "--no-header: no line of names, the rows alone");
	free(got);
	cols_header = true;
	got = sink_text(GD_FMT_JSONL, write_columns);
	want = "{\"kind\":\"worker\",\"id\":1,\"t_s\":12.346}\n"
	       "{\"kind\":\"worker\",\"id\":2,\"error\":\"clBuildProgram: \\\"decode\\\" failed?line "
	       "2\\\\\","
	       "\"t_s\":12.346}\n{\"kind\":\"device\",\"t_s\":12.346}\n";
	if (!tap_ok(opens_with(got, want),
	            "JSONL: only those keys, in that order; a value not measured left out"))
		printf("#   got:\n%s\n", got ? got : "(nothing)");
	free(got);

	tap_ok(sink_fields_parse("procs,speedup,device", true, &cols, err, sizeof(err)) == 0 && cols.n == 3 &&
	           cols.sweep,
	       "a sweep's --fields: the sweep rows' fields (%s)", err);
	got = sink_text(GD_FMT_CSV, write_columns);
	if (!tap_ok(opens_with(got, "procs,speedup,device\n1,1.0000,all\n2,1.8930,all\n1,,1:0\n"),
	            "a sweep's CSV: those columns"))
		printf("#   got:\n%s\n", got ? got : "(nothing)");
	free(got);

	static const struct {
		const char *list;
		bool sweep;
		const char *says;
	} bad_lists[] = {
		{ "t_s,bogus,kind", false, "unknown field 'bogus'" },
		{ "", false, "an empty field name in ''" },
		{ "t_s,,kind", false, "an empty field name" },
		{ "t_s,", false, "an empty field name" },
		{ "kind,t_s,kind", false, "field 'kind' is listed twice" },
		{ "speedup", false, "unknown field 'speedup'" },
		{ "t_s", true, "unknown field 't_s' (the sweep rows'" },
		{ "T_S", false, "unknown field 'T_S'" },
	};
	for (size_t i = 0; i < GD_ARRAY_LEN(bad_lists); i++) {
		struct gd_fields f;
		err[0] = '\0';
		int rc = sink_fields_parse(bad_lists[i].list, bad_lists[i].sweep, &f, err, sizeof(err));
		if (!tap_ok(rc == -1 && strstr(err, bad_lists[i].says) && !strchr(err, '\n'), "refused: '%s'",
		            bad_lists[i].list))
			printf("#   rc %d: %s\n", rc, err);
	}
	/* Every column of the default header, in its order: the default CSV, byte for byte. */
	char names[2048];
	snprintf(names, sizeof(names), "%.*s", (int)strcspn(frames_csv, "\n"), frames_csv);
	tap_ok(sink_fields_parse(names, false, &cols, err, sizeof(err)) == 0,
	       "every CSV column is a field (%s)", err);
	check(GD_FMT_CSV, write_columns, frames_csv,
	      "--fields with the default header's names: the default CSV");
}

/* ---- a rate unit of the user's (sink_set_rate_unit) ---- */

static void write_frames_in_bits(struct gd_sink *s)
{
	sink_set_kernel(s, "observed", "Mitem/s");
	sink_set_rate_unit(s, "Mbit/s", 10); /* ten work items a bit */
	sink_set_columns(s, &cols, true);
	write_frames(s);
}

static void write_sweep_in_bits(struct gd_sink *s)
{
	sink_set_rate_unit(s, "Mbit/s", 10);
	sink_set_columns(s, &cols, true);
	write_sweep(s);
}

/* Every rate of the log in the unit named (the rate and its old name alike, the headroom, the
 * ceiling), rate_unit saying it; counts and rates per second of items as they are. */
static void test_rate_unit(void)
{
	char err[256], buf[512];
	tap_ok(sink_fields_parse("kind,rate,mbit_s,rate_unit,items,items_s,headroom,ceiling", false, &cols,
	                         err, sizeof(err)) == 0,
	       "rate unit: the columns parse");
	char *csv = sink_text(GD_FMT_CSV, write_frames_in_bits);
	tap_ok(strcmp(line_of(csv, 1, buf, sizeof(buf)), "worker,12.3457,12.3457,,5000000,123456789.0,,") ==
	           0,
	       "rate unit: a worker's rate over 10 items a bit, its items and items_s as counted (%s)", buf);
	tap_ok(strcmp(line_of(csv, 5, buf, sizeof(buf)),
	              "aggregate,12.3457,12.3457,Mbit/s,5000000,123456789.0,16.4609,60.0000") == 0,
	       "rate unit: the aggregate's rate, headroom and ceiling in it, rate_unit naming it (%s)", buf);
	free(csv);
	tap_ok(sink_fields_parse("procs,rate,mbit_s,rate_unit,predicted_rate,speedup", true, &cols, err,
	                         sizeof(err)) == 0,
	       "rate unit: the sweep's columns parse");
	csv = sink_text(GD_FMT_CSV, write_sweep_in_bits);
	tap_ok(strcmp(line_of(csv, 2, buf, sizeof(buf)), "2,19.0250,19.0250,Mbit/s,20.1000,1.8930") == 0,
	       "rate unit: a sweep row's rates in it, its speedup a ratio as before (%s)", buf);
	free(csv);
	memset(&cols, 0, sizeof(cols));
}

int main(void)
{
	check(GD_FMT_CSV, write_frames, frames_csv, "CSV frames: header once, empty cells where not carried");
	check(GD_FMT_JSONL, write_frames, frames_jsonl, "JSONL frames: fields left out where not carried");
	check(GD_FMT_CSV, write_sweep, sweep_csv, "CSV sweep rows");
	check(GD_FMT_JSONL, write_sweep, sweep_jsonl, "JSONL sweep rows");
	check(GD_FMT_CSV, write_repeats, repeats_csv,
	      "CSV --repeat: a row per run, then summaries with spreads");
	check(GD_FMT_JSONL, write_repeats, repeats_jsonl, "JSONL --repeat: a row per run, then summaries");
	test_run_header();
	test_columns();
	test_rate_unit();
	return tap_done();
}

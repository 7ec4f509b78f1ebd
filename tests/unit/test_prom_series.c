/* test_prom_series.c: the Prometheus text's series of an observed program (prom_rows.c). A copy
 * whose children come and go over a run of frames: one series per copy and device whatever
 * its processes, its counters the sum of its processes' and never going back when one ends,
 * its state set counting its processes, its info the copy's own pid; workers beside it keep
 * their own series; copy 0's series kept while the program runs. Also the labels every series
 * carries: a device by its PCI address, UUID or name and its P:D as index, states as
 * snake_case, no label value with a space, text from outside cleaned; and --prom-file removed
 * when the exporter closes. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "output/prom.h"
#include "tap.h"

static const struct gd_device devs[1] = {
	{ .platform = 0,
	  .index = 0,
	  .ref = "0:0",
	  .name = "cpu of the host",
	  .platform_name = "Portable Computing Language",
	  .driver = "6.0",
	  .uuid = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0, 1, 2, 3, 4, 5, 6, 7 },
	  .has_uuid = true },
};

/* A process of copy `copy` (its own row where id == copy) with n batches counted since it
 * started, 0.5 s of kernels and 0.1 s of generation each. */
static struct gd_sample proc(unsigned id, unsigned copy, enum gd_state st, uint64_t n)
{
	struct gd_sample s = { .id = id,
		               .device = 0,
		               .pid = (pid_t)(1000 + id),
		               .state = st,
		               .observed = true,
		               .copy = copy,
		               .rate = NAN,
		               .kernel_busy = NAN,
		               .bd = GD_BREAKDOWN_NONE,
		               .exit_status = -1 };
	snprintf(s.comm, sizeof(s.comm), id == copy ? "app parent" : "app child");
	s.tot.batches = s.tot.phase_batches = n;
	s.tot.items = 1000 * n;
	s.tot.kernel_s = 0.5 * (double)n;
	s.tot.phase_s[GD_PHASE_GEN] = 0.1 * (double)n;
	s.tot.bgap.n = n;
	s.tot.bgap.le[3] = n;
	s.sample_every = n ? 8 : 0;
	return s;
}

static struct gd_frame frame(struct gd_sample *rows, int n)
{
	struct gd_frame f = { .observed = true,
		              .window_s = 1,
		              .unix_s = 1700000000,
		              .nworkers = n,
		              .workers = rows,
		              .ndevs = 1,
		              .ceiling = NAN,
		              .ceiling_4x = NAN,
		              .device_busy = NAN };
	f.devs[0] = (struct gd_devframe){ .ref = "0:0",
		                          .device_busy = NAN,
		                          .headroom = NAN,
		                          .ceiling = NAN,
		                          .of_ceiling = NAN,
		                          .ceiling_4x = NAN,
		                          .driver_util = NAN,
		                          .sm_active = NAN,
		                          .sm_occupancy = NAN,
		                          .mem_used_bytes = NAN };
	f.devs[0].agg.idle = (struct gd_idle)GD_IDLE_NONE;
	return f;
}

/* Lines of text that are samples (not HELP or TYPE). */
static int samples(const char *text)
{
	int n = 0;
	for (const char *p = text; *p; p = strchr(p, '\n') + 1)
		n += *p != '#';
	return n;
}

/* The value of the sample line that starts with prefix, or NAN. */
static double value_of(const char *text, const char *prefix)
{
	for (const char *p = text; (p = strstr(p, prefix)); p++)
		if (p == text || p[-1] == '\n')
			return strtod(p + strlen(prefix), NULL);
	return NAN;
}

/* The series of text: its sample lines without their values, one a line, to free. */
static char *series_of(const char *text)
{
	struct gd_text out = { 0 };
	text_printf(&out, "%s", "");
	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		const char *v = strchr(p, '\n');
		while (v > p && *v != ' ')
			v--;
		if (*p != '#')
			text_printf(&out, "%.*s\n", (int)(v - p), p);
	}
	return out.p;
}

/* Whether some label value of text holds a space. */
static bool spaced_label(const char *text)
{
	for (const char *p = text; (p = strstr(p, "=\"")); p++) {
		const char *e = p + 2;
		while (*e && *e != '"')
			e += *e == '\\' ? 2 : 1;
		if (memchr(p + 2, ' ', (size_t)(e - p - 2)))
			return true;
	}
	return false;
}

#define L "{copy=\"1\",device=\"12345678-9abc-def0-0001-020304050607\",index=\"0:0\"}"

static void test_copies(void)
{
	struct prom_memory *mem = prom_memory_new();
	struct gd_sample rows[4];
	size_t len;
	/* Frame 1: the copy (no OpenCL call) and worker 5 beside it. */
	rows[0] = proc(1, 1, GD_ST_NOCL, 0);
	rows[1] = proc(5, 0, GD_ST_RUNNING, 3);
	rows[1].observed = false;
	struct gd_frame f = frame(rows, 2);
	char *t = prom_render(&f, devs, mem, &len);
	int first = samples(t);
	tap_ok(strstr(t,
	              "gputop_decode_worker_state{copy=\"1\",device=\"12345678-9abc-def0-0001-020304050607\","
	              "index=\"0:0\",state=\"no_opencl_calls_seen\"} 1\n") != NULL,
	       "a copy's series: labels copy, device (the UUID), index; the state as an identifier");
	tap_ok(strstr(t, "gputop_decode_symbols_total{worker=\"5\",") != NULL,
	       "a worker keeps its own series");
	tap_ok(!spaced_label(t), "no label value holds a space");
	tap_ok(strstr(t, "name=\"cpu_of_the_host\"") &&
	           strstr(t, "platform=\"Portable_Computing_Language\"") &&
	           strstr(t, "command=\"app_parent\""),
	       "names with spaces written with _");
	free(t);

	/* Frames 2 to 7: children 2, 3, 4 ... each in one or two frames, then gone. The copy's
	 * counters are every process's, ended ones too, and only grow; its series stay the same. */
	double last = 0;
	bool grows = true;
	for (unsigned k = 2; k < 8; k++) {
		rows[0] = proc(1, 1, GD_ST_NOCL, 0);
		rows[1] = proc(5, 0, GD_ST_RUNNING, 3 + k);
		rows[1].observed = false;
		rows[2] = proc(k, 1, GD_ST_RUNNING, 2);
		rows[3] = proc(k + 100, 1, k % 2 ? GD_ST_EXITED : GD_ST_STARTING, k % 2 ? 4 : 0);
		f = frame(rows, 4);
		t = prom_render(&f, devs, mem, &len);
		double v = value_of(t, "gputop_decode_batches_total" L " ");
		grows = grows && v >= last;
		last = v;
		if (k == 7) {
			/* 2 each for children 2..6 (ended), 4 for the even ks' second child that
			 * ended (103, 105), 2 + 4 now. */
			TAP_EQ_U((unsigned)v, 2 * 5 + 4 * 2 + 2 + 4,
			         "the copy's batches: its processes', ended ones too");
			tap_ok(
			    value_of(t,
			             "gputop_decode_worker_state{copy=\"1\",device=\"12345678-9abc-def0-0001-"
			             "020304050607\",index=\"0:0\",state=\"running\"} ") == 1 &&
			        value_of(t,
			                 "gputop_decode_worker_state{copy=\"1\",device=\"12345678-9abc-def0-"
			                 "0001-020304050607\",index=\"0:0\",state=\"exited\"} ") == 1,
			    "the copy's state set counts its processes in each state");
			tap_ok(strstr(t,
			              "gputop_decode_worker_info{copy=\"1\",device=\"12345678-9abc-def0-0001-"
			              "020304050607\",index=\"0:0\",pid=\"1001\",source=\"observed\","
			              "command=\"app_parent\"} 1\n") &&
			           !strstr(t, "pid=\"1007\""),
			       "the copy's info: the copy's own pid and name, no child's");
			tap_ok(value_of(t, "gputop_decode_phase_batches_total" L " ") == v &&
			           value_of(t, "gputop_decode_gap_batch_seconds_count" L " ") == v,
			       "its phase batches and histograms summed too");
		}
		free(t);
	}
	tap_ok(grows, "the copy's counter never goes back as processes end (%g)", last);

	/* The series a run of frames shows: the same in every frame, the copy's, the worker's. */
	char *prev = NULL;
	bool same = true;
	for (unsigned k = 10; k < 16; k++) {
		rows[0] = proc(1, 1, GD_ST_NOCL, 0);
		rows[1] = proc(5, 0, GD_ST_RUNNING, 20 + k);
		rows[1].observed = false;
		rows[2] = proc(k, 1, GD_ST_RUNNING, 1);
		int n = k % 3 ? 3 : 2; /* a frame now and then without a child */
		f = frame(rows, n);
		t = prom_render(&f, devs, mem, &len);
		char *now = series_of(t);
		if (prev && strcmp(prev, now) != 0)
			same = false;
		free(prev);
		free(t);
		prev = now;
	}
	tap_ok(same && samples(prev) > first, "the same series in every frame while children come and go");
	free(prev);
	prom_memory_free(mem);
}

/* A process outside every copy's group (copy 0: found once it had ended) keeps its series,
 * with its counts, while the program shows any process. */
static void test_outsiders(void)
{
	struct prom_memory *mem = prom_memory_new();
	struct gd_sample rows[2] = { proc(1, 1, GD_ST_NOCL, 0), proc(9, 0, GD_ST_EXITED, 5) };
	struct gd_frame f = frame(rows, 2);
	size_t len;
	char *t = prom_render(&f, devs, mem, &len);
	char *before = series_of(t);
	free(t);
	f = frame(rows, 1);
	t = prom_render(&f, devs, mem, &len);
	char *after = series_of(t);
	tap_ok(strcmp(before, after) == 0 &&
	           value_of(t, "gputop_decode_batches_total{copy=\"0\",device=\"12345678-9abc-def0-0001-"
	                       "020304050607\",index=\"0:0\"} ") == 5,
	       "copy 0's series stay after its process ended, with its counts");
	free(t);
	f = frame(rows, 0);
	t = prom_render(&f, devs, mem, &len);
	tap_ok(!strstr(t, "copy="), "and go with the program's last process");
	free(t);
	free(before);
	free(after);
	prom_memory_free(mem);
}

static void test_identity(void)
{
	struct gd_device d[1] = { devs[0] };
	str_copy(d[0].pci, sizeof(d[0].pci), "0000:65:00.0");
	struct gd_sample rows[1] = { proc(3, 0, GD_ST_RUNNING, 1) };
	rows[0].observed = false;
	struct gd_frame f = frame(rows, 1);
	size_t len;
	char *t = prom_render(&f, d, NULL, &len);
	tap_ok(
	    strstr(t,
	           "gputop_decode_batches_total{worker=\"3\",device=\"0000:65:00.0\",index=\"0:0\"} 1\n") &&
	        strstr(t, "gputop_decode_device_info{device=\"0000:65:00.0\",index=\"0:0\",name="),
	    "a PCI address is the device's identity before its UUID");
	free(t);
	d[0].has_uuid = false;
	d[0].pci[0] = '\0';
	t = prom_render(&f, d, NULL, &len);
	tap_ok(strstr(t, "{worker=\"3\",device=\"cpu_of_the_host\",index=\"0:0\"}") != NULL,
	       "neither (PoCL): its name, a space written _");
	free(t);
}

/* Text from outside that is no UTF-8 or holds control bytes: the exposition stays UTF-8 text,
 * one sample a line. */
static void test_odd_text(void)
{
	struct gd_device d[1] = { devs[0] };
	str_copy(d[0].name, sizeof(d[0].name), "bad\xff\xc0\x80 \r\tname\xe2\x82");
	struct gd_frame f = frame(NULL, 0);
	size_t len;
	char *t = prom_render(&f, d, NULL, &len);
	tap_ok(strstr(t, ",index=\"0:0\",name=\"bad???_??name??\",platform=") != NULL,
	       "label values: bytes that are no UTF-8 and control characters become '?', as in every output");
	free(t);
}

/* A clean end: the file's values are no longer true, so it goes. */
static void test_file_removed(void)
{
	char dir[] = "/tmp/gputop-decode-prom.XXXXXX", path[64], err[256];
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	struct gd_prom_config c = { .file = path, .ndevs = 1, .devs = devs };
	struct gd_prom *p = prom_open(&c, err, sizeof(err));
	struct gd_frame f = frame(NULL, 0);
	prom_output.frame(p, &f, err, sizeof(err));
	bool written = false;
	for (int tries = 0; tries < 600 && !written; tries++) /* the exporter's thread writes it */
		if (!(written = access(path, F_OK) == 0))
			usleep(50000);
	tap_ok(written, "the file is written");
	tap_ok(prom_close(p, err, sizeof(err)) == 0 && access(path, F_OK) != 0,
	       "closing the exporter removes the file it wrote, and reports no error");
	tap_ok(rmdir(dir) == 0, "and leaves nothing beside it");
}

int main(void)
{
	test_copies();
	test_outsiders();
	test_identity();
	test_odd_text();
	test_file_removed();
	return tap_done();
}

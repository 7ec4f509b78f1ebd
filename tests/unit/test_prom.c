/* test_prom.c: the Prometheus exposition. The exact text of a synthetic frame (a running worker,
 * a failed one with unmeasured numbers, a device name that needs escaping; then two devices,
 * each with its own figures), the real libmicrohttpd server on a loopback port (GET /metrics,
 * 404, 405, a port in use, 40 stalled clients that do not hold up another), and --prom-file
 * (replaced whole, no temporary file left, bad paths refused, a failed write reported at
 * close). Frames reach the exporter through its output interface (prom_output). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "gputop/common.h"
#include "output/prom.h"
#include "tap.h"

static const struct gd_breakdown unmeasured = GD_BREAKDOWN_NONE;

static struct gd_sample workers[2];
static const struct gd_device devs[2] = {
	{ .platform = 0,
	  .index = 1,
	  .ref = "0:1",
	  .pci = "0000:65:00.0",
	  .name = "a \"quoted\" \\ name",
	  .platform_name = "Portable",
	  .driver = "3.1" },
	{ .platform = 1, .index = 0, .ref = "1:0", .name = "second", .platform_name = "Other" },
};

/* Counters with nothing counted, as the collector starts them (profiled: device times measured). */
static struct gd_counters counters(bool profiled)
{
	struct gd_counters t;
	memset(&t, 0, sizeof(t));
	t.kernel_s = t.busy_s = profiled ? 0 : NAN;
	for (int p = 0; p < GD_PHASE_COUNT; p++)
		t.phase_s[p] = p == GD_PHASE_GEN || profiled ? 0 : NAN;
	return t;
}

/* A device's share of a frame, as collect.c fills it. */
static struct gd_devframe devframe(int d, int procs, double mbit_s, double busy)
{
	struct gd_devframe df = { .agg = { .device = d, .rate = mbit_s, .bd = unmeasured },
		                  .procs = procs,
		                  .device_busy = busy,
		                  .headroom = busy > 0 ? mbit_s / busy : NAN,
		                  .ceiling = NAN,
		                  .of_ceiling = NAN,
		                  .ceiling_4x = NAN };
	snprintf(df.ref, sizeof(df.ref), "%s", devs[d].ref);
	df.agg.tot = counters(true);
	df.agg.tot.items = 9000000;
	df.agg.tot.batches = 18;
	df.agg.tot.busy_s = 12.5;
	/* Its idle time all host work, where busy was measured. */
	df.agg.idle = (struct gd_idle)GD_IDLE_NONE;
	if (!isnan(busy))
		df.agg.idle = (struct gd_idle){ { 1 - busy, 0, 0, 0, 0 }, NAN };
	return df;
}

/* n workers (0..2) on one device, 0:1: worker 1 running with every counter, worker 7 failed
 * under --profile off (no device time ever measured). */
static struct gd_frame frame_of(int n)
{
	workers[0] = (struct gd_sample){ .id = 1,
		                         .device = 0,
		                         .pid = 4242,
		                         .state = GD_ST_RUNNING,
		                         .rate = 123.456789,
		                         .batches = 10,
		                         .items = 5000000,
		                         .kernel_busy = 0.5,
		                         .lost = 2,
		                         .sample_every = 16,
		                         .bd = unmeasured };
	struct gd_counters *t = &workers[0].tot;
	*t = counters(true);
	t->batches = 14; /* since it started: more than since the last reset */
	t->items = 7000000;
	t->lost = 3;
	t->kernel_s = 2.5;
	t->phase_s[GD_PHASE_GEN] = 0.75;
	t->phase_s[GD_PHASE_H2D] = 0.125;
	t->kgap.n = 6; /* 2 of 1 us, 3 of 3 us, 1 above every bound */
	t->kgap.sum_ns = 2000 + 9000 + 2000000000;
	t->kgap.le[0] = 2;
	t->kgap.le[2] = 3;
	t->kgap.le[GD_HIST_BOUNDS] = 1;
	t->bgap.n = 4;
	t->bgap.sum_ns = 1000000;
	t->bgap.le[9] = 4; /* at most 1 ms */
	t->bover_ns = 40000;
	workers[1] = (struct gd_sample){ .id = 7,
		                         .device = 0,
		                         .pid = 99,
		                         .state = GD_ST_FAILED,
		                         .rate = NAN,
		                         .kernel_busy = NAN,
		                         .bd = unmeasured,
		                         .tot = counters(false) };
	struct gd_frame f = { .t_s = 2,
		              .unix_s = 1700000000.25,
		              .observed = true,
		              .window_s = 1,
		              .procs = n > 0,
		              .agg = { .device = -1, .rate = n ? 123.456789 : 0, .bd = unmeasured },
		              .device_busy = n ? 0.75 : NAN,
		              .ceiling = NAN,
		              .ceiling_4x = NAN,
		              .nworkers = n,
		              .workers = workers,
		              .ndevs = 1 };
	f.devs[0] = devframe(0, f.procs, f.agg.rate, f.device_busy);
	return f;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Whether a sample's name is the family's: the name itself, or a histogram's series. */
static bool of_family(const char *line, const char *family, bool histogram)
{
	size_t len = strcspn(line, "{ "), n = strlen(family);
	if (len == n)
		return strncmp(line, family, n) == 0;
	static const char *const series[] = { "_bucket", "_sum", "_count" };
	for (size_t i = 0; histogram && i < GD_ARRAY_LEN(series); i++)
		if (len == n + strlen(series[i]) && strncmp(line, family, n) == 0 &&
		    strncmp(line + n, series[i], strlen(series[i])) == 0)
			return true;
	return false;
}

/* Every family is one block: HELP, TYPE, then only its own samples. */
static bool families_grouped(const char *text, int *families)
{
	char seen[64][96];
	int ns = 0;
	char cur[96] = "";
	bool histogram = false;
	const char *p = text;
	*families = 0;
	while (*p) {
		const char *e = strchr(p, '\n');
		if (!e)
			return false;
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(e - p), p);
		char name[96];
		if (sscanf(line, "# HELP %95s", name) == 1) {
			for (int i = 0; i < ns; i++)
				if (strcmp(seen[i], name) == 0)
					return false; /* a family twice */
			snprintf(seen[ns++], sizeof(seen[0]), "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			(*families)++;
			const char *t = e + 1;
			char want[128];
			snprintf(want, sizeof(want), "# TYPE %s ", cur);
			if (strncmp(t, want, strlen(want)) != 0)
				return false;
			histogram = strncmp(t + strlen(want), "histogram\n", 10) == 0;
			p = strchr(t, '\n') + 1;
			continue;
		}
		if (!of_family(line, cur, histogram))
			return false;
		p = e + 1;
	}
	return true;
}

/* The value of the sample line that starts with prefix, or NAN. */
static double value_of(const char *text, const char *prefix)
{
	for (const char *p = text; (p = strstr(p, prefix)); p++)
		if (p == text || p[-1] == '\n')
			return strtod(p + strlen(prefix), NULL);
	return NAN;
}

static void test_render(void)
{
	struct gd_frame f = frame_of(2);
	size_t len;
	char *t = prom_render(&f, devs, NULL, &len);
	tap_ok(len == strlen(t), "the length returned is the text's");
	const char *w1 = "{worker=\"1\",device=\"0000:65:00.0\",index=\"0:1\"}";
	char line[256];
	snprintf(line, sizeof(line), "gputop_decode_symbols_total%s 7000000", w1);
	tap_ok(has_line(t, line),
	       "a worker's symbols: since it started (not the last reset), labelled worker, device");
	snprintf(line, sizeof(line), "gputop_decode_batches_total%s 14", w1);
	tap_ok(has_line(t, line), "batches since the worker started");
	snprintf(line, sizeof(line), "gputop_decode_lost_records_total%s 3", w1);
	tap_ok(has_line(t, line), "lost records since the worker started");
	tap_ok(has_line(t, "gputop_decode_worker_info{worker=\"1\",device=\"0000:65:00.0\",index=\"0:1\",pid="
	                   "\"4242\",source=\"worker\","
	                   "command=\"\"} 1") &&
	           has_line(t, "gputop_decode_worker_info{worker=\"7\",device=\"0000:65:00.0\",index=\"0:1\","
	                       "pid=\"99\",source=\"worker\","
	                       "command=\"\"} 1"),
	       "the pid is the worker info's label, with the source and command");
	tap_ok(!strstr(strstr(t, "# TYPE gputop_decode_worker_state"), "pid="),
	       "no other sample carries a pid: a worker's series stay one");
	tap_ok(has_line(t, "gputop_decode_build_info{version=\"" GD_VERSION
	                   "\",platform=\"Portable\",driver=\"3.1\"} 1") &&
	           has_line(t, "# TYPE gputop_decode_build_info gauge"),
	       "build info: the version, the first device's platform and driver");
	snprintf(line, sizeof(line), "gputop_decode_kernel_seconds_total%s 2.5", w1);
	tap_ok(has_line(t, line), "the worker's kernel seconds");
	tap_ok(has_line(t, "gputop_decode_phase_seconds_total{worker=\"1\",device=\"0000:65:00.0\",index=\"0:"
	                   "1\",phase=\"gen\"} 0.75") &&
	           has_line(t, "gputop_decode_phase_seconds_total{worker=\"1\",device=\"0000:65:00.0\",index="
	                       "\"0:1\",phase=\"h2d\"} 0.125") &&
	           has_line(t, "gputop_decode_phase_seconds_total{worker=\"1\",device=\"0000:65:00.0\",index="
	                       "\"0:1\",phase=\"queue_wait\"} 0"),
	       "seconds per phase, one sample each, labelled phase");
	tap_ok(has_line(t, "gputop_decode_phase_seconds_total{worker=\"7\",device=\"0000:65:00.0\",index=\"0:"
	                   "1\",phase=\"gen\"} 0") &&
	           !strstr(t, "gputop_decode_phase_seconds_total{worker=\"7\",device=\"0000:65:00.0\",index="
	                      "\"0:1\",phase=\"h2d\"}") &&
	           !strstr(t, "gputop_decode_kernel_seconds_total{worker=\"7\""),
	       "without device times (--profile off): generation only, no kernel or transfer counter");
	const char *b =
	    "gputop_decode_gap_kernel_seconds_bucket{worker=\"1\",device=\"0000:65:00.0\",index=\"0:1\",le=";
	snprintf(line, sizeof(line), "%s\"1e-06\"} ", b);
	double le1 = value_of(t, line);
	snprintf(line, sizeof(line), "%s\"2.5e-06\"} ", b);
	double le2 = value_of(t, line);
	snprintf(line, sizeof(line), "%s\"5e-06\"} ", b);
	double le3 = value_of(t, line);
	snprintf(line, sizeof(line), "%s\"1\"} ", b);
	double le_last = value_of(t, line);
	snprintf(line, sizeof(line), "%s\"+Inf\"} ", b);
	double inf = value_of(t, line);
	tap_ok(le1 == 2 && le2 == 2 && le3 == 5 && le_last == 5 && inf == 6,
	       "gap histogram: cumulative buckets from 1 us to 1 s, +Inf the count (%g %g %g %g %g)", le1,
	       le2, le3, le_last, inf);
	tap_ok(has_line(t, "gputop_decode_gap_kernel_seconds_sum{worker=\"1\",device=\"0000:65:00.0\",index="
	                   "\"0:1\"} 2.000011") &&
	           has_line(t, "gputop_decode_gap_kernel_seconds_count{worker=\"1\",device=\"0000:65:00.0\","
	                       "index=\"0:1\"} 6") &&
	           has_line(t, "gputop_decode_gap_batch_seconds_bucket{worker=\"1\",device=\"0000:65:00.0\","
	                       "index=\"0:1\",le=\"0.001\"} 4") &&
	           has_line(t, "gputop_decode_gap_batch_seconds_bucket{worker=\"1\",device=\"0000:65:00.0\","
	                       "index=\"0:1\",le=\"0.0005\"} 0") &&
	           has_line(t, "# TYPE gputop_decode_gap_batch_seconds histogram"),
	       "gap histograms: sum in seconds, count; the batch gaps' too");
	tap_ok(!strstr(t, "gputop_decode_gap_kernel_seconds_count{worker=\"7\""),
	       "no gap histogram without device times");
	snprintf(line, sizeof(line), "gputop_decode_batch_overlap_seconds_total%s 4e-05", w1);
	tap_ok(has_line(t, line), "the overlap with earlier batches, a counter in seconds");
	snprintf(line, sizeof(line), "gputop_decode_profile_period_batches%s 16", w1);
	tap_ok(has_line(t, line) && !strstr(t, "gputop_decode_profile_period_batches{worker=\"7\""),
	       "the profiling period, where sampled");
	tap_ok(has_line(t, "gputop_decode_worker_state{worker=\"1\",device=\"0000:65:00.0\",index=\"0:1\","
	                   "state=\"running\"} 1") &&
	           has_line(t, "gputop_decode_worker_state{worker=\"7\",device=\"0000:65:00.0\",index=\"0:"
	                       "1\",state=\"failed\"} 1") &&
	           has_line(t, "gputop_decode_worker_state{worker=\"7\",device=\"0000:65:00.0\",index=\"0:"
	                       "1\",state=\"running\"} 0"),
	       "worker state: 1 for the current state, 0 for the others");
	int ones = 0;
	for (const char *p = t; (p = strstr(p, "gputop_decode_worker_state{")); p++)
		ones += strncmp(strchr(p, '}'), "} 1\n", 4) == 0;
	TAP_EQ_U(ones, 2, "one state set to 1 per worker");
	tap_ok(!strstr(t, "throughput") && !strstr(t, "_ratio{worker") && !strstr(t, "device_busy_ratio") &&
	           !strstr(t, "gputop_decode_queue_wait_seconds"),
	       "no mean of a window as a gauge: rates and shares come from the counters");
	tap_ok(!strstr(t, " NaN\n") && !strstr(t, " nan\n") && !strstr(t, "Inf\n") && !strstr(t, "inf\n"),
	       "no NaN or Inf value anywhere");
	tap_ok(!strstr(t, "gputop_decode_ceiling_symbols_per_second") &&
	           !strstr(t, "gputop_decode_ceiling_4x_symbols_per_second"),
	       "an uncalibrated ceiling leaves its whole family out, HELP and TYPE too, and so does its "
	       "figure at the larger size");
	tap_ok(has_line(t, "# TYPE gputop_decode_symbols_total counter") &&
	           has_line(t, "# TYPE gputop_decode_device_busy_seconds_total counter") &&
	           has_line(t, "# TYPE gputop_decode_workers gauge"),
	       "TYPE lines: counters and gauges");
	tap_ok(
	    has_line(t,
	             "gputop_decode_device_busy_seconds_total{device=\"0000:65:00.0\",index=\"0:1\"} 12.5") &&
	        has_line(
	            t, "gputop_decode_device_symbols_total{device=\"0000:65:00.0\",index=\"0:1\"} 9000000") &&
	        has_line(t, "gputop_decode_device_batches_total{device=\"0000:65:00.0\",index=\"0:1\"} 18") &&
	        has_line(t, "gputop_decode_workers{device=\"0000:65:00.0\",index=\"0:1\"} 1"),
	    "device figures carry the device label only: its counters, its live workers");
	tap_ok(
	    has_line(
	        t,
	        "gputop_decode_headroom_symbols_per_second{device=\"0000:65:00.0\",index=\"0:1\"} 164609052"),
	    "the headroom in symbols per second");
	tap_ok(has_line(t, "gputop_decode_device_idle_ratio{device=\"0000:65:00.0\",index=\"0:1\",cause="
	                   "\"host\"} 0.25") &&
	           has_line(t, "gputop_decode_device_idle_ratio{device=\"0000:65:00.0\",index=\"0:1\",cause="
	                       "\"wait\"} 0") &&
	           has_line(t, "# TYPE gputop_decode_device_idle_ratio gauge"),
	       "the device's idle share by cause: one sample per cause");
	tap_ok(has_line(t, "gputop_decode_device_info{device=\"0000:65:00.0\",index=\"0:1\",name=\"a_"
	                   "\\\"quoted\\\"_\\\\_name\","
	                   "platform=\"Portable\"} 1"),
	       "label values escape quotes and backslashes, and write a space as _");
	tap_ok(has_line(t, "gputop_decode_window_end_timestamp_seconds 1700000000.25"),
	       "the window's end in Unix seconds, to the fraction");
	int families;
	bool grouped = families_grouped(t, &families);
	if (!tap_ok(grouped && families >= 20,
	            "every family is one block: HELP, TYPE, its samples (%d families)", families))
		printf("%s", t);
	free(t);

	struct gd_text j = { 0 };
	text_json_string(&j, "a\xff\r\xe2\x82\xac\xed\xa0\x80");
	tap_ok(strcmp(j.p, "\"a\\ufffd\\u000d\xe2\x82\xac\\ufffd\\ufffd\\ufffd\"") == 0,
	       "JSON strings: U+FFFD for what is no UTF-8, a surrogate too: %s", j.p);
	free(j.p);
	char clean[] = "dev\rice\x1b[2J\xff\xc3\xa9";
	text_clean(clean);
	tap_ok(strcmp(clean, "dev?ice?[2J?\xc3\xa9") == 0, "text_clean: controls and stray bytes as '?': %s",
	       clean);

	f = frame_of(0);
	t = prom_render(&f, devs, NULL, &len);
	tap_ok(
	    !strstr(t, "worker=") &&
	        has_line(t, "gputop_decode_workers{device=\"0000:65:00.0\",index=\"0:1\"} 0") &&
	        !strstr(t, "gputop_decode_headroom_symbols_per_second") &&
	        !strstr(t, "gputop_decode_device_idle_ratio") &&
	        has_line(
	            t, "gputop_decode_device_busy_seconds_total{device=\"0000:65:00.0\",index=\"0:1\"} 12.5"),
	    "without workers: no worker family, zero workers, no idle share (not measured); the device "
	    "counters stay");
	grouped = families_grouped(t, &families);
	tap_ok(grouped, "still one block per family (%d)", families);
	free(t);

	/* Two devices: worker 7 runs on the second; each device family has a sample per device,
	 * with that device's own figures. */
	f = frame_of(2);
	workers[1].device = 1;
	workers[1].state = GD_ST_RUNNING;
	workers[1].rate = 100;
	f.ndevs = 2;
	f.devs[0] = devframe(0, 1, 123.456789, 0.5);
	f.devs[1] = devframe(1, 1, 100, 0.25);
	f.devs[1].ceiling = 400;
	f.devs[1].ceiling_4x = 500;
	f.devs[1].agg.tot.busy_s = 3;
	t = prom_render(&f, devs, NULL, &len);
	tap_ok(
	    has_line(
	        t,
	        "gputop_decode_symbols_total{worker=\"1\",device=\"0000:65:00.0\",index=\"0:1\"} 7000000") &&
	        has_line(t, "gputop_decode_worker_info{worker=\"7\",device=\"second\",index=\"1:0\",pid="
	                    "\"99\",source=\"worker\","
	                    "command=\"\"} 1"),
	    "two devices: each worker labelled with its own device");
	tap_ok(
	    has_line(t,
	             "gputop_decode_device_busy_seconds_total{device=\"0000:65:00.0\",index=\"0:1\"} 12.5") &&
	        has_line(t, "gputop_decode_device_busy_seconds_total{device=\"second\",index=\"1:0\"} 3") &&
	        has_line(t, "gputop_decode_workers{device=\"0000:65:00.0\",index=\"0:1\"} 1") &&
	        has_line(t, "gputop_decode_workers{device=\"second\",index=\"1:0\"} 1"),
	    "two devices: busy seconds and workers per device, each its own");
	tap_ok(
	    has_line(t,
	             "gputop_decode_ceiling_symbols_per_second{device=\"second\",index=\"1:0\"} 400000000") &&
	        !strstr(t, "gputop_decode_ceiling_symbols_per_second{device=\"0000:65:00.0\",index=\"0:1\"}"),
	    "two devices: a ceiling only for the device calibrated");
	tap_ok(
	    has_line(
	        t,
	        "gputop_decode_ceiling_4x_symbols_per_second{device=\"second\",index=\"1:0\"} 500000000") &&
	        has_line(t, "# TYPE gputop_decode_ceiling_4x_symbols_per_second gauge") &&
	        !strstr(t,
	                "gputop_decode_ceiling_4x_symbols_per_second{device=\"0000:65:00.0\",index=\"0:1\"}"),
	    "two devices: the ceiling at 4x the size only where it was measured");
	tap_ok(has_line(t, "gputop_decode_device_info{device=\"second\",index=\"1:0\",name=\"second\","
	                   "platform=\"Other\"} 1") &&
	           strstr(t, "gputop_decode_device_info{device=\"0000:65:00.0\",index=\"0:1\""),
	       "two devices: one info sample each, with its name and platform");
	tap_ok(has_line(t, "gputop_decode_build_info{version=\"" GD_VERSION
	                   "\",platform=\"Portable\",driver=\"3.1\"} 1"),
	       "two devices: one build info, the first device's platform and driver");
	grouped = families_grouped(t, &families);
	tap_ok(grouped, "two devices: still one block per family (%d)", families);
	free(t);
}

/* ---- the exporter's config ---- */

/* --listen on IPv4 address a.b.c.d, port port, as main.c hands it over (its parser is opts'). */
static struct gd_listen listen_on(const char *addr, unsigned port, const char *text)
{
	struct gd_listen l = { .set = true, .family = AF_INET, .port = port, .text = text };
	inet_pton(AF_INET, addr, l.addr);
	return l;
}

static void test_config(void)
{
	struct gd_prom_config c = { .ndevs = 1, .devs = devs };
	char errp[256] = "x";
	tap_ok(prom_open(&c, errp, sizeof(errp)) == NULL && errp[0] == '\0',
	       "prom_open without a file or an address: NULL and no error");
}

/* One HTTP exchange on 127.0.0.1:port: the status and the body (into body). */
static int http(unsigned port, const char *request, char *body, size_t n)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct timeval tv = { .tv_sec = 20 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
		close(fd);
		return -1;
	}
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof(buf) - 1 && (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(fd);
	int status = -1;
	sscanf(buf, "HTTP/1.%*d %d", &status);
	const char *b = strstr(buf, "\r\n\r\n");
	snprintf(body, n, "%s", b ? b + 4 : "");
	return status;
}

/* The exporter serving on 127.0.0.1:port (text: the address as typed). */
static struct gd_prom *open_listen(unsigned port, const char *text, char *err, size_t errlen)
{
	struct gd_prom_config c = { .listen = listen_on("127.0.0.1", port, text), .ndevs = 1, .devs = devs };
	return prom_open(&c, err, errlen);
}

/* Hands f to the exporter as the session does: 0, or -1. */
static int frame_to(struct gd_prom *p, const struct gd_frame *f)
{
	char err[256] = "";
	return prom_output.frame(p, f, err, sizeof(err));
}

static void test_server(void)
{
	char err[256];
	struct gd_prom *p = open_listen(0, "127.0.0.1:0", err, sizeof(err));
	unsigned port = prom_port(p);
	if (!tap_ok(p && port > 0, "--listen 127.0.0.1:0 serves on a port of its choosing (%u)", port)) {
		printf("#   %s\n", err);
		return;
	}
	static char body[1 << 16];
	const char *get = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	int st = http(port, get, body, sizeof(body));
	tap_ok(st == 200 && body[0] == '\0', "before the first window: 200 and no samples (status %d)", st);

	struct gd_frame f = frame_of(2);
	tap_ok(frame_to(p, &f) == 0, "a frame handed to the exporter's output: 0");
	size_t len;
	char *want = prom_render(&f, devs, NULL, &len);
	st = http(port, get, body, sizeof(body));
	tap_ok(st == 200 && strcmp(body, want) == 0, "GET /metrics: the latest window's text (status %d)",
	       st);
	free(want);
	st = http(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", body, sizeof(body));
	TAP_EQ_U(st, 404, "another path: 404");
	st = http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
	          body, sizeof(body));
	TAP_EQ_U(st, 405, "POST: 405");

	/* 40 stalled clients, over an address's share (32): one gives way to another from there. */
	int stall[40], stalled = 0;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 40; i++) {
		stall[i] = socket(AF_INET, SOCK_STREAM, 0);
		stalled += connect(stall[i], (struct sockaddr *)&a, sizeof(a)) == 0 &&
		           write(stall[i], "GET /met", 8) == 8;
	}
	f.workers[0].tot.items = 6000000;
	frame_to(p, &f);
	st = http(port, get, body, sizeof(body));
	tap_ok(stalled == 40 && st == 200 && strstr(body, "} 6000000\n"),
	       "with 40 stalled clients connected, another from their address gets the updated text");
	for (int i = 0; i < 40; i++)
		close(stall[i]);

	char err2[256], spec[32];
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", port);
	struct gd_prom *q = open_listen(port, spec, err2, sizeof(err2));
	if (!tap_ok(!q && strstr(err2, "--listen 127.0.0.1:") && strstr(err2, strerror(EADDRINUSE)),
	            "a port in use is refused, saying so"))
		printf("#   %s\n", err2);
	prom_close(q, NULL, 0);
	tap_ok(prom_close(p, err, sizeof(err)) == 0, "closing the server reports no error");
	st = http(port, get, body, sizeof(body));
	tap_ok(st == -1, "after close nothing listens on the port");
}

/* ---- --prom-file ---- */

static bool only_file(const char *dir, const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = '%s'", dir, name);
	return system(cmd) == 0;
}

/* Whether the file at path comes to hold want[0..len): the exporter's thread writes it, so
 * bounded polling, never a test of speed. */
static bool file_holds(const char *path, const char *want, size_t len)
{
	static char got[1 << 16];
	size_t n = 0;
	for (int tries = 0; tries < 600 && (n != len || strcmp(got, want) != 0); tries++) {
		if (tries)
			usleep(50000);
		FILE *in = fopen(path, "r");
		n = in ? fread(got, 1, sizeof(got) - 1, in) : 0;
		got[n] = '\0';
		if (in)
			fclose(in);
	}
	return n == len && strcmp(got, want) == 0;
}

static void test_file(void)
{
	char dir[] = "/tmp/gputop-decode-prom.XXXXXX";
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	char path[256], err[256], sub[256];
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	mode_t old = umask(027);
	struct gd_prom_config c = { .file = path, .ndevs = 1, .devs = devs };
	struct gd_prom *p = prom_open(&c, err, sizeof(err));
	tap_ok(p && only_file(dir, ""), "prom_open checks the directory and leaves nothing there");
	struct gd_frame f = frame_of(2);
	frame_to(p, &f);
	size_t len;
	char *want = prom_render(&f, devs, NULL, &len);
	tap_ok(file_holds(path, want, len), "the file holds the window's text");
	struct stat st;
	unsigned mode = stat(path, &st) == 0 ? (unsigned)(st.st_mode & 0777) : 0;
	tap_ok(mode == 0640, "created 0644 less the umask (%o)", mode);
	tap_ok(only_file(dir, "m.prom"), "no temporary file is left beside it");
	free(want);

	/* A write that fails (the directory is gone) is reported when the exporter closes. */
	unlink(path);
	rmdir(dir);
	tap_ok(frame_to(p, &f) == 0, "a frame whose file cannot be written: 0 (tried again with the next)");
	char why[512] = "";
	int rc = prom_close(p, why, sizeof(why));
	if (!tap_ok(rc == -1 && strstr(why, "--prom-file: cannot create") && strstr(why, "(1 write failed)"),
	            "a failed write is reported at close"))
		printf("#   %s\n", why);
	umask(old);

	mkdir(dir, 0700);
	mkdir(sub, 0700);
	static const struct {
		const char *path, *msg;
	} bad[] = {
		{ "-", "'-' is no file" },
		{ "/nonexistent-dir/m.prom", "No such file or directory" },
		{ NULL, "not a regular file" }, /* the directory sub */
		{ "/dev/null", "not a regular file" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.file = bad[i].path ? bad[i].path : sub;
		err[0] = '\0';
		struct gd_prom *q = prom_open(&c, err, sizeof(err));
		if (!tap_ok(!q && strncmp(err, "--prom-file: ", 13) == 0 && strstr(err, bad[i].msg),
		            "--prom-file %s is refused: %s", c.file, bad[i].msg))
			printf("#   %s\n", err);
		prom_close(q, NULL, 0);
	}
	rmdir(sub);
	tap_ok(rmdir(dir) == 0, "a refused --prom-file leaves nothing in its directory");
}

int main(void)
{
	test_render();
	test_config();
	test_server();
	test_file();
	return tap_done();
}

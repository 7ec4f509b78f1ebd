/* test_prom_vendor.c: what the device's vendor library says (driver_util, sm_active,
 * sm_occupancy, mem_used_bytes) in the Prometheus text and the HTML report: a gauge per device
 * and a line beside device busy where it answered, nothing at all where it did not (NAN, as
 * always on PoCL), each device its own values. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "output/prom.h"
#include "output/report.h"
#include "tap.h"

static const struct gd_device devs[2] = {
	{ .platform = 0, .index = 0, .ref = "0:0", .name = "first", .platform_name = "P", .driver = "1" },
	{ .platform = 0, .index = 1, .ref = "0:1", .name = "second", .platform_name = "P", .driver = "1" },
};

static const char *const families[] = { "gputop_decode_driver_utilization_ratio",
	                                "gputop_decode_sm_active_ratio", "gputop_decode_sm_occupancy_ratio",
	                                "gputop_decode_memory_used_bytes" };

/* Device d with nothing but its busy and the vendor's four values (NAN: not measured). */
static struct gd_devframe devframe(int d, double busy, double util, double sm, double occ, double mem)
{
	struct gd_devframe df = { .agg = { .device = d, .rate = 1, .bd = GD_BREAKDOWN_NONE },
		                  .device_busy = busy,
		                  .headroom = NAN,
		                  .ceiling = NAN,
		                  .of_ceiling = NAN,
		                  .ceiling_4x = NAN,
		                  .driver_util = util,
		                  .sm_active = sm,
		                  .sm_occupancy = occ,
		                  .mem_used_bytes = mem };
	snprintf(df.ref, sizeof(df.ref), "%s", devs[d].ref);
	df.agg.idle = (struct gd_idle)GD_IDLE_NONE;
	df.agg.tot.kernel_s = df.agg.tot.busy_s = NAN;
	for (int p = 0; p < GD_PHASE_COUNT; p++)
		df.agg.tot.phase_s[p] = NAN;
	return df;
}

/* A frame without workers on ndevs devices, its run figures (unset here) NAN. */
static struct gd_frame frame_of(int ndevs, double busy, double util)
{
	struct gd_frame f = { .t_s = 1,
		              .unix_s = 1700000000,
		              .observed = true,
		              .window_s = 1,
		              .agg = { .device = -1, .rate = 1, .bd = GD_BREAKDOWN_NONE },
		              .device_busy = busy,
		              .headroom = NAN,
		              .ceiling = NAN,
		              .of_ceiling = NAN,
		              .ceiling_4x = NAN,
		              .driver_util = util,
		              .sm_active = NAN,
		              .sm_occupancy = NAN,
		              .mem_used_bytes = NAN,
		              .ndevs = ndevs };
	f.agg.idle = (struct gd_idle)GD_IDLE_NONE;
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

static int count_of(const char *text, const char *s)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}

static void test_prom(void)
{
	struct gd_frame f = frame_of(1, 0.52, NAN);
	f.devs[0] = devframe(0, 0.52, NAN, NAN, NAN, NAN);
	size_t len;
	struct prom_memory *mem = prom_memory_new(); /* which rows ended: none here */
	char *t = prom_render(&f, devs, mem, &len);
	int absent = 0;
	for (size_t i = 0; i < GD_ARRAY_LEN(families); i++)
		absent += !strstr(t, families[i]);
	TAP_EQ_U(absent, GD_ARRAY_LEN(families),
	         "no vendor library: none of its families, HELP and TYPE too");
	free(t);

	/* Two devices: the first with all four, the second with utilization only (no GPM, and
	 * its memory query refused). */
	f = frame_of(2, 0.5, NAN);
	f.devs[0] = devframe(0, 0.52, 0.99, 0.875, 0.25, 81604378624.0);
	f.devs[1] = devframe(1, 0.5, 0.4, NAN, NAN, NAN);
	t = prom_render(&f, devs, mem, &len);
	tap_ok(
	    has_line(t, "gputop_decode_driver_utilization_ratio{device=\"first\",index=\"0:0\"} 0.99") &&
	        has_line(t, "gputop_decode_driver_utilization_ratio{device=\"second\",index=\"0:1\"} 0.4") &&
	        has_line(t, "# TYPE gputop_decode_driver_utilization_ratio gauge"),
	    "the driver's utilization: a gauge per device, as a share, each device its own");
	tap_ok(has_line(t, "gputop_decode_sm_active_ratio{device=\"first\",index=\"0:0\"} 0.875") &&
	           has_line(t, "gputop_decode_sm_occupancy_ratio{device=\"first\",index=\"0:0\"} 0.25") &&
	           has_line(t, "gputop_decode_memory_used_bytes{device=\"first\",index=\"0:0\"} 81604378624"),
	       "SM activity and occupancy as shares, the memory whole, in bytes");
	tap_ok(!strstr(t, "gputop_decode_sm_active_ratio{device=\"second\",index=\"0:1\"}") &&
	           !strstr(t, "gputop_decode_sm_occupancy_ratio{device=\"second\",index=\"0:1\"}") &&
	           !strstr(t, "gputop_decode_memory_used_bytes{device=\"second\",index=\"0:1\"}"),
	       "a value the device's library does not give has no sample");
	int helps = 0;
	for (size_t i = 0; i < GD_ARRAY_LEN(families); i++) {
		char h[128];
		snprintf(h, sizeof(h), "# HELP %s ", families[i]);
		helps += count_of(t, h) == 1;
	}
	TAP_EQ_U(helps, GD_ARRAY_LEN(families), "one HELP for each family, over both devices' samples");
	tap_ok(!strstr(t, " NaN\n") && !strstr(t, " nan\n"), "no NaN value");
	free(t);
	prom_memory_free(mem);
}

/* The page a run of frames gives (the report written through its output, as main.c does). */
static char *report_of(const struct gd_frame *frames, int n)
{
	char path[] = "/tmp/gd-prom-vendor-XXXXXX";
	int fd = mkstemp(path);
	struct gd_report *r = report_open(fd, true, path, devs, 1, "{}", "Mbit/s");
	char err[256];
	for (int i = 0; i < n; i++)
		report_output.frame(r, &frames[i], err, sizeof(err));
	int rc = report_output.close(r, err, sizeof(err));
	FILE *in = fopen(path, "r");
	char *text = xcalloc(1, 1 << 20);
	size_t got = in ? fread(text, 1, (1 << 20) - 1, in) : 0;
	text[got] = '\0';
	if (in)
		fclose(in);
	unlink(path);
	if (rc != 0 || got == 0)
		text[0] = '\0';
	return text;
}

static void test_report(void)
{
	struct gd_frame f[3] = { frame_of(1, 0.5, NAN), frame_of(1, 0.6, NAN), frame_of(1, 0.4, NAN) };
	for (int i = 0; i < 3; i++)
		f[i].devs[0] = devframe(0, f[i].device_busy, NAN, NAN, NAN, NAN);
	char *page = report_of(f, 3);
	tap_ok(strstr(page, "</html>") && !strstr(page, "driver"),
	       "no vendor library: the page says nothing of a driver");
	free(page);

	/* The driver answers in two windows of three: its mean beside device busy's, over those. */
	f[0].driver_util = 0.98;
	f[1].driver_util = 1.0;
	page = report_of(f, 3);
	tap_ok(strstr(page, "<p class=\"driver\">Over the 2 windows the driver answered: device busy 55%, "
	                    "the driver's utilization 99% (") != NULL,
	       "the driver's utilization beside device busy, over the same windows");
	tap_ok(strstr(page, "<p class=\"driver\">") > strstr(page, "Where the time goes"),
	       "in the breakdown, after its chart");
	free(page);
}

int main(void)
{
	test_prom();
	test_report();
	return tap_done();
}

/* test_diagnose.c: idle time by cause on made-up breakdowns with known host work, transfers,
 * launch gaps and queue wait: a worker's causes add up to its time without a kernel, the
 * device's to its idle share; hidden is the share of a worker's idle time other processes
 * filled; the gap-filling prediction; the line of words. */
#include <math.h>
#include <string.h>

#include "measure/collect.h"
#include "measure/diagnose.h"
#include "tap.h"

static double sum(const struct gd_idle *d)
{
	double s = 0;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		s += d->share[c];
	return s;
}

static struct gd_breakdown bd_of(double gen, double h2d, double d2h, double gaps, double qwait, double other)
{
	struct gd_breakdown bd = GD_BREAKDOWN_NONE;
	bd.gen_us = gen;
	bd.h2d_us = h2d;
	bd.d2h_us = d2h;
	bd.kernel_us = 200;
	bd.launch_gap_us = gaps;
	bd.queue_wait_us = qwait;
	bd.other_us = other;
	return bd;
}

static void test_worker(void)
{
	/* The seed's loop, one process: 2600 us generating, 40 us copying, 20 us of gaps between
	 * its kernels, 4 us waiting, 136 us other; its kernels busy 6% of the window. */
	struct gd_breakdown bd = bd_of(2600, 20, 20, 20, 4, 136);
	struct gd_idle w;
	diagnose_worker(&bd, 0.06, 0.06, &w);
	tap_ok(fabs(sum(&w) - 0.94) < 1e-12, "a worker's causes add up to its time without a kernel (%.6f)",
	       sum(&w));
	tap_ok(fabs(w.share[GD_CAUSE_HOST] - 0.94 * 2600 / 2800) < 1e-12 &&
	           fabs(w.share[GD_CAUSE_TRANSFER] - 0.94 * 40 / 2800) < 1e-12 &&
	           fabs(w.share[GD_CAUSE_LAUNCH] - 0.94 * 20 / 2800) < 1e-12 &&
	           fabs(w.share[GD_CAUSE_WAIT] - 0.94 * 4 / 2800) < 1e-12,
	       "each cause in proportion to its time per batch");
	tap_ok(w.hidden == 0, "alone on the device: nothing of its idle time is hidden");
	/* The same batch where 15 of the 20 us of gaps came after a calibrated launch limit: the
	 * host enqueued late, and that is host work. */
	bd.launch_gap_us = 5;
	bd.late_gap_us = 15;
	diagnose_worker(&bd, 0.06, 0.06, &w);
	tap_ok(fabs(w.share[GD_CAUSE_LAUNCH] - 0.94 * 5 / 2800) < 1e-12 &&
	           fabs(w.share[GD_CAUSE_HOST] - 0.94 * 2615 / 2800) < 1e-12 && fabs(sum(&w) - 0.94) < 1e-12,
	       "gaps beyond the launch limit count as host work, the rest as launch gaps");
	bd.launch_gap_us = 20;
	bd.late_gap_us = NAN;
	diagnose_worker(&bd, 0.06, 0.53, &w);
	tap_ok(fabs(w.hidden - 0.47 / 0.94) < 1e-12,
	       "with others: hidden = (device busy - its own) / its idle (%.4f)", w.hidden);
	struct gd_breakdown off = GD_BREAKDOWN_NONE;
	diagnose_worker(&off, NAN, NAN, &w);
	tap_ok(isnan(w.share[0]) && isnan(w.hidden), "no device times: not measured");
	struct gd_breakdown zero = bd_of(0, 0, 0, 0, 0, 0);
	diagnose_worker(&zero, 0.5, 0.5, &w);
	tap_ok(w.share[GD_CAUSE_OTHER] == 0.5 && sum(&w) == 0.5,
	       "nothing measured outside kernels: all other");
}

static void test_device(void)
{
	/* Two workers: one idle for host work only, one for transfers only; the device 40% busy. */
	struct gd_breakdown host = bd_of(1000, 0, 0, 0, 0, 0), copy = bd_of(0, 500, 500, 0, 0, 0);
	struct gd_idle w[3], d;
	diagnose_worker(&host, 0.2, 0.4, &w[0]);
	diagnose_worker(&copy, 0.2, 0.4, &w[1]);
	diagnose_device(w, 2, 0.4, &d);
	tap_ok(fabs(sum(&d) - 0.6) < 1e-12, "the device's causes add up to its idle share (%.6f)", sum(&d));
	tap_ok(fabs(d.share[GD_CAUSE_HOST] - 0.3) < 1e-12 && fabs(d.share[GD_CAUSE_TRANSFER] - 0.3) < 1e-12,
	       "split as its workers' idle time was, averaged over them");
	struct gd_breakdown off = GD_BREAKDOWN_NONE;
	diagnose_worker(&off, NAN, 0.4, &w[2]);
	diagnose_device(w, 3, 0.4, &d);
	tap_ok(fabs(d.share[GD_CAUSE_HOST] - 0.3) < 1e-12, "a worker without device times is left out");
	diagnose_device(w, 2, NAN, &d);
	tap_ok(isnan(d.share[0]), "device busy not measured: neither are its causes");
	struct gd_idle devs[2] = { w[0], w[1] }, m;
	diagnose_mean(devs, 2, &m);
	tap_ok(fabs(m.share[GD_CAUSE_HOST] - w[0].share[GD_CAUSE_HOST] / 2) < 1e-12,
	       "several devices: the mean");
}

static void test_predict(void)
{
	/* One seed process on the H200: 45 Mbit/s at 8% busy, one core. */
	tap_ok(fabs(diagnose_predict(45, 0.08, 1, 16, 4) - 180) < 1e-9,
	       "4 processes fill 4 times the idle time");
	tap_ok(fabs(diagnose_predict(45, 0.08, 1, 16, 16) - 45 / 0.08) < 1e-9,
	       "16: the device never idles (562.5)");
	tap_ok(fabs(diagnose_predict(45, 0.08, 1, 8, 16) - 360) < 1e-9, "8 cores: the host runs out at 8");
	tap_ok(fabs(diagnose_predict(45, 0.08, 4, 16, 16) - 180) < 1e-9, "4 cores a process: 4 processes");
	tap_ok(isnan(diagnose_predict(NAN, 0.08, 1, 16, 2)), "no rate: no prediction");
}

static void test_line(void)
{
	struct gd_breakdown bd = bd_of(2600, 20, 20, 20, 4, 136);
	struct gd_idle w, d;
	diagnose_worker(&bd, 0.26, 0.26, &w);
	diagnose_device(&w, 1, 0.26, &d);
	char line[256];
	diagnose_line(line, sizeof(line), 0.26, &d, 100, 2, 2, 16, "Mbit/s");
	tap_ok(strncmp(line, "device 26% busy; idle: host work 69%, other 4%, transfers 1%", 60) == 0 &&
	           strstr(line, "; more processes would reach about 385 Mbit/s; lever: more processes, or "
	                        "pipelining with generation threads"),
	       "the line: busy, the causes largest first, the prediction, the largest cause's lever (%s)",
	       line);
	diagnose_line(line, sizeof(line), 0.97, &d, 100, 2, 2, 16, "Mbit/s");
	tap_ok(strcmp(line, "device 97% busy; at the ceiling") == 0, "at the ceiling (%s)", line);
	struct gd_idle none = GD_IDLE_NONE;
	diagnose_line(line, sizeof(line), NAN, &none, 100, 2, 2, 16, "Mbit/s");
	tap_ok(strstr(line, "not measured") != NULL, "not measured (%s)", line);
	tap_ok(diagnose_line(line, 10, 0.26, &d, 100, 2, 2, 16, "Mbit/s") > 10 && strlen(line) == 9,
	       "a short buffer: cut, never overrun");
}

/* Larger batches: named only where the calibration found launch costs to bound this size,
 * and the rate has room below the larger size's ceiling. */
static void test_larger(void)
{
	char line[128];
	diagnose_larger(line, sizeof(line), 1141, 1409.4, 1749.9, "Mbit/s");
	tap_ok(strcmp(line, "; larger batches: about 1750 Mbit/s at 4x the size") == 0,
	       "a launch-bound ceiling and a rate below 4x the size's: the lever named (%s)", line);
	tap_ok(diagnose_larger(line, sizeof(line), 1141, 1700, 1749.9, "Mbit/s") == 0 && !line[0],
	       "a ceiling within 5%% of 4x the size's is the device's: no lever");
	tap_ok(diagnose_larger(line, sizeof(line), 1700, 1409.4, 1749.9, "Mbit/s") == 0 && !line[0],
	       "a rate within 5%% of 4x the size's ceiling: no room, no lever");
	tap_ok(diagnose_larger(line, sizeof(line), 1141, 1409.4, NAN, "Mbit/s") == 0 && !line[0] &&
	           diagnose_larger(line, sizeof(line), 1141, NAN, NAN, "Mbit/s") == 0 &&
	           diagnose_larger(line, sizeof(line), NAN, 1409.4, 1749.9, "Mbit/s") == 0,
	       "not calibrated, not measured at 4x, or no rate: nothing said");
}

/* A frame's words: the diagnosis, then the lever of larger batches where busy was measured. */
static void test_words(void)
{
	char line[256];
	struct gd_frame f = { .procs = 1, .device_busy = 0.97, .ceiling = 1409.4, .ceiling_4x = 1749.9 };
	f.agg.rate = 1141;
	f.agg.idle = (struct gd_idle)GD_IDLE_NONE;
	f.agg.idle.share[GD_CAUSE_OTHER] = 0.03;
	for (int c = 0; c < GD_CAUSE_OTHER; c++)
		f.agg.idle.share[c] = 0;
	diagnose_words(line, sizeof(line), &f, 1, 16, "Mbit/s");
	tap_ok(
	    strcmp(line,
	           "device 97% busy; at the ceiling; larger batches: about 1750 Mbit/s at 4x the size") == 0,
	    "a busy device with a launch-bound ceiling: larger batches named after the diagnosis (%s)", line);
	f.device_busy = NAN;
	diagnose_words(line, sizeof(line), &f, 1, 16, "Mbit/s");
	tap_ok(strcmp(line, "idle time: not measured in this window") == 0,
	       "busy not measured: no lever after it (%s)", line);
}

static void test_pipelined(void)
{
	/* The seed's loop on one process: 33 Mbit/s at 6% busy, 3 ms of generation per batch of
	 * 0.1 Mbit, 16 cores: the device alone would allow 550; 15 generating cores 500. */
	double p = diagnose_predict_pipelined(33, 0.06, 3000, 0.1, 16);
	tap_ok(fabs(p - 500) < 1e-9, "one pipelined process: bound by 15 generating cores (%.1f)", p);
	p = diagnose_predict_pipelined(33, 0.06, 300, 0.1, 16);
	tap_ok(fabs(p - 550) < 1e-9, "with a fast generator: bound by the device, rate / busy (%.1f)", p);
	p = diagnose_predict_pipelined(33, 0.06, 3000, 0.1, 1);
	tap_ok(fabs(p - 550) < 1e-9, "one core: no thread to hide generation on, the device's bound");
	tap_ok(isnan(diagnose_predict_pipelined(33, NAN, 3000, 0.1, 16)) &&
	           isnan(diagnose_predict_pipelined(33, 0, 3000, 0.1, 16)),
	       "device busy not measured: no prediction");
}

int main(void)
{
	test_worker();
	test_device();
	test_predict();
	test_pipelined();
	test_line();
	test_larger();
	test_words();
	return tap_done();
}

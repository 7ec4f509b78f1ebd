/* test_diagnose.c: idle time by cause on made-up breakdowns with known host work, transfers,
 * launch gaps and queue wait: a worker's causes add up to its time without a kernel, the
 * device's to its idle share; hidden is the share of a worker's idle time other processes
 * filled; the gap-filling prediction; the line of words. */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
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

/* The samples of the frames below: one device, a window of 0.5 s. */
static struct gd_sample ws[8];

/* A frame at t_s of n processes at work on one device (a GPU, or the host's CPU), sharing
 * rate and the device's busy share evenly, each with its own kernels busy k and generation
 * threads gen; the device's idle time all host work. */
static void frame_of(struct gd_frame *f, bool cpu, int n, double rate, double busy, double k, double gen)
{
	memset(f, 0, sizeof(*f));
	f->ndevs = 1;
	f->devs[0].host_cpu = cpu;
	f->procs = f->nworkers = n;
	f->workers = ws;
	f->window_s = 0.5;
	f->device_busy = busy;
	f->agg.rate = rate;
	f->agg.idle = (struct gd_idle)GD_IDLE_NONE;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		f->agg.idle.share[c] = c == GD_CAUSE_HOST ? 1 - busy : 0;
	for (int i = 0; i < n; i++)
		ws[i] = (struct gd_sample){ .id = (unsigned)i + 1,
			                    .state = GD_ST_RUNNING,
			                    .rate = rate / n,
			                    .kernel_busy = k,
			                    .gen_busy = gen };
}

static void test_line(void)
{
	/* Two processes on a GPU of 16 cores' host, 26% busy, their idle time as the seed's. */
	struct gd_breakdown bd = bd_of(2600, 20, 20, 20, 4, 136);
	struct gd_idle w;
	struct gd_frame f;
	frame_of(&f, false, 2, 100, 0.26, 0.13, 1);
	diagnose_worker(&bd, 0.26, 0.26, &w);
	diagnose_device(&w, 1, 0.26, &f.agg.idle);
	char line[256];
	diagnose_words(line, sizeof(line), &f, 0, 16, "Mbit/s");
	tap_ok(strncmp(line, "device 26% busy; idle: host work 69%, other 4%, transfers 1%", 60) == 0 &&
	           strstr(line, "; more processes would reach about 385 Mbit/s; lever: more processes, or "
	                        "pipelining with generation threads") &&
	           !strstr(line, "CPU"),
	       "the line: busy, the causes largest first, the prediction, the largest cause's lever (%s)",
	       line);
	f.device_busy = 0.97;
	diagnose_words(line, sizeof(line), &f, 0, 16, "Mbit/s");
	tap_ok(strcmp(line, "device 97% busy; at the ceiling") == 0, "at the ceiling (%s)", line);
	f.device_busy = NAN;
	f.agg.idle = (struct gd_idle)GD_IDLE_NONE;
	diagnose_words(line, sizeof(line), &f, 0, 16, "Mbit/s");
	tap_ok(strstr(line, "not measured") != NULL, "not measured (%s)", line);
	f.device_busy = 0.26;
	diagnose_device(&w, 1, 0.26, &f.agg.idle);
	tap_ok(diagnose_words(line, 10, &f, 0, 16, "Mbit/s") > 10 && strlen(line) == 9,
	       "a short buffer: cut, never overrun");
	char r[4][16];
	diagnose_rate_text(r[0], sizeof(r[0]), 0.4123);
	diagnose_rate_text(r[1], sizeof(r[1]), 1.244);
	diagnose_rate_text(r[2], sizeof(r[2]), 38.46);
	diagnose_rate_text(r[3], sizeof(r[3]), 1749.9);
	tap_ok(!strcmp(r[0], "0.412") && !strcmp(r[1], "1.24") && !strcmp(r[2], "38.5") &&
	           !strcmp(r[3], "1750"),
	       "rates with three significant digits (%s %s %s %s)", r[0], r[1], r[2], r[3]);
}

/* (a) PoCL: the device is the host's CPU, 2 cores, 4 processes at 1.4 together. The kernels
 * take both cores 85% of the time and each process's thread works outside its kernels: the
 * cores are spent, and no prediction may read below 1.4. */
static void test_cpu_device(void)
{
	struct gd_frame f;
	struct gd_prediction p;
	char text[256], line[512];
	frame_of(&f, true, 4, 1.4, 0.85, 0.25, 0.3);
	tap_ok(fabs(diagnose_cores_used(&f, 2) - (4 * 0.75 + 0.85 * 2)) < 1e-12,
	       "the host's CPU: each thread outside its kernels, the kernels on every core (%.3f)",
	       diagnose_cores_used(&f, 2));
	const int targets[3] = { 5, 8, INT_MAX };
	bool all = true;
	for (int k = 0; k < 3; k++) {
		diagnose_frame_predict(&f, 2, targets[k], &p);
		all = all && p.rate >= 1.4 && p.reached && p.bound == GD_BOUND_CORES && p.procs == 4;
	}
	tap_ok(all, "one more, twice the processes, as many as help: 1.4 as now, the cores bound it");
	diagnose_frame_predict(&f, 2, 5, &p);
	diagnose_predict_text(text, sizeof(text), &p, "Mbit/s");
	tap_ok(strcmp(text,
	              "about 1.4 Mbit/s, as now with 4: the host's 2 cores are already busy (the device is "
	              "the host's CPU: its kernels and the host work share them)") == 0,
	       "the reason said (%s)", text);
	diagnose_words(line, sizeof(line), &f, 0, 2, "Mbit/s");
	tap_ok(
	    strstr(line, "; more processes: no gain, the host's 2 cores are already busy") &&
	        strstr(line, "; the device is the host's CPU: its kernels and the host work share 2 cores") &&
	        strstr(line, "; lever: less host work per batch (the cores are spent)") &&
	        !strstr(line, "would reach") && !strstr(line, "lever: more processes"),
	    "the line says no gain and why, and that the device is the host's CPU (%s)", line);
	/* One process at 0.412, 30% busy, its thread busy the other 70%: 1.3 of the 2 cores. */
	frame_of(&f, true, 1, 0.412, 0.3, 0.3, 0.5);
	diagnose_frame_predict(&f, 2, 2, &p);
	diagnose_predict_text(text, sizeof(text), &p, "Mbit/s");
	tap_ok(!p.reached && p.bound == GD_BOUND_CORES && fabs(p.rate - 0.412 * 2 / 1.3) < 1e-9 &&
	           strcmp(text, "about 0.634 Mbit/s (now 0.412 with 1)") == 0,
	       "room left: bound by what the cores allow, small rates with their digits (%s)", text);
	f.devs[0].host_cpu = false;
	diagnose_frame_predict(&f, 2, 2, &p);
	tap_ok(!p.reached && fabs(p.rate - 0.824) < 1e-9, "the same figures on a GPU: 2 processes (%.3f)",
	       p.rate);
	/* Whatever the figures, a prediction for more processes never reads below the rate. */
	bool never_below = true;
	for (int cpu = 0; cpu < 2; cpu++)
		for (int n = 1; n <= 8; n++)
			for (int cores = 1; cores <= 16; cores *= 2)
				for (double busy = 0.05; busy <= 1; busy += 0.05)
					for (double gen = 0; gen <= 2; gen += 0.25) {
						frame_of(&f, cpu, n, 1.4, busy, busy / n, gen);
						for (int t = n + 1; t <= 2 * n + 1; t += n)
							if (diagnose_frame_predict(&f, cores, t, &p) ||
							    p.rate < p.now || (p.reached && p.rate != p.now))
								never_below = false;
					}
	tap_ok(never_below, "no figures give a prediction below the measured rate");
}

/* (b) A program observed with -- COMMAND: its parent makes no OpenCL call, 4 children do. */
static void test_observed(void)
{
	struct gd_frame f;
	struct gd_prediction p;
	char text[256];
	frame_of(&f, false, 5, 5.2, 0.4, 0.1, 0.2);
	ws[0] = (struct gd_sample){
		.id = 1, .state = GD_ST_NOCL, .rate = 0, .kernel_busy = 0, .gen_busy = 0, .observed = true
	};
	tap_ok(diagnose_procs(&f) == 4, "the parent without OpenCL calls is not counted (%d of 5 rows)",
	       diagnose_procs(&f));
	tap_ok(fabs(diagnose_cores_used(&f, 16) - 4) < 1e-12, "nor its core (%.1f)",
	       diagnose_cores_used(&f, 16));
	diagnose_frame_predict(&f, 16, 5, &p);
	diagnose_predict_text(text, sizeof(text), &p, "Mitem/s");
	tap_ok(p.procs == 4 && fabs(p.rate - 5.2 / 4 * 5) < 1e-9 && strstr(text, "(now 5.2 with 4)"),
	       "one more process: 5 of what each of the 4 makes (%s)", text);
	ws[3].state = GD_ST_PAUSED;
	ws[4].state = GD_ST_EXITED;
	tap_ok(diagnose_procs(&f) == 2, "a paused and an ended one are not counted either");
}

/* The verdict of a sequence of frames, one every 0.5 s, of busy and host work alternating
 * a and b (idle: transfers alternating ta and tb, the rest host work), into f. */
static int alternate(struct gd_span *s, struct gd_frame *f, double *t, int frames, double a, double b,
                     double ta, double tb, enum gd_verdict_kind kind, enum gd_cause cause)
{
	int changed = 0;
	for (int i = 0; i < frames; i++) {
		double busy = i % 2 ? b : a, xfer = i % 2 ? tb : ta;
		frame_of(f, true, 2, 1.2 + (i % 2 ? 0.1 : -0.1), busy, busy / 2, 0.5);
		f->agg.idle.share[GD_CAUSE_TRANSFER] = xfer;
		f->agg.idle.share[GD_CAUSE_HOST] = 1 - busy - xfer;
		*t += 0.5;
		f->t_s = *t;
		diagnose_span_add(s, f);
		changed += f->verdict.kind != kind || f->verdict.cause != cause;
	}
	return changed;
}

/* (c) The verdict does not follow noise around a boundary; it follows a real change. */
static void test_verdict(void)
{
	static struct gd_span s;
	struct gd_frame f;
	double t = 0;
	char line[512];
	diagnose_span_reset(&s);
	tap_ok(!alternate(&s, &f, &t, 30, 0.97, 0.93, 0.01, 0.01, GD_VERDICT_CEILING, GD_CAUSE_COUNT),
	       "busy alternating 97%%/93%% for 30 windows: at the ceiling throughout");
	diagnose_words(line, sizeof(line), &f, 0, 2, "Mbit/s");
	tap_ok(strstr(line, "; at the ceiling") && f.verdict.span_s <= GD_VERDICT_SPAN_S + 1e-9,
	       "the words say it, over a span of %.1f s (%s)", f.verdict.span_s, line);
	/* A window in which no batch completed keeps the verdict and its figures. */
	frame_of(&f, true, 2, NAN, NAN, NAN, NAN);
	f.agg.idle = (struct gd_idle)GD_IDLE_NONE;
	f.t_s = t += 0.5;
	diagnose_span_add(&s, &f);
	diagnose_words(line, sizeof(line), &f, 0, 2, "Mbit/s");
	tap_ok(f.verdict.kind == GD_VERDICT_CEILING && !strstr(line, "not measured"),
	       "a window without a batch: the verdict of the last measured ones (%s)", line);
	/* Busy drops to 30% for 10 s: the lever, once. */
	int changes = 0;
	enum gd_verdict_kind was = f.verdict.kind;
	for (int i = 0; i < 20; i++) {
		alternate(&s, &f, &t, 1, 0.3, 0.3, 0.05, 0.05, GD_VERDICT_IDLE, GD_CAUSE_HOST);
		changes += f.verdict.kind != was;
		was = f.verdict.kind;
	}
	tap_ok(changes == 1 && f.verdict.kind == GD_VERDICT_IDLE && f.verdict.cause == GD_CAUSE_HOST,
	       "busy 95%% to 30%% for 10 s: the verdict changes once, to host work's lever");
	/* Two causes within noise of each other: the lever named first stays. */
	diagnose_span_reset(&s);
	tap_ok(!alternate(&s, &f, &t, 30, 0.5, 0.45, 0.2, 0.3, GD_VERDICT_IDLE, GD_CAUSE_HOST),
	       "host work and transfers alternating 30%%/20%% and 25%%/30%%: one lever throughout");
	tap_ok(!alternate(&s, &f, &t, 30, 0.92, 0.88, 0.01, 0.01, GD_VERDICT_IDLE, GD_CAUSE_HOST),
	       "busy alternating 92%%/88%%, below the ceiling: not at the ceiling");
	tap_ok(alternate(&s, &f, &t, 30, 0.99, 0.99, 0.0, 0.0, GD_VERDICT_IDLE, GD_CAUSE_HOST) &&
	           f.verdict.kind == GD_VERDICT_CEILING,
	       "busy 99%% for 15 s: at the ceiling");
	double since = f.verdict.since_s;
	frame_of(&f, true, 3, 1.3, 0.92, 0.3, 0.5);
	f.t_s = t += 0.5;
	diagnose_span_add(&s, &f);
	tap_ok(f.verdict.span_s == 0.5 && f.verdict.kind == GD_VERDICT_CEILING && f.verdict.since_s == since,
	       "another process: the span starts again, the verdict keeps its hysteresis (92%% busy)");
	frame_of(&f, true, 3, 1.3, 0.5, 0.2, 0.5);
	f.t_s = t += 0.5;
	diagnose_span_add(&s, &f);
	tap_ok(f.verdict.kind == GD_VERDICT_IDLE && f.verdict.since_s == t,
	       "then 50%% busy: the three processes' own span says so at once");
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
	test_cpu_device();
	test_observed();
	test_verdict();
	test_larger();
	test_words();
	return tap_done();
}

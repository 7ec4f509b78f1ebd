/* report_charts.c: the report's charts (report_impl.h): a sweep's scaling curve or a run's rate
 * over time, where the time went, and the timeline of the last batches. Each range is taken
 * from everything the chart draws (the ideal line and the ceiling included), so nothing lies
 * outside its axes; each series drawn has its key, and no key is drawn without its series. */
#include "report_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/diagnose.h"

static const char *const cause_colour[GD_CAUSE_COUNT] = { "#e0a030", "#50a0d0", "#a070c0",
	                                                  "#d05050", "#40b0a0", "#a0a0a0" };
#define BUSY_COLOUR "#3a8a3a"

void report_cause_style(struct gd_text *t)
{
	text_printf(t, ".busy{fill:%s}", BUSY_COLOUR);
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		text_printf(t, ".%s{fill:%s}", diagnose_field((enum gd_cause)c), cause_colour[c]);
}

static double fin(double v)
{
	return isfinite(v) ? v : 0;
}

static bool any_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			return true;
	return false;
}

/* A chart's height: the plot and what is around it, with its legend of n keys. */
static double chart_height(double plot, const struct report_key *k, size_t n)
{
	return REPORT_MT + plot + REPORT_MB + report_legend_height(k, n);
}

static void ceiling_line(struct gd_report *r, struct gd_text *t, const struct report_axes *a)
{
	double y = report_py(a, r->ceiling);
	text_printf(t, "<line class=\"ceiling\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
	            report_px(a, a->x0), report_px(a, a->x1), y, y);
}

/* The scaling curve of a sweep: measured points, the prediction, the ideal line from the first
 * step, the ceiling where calibrated. */
void report_scaling(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nsteps;
	double *x = xcalloc(n, sizeof(double)), *m = xcalloc(n, sizeof(double)),
	       *p = xcalloc(n, sizeof(double)), *ideal = xcalloc(n, sizeof(double));
	double xmin = INFINITY, xmax = -INFINITY, ymax = fin(r->ceiling);
	double per = r->steps[0].rate / (r->steps[0].procs ? r->steps[0].procs : 1);
	struct gd_text csv = { 0 };
	text_printf(&csv, "procs,queues,%s,predicted,ideal,device_busy\n", r->unit);
	for (size_t i = 0; i < n; i++) {
		const struct gd_sweep_row *s = &r->steps[i];
		x[i] = s->procs;
		m[i] = s->rate;
		p[i] = s->predicted;
		ideal[i] = per * s->procs;
		xmin = fmin(xmin, x[i]);
		xmax = fmax(xmax, x[i]);
		ymax = fmax(ymax, fmax(fin(ideal[i]), fmax(fin(m[i]), fin(p[i]))));
		text_printf(&csv, "%d,%d,%.4f,%.4f,%.4f,%.4f\n", s->procs, s->queues, m[i], p[i], ideal[i],
		            s->device_busy);
	}
	double pad = xmax > xmin ? 0.04 * (xmax - xmin) : 0.5; /* a point's circle within the frame */
	struct report_axes a = { .x0 = xmin - pad,
		                 .x1 = xmax + pad,
		                 .y0 = 0,
		                 .y1 = report_nice_top(ymax, 5),
		                 .top = REPORT_MT,
		                 .height = REPORT_PH };
	struct report_key k[4];
	size_t nk = 0;
	k[nk++] = (struct report_key){ "measured", "measured", true };
	if (any_finite(p, n))
		k[nk++] = (struct report_key){ "predicted: filling idle time", "predicted", true };
	if (any_finite(ideal, n))
		k[nk++] = (struct report_key){ "ideal: the first step's rate per process", "ideal", true };
	if (isfinite(r->ceiling))
		k[nk++] = (struct report_key){ "calibrated ceiling", "ceiling", true };
	text_printf(t,
	            "<h2>Scaling</h2>\n<p>Measured %s per step against the prediction (each process only "
	            "filling idle time) and the ideal line (the first step's rate per process, times the "
	            "processes)%s.</p>\n",
	            r->unit, isfinite(r->ceiling) ? ", with the calibrated ceiling" : "");
	report_svg_open(t, "scaling curve", &a, chart_height(REPORT_PH, k, nk), r->unit, "processes x queues",
	                true);
	for (size_t i = 0; i < n; i++) {
		char step[32];
		snprintf(step, sizeof(step), "%dx%d", r->steps[i].procs, r->steps[i].queues);
		report_x_label(t, &a, report_px(&a, x[i]), step);
	}
	if (any_finite(ideal, n))
		report_polyline(t, &a, x, ideal, n, "ideal");
	if (any_finite(p, n))
		report_polyline(t, &a, x, p, n, "predicted");
	report_polyline(t, &a, x, m, n, "measured");
	for (size_t i = 0; i < n; i++)
		if (isfinite(m[i]))
			text_printf(
			    t,
			    "<circle class=\"measured point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>%dx%d: "
			    "%.2f %s</title></circle>\n",
			    report_px(&a, x[i]), report_py(&a, m[i]), r->steps[i].procs, r->steps[i].queues,
			    m[i], r->unit);
	if (isfinite(r->ceiling))
		ceiling_line(r, t, &a);
	report_svg_close(t, &a, k, nk);
	report_data_link(t, csv.p, "scaling.csv");
	free(csv.p);
	free(x);
	free(m);
	free(p);
	free(ideal);
}

/* The rate over the run's windows (no sweep). */
void report_over_time(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nwin;
	double *x = xcalloc(n ? n : 1, sizeof(double)), *y = xcalloc(n ? n : 1, sizeof(double));
	double ymax = fin(r->ceiling);
	struct gd_text csv = { 0 };
	text_printf(&csv, "t_s,%s,device_busy\n", r->unit);
	for (size_t i = 0; i < n; i++) {
		x[i] = r->win[i].t;
		y[i] = r->win[i].rate;
		ymax = fmax(ymax, fin(y[i]));
		text_printf(&csv, "%.3f,%.4f,%.4f\n", x[i], y[i], r->win[i].busy);
	}
	struct report_axes a = { .x0 = 0,
		                 .x1 = report_nice_top(n ? x[n - 1] : 1, 6),
		                 .y0 = 0,
		                 .y1 = report_nice_top(ymax, 5),
		                 .top = REPORT_MT,
		                 .height = REPORT_PH };
	struct report_key k[2] = { { "measured, each window", "measured", true },
		                   { "calibrated ceiling", "ceiling", true } };
	size_t nk = isfinite(r->ceiling) ? 2 : 1;
	text_printf(t, "<h2>Throughput</h2>\n<p>%s per window.</p>\n", r->unit);
	report_svg_open(t, "throughput over time", &a, chart_height(REPORT_PH, k, nk), r->unit,
	                "seconds since the start", true);
	report_x_ticks(t, &a);
	report_polyline(t, &a, x, y, n, "measured");
	if (isfinite(r->ceiling))
		ceiling_line(r, t, &a);
	report_svg_close(t, &a, k, nk);
	report_data_link(t, csv.p, "throughput.csv");
	free(csv.p);
	free(x);
	free(y);
}

/* One bar's parts: device busy, then the idle causes; its name. */
static void bar_parts(const struct gd_report *r, size_t i, double part[1 + GD_CAUSE_COUNT], char *name,
                      size_t len)
{
	if (r->nsteps) {
		part[0] = r->steps[i].device_busy;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			part[1 + c] = r->steps[i].idle[c];
		snprintf(name, len, "%dx%d", r->steps[i].procs, r->steps[i].queues);
		return;
	}
	struct report_figures f;
	report_run_figures(r, &f);
	part[0] = f.busy;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		part[1 + c] = f.idle[c];
	snprintf(name, len, "run");
}

/* One stacked bar per step (or one for the run), from the bottom: device busy, then the idle
 * causes; a total above 100% (rounding) is cut at the frame's top. */
void report_breakdown(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nsteps ? r->nsteps : 1;
	struct gd_text csv = { 0 }, bars = { 0 };
	text_printf(&csv, "step,device_busy");
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		text_printf(&csv, ",%s", diagnose_field((enum gd_cause)c));
	text_printf(&csv, "\n");
	struct report_axes a = {
		.x0 = 0, .x1 = 1, .y0 = 0, .y1 = 100, .top = REPORT_MT, .height = REPORT_PH
	};
	bool drawn[1 + GD_CAUSE_COUNT] = { false };
	double bw = (report_px(&a, 1) - report_px(&a, 0)) / (double)n;
	for (size_t i = 0; i < n; i++) {
		double part[1 + GD_CAUSE_COUNT], bottom = a.top + a.height;
		char name[32];
		bar_parts(r, i, part, name, sizeof(name));
		double x = report_px(&a, 0) + bw * (double)i + bw * 0.15;
		text_printf(&csv, "%s", name);
		for (int c = 0; c <= GD_CAUSE_COUNT; c++) {
			double h = fmin(a.height * fin(part[c]), bottom - a.top);
			text_printf(&csv, ",%.4f", part[c]);
			if (h <= 0.05)
				continue;
			bottom -= h;
			drawn[c] = true;
			text_printf(&bars,
			            "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			            "height=\"%.1f\"><title>%s: "
			            "%s %.0f%%</title></rect>\n",
			            c ? diagnose_field((enum gd_cause)(c - 1)) : "busy", x, bottom, bw * 0.7,
			            h, name, c ? diagnose_name((enum gd_cause)(c - 1)) : "device busy",
			            100 * part[c]);
		}
		text_printf(&csv, "\n");
		text_printf(&bars, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + bw * 0.35,
		            a.top + a.height + 14, name);
	}
	struct report_key k[1 + GD_CAUSE_COUNT];
	size_t nk = 0;
	for (int c = 0; c <= GD_CAUSE_COUNT; c++)
		if (drawn[c])
			k[nk++] =
			    (struct report_key){ c ? diagnose_name((enum gd_cause)(c - 1)) : "device busy",
				                 c ? diagnose_field((enum gd_cause)(c - 1)) : "busy", false };
	text_printf(t,
	            "<h2>Where the time goes</h2>\n<p>Of each %s: the device busy, and its idle time by "
	            "cause.</p>\n",
	            r->nsteps ? "step" : "run (the mean over its measured windows)");
	report_svg_open(t, "time breakdown", &a, chart_height(REPORT_PH, k, nk), "% of the time",
	                r->nsteps ? "step" : "", true);
	text_printf(t, "%s", bars.p ? bars.p : "");
	report_svg_close(t, &a, k, nk);
	if (r->drv_n) /* the same windows on both sides: the gap is what the union corrects */
		text_printf(
		    t,
		    "<p class=\"driver\">Over the %d windows the driver answered: device busy %.0f%%, "
		    "the driver's utilization %.0f%% (as nvidia-smi shows it: a sample period in "
		    "which any kernel of any process ran counts as busy whole).</p>\n",
		    r->drv_n, 100 * r->drv_busy / r->drv_n, 100 * r->drv_util / r->drv_n);
	report_data_link(t, csv.p, "breakdown.csv");
	free(csv.p);
	free(bars.p);
}

/* The rows of the timeline: one per worker and queue, in the order first seen. */
static size_t timeline_rows(const struct gd_report *r, size_t n, unsigned rows[][2], int64_t *t0, int64_t *t1)
{
	size_t nrows = 0;
	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		const struct report_rec *k = &r->recs[i];
		for (unsigned q = 0; q < k->nk; q++) {
			*t0 = k->kv[q][0] < *t0 ? k->kv[q][0] : *t0;
			*t1 = k->kv[q][1] > *t1 ? k->kv[q][1] : *t1;
		}
		for (int c = 0; c < 2; c++) { /* the copies too: one may start before the kernels */
			const int64_t *iv = c ? k->d2h : k->h2d;
			if (iv[1] > iv[0]) {
				*t0 = iv[0] < *t0 ? iv[0] : *t0;
				*t1 = iv[1] > *t1 ? iv[1] : *t1;
			}
		}
		size_t j = 0;
		while (j < nrows && !(rows[j][0] == k->worker && rows[j][1] == k->lane))
			j++;
		if (j == nrows) {
			rows[nrows][0] = k->worker;
			rows[nrows++][1] = k->lane;
		}
	}
	return nrows;
}

/* One record's intervals on row y of the timeline, into t and csv; which kinds were drawn. */
static void timeline_rec(struct gd_text *t, struct gd_text *csv, const struct report_axes *a,
                         const struct report_rec *k, int64_t t0, double y, bool drawn[4])
{
	const int64_t *iv[GD_REC_KMAX + 2];
	int kind[GD_REC_KMAX + 2]; /* 0 kernel, 1 h2d, 2 d2h */
	static const char *const name[] = { "kernel", "h2d", "d2h" };
	size_t m = 0;
	for (unsigned q = 0; q < k->nk; q++, m++) {
		iv[m] = k->kv[q];
		kind[m] = 0;
	}
	if (k->h2d[1] > k->h2d[0]) {
		iv[m] = k->h2d;
		kind[m++] = 1;
	}
	if (k->d2h[1] > k->d2h[0]) {
		iv[m] = k->d2h;
		kind[m++] = 2;
	}
	double right = report_px(a, a->x1);
	for (size_t q = 0; q < m; q++) {
		double x0 = report_px(a, (double)(iv[q][0] - t0) / 1e6);
		double w =
		    fmax(report_px(a, (double)(iv[q][1] - t0) / 1e6) - x0, 0.3); /* seen, however short */
		x0 = fmin(x0, right - w);
		drawn[kind[q]] = true;
		drawn[3] |= k->estimated;
		text_printf(t,
		            "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"/>\n",
		            name[kind[q]], k->estimated ? " est" : "", x0, y, w, 16.0);
		text_printf(csv, "%u,%u,%s,%.3f,%.3f,%d\n", k->worker, k->lane + 1, name[kind[q]],
		            (double)(iv[q][0] - t0) / 1e3, (double)(iv[q][1] - t0) / 1e3, k->estimated);
	}
}

/* The latest kept batches, one row per worker and lane: kernels and copies as rectangles on a
 * time axis in milliseconds from the first interval shown. */
void report_timeline(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nrecs < REPORT_RECS ? r->nrecs : REPORT_RECS;
	text_printf(t, "<h2>Timeline</h2>\n");
	if (!n) {
		text_printf(t, "<p>No batch with device times was recorded.</p>\n");
		return;
	}
	unsigned rows[REPORT_RECS][2];
	int64_t t0, t1;
	size_t nrows = timeline_rows(r, n, rows, &t0, &t1);
	double span_ms = t1 > t0 ? (double)(t1 - t0) / 1e6 : 1e-3, rh = 22;
	struct report_axes a = {
		.x0 = 0, .x1 = span_ms, .y0 = 0, .y1 = 1, .top = REPORT_MT, .height = rh * (double)nrows
	};
	struct gd_text csv = { 0 }, rects = { 0 };
	text_printf(&csv, "worker,lane,kind,start_us,end_us,estimated\n");
	bool drawn[4] = { false };
	for (size_t i = 0; i < n; i++) {
		const struct report_rec *k = &r->recs[i];
		size_t j = 0;
		while (!(rows[j][0] == k->worker && rows[j][1] == k->lane))
			j++;
		timeline_rec(&rects, &csv, &a, k, t0, a.top + rh * (double)j + 3, drawn);
	}
	static const struct report_key all[] = { { "kernel", "kernel", false },
		                                 { "to the device", "h2d", false },
		                                 { "from the device", "d2h", false },
		                                 { "estimated, not profiled (lighter)", "kernel est",
		                                   false } };
	struct report_key k[4];
	size_t nk = 0;
	for (int i = 0; i < 4; i++)
		if (drawn[i])
			k[nk++] = all[i];
	text_printf(
	    t,
	    "<p>The last %zu batches with device times (%.3f ms): kernels, and copies to and from the "
	    "device, one row per worker and queue.</p>\n",
	    n, span_ms);
	report_svg_open(t, "timeline", &a, chart_height(a.height, k, nk), "worker, queue",
	                "milliseconds from the first interval shown", false);
	for (size_t j = 0; j < nrows; j++)
		text_printf(t, "<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">w%u q%u</text>\n",
		            report_px(&a, 0) - 6, a.top + rh * ((double)j + 0.7), rows[j][0], rows[j][1] + 1);
	report_x_ticks(t, &a);
	text_printf(t, "%s", rects.p);
	report_svg_close(t, &a, k, nk);
	report_data_link(t, csv.p, "timeline.csv");
	free(csv.p);
	free(rects.p);
}

/* report.c: --report FILE.html (report.h). The output keeps what the page needs while the run
 * goes (each window's rate, busy and idle causes; each sweep step; the latest batch records)
 * and writes the page once, when it is closed. Charts are inline SVG drawn here: a handful of
 * lines, points and rectangles, nothing a library would make shorter. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/ceiling.h"
#include "measure/collect.h"
#include "gputop/common.h"
#include "measure/diagnose.h"
#include "gputop/wire.h"
#include "gputop/frame.h"

#define REPORT_RECS 64  /* the latest batch records kept for the timeline */
#define W           720 /* a chart's size, in SVG user units: it scales to the page */
#define H           260
#define ML          56 /* margins: left (the y labels), right, top, bottom (the x labels) */
#define MR          16
#define MT          12
#define MB          36

struct window {
	double t, rate, busy, idle[GD_CAUSE_COUNT];
};

struct rec {
	unsigned worker, lane, nk;
	bool estimated;
	int64_t kv[GD_REC_KMAX][2], h2d[2], d2h[2];
};

struct gd_report {
	int fd; /* -1: the page goes to a new file renamed over path (replace_file) */
	bool own_fd;
	mode_t mode; /* that new file's: 0644 less the umask, as the other outputs */
	char unit[16], device[256];
	char *path, *run_json;
	double ceiling, ceiling_4x; /* NAN: not calibrated, not measured at 4x the size */
	char diagnosis[512];
	double drv_busy, drv_util; /* sums over the windows where the driver answered, drv_n */
	int drv_n;
	struct window *win;
	size_t nwin, capwin;
	struct gd_sweep_row *steps;
	size_t nsteps, capsteps;
	struct rec recs[REPORT_RECS];
	size_t nrecs; /* records seen; the latest REPORT_RECS are kept, round robin */
};

static const char *const cause_colour[GD_CAUSE_COUNT] = { "#e0a030", "#50a0d0", "#a070c0", "#d05050",
	                                                  "#a0a0a0" };
#define BUSY_COLOUR "#3a8a3a"

struct gd_report *report_open(int fd, bool own_fd, const char *path, const struct gd_device *devs, int ndev,
                              const char *run_json, const char *unit)
{
	struct gd_report *r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->own_fd = own_fd;
	r->path = xcalloc(1, strlen(path) + 1);
	memcpy(r->path, path, strlen(path));
	mode_t mask = umask(0);
	umask(mask);
	r->mode = 0644 & ~mask;
	str_copy(r->unit, sizeof(r->unit), unit);
	for (int d = 0, n = 0; d < ndev && n < (int)sizeof(r->device); d++)
		n += snprintf(r->device + n, sizeof(r->device) - (size_t)n, "%s%s %s", d ? ", " : "",
		              devs[d].ref, devs[d].name);
	const char *j = run_json ? run_json : "{}";
	r->run_json = xcalloc(1, strlen(j) + 1);
	memcpy(r->run_json, j, strlen(j));
	r->ceiling = r->ceiling_4x = NAN;
	return r;
}

static void report_batch(void *self, const struct gd_row_info *w, const char *device,
                         const struct gd_rec *rec)
{
	(void)device;
	struct gd_report *r = self;
	if (!(rec->flags & GD_REC_DEVTIME) || !rec->nkiv)
		return;
	struct rec *k = &r->recs[r->nrecs++ % REPORT_RECS];
	k->worker = w->id;
	k->lane = gd_rec_lane(rec);
	k->estimated = (rec->flags & GD_REC_ESTIMATED) != 0;
	k->nk = rec->nkiv;
	for (uint32_t i = 0; i < rec->nkiv; i++)
		gd_rec_kiv(rec, i, k->kv[i]);
	memcpy(k->h2d, rec->h2d, sizeof(k->h2d));
	memcpy(k->d2h, rec->d2h, sizeof(k->d2h));
}

static int report_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0'; /* keeping a window cannot fail */
	struct gd_report *r = self;
	if (!f->observed)
		return 0;
	if (r->nwin == r->capwin) {
		r->capwin = r->capwin ? 2 * r->capwin : 256;
		r->win = xreallocarray(r->win, r->capwin, sizeof(*r->win));
	}
	struct window *w = &r->win[r->nwin++];
	w->t = f->t_s;
	w->rate = f->agg.rate;
	w->busy = f->device_busy;
	memcpy(w->idle, f->agg.idle.share, sizeof(w->idle));
	if (!isnan(f->driver_util) && !isnan(f->device_busy)) {
		r->drv_busy += f->device_busy;
		r->drv_util += f->driver_util;
		r->drv_n++;
	}
	if (!isnan(f->ceiling))
		r->ceiling = f->ceiling;
	if (!isnan(f->ceiling_4x))
		r->ceiling_4x = f->ceiling_4x;
	if (!isnan(f->device_busy)) {
		double cores = 0;
		for (int i = 0; i < f->nworkers; i++)
			if (!isnan(f->workers[i].gen_busy))
				cores += f->workers[i].gen_busy > 1 ? f->workers[i].gen_busy : 1;
		diagnose_words(r->diagnosis, sizeof(r->diagnosis), f, cores,
		               (int)sysconf(_SC_NPROCESSORS_ONLN), r->unit);
	}
	return 0;
}

static int report_sweep_row(void *self, const struct gd_sweep_row *row, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	struct gd_report *r = self;
	if (row->rep != 0 || strcmp(row->device, "all") != 0)
		return 0; /* the steps' summaries only */
	if (r->nsteps == r->capsteps) {
		r->capsteps = r->capsteps ? 2 * r->capsteps : 16;
		r->steps = xreallocarray(r->steps, r->capsteps, sizeof(*r->steps));
	}
	r->steps[r->nsteps++] = *row;
	if (!isnan(row->of_ceiling) && row->of_ceiling > 0)
		r->ceiling = row->rate / row->of_ceiling;
	return 0;
}

/* ---- the page ---- */

/* Text on the page: cleaned (gd_clean_text), as in every output, then escaped for HTML. */
static void esc(struct gd_text *t, const char *text)
{
	size_t len = strlen(text);
	char *c = xmalloc(len + 1);
	gd_clean_text(c, len + 1, text, len);
	for (const char *s = c; *s; s++) {
		const char *e = *s == '<'   ? "&lt;"
		                : *s == '>' ? "&gt;"
		                : *s == '&' ? "&amp;"
		                : *s == '"' ? "&quot;"
		                            : NULL;
		if (e)
			text_printf(t, "%s", e);
		else
			text_printf(t, "%c", *s);
	}
	free(c);
}

/* A CSV text as a link to itself: a data: URI, percent-encoded. */
static void data_link(struct gd_text *t, const char *csv, const char *name)
{
	text_printf(t, "<a class=\"data\" download=\"%s\" href=\"data:text/csv;charset=utf-8,", name);
	for (const unsigned char *p = (const unsigned char *)csv; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-_.~,", *p))
			text_printf(t, "%c", *p);
		else
			text_printf(t, "%%%02X", *p);
	}
	text_printf(t, "\">data (CSV)</a>\n");
}

static double fin(double v)
{
	return isfinite(v) ? v : 0;
}

/* The axes of an x-y chart over [0, xmax] x [0, ymax]: the frame, 5 y ticks, their labels. */
struct axes {
	double xmin, xmax, ymax;
};

static double px(const struct axes *a, double x)
{
	return ML + (W - ML - MR) * (a->xmax > a->xmin ? (x - a->xmin) / (a->xmax - a->xmin) : 0.5);
}

static double py(const struct axes *a, double y)
{
	return MT + (H - MT - MB) * (1 - (a->ymax > 0 ? y / a->ymax : 0));
}

static void svg_open(struct gd_text *t, const char *label, const struct axes *a, const char *ylabel,
                     const char *xlabel)
{
	text_printf(t, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", W, H);
	esc(t, label);
	text_printf(t, "\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", ML, MT,
	            W - ML - MR, H - MT - MB);
	for (int i = 0; a && i <= 4; i++) {
		double v = a->ymax * i / 4;
		text_printf(t, "<text x=\"%d\" y=\"%.1f\" class=\"yl\">%.4g</text>\n", ML - 6, py(a, v) + 4,
		            v);
	}
	text_printf(t, "<text x=\"12\" y=\"%d\" class=\"al\" transform=\"rotate(-90 12 %d)\">", H / 2, H / 2);
	esc(t, ylabel);
	text_printf(t, "</text>\n<text x=\"%d\" y=\"%d\" class=\"al\">", (W + ML) / 2, H - 4);
	esc(t, xlabel);
	text_printf(t, "</text>\n");
}

static void polyline(struct gd_text *t, const struct axes *a, const double *x, const double *y, size_t n,
                     const char *cls)
{
	text_printf(t, "<polyline class=\"%s\" points=\"", cls);
	for (size_t i = 0; i < n; i++)
		if (isfinite(y[i]))
			text_printf(t, "%.1f,%.1f ", px(a, x[i]), py(a, y[i]));
	text_printf(t, "\"/>\n");
}

/* The scaling curve of a sweep: measured points, the prediction, the ideal line from the first
 * step, the ceiling. */
static void scaling(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nsteps;
	double *x = xcalloc(n, sizeof(double)), *m = xcalloc(n, sizeof(double)),
	       *p = xcalloc(n, sizeof(double)), *ideal = xcalloc(n, sizeof(double));
	struct axes a = { .xmin = 1e9, .xmax = 0, .ymax = fin(r->ceiling) };
	struct gd_text csv = { 0 };
	text_printf(&csv, "procs,queues,%s,predicted,ideal,device_busy\n", r->unit);
	for (size_t i = 0; i < n; i++) {
		const struct gd_sweep_row *s = &r->steps[i];
		x[i] = s->procs;
		m[i] = s->rate;
		p[i] = s->predicted;
		ideal[i] = fin(r->steps[0].rate) / (r->steps[0].procs ? r->steps[0].procs : 1) * s->procs;
		a.xmin = x[i] < a.xmin ? x[i] : a.xmin;
		a.xmax = x[i] > a.xmax ? x[i] : a.xmax;
		a.ymax = fmax(a.ymax, fmax(fin(m[i]), fin(p[i])));
		text_printf(&csv, "%d,%d,%.4f,%.4f,%.4f,%.4f\n", s->procs, s->queues, m[i], p[i], ideal[i],
		            s->device_busy);
	}
	a.ymax *= 1.1;
	for (size_t i = 0; i < n; i++)
		ideal[i] = fmin(ideal[i], a.ymax);
	text_printf(t,
	            "<h2>Scaling</h2>\n<p>Measured %s per step against the prediction (each process only "
	            "filling idle time), the ideal line (the first step's rate per process, times the "
	            "processes) and the calibrated ceiling.</p>\n",
	            r->unit);
	char ylabel[32];
	snprintf(ylabel, sizeof(ylabel), "%s", r->unit);
	svg_open(t, "scaling curve", &a, ylabel, "processes");
	polyline(t, &a, x, ideal, n, "ideal");
	polyline(t, &a, x, p, n, "predicted");
	polyline(t, &a, x, m, n, "measured");
	for (size_t i = 0; i < n; i++) {
		text_printf(t, "<text x=\"%.1f\" y=\"%d\" class=\"xl\">%dx%d</text>\n", px(&a, x[i]),
		            H - MB + 14, r->steps[i].procs, r->steps[i].queues);
		if (isfinite(m[i]))
			text_printf(
			    t,
			    "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>%dx%d: %.2f %s"
			    "</title></circle>\n",
			    px(&a, x[i]), py(&a, m[i]), r->steps[i].procs, r->steps[i].queues, m[i], r->unit);
	}
	if (isfinite(r->ceiling))
		text_printf(t, "<line class=\"ceiling\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", ML,
		            W - MR, py(&a, r->ceiling), py(&a, r->ceiling));
	text_printf(t, "</svg>\n<p class=\"legend\"><span class=\"k measured\">measured</span> "
	               "<span class=\"k predicted\">predicted</span> <span class=\"k ideal\">ideal</span> "
	               "<span class=\"k ceiling\">ceiling</span></p>\n");
	data_link(t, csv.p, "scaling.csv");
	free(csv.p);
	free(x);
	free(m);
	free(p);
	free(ideal);
}

/* The rate over the run's windows (no sweep). */
static void over_time(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nwin;
	double *x = xcalloc(n, sizeof(double)), *y = xcalloc(n, sizeof(double));
	struct axes a = { .xmin = 0, .xmax = n ? r->win[n - 1].t : 1, .ymax = fin(r->ceiling) };
	struct gd_text csv = { 0 };
	text_printf(&csv, "t_s,%s,device_busy\n", r->unit);
	for (size_t i = 0; i < n; i++) {
		x[i] = r->win[i].t;
		y[i] = r->win[i].rate;
		a.ymax = fmax(a.ymax, fin(y[i]));
		text_printf(&csv, "%.3f,%.4f,%.4f\n", x[i], y[i], r->win[i].busy);
	}
	a.ymax = a.ymax > 0 ? 1.1 * a.ymax : 1;
	text_printf(t, "<h2>Throughput</h2>\n<p>%s per window.</p>\n", r->unit);
	svg_open(t, "throughput over time", &a, r->unit, "seconds");
	polyline(t, &a, x, y, n, "measured");
	if (isfinite(r->ceiling))
		text_printf(t, "<line class=\"ceiling\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", ML,
		            W - MR, py(&a, r->ceiling), py(&a, r->ceiling));
	text_printf(t, "</svg>\n");
	data_link(t, csv.p, "throughput.csv");
	free(csv.p);
	free(x);
	free(y);
}

/* One stacked bar per step (or one for the run): device busy, then the idle causes. */
static void breakdown(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nsteps ? r->nsteps : 1;
	struct gd_text csv = { 0 };
	text_printf(&csv, "step,device_busy");
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		text_printf(&csv, ",%s", diagnose_field((enum gd_cause)c));
	text_printf(&csv, "\n");
	text_printf(t,
	            "<h2>Where the time goes</h2>\n<p>Of each %s: the device busy, and its idle time by "
	            "cause.</p>\n",
	            r->nsteps ? "step" : "run (the mean over its windows)");
	struct axes pct = { .xmin = 0, .xmax = 1, .ymax = 100 };
	svg_open(t, "time breakdown", &pct, "% of the time", r->nsteps ? "step" : "");
	double bw = (W - ML - MR) / (double)n;
	for (size_t i = 0; i < n; i++) {
		double part[1 + GD_CAUSE_COUNT] = { 0 }, seen = 0;
		char name[32] = "run";
		if (r->nsteps) {
			part[0] = r->steps[i].device_busy;
			for (int c = 0; c < GD_CAUSE_COUNT; c++)
				part[1 + c] = r->steps[i].idle[c];
			snprintf(name, sizeof(name), "%dx%d", r->steps[i].procs, r->steps[i].queues);
		} else {
			for (size_t k = 0; k < r->nwin; k++) {
				if (isnan(r->win[k].busy) || isnan(r->win[k].idle[0]))
					continue;
				part[0] += r->win[k].busy;
				for (int c = 0; c < GD_CAUSE_COUNT; c++)
					part[1 + c] += r->win[k].idle[c];
				seen++;
			}
			for (int c = 0; seen > 0 && c <= GD_CAUSE_COUNT; c++)
				part[c] /= seen;
		}
		double y = MT, x = ML + bw * (double)i + bw * 0.15;
		text_printf(&csv, "%s", name);
		for (int c = 0; c <= GD_CAUSE_COUNT; c++) {
			double h = (H - MT - MB) * fin(part[c]);
			text_printf(&csv, ",%.4f", part[c]);
			if (h <= 0)
				continue;
			text_printf(t,
			            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			            "fill=\"%s\"><title>%s: "
			            "%s %.1f%%</title></rect>\n",
			            x, y, bw * 0.7, h, c ? cause_colour[c - 1] : BUSY_COLOUR, name,
			            c ? diagnose_name((enum gd_cause)(c - 1)) : "busy", 100 * part[c]);
			y += h;
		}
		text_printf(&csv, "\n");
		text_printf(t, "<text x=\"%.1f\" y=\"%d\" class=\"xl\">%s</text>\n", x + bw * 0.35,
		            H - MB + 14, name);
	}
	text_printf(t, "</svg>\n<p class=\"legend\"><span class=\"sw\" style=\"background:%s\"></span>busy",
	            BUSY_COLOUR);
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		text_printf(t, " <span class=\"sw\" style=\"background:%s\"></span>%s", cause_colour[c],
		            diagnose_name((enum gd_cause)c));
	text_printf(t, "</p>\n");
	if (r->drv_n) /* the same windows on both sides: the gap is what the union corrects */
		text_printf(
		    t,
		    "<p class=\"driver\">Over the %d windows the driver answered: device busy %.0f%%, "
		    "the driver's utilization %.0f%% (as nvidia-smi shows it: a sample period in "
		    "which any kernel of any process ran counts as busy whole).</p>\n",
		    r->drv_n, 100 * r->drv_busy / r->drv_n, 100 * r->drv_util / r->drv_n);
	data_link(t, csv.p, "breakdown.csv");
	free(csv.p);
}

/* The latest kept batches, one row per worker and lane: kernels and copies as rectangles. */
static void timeline(struct gd_report *r, struct gd_text *t)
{
	size_t n = r->nrecs < REPORT_RECS ? r->nrecs : REPORT_RECS;
	text_printf(t, "<h2>Timeline</h2>\n");
	if (!n) {
		text_printf(t, "<p>No batch with device times was recorded.</p>\n");
		return;
	}
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	unsigned rows[REPORT_RECS][2];
	size_t nrows = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rec *k = &r->recs[i];
		t0 = k->kv[0][0] < t0 ? k->kv[0][0] : t0;
		t1 = k->kv[k->nk - 1][1] > t1 ? k->kv[k->nk - 1][1] : t1;
		size_t j = 0;
		while (j < nrows && !(rows[j][0] == k->worker && rows[j][1] == k->lane))
			j++;
		if (j == nrows) {
			rows[nrows][0] = k->worker;
			rows[nrows++][1] = k->lane;
		}
	}
	double span = t1 > t0 ? (double)(t1 - t0) : 1, rh = 22;
	int height = (int)(MT + rh * (double)nrows + MB);
	text_printf(
	    t,
	    "<p>The last %zu batches with device times (%.3f ms): kernels, and copies to and from the "
	    "device, one row per worker and queue; lighter: estimated, not profiled.</p>\n",
	    n, span / 1e6);
	text_printf(t, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"timeline\">\n", W, height);
	struct gd_text csv = { 0 };
	text_printf(&csv, "worker,lane,kind,start_us,end_us,estimated\n");
	for (size_t j = 0; j < nrows; j++)
		text_printf(t, "<text x=\"%d\" y=\"%.1f\" class=\"yl\">w%u q%u</text>\n", ML - 6,
		            MT + rh * ((double)j + 0.7), rows[j][0], rows[j][1] + 1);
	for (size_t i = 0; i < n; i++) {
		const struct rec *k = &r->recs[i];
		size_t j = 0;
		while (!(rows[j][0] == k->worker && rows[j][1] == k->lane))
			j++;
		const int64_t *iv[GD_REC_KMAX + 2];
		const char *kind[GD_REC_KMAX + 2];
		size_t m = 0;
		for (unsigned q = 0; q < k->nk; q++, m++) {
			iv[m] = k->kv[q];
			kind[m] = "kernel";
		}
		if (k->h2d[1] > k->h2d[0]) {
			iv[m] = k->h2d;
			kind[m++] = "h2d";
		}
		if (k->d2h[1] > k->d2h[0]) {
			iv[m] = k->d2h;
			kind[m++] = "d2h";
		}
		for (size_t q = 0; q < m; q++) {
			double x0 = ML + (W - ML - MR) * (double)(iv[q][0] - t0) / span;
			double w = (W - ML - MR) * (double)(iv[q][1] - iv[q][0]) / span;
			text_printf(
			    t,
			    "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"/>\n",
			    kind[q], k->estimated ? " est" : "", x0, MT + rh * (double)j + 3,
			    w > 0.3 ? w : 0.3, rh - 6);
			text_printf(&csv, "%u,%u,%s,%.3f,%.3f,%d\n", k->worker, k->lane + 1, kind[q],
			            (double)(iv[q][0] - t0) / 1e3, (double)(iv[q][1] - t0) / 1e3,
			            k->estimated);
		}
	}
	text_printf(t, "</svg>\n<p class=\"legend\"><span class=\"sw kernel\"></span>kernel <span class=\"sw "
	               "h2d\"></span>to the device <span class=\"sw d2h\"></span>from the device</p>\n");
	data_link(t, csv.p, "timeline.csv");
	free(csv.p);
}

static const char style[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:60em;padding:0 1em;color:#222}"
    "svg{width:100%;height:auto;background:#fff}pre{white-space:pre-wrap;word-break:break-all;"
    "background:#f4f4f4;padding:.6em;font-size:.85em}.frame{fill:none;stroke:#888}"
    ".yl{font-size:11px;text-anchor:end}.xl{font-size:11px;text-anchor:middle}"
    ".al{font-size:12px;text-anchor:middle}polyline{fill:none;stroke-width:2}"
    ".measured{stroke:#1f5fa8}.predicted{stroke:#d07020;stroke-dasharray:6 4}"
    ".ideal{stroke:#999;stroke-dasharray:2 3}.ceiling{stroke:#c03030;stroke-dasharray:8 3}"
    ".point{fill:#1f5fa8}.kernel{fill:#3a8a3a}.h2d{fill:#50a0d0}.d2h{fill:#a070c0}.est{opacity:.45}"
    ".legend{font-size:.9em}.k{padding-left:1.6em;border-left:0;margin-right:1em;"
    "background-repeat:no-repeat}.k.measured{color:#1f5fa8}.k.predicted{color:#d07020}"
    ".k.ideal{color:#777}.k.ceiling{color:#c03030}.sw{display:inline-block;width:.9em;height:.9em;"
    "margin:0 .3em 0 .8em;vertical-align:middle}.sw.kernel{background:#3a8a3a}"
    ".sw.h2d{background:#50a0d0}.sw.d2h{background:#a070c0}a.data{font-size:.85em}"
    "@media print{a.data{display:none}}";

static void page(struct gd_report *r, struct gd_text *t)
{
	text_printf(t,
	            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta "
	            "name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" GD_NAME
	            " report</title>\n<style>%s</style>\n</head>\n<body>\n<h1>" GD_NAME " report</h1>\n",
	            style);
	text_printf(t, "<p>");
	esc(t, r->device);
	text_printf(t, "</p>\n<h2>Diagnosis</h2>\n<p class=\"diag\">");
	if (r->nsteps) {
		const struct gd_sweep_row *last = &r->steps[r->nsteps - 1];
		text_printf(t, "The last step, %dx%d, reached %.2f %s at %.0f%% device busy", last->procs,
		            last->queues, last->rate, r->unit, 100 * last->device_busy);
		if (isfinite(last->predicted))
			text_printf(t, "; filling idle time alone predicts %.2f (%.0f%% of it measured)",
			            last->predicted, 100 * last->rate / last->predicted);
		if (isfinite(r->steps[0].pipelined))
			text_printf(t, "; one pipelined process would reach about %.2f %s",
			            r->steps[0].pipelined, r->unit);
		text_printf(t, ". ");
	}
	esc(t, r->diagnosis[0] ? r->diagnosis : "No window measured the device's busy time.");
	if (isfinite(r->ceiling)) {
		char larger[128];
		struct gd_ceiling c = { .rate = r->ceiling, .rate_4x = r->ceiling_4x };
		ceiling_say_4x(larger, sizeof(larger), &c, r->unit);
		text_printf(t, ". The calibrated ceiling: %.2f %s", r->ceiling, r->unit);
		esc(t, larger);
	}
	text_printf(t, ".</p>\n");
	if (r->nsteps)
		scaling(r, t);
	else
		over_time(r, t);
	breakdown(r, t);
	timeline(r, t);
	text_printf(t, "<h2>Run</h2>\n<pre>");
	esc(t, r->run_json);
	text_printf(t, "</pre>\n</body>\n</html>\n");
}

/* Writes text to a new file beside r->path (a name nobody knows before it exists, made with
 * O_EXCL), flushed to disk, then renamed over r->path: until the page is whole on disk the
 * previous report stays as it was, whatever ends the run (SIGKILL) or fills the disk. 0, or the
 * errno with the step that failed in *step; no temporary file is left after a failure. */
static int replace_file(const struct gd_report *r, const char *text, size_t n, const char **step)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(r->path, '/');
	int dirlen = slash ? (int)(slash - r->path) + 1 : 0;
	int len = snprintf(tmp, sizeof(tmp), "%.*s.gputop-decode-report.XXXXXX", dirlen, r->path);
	*step = "create a file beside";
	if (len < 0 || (size_t)len >= sizeof(tmp))
		return ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return errno;
	int e = fchmod(fd, r->mode) != 0 ? errno : 0;
	if (!e) {
		*step = "write";
		e = write_all(fd, text, n, NULL);
	}
	if (!e && fsync(fd) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e) {
		*step = "rename a file over";
		e = rename(tmp, r->path) != 0 ? errno : 0;
	}
	if (e)
		unlink(tmp);
	return e;
}

static int report_close(void *self, char *why, size_t whylen)
{
	struct gd_report *r = self;
	struct gd_text t = { 0 };
	page(r, &t);
	const char *step = "write";
	int rc = 0, e = r->fd < 0 ? replace_file(r, t.p, t.n, &step) : write_all(r->fd, t.p, t.n, NULL);
	if (e) {
		snprintf(why, whylen, "--report: cannot %s '%s': %s", step, r->path, strerror(e));
		rc = -1;
	}
	if (r->own_fd && close(r->fd) != 0 && !rc) {
		snprintf(why, whylen, "--report: cannot close '%s'", r->path);
		rc = -1;
	}
	free(t.p);
	free(r->path);
	free(r->run_json);
	free(r->win);
	free(r->steps);
	free(r);
	return rc;
}

const struct gd_output_ops report_output = {
	.batch = report_batch,
	.frame = report_frame,
	.sweep_row = report_sweep_row,
	.close = report_close,
};

/* report_impl.h: what the report's files share (report.c keeps the run's figures and writes the
 * page, report_svg.c draws axes and legends, report_charts.c the charts, report_run.c the
 * diagnosis and the options table). Not for other modules: report.h is the interface.
 *
 * Every chart is one <svg> whose plot area is its <rect class="frame">: the data (in <g
 * class="data">) lies inside it, on axes whose ticks are multiples of a nice step (1, 2, 2.5 or
 * 5 x 10^k), and every series has a key with a swatch in <g class="legend"> (no key without its
 * series). tests/integration/check_svg.py checks exactly this. */
#ifndef GPUTOP_REPORT_IMPL_H
#define GPUTOP_REPORT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/common.h"
#include "gputop/frame.h"
#include "gputop/outputs.h"
#include "gputop/wire.h"

#define REPORT_RECS 64 /* the latest batch records kept for the timeline */

struct report_window {
	double t, len, rate, busy, idle[GD_CAUSE_COUNT];
	double procs, cores_used; /* processes making OpenCL calls; host cores they kept busy */
};

struct report_rec {
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
	bool host_cpu;              /* every device is the host's CPU (the latest frame's word) */
	double drv_busy, drv_util;  /* sums over the windows where the driver answered, drv_n */
	int drv_n;
	struct report_window *win;
	size_t nwin, capwin;
	struct gd_sweep_row *steps;
	size_t nsteps, capsteps;
	struct report_rec recs[REPORT_RECS];
	size_t nrecs; /* records seen; the latest REPORT_RECS are kept, round robin */
};

/* The figures the page quotes for the run (the means over its measured windows) or for a
 * sweep's last step: the diagnosis, the breakdown's bar and the table say the same busy. */
struct report_figures {
	double rate, busy, idle[GD_CAUSE_COUNT], procs, cores_used;
	int windows; /* measured windows it rests on (a step: 1) */
};
void report_run_figures(const struct gd_report *r, struct report_figures *f);

/* ---- report_svg.c ---- */

#define REPORT_W  720 /* a chart's width in SVG user units: it scales to the page */
#define REPORT_MT 28  /* above a plot: the y axis' words */
#define REPORT_PH 200 /* an x-y plot's height */
#define REPORT_MB 40  /* below a plot: the x ticks' labels and the x axis' words */

/* An x-y chart's plot area and its axes' ranges. */
struct report_axes {
	double x0, x1, y0, y1; /* the ranges drawn from the frame's left, right, bottom, top */
	double top, height;    /* the plot area's top edge and height in user units */
};
/* The nice step (1, 2, 2.5 or 5 x 10^k) that cuts [0, span] into at most `most` parts. */
double report_nice_step(double span, int most);
/* The top of an axis from 0 that holds max: the next multiple of its nice step. */
double report_nice_top(double max, int most);
double report_px(const struct report_axes *a, double x);
double report_py(const struct report_axes *a, double y);

/* A legend's key: its words and its swatch, a line (line true) or a square, drawn with the
 * same class as its series. */
struct report_key {
	const char *name, *cls;
	bool line;
};
/* Height the legend of n keys takes below a plot. */
double report_legend_height(const struct report_key *k, size_t n);

/* Opens the chart: the svg element of height h, the frame, the y ticks (numeric unless yt is
 * false) with grid lines, the y axis' words above it and the x axis' words below. */
void report_svg_open(struct gd_text *t, const char *label, const struct report_axes *a, double h,
                     const char *ylabel, const char *xlabel, bool yt);
/* The x ticks at multiples of a nice step within [x0, x1], labelled in numbers. */
void report_x_ticks(struct gd_text *t, const struct report_axes *a);
/* An x tick's label in words (a sweep's step, a bar's name), at user x. */
void report_x_label(struct gd_text *t, const struct report_axes *a, double x, const char *words);
/* Closes the data group, draws the legend below the plot, closes the svg. */
void report_svg_close(struct gd_text *t, const struct report_axes *a, const struct report_key *k, size_t n);
void report_polyline(struct gd_text *t, const struct report_axes *a, const double *x, const double *y,
                     size_t n, const char *cls);

/* Text on the page: cleaned (gd_clean_text), as in every output, then escaped for HTML. */
void report_esc(struct gd_text *t, const char *text);
/* A CSV text as a link to itself: a data: URI, percent-encoded. */
void report_data_link(struct gd_text *t, const char *csv, const char *name);

/* ---- report_charts.c ---- */

void report_scaling(struct gd_report *r, struct gd_text *t);
void report_over_time(struct gd_report *r, struct gd_text *t);
void report_breakdown(struct gd_report *r, struct gd_text *t);
void report_timeline(struct gd_report *r, struct gd_text *t);
/* The CSS rules of the breakdown's classes: busy and each idle cause's colour. */
void report_cause_style(struct gd_text *t);

/* ---- report_run.c ---- */

/* The diagnosis paragraph, from the figures the charts draw. */
void report_diagnosis(struct gd_report *r, struct gd_text *t);
/* The run's options that applied to it, as a table (an observed program's run lists neither
 * the decode kernel's options nor unset ones). */
void report_options(const struct gd_report *r, struct gd_text *t);

#endif

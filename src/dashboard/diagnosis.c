/* diagnosis.c: the key d's screen: the window's idle time by cause with the lever of each, what
 * more processes and one pipelined process would reach, each worker's own split, and a timeline
 * strip of the last milliseconds of every worker's kernels, one line each, so the gaps between
 * them are seen live. The strip's intervals come from the batch records the session hands to
 * its outputs: the dashboard adds one output of its own that keeps the latest of each worker. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/ceiling.h"
#include "measure/diagnose.h"
#include "gputop/outputs.h"
#include "gputop/wire.h"
#include "ui.h"

#define STRIP_KV      512    /* kernel intervals kept per worker, the latest */
#define STRIP_MIN_NS  100000 /* the strip spans three batches of the slowest worker, within */
#define STRIP_MAX_NS  100000000LL
#define STRIP_BATCHES 3
#define BAR_W         20

struct strip_worker {
	unsigned id;
	size_t n; /* intervals seen; the latest STRIP_KV are kept, round robin */
	int64_t kv[STRIP_KV][2];
	bool est[STRIP_KV]; /* an estimate's (--profile sampled), not measured */
};

struct ui_strip {
	struct strip_worker *w;
	int n, cap;
};

static struct strip_worker *strip_find(const struct ui_strip *s, unsigned id)
{
	for (int i = 0; i < s->n; i++)
		if (s->w[i].id == id)
			return &s->w[i];
	return NULL;
}

static void strip_batch(void *self, const struct gd_row_info *w, const char *device, const struct gd_rec *r)
{
	(void)device;
	struct ui_strip *s = self;
	if (!(r->flags & GD_REC_DEVTIME) || !r->nkiv)
		return;
	struct strip_worker *sw = strip_find(s, w->id);
	if (!sw) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 8;
			s->w = xreallocarray(s->w, (size_t)s->cap, sizeof(*s->w));
		}
		sw = &s->w[s->n++];
		sw->id = w->id;
		sw->n = 0;
	}
	for (uint32_t i = 0; i < r->nkiv; i++) {
		size_t k = sw->n++ % STRIP_KV;
		gd_rec_kiv(r, i, sw->kv[k]);
		sw->est[k] = (r->flags & GD_REC_ESTIMATED) != 0;
	}
}

static int strip_close(void *self, char *why, size_t whylen)
{
	if (whylen)
		why[0] = '\0'; /* freeing cannot fail */
	struct ui_strip *s = self;
	free(s->w);
	free(s);
	return 0;
}

static const struct gd_output_ops strip_output = { .batch = strip_batch, .close = strip_close };

void ui_diag_attach(struct ui *u, struct gd_outputs *outs)
{
	if (!outs || outs->n >= GD_OUTPUTS_MAX)
		return; /* no strip: the screen says so */
	u->diag.strip = xcalloc(1, sizeof(*u->diag.strip));
	outputs_add(outs, &strip_output, u->diag.strip);
}

/* Workers no longer listed leave the strip. */
static void strip_prune(struct ui_strip *s, const struct gd_frame *f)
{
	int keep = 0;
	for (int i = 0; i < s->n; i++) {
		bool listed = false;
		for (int j = 0; j < f->nworkers && !listed; j++)
			listed = f->workers[j].id == s->w[i].id;
		if (listed)
			s->w[keep++] = s->w[i];
	}
	s->n = keep;
}

/* One line of the strip: how much of each of width cells of [t0, t0 + width x dt) the
 * intervals cover, in eighths of a block; dim where only estimates cover it. Intervals of
 * several lanes may overlap: a cell is never more than full. */
static void strip_line(const struct ui *u, WINDOW *w, int y, int x, int width, int64_t t0, double dt,
                       const struct strip_worker *const *sw, int nsw)
{
	static const wchar_t blocks[] = L" \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
	static const char ascii[] = " ._-~=+*#";
	for (int c = 0; c < width; c++) {
		double a = (double)t0 + c * dt, b = a + dt, cover = 0, measured = 0;
		for (int k = 0; k < nsw; k++) {
			size_t n = sw[k]->n < STRIP_KV ? sw[k]->n : STRIP_KV;
			for (size_t i = 0; i < n; i++) {
				double s = (double)sw[k]->kv[i][0], e = (double)sw[k]->kv[i][1];
				double in = (e < b ? e : b) - (s > a ? s : a);
				if (in <= 0)
					continue;
				cover += in;
				if (!sw[k]->est[i])
					measured += in;
			}
		}
		long lv = lround(8 * (cover < dt ? cover : dt) / dt);
		if (lv < 1 && cover > 0)
			lv = 1;
		wattrset(w, measured > 0 || lv == 0 ? ui_attr(u, UI_P_BUSY) : ui_attr(u, UI_P_DIM));
		if (u->term.utf8)
			mvwaddnwstr(w, y, x + c, &blocks[lv], 1);
		else
			mvwaddch(w, y, x + c, (chtype)ascii[lv]);
	}
	wattrset(w, A_NORMAL);
}

/* The strip's span: STRIP_BATCHES batches of the slowest listed worker. */
static int64_t strip_span(const struct gd_frame *f)
{
	double slowest = 0;
	for (int i = 0; i < f->nworkers; i++)
		if (f->workers[i].win_batches > 0) {
			double period = f->window_s / (double)f->workers[i].win_batches;
			slowest = period > slowest ? period : slowest;
		}
	double ns = slowest > 0 ? STRIP_BATCHES * slowest * 1e9 : (double)GD_NS_PER_S / 100;
	return ns < STRIP_MIN_NS ? STRIP_MIN_NS : ns > STRIP_MAX_NS ? STRIP_MAX_NS : (int64_t)ns;
}

static int draw_strip(struct ui *u, WINDOW *w, int y, int rows, const struct gd_frame *f)
{
	int width = getmaxx(w) - 12;
	if (!u->diag.strip || rows < 2 || width < 10) {
		if (rows > 0)
			ui_put(w, y, 0, ui_attr(u, UI_P_DIM), "timeline: no room on this screen");
		return y + 1;
	}
	strip_prune(u->diag.strip, f);
	int64_t end = 0;
	for (int i = 0; i < u->diag.strip->n; i++) {
		const struct strip_worker *sw = &u->diag.strip->w[i];
		size_t n = sw->n < STRIP_KV ? sw->n : STRIP_KV;
		for (size_t k = 0; k < n; k++)
			end = sw->kv[k][1] > end ? sw->kv[k][1] : end;
	}
	int64_t span = strip_span(f);
	ui_putf(w, y++, 0, ui_attr(u, UI_P_HEAD),
	        "Timeline: the last %.2f ms of kernels, one line per worker, the device's union on top "
	        "(dim: estimated)",
	        (double)span / 1e6);
	if (!end) {
		ui_put(w, y, 0, ui_attr(u, UI_P_DIM),
		       "  no kernel measured yet (--profile off measures none)");
		return y + 1;
	}
	double dt = (double)span / width;
	int64_t t0 = end - span;
	const struct strip_worker *all[GD_PROCS_MAX] = { NULL };
	int n = 0;
	for (int i = 0; i < u->diag.strip->n && n < GD_PROCS_MAX; i++)
		all[n++] = &u->diag.strip->w[i];
	ui_put(w, y, 0, A_BOLD, "  device");
	strip_line(u, w, y++, 11, width, t0, dt, all, n);
	for (int i = 0; i < n && y < getmaxy(w) - 1; i++) {
		ui_putf(w, y, 0, A_NORMAL, "  %6u", all[i]->id);
		strip_line(u, w, y++, 11, width, t0, dt, &all[i], 1);
	}
	return y;
}

static void bar(const struct ui *u, WINDOW *w, int y, int x, double share, enum ui_pair p)
{
	static const wchar_t full = L'\u2588';
	int n = isnan(share) ? 0 : (int)lround(share * BAR_W);
	wattrset(w, ui_attr(u, p));
	for (int i = 0; i < n && i < BAR_W; i++)
		if (u->term.utf8)
			mvwaddnwstr(w, y, x + i, &full, 1);
		else
			mvwaddch(w, y, x + i, '#');
	wattrset(w, A_NORMAL);
}

static void pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "%6s", "n/a");
	else
		snprintf(buf, n, "%5.1f%%", 100 * v);
}

/* The device's causes, each with its share, a bar and its lever. */
static int draw_causes(const struct ui *u, WINDOW *w, int y, const struct gd_frame *f)
{
	char s[16];
	ui_putf(w, y++, 0, ui_attr(u, UI_P_HEAD), "%-36s %6s  %-*s  %s", "the device's time", "share", BAR_W,
	        "", "lever");
	pct(s, sizeof(s), f->device_busy);
	ui_putf(w, y, 0, A_NORMAL, "  %-34s %s", "kernels (busy)", s);
	bar(u, w, y++, 45, f->device_busy, UI_P_BUSY);
	for (int c = 0; c < GD_CAUSE_COUNT; c++) {
		double v = f->agg.idle.share[c];
		pct(s, sizeof(s), v);
		ui_putf(w, y, 0, A_NORMAL, "  idle: %-28s %s", diagnose_name((enum gd_cause)c), s);
		bar(u, w, y, 45, v, UI_P_WARN);
		if (!isnan(v) && v >= 0.005 && c != GD_CAUSE_OTHER)
			ui_put(w, y, 47 + BAR_W, ui_attr(u, UI_P_DIM), diagnose_lever((enum gd_cause)c));
		y++;
	}
	return y;
}

/* What more processes and one pipelined process would reach, from the figures per process. */
static int draw_prediction(const struct ui *u, WINDOW *w, int y, const struct gd_frame *f, const char *unit)
{
	int cores = (int)sysconf(_SC_NPROCESSORS_ONLN), procs = diagnose_procs(f);
	ui_put(w, y++, 0, ui_attr(u, UI_P_HEAD),
	       "Prediction from the figures per process (models in doc/fields.md)");
	struct gd_prediction one;
	if (procs < 1 || diagnose_frame_predict(f, cores, procs + 1, &one) != 0) {
		ui_put(w, y, 0, ui_attr(u, UI_P_DIM), "  not measured in this window");
		return y + 1;
	}
	double gen_us = 0, batches = 0;
	int with_gen = 0;
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *s = &f->workers[i];
		if (!isnan(s->bd.gen_us)) {
			gen_us += s->bd.gen_us;
			with_gen++;
		}
		batches += (double)s->win_batches;
	}
	double r1 = f->agg.rate / procs, b1 = f->device_busy / procs;
	int ns[3] = { procs + 1, 2 * procs, 1 << 20 };
	const char *what[3] = { "one more process", "twice the processes", "as many as help" };
	for (int k = 0; k < 3; k++) {
		struct gd_prediction p;
		char text[320];
		diagnose_frame_predict(f, cores, ns[k], &p);
		diagnose_predict_text(text, sizeof(text), &p, unit);
		ui_putf(w, y++, 0, A_NORMAL, "  %-22s %s", what[k], text);
	}
	double per_batch = batches > 0 ? f->agg.rate * f->window_s / batches : NAN;
	double p = diagnose_predict_pipelined(r1, b1, with_gen ? gen_us / with_gen : NAN, per_batch, cores);
	ui_putf(w, y++, 0, A_NORMAL,
	        "  %-22s about %.1f %s (the device never idle: %.1f; generating on %d of %d cores)",
	        "one pipelined process", p, unit, r1 / (b1 < 1 ? b1 : 1), cores > 1 ? cores - 1 : 0, cores);
	/* The calibration's figure at the larger size: whether larger batches are a lever. */
	char larger[128];
	struct gd_ceiling c = { .rate = f->ceiling, .rate_4x = f->ceiling_4x };
	if (ceiling_say_4x(larger, sizeof(larger), &c, unit) > 2)
		ui_putf(w, y++, 0, A_NORMAL, "  %-22s %s", "larger batches", larger + 2); /* after "; " */
	return y;
}

/* Each worker's own time without a kernel, by cause, and the share of it others filled. */
static int draw_workers(const struct ui *u, WINDOW *w, int y, int last, const struct gd_frame *f)
{
	ui_putf(w, y++, 0, ui_attr(u, UI_P_HEAD), "  %6s %7s %6s %6s %6s %6s %6s %6s %7s", "id", "pid",
	        "busy", "host", "xfer", "launch", "wait", "other", "hidden");
	for (int i = 0; i < f->nworkers && y < last; i++) {
		const struct gd_sample *s = &f->workers[i];
		char c[GD_CAUSE_COUNT + 2][16];
		pct(c[0], sizeof(c[0]), s->kernel_busy);
		for (int k = 0; k < GD_CAUSE_COUNT; k++)
			pct(c[k + 1], sizeof(c[k + 1]), s->idle.share[k]);
		pct(c[GD_CAUSE_COUNT + 1], sizeof(c[0]), s->idle.hidden);
		ui_putf(w, y++, 0, A_NORMAL, "  %6u %7d %s %s %s %s %s %s %s", s->id, (int)s->pid, c[0], c[1],
		        c[2], c[3], c[4], c[5], c[6]);
	}
	return y;
}

void ui_draw_diagnosis(struct ui *u, WINDOW *w)
{
	const struct gd_frame *f = session_frame(u->s);
	const char *unit = kspec_rate_unit(&session_workload(u->s)->kernel);
	int rows = getmaxy(w);
	ui_put(w, 0, 0, A_BOLD, "Where the device's idle time goes");
	ui_put_right(w, 0, ui_attr(u, UI_P_DIM), "d or Esc closes; the other keys act as usual");
	if (!ui_measured(u)) {
		ui_put(w, 2, 0, ui_attr(u, UI_P_DIM), "no window measured yet");
		return;
	}
	char line[512];
	ui_diagnosis_words(f, unit, line, sizeof(line));
	ui_put_words(w, 1, 0, getmaxx(w), A_NORMAL, line);
	int y = draw_causes(u, w, 3, f);
	y = draw_prediction(u, w, y + 1, f, unit);
	/* The strip gets what is left after at most a third of the screen of workers. */
	int strip_rows = f->nworkers + 2;
	int left = rows - y - 2;
	int worker_rows = left - strip_rows < rows / 3 ? rows / 3 : left - strip_rows;
	y = draw_workers(u, w, y + 1, y + 2 + worker_rows, f);
	draw_strip(u, w, y + 1, rows - y - 1, f);
}

ui_reaction ui_act_diagnosis(struct ui *u, int key)
{
	(void)key;
	u->diag.shown = !u->diag.shown;
	u->progout.shown = false;
	return UI_R_DRAW;
}

/* graphs.c: the history graphs: the aggregate's rate and device busy, and the selected
 * worker's rate and kernel busy, each with its label on the left, a value axis and, from
 * UI_TIME_AXIS_ROWS rows, a time axis under it. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"

#define UI_SPAN_S 120.0 /* a graph covers at least this much time */

/* Frames per graph column, so that a graph of width columns spans at least UI_SPAN_S. */
static uint64_t per_column(const struct ui *u, int width)
{
	return chart_per_column(UI_SPAN_S, session_interval(u->s), width);
}

/* Fills u->graphs.cols with h's columns for a graph width wide; returns their maximum, NAN when
 * none holds a value (nothing measured yet). */
static double columns(struct ui *u, const struct chart_hist *h, int width, uint64_t per)
{
	int n = width < UI_GRAPH_MAXW ? width : UI_GRAPH_MAXW;
	double max = chart_columns(h, per, u->graphs.cols, n);
	for (int c = 0; c < n; c++)
		if (!isnan(u->graphs.cols[c]))
			return max;
	return NAN;
}

/* "graph top 12.5 Mbit/s", or "graph top n/a" with nothing to draw. */
static void graph_top(WINDOW *w, int y, int x, const char *word, double max, const char *unit)
{
	char top[32];
	chart_num(top, sizeof(top), 9, max, 1);
	ui_putf(w, y, x, A_NORMAL, "%s %s%s%s", word, top, isnan(max) ? "" : " ", isnan(max) ? "" : unit);
}

static const wchar_t blocks[] = L" \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
static const char ascii[] = " ._-~=+*#";

/* The columns graph g draws (at most UI_GRAPH_MAXW, right-aligned in it), and in *x0 where the
 * first is in w (g is on the screen, w a part of it). */
static int graph_width(WINDOW *w, const struct layout_rect *g, int *x0)
{
	int width = g->w < UI_GRAPH_MAXW ? g->w : UI_GRAPH_MAXW;
	*x0 = g->x - getbegx(w) + g->w - width;
	return width;
}

/* Column bars of height rows, eighths of a cell with block characters (ASCII levels
 * otherwise); a value above zero always shows at least its lowest level. */
static void graph(struct ui *u, WINDOW *w, const struct layout_rect *g, int rows, double scale,
                  enum ui_pair p)
{
	int x0, width = graph_width(w, g, &x0);
	wattrset(w, ui_attr(u, p));
	for (int c = 0; c < width; c++) {
		double v = u->graphs.cols[c];
		if (isnan(v))
			continue;
		long eighths = scale > 0 ? lround(v / scale * rows * 8) : 0;
		if (eighths < 1 && v > 0)
			eighths = 1;
		for (int r = 0; r < rows; r++) {
			long lv = eighths - 8L * (rows - 1 - r);
			lv = lv < 0 ? 0 : lv > 8 ? 8 : lv;
			if (u->term.utf8)
				mvwaddnwstr(w, r, x0 + c, &blocks[lv], 1);
			else
				mvwaddch(w, r, x0 + c, (chtype)ascii[lv]);
		}
	}
	wattrset(w, A_NORMAL);
}

/* A graph of this many rows or more gives its last to a time axis. */
#define UI_TIME_AXIS_ROWS 6

/* The rows of a part rows tall that its graph draws in: all but the time axis's. */
static int graph_rows(int rows)
{
	return rows >= UI_TIME_AXIS_ROWS ? rows - 1 : rows;
}

/* The time axis on row y of w, under graph g whose columns are col_s seconds each, the newest on
 * the right: a line, "now" at its right end and a label at each tick of a round step (the
 * least of 5 s ... 1 h that leaves 10 columns between ticks), right-aligned on its tick, as
 * far back as the graph goes; the corner where the y axis meets it. */
static void time_axis(struct ui *u, WINDOW *w, const struct layout_rect *g, int y, double col_s)
{
	static const int steps[] = { 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600 };
	int x0, width = graph_width(w, g, &x0);
	if (width < 8 || !(col_s > 0))
		return;
	attr_t dim = ui_attr(u, UI_P_DIM);
	wattrset(w, dim);
	if (x0 > 0)
		mvwaddch(w, y, x0 - 1, ACS_LLCORNER);
	for (int c = 0; c < width; c++)
		mvwaddch(w, y, x0 + c, ACS_HLINE);
	wattrset(w, A_NORMAL);
	ui_put(w, y, x0 + width - 3, dim, "now");
	int step = 0;
	for (size_t i = 0; i < GD_ARRAY_LEN(steps) && !step; i++)
		if (steps[i] / col_s >= 10)
			step = steps[i];
	if (!step)
		return;
	for (int t = step;; t += step) {
		int c = width - 1 - (int)lround(t / col_s);
		char label[16];
		if (t % 60 == 0)
			snprintf(label, sizeof(label), "-%dm", t / 60);
		else
			snprintf(label, sizeof(label), "-%ds", t);
		int len = (int)strlen(label);
		if (c - len + 1 < 0)
			break;
		ui_put(w, y, x0 + c - len + 1, dim, label);
	}
}

/* Where the text on line y of w ends, looking left from x. */
static int text_end(WINDOW *w, int y, int x)
{
	while (x > 0 && (mvwinch(w, y, x - 1) & A_CHARTEXT) == ' ')
		x--;
	return x;
}

/* The y axis just left of graph g (rows tall): a tick at its top, its foot and, from five rows,
 * its middle, each labelled with its value where the label's text leaves room (top: the
 * graph's top, in the graph's own digits; pct: a share, top 100%). Drawn after the label. */
static void axis(struct ui *u, WINDOW *w, const struct layout_rect *g, int rows, double top, bool pct)
{
	int x = g->x - getbegx(w) - 1;
	if (x < 2 || rows < 2)
		return;
	for (int r = 0; r < rows; r++) {
		bool tick = r == 0 || r == rows - 1 || (rows >= 5 && r == rows / 2);
		wattrset(w, ui_attr(u, UI_P_DIM));
		mvwaddch(w, r, x, tick ? ACS_RTEE : ACS_VLINE);
		wattrset(w, A_NORMAL);
		if (!tick || isnan(top))
			continue;
		double v = r == 0 ? top : r == rows - 1 ? 0 : top * (rows - 1 - r) / (rows - 1);
		char t[16];
		if (pct)
			snprintf(t, sizeof(t), "%.0f%%", 100 * v);
		else if (v == 0)
			snprintf(t, sizeof(t), "0");
		else
			chart_num(t, sizeof(t), 7, v, v < 10 ? 2 : 1);
		int len = (int)strlen(t);
		if (text_end(w, r, x) + 1 < x - len)
			ui_put(w, r, x - len, ui_attr(u, UI_P_DIM), t);
	}
}

/* The unit after a percentage v of sample s: ~ in the blank before it where v rests partly on
 * estimated device times; none after n/a. */
static const char *pct_unit(double v, const struct gd_sample *s)
{
	return isnan(v) ? "" : *ui_est(v, s) ? "~%" : " %";
}

static const char *rate_unit(const struct ui *u)
{
	return kspec_rate_unit(&session_workload(u->s)->kernel);
}

void ui_draw_tput(struct ui *u, WINDOW *w)
{
	const struct layout *l = &u->term.lay;
	int rows = l->part[LAYOUT_TPUT].h;
	const struct gd_frame *f = session_frame(u->s);
	uint64_t per = per_column(u, l->tput_graph.w);
	double max = columns(u, &u->graphs.rate, l->tput_graph.w, per);
	char now[32];
	double rate = u->graphs.rate.n ? f->agg.rate : NAN, last = NAN;
	if (isnan(rate) && u->graphs.rate.n) /* a window without a batch: the latest, dimmed */
		last = ui_agg_last(u, f, false);
	chart_num(now, sizeof(now), 10, isnan(last) ? rate : last, 2);
	const char *unit = rate_unit(u);
	ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "%-7s", unit);
	ui_putf(w, 0, 7, isnan(last) ? ui_attr(u, UI_P_HEAD) : ui_attr(u, UI_P_DIM), "%9s", now);
	if (rows > 1)
		graph_top(w, 1, 0, "graph top", max, unit);
	else
		graph_top(w, 0, 17, "top", max, "");
	double col_s = (double)per * session_interval(u->s);
	int grows = graph_rows(rows);
	graph(u, w, &l->tput_graph, grows, max, UI_P_TPUT);
	if (rows > 2)
		ui_putf(w, rows - 1, 0, ui_attr(u, UI_P_DIM), "last %.1f min", col_s * l->tput_graph.w / 60);
	axis(u, w, &l->tput_graph, grows, max, false);
	if (grows < rows)
		time_axis(u, w, &l->tput_graph, rows - 1, col_s);
}

void ui_draw_worker(struct ui *u, WINDOW *w, const struct layout_rect *g, bool busy)
{
	const struct gd_frame *f = session_frame(u->s);
	const struct ui_whist *h = ui_whist_find(u, u->table.sel_id);
	const struct gd_sample *s = NULL;
	for (int i = 0; i < f->nworkers; i++)
		if (f->workers[i].id == u->table.sel_id)
			s = &f->workers[i];
	if (!s) {
		ui_put(w, 0, 0, ui_attr(u, UI_P_DIM), busy ? "" : "no worker selected");
		return;
	}
	/* No history yet (right after r): its labels, nothing measured. */
	const struct chart_hist none = { .n = 0 };
	const struct chart_hist *series = !h ? &none : busy ? &h->busy : &h->rate;
	uint64_t per = per_column(u, g->w);
	double max = columns(u, series, g->w, per);
	/* As its row shows them: n/a where it is not at work, its latest dimmed while a batch is
	 * under way that has not completed in the window. */
	const struct gd_sample *last = h ? ui_last_measured(u, s) : NULL, *at = s;
	double v = h ? ui_cell(u, ui_col_find(busy ? "kbusy%" : "rate"), s, NULL, 0) : NAN;
	if (isnan(v) && last && !isnan(ui_cell(u, ui_col_find(busy ? "kbusy%" : "rate"), last, NULL, 0)))
		at = last;
	else
		last = NULL;
	if (at != s)
		v = ui_cell(u, ui_col_find(busy ? "kbusy%" : "rate"), at, NULL, 0);
	attr_t a = last ? ui_attr(u, UI_P_DIM) : ui_attr(u, UI_P_HEAD);
	char now[32];
	if (busy) {
		chart_num(now, sizeof(now), 7, 100 * v, 1);
		ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "worker %u kbusy", s->id);
		ui_putf(w, 0, getcurx(w) + 1, a, "%6s%s", now, pct_unit(v, at));
		if (g->h > 1)
			ui_put(w, 1, 0, A_NORMAL, "its kernels' device time");
	} else {
		chart_num(now, sizeof(now), 10, v, 2);
		const char *unit = rate_unit(u);
		ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "worker %u %s", s->id, unit);
		ui_putf(w, 0, getcurx(w) + 1, a, "%9s", now);
		if (g->h > 1)
			graph_top(w, 1, 0, "graph top", max, unit);
	}
	int grows = graph_rows(g->h);
	graph(u, w, g, grows, busy ? 1.0 : max, busy ? UI_P_BUSY : UI_P_TPUT);
	axis(u, w, g, grows, busy ? 1.0 : max, busy);
	if (grows < g->h)
		time_axis(u, w, g, g->h - 1, (double)per * session_interval(u->s));
}

void ui_draw_busy(struct ui *u, WINDOW *w)
{
	const struct layout *l = &u->term.lay;
	int rows = l->part[LAYOUT_BUSY].h;
	const struct gd_frame *f = session_frame(u->s);
	uint64_t per = per_column(u, l->busy_graph.w);
	columns(u, &u->graphs.busy, l->busy_graph.w, per);
	double busy = u->graphs.busy.n ? f->device_busy : NAN, last = NAN;
	if (isnan(busy) && u->graphs.busy.n) /* a window without a batch: the latest, dimmed */
		last = ui_agg_last(u, f, true);
	if (!isnan(last))
		busy = last;
	char b[16], idle[16];
	chart_num(b, sizeof(b), 7, 100 * busy, 1);
	chart_num(idle, sizeof(idle), 7, 100 * (1 - busy), 1);
	const char *unit = isnan(last) ? pct_unit(busy, &f->agg) : " %";
	attr_t dim = ui_attr(u, UI_P_DIM);
	ui_put(w, 0, 0, ui_attr(u, UI_P_HEAD), "busy");
	ui_putf(w, 0, 5, isnan(last) ? ui_attr(u, UI_P_HEAD) : dim, "%6s%s", b, unit);
	ui_put(w, 0, 15, A_NORMAL, "idle");
	ui_putf(w, 0, 20, isnan(last) ? A_NORMAL : dim, "%6s%s", idle, unit);
	if (rows > 1)
		ui_put(w, 1, 0, A_NORMAL,
		       f->busy_from_sum      ? "sum of workers, capped"
		       : f->busy_per_context ? "union per context, summed"
		                             : "union of kernel intervals");
	int grows = graph_rows(rows);
	graph(u, w, &l->busy_graph, grows, 1.0, UI_P_BUSY);
	axis(u, w, &l->busy_graph, grows, 1.0, true);
	if (grows < rows)
		time_axis(u, w, &l->busy_graph, rows - 1, (double)per * session_interval(u->s));
}

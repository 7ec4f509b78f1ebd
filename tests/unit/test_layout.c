/* test_layout.c: the dashboard layout for every terminal size from 80x24 to 300x100: every
 * part inside the screen, no two parts sharing a cell, together covering it, the minimum size
 * enforced; graphs as tall as the terminal allows; the selected worker's graphs beside the
 * aggregate's on wide terminals, under them on narrow ones with room, else absent. The worker
 * table's columns at every width from 80 to 300 (the real table's widths and ranks): whole
 * columns only, left out least important first, the breakdown bar's heading always whole and
 * its legend readable from 140 columns. */
#include <stdbool.h>
#include <stdio.h>

#include "dashboard/ui.h"
#include "dashboard/layout.h"
#include "tap.h"

static const int workers[] = { 0, 1, 3, 17, 64, 256 };

/* True when r lies inside a cols x lines screen (an empty rectangle always does). */
static bool inside(const struct layout_rect *r, int cols, int lines)
{
	if (r->h == 0 || r->w == 0)
		return true;
	return r->h > 0 && r->w > 0 && r->y >= 0 && r->x >= 0 && r->y + r->h <= lines && r->x + r->w <= cols;
}

/* True when a and b share a cell. */
static bool overlap(const struct layout_rect *a, const struct layout_rect *b)
{
	if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
		return false;
	return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

static bool within(const struct layout_rect *in, const struct layout_rect *out)
{
	return in->y >= out->y && in->x >= out->x && in->y + in->h <= out->y + out->h &&
	       in->x + in->w <= out->x + out->w;
}

static bool empty(const struct layout_rect *r)
{
	return r->h == 0 || r->w == 0;
}

/* The parts: inside the screen, apart, covering it; only the worker's graphs may be empty. */
static const char *check_tiling(const struct layout *l, int cols, int lines)
{
	const struct layout_rect *p = l->part;
	int area = 0;
	for (int i = 0; i < LAYOUT_NPARTS; i++) {
		bool may_be_empty = (i == LAYOUT_WTPUT || i == LAYOUT_WBUSY) && !l->worker_graphs;
		if (empty(&p[i]) != may_be_empty)
			return may_be_empty ? "worker graph shown without room" : "empty part";
		if (!inside(&p[i], cols, lines))
			return "part outside the screen";
		for (int j = i + 1; j < LAYOUT_NPARTS; j++)
			if (overlap(&p[i], &p[j]))
				return "parts overlap";
		area += p[i].h * p[i].w;
	}
	return area == cols * lines ? NULL : "parts do not cover the screen";
}

/* Each graph in its region, wide enough, every one shown graph_h rows tall. */
static const char *check_graphs(const struct layout *l)
{
	const struct layout_rect *g[] = { &l->tput_graph, &l->busy_graph, &l->wtput_graph, &l->wbusy_graph };
	const int in[] = { LAYOUT_TPUT, LAYOUT_BUSY, LAYOUT_WTPUT, LAYOUT_WBUSY };
	for (int i = 0; i < (l->worker_graphs ? 4 : 2); i++) {
		const struct layout_rect *r = &l->part[in[i]];
		if (!within(g[i], r) || g[i]->w < 40 || g[i]->x != r->x + LAYOUT_LABEL_W)
			return "graph outside its region or too narrow";
		if (r->h != l->graph_h || g[i]->h != l->graph_h || l->graph_h < 1)
			return "graph heights";
	}
	const struct layout_rect *p = l->part;
	if (l->split && (p[LAYOUT_WTPUT].y != p[LAYOUT_TPUT].y || p[LAYOUT_WBUSY].y != p[LAYOUT_BUSY].y ||
	                 p[LAYOUT_WTPUT].x != p[LAYOUT_TPUT].w || p[LAYOUT_TPUT].w < p[LAYOUT_WTPUT].w))
		return "split: the worker's graphs not beside the aggregate's";
	if (!l->split && l->worker_graphs &&
	    (p[LAYOUT_WTPUT].y != p[LAYOUT_BUSY].y + l->graph_h || p[LAYOUT_WTPUT].w != l->cols))
		return "stacked: the worker's graphs not under the aggregate's";
	return NULL;
}

/* One layout: returns a description of the first broken rule, or NULL. */
static const char *check_one(int cols, int lines, int n)
{
	struct layout l;
	layout_compute(cols, lines, n, &l);
	if (l.too_small)
		return "too small at or above the minimum";
	const char *why = check_tiling(&l, cols, lines);
	if (!why)
		why = check_graphs(&l);
	if (why)
		return why;
	const struct layout_rect *p = l.part;
	if (l.split != (cols >= LAYOUT_SPLIT_W) || (l.split && !l.worker_graphs))
		return "split from the wrong width";
	if (p[LAYOUT_KEYBAR].y != lines - 1 || p[LAYOUT_HEADER].y != 0 || p[LAYOUT_HEADER].h != 2)
		return "header not on top or key bar not at the bottom";
	if (l.table_rows != p[LAYOUT_TABLE].h - 1 || l.table_rows < 1)
		return "no worker row";
	int want = n < 1 ? 1 : n;
	if (l.table_rows < want && l.graph_h > 1)
		return "graphs grew while workers had no row";
	int stacked = l.split || !l.worker_graphs ? 2 : 4;
	if (l.table_rows >= want + stacked)
		return "rows left over that the graphs could have taken";
	/* One line more gives the graphs a row more once the workers' rows are all shown. */
	struct layout t;
	layout_compute(cols, lines + stacked, n, &t);
	if (l.table_rows >= want && t.worker_graphs == l.worker_graphs && t.graph_h != l.graph_h + 1)
		return "graphs do not grow with the terminal";
	return NULL;
}

static void check_sizes(int n)
{
	const char *why = NULL;
	int bad_c = 0, bad_l = 0, count = 0;
	for (int cols = LAYOUT_MIN_W; cols <= 300 && !why; cols++)
		for (int lines = LAYOUT_MIN_H; lines <= 100 && !why; lines++, count++)
			if ((why = check_one(cols, lines, n))) {
				bad_c = cols;
				bad_l = lines;
			}
	if (!tap_ok(why == NULL, "%d workers: %d sizes from 80x24 to 300x100 are sound", n, count))
		printf("#   %dx%d: %s\n", bad_c, bad_l, why);
}

static void check_too_small(void)
{
	static const int sizes[][2] = { { 79, 24 }, { 80, 23 }, { 60, 20 },  { 1, 1 },
		                        { 0, 0 },   { -5, 30 }, { 300, 10 }, { 20, 100 } };
	bool all = true;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct layout l;
		layout_compute(sizes[i][0], sizes[i][1], 3, &l);
		all = all && l.too_small;
	}
	tap_ok(all, "below 80x24 the layout says too small");
	struct layout l;
	layout_compute(80, 24, 3, &l);
	tap_ok(!l.too_small, "80x24 is enough");
	layout_compute(80, 24, 64, &l);
	TAP_EQ_U(l.table_rows, 16, "80x24 with 64 workers shows 16 worker rows");
}

static void check_growth(void)
{
	struct layout a, b;
	layout_compute(120, 60, 4, &a);
	tap_ok(!a.split && a.worker_graphs && a.graph_h == (60 - 6 - 4) / 4 && a.graph_h > 6,
	       "120x60 with 4 workers: four stacked graphs of %d rows, not a fixed 6", a.graph_h);
	layout_compute(120, 100, 4, &b);
	tap_ok(b.graph_h > a.graph_h, "a taller terminal gets taller graphs (%d rows at 100 lines)",
	       b.graph_h);
	layout_compute(120, 60, 200, &b);
	tap_ok(b.graph_h == 1 && !b.worker_graphs && b.table_rows == 60 - 8,
	       "many workers take the rows from the graphs, the worker's graphs first");
	layout_compute(80, 24, 16, &b);
	tap_ok(!b.worker_graphs && b.graph_h == 1 && b.table_rows == 16,
	       "80x24 with 16 workers: every row shown, no room for the worker's graphs");
	layout_compute(80, 24, 3, &b);
	tap_ok(b.worker_graphs && b.graph_h == 3 && b.part[LAYOUT_WBUSY].y == 2 + 3 * 3,
	       "80x24 with 3 workers: the worker's graphs under the aggregate's");
	layout_compute(300, 100, 4, &a);
	tap_ok(a.part[LAYOUT_TABLE].w == 300 && a.split && a.tput_graph.w == 150 - LAYOUT_LABEL_W &&
	           a.wtput_graph.x == 150 + LAYOUT_LABEL_W && a.graph_h == (100 - 6 - 4) / 2,
	       "300x100: the worker's graphs beside the aggregate's, each pair half the width");
	layout_compute(LAYOUT_SPLIT_W - 1, 40, 4, &a);
	layout_compute(LAYOUT_SPLIT_W, 40, 4, &b);
	tap_ok(!a.split && b.split && a.graph_h == 30 / 4 && b.graph_h == 30 / 2,
	       "%d columns split, one fewer stacks", LAYOUT_SPLIT_W);
}

/* The table's columns in their own order; na: the ranks when the generation threads' column does
 * not apply (seed mode). */
static int table_columns(struct layout_col *c, bool na)
{
	for (int i = 0; i < UI_NCOLS; i++)
		c[i] =
		    (struct layout_col){ .width = ui_col(i)->width,
			                 .rank = na && ui_col(i)->pipelined ? UI_RANK_NA : ui_col(i)->rank };
	return UI_NCOLS;
}

/* One width: returns the first broken rule, or NULL; *bar gets the bar's width. */
static const char *check_columns(const struct layout_col *c, int n, int width, int *barw)
{
	int xs[UI_NCOLS], bar = layout_columns(c, n, true, width, xs), end = LAYOUT_MARK_W, worst = -1;
	for (int i = 0; i < n; i++) {
		if (xs[i] < 0)
			continue;
		if (xs[i] != end)
			return "columns not side by side from the mark";
		end += c[i].width;
		worst = c[i].rank > worst ? c[i].rank : worst;
	}
	*barw = width - bar;
	if (bar != end || *barw < LAYOUT_BAR_MIN)
		return "the bar does not start after the columns or has no room for its heading";
	for (int i = 0; i < n; i++)
		if (xs[i] < 0 && c[i].rank < worst)
			return "a column left out before a less important one";
	if (worst > LAYOUT_RANK_BAR_WANT && *barw < LAYOUT_BAR_WANT)
		return "a column ranked after the legend kept while the legend had no room";
	for (int i = 0; i < n; i++) /* and nothing more fits: the next rank would not */
		if (xs[i] < 0 && c[i].rank == worst + 1 && *barw - c[i].width >= LAYOUT_BAR_WANT)
			return "a column left out that fits";
	return NULL;
}

static void check_table_columns(void)
{
	for (int na = 0; na < 2; na++) {
		struct layout_col c[UI_NCOLS];
		int n = table_columns(c, na), barw = 0, at140 = 0, at80 = 0;
		const char *why = NULL;
		int bad = 0;
		for (int width = LAYOUT_MIN_W; width <= 300 && !why; width++) {
			why = check_columns(c, n, width, &barw);
			bad = width;
			at140 = width == 140 ? barw : at140;
			at80 = width == 80 ? barw : at80;
		}
		if (!tap_ok(why == NULL, "%s: columns whole, least important left out first, 80 to 300 wide",
		            na ? "seed" : "pipelined"))
			printf("#   %d columns: %s\n", bad, why);
		tap_ok(at140 >= 20, "%s, 140 columns: the breakdown bar is %d wide (its legend: %d)",
		       na ? "seed" : "pipelined", at140, LAYOUT_BAR_WANT - 1);
		tap_ok(at80 >= LAYOUT_BAR_MIN, "80 columns: the bar is %d wide, its heading whole", at80);
	}
	int xs[3];
	const struct layout_col three[] = { { 4, 0 }, { 8, 1 }, { 9, 19 } };
	TAP_EQ_U(layout_columns(three, 3, false, 80, xs), LAYOUT_MARK_W + 21,
	         "without the bar every column that fits is shown");
}

int main(void)
{
	check_table_columns();
	for (size_t i = 0; i < sizeof(workers) / sizeof(workers[0]); i++)
		check_sizes(workers[i]);
	check_too_small();
	check_growth();
	return tap_done();
}

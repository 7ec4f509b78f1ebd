/* test_layout.c: the dashboard layout for every terminal size from 80x24 to 300x100: every
 * part inside the screen, no two parts sharing a cell, the minimum size enforced. */
#include <stdbool.h>
#include <stdio.h>

#include "gputop/layout.h"
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

/* One layout: returns a description of the first broken rule, or NULL. */
static const char *check_one(int cols, int lines, int n)
{
	struct layout l;
	layout_compute(cols, lines, n, &l);
	if (l.too_small)
		return "too small at or above the minimum";
	const struct layout_rect *p = l.part, *tput = &p[LAYOUT_TPUT], *busy = &p[LAYOUT_BUSY];
	int area = 0;
	for (int i = 0; i < LAYOUT_NPARTS; i++) {
		if (p[i].h <= 0 || p[i].w <= 0)
			return "empty part";
		if (!inside(&p[i], cols, lines))
			return "part outside the screen";
		for (int j = i + 1; j < LAYOUT_NPARTS; j++)
			if (overlap(&p[i], &p[j]))
				return "parts overlap";
		area += p[i].h * p[i].w;
	}
	if (area != cols * lines)
		return "parts do not cover the screen";
	if (!within(&l.tput_graph, tput) || !within(&l.busy_graph, busy) || l.tput_graph.w < 40)
		return "graph outside its region or too narrow";
	if (p[LAYOUT_KEYBAR].y != lines - 1 || p[LAYOUT_HEADER].y != 0 || p[LAYOUT_HEADER].h != 2)
		return "header not on top or key bar not at the bottom";
	if (l.table_rows != p[LAYOUT_TABLE].h - 1 || l.table_rows < 1)
		return "no worker row";
	int want = n < 1 ? 1 : n;
	if (l.table_rows < want && tput->h > 1)
		return "graphs grew while workers had no row";
	if (tput->h != busy->h || tput->h > LAYOUT_GRAPH_MAX_H)
		return "graph heights";
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
	TAP_EQ_U(l.table_rows, 17, "80x24 with 64 workers shows 17 worker rows");
}

static void check_growth(void)
{
	struct layout a, b;
	layout_compute(120, 60, 4, &a);
	tap_ok(a.part[LAYOUT_TPUT].h == LAYOUT_GRAPH_MAX_H,
	       "a tall terminal with few workers gets tall graphs");
	layout_compute(120, 60, 200, &b);
	tap_ok(b.part[LAYOUT_TPUT].h == 1 && b.table_rows == 60 - 7,
	       "many workers take the rows from the graphs");
	layout_compute(300, 100, 4, &a);
	tap_ok(a.part[LAYOUT_TABLE].w == 300 && a.tput_graph.w == 300 - LAYOUT_LABEL_W,
	       "wide terminals widen table and graph");
}

int main(void)
{
	for (size_t i = 0; i < sizeof(workers) / sizeof(workers[0]); i++)
		check_sizes(workers[i]);
	check_too_small();
	check_growth();
	return tap_done();
}

/* layout.c: the dashboard's rectangles from the terminal size (pure: no curses, no I/O). */
#include "layout.h"

#include <string.h>

static struct layout_rect rect(int y, int x, int h, int w)
{
	struct layout_rect r = { y, x, h, w };
	return r;
}

/* A graph region at (y, x), h x w: the label on the left, the graph filling the rest. */
static void layout_graph(struct layout_rect *region, struct layout_rect *graph, int y, int x, int h, int w)
{
	*region = rect(y, x, h, w);
	*graph = rect(y, x + LAYOUT_LABEL_W, h, w - LAYOUT_LABEL_W);
}

/* The four graphs from line y, each gh rows; returns the line after them. */
static int layout_graphs(struct layout *out, int y, int gh)
{
	struct layout_rect *part = out->part;
	int cols = out->cols;
	if (out->split) {
		int lw = cols - cols / 2; /* the aggregate's half, the wider one when cols is odd */
		layout_graph(&part[LAYOUT_TPUT], &out->tput_graph, y, 0, gh, lw);
		layout_graph(&part[LAYOUT_WTPUT], &out->wtput_graph, y, lw, gh, cols - lw);
		y += gh;
		layout_graph(&part[LAYOUT_BUSY], &out->busy_graph, y, 0, gh, lw);
		layout_graph(&part[LAYOUT_WBUSY], &out->wbusy_graph, y, lw, gh, cols - lw);
		return y + gh;
	}
	layout_graph(&part[LAYOUT_TPUT], &out->tput_graph, y, 0, gh, cols);
	y += gh;
	layout_graph(&part[LAYOUT_BUSY], &out->busy_graph, y, 0, gh, cols);
	y += gh;
	if (!out->worker_graphs) {
		part[LAYOUT_WTPUT] = part[LAYOUT_WBUSY] = rect(y, 0, 0, 0);
		out->wtput_graph = out->wbusy_graph = rect(y, 0, 0, 0);
		return y;
	}
	layout_graph(&part[LAYOUT_WTPUT], &out->wtput_graph, y, 0, gh, cols);
	y += gh;
	layout_graph(&part[LAYOUT_WBUSY], &out->wbusy_graph, y, 0, gh, cols);
	return y + gh;
}

void layout_compute(int cols, int lines, int nworkers, struct layout *out)
{
	memset(out, 0, sizeof(*out));
	out->cols = cols;
	out->lines = lines;
	if (cols < LAYOUT_MIN_W || lines < LAYOUT_MIN_H) {
		out->too_small = true;
		return;
	}
	if (nworkers < 1)
		nworkers = 1; /* an empty table still shows its heads and one row */
	/* Fixed lines: header 2, summary 2, keybar 1, table heads 1. */
	int spare = lines - 6 - nworkers; /* what is left once every worker has a row */
	out->split = cols >= LAYOUT_SPLIT_W;
	out->worker_graphs = out->split || spare >= 4;
	int stacked = out->split || !out->worker_graphs ? 2 : 4; /* graphs one above the other */
	int gh = spare / stacked;
	out->graph_h = gh < 1 ? 1 : gh;
	struct layout_rect *part = out->part;
	part[LAYOUT_HEADER] = rect(0, 0, 2, cols);
	int y = layout_graphs(out, 2, out->graph_h);
	part[LAYOUT_SUMMARY] = rect(y, 0, 2, cols);
	y += 2;
	part[LAYOUT_TABLE] = rect(y, 0, lines - 1 - y, cols);
	out->table_rows = part[LAYOUT_TABLE].h - 1;
	part[LAYOUT_KEYBAR] = rect(lines - 1, 0, 1, cols);
}

/* Whether the columns ranked up to rank fit, the bar's demands up to it included. */
static bool columns_fit(const struct layout_col *c, int n, bool bar, int width, int rank)
{
	int used = LAYOUT_MARK_W;
	for (int i = 0; i < n; i++)
		if (c[i].rank <= rank)
			used += c[i].width;
	if (bar && rank >= LAYOUT_RANK_BAR_WANT)
		used += LAYOUT_BAR_WANT;
	else if (bar && rank >= LAYOUT_RANK_BAR_MIN)
		used += LAYOUT_BAR_MIN;
	return used <= width;
}

int layout_columns(const struct layout_col *c, int n, bool bar, int width, int *xs)
{
	/* The highest rank whose columns, with every more important one, still fit. */
	int most = 0;
	for (int i = 0; i < n; i++)
		most = c[i].rank > most ? c[i].rank : most;
	most = most > LAYOUT_RANK_BAR_WANT ? most : LAYOUT_RANK_BAR_WANT;
	int keep = -1;
	while (keep < most && columns_fit(c, n, bar, width, keep + 1))
		keep++;
	int x = LAYOUT_MARK_W;
	for (int i = 0; i < n; i++) {
		xs[i] = c[i].rank <= keep ? x : -1;
		if (xs[i] >= 0)
			x += c[i].width;
	}
	return x; /* every column ends in a blank: the bar needs no gap of its own */
}

/* layout.c: the dashboard's rectangles from the terminal size (pure: no curses, no I/O). */
#include "gputop/layout.h"

#include <string.h>

static struct layout_rect rect(int y, int x, int h, int w)
{
	struct layout_rect r = { y, x, h, w };
	return r;
}

/* A graph region: the label on the left, the graph filling the rest of the width. */
static void layout_graph(struct layout_rect *region, struct layout_rect *graph, int y, int h, int cols)
{
	*region = rect(y, 0, h, cols);
	*graph = rect(y, LAYOUT_LABEL_W, h, cols - LAYOUT_LABEL_W);
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
	/* Fixed lines: header 2, summary 1, keybar 1, table heads 1, graphs 1 each at least. */
	int fixed = 2 + 1 + 1 + 1 + 2;
	int spare = lines - fixed - nworkers; /* what is left once every worker has a row */
	int gh = 1;
	if (spare > 0) {
		gh += spare / 2;
		if (gh > LAYOUT_GRAPH_MAX_H)
			gh = LAYOUT_GRAPH_MAX_H;
	}
	int y = 0;
	out->header = rect(y, 0, 2, cols);
	y += 2;
	layout_graph(&out->tput, &out->tput_graph, y, gh, cols);
	y += gh;
	layout_graph(&out->busy, &out->busy_graph, y, gh, cols);
	y += gh;
	out->summary = rect(y, 0, 1, cols);
	y += 1;
	out->table = rect(y, 0, lines - 1 - y, cols);
	out->table_rows = out->table.h - 1;
	out->keybar = rect(lines - 1, 0, 1, cols);
}

bool layout_inside(const struct layout_rect *r, int cols, int lines)
{
	if (r->h == 0 || r->w == 0)
		return true;
	return r->h > 0 && r->w > 0 && r->y >= 0 && r->x >= 0 && r->y + r->h <= lines && r->x + r->w <= cols;
}

bool layout_overlap(const struct layout_rect *a, const struct layout_rect *b)
{
	if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
		return false;
	return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

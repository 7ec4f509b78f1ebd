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
	struct layout_rect *part = out->part;
	int y = 0;
	part[LAYOUT_HEADER] = rect(y, 0, 2, cols);
	y += 2;
	layout_graph(&part[LAYOUT_TPUT], &out->tput_graph, y, gh, cols);
	y += gh;
	layout_graph(&part[LAYOUT_BUSY], &out->busy_graph, y, gh, cols);
	y += gh;
	part[LAYOUT_SUMMARY] = rect(y, 0, 1, cols);
	y += 1;
	part[LAYOUT_TABLE] = rect(y, 0, lines - 1 - y, cols);
	out->table_rows = part[LAYOUT_TABLE].h - 1;
	part[LAYOUT_KEYBAR] = rect(lines - 1, 0, 1, cols);
}

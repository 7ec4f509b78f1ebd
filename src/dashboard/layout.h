/* layout.h: where each part of the dashboard goes, computed from the terminal size alone:
 * no curses here, so tests can check every size. */
#ifndef GPUTOP_LAYOUT_H
#define GPUTOP_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_MIN_W   80
#define LAYOUT_MIN_H   24
#define LAYOUT_LABEL_W 30 /* text to the left of each history graph */
/* From this width the selected worker's graphs sit beside the aggregate's; below it they are
 * stacked under them when there is room. */
#define LAYOUT_SPLIT_W 140

struct layout_rect {
	int y, x, h, w; /* top-left corner and size, in cells; h or w 0: empty */
};

/* The parts: together they tile the screen. Only WTPUT and WBUSY may be empty. */
enum layout_part {
	LAYOUT_HEADER,  /* devices, run settings, sort and interval: 2 lines */
	LAYOUT_TPUT,    /* the aggregate's rate: label and graph */
	LAYOUT_BUSY,    /* device busy and idle: label and graph */
	LAYOUT_WTPUT,   /* the selected worker's rate: beside TPUT, or under BUSY, or empty */
	LAYOUT_WBUSY,   /* the selected worker's kernel busy: beside BUSY, or under WTPUT, or empty */
	LAYOUT_SUMMARY, /* headroom or ceiling, workers, lost, profile; the diagnosis: 2 lines */
	LAYOUT_TABLE,   /* column heads on its first line, then worker rows */
	LAYOUT_KEYBAR,  /* last line */
	LAYOUT_NPARTS
};

struct layout {
	bool too_small;     /* below LAYOUT_MIN_W x LAYOUT_MIN_H: only a notice is drawn */
	bool split;         /* the worker's graphs beside the aggregate's (LAYOUT_SPLIT_W and wider) */
	bool worker_graphs; /* WTPUT and WBUSY are not empty */
	int cols, lines;
	struct layout_rect part[LAYOUT_NPARTS];
	/* The graphs inside the TPUT, BUSY, WTPUT and WBUSY parts (screen coordinates). */
	struct layout_rect tput_graph, busy_graph, wtput_graph, wbusy_graph;
	int graph_h;    /* rows of every graph shown */
	int table_rows; /* worker rows visible: the table's h - 1 */
};

/* Places every part for a cols x lines terminal whose table has nworkers rows to show (with
 * several devices, their heading lines too). The table gets a row for every one first; the graphs share what
 * is left, however tall (each at least one row), and what their equal shares leave over goes back to the
 * table. Narrower than LAYOUT_SPLIT_W the worker's pair of graphs is shown only when every one of the four
 * graphs gets a row. */
void layout_compute(int cols, int lines, int nworkers, struct layout *out);

/* ---- the worker table's columns across its width ---- */

#define LAYOUT_MARK_W 2 /* before the columns: > on the selected row, then * on a tagged one */
/* The breakdown bar after the columns takes the rest of the row. Its heading is "breakdown"
 * (LAYOUT_BAR_MIN cells, with a blank) or, with its legend, "breakdown g w q k r o"
 * (LAYOUT_BAR_WANT): it is given the one, then the other, at two places in the columns' order
 * of importance, so a heading is always whole. */
#define LAYOUT_BAR_MIN       10
#define LAYOUT_BAR_WANT      22
#define LAYOUT_RANK_BAR_MIN  8  /* columns ranked after this go before the bar shrinks below MIN */
#define LAYOUT_RANK_BAR_WANT 11 /* ... after this, before it shrinks below WANT */

/* A column of the table: its width in cells (its value and one blank), and its rank in the
 * order of importance (0 first, kept longest). */
struct layout_col {
	int width, rank;
};

/* Places the n columns of c (in the order they are drawn) on a table width cells wide, after
 * the mark: a column is shown whole or not at all, and the columns left out are the least
 * important ones (the highest ranks, the bar's two demands counted among them), as many as it
 * takes to fit. xs[i] gets column i's x, -1 where it is left out. Returns the x where the bar
 * starts (it ends at width; with bar false nothing is drawn there). */
int layout_columns(const struct layout_col *c, int n, bool bar, int width, int *xs);

#endif

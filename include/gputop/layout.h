/* layout.h: where each part of the dashboard goes, computed from the terminal size alone:
 * no curses here, so tests can check every size. */
#ifndef GPUTOP_LAYOUT_H
#define GPUTOP_LAYOUT_H

#include <stdbool.h>

#define LAYOUT_MIN_W       80
#define LAYOUT_MIN_H       24
#define LAYOUT_LABEL_W     30 /* text to the left of each history graph */
#define LAYOUT_GRAPH_MAX_H 6  /* rows of one history graph at most */

struct layout_rect {
	int y, x, h, w; /* top-left corner and size, in cells; h or w 0: empty */
};

/* The parts, top to bottom: together they tile the screen. */
enum layout_part {
	LAYOUT_HEADER,  /* device and run settings, 2 lines */
	LAYOUT_TPUT,    /* aggregate Mbit/s: label and graph */
	LAYOUT_BUSY,    /* device busy and idle: label and graph */
	LAYOUT_SUMMARY, /* headroom, workers, lost: 1 line */
	LAYOUT_TABLE,   /* column heads on its first line, then worker rows */
	LAYOUT_KEYBAR,  /* last line */
	LAYOUT_NPARTS
};

struct layout {
	bool too_small; /* below LAYOUT_MIN_W x LAYOUT_MIN_H: only a notice is drawn */
	int cols, lines;
	struct layout_rect part[LAYOUT_NPARTS];
	struct layout_rect tput_graph, busy_graph; /* inside the tput and busy parts */
	int table_rows;                            /* worker rows visible: the table's h - 1 */
};

/* Places every part for a cols x lines terminal that has nworkers rows to show. The table
 * gets rows for every worker first; what is left makes the graphs taller, up to
 * LAYOUT_GRAPH_MAX_H, and the rest goes back to the table. */
void layout_compute(int cols, int lines, int nworkers, struct layout *out);

#endif

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

struct layout {
	bool too_small; /* below LAYOUT_MIN_W x LAYOUT_MIN_H: only a notice is drawn */
	int cols, lines;
	struct layout_rect header;                 /* device and run settings, 2 lines */
	struct layout_rect tput;                   /* aggregate Mbit/s: label and graph */
	struct layout_rect busy;                   /* device busy and idle: label and graph */
	struct layout_rect summary;                /* headroom, workers, lost: 1 line */
	struct layout_rect table;                  /* column heads on its first line, then worker rows */
	struct layout_rect keybar;                 /* last line */
	struct layout_rect tput_graph, busy_graph; /* inside tput and busy */
	int table_rows;                            /* worker rows visible: table.h - 1 */
};

/* Places every part for a cols x lines terminal that has nworkers rows to show. The table
 * gets rows for every worker first; what is left makes the graphs taller, up to
 * LAYOUT_GRAPH_MAX_H, and the rest goes back to the table. */
void layout_compute(int cols, int lines, int nworkers, struct layout *out);

/* True when r lies inside a cols x lines screen (an empty rectangle always does). */
bool layout_inside(const struct layout_rect *r, int cols, int lines);
/* True when a and b share a cell. */
bool layout_overlap(const struct layout_rect *a, const struct layout_rect *b);

#endif

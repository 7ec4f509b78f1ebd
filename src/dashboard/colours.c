/* colours.c: the colour pairs of the dashboard's roles, and the plain attributes that stand for
 * them where there are no colours (TERM=vt100, NO_COLOR, the config file's colour = never): the
 * screen must read the same without colour. */
#include <stdlib.h>

#include "ui.h"

static const struct {
	short fg, bg;
	attr_t colour_extra, mono;
} pairs[UI_P_COUNT] = {
	[UI_P_NONE] = { -1, -1, A_NORMAL, A_NORMAL },
	[UI_P_HEAD] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[UI_P_TPUT] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[UI_P_BUSY] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[UI_P_GOOD] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[UI_P_WARN] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[UI_P_BAD] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[UI_P_INFO] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[UI_P_DIM] = { -1, -1, A_DIM, A_DIM },
	[UI_P_KEY] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[UI_P_COLS] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE },
	[UI_P_SORT] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD | A_UNDERLINE },
	[UI_P_SEG_GEN] = { COLOR_BLACK, COLOR_BLUE, A_NORMAL, A_NORMAL },
	[UI_P_SEG_H2D] = { COLOR_BLACK, COLOR_MAGENTA, A_NORMAL, A_NORMAL },
	[UI_P_SEG_KERNEL] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_BOLD },
	[UI_P_SEG_D2H] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_NORMAL },
	[UI_P_SEG_OTHER] = { COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_NORMAL },
	[UI_P_SEG_QWAIT] = { COLOR_BLACK, COLOR_RED, A_NORMAL, A_UNDERLINE },
};

/* A worker state's colour in the table. */
static const enum ui_pair state_pairs[GD_ST_COUNT] = {
	[GD_ST_STARTING] = UI_P_WARN, [GD_ST_RUNNING] = UI_P_GOOD, [GD_ST_PAUSED] = UI_P_INFO,
	[GD_ST_STOPPING] = UI_P_WARN, [GD_ST_EXITED] = UI_P_DIM,   [GD_ST_FAILED] = UI_P_BAD,
	[GD_ST_STALLED] = UI_P_BAD,   [GD_ST_NOCL] = UI_P_DIM,
};

void ui_colours(struct ui *u)
{
	const char *no = getenv("NO_COLOR");
	bool wanted =
	    u->term.colour_use == GD_COLOUR_ALWAYS || (u->term.colour_use == GD_COLOUR_AUTO && !(no && *no));
	u->term.colour = has_colors() && wanted;
	if (!u->term.colour || start_color() == ERR) {
		u->term.colour = false;
		return;
	}
	use_default_colors();
	for (int i = 1; i < UI_P_COUNT; i++)
		init_pair((short)i, pairs[i].fg, pairs[i].bg);
}

attr_t ui_attr(const struct ui *u, enum ui_pair p)
{
	return u->term.colour ? (attr_t)COLOR_PAIR(p) | pairs[p].colour_extra : pairs[p].mono;
}

enum ui_pair ui_state_pair(enum gd_state st)
{
	return (unsigned)st < GD_ST_COUNT ? state_pairs[st] : UI_P_BAD;
}

/* mouse.c: the mouse, as in htop: a click on a worker's row selects it, a click on a column's
 * head sorts by that column (again: the other way round), the wheel moves the selection. Only
 * button presses are asked for (no motion), so the terminal's own selection with Shift still
 * works where it does for htop; the config file's mouse = off leaves the mouse to the terminal. */
#include "ui.h"

void ui_mouse_begin(const struct ui *u)
{
	if (!u->term.mouse)
		return;
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0); /* a press is acted on at once: no wait to see whether a click follows */
}

/* A press on line y of the table (0: its heads) at column x. */
static void table_click(struct ui *u, int y, int x)
{
	if (y > 0) {
		int p = ui_row_at(u, y);
		if (p >= 0)
			ui_select(u, p);
		return;
	}
	int xs[UI_NCOLS];
	ui_col_x(u, u->term.lay.cols, xs);
	for (int i = 0; i < UI_NCOLS; i++)
		if (xs[i] >= 0 && x >= xs[i] && x < xs[i] + ui_col(i)->width)
			ui_sort_by(u, i);
}

ui_reaction ui_mouse(struct ui *u)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || u->help.shown || u->menu.open || u->term.lay.too_small)
		return UI_R_DRAW; /* over the help or a menu, a press does nothing */
	if (ev.bstate & BUTTON4_PRESSED)
		ui_move(u, -1);
	else if (ev.bstate & BUTTON5_PRESSED)
		ui_move(u, 1);
	const struct layout_rect *t = &u->term.lay.part[LAYOUT_TABLE];
	if ((ev.bstate & BUTTON1_PRESSED) && ev.y >= t->y && ev.y < t->y + t->h) {
		ui_follow(u); /* the rows as drawn */
		table_click(u, ev.y - t->y, ev.x);
	}
	return UI_R_DRAW;
}

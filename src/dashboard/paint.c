/* paint.c: the windows that follow the layout, and drawing the whole screen once per update:
 * the dashboard's parts, or the help, or the notice that the terminal is too small. */
#include <string.h>

#include "ui.h"

void ui_free_windows(struct ui *u)
{
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (u->part[i])
			delwin(u->part[i]);
	if (u->full)
		delwin(u->full);
	memset(u->part, 0, sizeof(u->part));
	u->full = NULL;
	u->have_windows = false;
}

/* The same size and the same rectangles: the windows can stay. */
static bool same_layout(const struct layout *a, const struct layout *b)
{
	if (a->cols != b->cols || a->lines != b->lines || a->too_small != b->too_small)
		return false;
	for (int i = 0; i < LAYOUT_NPARTS; i++) {
		const struct layout_rect *x = &a->part[i], *y = &b->part[i];
		if (x->y != y->y || x->x != y->x || x->h != y->h || x->w != y->w)
			return false;
	}
	return true;
}

int ui_windows(struct ui *u)
{
	struct layout l;
	layout_compute(COLS, LINES, ui_nlines(u), &l);
	if (u->have_windows && same_layout(&l, &u->lay))
		return 0;
	ui_free_windows(u);
	u->lay = l;
	u->dirty = true;
	if (!(u->full = newwin(LINES, COLS, 0, 0)))
		return -1;
	if (!l.too_small)
		for (int i = 0; i < LAYOUT_NPARTS; i++) {
			const struct layout_rect *r = &l.part[i];
			if (r->h == 0 || r->w == 0)
				continue; /* an empty part has no window (newwin would make it full-screen) */
			if (!(u->part[i] = newwin(r->h, r->w, r->y, r->x)))
				return -1;
		}
	u->have_windows = true;
	return 0;
}

static void draw_small(struct ui *u, WINDOW *w)
{
	int y = getmaxy(w) / 2, width = getmaxx(w);
	char a[64], b[64];
	snprintf(a, sizeof(a), "terminal too small: need %dx%d", LAYOUT_MIN_W, LAYOUT_MIN_H);
	snprintf(b, sizeof(b), "now %dx%d; q quits", u->lay.cols, u->lay.lines);
	int xa = (width - (int)strlen(a)) / 2, xb = (width - (int)strlen(b)) / 2;
	ui_put(w, y > 0 ? y - 1 : 0, xa > 0 ? xa : 0, ui_attr(u, UI_P_BAD), a);
	ui_put(w, y, xb > 0 ? xb : 0, A_NORMAL, b);
}

/* Every part of the dashboard, and the open menu over them. */
static void draw_parts(struct ui *u, int64_t now)
{
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (u->part[i])
			werase(u->part[i]);
	ui_draw_header(u, u->part[LAYOUT_HEADER], now);
	ui_draw_table(u, u->part[LAYOUT_TABLE]); /* first: it settles the selection */
	ui_draw_tput(u, u->part[LAYOUT_TPUT]);
	ui_draw_busy(u, u->part[LAYOUT_BUSY]);
	if (u->lay.worker_graphs) {
		ui_draw_worker(u, u->part[LAYOUT_WTPUT], &u->lay.wtput_graph, false);
		ui_draw_worker(u, u->part[LAYOUT_WBUSY], &u->lay.wbusy_graph, true);
	}
	ui_draw_summary(u, u->part[LAYOUT_SUMMARY]);
	ui_draw_keybar(u, u->part[LAYOUT_KEYBAR], now);
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (u->part[i])
			wnoutrefresh(u->part[i]);
	if (u->menu)
		ui_draw_menu(u);
}

void ui_draw(struct ui *u, int64_t now)
{
	/* stdscr is never drawn on; refreshing it first keeps getch from refreshing it later. */
	wnoutrefresh(stdscr);
	if (u->lay.too_small || u->help || u->diag || u->output) {
		werase(u->full);
		if (u->lay.too_small)
			draw_small(u, u->full);
		else if (u->help)
			ui_draw_help(u, u->full);
		else if (u->diag)
			ui_draw_diagnosis(u, u->full);
		else
			ui_draw_output(u, u->full);
		wnoutrefresh(u->full);
	} else {
		draw_parts(u, now);
	}
	doupdate(); /* one screen update per frame: no flicker */
	u->last_draw = now;
	u->dirty = false;
}

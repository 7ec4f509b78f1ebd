/* paint.c: the windows that follow the layout, and drawing the whole screen once per update:
 * the dashboard's parts, or a screen that takes it whole (the help, the diagnosis, the programs'
 * output), or the notice that the terminal is too small. */
#include <string.h>

#include "ui.h"

void ui_free_windows(struct ui *u)
{
	struct ui_term *t = &u->term;
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (t->part[i])
			delwin(t->part[i]);
	if (t->full)
		delwin(t->full);
	memset(t->part, 0, sizeof(t->part));
	t->full = NULL;
	t->have_windows = false;
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
	struct ui_term *t = &u->term;
	struct layout l;
	layout_compute(COLS, LINES, ui_nlines(u), &l);
	if (t->have_windows && same_layout(&l, &t->lay))
		return 0;
	ui_free_windows(u);
	t->lay = l;
	u->dirty = true;
	if (!(t->full = newwin(LINES, COLS, 0, 0)))
		return -1;
	if (!l.too_small)
		for (int i = 0; i < LAYOUT_NPARTS; i++) {
			const struct layout_rect *r = &l.part[i];
			if (r->h == 0 || r->w == 0)
				continue; /* an empty part has no window (newwin would make it full-screen) */
			if (!(t->part[i] = newwin(r->h, r->w, r->y, r->x)))
				return -1;
		}
	t->have_windows = true;
	return 0;
}

static void draw_small(struct ui *u, WINDOW *w)
{
	int y = getmaxy(w) / 2, width = getmaxx(w);
	char a[64], b[64];
	snprintf(a, sizeof(a), "terminal too small: need %dx%d", LAYOUT_MIN_W, LAYOUT_MIN_H);
	snprintf(b, sizeof(b), "now %dx%d; q quits", u->term.lay.cols, u->term.lay.lines);
	int xa = (width - (int)strlen(a)) / 2, xb = (width - (int)strlen(b)) / 2;
	ui_put(w, y > 0 ? y - 1 : 0, xa > 0 ? xa : 0, ui_attr(u, UI_P_BAD), a);
	ui_put(w, y, xb > 0 ? xb : 0, A_NORMAL, b);
}

/* Every part of the dashboard, and the open menu over them. */
static void draw_parts(struct ui *u, int64_t now)
{
	struct ui_term *t = &u->term;
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (t->part[i])
			werase(t->part[i]);
	ui_draw_header(u, t->part[LAYOUT_HEADER], now);
	ui_draw_table(u, t->part[LAYOUT_TABLE]); /* first: it settles the selection */
	ui_draw_tput(u, t->part[LAYOUT_TPUT]);
	ui_draw_busy(u, t->part[LAYOUT_BUSY]);
	if (t->lay.worker_graphs) {
		ui_draw_worker(u, t->part[LAYOUT_WTPUT], &t->lay.wtput_graph, false);
		ui_draw_worker(u, t->part[LAYOUT_WBUSY], &t->lay.wbusy_graph, true);
	}
	ui_draw_summary(u, t->part[LAYOUT_SUMMARY]);
	ui_draw_keybar(u, t->part[LAYOUT_KEYBAR], now);
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (t->part[i])
			wnoutrefresh(t->part[i]);
	if (u->menu.open)
		ui_draw_menu(u);
}

void ui_draw(struct ui *u, int64_t now)
{
	/* stdscr is never drawn on; refreshing it first keeps getch from refreshing it later. */
	wnoutrefresh(stdscr);
	if (u->term.lay.too_small || u->help.shown || u->diag.shown || u->progout.shown) {
		werase(u->term.full);
		if (u->term.lay.too_small)
			draw_small(u, u->term.full);
		else if (u->help.shown)
			ui_draw_help(u, u->term.full);
		else if (u->diag.shown)
			ui_draw_diagnosis(u, u->term.full);
		else
			ui_draw_progout(u, u->term.full);
		wnoutrefresh(u->term.full);
	} else {
		draw_parts(u, now);
	}
	doupdate(); /* one screen update per frame: no flicker */
	u->last_draw = now;
	u->dirty = false;
}

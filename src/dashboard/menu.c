/* menu.c: the menu open over the screen (as htop's Panel): a box in the middle with a title,
 * the items and the keys at its foot, the highlighted item in reverse video, and the keys
 * every menu shares. What the items are and what choosing one does is the menu's own
 * (sort.c, signals.c, setup.c). */
#include <string.h>

#include "ui.h"

ui_reaction ui_menu_open(struct ui *u, const struct ui_menu *m, int sel)
{
	u->menu.open = m;
	u->menu.sel = sel;
	return UI_R_DRAW;
}

ui_reaction ui_menu_key(struct ui *u, int ch)
{
	const struct ui_menu *m = u->menu.open;
	int n = m->nitems;
	if (ch == KEY_UP || ch == KEY_DOWN) {
		u->menu.sel = (u->menu.sel + (ch == KEY_UP ? n - 1 : 1)) % n;
	} else if (ch == KEY_HOME || ch == KEY_END) {
		u->menu.sel = ch == KEY_HOME ? 0 : n - 1;
	} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER || ch == 'y') {
		u->menu.open = NULL;
		return UI_R_DRAW | (m->choose ? m->choose(u, u->menu.sel) : 0);
	} else if (ch == UI_KEY_ESC || ch == 'n') {
		u->menu.open = NULL;
		ui_message(u, "%s: nothing done", m->cancelled);
	} else if (ch >= '1' && ch < '1' + n && ch <= '9') {
		u->menu.sel = ch - '1';
	}
	return UI_R_DRAW;
}

#define UI_MENU_ITEM 80 /* characters of an item, at most */

void ui_draw_menu(struct ui *u)
{
	const struct ui_menu *m = u->menu.open;
	char title[96], item[UI_MENU_ITEM];
	int n = m->nitems;
	m->title(u, title, sizeof(title));
	int width = (int)strlen(m->foot) > (int)strlen(title) ? (int)strlen(m->foot) : (int)strlen(title);
	for (int k = 0; k < n; k++) {
		m->item(u, k, item, sizeof(item));
		width = (int)strlen(item) > width ? (int)strlen(item) : width;
	}
	width = width + 4 < COLS ? width + 4 : COLS;
	int height = n + 4 < LINES ? n + 4 : LINES;
	int shown = height - 4, top = u->menu.sel >= shown ? u->menu.sel - shown + 1 : 0;
	WINDOW *w = newwin(height, width, (LINES - height) / 2, (COLS - width) / 2);
	if (!w)
		return;
	werase(w);
	box(w, 0, 0);
	ui_put(w, 1, 2, ui_attr(u, UI_P_HEAD), title);
	for (int r = 0; r < shown && top + r < n; r++) {
		attr_t a = top + r == u->menu.sel ? A_REVERSE : A_NORMAL;
		m->item(u, top + r, item, sizeof(item));
		wattrset(w, a);
		mvwhline(w, 2 + r, 1, ' ', width - 2);
		ui_put(w, 2 + r, 2, a, item);
	}
	ui_put(w, height - 2, 2, ui_attr(u, UI_P_DIM), m->foot);
	wnoutrefresh(w);
	delwin(w);
}

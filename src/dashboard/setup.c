/* setup.c: the setup screen (F2 or S, as htop's): the worker table's columns with a checkbox
 * each, in the order they are drawn, the breakdown bar last. Space shows or hides one, [ and ]
 * (or - and +, F7 and F8) move it left or right; each change shows in the table at once, and
 * the config file keeps them (config.c). */
#include <string.h>

#include "ui.h"

#define BAR_ITEM UI_NCOLS /* the breakdown bar: always the last item */

static void setup_title(const struct ui *u, char *buf, size_t n)
{
	(void)u;
	snprintf(buf, n, "columns of the worker table, left to right");
}

static void setup_item(const struct ui *u, int k, char *buf, size_t n)
{
	if (k == BAR_ITEM) {
		snprintf(buf, n, "[%c] %-10s a batch's time as a bar, last", u->table.bar ? 'x' : ' ',
		         "breakdown");
		return;
	}
	int i = u->table.colorder[k], xs[UI_NCOLS];
	ui_col_x(u, COLS, xs);
	snprintf(buf, n, "[%c] %-10s %s%s", u->table.colon[i] ? 'x' : ' ', ui_col_head(u, i), ui_col(i)->desc,
	         u->table.colon[i] && xs[i] < 0 ? " (no room)" : "");
}

/* Moves item k by one place (by -1: left), the highlight with it. */
static void setup_move(struct ui *u, int k, int by)
{
	if (k == BAR_ITEM) {
		ui_message(u, "the breakdown bar stays last: it takes the rest of the row");
		return;
	}
	int to = k + by;
	if (to < 0 || to >= UI_NCOLS)
		return;
	int c = u->table.colorder[k];
	u->table.colorder[k] = u->table.colorder[to];
	u->table.colorder[to] = c;
	u->menu.sel = to;
}

static ui_reaction setup_key(struct ui *u, int ch)
{
	int k = u->menu.sel;
	switch (ch) {
	case ' ':
	case '\r':
	case '\n':
	case KEY_ENTER:
		if (k == BAR_ITEM)
			u->table.bar = !u->table.bar;
		else
			u->table.colon[u->table.colorder[k]] = !u->table.colon[u->table.colorder[k]];
		break;
	case '[':
	case '-':
	case KEY_F(7):
		setup_move(u, k, -1);
		break;
	case ']':
	case '+':
	case KEY_F(8):
		setup_move(u, k, 1);
		break;
	case UI_KEY_ESC:
	case 'q':
	case KEY_F(2):
		u->menu.open = NULL;
		ui_message(u, u->conf->config ? "columns set: the config file keeps them"
		                              : "columns set for this run (--no-config)");
		break;
	case KEY_UP:
	case KEY_DOWN:
	case KEY_HOME:
	case KEY_END:
		return ui_menu_key(u, ch);
	default:
		break; /* y, n and digits are other menus' */
	}
	return UI_R_DRAW;
}

static const struct ui_menu setup_menu = {
	.foot = "Space show/hide  [ ] or - + move  Esc F2 q done",
	.cancelled = "columns unchanged",
	.nitems = UI_NCOLS + 1,
	.title = setup_title,
	.item = setup_item,
	.key = setup_key,
	.choose = NULL, /* nothing is chosen: the keys act at once */
};

ui_reaction ui_act_setup(struct ui *u, int key)
{
	(void)key;
	return ui_menu_open(u, &setup_menu, 0);
}

/* sort.c: the column the rows are sorted by and its direction: the keys s, < and >, I, and the
 * sort menu (F6). The header shows both; rowtable.c orders the rows by them. */
#include "ui.h"

void ui_set_sort(struct ui *u, int col)
{
	u->table.sort = col;
	u->table.sort_desc = ui_col_desc(col);
}

/* The shown columns (F2) in their order, as column indices; returns how many. */
static int shown(const struct ui *u, int *col)
{
	int n = 0;
	for (int k = 0; k < UI_NCOLS; k++)
		if (u->table.colon[u->table.colorder[k]])
			col[n++] = u->table.colorder[k];
	return n;
}

/* s: the next shown column, round; < and >: the one to the left or right (a sort column that
 * is not shown counts as before the first). */
ui_reaction ui_act_sort(struct ui *u, int key)
{
	int col[UI_NCOLS], n = shown(u, col), at = -1;
	for (int k = 0; k < n; k++)
		if (col[k] == u->table.sort)
			at = k;
	if (n == 0)
		ui_message(u, "no column shown: F2 chooses them");
	else if (key == 's')
		ui_set_sort(u, col[(at + 1) % n]);
	else if (key == '<' && at > 0)
		ui_set_sort(u, col[at - 1]);
	else if (key == '>' && at < n - 1)
		ui_set_sort(u, col[at + 1]);
	return UI_R_DRAW;
}

/* A click on a column's head: sorts by it, or the other way round when it is the sort column. */
void ui_sort_by(struct ui *u, int col)
{
	if (col == u->table.sort)
		u->table.sort_desc = !u->table.sort_desc;
	else
		ui_set_sort(u, col);
}

ui_reaction ui_act_invert(struct ui *u, int key)
{
	(void)key;
	u->table.sort_desc = !u->table.sort_desc;
	return UI_R_DRAW;
}

/* ---- the menu: every column, the current one highlighted ---- */

static void sort_menu_title(const struct ui *u, char *buf, size_t n)
{
	snprintf(buf, n, "sort by (now %s)", ui_col_head(u, u->table.sort));
}

static void sort_menu_item(const struct ui *u, int k, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ui_col_head(u, k));
}

static ui_reaction sort_menu_choose(struct ui *u, int k)
{
	ui_set_sort(u, k);
	return UI_R_DRAW;
}

static const struct ui_menu sort_menu = {
	.foot = "Enter/y sort  Esc/n cancel",
	.cancelled = "sort unchanged",
	.nitems = UI_NCOLS,
	.title = sort_menu_title,
	.item = sort_menu_item,
	.key = ui_menu_key,
	.choose = sort_menu_choose,
};

ui_reaction ui_act_sort_menu(struct ui *u, int key)
{
	(void)key;
	return ui_menu_open(u, &sort_menu, u->table.sort);
}

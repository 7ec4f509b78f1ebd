/* tags.c: tagged workers (Space tags or untags the selected one, U untags all) and the workers
 * x, k and K act on: the tagged ones, else the selected one. */
#include "ui.h"

static int tag_index(const struct ui_table *t, unsigned id)
{
	for (int i = 0; i < t->ntags; i++)
		if (t->tags[i] == id)
			return i;
	return -1;
}

bool ui_tagged(const struct ui *u, unsigned id)
{
	return tag_index(&u->table, id) >= 0;
}

/* Worker id as the session knows it, index *i (-1: forgotten); alive false when it is not. */
static struct gd_row_info worker_of(const struct ui *u, unsigned id, int *i)
{
	struct gd_row_info w = { .alive = false };
	*i = session_find(u->s, id);
	if (*i >= 0)
		w = session_row(u->s, *i);
	return w;
}

void ui_drop_ended_tags(struct ui *u)
{
	int k = 0, i;
	for (int t = 0; t < u->table.ntags; t++)
		if (worker_of(u, u->table.tags[t], &i).alive)
			u->table.tags[k++] = u->table.tags[t];
	u->table.ntags = k;
}

int ui_targets(struct ui *u, int idx[GD_PROCS_MAX])
{
	ui_drop_ended_tags(u);
	int n = 0;
	if (u->table.ntags) {
		for (int t = 0; t < u->table.ntags && n < GD_PROCS_MAX; t++)
			idx[n++] = session_find(u->s, u->table.tags[t]);
		return n;
	}
	int i;
	if (worker_of(u, u->table.sel_id, &i).alive)
		idx[n++] = i;
	return n;
}

ui_reaction ui_act_tag(struct ui *u, int key)
{
	(void)key;
	struct ui_table *tb = &u->table;
	ui_follow(u);
	int i, t = tag_index(tb, tb->sel_id);
	bool alive = worker_of(u, tb->sel_id, &i).alive;
	if (t >= 0) {
		tb->tags[t] = tb->tags[--tb->ntags];
	} else if (!alive) {
		ui_message(u, tb->sel_id ? "worker %u has ended: nothing to tag" : "no worker selected",
		           tb->sel_id);
		return UI_R_DRAW;
	} else {
		tb->tags = xreallocarray(tb->tags, (size_t)tb->ntags + 1, sizeof(*tb->tags));
		tb->tags[tb->ntags++] = tb->sel_id;
	}
	ui_move(u, 1); /* as in htop: Space again tags the next one */
	return UI_R_DRAW;
}

ui_reaction ui_act_untag(struct ui *u, int key)
{
	(void)key;
	u->table.ntags = 0;
	ui_message(u, "no worker tagged");
	return UI_R_DRAW;
}

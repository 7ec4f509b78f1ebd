/* tags.c: tagged workers (Space tags or untags the selected one, U untags all) and the workers
 * x, k and K act on: the tagged ones, else the selected one. */
#include "ui.h"

static int tag_index(const struct ui *u, unsigned id)
{
	for (int i = 0; i < u->ntags; i++)
		if (u->tags[i] == id)
			return i;
	return -1;
}

bool ui_tagged(const struct ui *u, unsigned id)
{
	return tag_index(u, id) >= 0;
}

/* Worker id as the session knows it, index *i (-1: forgotten); alive false when it is not. */
static struct gd_row_info worker_of(const struct ui *u, unsigned id, int *i)
{
	const struct gd_sup *sup = session_workers(u->s);
	struct gd_row_info w = { .alive = false };
	*i = sup_find(sup, id);
	if (*i >= 0)
		sup_worker(sup, *i, &w);
	return w;
}

void ui_drop_ended_tags(struct ui *u)
{
	int k = 0, i;
	for (int t = 0; t < u->ntags; t++)
		if (worker_of(u, u->tags[t], &i).alive)
			u->tags[k++] = u->tags[t];
	u->ntags = k;
}

int ui_targets(struct ui *u, int idx[GD_PROCS_MAX])
{
	ui_drop_ended_tags(u);
	int n = 0;
	if (u->ntags) {
		for (int t = 0; t < u->ntags && n < GD_PROCS_MAX; t++)
			idx[n++] = sup_find(session_workers(u->s), u->tags[t]);
		return n;
	}
	int i;
	if (worker_of(u, u->sel_id, &i).alive)
		idx[n++] = i;
	return n;
}

ui_reaction ui_act_tag(struct ui *u, int key)
{
	(void)key;
	ui_follow(u);
	int i, t = tag_index(u, u->sel_id);
	bool alive = worker_of(u, u->sel_id, &i).alive;
	if (t >= 0) {
		u->tags[t] = u->tags[--u->ntags];
	} else if (!alive) {
		ui_message(u, u->sel_id ? "worker %u has ended: nothing to tag" : "no worker selected",
		           u->sel_id);
		return UI_R_DRAW;
	} else {
		u->tags = xreallocarray(u->tags, (size_t)u->ntags + 1, sizeof(*u->tags));
		u->tags[u->ntags++] = u->sel_id;
	}
	ui_move(u, 1); /* as in htop: Space again tags the next one */
	return UI_R_DRAW;
}

ui_reaction ui_act_untag(struct ui *u, int key)
{
	(void)key;
	u->ntags = 0;
	ui_message(u, "no worker tagged");
	return UI_R_DRAW;
}

/* ended.c: ended rows leave the table a while after they end, as exited processes leave
 * htop's; the key e keeps them. The session forgets them only once none is on the screen. */
#include "ui.h"

#define UI_ENDED_S    10 /* an ended row stays in the table this long */
#define UI_ENDED_KEEP 64 /* ended rows the session keeps at most, kept by e or not */

bool ui_row_left(const struct ui *u, const struct gd_sample *s)
{
	if (u->table.keep_ended || (s->state != GD_ST_EXITED && s->state != GD_ST_FAILED))
		return false;
	const struct ui_whist *h = ui_whist_find(u, s->id);
	/* After the program's end the clock stops with it: the rows on the screen then stay. */
	int64_t at = u->ended ? u->ended : u->now;
	return h && h->ended && at - h->ended >= UI_ENDED_S * GD_NS_PER_S;
}

void ui_prune_ended(struct ui *u)
{
	const struct gd_frame *f = session_frame(u->s);
	int ended = 0, left = 0;
	for (int i = 0; i < f->nworkers; i++) {
		enum gd_state st = f->workers[i].state;
		if (st == GD_ST_EXITED || st == GD_ST_FAILED) {
			ended++;
			left += ui_row_left(u, &f->workers[i]);
		}
	}
	/* Forgetting drops every ended row at once: only when none would leave the screen early,
	 * or when there are too many to keep. */
	if (ended > UI_ENDED_KEEP || (ended > 0 && left == ended))
		session_prune(u->s); /* the next frame no longer lists them */
}

ui_reaction ui_act_keep_ended(struct ui *u, int key)
{
	(void)key;
	u->table.keep_ended = !u->table.keep_ended;
	if (u->table.keep_ended)
		ui_message(u, "ended rows stay in the table (the latest %d; e lets them go)", UI_ENDED_KEEP);
	else
		ui_message(u, "ended rows leave the table %d s after they end", UI_ENDED_S);
	return UI_R_DRAW;
}

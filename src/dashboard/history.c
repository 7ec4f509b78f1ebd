/* history.c: what the graphs draw: the aggregate's rate and device busy, and every listed
 * worker's rate and kernel busy, one value per frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

static struct ui_whist *whist_of(const struct ui *u, unsigned id)
{
	for (int i = 0; i < u->nwh; i++)
		if (u->wh[i]->id == id)
			return u->wh[i];
	return NULL;
}

const struct ui_whist *ui_whist_find(const struct ui *u, unsigned id)
{
	return whist_of(u, id);
}

/* A new history for worker id, aligned with the aggregate's before this frame's value. */
static struct ui_whist *whist_add(struct ui *u, unsigned id)
{
	if (u->nwh == u->capwh) {
		u->capwh = u->capwh ? 2 * u->capwh : 16;
		u->wh = xreallocarray(u->wh, (size_t)u->capwh, sizeof(struct ui_whist *));
	}
	struct ui_whist *h = xmalloc(sizeof(*h));
	h->id = id;
	for (int i = 0; i < CHART_HIST; i++)
		h->rate.v[i] = h->busy.v[i] = NAN;
	h->rate.n = h->busy.n = u->rate.n ? u->rate.n - 1 : 0;
	u->wh[u->nwh++] = h;
	return h;
}

/* Drops the histories of workers f no longer lists. */
static void whist_drop_unlisted(struct ui *u, const struct gd_frame *f)
{
	int k = 0;
	for (int i = 0; i < u->nwh; i++) {
		bool listed = false;
		for (int j = 0; j < f->nworkers && !listed; j++)
			listed = f->workers[j].id == u->wh[i]->id;
		if (listed)
			u->wh[k++] = u->wh[i];
		else
			free(u->wh[i]);
	}
	u->nwh = k;
}

void ui_history_push(struct ui *u, const struct gd_frame *f)
{
	chart_push(&u->rate, f->agg.rate);
	chart_push(&u->busy, f->device_busy);
	whist_drop_unlisted(u, f);
	for (int j = 0; j < f->nworkers; j++) {
		const struct gd_sample *w = &f->workers[j];
		struct ui_whist *h = whist_of(u, w->id);
		if (!h)
			h = whist_add(u, w->id);
		chart_push(&h->rate, w->rate);
		chart_push(&h->busy, w->kernel_busy);
	}
}

void ui_history_clear(struct ui *u)
{
	memset(&u->rate, 0, sizeof(u->rate));
	memset(&u->busy, 0, sizeof(u->busy));
	for (int i = 0; i < u->nwh; i++)
		free(u->wh[i]);
	u->nwh = 0;
}

void ui_history_free(struct ui *u)
{
	ui_history_clear(u);
	free(u->wh);
	u->wh = NULL;
	u->capwh = 0;
}

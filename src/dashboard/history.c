/* history.c: what the graphs draw: the aggregate's rate and device busy, and every listed
 * worker's rate and kernel busy, one value per frame. It keeps the graphs' part of struct ui. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

static struct ui_whist *whist_of(const struct ui_graphs *g, unsigned id)
{
	for (int i = 0; i < g->nwh; i++)
		if (g->wh[i]->id == id)
			return g->wh[i];
	return NULL;
}

const struct ui_whist *ui_whist_find(const struct ui *u, unsigned id)
{
	return whist_of(&u->graphs, id);
}

/* A new history for worker id, aligned with the aggregate's before this frame's value. */
static struct ui_whist *whist_add(struct ui_graphs *g, unsigned id)
{
	if (g->nwh == g->capwh) {
		g->capwh = g->capwh ? 2 * g->capwh : 16;
		g->wh = xreallocarray(g->wh, (size_t)g->capwh, sizeof(struct ui_whist *));
	}
	struct ui_whist *h = xmalloc(sizeof(*h));
	h->id = id;
	for (int i = 0; i < CHART_HIST; i++)
		h->rate.v[i] = h->busy.v[i] = NAN;
	h->rate.n = h->busy.n = g->rate.n ? g->rate.n - 1 : 0;
	g->wh[g->nwh++] = h;
	return h;
}

/* Drops the histories of workers f no longer lists. */
static void whist_drop_unlisted(struct ui_graphs *g, const struct gd_frame *f)
{
	int k = 0;
	for (int i = 0; i < g->nwh; i++) {
		bool listed = false;
		for (int j = 0; j < f->nworkers && !listed; j++)
			listed = f->workers[j].id == g->wh[i]->id;
		if (listed)
			g->wh[k++] = g->wh[i];
		else
			free(g->wh[i]);
	}
	g->nwh = k;
}

void ui_history_push(struct ui *u, const struct gd_frame *f)
{
	struct ui_graphs *g = &u->graphs;
	chart_push(&g->rate, f->agg.rate);
	chart_push(&g->busy, f->device_busy);
	whist_drop_unlisted(g, f);
	for (int j = 0; j < f->nworkers; j++) {
		const struct gd_sample *w = &f->workers[j];
		struct ui_whist *h = whist_of(g, w->id);
		if (!h)
			h = whist_add(g, w->id);
		chart_push(&h->rate, w->rate);
		chart_push(&h->busy, w->kernel_busy);
	}
}

void ui_history_clear(struct ui *u)
{
	struct ui_graphs *g = &u->graphs;
	memset(&g->rate, 0, sizeof(g->rate));
	memset(&g->busy, 0, sizeof(g->busy));
	for (int i = 0; i < g->nwh; i++)
		free(g->wh[i]);
	g->nwh = 0;
}

bool ui_measured(const struct ui *u)
{
	return u->graphs.rate.n > 0;
}

void ui_history_free(struct ui *u)
{
	ui_history_clear(u);
	free(u->graphs.wh);
	u->graphs.wh = NULL;
	u->graphs.capwh = 0;
}

/* history.c: what the graphs draw: the aggregate's rate and device busy, and every listed
 * worker's rate and kernel busy, one value per frame; and what the screen keeps of a worker
 * besides: its latest measured sample, its time a batch, when it ended. It keeps the graphs'
 * part of struct ui. */
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
	*h = (struct ui_whist){ .id = id };
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

bool ui_at_work(enum gd_state st)
{
	return st == GD_ST_RUNNING || st == GD_ST_STOPPING || st == GD_ST_STALLED;
}

/* What the screen keeps of worker w beyond its graphs, from the frame f. */
static void whist_note(struct ui_whist *h, const struct gd_frame *f, const struct gd_sample *w)
{
	if (ui_at_work(w->state)) {
		h->run_s += f->window_s;
		h->run_bats += w->win_batches;
		if (w->win_batches > 0) {
			h->last = *w;
			h->has_last = true;
		}
	}
	if ((w->state == GD_ST_EXITED || w->state == GD_ST_FAILED) && !h->ended)
		h->ended = now_ns();
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
		whist_note(h, f, w);
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

const struct gd_sample *ui_last_measured(const struct ui *u, const struct gd_sample *s)
{
	if (s->win_batches > 0 || !ui_at_work(s->state))
		return NULL;
	const struct ui_whist *h = whist_of(&u->graphs, s->id);
	return h && h->has_last ? &h->last : NULL;
}

/* The newest measured value of h, looking back at most a graph's worth; NAN: none. */
static double newest(const struct chart_hist *h)
{
	for (uint64_t k = 0; k < h->n && k < UI_GRAPH_MAXW; k++) {
		double v = h->v[(h->n - 1 - k) % CHART_HIST];
		if (!isnan(v))
			return v;
	}
	return NAN;
}

double ui_agg_last(const struct ui *u, const struct gd_frame *f, bool busy)
{
	bool working = false;
	for (int i = 0; i < f->nworkers && !working; i++)
		working = ui_at_work(f->workers[i].state);
	if (!working)
		return NAN; /* paused or ended: n/a is the answer, not a figure from before */
	return newest(busy ? &u->graphs.busy : &u->graphs.rate);
}

double ui_batch_s(const struct ui *u)
{
	double most = NAN;
	const struct gd_frame *f = session_frame(u->s);
	for (int i = 0; i < f->nworkers; i++) {
		const struct ui_whist *h = whist_of(&u->graphs, f->workers[i].id);
		if (!h || h->run_bats < 2 || !ui_at_work(f->workers[i].state))
			continue;
		double s = h->run_s / (double)h->run_bats;
		if (isnan(most) || s > most)
			most = s;
	}
	return most;
}

void ui_history_free(struct ui *u)
{
	ui_history_clear(u);
	free(u->graphs.wh);
	u->graphs.wh = NULL;
	u->graphs.capwh = 0;
}

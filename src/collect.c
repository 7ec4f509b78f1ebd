/* collect.c: one interval window of every worker's records -> struct gd_frame. */
#include "gputop/collect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/supervisor.h"

/* Per-worker statistics of [a, b); appends the worker's kernel intervals to iv. */
static void worker_sample(struct gd_slot *sl, int64_t a, int64_t b, struct gd_sample *out, struct gd_iv **iv,
                          size_t *niv, size_t *capiv)
{
	struct gd_batch_acc acc;
	memset(&acc, 0, sizeof(acc));
	int64_t busy = 0;
	size_t keep = 0;
	for (size_t i = 0; i < sl->npend; i++) {
		const struct gd_rec *r = &sl->pend[i];
		busy += stats_rec_busy(r, a, b);
		stats_rec_intervals(r, iv, niv, capiv);
		if (r->t_end >= b) { /* completes in a later window: keep it */
			sl->pend[keep++] = *r;
			continue;
		}
		/* The gap between batches is measured only between consecutive batches. */
		bool consecutive = sl->last_kend && r->batch == sl->last_batch + 1;
		stats_batch_add(&acc, r, consecutive ? sl->last_kend : 0);
		sl->last_kend = gd_rec_kernel_end(r);
		sl->last_batch = r->batch;
	}
	sl->npend = keep;

	double win = (double)(b - a) / 1e9;
	out->id = sl->id;
	out->pid = sl->pid;
	out->state = sl->state;
	out->win_batches = acc.n;
	out->mbit_s = (double)acc.symbols / win / 1e6;
	out->batches = sl->view.batches - sl->base_batches;
	out->symbols = sl->view.symbols - sl->base_symbols;
	out->kernel_busy = (double)busy / (double)(b - a);
	out->lost = sl->rd.lost + sl->late - sl->base_lost;
	stats_breakdown(&acc, &out->bd);
	str_copy(out->error, sizeof(out->error), sl->error);
}

void collect_window(struct gd_sup *s, int64_t t0, int64_t a, int64_t b, struct gd_frame *f)
{
	if (f->cap < s->nslots) {
		f->cap = s->nslots + 16;
		f->w = xreallocarray(f->w, (size_t)f->cap, sizeof(*f->w));
	}
	size_t niv = 0;
	double sum_busy = 0;
	bool mapped = true;

	struct gd_sample *agg = &f->agg;
	memset(agg, 0, sizeof(*agg));
	agg->state = GD_ST_RUNNING;
	f->n = 0;
	f->procs = 0;
	f->timebase = GD_TB_NONE;
	for (int i = 0; i < s->nslots; i++) {
		struct gd_slot *sl = &s->slots[i];
		struct gd_sample *w = &f->w[f->n++];
		size_t before = niv;
		worker_sample(sl, a, b, w, &f->iv, &niv, &f->capiv);
		f->procs += sl->alive;
		agg->mbit_s += w->mbit_s;
		agg->batches += w->batches;
		agg->symbols += w->symbols;
		agg->win_batches += w->win_batches;
		agg->lost += w->lost;
		sum_busy += w->kernel_busy;
		if (sl->view.timebase != GD_TB_NONE)
			f->timebase = sl->view.timebase;
		else if (niv > before)
			mapped = false;
	}
	f->t_s = (double)(b - t0) / 1e9;
	f->window_s = (double)(b - a) / 1e9;
	f->busy_from_sum = !mapped;
	if (mapped)
		f->device_busy = (double)stats_union(f->iv, niv, a, b) / (double)(b - a);
	else
		f->device_busy = sum_busy < 1 ? sum_busy : 1;
	f->headroom = f->device_busy > 0 ? agg->mbit_s / f->device_busy : NAN;
}

void collect_frame_free(struct gd_frame *f)
{
	free(f->w);
	free(f->iv);
	memset(f, 0, sizeof(*f));
}

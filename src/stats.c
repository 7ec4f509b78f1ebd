/* stats.c: interval unions, gaps and the batch breakdown (definitions: doc/fields.md). */
#include "gputop/stats.h"

#include <math.h>
#include <stdlib.h>

#include "gputop/common.h"

static int by_start(const void *x, const void *y)
{
	const struct gd_iv *a = x, *b = y;
	return (a->start > b->start) - (a->start < b->start);
}

static int64_t clip_len(int64_t s, int64_t e, int64_t a, int64_t b)
{
	if (s < a)
		s = a;
	if (e > b)
		e = b;
	return e > s ? e - s : 0;
}

int64_t stats_union(struct gd_iv *iv, size_t n, int64_t a, int64_t b)
{
	if (n == 0 || b <= a)
		return 0;
	qsort(iv, n, sizeof(*iv), by_start);
	int64_t total = 0, cs = iv[0].start, ce = iv[0].end;
	for (size_t i = 1; i < n; i++) {
		if (iv[i].start <= ce) { /* overlapping or touching: extend */
			if (iv[i].end > ce)
				ce = iv[i].end;
			continue;
		}
		total += clip_len(cs, ce, a, b);
		cs = iv[i].start;
		ce = iv[i].end;
	}
	return total + clip_len(cs, ce, a, b);
}

void stats_rec_intervals(const struct gd_rec *r, struct gd_iv **iv, size_t *n, size_t *cap)
{
	if (*n + r->nkiv > *cap) {
		*cap = (*n + r->nkiv) * 2 + 64;
		*iv = xreallocarray(*iv, *cap, sizeof(**iv));
	}
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t k[2];
		gd_rec_kiv(r, i, k);
		(*iv)[(*n)++] = (struct gd_iv){ k[0], k[1] };
	}
}

int64_t stats_rec_busy(const struct gd_rec *r, int64_t a, int64_t b)
{
	int64_t inside = 0, spans = 0;
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t k[2];
		gd_rec_kiv(r, i, k);
		inside += clip_len(k[0], k[1], a, b);
		spans += k[1] - k[0];
	}
	/* Groups span their gaps too, and a unit coarser than 1 ns widens each interval a little:
	 * scale to the exact busy time the worker measured. */
	if (!(r->flags & (GD_REC_GROUPED | GD_REC_SHIFT)) || spans <= 0)
		return inside;
	return (int64_t)((double)inside * (double)r->kbusy_ns / (double)spans);
}

bool stats_rec_profiled(const struct gd_rec *r)
{
	return (r->flags & GD_REC_DEVTIME) && !(r->flags & GD_REC_ESTIMATED);
}

void stats_batch_add(struct gd_batch_acc *acc, const struct gd_rec *r, int64_t prev_kend)
{
	int64_t gen = r->t_gen - r->t_begin;
	acc->n++;
	acc->symbols += gd_rec_items(r);
	acc->gen += gen;
	if (!(r->flags & GD_REC_DEVTIME))
		return; /* --profile off: the host's times only */
	int64_t h2d = r->h2d[1] - r->h2d[0];
	int64_t d2h = r->d2h[1] - r->d2h[0];
	int64_t kstart = gd_rec_kernel_start(r), kend = gd_rec_kernel_end(r);
	int64_t kern = r->nkiv ? kend - kstart : 0;
	acc->ndev++;
	acc->h2d += h2d;
	acc->kernel += kern;
	acc->d2h += d2h;
	acc->qwait += r->qwait_ns;
	acc->other += (r->t_end - r->t_begin) - gen - h2d - kern - d2h - r->qwait_ns;
	if (!stats_rec_profiled(r))
		return;       /* an estimate's gaps are another batch's */
	if (r->kernels > 1) { /* kgap_ns is exact even when intervals are grouped */
		acc->kgap_sum += r->kgap_ns;
		acc->kgap_n += r->kernels - 1;
	}
	if (prev_kend && r->nkiv) {
		acc->bgap_sum += kstart - prev_kend;
		acc->bgap_n++;
	}
}

static double mean_us(int64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n / 1e3 : NAN;
}

void stats_breakdown(const struct gd_batch_acc *acc, struct gd_breakdown *out)
{
	out->gen_us = mean_us(acc->gen, acc->n);
	out->h2d_us = mean_us(acc->h2d, acc->ndev);
	out->kernel_us = mean_us(acc->kernel, acc->ndev);
	out->d2h_us = mean_us(acc->d2h, acc->ndev);
	out->queue_wait_us = mean_us(acc->qwait, acc->ndev);
	out->other_us = mean_us(acc->other, acc->ndev);
	out->gap_kernel_us = mean_us(acc->kgap_sum, acc->kgap_n);
	out->gap_batch_us = mean_us(acc->bgap_sum, acc->bgap_n);
}

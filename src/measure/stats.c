/* stats.c: interval unions, gaps and the batch breakdown (definitions: doc/fields.md). */
#include "stats.h"

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

void stats_iv_add(struct gd_iv **iv, size_t *n, size_t *cap, const int64_t k[2])
{
	if (*n == *cap) {
		*cap = *cap * 2 + 64;
		*iv = xreallocarray(*iv, *cap, sizeof(**iv));
	}
	(*iv)[(*n)++] = (struct gd_iv){ k[0], k[1] };
}

void stats_rec_intervals(const struct gd_rec *r, struct gd_iv **iv, size_t *n, size_t *cap)
{
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t k[2];
		gd_rec_kiv(r, i, k);
		stats_iv_add(iv, n, cap, k);
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

int64_t stats_rec_transfer(const struct gd_rec *r, int64_t a, int64_t b)
{
	int64_t span = (r->h2d[1] - r->h2d[0]) + (r->d2h[1] - r->d2h[0]);
	int64_t inside = clip_len(r->h2d[0], r->h2d[1], a, b) + clip_len(r->d2h[0], r->d2h[1], a, b);
	if (span <= 0 || !r->xfer_ns || r->xfer_ns >= span) /* a worker's: one transfer a span */
		return inside;
	return (int64_t)((double)inside * (double)r->xfer_ns / (double)span);
}

int64_t stats_rec_copy(const struct gd_rec *r, int64_t a, int64_t b)
{
	int64_t span = r->copy[1] - r->copy[0], inside = clip_len(r->copy[0], r->copy[1], a, b);
	if (span <= 0 || r->copy_ns >= span)
		return inside;
	return (int64_t)((double)inside * (double)r->copy_ns / (double)span);
}

bool stats_rec_profiled(const struct gd_rec *r)
{
	return (r->flags & GD_REC_DEVTIME) && !(r->flags & GD_REC_ESTIMATED);
}

static int64_t nonneg(int64_t v)
{
	return v > 0 ? v : 0;
}

/* The excess of gap over the launch limit (none when there is no limit). */
static int64_t late(const struct gd_batch_acc *acc, int64_t gap)
{
	return acc->launch_limit > 0 ? nonneg(gap - acc->launch_limit) : 0;
}

/* The gaps between r's kernels, one count each, clipped at 0 (an in-order queue's kernels
 * never overlap; a device clock's step could make them seem to): exact from the intervals
 * when there is one per kernel in 1 ns units; otherwise (grouped, or coarser units) each gap
 * counts as the batch's mean gap, the only figure the record holds. Adds their sum and their
 * excess over the launch limit to acc. */
static void kernel_gaps(struct gd_batch_acc *acc, const struct gd_rec *r)
{
	uint64_t gaps = r->kernels - 1;
	acc->kgap_n += gaps;
	if ((r->flags & (GD_REC_GROUPED | GD_REC_SHIFT)) || r->nkiv != r->kernels) {
		int64_t mean = nonneg(r->kgap_ns) / (int64_t)gaps;
		stats_hist_add(&acc->kgap, mean, gaps);
		acc->kgap_sum += nonneg(r->kgap_ns);
		acc->klate_sum += late(acc, mean) * (int64_t)gaps;
		return;
	}
	int64_t prev[2], cur[2];
	gd_rec_kiv(r, 0, prev);
	for (uint32_t i = 1; i < r->nkiv; i++) {
		gd_rec_kiv(r, i, cur);
		int64_t gap = nonneg(cur[0] - prev[1]);
		stats_hist_add(&acc->kgap, gap, 1);
		acc->kgap_sum += gap;
		acc->klate_sum += late(acc, gap);
		prev[1] = cur[1];
	}
}

void stats_batch_add(struct gd_batch_acc *acc, const struct gd_rec *r, int64_t prev_kend)
{
	int64_t gen = nonneg(r->t_gen - r->t_begin);
	acc->n++;
	acc->items += gd_rec_items(r);
	acc->gen += gen;
	if (!stats_rec_profiled(r))
		return; /* --profile off: the host's times only; an estimate's are another batch's */
	int64_t h2d = nonneg(r->h2d[1] - r->h2d[0]);
	int64_t d2h = nonneg(r->d2h[1] - r->d2h[0]);
	int64_t qwait = nonneg(r->qwait_ns), copy = nonneg(r->copy_ns);
	int64_t kstart = gd_rec_kernel_start(r), kend = gd_rec_kernel_end(r);
	int64_t kern = r->nkiv ? nonneg(kend - kstart) : 0;
	acc->ndev++;
	acc->h2d += h2d;
	acc->kernel += kern;
	acc->d2h += d2h;
	acc->qwait += qwait;
	acc->copy += copy;
	/* The rest of the wall time; phases that overlap (generation on another thread, copies
	 * beside kernels) leave less than nothing: that excess is their overlap, not "other". */
	int64_t rest = (r->t_end - r->t_begin) - gen - h2d - kern - d2h - qwait - copy;
	acc->other += nonneg(rest);
	acc->overlap += nonneg(-rest);
	if (r->kernels > 1)
		kernel_gaps(acc, r);
	if (prev_kend && r->nkiv) { /* idle since the earlier batches' work, or overlap with it */
		acc->bgap_sum += nonneg(kstart - prev_kend);
		acc->bover_sum += nonneg(prev_kend - kstart);
		acc->bgap_n++;
		stats_hist_add(&acc->bgap, nonneg(kstart - prev_kend), 1);
	}
}

void stats_batch_merge(struct gd_batch_acc *into, const struct gd_batch_acc *from)
{
	into->n += from->n;
	into->items += from->items;
	into->gen += from->gen;
	into->ndev += from->ndev;
	into->h2d += from->h2d;
	into->kernel += from->kernel;
	into->d2h += from->d2h;
	into->qwait += from->qwait;
	into->copy += from->copy;
	into->other += from->other;
	into->overlap += from->overlap;
	into->kgap_sum += from->kgap_sum;
	into->kgap_n += from->kgap_n;
	into->klate_sum += from->klate_sum;
	into->bgap_sum += from->bgap_sum;
	into->bover_sum += from->bover_sum;
	into->bgap_n += from->bgap_n;
	stats_hist_merge(&into->kgap, &from->kgap);
	stats_hist_merge(&into->bgap, &from->bgap);
}

/* ---- log2 histogram ---- */

/* Bits of x >= 1: 1 for 1, 2 for 2..3, ..., at most GD_HIST_HALF - 1. */
static unsigned log2_bucket(uint64_t x)
{
	unsigned k = 64u - (unsigned)__builtin_clzll(x);
	return k < GD_HIST_HALF ? k : GD_HIST_HALF - 1;
}

unsigned stats_hist_bucket(int64_t v)
{
	if (v >= 0)
		return GD_HIST_HALF + (v ? log2_bucket((uint64_t)v) : 0);
	return GD_HIST_HALF - log2_bucket((uint64_t)0 - (uint64_t)v);
}

/* The unit tests check every bucket with it; nothing else needs it. */
/* cppcheck-suppress unusedFunction */
void stats_hist_edges(unsigned b, double *lo, double *hi)
{
	if (b >= GD_HIST_HALF) {
		unsigned k = b - GD_HIST_HALF;
		*lo = k ? ldexp(1, (int)k - 1) : 0;
		*hi = ldexp(1, (int)k);
		return;
	}
	unsigned k = GD_HIST_HALF - b; /* v in (-2^k, -2^(k-1)]: integers [1 - 2^k, 1 - 2^(k-1)) */
	*lo = 1 - ldexp(1, (int)k);
	*hi = 1 - ldexp(1, (int)k - 1);
}

const int64_t stats_hist_bounds[GD_HIST_BOUNDS] = {
	1000,    2500,    5000,     10000,    25000,    50000,     100000,    250000,    500000,     1000000,
	2500000, 5000000, 10000000, 25000000, 50000000, 100000000, 250000000, 500000000, 1000000000,
};

/* The fixed bound v counts under: the first it does not exceed, or GD_HIST_BOUNDS. */
static unsigned bound_of(int64_t v)
{
	unsigned i = 0;
	while (i < GD_HIST_BOUNDS && v > stats_hist_bounds[i])
		i++;
	return i;
}

/* Counts times values from lo to hi (lo == hi for one value) in bucket b. */
static void hist_put(struct gd_hist *h, unsigned b, int64_t lo, int64_t hi, uint64_t times)
{
	if (!h->n || lo < h->min)
		h->min = lo;
	if (!h->n || hi > h->max)
		h->max = hi;
	if (!h->count[b] || lo < h->lo[b])
		h->lo[b] = lo;
	if (!h->count[b] || hi > h->hi[b])
		h->hi[b] = hi;
	h->n += times;
	h->count[b] += times;
}

void stats_hist_add(struct gd_hist *h, int64_t v, uint64_t times)
{
	if (!times)
		return;
	hist_put(h, stats_hist_bucket(v), v, v, times);
	h->le[bound_of(v)] += times;
}

void stats_hist_merge(struct gd_hist *into, const struct gd_hist *from)
{
	for (unsigned b = 0; b < 2 * GD_HIST_HALF; b++)
		if (from->count[b])
			hist_put(into, b, from->lo[b], from->hi[b], from->count[b]);
	for (unsigned i = 0; i <= GD_HIST_BOUNDS; i++)
		into->le[i] += from->le[i];
}

double stats_hist_percentile(const struct gd_hist *h, double p)
{
	if (!h->n || !(p > 0))
		return NAN;
	double want = ceil(p * (double)h->n - 1e-9); /* nearest rank, 1-based */
	uint64_t rank = want < 1 ? 1 : want > (double)h->n ? h->n : (uint64_t)want, below = 0;
	unsigned b = 0;
	while (below + h->count[b] < rank)
		below += h->count[b++];
	uint64_t c = h->count[b], j = rank - below; /* the j-th of the bucket's c values */
	double lo = (double)h->lo[b], hi = (double)h->hi[b];
	return c > 1 ? lo + (hi - lo) * (double)(j - 1) / (double)(c - 1) : lo;
}

/* ---- the batch breakdown ---- */

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
	out->copy_us = mean_us(acc->copy, acc->ndev);
	out->other_us = mean_us(acc->other, acc->ndev);
	out->overlap_us = mean_us(acc->overlap, acc->ndev);
	out->gap_kernel_us = mean_us(acc->kgap_sum, acc->kgap_n);
	out->launch_gap_us = mean_us(acc->kgap_sum - acc->klate_sum, acc->ndev);
	out->late_gap_us = mean_us(acc->klate_sum, acc->ndev);
	out->gap_batch_us = mean_us(acc->bgap_sum, acc->bgap_n);
	out->batch_overlap_us = mean_us(acc->bover_sum, acc->bgap_n);
	out->gap_kernel_p50_us = stats_hist_percentile(&acc->kgap, 0.50) / 1e3;
	out->gap_kernel_p99_us = stats_hist_percentile(&acc->kgap, 0.99) / 1e3;
	out->gap_batch_p50_us = stats_hist_percentile(&acc->bgap, 0.50) / 1e3;
	out->gap_batch_p99_us = stats_hist_percentile(&acc->bgap, 0.99) / 1e3;
}

/* ---- spread over repeated runs ---- */

void stats_spread(const double *v, int n, struct gd_spread *out)
{
	double sum = 0, sq = 0;
	*out = (struct gd_spread){ .mean = NAN, .min = NAN, .max = NAN, .sd = NAN };
	for (int i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (!out->n || v[i] < out->min)
			out->min = v[i];
		if (!out->n || v[i] > out->max)
			out->max = v[i];
		sum += v[i];
		out->n++;
	}
	if (!out->n)
		return;
	out->mean = sum / out->n;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			sq += (v[i] - out->mean) * (v[i] - out->mean);
	if (out->n > 1)
		out->sd = sqrt(sq / (out->n - 1));
}

bool stats_within_spread(const struct gd_spread *a, const struct gd_spread *b)
{
	if (!a->n || !b->n)
		return false;
	double ra = a->max - a->min, rb = b->max - b->min, wide = ra > rb ? ra : rb;
	return fabs(a->mean - b->mean) < wide;
}

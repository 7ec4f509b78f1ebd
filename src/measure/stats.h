/* stats.h: pure arithmetic of the samples: interval unions clipped to a window, gaps and the
 * batch breakdown. No I/O, no clocks: tests call it with synthetic records. */
#ifndef GPUTOP_STATS_H
#define GPUTOP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gputop/frame.h"
#include "gputop/wire.h"

struct gd_iv {
	int64_t start, end; /* [start, end), ns */
};

/* Length of the union of iv[0..n) clipped to [a, b). Sorts iv in place. */
int64_t stats_union(struct gd_iv *iv, size_t n, int64_t a, int64_t b);
/* Appends the record's kernel intervals to *iv (grown as needed). */
void stats_rec_intervals(const struct gd_rec *r, struct gd_iv **iv, size_t *n, size_t *cap);
/* Appends the interval [k[0], k[1]) to *iv, as stats_rec_intervals does a record's. */
void stats_iv_add(struct gd_iv **iv, size_t *n, size_t *cap, const int64_t k[2]);
/* Device execution time of the record's kernels inside [a, b): exact for one interval per
 * kernel in 1 ns units; grouped records, and those in coarser units (batches of more than
 * 4.29 s), are scaled by their true busy time over the intervals' spans. */
int64_t stats_rec_busy(const struct gd_rec *r, int64_t a, int64_t b);
/* The time within [a, b) that r's transfers to and from the host ran, and that its copies and
 * fills on the device ran: their spans, scaled to their summed time where the record has it. */
int64_t stats_rec_transfer(const struct gd_rec *r, int64_t a, int64_t b);
int64_t stats_rec_copy(const struct gd_rec *r, int64_t a, int64_t b);

/* A log2 histogram of durations in ns, for percentiles of gaps. Values >= 0 go to buckets
 * GD_HIST_HALF + k: k = 0 holds [0, 1), k >= 1 holds [2^(k-1), 2^k). A negative value v (batches
 * that overlap) mirrors -v: bucket GD_HIST_HALF - k holds (-2^k, -2^(k-1)]; bucket 0 is not used.
 * Bucket index order is value order. Each bucket keeps its least and greatest value, so a
 * bucket of one distinct value gives it exactly. */
#define GD_HIST_HALF 64
struct gd_hist {
	uint64_t n;
	int64_t min, max; /* over every bucket; meaningful when n > 0 */
	uint64_t count[2 * GD_HIST_HALF];
	int64_t lo[2 * GD_HIST_HALF], hi[2 * GD_HIST_HALF]; /* least and greatest value in each */
	uint64_t le[GD_HIST_BOUNDS + 1];
};
/* The bucket of v, and the value range [lo, hi) bucket b covers (doubles: 2^63 does not fit). */
unsigned stats_hist_bucket(int64_t v);
void stats_hist_edges(unsigned b, double *lo, double *hi);
/* Adds v, times times. */
void stats_hist_add(struct gd_hist *h, int64_t v, uint64_t times);
void stats_hist_merge(struct gd_hist *into, const struct gd_hist *from);
/* The p-quantile (0 < p <= 1) by nearest rank: in the rank's bucket, interpolated linearly by
 * rank between the bucket's least and greatest value; NAN when h is empty. Monotonic in p. */
double stats_hist_percentile(const struct gd_hist *h, double p);

/* Running means over the batches of one window. Every sum is of durations >= 0: where the
 * phases of a batch overlap, or its kernels start before the worker's earlier ones ended,
 * the excess goes to a sum of its own (overlap, bover) instead of a negative duration. */
struct gd_batch_acc {
	uint64_t n; /* batches */
	uint64_t items;
	int64_t gen;                                  /* sum over every batch, ns */
	uint64_t ndev;                                /* batches with measured device times */
	int64_t h2d, kernel, d2h, qwait, copy, other; /* sums over those, ns */
	int64_t overlap;  /* sum over those of max(0, the phases - the wall time) */
	int64_t kgap_sum; /* max(0, START(k+1) - END(k)) within profiled batches */
	uint64_t kgap_n;
	int64_t launch_limit; /* set by the caller: a gap's launch cost at most, ns;
	                       * 0: every gap is launch cost (not calibrated) */
	int64_t klate_sum;    /* the gaps' excess over launch_limit: the host late */
	int64_t bgap_sum;     /* max(0, START(first kernel, b) - the latest END of earlier batches) */
	int64_t bover_sum;    /* max(0, the latest END of earlier batches - START(first kernel, b)) */
	uint64_t bgap_n;
	struct gd_hist kgap, bgap; /* the same gaps (>= 0), one count each */
};

/* True when r's device times were measured, not estimated. */
bool stats_rec_profiled(const struct gd_rec *r);
/* Adds one batch. prev_kend is the latest kernel END of the worker's earlier batches (the
 * caller's run of consecutive profiled batches), or 0 when the previous batch was not seen or
 * not profiled (the gap between batches is then not measured). */
void stats_batch_add(struct gd_batch_acc *acc, const struct gd_rec *r, int64_t prev_kend);
/* Adds the batches of from to into: the aggregate of several workers. */
void stats_batch_merge(struct gd_batch_acc *into, const struct gd_batch_acc *from);

void stats_breakdown(const struct gd_batch_acc *acc, struct gd_breakdown *out);

/* Mean, min, max and sample standard deviation of the numbers among v[0..n) (NANs skipped). */
void stats_spread(const double *v, int n, struct gd_spread *out);
/* Whether a and b differ by less than their spread: |mean a - mean b| < the wider of their
 * ranges (max - min). False when either has no numbers, or neither has a range (one run). */
bool stats_within_spread(const struct gd_spread *a, const struct gd_spread *b);

#endif

/* stats.h: pure arithmetic of the samples: interval unions clipped to a window, gaps and the
 * batch breakdown. No I/O, no clocks: tests call it with synthetic records. */
#ifndef GPUTOP_STATS_H
#define GPUTOP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gputop/ring.h"

struct gd_iv {
	int64_t start, end; /* [start, end), ns */
};

/* Length of the union of iv[0..n) clipped to [a, b). Sorts iv in place. */
int64_t stats_union(struct gd_iv *iv, size_t n, int64_t a, int64_t b);
/* Appends the record's kernel intervals to *iv (grown as needed). */
void stats_rec_intervals(const struct gd_rec *r, struct gd_iv **iv, size_t *n, size_t *cap);
/* Device execution time of the record's kernels inside [a, b): exact for one interval per
 * kernel in 1 ns units; grouped records, and those in coarser units (batches of more than
 * 4.29 s), are scaled by their true busy time over the intervals' spans. */
int64_t stats_rec_busy(const struct gd_rec *r, int64_t a, int64_t b);

/* Running means over the batches of one window. */
struct gd_batch_acc {
	uint64_t n; /* batches */
	uint64_t symbols;
	int64_t gen;                            /* sum over every batch, ns */
	uint64_t ndev;                          /* batches with device times */
	int64_t h2d, kernel, d2h, qwait, other; /* sums over those, ns */
	int64_t kgap_sum;                       /* START(k+1) - END(k) within profiled batches */
	uint64_t kgap_n;
	int64_t bgap_sum; /* START(first kernel, b+1) - END(last kernel, b) */
	uint64_t bgap_n;
};

/* True when r's device times were measured, not estimated. */
bool stats_rec_profiled(const struct gd_rec *r);
/* Adds one batch. prev_kend is the last kernel END of the worker's previous batch, or 0 when
 * that batch was not seen or not profiled (the gap between batches is then not measured). */
void stats_batch_add(struct gd_batch_acc *acc, const struct gd_rec *r, int64_t prev_kend);

struct gd_breakdown {
	double gen_us;                      /* mean; NAN without batches */
	double h2d_us, kernel_us, d2h_us;   /* means; NAN without device times */
	double queue_wait_us, other_us;     /* means; NAN without device times */
	double gap_kernel_us, gap_batch_us; /* means; NAN when not measured */
};
void stats_breakdown(const struct gd_batch_acc *acc, struct gd_breakdown *out);

#endif

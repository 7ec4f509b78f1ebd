/* collect_count.c: the collector's counters that never reset (struct gd_counters): the
 * workers' and devices' totals, the phase and gap sums, and the kernel time of windows already
 * reported that in-flight runs and late records bring (collect_impl.h). */
#include <math.h>
#include <string.h>

#include "collect_impl.h"
#include "gputop/common.h"

/* Counters at the start: 0, and the device-time ones not a number when nothing measures
 * device times (--profile off), so that they are never exported as a false 0. */
void collect_counters_init(struct gd_counters *t, bool profiled)
{
	memset(t, 0, sizeof(*t));
	t->kernel_s = t->busy_s = t->transfer_s = t->copy_s = profiled ? 0 : NAN;
	for (int p = 0; p < GD_PHASE_COUNT; p++)
		t->phase_s[p] = p == GD_PHASE_GEN || profiled ? 0 : NAN;
}

/* How much of [s, e) the in-flight runs counted already cover. */
static int64_t counted_of(const struct col_worker *cw, int64_t s, int64_t e)
{
	int64_t in = 0;
	for (int i = 0; i < 4; i++) {
		int64_t x = cw->counted[i][0] > s ? cw->counted[i][0] : s;
		int64_t y = cw->counted[i][1] < e ? cw->counted[i][1] : e;
		in += y > x ? y - x : 0;
	}
	return in;
}

/* In-flight time [s, e) counted in a window: joins the run it continues, else the oldest
 * slot's place. */
void collect_counted_add(struct col_worker *cw, int64_t s, int64_t e)
{
	int oldest = 0;
	for (int i = 0; i < 4; i++) {
		if (cw->counted[i][1] == s && cw->counted[i][0]) {
			cw->counted[i][1] = e;
			return;
		}
		oldest = cw->counted[i][1] < cw->counted[oldest][1] ? i : oldest;
	}
	cw->counted[oldest][0] = s;
	cw->counted[oldest][1] = e;
}

/* A record's kernel time before start (the windows reported): what no window counted, less
 * what in-flight runs did, goes to the totals (never to a reported window). */
void collect_late_kernels(struct col_worker *cw, const struct gd_rec *r, int64_t start)
{
	int64_t before = stats_rec_busy(r, INT64_MIN, start);
	if (before <= 0)
		return;
	int64_t seen = 0;
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t k[2];
		gd_rec_kiv(r, i, k);
		seen += counted_of(cw, k[0], k[1] < start ? k[1] : start);
	}
	cw->late_ns += before > seen ? before - seen : 0;
}

/* The supervisor's counts into the worker's counters, and what they grew by into its device's
 * (which so keeps a worker's counts after it is forgotten). The counts only grow; one seen
 * lower than before is taken as it was. */
void collect_count_totals(struct gd_collector *c, struct col_worker *cw, const struct gd_row_info *info)
{
	struct gd_counters *t = &cw->tot, *d = &c->devtot[dev_of(c, info)];
	const uint64_t now[3] = { info->batches, info->items, info->lost + cw->late };
	uint64_t *const mine[3] = { &t->batches, &t->items, &t->lost };
	uint64_t *const dev[3] = { &d->batches, &d->items, &d->lost };
	for (int i = 0; i < 3; i++)
		if (now[i] > *mine[i]) {
			*dev[i] += now[i] - *mine[i];
			*mine[i] = now[i];
		}
}

static void gaps_add(struct gd_gaps *g, const struct gd_hist *h, int64_t sum_ns)
{
	g->n += h->n;
	g->sum_ns += sum_ns;
	for (int i = 0; i <= GD_HIST_BOUNDS; i++)
		g->le[i] += h->le[i];
}

/* The window's figures of a worker into its counters: its busy time where kernel_busy was
 * measured, each batch's measured phase times (not a window's mean: an exact sum, which
 * phase_batches divides), the gaps. */
void collect_count_window(struct col_worker *cw, const struct gd_batch_acc *acc, int64_t busy,
                          const int64_t done[2], const struct gd_sample *s)
{
	struct gd_counters *t = &cw->tot;
	/* Kernels: the window's union, a kernel under way counted as it runs, and what records
	 * brought of windows reported before they came (collect_late_kernels). Transfers, copies and
	 * fills: each batch's own summed times as it completes (exact, whenever they ran). */
	double *const secs[] = { &t->kernel_s, &t->transfer_s, &t->copy_s };
	const double add[] = { (double)(busy + cw->late_ns) / 1e9, (double)(done[0] + cw->late_done[0]) / 1e9,
		               (double)(done[1] + cw->late_done[1]) / 1e9 };
	cw->late_ns = cw->late_done[0] = cw->late_done[1] = 0;
	const double share[] = { s->kernel_busy, s->transfer_busy, s->copy_busy };
	for (size_t i = 0; i < GD_ARRAY_LEN(secs); i++)
		if (!isnan(share[i])) /* a queue the program profiles is read under --profile off too */
			*secs[i] = (isnan(*secs[i]) ? 0 : *secs[i]) + add[i];
	/* Generation is the host's, timed for every batch; the device's phases for the acc->ndev
	 * batches profiled (an estimated batch's are another batch's, so they do not count). */
	const int64_t ns[GD_PHASE_COUNT] = {
		[GD_PHASE_GEN] = acc->gen,          [GD_PHASE_H2D] = acc->h2d,
		[GD_PHASE_KERNEL] = acc->kernel,    [GD_PHASE_D2H] = acc->d2h,
		[GD_PHASE_QUEUE_WAIT] = acc->qwait, [GD_PHASE_COPY] = acc->copy,
		[GD_PHASE_OTHER] = acc->other,
	};
	for (int p = 0; p < GD_PHASE_COUNT; p++)
		if (!isnan(t->phase_s[p])) /* NAN: not measured in this run (--profile off) */
			t->phase_s[p] += (double)ns[p] / 1e9;
	t->phase_batches += acc->ndev;
	gaps_add(&t->kgap, &acc->kgap, acc->kgap_sum);
	gaps_add(&t->bgap, &acc->bgap, acc->bgap_sum);
	t->bover_ns += acc->bover_sum;
}

/* The devices' counters into the frame; the overall one holds their sums (busy: device
 * seconds). */
void collect_frame_counters(const struct gd_collector *c, struct gd_frame *f)
{
	collect_counters_init(&f->agg.tot, c->profiled);
	for (int d = 0; d < c->ndev; d++) {
		const struct gd_counters *t = &c->devtot[d];
		f->devs[d].agg.tot = *t;
		f->agg.tot.batches += t->batches;
		f->agg.tot.items += t->items;
		f->agg.tot.lost += t->lost;
		f->agg.tot.busy_s += t->busy_s;
	}
}

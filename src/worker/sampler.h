/* sampler.h (private to the worker side): which batches a worker profiles, what profiling
 * costs, and the estimate that stands in for a batch that was not profiled. Pure logic: no
 * OpenCL, no clocks.
 *
 * Under --profile sampled a round of consecutive batches is profiled every `every` batches, and
 * the others run with no profiling queue in the context at all (the worker creates the lanes'
 * profiling queues for a round and releases them when it is over: an idle profiling queue beside
 * a plain one cost 4-5% of the device on the H200, doc/PERFORMANCE.md). A round is long enough to
 * hold the real overlap of the lanes: `inflight` batches at each edge, whose neighbours outside
 * the round were not profiled, and a middle in which every kernel of the worker running belongs
 * to a profiled batch. Completions come in the order batches began, so every batch before the
 * round has completed before the middle's first batch begins, and none after it begins before
 * the middle's last has completed.
 *
 * From the middle of each round: the device time a batch accounts for (its kernels' own time,
 * the mean over the middle, times the share of the round's kernel time the device spent on the
 * worker's kernels alone: the union over the sum over the middle's span, which keeps the lanes'
 * overlap and leaves out the gaps between a batch's kernels that the other lanes did not fill),
 * how long before the host saw its kernels end they ended, and a template (the middle's last
 * batch). An unprofiled batch's record gets the template's device work: its kernels laid end to
 * end over that device time (an estimate stands alone on the worker's timeline, so a gap inside
 * it would be idle time the device never had), placed right after the worker's earlier kernels
 * (estimated or measured) when it was queued before they ended (a device with work waiting does
 * not idle), else to end as long before the host saw it end; never before it was enqueued, never
 * over the worker's earlier kernels, never after the host saw it end (when that leaves less time
 * than its work, the device was busy throughout: one interval covers it); the record says so
 * (GD_REC_ESTIMATED). So the union of a worker's estimates is its measured device time per
 * batch times its batches, no more than the time there was. Profiling lengthens kernels, never
 * shortens them, so this never falls below what the unprofiled batches really took.
 *
 * The observer's share is measured as an A/B inside the run: the mean time between completions
 * over all batches against the mean over clean ones, those begun `inflight` batches or more
 * after a round and before the next, which ran as under --profile off. `every` doubles while the
 * share is above SAMPLER_COST_MAX and halves while it is far below. */
#ifndef GPUTOP_SAMPLER_H
#define GPUTOP_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "gputop/wire.h"
#include "gputop/spec.h"

#define SAMPLER_RUN       2u  /* the least middle of a round: the gap between two is measured */
#define SAMPLER_EVERY0    16u /* the first period, when a round fits it */
#define SAMPLER_EVERY_MAX GD_SAMPLE_MAX
#define SAMPLER_COST_MAX  0.02 /* the observer's share of the batches' time at most */

struct gd_sampler {
	enum gd_profile policy;
	bool adaptive;
	uint32_t lanes;    /* in-order queues the batches are spread over */
	uint32_t inflight; /* batches in flight at most */
	uint32_t round;    /* batches in a round: 2 x inflight + the middle */
	uint32_t every;    /* a round starts every `every` batches */
	uint64_t begun, done;
	int64_t last_end;          /* host completion of the previous batch; 0: none yet */
	double sum_all, sum_clean; /* completion intervals, ns */
	uint64_t n_all, n_clean;
	double share;   /* the latest measured observer share; negative: not measured yet */
	int64_t cursor; /* the last kernel END of the worker's records so far */
	/* The round being measured: its records, in the order they began. */
	struct gd_rec *rec;
	uint32_t nrec;
	/* The latest round's answer. */
	bool have_tmpl;
	struct gd_rec tmpl; /* the middle's last batch: the shape of a batch's device work */
	int64_t kbusy, lag; /* the middle's means: kernel time (END - START summed); last END to t_end */
	double squeeze;     /* of the kernel time of batches, the share the device spent on them alone */
};

/* every: the fixed period of --sample-every (raised to twice a round), or 0 to adapt; lanes:
 * the worker's queues; inflight: the batches it keeps in flight at most. */
void sampler_init(struct gd_sampler *s, enum gd_profile policy, uint32_t every, uint32_t lanes,
                  uint32_t inflight);
void sampler_free(struct gd_sampler *s);
/* Whether the next batch begun is profiled. */
bool sampler_begin(struct gd_sampler *s);
/* Fills the device times of r, an unprofiled batch whose host times are set and whose first
 * command was enqueued at t_enq, from the latest round. False (r unchanged) when there is no
 * round yet or profiling is not sampled. */
bool sampler_estimate(struct gd_sampler *s, struct gd_rec *r, int64_t t_enq);
/* A batch completed (batches complete in the order they began): r is its record, measured when
 * profiled, else estimated or host times only. True when it ended a round: the worker may
 * release its profiling queues. */
bool sampler_done(struct gd_sampler *s, const struct gd_rec *r, bool profiled);

#endif

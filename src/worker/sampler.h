/* sampler.h (private to the worker side): which batches a worker profiles, what profiling
 * costs, and the estimate that stands in for a batch that was not profiled. Pure logic: no
 * OpenCL, no clocks.
 *
 * Under --profile sampled a run of SAMPLER_RUN consecutive batches is profiled (an event with
 * profiling on every command, on a profiling queue) every `every` batches; the others run on a
 * queue without profiling. The observer's share is measured, not assumed: the mean time between
 * completions over all batches against the mean over "clean" ones, those completed well after
 * the latest profiled batch (the switch between queues costs too, and lands on the batches
 * that follow). `every` doubles while that share is above SAMPLER_COST_MAX and halves while it
 * is far below. An unprofiled batch's record gets the device times of the latest profiled
 * batch, placed where this batch ended on the host and after the batch ahead of it in its
 * queue, and fitted into the time between the two; the record says so (GD_REC_ESTIMATED). */
#ifndef GPUTOP_SAMPLER_H
#define GPUTOP_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "gputop/wire.h"
#include "gputop/spec.h"

#define SAMPLER_RUN       2u  /* consecutive profiled batches: the gap between them is measured */
#define SAMPLER_EVERY0    16u /* the first period */
#define SAMPLER_EVERY_MAX 4096u
#define SAMPLER_COST_MAX  0.02 /* the observer's share of the batches' time at most */

struct gd_sampler {
	enum gd_profile policy;
	bool adaptive;
	uint32_t lanes;            /* in-order queues the batches are spread over */
	uint32_t every;            /* a run of SAMPLER_RUN profiled batches starts every `every` batches */
	uint64_t begun;            /* batches begun */
	int64_t last_end;          /* host completion of the previous batch; 0: none yet */
	uint32_t since_prof;       /* completions since the latest profiled one */
	double sum_all, sum_clean; /* completion intervals, ns */
	uint64_t n_all, n_clean;
	double share; /* the latest measured observer share; negative: not measured yet */
	bool have_tmpl;
	struct gd_rec tmpl; /* the latest profiled batch */
};

/* every: the fixed period of --sample-every, or 0 to adapt; lanes: the worker's queues. */
void sampler_init(struct gd_sampler *s, enum gd_profile policy, uint32_t every, uint32_t lanes);
/* Whether the next batch begun is profiled. */
bool sampler_begin(struct gd_sampler *s);
/* A batch completed on the host at t_end (completions come in the order batches began). */
void sampler_done(struct gd_sampler *s, bool profiled, int64_t t_end);
/* Keeps r (a profiled batch's record) as the template of estimates. */
void sampler_keep(struct gd_sampler *s, const struct gd_rec *r);
/* Fills the device times of r, an unprofiled batch whose host times are set, from the
 * template; its kernels start no earlier than not_before (the last kernel END of the batch
 * ahead of it in its queue; 0: none). False (r unchanged) when there is no template yet or
 * profiling is off. */
bool sampler_estimate(const struct gd_sampler *s, struct gd_rec *r, int64_t not_before);

#endif

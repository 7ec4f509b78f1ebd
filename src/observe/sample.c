/* sample.c: which batches of an observed program are profiled under --profile sampled: slices of
 * time, not a count of batches, so that a program of a few batches, one whose first batch differs
 * (a warm-up) or one of a thousand launches a batch is measured as it runs.
 *
 * What profiling costs is the events the library adds to the commands, not the profiling
 * property on the queues (on the H200 an event on every back-to-back launch took it from 5.5 to
 * 14 us; CL_QUEUE_PROFILING_ENABLE alone cost nothing measurable: doc/observe.md). Part of that
 * is in the calls that carry an event, part in the runtime after them (its completion, the wait).
 * So the sampler measures both, as the workers do: the mean time of the calls that carry an added
 * event against those that carry none, times the events added; and, over whole batches, the mean
 * time from a batch's end to the next one's end for profiled batches against clean ones (a queue
 * profiled OBS_RUN_MAX batches in a row gets a clean one, so the clean mean exists), beyond what
 * the calls said. Their sum is what profiling has spent; a slice of OBS_SLICE_NS starts (at the
 * first command, then whenever a batch opens) only while that stays within OBS_BUDGET of the time
 * since the first command. A program of few, long batches is profiled throughout; one of
 * thousands of short launches a second, or one whose batches profiling slows, in a slice now and
 * then.
 *
 * --sample-every N fixes the period instead: one batch in N of every queue, its first two
 * included, the rest estimated; on a queue the program profiles itself too, so that the estimate
 * can be held against the program's own times of the batches it stood in for. Everything here
 * runs under obs.mu. */
#include "recorder.h"

#define EWMA 0.05 /* weight of one call, or one batch, in the means */

static void ewma(double *m, double v)
{
	*m = *m ? (1 - EWMA) * *m + EWMA * v : v;
}

/* Whether oq's batches are sampled: its profiling is the library's, or, with --sample-every, the
 * program's own too (one batch in N of it read, the rest estimated: the estimate beside the
 * program's own times). */
static bool sampled(const struct obs_queue *oq)
{
	return obs.policy == GD_PROF_SAMPLED && (oq->hidden || (oq->own && obs.smp.every));
}

bool obs_sample_batch(struct obs_queue *oq, int64_t now)
{
	struct obs_sampler *s = &obs.smp;
	if (!s->t0)
		s->t0 = now;
	s->batches++;
	oq->opened++;
	bool profiled = oq->own || (oq->hidden && obs.policy == GD_PROF_FULL);
	if (sampled(oq) && s->every) {
		/* The first two (the first, often a warm-up, sets no rate for long: obs_rates), then
		 * one in every. */
		profiled = oq->opened <= 2 || (oq->opened - 1) % s->every == 0;
	} else if (sampled(oq)) {
		if (now >= s->slice_end && s->spent_ns <= OBS_BUDGET * (double)(now - s->t0))
			s->slice_end = now + OBS_SLICE_NS;
		profiled = now < s->slice_end && oq->run < OBS_RUN_MAX;
	}
	s->profiled += profiled;
	oq->run = profiled ? oq->run + 1 : 0;
	return profiled;
}

void obs_sample_call(bool with, int64_t call_ns)
{
	ewma(&obs.smp.call_ns[with], (double)call_ns);
}

/* What an added event costs in its call: what a call carrying one takes beyond a call without
 * one; before any call without one is timed, all of it (the sampler then errs towards profiling
 * less). */
static double call_cost(void)
{
	const double *m = obs.smp.call_ns;
	return m[0] ? (m[1] > m[0] ? m[1] - m[0] : 0) : m[1];
}

void obs_sample_added(struct obs_queue *oq)
{
	obs.smp.spent_ns += call_cost();
	oq->added++;
}

void obs_sample_closed(const struct obs_queue *oq, int64_t end)
{
	struct obs_sampler *s = &obs.smp;
	if (!sampled(oq) || !oq->last_wait || end <= oq->last_wait)
		return;
	ewma(&s->period_ns[oq->profiled], (double)(end - oq->last_wait));
	if (!oq->profiled || !s->period_ns[0])
		return;
	double beyond = s->period_ns[1] - s->period_ns[0] - oq->added * call_cost();
	if (beyond > 0)
		s->spent_ns += beyond;
}

uint32_t obs_sample_every(const struct obs_queue *oq)
{
	const struct obs_sampler *s = &obs.smp;
	if (obs.policy != GD_PROF_SAMPLED)
		return 0;
	if ((oq->own && !s->every) || !s->profiled) /* a queue the program profiles: every batch read */
		return 1;
	uint64_t every = (s->batches + s->profiled - 1) / s->profiled;
	return (uint32_t)(every > GD_SAMPLE_MAX ? GD_SAMPLE_MAX : every);
}

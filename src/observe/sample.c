/* sample.c: which batches of an observed program are profiled under --profile sampled: slices of
 * time, not a count of batches, so that a program of a few batches, one whose first batch differs
 * (a warm-up) or one of a thousand launches a batch is measured as it runs.
 *
 * What profiling costs is the events the library adds: on the H200 an event on every launch took
 * a back-to-back launch from 5.5 to 14 us, while CL_QUEUE_PROFILING_ENABLE alone cost nothing
 * measurable (doc/observe.md). So the sampler measures it: the mean time of the calls that carry
 * an added event against those that carry none, times the events added, is what profiling has
 * spent; a slice of OBS_SLICE_NS starts (at the first command, then whenever a batch opens) only
 * while that stays within OBS_BUDGET of the time since the first command. A program of few
 * commands is profiled throughout; one of thousands of short launches a second in a slice now and
 * then. Everything here runs under obs.mu. */
#include "recorder.h"

#define EWMA 0.05 /* weight of one call in the mean call times */

bool obs_sample_batch(const struct obs_queue *oq, int64_t now)
{
	struct obs_sampler *s = &obs.smp;
	if (!s->t0)
		s->t0 = now;
	s->batches++;
	bool profiled = oq->own;
	if (!profiled && oq->hidden && obs.policy == GD_PROF_FULL)
		profiled = true;
	if (!profiled && oq->hidden && obs.policy == GD_PROF_SAMPLED) {
		if (now >= s->slice_end && s->spent_ns <= OBS_BUDGET * (double)(now - s->t0))
			s->slice_end = now + OBS_SLICE_NS;
		profiled = now < s->slice_end;
	}
	s->profiled += profiled;
	return profiled;
}

void obs_sample_call(bool with, int64_t call_ns)
{
	double *m = &obs.smp.call_ns[with];
	*m = *m ? (1 - EWMA) * *m + EWMA * (double)call_ns : (double)call_ns;
}

void obs_sample_added(void)
{
	/* An added event costs what its call takes beyond a call without one; before any call
	 * without one is timed, all of it (the sampler then errs towards profiling less). */
	const double *m = obs.smp.call_ns;
	obs.smp.spent_ns += m[0] ? (m[1] > m[0] ? m[1] - m[0] : 0) : m[1];
}

uint32_t obs_sample_every(const struct obs_queue *oq)
{
	const struct obs_sampler *s = &obs.smp;
	if (obs.policy != GD_PROF_SAMPLED)
		return 0;
	if (oq->own || !s->profiled) /* every batch of a queue the program profiles is read */
		return 1;
	uint64_t every = (s->batches + s->profiled - 1) / s->profiled;
	return (uint32_t)(every > GD_SAMPLE_MAX ? GD_SAMPLE_MAX : every);
}

/* sampler.c: the profiling policy of one worker (see sampler.h). */
#include "gputop/sampler.h"

#include <math.h>
#include <string.h>

void sampler_init(struct gd_sampler *s, enum gd_profile policy, uint32_t every)
{
	memset(s, 0, sizeof(*s));
	s->policy = policy;
	s->adaptive = policy == GD_PROF_SAMPLED && every == 0;
	s->every = every ? every : SAMPLER_EVERY0;
	s->cost = -1;
}

bool sampler_begin(struct gd_sampler *s)
{
	uint64_t n = s->begun++;
	switch (s->policy) {
	case GD_PROF_FULL:
		return true;
	case GD_PROF_OFF:
		return false;
	case GD_PROF_SAMPLED:
	default:
		return n % s->every < SAMPLER_RUN;
	}
}

/* The period that keeps SAMPLER_RUN profiled batches per period at most SAMPLER_COST_MAX of
 * the time, with at least as many unprofiled batches as profiled ones so the cost stays
 * measurable. */
static uint32_t period_for(double cost)
{
	double every = ceil(SAMPLER_RUN * cost / SAMPLER_COST_MAX);
	if (every < 2 * SAMPLER_RUN)
		every = 2 * SAMPLER_RUN;
	return every > SAMPLER_EVERY_MAX ? SAMPLER_EVERY_MAX : (uint32_t)every;
}

void sampler_done(struct gd_sampler *s, bool profiled, int64_t t_end)
{
	if (s->last_end && t_end > s->last_end) {
		s->sum[profiled] += (double)(t_end - s->last_end);
		s->cnt[profiled]++;
	}
	s->last_end = t_end;
	if (s->cnt[0] < SAMPLER_MIN_N || s->cnt[1] < SAMPLER_MIN_N)
		return;
	double plain = s->sum[0] / (double)s->cnt[0], prof = s->sum[1] / (double)s->cnt[1];
	s->cost = plain > 0 && prof > plain ? (prof - plain) / plain : 0;
	if (s->adaptive)
		s->every = period_for(s->cost);
	/* Halve the history so the estimate follows a changing load. */
	for (int i = 0; i < 2; i++) {
		s->sum[i] /= 2;
		s->cnt[i] /= 2;
	}
}

void sampler_keep(struct gd_sampler *s, const struct gd_rec *r)
{
	s->tmpl = *r;
	s->have_tmpl = true;
}

static int64_t earliest(const struct gd_rec *r)
{
	int64_t t = r->nkiv ? gd_rec_kernel_start(r) : INT64_MAX;
	if (r->h2d[1] && r->h2d[0] < t)
		t = r->h2d[0];
	return t;
}

static void shift(int64_t *t, int64_t by)
{
	if (*t)
		*t += by;
}

bool sampler_estimate(const struct gd_sampler *s, struct gd_rec *r, int64_t not_before)
{
	if (s->policy != GD_PROF_SAMPLED || !s->have_tmpl)
		return false;
	const struct gd_rec *t = &s->tmpl;
	/* The same device work, ending as long before the host saw it end as the template did;
	 * never before this batch's input existed, and its kernels never before the kernels of
	 * the batch ahead of it in its in-order queue ended. */
	int64_t by = r->t_end - t->t_end;
	int64_t first = earliest(t);
	if (first != INT64_MAX && first + by < r->t_gen)
		by = r->t_gen - first;
	if (t->nkiv && not_before && gd_rec_kernel_start(t) + by < not_before)
		by = not_before - gd_rec_kernel_start(t);
	memcpy(r->h2d, t->h2d, sizeof(r->h2d));
	memcpy(r->d2h, t->d2h, sizeof(r->d2h));
	memcpy(r->kiv, t->kiv, sizeof(r->kiv));
	r->nkiv = t->nkiv;
	r->kbase = t->kbase;
	r->kbusy_ns = t->kbusy_ns;
	r->kgap_ns = t->kgap_ns;
	r->qwait_ns = t->qwait_ns;
	r->flags = t->flags | GD_REC_DEVTIME | GD_REC_ESTIMATED;
	for (int i = 0; i < 2; i++) {
		shift(&r->h2d[i], by);
		shift(&r->d2h[i], by);
	}
	shift(&r->kbase, by);
	return true;
}

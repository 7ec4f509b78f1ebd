/* sampler.c: the profiling policy of one worker (see sampler.h). */
#include "sampler.h"

#include <string.h>

/* The shortest period that leaves clean completions between runs of profiled batches. */
static uint32_t every_min(const struct gd_sampler *s)
{
	return 4 * (s->lanes + 1);
}

void sampler_init(struct gd_sampler *s, enum gd_profile policy, uint32_t every, uint32_t lanes)
{
	memset(s, 0, sizeof(*s));
	s->policy = policy;
	s->lanes = lanes ? lanes : 1;
	s->adaptive = policy == GD_PROF_SAMPLED && every == 0;
	s->every = every ? every : SAMPLER_EVERY0 > every_min(s) ? SAMPLER_EVERY0 : every_min(s);
	s->share = -1;
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

/* Doubles the period while the observer takes more than its share, halves it while it takes
 * less than a quarter of it. */
static void adapt(struct gd_sampler *s)
{
	if (s->share > SAMPLER_COST_MAX && s->every < SAMPLER_EVERY_MAX)
		s->every = 2 * s->every < SAMPLER_EVERY_MAX ? 2 * s->every : SAMPLER_EVERY_MAX;
	else if (s->share < SAMPLER_COST_MAX / 4 && s->every / 2 >= every_min(s))
		s->every /= 2;
}

void sampler_done(struct gd_sampler *s, bool profiled, int64_t t_end)
{
	if (s->last_end && t_end > s->last_end) {
		double iv = (double)(t_end - s->last_end);
		s->sum_all += iv;
		s->n_all++;
		/* A completion this soon after a profiled one may still carry its cost. */
		if (!profiled && s->since_prof > 2 * s->lanes) {
			s->sum_clean += iv;
			s->n_clean++;
		}
	}
	s->since_prof = profiled ? 0 : s->since_prof + 1;
	s->last_end = t_end;
	/* Whole periods, enough of them to average out the noise of single completions. */
	uint64_t need = 8 * (uint64_t)s->every > 64 ? 8 * (uint64_t)s->every : 64;
	if (s->n_all < need || s->n_clean < 16)
		return;
	double all = s->sum_all / (double)s->n_all, clean = s->sum_clean / (double)s->n_clean;
	s->share = clean > 0 && all > clean ? all / clean - 1 : 0;
	if (s->adaptive)
		adapt(s);
	s->sum_all = s->sum_clean = 0;
	s->n_all = s->n_clean = 0;
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

/* Squeezes the kernels of r (offsets from kbase) into span ns, busy and gaps alike. */
static void fit_kernels(struct gd_rec *r, int64_t span)
{
	int64_t have = gd_rec_kernel_end(r) - gd_rec_kernel_start(r);
	if (have <= span || span <= 0)
		return;
	double k = (double)span / (double)have;
	for (uint32_t i = 0; i < r->nkiv; i++)
		for (int j = 0; j < 2; j++)
			r->kiv[i][j] = (uint32_t)((double)r->kiv[i][j] * k);
	r->kbusy_ns = (int64_t)((double)r->kbusy_ns * k);
	r->kgap_ns = (int64_t)((double)r->kgap_ns * k);
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
	int64_t kend = t->nkiv ? gd_rec_kernel_end(t) + by : 0; /* where the host says they ended */
	int64_t first = earliest(t);
	if (first != INT64_MAX && first + by < r->t_gen)
		by = r->t_gen - first;
	bool queued = t->nkiv && not_before && gd_rec_kernel_start(t) + by < not_before;
	if (queued)
		by = not_before - gd_rec_kernel_start(t);
	memcpy(r->h2d, t->h2d, sizeof(r->h2d));
	memcpy(r->d2h, t->d2h, sizeof(r->d2h));
	memcpy(r->kiv, t->kiv, sizeof(r->kiv));
	r->nkiv = t->nkiv;
	r->kbase = t->kbase;
	r->kbusy_ns = t->kbusy_ns;
	r->kgap_ns = t->kgap_ns;
	r->qwait_ns = t->qwait_ns;
	r->flags = (r->flags & ~(uint32_t)GD_REC_FLAGS) | (t->flags & GD_REC_FLAGS) | GD_REC_DEVTIME |
	           GD_REC_ESTIMATED;
	for (int i = 0; i < 2; i++) {
		shift(&r->h2d[i], by);
		shift(&r->d2h[i], by);
	}
	shift(&r->kbase, by);
	/* Behind its queue, the batch had only the time until the host saw it end: the template,
	 * profiled and so slower, is fitted into it. */
	if (queued)
		fit_kernels(r, kend - r->kbase);
	return true;
}

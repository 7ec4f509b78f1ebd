/* sampler.c: the profiling policy of one worker (see sampler.h). */
#include "sampler.h"

#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "measure/stats.h"

/* The shortest period: a round, then clean batches at least as many, each side of them kept
 * clear of the rounds by the batches in flight. */
static uint32_t every_min(const struct gd_sampler *s)
{
	return 2 * (s->round + s->inflight);
}

void sampler_init(struct gd_sampler *s, enum gd_profile policy, uint32_t every, uint32_t lanes,
                  uint32_t inflight)
{
	memset(s, 0, sizeof(*s));
	s->policy = policy;
	s->lanes = lanes ? lanes : 1;
	s->inflight = inflight ? inflight : 1;
	uint32_t middle = 2 * s->lanes > SAMPLER_RUN ? 2 * s->lanes : SAMPLER_RUN;
	s->round = 2 * s->inflight + middle;
	s->adaptive = policy == GD_PROF_SAMPLED && every == 0;
	uint32_t least = every_min(s);
	s->every = every > least ? every : !every && SAMPLER_EVERY0 > least ? SAMPLER_EVERY0 : least;
	s->share = -1;
	if (policy == GD_PROF_SAMPLED)
		s->rec = xcalloc(s->round, sizeof(*s->rec));
}

void sampler_free(struct gd_sampler *s)
{
	free(s->rec);
	s->rec = NULL;
}

/* Whether batch n (from 0) is in a round: the first `round` of every period. */
static bool in_round(const struct gd_sampler *s, uint64_t n)
{
	return n % s->every < s->round;
}

/* Whether batch n ran as under --profile off: no round in flight from its beginning to its
 * completion, and none of its neighbours in flight profiled either. */
static bool clean(const struct gd_sampler *s, uint64_t n)
{
	uint64_t p = n % s->every;
	return p >= s->round + s->inflight && p + s->inflight < s->every;
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
		return in_round(s, n);
	}
}

/* Doubles the period while the observer takes more than its share, halves it while it takes
 * less than a quarter of it. A new period takes effect at a round's end, so a round and its
 * clear batches are never cut. */
static void adapt(struct gd_sampler *s)
{
	if (s->share > SAMPLER_COST_MAX && s->every < SAMPLER_EVERY_MAX)
		s->every = 2 * s->every < SAMPLER_EVERY_MAX ? 2 * s->every : SAMPLER_EVERY_MAX;
	else if (s->share < SAMPLER_COST_MAX / 4 && s->every / 2 >= every_min(s))
		s->every /= 2;
}

/* The observer's share, from completion intervals: 1 - (mean over clean) / (mean over all),
 * the share of the run's time the observer takes, as 1 - sampled / off would say. */
static void account(struct gd_sampler *s, uint64_t n, int64_t t_end)
{
	if (s->last_end && t_end > s->last_end) {
		double iv = (double)(t_end - s->last_end);
		s->sum_all += iv;
		s->n_all++;
		if (clean(s, n)) {
			s->sum_clean += iv;
			s->n_clean++;
		}
	}
	s->last_end = t_end;
}

/* After a round: the share, measured over whole periods, enough of them to average out the
 * noise of single completions. */
static void measure_share(struct gd_sampler *s)
{
	uint64_t need = 4 * (uint64_t)s->every > 64 ? 4 * (uint64_t)s->every : 64;
	if (s->n_all < need || s->n_clean < 16)
		return;
	double all = s->sum_all / (double)s->n_all, cl = s->sum_clean / (double)s->n_clean;
	s->share = cl > 0 && all > cl ? 1 - cl / all : 0;
	if (s->adaptive)
		adapt(s);
	s->sum_all = s->sum_clean = 0;
	s->n_all = s->n_clean = 0;
}

/* The round's answer: of the kernel time of the round's batches inside the middle's span, the
 * share the device spent on the worker's kernels alone (the union over their sum); and the
 * template. */
static void finish_round(struct gd_sampler *s)
{
	const struct gd_rec *mid = s->rec + s->inflight;
	uint32_t nmid = s->round - 2 * s->inflight;
	int64_t a = INT64_MAX, b = INT64_MIN;
	for (uint32_t i = 0; i < nmid; i++) {
		if (!mid[i].nkiv)
			return;
		int64_t ks = gd_rec_kernel_start(&mid[i]), ke = gd_rec_kernel_end(&mid[i]);
		a = ks < a ? ks : a;
		b = ke > b ? ke : b;
	}
	struct gd_iv *iv = NULL;
	size_t n = 0, cap = 0;
	int64_t sum = 0;
	for (uint32_t i = 0; i < s->round; i++) {
		stats_rec_intervals(&s->rec[i], &iv, &n, &cap);
		sum += stats_rec_busy(&s->rec[i], a, b);
	}
	int64_t u = stats_union(iv, n, a, b);
	free(iv);
	if (sum <= 0 || u <= 0)
		return;
	s->squeeze = u < sum ? (double)u / (double)sum : 1;
	/* The middle's means: one batch's kernels vary more than their mean does. */
	double kbusy = 0, lag = 0;
	for (uint32_t i = 0; i < nmid; i++) {
		kbusy += (double)mid[i].kbusy_ns;
		lag += (double)(mid[i].t_end - gd_rec_kernel_end(&mid[i]));
	}
	s->kbusy = (int64_t)(kbusy / nmid);
	s->lag = lag > 0 ? (int64_t)(lag / nmid) : 0;
	s->tmpl = mid[nmid - 1];
	s->have_tmpl = true;
}

bool sampler_done(struct gd_sampler *s, const struct gd_rec *r, bool profiled)
{
	uint64_t n = s->done++;
	if (r->nkiv && gd_rec_kernel_end(r) > s->cursor)
		s->cursor = gd_rec_kernel_end(r);
	if (s->policy != GD_PROF_SAMPLED)
		return false;
	account(s, n, r->t_end);
	if (!profiled) {
		s->nrec = 0; /* a round that lost a batch (there is none: they complete in order) */
		return false;
	}
	s->rec[s->nrec++] = *r;
	if (s->nrec < s->round)
		return false;
	s->nrec = 0;
	finish_round(s);
	measure_share(s);
	return true;
}

static void shift(int64_t *t, int64_t by)
{
	if (*t)
		*t += by;
}

/* The template's kernels laid end to end over [at, at + span], each as long as its share of the
 * template's kernel time, into r. A round measured the batch's device time with the worker's
 * other lanes filling the gaps between its kernels; an estimate stands alone on its worker's
 * timeline (estimates never overlap), so a gap kept inside it would be idle time the device
 * never had. */
static void place_kernels(const struct gd_rec *t, struct gd_rec *r, int64_t at, int64_t span)
{
	int64_t kv[GD_REC_KMAX][2], d[GD_REC_KMAX], total = 0;
	for (uint32_t i = 0; i < t->nkiv; i++) {
		gd_rec_kiv(t, i, kv[i]);
		d[i] = kv[i][1] > kv[i][0] ? kv[i][1] - kv[i][0] : 0;
		total += d[i];
	}
	int64_t done = 0;
	for (uint32_t i = 0; i < t->nkiv; i++) {
		kv[i][0] = at + (total ? (int64_t)((double)span * (double)done / (double)total) : 0);
		done += d[i];
		kv[i][1] = total ? at + (int64_t)((double)span * (double)done / (double)total) : at + span;
	}
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, t->nkiv);
	r->flags |= t->flags & GD_REC_GROUPED;
	r->kbusy_ns = span;
	r->kgap_ns = 0;
}

bool sampler_estimate(struct gd_sampler *s, struct gd_rec *r, int64_t t_enq)
{
	if (s->policy != GD_PROF_SAMPLED || !s->have_tmpl)
		return false;
	const struct gd_rec *t = &s->tmpl;
	r->flags = (r->flags & ~(uint32_t)GD_REC_FLAGS) | (t->flags & GD_REC_PER_LAUNCH) | GD_REC_DEVTIME |
	           GD_REC_ESTIMATED;
	r->qwait_ns = t->qwait_ns;
	memcpy(r->h2d, t->h2d, sizeof(r->h2d));
	memcpy(r->d2h, t->d2h, sizeof(r->d2h));
	if (!t->nkiv) {
		r->nkiv = 0;
		return true;
	}
	int64_t ts = gd_rec_kernel_start(t), te = gd_rec_kernel_end(t);
	int64_t span = (int64_t)((double)s->kbusy * s->squeeze); /* its device time, end to end */
	int64_t h2d = t->h2d[1] - t->h2d[0]; /* the copy of its input, not its wait in the queue */
	/* Queued (and its input copied) while the worker's earlier kernels still had the device:
	 * it ran as soon as they were done, as a device with work waiting does. Else it ran when
	 * the host says: ending as long before the host saw it end as the round's did. */
	int64_t ready = (t_enq > r->t_gen ? t_enq : r->t_gen) + h2d;
	int64_t start = r->t_end - s->lag - span;
	if (ready <= s->cursor)
		start = s->cursor;
	else if (start < ready)
		start = ready;
	if (start > r->t_end)
		start = r->t_end;
	if (start + span > r->t_end) {
		/* More work than time until the host saw it end: the device was busy throughout. */
		int64_t kv[1][2] = { { start, r->t_end } };
		gd_rec_set_kernels(r, (const int64_t(*)[2])kv, 1);
		span = r->t_end - start;
	} else {
		place_kernels(t, r, start, span);
	}
	/* The copies keep their distance from the kernels, inside the batch's own time. */
	shift(&r->h2d[0], start - ts);
	shift(&r->h2d[1], start - ts);
	int64_t end = start + span, by = end - te;
	if (r->d2h[1] && r->d2h[1] + by > r->t_end)
		by = r->t_end - r->d2h[1];
	shift(&r->d2h[0], by);
	shift(&r->d2h[1], by);
	for (int i = 0; i < 2; i++) {
		if (r->h2d[1] && r->h2d[i] < r->t_gen)
			r->h2d[i] = r->t_gen;
		if (r->d2h[1] && r->d2h[i] < r->t_gen)
			r->d2h[i] = r->t_gen;
	}
	return true;
}

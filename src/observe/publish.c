/* publish.c: a queue's finished batch as a record in the process's segment: its counts, and
 * its device times, read from the events of a profiled batch and mapped onto the host clock, or
 * estimated from the queue's last profiled batch (--profile sampled). */
#include <stdlib.h>
#include <string.h>

#include "ring/writer.h"
#include "recorder.h"

#define OBS_KV_MAX GD_LAUNCHES_MAX /* kernel intervals read from one batch's events */

/* [START, END] of e, or false when it is not complete or has no profiling information. */
static bool ev_times(const cl_icd_dispatch *nx, cl_event e, cl_ulong t[3])
{
	cl_int st = CL_QUEUED;
	if (nx->clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) != CL_SUCCESS ||
	    st != CL_COMPLETE)
		return false;
	return nx->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_SUBMIT, sizeof(t[0]), &t[0], NULL) ==
	           CL_SUCCESS &&
	       nx->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(t[1]), &t[1], NULL) ==
	           CL_SUCCESS &&
	       nx->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(t[2]), &t[2], NULL) ==
	           CL_SUCCESS &&
	       t[2] >= t[1];
}

/* Widens span to cover [s, e). */
static void span_add(int64_t span[2], int64_t s, int64_t e)
{
	if (!span[0] || s < span[0])
		span[0] = s;
	if (e > span[1])
		span[1] = e;
}

/* Device intervals of the batch's commands, in device ns: kernels into kv, copies into spans. */
static bool batch_times(const cl_icd_dispatch *nx, const struct obs_queue *oq, int64_t (*kv)[2], uint32_t *nk,
                        int64_t h2d[2], int64_t d2h[2], int64_t *qwait, int64_t *last_end)
{
	*nk = 0;
	*qwait = 0;
	*last_end = 0;
	for (size_t i = 0; i < oq->nev; i++) {
		cl_ulong t[3];
		if (!ev_times(nx, oq->ev[i].e, t))
			return false;
		int64_t s = (int64_t)t[1], e = (int64_t)t[2];
		*last_end = e > *last_end ? e : *last_end;
		if (oq->ev[i].kind == OBS_WRITE)
			span_add(h2d, s, e);
		else if (oq->ev[i].kind == OBS_READ)
			span_add(d2h, s, e);
		else if (*nk < OBS_KV_MAX) {
			if (*nk == 0)
				*qwait = t[1] > t[0] ? (int64_t)(t[1] - t[0]) : 0;
			kv[*nk][0] = s;
			kv[(*nk)++][1] = e;
		}
	}
	return *last_end > 0;
}

static int by_start(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* kv[0..*n) in order of START, overlapping intervals joined: on an out-of-order queue commands
 * start in another order than they were enqueued, and run at once. The record holds the times
 * the device was busy with the batch's kernels (their union); its launch count stays. */
static void kernels_union(int64_t (*kv)[2], uint32_t *n)
{
	qsort(kv, *n, sizeof(kv[0]), by_start);
	uint32_t m = 0;
	for (uint32_t i = 0; i < *n; i++) {
		if (m && kv[i][0] < kv[m - 1][1]) {
			kv[m - 1][1] = kv[i][1] > kv[m - 1][1] ? kv[i][1] : kv[m - 1][1];
			continue;
		}
		kv[m][0] = kv[i][0];
		kv[m++][1] = kv[i][1];
	}
	*n = m;
}

static void map_span(int64_t span[2])
{
	span[0] = timebase_map(&obs.tb, span[0]);
	span[1] = timebase_map(&obs.tb, span[1]);
}

/* The record's device times from the batch's events, mapped onto the host clock; the queue's
 * template for the batches not profiled is kept from them. */
static bool measure(const cl_icd_dispatch *nx, struct obs_queue *oq, struct gd_rec *r)
{
	static int64_t kv[OBS_KV_MAX][2]; /* under obs.mu */
	int64_t h2d[2] = { 0, 0 }, d2h[2] = { 0, 0 }, last_end;
	uint32_t nk;
	if (!batch_times(nx, oq, kv, &nk, h2d, d2h, &r->qwait_ns, &last_end))
		return false;
	timebase_observe(&obs.tb, r->t_end, last_end);
	kernels_union(kv, &nk);
	for (uint32_t k = 0; k < nk; k++) {
		kv[k][0] = timebase_map(&obs.tb, kv[k][0]);
		kv[k][1] = timebase_map(&obs.tb, kv[k][1]);
	}
	map_span(h2d);
	map_span(d2h);
	memcpy(r->h2d, h2d, sizeof(h2d));
	memcpy(r->d2h, d2h, sizeof(d2h));
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, nk);
	r->flags |= GD_REC_DEVTIME;
	struct obs_template *t = &oq->tpl;
	*t = (struct obs_template){ .kernels = r->kernels, .nkv = r->nkiv, .valid = true };
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t iv[2];
		gd_rec_kiv(r, i, iv);
		t->kv[i][0] = iv[0] - r->t_end;
		t->kv[i][1] = iv[1] - r->t_end;
	}
	for (int i = 0; i < 2; i++) {
		t->h2d[i] = h2d[i] ? h2d[i] - r->t_end : 0;
		t->d2h[i] = d2h[i] ? d2h[i] - r->t_end : 0;
	}
	return true;
}

/* A batch not profiled: the queue's last profiled one's device times, moved to end where this
 * one ended, when it had as many kernels (as a worker's estimate, sampler_estimate). */
static void estimate(const struct obs_queue *oq, struct gd_rec *r)
{
	const struct obs_template *t = &oq->tpl;
	if (!t->valid || t->kernels != r->kernels || obs.policy != GD_PROF_SAMPLED)
		return;
	int64_t kv[GD_REC_KMAX][2];
	for (uint32_t i = 0; i < t->nkv; i++) {
		kv[i][0] = t->kv[i][0] + r->t_end;
		kv[i][1] = t->kv[i][1] + r->t_end;
	}
	for (int i = 0; i < 2; i++) {
		r->h2d[i] = t->h2d[0] ? t->h2d[i] + r->t_end : 0;
		r->d2h[i] = t->d2h[0] ? t->d2h[i] + r->t_end : 0;
	}
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, t->nkv);
	r->flags |= GD_REC_DEVTIME | GD_REC_ESTIMATED;
}

/* ---- the record ---- */

static void release_events(const cl_icd_dispatch *nx, struct obs_queue *oq)
{
	for (size_t i = 0; i < oq->nev; i++)
		nx->clReleaseEvent(oq->ev[i].e);
	oq->nev = 0;
}

/* Drops what the record cannot carry rather than the record: device times that do not fit
 * its bounds, launches and items past the largest a batch may hold. */
static void clamp(struct gd_rec *r)
{
	if (r->kernels > GD_LAUNCHES_MAX)
		r->kernels = GD_LAUNCHES_MAX;
	if (r->items > GD_SIZE_MAX)
		r->items = GD_SIZE_MAX;
	if (gd_rec_valid(r))
		return;
	uint32_t keep = r->flags & (GD_REC_LANE | GD_REC_THREAD);
	memset(&r->h2d, 0, sizeof(*r) - offsetof(struct gd_rec, h2d));
	r->flags = keep;
	r->share_ppm = GD_SHARE_NONE;
}

void obs_close_batch(const cl_icd_dispatch *nx, struct obs_queue *oq)
{
	oq->open = oq->waited = false;
	oq->last_wait = oq->t_wait;
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = obs.batches++;
	r.items = (uint32_t)(oq->items > GD_SIZE_MAX ? GD_SIZE_MAX : oq->items);
	r.kernels = (uint32_t)(oq->kernels > UINT32_MAX ? UINT32_MAX : oq->kernels);
	if (r.kernels && !r.items)
		r.items = 1;
	r.t_begin = oq->t_begin;
	r.t_gen = oq->t_first;
	r.t_end = oq->t_wait;
	r.flags = oq->lane << GD_REC_LANE_BIT | oq->thread << GD_REC_THREAD_BIT;
	r.sample_every = obs.policy != GD_PROF_SAMPLED ? 0 : oq->own ? 1 : obs.every; /* own: all read */
	r.share_ppm = GD_SHARE_NONE;
	if (!nx || !oq->profiled || !measure(nx, oq, &r))
		estimate(oq, &r);
	clamp(&r);
	seg_publish(obs.seg, &r);
	seg_add_totals(obs.seg, 1, 0, 0); /* items and launches were added as they were enqueued */
	if (nx)
		release_events(nx, oq);
	oq->nev = 0;
}

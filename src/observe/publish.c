/* publish.c: a queue's finished batch as a record in the process's segment: its counts, and its
 * device times by kind (kernels, writes, reads, copies), read from the events of a profiled batch
 * as they complete and mapped onto the host clock, or estimated at the rates of the queue's recent
 * profiled batches (--profile sampled). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ring/writer.h"
#include "recorder.h"

#define OBS_KV_MAX GD_LAUNCHES_MAX /* kernel intervals read from one batch's events */

/* e's SUBMIT, START and END, or false when it is not complete or has no profiling information.
 * The queries do not block. */
static bool ev_query(const cl_icd_dispatch *nx, cl_event e, cl_ulong t[3])
{
	cl_int st = CL_QUEUED;
	if (nx->clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) != CL_SUCCESS ||
	    st != CL_COMPLETE)
		return false;
	static const cl_profiling_info what[3] = { CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
		                                   CL_PROFILING_COMMAND_END };
	for (int i = 0; i < 3; i++)
		if (nx->clGetEventProfilingInfo(e, what[i], sizeof(t[i]), &t[i], NULL) != CL_SUCCESS)
			return false;
	return t[2] >= t[1];
}

/* Reads ev's times once it has completed; whether they are known. */
static bool ev_done(const cl_icd_dispatch *nx, struct obs_ev *ev)
{
	if (!ev->done && nx)
		ev->done = ev_query(nx, ev->e, ev->t);
	return ev->done;
}

void obs_read_completed(void)
{
	for (size_t i = 0; i < obs.nq; i++) {
		struct obs_queue *oq = &obs.qs[i];
		for (size_t j = 0; oq->nx && j < oq->nev; j++)
			if (!ev_done(oq->nx, &oq->ev[j]))
				break; /* an in-order queue completes its commands in order */
	}
}

/* The host time since which q's kernel has been under way, 0: none. The first of its kept
 * events not complete is a kernel the runtime says is running (PoCL does: since a tick first saw
 * it so), or, with a runtime never seen to say so (NVIDIA's), has submitted: since a tick first
 * saw it submitted, or the command before it ended (mapped), whichever is later. */
static int64_t kernel_under_way(struct obs_queue *oq, int64_t now)
{
	size_t j = 0;
	while (j < oq->nev && oq->ev[j].done)
		j++;
	if (j == oq->nev || oq->ev[j].kind != OBS_KERNEL || !oq->nx)
		return 0;
	cl_int st = CL_QUEUED;
	if (oq->nx->clGetEventInfo(oq->ev[j].e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) !=
	        CL_SUCCESS ||
	    (st != CL_SUBMITTED && st != CL_RUNNING))
		return 0;
	int64_t *seen = oq->ev[j].seen;
	seen[0] = seen[0] ? seen[0] : now;
	static bool says_running; /* under obs.mu */
	says_running = says_running || st == CL_RUNNING;
	if (st == CL_RUNNING)
		return seen[1] = seen[1] ? seen[1] : now;
	if (says_running) /* submitted, waiting for the device to start it */
		return 0;
	int64_t prev = j ? timebase_map(&obs.tb, (int64_t)oq->ev[j - 1].t[2]) : 0;
	return prev > seen[0] ? prev : seen[0];
}

int64_t obs_inflight(int64_t now)
{
	int64_t since = 0;
	for (size_t i = 0; i < obs.nq; i++) {
		int64_t s = obs.qs[i].open ? kernel_under_way(&obs.qs[i], now) : 0;
		since = s && (!since || s < since) ? s : since;
	}
	return since;
}

bool obs_batch_complete(const struct obs_queue *oq)
{
	return oq->nev && oq->ev[oq->nev - 1].done;
}

/* Widens span to cover [s, e). */
static void span_add(int64_t span[2], int64_t s, int64_t e)
{
	if (!span[0] || s < span[0])
		span[0] = s;
	if (e > span[1])
		span[1] = e;
}

/* A batch's device times, in device ns: its kernels' intervals, the spans of its writes, reads
 * and copies (span[OBS_WRITE] ...) and their summed times. */
struct devtimes {
	uint32_t nk;
	int64_t span[OBS_KINDS][2], sum[OBS_KINDS];
	int64_t qwait, last_end;
};

static bool batch_times(const cl_icd_dispatch *nx, struct obs_queue *oq, int64_t (*kv)[2], struct devtimes *d)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < oq->nev; i++) {
		struct obs_ev *ev = &oq->ev[i];
		if (!ev_done(nx, ev))
			return false;
		int64_t s = (int64_t)ev->t[1], e = (int64_t)ev->t[2];
		d->last_end = e > d->last_end ? e : d->last_end;
		d->sum[ev->kind] += e - s;
		if (ev->kind != OBS_KERNEL)
			span_add(d->span[ev->kind], s, e);
		else if (d->nk < OBS_KV_MAX) {
			if (d->nk == 0)
				d->qwait = ev->t[1] > ev->t[0] ? (int64_t)(ev->t[1] - ev->t[0]) : 0;
			kv[d->nk][0] = s;
			kv[d->nk++][1] = e;
		}
	}
	return d->last_end > 0;
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
	if (!span[0] && !span[1])
		return;
	span[0] = timebase_map(&obs.tb, span[0]);
	span[1] = timebase_map(&obs.tb, span[1]);
}

/* Device ns for units of kind k at the queue's rates (0 where none of that kind was profiled). */
static double rates_ns(const struct obs_rates *t, enum obs_kind k, uint64_t units)
{
	return t->units[k] > 0 ? t->ns[k] / t->units[k] * (double)units : 0;
}

/* Device ns of a batch of span ns at the share its recent profiled batches' device time had of
 * their spans (0 where none). */
static double rates_span(const struct obs_rates *t, double span)
{
	return t->span_ns > 0 ? t->dev_ns / t->span_ns * span : 0;
}

/* How far the rates, before a profiled batch of dev device ns, units and span is taken in, would
 * have erred for it: per unit and by span, each a mean of relative errors. */
static void rates_judge(struct obs_rates *t, double dev, const uint64_t *units, double span)
{
	if (!t->spans || dev <= 0)
		return;
	double by_units = 0;
	for (int k = 0; k < OBS_KINDS; k++)
		by_units += rates_ns(t, (enum obs_kind)k, units[k]);
	const double guess[2] = { by_units, rates_span(t, span) };
	for (int i = 0; i < 2; i++) {
		double e = fabs(guess[i] - dev) / dev;
		t->err[i] = t->err[i] ? OBS_RATES_DECAY * t->err[i] + (1 - OBS_RATES_DECAY) * e : e;
	}
}

/* What sums that have taken in *n batches keep of them as one more comes (and counts it): none
 * where they hold the first alone, often a warm-up; else OBS_RATES_DECAY. */
static double rates_keep(uint32_t *n)
{
	return (*n)++ == 1 ? 0 : OBS_RATES_DECAY;
}

/* The queue's rates take in a profiled batch's device ns and units of each kind (the time of a
 * kind it moved no bytes of, such as a map that moves none, is no rate) and its span. */
static void rates_add(struct obs_rates *t, const double *ns, const uint64_t *units, double span)
{
	double dev = 0;
	for (int k = 0; k < OBS_KINDS; k++)
		dev += units[k] ? ns[k] : 0;
	rates_judge(t, dev, units, span);
	if (dev > 0 && span > 0) {
		double keep = rates_keep(&t->spans);
		t->dev_ns = keep * t->dev_ns + dev;
		t->span_ns = keep * t->span_ns + span;
	}
	for (int k = 0; k < OBS_KINDS; k++) {
		double keep = units[k] ? rates_keep(&t->batches[k]) : OBS_RATES_DECAY;
		t->ns[k] = keep * t->ns[k] + (units[k] ? ns[k] : 0);
		t->units[k] = keep * t->units[k] + (double)units[k];
	}
}

/* The record's device times from the batch's events, mapped onto the host clock; the queue's
 * rates for the batches not profiled are kept from them. */
static bool measure(const cl_icd_dispatch *nx, struct obs_queue *oq, struct gd_rec *r)
{
	static int64_t kv[OBS_KV_MAX][2]; /* under obs.mu */
	struct devtimes d;
	if (!batch_times(nx, oq, kv, &d))
		return false;
	timebase_observe(&obs.tb, r->t_end, d.last_end);
	kernels_union(kv, &d.nk);
	for (uint32_t k = 0; k < d.nk; k++) {
		kv[k][0] = timebase_map(&obs.tb, kv[k][0]);
		kv[k][1] = timebase_map(&obs.tb, kv[k][1]);
	}
	for (int k = OBS_WRITE; k < OBS_KINDS; k++)
		map_span(d.span[k]);
	memcpy(r->h2d, d.span[OBS_WRITE], sizeof(r->h2d));
	memcpy(r->d2h, d.span[OBS_READ], sizeof(r->d2h));
	memcpy(r->copy, d.span[OBS_COPY], sizeof(r->copy));
	r->copy_ns = d.sum[OBS_COPY];
	r->xfer_ns = d.sum[OBS_WRITE] + d.sum[OBS_READ];
	r->qwait_ns = d.qwait;
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, d.nk);
	r->flags |= GD_REC_DEVTIME;
	double ns[OBS_KINDS] = { [OBS_KERNEL] = (double)r->kbusy_ns };
	uint64_t units[OBS_KINDS] = { [OBS_KERNEL] = oq->kernels };
	for (int k = OBS_WRITE; k < OBS_KINDS; k++) {
		ns[k] = (double)d.sum[k];
		units[k] = oq->bytes[k];
	}
	rates_add(&oq->rates, ns, units, (double)(r->t_end - r->t_gen));
	return true;
}

/* A batch not profiled (--profile sampled): its device time two ways (obs_rates), its work at the
 * rates of the queue's recent profiled batches and their device time's share of their span
 * times its own span, weighed by how well each predicted those batches; split by kind as the
 * rates split it. It is placed in the batch's own span from its first command to its end: writes
 * first, then copies, kernels as one interval, reads last; never more than the span (a queue runs
 * one command at a time, and the device cannot have worked on the batch before its first
 * command). */
static void estimate(const struct obs_queue *oq, struct gd_rec *r)
{
	const struct obs_rates *t = &oq->rates;
	uint32_t profiled = 0;
	for (int k = 0; k < OBS_KINDS; k++)
		profiled += t->batches[k];
	if (!profiled || obs.policy != GD_PROF_SAMPLED)
		return;
	double ns[OBS_KINDS] = { rates_ns(t, OBS_KERNEL, oq->kernels) };
	double sum = ns[0];
	for (int k = OBS_WRITE; k < OBS_KINDS; k++)
		sum += ns[k] = rates_ns(t, (enum obs_kind)k, oq->bytes[k]);
	double room = (double)(r->t_end - r->t_gen);
	double want = sum;
	if (t->err[0] > 0 && t->err[1] > 0) { /* each way weighed by the inverse of its error squared */
		double w0 = 1 / (t->err[0] * t->err[0]), w1 = 1 / (t->err[1] * t->err[1]);
		want = (w0 * sum + w1 * rates_span(t, room)) / (w0 + w1);
	}
	if (want > room)
		want = room;
	double scale = sum > 0 ? want / sum : 1;
	int64_t at = r->t_gen;
	int64_t *spans[OBS_KINDS] = { [OBS_WRITE] = r->h2d, [OBS_READ] = r->d2h, [OBS_COPY] = r->copy };
	static const enum obs_kind order[] = { OBS_WRITE, OBS_COPY, OBS_KERNEL, OBS_READ };
	for (size_t i = 0; i < GD_ARRAY_LEN(order); i++) {
		enum obs_kind k = order[i];
		int64_t len = (int64_t)(ns[k] * scale);
		if (k == OBS_KERNEL && oq->kernels) {
			const int64_t kv[1][2] = { { at, at + len } };
			gd_rec_set_kernels(r, kv, 1);
		} else if (k != OBS_KERNEL && oq->bytes[k]) {
			spans[k][0] = at;
			spans[k][1] = at + len;
		}
		at += len;
	}
	r->copy_ns = r->copy[1] - r->copy[0];
	r->xfer_ns = (r->h2d[1] - r->h2d[0]) + (r->d2h[1] - r->d2h[0]);
	r->flags |= GD_REC_DEVTIME | GD_REC_ESTIMATED;
}

/* ---- the record ---- */

static void release_events(const cl_icd_dispatch *nx, struct obs_queue *oq)
{
	for (size_t i = 0; i < oq->nev; i++)
		nx->clReleaseEvent(oq->ev[i].e);
	oq->nev = 0;
}

/* Drops what the record cannot carry rather than the record: device times that do not fit its
 * bounds (counts are bounded where they are set). */
static void clamp(struct gd_rec *r)
{
	if (gd_rec_valid(r))
		return;
	uint32_t keep = r->flags & (GD_REC_LANE | GD_REC_THREAD), commands = r->commands;
	memset(&r->h2d, 0, sizeof(*r) - offsetof(struct gd_rec, h2d));
	r->flags = keep;
	r->commands = commands;
	r->share_ppm = GD_SHARE_NONE;
}

void obs_close_batch(const cl_icd_dispatch *nx, struct obs_queue *oq)
{
	/* Never waited for (at release or at exit): it ends now, a host time after whatever of it
	 * completed, as a wait's end is (the timebase's estimate rests on that). */
	int64_t end = oq->waited ? oq->t_wait : now_ns();
	obs_sample_closed(oq, end);
	oq->open = oq->waited = false;
	oq->last_wait = end;
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = obs.batches++;
	r.items = (uint32_t)(oq->items > UINT32_MAX ? UINT32_MAX : oq->items);
	r.kernels = (uint32_t)(oq->kernels > GD_REC_LAUNCHES_MAX ? GD_REC_LAUNCHES_MAX : oq->kernels);
	if (r.kernels && !r.items)
		r.items = 1;
	r.commands = (uint32_t)(oq->commands > UINT32_MAX ? UINT32_MAX : oq->commands);
	r.t_begin = oq->t_begin;
	r.t_gen = oq->t_first;
	r.t_end = end;
	r.flags = oq->lane << GD_REC_LANE_BIT | oq->thread << GD_REC_THREAD_BIT;
	r.sample_every = obs_sample_every(oq);
	r.share_ppm = GD_SHARE_NONE;
	if (!nx || !oq->profiled || !measure(nx, oq, &r))
		estimate(oq, &r);
	clamp(&r);
	seg_publish(obs.seg, &r);
	seg_add_totals(obs.seg, 1, 0, 0);      /* items and launches were added as they were enqueued */
	seg_set_obs_totals(obs.seg, &obs.tot); /* the commands counted since the last */
	if (nx)
		release_events(nx, oq);
	oq->nev = 0;
}

/* publish.c: a completed batch: its device times read from its events and mapped to the host's
 * clock, its record published into the segment, its output checked (worker_impl.h). */
#include "worker_impl.h"

#include <stdio.h>
#include <string.h>

#include "decode_ref.h"
#include "gputop/common.h"

/* START and END of a completed command, in device ns. */
static int span(struct gd_worker *w, cl_event ev, int64_t out[2])
{
	cl_ulong s = 0, e = 0;
	cl_int rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(s), &s, NULL);
	if (rc == CL_SUCCESS)
		rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(e), &e, NULL);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clGetEventProfilingInfo", rc);
	out[0] = (int64_t)s;
	out[1] = (int64_t)(e < s ? s : e);
	return 0;
}

/* The span of n copies in one in-order queue: the first's START to the last's END. */
static int copies(struct gd_worker *w, cl_event *ev, int n, int64_t out[2])
{
	int64_t last[2] = { 0, 0 };
	if (span(w, ev[0], out) || span(w, ev[n - 1], last))
		return -1;
	out[1] = last[1] > out[0] ? last[1] : out[0];
	return 0;
}

/* START - SUBMIT of a completed command: how long it waited for the device. */
static int64_t queued(cl_event ev, int64_t start)
{
	cl_ulong sub = 0;
	if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_SUBMIT, sizeof(sub), &sub, NULL) != CL_SUCCESS ||
	    sub == 0 || (int64_t)sub > start)
		return 0;
	return start - (int64_t)sub;
}

/* The measured device times of a profiled batch into r. */
static int measure(struct gd_worker *w, struct gd_batch *b, struct gd_rec *r)
{
	uint32_t n = w->k->launches;
	int64_t(*kv)[2] = w->kv;
	int64_t h2d[2] = { 0, 0 }, d2h[2] = { 0, 0 };
	int rc = 0;
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = span(w, b->ev_k[k], kv[k]);
	if (!rc && b->ev_write[0]) /* kernel-only writes its inputs once, at set-up */
		rc = copies(w, b->ev_write, w->nin, h2d);
	if (!rc && b->ev_read[0])
		rc = copies(w, b->ev_read, w->nout, d2h);
	if (rc)
		return -1;
	r->qwait_ns = queued(b->ev_k[0], kv[0][0]);
	/* The last command ended before t_end: one more sample for the offset estimate. */
	if (w->tb_method == GD_TB_OFFSET)
		timebase_observe(&w->tb, r->t_end, b->ev_read[0] ? d2h[1] : kv[n - 1][1]);
	for (uint32_t k = 0; k < n; k++) {
		kv[k][0] = timebase_map(&w->tb, kv[k][0]);
		kv[k][1] = timebase_map(&w->tb, kv[k][1]);
	}
	for (int i = 0; i < 2; i++) {
		r->h2d[i] = timebase_map(&w->tb, h2d[i]);
		r->d2h[i] = timebase_map(&w->tb, d2h[i]);
	}
	r->flags |= GD_REC_DEVTIME;
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, n);
	return 0;
}

int worker_publish(struct gd_worker *w, struct gd_batch *b, int64_t t_end)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = w->batches;
	r.items = w->k->size;
	r.kernels = w->k->launches;
	r.t_begin = b->t_begin;
	r.t_gen = b->t_gen;
	r.t_end = t_end;
	r.flags = (uint32_t)b->gen_thread << GD_REC_GEN_BIT |
	          (uint32_t)(b->lane - w->lanes) << GD_REC_LANE_BIT | (w->k->source ? GD_REC_PER_LAUNCH : 0);
	if (!b->profiled)
		sampler_estimate(&w->smp, &r, b->t_enq);
	else if (measure(w, b, &r))
		return -1;
	bool round_over = sampler_done(&w->smp, &r, b->profiled);
	r.sample_every = w->smp.policy == GD_PROF_SAMPLED ? w->smp.every : 0;
	r.share_ppm = w->smp.share < 0 ? GD_SHARE_NONE
	                               : (uint32_t)(w->smp.share * 1e6 < 1e6 ? w->smp.share * 1e6 : 1e6);
	seg_publish(w->seg, &r);
	seg_add_totals(w->seg, 1, kspec_items_per_batch(w->k), w->k->launches);
	w->batches++;
	worker_release_events(w, b);
	if (round_over)
		worker_release_prof_queues(w);
	return 0;
}

/* The first argument of kind k, or -1. */
static int arg_of(const struct gd_worker *w, enum ka_kind k)
{
	for (int i = 0; i < w->prog.nargs; i++)
		if (w->prog.arg[i].kind == k)
			return i;
	return -1;
}

int worker_verify(struct gd_worker *w, const struct gd_batch *b)
{
	if (!w->wl->verify)
		return 0;
	/* The decode kernel's arguments: in (each batch), perm (once), out; --kernel has no
	 * --verify (the option parser refuses it). */
	int in = arg_of(w, KA_IN_BATCH), perm = arg_of(w, KA_IN_ONCE), out = arg_of(w, KA_OUT);
	if (in < 0 || perm < 0 || out < 0) {
		snprintf(w->err, sizeof(w->err), "--verify: the kernel is not the decode kernel");
		return -1;
	}
	const struct gd_dtype_info *dt = gd_dtype_info(w->dtype);
	double e = decode_ref_error(b->host[in], b->host[out], dt->bytes, w->once_host[perm], w->k->size);
	double tol = decode_ref_tolerance(dt->bytes);
	if (e <= tol)
		return 0;
	snprintf(w->err, sizeof(w->err), "--verify: relative error %.3g exceeds %.0e (%s)", e, tol, dt->name);
	return -1;
}

/* batch.c: a worker's OpenCL objects and the commands on them: its set-up and teardown, its
 * lanes (queues) and batches (buffers, kernel, events), and the writes, launches and reads a
 * mode enqueues for a batch (worker_impl.h). */
#include "worker_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

int worker_fail(struct gd_worker *w, const char *call, cl_int rc)
{
	snprintf(w->err, sizeof(w->err), "%s: %s", call, clx_err(rc));
	return -1;
}

void worker_fill(struct gd_rng *rng, void *dst, const void *ctx)
{
	const struct gd_worker *w = ctx;
	struct gd_batch *b = dst;
	for (int i = 0; i < w->prog.nargs; i++)
		if (w->prog.arg[i].kind == KA_IN_BATCH)
			kargs_fill(&w->prog.arg[i], rng, w->wl->generator, b->host[i]);
}

void worker_generate(struct gd_worker *w, struct gd_batch *b)
{
	worker_fill(&w->rng, b, w);
}

static cl_command_queue new_queue(struct gd_worker *w, bool profiling, cl_int *rc)
{
	cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, 0 };
	return clCreateCommandQueueWithProperties(w->ctx, w->dev.id, props, rc);
}

/* Under --profile sampled the profiling queues exist only for a round (sampler.h): created by
 * the round's first batch on each lane, released once its last batch has completed. */
int worker_alloc_lanes(struct gd_worker *w, int nlanes)
{
	enum gd_profile p = w->wl->profile;
	cl_int rc = CL_SUCCESS;
	w->nlanes = nlanes;
	for (int i = 0; i < nlanes; i++) {
		struct gd_lane *l = &w->lanes[i];
		if ((p != GD_PROF_FULL && !(l->plain = new_queue(w, false, &rc))) ||
		    (p == GD_PROF_FULL && !(l->prof = new_queue(w, true, &rc))))
			return worker_fail(w, "clCreateCommandQueueWithProperties", rc);
	}
	return 0;
}

cl_command_queue worker_lane_queue(const struct gd_lane *l)
{
	return l->plain ? l->plain : l->prof;
}

/* After a round: every command of the profiling queues has completed (batches complete in the
 * order they began, and the round's last one has), so they go, and nothing points at them. */
void worker_release_prof_queues(struct gd_worker *w)
{
	for (int i = 0; i < w->nlanes; i++) {
		struct gd_lane *l = &w->lanes[i];
		if (!l->prof || !l->plain)
			continue;
		for (int j = 0; j < w->nb; j++)
			if (w->b[j].q == l->prof)
				w->b[j].q = l->plain;
		if (l->last_q == l->prof)
			l->last_q = NULL;
		clReleaseCommandQueue(l->prof);
		l->prof = NULL;
	}
}

static void free_lanes(struct gd_worker *w)
{
	for (int i = 0; i < w->nlanes; i++) {
		struct gd_lane *l = &w->lanes[i];
		if (l->last)
			clReleaseEvent(l->last);
		cl_command_queue q[2] = { l->plain, l->prof };
		for (int j = 0; j < 2; j++)
			if (q[j]) {
				clFinish(q[j]);
				clReleaseCommandQueue(q[j]);
			}
	}
	memset(w->lanes, 0, sizeof(w->lanes));
	w->nlanes = 0;
}

/* Batch b's buffer for argument i (an input generated per batch or an output): on the device,
 * and its host side, pinned staging mapped once for the worker's lifetime when asked. A user
 * kernel's outputs start zeroed, so a kernel that reads them reads defined values. */
static int alloc_arg(struct gd_worker *w, struct gd_batch *b, int i, bool pinned)
{
	const struct ka_setup *a = &w->prog.arg[i];
	bool out = a->kind == KA_OUT;
	cl_int rc;
	cl_mem_flags flags = !out ? CL_MEM_READ_ONLY : w->k->source ? CL_MEM_READ_WRITE : CL_MEM_WRITE_ONLY;
	void *zero = out && w->k->source ? xcalloc(a->bytes, 1) : NULL;
	b->buf[i] = clCreateBuffer(w->ctx, flags | (zero ? CL_MEM_COPY_HOST_PTR : 0), a->bytes, zero, &rc);
	free(zero);
	if (!b->buf[i])
		return worker_fail(w, out ? "clCreateBuffer(out)" : "clCreateBuffer(in)", rc);
	if (!pinned) {
		b->host[i] = xcalloc(a->bytes, 1);
		return 0;
	}
	b->pin[i] = clCreateBuffer(w->ctx, CL_MEM_ALLOC_HOST_PTR, a->bytes, NULL, &rc);
	if (!b->pin[i])
		return worker_fail(w, out ? "clCreateBuffer(pinned out)" : "clCreateBuffer(pinned in)", rc);
	b->host[i] = clEnqueueMapBuffer(b->q, b->pin[i], CL_TRUE, out ? CL_MAP_READ : CL_MAP_WRITE, 0,
	                                a->bytes, 0, NULL, NULL, &rc);
	if (!b->host[i])
		return worker_fail(w, out ? "clEnqueueMapBuffer(out)" : "clEnqueueMapBuffer(in)", rc);
	return 0;
}

/* The batch's buffers and its own kernel, whose arguments are all set here: setting them per
 * batch on a shared kernel costs the worker's thread calls the plain loop does not make. */
int worker_alloc_batch(struct gd_worker *w, struct gd_batch *b, int lane, bool pinned)
{
	cl_int rc;
	b->lane = &w->lanes[lane];
	b->q = worker_lane_queue(b->lane);
	b->ev_k = xcalloc(w->k->launches, sizeof(cl_event));
	if (!(b->kern = clCreateKernel(w->prog.prog, w->prog.name, &rc)))
		return worker_fail(w, "clCreateKernel", rc);
	if (clx_set_fixed_args(&w->prog, b->kern, w->once, w->err, sizeof(w->err)))
		return -1;
	for (int i = 0; i < w->prog.nargs; i++) {
		enum ka_kind k = w->prog.arg[i].kind;
		if (k != KA_IN_BATCH && k != KA_OUT)
			continue;
		if (alloc_arg(w, b, i, pinned))
			return -1;
		if ((rc = clSetKernelArg(b->kern, (cl_uint)i, sizeof(cl_mem), &b->buf[i])) != CL_SUCCESS)
			return worker_fail(w, "clSetKernelArg", rc);
	}
	return 0;
}

static void release(cl_event *ev)
{
	if (*ev)
		clReleaseEvent(*ev);
	*ev = NULL;
}

void worker_release_events(struct gd_worker *w, struct gd_batch *b)
{
	for (uint32_t k = 0; b->ev_k && k < w->k->launches; k++)
		release(&b->ev_k[k]);
	for (int i = 0; i < KA_MAX; i++) {
		release(&b->ev_write[i]);
		release(&b->ev_read[i]);
	}
}

/* Frees the batch; the lanes' queues are finished first (free_lanes comes after). */
static void free_batch(struct gd_worker *w, struct gd_batch *b)
{
	if (b->q)
		clFinish(b->q);
	for (int i = 0; i < KA_MAX; i++) {
		if (b->pin[i]) {
			if (b->host[i])
				clEnqueueUnmapMemObject(b->q, b->pin[i], b->host[i], 0, NULL, NULL);
			clFinish(b->q);
			clReleaseMemObject(b->pin[i]);
		} else {
			free(b->host[i]);
		}
		if (b->buf[i])
			clReleaseMemObject(b->buf[i]);
	}
	worker_release_events(w, b);
	free(b->ev_k);
	if (b->kern)
		clReleaseKernel(b->kern);
	memset(b, 0, sizeof(*b));
}

int worker_begin_batch(struct gd_worker *w, struct gd_batch *b)
{
	struct gd_lane *l = b->lane;
	cl_int rc = CL_SUCCESS;
	b->t_enq = now_ns();
	b->profiled = sampler_begin(&w->smp);
	if (b->profiled && !l->prof && !(l->prof = new_queue(w, true, &rc)))
		return worker_fail(w, "clCreateCommandQueueWithProperties", rc);
	b->q = b->profiled ? l->prof : l->plain;
	return 0;
}

cl_event *worker_event(const struct gd_batch *b, cl_event *ev, bool need)
{
	return b->profiled || need ? ev : NULL;
}

int worker_enqueue_kernels(struct gd_worker *w, struct gd_batch *b, bool chain, bool last)
{
	size_t global = w->k->size;
	uint32_t n = w->k->launches;
	struct gd_lane *l = b->lane;
	cl_int rc;
	bool wait = chain && l->last && l->last_q != b->q;
	for (uint32_t k = 0; k < n; k++) {
		cl_event *ev = worker_event(b, &b->ev_k[k], (chain || last) && k == n - 1);
		rc = clEnqueueNDRangeKernel(b->q, b->kern, 1, NULL, &global, NULL, wait && k == 0 ? 1 : 0,
		                            wait && k == 0 ? &l->last : NULL, ev);
		if (rc != CL_SUCCESS)
			return worker_fail(w, "clEnqueueNDRangeKernel", rc);
	}
	if (chain) {
		release(&l->last);
		l->last = b->ev_k[n - 1];
		clRetainEvent(l->last);
		l->last_q = b->q;
	}
	return 0;
}

int worker_write_inputs(struct gd_worker *w, struct gd_batch *b, bool blocking)
{
	int k = 0;
	for (int i = 0; i < w->prog.nargs; i++) {
		const struct ka_setup *a = &w->prog.arg[i];
		if (a->kind != KA_IN_BATCH)
			continue;
		cl_int rc =
		    clEnqueueWriteBuffer(b->q, b->buf[i], blocking ? CL_TRUE : CL_FALSE, 0, a->bytes,
		                         b->host[i], 0, NULL, worker_event(b, &b->ev_write[k++], false));
		if (rc != CL_SUCCESS)
			return worker_fail(w, "clEnqueueWriteBuffer", rc);
	}
	return 0;
}

int worker_read_outputs(struct gd_worker *w, struct gd_batch *b, bool blocking, bool last)
{
	int k = 0;
	for (int i = 0; i < w->prog.nargs; i++) {
		const struct ka_setup *a = &w->prog.arg[i];
		if (a->kind != KA_OUT)
			continue;
		cl_event *ev = worker_event(b, &b->ev_read[k], last && k == w->nout - 1);
		k++;
		cl_int rc = clEnqueueReadBuffer(b->q, b->buf[i], blocking ? CL_TRUE : CL_FALSE, 0, a->bytes,
		                                b->host[i], 0, NULL, ev);
		if (rc != CL_SUCCESS)
			return worker_fail(w, "clEnqueueReadBuffer", rc);
	}
	return 0;
}

cl_event *worker_last_event(struct gd_worker *w, struct gd_batch *b)
{
	return w->nout ? &b->ev_read[w->nout - 1] : &b->ev_k[w->k->launches - 1];
}

/* Maps device times with clGetDeviceAndHostTimer where the platform has a host timer. */
static void choose_timebase(struct gd_worker *w)
{
	cl_ulong res = 0, dev = 0, host = 0, host_now = 0;
	timebase_init(&w->tb);
	w->tb_method = GD_TB_OFFSET;
	if (clGetPlatformInfo(w->dev.platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof(res), &res, NULL) !=
	        CL_SUCCESS ||
	    res == 0)
		return;
	int64_t before = now_ns();
	if (clGetDeviceAndHostTimer(w->dev.id, &dev, &host) != CL_SUCCESS ||
	    clGetHostTimer(w->dev.id, &host_now) != CL_SUCCESS)
		return;
	int64_t after = now_ns();
	/* The host timer's clock may not be CLOCK_MONOTONIC: bridge it through a second read. */
	int64_t host_to_mono = (before + after) / 2 - (int64_t)host_now;
	w->tb.offset = (int64_t)host - (int64_t)dev + host_to_mono;
	w->tb.samples = 1;
	w->tb_method = GD_TB_HOSTTIMER;
}

/* The inputs made once (integer buffers), shared by every batch; counts the batch's generated
 * inputs and outputs. */
static int setup_args(struct gd_worker *w)
{
	cl_int rc;
	for (int i = 0; i < w->prog.nargs; i++) {
		const struct ka_setup *a = &w->prog.arg[i];
		w->nin += a->kind == KA_IN_BATCH;
		w->nout += a->kind == KA_OUT;
		if (a->kind != KA_IN_ONCE)
			continue;
		w->once_host[i] = xmalloc(a->bytes);
		kargs_fill(a, &w->rng, w->wl->generator, w->once_host[i]);
		w->once[i] = clCreateBuffer(w->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a->bytes,
		                            w->once_host[i], &rc);
		if (!w->once[i])
			return worker_fail(w, "clCreateBuffer(input)", rc);
	}
	return 0;
}

int worker_setup(struct gd_worker *w)
{
	const struct gd_workload *wl = w->wl;
	char msg[8192];
	cl_int rc;
	w->dtype = clx_child_dtype(w->k->dtype);
	w->ctx = clCreateContext(NULL, 1, &w->dev.id, NULL, NULL, &rc);
	if (!w->ctx)
		return worker_fail(w, "clCreateContext", rc);
	if (clx_program_build(w->ctx, &w->dev, w->k, w->dtype, &w->prog, msg, sizeof(msg))) {
		str_copy(w->err, sizeof(w->err), msg);
		return -1;
	}
	w->kv = xcalloc(w->k->launches, sizeof(*w->kv));
	if (setup_args(w))
		return -1;
	if (wl->profile != GD_PROF_OFF) /* without device times there is nothing to map */
		choose_timebase(w);
	seg_set_timebase(w->seg, w->tb_method);
	if (gd_modes[wl->mode].setup(w))
		return -1;
	sampler_init(&w->smp, wl->profile, wl->sample_every, (uint32_t)w->nlanes, (uint32_t)w->depth);
	return 0;
}

void worker_teardown(struct gd_worker *w)
{
	genpool_free(w->gen); /* before the buffers it writes into */
	w->gen = NULL;
	for (int i = 0; i < w->nb; i++)
		free_batch(w, &w->b[i]);
	free_lanes(w);
	for (int i = 0; i < KA_MAX; i++) {
		if (w->once[i])
			clReleaseMemObject(w->once[i]);
		free(w->once_host[i]);
	}
	sampler_free(&w->smp);
	clx_program_free(&w->prog);
	if (w->ctx)
		clReleaseContext(w->ctx);
	free(w->kv);
}

/* worker.c: the worker role: set-up, the loop around a mode, publishing records. */
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "decode_ref.h"
#include "gputop/common.h"
#include "gputop/sig.h"
#include "worker_impl.h"

static volatile sig_atomic_t stop_flag, pause_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_pause(int sig)
{
	pause_flag = (sig == SIGUSR1);
}

static void install_signals(void)
{
	/* SA_RESTART: a stop or pause must not break a system call inside the OpenCL runtime
	 * (PoCL's kernel build fails when a rename in its cache is interrupted). */
	sig_handle(SIGTERM, on_stop, SA_RESTART);
	sig_handle(SIGINT, on_stop, SA_RESTART);
	sig_handle(SIGHUP, on_stop, SA_RESTART);
	sig_handle(SIGQUIT, on_stop, SA_RESTART); /* Ctrl-\ reaches the whole foreground group: a stop too */
	sig_handle(SIGUSR1, on_pause, SA_RESTART);
	sig_handle(SIGUSR2, on_pause, SA_RESTART);
	sig_handle(SIGPIPE, SIG_IGN, 0);
}

/* The supervisor spawns us with pause, resume and the stop signals blocked. They stay blocked
 * through the OpenCL set-up: an OpenCL runtime built on LLVM (PoCL) installs LLVM's handlers
 * for SIGUSR1 and others, and LLVM swallows SIGUSR1; and a stop taken by one of the runtime's
 * threads in the middle of a kernel compile breaks it (PoCL's clang then prints "1 error
 * generated."). So the handlers are installed again after set-up, and only then unblocked, in
 * this thread alone: threads the runtime started meanwhile keep them blocked. A stop that came
 * during set-up is taken now, before the first batch. */
static void unblock_signals(void)
{
	install_signals();
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < GD_ARRAY_LEN(sigs); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

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
static void release_prof_queues(struct gd_worker *w)
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

static void release_events(struct gd_worker *w, struct gd_batch *b)
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
	release_events(w, b);
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
	int64_t last[2];
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
	release_events(w, b);
	if (round_over)
		release_prof_queues(w);
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

/* Runs until SIGTERM or a failure; pauses between batches on SIGUSR1, resumes on SIGUSR2. */
static int run_loop(struct gd_worker *w)
{
	const struct gd_mode_ops *m = &gd_modes[w->wl->mode];
	pid_t sup = w->wa->supervisor;
	seg_set_state(w->seg, GD_SEG_RUNNING);
	while (!stop_flag && getppid() == sup) {
		if (pause_flag) {
			if (m->drain(w))
				return -1;
			seg_set_state(w->seg, GD_SEG_PAUSED);
			while (pause_flag && !stop_flag && getppid() == sup) {
				seg_heartbeat(w->seg);
				sleep_ns(GD_NS_PER_S / 50);
			}
			seg_set_state(w->seg, GD_SEG_RUNNING);
			continue;
		}
		if (m->step(w))
			return -1;
		seg_heartbeat(w->seg);
	}
	seg_set_state(w->seg, GD_SEG_STOPPING);
	return m->drain(w);
}

/* ---- the orphan watchdog ---- */

#define ORPHAN_POLL_NS  (GD_NS_PER_S / 5)
#define ORPHAN_GRACE_NS (2 * GD_NS_PER_S)

/* Held around the segment's creation, and by the watchdog from its last unlink to _exit, so
 * that no segment can be created after that unlink. */
static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;

/* The parent-death SIGTERM only sets a flag that the loop reads between batches, and nothing
 * interrupts a kernel or a hung OpenCL call. So a thread watches the parent: once it is gone,
 * the graceful path gets ORPHAN_GRACE_NS to finish the batch and clean up, then the watchdog
 * removes the segment and ends the process, whatever the main thread is doing. */
static void *watchdog(void *arg)
{
	const struct gd_worker_args *wa = arg;
	while (getppid() == wa->supervisor)
		sleep_ns(ORPHAN_POLL_NS);
	int64_t deadline = now_ns() + ORPHAN_GRACE_NS;
	for (int64_t now = now_ns(); now < deadline; now = now_ns())
		sleep_ns(deadline - now);
	pthread_mutex_lock(&seg_lock); /* never released: the process ends here */
	shm_unlink(wa->shm);
	_exit(GD_EXIT_OK);
	return NULL;
}

/* Starts the watchdog with every signal blocked in it: handlers run in the main thread. */
static void start_watchdog(const struct gd_worker_args *wa)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, (size_t)256 * 1024);
	/* Without it an orphan still ends after its batch (the parent-death signal). */
	int rc = pthread_create(&t, &attr, watchdog, (void *)wa);
	if (rc != 0)
		fprintf(stderr, GD_NAME ": worker %u: no orphan watchdog: %s\n", wa->id, strerror(rc));
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int worker_main(const struct gd_workload *wl, struct gd_devref dev, const struct gd_worker_args *wa)
{
	install_signals();
	/* Die with the supervisor; it may already be gone before prctl took effect. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != wa->supervisor)
		return GD_EXIT_OK;
	start_watchdog(wa);

	struct gd_worker w;
	memset(&w, 0, sizeof(w));
	w.wl = wl;
	w.k = &wl->kernel;
	w.wa = wa;
	rng_seed(&w.rng, rng_entropy());
	char msg[GD_ERR_LEN];
	if (clx_pick(dev.platform, dev.index, &w.dev, msg, sizeof(msg)) != 0)
		str_copy(w.err, sizeof(w.err), msg);

	struct gd_seg_info info = { .generation = wa->gen,
		                    .id = wa->id,
		                    .dtype_bytes = gd_dtype_info(clx_child_dtype(w.k->dtype))->bytes };
	str_copy(info.device, sizeof(info.device), w.dev.info.name);
	pthread_mutex_lock(&seg_lock);
	w.seg = seg_create(wa->shm, &info, msg, sizeof(msg));
	int e = errno;
	pthread_mutex_unlock(&seg_lock);
	if (!w.seg) {
		fprintf(stderr, GD_NAME ": worker %u (pid %d): %s\n", wa->id, (int)getpid(), msg);
		/* The supervisor reads the reason from the exit status. */
		return e > 0 && e < 128 ? GD_EXIT_NOSEG_ERRNO + e : GD_EXIT_NOSEG;
	}
	int rc = w.err[0] ? -1 : worker_setup(&w);
	unblock_signals();
	if (rc == 0)
		rc = run_loop(&w);
	worker_teardown(&w);
	if (rc != 0)
		seg_set_error(w.seg, w.err); /* the supervisor reports it */
	else {
		seg_set_state(w.seg, GD_SEG_EXITED);
	}
	/* The supervisor unlinks after its last read; an orphan cleans up after itself. */
	seg_close(w.seg, getppid() != wa->supervisor);
	return rc ? GD_EXIT_FAIL : GD_EXIT_OK;
}

/* test_konly_order.c: every batch computes from the inputs written for it, whichever queue it
 * runs on, under a runtime that takes the OpenCL standard at its word. A blocking
 * clEnqueueWriteBuffer promises only that its host memory may be reused when it returns; this
 * test's runtime (the functions below, put in front of the real ones) copies the data and issues
 * the write only once its queue gets another command, a flush or a finish, so it is ordered
 * after nothing on any other queue. PoCL itself completes a blocking write before it returns,
 * and orders every command on a buffer after its last writer, so only such a runtime shows a
 * batch reading inputs that have not arrived.
 *
 * Kernel-only mode writes its inputs once at set-up on each lane's plain queue, and its batches
 * run on the lane's profiling queue during a round of --profile sampled (the first round begins
 * with the first batch). Each batch's output is read back after its one run and compared with
 * the CPU reference; seed and pipelined check every batch themselves (--verify). */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gputop/common.h"
#include "tap.h"
#include "worker/decode_ref.h"
#include "worker/worker_impl.h"

/* ---- the deferring runtime ---- */

struct deferred {
	cl_command_queue q;
	cl_mem buf;
	size_t off, size;
	void *data;
};
static struct deferred pending[4 * GD_BATCHES_MAX];
static int npending, deferred_total;

#define REAL(name) ((__typeof__(&(name)))real_fn(#name))

static void *real_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "test_konly_order: no %s after this program\n", name);
		abort();
	}
	return f;
}

/* Issues q's deferred writes, in the order they were enqueued. */
static void issue(cl_command_queue q)
{
	int kept = 0;
	for (int i = 0; i < npending; i++) {
		struct deferred *d = &pending[i];
		if (d->q != q) {
			pending[kept++] = *d;
			continue;
		}
		REAL(clEnqueueWriteBuffer)(q, d->buf, CL_TRUE, d->off, d->size, d->data, 0, NULL, NULL);
		free(d->data);
		clReleaseMemObject(d->buf);
	}
	npending = kept;
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t off, size_t size,
                            const void *ptr, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	if (!blocking || nwait || ev || npending == (int)GD_ARRAY_LEN(pending)) {
		issue(q);
		return REAL(clEnqueueWriteBuffer)(q, buf, blocking, off, size, ptr, nwait, wait, ev);
	}
	void *data = xmalloc(size);
	memcpy(data, ptr, size); /* what "blocking" promises: ptr may be reused at once */
	clRetainMemObject(buf);  /* a command holds its buffer, as the runtime's own would */
	pending[npending++] = (struct deferred){ q, buf, off, size, data };
	deferred_total++;
	return CL_SUCCESS;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint nwait, const cl_event *wait,
                              cl_event *ev)
{
	issue(q);
	return REAL(clEnqueueNDRangeKernel)(q, k, dim, offset, global, local, nwait, wait, ev);
}

cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t off, size_t size,
                           void *ptr, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	issue(q);
	return REAL(clEnqueueReadBuffer)(q, buf, blocking, off, size, ptr, nwait, wait, ev);
}

cl_int clFlush(cl_command_queue q)
{
	issue(q);
	return REAL(clFlush)(q);
}

cl_int clFinish(cl_command_queue q)
{
	issue(q);
	return REAL(clFinish)(q);
}

cl_int clReleaseCommandQueue(cl_command_queue q)
{
	issue(q);
	return REAL(clReleaseCommandQueue)(q);
}

/* ---- the worker under it ---- */

/* The decode kernel's arguments: in (each batch), perm (once), out. */
enum { ARG_IN, ARG_PERM, ARG_OUT };

/* Batch b's output as the device left it, against the reference of b's input. */
static double batch_error(struct gd_worker *w, struct gd_batch *b)
{
	size_t bytes = w->prog.arg[ARG_OUT].bytes;
	void *out = xcalloc(bytes, 1);
	cl_int rc = clEnqueueReadBuffer(b->q, b->buf[ARG_OUT], CL_TRUE, 0, bytes, out, 0, NULL, NULL);
	double e = rc != CL_SUCCESS
	               ? -1
	               : decode_ref_error(b->host[ARG_IN], out, 4, w->once_host[ARG_PERM], w->k->size);
	free(out);
	return e;
}

/* One worker of mode on `queues` lanes under profile: set up, `steps` batches, drained. Kernel-
 * only's outputs are checked here; the other modes check each batch with --verify. */
static void run(enum gd_mode mode, int queues, enum gd_profile profile, int steps)
{
	char what[96];
	snprintf(what, sizeof(what), "%s, %d queue%s, --profile %s", gd_mode_name(mode), queues,
	         queues > 1 ? "s" : "", gd_profile_name(profile));
	struct gd_workload wl = {
		.kernel = { .size = 4099, .launches = 2, .dtype = GD_DT_F32 },
		.mode = mode,
		.queues = queues,
		.gen_threads = mode == GD_MODE_PIPELINED ? 0 : -1,
		.profile = profile,
		.verify = mode != GD_MODE_KERNEL_ONLY,
	};
	char err[512] = "", name[96];
	struct gd_worker *w = xcalloc(1, sizeof(*w));
	w->wl = &wl;
	w->k = &wl.kernel;
	rng_seed(&w->rng, 7);
	snprintf(name, sizeof(name), "/gputop-decode-test-konly-order.%d", (int)getpid());
	struct gd_seg_info info = { .generation = 1, .id = 1, .dtype_bytes = 4 };
	w->seg = seg_create(name, &info, err, sizeof(err));
	/* Nobody opens it by name: unlinked at once, a test that crashes leaves nothing behind. */
	if (w->seg)
		shm_unlink(name);
	int rc = w->seg ? clx_pick(-1, -1, &w->dev, err, sizeof(err)) : -1;
	if (rc == 0 && (rc = worker_setup(w)) != 0)
		str_copy(err, sizeof(err), w->err);
	for (int i = 0; rc == 0 && i < steps; i++)
		rc = gd_modes[mode].step(w);
	if (rc == 0)
		rc = gd_modes[mode].drain(w);
	if (rc && w->err[0])
		str_copy(err, sizeof(err), w->err);
	tap_ok(rc == 0 && w->batches > 0, "%s: %llu batches ran (%s)", what, (unsigned long long)w->batches,
	       rc ? err : "ok");
	if (mode == GD_MODE_KERNEL_ONLY) {
		double worst = 0;
		for (int i = 0; rc == 0 && i < w->nb; i++) {
			double e = batch_error(w, &w->b[i]);
			worst = e < 0 ? INFINITY : e > worst ? e : worst; /* a failed read: no result */
		}
		tap_ok(rc == 0 && worst <= decode_ref_tolerance(4),
		       "%s: each batch's output is the reference of its own input (worst relative error "
		       "%.3g)",
		       what, worst);
	}
	worker_teardown(w);
	if (w->seg)
		seg_close(w->seg, false);
	free(w);
}

int main(void)
{
	if (!getenv("POCL_CACHE_DIR"))
		setenv("POCL_CACHE_DIR", "/tmp/gputop-decode-pocl-cache", 0);
	/* The tests run from the repository's root (tests/run.sh). */
	if (!getenv("GPUTOP_DECODE_KERNELS"))
		setenv("GPUTOP_DECODE_KERNELS", "kernels", 0);
	/* Kernel-only: every batch of the first round runs on a profiling queue (sampled), or on
	 * the queue that wrote its inputs (full, off). One step per batch: each runs once. */
	static const int lanes[] = { 1, 2 };
	for (size_t i = 0; i < GD_ARRAY_LEN(lanes); i++)
		run(GD_MODE_KERNEL_ONLY, lanes[i], GD_PROF_SAMPLED, 2 * lanes[i]);
	run(GD_MODE_KERNEL_ONLY, 2, GD_PROF_FULL, 4);
	run(GD_MODE_KERNEL_ONLY, 2, GD_PROF_OFF, 4);
	/* Seed and pipelined write each batch's inputs on the queue its kernels run on. */
	run(GD_MODE_SEED, 1, GD_PROF_SAMPLED, 6);
	run(GD_MODE_PIPELINED, 2, GD_PROF_SAMPLED, 12);
	tap_ok(deferred_total > 0, "the runtime deferred %d blocking writes", deferred_total);
	return tap_done();
}

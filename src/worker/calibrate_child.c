/* calibrate_child.c: the calibration, the role behind --calibrate, in a process of its own
 * (the supervisor never loads OpenCL). It measures what this device does with this kernel (the
 * decode kernel or --kernel, its arguments set up as the workers do), size and dtype when
 * nothing else is in the way: launches back to back on one context, without profiling or
 * events, on 1, 2, 4 and 8 in-order queues (a batch of --launches per queue, each queue
 * refilled as soon as it is finished, so none drains while the others wait). The best figure
 * is the ceiling. Then, on one profiling queue, batches of launches back to back with an event
 * each: the median gap between consecutive kernels, what launching alone costs the device (the
 * diagnosis counts longer gaps as the host's). Short launches may be bound by the calls of
 * the one host thread rather than by the device, so the decode kernel is then measured again at
 * GD_CEILING_LARGER times the size on the best queue count: a figure that grows says the host
 * is the bound at this size (a user kernel's arguments are planned for its --size: it is not
 * scaled). It prints one line: "ceiling RATE QUEUES ONE_QUEUE_RATE GAP_NS RATE_4X", the rates
 * in the run's unit (kspec_rate_unit: Mbit/s, or Mitem/s for a user kernel), RATE_4X 0 when
 * not measured. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clx.h"
#include "measure/ceiling.h"
#include "gputop/common.h"
#include "ring/writer.h"
#include "gputop/rng.h"
#include "worker.h"

#define CALIBRATE_QUEUES      8
#define CALIBRATE_SECONDS     0.4 /* measured per queue count, after one warm-up batch per queue */
#define CALIBRATE_GAP_BATCHES 9   /* batches of the gap measurement, the first a warm-up */
#define CALIBRATE_GAPS_MAX    4096
/* The larger size is measured when a batch at the ceiling takes at most this long (so the
 * larger measurement stays under about a second), and its buffers take at most a quarter of the
 * device's memory. */
#define CALIBRATE_LARGER_BATCH_S 0.01

struct calibrate {
	const struct gd_kspec *k;
	struct clx_device dev;
	cl_context ctx;
	struct clx_program prog;
	cl_kernel kern[CALIBRATE_QUEUES];
	cl_command_queue q[CALIBRATE_QUEUES];
	cl_mem in[KA_MAX];                    /* inputs, shared by every queue */
	cl_mem out[CALIBRATE_QUEUES][KA_MAX]; /* each queue's outputs */
	char err[GD_ERR_LEN];
};

static int fail(struct calibrate *c, const char *call, cl_int rc)
{
	snprintf(c->err, sizeof(c->err), "%s: %s", call, clx_err(rc));
	return -1;
}

static int enqueue(struct calibrate *c, int i)
{
	size_t global = c->k->size;
	for (uint32_t n = 0; n < c->k->launches; n++) {
		cl_int rc =
		    clEnqueueNDRangeKernel(c->q[i], c->kern[i], 1, NULL, &global, NULL, 0, NULL, NULL);
		if (rc != CL_SUCCESS)
			return fail(c, "clEnqueueNDRangeKernel", rc);
	}
	cl_int rc = clFlush(c->q[i]);
	return rc == CL_SUCCESS ? 0 : fail(c, "clFlush", rc);
}

/* The rate (kspec_rate_unit) of nq queues kept busy for CALIBRATE_SECONDS; negative on
 * failure. */
static double run(struct calibrate *c, int nq)
{
	for (int i = 0; i < nq; i++)
		if (enqueue(c, i) || clFinish(c->q[i]) != CL_SUCCESS || enqueue(c, i))
			return -1;
	uint64_t batches = 0;
	int64_t t0 = now_ns(), t = t0;
	for (int i = 0; t - t0 < (int64_t)(CALIBRATE_SECONDS * 1e9); i = (i + 1) % nq) {
		cl_int rc = clFinish(c->q[i]);
		if (rc != CL_SUCCESS)
			return fail(c, "clFinish", rc);
		batches++;
		if (enqueue(c, i))
			return -1;
		t = now_ns();
	}
	for (int i = 0; i < nq; i++)
		clFinish(c->q[i]);
	return (double)batches * (double)kspec_items_per_batch(c->k) / ((double)(t - t0) / 1e9) / 1e6;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median gap START(k+1) - END(k) between kernels launched back to back on one profiling
 * queue (the first batch a warm-up), in ns; negative on failure, 0 for a single launch. */
static double launch_gap(struct calibrate *c)
{
	cl_int rc;
	cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
	cl_command_queue q = clCreateCommandQueueWithProperties(c->ctx, c->dev.id, props, &rc);
	if (!q)
		return fail(c, "clCreateCommandQueueWithProperties", rc);
	uint32_t n = c->k->launches < 512 ? c->k->launches : 512;
	cl_event *ev = xcalloc(n, sizeof(cl_event));
	int64_t *gap = xcalloc(CALIBRATE_GAPS_MAX, sizeof(int64_t));
	size_t ngap = 0, global = c->k->size;
	for (int b = 0; rc == CL_SUCCESS && b < CALIBRATE_GAP_BATCHES; b++) {
		uint32_t k = 0;
		for (; k < n && rc == CL_SUCCESS; k++)
			rc = clEnqueueNDRangeKernel(q, c->kern[0], 1, NULL, &global, NULL, 0, NULL, &ev[k]);
		if (rc == CL_SUCCESS)
			rc = clFinish(q);
		cl_ulong prev_end = 0;
		for (uint32_t i = 0; i < k; i++) {
			cl_ulong s = 0, e = 0;
			if (rc == CL_SUCCESS)
				rc = clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof(s), &s,
				                             NULL);
			if (rc == CL_SUCCESS)
				rc = clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof(e), &e,
				                             NULL);
			if (rc == CL_SUCCESS && b > 0 && i > 0 && ngap < CALIBRATE_GAPS_MAX)
				gap[ngap++] = s > prev_end ? (int64_t)(s - prev_end) : 0;
			prev_end = e;
			clReleaseEvent(ev[i]);
		}
	}
	clReleaseCommandQueue(q);
	free(ev);
	double median = 0;
	if (rc == CL_SUCCESS && ngap) {
		qsort(gap, ngap, sizeof(*gap), cmp_i64);
		size_t mid = ngap / 2;
		median = (double)gap[mid];
	}
	free(gap);
	return rc == CL_SUCCESS ? median : fail(c, "launch gap", rc);
}

/* The inputs, filled as the workers fill theirs, once for every queue. */
static int make_inputs(struct calibrate *c)
{
	struct gd_rng rng;
	rng_seed(&rng, 1);
	for (int i = 0; i < c->prog.nargs; i++) {
		const struct ka_setup *a = &c->prog.arg[i];
		if (a->kind != KA_IN_BATCH && a->kind != KA_IN_ONCE)
			continue;
		void *host = xmalloc(a->bytes);
		kargs_fill(a, &rng, GD_GEN_ZIGGURAT, host); /* values only: any generator will do */
		cl_int rc;
		c->in[i] =
		    clCreateBuffer(c->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a->bytes, host, &rc);
		free(host);
		if (!c->in[i])
			return fail(c, "clCreateBuffer", rc);
	}
	return 0;
}

/* Queue i's kernel with its own outputs. */
static int make_kernel(struct calibrate *c, int i)
{
	cl_int rc;
	if (!(c->kern[i] = clCreateKernel(c->prog.prog, c->prog.name, &rc)))
		return fail(c, "clCreateKernel", rc);
	cl_mem args[KA_MAX];
	memcpy(args, c->in, sizeof(args));
	for (int a = 0; a < c->prog.nargs; a++)
		if (c->prog.arg[a].kind == KA_OUT) {
			c->out[i][a] =
			    clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, c->prog.arg[a].bytes, NULL, &rc);
			if (!c->out[i][a])
				return fail(c, "clCreateBuffer", rc);
			args[a] = c->out[i][a];
		}
	return clx_set_fixed_args(&c->prog, c->kern[i], args, c->err, sizeof(c->err));
}

static int setup(struct calibrate *c, struct gd_devref dev)
{
	cl_int rc;
	if (clx_pick(dev.platform, dev.index, &c->dev, c->err, sizeof(c->err)))
		return -1;
	if (!(c->ctx = clCreateContext(NULL, 1, &c->dev.id, NULL, NULL, &rc)))
		return fail(c, "clCreateContext", rc);
	char msg[8192];
	if (clx_program_build(c->ctx, &c->dev, c->k, clx_child_dtype(c->k->dtype), &c->prog, msg,
	                      sizeof(msg))) {
		str_copy(c->err, sizeof(c->err), msg);
		return -1;
	}
	if (make_inputs(c))
		return -1;
	for (int i = 0; i < CALIBRATE_QUEUES; i++) {
		if (!(c->q[i] = clCreateCommandQueueWithProperties(c->ctx, c->dev.id, NULL, &rc)))
			return fail(c, "clCreateCommandQueueWithProperties", rc);
		if (make_kernel(c, i))
			return -1;
	}
	return 0;
}

static void teardown(struct calibrate *c)
{
	for (int i = 0; i < CALIBRATE_QUEUES; i++) {
		if (c->q[i])
			clReleaseCommandQueue(c->q[i]);
		if (c->kern[i])
			clReleaseKernel(c->kern[i]);
		for (int a = 0; a < KA_MAX; a++)
			if (c->out[i][a])
				clReleaseMemObject(c->out[i][a]);
	}
	for (int a = 0; a < KA_MAX; a++)
		if (c->in[a])
			clReleaseMemObject(c->in[a]);
	clx_program_free(&c->prog);
	if (c->ctx)
		clReleaseContext(c->ctx);
}

/* Whether the decode kernel at the larger size is worth measuring and fits: a short batch at
 * the ceiling (rate) and buffers for every queue within the device's memory. */
static bool larger_fits(const struct calibrate *c, double rate)
{
	const struct gd_kspec *k = c->k;
	if (k->source || (uint64_t)k->size * GD_CEILING_LARGER > GD_SIZE_MAX ||
	    (double)kspec_items_per_batch(k) / (rate * 1e6) > CALIBRATE_LARGER_BATCH_S)
		return false;
	cl_ulong mem = 0, alloc = 0;
	if (clGetDeviceInfo(c->dev.id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, NULL) != CL_SUCCESS ||
	    clGetDeviceInfo(c->dev.id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(alloc), &alloc, NULL) !=
	        CL_SUCCESS)
		return false;
	uint64_t total = 0;
	for (int i = 0; i < c->prog.nargs; i++) {
		const struct ka_setup *a = &c->prog.arg[i];
		uint64_t bytes = (uint64_t)a->bytes * GD_CEILING_LARGER;
		if (a->kind != KA_IN_BATCH && a->kind != KA_IN_ONCE && a->kind != KA_OUT)
			continue;
		if (bytes > alloc)
			return false;
		total += a->kind == KA_OUT ? bytes * CALIBRATE_QUEUES : bytes;
	}
	return total <= mem / 4;
}

/* The ceiling at the larger size on nq queues, in a context of its own; negative on failure
 * (c->err says why). */
static double run_larger(struct calibrate *c, struct gd_devref dev, int nq)
{
	struct gd_kspec k = *c->k;
	k.size *= GD_CEILING_LARGER;
	struct calibrate big;
	memset(&big, 0, sizeof(big));
	big.k = &k;
	double rate = setup(&big, dev) ? -1 : run(&big, nq);
	teardown(&big);
	if (rate < 0)
		str_copy(c->err, sizeof(c->err), big.err);
	return rate;
}

int calibrate_child_main(const struct gd_kspec *k, struct gd_devref dev, pid_t parent)
{
	/* Dies with the supervisor, whatever it is doing: an endless kernel cannot be asked to
	 * stop, and nothing here needs cleaning up. The supervisor may be gone already. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return GD_EXIT_FAIL;
	struct calibrate c;
	memset(&c, 0, sizeof(c));
	c.k = k;
	int rc = setup(&c, dev);
	double best = 0, one = 0, gap = 0, larger = 0;
	int best_q = 1;
	for (int nq = 1; rc == 0 && nq <= CALIBRATE_QUEUES; nq *= 2) {
		double m = run(&c, nq);
		if (m < 0)
			rc = -1;
		else if (m > best) {
			best = m;
			best_q = nq;
		}
		if (nq == 1)
			one = m;
	}
	if (rc == 0 && (gap = launch_gap(&c)) < 0)
		rc = -1;
	bool measure_larger = rc == 0 && larger_fits(&c, best);
	teardown(&c);
	char at[32] = ""; /* where it failed, when at the larger size */
	if (measure_larger && (larger = run_larger(&c, dev, best_q)) < 0) {
		rc = -1;
		snprintf(at, sizeof(at), "at %dx the size: ", GD_CEILING_LARGER);
	}
	if (rc) {
		fprintf(stderr, GD_NAME ": --calibrate: %s%s\n", at, c.err);
		return GD_EXIT_FAIL;
	}
	printf("ceiling %.4f %d %.4f %.0f %.4f\n", best, best_q, one, gap, larger);
	return fflush(stdout) == 0 ? GD_EXIT_OK : GD_EXIT_FAIL;
}

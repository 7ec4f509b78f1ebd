/* calibrate_child.c: the calibration, the role behind --calibrate, in a process of its own
 * (the supervisor never loads OpenCL). It measures what this device does with this kernel (the
 * decode kernel or --kernel, its arguments set up as the workers do), size and dtype when
 * nothing else is in the way: launches back to back on one context, without profiling or
 * events, on 1, 2, 4 and 8 in-order queues (a batch of --launches per queue, each queue
 * refilled as soon as it is finished, so none drains while the others wait). The best figure
 * is the ceiling. It prints one line: "ceiling RATE QUEUES ONE_QUEUE_RATE", the rates in the
 * run's unit (kspec_rate_unit: Mbit/s, or Mitem/s for a user kernel). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clx.h"
#include "gputop/common.h"
#include "gputop/writer.h"
#include "gputop/rng.h"
#include "gputop/worker.h"

#define CALIBRATE_QUEUES  8
#define CALIBRATE_SECONDS 0.4 /* measured per queue count, after one warm-up batch per queue */

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
	double best = 0, one = 0;
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
	teardown(&c);
	if (rc) {
		fprintf(stderr, GD_NAME ": --calibrate: %s\n", c.err);
		return GD_EXIT_FAIL;
	}
	printf("ceiling %.4f %d %.4f\n", best, best_q, one);
	return fflush(stdout) == 0 ? GD_EXIT_OK : GD_EXIT_FAIL;
}

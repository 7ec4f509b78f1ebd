/* modes.c: the three worker loops behind one table: seed (the original's blocking loop),
 * pipelined (batches overlapped on several queues with pinned staging), kernel-only
 * (back-to-back launches: the device ceiling). */
#include <string.h>

#include "gputop/common.h"
#include "worker_impl.h"

static size_t bytes(const struct gd_worker *w)
{
	return w->o->size * w->elem;
}

static int no_drain(struct gd_worker *w)
{
	(void)w;
	return 0;
}

/* ---- seed: blocking write, launches, finish, blocking read ---- */

static int seed_setup(struct gd_worker *w)
{
	w->nb = 1;
	return worker_alloc_batch(w, &w->b[0], false);
}

static int seed_step(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[0];
	cl_int rc;
	b->t_begin = now_ns();
	worker_generate(w, b->host_in);
	b->t_gen = now_ns();
	rc = clEnqueueWriteBuffer(b->q, b->in, CL_TRUE, 0, bytes(w), b->host_in, 0, NULL, &b->ev_write);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clEnqueueWriteBuffer", rc);
	if (worker_enqueue_kernels(w, b))
		return -1;
	if ((rc = clFinish(b->q)) != CL_SUCCESS)
		return worker_fail(w, "clFinish", rc);
	rc = clEnqueueReadBuffer(b->q, b->out, CL_TRUE, 0, bytes(w), b->host_out, 0, NULL, &b->ev_read);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clEnqueueReadBuffer", rc);
	int64_t t_end = now_ns();
	if (worker_verify(w, b->host_in, b->host_out))
		return -1;
	return worker_publish(w, b, t_end);
}

/* ---- pipelined: GD_PIPE_DEPTH batches in flight, one in-order queue each ---- */

static int pipe_setup(struct gd_worker *w)
{
	w->nb = GD_PIPE_DEPTH;
	for (int i = 0; i < w->nb; i++)
		if (worker_alloc_batch(w, &w->b[i], true))
			return -1;
	return 0;
}

/* Waits for batch b's read and publishes it. */
static int pipe_complete(struct gd_worker *w, struct gd_batch *b)
{
	if (!b->inflight)
		return 0;
	cl_int rc = clWaitForEvents(1, &b->ev_read);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clWaitForEvents", rc);
	int64_t t_end = now_ns();
	b->inflight = false;
	if (worker_verify(w, b->host_in, b->host_out))
		return -1;
	return worker_publish(w, b, t_end);
}

static int pipe_step(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[w->next];
	w->next = (w->next + 1) % w->nb;
	if (pipe_complete(w, b))
		return -1;
	/* Generating here overlaps the device work of the other slots. */
	b->t_begin = now_ns();
	worker_generate(w, b->host_in);
	b->t_gen = now_ns();
	cl_int rc =
	    clEnqueueWriteBuffer(b->q, b->in, CL_FALSE, 0, bytes(w), b->host_in, 0, NULL, &b->ev_write);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clEnqueueWriteBuffer", rc);
	if (worker_enqueue_kernels(w, b))
		return -1;
	rc = clEnqueueReadBuffer(b->q, b->out, CL_FALSE, 0, bytes(w), b->host_out, 0, NULL, &b->ev_read);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clEnqueueReadBuffer", rc);
	if ((rc = clFlush(b->q)) != CL_SUCCESS)
		return worker_fail(w, "clFlush", rc);
	b->inflight = true;
	return 0;
}

static int pipe_drain(struct gd_worker *w)
{
	/* Oldest first, so records keep their batch order. */
	for (int i = 0; i < w->nb; i++) {
		struct gd_batch *b = &w->b[(w->next + i) % w->nb];
		if (pipe_complete(w, b))
			return -1;
	}
	return 0;
}

/* ---- kernel-only: the input is written once; batches of launches run back to back ---- */

static int konly_setup(struct gd_worker *w)
{
	/* Two batches on one queue: the next is enqueued before the previous is waited for. */
	w->nb = 2;
	for (int i = 0; i < w->nb; i++)
		if (worker_alloc_batch(w, &w->b[i], false))
			return -1;
	/* Both batches share the first queue, so launches stay back to back. */
	clReleaseCommandQueue(w->b[1].q);
	w->b[1].q = w->b[0].q;
	clRetainCommandQueue(w->b[0].q);
	for (int i = 0; i < w->nb; i++) {
		struct gd_batch *b = &w->b[i];
		worker_generate(w, b->host_in);
		cl_int rc =
		    clEnqueueWriteBuffer(b->q, b->in, CL_TRUE, 0, bytes(w), b->host_in, 0, NULL, NULL);
		if (rc != CL_SUCCESS)
			return worker_fail(w, "clEnqueueWriteBuffer", rc);
	}
	if (!w->o->verify)
		return 0;
	/* One untimed batch read back for --verify. */
	struct gd_batch *b = &w->b[0];
	cl_int rc;
	if (worker_enqueue_kernels(w, b))
		return -1;
	rc = clEnqueueReadBuffer(b->q, b->out, CL_TRUE, 0, bytes(w), b->host_out, 0, NULL, NULL);
	for (uint32_t k = 0; k < w->o->launches; k++) {
		clReleaseEvent(b->ev_k[k]);
		b->ev_k[k] = NULL;
	}
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clEnqueueReadBuffer", rc);
	return worker_verify(w, b->host_in, b->host_out);
}

static int konly_complete(struct gd_worker *w, struct gd_batch *b)
{
	if (!b->inflight)
		return 0;
	cl_int rc = clWaitForEvents(1, &b->ev_k[w->o->launches - 1]);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clWaitForEvents", rc);
	b->inflight = false;
	return worker_publish(w, b, now_ns());
}

static int konly_step(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[w->next];
	struct gd_batch *prev = &w->b[(w->next + w->nb - 1) % w->nb];
	w->next = (w->next + 1) % w->nb;
	if (konly_complete(w, b))
		return -1;
	b->t_begin = b->t_gen = now_ns();
	if (worker_enqueue_kernels(w, b))
		return -1;
	cl_int rc = clFlush(b->q);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clFlush", rc);
	b->inflight = true;
	return konly_complete(w, prev);
}

static int konly_drain(struct gd_worker *w)
{
	for (int i = 0; i < w->nb; i++)
		if (konly_complete(w, &w->b[(w->next + i) % w->nb]))
			return -1;
	return 0;
}

const struct gd_mode_ops gd_modes[GD_MODE_COUNT] = {
	[GD_MODE_SEED] = { .setup = seed_setup, .step = seed_step, .drain = no_drain },
	[GD_MODE_PIPELINED] = { .setup = pipe_setup, .step = pipe_step, .drain = pipe_drain },
	[GD_MODE_KERNEL_ONLY] = { .setup = konly_setup, .step = konly_step, .drain = konly_drain },
};

/* modes.c: the three worker loops behind one table: seed (the original's blocking loop),
 * pipelined (batches overlapped on several queues with pinned staging), kernel-only
 * (back-to-back launches: the device ceiling). Which batches are profiled is the sampler's
 * choice (worker_begin_batch); a mode only asks for the events it waits on. */
#include <stdio.h>
#include <string.h>

#include "gputop/common.h"
#include "worker_impl.h"

static int no_drain(struct gd_worker *w)
{
	(void)w;
	return 0;
}

/* nb batches spread round robin over the lanes. */
static int alloc_batches(struct gd_worker *w, int nb, bool pinned)
{
	w->nb = nb;
	for (int i = 0; i < nb; i++)
		if (worker_alloc_batch(w, &w->b[i], i % w->nlanes, pinned))
			return -1;
	return 0;
}

/* ---- seed: blocking write, launches, finish, blocking read ---- */

static int seed_setup(struct gd_worker *w)
{
	if (worker_alloc_lanes(w, 1))
		return -1;
	w->depth = 1;
	return alloc_batches(w, 1, false);
}

static int seed_step(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[0];
	cl_int rc;
	b->t_begin = now_ns();
	worker_generate(w, b);
	b->t_gen = now_ns();
	if (worker_begin_batch(w, b) || worker_write_inputs(w, b, true) ||
	    worker_enqueue_kernels(w, b, false, false))
		return -1;
	if ((rc = clFinish(b->q)) != CL_SUCCESS)
		return worker_fail(w, "clFinish", rc);
	if (worker_read_outputs(w, b, true, false))
		return -1;
	int64_t t_end = now_ns();
	if (worker_verify(w, b))
		return -1;
	return worker_publish(w, b, t_end);
}

/* ---- pipelined: two batches in flight per lane, each with its own buffers ----
 *
 * Batches take the lanes in turn, so every lane has two in flight. Inputs are generated on the
 * worker's own thread between enqueues (--gen-threads 0), or by generation threads ahead of
 * time: every batch not in flight is being generated, and the worker's thread enqueues the
 * next batch in order as soon as it is ready and a lane has room, completing the oldest batch
 * in flight (and handing it back to the generators) while not. Deeper queues lose: on the H200
 * a worker that let every generated batch in (up to 31 on 8 lanes) made 8-15% less in f32, as
 * did one with three per lane (doc/PERFORMANCE.md). */

static int pipe_setup(struct gd_worker *w)
{
	int lanes = w->wl->queues;
	if (worker_alloc_lanes(w, lanes))
		return -1;
	int threads = w->wl->gen_threads > 0 ? w->wl->gen_threads : 0;
	/* Two per lane in flight, and one for every generator to fill. */
	int nb = 2 * lanes + threads < GD_BATCHES_MAX ? 2 * lanes + threads : GD_BATCHES_MAX;
	w->depth = 2 * lanes;
	if (alloc_batches(w, nb, true))
		return -1;
	if (!threads)
		return 0;
	if (!(w->gen = genpool_new(threads, nb, worker_fill, w, rng_next(&w->rng)))) {
		snprintf(w->err, sizeof(w->err), "cannot start %d generation threads", threads);
		return -1;
	}
	for (int i = 0; i < nb; i++)
		genpool_submit(w->gen, i, &w->b[i]);
	return 0;
}

/* Waits for batch b's read and publishes it. */
static int pipe_complete(struct gd_worker *w, struct gd_batch *b)
{
	if (!b->inflight)
		return 0;
	cl_int rc = clWaitForEvents(1, worker_last_event(w, b));
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clWaitForEvents", rc);
	int64_t t_end = now_ns();
	b->inflight = false;
	if (worker_verify(w, b))
		return -1;
	return worker_publish(w, b, t_end);
}

/* Writes b's input, launches, reads its output back on the next lane: all non-blocking. */
static int pipe_enqueue(struct gd_worker *w, struct gd_batch *b)
{
	b->lane = &w->lanes[w->turn];
	w->turn = (w->turn + 1) % w->nlanes;
	if (worker_begin_batch(w, b) || worker_write_inputs(w, b, false) ||
	    worker_enqueue_kernels(w, b, false, w->nout == 0) || worker_read_outputs(w, b, false, true))
		return -1;
	cl_int rc;
	if ((rc = clFlush(b->q)) != CL_SUCCESS)
		return worker_fail(w, "clFlush", rc);
	b->inflight = true;
	return 0;
}

/* Generation on the worker's own thread: it overlaps the device work of the other batches. */
static int pipe_step_inline(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[w->next];
	w->next = (w->next + 1) % w->nb;
	if (pipe_complete(w, b))
		return -1;
	b->t_begin = now_ns();
	worker_generate(w, b);
	b->t_gen = now_ns();
	b->gen_thread = 0;
	return pipe_enqueue(w, b);
}

static int pipe_step_threads(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[w->next];
	if (!b->inflight && w->inflight < w->depth && (w->inflight == 0 || genpool_ready(w->gen, w->next))) {
		struct gd_gen_done g;
		genpool_wait(w->gen, w->next, &g);
		b->t_begin = g.t_begin;
		b->t_gen = g.t_end;
		b->gen_thread = g.thread;
		w->next = (w->next + 1) % w->nb;
		w->inflight++;
		return pipe_enqueue(w, b);
	}
	struct gd_batch *c = &w->b[w->oldest];
	if (pipe_complete(w, c))
		return -1;
	genpool_submit(w->gen, w->oldest, c);
	w->oldest = (w->oldest + 1) % w->nb;
	w->inflight--;
	return 0;
}

static int pipe_step(struct gd_worker *w)
{
	return w->gen ? pipe_step_threads(w) : pipe_step_inline(w);
}

static int pipe_drain(struct gd_worker *w)
{
	if (w->gen) {
		for (; w->inflight > 0; w->inflight--) {
			struct gd_batch *c = &w->b[w->oldest];
			if (pipe_complete(w, c))
				return -1;
			genpool_submit(w->gen, w->oldest, c);
			w->oldest = (w->oldest + 1) % w->nb;
		}
		return 0;
	}
	/* Oldest first, so records keep their batch order. */
	for (int i = 0; i < w->nb; i++) {
		struct gd_batch *b = &w->b[(w->next + i) % w->nb];
		if (pipe_complete(w, b))
			return -1;
	}
	return 0;
}

/* ---- kernel-only: the inputs are written once; batches of launches run back to back ----
 *
 * Outputs are not read back: the mode measures the device alone (--verify reads one untimed
 * batch at set-up). */

/* One untimed batch read back for --verify. */
static int konly_verify(struct gd_worker *w)
{
	struct gd_batch *b = &w->b[0];
	b->q = worker_lane_queue(b->lane);
	b->profiled = false;
	if (worker_enqueue_kernels(w, b, false, false) || worker_read_outputs(w, b, true, false))
		return -1;
	return worker_verify(w, b);
}

static int konly_setup(struct gd_worker *w)
{
	/* Two batches per lane: the next is enqueued before the previous is waited for. */
	int lanes = w->wl->queues;
	if (worker_alloc_lanes(w, lanes) || alloc_batches(w, 2 * lanes, false))
		return -1;
	w->depth = w->nb;
	for (int i = 0; i < w->nb; i++) {
		struct gd_batch *b = &w->b[i];
		worker_generate(w, b);
		b->profiled = false; /* set-up: no events */
		if (worker_write_inputs(w, b, true))
			return -1;
	}
	/* A blocking write promises only that its host memory may be reused, not that the write
	 * is done: a batch's kernels may run on another queue than its lane's plain one (the
	 * profiling queue of a round), which nothing orders after the write. Finished here, every
	 * input is on the device before any batch begins. */
	for (int i = 0; i < w->nlanes; i++) {
		cl_int rc = clFinish(worker_lane_queue(&w->lanes[i]));
		if (rc != CL_SUCCESS)
			return worker_fail(w, "clFinish", rc);
	}
	return w->wl->verify ? konly_verify(w) : 0;
}

static int konly_complete(struct gd_worker *w, struct gd_batch *b)
{
	if (!b->inflight)
		return 0;
	cl_int rc = clWaitForEvents(1, &b->ev_k[w->k->launches - 1]);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clWaitForEvents", rc);
	b->inflight = false;
	return worker_publish(w, b, now_ns());
}

/* Batch i runs on lane i % nlanes, so the batch before it on its lane is nlanes places back. */
static int konly_step(struct gd_worker *w)
{
	int i = w->next;
	struct gd_batch *b = &w->b[i];
	w->next = (i + 1) % w->nb;
	if (konly_complete(w, b))
		return -1;
	b->t_begin = b->t_gen = now_ns();
	if (worker_begin_batch(w, b) || worker_enqueue_kernels(w, b, true, false))
		return -1;
	cl_int rc = clFlush(b->q);
	if (rc != CL_SUCCESS)
		return worker_fail(w, "clFlush", rc);
	b->inflight = true;
	/* The batch begun one round of lanes ago: one stays in flight on every lane, and
	 * completions keep the order in which batches began. */
	return konly_complete(w, &w->b[(i + w->nb - w->nlanes) % w->nb]);
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

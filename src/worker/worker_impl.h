/* worker_impl.h (private to the worker side: worker.c, batch.c, publish.c, modes.c and
 * test_readback.c): the worker's OpenCL state, one batch's objects, and the table of worker
 * modes. */
#ifndef GPUTOP_WORKER_IMPL_H
#define GPUTOP_WORKER_IMPL_H

#include <stdbool.h>

#include "clx.h"
#include "genpool.h"
#include "ring/writer.h"
#include "gputop/rng.h"
#include "gputop/spec.h"
#include "sampler.h"
#include "measure/timebase.h"

#define GD_BATCHES_MAX 64 /* batches of one worker: in flight and being generated */

/* One in-order stream of batches. Under --profile sampled it has a queue without profiling and,
 * during a round, one with; a batch runs on one of them, and in kernel-only mode its first
 * launch waits for the stream's previous batch when that ran on the other queue. */
struct gd_lane {
	cl_command_queue plain;  /* no profiling; NULL under --profile full */
	cl_command_queue prof;   /* CL_QUEUE_PROFILING_ENABLE: always under full, never under off */
	cl_command_queue last_q; /* the queue of the lane's latest batch */
	cl_event last;           /* its last kernel (kernel-only), retained */
};

/* One batch's OpenCL objects: buffers and the events of its commands. Buffers are indexed by
 * the kernel argument they are: only the batch's own (inputs generated for every batch,
 * outputs: KA_IN_BATCH, KA_OUT) are set; the others are the worker's. */
struct gd_batch {
	struct gd_lane *lane;
	cl_command_queue q; /* this pass's queue: the lane's plain or profiling queue */
	bool profiled;      /* this pass records every command's times */
	cl_kernel kern;     /* its own, every argument set once: a batch enqueues, nothing more */
	cl_mem buf[KA_MAX];
	cl_mem pin[KA_MAX]; /* pinned staging (pipelined) */
	void *host[KA_MAX]; /* the host side of buf: generated inputs, outputs read back */
	/* profiled: every command; else what the mode waits on. One write per generated input and
	 * one read per output, in argument order. */
	cl_event ev_write[KA_MAX], ev_read[KA_MAX], *ev_k;
	int64_t t_begin, t_gen, t_enq; /* t_enq: its first command enqueued */
	int gen_thread; /* the generation thread that filled it (from 1), or 0: the worker's own */
	bool inflight;
};

struct gd_worker {
	const struct gd_workload *wl;    /* how it runs the kernel */
	const struct gd_kspec *k;        /* the kernel: &wl->kernel */
	const struct gd_worker_args *wa; /* its segment and supervisor (worker_main's) */
	struct clx_device dev;
	enum gd_dtype dtype; /* the decode kernel's elements: f32 or f64 */
	cl_context ctx;
	struct clx_program prog; /* the program, its kernel and the plan of its arguments */
	cl_mem once[KA_MAX];     /* inputs made once (KA_IN_ONCE), shared by every batch */
	void *once_host[KA_MAX];
	int nin, nout;    /* the batch's generated inputs and outputs */
	int64_t (*kv)[2]; /* scratch: one batch's kernel START, END */
	struct gd_lane lanes[GD_QUEUES_MAX];
	int nlanes;
	struct gd_batch b[GD_BATCHES_MAX];
	int nb, next;           /* batches in use; the next to refill */
	int depth;              /* batches in flight at most */
	int oldest, inflight;   /* pipelined with generation threads: the batches in flight */
	int turn;               /* pipelined: the lane of the next batch enqueued */
	struct gd_genpool *gen; /* pipelined: generation threads, or NULL (generated inline) */
	struct gd_sampler smp;
	struct gd_rng rng;
	struct gd_seg *seg;
	struct gd_timebase_est tb;
	enum gd_timebase tb_method;
	uint64_t batches;
	char err[GD_ERR_LEN];
};

/* One worker mode (seed, pipelined or kernel-only; see the man page) behind one table. */
struct gd_mode_ops {
	int (*setup)(struct gd_worker *w);
	int (*step)(struct gd_worker *w);  /* one batch enqueued or completed; 0 or -1 (w->err) */
	int (*drain)(struct gd_worker *w); /* finish what is in flight */
};
extern const struct gd_mode_ops gd_modes[GD_MODE_COUNT];

/* Helpers the modes share (batch.c, publish.c). Those that return int return 0 or -1 with w->err
 * set. */
int worker_fail(struct gd_worker *w, const char *call, cl_int rc);
/* Creates nlanes lanes with the queues the profiling policy needs. */
int worker_alloc_lanes(struct gd_worker *w, int nlanes);
/* Buffers of batch b, which runs on lane `lane`; pinned staging when asked. */
int worker_alloc_batch(struct gd_worker *w, struct gd_batch *b, int lane, bool pinned);
/* The queue a batch of lane l uses outside a round: its plain one, or under full profiling its
 * profiling one. */
cl_command_queue worker_lane_queue(const struct gd_lane *l);
/* Starts a pass of b: decides whether it is profiled and picks its queue (creating the lane's
 * profiling queue for a round). */
int worker_begin_batch(struct gd_worker *w, struct gd_batch *b);
/* The event a command of b's pass records into: ev when profiled or when the mode waits on
 * it (need), else NULL. */
cl_event *worker_event(const struct gd_batch *b, cl_event *ev, bool need);
/* Enqueues the launches; chain: wait for the lane's previous batch when it ran on the other
 * queue, and remember this one's last kernel (kernel-only); last: keep the last kernel's event
 * (in b->ev_k) even when not profiled. */
int worker_enqueue_kernels(struct gd_worker *w, struct gd_batch *b, bool chain, bool last);
/* Writes b's generated inputs from their host side (blocking or not). */
int worker_write_inputs(struct gd_worker *w, struct gd_batch *b, bool blocking);
/* Reads b's outputs back to their host side; last: keep the last command's event. */
int worker_read_outputs(struct gd_worker *w, struct gd_batch *b, bool blocking, bool last);
/* The event of b's last command, once enqueued with last set: its last read, or its last
 * kernel when the kernel has no output. */
cl_event *worker_last_event(struct gd_worker *w, struct gd_batch *b);
/* Publishes b's record (measured when profiled, else estimated or host times only) and
 * releases its events. */
int worker_publish(struct gd_worker *w, struct gd_batch *b, int64_t t_end);
/* Releases the events of b's pass (its commands'); each is NULL after. */
void worker_release_events(struct gd_worker *w, struct gd_batch *b);
/* After a round of profiled batches has completed: releases the lanes' profiling queues (under
 * --profile sampled; full keeps them) and points nothing at them. */
void worker_release_prof_queues(struct gd_worker *w);
/* Checks b's output against the CPU reference (when --verify is on: the decode kernel). */
int worker_verify(struct gd_worker *w, const struct gd_batch *b);
/* Generates b's inputs on the worker's own thread. */
void worker_generate(struct gd_worker *w, struct gd_batch *b);
/* Fills the generated inputs of batch dst (a struct gd_batch) of worker ctx with rng: the
 * generation threads' job (genpool.h). */
void worker_fill(struct gd_rng *rng, void *dst, const void *ctx);

/* The worker's OpenCL set-up after clx_pick and its segment (wl, k and the rng set): context,
 * program, inputs made once, the mode's lanes and batches. 0, or -1 with w->err set; worker_teardown either
 * way. */
int worker_setup(struct gd_worker *w);
void worker_teardown(struct gd_worker *w);

#endif

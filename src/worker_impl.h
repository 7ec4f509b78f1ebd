/* worker_impl.h (private to worker.c and modes.c): the worker's OpenCL state, one batch's
 * objects, and the table of worker modes. */
#ifndef GPUTOP_WORKER_IMPL_H
#define GPUTOP_WORKER_IMPL_H

#include <stdbool.h>

#include "clx.h"
#include "gputop/opts.h"
#include "gputop/ring.h"
#include "gputop/rng.h"
#include "gputop/timebase.h"

#define GD_PIPE_DEPTH 4 /* batches in flight in pipelined mode */

/* One batch's OpenCL objects: buffers and the events of its commands. */
struct gd_batch {
	cl_command_queue q;
	cl_mem in, out;
	cl_mem pin_in, pin_out; /* pinned staging (pipelined) */
	void *host_in, *host_out;
	cl_event ev_write, ev_read, *ev_k;
	int64_t t_begin, t_gen;
	bool inflight;
};

struct gd_worker {
	const struct gd_opts *o;
	struct clx_device dev;
	size_t elem; /* 4 or 8 */
	cl_context ctx;
	cl_program prog;
	cl_kernel kern;
	cl_mem perm;
	int *perm_host;
	int64_t (*kv)[2]; /* scratch: one batch's kernel START, END */
	struct gd_batch b[GD_PIPE_DEPTH];
	int nb, next; /* batches in use; the next to refill */
	struct gd_rng rng;
	struct gd_seg *seg;
	struct gd_timebase_est tb;
	enum gd_timebase tb_method;
	uint64_t batches;
	bool verified;
	char err[GD_ERR_LEN];
};

/* One worker mode (seed, pipelined or kernel-only; see the man page) behind one table. */
struct gd_mode_ops {
	int (*setup)(struct gd_worker *w);
	int (*step)(struct gd_worker *w);  /* one batch enqueued or completed; 0 or -1 (w->err) */
	int (*drain)(struct gd_worker *w); /* finish what is in flight */
};
extern const struct gd_mode_ops gd_modes[GD_MODE_COUNT];

/* Helpers the modes share (worker.c). All return 0 or -1 with w->err set. */
int worker_fail(struct gd_worker *w, const char *call, cl_int rc);
int worker_alloc_batch(struct gd_worker *w, struct gd_batch *b, bool pinned);
int worker_enqueue_kernels(struct gd_worker *w, struct gd_batch *b);
/* Reads the events' profiling times, publishes the record, releases the events. */
int worker_publish(struct gd_worker *w, struct gd_batch *b, int64_t t_end);
/* Checks out against the CPU reference once (when --verify is on). */
int worker_verify(struct gd_worker *w, const void *in, const void *out);
void worker_generate(struct gd_worker *w, void *dst);

#endif

/* workerinfo.h: one worker as the supervisor knows it, which is all that the collector and
 * the printers learn of it. */
#ifndef GPUTOP_WORKERINFO_H
#define GPUTOP_WORKERINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/reader.h"

/* One worker as the supervisor knows it, alive or ended: a copy, valid until the next call. */
struct gd_worker_info {
	unsigned id; /* shown to the user, from 1; also in the segment's name and --worker */
	pid_t pid;
	enum gd_state state;
	int device;  /* its device: an index into the run's devices (the session's devices) */
	bool alive;  /* not reaped yet */
	bool active; /* alive and not asked to stop */
	enum gd_timebase timebase;
	uint64_t batches, items; /* the worker's own totals */
	uint64_t lost;           /* records the reader could not use */
	/* An observed program's process (-- COMMAND): one the supervisor started (a copy), or one
	 * found by its segment (a child of a copy). */
	bool observed;
	enum gd_seg_source via; /* the path its OpenCL calls were seen through */
	char comm[16];          /* its command name */
	unsigned copy;          /* the copy whose process group it is in: its own id for a copy; 0: none */
	uint64_t kernels;       /* launches, since start */
	struct gd_obs_totals obs;
	int exit_status; /* a copy that ended: its status (128 + signal when killed); -1: n/a */
	char error[GD_ERR_LEN];
};

#endif

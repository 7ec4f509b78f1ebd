/* worker.h: the worker role: one OS process, one OpenCL context, one decode loop that
 * publishes a record per batch into its shared-memory segment. Its exit statuses are in
 * common.h; everything OpenCL stays behind src/worker_impl.h. */
#ifndef GPUTOP_WORKER_H
#define GPUTOP_WORKER_H

#include "gputop/opts.h"

/* Runs the worker that o->worker describes until it is stopped; returns its exit status. */
int worker_main(const struct gd_opts *o);
/* The --calibrate measurement (src/ceiling.c), in a process of its own: prints
 * "ceiling MBIT_S QUEUES ONE_QUEUE_MBIT_S" on standard output; returns the exit status. */
int ceiling_main(const struct gd_opts *o);

#endif

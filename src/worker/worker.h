/* worker.h: the roles of the worker side, each in a process of its own started by the
 * supervisor (spec_child_argv). Their exit statuses are in common.h; everything OpenCL stays
 * behind src/worker/. */
#ifndef GPUTOP_WORKER_H
#define GPUTOP_WORKER_H

#include "gputop/spec.h"

/* One worker: one OpenCL context on dev, one loop of w that publishes a record per batch into
 * the segment wa names, until it is stopped; returns its exit status. */
int worker_main(const struct gd_workload *w, struct gd_devref dev, const struct gd_worker_args *wa);
/* The --calibrate measurement of k on dev: prints "ceiling RATE QUEUES ONE_QUEUE_RATE GAP_NS
 * RATE_4X" on standard output; returns the exit status. */
/* parent: the supervisor that started it (checked by main.c); the child dies with it. */
int calibrate_child_main(const struct gd_kspec *k, struct gd_devref dev, pid_t parent);

#endif

/* headless.h: the role without a terminal: samples to a log, or a scaling sweep. */
#ifndef GPUTOP_HEADLESS_H
#define GPUTOP_HEADLESS_H

#include "gputop/session.h"

#define GD_SWEEP_MAX    64  /* steps in one --sweep list */
#define GD_REPEAT_MAX   100 /* --repeat: runs of each sweep step */
#define GD_SWEEP_STEP_S 10  /* a sweep step's seconds without --duration */

/* One step of a sweep: procs workers with queues queues each (0: the workload's). */
struct gd_step {
	int procs, queues;
};

struct gd_sweep_config {
	struct gd_step steps[GD_SWEEP_MAX];
	int nsteps;
	int repeat;    /* the list runs this many times over */
	double step_s; /* each step's measured seconds */
};

struct gd_outputs;

/* Samples to the outputs until the run's duration or a quit signal; the process exit status. */
int headless_run(const struct gd_session_config *c, struct gd_outputs *outs);
/* Runs the sweep and prints its table on standard output; the sweep rows also go to the
 * outputs. The process exit status. */
int headless_sweep(const struct gd_session_config *c, const struct gd_sweep_config *sw,
                   struct gd_outputs *outs);

#endif

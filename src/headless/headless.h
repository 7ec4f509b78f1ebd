/* headless.h: the role without a terminal: samples to a log, or a scaling sweep. */
#ifndef GPUTOP_HEADLESS_H
#define GPUTOP_HEADLESS_H

#include "gputop/session.h"
#include "gputop/settings.h"

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

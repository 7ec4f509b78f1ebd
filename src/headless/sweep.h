/* sweep.h: what the sweep's runner and its table share (src/headless/). */
#ifndef GPUTOP_HEADLESS_SWEEP_H
#define GPUTOP_HEADLESS_SWEEP_H

#include <stdio.h>

#include "measure/ceiling.h"
#include "gputop/outputs.h"

/* A step's summary over its k runs in run[0..k) (one row each); first holds the first step's
 * runs (for the speedup; NULL: none, as for a device's share), prev the summary of the step
 * before or NULL. */
void sweep_summarise(const struct gd_sweep_row *run, const struct gd_sweep_row *first, int k,
                     const struct gd_sweep_row *prev, struct gd_sweep_row *sum);
/* The sweep's text table on out: one line per row (a step's summary of its runs, then with
 * several devices each device's share), with a bar for the rate (in unit). With more than one
 * run, the spread of the rate and of the speedup, and the noise note too; with a calibrated
 * ceiling (rate NAN: none), the ceiling and its figure at the larger size. */
void sweep_print(FILE *out, const struct gd_sweep_row *rows, int n, int runs, const char *unit,
                 const struct gd_ceiling *ceiling);

#endif

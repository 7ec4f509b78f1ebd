/* calibrate.h: --calibrate's process, from the supervisor's side: starts the measurement in a
 * child process of this binary (the supervisor never loads OpenCL), reads its answer through a
 * pipe without blocking, so the dashboard keeps drawing while it runs, and ends and reaps it.
 * The answer as a value (struct gd_ceiling, its line's parse) is measure/ceiling.h's. */
#ifndef GPUTOP_CALIBRATE_H
#define GPUTOP_CALIBRATE_H

#include <stddef.h>

#include "gputop/spec.h"
#include "measure/ceiling.h"

struct gd_calibration;

/* Starts the measurement of kernel k on device dev, in a child started from exe; NULL with
 * err filled. */
struct gd_calibration *calibrate_start(const struct gd_kspec *k, struct gd_devref dev, const char *exe,
                                       char *err, size_t errlen);
/* 1: done, *out filled; 0: still running; -1: failed, err filled. Never blocks. */
int calibrate_poll(struct gd_calibration *c, struct gd_ceiling *out, char *err, size_t errlen);
/* Waits for the answer (at most timeout_s seconds): 0, or -1 with err filled. */
int calibrate_wait(struct gd_calibration *c, double timeout_s, struct gd_ceiling *out, char *err,
                   size_t errlen);
/* Ends the child if it still runs, reaps it and frees c. NULL is fine. */
void calibrate_free(struct gd_calibration *c);

#endif

/* headless.h: the role without a terminal: samples to a log, or a scaling sweep. */
#ifndef GPUTOP_HEADLESS_H
#define GPUTOP_HEADLESS_H

#include "gputop/device.h"
#include "gputop/opts.h"
#include "gputop/sink.h"

struct gd_prom;
struct gd_trace;

/* Both take ownership of sink, trace and prom (NULL: none). Return the process exit status. */
int headless_run(const struct gd_opts *o, const struct gd_device *devs, int ndev, struct gd_sink *sink,
                 struct gd_trace *trace, struct gd_prom *prom);
int headless_sweep(const struct gd_opts *o, const struct gd_device *devs, int ndev, struct gd_sink *sink,
                   struct gd_trace *trace, struct gd_prom *prom);

#endif

/* collect.h: turning the records read in one interval window into plain samples: one per
 * worker and one aggregate. Both printers (dashboard, headless) read only these. */
#ifndef GPUTOP_COLLECT_H
#define GPUTOP_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/ring.h"
#include "gputop/stats.h"

struct gd_sup;

struct gd_sample {
	unsigned id;
	pid_t pid;
	enum gd_state state;
	double mbit_s;
	uint64_t batches, symbols; /* totals since start (or the last reset) */
	uint64_t win_batches;      /* batches completed in the window */
	double kernel_busy;        /* 0..1 */
	struct gd_breakdown bd;    /* gaps and breakdown, NAN where not measured */
	uint64_t lost;
	char error[GD_ERR_LEN];
};

struct gd_frame {
	double t_s;      /* end of the window, seconds since start */
	double window_s; /* its length */
	int procs;       /* live workers */
	struct gd_sample agg;
	double device_busy; /* 0..1, NAN without device times */
	double headroom;    /* Mbit/s at device_busy = 1: an estimate; NAN when busy is 0 */
	bool busy_from_sum; /* mapping unavailable: sum of kernel_busy capped at 1 */
	enum gd_timebase timebase;
	int n, cap;
	struct gd_sample *w;
	struct gd_iv *iv; /* scratch: the window's kernel intervals */
	size_t capiv;
};

/* Fills f with the window [a, b) (host CLOCK_MONOTONIC ns) and consumes the records that
 * completed before b. t0 is the run's start, for t_s. */
void collect_window(struct gd_sup *s, int64_t t0, int64_t a, int64_t b, struct gd_frame *f);
void collect_frame_free(struct gd_frame *f);

#endif

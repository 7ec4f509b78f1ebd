/* collect.h: turning the records of one interval window into a frame of plain samples: one
 * per worker, one aggregate per device and one of every worker. Every output (the log, the
 * Prometheus text, the dashboard) reads only frames. The collector owns the per-worker
 * statistics state (records waiting for their window, the previous batch, the baselines of
 * the last reset); what the supervisor knows comes in as gd_row_info. */
#ifndef GPUTOP_COLLECT_H
#define GPUTOP_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/device.h"
#include "gputop/frame.h"

struct gd_collector;

/* A collector whose first window starts at start (host CLOCK_MONOTONIC ns), for workers on
 * devs[0..ndev) (a worker's gd_row_info.device indexes it; frames name each by its ref). Under --profile
 * off (profiled false) no device field is measured: they stay NAN. */
struct gd_collector *collect_new(int64_t start, bool profiled, const struct gd_device *devs, int ndev);
void collect_free(struct gd_collector *c);
/* The launch limit of device d's gaps between the kernels of a batch (gd_batch_acc), from the
 * next window on; 0: none. */
void collect_launch_limit(struct gd_collector *c, int d, int64_t ns);
/* The launch limit is this many times the calibrated back-to-back gap (gd_ceiling.gap_ns): a
 * gap up to it is the device's launch cost, its excess the host's lateness. */
#define GD_LAUNCH_LIMIT        2.0
#define GD_LAUNCH_LIMIT_MIN_NS 1000 /* a gap under 1 us is launch cost on any device */

/* One record of worker w, read by the supervisor. A record that completed before the open
 * window started is counted as lost: its window was already reported. */
void collect_push(struct gd_collector *c, const struct gd_row_info *w, const struct gd_rec *r);
/* Records of worker id still waiting for their window. */
size_t collect_pending(const struct gd_collector *c, unsigned id);
/* Forgets worker w (after the supervisor has forgotten it), as w is then: its totals since the
 * last reset stay in its device's aggregate and the overall one, its counts in the counters. */
void collect_forget(struct gd_collector *c, const struct gd_row_info *w);
/* Forgets everything measured so far and opens a new window at start; workers' totals count
 * again from their values in w[0..n). */
void collect_reset(struct gd_collector *c, const struct gd_row_info *w, int n, int64_t start);
/* Closes the open window at end: fills f from the records that completed before end, one
 * sample per worker of w[0..n) in that order, and opens the next window at end. t0 is the
 * run's start, for t_s. */
void collect_window(struct gd_collector *c, const struct gd_row_info *w, int n, int64_t t0, int64_t end,
                    struct gd_frame *f);
/* Closes the open window at end as one that was not observed (the supervisor was stopped or
 * starved through it): no rate is measured (NAN), the records that completed before end count
 * as lost, totals and states are as in collect_window, f->observed is false. */
void collect_skip(struct gd_collector *c, const struct gd_row_info *w, int n, int64_t t0, int64_t end,
                  struct gd_frame *f);
/* A frame of the workers of w[0..n) as they are at `at`, with nothing measured: their totals
 * (0 right after collect_reset), states and errors; every figure NAN. The open window is not
 * touched: what a reset leaves to show until its first window closes. */
void collect_blank(struct gd_collector *c, const struct gd_row_info *w, int n, int64_t t0, int64_t at,
                   struct gd_frame *f);
#endif

/* collect.h: turning the records of one interval window into a frame of plain samples: one
 * per worker, one aggregate per device and one of every worker. Every output (the log, the
 * Prometheus text, the dashboard) reads only frames. The collector owns the per-worker
 * statistics state (records waiting for their window, the previous batch, the baselines of
 * the last reset); what the supervisor knows comes in as gd_worker_info. */
#ifndef GPUTOP_COLLECT_H
#define GPUTOP_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/device.h"
#include "gputop/diagnose.h"
#include "gputop/wire.h"
#include "gputop/spec.h"
#include "gputop/stats.h"
#include "gputop/workerinfo.h"

/* The phases of a batch, as the log's breakdown has them (gen_us, h2d_us, kernel_us, d2h_us,
 * queue_wait_us, other_us). */
enum gd_phase {
	GD_PHASE_GEN,
	GD_PHASE_H2D,
	GD_PHASE_KERNEL,
	GD_PHASE_D2H,
	GD_PHASE_QUEUE_WAIT,
	GD_PHASE_OTHER,
	GD_PHASE_COUNT
};
/* "gen", "h2d", "kernel", "d2h", "queue_wait", "other": the log's field less its _us. */
const char *gd_phase_name(enum gd_phase p);

/* Gaps counted since the start: how many, their sum, and how many under each fixed bound
 * (stats.h: le[i] in (bound[i - 1], bound[i]], le[GD_HIST_BOUNDS] above every bound). */
struct gd_gaps {
	uint64_t n;
	int64_t sum_ns;
	uint64_t le[GD_HIST_BOUNDS + 1];
};

/* Counters since the tool started, never reset (not by the r key, not by a sweep step), each
 * the sum of the windows' own figures, so that their rate over any stretch is the logged
 * figure over it: what Prometheus takes rate() of. A worker's are its own, a device's those
 * of every worker it had, ended ones too. The device-time ones are NAN under --profile off. */
struct gd_counters {
	uint64_t batches, items, lost;
	double kernel_s; /* a worker's: kernel_busy x the window's length, summed */
	double busy_s;   /* a device's: device_busy x the window's length, summed */
	/* A worker's: each batch counts the mean of its phase (the log's gen_us ... other_us) over
	 * its window; a window without a measurement of a phase (--profile sampled, no profiled
	 * batch) passes its batches on to the next window that has one. */
	double phase_s[GD_PHASE_COUNT];
	struct gd_gaps kgap, bgap; /* a worker's gaps between kernels, and between batches */
	int64_t bover_ns;          /* overlap with earlier batches, over the batches of bgap */
};

struct gd_sample {
	unsigned id;
	int device; /* index into the run's devices (the frame's devs[]); -1: all of them */
	pid_t pid;
	enum gd_state state;
	double rate;             /* NAN: no batch completed in the window while one was under way */
	uint64_t batches, items; /* totals since start (or the last reset) */
	uint64_t win_batches;    /* batches completed in the window */
	double kernel_busy;      /* 0..1; NAN as rate, or without device times */
	double gen_busy;         /* threads kept busy generating inputs: generation time / window */
	struct gd_breakdown bd;  /* gaps and breakdown, NAN where not measured */
	struct gd_idle idle;     /* its idle time by cause: a worker's own, an aggregate's device's */
	uint64_t lost;
	/* Records whose device times the window's device figures (kernel_busy, the breakdown's
	 * device parts, a device's busy) rest on, and of them those whose device times were
	 * estimated (--profile sampled: not profiled): sample_estimated. */
	uint64_t win_devrecs, win_estimated;
	uint32_t sample_every; /* --profile sampled: profiled 2 batches in this many; 0: n/a */
	double observer_share; /* measured share of the batches' time taken by profiling; NAN: n/a */
	/* An observed program's process (gd_worker_info): its path, name, totals and end. */
	bool observed;
	enum gd_seg_source via;
	char comm[16];
	uint64_t kernels;
	struct gd_obs_totals obs;
	int exit_status; /* -1: n/a */
	char error[GD_ERR_LEN];
	struct gd_counters tot; /* workers and devices: since the start, never reset */
};

/* One device's aggregate in a window: its workers only. */
struct gd_devframe {
	char ref[8];           /* the device's "P:D" */
	struct gd_sample agg;  /* sums over the device's workers; agg.device is its index */
	int procs;             /* its live workers */
	double device_busy;    /* 0..1, the union of its workers' kernel intervals; NAN: n/a */
	double headroom;       /* agg.rate / device_busy; NAN when busy is 0 */
	bool busy_from_sum;    /* its busy is the sum of its workers' kernel_busy, capped at 1 */
	bool busy_per_context; /* a GPU: contexts take turns, busy is the sum of each worker's own
	                        * union, capped at 1 (estimates of two workers may overlap; the
	                        * kernels they stand for could not) */
	double ceiling;        /* its calibrated ceiling, Mbit/s; NAN: not calibrated */
	double of_ceiling;     /* agg.rate / ceiling */
	double ceiling_4x;     /* its ceiling at GD_CEILING_LARGER times the size; NAN: not measured */
};

struct gd_frame {
	double t_s;           /* end of the window, seconds since start */
	double unix_s;        /* the same instant as wall-clock Unix seconds */
	bool observed;        /* false: the supervisor was not running through it (collect_skip) */
	double window_s;      /* its length */
	int procs;            /* live workers */
	struct gd_sample agg; /* every worker of every device */
	/* With one device as measured; with several, device_busy is the mean of the devices'
	 * (the share of their combined time that was busy), ceiling their sum. */
	double device_busy;    /* 0..1, NAN without device times */
	double headroom;       /* Mbit/s at device_busy = 1: an estimate; NAN when busy is 0 */
	bool busy_from_sum;    /* mapping unavailable (on any device): sum of kernel_busy capped at 1 */
	bool busy_per_context; /* some device sums its workers' own unions (a GPU) */
	enum gd_timebase timebase;
	enum gd_profile profile; /* the policy the device fields rest on */
	double ceiling;          /* Mbit/s measured by --calibrate; NAN: not calibrated */
	double of_ceiling;       /* agg.rate / ceiling; NAN: not calibrated */
	double ceiling_4x;       /* the devices' ceilings at the larger size, summed; NAN: not measured */
	int nworkers, capworkers;
	struct gd_sample *workers;
	int ndevs; /* the run's devices: one aggregate each, in the order of the device list */
	struct gd_devframe devs[GD_DEVICES_MAX];
};

struct gd_collector;

/* A collector whose first window starts at start (host CLOCK_MONOTONIC ns), for workers on
 * devs[0..ndev) (a worker's gd_worker_info.device indexes it; frames name each by its ref). Under --profile
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
void collect_push(struct gd_collector *c, const struct gd_worker_info *w, const struct gd_rec *r);
/* Records of worker id still waiting for their window. */
size_t collect_pending(const struct gd_collector *c, unsigned id);
/* Forgets worker id (after the supervisor has forgotten it). */
void collect_forget(struct gd_collector *c, unsigned id);
/* Forgets everything measured so far and opens a new window at start; workers' totals count
 * again from their values in w[0..n). */
void collect_reset(struct gd_collector *c, const struct gd_worker_info *w, int n, int64_t start);
/* Closes the open window at end: fills f from the records that completed before end, one
 * sample per worker of w[0..n) in that order, and opens the next window at end. t0 is the
 * run's start, for t_s. */
void collect_window(struct gd_collector *c, const struct gd_worker_info *w, int n, int64_t t0, int64_t end,
                    struct gd_frame *f);
/* Closes the open window at end as one that was not observed (the supervisor was stopped or
 * starved through it): no rate is measured (NAN), the records that completed before end count
 * as lost, totals and states are as in collect_window, f->observed is false. */
void collect_skip(struct gd_collector *c, const struct gd_worker_info *w, int n, int64_t t0, int64_t end,
                  struct gd_frame *f);
/* A frame of the workers of w[0..n) as they are at `at`, with nothing measured: their totals
 * (0 right after collect_reset), states and errors; every figure NAN. The open window is not
 * touched: what a reset leaves to show until its first window closes. */
void collect_blank(struct gd_collector *c, const struct gd_worker_info *w, int n, int64_t t0, int64_t at,
                   struct gd_frame *f);
void collect_frame_free(struct gd_frame *f);
/* Whether s's device figures rest partly on estimated device times (win_estimated > 0): the
 * dashboard marks them with ~. */
bool sample_estimated(const struct gd_sample *s);
/* The label of device d in f: its "P:D", or "all" for d < 0 (the aggregate). */
const char *frame_device_ref(const struct gd_frame *f, int d);

#endif

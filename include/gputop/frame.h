/* frame.h: the contract between the measurement and everything that shows it: a row as the
 * supervisor knows it (gd_row_info), and a frame of plain samples, one per row, one aggregate per
 * device and one of every row, for one interval window. Every output (the log, the Prometheus
 * text, the dashboard, the report) reads only frames; src/measure/ computes them. */
#ifndef GPUTOP_FRAME_H
#define GPUTOP_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/device.h"
#include "gputop/spec.h"
#include "gputop/wire.h"

/* A worker's state as the supervisor shows it: what its segment says (the same values as
 * enum gd_seg_state), or stalled, which only the reader can tell. */
enum gd_state {
	GD_ST_STARTING = GD_SEG_STARTING,
	GD_ST_RUNNING = GD_SEG_RUNNING,
	GD_ST_PAUSED = GD_SEG_PAUSED,
	GD_ST_STOPPING = GD_SEG_STOPPING,
	GD_ST_EXITED = GD_SEG_EXITED,
	GD_ST_FAILED = GD_SEG_FAILED,
	GD_ST_STALLED = GD_SEG_STATE_COUNT, /* heartbeat older than 3 intervals, and 1 s */
	GD_ST_NOCL,                         /* an observed program that has made no OpenCL call (yet) */
	GD_ST_COUNT
};
const char *gd_state_name(enum gd_state st);

/* One row as the supervisor knows it (a worker, a copy of the observed program, or a process
 * a copy started), alive or ended: a copy, valid until the next call. */
struct gd_row_info {
	unsigned id; /* shown to the user, from 1; also in the segment's name and --worker */
	pid_t pid;
	enum gd_state state;
	int device;  /* its device: an index into the run's devices (the session's devices) */
	bool alive;  /* not reaped yet */
	bool active; /* alive and not asked to stop */
	enum gd_timebase timebase;
	int64_t inflight_ns, inflight_at_ns; /* an observed process's kernel under way since (host
	                                      * ns), as it was at; 0: none */
	uint64_t batches, items;             /* the worker's own totals */
	uint64_t lost;                       /* records the reader could not use */
	/* An observed program's process (-- COMMAND): one the supervisor started (a copy), or one
	 * found by its segment (a child of a copy). */
	bool observed;
	enum gd_seg_source via; /* the path its OpenCL calls were seen through */
	char comm[16];          /* its command name */
	unsigned copy;          /* the copy whose process group it is in: its own id for a copy; 0: none */
	uint64_t kernels;       /* launches, since start */
	struct gd_obs_totals obs;
	int exit_status; /* a copy that ended: its status (128 + signal when killed); -1: n/a */
	char error[GD_ERR_LEN];
};

/* Besides, each value counts in the first of the fixed bounds GD_HIST_BOUNDS it does not exceed
 * (le[i]: values in (bound[i - 1], bound[i]]; le[GD_HIST_BOUNDS]: above every bound): the
 * buckets of the Prometheus histograms, exact for the integer nanoseconds every gap is. */
#define GD_HIST_BOUNDS 19
extern const int64_t stats_hist_bounds[GD_HIST_BOUNDS]; /* ns: 1 us to 1 s in steps 1, 2.5, 5 */

/* Every field is >= 0 or NAN (doc/fields.md). */
struct gd_breakdown {
	double gen_us;                               /* mean; NAN without batches */
	double h2d_us, kernel_us, d2h_us;            /* means; NAN without device times */
	double copy_us;                              /* mean copies and fills on the device; as h2d */
	double queue_wait_us, other_us;              /* means; NAN without device times */
	double overlap_us;                           /* mean excess of the phases over the wall time */
	double gap_kernel_us, gap_batch_us;          /* means; NAN when not measured */
	double launch_gap_us;                        /* mean sum of a batch's gaps between kernels, each
	                                              * up to the launch limit (gd_batch_acc) */
	double late_gap_us;                          /* mean sum of their excess over it: launches the
	                                              * host enqueued after the previous kernel ended */
	double batch_overlap_us;                     /* mean overlap with earlier batches; as gap_batch */
	double gap_kernel_p50_us, gap_kernel_p99_us; /* percentiles (stats_hist_percentile); NAN: */
	double gap_batch_p50_us, gap_batch_p99_us;   /* not measured */
};
/* A breakdown with nothing measured: what stats_breakdown gives for no batches. */
#define GD_BREAKDOWN_NONE                                                                               \
	{                                                                                               \
		.gen_us = NAN, .h2d_us = NAN, .kernel_us = NAN, .d2h_us = NAN, .copy_us = NAN,          \
		.queue_wait_us = NAN, .other_us = NAN, .overlap_us = NAN, .gap_kernel_us = NAN,         \
		.gap_batch_us = NAN, .launch_gap_us = NAN, .late_gap_us = NAN, .batch_overlap_us = NAN, \
		.gap_kernel_p50_us = NAN, .gap_kernel_p99_us = NAN, .gap_batch_p50_us = NAN,            \
		.gap_batch_p99_us = NAN                                                                 \
	}

enum gd_cause {
	GD_CAUSE_HOST,     /* host work between batches: input generation, the program's own code */
	GD_CAUSE_TRANSFER, /* blocking transfers */
	GD_CAUSE_LAUNCH,   /* gaps between consecutive kernels of one batch */
	GD_CAUSE_WAIT,     /* waiting while another context had the device */
	GD_CAUSE_COPY,     /* copies and fills on the device: busy, but running no kernel */
	GD_CAUSE_OTHER,
	GD_CAUSE_COUNT
};

/* A split of idle time: shares of the window. NAN where not measured (no device times). */
struct gd_idle {
	double share[GD_CAUSE_COUNT];
	double hidden; /* a worker's: the share of its idle time other processes filled; NAN: n/a */
};

#define GD_IDLE_NONE                                  \
	{                                             \
		{ NAN, NAN, NAN, NAN, NAN, NAN }, NAN \
	}
_Static_assert(GD_CAUSE_COUNT == 6, "GD_IDLE_NONE names every cause");

/* The diagnosis' verdict, judged over the last GD_VERDICT_SPAN_S of measured windows with
 * hysteresis (diagnose.h: diagnose_span_add), so that it changes when the situation does and
 * not from one window to the next. */
enum gd_verdict_kind {
	GD_VERDICT_NONE,    /* nothing measured yet */
	GD_VERDICT_CEILING, /* the device busy all the time: no cause is worth a lever */
	GD_VERDICT_IDLE,    /* the device idles: cause names the largest cause's lever */
};
struct gd_verdict {
	enum gd_verdict_kind kind;
	enum gd_cause cause; /* GD_VERDICT_IDLE: the cause whose lever it names; GD_CAUSE_COUNT: none */
	double busy;         /* device busy over the span, time-weighted; NAN with kind NONE */
	struct gd_idle idle; /* the device's idle time by cause over the span */
	double span_s;       /* the measured time it rests on */
	double last_s;       /* t_s of the latest measured window in it */
	double since_s;      /* t_s when kind or cause last changed */
};

/* The phases of a batch, as the log's breakdown has them (gen_us, h2d_us, kernel_us, d2h_us,
 * queue_wait_us, copy_us, other_us). */
enum gd_phase {
	GD_PHASE_GEN,
	GD_PHASE_H2D,
	GD_PHASE_KERNEL,
	GD_PHASE_D2H,
	GD_PHASE_QUEUE_WAIT,
	GD_PHASE_COPY,
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
	double transfer_s,
	    copy_s;    /* a worker's: its batches' summed transfer, copy times, as they complete */
	double busy_s; /* a device's: device_busy x the window's length, summed */
	/* A worker's: each batch's measured time in each phase (the log's gen_us ... other_us),
	 * summed: generation for every batch, the device's phases for the batches whose device
	 * times were measured (profiled, not estimated), which phase_batches counts. */
	double phase_s[GD_PHASE_COUNT];
	uint64_t phase_batches;
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
	/* 0..1, as kernel_busy: the share of the window its transfers to and from the host ran, and
	 * its copies and fills on the device (observed programs; 0 for a worker's copies: none). */
	double transfer_busy, copy_busy;
	double commands_s;      /* an observed process's commands of every kind completed per second; NAN */
	double gen_busy;        /* threads kept busy generating inputs: generation time / window */
	struct gd_breakdown bd; /* gaps and breakdown, NAN where not measured */
	struct gd_idle idle;    /* its idle time by cause: a worker's own, an aggregate's device's */
	uint64_t lost;
	/* Records whose device times the window's device figures (kernel_busy, the breakdown's
	 * device parts, a device's busy) rest on, and of them those whose device times were
	 * estimated (--profile sampled: not profiled): sample_estimated. */
	uint64_t win_devrecs, win_estimated;
	uint32_t sample_every; /* --profile sampled: profiled 2 batches in this many; 0: n/a */
	double observer_share; /* measured share of the batches' time taken by profiling; NAN: n/a */
	/* An observed program's process (gd_row_info): its path, name, totals and end. */
	bool observed;
	enum gd_seg_source via;
	char comm[16];
	unsigned copy; /* the copy whose process group it is in (gd_row_info); 0: none */
	uint64_t kernels;
	struct gd_obs_totals obs;
	int exit_status; /* -1: n/a */
	char error[GD_ERR_LEN];
	struct gd_counters tot; /* workers and devices: since the start, never reset */
	/* A worker's or observed process's entry in its device driver's list of processes
	 * (src/vendor/); listed false (a frame zeroed): not listed, or no vendor library answers. */
	struct gd_drvproc {
		bool listed;
		double mem_bytes; /* device memory it holds; NAN: not reported */
		double sm;        /* 0..1: the driver's sampled SM share; NAN: not sampled */
	} drv;
};

/* A process on a device that the driver lists and the tool did not start: outside the lens.
 * Its kernels are never in device_busy or any aggregate; the driver's figures are all there is. */
struct gd_outside {
	pid_t pid;
	int device;       /* index into the run's devices */
	char comm[16];    /* from /proc/PID/comm, cleaned (gd_clean_text); "" where it ended */
	double mem_bytes; /* NAN: not reported */
	double sm;        /* 0..1, as gd_drvproc's */
};
#define GD_OUTSIDE_MAX 32 /* outside rows in a frame; the rest are counted (noutside_more) */

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
	/* What the device's vendor library says of the window (src/vendor/), NAN where no library
	 * answers for the device or it does not measure the value: the share of time the driver
	 * calls busy (nvidia-smi's utilization.gpu), the SMs' activity and occupancy (GPM), and the
	 * device memory every process holds, at the window's end. */
	double driver_util, sm_active, sm_occupancy, mem_used_bytes;
	bool listed;   /* its vendor library lists the processes on it: memory and outside rows */
	bool host_cpu; /* the host's CPU: its kernels share the cores with the host work */
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
	/* The vendor's figures (gd_devframe); with several devices, the shares' mean and the
	 * memory's sum, NAN unless every device has the value. */
	double driver_util, sm_active, sm_occupancy, mem_used_bytes;
	struct gd_verdict verdict; /* over the last windows, the aggregate's (diagnose.h) */
	int nworkers, capworkers;
	struct gd_sample *workers;
	int ndevs; /* the run's devices: one aggregate each, in the order of the device list */
	struct gd_devframe devs[GD_DEVICES_MAX];
	/* The processes on the devices that the tool did not start, by device, as the drivers
	 * list them at the window's end (src/vendor/); none where no library lists them. */
	int noutside, noutside_more;
	struct gd_outside outside[GD_OUTSIDE_MAX];
};

void collect_frame_free(struct gd_frame *f);
/* Whether s's device figures rest partly on estimated device times (win_estimated > 0): the
 * dashboard marks them with ~. */
bool sample_estimated(const struct gd_sample *s);
/* The label of device d in f: its "P:D", or "all" for d < 0 (the aggregate). */
const char *frame_device_ref(const struct gd_frame *f, int d);

/* Mean, min, max and sample standard deviation of a set of numbers (stats_spread): a sweep
 * step's runs. */
struct gd_spread {
	int n;                     /* the numbers counted */
	double mean, min, max, sd; /* NAN without numbers; sd NAN with fewer than 2 */
};

#endif

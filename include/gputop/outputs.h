/* outputs.h: what a run writes, in two parts. The files (standard output where the dashboard
 * or the sweep table draws, the log, the trace, the HTML report, the Prometheus file) are
 * checked together and opened after every other check: two outputs never share a file, a
 * refused set leaves no file behind and every existing file as it was, and each one is created
 * alike (mode 0644 less the umask, close-on-exec; the Prometheus file, replaced by a rename, is
 * only checked). The outputs themselves (the log, the Prometheus exporter, the trace, the HTML
 * report, and the dashboard's diagnosis strip) form one list behind one small interface, filled
 * and closed by main.c; the session hands each batch and frame to it, the roles their events
 * and sweep rows. */
#ifndef GPUTOP_OUTPUTS_H
#define GPUTOP_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/frame.h"

#define GD_OUTPUTS_MAX 8 /* outputs of one run, at most */

struct gd_output {
	const char *what; /* for messages: "--output", "--trace", "the dashboard's terminal" */
	const char *path; /* "-": standard output, used as it is */
	int fd;           /* set by outputs_open */
	bool own;         /* fd was opened here (not standard output) */
	bool replaced;    /* only checked, not opened: the file is replaced by a rename (--prom-file) */
	bool created;     /* the file did not exist before */
};

/* Makes sure descriptors 0, 1 and 2 are open (on /dev/null where one is closed), so that no
 * file opened later takes the place of standard input, output or error. */
void outputs_reserve_std(void);
/* Opens out[0..n) (n at most GD_OUTPUTS_MAX): refuses two of them on one file (the same name, or the same
 * file once opened; "-" is standard output), then truncates existing files. Returns 0, or -1 with err filled,
 * every descriptor closed, every file it created removed and no file truncated. */
int outputs_open(struct gd_output *out, int n, char *err, size_t errlen);
/* Undoes outputs_open after a later failure: closes its descriptors, removes created files. */
void outputs_discard(struct gd_output *out, int n);

struct gd_row_info;
struct gd_rec;
struct gd_frame;

/* One run of a sweep step (rep >= 1), or a step's summary over its runs (rep 0): then the
 * figures are means over the runs and the spreads say how far the runs were apart. */
struct gd_sweep_row {
	int procs, queues;
	int rep;           /* the run, from 1; 0: the summary */
	int runs;          /* summary: the runs it is over (its means: over those that measured) */
	int within_spread; /* summary: 1 when it differs from the step before by less than their
	                      spread (stats_within_spread), 0 when not, -1: n/a (first, one run) */
	double rate, speedup, device_busy, gap_batch_us, headroom;
	double of_ceiling;           /* mbit_s / the calibrated ceiling; NAN without --calibrate */
	double queue_wait_us;        /* mean over the step's batches; NAN where not measured */
	double cores;                /* host cores its processes kept busy: max(1, gen_busy) each, summed */
	double predicted;            /* the rate gap-filling alone gives (diagnose_predict) from the first
	                              * step of the same queues; NAN where there is none */
	double pipelined;            /* what one pipelined process would reach (diagnose_predict_pipelined)
	                              * from the first step of the same queues; NAN where there is none */
	double gen_us;               /* host generation per batch, the mean over its batches; NAN: n/a */
	double batch_units;          /* one batch's worth, in the rate's unit; NAN: no batch */
	double idle[GD_CAUSE_COUNT]; /* the device's idle share by cause, means over the windows */
	struct gd_spread rate_spread, speedup_spread; /* summary: over the runs */
	bool host_cpu;   /* its device (every device, for "all") is the host's CPU */
	char device[24]; /* "all" for a step's row; "P:D" for one device's share of it (runs */
	                 /* with two or more devices add one such row per device after each step) */
};

/* Something the user did, for a log that replays a session's decisions. */
struct gd_event {
	double t_s, unix_s; /* when: seconds since start, and wall-clock Unix seconds */
	const char *action; /* add, stop, kill, pause, resume, reset, calibrate, signal-TERM (KILL, STOP,
	                     * CONT), interval-S (doc/fields.md) */
	unsigned id;        /* the worker acted on, or 0: all of them */
	pid_t pid;
};

/* One output. Each call hands over complete values that the output copies or writes at once,
 * and nothing comes back that the session depends on, so a slow output can move to a thread
 * of its own. Any member but close may be NULL: the output does not want those. */
struct gd_output_ops {
	/* The session's clock starts at t0 (host CLOCK_MONOTONIC ns). */
	void (*start)(void *self, int64_t t0);
	/* Every batch read, in each worker's order; device is its device's "P:D". */
	void (*batch)(void *self, const struct gd_row_info *w, const char *device, const struct gd_rec *r);
	/* Every window; the latest frame as each is completed. 0, or -1 with the reason in err:
	 * the output failed, and the run cannot go on without it. */
	int (*frame)(void *self, const struct gd_frame *f, char *err, size_t errlen);
	int (*event)(void *self, const struct gd_event *e, char *err, size_t errlen); /* the user's actions */
	int (*sweep_row)(void *self, const struct gd_sweep_row *r, char *err, size_t errlen);
	/* Writes what is pending, closes and frees self: 0, or -1 with the reason in why. */
	int (*close)(void *self, char *why, size_t whylen);
};

struct gd_outputs {
	struct {
		const struct gd_output_ops *ops;
		void *self;
	} out[GD_OUTPUTS_MAX];
	int n;
	bool started, closed; /* outputs_start, outputs_close: added, then started, then closed */
};

/* Adds an output (self NULL: none is added). */
void outputs_add(struct gd_outputs *l, const struct gd_output_ops *ops, void *self);
/* Hands a batch, a frame, an event or a sweep row to every output that takes it. The last
 * three stop at the first output that fails: -1 with its reason in err. NULL l: nothing. */
void outputs_start(struct gd_outputs *l, int64_t t0);
void outputs_batch(struct gd_outputs *l, const struct gd_row_info *w, const char *device,
                   const struct gd_rec *r);
int outputs_frame(struct gd_outputs *l, const struct gd_frame *f, char *err, size_t errlen);
int outputs_event(struct gd_outputs *l, const struct gd_event *e, char *err, size_t errlen);
int outputs_sweep_row(struct gd_outputs *l, const struct gd_sweep_row *r, char *err, size_t errlen);
/* Closes every output, in the order they were added, and empties l: 0, or -1 after saying
 * on standard error why each one that failed did. */
int outputs_close(struct gd_outputs *l);

#endif

/* diagnose.h: where a window's idle time came from, in named causes that add up to it, the
 * lever that removes each, and what more processes would give if they only filled idle time.
 * Pure functions of a frame's figures (collect.h): no clock, no I/O.
 *
 * A worker's time without a kernel of its own (1 - kernel_busy) is split in proportion to what
 * its batches spent, per batch, outside their kernels: host work (generation), transfers (h2d
 * and d2h), launch gaps (the gaps between the kernels of one batch), waiting for another context
 * (queue wait) and the rest. `hidden` is the share of that time in which another process's
 * kernels kept the device busy: the gain of more processes. The device's idle share
 * (1 - device_busy) is split as its workers' time was when the device was idle: each worker's
 * unhidden idle time, cause by cause, averaged over the workers (at an instant when the device
 * idles, every worker is without a kernel). So the device's causes add up to its idle share. */
#ifndef GPUTOP_DIAGNOSE_H
#define GPUTOP_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "gputop/frame.h"

/* The cause's log field (idle_host, ...), its words on screen, and its lever. */
const char *diagnose_field(enum gd_cause c);
const char *diagnose_name(enum gd_cause c);
const char *diagnose_lever(enum gd_cause c);

/* A worker's split from its breakdown (bd: per-batch means), its kernel_busy and the device's
 * busy share (for hidden). */
void diagnose_worker(const struct gd_breakdown *bd, double kernel_busy, double device_busy,
                     struct gd_idle *out);
/* The device's split from its n workers' (those with NAN shares are left out). */
void diagnose_device(const struct gd_idle *w, int n, double device_busy, struct gd_idle *out);
/* The mean of n splits (several devices' aggregate, as device_busy is their mean). */
void diagnose_mean(const struct gd_idle *d, int n, struct gd_idle *out);

/* Device busy at or above this is "at the ceiling": no cause is worth a lever. */
#define GD_DIAG_BUSY 0.95

/* The verdict (frame.h: struct gd_verdict) rests on the measured windows of the last
 * GD_VERDICT_SPAN_S, their figures weighted by their lengths: one window's noise (a batch that
 * ended just after it, a kernel cut in two) moves a mean of ten seconds little. Hysteresis on
 * top: "at the ceiling" from a busy share of GD_DIAG_BUSY, until it falls below
 * GD_DIAG_BUSY_LEAVE; the lever named changes only when another cause's share passes the named
 * one's by GD_DIAG_CAUSE_MARGIN. A change in the processes counted (diagnose_procs) is a new
 * situation: the span starts again, the verdict and its hysteresis stay. */
#define GD_VERDICT_SPAN_S    10.0
#define GD_DIAG_BUSY_LEAVE   0.90
#define GD_DIAG_CAUSE_MARGIN 0.05
#define GD_VERDICT_WINDOWS   256 /* the span's windows at most: 10 s of 40 ms windows */

struct gd_span {
	struct {
		double t_s, window_s, busy;
		struct gd_idle idle;
	} win[GD_VERDICT_WINDOWS];
	int head, n; /* the next slot, and how many are held (the oldest at head - n) */
	int procs;   /* the processes counted in the windows held */
	struct gd_verdict v;
};
/* An empty span: no verdict. */
void diagnose_span_reset(struct gd_span *s);
/* Frame f's window into span s where it measured the device, and the verdict into f->verdict
 * (unchanged from the last where it did not). */
void diagnose_span_add(struct gd_span *s, struct gd_frame *f);
/* The verdict of one window alone, no hysteresis: for a frame that carries none. */
void diagnose_verdict_window(const struct gd_frame *f, struct gd_verdict *v);

/* Processes that made OpenCL calls in frame f's window: those at work (running, stopping,
 * stalled); a copy of an observed program that has made no call yet (its parent, say), a
 * paused or an ended process does not count. f->procs for a frame without its samples. */
int diagnose_procs(const struct gd_frame *f);
/* Whether every device of f is the host's CPU (gd_devframe.host_cpu). */
bool diagnose_host_cpu(const struct gd_frame *f);
/* The host cores f's processes keep busy. On a GPU, each process's generation threads, at
 * least its own thread. On the host's CPU, its kernels run on the same cores: each process's
 * thread is busy whenever it has no kernel of its own (1 - kernel_busy, or its generation
 * threads if more) and the kernels take every core while they run (device_busy x cores).
 * NAN for a frame without samples. */
double diagnose_cores_used(const struct gd_frame *f, int cores);

/* Why a prediction stops where it does. */
enum gd_bound {
	GD_BOUND_PROCS,  /* each process added fills idle time: it grows with them */
	GD_BOUND_DEVICE, /* the device would never idle */
	GD_BOUND_CORES,  /* the host's cores run out (on the host's CPU: kernels' and host work's) */
};
struct gd_prediction {
	double now;          /* the measured rate */
	int procs;           /* the processes it rests on (diagnose_procs) */
	double rate;         /* what target processes would reach; never below now; NAN: n/a */
	enum gd_bound bound; /* what stops it */
	bool reached;        /* the bound is reached already: rate is now, bound says why */
	bool host_cpu;       /* the device is the host's CPU */
	int cores;           /* the host's */
};
/* What target processes would reach from frame f's figures per process (diagnose_predict,
 * with diagnose_cores_used) on a host of cores. Returns 0, or -1 with rate NAN when the
 * window measured no rate or no device busy. */
int diagnose_frame_predict(const struct gd_frame *f, int cores, int target, struct gd_prediction *p);
/* p in words, after its label: "about 1.85 Mbit/s (now 1.40 with 4)", or where the bound is
 * reached "about 1.40 Mbit/s, as now with 4: the host's 2 cores are already busy (the device is
 * the host's CPU: its kernels and the host work share them)". Returns the length, as snprintf. */
int diagnose_predict_text(char *buf, size_t n, const struct gd_prediction *p, const char *unit);
/* A rate with three significant digits (0.412, 1.24, 38.5, 1750); "n/a" for NAN. */
void diagnose_rate_text(char *buf, size_t n, double v);
/* Why a sweep's rate falls below gap-filling's prediction, in a note's parentheses: on the
 * host's CPU "the device is the host's CPU: its 2 cores run the kernels and the host work of
 * every process", on a GPU "queue wait 12 us: contexts taking turns". */
int diagnose_shortfall(char *buf, size_t n, bool host_cpu, int cores, double queue_wait_us);

/* What procs processes would reach if each only filled idle time, from one process's rate,
 * device busy and host cores it keeps busy (at least 1): its rate times the fewest of procs,
 * 1 / busy (the device never idles) and cores / cores_one (the host runs out). NAN when the
 * one process's figures are not measured. */
double diagnose_predict(double rate_one, double busy_one, double cores_one, int cores, int procs);

/* What one pipelined process would reach, from one process of any mode: its rate, its device
 * busy, the host time gen_us it spends generating a batch, a batch's worth in the rate's unit
 * (units_per_batch: rate / batches per second) and the host's cores. Pipelining hides the host
 * work and the transfers behind the kernels of other batches, so the device bounds it at
 * rate / busy, and the host at what its generation threads make, one core left to the thread
 * that enqueues: (cores - 1) x units_per_batch per gen_us. The fewer of the two; NAN when a
 * figure is not measured. */
double diagnose_predict_pipelined(double rate, double busy, double gen_us, double units_per_batch, int cores);

/* One line of words from verdict v and the prediction p for as many processes as help:
 * "device 26% busy; idle: host work 62%, launch gaps 7%, ...; more processes would reach about
 * R unit; lever: ..." (v's figures: the causes of at least 1%, largest first; the prediction
 * where p has one, or "more processes: no gain, ..." with the reason where its bound is reached;
 * v's lever), "device 97% busy; at the ceiling", and on the host's CPU "; the device is the
 * host's CPU: its kernels and the host work share 2 cores" at the end. Returns the length, as
 * snprintf. */
int diagnose_line(char *buf, size_t n, const struct gd_verdict *v, const struct gd_prediction *p,
                  const char *unit);

/* Larger batches as a lever, to follow diagnose_line: "; larger batches: about 1747 Mbit/s at 4x
 * the size" when the calibration found launch costs bound the ceiling at this size (ceiling_4x
 * above ceiling by more than GD_CEILING_LAUNCH_BOUND) and the rate is below ceiling_4x by as much;
 * "" otherwise (NAN figures included). Returns the length, as snprintf. */
int diagnose_larger(char *buf, size_t n, double rate, double ceiling, double ceiling_4x, const char *unit);

struct gd_frame;
/* The words of frame f's aggregate: diagnose_line from its verdict (one window's where it
 * carries none) and its prediction, "; last measured N s ago" when the verdict is older than its
 * span, then diagnose_larger. cores_used: the host cores its workers keep busy, read only for a
 * frame without samples (diagnose_cores_used counts them otherwise). Returns the length, as
 * snprintf. */
int diagnose_words(char *buf, size_t n, const struct gd_frame *f, double cores_used, int cores,
                   const char *unit);

#endif

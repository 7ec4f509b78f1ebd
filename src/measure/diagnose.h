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

/* One line of words: "device 26% busy; idle: host work 62%, launch gaps 7%, ...; more
 * processes would reach about R unit; lever: ..." (the causes of at least 1%, largest first;
 * the prediction from the figures per process, when procs > 0; the largest cause's lever).
 * Returns the length, as snprintf. */
int diagnose_line(char *buf, size_t n, double device_busy, const struct gd_idle *idle, double rate, int procs,
                  double cores_used, int cores, const char *unit);

/* Larger batches as a lever, to follow diagnose_line: "; larger batches: about 1747 Mbit/s at 4x
 * the size" when the calibration found launch costs bound the ceiling at this size (ceiling_4x
 * above ceiling by more than GD_CEILING_LAUNCH_BOUND) and the rate is below ceiling_4x by as much;
 * "" otherwise (NAN figures included). Returns the length, as snprintf. */
int diagnose_larger(char *buf, size_t n, double rate, double ceiling, double ceiling_4x, const char *unit);

struct gd_frame;
/* The words of frame f's aggregate: diagnose_line, then diagnose_larger where busy was measured
 * (cores_used: the host cores its workers keep busy). Returns the length, as snprintf. */
int diagnose_words(char *buf, size_t n, const struct gd_frame *f, double cores_used, int cores,
                   const char *unit);

#endif

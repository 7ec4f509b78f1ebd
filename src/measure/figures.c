/* figures.c: the figures of a frame, each declared once (figures.h), and how a value is read. */
#include "figures.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gputop/common.h"

/* A member's type, checked by the compiler: a member of any other type has no association.
 * clang-format leaves it alone: it takes the associations for labels. */
/* clang-format off */
#define TYPE_OF(st, m)                                                                          \
	_Generic(((st *)0)->m, double: GD_T_DOUBLE, uint64_t: GD_T_U64, unsigned: GD_T_UNSIGNED, \
	         int: GD_T_INT, bool: GD_T_BOOL, struct gd_gaps: GD_T_GAPS)
/* clang-format on */
#define SAMPLE(m) \
	.from = GD_FROM_SAMPLE, .type = TYPE_OF(struct gd_sample, m), .off = offsetof(struct gd_sample, m)
#define FRAME(m) \
	.from = GD_FROM_FRAME, .type = TYPE_OF(struct gd_frame, m), .off = offsetof(struct gd_frame, m)
/* A device's member, and the frame's of the same name and type for the run's aggregate. */
#define DEVICE(m)                                                       \
	.from = GD_FROM_DEVICE, .type = TYPE_OF(struct gd_devframe, m), \
	.off = offsetof(struct gd_devframe, m), .off_frame = offsetof(struct gd_frame, m)

static const char *state_text(const struct gd_fig_at *at)
{
	return gd_state_name(at->s->state);
}

static const char *device_text(const struct gd_fig_at *at)
{
	return frame_device_ref(at->f, at->s->device);
}

static const char *source_text(const struct gd_fig_at *at)
{
	return at->s->observed ? "observed" : "worker";
}

static const char *command_text(const struct gd_fig_at *at)
{
	return at->s->comm;
}

/* Known once its first batch is in. */
static const char *via_text(const struct gd_fig_at *at)
{
	return at->s->observed && at->s->batches ? gd_source_name(at->s->via) : "";
}

static const char *error_text(const struct gd_fig_at *at)
{
	return at->s->error;
}

static const char *profile_text(const struct gd_fig_at *at)
{
	return gd_profile_name(at->f->profile);
}

static const char *timebase_text(const struct gd_fig_at *at)
{
	return gd_timebase_name(at->f->timebase);
}

static const char *busy_method_text(const struct gd_fig_at *at)
{
	const struct gd_frame *f = at->f;
	const struct gd_devframe *dev = at->dev;
	if (f->profile == GD_PROF_OFF)
		return "none";
	if (dev ? dev->busy_from_sum : f->busy_from_sum)
		return "sum-capped";
	return (dev ? dev->busy_per_context : f->busy_per_context) ? "union-per-context" : "union";
}

/* A device's memory in use (the frame's for the run's aggregate); a row's: what the driver
 * lists for its process (gd_sample.drv). */
static double mem_used(const struct gd_fig_at *at)
{
	if (at->dev || (at->f && at->s == &at->f->agg))
		return at->dev ? at->dev->mem_used_bytes : at->f->mem_used_bytes;
	return at->s->drv.listed ? at->s->drv.mem_bytes : NAN;
}

static double driver_sm(const struct gd_fig_at *at)
{
	return at->s->drv.listed ? at->s->drv.sm : NAN;
}

/* Work items per second: the rate, in millions of them. */
static double items_s(const struct gd_fig_at *at)
{
	return at->s->rate * 1e6;
}

/* Batches per second where a batch means something: not in a window without one under way
 * (rate NAN), nor for an observed process that never waits on the host (its batches are the
 * work between waits). */
static double batches_s(const struct gd_fig_at *at)
{
	const struct gd_sample *s = at->s;
	if (isnan(s->rate) || !at->f->observed || !(at->f->window_s > 0) || (s->observed && !s->obs.waits))
		return NAN;
	return (double)s->win_batches / at->f->window_s;
}

/* A window the tool did not observe counted nothing in it. */
static double window_batches(const struct gd_fig_at *at)
{
	return at->f->observed ? (double)at->s->win_batches : NAN;
}

static double sample_every(const struct gd_fig_at *at)
{
	return at->s->sample_every ? (double)at->s->sample_every : NAN;
}

static double exit_status(const struct gd_fig_at *at)
{
	return at->s->observed && at->s->exit_status >= 0 ? at->s->exit_status : NAN;
}

/* Not measured where device times are not (as the gaps' histograms). */
static double batch_overlap_s(const struct gd_fig_at *at)
{
	return isnan(at->s->tot.kernel_s) ? NAN : (double)at->s->tot.bover_ns * 1e-9;
}

const struct gd_figure gd_figures[GD_FIG_COUNT] = {
	[GD_FIG_ID] = { .name = "id",
	                .unit = GD_UNIT_NONE,
	                .help = "The worker's number, from 1, never reused in a run.",
	                .scope = GD_SCOPE_WORKER,
	                SAMPLE(id) },
	[GD_FIG_PID] = { .name = "pid",
	                 .unit = GD_UNIT_NONE,
	                 .help = "The worker's process id.",
	                 .scope = GD_SCOPE_WORKER,
	                 SAMPLE(pid) },
	[GD_FIG_STATE] = { .name = "state",
	                   .unit = GD_UNIT_NONE,
	                   .help = "The worker's state: starting, running, paused, stopping, exited, failed, "
	                           "stalled, or no OpenCL calls seen.",
	                   .scope = GD_SCOPE_WORKER,
	                   SAMPLE(state),
	                   .text = state_text },
	[GD_FIG_DEVICE] = { .name = "device",
	                    .unit = GD_UNIT_NONE,
	                    .help =
	                        "The row's device, P:D as --device numbers it; all for the run's aggregate.",
	                    .scope = GD_SCOPE_ALL,
	                    .text = device_text },
	[GD_FIG_SOURCE] = { .name = "source",
	                    .unit = GD_UNIT_NONE,
	                    .help = "worker (one of the tool's), or observed (a process of -- COMMAND).",
	                    .scope = GD_SCOPE_WORKER,
	                    .text = source_text },
	[GD_FIG_COMMAND] = { .name = "command",
	                     .unit = GD_UNIT_NONE,
	                     .help = "An observed process's command name; empty for a worker.",
	                     .scope = GD_SCOPE_WORKER,
	                     .text = command_text },
	[GD_FIG_VIA] = { .name = "via",
	                 .unit = GD_UNIT_NONE,
	                 .help =
	                     "The path an observed process's OpenCL calls came through: layer or preload.",
	                 .scope = GD_SCOPE_WORKER,
	                 .text = via_text },
	[GD_FIG_ERROR] = { .name = "error",
	                   .unit = GD_UNIT_NONE,
	                   .help = "Why a failed worker failed.",
	                   .scope = GD_SCOPE_WORKER,
	                   .text = error_text },
	[GD_FIG_T_S] = { .name = "t_s",
	                 .unit = GD_UNIT_S,
	                 .help = "End of the window, in seconds since the tool started.",
	                 .scope = GD_SCOPE_ALL,
	                 FRAME(t_s) },
	[GD_FIG_UNIX_S] = { .name = "unix_s",
	                    .unit = GD_UNIT_S,
	                    .help = "End of the latest window, in Unix seconds.",
	                    .scope = GD_SCOPE_ALL,
	                    FRAME(unix_s) },
	[GD_FIG_WINDOW_S] = { .name = "window_s",
	                      .unit = GD_UNIT_S,
	                      .help = "Length of the latest window.",
	                      .scope = GD_SCOPE_AGGREGATES,
	                      FRAME(window_s) },
	[GD_FIG_OBSERVED] = { .name = "observed",
	                      .unit = GD_UNIT_NONE,
	                      .help = "1 when the tool ran through the latest window; 0: it was stopped or "
	                              "starved and measured nothing.",
	                      .scope = GD_SCOPE_ALL,
	                      FRAME(observed) },
	[GD_FIG_PROFILE] = { .name = "profile",
	                     .unit = GD_UNIT_NONE,
	                     .help = "The profiling policy the device figures rest on: full, sampled or off.",
	                     .scope = GD_SCOPE_AGGREGATES,
	                     .text = profile_text },
	[GD_FIG_TIMEBASE] = { .name = "timebase",
	                      .unit = GD_UNIT_NONE,
	                      .help = "How device times were mapped onto the host's clock: offset-estimate, "
	                              "host-timer or none.",
	                      .scope = GD_SCOPE_AGGREGATES,
	                      .text = timebase_text },
	[GD_FIG_RATE] = { .name = "mbit_s",
	                  .unit = GD_UNIT_RATE,
	                  .help = "The window's rate in rate_unit: work items of its completed batches "
	                          "per second, in millions (the decode kernel's items are bits: Mbit/s).",
	                  .scope = GD_SCOPE_ALL,
	                  SAMPLE(rate) },
	[GD_FIG_BATCHES] = { .name = "batches",
	                     .unit = GD_UNIT_COUNT,
	                     .help = "Batches completed since the start or the last reset.",
	                     .scope = GD_SCOPE_ALL,
	                     SAMPLE(batches) },
	[GD_FIG_SYMBOLS] = { .name = "symbols",
	                     .unit = GD_UNIT_SYMBOLS,
	                     .help = "Work items of the batches completed since the start or the last reset "
	                             "(the decode kernel's: symbols decoded).",
	                     .scope = GD_SCOPE_ALL,
	                     SAMPLE(items) },
	[GD_FIG_ITEMS_S] = { .name = "items_s",
	                     .unit = GD_UNIT_PER_S,
	                     .help = "Work items of the batches completed in the window per second (the "
	                             "decode kernel's: symbols).",
	                     .scope = GD_SCOPE_ALL,
	                     .num = items_s },
	[GD_FIG_BATCHES_S] = { .name = "batches_s",
	                       .unit = GD_UNIT_PER_S,
	                       .help = "Batches completed in the window per second; empty for an observed "
	                               "process that never waits on the host.",
	                       .scope = GD_SCOPE_ALL,
	                       .num = batches_s },
	[GD_FIG_LOST] = { .name = "lost",
	                  .unit = GD_UNIT_COUNT,
	                  .help = "Records a worker published that the tool could not use: overwritten, "
	                          "torn, inconsistent or late.",
	                  .scope = GD_SCOPE_ALL,
	                  SAMPLE(lost) },
	[GD_FIG_WINDOW_BATCHES] = { .name = "window_batches",
	                            .unit = GD_UNIT_COUNT,
	                            .help = "Batches completed in the window: what the breakdown's means are "
	                                    "over.",
	                            .scope = GD_SCOPE_WORKER,
	                            .num = window_batches },
	[GD_FIG_KERNEL_BUSY] = { .name = "kernel_busy",
	                         .unit = GD_UNIT_SHARE,
	                         .help =
	                             "Share of the window in which the worker's kernels ran on the device.",
	                         .scope = GD_SCOPE_WORKER,
	                         SAMPLE(kernel_busy) },
	[GD_FIG_TRANSFER_BUSY] = { .name = "transfer_busy",
	                           .unit = GD_UNIT_SHARE,
	                           .help = "Share of the window in which the row's transfers to and from the "
	                                   "host ran on the device.",
	                           .scope = GD_SCOPE_WORKER,
	                           SAMPLE(transfer_busy) },
	[GD_FIG_COPY_BUSY] = { .name = "copy_busy",
	                       .unit = GD_UNIT_SHARE,
	                       .help = "Share of the window in which an observed process's copies and fills "
	                               "ran on the device (no kernel: not in device_busy).",
	                       .scope = GD_SCOPE_WORKER,
	                       SAMPLE(copy_busy),
	                       .observed = true },
	[GD_FIG_GEN_BUSY] = { .name = "gen_busy",
	                      .unit = GD_UNIT_THREADS,
	                      .help = "Threads kept busy generating inputs: the window's generation time "
	                              "over its length.",
	                      .scope = GD_SCOPE_WORKER,
	                      SAMPLE(gen_busy) },
	[GD_FIG_GAP_KERNEL_US] = { .name = "gap_kernel_us",
	                           .unit = GD_UNIT_US,
	                           .help = "Mean gap between consecutive kernels of one batch.",
	                           .scope = GD_SCOPE_WORKER,
	                           SAMPLE(bd.gap_kernel_us) },
	[GD_FIG_GAP_BATCH_US] = { .name = "gap_batch_us",
	                          .unit = GD_UNIT_US,
	                          .help = "Mean idle time of the worker's device work before a batch (0 "
	                                  "where it overlapped earlier batches).",
	                          .scope = GD_SCOPE_WORKER,
	                          SAMPLE(bd.gap_batch_us) },
	[GD_FIG_GAP_KERNEL_P50_US] = { .name = "gap_kernel_p50_us",
	                               .unit = GD_UNIT_US,
	                               .help = "Median of the window's gaps between consecutive kernels of "
	                                       "one batch.",
	                               .scope = GD_SCOPE_ALL,
	                               SAMPLE(bd.gap_kernel_p50_us) },
	[GD_FIG_GAP_KERNEL_P99_US] = { .name = "gap_kernel_p99_us",
	                               .unit = GD_UNIT_US,
	                               .help = "99th percentile of the window's gaps between consecutive "
	                                       "kernels of one batch.",
	                               .scope = GD_SCOPE_ALL,
	                               SAMPLE(bd.gap_kernel_p99_us) },
	[GD_FIG_GAP_BATCH_P50_US] = { .name = "gap_batch_p50_us",
	                              .unit = GD_UNIT_US,
	                              .help = "Median of the window's gaps between batches.",
	                              .scope = GD_SCOPE_ALL,
	                              SAMPLE(bd.gap_batch_p50_us) },
	[GD_FIG_GAP_BATCH_P99_US] = { .name = "gap_batch_p99_us",
	                              .unit = GD_UNIT_US,
	                              .help = "99th percentile of the window's gaps between batches.",
	                              .scope = GD_SCOPE_ALL,
	                              SAMPLE(bd.gap_batch_p99_us) },
	[GD_FIG_GEN_US] = { .name = "gen_us",
	                    .unit = GD_UNIT_US,
	                    .help = "Mean host time generating a batch's input.",
	                    .scope = GD_SCOPE_WORKER,
	                    SAMPLE(bd.gen_us) },
	[GD_FIG_H2D_US] = { .name = "h2d_us",
	                    .unit = GD_UNIT_US,
	                    .help = "Mean host-to-device copy of a batch.",
	                    .scope = GD_SCOPE_WORKER,
	                    SAMPLE(bd.h2d_us) },
	[GD_FIG_KERNEL_US] = { .name = "kernel_us",
	                       .unit = GD_UNIT_US,
	                       .help =
	                           "Mean time from a batch's first kernel's start to its last kernel's end.",
	                       .scope = GD_SCOPE_WORKER,
	                       SAMPLE(bd.kernel_us) },
	[GD_FIG_D2H_US] = { .name = "d2h_us",
	                    .unit = GD_UNIT_US,
	                    .help = "Mean device-to-host copy of a batch.",
	                    .scope = GD_SCOPE_WORKER,
	                    SAMPLE(bd.d2h_us) },
	[GD_FIG_COPY_US] = { .name = "copy_us",
	                     .unit = GD_UNIT_US,
	                     .help = "Mean time a batch's copies and fills ran on the device.",
	                     .scope = GD_SCOPE_WORKER,
	                     SAMPLE(bd.copy_us),
	                     .observed = true },
	[GD_FIG_QUEUE_WAIT_US] = { .name = "queue_wait_us",
	                           .unit = GD_UNIT_US,
	                           .help = "Mean time a batch's first kernel waited in its queue.",
	                           .scope = GD_SCOPE_WORKER,
	                           SAMPLE(bd.queue_wait_us) },
	[GD_FIG_OTHER_US] = { .name = "other_us",
	                      .unit = GD_UNIT_US,
	                      .help = "Mean rest of a batch's wall time, less its queue wait.",
	                      .scope = GD_SCOPE_WORKER,
	                      SAMPLE(bd.other_us) },
	[GD_FIG_OVERLAP_US] = { .name = "overlap_us",
	                        .unit = GD_UNIT_US,
	                        .help = "Mean excess of a batch's parts over its wall time: by how much they "
	                                "overlap.",
	                        .scope = GD_SCOPE_WORKER,
	                        SAMPLE(bd.overlap_us) },
	[GD_FIG_BATCH_OVERLAP_US] = { .name = "batch_overlap_us",
	                              .unit = GD_UNIT_US,
	                              .help = "Mean time a batch's kernels began before the worker's earlier "
	                                      "batches' ended.",
	                              .scope = GD_SCOPE_WORKER,
	                              SAMPLE(bd.batch_overlap_us) },
	[GD_FIG_SAMPLE_EVERY] = { .name = "sample_every",
	                          .unit = GD_UNIT_COUNT,
	                          .help =
	                              "--profile sampled: a round of batches is profiled in every this many.",
	                          .scope = GD_SCOPE_WORKER,
	                          .num = sample_every },
	[GD_FIG_OBSERVER_SHARE] = { .name = "observer_share",
	                            .unit = GD_UNIT_SHARE,
	                            .help = "--profile sampled: the share of the worker's time that "
	                                    "profiling takes.",
	                            .scope = GD_SCOPE_WORKER,
	                            SAMPLE(observer_share) },
	[GD_FIG_IDLE_HOST] = { .name = "idle_host",
	                       .unit = GD_UNIT_SHARE,
	                       .help = "Share of the window idle for host work: generation, kernels enqueued "
	                               "late.",
	                       .scope = GD_SCOPE_ALL,
	                       SAMPLE(idle.share[GD_CAUSE_HOST]) },
	[GD_FIG_IDLE_TRANSFER] = { .name = "idle_transfer",
	                           .unit = GD_UNIT_SHARE,
	                           .help = "Share of the window idle for blocking transfers.",
	                           .scope = GD_SCOPE_ALL,
	                           SAMPLE(idle.share[GD_CAUSE_TRANSFER]) },
	[GD_FIG_IDLE_LAUNCH] = { .name = "idle_launch",
	                         .unit = GD_UNIT_SHARE,
	                         .help = "Share of the window idle for the launch gaps between the kernels "
	                                 "of a batch.",
	                         .scope = GD_SCOPE_ALL,
	                         SAMPLE(idle.share[GD_CAUSE_LAUNCH]) },
	[GD_FIG_IDLE_WAIT] = { .name = "idle_wait",
	                       .unit = GD_UNIT_SHARE,
	                       .help =
	                           "Share of the window idle waiting while another context had the device.",
	                       .scope = GD_SCOPE_ALL,
	                       SAMPLE(idle.share[GD_CAUSE_WAIT]) },
	[GD_FIG_IDLE_COPY] = { .name = "idle_copy",
	                       .unit = GD_UNIT_SHARE,
	                       .help = "Share of the window without a kernel while copies and fills ran.",
	                       .scope = GD_SCOPE_ALL,
	                       SAMPLE(idle.share[GD_CAUSE_COPY]) },
	[GD_FIG_IDLE_OTHER] = { .name = "idle_other",
	                        .unit = GD_UNIT_SHARE,
	                        .help = "Share of the window idle for no named cause.",
	                        .scope = GD_SCOPE_ALL,
	                        SAMPLE(idle.share[GD_CAUSE_OTHER]) },
	[GD_FIG_HIDDEN] = { .name = "hidden",
	                    .unit = GD_UNIT_SHARE,
	                    .help = "Share of the worker's time without a kernel in which other processes' "
	                            "kernels kept the device busy.",
	                    .scope = GD_SCOPE_WORKER,
	                    SAMPLE(idle.hidden) },
	[GD_FIG_LAUNCHES] = { .name = "launches",
	                      .unit = GD_UNIT_COUNT,
	                      .help = "Kernel launches of an observed process since it started.",
	                      .scope = GD_SCOPE_WORKER,
	                      SAMPLE(kernels),
	                      .observed = true },
	[GD_FIG_WAITS] = { .name = "waits",
	                   .unit = GD_UNIT_COUNT,
	                   .help = "Host waits of an observed process (clFinish, clWaitForEvents, blocking "
	                           "commands) since it started.",
	                   .scope = GD_SCOPE_WORKER,
	                   SAMPLE(obs.waits),
	                   .observed = true },
	[GD_FIG_H2D_BYTES] = { .name = "h2d_bytes",
	                       .unit = GD_UNIT_BYTES,
	                       .help = "Bytes an observed process wrote to the device.",
	                       .scope = GD_SCOPE_WORKER,
	                       SAMPLE(obs.h2d_bytes),
	                       .observed = true },
	[GD_FIG_D2H_BYTES] = { .name = "d2h_bytes",
	                       .unit = GD_UNIT_BYTES,
	                       .help = "Bytes an observed process read from the device.",
	                       .scope = GD_SCOPE_WORKER,
	                       SAMPLE(obs.d2h_bytes),
	                       .observed = true },
	[GD_FIG_COPY_BYTES] = { .name = "copy_bytes",
	                        .unit = GD_UNIT_BYTES,
	                        .help = "Bytes an observed process copied, filled or migrated on the device.",
	                        .scope = GD_SCOPE_WORKER,
	                        SAMPLE(obs.copy_bytes),
	                        .observed = true },
	[GD_FIG_COMMANDS] = { .name = "commands",
	                      .unit = GD_UNIT_COUNT,
	                      .help = "Commands of every kind an observed process enqueued (markers and "
	                              "barriers aside) since it started.",
	                      .scope = GD_SCOPE_WORKER,
	                      SAMPLE(obs.commands),
	                      .observed = true },
	[GD_FIG_COMMANDS_S] = { .name = "commands_s",
	                        .unit = GD_UNIT_PER_S,
	                        .help = "Commands of the batches an observed process completed in the window, "
	                                "per second.",
	                        .scope = GD_SCOPE_WORKER,
	                        SAMPLE(commands_s),
	                        .observed = true },
	[GD_FIG_KERNEL_S] = { .name = "kernel_s",
	                      .unit = GD_UNIT_S,
	                      .help = "Device time of the row's kernels since it started (their union, "
	                              "window by window).",
	                      .scope = GD_SCOPE_WORKER,
	                      SAMPLE(tot.kernel_s) },
	[GD_FIG_TRANSFER_S] = { .name = "transfer_s",
	                        .unit = GD_UNIT_S,
	                        .help = "Device time of the row's transfers to and from the host since it "
	                                "started.",
	                        .scope = GD_SCOPE_WORKER,
	                        SAMPLE(tot.transfer_s) },
	[GD_FIG_COPY_S] = { .name = "copy_s",
	                    .unit = GD_UNIT_S,
	                    .help = "Device time of an observed process's copies and fills since it started.",
	                    .scope = GD_SCOPE_WORKER,
	                    SAMPLE(tot.copy_s),
	                    .observed = true },
	[GD_FIG_EXIT_STATUS] = { .name = "exit_status",
	                         .unit = GD_UNIT_NONE,
	                         .help = "An observed copy's exit status once it ended (128 + the signal "
	                                 "that ended it).",
	                         .scope = GD_SCOPE_WORKER,
	                         .num = exit_status },
	[GD_FIG_PROCS] = { .name = "procs",
	                   .unit = GD_UNIT_COUNT,
	                   .help = "Live workers on the device.",
	                   .scope = GD_SCOPE_AGGREGATES,
	                   DEVICE(procs) },
	[GD_FIG_DEVICE_BUSY] = { .name = "device_busy",
	                         .unit = GD_UNIT_SHARE,
	                         .help = "Share of the window in which any of the device's kernels ran (the "
	                                 "run's: the devices' mean).",
	                         .scope = GD_SCOPE_AGGREGATES,
	                         DEVICE(device_busy) },
	[GD_FIG_DEVICE_BUSY_METHOD] = { .name = "device_busy_method",
	                                .unit = GD_UNIT_NONE,
	                                .help = "How device_busy was found: union, union-per-context, "
	                                        "sum-capped or none.",
	                                .scope = GD_SCOPE_AGGREGATES,
	                                .text = busy_method_text },
	[GD_FIG_HEADROOM] = { .name = "headroom",
	                      .unit = GD_UNIT_RATE,
	                      .help = "The latest window's rate over its device busy: the rate at 100% busy, "
	                              "an estimate.",
	                      .scope = GD_SCOPE_AGGREGATES,
	                      DEVICE(headroom) },
	[GD_FIG_CEILING] = { .name = "ceiling",
	                     .unit = GD_UNIT_RATE,
	                     .help = "The device's ceiling, as measured by --calibrate or the c key.",
	                     .scope = GD_SCOPE_AGGREGATES,
	                     DEVICE(ceiling) },
	[GD_FIG_OF_CEILING] = { .name = "of_ceiling",
	                        .unit = GD_UNIT_SHARE,
	                        .help = "The window's rate over the device's ceiling.",
	                        .scope = GD_SCOPE_AGGREGATES,
	                        DEVICE(of_ceiling) },
	[GD_FIG_CEILING_4X] = { .name = "ceiling_4x",
	                        .unit = GD_UNIT_RATE,
	                        .help = "The device's ceiling at 4 times the batch size, measured with the "
	                                "ceiling: more than 5% above it, launch costs bound the ceiling, and "
	                                "larger batches are the lever.",
	                        .scope = GD_SCOPE_AGGREGATES,
	                        DEVICE(ceiling_4x) },
	[GD_FIG_DRIVER_UTIL] = { .name = "driver_util",
	                         .unit = GD_UNIT_SHARE,
	                         .help = "Share of time the driver calls the device busy, as nvidia-smi's "
	                                 "utilization.gpu: any kernel running in its sample period, of any "
	                                 "process. Empty where no vendor library answers.",
	                         .scope = GD_SCOPE_AGGREGATES,
	                         DEVICE(driver_util) },
	[GD_FIG_SM_ACTIVE] = { .name = "sm_active",
	                       .unit = GD_UNIT_SHARE,
	                       .help = "Share of the SMs' time with work on them over the window, by the "
	                               "driver's GPM counters (Hopper and later).",
	                       .scope = GD_SCOPE_AGGREGATES,
	                       DEVICE(sm_active) },
	[GD_FIG_SM_OCCUPANCY] = { .name = "sm_occupancy",
	                          .unit = GD_UNIT_SHARE,
	                          .help = "Warps resident on the SMs over the most they hold, over the "
	                                  "window, by the driver's GPM counters (Hopper and later).",
	                          .scope = GD_SCOPE_AGGREGATES,
	                          DEVICE(sm_occupancy) },
	[GD_FIG_MEM_USED_BYTES] = { .name = "mem_used_bytes",
	                            .unit = GD_UNIT_BYTES,
	                            .help = "Device memory as the driver says at the window's end: a "
	                                    "worker's, what it lists for the process; an aggregate's, "
	                                    "every process's.",
	                            .help_device = "Device memory in use by every process, as the driver "
	                                           "says at the window's end.",
	                            .scope = GD_SCOPE_ALL,
	                            .num = mem_used },
	[GD_FIG_DRIVER_SM] = { .name = "driver_sm",
	                       .unit = GD_UNIT_SHARE,
	                       .help = "The driver's sampled SM share of the process since the previous "
	                               "window, as nvidia-smi pmon's sm%.",
	                       .scope = GD_SCOPE_WORKER,
	                       .num = driver_sm },
	[GD_FIG_SYMBOLS_TOTAL] = { .name = "symbols_total",
	                           .unit = GD_UNIT_SYMBOLS,
	                           .help = "Symbols decoded by the worker since it started (one symbol is "
	                                   "one bit; with --kernel, work items).",
	                           .help_device = "Symbols decoded by every worker the device has had since "
	                                          "the tool started.",
	                           .scope = GD_SCOPE_WORKER | GD_SCOPE_DEVICE,
	                           SAMPLE(tot.items) },
	[GD_FIG_BATCHES_TOTAL] = { .name = "batches_total",
	                           .unit = GD_UNIT_COUNT,
	                           .help = "Batches the worker completed since it started.",
	                           .help_device = "Batches completed by every worker the device has had "
	                                          "since the tool started.",
	                           .scope = GD_SCOPE_WORKER | GD_SCOPE_DEVICE,
	                           SAMPLE(tot.batches) },
	[GD_FIG_LOST_TOTAL] = { .name = "lost_records_total",
	                        .unit = GD_UNIT_COUNT,
	                        .help = "Batch records of the worker that the tool could not use "
	                                "(overwritten, malformed or late).",
	                        .help_device =
	                            "Batch records of the device's workers that the tool could not use.",
	                        .scope = GD_SCOPE_WORKER | GD_SCOPE_DEVICE,
	                        SAMPLE(tot.lost) },
	[GD_FIG_KERNEL_S_TOTAL] = { .name = "kernel_seconds_total",
	                            .unit = GD_UNIT_S,
	                            .help =
	                                "Time the worker's kernels ran on the device (the union of their "
	                                "intervals): the windows' kernel_busy times their length, summed.",
	                            .scope = GD_SCOPE_WORKER,
	                            SAMPLE(tot.kernel_s) },
	[GD_FIG_BUSY_S_TOTAL] = { .name = "device_busy_seconds_total",
	                          .unit = GD_UNIT_S,
	                          .help = "Time in which any worker's kernel ran on the device: the windows' "
	                                  "device_busy times their length, summed.",
	                          .scope = GD_SCOPE_DEVICE,
	                          SAMPLE(tot.busy_s) },
	[GD_FIG_PHASE_S_TOTAL] = { .name = "phase_seconds_total",
	                           .unit = GD_UNIT_S,
	                           .help = "Time the worker's batches spent in each phase (gen, h2d, kernel, "
	                                   "d2h, queue_wait, copy, other): each batch counts its window's mean.",
	                           .scope = GD_SCOPE_WORKER,
	                           SAMPLE(tot.phase_s[0]),
	                           .n = GD_PHASE_COUNT },
	[GD_FIG_GAP_KERNEL_HIST] = { .name = "gap_kernel_seconds",
	                             .unit = GD_UNIT_S,
	                             .help = "Idle time between consecutive kernels of one batch, of the "
	                                     "profiled batches.",
	                             .scope = GD_SCOPE_WORKER,
	                             SAMPLE(tot.kgap) },
	[GD_FIG_GAP_BATCH_HIST] = { .name = "gap_batch_seconds",
	                            .unit = GD_UNIT_S,
	                            .help = "Idle time of the worker's kernels before each profiled batch's "
	                                    "first kernel (0 where it overlapped earlier batches).",
	                            .scope = GD_SCOPE_WORKER,
	                            SAMPLE(tot.bgap) },
	[GD_FIG_BATCH_OVERLAP_S_TOTAL] = { .name = "batch_overlap_seconds_total",
	                                   .unit = GD_UNIT_S,
	                                   .help =
	                                       "Time each batch's first kernel started before the worker's "
	                                       "earlier batches' kernels ended (several queues), over the "
	                                       "batches of gputop_decode_gap_batch_seconds.",
	                                   .scope = GD_SCOPE_WORKER,
	                                   .num = batch_overlap_s },
};
_Static_assert(GD_ARRAY_LEN(gd_figures) == GD_FIG_COUNT, "one entry per figure");
_Static_assert(GD_FIG_IDLE_HOST + GD_CAUSE_TRANSFER == GD_FIG_IDLE_TRANSFER &&
                   GD_FIG_IDLE_HOST + GD_CAUSE_LAUNCH == GD_FIG_IDLE_LAUNCH &&
                   GD_FIG_IDLE_HOST + GD_CAUSE_WAIT == GD_FIG_IDLE_WAIT &&
                   GD_FIG_IDLE_HOST + GD_CAUSE_COPY == GD_FIG_IDLE_COPY &&
                   GD_FIG_IDLE_HOST + GD_CAUSE_OTHER == GD_FIG_IDLE_OTHER && GD_CAUSE_HOST == 0,
               "the idle figures in the causes' order: GD_FIG_IDLE_HOST + cause");

static double read_member(const void *base, enum gd_fig_type type, size_t off)
{
	const char *p = (const char *)base + off;
	double d;
	uint64_t u64;
	unsigned u;
	int i;
	bool b;
	switch (type) {
	case GD_T_DOUBLE:
		memcpy(&d, p, sizeof(d));
		return d;
	case GD_T_U64:
		memcpy(&u64, p, sizeof(u64));
		return (double)u64;
	case GD_T_UNSIGNED:
		memcpy(&u, p, sizeof(u));
		return u;
	case GD_T_INT:
		memcpy(&i, p, sizeof(i));
		return i;
	case GD_T_BOOL:
		memcpy(&b, p, sizeof(b));
		return b;
	case GD_T_GAPS: /* figure_gaps */
		break;
	}
	return NAN;
}

double figure_item(const struct gd_figure *fig, const struct gd_fig_at *at, int i)
{
	size_t off = fig->off + (size_t)i * sizeof(double); /* the arrays are of doubles */
	if (fig->observed && !at->s->observed)
		return NAN;
	switch (fig->from) {
	case GD_FROM_CODE:
		break;
	case GD_FROM_SAMPLE:
		return read_member(at->s, fig->type, off);
	case GD_FROM_DEVICE:
		return at->dev ? read_member(at->dev, fig->type, off)
		               : read_member(at->f, fig->type, fig->off_frame);
	case GD_FROM_FRAME:
		return read_member(at->f, fig->type, off);
	}
	return fig->num ? fig->num(at) : NAN;
}

double figure_value(const struct gd_figure *fig, const struct gd_fig_at *at)
{
	return figure_item(fig, at, 0);
}

const char *figure_text(const struct gd_figure *fig, const struct gd_fig_at *at)
{
	return fig->text ? fig->text(at) : NULL;
}

const struct gd_gaps *figure_gaps(const struct gd_figure *fig, const struct gd_sample *s)
{
	return (const struct gd_gaps *)(const void *)((const char *)s + fig->off);
}

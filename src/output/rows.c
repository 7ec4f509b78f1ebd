/* rows.c: the log's two tables of fields, frame rows and sweep rows, and the value of each
 * field in a row. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "log.h"

/* A field that prints one double of the row's struct, as it is. */
#define SAMPLE(m) .from = FROM_DOUBLE, .off = offsetof(struct gd_sample, m)
#define ROW(m)    .from = FROM_DOUBLE, .off = offsetof(struct gd_sweep_row, m)

static struct value double_at(const void *row, size_t off)
{
	double v;
	memcpy(&v, (const char *)row + off, sizeof(v));
	return num(v);
}

const struct field frame_fields[F_COUNT] = {
	[F_T_S] = { .name = "t_s",
	            .rows = ROW_BOTH,
	            .print = PRINT_FIXED,
	            .prec = 3,
	            .always = true,
	            .jsonl_lead = true },
	[F_KIND] = { .name = "kind", .rows = ROW_BOTH, .print = PRINT_STRING, .jsonl_lead = true },
	[F_ID] = { .name = "id", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_PID] = { .name = "pid", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_STATE] = { .name = "state", .rows = ROW_WORKER, .print = PRINT_STRING, .jsonl_lead = true },
	[F_PROCS] = { .name = "procs", .rows = ROW_AGG, .print = PRINT_INT },
	[F_MBIT_S] = { SAMPLE(rate), .name = "mbit_s", .rows = ROW_BOTH, .print = PRINT_FIXED, .prec = 4 },
	[F_BATCHES] = { .name = "batches", .rows = ROW_BOTH, .print = PRINT_INT },
	[F_SYMBOLS] = { .name = "symbols", .rows = ROW_BOTH, .print = PRINT_INT },
	[F_KERNEL_BUSY] = { SAMPLE(kernel_busy), .name = "kernel_busy", .rows = ROW_WORKER,
	                    .print = PRINT_FIXED, .prec = 4 },
	[F_GAP_KERNEL_US] = { SAMPLE(bd.gap_kernel_us), .name = "gap_kernel_us", .rows = ROW_WORKER,
	                      .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_US] = { SAMPLE(bd.gap_batch_us), .name = "gap_batch_us", .rows = ROW_WORKER,
	                     .print = PRINT_FIXED, .prec = 2 },
	[F_GEN_US] = { SAMPLE(bd.gen_us), .name = "gen_us", .rows = ROW_WORKER, .print = PRINT_FIXED,
	               .prec = 2 },
	[F_H2D_US] = { SAMPLE(bd.h2d_us), .name = "h2d_us", .rows = ROW_WORKER, .print = PRINT_FIXED,
	               .prec = 2 },
	[F_KERNEL_US] = { SAMPLE(bd.kernel_us), .name = "kernel_us", .rows = ROW_WORKER, .print = PRINT_FIXED,
	                  .prec = 2 },
	[F_D2H_US] = { SAMPLE(bd.d2h_us), .name = "d2h_us", .rows = ROW_WORKER, .print = PRINT_FIXED,
	               .prec = 2 },
	[F_OTHER_US] = { SAMPLE(bd.other_us), .name = "other_us", .rows = ROW_WORKER, .print = PRINT_FIXED,
	                 .prec = 2 },
	[F_DEVICE_BUSY] = { .name = "device_busy", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_HEADROOM] = { .name = "headroom", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_LOST] = { .name = "lost", .rows = ROW_BOTH, .print = PRINT_INT },
	[F_QUEUE_WAIT_US] = { SAMPLE(bd.queue_wait_us), .name = "queue_wait_us", .rows = ROW_WORKER,
	                      .print = PRINT_FIXED, .prec = 2 },
	[F_PROFILE] = { .name = "profile", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_CEILING] = { .name = "ceiling", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_OF_CEILING] = { .name = "of_ceiling", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_SAMPLE_EVERY] = { .name = "sample_every", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_OBSERVER_SHARE] = { SAMPLE(observer_share), .name = "observer_share", .rows = ROW_WORKER,
	                       .print = PRINT_FIXED, .prec = 4 },
	[F_GEN_BUSY] = { SAMPLE(gen_busy), .name = "gen_busy", .rows = ROW_WORKER, .print = PRINT_FIXED,
	                 .prec = 3 },
	[F_OBSERVED] = { .name = "observed", .rows = ROW_BOTH, .print = PRINT_BOOL },
	[F_UNIX_S] = { .name = "unix_s", .rows = ROW_BOTH, .print = PRINT_FIXED, .prec = 3 },
	[F_GAP_KERNEL_P50_US] = { SAMPLE(bd.gap_kernel_p50_us), .name = "gap_kernel_p50_us", .rows = ROW_BOTH,
	                          .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_KERNEL_P99_US] = { SAMPLE(bd.gap_kernel_p99_us), .name = "gap_kernel_p99_us", .rows = ROW_BOTH,
	                          .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_P50_US] = { SAMPLE(bd.gap_batch_p50_us), .name = "gap_batch_p50_us", .rows = ROW_BOTH,
	                         .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_P99_US] = { SAMPLE(bd.gap_batch_p99_us), .name = "gap_batch_p99_us", .rows = ROW_BOTH,
	                         .print = PRINT_FIXED, .prec = 2 },
	[F_RUN] = { .name = "run", .print = PRINT_JSON }, /* the run header's own (sink_run) */
	[F_KERNEL] = { .name = "kernel", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_RATE_UNIT] = { .name = "rate_unit", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_DEVICE] = { .name = "device", .rows = ROW_BOTH, .print = PRINT_STRING },
	[F_OVERLAP_US] = { SAMPLE(bd.overlap_us), .name = "overlap_us", .rows = ROW_WORKER,
	                   .print = PRINT_FIXED, .prec = 2 },
	[F_BATCH_OVERLAP_US] = { SAMPLE(bd.batch_overlap_us), .name = "batch_overlap_us", .rows = ROW_WORKER,
	                         .print = PRINT_FIXED, .prec = 2 },
#define IDLE(c, n)                                                                                      \
	{                                                                                               \
		SAMPLE(idle.share[(c)]), .name = (n), .rows = ROW_BOTH, .print = PRINT_FIXED, .prec = 4 \
	}
	[F_IDLE_HOST] = IDLE(GD_CAUSE_HOST, "idle_host"),
	[F_IDLE_TRANSFER] = IDLE(GD_CAUSE_TRANSFER, "idle_transfer"),
	[F_IDLE_LAUNCH] = IDLE(GD_CAUSE_LAUNCH, "idle_launch"),
	[F_IDLE_WAIT] = IDLE(GD_CAUSE_WAIT, "idle_wait"),
	[F_IDLE_OTHER] = IDLE(GD_CAUSE_OTHER, "idle_other"),
#undef IDLE
	[F_HIDDEN] = { SAMPLE(idle.hidden), .name = "hidden", .rows = ROW_WORKER, .print = PRINT_FIXED,
	               .prec = 4 },
	[F_SOURCE] = { .name = "source", .rows = ROW_WORKER, .print = PRINT_STRING },
	[F_COMMAND] = { .name = "command", .rows = ROW_WORKER, .print = PRINT_STRING },
	[F_VIA] = { .name = "via", .rows = ROW_WORKER, .print = PRINT_STRING },
	[F_LAUNCHES] = { .name = "launches", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_WAITS] = { .name = "waits", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_H2D_BYTES] = { .name = "h2d_bytes", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_D2H_BYTES] = { .name = "d2h_bytes", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_EXIT_STATUS] = { .name = "exit_status", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_CEILING_4X] = { .name = "ceiling_4x", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_WINDOW_S] = { .name = "window_s",
	                 .rows = ROW_AGG,
	                 .print = PRINT_FIXED,
	                 .prec = 3,
	                 .always = true,
	                 .jsonl_only = true },
	[F_TIMEBASE] = { .name = "timebase", .rows = ROW_AGG, .print = PRINT_STRING, .jsonl_only = true },
	[F_DEVICE_BUSY_METHOD] = { .name = "device_busy_method",
	                           .rows = ROW_AGG,
	                           .print = PRINT_STRING,
	                           .jsonl_only = true },
	[F_WINDOW_BATCHES] = { .name = "window_batches",
	                       .rows = ROW_WORKER,
	                       .print = PRINT_INT,
	                       .jsonl_only = true },
	[F_ERROR] = { .name = "error", .rows = ROW_WORKER, .print = PRINT_STRING, .jsonl_only = true },
};
_Static_assert(GD_ARRAY_LEN(frame_fields) == F_COUNT, "one entry per frame field");
_Static_assert(F_COUNT <= GD_FIELDS_MAX, "--fields can list every frame field");

struct value frame_value(enum frame_field id, const struct gd_frame *f, const struct gd_sample *s,
                         const struct gd_devframe *dev, enum row row, const struct run_kernel *k)
{
	if (frame_fields[id].from == FROM_DOUBLE)
		return double_at(s, frame_fields[id].off);
	switch (id) {
	case F_T_S:
		return num(f->t_s);
	case F_KIND:
		return str(row == ROW_TOTAL ? "aggregate" : row == ROW_DEVICE ? "device" : "worker");
	case F_ID:
		return num(s->id);
	case F_PID:
		return num(s->pid);
	case F_STATE:
		return str(gd_state_name(s->state));
	case F_PROCS:
		return num(dev ? dev->procs : f->procs);
	case F_BATCHES:
		return num((double)s->batches);
	case F_SYMBOLS:
		return num((double)s->items);
	case F_DEVICE_BUSY:
		return num(dev ? dev->device_busy : f->device_busy);
	case F_HEADROOM:
		return num(dev ? dev->headroom : f->headroom);
	case F_LOST:
		return num((double)s->lost);
	case F_PROFILE:
		return str(gd_profile_name(f->profile));
	case F_CEILING:
		return num(dev ? dev->ceiling : f->ceiling);
	case F_OF_CEILING:
		return num(dev ? dev->of_ceiling : f->of_ceiling);
	case F_CEILING_4X:
		return num(dev ? dev->ceiling_4x : f->ceiling_4x);
	case F_SAMPLE_EVERY:
		return num(s->sample_every ? (double)s->sample_every : NAN);
	case F_OBSERVED:
		return num(f->observed);
	case F_UNIX_S:
		return num(f->unix_s);
	case F_KERNEL:
		return str(k->name);
	case F_RATE_UNIT:
		return str(k->unit);
	case F_DEVICE:
		return str(frame_device_ref(f, s->device));
	case F_WINDOW_S:
		return num(f->window_s);
	case F_TIMEBASE:
		return str(gd_timebase_name(f->timebase));
	case F_DEVICE_BUSY_METHOD:
		if (f->profile == GD_PROF_OFF)
			return str("none");
		if (dev ? dev->busy_from_sum : f->busy_from_sum)
			return str("sum-capped");
		return str((dev ? dev->busy_per_context : f->busy_per_context) ? "union-per-context"
		                                                               : "union");
	case F_WINDOW_BATCHES:
		return num(f->observed ? (double)s->win_batches : NAN);
	case F_ERROR:
		return str(s->error);
	case F_SOURCE:
		return str(s->observed ? "observed" : "worker");
	case F_COMMAND:
		return str(s->comm);
	case F_VIA:
		return str(s->observed && s->batches ? gd_source_name(s->via) : "");
	case F_LAUNCHES:
		return num(s->observed ? (double)s->kernels : NAN);
	case F_WAITS:
		return num(s->observed ? (double)s->obs.waits : NAN);
	case F_H2D_BYTES:
		return num(s->observed ? (double)s->obs.h2d_bytes : NAN);
	case F_D2H_BYTES:
		return num(s->observed ? (double)s->obs.d2h_bytes : NAN);
	case F_EXIT_STATUS:
		return num(s->observed && s->exit_status >= 0 ? s->exit_status : NAN);
	default: /* the fields FROM_DOUBLE, above, and F_RUN */
		break;
	}
	return num(NAN);
}

const struct field sweep_fields[S_COUNT] = {
	[S_PROCS] = { .name = "procs", .print = PRINT_INT },
	[S_QUEUES] = { .name = "queues", .print = PRINT_INT },
	[S_MBIT_S] = { ROW(rate), .name = "mbit_s", .print = PRINT_FIXED, .prec = 4, .always = true },
	[S_SPEEDUP] = { ROW(speedup), .name = "speedup", .print = PRINT_FIXED, .prec = 4, .always = true },
	[S_DEVICE_BUSY] = { ROW(device_busy), .name = "device_busy", .print = PRINT_FIXED, .prec = 4 },
	[S_GAP_BATCH_US] = { ROW(gap_batch_us), .name = "gap_batch_us", .print = PRINT_FIXED, .prec = 4 },
	[S_HEADROOM] = { ROW(headroom), .name = "headroom", .print = PRINT_FIXED, .prec = 4 },
	[S_OF_CEILING] = { ROW(of_ceiling), .name = "of_ceiling", .print = PRINT_FIXED, .prec = 4 },
	[S_RUNS] = { .name = "runs", .print = PRINT_INT },
	[S_REP] = { .name = "rep", .print = PRINT_INT },
	[S_MBIT_S_MIN] = { .name = "mbit_s_min", .print = PRINT_FIXED, .prec = 4 },
	[S_MBIT_S_MAX] = { .name = "mbit_s_max", .print = PRINT_FIXED, .prec = 4 },
	[S_MBIT_S_SD] = { .name = "mbit_s_sd", .print = PRINT_FIXED, .prec = 4 },
	[S_SPEEDUP_MIN] = { .name = "speedup_min", .print = PRINT_FIXED, .prec = 4 },
	[S_SPEEDUP_MAX] = { .name = "speedup_max", .print = PRINT_FIXED, .prec = 4 },
	[S_SPEEDUP_SD] = { .name = "speedup_sd", .print = PRINT_FIXED, .prec = 4 },
	[S_WITHIN_SPREAD] = { .name = "within_spread", .print = PRINT_BOOL },
	[S_KIND] = { .name = "kind", .print = PRINT_STRING, .jsonl_lead = true },
	[S_RUN] = { .name = "run", .print = PRINT_JSON },
	[S_KERNEL] = { .name = "kernel", .print = PRINT_STRING },
	[S_RATE_UNIT] = { .name = "rate_unit", .print = PRINT_STRING },
	[S_QUEUE_WAIT_US] = { ROW(queue_wait_us), .name = "queue_wait_us", .print = PRINT_FIXED, .prec = 2 },
	[S_DEVICE] = { .name = "device", .print = PRINT_STRING },
	[S_PREDICTED_MBIT_S] = { ROW(predicted), .name = "predicted_mbit_s", .print = PRINT_FIXED,
	                         .prec = 4 },
};
_Static_assert(GD_ARRAY_LEN(sweep_fields) == S_COUNT, "one entry per sweep field");
_Static_assert(S_COUNT <= GD_FIELDS_MAX, "--fields can list every sweep field");

struct value sweep_value(enum sweep_field id, const struct gd_sweep_row *r, const struct run_kernel *k)
{
	const bool sum = r->rep == 0; /* the summary carries the spreads, a run its number */
	if (sweep_fields[id].from == FROM_DOUBLE)
		return double_at(r, sweep_fields[id].off);
	switch (id) {
	case S_KIND:
		return str(sum ? "sweep" : "repeat");
	case S_RUNS:
		return num(sum ? r->runs : NAN);
	case S_REP:
		return num(sum ? NAN : r->rep);
	case S_MBIT_S_MIN:
		return num(sum ? r->rate_spread.min : NAN);
	case S_MBIT_S_MAX:
		return num(sum ? r->rate_spread.max : NAN);
	case S_MBIT_S_SD:
		return num(sum ? r->rate_spread.sd : NAN);
	case S_SPEEDUP_MIN:
		return num(sum ? r->speedup_spread.min : NAN);
	case S_SPEEDUP_MAX:
		return num(sum ? r->speedup_spread.max : NAN);
	case S_SPEEDUP_SD:
		return num(sum ? r->speedup_spread.sd : NAN);
	case S_WITHIN_SPREAD:
		return num(sum && r->within_spread >= 0 ? r->within_spread : NAN);
	case S_PROCS:
		return num(r->procs);
	case S_QUEUES:
		return num(r->queues);
	case S_KERNEL:
		return str(k->name);
	case S_RATE_UNIT:
		return str(k->unit);
	case S_DEVICE:
		return str(r->device);
	default: /* the fields FROM_DOUBLE, above, and S_RUN */
		break;
	}
	return num(NAN);
}

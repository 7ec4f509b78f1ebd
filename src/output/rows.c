/* rows.c: the log's two tables of fields, frame rows and sweep rows, and the value of each
 * field in a row. A frame row's field is a figure (measure/figures.h), or one of the log's own:
 * the row's kind, the run header, the kernel and its unit. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "log.h"

/* A frame row's field that is figure x: named, carried and read as the figure says. */
#define FIG(x) .fig = GD_FIGURE(x)
/* A sweep field that prints one double of the row, as it is. */
#define ROW(m) .from = FROM_DOUBLE, .off = offsetof(struct gd_sweep_row, m)

const struct field frame_fields[F_COUNT] = {
	[F_T_S] = { FIG(T_S), .print = PRINT_FIXED, .prec = 3, .always = true, .jsonl_lead = true },
	[F_KIND] = { .name = "kind", .rows = ROW_BOTH, .print = PRINT_STRING, .jsonl_lead = true },
	[F_ID] = { FIG(ID), .print = PRINT_INT },
	[F_PID] = { FIG(PID), .print = PRINT_INT },
	[F_STATE] = { FIG(STATE), .print = PRINT_STRING, .jsonl_lead = true },
	[F_PROCS] = { FIG(PROCS), .print = PRINT_INT },
	[F_MBIT_S] = { FIG(RATE), .print = PRINT_FIXED, .prec = 4 },
	[F_BATCHES] = { FIG(BATCHES), .print = PRINT_INT },
	[F_SYMBOLS] = { FIG(SYMBOLS), .print = PRINT_INT },
	[F_KERNEL_BUSY] = { FIG(KERNEL_BUSY), .print = PRINT_FIXED, .prec = 4 },
	[F_GAP_KERNEL_US] = { FIG(GAP_KERNEL_US), .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_US] = { FIG(GAP_BATCH_US), .print = PRINT_FIXED, .prec = 2 },
	[F_GEN_US] = { FIG(GEN_US), .print = PRINT_FIXED, .prec = 2 },
	[F_H2D_US] = { FIG(H2D_US), .print = PRINT_FIXED, .prec = 2 },
	[F_KERNEL_US] = { FIG(KERNEL_US), .print = PRINT_FIXED, .prec = 2 },
	[F_D2H_US] = { FIG(D2H_US), .print = PRINT_FIXED, .prec = 2 },
	[F_OTHER_US] = { FIG(OTHER_US), .print = PRINT_FIXED, .prec = 2 },
	[F_DEVICE_BUSY] = { FIG(DEVICE_BUSY), .print = PRINT_FIXED, .prec = 4 },
	[F_HEADROOM] = { FIG(HEADROOM), .print = PRINT_FIXED, .prec = 4 },
	[F_LOST] = { FIG(LOST), .print = PRINT_INT },
	[F_QUEUE_WAIT_US] = { FIG(QUEUE_WAIT_US), .print = PRINT_FIXED, .prec = 2 },
	[F_PROFILE] = { FIG(PROFILE), .print = PRINT_STRING },
	[F_CEILING] = { FIG(CEILING), .print = PRINT_FIXED, .prec = 4 },
	[F_OF_CEILING] = { FIG(OF_CEILING), .print = PRINT_FIXED, .prec = 4 },
	[F_SAMPLE_EVERY] = { FIG(SAMPLE_EVERY), .print = PRINT_INT },
	[F_OBSERVER_SHARE] = { FIG(OBSERVER_SHARE), .print = PRINT_FIXED, .prec = 4 },
	[F_GEN_BUSY] = { FIG(GEN_BUSY), .print = PRINT_FIXED, .prec = 3 },
	[F_OBSERVED] = { FIG(OBSERVED), .print = PRINT_BOOL },
	[F_UNIX_S] = { FIG(UNIX_S), .print = PRINT_FIXED, .prec = 3 },
	[F_GAP_KERNEL_P50_US] = { FIG(GAP_KERNEL_P50_US), .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_KERNEL_P99_US] = { FIG(GAP_KERNEL_P99_US), .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_P50_US] = { FIG(GAP_BATCH_P50_US), .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_P99_US] = { FIG(GAP_BATCH_P99_US), .print = PRINT_FIXED, .prec = 2 },
	[F_RUN] = { .name = "run", .print = PRINT_JSON }, /* the run header's own (sink_run) */
	[F_KERNEL] = { .name = "kernel", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_RATE_UNIT] = { .name = "rate_unit", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_DEVICE] = { FIG(DEVICE), .print = PRINT_STRING },
	[F_OVERLAP_US] = { FIG(OVERLAP_US), .print = PRINT_FIXED, .prec = 2 },
	[F_BATCH_OVERLAP_US] = { FIG(BATCH_OVERLAP_US), .print = PRINT_FIXED, .prec = 2 },
	[F_IDLE_HOST] = { FIG(IDLE_HOST), .print = PRINT_FIXED, .prec = 4 },
	[F_IDLE_TRANSFER] = { FIG(IDLE_TRANSFER), .print = PRINT_FIXED, .prec = 4 },
	[F_IDLE_LAUNCH] = { FIG(IDLE_LAUNCH), .print = PRINT_FIXED, .prec = 4 },
	[F_IDLE_WAIT] = { FIG(IDLE_WAIT), .print = PRINT_FIXED, .prec = 4 },
	[F_IDLE_OTHER] = { FIG(IDLE_OTHER), .print = PRINT_FIXED, .prec = 4 },
	[F_HIDDEN] = { FIG(HIDDEN), .print = PRINT_FIXED, .prec = 4 },
	[F_SOURCE] = { FIG(SOURCE), .print = PRINT_STRING },
	[F_COMMAND] = { FIG(COMMAND), .print = PRINT_STRING },
	[F_VIA] = { FIG(VIA), .print = PRINT_STRING },
	[F_LAUNCHES] = { FIG(LAUNCHES), .print = PRINT_INT },
	[F_WAITS] = { FIG(WAITS), .print = PRINT_INT },
	[F_H2D_BYTES] = { FIG(H2D_BYTES), .print = PRINT_INT },
	[F_D2H_BYTES] = { FIG(D2H_BYTES), .print = PRINT_INT },
	[F_EXIT_STATUS] = { FIG(EXIT_STATUS), .print = PRINT_INT },
	[F_CEILING_4X] = { FIG(CEILING_4X), .print = PRINT_FIXED, .prec = 4 },
	[F_WINDOW_S] = { FIG(WINDOW_S), .print = PRINT_FIXED, .prec = 3, .always = true, .jsonl_only = true },
	[F_TIMEBASE] = { FIG(TIMEBASE), .print = PRINT_STRING, .jsonl_only = true },
	[F_DEVICE_BUSY_METHOD] = { FIG(DEVICE_BUSY_METHOD), .print = PRINT_STRING, .jsonl_only = true },
	[F_WINDOW_BATCHES] = { FIG(WINDOW_BATCHES), .print = PRINT_INT, .jsonl_only = true },
	[F_ERROR] = { FIG(ERROR), .print = PRINT_STRING, .jsonl_only = true },
	[F_DRIVER_UTIL] = { FIG(DRIVER_UTIL), .print = PRINT_FIXED, .prec = 4, .jsonl_only = true },
	[F_SM_ACTIVE] = { FIG(SM_ACTIVE), .print = PRINT_FIXED, .prec = 4, .jsonl_only = true },
	[F_SM_OCCUPANCY] = { FIG(SM_OCCUPANCY), .print = PRINT_FIXED, .prec = 4, .jsonl_only = true },
	[F_MEM_USED_BYTES] = { FIG(MEM_USED_BYTES), .print = PRINT_INT, .jsonl_only = true },
	[F_DRIVER_SM] = { FIG(DRIVER_SM), .print = PRINT_FIXED, .prec = 4, .jsonl_only = true },
	[F_RATE] = { FIG(RATE), .name = "rate", .print = PRINT_FIXED, .prec = 4 },
	[F_ITEMS] = { FIG(SYMBOLS), .name = "items", .print = PRINT_INT },
	[F_ITEMS_S] = { FIG(ITEMS_S), .print = PRINT_FIXED, .prec = 1 },
	[F_BATCHES_S] = { FIG(BATCHES_S), .print = PRINT_FIXED, .prec = 3 },
	[F_COMMANDS] = { FIG(COMMANDS), .print = PRINT_INT },
	[F_COMMANDS_S] = { FIG(COMMANDS_S), .print = PRINT_FIXED, .prec = 1 },
	[F_COPY_BYTES] = { FIG(COPY_BYTES), .print = PRINT_INT },
	[F_TRANSFER_BUSY] = { FIG(TRANSFER_BUSY), .print = PRINT_FIXED, .prec = 4 },
	[F_COPY_BUSY] = { FIG(COPY_BUSY), .print = PRINT_FIXED, .prec = 4 },
	[F_COPY_US] = { FIG(COPY_US), .print = PRINT_FIXED, .prec = 2 },
	[F_IDLE_COPY] = { FIG(IDLE_COPY), .print = PRINT_FIXED, .prec = 4 },
	[F_KERNEL_S] = { FIG(KERNEL_S), .print = PRINT_FIXED, .prec = 6 },
	[F_TRANSFER_S] = { FIG(TRANSFER_S), .print = PRINT_FIXED, .prec = 6 },
	[F_COPY_S] = { FIG(COPY_S), .print = PRINT_FIXED, .prec = 6 },
};
_Static_assert(GD_ARRAY_LEN(frame_fields) == F_COUNT, "one entry per frame field");
_Static_assert(F_COUNT <= GD_FIELDS_MAX, "--fields can list every frame field");

struct value frame_value(enum frame_field id, const struct gd_frame *f, const struct gd_sample *s,
                         const struct gd_devframe *dev, enum row row, const struct run_kernel *k)
{
	const struct gd_figure *fig = frame_fields[id].fig;
	const struct gd_fig_at at = { .f = f, .s = s, .dev = dev };
	if (fig && fig->text) /* a figure that is a word prints the word */
		return str(figure_text(fig, &at));
	if (fig) /* a rate in the run's unit: M items, or the user's (sink_set_rate_unit) */
		return num(figure_value(fig, &at) / (fig->unit == GD_UNIT_RATE ? k->per : 1));
	switch (id) {
	case F_KIND:
		return str(row == ROW_TOTAL ? "aggregate" : row == ROW_DEVICE ? "device" : "worker");
	case F_KERNEL:
		return str(k->name);
	case F_RATE_UNIT:
		return str(k->unit);
	default: /* F_RUN: the run header's own (sink_run) */
		break;
	}
	return num(NAN);
}

static struct value double_at(const void *row, size_t off)
{
	double v;
	memcpy(&v, (const char *)row + off, sizeof(v));
	return num(v);
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
	[S_RATE] = { ROW(rate), .name = "rate", .print = PRINT_FIXED, .prec = 4, .always = true },
	[S_RATE_MIN] = { .name = "rate_min", .print = PRINT_FIXED, .prec = 4 },
	[S_RATE_MAX] = { .name = "rate_max", .print = PRINT_FIXED, .prec = 4 },
	[S_RATE_SD] = { .name = "rate_sd", .print = PRINT_FIXED, .prec = 4 },
	[S_PREDICTED_RATE] = { ROW(predicted), .name = "predicted_rate", .print = PRINT_FIXED, .prec = 4 },
};
_Static_assert(GD_ARRAY_LEN(sweep_fields) == S_COUNT, "one entry per sweep field");
_Static_assert(S_COUNT <= GD_FIELDS_MAX, "--fields can list every sweep field");

/* The sweep fields in the run's rate unit (the others are shares, counts or times). */
static bool sweep_rate(enum sweep_field id)
{
	static const enum sweep_field rates[] = { S_MBIT_S,     S_HEADROOM,      S_MBIT_S_MIN,
		                                  S_MBIT_S_MAX, S_MBIT_S_SD,     S_PREDICTED_MBIT_S,
		                                  S_RATE,       S_RATE_MIN,      S_RATE_MAX,
		                                  S_RATE_SD,    S_PREDICTED_RATE };
	for (size_t i = 0; i < GD_ARRAY_LEN(rates); i++)
		if (rates[i] == id)
			return true;
	return false;
}

static struct value sweep_raw(enum sweep_field id, const struct gd_sweep_row *r, const struct run_kernel *k);

struct value sweep_value(enum sweep_field id, const struct gd_sweep_row *r, const struct run_kernel *k)
{
	struct value v = sweep_raw(id, r, k);
	if (!v.str && sweep_rate(id))
		v.num /= k->per;
	return v;
}

/* A sweep field's value as the row holds it: rates in M items. */
static struct value sweep_raw(enum sweep_field id, const struct gd_sweep_row *r, const struct run_kernel *k)
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
	case S_RATE_MIN:
		return num(sum ? r->rate_spread.min : NAN);
	case S_MBIT_S_MAX:
	case S_RATE_MAX:
		return num(sum ? r->rate_spread.max : NAN);
	case S_MBIT_S_SD:
	case S_RATE_SD:
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

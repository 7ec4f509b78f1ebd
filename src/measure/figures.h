/* figures.h: the figures of a frame, each declared once: its name, unit, help, the rows that
 * carry it and where its value is read. The outputs show them by this table, each with its own
 * presentation keyed by the figure: the log's fields (output/rows.c: format, precision, order),
 * the dashboard's columns (dashboard/columns.c: heading, width, rank) and the Prometheus
 * families (output/prom_text.c: family name, type, labels, scale to base units). A new figure is
 * one entry here, its computation (collect.c, stats.c, diagnose.c) and a line in each output
 * that shows it.
 *
 * Names are the log's fields (doc/fields.md); the counters since the start, which only the
 * Prometheus text shows, are named as their family (the worker's, where a device has one too)
 * less the gputop_decode_ prefix. Where an output names a figure otherwise, that output keeps its
 * own name: the dashboard's columns (their names are keys of the settings file; kgap_us shows
 * gap_kernel_us), Prometheus's families (base units and conventions: the ceiling, in Mbit/s, is
 * gputop_decode_ceiling_symbols_per_second). */
#ifndef GPUTOP_MEASURE_FIGURES_H
#define GPUTOP_MEASURE_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

#include "gputop/frame.h"

enum gd_fig {
	/* The row: who it is. */
	GD_FIG_ID,
	GD_FIG_PID,
	GD_FIG_STATE,
	GD_FIG_DEVICE,
	GD_FIG_SOURCE,
	GD_FIG_COMMAND,
	GD_FIG_VIA,
	GD_FIG_ERROR,
	/* The window. */
	GD_FIG_T_S,
	GD_FIG_UNIX_S,
	GD_FIG_WINDOW_S,
	GD_FIG_OBSERVED,
	GD_FIG_PROFILE,
	GD_FIG_TIMEBASE,
	/* A sample's figures in the window. */
	GD_FIG_RATE,
	GD_FIG_BATCHES,
	GD_FIG_SYMBOLS,
	GD_FIG_ITEMS_S, /* work items and batches per second, every mode */
	GD_FIG_BATCHES_S,
	GD_FIG_LOST,
	GD_FIG_WINDOW_BATCHES,
	GD_FIG_KERNEL_BUSY,
	GD_FIG_TRANSFER_BUSY,
	GD_FIG_COPY_BUSY,
	GD_FIG_GEN_BUSY,
	GD_FIG_GAP_KERNEL_US,
	GD_FIG_GAP_BATCH_US,
	GD_FIG_GAP_KERNEL_P50_US,
	GD_FIG_GAP_KERNEL_P99_US,
	GD_FIG_GAP_BATCH_P50_US,
	GD_FIG_GAP_BATCH_P99_US,
	GD_FIG_GEN_US,
	GD_FIG_H2D_US,
	GD_FIG_KERNEL_US,
	GD_FIG_D2H_US,
	GD_FIG_COPY_US,
	GD_FIG_QUEUE_WAIT_US,
	GD_FIG_OTHER_US,
	GD_FIG_OVERLAP_US,
	GD_FIG_BATCH_OVERLAP_US,
	GD_FIG_SAMPLE_EVERY,
	GD_FIG_OBSERVER_SHARE,
	GD_FIG_IDLE_HOST, /* the diagnosis: one figure per cause, in enum gd_cause's order */
	GD_FIG_IDLE_TRANSFER,
	GD_FIG_IDLE_LAUNCH,
	GD_FIG_IDLE_WAIT,
	GD_FIG_IDLE_COPY,
	GD_FIG_IDLE_OTHER,
	GD_FIG_HIDDEN,
	GD_FIG_LAUNCHES, /* an observed program's process: what its OpenCL calls did */
	GD_FIG_WAITS,
	GD_FIG_H2D_BYTES,
	GD_FIG_D2H_BYTES,
	GD_FIG_COPY_BYTES,
	GD_FIG_COMMANDS,
	GD_FIG_COMMANDS_S,
	GD_FIG_KERNEL_S,
	GD_FIG_TRANSFER_S,
	GD_FIG_COPY_S,
	GD_FIG_EXIT_STATUS,
	/* A device's figures, or the run's (the aggregate). */
	GD_FIG_PROCS,
	GD_FIG_DEVICE_BUSY,
	GD_FIG_DEVICE_BUSY_METHOD,
	GD_FIG_HEADROOM,
	GD_FIG_CEILING,
	GD_FIG_OF_CEILING,
	GD_FIG_CEILING_4X,
	GD_FIG_DRIVER_UTIL, /* the device's vendor library (src/vendor/) */
	GD_FIG_SM_ACTIVE,
	GD_FIG_SM_OCCUPANCY,
	GD_FIG_MEM_USED_BYTES,
	GD_FIG_DRIVER_SM,
	/* Counters since the tool started, never reset (gd_counters). */
	GD_FIG_SYMBOLS_TOTAL,
	GD_FIG_BATCHES_TOTAL,
	GD_FIG_LOST_TOTAL,
	GD_FIG_KERNEL_S_TOTAL,
	GD_FIG_BUSY_S_TOTAL,
	GD_FIG_PHASE_S_TOTAL,
	GD_FIG_GAP_KERNEL_HIST,
	GD_FIG_GAP_BATCH_HIST,
	GD_FIG_BATCH_OVERLAP_S_TOTAL,
	GD_FIG_COUNT
};

/* The rows of a frame that carry a figure, as bits: a worker's, a device's aggregate (with two
 * or more devices) and the run's aggregate. */
enum gd_scope {
	GD_SCOPE_WORKER = 1,
	GD_SCOPE_AGGREGATE = 2,
	GD_SCOPE_DEVICE = 4,
	GD_SCOPE_AGGREGATES = GD_SCOPE_AGGREGATE | GD_SCOPE_DEVICE,
	GD_SCOPE_ALL = GD_SCOPE_WORKER | GD_SCOPE_AGGREGATES
};

enum gd_unit {
	GD_UNIT_NONE,    /* a name, a number that counts nothing */
	GD_UNIT_RATE,    /* the run's rate unit: Mbit/s, or Mitem/s with --kernel (kspec_rate_unit) */
	GD_UNIT_SYMBOLS, /* symbols: bits, or work items with --kernel */
	GD_UNIT_COUNT,   /* batches, records, launches, processes */
	GD_UNIT_SHARE,   /* 0 to 1 */
	GD_UNIT_THREADS, /* threads kept busy: a time over the window's */
	GD_UNIT_US,
	GD_UNIT_S,
	GD_UNIT_BYTES,
	GD_UNIT_PER_S /* a count per second: work items, batches */
};

/* Where a figure's value is read: a member of the row's sample, of the row's device (the
 * frame's member of the same name for the run's aggregate), of the frame, or a function. */
enum gd_fig_from { GD_FROM_CODE, GD_FROM_SAMPLE, GD_FROM_DEVICE, GD_FROM_FRAME };
/* The member's type; GD_T_GAPS: a struct gd_gaps, read with figure_gaps. */
enum gd_fig_type { GD_T_DOUBLE, GD_T_U64, GD_T_UNSIGNED, GD_T_INT, GD_T_BOOL, GD_T_GAPS };

/* The row a figure is read for: its frame, its sample (a worker's, a device's aggregate or the
 * frame's), and its device (NULL but for a device's aggregate). A figure of the sample alone
 * needs only s. */
struct gd_fig_at {
	const struct gd_frame *f;
	const struct gd_sample *s;
	const struct gd_devframe *dev;
};

struct gd_figure {
	const char *name;
	enum gd_unit unit;
	/* What it is, in one sentence. Where the figure has a Prometheus family, the family's HELP
	 * (so it speaks of the latest window) unless the family says more (prom_text.c); help_device
	 * is the device family's, where a figure of workers and devices reads otherwise there. */
	const char *help, *help_device;
	unsigned scope; /* enum gd_scope */
	enum gd_fig_from from;
	enum gd_fig_type type;
	size_t off;       /* in struct gd_sample, gd_devframe or gd_frame, as from says */
	size_t off_frame; /* GD_FROM_DEVICE: the member in gd_frame, for the run's aggregate */
	int n;            /* an array of n (the phases: enum gd_phase): figure_item reads each */
	bool observed;    /* an observed program's process alone: NAN in any other row */
	double (*num)(const struct gd_fig_at *at);       /* GD_FROM_CODE: its value */
	const char *(*text)(const struct gd_fig_at *at); /* a figure that is a word: the word */
};

extern const struct gd_figure gd_figures[GD_FIG_COUNT];
/* Figure GD_FIG_x's entry, a constant for the outputs' tables: GD_FIGURE(RATE). */
#define GD_FIGURE(x) (&gd_figures[GD_FIG_##x])

/* Figure fig's value in the row at: NAN where it is not a number (a word alone, not measured,
 * not carried), as each output leaves it out. */
double figure_value(const struct gd_figure *fig, const struct gd_fig_at *at);
/* Item i of an array figure (n > 0); figure_value reads item 0. */
double figure_item(const struct gd_figure *fig, const struct gd_fig_at *at, int i);
/* A figure that is a word (text set): the word; NULL for a number. */
const char *figure_text(const struct gd_figure *fig, const struct gd_fig_at *at);
/* A histogram (GD_T_GAPS): the gaps counted since the start. */
const struct gd_gaps *figure_gaps(const struct gd_figure *fig, const struct gd_sample *s);

#endif

/* log.h: what the log's parts share (src/output/): the fields of a row, their values, the
 * formats that print them, and the two tables of fields (rows.c), frame rows and sweep rows. A
 * frame row's field is a figure (measure/figures.h: its name, the rows that carry it, its value)
 * printed as the table says, or one of the log's own (kind, the run header, the kernel). */
#ifndef GPUTOP_OUTPUT_LOG_H
#define GPUTOP_OUTPUT_LOG_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "measure/collect.h"
#include "measure/figures.h"
#include "gputop/common.h"
#include "sink.h"

/* The rows of a frame: one per worker, one per device (with two or more), then the aggregate.
 * A device row carries what the aggregate does, for that device's workers alone. */
enum row {
	ROW_WORKER = GD_SCOPE_WORKER,
	ROW_TOTAL = GD_SCOPE_AGGREGATE,
	ROW_DEVICE = GD_SCOPE_DEVICE,
	ROW_AGG = ROW_TOTAL | ROW_DEVICE,
	ROW_BOTH = ROW_WORKER | ROW_AGG
};

enum print { PRINT_INT, PRINT_FIXED, PRINT_STRING, PRINT_BOOL, PRINT_JSON };

/* Where a sweep field's value comes from: a double of struct gd_sweep_row (offset off), or
 * the code of sweep_value. */
enum from { FROM_CODE, FROM_DOUBLE };

struct field {
	/* A frame row's figure, which gives the field its name, the rows that carry it and its
	 * value (frame_value); NULL for the log's own fields and the sweep's, which say them here. */
	const struct gd_figure *fig;
	const char *name; /* with a figure: NULL, or the field's own name for it (rate, items) */
	unsigned rows;    /* rows of a frame that carry it; the others leave it empty or out */
	enum from from;
	size_t off; /* FROM_DOUBLE: the double's offset in struct gd_sweep_row */
	enum print print;
	int prec;        /* PRINT_FIXED: digits after the point */
	bool always;     /* in every row it belongs to: JSON null, CSV empty, when not a number */
	bool jsonl_only; /* no CSV column */
	bool jsonl_lead; /* JSONL writes it before the others: what the row is */
};

/* One value of a row: a string when str is set, else a number. */
struct value {
	double num;
	const char *str;
	bool shown; /* false: an empty CSV cell, left out of JSONL (not carried, NAN, "") */
};

static inline struct value num(double v)
{
	return (struct value){ .num = v };
}

static inline struct value str(const char *s)
{
	return (struct value){ .str = s };
}

static inline const char *field_name(const struct field *t)
{
	return t->name ? t->name : t->fig->name;
}

/* The rows of a frame that carry the field (enum row). */
static inline unsigned field_rows(const struct field *t)
{
	return t->fig ? t->fig->scope : t->rows;
}

/* v with .shown set: a string unless empty, a number unless NAN (unless always). */
static inline struct value show(const struct field *t, struct value v)
{
	v.shown = v.str ? v.str[0] != '\0' : t->always || !isnan(v.num);
	return v;
}

/* A format: how a line is printed, and what comes before the first (NULL: nothing). */
struct log_format {
	void (*header)(struct gd_text *b, const struct field *t, size_t n);
	void (*line)(struct gd_text *b, const struct field *t, const struct value *v, size_t n);
};
extern const struct log_format log_formats[GD_FMT_COUNT];

/* Frame rows. */
enum frame_field {
	F_T_S,
	F_KIND,
	F_ID,
	F_PID,
	F_STATE,
	F_PROCS,
	F_MBIT_S,
	F_BATCHES,
	F_SYMBOLS,
	F_KERNEL_BUSY,
	F_GAP_KERNEL_US,
	F_GAP_BATCH_US,
	F_GEN_US,
	F_H2D_US,
	F_KERNEL_US,
	F_D2H_US,
	F_OTHER_US,
	F_DEVICE_BUSY,
	F_HEADROOM,
	F_LOST,
	F_QUEUE_WAIT_US,
	F_PROFILE,
	F_CEILING,
	F_OF_CEILING,
	F_SAMPLE_EVERY,
	F_OBSERVER_SHARE,
	F_GEN_BUSY,
	F_OBSERVED,
	F_UNIX_S,
	F_GAP_KERNEL_P50_US,
	F_GAP_KERNEL_P99_US,
	F_GAP_BATCH_P50_US,
	F_GAP_BATCH_P99_US,
	F_RUN,
	F_KERNEL,
	F_RATE_UNIT,
	F_DEVICE,
	F_OVERLAP_US,
	F_BATCH_OVERLAP_US,
	F_IDLE_HOST, /* the diagnosis: one field per cause (diagnose.h) */
	F_IDLE_TRANSFER,
	F_IDLE_LAUNCH,
	F_IDLE_WAIT,
	F_IDLE_OTHER,
	F_HIDDEN,
	F_SOURCE,
	F_COMMAND,
	F_VIA,
	F_LAUNCHES,
	F_WAITS,
	F_H2D_BYTES,
	F_D2H_BYTES,
	F_EXIT_STATUS,
	F_CEILING_4X,
	F_WINDOW_S,
	F_TIMEBASE,
	F_DEVICE_BUSY_METHOD,
	F_WINDOW_BATCHES,
	F_ERROR,
	F_DRIVER_UTIL, /* the vendor library's (src/vendor/): empty where none answers */
	F_SM_ACTIVE,
	F_SM_OCCUPANCY,
	F_MEM_USED_BYTES,
	F_DRIVER_SM,
	F_RATE, /* the rate and the items under names for what they hold (mbit_s, symbols: aliases) */
	F_ITEMS,
	F_ITEMS_S,
	F_BATCHES_S,
	F_COMMANDS, /* every kind of command, device time by kind (doc/observe.md) */
	F_COMMANDS_S,
	F_COPY_BYTES,
	F_TRANSFER_BUSY,
	F_COPY_BUSY,
	F_COPY_US,
	F_IDLE_COPY,
	F_KERNEL_S,
	F_TRANSFER_S,
	F_COPY_S,
	F_COUNT
};

/* In CSV column order; the JSONL-only fields close each row. */
extern const struct field frame_fields[F_COUNT];

/* What the run measures: the kernel's name and the unit of the rates (sink_set_kernel), and
 * the work items that make one of the unit's (sink_set_rate_unit; 1: the unit is M items). */
struct run_kernel {
	const char *name, *unit;
	double per;
};
/* The figures of a frame's row: the frame's own, or one device's (dev not NULL). */
struct value frame_value(enum frame_field id, const struct gd_frame *f, const struct gd_sample *s,
                         const struct gd_devframe *dev, enum row row, const struct run_kernel *k);

/* Sweep rows. */
enum sweep_field {
	S_PROCS,
	S_QUEUES,
	S_MBIT_S,
	S_SPEEDUP,
	S_DEVICE_BUSY,
	S_GAP_BATCH_US,
	S_HEADROOM,
	S_OF_CEILING,
	S_RUNS,
	S_REP,
	S_MBIT_S_MIN,
	S_MBIT_S_MAX,
	S_MBIT_S_SD,
	S_SPEEDUP_MIN,
	S_SPEEDUP_MAX,
	S_SPEEDUP_SD,
	S_WITHIN_SPREAD,
	S_KIND,
	S_RUN,
	S_KERNEL,
	S_RATE_UNIT,
	S_QUEUE_WAIT_US,
	S_DEVICE,
	S_PREDICTED_MBIT_S,
	S_RATE, /* the rates under names for what they hold (mbit_s...: aliases) */
	S_RATE_MIN,
	S_RATE_MAX,
	S_RATE_SD,
	S_PREDICTED_RATE,
	S_COUNT
};

/* In CSV column order: the columns added since the first ones come after them, kind too (in
 * JSONL it leads). */
extern const struct field sweep_fields[S_COUNT];
struct value sweep_value(enum sweep_field id, const struct gd_sweep_row *r, const struct run_kernel *k);

#endif

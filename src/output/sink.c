/* sink.c: CSV and JSON-lines printers of the samples: one table of fields for frame rows, one
 * for sweep rows, one table of formats; the run header that opens every log. */
#include "gputop/sink.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gputop/common.h"

static void json_string(struct gd_text *b, const char *s)
{
	text_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			text_printf(b, "\\%c", c);
		else if (c < 0x20)
			text_printf(b, "\\u%04x", c);
		else
			text_printf(b, "%c", c);
	}
	text_printf(b, "\"");
}

/* A CSV cell in quotes, its quotes doubled (RFC 4180). */
static void csv_quoted(struct gd_text *b, const char *s)
{
	text_printf(b, "\"");
	for (; *s; s++)
		text_printf(b, *s == '"' ? "\"\"" : "%c", *s);
	text_printf(b, "\"");
}

/* ---- fields: what a row holds and how each format prints it ---- */

/* The rows of a frame: one per worker, one per device (with two or more), then the aggregate.
 * A device row carries what the aggregate does, for that device's workers alone. */
enum row {
	ROW_WORKER = 1,
	ROW_TOTAL = 2,
	ROW_DEVICE = 4,
	ROW_AGG = ROW_TOTAL | ROW_DEVICE,
	ROW_BOTH = ROW_WORKER | ROW_AGG
};

enum print { PRINT_INT, PRINT_FIXED, PRINT_STRING, PRINT_BOOL, PRINT_JSON };

struct field {
	const char *name;
	unsigned rows; /* rows of a frame that carry it; the others leave it empty or out */
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

static struct value num(double v)
{
	return (struct value){ .num = v };
}

static struct value str(const char *s)
{
	return (struct value){ .str = s };
}

static void put_value(struct gd_text *b, const struct field *t, const struct value *v, bool json)
{
	if (!v->str && isnan(v->num)) { /* JSON has no NaN; numbers never depend on a printf "nan" */
		text_printf(b, "%s", json ? "null" : "");
		return;
	}
	switch (t->print) {
	case PRINT_INT:
		text_printf(b, "%.0f", v->num);
		break;
	case PRINT_FIXED:
		text_printf(b, "%.*f", t->prec, v->num);
		break;
	case PRINT_STRING:
		if (json)
			json_string(b, v->str ? v->str : "");
		else
			text_printf(b, "%s", v->str ? v->str : "");
		break;
	case PRINT_BOOL: /* JSON true or false, CSV 1 or 0 */
		text_printf(b, "%s", v->num != 0 ? (json ? "true" : "1") : (json ? "false" : "0"));
		break;
	case PRINT_JSON: /* a JSON text: as it is in JSONL, one quoted CSV cell */
		if (json)
			text_printf(b, "%s", v->str ? v->str : "null");
		else
			csv_quoted(b, v->str ? v->str : "");
		break;
	}
}

static void csv_header(struct gd_text *b, const struct field *t, size_t n)
{
	const char *sep = "";
	for (size_t i = 0; i < n; i++)
		if (!t[i].jsonl_only) {
			text_printf(b, "%s%s", sep, t[i].name);
			sep = ",";
		}
	text_printf(b, "\n");
}

static void csv_line(struct gd_text *b, const struct field *t, const struct value *v, size_t n)
{
	const char *sep = "";
	for (size_t i = 0; i < n; i++)
		if (!t[i].jsonl_only) {
			text_printf(b, "%s", sep);
			if (v[i].shown)
				put_value(b, &t[i], &v[i], false);
			sep = ",";
		}
	text_printf(b, "\n");
}

static void jsonl_line(struct gd_text *b, const struct field *t, const struct value *v, size_t n)
{
	const char *sep = "{";
	for (int lead = 1; lead >= 0; lead--)
		for (size_t i = 0; i < n; i++)
			if (t[i].jsonl_lead == lead && v[i].shown) {
				text_printf(b, "%s\"%s\":", sep, t[i].name);
				put_value(b, &t[i], &v[i], true);
				sep = ",";
			}
	text_printf(b, "}\n");
}

/* v with .shown set: a string unless empty, a number unless NAN (unless always). */
static struct value show(const struct field *t, struct value v)
{
	v.shown = v.str ? v.str[0] != '\0' : t->always || !isnan(v.num);
	return v;
}

/* ---- frame rows ---- */

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
	F_WINDOW_S,
	F_TIMEBASE,
	F_DEVICE_BUSY_METHOD,
	F_WINDOW_BATCHES,
	F_ERROR,
	F_COUNT
};

/* In CSV column order; the JSONL-only fields close each row. */
static const struct field frame_fields[] = {
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
	[F_MBIT_S] = { .name = "mbit_s", .rows = ROW_BOTH, .print = PRINT_FIXED, .prec = 4 },
	[F_BATCHES] = { .name = "batches", .rows = ROW_BOTH, .print = PRINT_INT },
	[F_SYMBOLS] = { .name = "symbols", .rows = ROW_BOTH, .print = PRINT_INT },
	[F_KERNEL_BUSY] = { .name = "kernel_busy", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 4 },
	[F_GAP_KERNEL_US] = { .name = "gap_kernel_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_GAP_BATCH_US] = { .name = "gap_batch_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_GEN_US] = { .name = "gen_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_H2D_US] = { .name = "h2d_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_KERNEL_US] = { .name = "kernel_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_D2H_US] = { .name = "d2h_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_OTHER_US] = { .name = "other_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_DEVICE_BUSY] = { .name = "device_busy", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_HEADROOM] = { .name = "headroom", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_LOST] = { .name = "lost", .rows = ROW_BOTH, .print = PRINT_INT },
	[F_QUEUE_WAIT_US] = { .name = "queue_wait_us", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 2 },
	[F_PROFILE] = { .name = "profile", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_CEILING] = { .name = "ceiling", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_OF_CEILING] = { .name = "of_ceiling", .rows = ROW_AGG, .print = PRINT_FIXED, .prec = 4 },
	[F_SAMPLE_EVERY] = { .name = "sample_every", .rows = ROW_WORKER, .print = PRINT_INT },
	[F_OBSERVER_SHARE] = { .name = "observer_share",
	                       .rows = ROW_WORKER,
	                       .print = PRINT_FIXED,
	                       .prec = 4 },
	[F_GEN_BUSY] = { .name = "gen_busy", .rows = ROW_WORKER, .print = PRINT_FIXED, .prec = 3 },
	[F_OBSERVED] = { .name = "observed", .rows = ROW_BOTH, .print = PRINT_BOOL },
	[F_UNIX_S] = { .name = "unix_s", .rows = ROW_BOTH, .print = PRINT_FIXED, .prec = 3 },
	[F_GAP_KERNEL_P50_US] = { .name = "gap_kernel_p50_us",
	                          .rows = ROW_BOTH,
	                          .print = PRINT_FIXED,
	                          .prec = 2 },
	[F_GAP_KERNEL_P99_US] = { .name = "gap_kernel_p99_us",
	                          .rows = ROW_BOTH,
	                          .print = PRINT_FIXED,
	                          .prec = 2 },
	[F_GAP_BATCH_P50_US] = { .name = "gap_batch_p50_us",
	                         .rows = ROW_BOTH,
	                         .print = PRINT_FIXED,
	                         .prec = 2 },
	[F_GAP_BATCH_P99_US] = { .name = "gap_batch_p99_us",
	                         .rows = ROW_BOTH,
	                         .print = PRINT_FIXED,
	                         .prec = 2 },
	[F_RUN] = { .name = "run", .print = PRINT_JSON }, /* the run header's own (sink_run) */
	[F_KERNEL] = { .name = "kernel", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_RATE_UNIT] = { .name = "rate_unit", .rows = ROW_AGG, .print = PRINT_STRING },
	[F_DEVICE] = { .name = "device", .rows = ROW_BOTH, .print = PRINT_STRING },
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

/* What the run measures: the kernel's name and the unit of the rates (sink_set_kernel). */
struct run_kernel {
	const char *name, *unit;
};

/* The figures of a frame's row: the frame's own, or one device's (dev not NULL). */
static struct value frame_value(enum frame_field id, const struct gd_frame *f, const struct gd_sample *s,
                                const struct gd_devframe *dev, enum row row, const struct run_kernel *k)
{
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
	case F_MBIT_S:
		return num(s->rate);
	case F_BATCHES:
		return num((double)s->batches);
	case F_SYMBOLS:
		return num((double)s->items);
	case F_KERNEL_BUSY:
		return num(s->kernel_busy);
	case F_GAP_KERNEL_US:
		return num(s->bd.gap_kernel_us);
	case F_GAP_BATCH_US:
		return num(s->bd.gap_batch_us);
	case F_GEN_US:
		return num(s->bd.gen_us);
	case F_H2D_US:
		return num(s->bd.h2d_us);
	case F_KERNEL_US:
		return num(s->bd.kernel_us);
	case F_D2H_US:
		return num(s->bd.d2h_us);
	case F_OTHER_US:
		return num(s->bd.other_us);
	case F_DEVICE_BUSY:
		return num(dev ? dev->device_busy : f->device_busy);
	case F_HEADROOM:
		return num(dev ? dev->headroom : f->headroom);
	case F_LOST:
		return num((double)s->lost);
	case F_QUEUE_WAIT_US:
		return num(s->bd.queue_wait_us);
	case F_PROFILE:
		return str(gd_profile_name(f->profile));
	case F_CEILING:
		return num(dev ? dev->ceiling : f->ceiling);
	case F_OF_CEILING:
		return num(dev ? dev->of_ceiling : f->of_ceiling);
	case F_SAMPLE_EVERY:
		return num(s->sample_every ? (double)s->sample_every : NAN);
	case F_OBSERVER_SHARE:
		return num(s->observer_share);
	case F_GEN_BUSY:
		return num(s->gen_busy);
	case F_OBSERVED:
		return num(f->observed);
	case F_UNIX_S:
		return num(f->unix_s);
	case F_GAP_KERNEL_P50_US:
		return num(s->bd.gap_kernel_p50_us);
	case F_GAP_KERNEL_P99_US:
		return num(s->bd.gap_kernel_p99_us);
	case F_GAP_BATCH_P50_US:
		return num(s->bd.gap_batch_p50_us);
	case F_GAP_BATCH_P99_US:
		return num(s->bd.gap_batch_p99_us);
	case F_RUN:
		break;
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
		return str(f->profile == GD_PROF_OFF                       ? "none"
		           : (dev ? dev->busy_from_sum : f->busy_from_sum) ? "sum-capped"
		                                                           : "union");
	case F_WINDOW_BATCHES:
		return num(f->observed ? (double)s->win_batches : NAN);
	case F_ERROR:
		return str(s->error);
	case F_COUNT:
		break;
	}
	return num(NAN);
}

/* ---- sweep rows ---- */

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
	S_COUNT
};

/* In CSV column order: the columns added since the first ones come after them, kind too (in
 * JSONL it leads). */
static const struct field sweep_fields[] = {
	[S_PROCS] = { .name = "procs", .print = PRINT_INT },
	[S_QUEUES] = { .name = "queues", .print = PRINT_INT },
	[S_MBIT_S] = { .name = "mbit_s", .print = PRINT_FIXED, .prec = 4, .always = true },
	[S_SPEEDUP] = { .name = "speedup", .print = PRINT_FIXED, .prec = 4, .always = true },
	[S_DEVICE_BUSY] = { .name = "device_busy", .print = PRINT_FIXED, .prec = 4 },
	[S_GAP_BATCH_US] = { .name = "gap_batch_us", .print = PRINT_FIXED, .prec = 4 },
	[S_HEADROOM] = { .name = "headroom", .print = PRINT_FIXED, .prec = 4 },
	[S_OF_CEILING] = { .name = "of_ceiling", .print = PRINT_FIXED, .prec = 4 },
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
	[S_QUEUE_WAIT_US] = { .name = "queue_wait_us", .print = PRINT_FIXED, .prec = 2 },
	[S_DEVICE] = { .name = "device", .print = PRINT_STRING },
};
_Static_assert(GD_ARRAY_LEN(sweep_fields) == S_COUNT, "one entry per sweep field");

static struct value sweep_value(enum sweep_field id, const struct gd_sweep_row *r, const struct run_kernel *k)
{
	const bool sum = r->rep == 0; /* the summary carries the spreads, a run its number */
	switch (id) {
	case S_KIND:
		return str(sum ? "sweep" : "repeat");
	case S_RUNS:
		return num(sum ? r->rate_spread.n : NAN);
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
	case S_RUN:
		break;
	case S_PROCS:
		return num(r->procs);
	case S_QUEUES:
		return num(r->queues);
	case S_MBIT_S:
		return num(r->rate);
	case S_SPEEDUP:
		return num(r->speedup);
	case S_DEVICE_BUSY:
		return num(r->device_busy);
	case S_GAP_BATCH_US:
		return num(r->gap_batch_us);
	case S_HEADROOM:
		return num(r->headroom);
	case S_OF_CEILING:
		return num(r->of_ceiling);
	case S_KERNEL:
		return str(k->name);
	case S_RATE_UNIT:
		return str(k->unit);
	case S_QUEUE_WAIT_US:
		return num(r->queue_wait_us);
	case S_DEVICE:
		return str(r->device);
	case S_COUNT:
		break;
	}
	return num(NAN);
}

/* ---- formats ---- */

struct sink_format {
	void (*header)(struct gd_text *b, const struct field *t,
	               size_t n); /* before the first line, or NULL */
	void (*line)(struct gd_text *b, const struct field *t, const struct value *v, size_t n);
};

static const struct sink_format formats[GD_FMT_COUNT] = {
	[GD_FMT_CSV] = { .header = csv_header, .line = csv_line },
	[GD_FMT_JSONL] = { .line = jsonl_line },
};

struct gd_sink {
	int fd;
	bool own_fd, started; /* started: the CSV header is in the buffer or written */
	const struct sink_format *fmt;
	struct run_kernel kernel;
	struct gd_text b;
	char err[256];
};

struct gd_sink *sink_new(int fd, bool own_fd, enum gd_format fmt)
{
	struct gd_sink *s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->own_fd = own_fd;
	s->fmt = &formats[fmt];
	s->kernel = (struct run_kernel){ "decode", "Mbit/s" };
	return s;
}

void sink_set_kernel(struct gd_sink *s, const char *name, const char *unit)
{
	if (s)
		s->kernel = (struct run_kernel){ name, unit };
}

/* A write that failed after part of the buffer went out: cut the file back to the end of
 * the last whole line written, so the log never ends in half a line. Only a regular file can
 * be cut; the file offset is where our part ends. */
static void cut_partial_line(const struct gd_sink *s, size_t written)
{
	size_t keep = written;
	while (keep > 0 && s->b.p[keep - 1] != '\n')
		keep--;
	struct stat st;
	off_t end = lseek(s->fd, 0, SEEK_CUR);
	if (keep == written || end < (off_t)written || fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if (ftruncate(s->fd, end - (off_t)(written - keep)) == 0)
		lseek(s->fd, end - (off_t)(written - keep), SEEK_SET);
}

/* Lines are built whole, then written in one write(2) each: a reader of the file, or a kill
 * at any moment, never sees half a line from us except on a short write, which is cut back. */
static int flush(struct gd_sink *s)
{
	size_t off;
	int e = write_all(s->fd, s->b.p, s->b.n, &off);
	if (e) {
		snprintf(s->err, sizeof(s->err), "writing the log: %s",
		         e == EIO ? "short write" : strerror(e));
		cut_partial_line(s, off);
	}
	s->b.n = 0;
	return e ? -1 : 0;
}

/* Adds one row's line, after the header when it is the sink's first. */
static void sink_line(struct gd_sink *s, const struct field *t, const struct value *v, size_t n)
{
	if (!s->started && s->fmt->header)
		s->fmt->header(&s->b, t, n);
	s->started = true;
	s->fmt->line(&s->b, t, v, n);
}

static void frame_line(struct gd_sink *s, const struct gd_frame *f, const struct gd_sample *sample,
                       const struct gd_devframe *dev, enum row row)
{
	struct value v[F_COUNT];
	for (enum frame_field i = 0; i < F_COUNT; i++) {
		const struct field *t = &frame_fields[i];
		v[i] = t->rows & row ? show(t, frame_value(i, f, sample, dev, row, &s->kernel))
		                     : (struct value){ .shown = false };
	}
	sink_line(s, frame_fields, v, F_COUNT);
}

int sink_frame(struct gd_sink *s, const struct gd_frame *f)
{
	for (int i = 0; i < f->nworkers; i++)
		frame_line(s, f, &f->workers[i], NULL, ROW_WORKER);
	for (int d = 0; f->ndevs > 1 && d < f->ndevs; d++)
		frame_line(s, f, &f->devs[d].agg, &f->devs[d], ROW_DEVICE);
	frame_line(s, f, &f->agg, NULL, ROW_TOTAL);
	return flush(s);
}

int sink_event(struct gd_sink *s, const struct gd_event *e)
{
	struct value v[F_COUNT];
	for (enum frame_field i = 0; i < F_COUNT; i++)
		v[i] = (struct value){ .shown = false };
	v[F_T_S] = show(&frame_fields[F_T_S], num(e->t_s));
	v[F_KIND] = show(&frame_fields[F_KIND], str("event"));
	v[F_STATE] = show(&frame_fields[F_STATE], str(e->action));
	v[F_UNIX_S] = show(&frame_fields[F_UNIX_S], num(e->unix_s));
	if (e->id) {
		v[F_ID] = show(&frame_fields[F_ID], num(e->id));
		v[F_PID] = show(&frame_fields[F_PID], num(e->pid));
	}
	sink_line(s, frame_fields, v, F_COUNT);
	return flush(s);
}

int sink_sweep_row(struct gd_sink *s, const struct gd_sweep_row *r)
{
	struct value v[S_COUNT];
	for (enum sweep_field i = 0; i < S_COUNT; i++)
		v[i] = show(&sweep_fields[i], sweep_value(i, r, &s->kernel));
	sink_line(s, sweep_fields, v, S_COUNT);
	return flush(s);
}

/* ---- the run header ---- */

/* {"version":..,"host":..,"device":..,..,"options":{"procs":1,..}}: the facts that make two
 * logs comparable, as one JSON object. */
static void run_json(struct gd_text *j, const struct gd_device *devs, int ndev, const char *options)
{
	const struct gd_device *dev = &devs[0];
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	const struct {
		const char *key, *val;
	} facts[] = {
		{ "version", GD_VERSION },          { "host", host },          { "device_name", dev->name },
		{ "platform", dev->platform_name }, { "driver", dev->driver }, { "opencl", dev->version },
	};
	text_printf(j, "{");
	for (size_t i = 0; i < GD_ARRAY_LEN(facts); i++) {
		text_printf(j, "%s\"%s\":", i ? "," : "", facts[i].key);
		json_string(j, facts[i].val);
	}
	text_printf(j, ",\"gpu\":%s,\"fp64\":%s,\"devices\":[", dev->gpu ? "true" : "false",
	            dev->fp64 ? "true" : "false");
	for (int i = 0; i < ndev; i++) { /* the facts above are the first one's */
		text_printf(j, "%s{\"device\":\"%s\",\"name\":", i ? "," : "", devs[i].ref);
		json_string(j, devs[i].name);
		text_printf(j, "}");
	}
	text_printf(j, "],\"options\":%s}", options);
}

void sink_run(struct gd_sink *s, const struct gd_device *devs, int ndev, const char *options, bool sweep)
{
	if (!s)
		return;
	struct gd_text j = { 0 };
	run_json(&j, devs, ndev, options);
	if (sweep) {
		struct value v[S_COUNT];
		for (enum sweep_field i = 0; i < S_COUNT; i++)
			v[i] = (struct value){ .shown = false };
		v[S_KIND] = show(&sweep_fields[S_KIND], str("run"));
		v[S_RUN] = show(&sweep_fields[S_RUN], str(j.p));
		sink_line(s, sweep_fields, v, S_COUNT);
	} else {
		struct value v[F_COUNT];
		for (enum frame_field i = 0; i < F_COUNT; i++)
			v[i] = (struct value){ .shown = false };
		v[F_T_S] = show(&frame_fields[F_T_S], num(0));
		v[F_KIND] = show(&frame_fields[F_KIND], str("run"));
		v[F_UNIX_S] = show(&frame_fields[F_UNIX_S], num(unix_seconds(now_ns())));
		v[F_RUN] = show(&frame_fields[F_RUN], str(j.p));
		sink_line(s, frame_fields, v, F_COUNT);
	}
	free(j.p);
}

const char *sink_error(const struct gd_sink *s)
{
	return s->err;
}

int sink_close(struct gd_sink *s, char *why, size_t whylen)
{
	if (!s)
		return 0;
	int rc = 0;
	if (s->b.n && flush(s) != 0) { /* a run header with no row after it */
		snprintf(why, whylen, "%s", s->err);
		rc = -1;
	}
	if (s->own_fd && close(s->fd) != 0 && rc == 0) {
		snprintf(why, whylen, "closing the log: %s", strerror(errno));
		rc = -1;
	}
	free(s->b.p);
	free(s);
	return rc;
}

/* ---- the log as one of the run's outputs ---- */

static int out_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	if (!sink_frame(self, f))
		return 0;
	str_copy(err, errlen, sink_error(self));
	return -1;
}

static int out_event(void *self, const struct gd_event *e, char *err, size_t errlen)
{
	if (!sink_event(self, e))
		return 0;
	str_copy(err, errlen, sink_error(self));
	return -1;
}

static int out_sweep_row(void *self, const struct gd_sweep_row *r, char *err, size_t errlen)
{
	if (!sink_sweep_row(self, r))
		return 0;
	str_copy(err, errlen, sink_error(self));
	return -1;
}

static int out_close(void *self, char *why, size_t whylen)
{
	return sink_close(self, why, whylen);
}

const struct gd_output_ops sink_output = {
	.frame = out_frame, .event = out_event, .sweep_row = out_sweep_row, .close = out_close
};

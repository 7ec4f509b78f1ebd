/* sink.c: the log: the run header that opens it, then frame rows, event rows and sweep rows
 * (rows.c) in CSV or JSON lines (format.c), each line written whole. */
#include "sink.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/sig.h"
#include "log.h"
#include "outq.h"

#define SINK_QUEUE_BYTES (4u << 20)        /* a log's lines waiting for a slow reader, at most */
#define SINK_DRAIN_NS    (2 * GD_NS_PER_S) /* what closing waits for a slow reader */

struct gd_sink {
	int fd;
	bool own_fd, started;  /* started: the CSV header is in the buffer or written */
	bool sweep;            /* a sweep's log: the run header and sweep rows, no frames */
	bool header;           /* CSV: the line of the columns' names opens the log */
	bool reader_ends_run;  /* a reader that closes the pipe ends the run (sink_set_reader_ends_run) */
	bool reader_gone;      /* ... and did: nothing more is written, and no error said */
	struct gd_fields cols; /* the columns chosen (--fields); n == 0: every field */
	struct gd_outq *q;     /* a pipe, socket or terminal: written by the queue's thread */
	const struct log_format *fmt;
	struct run_kernel kernel;
	bool unit_named; /* the rates' unit is the user's (sink_set_rate_unit): the kernel's does not change
	                    it */
	struct gd_text b;
	char err[256];
};

struct gd_sink *sink_new(int fd, bool own_fd, enum gd_format fmt)
{
	struct gd_sink *s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->own_fd = own_fd;
	s->fmt = &log_formats[fmt];
	s->kernel = (struct run_kernel){ "decode", "Mbit/s", 1 };
	s->header = true;
	/* A reader that stops reading (a stalled pipe, a terminal stopped with Ctrl-S) must not
	 * stop the session's thread, which reads the rings and answers signals: such outputs
	 * get a queue and a thread. Files and devices are written at once. */
	struct stat st;
	if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(fd)))
		s->q = outq_new(fd, SINK_QUEUE_BYTES);
	return s;
}

void sink_set_columns(struct gd_sink *s, const struct gd_fields *f, bool header)
{
	if (!s)
		return;
	s->header = header;
	if (f)
		s->cols = *f;
}

/* The table of names a column list picks from. */
static const struct field *table_of(bool sweep, size_t *n)
{
	*n = sweep ? S_COUNT : F_COUNT;
	return sweep ? sweep_fields : frame_fields;
}

const char *sink_field_name(bool sweep, size_t i)
{
	size_t n;
	const struct field *t = table_of(sweep, &n);
	return i < n ? field_name(&t[i]) : NULL;
}

int sink_field_find(bool sweep, const char *name, size_t len)
{
	size_t n;
	const struct field *t = table_of(sweep, &n);
	for (size_t i = 0; i < n; i++)
		if (strlen(field_name(&t[i])) == len && strncmp(field_name(&t[i]), name, len) == 0)
			return (int)i;
	return -1;
}

int sink_fields_parse(const char *list, bool sweep, struct gd_fields *out, char *err, size_t errlen)
{
	size_t n;
	const struct field *t = table_of(sweep, &n);
	memset(out, 0, sizeof(*out));
	out->sweep = sweep;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		int found = sink_field_find(sweep, p, len);
		size_t i = found < 0 ? n : (size_t)found;
		if (len == 0) {
			snprintf(err, errlen, "an empty field name in '%s'", list);
			return -1;
		}
		if (i == n) {
			snprintf(err, errlen,
			         "unknown field '%.*s' (the %s rows' fields are in doc/fields.md)",
			         len < 64 ? (int)len : 64, p, sweep ? "sweep" : "log");
			return -1;
		}
		for (int k = 0; k < out->n; k++)
			if (out->id[k] == i) {
				snprintf(err, errlen, "field '%s' is listed twice", field_name(&t[i]));
				return -1;
			}
		out->id[out->n++] = (unsigned char)i; /* n <= F_COUNT <= GD_FIELDS_MAX: no duplicates */
		p += len;
		if (*p == '\0')
			return 0;
	}
}

/* ---- --fields help: the list of fields ---- */

/* What the log's own fields and the sweep rows' fields are (a frame row's figure says its own,
 * measure/figures.c): a name absent here has no line of help, which test_opts catches. */
static const struct own_help {
	const char *name;
	bool sweep;
	const char *unit, *help;
} own_help[] = {
	{ "kind", false, "", "What the row is: run, worker, outside, device, aggregate or event." },
	{ "run", false, "JSON", "The run header's object: version, host, devices, options." },
	{ "kernel", false, "", "The kernel the run measures: decode, or the --kernel file's." },
	{ "rate_unit", false, "",
	  "The unit of the rates: Mbit/s for the decode kernel, else Mitem/s (or the unit named)." },
	{ "mbit_s", false, "rate",
	  "Deprecated alias of rate (named for the decode kernel); removed in 0.3." },
	{ "symbols", false, "items", "Deprecated alias of items; removed in 0.3." },
	{ "procs", true, "count", "The step's workers (copies of the program with -- COMMAND)." },
	{ "queues", true, "count", "The step's queues per worker." },
	{ "mbit_s", true, "rate", "Deprecated alias of rate; removed in 0.3." },
	{ "speedup", true, "ratio", "The rate over the first step's in the same pass." },
	{ "device_busy", true, "0..1", "The step's device busy share; a summary's mean." },
	{ "gap_batch_us", true, "us", "The step's mean idle gap before a batch; a summary's mean." },
	{ "headroom", true, "rate", "mbit_s / device_busy: the rate at 100% busy, an estimate." },
	{ "of_ceiling", true, "0..", "mbit_s / the calibrated ceiling; empty without --calibrate." },
	{ "runs", true, "count", "The runs a summary is over (--repeat)." },
	{ "rep", true, "", "Which pass a repeat row is, from 1." },
	{ "mbit_s_min", true, "rate", "Deprecated alias of rate_min; removed in 0.3." },
	{ "mbit_s_max", true, "rate", "Deprecated alias of rate_max; removed in 0.3." },
	{ "mbit_s_sd", true, "rate", "Deprecated alias of rate_sd; removed in 0.3." },
	{ "speedup_min", true, "ratio", "The least speedup over the runs." },
	{ "speedup_max", true, "ratio", "The greatest speedup over the runs." },
	{ "speedup_sd", true, "ratio", "The speedups' sample standard deviation." },
	{ "within_spread", true, "",
	  "1 when the step differs from the one above by less than their spread." },
	{ "kind", true, "", "What the row is: run, repeat or sweep." },
	{ "run", true, "JSON", "The run header's object: version, host, devices, options." },
	{ "kernel", true, "", "The kernel the run measures: decode, or the --kernel file's." },
	{ "rate_unit", true, "",
	  "The unit of the rates: Mbit/s for the decode kernel, else Mitem/s (or the unit named)." },
	{ "queue_wait_us", true, "us", "The mean queue wait over the step's batches." },
	{ "device", true, "", "The step's device, P:D as --list-devices numbers it." },
	{ "predicted_mbit_s", true, "rate", "Deprecated alias of predicted_rate; removed in 0.3." },
	{ "rate", true, "rate", "The step's rate; in a summary the mean over the runs." },
	{ "rate_min", true, "rate", "The least rate over the runs." },
	{ "rate_max", true, "rate", "The greatest rate over the runs." },
	{ "rate_sd", true, "rate", "The rates' sample standard deviation; empty with one run." },
	{ "predicted_rate", true, "rate",
	  "What the step's processes would reach filling idle time alone (doc/fields.md)." },
};

static const char *const unit_names[] = {
	[GD_UNIT_NONE] = "",       [GD_UNIT_RATE] = "rate",  [GD_UNIT_SYMBOLS] = "items",
	[GD_UNIT_COUNT] = "count", [GD_UNIT_SHARE] = "0..1", [GD_UNIT_THREADS] = "threads",
	[GD_UNIT_US] = "us",       [GD_UNIT_S] = "s",        [GD_UNIT_BYTES] = "bytes",
	[GD_UNIT_PER_S] = "1/s",
};

/* The field's unit and help: its entry in own_help (an alias's, of a figure too), else its
 * figure's; false where none. */
static bool help_of(const struct field *t, bool sweep, const char **unit, const char **help)
{
	for (size_t i = 0; i < GD_ARRAY_LEN(own_help); i++)
		if (own_help[i].sweep == sweep && strcmp(own_help[i].name, field_name(t)) == 0) {
			*unit = own_help[i].unit;
			*help = own_help[i].help;
			return true;
		}
	if (!t->fig)
		return false;
	*unit = t->fig->unit < GD_ARRAY_LEN(unit_names) ? unit_names[t->fig->unit] : "";
	*help = t->fig->help;
	return *help != NULL;
}

/* The rows of a frame that carry t, in words. */
static const char *rows_of(const struct field *t)
{
	unsigned r = field_rows(t);
	if (r == ROW_BOTH)
		return "all";
	if (r == ROW_WORKER)
		return "worker";
	return r & ROW_AGG ? (r & ROW_WORKER ? "all" : "aggregate") : "run";
}

void sink_fields_help(struct gd_text *t, bool sweep, const char *rate_unit)
{
	size_t n;
	const struct field *tab = table_of(sweep, &n);
	text_printf(t,
	            "The %s rows' fields, for --fields LIST (in CSV column order; doc/fields.md "
	            "says more):\n",
	            sweep ? "sweep" : "log");
	if (sweep)
		text_printf(t, "%-20s %-8s %s\n", "FIELD", "UNIT", "WHAT IT IS");
	else
		text_printf(t, "%-20s %-8s %-9s %s\n", "FIELD", "UNIT", "ROWS", "WHAT IT IS");
	for (size_t i = 0; i < n; i++) {
		const char *unit = "", *help = "";
		if (!help_of(&tab[i], sweep, &unit, &help))
			help = "(no help)";
		if (strcmp(unit, "rate") == 0)
			unit = rate_unit;
		if (sweep)
			text_printf(t, "%-20s %-8s %s\n", field_name(&tab[i]), unit, help);
		else
			text_printf(t, "%-20s %-8s %-9s %s%s\n", field_name(&tab[i]), unit, rows_of(&tab[i]),
			            help, tab[i].jsonl_only ? " (JSONL only)" : "");
	}
}

void sink_set_kernel(struct gd_sink *s, const char *name, const char *unit)
{
	if (s)
		s->kernel = (struct run_kernel){ name, s->unit_named ? s->kernel.unit : unit, s->kernel.per };
}

void sink_set_rate_unit(struct gd_sink *s, const char *unit, double items)
{
	if (s && items > 0) {
		s->kernel.unit = unit;
		s->kernel.per = items;
		s->unit_named = true;
	}
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

void sink_set_reader_ends_run(struct gd_sink *s, bool on)
{
	if (s)
		s->reader_ends_run = on;
}

/* A reader that closed its end of the pipe (head(1) has the lines it wanted) chose to stop
 * reading: no error. The log ends there and, where the sink was told so, the run with it, as
 * a quit signal ends it: workers and programs stopped and reaped, exit status 0. */
static bool reader_left(struct gd_sink *s, int e)
{
	if (e != EPIPE || !s->reader_ends_run)
		return false;
	s->reader_gone = true;
	gd_quit_signal = SIGPIPE;
	return true;
}

/* Lines are built whole, then written in one write(2) each: a reader of the file, or a kill
 * at any moment, never sees half a line from us except on a short write, which is cut back. */
static int flush(struct gd_sink *s)
{
	if (s->reader_gone) {
		s->b.n = 0;
		return 0;
	}
	if (s->q) {
		int qe = outq_put(s->q, s->b.p, s->b.n);
		s->b.n = 0;
		if (qe && !reader_left(s, qe))
			snprintf(s->err, sizeof(s->err), "writing the log: %s", strerror(qe));
		return qe && !s->reader_gone ? -1 : 0;
	}
	size_t off;
	int e = write_all(s->fd, s->b.p, s->b.n, &off);
	if (e && reader_left(s, e))
		e = 0;
	if (e) {
		snprintf(s->err, sizeof(s->err), "writing the log: %s",
		         e == EIO ? "short write" : strerror(e));
		cut_partial_line(s, off);
	}
	s->b.n = 0;
	return e ? -1 : 0;
}

/* Adds one row's line, after the header when it is the sink's first. Chosen columns are
 * written in the order given, each a CSV column too, whatever the table says. */
static void sink_line(struct gd_sink *s, const struct field *t, const struct value *v, size_t n)
{
	struct field ct[GD_FIELDS_MAX];
	struct value cv[GD_FIELDS_MAX];
	if (s->cols.n && t == (s->cols.sweep ? sweep_fields : frame_fields)) {
		for (int i = 0; i < s->cols.n; i++) {
			ct[i] = t[s->cols.id[i]];
			ct[i].jsonl_only = ct[i].jsonl_lead = false;
			cv[i] = v[s->cols.id[i]];
		}
		t = ct;
		v = cv;
		n = (size_t)s->cols.n;
	}
	if (!s->started && s->fmt->header && s->header)
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
		v[i] = field_rows(t) & row ? show(t, frame_value(i, f, sample, dev, row, &s->kernel))
		                           : (struct value){ .shown = false };
	}
	sink_line(s, frame_fields, v, F_COUNT);
}

/* A process on the device that the tool did not start (gd_outside): a row of its own kind, with
 * what the driver says of it and nothing the tool measures. */
static void outside_line(struct gd_sink *s, const struct gd_frame *f, const struct gd_outside *o)
{
	struct value v[F_COUNT];
	for (enum frame_field i = 0; i < F_COUNT; i++)
		v[i] = (struct value){ .shown = false };
	v[F_T_S] = show(&frame_fields[F_T_S], num(f->t_s));
	v[F_KIND] = show(&frame_fields[F_KIND], str("outside"));
	v[F_UNIX_S] = show(&frame_fields[F_UNIX_S], num(f->unix_s));
	v[F_PID] = show(&frame_fields[F_PID], num(o->pid));
	v[F_DEVICE] = show(&frame_fields[F_DEVICE], str(frame_device_ref(f, o->device)));
	v[F_COMMAND] = show(&frame_fields[F_COMMAND], str(o->comm));
	v[F_MEM_USED_BYTES] = show(&frame_fields[F_MEM_USED_BYTES], num(o->mem_bytes));
	v[F_DRIVER_SM] = show(&frame_fields[F_DRIVER_SM], num(o->sm));
	sink_line(s, frame_fields, v, F_COUNT);
}

int sink_frame(struct gd_sink *s, const struct gd_frame *f)
{
	for (int i = 0; i < f->nworkers; i++)
		frame_line(s, f, &f->workers[i], NULL, ROW_WORKER);
	for (int i = 0; i < f->noutside; i++)
		outside_line(s, f, &f->outside[i]);
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
		text_json_clean(j, facts[i].val);
	}
	text_printf(j, ",\"gpu\":%s,\"fp64\":%s,\"devices\":[", dev->gpu ? "true" : "false",
	            dev->fp64 ? "true" : "false");
	for (int i = 0; i < ndev; i++) { /* the facts above are the first one's */
		text_printf(j, "%s{\"device\":\"%s\",\"name\":", i ? "," : "", devs[i].ref);
		text_json_clean(j, devs[i].name);
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
	s->sweep = sweep;
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
	uint64_t lost = 0;
	int qe = s->q ? outq_close(s->q, SINK_DRAIN_NS, &lost) : 0;
	if (qe && reader_left(s, qe))
		qe = 0;
	if (s->reader_gone)
		lost = 0; /* the lines after the reader left were not wanted */
	if (rc == 0 && qe && qe != EAGAIN) {
		snprintf(why, whylen, "writing the log: %s", strerror(qe));
		rc = -1;
	} else if (rc == 0 && lost) {
		snprintf(why, whylen, "the log: %llu lines not written: its reader did not keep up",
		         (unsigned long long)lost);
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
	const struct gd_sink *s = self;
	if (s->sweep || !sink_frame(self, f))
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

/* sink.c: the log: the run header that opens it, then frame rows, event rows and sweep rows
 * (rows.c) in CSV or JSON lines (format.c), each line written whole. */
#include "sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"
#include "log.h"
#include "outq.h"

#define SINK_QUEUE_BYTES (4u << 20)        /* a log's lines waiting for a slow reader, at most */
#define SINK_DRAIN_NS    (2 * GD_NS_PER_S) /* what closing waits for a slow reader */

struct gd_sink {
	int fd;
	bool own_fd, started;  /* started: the CSV header is in the buffer or written */
	bool sweep;            /* a sweep's log: the run header and sweep rows, no frames */
	bool header;           /* CSV: the line of the columns' names opens the log */
	struct gd_fields cols; /* the columns chosen (--fields); n == 0: every field */
	struct gd_outq *q;     /* a pipe, socket or terminal: written by the queue's thread */
	const struct log_format *fmt;
	struct run_kernel kernel;
	struct gd_text b;
	char err[256];
};

struct gd_sink *sink_new(int fd, bool own_fd, enum gd_format fmt)
{
	struct gd_sink *s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->own_fd = own_fd;
	s->fmt = &log_formats[fmt];
	s->kernel = (struct run_kernel){ "decode", "Mbit/s" };
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

int sink_fields_parse(const char *list, bool sweep, struct gd_fields *out, char *err, size_t errlen)
{
	size_t n;
	const struct field *t = table_of(sweep, &n);
	memset(out, 0, sizeof(*out));
	out->sweep = sweep;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		size_t i = 0;
		while (i < n && (strlen(field_name(&t[i])) != len || strncmp(field_name(&t[i]), p, len) != 0))
			i++;
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
	if (s->q) {
		int qe = outq_put(s->q, s->b.p, s->b.n);
		s->b.n = 0;
		if (qe)
			snprintf(s->err, sizeof(s->err), "writing the log: %s", strerror(qe));
		return qe ? -1 : 0;
	}
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

/* sink.c: CSV and JSON-lines printers of the samples, behind one table of formats. */
#include "gputop/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"

/* A growing text buffer. */
struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int len = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (len < 0)
			return;
		if (b->p && b->n + (size_t)len < b->cap) {
			b->n += (size_t)len;
			return;
		}
		b->cap = (b->cap + (size_t)len) * 2 + 256;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
}

/* A number field: empty (CSV) or omitted (JSON) when NAN. */
struct field {
	const char *name;
	double v;
	int prec; /* digits after the point; -1: integer */
};

static const char csv_header[] =
    "t_s,kind,id,pid,state,procs,mbit_s,batches,symbols,kernel_busy,gap_kernel_us,gap_batch_us,"
    "gen_us,h2d_us,kernel_us,d2h_us,other_us,device_busy,headroom,lost\n";

static void fields_of(const struct gd_frame *f, const struct gd_sample *s, bool agg, struct field *out)
{
	const double na = NAN;
	struct field v[] = {
		{ "id", agg ? na : s->id, -1 },
		{ "pid", agg ? na : s->pid, -1 },
		{ "procs", agg ? f->procs : na, -1 },
		{ "mbit_s", s->mbit_s, 4 },
		{ "batches", (double)s->batches, -1 },
		{ "symbols", (double)s->symbols, -1 },
		{ "kernel_busy", agg ? na : s->kernel_busy, 4 },
		{ "gap_kernel_us", agg ? na : s->bd.gap_kernel_us, 2 },
		{ "gap_batch_us", agg ? na : s->bd.gap_batch_us, 2 },
		{ "gen_us", agg ? na : s->bd.gen_us, 2 },
		{ "h2d_us", agg ? na : s->bd.h2d_us, 2 },
		{ "kernel_us", agg ? na : s->bd.kernel_us, 2 },
		{ "d2h_us", agg ? na : s->bd.d2h_us, 2 },
		{ "other_us", agg ? na : s->bd.other_us, 2 },
		{ "device_busy", agg ? f->device_busy : na, 4 },
		{ "headroom", agg ? f->headroom : na, 4 },
		{ "lost", (double)s->lost, -1 },
	};
	memcpy(out, v, sizeof(v));
}
#define NFIELDS 17

static void put_num(struct buf *b, const struct field *x)
{
	if (x->prec < 0)
		put(b, "%.0f", x->v);
	else
		put(b, "%.*f", x->prec, x->v);
}

static void csv_sample(struct buf *b, const struct gd_frame *f, const struct gd_sample *s, bool agg)
{
	struct field v[NFIELDS];
	fields_of(f, s, agg, v);
	/* CSV order: t_s, kind, id, pid, state, procs, then the rest. */
	put(b, "%.3f,%s,", f->t_s, agg ? "aggregate" : "worker");
	for (int i = 0; i < NFIELDS; i++) {
		if (i == 2)
			put(b, "%s,", agg ? "" : gd_state_name(s->state));
		if (!isnan(v[i].v))
			put_num(b, &v[i]);
		put(b, i + 1 < NFIELDS ? "," : "\n");
	}
}

static void json_string(struct buf *b, const char *s)
{
	put(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			put(b, "\\%c", c);
		else if (c < 0x20)
			put(b, "\\u%04x", c);
		else
			put(b, "%c", c);
	}
	put(b, "\"");
}

static void jsonl_sample(struct buf *b, const struct gd_frame *f, const struct gd_sample *s, bool agg)
{
	struct field v[NFIELDS];
	fields_of(f, s, agg, v);
	put(b, "{\"t_s\":%.3f,\"kind\":\"%s\"", f->t_s, agg ? "aggregate" : "worker");
	if (!agg)
		put(b, ",\"state\":\"%s\"", gd_state_name(s->state));
	for (int i = 0; i < NFIELDS; i++)
		if (!isnan(v[i].v)) {
			put(b, ",\"%s\":", v[i].name);
			put_num(b, &v[i]);
		}
	if (agg) {
		put(b, ",\"window_s\":%.3f,\"timebase\":\"%s\",\"device_busy_method\":\"%s\"", f->window_s,
		    gd_timebase_name(f->timebase), f->busy_from_sum ? "sum-capped" : "union");
	} else {
		put(b, ",\"window_batches\":%llu", (unsigned long long)s->win_batches);
		if (s->error[0]) {
			put(b, ",\"error\":");
			json_string(b, s->error);
		}
	}
	put(b, "}\n");
}

static void csv_sweep(struct buf *b, const struct gd_sweep_row *r, bool header)
{
	if (header)
		put(b, "procs,mbit_s,speedup,device_busy,gap_batch_us,headroom\n");
	put(b, "%d,%.4f,%.4f,", r->procs, r->mbit_s, r->speedup);
	const double v[] = { r->device_busy, r->gap_batch_us, r->headroom };
	for (int i = 0; i < 3; i++) {
		if (!isnan(v[i]))
			put(b, "%.4f", v[i]);
		put(b, i < 2 ? "," : "\n");
	}
}

static void jsonl_sweep(struct buf *b, const struct gd_sweep_row *r, bool header)
{
	(void)header;
	put(b, "{\"kind\":\"sweep\",\"procs\":%d,\"mbit_s\":%.4f,\"speedup\":%.4f", r->procs, r->mbit_s,
	    r->speedup);
	const char *names[] = { "device_busy", "gap_batch_us", "headroom" };
	const double v[] = { r->device_busy, r->gap_batch_us, r->headroom };
	for (int i = 0; i < 3; i++)
		if (!isnan(v[i]))
			put(b, ",\"%s\":%.4f", names[i], v[i]);
	put(b, "}\n");
}

struct sink_format {
	const char *header; /* written once before the first frame, or NULL */
	void (*sample)(struct buf *b, const struct gd_frame *f, const struct gd_sample *s, bool agg);
	void (*sweep)(struct buf *b, const struct gd_sweep_row *r, bool header);
};

static const struct sink_format formats[GD_FMT_COUNT] = {
	[GD_FMT_CSV] = { csv_header, csv_sample, csv_sweep },
	[GD_FMT_JSONL] = { NULL, jsonl_sample, jsonl_sweep },
};

struct gd_sink {
	int fd;
	bool own_fd, started;
	const struct sink_format *fmt;
	struct buf b;
	char err[256];
};

struct gd_sink *sink_open(const char *path, enum gd_format fmt, char *err, size_t errlen)
{
	int fd = 1;
	if (path) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			snprintf(err, errlen, "--output: cannot open '%s': %s", path, strerror(errno));
			return NULL;
		}
	}
	struct gd_sink *s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->own_fd = path != NULL;
	s->fmt = &formats[fmt];
	return s;
}

/* Lines are built whole, then written in one write(2) each: a reader of the file, or a kill
 * at any moment, never sees half a line from us except on a short write. */
static int flush(struct gd_sink *s)
{
	size_t off = 0;
	while (off < s->b.n) {
		ssize_t w = write(s->fd, s->b.p + off, s->b.n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(s->err, sizeof(s->err), "writing the log: %s",
			         w < 0 ? strerror(errno) : "short write");
			s->b.n = 0;
			return -1;
		}
		off += (size_t)w;
	}
	s->b.n = 0;
	return 0;
}

int sink_frame(struct gd_sink *s, const struct gd_frame *f)
{
	if (!s->started && s->fmt->header)
		put(&s->b, "%s", s->fmt->header);
	s->started = true;
	for (int i = 0; i < f->nworkers; i++)
		s->fmt->sample(&s->b, f, &f->workers[i], false);
	s->fmt->sample(&s->b, f, &f->agg, true);
	return flush(s);
}

int sink_sweep_row(struct gd_sink *s, const struct gd_sweep_row *r)
{
	s->fmt->sweep(&s->b, r, !s->started);
	s->started = true;
	return flush(s);
}

const char *sink_error(const struct gd_sink *s)
{
	return s->err;
}

int sink_close(struct gd_sink *s)
{
	if (!s)
		return 0;
	int rc = 0;
	if (s->own_fd && close(s->fd) != 0) {
		snprintf(s->err, sizeof(s->err), "closing the log: %s", strerror(errno));
		rc = -1;
	}
	free(s->b.p);
	free(s);
	return rc;
}

/* trace.c: the --trace writer. Every event is one line ending with a comma, and lines reach
 * the file whole: they are built in a buffer and written with write(2) once a window, or when
 * the buffer is full, never cut between two writes. A trace whose writer was killed (SIGKILL)
 * is therefore the opening '[' and whole events, and the one-liner in the man page closes it;
 * on every exit that runs (signals included) the writer closes it itself with a last event,
 * "end of trace", and the ']'. */
#include "gputop/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/wire.h"
#include "gputop/workerinfo.h"

#define TRACE_BUF_WRITE ((size_t)64 * 1024) /* the buffer is written out once it holds this much */

struct gd_trace {
	int fd;
	bool own_fd;
	char path[256];
	struct gd_text b; /* whole lines not yet written */
	uint64_t limit, events;
	int64_t t0;
	struct named {
		unsigned worker;
		uint64_t gen; /* generation threads (bit k-1: thread k) whose track is named */
	} * named;            /* workers whose track has its name event */
	size_t nnamed, capnamed;
	int error; /* the first write error (errno); nothing is written after it */
};

/* Writes the buffered lines; a short write goes on with the rest. */
static void write_out(struct gd_trace *t)
{
	if (!t->error)
		t->error = write_all(t->fd, t->b.p, t->b.n, NULL);
	t->b.n = 0;
}

/* Appends one whole line to the buffer. */
__attribute__((format(printf, 2, 3))) static void line(struct gd_trace *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(&t->b, fmt, ap);
	va_end(ap);
	if (t->b.n >= TRACE_BUF_WRITE)
		write_out(t);
}

struct gd_trace *trace_open(int fd, bool own_fd, const char *path, uint64_t limit)
{
	struct gd_trace *t = xcalloc(1, sizeof(*t));
	t->fd = fd;
	t->own_fd = own_fd;
	str_copy(t->path, sizeof(t->path), path);
	t->limit = limit;
	line(t,
	     "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"" GD_NAME "\"}},\n");
	write_out(t); /* a trace of a run killed at once is still "[" and whole lines */
	return t;
}

static void trace_start(void *self, int64_t t0)
{
	struct gd_trace *t = self;
	t->t0 = t0;
}

static double us(const struct gd_trace *t, int64_t ns)
{
	return (double)(ns - t->t0) / 1e3;
}

static void event(struct gd_trace *t, unsigned worker, int tid, const char *name, const char *cat, int64_t s,
                  int64_t e, uint64_t batch)
{
	if (t->events >= t->limit)
		return;
	if (++t->events == t->limit) {
		line(t,
		     "{\"name\":\"trace limit reached (%" PRIu64 " events): later batches are not "
		     "traced\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%.3f},\n",
		     t->limit, us(t, s));
		return;
	}
	line(t,
	     "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
	     "\"args\":{\"batch\":%" PRIu64 "}},\n",
	     name, cat, worker, tid, us(t, s), (double)(e - s) / 1e3, batch);
}

/* The worker's entry of named tracks, naming its process and threads the first time: its
 * device track carries the device's P:D. */
static struct named *name_track(struct gd_trace *t, unsigned worker, pid_t pid, const char *device)
{
	for (size_t i = 0; i < t->nnamed; i++)
		if (t->named[i].worker == worker)
			return &t->named[i];
	if (t->nnamed == t->capnamed) {
		t->capnamed = t->capnamed ? 2 * t->capnamed : 16;
		t->named = xreallocarray(t->named, t->capnamed, sizeof(*t->named));
	}
	struct named *n = &t->named[t->nnamed++];
	*n = (struct named){ .worker = worker };
	line(t,
	     "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"worker %u (pid "
	     "%d)\"}},\n",
	     worker, worker, (int)pid);
	line(t,
	     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":1,\"args\":{\"name\":\"host\"}},\n",
	     worker);
	line(t,
	     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":2,\"args\":{\"name\":\"device "
	     "%s\"}},\n",
	     worker, device);
	return n;
}

/* The track of the thread that generated r's input: "host" (tid 1), or "gen K" (tid 10 + K). */
static int gen_track(struct gd_trace *t, struct named *n, const struct gd_rec *r)
{
	unsigned k = gd_rec_gen_thread(r);
	if (k == 0)
		return 1;
	if (k <= 64 && !(n->gen & (1ull << (k - 1)))) {
		n->gen |= 1ull << (k - 1);
		line(t,
		     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"gen "
		     "%u\"}},\n",
		     n->worker, 10 + k, k);
	}
	return 10 + (int)k;
}

static void trace_batch(void *self, const struct gd_worker_info *w, const char *device,
                        const struct gd_rec *r)
{
	struct gd_trace *t = self;
	unsigned worker = w->id;
	if (t->events >= t->limit)
		return;
	struct named *n = name_track(t, worker, w->pid, device);
	if (r->t_gen > r->t_begin)
		event(t, worker, gen_track(t, n, r), "generate", "host", r->t_begin, r->t_gen, r->batch);
	if (r->h2d[1] > 0)
		event(t, worker, 2, "write", "h2d", r->h2d[0], r->h2d[1], r->batch);
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t k[2];
		gd_rec_kiv(r, i, k);
		event(t, worker, 2, "kernel", "kernel", k[0], k[1], r->batch);
	}
	if (r->d2h[1] > 0)
		event(t, worker, 2, "read", "d2h", r->d2h[0], r->d2h[1], r->batch);
}

/* Each window's lines go out together. */
/* NOLINTNEXTLINE(readability-non-const-parameter): the outputs interface; this one never fails */
static int trace_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	(void)f;
	(void)err;
	(void)errlen;
	write_out(self); /* a write error is said at the close */
	return 0;
}

static int trace_close(void *self, char *why, size_t whylen)
{
	struct gd_trace *t = self;
	/* The last event carries no comma: the array ends here. */
	line(t, "{\"name\":\"end of trace\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%.3f}\n]\n",
	     us(t, now_ns()));
	write_out(t);
	if (t->own_fd && close(t->fd) != 0 && !t->error)
		t->error = errno;
	int error = t->error;
	if (error)
		snprintf(why, whylen, "--trace: writing '%s' failed: %s", t->path, strerror(error));
	free(t->b.p);
	free(t->named);
	free(t);
	return error ? -1 : 0;
}

const struct gd_output_ops trace_output = {
	.start = trace_start, .batch = trace_batch, .frame = trace_frame, .close = trace_close
};

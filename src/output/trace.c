/* trace.c: the --trace writer. Every event is one line ending with a comma, and lines reach
 * the file whole: they are built in a buffer and written with write(2) once a window, or when
 * the buffer is full, never cut between two writes. A trace whose writer was killed (SIGKILL)
 * is therefore the opening '[' and whole events, and the one-liner in the man page closes it;
 * on every exit that runs (signals included) the writer closes it itself with a last event,
 * "end of trace", and the ']'.
 *
 * Slices on one track (pid, tid) never overlap without nesting, and in fact never overlap:
 * a worker's device commands go to one track per lane and kind (write, kernels, read), and a
 * batch whose commands of one kind would start before the end of the previous slice on that
 * track (an estimate, or the plain and profiling queues of one lane running side by side)
 * goes to the first of the track's overlap tracks that is free by then. Where none is, the
 * batch takes the one that frees first and each of its slices is clipped to start where that
 * track's last slice ended ("clipped_us" says by how much; a slice with nothing left is
 * dropped); the "end of trace" event counts both. */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/spec.h"
#include "gputop/wire.h"
#include "gputop/frame.h"

#define TRACE_BUF_WRITE ((size_t)64 * 1024) /* the buffer is written out once it holds this much */
#define TRACE_LEVELS    3                   /* a device track and its overlap tracks */

/* The kinds of device command, each on tracks of its own: their slices' names and categories. */
enum { DIR_WRITE, DIR_KERNELS, DIR_READ, NDIRS };
static const struct {
	const char *track, *slice, *cat;
} dirs[NDIRS] = {
	[DIR_WRITE] = { "write", "write", "h2d" },
	[DIR_KERNELS] = { "kernels", "kernel", "kernel" },
	[DIR_READ] = { "read", "read", "d2h" },
};

/* One track (a thread of the trace): whether its name event is out, where its last slice ends. */
struct track {
	bool named;
	int64_t end; /* END of its latest slice, host ns; 0: none yet */
};

/* A worker's tracks: host (tid 1), generation thread K (tid 10 + K), and for lane L (from 1),
 * kind d and level v (0: the track, 1 and 2: its overlap tracks) tid 100 L + 10 d + v. */
struct named {
	unsigned worker;
	struct track host[1 + GD_GEN_THREADS_MAX];
	struct track dev[GD_QUEUES_MAX][NDIRS][TRACE_LEVELS];
};

struct gd_trace {
	int fd;
	bool own_fd;
	char path[256];
	struct gd_text b; /* whole lines not yet written */
	uint64_t limit, events;
	uint64_t clipped, dropped; /* slices cut to fit their track, and those with nothing left */
	int64_t t0;
	struct named *named; /* workers whose process has its name event */
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

/* What a slice says besides its times: its batch, and for a device command its lane (from 1),
 * whether its times are an estimate, and how much was clipped from its start. */
struct slice_args {
	uint64_t batch;
	unsigned lane; /* 0: a host slice */
	bool estimated;
	int64_t clipped; /* ns */
};

/* One slice [s, e) on track tid of the worker, unless the limit is reached. */
static void slice(struct gd_trace *t, unsigned worker, int tid, const char *name, const char *cat, int64_t s,
                  int64_t e, const struct slice_args *a)
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
	char more[96] = "";
	if (a->lane)
		snprintf(more, sizeof(more), ",\"lane\":%u%s", a->lane,
		         a->estimated ? ",\"estimated\":true" : "");
	if (a->clipped)
		snprintf(more + strlen(more), sizeof(more) - strlen(more), ",\"clipped_us\":%.3f",
		         (double)a->clipped / 1e3);
	line(t,
	     "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
	     "\"args\":{\"batch\":%" PRIu64 "%s}},\n",
	     name, cat, worker, tid, us(t, s), (double)(e - s) / 1e3, a->batch, more);
}

/* Names track tid of the worker the first time it is used, and keeps the tracks in tid order. */
static void name_thread(struct gd_trace *t, unsigned worker, struct track *k, int tid, const char *name)
{
	if (k->named)
		return;
	k->named = true;
	line(t, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n",
	     worker, tid, name);
	line(
	    t,
	    "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%d,\"args\":{\"sort_index\":%d}}"
	    ",\n",
	    worker, tid, tid);
}

/* The worker's tracks, naming its process the first time: the name carries its pid (and an
 * observed process's command name) and its device's P:D. */
static struct named *worker_tracks(struct gd_trace *t, const struct gd_row_info *w, const char *device)
{
	unsigned worker = w->id;
	for (size_t i = 0; i < t->nnamed; i++)
		if (t->named[i].worker == worker)
			return &t->named[i];
	if (t->nnamed == t->capnamed) {
		t->capnamed = t->capnamed ? 2 * t->capnamed : 16;
		t->named = xreallocarray(t->named, t->capnamed, sizeof(*t->named));
	}
	struct named *n = &t->named[t->nnamed++];
	memset(n, 0, sizeof(*n));
	n->worker = worker;
	char name[128];
	if (w->observed)
		snprintf(name, sizeof(name), "process %u (pid %d, %s, device %s)", worker, (int)w->pid,
		         w->comm, device);
	else
		snprintf(name, sizeof(name), "worker %u (pid %d, device %s)", worker, (int)w->pid, device);
	struct gd_text json = { 0 }; /* a command name is the program's: cleaned, then escaped */
	text_json_clean(&json, name);
	line(t, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":%s}},\n", worker,
	     json.p);
	free(json.p);
	return n;
}

/* Which of the tracks k[0..levels) a batch's commands of one kind, the first starting at s, go
 * to: the first that is free by s (its last slice has ended), else the one that frees first. */
static int pick(const struct track *k, int levels, int64_t s)
{
	int v = 0;
	for (int i = 1; i < levels && k[v].end > s; i++)
		if (k[i].end < k[v].end)
			v = i;
	return v;
}

/* Writes the slices iv[0..n) (one batch's commands of one kind, in order) on track k (tid),
 * each clipped to start where the track's last slice ended; one with nothing left is dropped. */
static void put(struct gd_trace *t, unsigned worker, struct track *k, int tid, const char *name,
                const char *cat, const int64_t (*iv)[2], uint32_t n, struct slice_args a)
{
	for (uint32_t i = 0; i < n; i++) {
		int64_t s = iv[i][0], e = iv[i][1];
		a.clipped = s < k->end ? k->end - s : 0;
		s += a.clipped;
		if (a.clipped && e <= s) {
			t->dropped++;
			continue;
		}
		t->clipped += a.clipped != 0;
		slice(t, worker, tid, name, cat, s, e, &a);
		k->end = e;
	}
}

static void trace_batch(void *self, const struct gd_row_info *w, const char *device, const struct gd_rec *r)
{
	struct gd_trace *t = self;
	unsigned worker = w->id;
	if (t->events >= t->limit)
		return;
	struct named *n = worker_tracks(t, w, device);
	struct slice_args a = { .batch = r->batch };
	char tname[48];
	/* Generation: on "host" (tid 1), or "gen K" (tid 10 + K) for generation thread K. An
	 * observed program's host work between its waits: on "thread K", the thread of it that
	 * opened the batch. */
	unsigned g = gd_rec_gen_thread(r);
	if (r->t_gen > r->t_begin && g <= GD_GEN_THREADS_MAX) {
		int tid = g ? 10 + (int)g : 1;
		if (!n->host[g].named) {
			snprintf(tname, sizeof(tname), !g ? "host" : w->observed ? "thread %u" : "gen %u", g);
			name_thread(t, worker, &n->host[g], tid, tname);
		}
		const int64_t iv[1][2] = { { r->t_begin, r->t_gen } };
		put(t, worker, &n->host[g], tid, w->observed ? "host work" : "generate", "host", iv, 1, a);
	}
	unsigned lane = gd_rec_lane(r) < GD_QUEUES_MAX ? gd_rec_lane(r) : GD_QUEUES_MAX - 1;
	a.lane = lane + 1;
	a.estimated = (r->flags & GD_REC_ESTIMATED) != 0;
	int64_t kv[GD_REC_KMAX][2];
	for (uint32_t i = 0; i < r->nkiv; i++)
		gd_rec_kiv(r, i, kv[i]);
	const struct {
		const int64_t (*iv)[2];
		uint32_t n;
	} cmds[NDIRS] = {
		[DIR_WRITE] = { (const int64_t(*)[2])r->h2d, r->h2d[1] > 0 },
		[DIR_KERNELS] = { (const int64_t(*)[2])kv, r->nkiv },
		[DIR_READ] = { (const int64_t(*)[2])r->d2h, r->d2h[1] > 0 },
	};
	for (int d = 0; d < NDIRS; d++) {
		if (!cmds[d].n)
			continue;
		struct track *k = n->dev[lane][d];
		int v = pick(k, TRACE_LEVELS, cmds[d].iv[0][0]), tid = 100 * (int)a.lane + 10 * d + v;
		if (!k[v].named) {
			int len = snprintf(tname, sizeof(tname), "lane %u %s", a.lane, dirs[d].track);
			if (v)
				snprintf(tname + len, sizeof(tname) - (size_t)len, ", overlap %d", v);
			name_thread(t, worker, &k[v], tid, tname);
		}
		put(t, worker, &k[v], tid, dirs[d].slice, dirs[d].cat, cmds[d].iv, cmds[d].n, a);
	}
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
	line(t,
	     "{\"name\":\"end of trace\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%.3f,"
	     "\"args\":{\"clipped\":%" PRIu64 ",\"dropped\":%" PRIu64 "}}\n]\n",
	     us(t, now_ns()), t->clipped, t->dropped);
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

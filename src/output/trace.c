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
 * track (the plain and profiling queues of one lane running side by side) goes to the first
 * of the track's overlap tracks that is free by then. Where none is, the batch takes the one
 * that frees first and each of its slices is clipped to start where that track's last slice
 * ended ("clipped_us" says by how much; a slice with nothing left is dropped); the "end of
 * trace" event counts both. Estimated device times (--profile sampled) are drawn apart from
 * measured ones: tracks of their own (", estimated"), slices named "kernel (estimated)" (a
 * viewer colours a slice by its name; Chrome's by its "cname", grey) and "estimated": true.
 *
 * Each device is a process of the trace too (pid TRACE_DEVICE_PID + its index): the union of
 * every process's kernels on it as "busy" slices, and a counter of the kernels running. Records
 * reach the writer in each worker's order, not in time order across workers, so the union is
 * written a window at a time up to a mark that later records should not reach back past: the
 * device's latest batch end less twice its longest batch (from its first kernel to its end), and
 * at least TRACE_HORIZON_NS. A kernel that starts before the mark anyway (a worker stopped and
 * resumed) counts as "late" in the last event, and only its part after the mark is in the union.
 * A sweep's steps are global instant events (trace_mark). */
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

#define TRACE_BUF_WRITE  ((size_t)64 * 1024) /* the buffer is written out once it holds this much */
#define TRACE_LEVELS     3                   /* a device track and its overlap tracks */
#define TRACE_EST_TID    5                   /* an estimated track's tid: its measured one's plus this */
#define TRACE_DEVICE_PID 1000000             /* device D's process: this pid plus D, past any worker id */
#define TRACE_HORIZON_NS GD_NS_PER_S         /* the union is written this far behind the latest batch */

/* The kinds of device command, each on tracks of its own: their slices' names and categories.
 * A new kind is one more entry here and in trace_batch's cmds[]. */
enum { DIR_WRITE, DIR_KERNELS, DIR_READ, DIR_COPY, NDIRS };
static const struct {
	const char *track, *slice, *cat;
} dirs[NDIRS] = {
	[DIR_WRITE] = { "write", "write", "h2d" },
	[DIR_KERNELS] = { "kernels", "kernel", "kernel" },
	[DIR_READ] = { "read", "read", "d2h" },
	[DIR_COPY] = { "copies", "copy", "copy" }, /* an observed program's copies and fills */
};

/* One track (a thread of the trace): whether its name event is out, where its last slice ends. */
struct track {
	bool named;
	int64_t end; /* END of its latest slice, host ns; 0: none yet */
};

/* A worker's tracks: host (tid 1), generation thread K (tid 10 + K), and for lane L (from 1),
 * kind d, measured (e 0) or estimated (e 1) and level v (0: the track, 1 and 2: its overlap
 * tracks) tid 100 L + 10 d + TRACE_EST_TID e + v. */
struct named {
	unsigned worker;
	struct track host[1 + GD_GEN_THREADS_MAX];
	struct track dev[GD_QUEUES_MAX][NDIRS][2][TRACE_LEVELS];
};

/* A kernel interval of some process on a device, not yet in the device's union. */
struct pend {
	int64_t s, e;
	bool estimated;
};

/* A device's union of kernels: written up to done; every pending interval starts at or after it. */
struct device_union {
	bool named;
	struct pend *p;
	size_t n, cap;
	int64_t done;
	int64_t newest, span; /* the latest batch end; the longest batch, its first kernel to its end */
	int running;          /* the counter's last written value */
};

/* A step of a device's counter: at t, d more (or fewer) kernels running. */
struct step {
	int64_t t;
	int d;
};

struct gd_trace {
	int fd;
	bool own_fd;
	char path[256];
	struct gd_text b; /* whole lines not yet written */
	uint64_t limit, events;
	uint64_t clipped, dropped; /* slices cut to fit their track, and those with nothing left */
	uint64_t late;             /* kernels that started before their device's union was written */
	int64_t t0;
	struct named *named; /* workers whose process has its name event */
	size_t nnamed, capnamed;
	struct device_union dev[GD_DEVICES_MAX];
	struct step *steps; /* the union's scratch: its counter's steps */
	size_t capsteps;
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

/* Whether one more timed event (a slice or a counter value) at ns is within the limit; the
 * event that reaches it is a note saying so instead. */
static bool room(struct gd_trace *t, int64_t ns)
{
	if (t->events >= t->limit)
		return false;
	if (++t->events < t->limit)
		return true;
	line(t,
	     "{\"name\":\"trace limit reached (%" PRIu64 " events): later batches are not "
	     "traced\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%.3f},\n",
	     t->limit, us(t, ns));
	return false;
}

/* What a slice says besides its times: its batch, and for a device command its lane (from 1),
 * whether its times are an estimate, and how much was clipped from its start. */
struct slice_args {
	uint64_t batch;
	unsigned lane; /* 0: a host slice */
	bool estimated;
	int64_t clipped; /* ns */
};

/* One slice [s, e) on track tid of the worker, unless the limit is reached. An estimate is
 * named apart ("kernel (estimated)") and grey where a viewer takes the event's colour. */
static void slice(struct gd_trace *t, unsigned worker, int tid, const char *name, const char *cat, int64_t s,
                  int64_t e, const struct slice_args *a)
{
	if (!room(t, s))
		return;
	char more[96] = "";
	if (a->lane)
		snprintf(more, sizeof(more), ",\"lane\":%u%s", a->lane,
		         a->estimated ? ",\"estimated\":true" : "");
	if (a->clipped)
		snprintf(more + strlen(more), sizeof(more) - strlen(more), ",\"clipped_us\":%.3f",
		         (double)a->clipped / 1e3);
	line(
	    t,
	    "{\"name\":\"%s%s\",\"cat\":\"%s\",\"ph\":\"X\",%s\"pid\":%u,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
	    "\"args\":{\"batch\":%" PRIu64 "%s}},\n",
	    name, a->estimated ? " (estimated)" : "", cat, a->estimated ? "\"cname\":\"grey\"," : "", worker,
	    tid, us(t, s), (double)(e - s) / 1e3, a->batch, more);
}

/* Names track tid of process pid the first time it is used, and keeps the tracks in tid order. */
static void name_thread(struct gd_trace *t, unsigned pid, struct track *k, int tid, const char *name)
{
	if (k->named)
		return;
	k->named = true;
	line(t, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%d,\"args\":{\"name\":\"%s\"}},\n",
	     pid, tid, name);
	line(
	    t,
	    "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":%d,\"args\":{\"sort_index\":%d}}"
	    ",\n",
	    pid, tid, tid);
}

/* Names process pid: name is cleaned, then escaped (a command name is the program's). */
static void name_process(struct gd_trace *t, unsigned pid, const char *name)
{
	struct gd_text json = { 0 };
	text_json_clean(&json, name);
	line(t, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":%s}},\n", pid, json.p);
	free(json.p);
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
	name_process(t, worker, name);
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

/* Device d's kernels of one batch (ending at end) into its union, naming its process (its one
 * track's tid is its pid) the first time; a kernel that starts before the union's written part
 * is clipped to it (late). */
static void union_add(struct gd_trace *t, int d, const char *device, int64_t end, const int64_t (*kv)[2],
                      uint32_t n, bool estimated)
{
	struct device_union *u = &t->dev[d];
	if (!n)
		return;
	if (!u->named) {
		u->named = true;
		char name[96];
		snprintf(name, sizeof(name), "device %s: kernels of every process", device);
		unsigned pid = TRACE_DEVICE_PID + (unsigned)d;
		name_process(t, pid, name);
		struct track k = { 0 };
		name_thread(t, pid, &k, (int)pid, "busy (union of kernels)");
	}
	int64_t first = kv[0][0];
	for (uint32_t i = 0; i < n; i++) {
		first = kv[i][0] < first ? kv[i][0] : first;
		end = kv[i][1] > end ? kv[i][1] : end;
	}
	u->span = end - first > u->span ? end - first : u->span;
	u->newest = end > u->newest ? end : u->newest;
	for (uint32_t i = 0; i < n; i++) {
		int64_t s = kv[i][0], e = kv[i][1];
		t->late += s < u->done;
		s = s < u->done ? u->done : s;
		if (e <= s)
			continue;
		if (u->n == u->cap) {
			u->cap = u->cap ? 2 * u->cap : 256;
			u->p = xreallocarray(u->p, u->cap, sizeof(*u->p));
		}
		u->p[u->n++] = (struct pend){ s, e, estimated };
	}
}

static int by_start(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

static int by_time(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

/* The union's "busy" slices over [u->done, w): each group of overlapping (or touching) kernels,
 * cut at w, with how many kernels it holds and how many of those are estimates. */
static void union_slices(struct gd_trace *t, struct device_union *u, unsigned pid, int64_t w)
{
	for (size_t i = 0; i < u->n && u->p[i].s < w;) {
		int64_t s = u->p[i].s, e = s;
		unsigned k = 0, est = 0;
		for (; i < u->n && u->p[i].s < w && u->p[i].s <= e; i++, k++) {
			int64_t pe = u->p[i].e < w ? u->p[i].e : w;
			e = pe > e ? pe : e;
			est += u->p[i].estimated;
		}
		if (room(t, s))
			line(t,
			     "{\"name\":\"busy\",\"cat\":\"device\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
			     "\"ts\":%.3f,"
			     "\"dur\":%.3f,\"args\":{\"kernels\":%u,\"estimated\":%u}},\n",
			     pid, pid, us(t, s), (double)(e - s) / 1e3, k, est);
	}
}

/* The counter "kernels running" over [u->done, w): a value wherever it changes. Every pending
 * kernel starts at or after done, so the count is rebuilt from 0 by its starts and ends. */
static void union_counter(struct gd_trace *t, struct device_union *u, unsigned pid, int64_t w)
{
	if (2 * u->n > t->capsteps) {
		t->capsteps = 2 * u->n;
		t->steps = xreallocarray(t->steps, t->capsteps, sizeof(*t->steps));
	}
	size_t n = 0;
	for (size_t i = 0; i < u->n; i++) {
		t->steps[n].t = u->p[i].s;
		t->steps[n++].d = 1;
		t->steps[n].t = u->p[i].e;
		t->steps[n++].d = -1;
	}
	qsort(t->steps, n, sizeof(*t->steps), by_time);
	int v = 0;
	for (size_t i = 0; i < n && t->steps[i].t < w;) {
		int64_t at = t->steps[i].t;
		for (; i < n && t->steps[i].t == at; i++)
			v += t->steps[i].d;
		if (v != u->running && room(t, at))
			line(t,
			     "{\"name\":\"kernels\",\"ph\":\"C\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
			     "\"args\":{\"running\":%d}},\n",
			     pid, pid, us(t, at), v);
		u->running = v;
	}
}

/* Writes device d's union and counter up to w (no further than its pending kernels reach);
 * the kernels that go on past w stay, starting at w. */
static void union_flush(struct gd_trace *t, int d, int64_t w)
{
	struct device_union *u = &t->dev[d];
	if (w <= u->done)
		return;
	unsigned pid = TRACE_DEVICE_PID + (unsigned)d;
	qsort(u->p, u->n, sizeof(*u->p), by_start);
	union_slices(t, u, pid, w);
	union_counter(t, u, pid, w);
	size_t m = 0;
	for (size_t i = 0; i < u->n; i++)
		if (u->p[i].e > w) {
			u->p[m] = u->p[i];
			u->p[m++].s = u->p[i].s > w ? u->p[i].s : w;
		}
	u->n = m;
	u->done = w;
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
		[DIR_COPY] = { (const int64_t(*)[2])r->copy, r->copy[1] > 0 },
	};
	for (int d = 0; d < NDIRS; d++) {
		if (!cmds[d].n)
			continue;
		struct track *k = n->dev[lane][d][a.estimated];
		int v = pick(k, TRACE_LEVELS, cmds[d].iv[0][0]);
		int tid = 100 * (int)a.lane + 10 * d + (a.estimated ? TRACE_EST_TID : 0) + v;
		if (!k[v].named) {
			int len = snprintf(tname, sizeof(tname), "lane %u %s%s", a.lane, dirs[d].track,
			                   a.estimated ? ", estimated" : "");
			if (v)
				snprintf(tname + len, sizeof(tname) - (size_t)len, ", overlap %d", v);
			name_thread(t, worker, &k[v], tid, tname);
		}
		put(t, worker, &k[v], tid, dirs[d].slice, dirs[d].cat, cmds[d].iv, cmds[d].n, a);
	}
	if (w->device >= 0 && w->device < GD_DEVICES_MAX)
		union_add(t, w->device, device, r->t_end, (const int64_t(*)[2])kv, r->nkiv, a.estimated);
}

/* Each window's lines go out together, with each device's union up to its mark. */
/* NOLINTNEXTLINE(readability-non-const-parameter): the outputs interface; this one never fails */
static int trace_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	struct gd_trace *t = self;
	(void)f;
	(void)err;
	(void)errlen;
	for (int d = 0; d < GD_DEVICES_MAX; d++) {
		const struct device_union *u = &t->dev[d];
		int64_t behind = 2 * u->span > TRACE_HORIZON_NS ? 2 * u->span : TRACE_HORIZON_NS;
		if (u->n)
			union_flush(t, d, u->newest - behind);
	}
	write_out(t); /* a write error is said at the close */
	return 0;
}

void trace_mark(struct gd_outputs *l, int64_t at, const char *fmt, ...)
{
	char label[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(label, sizeof(label), fmt, ap);
	va_end(ap);
	for (int i = 0; l && i < l->n; i++) {
		struct gd_trace *t = l->out[i].self;
		if (l->out[i].ops != &trace_output)
			continue;
		struct gd_text json = { 0 };
		text_json_clean(&json, label);
		line(t,
		     "{\"name\":%s,\"cat\":\"sweep\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%."
		     "3f},\n",
		     json.p, us(t, at));
		free(json.p);
		write_out(t);
	}
}

static int trace_close(void *self, char *why, size_t whylen)
{
	struct gd_trace *t = self;
	for (int d = 0; d < GD_DEVICES_MAX; d++) {
		if (t->dev[d].n)
			union_flush(t, d, INT64_MAX);
		free(t->dev[d].p);
	}
	/* The last event carries no comma: the array ends here. */
	line(t,
	     "{\"name\":\"end of trace\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%.3f,"
	     "\"args\":{\"clipped\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"late\":%" PRIu64 "}}\n]\n",
	     us(t, now_ns()), t->clipped, t->dropped, t->late);
	write_out(t);
	if (t->own_fd && close(t->fd) != 0 && !t->error)
		t->error = errno;
	int error = t->error;
	if (error)
		snprintf(why, whylen, "--trace: writing '%s' failed: %s", t->path, strerror(error));
	free(t->b.p);
	free(t->named);
	free(t->steps);
	free(t);
	return error ? -1 : 0;
}

const struct gd_output_ops trace_output = {
	.start = trace_start, .batch = trace_batch, .frame = trace_frame, .close = trace_close
};

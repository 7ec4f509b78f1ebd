/* trace.c: the --trace writer. Every event is one line; the array is closed on every exit
 * that runs (signals included), and Chrome's array format tolerates a missing ']' anyway. */
#include "gputop/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

struct gd_trace {
	FILE *f;
	char path[256];
	uint64_t limit, events;
	int64_t t0;
	struct named {
		unsigned worker;
		uint64_t gen; /* generation threads (bit k-1: thread k) whose track is named */
	} * named;            /* workers whose track has its name event */
	size_t nnamed, capnamed;
	int error;
};

struct gd_trace *trace_open(const char *path, uint64_t limit, char *err, size_t errlen)
{
	FILE *f = fopen(path, "we");
	if (!f) {
		snprintf(err, errlen, "--trace: cannot create '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct gd_trace *t = xcalloc(1, sizeof(*t));
	t->f = f;
	str_copy(t->path, sizeof(t->path), path);
	t->limit = limit;
	fprintf(f,
	        "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"" GD_NAME "\"}}");
	return t;
}

void trace_set_origin(struct gd_trace *t, int64_t t0)
{
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
		fprintf(t->f,
		        ",\n{\"name\":\"trace limit reached (%" PRIu64 " events): later batches are not "
		        "traced\",\"ph\":\"i\",\"s\":\"g\",\"pid\":0,\"tid\":0,\"ts\":%.3f}",
		        t->limit, us(t, s));
		return;
	}
	fprintf(
	    t->f,
	    ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
	    "\"args\":{\"batch\":%" PRIu64 "}}",
	    name, cat, worker, tid, us(t, s), (double)(e - s) / 1e3, batch);
}

/* The worker's entry of named tracks, naming its process and threads the first time. */
static struct named *name_track(struct gd_trace *t, unsigned worker, pid_t pid)
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
	fprintf(
	    t->f,
	    ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":\"worker %u (pid "
	    "%d)\"}}"
	    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":1,\"args\":{\"name\":\"host\"}}"
	    ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":2,\"args\":{\"name\":\"device\"}}",
	    worker, worker, (int)pid, worker, worker);
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
		fprintf(t->f,
		        ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":"
		        "\"gen "
		        "%u\"}}",
		        n->worker, 10 + k, k);
	}
	return 10 + (int)k;
}

void trace_batch(struct gd_trace *t, unsigned worker, pid_t pid, const struct gd_rec *r)
{
	if (t->events >= t->limit)
		return;
	struct named *n = name_track(t, worker, pid);
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

void trace_flush(struct gd_trace *t)
{
	if (fflush(t->f) != 0 && !t->error)
		t->error = errno;
}

int trace_close(struct gd_trace *t, char *why, size_t whylen)
{
	if (!t)
		return 0;
	fputs("\n]\n", t->f);
	if (fclose(t->f) != 0 && !t->error)
		t->error = errno;
	int error = t->error;
	if (error)
		snprintf(why, whylen, "--trace: writing '%s' failed: %s", t->path, strerror(error));
	free(t->named);
	free(t);
	return error ? -1 : 0;
}

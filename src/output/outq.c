/* outq.c: whole lines handed to a thread of their own that writes them to a descriptor which
 * may stall (outq.h). */
#include "outq.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gputop/common.h"

struct gd_outq {
	pthread_mutex_t lock;
	pthread_cond_t wake, drained; /* wake: the writer (text or stop); drained: close */
	/* Under lock: */
	struct gd_text q;      /* lines waiting, in order */
	struct gd_text flight; /* lines the writer took from q and is writing (n 0: none) */
	bool stop;
	int error;        /* the errno of the write that failed; nothing is written after it */
	uint64_t dropped; /* lines that did not fit, or came after an error */
	/* Set before the thread starts: */
	int fd;
	size_t cap;
	pthread_t thread;
};

static uint64_t count_lines(const char *p, size_t n)
{
	uint64_t lines = 0;
	if (!p)
		return 0;
	for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
		lines++;
	return lines;
}

/* Takes what is queued and writes it with the lock released; the only point at which the
 * thread can be cancelled is inside that write, so close can end a writer stuck on a reader
 * that never reads, and the lock is never held when it does. */
static void *outq_main(void *arg)
{
	struct gd_outq *o = arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&o->lock);
	for (;;) {
		while (!o->stop && o->q.n == 0)
			pthread_cond_wait(&o->wake, &o->lock);
		if (o->q.n == 0)
			break;
		struct gd_text swap = o->flight; /* its buffer is reused */
		o->flight = o->q;
		o->q = swap;
		o->q.n = 0;
		pthread_mutex_unlock(&o->lock);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		int e = write_all(o->fd, o->flight.p, o->flight.n, NULL);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_mutex_lock(&o->lock);
		o->flight.n = 0;
		if (e && !o->error)
			o->error = e;
		if (o->error) { /* nothing more goes out: what waits is lost */
			o->dropped += count_lines(o->q.p, o->q.n);
			o->q.n = 0;
		}
		pthread_cond_broadcast(&o->drained);
	}
	pthread_cond_broadcast(&o->drained);
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

struct gd_outq *outq_new(int fd, size_t cap)
{
	struct gd_outq *o = xcalloc(1, sizeof(*o));
	o->fd = fd;
	o->cap = cap;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->wake, NULL);
	pthread_cond_init(&o->drained, NULL);
	/* The thread blocks every signal: the supervisor's flags belong to its own thread. */
	int rc = gd_thread_start(&o->thread, outq_main, o, 0);
	if (rc != 0) {
		free(o);
		return NULL;
	}
	return o;
}

int outq_put(struct gd_outq *o, const char *p, size_t n)
{
	pthread_mutex_lock(&o->lock);
	int e = o->error;
	if (e || o->q.n + n > o->cap)
		o->dropped += count_lines(p, n);
	else {
		if (o->q.n + n > o->q.cap) {
			o->q.cap = o->q.n + n > 2 * o->q.cap ? o->q.n + n : 2 * o->q.cap;
			o->q.p = xreallocarray(o->q.p, o->q.cap, 1);
		}
		memcpy(o->q.p + o->q.n, p, n);
		o->q.n += n;
		pthread_cond_signal(&o->wake);
	}
	pthread_mutex_unlock(&o->lock);
	return e;
}

int outq_close(struct gd_outq *o, int64_t bound_ns, uint64_t *dropped)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until); /* the condition variable's clock */
	int64_t ns = until.tv_nsec + bound_ns % GD_NS_PER_S;
	until.tv_sec += (time_t)(bound_ns / GD_NS_PER_S + ns / GD_NS_PER_S);
	until.tv_nsec = (long)(ns % GD_NS_PER_S);
	pthread_mutex_lock(&o->lock);
	o->stop = true;
	pthread_cond_signal(&o->wake);
	while ((o->q.n || o->flight.n) && !o->error)
		if (pthread_cond_timedwait(&o->drained, &o->lock, &until) == ETIMEDOUT)
			break;
	bool stuck = o->q.n || o->flight.n;
	pthread_mutex_unlock(&o->lock);
	if (stuck) /* inside a write nobody takes: only cancelling ends it */
		pthread_cancel(o->thread);
	pthread_join(o->thread, NULL);
	/* After a cancel, the lines in flight (some may have gone out) count as not written. */
	int e = o->error;
	*dropped = o->dropped + count_lines(o->q.p, o->q.n) + count_lines(o->flight.p, o->flight.n);
	if (stuck && !e)
		e = EAGAIN;
	free(o->q.p);
	free(o->flight.p);
	pthread_cond_destroy(&o->wake);
	pthread_cond_destroy(&o->drained);
	pthread_mutex_destroy(&o->lock);
	free(o);
	return e;
}

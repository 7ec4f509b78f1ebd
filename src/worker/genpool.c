/* genpool.c: generation threads (genpool.h). The queue of jobs is under one mutex; a job's
 * state is also atomic, so the worker's own thread, which asks once per batch on the path that
 * keeps the device fed, sees a finished job without taking the lock that every generation
 * thread takes twice a job. */
#include "genpool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

enum job_state { JOB_IDLE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct job {
	_Atomic int st; /* enum job_state; QUEUED and IDLE are set by the worker's thread only */
	void *dst;
	struct gd_gen_done done;
};

struct worker_thread {
	struct gd_genpool *pool;
	pthread_t id;
	int index; /* from 1 */
	struct gd_rng rng;
};

struct gd_genpool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct job *jobs;
	int *fifo; /* queued slots, first come first served */
	int nslots, head, count;
	bool stop;
	gd_gen_fill fill;
	const void *ctx;
	struct worker_thread *threads;
	int nthreads;
};

static void *thread_main(void *arg)
{
	struct worker_thread *t = arg;
	struct gd_genpool *p = t->pool;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->count == 0)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		int slot = p->fifo[p->head];
		p->head = (p->head + 1) % p->nslots;
		p->count--;
		struct job *j = &p->jobs[slot];
		j->st = JOB_RUNNING;
		void *dst = j->dst;
		pthread_mutex_unlock(&p->mu);

		int64_t t0 = now_ns();
		p->fill(&t->rng, dst, p->ctx);
		int64_t t1 = now_ns();

		pthread_mutex_lock(&p->mu);
		j->done = (struct gd_gen_done){ .t_begin = t0, .t_end = t1, .thread = t->index };
		atomic_store_explicit(&j->st, JOB_DONE, memory_order_release);
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Signals stay with the worker's own thread: its handlers stop and pause the loop. */
static int start_threads(struct gd_genpool *p, uint64_t seed)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int started = 0;
	for (int i = 0; i < p->nthreads; i++) {
		struct worker_thread *t = &p->threads[i];
		t->pool = p;
		t->index = i + 1;
		rng_stream(&t->rng, seed, (unsigned)i);
		if (pthread_create(&t->id, NULL, thread_main, t) != 0)
			break;
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

struct gd_genpool *genpool_new(int threads, int nslots, gd_gen_fill fill, const void *ctx, uint64_t seed)
{
	struct gd_genpool *p = xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->jobs = xcalloc((size_t)nslots, sizeof(*p->jobs));
	p->fifo = xcalloc((size_t)nslots, sizeof(*p->fifo));
	p->nslots = nslots;
	p->fill = fill;
	p->ctx = ctx;
	p->threads = xcalloc((size_t)threads, sizeof(*p->threads));
	p->nthreads = threads;
	int started = start_threads(p, seed);
	if (started < threads) {
		p->nthreads = started;
		genpool_free(p);
		return NULL;
	}
	return p;
}

void genpool_submit(struct gd_genpool *p, int slot, void *dst)
{
	pthread_mutex_lock(&p->mu);
	struct job *j = &p->jobs[slot];
	if (j->st == JOB_IDLE) {
		j->st = JOB_QUEUED;
		j->dst = dst;
		p->fifo[(p->head + p->count) % p->nslots] = slot;
		p->count++;
		pthread_cond_signal(&p->work);
	}
	pthread_mutex_unlock(&p->mu);
}

bool genpool_ready(struct gd_genpool *p, int slot)
{
	return atomic_load_explicit(&p->jobs[slot].st, memory_order_acquire) == JOB_DONE;
}

void genpool_wait(struct gd_genpool *p, int slot, struct gd_gen_done *out)
{
	struct job *j = &p->jobs[slot];
	if (!genpool_ready(p, slot)) {
		pthread_mutex_lock(&p->mu);
		while (atomic_load_explicit(&j->st, memory_order_acquire) != JOB_DONE &&
		       atomic_load_explicit(&j->st, memory_order_relaxed) != JOB_IDLE)
			pthread_cond_wait(&p->done, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
	*out = j->done;
	atomic_store_explicit(&j->st, JOB_IDLE, memory_order_relaxed);
}

void genpool_free(struct gd_genpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i].id, NULL);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p->threads);
	free(p->jobs);
	free(p->fifo);
	free(p);
}

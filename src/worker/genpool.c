/* genpool.c: generation threads (genpool.h). Slots are taken in the order they were submitted,
 * by ticket: a semaphore counts the submitted slots no thread has taken, and a thread that gets
 * one takes the next ticket. The worker's own thread, which submits and waits once per batch on
 * the path that keeps the device fed, never takes a lock and never sleeps there: a submit is a
 * store and a post, and a job's end is an atomic state it reads. (With a mutex and a condition
 * variable it slept 1155-1450 times a second on the H200; idle generators that poll before they
 * sleep gained nothing there: doc/PERFORMANCE.md.) */
#include "genpool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

enum job_state { JOB_IDLE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

/* A slot's job. Its state goes IDLE -> QUEUED (submit) -> RUNNING -> DONE (a generation thread)
 * -> IDLE (wait); dst and done are written before the state that publishes them. */
struct job {
	_Atomic int st; /* enum job_state */
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
	sem_t queued;            /* submitted slots no thread has taken yet (plus one per thread at stop) */
	atomic_ulong taken;      /* tickets taken: ticket t is slot t % nslots */
	unsigned long submitted; /* the submitting thread's own count */
	atomic_bool stop;
	struct job *jobs;
	int nslots;
	gd_gen_fill fill;
	const void *ctx;
	struct worker_thread *threads;
	int nthreads;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void *thread_main(void *arg)
{
	struct worker_thread *t = arg;
	struct gd_genpool *p = t->pool;
	for (;;) {
		while (sem_wait(&p->queued) != 0 && errno == EINTR)
			;
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			break;
		unsigned long ticket = atomic_fetch_add_explicit(&p->taken, 1, memory_order_relaxed);
		struct job *j = &p->jobs[ticket % (unsigned long)p->nslots];
		/* Submitted before its count was posted; this only waits for the store to be seen. */
		while (atomic_load_explicit(&j->st, memory_order_acquire) != JOB_QUEUED)
			cpu_relax();
		atomic_store_explicit(&j->st, JOB_RUNNING, memory_order_relaxed);
		int64_t t0 = now_ns();
		p->fill(&t->rng, j->dst, p->ctx);
		int64_t t1 = now_ns();
		j->done = (struct gd_gen_done){ .t_begin = t0, .t_end = t1, .thread = t->index };
		atomic_store_explicit(&j->st, JOB_DONE, memory_order_release);
	}
	return NULL;
}

/* Signals stay with the worker's own thread: its handlers stop and pause the loop. */
static int start_threads(struct gd_genpool *p, uint64_t seed)
{
	int started = 0;
	for (int i = 0; i < p->nthreads; i++) {
		struct worker_thread *t = &p->threads[i];
		t->pool = p;
		t->index = i + 1;
		rng_stream(&t->rng, seed, (unsigned)i);
		if (gd_thread_start(&t->id, thread_main, t, 0) != 0)
			break;
		started++;
	}
	return started;
}

struct gd_genpool *genpool_new(int threads, int nslots, gd_gen_fill fill, const void *ctx, uint64_t seed)
{
	struct gd_genpool *p = xcalloc(1, sizeof(*p));
	sem_init(&p->queued, 0, 0);
	p->jobs = xcalloc((size_t)nslots, sizeof(*p->jobs));
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
	struct job *j = &p->jobs[slot];
	if (atomic_load_explicit(&j->st, memory_order_relaxed) != JOB_IDLE)
		return;
	if ((unsigned long)slot != p->submitted % (unsigned long)p->nslots) {
		fprintf(stderr, GD_NAME ": genpool: slot %d submitted out of turn\n", slot);
		abort();
	}
	j->dst = dst;
	atomic_store_explicit(&j->st, JOB_QUEUED, memory_order_release);
	p->submitted++;
	sem_post(&p->queued);
}

bool genpool_ready(struct gd_genpool *p, int slot)
{
	return atomic_load_explicit(&p->jobs[slot].st, memory_order_acquire) == JOB_DONE;
}

/* Polls: the worker's thread has nothing else to do until the slot is ready, and a sleep would
 * add a wake-up to the batch's path. */
void genpool_wait(struct gd_genpool *p, int slot, struct gd_gen_done *out)
{
	struct job *j = &p->jobs[slot];
	for (int st; (st = atomic_load_explicit(&j->st, memory_order_acquire)) != JOB_DONE && st != JOB_IDLE;)
		sched_yield();
	*out = j->done;
	atomic_store_explicit(&j->st, JOB_IDLE, memory_order_relaxed);
}

void genpool_free(struct gd_genpool *p)
{
	if (!p)
		return;
	atomic_store_explicit(&p->stop, true, memory_order_release);
	for (int i = 0; i < p->nthreads; i++)
		sem_post(&p->queued);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i].id, NULL);
	sem_destroy(&p->queued);
	free(p->threads);
	free(p->jobs);
	free(p);
}

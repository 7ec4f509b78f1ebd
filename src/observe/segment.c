/* segment.c: the recorder's process side. At the first OpenCL call seen in a process it reads
 * the run from the environment and creates the process's segment in the workers' format (a
 * forked child makes its own), with a thread that publishes the batches left waiting; at exit it
 * publishes what is left and leaves the segment to the supervisor. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "gputop/observe_env.h"
#include "gputop/proc.h"
#include "ring/writer.h"
#include "recorder.h"

struct obs_state obs = { .mu = PTHREAD_MUTEX_INITIALIZER, .source = GD_SRC_PRELOAD };

/* The run, from the environment the supervisor set (observe_env.h); without it the library only
 * passes calls on. The profiling policy and a fixed period (--sample-every) come in two more. */
static void read_env(void)
{
	const char *v = getenv(GD_OBS_ENV_RUN);
	char *end;
	long sup = v ? strtol(v, &end, 10) : 0;
	if (!v || sup <= 0 || *end != ':')
		return;
	obs.token = strtoull(end + 1, &end, 16);
	if (*end != '\0' || !obs.token)
		return;
	obs.sup = (pid_t)sup;
	if (!gd_profile_parse(getenv(GD_OBS_ENV_PROFILE), &obs.policy))
		obs.policy = GD_PROF_SAMPLED;
	const char *e = getenv(GD_OBS_ENV_EVERY);
	long every = e ? strtol(e, NULL, 10) : 0;
	obs.smp.every = every >= 1 && every <= GD_SAMPLE_MAX ? (uint32_t)every : 0;
	obs.enabled = true;
}

/* A batch that has waited OBS_SETTLE_NS with nothing after it, or one never waited for whose
 * every command has completed and that nothing followed for as long, is published now. */
static bool settled(const struct obs_queue *oq, int64_t now)
{
	if (oq->waited)
		return now - oq->t_wait >= OBS_SETTLE_NS;
	return oq->open && now - oq->t_last >= OBS_SETTLE_NS && obs_batch_complete(oq) &&
	       (oq->kernels || oq->bytes[OBS_COPY]);
}

/* A program may compute on its host for seconds after a batch's last wait, or never wait at all
 * (it polls, or waits by callbacks the recorder may not see); the supervisor closes a window a
 * quarter second after its end at most. This thread reads the kept events' times as their
 * commands complete, and publishes the batches that have settled, so that none reaches the
 * supervisor after its window. It blocks every signal (they are the program's) and touches
 * nothing once the segment is gone (at exit), nor in a forked child, where it does not exist. */
static void *publisher(void *arg)
{
	(void)arg;
	const struct timespec tick = { .tv_nsec = OBS_SETTLE_NS / 2 };
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&obs.mu);
		bool gone = !obs.seg;
		int64_t now = now_ns();
		if (!gone) {
			obs_drain_callbacks(now);
			obs_read_completed();
			seg_set_inflight(obs.seg, obs_inflight(now), now);
		}
		for (size_t i = 0; !gone && i < obs.nq; i++) {
			struct obs_queue *oq = &obs.qs[i];
			if (!settled(oq, now))
				continue;
			if (!oq->waited) { /* it ended when it was seen complete */
				oq->waited = true;
				oq->t_wait = now;
			}
			obs_close_batch(oq->nx, oq);
		}
		pthread_mutex_unlock(&obs.mu);
		if (gone)
			return NULL;
	}
}

/* Detached, every signal blocked (the program's handlers run in its own threads). Without it,
 * batches are published when the next starts: later, never lost. */
static void start_publisher(void)
{
	(void)gd_thread_start(NULL, publisher, NULL, 0);
}

/* Registered at the first call, after the OpenCL runtime has set itself up, so it runs before
 * the runtime's own exit handlers: the last batches are read while their events can be. */
static void at_exit(void)
{
	obs_flush(true);
}

/* On every call: a flag alone (a forked child's is cleared by after_fork_child), no system call. */
void obs_ensure_segment(void)
{
	if (obs.init)
		return;
	obs.init = true;
	obs.pid = getpid();
	read_env();
	if (!obs.enabled)
		return;
	timebase_init(&obs.tb);
	struct gd_seg_info info = { .generation = obs.token,
		                    .source = obs.source,
		                    .start_ticks = proc_self_start_ticks() };
	prctl(PR_GET_NAME, info.comm);
	char name[128], err[256];
	uint64_t nonce = 0;
	if (getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
		nonce = (uint64_t)now_ns() ^ (uint64_t)obs.pid << 40; /* no entropy yet: still a fresh name */
	seg_name_observed(name, sizeof(name), obs.sup, nonce, obs.pid);
	if (!(obs.seg = seg_create(name, &info, err, sizeof(err)))) {
		fprintf(stderr, GD_NAME " observe: %s (this process is not observed)\n", err);
		obs.enabled = false;
		return;
	}
	seg_set_timebase(obs.seg, GD_TB_OFFSET);
	seg_set_state(obs.seg, GD_SEG_RUNNING);
	start_publisher();
	static bool registered; /* once per image: a forked child inherits the handler */
	if (!registered)
		registered = atexit(at_exit) == 0;
}

bool obs_wants_profiling(void)
{
	pthread_mutex_lock(&obs.mu);
	obs_ensure_segment();
	bool want = obs.enabled && obs.policy != GD_PROF_OFF;
	pthread_mutex_unlock(&obs.mu);
	return want;
}

void obs_set_source(enum gd_seg_source src)
{
	pthread_mutex_lock(&obs.mu);
	obs.source = src;
	if (obs.seg)
		seg_set_source(obs.seg, src);
	pthread_mutex_unlock(&obs.mu);
}

/* After fork the child is a process of its own: the parent's segment and queues are not its
 * (their mapping and handles are inherited, and left alone); its first call makes its own. */
static void after_fork_child(void)
{
	pthread_mutex_init(&obs.mu, NULL);
	if (obs.seg)
		seg_close(obs.seg, false);
	obs.seg = NULL;
	free(obs.qs);
	obs.qs = NULL;
	obs.nq = obs.capq = 0;
	obs.lanes = 0;
	obs.threads = 0;
	obs.device_known = false;
	obs.batches = 0;
	obs.tot = (struct gd_obs_totals){ 0 };
	obs.smp = (struct obs_sampler){ 0 };
	obs.nmaps = 0;
	obs.init = obs.enabled = false;
}

__attribute__((constructor)) static void obs_load(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* Publishes every queue's batch: the last batches, waited for or not, before the process ends. */
void obs_flush(bool read)
{
	pthread_mutex_lock(&obs.mu);
	const cl_icd_dispatch *nx = read ? obs.nx : NULL;
	for (size_t i = 0; obs.seg && obs.pid == getpid() && i < obs.nq; i++)
		if (obs.qs[i].open && obs.qs[i].commands) /* a batch opened by a call that failed: none */
			obs_close_batch(nx, &obs.qs[i]);
	pthread_mutex_unlock(&obs.mu);
}

/* At exit the segment stays for the supervisor, which reads its last records and removes it;
 * without a supervisor nobody would, so the process removes it itself. */
__attribute__((destructor)) static void obs_unload(void)
{
	obs_flush(false); /* what at_exit left: nothing, unless the handler never ran */
	pthread_mutex_lock(&obs.mu);
	if (obs.seg && obs.pid == getpid()) {
		seg_set_state(obs.seg, GD_SEG_EXITED);
		bool orphan = kill(obs.sup, 0) != 0;
		seg_close(obs.seg, orphan);
		obs.seg = NULL;
	}
	pthread_mutex_unlock(&obs.mu);
}

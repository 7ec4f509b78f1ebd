/* supervisor.c: spawning, stopping and reaping workers; attaching to and draining their
 * segments. Workers are started with posix_spawn of this same binary (never a fork after
 * OpenCL or curses own anything), die with us (PR_SET_PDEATHSIG) and are reaped on SIGCHLD. */
#include "gputop/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"
#include "gputop/rng.h"
#include "gputop/trace.h"
#include "gputop/worker.h"

#define GRACE_NS (5 * GD_NS_PER_S) /* SIGTERM, then SIGKILL after this */

/* SIGCHLD has a handler, and one without SA_RESTART, only so that a worker's end interrupts
 * the loop's sleep; the reaping itself happens in sup_service. */
static void on_child(int sig)
{
	(void)sig;
}

int sup_init(struct gd_sup *s, const struct gd_opts *o, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->self = getpid();
	const char *exe = proc_self_exe();
	if (!exe) {
		snprintf(err, errlen, "cannot find the running executable (/proc/self/exe)");
		return -1;
	}
	str_copy(s->exe, sizeof(s->exe), exe);
	int64_t three = (int64_t)(3 * o->interval * 1e9);
	s->stall_ns = three > GD_NS_PER_S ? three : GD_NS_PER_S;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP; /* no SA_RESTART: a child's end wakes the loop */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	seg_sweep_stale();
	return 0;
}

static struct gd_slot *new_slot(struct gd_sup *s)
{
	if (s->nslots == s->capslots) {
		s->capslots = s->capslots ? 2 * s->capslots : 16;
		s->slots = xreallocarray(s->slots, (size_t)s->capslots, sizeof(*s->slots));
	}
	struct gd_slot *sl = &s->slots[s->nslots++];
	memset(sl, 0, sizeof(*sl));
	sl->rd.fd = -1;
	return sl;
}

int sup_live(const struct gd_sup *s)
{
	int n = 0;
	for (int i = 0; i < s->nslots; i++)
		n += s->slots[i].alive;
	return n;
}

int sup_spawn(struct gd_sup *s, char *err, size_t errlen)
{
	if (sup_live(s) >= s->o.max_procs) {
		snprintf(err, errlen, "already %d workers (--max-procs)", s->o.max_procs);
		return -1;
	}
	struct gd_slot *sl = new_slot(s);
	sl->id = ++s->next_id;
	sl->gen = rng_entropy();
	seg_name(sl->shm, sizeof(sl->shm), s->self, sl->id, sl->gen);

	char *argv[24], buf[2048];
	struct gd_worker_args wa = { .gen = sl->gen, .id = sl->id, .supervisor = s->self };
	str_copy(wa.shm, sizeof(wa.shm), sl->shm);
	if (opts_worker_argv(&s->o, s->exe, &wa, argv, 24, buf, sizeof(buf)) < 0) {
		snprintf(err, errlen, "worker arguments too long");
		s->nslots--;
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	for (int fd = 0; fd < 3; fd++)
		posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
	posix_spawnattr_init(&attr);
	/* Pause and resume signals stay blocked until the worker has its handlers. */
	sigset_t mask, def;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigemptyset(&def);
	int defaults[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE, SIGUSR1, SIGUSR2, SIGWINCH };
	for (size_t i = 0; i < GD_ARRAY_LEN(defaults); i++)
		sigaddset(&def, defaults[i]);
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	int rc = posix_spawn(&sl->pid, s->exe, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		snprintf(err, errlen, "posix_spawn %s: %s", s->exe, strerror(rc));
		s->nslots--;
		return -1;
	}
	sl->alive = true;
	sl->state = GD_ST_STARTING;
	if (s->paused)
		kill(sl->pid, SIGUSR1);
	return s->nslots - 1;
}

void sup_stop(struct gd_sup *s, int i, bool hard)
{
	if (i < 0 || i >= s->nslots || !s->slots[i].alive)
		return;
	struct gd_slot *sl = &s->slots[i];
	if (hard) {
		kill(sl->pid, SIGKILL);
		sl->kill_sent = true;
		return;
	}
	kill(sl->pid, SIGTERM);
	kill(sl->pid, SIGCONT); /* a stopped worker must run to see SIGTERM */
	if (!sl->stop_sent)
		sl->stop_ns = now_ns();
	sl->stop_sent = true;
	sl->state = GD_ST_STOPPING;
}

static bool active(const struct gd_slot *sl)
{
	return sl->alive && !sl->stop_sent && !sl->kill_sent;
}

int sup_newest(const struct gd_sup *s)
{
	for (int i = s->nslots - 1; i >= 0; i--)
		if (active(&s->slots[i]))
			return i;
	return -1;
}

int sup_active(const struct gd_sup *s)
{
	int n = 0;
	for (int i = 0; i < s->nslots; i++)
		n += active(&s->slots[i]);
	return n;
}

void sup_pause(struct gd_sup *s, bool pause)
{
	s->paused = pause;
	for (int i = 0; i < s->nslots; i++)
		if (s->slots[i].alive)
			kill(s->slots[i].pid, pause ? SIGUSR1 : SIGUSR2);
}

static void push_rec(struct gd_slot *sl, const struct gd_rec *r)
{
	if (sl->npend == sl->cappend) {
		sl->cappend = sl->cappend ? 2 * sl->cappend : 64;
		sl->pend = xreallocarray(sl->pend, sl->cappend, sizeof(*sl->pend));
	}
	sl->pend[sl->npend++] = *r;
}

static void fail_slot(struct gd_slot *sl, const char *prefix, const char *why)
{
	snprintf(sl->error, sizeof(sl->error), "%s%s", prefix, why);
	sl->state = GD_ST_FAILED;
}

/* Reads every new record; those whose window was already emitted count as lost. */
static void drain(struct gd_sup *s, struct gd_slot *sl, int64_t window_start)
{
	struct gd_rec buf[64];
	int n;
	while ((n = reader_poll(&sl->rd, buf, (int)GD_ARRAY_LEN(buf))) > 0) {
		for (int i = 0; i < n; i++) {
			if (s->trace)
				trace_batch(s->trace, sl->id, sl->pid, &buf[i]);
			if (buf[i].t_end < window_start)
				sl->late++;
			else
				push_rec(sl, &buf[i]);
		}
	}
	if (n < 0 || !reader_view(&sl->rd, &sl->view)) {
		/* Truncated under us: keep what was read, stop reading, end the worker. */
		fail_slot(sl, "", "shared-memory segment became unreadable");
		reader_close(&sl->rd);
		sl->attached = false;
		if (sl->alive)
			kill(sl->pid, SIGKILL);
	}
}

static void try_attach(struct gd_slot *sl)
{
	char why[160];
	switch (reader_open(&sl->rd, sl->shm, sl->pid, sl->gen, why, sizeof(why))) {
	case GD_OPEN_OK:
		sl->attached = true;
		break;
	case GD_OPEN_NOTYET:
		break;
	case GD_OPEN_REJECTED:
		/* Not the segment our worker made: never read it, and end the worker. */
		fail_slot(sl, "segment rejected: ", why);
		if (sl->alive)
			kill(sl->pid, SIGKILL);
		sl->kill_sent = true;
		break;
	}
}

static void update_state(struct gd_sup *s, struct gd_slot *sl, int64_t now)
{
	if (sl->state == GD_ST_FAILED)
		return;
	if (!sl->attached) {
		sl->state = sl->stop_sent ? GD_ST_STOPPING : GD_ST_STARTING;
		return;
	}
	sl->state = sl->view.state;
	if (sl->view.state == GD_ST_FAILED) {
		str_copy(sl->error, sizeof(sl->error), sl->view.error);
		return;
	}
	if (sl->stop_sent && sl->state != GD_ST_EXITED)
		sl->state = GD_ST_STOPPING;
	else if ((sl->state == GD_ST_RUNNING || sl->state == GD_ST_PAUSED) &&
	         now - sl->view.heartbeat_ns > s->stall_ns)
		sl->state = GD_ST_STALLED;
}

static void reaped(struct gd_sup *s, struct gd_slot *sl, int status, int64_t window_start)
{
	sl->alive = false;
	if (!sl->attached && sl->state != GD_ST_FAILED)
		try_attach(sl); /* a worker that failed fast left its error in the segment */
	if (sl->attached) {
		drain(s, sl, window_start);
		reader_writer_died(&sl->rd); /* killed mid-publish: that record is lost */
	}
	update_state(s, sl, now_ns());
	reader_close(&sl->rd);
	sl->attached = false;
	shm_unlink(sl->shm);
	if (sl->state == GD_ST_FAILED)
		return;
	if (WIFSIGNALED(status)) {
		snprintf(sl->error, sizeof(sl->error), "killed by signal %d (%s)", WTERMSIG(status),
		         strsignal(WTERMSIG(status)));
		sl->state = GD_ST_EXITED;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == GD_WORKER_EXIT_NOSEG) {
		fail_slot(sl, "", "could not create its shared-memory segment");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		snprintf(sl->error, sizeof(sl->error), "exited with status %d", WEXITSTATUS(status));
		sl->state = GD_ST_FAILED;
	} else {
		sl->state = GD_ST_EXITED;
	}
}

static struct gd_slot *by_pid(struct gd_sup *s, pid_t pid)
{
	for (int i = 0; i < s->nslots; i++)
		if (s->slots[i].alive && s->slots[i].pid == pid)
			return &s->slots[i];
	return NULL;
}

void sup_service(struct gd_sup *s, int64_t now, int64_t window_start)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct gd_slot *sl = by_pid(s, pid);
		if (sl)
			reaped(s, sl, status, window_start);
	}
	for (int i = 0; i < s->nslots; i++) {
		struct gd_slot *sl = &s->slots[i];
		if (!sl->alive)
			continue;
		if (!sl->attached && sl->state != GD_ST_FAILED)
			try_attach(sl);
		if (sl->attached)
			drain(s, sl, window_start);
		update_state(s, sl, now);
		if (sl->stop_sent && !sl->kill_sent && now - sl->stop_ns > GRACE_NS) {
			kill(sl->pid, SIGKILL);
			sl->kill_sent = true;
		}
	}
}

static void free_slot(struct gd_slot *sl)
{
	reader_close(&sl->rd);
	free(sl->pend);
	sl->pend = NULL;
}

void sup_prune(struct gd_sup *s)
{
	int j = 0;
	for (int i = 0; i < s->nslots; i++) {
		if (!s->slots[i].alive && s->slots[i].npend == 0) {
			free_slot(&s->slots[i]);
			continue;
		}
		s->slots[j++] = s->slots[i];
	}
	s->nslots = j;
}

void sup_reset(struct gd_sup *s)
{
	for (int i = 0; i < s->nslots; i++) {
		struct gd_slot *sl = &s->slots[i];
		sl->base_batches = sl->view.batches;
		sl->base_symbols = sl->view.symbols;
		sl->base_lost = sl->rd.lost + sl->late;
		sl->npend = 0;
		sl->last_kend = 0;
	}
	sup_prune(s);
}

void sup_shutdown(struct gd_sup *s)
{
	for (int i = 0; i < s->nslots; i++)
		sup_stop(s, i, false);
	int64_t deadline = now_ns() + 3 * GD_NS_PER_S;
	while (sup_live(s) > 0 && now_ns() < deadline) {
		sup_service(s, now_ns(), INT64_MIN);
		sleep_ns(GD_NS_PER_S / 100);
	}
	for (int i = 0; i < s->nslots; i++) {
		struct gd_slot *sl = &s->slots[i];
		if (!sl->alive)
			continue;
		kill(sl->pid, SIGKILL);
		int status;
		while (waitpid(sl->pid, &status, 0) < 0 && errno == EINTR)
			;
		reaped(s, sl, status, INT64_MIN);
	}
	for (int i = 0; i < s->nslots; i++) {
		shm_unlink(s->slots[i].shm); /* idempotent: ENOENT when already gone */
		free_slot(&s->slots[i]);
	}
	free(s->slots);
	s->slots = NULL;
	s->nslots = s->capslots = 0;
}

/* sup_program.c: observing a program (-- COMMAND, doc/observe.md), two kinds of row of the
 * supervisor (sup_impl.h): a copy of the command, started here in a process group of its own,
 * and a process a copy started, found by the segment its first OpenCL call made. What they share
 * here: the environment that loads the library into them and names the run, the sentinel that
 * ends them after us, the discovery of their segments, the relay of a copy's output with its row
 * id. Stops go to a copy's whole process group; pause is SIGSTOP and SIGCONT; no attach deadline
 * and no stall (a program may wait on its host as long as it likes). A copy is reaped by its
 * pid; a process a copy started is not our child, and /proc says when it has ended. */
#include "sup_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/observe_env.h"
#include "gputop/proc.h"
#include "gputop/rng.h"
#include "sentinel.h"
#include "childspawn.h"

int sup_programs_start(struct gd_sup *sup, char *err, size_t errlen)
{
	if (!sup->c.command)
		return 0;
	sup_env_build(sup);
	sup->sentinel = sentinel_start(sup->env[0], &sup->sentfd); /* GPUTOP_DECODE_OBSERVE=... */
	if (sup->sentinel < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A copy's whole process group (what it started too), else the one process. */
static void copy_signal(const struct sup_row *r, int sig)
{
	if (kill(-r->info.pid, sig) != 0)
		kill(r->info.pid, sig);
}

/* A program has no pause of its own. */
void sup_observed_pause(const struct sup_row *r, bool pause)
{
	r->kind->signal(r, pause ? SIGSTOP : SIGCONT);
}

struct sup_row *sup_add_observed(struct gd_sup *sup, const struct sup_kind *k, pid_t pid)
{
	struct sup_row *r = sup_add_row(sup, k);
	r->info.pid = pid;
	r->info.observed = true;
	r->info.alive = true;
	r->info.state = GD_ST_NOCL;
	r->gen = sup->token;
	r->spawn_ns = now_ns();
	return r; /* its segment's name is found in /dev/shm (sup_process.c) */
}

int sup_spawn_program(struct gd_sup *sup, char *err, size_t errlen)
{
	if (sup_live(sup) >= sup->c.max_procs) {
		snprintf(err, errlen, "already %d processes (--max-procs)", sup->c.max_procs);
		return -1;
	}
	int out[2];
	if (pipe2(out, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = spawn_program(sup->c.command, sup->env, out[1], err, errlen);
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		return -1;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	struct sup_row *r = sup_add_observed(sup, &sup_kind_copy, pid);
	sup_programs_report(sup, pid);
	r->info.copy = r->info.id;
	r->outfd = out[0];
	const char *name = strrchr(sup->c.command[0], '/');
	name = name ? name + 1 : sup->c.command[0];
	gd_clean_text(r->info.comm, sizeof(r->info.comm), name, strlen(name));
	if (sup->paused)
		r->kind->pause(r, true);
	return sup->n - 1;
}

int sup_programs_live(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += sup->rows[i].kind == &sup_kind_copy && sup->rows[i].info.alive;
	return n;
}

/* Writes a copy's line of output where the programs' output goes, prefixed with its row id. */
static void program_line(const struct gd_sup *sup, struct sup_row *r)
{
	char clean[sizeof(r->outline) + 1], line[sizeof(clean) + 32];
	gd_clean_text(clean, sizeof(clean), r->outline, r->outn);
	int n = snprintf(line, sizeof(line), "[%u] %s\n", r->info.id, clean);
	if (write_all(sup->c.program_out, line, (size_t)n, NULL) != 0) {
		/* Nowhere to put it: the program's output is dropped, the run goes on. */
	}
	r->outn = 0;
}

/* Relays what a copy (and whatever it started) wrote, a line at a time; at its end, the rest. */
static void copy_relay(const struct gd_sup *sup, struct sup_row *r, bool last)
{
	char buf[4096];
	ssize_t n;
	while (r->outfd >= 0 && (n = read(r->outfd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n')
				r->outline[r->outn++] = buf[i];
			if (buf[i] == '\n' || r->outn == sizeof(r->outline))
				program_line(sup, r);
		}
	}
	if (last && r->outfd >= 0) {
		if (r->outn)
			program_line(sup, r);
		close(r->outfd);
		r->outfd = -1;
	}
}

/* A copy that has made no segment yet: whether the library is in it at all, once a second. A
 * reason goes on its row (and once to stderr); it never fails the copy. */
static void copy_service(const struct gd_sup *sup, struct sup_row *r, int64_t now)
{
	if (r->attached || r->info.error[0] || now - r->looked_ns < GD_NS_PER_S)
		return;
	r->looked_ns = now;
	char why[160];
	sup_env_unobserved(sup, r->info.pid, why, sizeof(why));
	if (!why[0])
		return;
	snprintf(r->info.error, sizeof(r->info.error), "not observed: %s", why);
	fprintf(stderr, GD_NAME ": copy %u (pid %d) is not observed: %s\n", r->info.id, (int)r->info.pid,
	        why);
}

/* Whether a copy has published a batch through any process of its process group. */
static bool copy_ready(const struct gd_sup *sup, const struct sup_row *r)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].info.copy == r->info.id && sup->rows[i].view.batches > 0)
			return true;
	return false;
}

static void unlink_name(void *arg, const char *name, const char *rest)
{
	(void)arg, (void)rest;
	shm_unlink(name);
}

void sup_programs_end(struct gd_sup *sup)
{
	sup_programs_sweep(sup);
	if (sup->forged > 1) /* the first was said when it was found */
		fprintf(stderr, GD_NAME ": ignored %u names in /dev/shm not made by this run's programs\n",
		        sup->forged);
	if (sup->unreported)
		fprintf(stderr, GD_NAME ": %u processes of the program could not be told to the sentinel\n",
		        sup->unreported);
	if (sup->c.command) /* every segment of theirs, rows or not (past --max-procs) */
		sup_observed_names(sup, unlink_name, NULL);
	sentinel_stop(sup->sentinel, sup->sentfd); /* what left the copies' groups, ended too */
	sup->sentinel = 0;
}

/* An observed program's segment is mapped on both sides now: its name is needed no more, and
 * gone it cannot outlive a program that dies by a signal, nor this run. */
void sup_observed_attached(struct sup_row *r)
{
	shm_unlink(r->shm);
}

/* An observed process's device, once its segment names it: the run's device with the same
 * P:D. A process on a device the run does not list (-d) stays on the run's first, and says so
 * once: its kernels count in that device's figures. */
static void observed_device(const struct gd_sup *sup, struct sup_row *r)
{
	if (r->dev_known || r->view.dev_platform < 0)
		return;
	r->dev_known = true;
	for (int d = 0; d < sup->c.ndevs; d++)
		if (sup->c.devs[d].platform == r->view.dev_platform &&
		    sup->c.devs[d].index == r->view.dev_index) {
			r->info.device = d;
			return;
		}
	fprintf(stderr,
	        GD_NAME ": process %u (pid %d) uses device %d:%d, which is not one of the run's devices "
	                "(-d): it is counted on %d:%d\n",
	        r->info.id, (int)r->info.pid, r->view.dev_platform, r->view.dev_index,
	        sup->c.devs[0].platform, sup->c.devs[0].index);
}

/* What the library's header says beyond the totals: launches, its own counts, the path its
 * calls were seen through, the command name and the device. */
void sup_observed_viewed(const struct gd_sup *sup, struct sup_row *r)
{
	r->info.kernels = r->before.kernels + r->view.kernels;
	r->info.obs = r->view.obs;
	gd_obs_totals_add(&r->info.obs, &r->before.obs);
	r->info.via = r->view.source;
	if (r->view.comm[0])
		gd_clean_text(r->info.comm, sizeof(r->info.comm), r->view.comm, strlen(r->view.comm));
	observed_device(sup, r);
}

/* A program may wait on its host as long as it likes: never stalled. */
void sup_observed_state(const struct gd_sup *sup, struct sup_row *r, int64_t now)
{
	(void)sup, (void)now;
	enum gd_state *st = &r->info.state;
	if (*st == GD_ST_EXITED && r->info.alive)
		*st = GD_ST_RUNNING; /* its library is done, the process not yet */
	if (*st == GD_ST_RUNNING && r->sigstopped)
		*st = GD_ST_PAUSED;
}

/* An observed process's end: its status, kept (128 + the signal when killed); failed only when
 * it says so (non-zero) or a signal not ours ended it. One that never made an OpenCL call keeps
 * saying so. */
void sup_observed_ended(struct sup_row *r, int status)
{
	if (!WIFEXITED(status)) {
		r->info.exit_status = 128 + WTERMSIG(status);
		if (r->info.state != GD_ST_FAILED)
			sup_killed_by(r, WTERMSIG(status));
		return;
	}
	r->info.exit_status = WEXITSTATUS(status);
	if (WEXITSTATUS(status) != 0) {
		snprintf(r->info.error, sizeof(r->info.error), "exited with status %d", WEXITSTATUS(status));
		r->info.state = GD_ST_FAILED;
	} else if (r->info.state != GD_ST_NOCL) {
		r->info.state = GD_ST_EXITED;
	}
}

const struct sup_kind sup_kind_copy = {
	.unit = true,
	.child = true,
	.unattached = GD_ST_NOCL,
	.signal = copy_signal,
	.pause = sup_observed_pause,
	.ready = copy_ready,
	.service = copy_service,
	.attached = sup_observed_attached,
	.viewed = sup_observed_viewed,
	.state = sup_observed_state,
	.ended = sup_observed_ended,
	.wait = sup_wait_child,
	.wait_killed = sup_wait_child_killed,
	.relay = copy_relay,
};

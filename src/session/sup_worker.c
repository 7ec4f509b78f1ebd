/* sup_worker.c: the worker, a row of the supervisor (sup_impl.h). A worker is started with
 * posix_spawn of this same binary (childspawn.h: never a fork after OpenCL or curses own anything)
 * on one of the run's devices, dies with us (PR_SET_PDEATHSIG), is paused between batches by
 * SIGUSR1 and SIGUSR2, and is reaped by its pid. Its segment must appear in time, its heartbeat
 * must go on (else it is stalled), and its exit status says why it failed. */
#include "sup_impl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "gputop/common.h"
#include "gputop/rng.h"
#include "childspawn.h"

int sup_place(const int *active, int ndev)
{
	int best = 0;
	for (int d = 1; d < ndev; d++)
		if (active[d] < active[best])
			best = d;
	return best;
}

int sup_spawn(struct gd_sup *sup, int dev, char *err, size_t errlen)
{
	if (sup_live(sup) >= sup->c.max_procs) {
		snprintf(err, errlen, "already %d workers (--max-procs)", sup->c.max_procs);
		return -1;
	}
	int ndev = sup_ndevices(sup);
	if (dev < 0 || dev >= ndev) {
		int active[GD_DEVICES_MAX];
		for (int d = 0; d < ndev; d++)
			active[d] = sup_active_on(sup, d);
		dev = sup_place(active, ndev);
	}
	struct sup_row *r = sup_add_row(sup, &sup_kind_worker);
	r->info.device = dev;
	/* The name exists, ours, before the command line that publishes it: nobody can take it
	 * while the worker starts. A name taken already (never by chance) gets another draw. */
	int tries = 0, reserved;
	do {
		r->gen = rng_entropy();
		seg_name(r->shm, sizeof(r->shm), sup->self, r->info.id, r->gen);
	} while ((reserved = seg_reserve(r->shm)) != 0 && errno == EEXIST && ++tries < 8);
	if (reserved != 0) {
		snprintf(err, errlen, "worker %u: cannot reserve its segment %s: %s", r->info.id, r->shm,
		         strerror(errno));
		sup->n--;
		return -1;
	}

	struct gd_worker_args wa = { .gen = r->gen, .id = r->info.id, .supervisor = sup->self };
	str_copy(wa.shm, sizeof(wa.shm), r->shm);
	const struct gd_child child = { .work = &sup->c.work, .dev = sup->c.devs[dev], .wa = &wa };
	r->info.pid = spawn_child(sup->exe, &child, -1, sup->errw, err, errlen);
	if (r->info.pid < 0) {
		shm_unlink(r->shm);
		sup->n--;
		return -1;
	}
	r->info.alive = true;
	r->info.state = GD_ST_STARTING;
	r->spawn_ns = now_ns();
	if (sup->paused)
		r->kind->pause(r, true);
	return sup->n - 1;
}

static void worker_signal(const struct sup_row *r, int sig)
{
	kill(r->info.pid, sig);
}

/* Between batches: the worker's own handlers. */
static void worker_pause(const struct sup_row *r, bool pause)
{
	kill(r->info.pid, pause ? SIGUSR1 : SIGUSR2);
}

static bool worker_ready(const struct gd_sup *sup, const struct sup_row *r)
{
	(void)sup;
	return r->view.batches > 0;
}

/* A worker whose segment has not appeared by the attach deadline is failed and killed. */
static void worker_service(const struct gd_sup *sup, struct sup_row *r, int64_t now)
{
	if (r->attached || r->info.state == GD_ST_FAILED || r->stop_sent || r->kill_sent ||
	    now - r->spawn_ns <= sup->attach_ns)
		return;
	/* Removed before we attached (or never made): without a segment we can neither see nor
	 * stop it gracefully. */
	if (r->notyet[0])
		sup_fail_row(r, "its shared-memory segment never became usable: ", r->notyet);
	else
		sup_fail_row(r, "", "its shared-memory segment never appeared");
	kill(r->info.pid, SIGKILL);
	r->kill_sent = true;
}

/* Not the segment our worker made: the worker is ended. */
static void worker_rejected(struct sup_row *r)
{
	if (r->info.alive)
		kill(r->info.pid, SIGKILL);
	r->kill_sent = true;
}

static void worker_state(const struct gd_sup *sup, struct sup_row *r, int64_t now)
{
	enum gd_state *st = &r->info.state;
	if (r->view.state == GD_ST_FAILED) {
		str_copy(r->info.error, sizeof(r->info.error), r->view.error);
		return;
	}
	if (r->stop_sent && *st != GD_ST_EXITED)
		*st = GD_ST_STOPPING;
	else if (r->sigstopped && *st != GD_ST_EXITED)
		*st = GD_ST_PAUSED; /* its heartbeat stopped because it was told to, not stalled */
	else if ((*st == GD_ST_RUNNING || *st == GD_ST_PAUSED) &&
	         now - (r->view.heartbeat_ns > r->cont_ns ? r->view.heartbeat_ns : r->cont_ns) >
	             sup->stall_ns)
		*st = GD_ST_STALLED;
}

/* The state a worker ends in, from its exit status, unless it already failed. Ending by a
 * signal is exited only when it was ours (sup_killed_by); any other signal (SIGSEGV, SIGXFSZ,
 * the OOM killer's SIGKILL, anyone's kill) is a failure, named. An exit status of its own says
 * why it could not create its segment. */
static void worker_ended(struct sup_row *r, int status)
{
	if (r->info.state == GD_ST_FAILED)
		return;
	if (WIFSIGNALED(status)) {
		sup_killed_by(r, WTERMSIG(status));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) > GD_EXIT_NOSEG_ERRNO &&
	           WEXITSTATUS(status) < GD_EXIT_NOSEG_ERRNO + 128) {
		sup_fail_row(r, "could not create its shared-memory segment: ",
		             strerror(WEXITSTATUS(status) - GD_EXIT_NOSEG_ERRNO));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == GD_EXIT_NOSEG) {
		sup_fail_row(r, "", "could not create its shared-memory segment");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		snprintf(r->info.error, sizeof(r->info.error), "exited with status %d", WEXITSTATUS(status));
		r->info.state = GD_ST_FAILED;
	} else {
		r->info.state = GD_ST_EXITED;
	}
}

const struct sup_kind sup_kind_worker = {
	.unit = true,
	.child = true,
	.unattached = GD_ST_STARTING,
	.signal = worker_signal,
	.pause = worker_pause,
	.ready = worker_ready,
	.service = worker_service,
	.rejected = worker_rejected,
	.state = worker_state,
	.ended = worker_ended,
	.wait = sup_wait_child,
	.wait_killed = sup_wait_child_killed,
};

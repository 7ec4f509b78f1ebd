/* supervisor.c: the table of rows (a worker, or observing a program a copy of it and the
 * processes a copy started), and what every row goes through alike: stopping, signals, pause,
 * attaching to its segment, draining its ring, its state, reaping; and the workers' standard
 * error, relayed. What a kind of row does its own way (how it starts, is signalled, paused,
 * waited for and ends) is in its file, behind its ops table (sup_impl.h): sup_worker.c,
 * sup_program.c. Rows are reaped on SIGCHLD, each by its own pid (other children of this
 * process are not the supervisor's), or, a process a copy started, through /proc. Everything
 * in struct sup_row is written here and in its kind's file and nowhere else. */
#include "sup_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"
#include "gputop/sig.h"
#include "sentinel.h"

#define GRACE_NS (SESSION_STOP_GRACE_S * GD_NS_PER_S) /* SIGTERM, then SIGKILL after this */
/* A worker whose segment has not appeared this long after its spawn is ended as failed (at
 * least this, or 4 intervals; GPUTOP_DECODE_ATTACH_TIMEOUT seconds instead, for tests). */
#define ATTACH_NS (30 * GD_NS_PER_S)

/* SIGCHLD has a handler, and one without SA_RESTART, only so that a child's end interrupts
 * the loop's sleep; the reaping itself happens in sup_service. */
static void on_child(int sig)
{
	(void)sig;
}

/* The attach deadline: GPUTOP_DECODE_ATTACH_TIMEOUT seconds when set to a number in (0, 3600],
 * else ATTACH_NS or 4 intervals, whichever is longer. */
static int64_t attach_deadline(double interval)
{
	const char *env = getenv("GPUTOP_DECODE_ATTACH_TIMEOUT");
	if (env && *env) {
		char *end;
		double s = strtod(env, &end);
		if (*end == '\0' && s > 0 && s <= 3600)
			return (int64_t)(s * 1e9);
	}
	int64_t four = (int64_t)(4 * interval * 1e9);
	return four > ATTACH_NS ? four : ATTACH_NS;
}

void sup_set_interval(struct gd_sup *sup, double interval_s)
{
	sup->c.interval_s = interval_s;
	int64_t three = (int64_t)(3 * interval_s * 1e9);
	sup->stall_ns = three > GD_NS_PER_S ? three : GD_NS_PER_S;
	sup->attach_ns = attach_deadline(interval_s);
}

struct gd_sup *sup_new(const struct gd_sup_config *c, char *err, size_t errlen)
{
	const char *exe = proc_self_exe();
	if (!exe) {
		snprintf(err, errlen, "cannot find the running executable (/proc/self/exe)");
		return NULL;
	}
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return NULL;
	}
	struct gd_sup *sup = xcalloc(1, sizeof(*sup));
	sup->errr = errpipe[0];
	sup->errw = errpipe[1];
	sup->c = *c;
	if (sup->c.ndevs < 1)
		sup->c.ndevs = 1;
	sup->self = getpid();
	str_copy(sup->exe, sizeof(sup->exe), exe);
	sup_set_interval(sup, c->interval_s);
	if (sup_programs_start(sup, err, errlen) != 0) {
		close(sup->errr);
		close(sup->errw);
		free(sup);
		return NULL;
	}
	/* The family of an observed program is re-parented to us, not to init, when a parent of it
	 * ends: then its parent chain proves it ours (sup_process.c). */
	if (c->command)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	sig_handle(SIGCHLD, on_child, SA_NOCLDSTOP); /* no SA_RESTART: a child's end wakes the loop */
	seg_sweep_stale();
	return sup;
}

static struct sup_row *row_at(const struct gd_sup *sup, int i)
{
	GD_ASSERT(i >= 0 && i < sup->n);
	return &sup->rows[i];
}

static bool is_active(const struct sup_row *r)
{
	return r->info.alive && !r->stop_sent && !r->kill_sent;
}

/* An active unit of the run (supervisor.h): a worker, or a copy of the observed command. */
static bool active_unit(const struct sup_row *r)
{
	return r->kind->unit && is_active(r);
}

int sup_nrows(const struct gd_sup *sup)
{
	return sup->n;
}

void sup_row_info(const struct gd_sup *sup, int i, struct gd_row_info *out)
{
	const struct sup_row *r = row_at(sup, i);
	*out = r->info;
	out->active = is_active(r);
}

int sup_find(const struct gd_sup *sup, unsigned id)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].info.id == id)
			return i;
	return -1;
}

int sup_newest(const struct gd_sup *sup)
{
	for (int i = sup->n - 1; i >= 0; i--)
		if (active_unit(&sup->rows[i]))
			return i;
	return -1;
}

int sup_live(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += sup->rows[i].info.alive;
	return n;
}

int sup_active(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += active_unit(&sup->rows[i]);
	return n;
}

int sup_ready(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++) {
		const struct sup_row *r = &sup->rows[i];
		n += active_unit(r) && r->kind->ready(sup, r);
	}
	return n;
}

const char *sup_first_error(const struct gd_sup *sup)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].info.error[0])
			return sup->rows[i].info.error;
	return "";
}

int sup_queues(const struct gd_sup *sup)
{
	return sup->c.work.queues;
}

void sup_set_queues(struct gd_sup *sup, int queues)
{
	sup->c.work.queues = queues;
}

const char *sup_exe(const struct gd_sup *sup)
{
	return sup->exe;
}

bool sup_paused(const struct gd_sup *sup)
{
	return sup->paused;
}

struct sup_row *sup_add_row(struct gd_sup *sup, const struct sup_kind *k)
{
	if (sup->n == sup->cap) {
		sup->cap = sup->cap ? 2 * sup->cap : 16;
		sup->rows = xreallocarray(sup->rows, (size_t)sup->cap, sizeof(*sup->rows));
	}
	struct sup_row *r = &sup->rows[sup->n++];
	memset(r, 0, sizeof(*r));
	r->kind = k;
	r->outfd = -1;
	r->pidfd = -1;
	r->info.exit_status = -1;
	r->info.id = ++sup->next_id;
	return r;
}

/* Relays what the workers write on their standard error (the OpenCL runtime's messages, a
 * worker's own about a segment it could not create) to ours, a line at a time, each line
 * prefixed: one pipe for all of them, so a worker costs the supervisor no descriptor. Lines up
 * to PIPE_BUF bytes, each written at once, arrive whole. The dashboard keeps our standard error
 * off the screen and replays it at exit. */
static void relay_line(struct gd_sup *sup)
{
	char clean[sizeof(sup->errline) + 1];
	gd_clean_text(clean, sizeof(clean), sup->errline, sup->errn);
	fprintf(stderr, GD_NAME ": from a worker: %s\n", clean);
	sup->errn = 0;
}

static void relay_stderr(struct gd_sup *sup)
{
	char buf[1024];
	ssize_t n;
	while ((n = read(sup->errr, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return; /* EAGAIN: nothing more now */
		}
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			bool end = c == '\n' || sup->errn == sizeof(sup->errline) - 1;
			if (c != '\n')
				sup->errline[sup->errn++] = c;
			if (end)
				relay_line(sup);
		}
	}
}

int sup_ndevices(const struct gd_sup *sup)
{
	return sup->c.ndevs;
}

int sup_active_on(const struct gd_sup *sup, int dev)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += is_active(&sup->rows[i]) && sup->rows[i].info.device == dev;
	return n;
}

void sup_stop(struct gd_sup *sup, int i, bool hard)
{
	struct sup_row *r = row_at(sup, i);
	if (!r->info.alive)
		return;
	if (hard) {
		r->kind->signal(r, SIGKILL);
		r->kill_sent = true;
		return;
	}
	r->kind->signal(r, SIGTERM);
	r->kind->signal(r, SIGCONT); /* a stopped process must run to see SIGTERM */
	r->sigstopped = false;
	if (!r->stop_sent)
		r->stop_ns = now_ns();
	r->stop_sent = true;
	r->info.state = GD_ST_STOPPING;
}

void sup_continued(struct sup_row *r)
{
	r->sigstopped = false;
	r->cont_ns = now_ns();
}

int sup_signal(struct gd_sup *sup, int i, int sig)
{
	struct sup_row *r = row_at(sup, i);
	if (!r->info.alive)
		return -1;
	if (sig == SIGTERM || sig == SIGKILL) {
		sup_stop(sup, i, sig == SIGKILL); /* so that its end counts as ours */
		return 0;
	}
	/* Our child's pid is ours until we reap it; any other process is named by its pidfd. */
	int rc = r->kind->child  ? kill(r->info.pid, sig)
	         : r->pidfd >= 0 ? pidfd_send_signal(r->pidfd, sig, NULL, 0)
	                         : -1;
	if (rc != 0)
		return -1;
	/* Known at once; waitpid confirms it, and reports stops and continues by anyone else. */
	if (sig == SIGSTOP)
		r->sigstopped = true;
	else if (sig == SIGCONT)
		sup_continued(r);
	return 0;
}

void sup_pause(struct gd_sup *sup, bool pause)
{
	sup->paused = pause;
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].info.alive)
			sup->rows[i].kind->pause(&sup->rows[i], pause);
}

void sup_fail_row(struct sup_row *r, const char *prefix, const char *why)
{
	snprintf(r->info.error, sizeof(r->info.error), "%s%s", prefix, why);
	r->info.state = GD_ST_FAILED;
}

static void detach(struct sup_row *r)
{
	reader_close(&r->rd);
	r->attached = false;
}

/* Hands every new record over, then refreshes the header's view. */
static void drain(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx)
{
	struct gd_rec buf[64];
	int n;
	while ((n = reader_poll(&r->rd, buf, (int)GD_ARRAY_LEN(buf))) > 0)
		for (int i = 0; i < n; i++)
			on_record(ctx, &r->info, &buf[i]);
	r->info.lost = r->lost_before + r->rd.lost;
	if (n < 0 || !reader_view(&r->rd, &r->view)) {
		/* Truncated under us: keep what was read, stop reading, end the process. */
		sup_fail_row(r, "", "shared-memory segment became unreadable");
		detach(r);
		if (r->info.alive)
			r->kind->signal(r, SIGKILL);
		return;
	}
	r->info.batches = r->before.batches + r->view.batches;
	r->info.items = r->before.items + r->view.items;
	r->info.timebase = r->view.timebase;
	r->info.inflight_ns = r->view.inflight_ns;
	r->info.inflight_at_ns = r->view.inflight_at_ns;
	if (r->kind->viewed)
		r->kind->viewed(sup, r);
}

void sup_swap_segment(const struct gd_sup *sup, struct sup_row *r, const struct gd_reader *rd,
                      const char *name, gd_record_fn on_record, void *ctx)
{
	drain(sup, r, on_record, ctx);
	reader_writer_died(&r->rd); /* its image is gone: a record it was writing is lost */
	r->lost_before += r->rd.lost;
	r->before.batches += r->view.batches;
	r->before.items += r->view.items;
	r->before.kernels += r->view.kernels;
	gd_obs_totals_add(&r->before.obs, &r->view.obs);
	reader_close(&r->rd);
	r->rd = *rd;
	str_copy(r->shm, sizeof(r->shm), name);
	r->kind->attached(r);
	drain(sup, r, on_record, ctx);
}

static void try_attach(struct sup_row *r)
{
	char why[160];
	if (!r->shm[0])
		return; /* an observed program's: its name is not known before it made it */
	switch (reader_open(&r->rd, r->shm, r->info.pid, r->gen, why, sizeof(why))) {
	case GD_OPEN_OK:
		r->attached = true;
		if (r->kind->attached)
			r->kind->attached(r);
		break;
	case GD_OPEN_NOTYET:
		/* A missing name is the usual "not yet"; anything else is worth saying at the deadline. */
		str_copy(r->notyet, sizeof(r->notyet), strcmp(why, strerror(ENOENT)) ? why : "");
		break;
	case GD_OPEN_REJECTED:
		/* Not the segment its process made: never read it. */
		sup_fail_row(r, "segment rejected: ", why);
		if (r->kind->rejected)
			r->kind->rejected(r);
		break;
	}
}

static void update_state(const struct gd_sup *sup, struct sup_row *r, int64_t now)
{
	enum gd_state *st = &r->info.state;
	if (*st == GD_ST_FAILED)
		return;
	if (!r->attached) {
		*st = r->stop_sent ? GD_ST_STOPPING : r->kind->unattached;
		return;
	}
	*st = r->view.state;
	r->kind->state(sup, r, now);
}

/* "SIGSEGV", or "signal 77" for a number without a name. */
static void signal_name(int sig, char *buf, size_t n)
{
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "signal %d", sig);
}

void sup_killed_by(struct sup_row *r, int sig)
{
	char name[32];
	signal_name(sig, name, sizeof(name));
	snprintf(r->info.error, sizeof(r->info.error), "killed by %s (%s)", name, strsignal(sig));
	bool ours = (sig == SIGKILL && r->kill_sent) || (sig == SIGTERM && r->stop_sent);
	r->info.state = ours ? GD_ST_EXITED : GD_ST_FAILED;
}

void sup_reaped(const struct gd_sup *sup, struct sup_row *r, int status, gd_record_fn on_record, void *ctx)
{
	r->info.alive = false;
	if (r->kind->relay)
		r->kind->relay(sup, r, true);
	if (!r->attached && r->info.state != GD_ST_FAILED)
		try_attach(r); /* a worker that failed fast left its error in the segment */
	if (r->attached) {
		drain(sup, r, on_record, ctx);
		reader_writer_died(&r->rd); /* killed mid-publish: that record is lost */
		r->info.lost = r->lost_before + r->rd.lost;
	}
	update_state(sup, r, now_ns());
	detach(r);
	if (r->shm[0])
		shm_unlink(r->shm);
	r->kind->ended(r, status);
	if (r->pidfd >= 0) {
		close(r->pidfd);
		r->pidfd = -1;
	}
}

/* What waitpid says of a live child: stopped, continued, or ended (reaped). Only its own pid:
 * another child of this process (the calibration) is its owner's. */
void sup_wait_child(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx)
{
	int status;
	while (r->info.alive && waitpid(r->info.pid, &status, WNOHANG | WUNTRACED | WCONTINUED) > 0) {
		if (WIFSTOPPED(status))
			r->sigstopped = true;
		else if (WIFCONTINUED(status))
			sup_continued(r);
		else
			sup_reaped(sup, r, status, on_record, ctx);
	}
}

void sup_wait_child_killed(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx)
{
	int status;
	while (waitpid(r->info.pid, &status, 0) < 0 && errno == EINTR)
		;
	sup_reaped(sup, r, status, on_record, ctx);
}

void sup_service(struct gd_sup *sup, int64_t now, gd_record_fn on_record, void *ctx)
{
	sup_programs_discover(sup, on_record, ctx);
	for (int i = 0; i < sup->n; i++)
		sup->rows[i].kind->wait(sup, &sup->rows[i], on_record, ctx);
	sup_programs_service(sup, now);
	relay_stderr(sup);
	for (int i = 0; i < sup->n; i++) {
		struct sup_row *r = &sup->rows[i];
		if (r->kind->relay)
			r->kind->relay(sup, r, false);
		if (!r->info.alive)
			continue;
		if (!r->attached && r->info.state != GD_ST_FAILED)
			try_attach(r);
		if (r->kind->service)
			r->kind->service(sup, r, now);
		if (r->attached)
			drain(sup, r, on_record, ctx);
		update_state(sup, r, now);
		if (r->stop_sent && !r->kill_sent && now - r->stop_ns > GRACE_NS) {
			r->kind->signal(r, SIGKILL);
			r->kill_sent = true;
			sup->grace_kills++;
			sup->grace_last = r->info.id;
		}
	}
}

void sup_forget(struct gd_sup *sup, int i)
{
	struct sup_row *r = row_at(sup, i);
	GD_ASSERT(!r->info.alive);
	reader_close(&r->rd);
	memmove(r, r + 1, (size_t)(sup->n - i - 1) * sizeof(*r));
	sup->n--;
}

void sup_stop_all(struct gd_sup *sup)
{
	for (int i = 0; i < sup->n; i++)
		sup_stop(sup, i, false);
}

void sup_reap_all(struct gd_sup *sup, int64_t grace_ns, gd_record_fn on_record, void *ctx)
{
	int64_t deadline = now_ns() + grace_ns;
	while (sup_live(sup) > 0 && now_ns() < deadline) {
		sup_service(sup, now_ns(), on_record, ctx);
		sleep_ns(GD_NS_PER_S / 100);
	}
	for (int i = 0; i < sup->n; i++) {
		struct sup_row *r = &sup->rows[i];
		if (!r->info.alive)
			continue;
		/* It outlived every grace: killed, and waited for. */
		r->kind->signal(r, SIGKILL);
		r->kill_sent = true;
		r->kind->wait_killed(sup, r, on_record, ctx);
	}
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].shm[0])
			shm_unlink(sup->rows[i].shm); /* idempotent: ENOENT when already gone */
	sup_programs_end(sup);
	if (sup->errw >= 0) {
		close(sup->errw); /* then the pipe ends once every worker has gone */
		sup->errw = -1;
	}
	relay_stderr(sup);
	if (sup->errn) /* the last line had no newline */
		relay_line(sup);
}

void sup_free(struct gd_sup *sup)
{
	if (!sup)
		return;
	for (int i = 0; i < sup->n; i++)
		GD_ASSERT(!sup->rows[i].info.alive);
	for (int i = 0; i < sup->n; i++) {
		reader_close(&sup->rows[i].rd);
		if (sup->rows[i].outfd >= 0)
			close(sup->rows[i].outfd);
	}
	sentinel_stop(sup->sentinel, sup->sentfd); /* reap_all not run: after an error */
	free(sup->scan);
	if (sup->errw >= 0)
		close(sup->errw);
	close(sup->errr);
	free(sup->rows);
	free(sup);
}

unsigned sup_grace_kills(const struct gd_sup *sup, unsigned *last)
{
	*last = sup->grace_last;
	return sup->grace_kills;
}

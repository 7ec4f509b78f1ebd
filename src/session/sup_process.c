/* sup_process.c: the observed programs' family (doc/observe.md): the processes the copies
 * started, found by their segments, and what ends them all. Nothing is signalled that is not
 * proven of the family:
 * - A copy is our child: its pid is ours until we reap it.
 * - The supervisor is a child subreaper (PR_SET_CHILD_SUBREAPER), so a process of the family
 *   whose parent ended is re-parented to it, not to init: every live process of the family has a
 *   parent chain that reaches a copy or the supervisor. That chain, read from /proc, is the proof.
 * - A row for a discovered process exists only once its segment passed the reader's checks (our
 *   uid, mode 0600, the run's token, the pid) and the process's start time matches the one its
 *   segment holds. From then on it is named by a pidfd, never by its pid.
 * A name in /dev/shm that fails any of this is counted once and ignored. */
#include "sup_impl.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
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
#include "sentinel.h"

#define CHAIN_MAX 256               /* parent links followed, at most */
#define SCAN_NS   (GD_NS_PER_S)     /* the family is looked for this often */
#define SWEEP_NS  (3 * GD_NS_PER_S) /* the end's sweep gives up after this */

/* The prefix of this run's observed segments' names, in /dev/shm; its length. */
int sup_observed_prefix(const struct gd_sup *sup, char *buf, size_t n)
{
	return snprintf(buf, n, GD_SEG_PREFIX "%u.%d.o", (unsigned)geteuid(), (int)sup->self);
}

/* The live row of pid, if any: a pid of an ended row may be a new process now. */
static struct sup_row *by_pid(struct gd_sup *sup, pid_t pid)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].info.observed && sup->rows[i].info.alive && sup->rows[i].info.pid == pid)
			return &sup->rows[i];
	return NULL;
}

static bool is_copy(const struct gd_sup *sup, pid_t pid)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->rows[i].kind == &sup_kind_copy && sup->rows[i].info.alive &&
		    sup->rows[i].info.pid == pid)
			return true;
	return false;
}

/* An orphan the supervisor adopted: its child now, and neither the sentinel nor in the
 * supervisor's own process group (where the workers and the calibration are). */
static bool adopted(const struct gd_sup *sup, const struct proc_stat *st)
{
	return st->ppid == sup->self && st->pid != sup->sentinel && st->pgid != getpgrp();
}

/* Whether st's process is of the family: a copy, or below one or the supervisor by its parent
 * chain (each link read afresh from /proc). */
static bool of_family(const struct gd_sup *sup, const struct proc_stat *st)
{
	struct proc_stat cur = *st;
	for (int depth = 0; depth < CHAIN_MAX; depth++) {
		if (is_copy(sup, cur.pid))
			return true;
		if (cur.ppid == sup->self)
			return adopted(sup, &cur);
		if (cur.ppid <= 1 || !proc_stat_read(cur.ppid, &cur))
			return false;
	}
	return false;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool forged_before(const struct gd_sup *sup, uint64_t h)
{
	for (size_t i = 0; i < GD_ARRAY_LEN(sup->forged_names); i++)
		if (sup->forged_names[i] == h)
			return true;
	return false;
}

/* A name that is not of this run's processes: counted once, said once, ignored. */
static void forged(struct gd_sup *sup, const char *name, const char *why)
{
	uint64_t h = name_hash(name);
	if (forged_before(sup, h))
		return;
	sup->forged_names[sup->forged++ % GD_ARRAY_LEN(sup->forged_names)] = h;
	if (sup->forged == 1)
		fprintf(stderr, GD_NAME ": ignored /dev/shm%s: %s (not made by this run's programs)\n", name,
		        why);
}

static void report(struct gd_sup *sup, pid_t pid, uint64_t start)
{
	if (sup->sentinel > 0 && sentinel_report(sup->sentfd, pid, start) != 0)
		sup->unreported++;
}

void sup_programs_report(struct gd_sup *sup, pid_t pid)
{
	struct proc_stat st;
	if (proc_stat_read(pid, &st))
		report(sup, pid, st.start_ticks);
}

/* A pidfd for st's process, or -1 when it has ended (or its pid is another's by now). */
static int pidfd_of(const struct proc_stat *st)
{
	int fd = (int)pidfd_open(st->pid, 0);
	struct proc_stat again;
	if (fd >= 0 && (!proc_stat_read(st->pid, &again) || again.start_ticks != st->start_ticks)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The copy whose process group pid is in (a copy leads its own, and what it starts stays in it
 * unless it makes a group of its own); 0: none. */
static unsigned copy_of(const struct gd_sup *sup, pid_t pgid)
{
	for (int i = 0; pgid > 0 && i < sup->n; i++)
		if (sup->rows[i].kind == &sup_kind_copy && sup->rows[i].info.pid == pgid)
			return sup->rows[i].info.id;
	return 0;
}

/* The segment at name, checked: our uid and mode (the reader's), the run's token, pid, and the
 * start time st says (when the process is alive). OK, NOTYET (initialising: look again), or
 * REJECTED with why. */
static enum gd_open_result checked_open(struct gd_sup *sup, struct gd_reader *rd, const char *name, pid_t pid,
                                        const struct proc_stat *st, char *why, size_t n)
{
	enum gd_open_result rc = reader_open(rd, name, pid, sup->token, why, n);
	if (rc != GD_OPEN_OK)
		return rc;
	struct gd_seg_view v;
	if (!reader_view(rd, &v) || (st && v.start_ticks != st->start_ticks)) {
		reader_close(rd);
		snprintf(why, n, "its process's start time differs from its segment's");
		return GD_OPEN_REJECTED;
	}
	return GD_OPEN_OK;
}

/* checked_open, where a rejected segment is a forged name: true once rd is open. */
static bool proven_open(struct gd_sup *sup, struct gd_reader *rd, const char *name, pid_t pid,
                        const struct proc_stat *st)
{
	char why[160];
	enum gd_open_result rc = checked_open(sup, rd, name, pid, st, why, sizeof(why));
	if (rc == GD_OPEN_REJECTED)
		forged(sup, name, why);
	return rc == GD_OPEN_OK;
}

/* A process of the family that made its first OpenCL call: a row of its own, its segment read
 * from now on. One that has ended already (its segment outlived it) is proven by the token
 * alone, and only read: there is nothing to signal. */
static void discover(struct gd_sup *sup, const char *name, pid_t pid)
{
	if (sup_live(sup) >= sup->c.max_procs)
		return; /* past --max-procs: not shown; its segment goes at the end */
	struct proc_stat st;
	bool alive = proc_stat_read(pid, &st) && st.state != 'Z' && st.state != 'X';
	if (alive && !of_family(sup, &st)) {
		forged(sup, name, "its pid is not of this run's family");
		return;
	}
	struct gd_reader rd;
	if (!proven_open(sup, &rd, name, pid, alive ? &st : NULL))
		return;
	struct sup_row *r = sup_add_observed(sup, &sup_kind_process, pid);
	str_copy(r->shm, sizeof(r->shm), name);
	r->pidfd = alive ? pidfd_of(&st) : -1;
	r->start_ticks = alive ? st.start_ticks : 0;
	r->info.copy = alive ? copy_of(sup, st.pgid) : 0;
	r->rd = rd;
	r->attached = true;
	r->kind->attached(r);
	if (r->pidfd >= 0)
		report(sup, pid, st.start_ticks);
}

/* A new segment of a process whose row has read another: it ran exec, and the library in its
 * new image made it. The row reads the new one from now on; the old image's totals are kept. */
static void reimage(struct gd_sup *sup, struct sup_row *r, const char *name, gd_record_fn on_record,
                    void *ctx)
{
	struct proc_stat st;
	bool alive = proc_stat_read(r->info.pid, &st) && st.state != 'Z';
	struct gd_reader rd;
	if (!proven_open(sup, &rd, name, r->info.pid, alive ? &st : NULL))
		return;
	sup_swap_segment(sup, r, &rd, name, on_record, ctx);
	r->images++;
	fprintf(stderr,
	        GD_NAME ": process %u (pid %d) ran exec: its new image (%s) is observed, its totals go on\n",
	        r->info.id, (int)r->info.pid, r->view.comm[0] ? r->view.comm : "?");
}

/* "<nonce>.<pid>" after the prefix: the pid, or 0 when the rest is not of that form. */
static pid_t name_pid(const char *rest)
{
	for (int i = 0; i < 16; i++)
		if (!strchr("0123456789abcdef", rest[i]) || !rest[i])
			return 0;
	if (rest[16] != '.')
		return 0;
	char *end;
	long pid = strtol(rest + 17, &end, 10);
	return *end == '\0' && pid > 0 && pid <= INT32_MAX && rest[17] != '+' && rest[17] != '-' ? (pid_t)pid
	                                                                                         : 0;
}

/* Whether a row reads (or is to read) the segment at name. */
static bool name_known(const struct gd_sup *sup, const char *name)
{
	for (int i = 0; i < sup->n; i++)
		if (strcmp(sup->rows[i].shm, name) == 0)
			return true;
	return forged_before(sup, name_hash(name));
}

/* One name of this run's prefix in /dev/shm. */
static void found_name(struct gd_sup *sup, const char *name, const char *rest, gd_record_fn on_record,
                       void *ctx)
{
	if (name_known(sup, name))
		return;
	pid_t pid = name_pid(rest);
	if (!pid) {
		forged(sup, name, "not a segment's name");
		return;
	}
	struct sup_row *r = by_pid(sup, pid);
	if (!r)
		discover(sup, name, pid);
	else if (r->attached)
		reimage(sup, r, name, on_record, ctx);
	else if (!r->shm[0] && r->kind == &sup_kind_copy)
		str_copy(r->shm, sizeof(r->shm), name); /* a copy's first segment: try_attach checks it */
	/* else a row that has not read its first segment yet: that one comes first */
}

void sup_observed_names(const struct gd_sup *sup, void (*fn)(void *arg, const char *name, const char *rest),
                        void *arg)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	char prefix[96], name[400];
	int plen = sup_observed_prefix(sup, prefix, sizeof(prefix));
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, (size_t)plen) == 0) {
			snprintf(name, sizeof(name), "/%s", e->d_name);
			fn(arg, name, e->d_name + plen);
		}
	closedir(d);
}

struct discovery {
	struct gd_sup *sup;
	gd_record_fn on_record;
	void *ctx;
};

static void discover_name(void *arg, const char *name, const char *rest)
{
	struct discovery *d = arg;
	found_name(d->sup, name, rest, d->on_record, d->ctx);
}

void sup_programs_discover(struct gd_sup *sup, gd_record_fn on_record, void *ctx)
{
	struct discovery d = { sup, on_record, ctx };
	if (sup->c.command)
		sup_observed_names(sup, discover_name, &d);
}

/* ---- the family as a whole: adopted orphans, the sentinel's list, the end ---- */

/* Reaps the orphans of the family the supervisor adopted that have ended (no zombie stays). A
 * child that is not one (a row, the sentinel, the calibration) is left to its owner: the loop
 * ends there, and goes on at the next service once the owner has reaped it. */
static void reap_adopted(const struct gd_sup *sup)
{
	for (;;) {
		siginfo_t si = { 0 };
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
			return;
		struct proc_stat st;
		if (!proc_stat_read(si.si_pid, &st) || !adopted(sup, &st) || is_copy(sup, st.pid))
			return;
		for (int i = 0; i < sup->n; i++)
			if (sup->rows[i].info.alive && sup->rows[i].info.pid == st.pid &&
			    sup->rows[i].kind->unit)
				return;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}

static int by_pid_cmp(const void *a, const void *b)
{
	const struct proc_stat *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Reads every process into sup->scan (sorted by pid); how many. */
static size_t scan_all(struct gd_sup *sup)
{
	for (;;) {
		size_t n = proc_scan(sup->scan, sup->scan_cap);
		if (n < sup->scan_cap) {
			qsort(sup->scan, n, sizeof(*sup->scan), by_pid_cmp);
			return n;
		}
		sup->scan_cap = sup->scan_cap ? 2 * sup->scan_cap : 1024;
		sup->scan = xreallocarray(sup->scan, sup->scan_cap, sizeof(*sup->scan));
	}
}

static const struct proc_stat *scanned(const struct gd_sup *sup, size_t n, pid_t pid)
{
	struct proc_stat key = { .pid = pid };
	return bsearch(&key, sup->scan, n, sizeof(*sup->scan), by_pid_cmp);
}

/* Whether p is of the family, by the parent chain in the scan (as of_family, from one reading). */
static bool family_in_scan(const struct gd_sup *sup, size_t n, const struct proc_stat *p)
{
	for (int depth = 0; p && depth < CHAIN_MAX; depth++) {
		if (is_copy(sup, p->pid))
			return true;
		if (p->ppid == sup->self)
			return adopted(sup, p);
		p = p->ppid > 1 ? scanned(sup, n, p->ppid) : NULL;
	}
	return false;
}

/* Every live process of the family, into sup->family (pid and start time); how many. */
static size_t family_now(struct gd_sup *sup)
{
	size_t n = scan_all(sup), k = 0;
	for (size_t i = 0; i < n; i++)
		if (sup->scan[i].state != 'Z' && family_in_scan(sup, n, &sup->scan[i]))
			sup->scan[k++] =
			    sup->scan[i]; /* k <= i: the chains read above are not needed again */
	return k;
}

/* Tells the sentinel of the family's processes it has not heard of: after the tool, it ends
 * them even when their environment cannot be read. Once a second. */
static void report_family(struct gd_sup *sup, int64_t now)
{
	if (sup->sentinel <= 0 || now - sup->scan_ns < SCAN_NS)
		return;
	sup->scan_ns = now;
	size_t n = family_now(sup);
	for (size_t i = 0; i < n; i++) {
		uint64_t h = (uint64_t)sup->scan[i].pid * 0x9e3779b97f4a7c15ull ^ sup->scan[i].start_ticks;
		bool known = false;
		for (size_t j = 0; j < GD_ARRAY_LEN(sup->reported) && !known; j++)
			known = sup->reported[j] == h;
		if (known)
			continue;
		report(sup, sup->scan[i].pid, sup->scan[i].start_ticks);
		sup->reported[sup->nreported++ % GD_ARRAY_LEN(sup->reported)] = h;
	}
}

void sup_programs_service(struct gd_sup *sup, int64_t now)
{
	if (!sup->c.command)
		return;
	reap_adopted(sup);
	report_family(sup, now);
}

/* Kills every process of the family left, in rounds (stopped first, so that one that forks
 * cannot outrun a round), and reaps the adopted ones, until two scans in a row find nobody. */
void sup_programs_sweep(struct gd_sup *sup)
{
	if (!sup->c.command)
		return;
	int64_t until = now_ns() + SWEEP_NS;
	for (int empty = 0; empty < 2 && now_ns() < until;) {
		size_t n = family_now(sup);
		empty = n ? 0 : empty + 1;
		for (int sig = 0; sig < 2; sig++)
			for (size_t i = 0; i < n; i++) {
				int fd = pidfd_of(&sup->scan[i]);
				if (fd >= 0)
					pidfd_send_signal(fd, sig ? SIGKILL : SIGSTOP, NULL, 0);
				if (fd >= 0)
					close(fd);
			}
		sleep_ns(GD_NS_PER_S / 100);
		reap_adopted(sup);
	}
}

/* Not our child: its pidfd says when it has ended (one without, ended before it was found). */
static bool gone(const struct sup_row *r)
{
	struct pollfd p = { .fd = r->pidfd, .events = POLLIN };
	return r->pidfd < 0 || poll(&p, 1, 0) != 0;
}

static void process_signal(const struct sup_row *r, int sig)
{
	if (r->pidfd >= 0)
		pidfd_send_signal(r->pidfd, sig, NULL, 0);
}

/* Only its parent learns its status. */
static void process_wait(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx)
{
	if (r->info.alive && gone(r)) {
		sup_reaped(sup, r, r->kill_sent ? SIGKILL : 0, on_record, ctx);
		r->info.exit_status = -1;
	}
}

/* Killed: gone within a second. */
static void process_wait_killed(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record,
                                void *ctx)
{
	struct pollfd p = { .fd = r->pidfd, .events = POLLIN };
	if (r->pidfd >= 0)
		poll(&p, 1, 1000);
	sup_reaped(sup, r, SIGKILL, on_record, ctx);
	r->info.exit_status = -1;
}

const struct sup_kind sup_kind_process = {
	.unit = false,
	.unattached = GD_ST_NOCL,
	.signal = process_signal,
	.pause = sup_observed_pause,
	.attached = sup_observed_attached,
	.viewed = sup_observed_viewed,
	.state = sup_observed_state,
	.ended = sup_observed_ended,
	.wait = process_wait,
	.wait_killed = process_wait_killed,
};

/* sentinel.c: a forked child that outlives the tool only to end what the tool started. A copy
 * of an observed program dies with the tool (PR_SET_PDEATHSIG), but the processes it started do
 * not: a parent-death signal reaches children only. The sentinel waits for the end of a pipe
 * the tool alone holds, and meanwhile keeps the processes the tool reports through it (pid and
 * start time). Once the pipe ends, the family is, in each scan of /proc:
 *   - every process whose environment holds the run's entry (GPUTOP_DECODE_OBSERVE=<supervisor
 *     pid>:<token>), which whatever a copy starts inherits;
 *   - every reported process that still runs with the start time it was reported with (its
 *     environment may be unreadable: a process that is not dumpable hides it from its own uid);
 *   - every process whose parent, read in the same scan, is of the family.
 * Round 1 sends SIGTERM (and SIGCONT) and waits up to the grace while any of them lives. Then
 * rounds of stop-then-kill: SIGSTOP to everyone found, scans again until every one found is
 * stopped (a stopped process forks no more, and a child it made before is found by its parent),
 * SIGKILL to them all; until two rounds in a row find nobody, or KILL_S have passed. A process
 * is signalled only through a pidfd taken before its start time is read again, so a pid reused
 * since the scan is never hit.
 *
 * The tool may have threads when it forks, so the child calls only async-signal-safe functions
 * (and raw system calls) until it ends with _exit: no stdio, no malloc, no opendir. */
#include "sentinel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gputop/common.h"
#include "supervisor.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define VAR_MAX      128            /* the entry looked for, at most */
#define REPORT_MAX   4096           /* reported processes kept; when full, those gone are forgotten */
#define SCAN_MAX     65536          /* processes one scan holds; more are not looked at */
#define SLOTS        (2 * SCAN_MAX) /* the scan's pid index: a power of two, half full at most */
#define KILL_S       10             /* the stop-then-kill rounds give up after this */
#define STOP_TRIES   8              /* scans of one round that may still find a member not stopped */
#define LIST_PASSES  32             /* listings of /proc one scan reads, for the pids new since the last */
#define ROUND_NAP_MS 20

/* One report, as it crosses the pipe: far below PIPE_BUF, so written whole or not at all. */
struct report {
	int32_t pid;
	uint32_t zero;
	uint64_t start; /* clock ticks since boot: field 22 of /proc/PID/stat */
};
_Static_assert(sizeof(struct report) == 16 && sizeof(struct report) <= PIPE_BUF, "a report is one write");

struct dirent64_raw { /* what getdents64 returns */
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* A process as one scan saw it. */
struct proc {
	pid_t pid, ppid;
	uint64_t start;
	char state;
	bool fam; /* of the family */
};

enum sent { SENT, GONE, DENIED }; /* a signal: delivered; its process gone; not ours to signal */

static struct report reported[REPORT_MAX];
static int nreported;
static struct proc scan[SCAN_MAX];
static int nscan;
static int32_t slot[SLOTS]; /* index + 1 into scan, by pid; 0: free */
static const char *var;     /* the run's entry */
static size_t varlen;
static pid_t self;
static long hz; /* clock ticks a second, as /proc counts start times */

static size_t len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static int64_t clock_ms(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Now, in the clock ticks since boot that start times are counted in. */
static uint64_t ticks_now(void)
{
	return (uint64_t)clock_ms(CLOCK_BOOTTIME) * (uint64_t)hz / 1000;
}

/* "/proc/<pid>/<leaf>" into path (at least 48 bytes). */
static void proc_path(char *path, pid_t pid, const char *leaf)
{
	static const char pre[] = "/proc/";
	char digits[12];
	int nd = 0, at = 0;
	do
		digits[nd++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0 && nd < 11);
	for (size_t i = 0; pre[i]; i++)
		path[at++] = pre[i];
	while (nd > 0)
		path[at++] = digits[--nd];
	path[at++] = '/';
	for (size_t i = 0; leaf[i] && at < 46; i++)
		path[at++] = leaf[i];
	path[at] = '\0';
}

/* Reads the file into buf (NUL-terminated); its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, buf, size - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The number that starts at *s, which is moved past it and the space after. */
static uint64_t number(const char **s)
{
	uint64_t v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (uint64_t)(*(*s)++ - '0');
	if (**s == ' ')
		++*s;
	return v;
}

/* The state, parent and start time of pid (fields 3, 4 and 22 of /proc/PID/stat, which any uid
 * may read, a process that is not dumpable included). The name before them may hold spaces and
 * parentheses: the fields are counted from its last ')'. */
static bool read_stat(pid_t pid, struct proc *p)
{
	char path[48], buf[1024];
	proc_path(path, pid, "stat");
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	const char *s = NULL;
	for (const char *c = buf; *c; c++)
		if (*c == ')')
			s = c;
	if (!s || s[1] != ' ' || !s[2] || s[3] != ' ')
		return false;
	p->pid = pid;
	p->state = s[2];
	s += 4;
	p->ppid = (pid_t)number(&s);
	for (int field = 5; field < 22; field++) {
		while (*s && *s != ' ')
			s++;
		if (*s)
			s++;
	}
	p->start = number(&s);
	return *s != '\0';
}

static bool running(const struct proc *p)
{
	return p->state != 'Z' && p->state != 'X' && p->state != 'x';
}

/* Whether the environment in file fd holds the entry var whole: at its start or after a NUL,
 * followed by a NUL. Read in chunks that keep the last varlen bytes of the one before. */
static bool holds(int fd)
{
	static char buf[65536 + VAR_MAX + 1];
	size_t have = 1, n = varlen;
	buf[0] = '\0'; /* the entry before the first */
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false; /* an entry the file ends in without its NUL is no whole entry */
		have += (size_t)r;
		size_t i = 0;
		for (; i + n + 1 < have; i++) {
			if (buf[i] != '\0')
				continue;
			size_t k = 0;
			while (k < n && buf[i + 1 + k] == var[k])
				k++;
			if (k == n && buf[i + 1 + n] == '\0')
				return true;
		}
		for (size_t k = 0; i + k < have; k++) /* the tail that may begin the entry */
			buf[k] = buf[i + k];
		have -= i;
	}
}

static bool holder(pid_t pid)
{
	char path[48];
	proc_path(path, pid, "environ");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false; /* gone, not ours to read, or not dumpable */
	bool yes = holds(fd);
	close(fd);
	return yes;
}

/* Sends sig (0: none, only asks) to pid while it is still the process that started at start:
 * the pidfd, taken before the start time is read again, names that one process whatever
 * happens to the pid after. */
static enum sent signal_exact(pid_t pid, uint64_t start, int sig)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int err = errno;
	struct proc now;
	bool same = read_stat(pid, &now) && now.start == start && running(&now);
	long rc = -1;
	if (pfd >= 0) {
		if (same)
			rc = syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0);
		err = errno;
		close(pfd);
	} else if (err == ENOSYS && same) { /* before Linux 5.3: a reuse in between is possible */
		rc = kill(pid, sig);
		err = errno;
	}
	if (rc == 0)
		return SENT;
	return same && err == EPERM ? DENIED : GONE;
}

/* ---- the reports, while the tool lives ---- */

/* Keeps only the reported processes that still run with their start time. */
static void forget_gone(void)
{
	int kept = 0;
	for (int i = 0; i < nreported; i++) {
		struct proc p;
		if (read_stat(reported[i].pid, &p) && p.start == reported[i].start && running(&p))
			reported[kept++] = reported[i];
	}
	nreported = kept;
}

/* A report from the tool; one the table has no room for is dropped. */
static void remember(struct report r)
{
	if (r.pid <= 1 || r.pid == self)
		return;
	for (int i = 0; i < nreported; i++)
		if (reported[i].pid == r.pid) {
			reported[i].start = r.start; /* the pid was reused: the newer one counts */
			return;
		}
	if (nreported == REPORT_MAX)
		forget_gone();
	if (nreported < REPORT_MAX)
		reported[nreported++] = r;
}

/* Reads reports from descriptor 0 until the pipe ends: the tool has gone, or has stopped us. */
static void take_reports(void)
{
	static char buf[4096];
	size_t have = 0;
	for (;;) {
		ssize_t r = read(0, buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		have += (size_t)r;
		size_t at = 0;
		for (; have - at >= sizeof(struct report); at += sizeof(struct report)) {
			struct report rep;
			memcpy(&rep, buf + at, sizeof(rep));
			remember(rep);
		}
		memmove(buf, buf + at, have - at);
		have -= at;
	}
}

/* ---- one scan of /proc ---- */

static uint32_t hash_of(pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (SLOTS - 1);
}

/* The scan's entry of pid, or NULL. */
static struct proc *find(pid_t pid)
{
	for (uint32_t h = hash_of(pid); slot[h]; h = (h + 1) & (SLOTS - 1))
		if (scan[slot[h] - 1].pid == pid)
			return &scan[slot[h] - 1];
	return NULL;
}

static bool was_reported(const struct proc *p)
{
	for (int i = 0; i < nreported; i++)
		if (reported[i].pid == p->pid)
			return reported[i].start == p->start;
	return false;
}

/* How a scan treats each member: sig to those started at or after since (0 to the others,
 * which only asks whether they can be signalled); with stopping, those already stopped are left
 * for the kill and not counted. */
struct act {
	int sig;
	uint64_t since;
	bool stopping;
	int moving; /* members signalled, or gone since the scan saw them; not those denied */
};

static void act_on(const struct proc *p, struct act *a)
{
	if (a->stopping && (p->state == 'T' || p->state == 't'))
		return;
	enum sent s = signal_exact(p->pid, p->start, p->start >= a->since ? a->sig : 0);
	if (s == SENT && a->sig == SIGTERM && p->start >= a->since)
		signal_exact(p->pid, p->start, SIGCONT); /* a stopped process takes its SIGTERM too */
	if (s != DENIED)
		a->moving++;
}

/* Adds pid to the scan (a process gone or a zombie too, so that a later listing knows it):
 * of the family when it holds the entry, was reported, or its parent, scanned before it, is; a
 * member is acted on at once, before it can fork again. */
static void scan_one(pid_t pid, struct act *a)
{
	if (nscan == SCAN_MAX)
		return;
	struct proc *p = &scan[nscan];
	if (!read_stat(pid, p))
		*p = (struct proc){ .pid = pid, .state = 'X' };
	uint32_t h = hash_of(pid);
	while (slot[h])
		h = (h + 1) & (SLOTS - 1);
	slot[h] = ++nscan;
	p->fam = false;
	if (pid == self || pid <= 1 || !running(p))
		return;
	const struct proc *parent = find(p->ppid);
	p->fam = (parent && parent->fam) || was_reported(p) || holder(pid);
	if (p->fam)
		act_on(p, a);
}

/* Members whose parent was scanned after them, and their children in turn. */
static void scan_spread(struct act *a)
{
	for (bool grew = true; grew;) {
		grew = false;
		for (int i = 0; i < nscan; i++) {
			const struct proc *parent = scan[i].fam ? NULL : find(scan[i].ppid);
			if (parent && parent->fam) {
				scan[i].fam = grew = true;
				act_on(&scan[i], a);
			}
		}
	}
}

static pid_t pid_of(const char *name)
{
	pid_t p = 0;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || p > INT32_MAX / 10)
			return 0;
		p = p * 10 + (*name - '0');
	}
	return p;
}

/* One listing of /proc from its start: the pids this scan has not seen are added; returns how
 * many. */
static int list_pass(int dir, struct act *a)
{
	static char ents[16384];
	int fresh = 0;
	long got;
	if (lseek(dir, 0, SEEK_SET) != 0)
		return 0;
	while ((got = syscall(SYS_getdents64, dir, ents, sizeof(ents))) > 0)
		for (long at = 0; at < got;) {
			const struct dirent64_raw *e = (const struct dirent64_raw *)(ents + at);
			at += e->reclen;
			pid_t pid = pid_of(e->name);
			if (pid > 0 && !find(pid)) {
				scan_one(pid, a);
				fresh++;
			}
		}
	return fresh;
}

/* One scan of /proc, acting on each member found as a; returns a->moving. A process listed may
 * be gone by the time it is read, and one forked meanwhile may have a lower pid than the
 * listing had reached (pids wrap): the listing is read again, each time adding only the pids
 * new to it, until it shows none (at most LIST_PASSES times). A process that forks and exits
 * in a loop is thus read within a few new pids of its listing, while it still runs. */
static int scan_family(struct act *a)
{
	nscan = 0;
	memset(slot, 0, sizeof(slot));
	a->moving = 0;
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return 0;
	for (int pass = 0; pass < LIST_PASSES && list_pass(dir, a) > 0; pass++)
		;
	close(dir);
	scan_spread(a);
	return a->moving;
}

/* ---- the end ---- */

/* Round 1: SIGTERM and SIGCONT to the family, and to whoever joins it later, for up to the
 * grace while any member lives. Returns whether its last scan found nobody. */
static bool term_round(void)
{
	int64_t end = clock_ms(CLOCK_MONOTONIC) + (int64_t)SESSION_STOP_GRACE_S * 1000;
	struct act a = { .sig = SIGTERM };
	for (;;) {
		uint64_t t = ticks_now();
		if (!scan_family(&a))
			return true;
		a.since = t; /* the next scan: only those started since this one began */
		if (clock_ms(CLOCK_MONOTONIC) >= end)
			return false;
		nap_ms(100);
	}
}

/* SIGSTOP to every member, scanning again until a scan finds each one stopped (or STOP_TRIES),
 * then SIGKILL to every member of that scan. Returns how many it found. */
static int kill_round(void)
{
	struct act a = { .sig = SIGSTOP, .stopping = true };
	int found = 0;
	for (int i = 0; i < STOP_TRIES && scan_family(&a); i++)
		found += a.moving;
	for (int i = 0; i < nscan; i++)
		if (scan[i].fam && signal_exact(scan[i].pid, scan[i].start, SIGKILL) != DENIED)
			found++;
	return found;
}

static void quiet_signals(void)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	for (size_t i = 0; i < GD_ARRAY_LEN(quiet); i++)
		sigaction(quiet[i], &ign, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static _Noreturn void sentinel_main(int rfd)
{
	/* Out of the terminal's process group and deaf to the signals that end or stop a job (a
	 * kill of the tool's group too: it ends with its pipe), nothing masked, and every other
	 * descriptor of the tool closed (a port, a log, the terminal). */
	setpgid(0, 0);
	prctl(PR_SET_NAME, "gputop-sentinel"); /* what ps and top show for it: not another tool */
	quiet_signals();
	self = getpid();
	if (dup2(rfd, 0) < 0)
		_exit(1);
	syscall(SYS_close_range, 1U, ~0U, 0U);
	take_reports();
	int empty = term_round() ? 1 : 0;
	int64_t end = clock_ms(CLOCK_MONOTONIC) + (int64_t)KILL_S * 1000;
	while (empty < 2 && clock_ms(CLOCK_MONOTONIC) < end) {
		nap_ms(ROUND_NAP_MS);
		empty = kill_round() ? 0 : empty + 1;
	}
	_exit(0);
}

pid_t sentinel_start(const char *entry, int *fd)
{
	if (len(entry) >= VAR_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	var = entry;
	varlen = len(entry);
	hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		sentinel_main(p[0]);
	int saved = errno;
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		errno = saved;
		return -1;
	}
	fcntl(p[1], F_SETFL, O_NONBLOCK); /* a report never waits: the sentinel may be slow */
	*fd = p[1];
	return pid;
}

int sentinel_report(int fd, pid_t pid, uint64_t start_ticks)
{
	if (fd <= STDERR_FILENO) /* no sentinel: the standard descriptors are never its pipe */
		return -1;
	struct report r = { .pid = pid, .start = start_ticks };
	ssize_t w;
	while ((w = write(fd, &r, sizeof(r))) < 0 && errno == EINTR)
		;
	return w == (ssize_t)sizeof(r) ? 0 : -1;
}

void sentinel_stop(pid_t pid, int fd)
{
	if (pid <= 0)
		return;
	close(fd);
	/* It ends once two scans in a row find nobody: at once when nothing is left; after the
	 * grace and the kill rounds at most. */
	int64_t deadline = now_ns() + (SESSION_STOP_GRACE_S + KILL_S + 2) * GD_NS_PER_S;
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		sleep_ns(GD_NS_PER_S / 100);
	}
}

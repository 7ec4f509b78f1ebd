/* sentinel.c: a forked child that outlives the tool only to end what the tool started. A copy
 * of an observed program dies with the tool (PR_SET_PDEATHSIG), but the processes it started do
 * not: a parent-death signal reaches children only. Every one of them inherits the run's entry
 * in its environment (GPUTOP_DECODE_OBSERVE=<supervisor pid>:<token>), so the sentinel finds
 * them in /proc once the tool has gone.
 *
 * The tool may have threads when it forks, so the child calls only async-signal-safe functions
 * (and raw system calls) until it ends with _exit: no stdio, no malloc, no opendir. */
#include "sentinel.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gputop/common.h"
#include "supervisor.h"

#define VAR_MAX 128 /* the entry looked for, at most */

struct dirent64_raw { /* what getdents64 returns */
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static size_t len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* Whether the environment in file fd holds the entry var (n bytes) whole: at its start or after
 * a NUL, followed by a NUL. Read in chunks that keep the last n bytes of the one before. */
static bool holds(int fd, const char *var, size_t n)
{
	static char buf[65536 + VAR_MAX + 1];
	size_t have = 1;
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

/* "/proc/<pid>/environ" into path from the directory entry's name (digits only; else false). */
static bool environ_path(char *path, size_t size, const char *name)
{
	static const char pre[] = "/proc/", post[] = "/environ";
	size_t n = len(name), at = 0;
	if (n == 0 || sizeof(pre) + n + sizeof(post) > size)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	for (size_t i = 0; pre[i]; i++)
		path[at++] = pre[i];
	for (size_t i = 0; i < n; i++)
		path[at++] = name[i];
	for (size_t i = 0; i <= sizeof(post) - 1; i++)
		path[at++] = post[i];
	return true;
}

static pid_t pid_of(const char *name)
{
	pid_t p = 0;
	for (; *name; name++)
		p = p * 10 + (*name - '0');
	return p;
}

/* Sends sig to every process whose environment holds var; returns how many it found. */
static int signal_holders(const char *var, size_t n, int sig)
{
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return 0;
	static char ents[16384];
	int found = 0;
	long got;
	while ((got = syscall(SYS_getdents64, dir, ents, sizeof(ents))) > 0)
		for (long at = 0; at < got;) {
			const struct dirent64_raw *e = (const struct dirent64_raw *)(ents + at);
			at += e->reclen;
			char path[64];
			if (!environ_path(path, sizeof(path), e->name))
				continue;
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue; /* gone, or not ours to read */
			if (holds(fd, var, n) && kill(pid_of(e->name), sig) == 0)
				found++;
			close(fd);
		}
	close(dir);
	return found;
}

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static _Noreturn void sentinel_main(int rfd, const char *var)
{
	/* Out of the terminal's process group and deaf to the signals that end or stop a job (a
	 * kill of the tool's group too: it ends with its pipe), nothing masked, and every other
	 * descriptor of the tool closed (a port, a log, the terminal). */
	setpgid(0, 0);
	prctl(PR_SET_NAME, "gputop-sentinel"); /* what ps and top show for it: not another tool */
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	for (size_t i = 0; i < GD_ARRAY_LEN(quiet); i++)
		sigaction(quiet[i], &ign, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(rfd, 0) < 0)
		_exit(1);
	syscall(SYS_close_range, 1U, ~0U, 0U);
	char c;
	for (;;) { /* nothing is written: only the end counts */
		ssize_t r = read(0, &c, 1);
		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	size_t n = len(var);
	if (!signal_holders(var, n, SIGTERM))
		_exit(0);
	for (int waited = 0; waited < SESSION_STOP_GRACE_S * 10; waited++) {
		nap_ms(100);
		if (!signal_holders(var, n, 0))
			_exit(0);
	}
	signal_holders(var, n, SIGKILL);
	_exit(0);
}

pid_t sentinel_start(const char *var, int *fd)
{
	if (len(var) >= VAR_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		sentinel_main(p[0], var);
	int saved = errno;
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		errno = saved;
		return -1;
	}
	*fd = p[1];
	return pid;
}

void sentinel_stop(pid_t pid, int fd)
{
	if (pid <= 0)
		return;
	close(fd);
	/* It ends at once when nothing holds the entry; at most the grace when something does. */
	int64_t deadline = now_ns() + (SESSION_STOP_GRACE_S + 2) * GD_NS_PER_S;
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		sleep_ns(GD_NS_PER_S / 100);
	}
}

/* childspawn.c: posix_spawn of a worker or the calibration, fork and exec of an observed program
 * (childspawn.h). */
#include "childspawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"

/* The attributes: pause and resume blocked (for a worker, its stop signals too), every signal
 * a supervisor handles at its default (an ignored SIGPIPE would otherwise survive the exec;
 * SIGXFSZ stays ignored, so that a file size limit fails a write instead of killing the
 * child). */
static int set_signals(posix_spawnattr_t *attr, bool worker, bool program)
{
	static const int defaults[] = { SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGCHLD,
		                        SIGPIPE, SIGUSR1, SIGUSR2, SIGWINCH };
	sigset_t mask, def;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	static const int stops[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	for (size_t i = 0; worker && i < GD_ARRAY_LEN(stops); i++)
		sigaddset(&mask, stops[i]);
	if (program) /* nothing blocked, and a process group of its own */
		sigemptyset(&mask);
	sigemptyset(&def);
	for (size_t i = 0; i < GD_ARRAY_LEN(defaults); i++)
		sigaddset(&def, defaults[i]);
	int rc = posix_spawnattr_setsigmask(attr, &mask);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(attr, &def);
	if (!rc)
		rc = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
		                                        (program ? POSIX_SPAWN_SETPGROUP : 0));
	return rc;
}

static int set_files(posix_spawn_file_actions_t *fa, int out_fd, int err_fd)
{
	int rc = posix_spawn_file_actions_addopen(fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = out_fd < 0
		         ? posix_spawn_file_actions_addopen(fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
		         : posix_spawn_file_actions_adddup2(fa, out_fd, STDOUT_FILENO);
	if (!rc && err_fd >= 0)
		rc = posix_spawn_file_actions_adddup2(fa, err_fd, STDERR_FILENO);
	return rc;
}

pid_t spawn_child(const char *exe, const struct gd_child *c, int out_fd, int err_fd, char *err, size_t errlen)
{
	static struct gd_argv a; /* 64 KiB of strings: off the stack; the supervisor's one thread */
	if (spec_child_argv(&a, exe, c)) {
		snprintf(err, errlen, "%s: the command line does not fit", c->wa ? "worker" : "--calibrate");
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		snprintf(err, errlen, "posix_spawn: %s", strerror(rc));
		return -1;
	}
	rc = posix_spawnattr_init(&attr);
	if (!rc) {
		pid_t pid = -1;
		if (!(rc = set_files(&fa, out_fd, err_fd)) &&
		    !(rc = set_signals(&attr, c->wa != NULL, false)))
			rc = posix_spawn(&pid, exe, &fa, &attr, a.argv, environ);
		posix_spawnattr_destroy(&attr);
		posix_spawn_file_actions_destroy(&fa);
		if (!rc)
			return pid;
	} else {
		posix_spawn_file_actions_destroy(&fa);
	}
	snprintf(err, errlen, "posix_spawn %s: %s", exe, strerror(rc));
	return -1;
}

/* environ with extra's variables in place of those of the same names, in a static array. */
static char **merged_env(char *const *extra)
{
	static char **env;
	static size_t cap;
	size_t n = 0, ne = 0;
	while (environ[n])
		n++;
	while (extra[ne])
		ne++;
	if (n + ne + 1 > cap) {
		cap = n + ne + 1;
		env = xreallocarray(env, cap, sizeof(*env));
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < ne && !replaced; j++) {
			size_t len = strcspn(extra[j], "=") + 1;
			replaced = strncmp(environ[i], extra[j], len) == 0;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < ne; j++)
		env[k++] = extra[j];
	env[k] = NULL;
	return env;
}

/* The child's side of spawn_program, between fork and exec: async-signal-safe calls only. It
 * dies with the supervisor (PR_SET_PDEATHSIG survives the exec), leads a process group of its
 * own, and writes exec's errno to report before it exits. */
static void program_child(char *const *argv, char **env, int out_fd, pid_t parent, int report)
{
	static const int defaults[] = { SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGCHLD,
		                        SIGPIPE, SIGUSR1, SIGUSR2, SIGWINCH };
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127); /* the supervisor is gone already */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	for (size_t i = 0; i < GD_ARRAY_LEN(defaults); i++)
		sigaction(defaults[i], &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int in = open("/dev/null", O_RDONLY);
	int out = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
	if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(out, STDERR_FILENO) < 0) {
		int e = errno;
		(void)!write(report, &e, sizeof(e));
		_exit(127);
	}
	execvpe(argv[0], argv, env);
	int e = errno;
	(void)!write(report, &e, sizeof(e));
	_exit(127);
}

pid_t spawn_program(char *const *argv, char *const *extra, int out_fd, char *err, size_t errlen)
{
	char **env = merged_env(extra);
	int report[2];
	if (pipe2(report, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid(), pid = fork();
	if (pid == 0)
		program_child(argv, env, out_fd, parent, report[1]);
	close(report[1]);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(report[0]);
		return -1;
	}
	setpgid(pid, pid); /* either side may come first; the other's fails harmlessly */
	int e = 0;
	ssize_t n;
	while ((n = read(report[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (n <= 0)
		return pid; /* the exec closed the pipe: it runs */
	waitpid(pid, NULL, 0);
	snprintf(err, errlen, "%s: %s", argv[0], strerror(e));
	return -1;
}

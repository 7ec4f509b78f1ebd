/* spawn.c: posix_spawn of a worker or the calibration (spawn.h). */
#include "gputop/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
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

pid_t spawn_program(char *const *argv, char *const *extra, int out_fd, char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		snprintf(err, errlen, "posix_spawn: %s", strerror(rc));
		return -1;
	}
	pid_t pid = -1;
	if (!(rc = posix_spawnattr_init(&attr))) {
		if (!(rc = set_files(&fa, out_fd, out_fd)) && !(rc = set_signals(&attr, false, true)) &&
		    !(rc = posix_spawnattr_setpgroup(&attr, 0)))
			rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, merged_env(extra));
		posix_spawnattr_destroy(&attr);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (!rc)
		return pid;
	snprintf(err, errlen, "%s: %s", argv[0], strerror(rc));
	return -1;
}

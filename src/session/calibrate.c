/* calibrate.c: spawning the --calibrate measurement and reading its answer (calibrate.h). */
#include "gputop/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"

struct gd_calib {
	pid_t pid;
	int fd; /* read end of the child's standard output, non-blocking */
	char line[128];
	size_t n;
};

/* A number after the word, with strtod's error reporting; NULL when there is none. */
static const char *number(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return end == s || errno || (*end != ' ' && *end != '\0') ? NULL : end;
}

int calib_parse(const char *line, struct gd_ceiling *out)
{
	static const char word[] = "ceiling ";
	double v[3];
	const char *s = line;
	if (strncmp(s, word, sizeof(word) - 1) != 0)
		return -1;
	s += sizeof(word) - 1;
	for (int i = 0; i < 3; i++)
		if (!(s = number(s, &v[i])))
			return -1;
	if (*s != '\0' || !isfinite(v[0]) || v[0] <= 0 || v[1] < 1 || v[1] > GD_QUEUES_MAX ||
	    v[1] != floor(v[1]) || !isfinite(v[2]) || v[2] < 0)
		return -1;
	*out = (struct gd_ceiling){ .rate = v[0], .queues = (int)v[1], .one_queue = v[2] };
	return 0;
}

struct gd_calib *calib_start(const struct gd_opts *o, const char *exe, char *err, size_t errlen)
{
	char dev[32], size[32], launches[32], dtype[32];
	snprintf(dev, sizeof(dev), "--device=%d:%d", o->platform, o->device);
	snprintf(size, sizeof(size), "--size=%u", o->size);
	snprintf(launches, sizeof(launches), "--launches=%u", o->launches);
	snprintf(dtype, sizeof(dtype), "--dtype=%s", o->dtype == GD_DT_F32 ? "f32" : "f64");
	/* The kernel's own options as the workers get them: --kernel, its name, build options and
	 * --arg values, each one argument of the form --NAME=VALUE. */
	char *argv[8 + 3 + GD_KARGS_MAX] = { (char *)exe, "--calibrate-child", dev, size, launches, dtype };
	char *own[3 + GD_KARGS_MAX];
	int n = 6, nown = 0;
	const char *names[] = { "kernel", "kernel-name", "build-options" };
	const char *values[] = { o->kernel, o->kernel_name, o->build_options };
	for (int i = 0; i < 3; i++)
		if (values[i] && asprintf(&own[nown], "--%s=%s", names[i], values[i]) >= 0)
			argv[n++] = own[nown++];
	for (int i = 0; i < o->nkargs; i++)
		if (asprintf(&own[nown], "--arg=%s", o->kargs[i]) >= 0)
			argv[n++] = own[nown++];
	argv[n] = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "--calibrate: pipe: %s", strerror(errno));
		for (int i = 0; i < nown; i++)
			free(own[i]);
		return NULL;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	pid_t pid;
	int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < nown; i++)
		free(own[i]);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		snprintf(err, errlen, "--calibrate: posix_spawn %s: %s", exe, strerror(rc));
		return NULL;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	struct gd_calib *c = xcalloc(1, sizeof(*c));
	c->pid = pid;
	c->fd = fds[0];
	return c;
}

int calib_poll(struct gd_calib *c, struct gd_ceiling *out, char *err, size_t errlen)
{
	for (;;) {
		if (c->n + 1 >= sizeof(c->line)) {
			snprintf(err, errlen, "--calibrate: the measurement's answer is malformed");
			return -1;
		}
		ssize_t r = read(c->fd, c->line + c->n, sizeof(c->line) - 1 - c->n);
		if (r > 0) {
			c->n += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		break; /* end of file: the child is done */
	}
	c->line[c->n] = '\0';
	c->line[strcspn(c->line, "\n")] = '\0';
	if (calib_parse(c->line, out) == 0)
		return 1;
	snprintf(err, errlen, "--calibrate: the measurement failed (its error is above)");
	return -1;
}

int calib_wait(struct gd_calib *c, double timeout_s, struct gd_ceiling *out, char *err, size_t errlen)
{
	int64_t deadline = now_ns() + (int64_t)(timeout_s * 1e9);
	int rc;
	while ((rc = calib_poll(c, out, err, errlen)) == 0) {
		if (now_ns() > deadline) {
			snprintf(err, errlen, "--calibrate: no answer after %.0f s", timeout_s);
			return -1;
		}
		sleep_ns(GD_NS_PER_S / 50);
	}
	return rc > 0 ? 0 : -1;
}

void calib_free(struct gd_calib *c)
{
	if (!c)
		return;
	close(c->fd);
	/* The supervisor's reaping (waitpid(-1)) may have collected it already: then ECHILD, and
	 * the pid, free again, must not be signalled. Until it is reaped, it cannot be reused. */
	pid_t r;
	while ((r = waitpid(c->pid, NULL, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(c);
}

/* calibrate.c: spawning the --calibrate measurement and reading its answer (calibrate.h). */
#include "calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/sig.h"
#include "childspawn.h"

struct gd_calibration {
	pid_t pid; /* -1 once reaped */
	int fd;    /* read end of the child's standard output, non-blocking */
	char line[128];
	size_t n;
};

struct gd_calibration *calibrate_start(const struct gd_kspec *k, struct gd_devref dev, const char *exe,
                                       char *err, size_t errlen)
{
	/* The calibration measures every arrangement itself: of the workload, only the kernel. */
	const struct gd_workload w = { .kernel = *k, .gen_threads = -1 };
	const struct gd_child child = { .work = &w, .dev = dev };
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "--calibrate: pipe: %s", strerror(errno));
		return NULL;
	}
	char why[256];
	pid_t pid = spawn_child(exe, &child, fds[1], -1, why, sizeof(why));
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		snprintf(err, errlen, "--calibrate: %s", why);
		return NULL;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	struct gd_calibration *c = xcalloc(1, sizeof(*c));
	c->pid = pid;
	c->fd = fds[0];
	return c;
}

int calibrate_poll(struct gd_calibration *c, struct gd_ceiling *out, char *err, size_t errlen)
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
	if (calibrate_parse(c->line, out) == 0)
		return 1;
	/* No answer: the child is ending. Only its own message says why it failed; a signal
	 * leaves none, so that is said here. */
	int st = 0;
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	c->pid = -1;
	if (WIFSIGNALED(st))
		snprintf(err, errlen, "--calibrate: the measurement was killed by SIG%s (%s)",
		         sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?",
		         strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st) && WEXITSTATUS(st) == GD_EXIT_FAIL)
		snprintf(err, errlen, "--calibrate: the measurement failed (its error is above)");
	else
		snprintf(err, errlen, "--calibrate: the measurement ended without an answer (status %d)",
		         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return -1;
}

int calibrate_wait(struct gd_calibration *c, double timeout_s, struct gd_ceiling *out, char *err,
                   size_t errlen)
{
	int64_t deadline = now_ns() + (int64_t)(timeout_s * 1e9);
	int rc;
	while ((rc = calibrate_poll(c, out, err, errlen)) == 0) {
		if (gd_quit_signal) { /* the caller ends the run; calibrate_free ends the child */
			snprintf(err, errlen, "--calibrate: interrupted");
			return -1;
		}
		if (now_ns() > deadline) {
			snprintf(err, errlen, "--calibrate: no answer after %.0f s", timeout_s);
			return -1;
		}
		sleep_ns(GD_NS_PER_S / 50);
	}
	return rc > 0 ? 0 : -1;
}

void calibrate_free(struct gd_calibration *c)
{
	if (!c)
		return;
	close(c->fd);
	/* Only this code reaps its child: until then the pid cannot be reused. */
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(c);
}

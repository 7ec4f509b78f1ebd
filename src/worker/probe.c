/* probe.c: finding the devices (probe.h): device_probe's child enumerates them, selects and
 * builds the program on each as the workers will; device_list prints them. */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clx.h"
#include "gputop/common.h"
#include "gputop/sig.h"

#define PROBE_POLL_MS 100 /* how soon a quit signal ends the wait for the probe, at most */

struct probe_msg {
	enum gd_probe_result rc;
	int n;
	struct gd_device dev[GD_DEVICES_MAX];
	char err[8192]; /* a user kernel's build log, line by line */
};

/* Builds the program for d as a worker will and describes its kernel into d->info. */
static enum gd_probe_result probe_build(struct clx_device *d, const struct gd_kspec *k, enum gd_dtype dtype,
                                        char *err, size_t errlen)
{
	cl_int rc;
	cl_context ctx = clCreateContext(NULL, 1, &d->id, NULL, NULL, &rc);
	if (!ctx) {
		snprintf(err, errlen, "clCreateContext on %s: %s", d->info.ref, clx_err(rc));
		return GD_PROBE_KERNEL;
	}
	struct clx_program p;
	int b = clx_program_build(ctx, d, k, dtype, &p, err, errlen);
	if (b == 0) {
		str_copy(d->info.kernel, sizeof(d->info.kernel), p.name);
		kargs_describe(p.desc, p.arg, p.nargs, k->size, d->info.kargs, sizeof(d->info.kargs));
		if (k->source && !err[0]) /* a user kernel's warnings, once: the first device's */
			clx_program_log(&p, d->id, k->source, err, errlen);
	}
	clx_program_free(&p);
	clReleaseContext(ctx);
	return b == 0 ? GD_PROBE_OK : b == CLX_BAD_KERNEL ? GD_PROBE_BADKERNEL : GD_PROBE_KERNEL;
}

/* Every device, in P:D order: the probe's view before it selects. */
struct every {
	int n;
	struct clx_device dev[256];
};

static bool keep_one(const struct clx_device *d, void *ctx)
{
	struct every *e = ctx;
	e->dev[e->n++] = *d;
	return e->n == (int)GD_ARRAY_LEN(e->dev);
}

/* The child's half of device_probe: select, build on each, answer through fd, exit. It dies
 * with the supervisor (a build can take seconds and a gigabyte), which may be gone already. */
static void probe_child(const struct gd_devspec *sel, const struct gd_kspec *k, int fd, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	static struct probe_msg m;
	static struct every e;
	static struct gd_device all[GD_ARRAY_LEN(e.dev)];
	memset(&m, 0, sizeof(m));
	if (clx_each_device(keep_one, &e, m.err, sizeof(m.err)) == 0) {
		m.rc = GD_PROBE_RUNTIME;
	} else {
		for (int i = 0; i < e.n; i++)
			all[i] = e.dev[i].info;
		if (device_select(all, e.n, sel, m.dev, &m.n, m.err, sizeof(m.err)))
			m.rc = GD_PROBE_NODEVICE;
	}
	bool fp64 = true;
	for (int i = 0; i < m.n; i++)
		fp64 = fp64 && m.dev[i].fp64;
	/* auto: f64 where every device has it, else f32. */
	enum gd_dtype dtype = k->dtype != GD_DT_AUTO ? k->dtype : fp64 ? GD_DT_F64 : GD_DT_F32;
	bool f32 = gd_dtype_info(dtype)->bytes == 4;
	if (m.rc == GD_PROBE_OK) /* a note on a platform without devices is no failure */
		m.err[0] = '\0';
	/* The compiler's own diagnostics would add lines to ours: the build log says it all. */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	for (int i = 0; m.rc == GD_PROBE_OK && i < m.n; i++) {
		struct clx_device *d = NULL;
		for (int j = 0; j < e.n && !d; j++)
			if (e.dev[j].info.platform == m.dev[i].platform &&
			    e.dev[j].info.index == m.dev[i].index)
				d = &e.dev[j];
		/* f64 on a device without it is the caller's bad input to report, not a build. A
		 * selected device is always one of those enumerated. */
		if (d && (k->source || f32 || d->info.fp64)) {
			m.rc = probe_build(d, k, dtype, m.err, sizeof(m.err));
			m.dev[i] = d->info;
		}
	}
	size_t off = 0;
	while (off < sizeof(m)) {
		ssize_t w = write(fd, (const char *)&m + off, sizeof(m) - off);
		if (w <= 0)
			_exit(1);
		off += (size_t)w;
	}
	_exit(0);
}

/* Why the probe could not start: call's errno, a descriptor or memory limit named as such. */
static void start_failed(const char *call, char *err, size_t errlen)
{
	int e = errno;
	char cause[96];
	const char *why = clx_limit_cause(e, cause, sizeof(cause));
	snprintf(err, errlen, "cannot start the device probe: %s: %s", call, why ? why : strerror(e));
}

/* Forks the probe's child, which answers on the pipe whose reading end goes to *rfd. Its pid,
 * or -1 with err set. */
static pid_t probe_start(const struct gd_devspec *sel, const struct gd_kspec *k, int *rfd, char *err,
                         size_t errlen)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		start_failed("pipe", err, errlen);
		return -1;
	}
	/* A fork is safe here: no OpenCL runtime and no curses exist in this process yet. */
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		start_failed("fork", err, errlen);
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]); /* a descriptor more for the runtime under a low ulimit -n */
		probe_child(sel, k, fds[1], parent);
	}
	close(fds[1]);
	*rfd = fds[0];
	return pid;
}

enum gd_probe_result device_probe(const struct gd_devspec *sel, const struct gd_kspec *k, struct gd_device *d,
                                  int *n, char *err, size_t errlen)
{
	*n = 0;
	int rfd = -1;
	pid_t pid = probe_start(sel, k, &rfd, err, errlen);
	if (pid < 0)
		return GD_PROBE_RUNTIME;
	static struct probe_msg m;
	memset(&m, 0, sizeof(m));
	size_t got = 0;
	while (got < sizeof(m) && !gd_quit_signal) {
		struct pollfd p = { .fd = rfd, .events = POLLIN };
		if (poll(&p, 1, PROBE_POLL_MS) <= 0)
			continue; /* nothing yet, or a signal: look at the flag again */
		ssize_t r = read(rfd, (char *)&m + got, sizeof(m) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(rfd);
	if (got != sizeof(m) && gd_quit_signal)
		kill(pid, SIGKILL); /* asked to quit: the probe's answer is not wanted any more */
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(m) && gd_quit_signal) {
		snprintf(err, errlen, "interrupted");
		return GD_PROBE_INTERRUPTED;
	}
	if (got != sizeof(m)) {
		if (WIFSIGNALED(status))
			snprintf(
			    err, errlen,
			    "the OpenCL runtime failed: the device probe (a child process) was killed by "
			    "signal %d (%s)",
			    WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(err, errlen,
			         "the OpenCL runtime failed: the device probe (a child process) exited with "
			         "status %d without an answer",
			         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return GD_PROBE_RUNTIME;
	}
	m.err[sizeof(m.err) - 1] = '\0';
	snprintf(err, errlen, "%s", m.err); /* on success: a user kernel's warnings, or "" */
	*n = m.n < 0 || m.n > GD_DEVICES_MAX ? 0 : m.n;
	/* The boundary for the runtime's texts: every output shows them as made safe here. */
	for (int i = 0; i < *n; i++) {
		struct gd_device *dv = &m.dev[i];
		char *texts[] = {
			dv->name, dv->platform_name, dv->version, dv->driver, dv->kernel, dv->kargs
		};
		size_t lens[] = { sizeof(dv->name),   sizeof(dv->platform_name), sizeof(dv->version),
			          sizeof(dv->driver), sizeof(dv->kernel),        sizeof(dv->kargs) };
		for (size_t j = 0; j < GD_ARRAY_LEN(texts); j++) {
			texts[j][lens[j] - 1] = '\0';
			text_clean(texts[j]);
		}
	}
	memcpy(d, m.dev, (size_t)*n * sizeof(*d));
	return m.rc;
}

static bool print_one(const struct clx_device *d, void *ctx)
{
	struct gd_device i = d->info; /* the driver's text, cleaned as every text from outside */
	text_clean(i.name);
	text_clean(i.platform_name);
	text_clean(i.version);
	fprintf(ctx, "%s  %-3s  %s  (%s, %s%s)\n", i.ref, i.gpu ? "GPU" : "CPU", i.name, i.platform_name,
	        i.version, i.fp64 ? ", fp64" : "");
	return false;
}

int device_list(FILE *out, char *err, size_t errlen)
{
	return clx_each_device(print_one, out, err, errlen);
}

/* main.c: parse the command line and hand over to one role: dashboard, headless, worker or
 * list-devices. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/dashboard.h"
#include "gputop/device.h"
#include "gputop/headless.h"
#include "gputop/opts.h"
#include "gputop/outputs.h"
#include "gputop/prom.h"
#include "gputop/ring.h"
#include "gputop/sig.h"
#include "gputop/sink.h"
#include "gputop/trace.h"
#include "gputop/worker.h"

static int usage_error(const char *msg)
{
	fprintf(stderr, GD_NAME ": %s\n", msg);
	return GD_EXIT_USAGE;
}

/* Resolves the devices and the element type and builds the program on each, before anything
 * starts (in a child process: the supervisor itself never loads the OpenCL runtime). On
 * success o->devices is the list of the run's devices, in dev[0..*n). Returns 0, or the exit
 * status after saying why on stderr: 2 for a device or type that does not exist, a --kernel
 * file that cannot be read, a kernel name or arguments that do not fit; 1 for a runtime or a
 * program that does not work (every worker would fail the same way). */
static int resolve_devices(struct gd_opts *o, struct gd_device *dev, int *n)
{
	static char err[8192], kernel_path[PATH_MAX];
	if (o->kernel && (access(o->kernel, R_OK) != 0 || !realpath(o->kernel, kernel_path))) {
		snprintf(err, sizeof(err), "--kernel: %s: %s", o->kernel, strerror(errno));
		return usage_error(err);
	}
	int elem = o->dtype == GD_DT_F32 ? 4 : o->dtype == GD_DT_F64 ? 8 : 0;
	switch (device_probe(o, elem, dev, n, err, sizeof(err))) {
	case GD_PROBE_OK:
		break;
	case GD_PROBE_NODEVICE:
	case GD_PROBE_BADKERNEL:
		return usage_error(err);
	case GD_PROBE_RUNTIME:
	case GD_PROBE_KERNEL:
		fprintf(stderr, GD_NAME ": %s\n", err);
		return GD_EXIT_FAIL;
	}
	bool fp64 = true;
	o->devices = (struct gd_devspec){ .sel = GD_DEVSEL_LIST, .n = *n };
	for (int i = 0; i < *n; i++) {
		o->devices.list[i] = (struct gd_devref){ .platform = dev[i].platform, .index = dev[i].index };
		fp64 = fp64 && dev[i].fp64;
	}
	o->platform = dev[0].platform;
	o->device = dev[0].index;
	if (o->kernel) {
		o->kernel_name = dev[0].kernel; /* the one kernel of the file, when not named */
		o->kernel = kernel_path;        /* for workers, whatever their directory */
	}
	if (o->dtype == GD_DT_AUTO)
		o->dtype = fp64 ? GD_DT_F64 : GD_DT_F32;
	for (int i = 0; i < *n && o->dtype == GD_DT_F64 && !o->kernel; i++)
		if (!dev[i].fp64) {
			snprintf(err, sizeof(err), "--dtype: device %d:%d (%s) has no fp64: use f32",
			         dev[i].platform, dev[i].index, dev[i].name);
			return usage_error(err);
		}
	return GD_EXIT_OK;
}

/* The executable of /proc/PID/exe (link), without the " (deleted)" of a binary replaced since
 * it started; "" when unknown. */
static void exe_of(const char *link, char *buf, size_t n)
{
	ssize_t len = readlink(link, buf, n - 1);
	buf[len > 0 ? len : 0] = '\0';
	static const char deleted[] = " (deleted)";
	size_t l = strlen(buf), d = sizeof(deleted) - 1;
	if (l > d && strcmp(buf + l - d, deleted) == 0)
		buf[l - d] = '\0';
}

/* The internal roles are started only by this program: their parent runs the same executable,
 * and a worker's arguments name that parent and its own segment as the supervisor names it
 * (this uid, that supervisor, that id and generation). Checked before anything is created. */
static int started_by_us(const struct gd_opts *o, char *err, size_t errlen)
{
	pid_t parent = getppid();
	char self[4096], theirs[4096], link[64];
	exe_of("/proc/self/exe", self, sizeof(self));
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)parent);
	exe_of(link, theirs, sizeof(theirs));
	bool ours = self[0] && strcmp(self, theirs) == 0;
	if (ours && o->role == GD_ROLE_WORKER) {
		char name[sizeof(o->worker.shm)];
		seg_name(name, sizeof(name), o->worker.supervisor, o->worker.id, o->worker.gen);
		ours = o->worker.supervisor == parent && strcmp(name, o->worker.shm) == 0;
	}
	if (!ours)
		snprintf(err, errlen, "%s: internal: only " GD_NAME " itself starts this role",
		         o->role == GD_ROLE_WORKER ? "--worker" : "--calibrate-child");
	return ours ? 0 : -1;
}

/* The run's outputs, in the order their messages name them: what writes to standard output
 * by itself (the dashboard, a sweep's table, a log without --output), the log, the trace. */
static int plan_outputs(const struct gd_opts *o, struct gd_output *out, int *log, int *trace)
{
	int n = 0;
	*log = *trace = -1;
	if (o->role == GD_ROLE_DASHBOARD)
		out[n++] = (struct gd_output){ .what = "the dashboard's terminal", .path = "-" };
	else if (o->nsweep)
		out[n++] = (struct gd_output){ .what = "the sweep table on standard output", .path = "-" };
	/* A sweep logs only with -o, the dashboard too; headless logs to standard output by default. */
	if (o->output || (o->role == GD_ROLE_HEADLESS && !o->nsweep)) {
		*log = n;
		out[n++] = (struct gd_output){ .what = o->output ? "--output" : "the log on standard output",
			                       .path = o->output ? o->output : "-" };
	}
	if (o->trace) {
		*trace = n;
		out[n++] = (struct gd_output){ .what = "--trace", .path = o->trace };
	}
	return n;
}

int main(int argc, char **argv)
{
	outputs_reserve_std(); /* no file opened later takes the place of 0, 1 or 2 */
	struct gd_opts o;
	char err[512];
	if (opts_parse(argc, argv, &o, err, sizeof(err)))
		return usage_error(err);

	switch (o.role) {
	case GD_ROLE_HELP:
		fputs(opts_usage(), stdout);
		return GD_EXIT_OK;
	case GD_ROLE_VERSION:
		puts(GD_NAME " " GD_VERSION);
		return GD_EXIT_OK;
	case GD_ROLE_WORKER:
		if (started_by_us(&o, err, sizeof(err)))
			return usage_error(err);
		return worker_main(&o);
	case GD_ROLE_CALIBRATE:
		if (started_by_us(&o, err, sizeof(err)))
			return usage_error(err);
		return ceiling_main(&o);
	case GD_ROLE_LIST:
		if (device_list(stdout) == 0) {
			fprintf(stderr, GD_NAME ": no OpenCL device found\n");
			return GD_EXIT_FAIL;
		}
		return GD_EXIT_OK;
	case GD_ROLE_NONE: /* opts_parse settles every command line on a role */
	case GD_ROLE_DASHBOARD:
	case GD_ROLE_HEADLESS:
		break;
	}

	if (o.role == GD_ROLE_DASHBOARD && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return usage_error(
		    "the dashboard needs a terminal on standard input and output (use --headless)");
	if (o.role == GD_ROLE_DASHBOARD && dashboard_check_terminal(err, sizeof(err)))
		return usage_error(err);
	struct gd_device dev[GD_DEVICES_MAX];
	int ndev = 0, status = resolve_devices(&o, dev, &ndev);
	if (status != GD_EXIT_OK)
		return status;
	/* The Prometheus exporter's checks (its file's directory, its address; a port in use)
	 * refuse the command line like any other: before the outputs and every worker. */
	struct gd_prom *prom = prom_open(&o, err, sizeof(err));
	if (!prom && err[0])
		return usage_error(err);
	/* The outputs last: nothing after them refuses the command line, and a refused set
	 * leaves no file behind and existing files untouched. */
	struct gd_output out[GD_OUTPUTS_MAX];
	int ilog, itrace, nout = plan_outputs(&o, out, &ilog, &itrace);
	if (outputs_open(out, nout, err, sizeof(err))) {
		prom_close(prom, NULL, 0);
		return usage_error(err);
	}
	struct gd_trace *trace =
	    itrace < 0 ? NULL : trace_open(out[itrace].fd, out[itrace].own, o.trace, o.trace_limit);
	struct gd_sink *sink = ilog < 0 ? NULL : sink_new(out[ilog].fd, out[ilog].own, o.format);
	sink_run(sink, &o, dev, ndev); /* every log opens with the run's facts */
	sink_set_kernel(sink, opts_kernel_name(&o), opts_rate_unit(&o));
	if (o.kernel && o.role == GD_ROLE_HEADLESS)
		fprintf(stderr, GD_NAME ": kernel %s of %s, rates in %s; arguments: %s\n", o.kernel_name,
		        o.kernel, opts_rate_unit(&o), dev[0].kargs);
	sig_install_supervisor();
	if (o.role == GD_ROLE_DASHBOARD)
		return dashboard_run(&o, dev, ndev, sink, trace, prom);
	return o.nsweep ? headless_sweep(&o, dev, ndev, sink, trace, prom)
	                : headless_run(&o, dev, ndev, sink, trace, prom);
}

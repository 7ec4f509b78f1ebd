/* main.c: parse the command line and hand over to one role: dashboard, headless, worker or
 * list-devices. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/dashboard.h"
#include "gputop/device.h"
#include "gputop/headless.h"
#include "gputop/opts.h"
#include "gputop/sig.h"
#include "gputop/sink.h"
#include "gputop/trace.h"
#include "gputop/worker.h"

static int usage_error(const char *msg)
{
	fprintf(stderr, GD_NAME ": %s\n", msg);
	return GD_EXIT_USAGE;
}

/* Resolves the device and the element type and builds the kernel once, before anything starts
 * (in a child process: the supervisor itself never loads the OpenCL runtime). Returns 0, or
 * the exit status after saying why on stderr: 2 for a device or type that does not exist, 1
 * for a runtime or a kernel that does not work (every worker would fail the same way). */
static int resolve_device(struct gd_opts *o, struct gd_device *dev)
{
	char err[1024];
	int elem = o->dtype == GD_DT_F32 ? 4 : o->dtype == GD_DT_F64 ? 8 : 0;
	switch (device_probe(o->platform, o->device, elem, dev, err, sizeof(err))) {
	case GD_PROBE_OK:
		break;
	case GD_PROBE_NODEVICE:
		return usage_error(err);
	case GD_PROBE_RUNTIME:
	case GD_PROBE_KERNEL:
		fprintf(stderr, GD_NAME ": %s\n", err);
		return GD_EXIT_FAIL;
	}
	o->platform = dev->platform;
	o->device = dev->index;
	if (o->dtype == GD_DT_AUTO)
		o->dtype = dev->fp64 ? GD_DT_F64 : GD_DT_F32;
	if (o->dtype == GD_DT_F64 && !dev->fp64) {
		snprintf(err, sizeof(err), "--dtype: device %d:%d (%s) has no fp64: use f32", dev->platform,
		         dev->index, dev->name);
		return usage_error(err);
	}
	return GD_EXIT_OK;
}

int main(int argc, char **argv)
{
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
		return worker_main(&o);
	case GD_ROLE_CEILING:
		return ceiling_main(&o);
	case GD_ROLE_LIST:
		if (device_list(stdout) == 0) {
			fprintf(stderr, GD_NAME ": no OpenCL device found\n");
			return GD_EXIT_FAIL;
		}
		return GD_EXIT_OK;
	case GD_ROLE_DASHBOARD:
	case GD_ROLE_HEADLESS:
		break;
	}

	if (o.role == GD_ROLE_DASHBOARD && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return usage_error(
		    "the dashboard needs a terminal on standard input and output (use --headless)");
	struct gd_device dev;
	int status = resolve_device(&o, &dev);
	if (status != GD_EXIT_OK)
		return status;
	/* Every file is opened before any worker starts: a bad path starts nothing. */
	struct gd_trace *trace = NULL;
	bool trace_existed = o.trace && access(o.trace, F_OK) == 0;
	if (o.trace && !(trace = trace_open(o.trace, o.trace_limit, err, sizeof(err))))
		return usage_error(err);
	struct gd_sink *sink = NULL;
	if (o.role == GD_ROLE_HEADLESS) {
		/* A sweep's log holds only its rows, and only with --output. */
		const char *path = o.nsweep && !o.output ? "/dev/null" : o.output;
		if (!(sink = sink_open(path, o.format, err, sizeof(err)))) {
			char why[512]; /* the input error is the one to report */
			trace_close(trace, why, sizeof(why));
			if (o.trace && !trace_existed)
				unlink(o.trace); /* bad input leaves no file behind */
			return usage_error(err);
		}
	}
	sig_install_supervisor();
	if (o.role == GD_ROLE_DASHBOARD)
		return dashboard_run(&o, &dev, trace);
	return o.nsweep ? headless_sweep(&o, &dev, sink, trace) : headless_run(&o, &dev, sink, trace);
}

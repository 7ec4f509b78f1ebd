/* main.c: parse the command line, resolve it once into the settings each part needs, open
 * the outputs, and hand over to one role: dashboard, headless, worker, calibration or
 * list-devices. Nothing below this file sees the options themselves. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"
#include "dashboard/dashboard.h"
#include "gputop/device.h"
#include "headless/headless.h"
#include "gputop/opts.h"
#include "gputop/outputs.h"
#include "worker/probe.h"
#include "gputop/proc.h"
#include "output/prom.h"
#include "gputop/sig.h"
#include "output/sink.h"
#include "gputop/spec.h"
#include "output/report.h"
#include "output/trace.h"
#include "gputop/wire.h"
#include "worker/worker.h"

/* A text of several lines (a compiler's log) on standard error, each line cleaned on its own
 * (gd_clean_text), so that the lines stay lines and nothing in them acts on the terminal. */
static void say_lines(const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		char line[1024];
		gd_clean_text(line, sizeof(line), text, len);
		fprintf(stderr, "%s\n", line);
		text += len + (text[len] == '\n');
	}
}

static int usage_error(const char *msg)
{
	gd_say("%s", msg);
	return GD_EXIT_USAGE;
}

/* ---- the settings of each part, from the options ---- */

/* The generation threads of each pipelined worker: a fair share of the cores among the most
 * workers the run will have at once (--procs, or the largest sweep step), unless given. */
static int gen_threads_of(const struct gd_opts *o)
{
	struct gd_opts most = *o;
	for (int i = 0; i < o->nsweep; i++)
		most.procs = o->sweep[i].procs > most.procs ? o->sweep[i].procs : most.procs;
	return opts_gen_threads(&most, (int)sysconf(_SC_NPROCESSORS_ONLN));
}

static void session_config_of(const struct gd_opts *o, const struct gd_device *dev, int ndev,
                              struct gd_session_config *c)
{
	*c = (struct gd_session_config){ .work = opts_workload(o, o->gen_threads),
		                         .ndevs = ndev,
		                         .procs = o->procs,
		                         .max_procs = o->max_procs,
		                         .interval_s = o->interval,
		                         .duration_s = o->duration,
		                         .calibrate = o->calibrate };
	memcpy(c->devs, dev, (size_t)ndev * sizeof(*dev));
}

static struct gd_sweep_config sweep_config_of(const struct gd_opts *o)
{
	struct gd_sweep_config sw = { .nsteps = o->nsweep, .repeat = o->repeat, .step_s = opts_duration(o) };
	memcpy(sw.steps, o->sweep, sizeof(sw.steps));
	return sw;
}

/* --kernel FILE: a regular file we can read, checked without ever waiting on it (a FIFO
 * opened for reading blocks until a writer comes: O_NONBLOCK, then its type). 0, or -1 with
 * err filled. */
static int kernel_file_check(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "--kernel: %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen, "--kernel: %s: not a regular file (%s)", path,
	         S_ISDIR(st.st_mode)    ? "a directory"
	         : S_ISFIFO(st.st_mode) ? "a FIFO"
	         : S_ISSOCK(st.st_mode) ? "a socket"
	                                : "a device");
	return -1;
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
	if (o->kernel && kernel_file_check(o->kernel, err, sizeof(err)))
		return usage_error(err);
	if (o->kernel && !realpath(o->kernel, kernel_path)) {
		snprintf(err, sizeof(err), "--kernel: %s: %s", o->kernel, strerror(errno));
		return usage_error(err);
	}
	const struct gd_kspec k = opts_kspec(o);
	switch (device_probe(&o->devices, &k, dev, n, err, sizeof(err))) {
	case GD_PROBE_OK:
		if (err[0] && o->kernel && o->role == GD_ROLE_HEADLESS) { /* the dashboard would hide it */
			gd_say("--kernel %s builds with warnings:", o->kernel);
			say_lines(err);
		}
		break;
	case GD_PROBE_INTERRUPTED:
		return GD_EXIT_OK; /* main sees the quit signal */
	case GD_PROBE_NODEVICE:
	case GD_PROBE_BADKERNEL:
		return usage_error(err);
	case GD_PROBE_RUNTIME:
	case GD_PROBE_KERNEL:
		gd_say("%s", err);
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

/* Whether a child's command line holds the kernel's options (--kernel, --build-options,
 * --arg): checked with the longest worker arguments before anything starts, so that no worker
 * fails later for it. 0, or -1 with err filled. */
static int child_argv_fits(const struct gd_opts *o, char *err, size_t errlen)
{
	static struct gd_argv a;
	const struct gd_workload w = opts_workload(o, o->gen_threads);
	struct gd_worker_args wa = { .gen = UINT64_MAX, .id = UINT_MAX, .supervisor = INT_MAX };
	memset(wa.shm, 'x', sizeof(wa.shm) - 1);
	const struct gd_child c = { .work = &w, .dev = { .platform = INT_MAX, .index = INT_MAX }, .wa = &wa };
	const char *exe = proc_self_exe();
	if (spec_child_argv(&a, exe ? exe : "/proc/self/exe", &c) == 0)
		return 0;
	snprintf(err, errlen,
	         "--kernel, --kernel-name, --build-options and --arg together are too long for a "
	         "worker's command line (%zu bytes at most)",
	         sizeof(a.buf));
	return -1;
}

/* The run's files, in the order their messages name them: what writes to standard output by
 * itself (the dashboard, a sweep's table, a log without --output), the log, the trace, the
 * report and the Prometheus file; those two are only checked (each is replaced by a rename). */
static int plan_files(const struct gd_opts *o, struct gd_output *out, int *log, int *trace, int *report)
{
	int n = 0;
	*log = *trace = *report = -1;
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
	if (o->report) {
		*report = n;
		/* Replaced by a rename when complete, like the Prometheus file; "-" is written as it is. */
		out[n++] = (struct gd_output){ .what = "--report",
			                       .path = o->report,
			                       .replaced = strcmp(o->report, "-") != 0 };
	}
	if (o->prom_file)
		out[n++] =
		    (struct gd_output){ .what = "--prom-file", .path = o->prom_file, .replaced = true };
	return n;
}

/* The run's outputs into l: the trace, the Prometheus exporter and the log, in the order
 * they get each frame. Every check that can refuse the command line is made here, the files'
 * last: a refused set leaves no file behind and existing files untouched. Returns 0, or -1
 * with err filled and nothing left open. */
static int open_outputs(const struct gd_opts *o, const struct gd_device *dev, int ndev, struct gd_outputs *l,
                        char *err, size_t errlen)
{
	const struct gd_prom_config pc = {
		.file = o->prom_file, .listen = o->listen, .ndevs = ndev, .devs = dev
	};
	struct gd_prom *prom = prom_open(&pc, err, errlen);
	if (!prom && err[0])
		return -1;
	struct gd_output out[GD_OUTPUTS_MAX];
	int ilog, itrace, ireport, nout = plan_files(o, out, &ilog, &itrace, &ireport);
	if (outputs_open(out, nout, err, errlen)) {
		prom_close(prom, NULL, 0);
		return -1;
	}
	prom_announce(prom); /* only now: nothing after this refuses the run */
	if (itrace >= 0)
		outputs_add(l, &trace_output,
		            trace_open(out[itrace].fd, out[itrace].own, o->trace, o->trace_limit));
	outputs_add(l, &prom_output, prom);
	struct gd_text options = { 0 };
	opts_json(o, &options);
	const struct gd_kspec k = opts_kspec(o);
	if (ireport >= 0)
		outputs_add(l, &report_output,
		            report_open(out[ireport].fd, out[ireport].own, o->report, dev, ndev, options.p,
		                        kspec_rate_unit(&k)));
	if (ilog >= 0) {
		struct gd_sink *sink = sink_new(out[ilog].fd, out[ilog].own, o->format);
		sink_set_columns(sink, &o->fields, !o->no_header);
		/* A headless log's reader that has what it wanted (`| head`) ends the run; the
		 * dashboard's user decides when the dashboard ends. */
		sink_set_reader_ends_run(sink, o->role != GD_ROLE_DASHBOARD);
		sink_run(sink, dev, ndev, options.p,
		         o->nsweep > 0); /* every log opens with the run's facts */
		sink_set_kernel(sink, kspec_name(&k), kspec_rate_unit(&k));
		if (o->rate_items > 0) /* --rate-unit: the log's rates in the program's own unit */
			sink_set_rate_unit(sink, o->rate_unit, o->rate_items);
		outputs_add(l, &sink_output, sink);
	}
	free(options.p);
	return 0;
}

/* ---- observing a program (-- COMMAND) ---- */

/* libgputop-observe.so: GPUTOP_DECODE_OBSERVE_LIB, else next to the executable (the build tree),
 * else where make install puts it (BINDIR/../lib/gputop-decode). An absolute path in buf, or
 * -1 with err filled. */
static int observe_lib(char *buf, size_t n, char *err, size_t errlen)
{
	static const char *const rel[] = { "/libgputop-observe.so",
		                           "/../lib/" GD_NAME "/libgputop-observe.so" };
	const char *env = getenv("GPUTOP_DECODE_OBSERVE_LIB");
	char exe[PATH_MAX], path[PATH_MAX + 64];
	exe_of("/proc/self/exe", exe, sizeof(exe));
	const char *dir = dirname(exe);
	for (int i = env && *env ? -1 : 0; i < (int)GD_ARRAY_LEN(rel); i++) {
		if (i < 0)
			str_copy(path, sizeof(path), env);
		else
			snprintf(path, sizeof(path), "%s%s", dir, rel[i]);
		if (access(path, R_OK) == 0 && realpath(path, buf) && strlen(buf) < n)
			return 0;
		if (i < 0)
			break; /* an explicit library is the only one looked at */
	}
	snprintf(err, errlen, "libgputop-observe.so not found %s",
	         env && *env ? "at GPUTOP_DECODE_OBSERVE_LIB"
	                     : "next to the executable or in ../lib/" GD_NAME);
	return -1;
}

/* Whether the command can be started: a path that is executable, or a name found in PATH. */
static bool command_exists(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	const char *path = getenv("PATH");
	char dir[PATH_MAX], full[2 * PATH_MAX];
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)len, p);
		snprintf(full, sizeof(full), "%s/%s", len ? dir : ".", cmd);
		if (access(full, X_OK) == 0)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

/* The dashboard keeps the programs' output in a file of its own, so the screen stays whole. */
static int program_log(char *path, size_t n)
{
	snprintf(path, n, "/tmp/" GD_NAME "-programs-XXXXXX.log");
	return mkostemps(path, 4, O_CLOEXEC);
}

/* The dashboard's settings: its config file's (unless --no-config), the interval of the file
 * taken where the command line gives none. An interval given on the command line is this run's
 * only: the file keeps its own unless [ or ] change it. A faulty file is not used (nor written
 * at the end), and the dashboard says why. */
static void dashboard_config_of(struct gd_opts *o, struct gd_dashboard_config *d)
{
	static char path[4096], notice[4096 + 256];
	const struct gd_optdef *iv = opts_find("interval");
	*d = (struct gd_dashboard_config){ .interval_min = iv->min, .interval_max = iv->max };
	dashboard_settings_default(&d->settings);
	if (!o->no_config)
		dashboard_config_path(path, sizeof(path));
	if (!o->no_config && path[0]) {
		d->config = path;
		int rc =
		    dashboard_settings_read(path, iv->min, iv->max, &d->settings, notice, sizeof(notice));
		d->existed = rc > 0;
		d->notice = rc < 0 ? notice : NULL;
	}
	if (opts_given(o, "interval"))
		return;
	if (d->settings.interval > 0)
		o->interval = d->settings.interval;
	else
		d->settings.interval = o->interval;
}

/* The dashboard or the headless role, from the resolved options and the run's devices. */
static int run_role(const struct gd_opts *o, const struct gd_dashboard_config *d, const struct gd_device *dev,
                    int ndev, struct gd_outputs *outs)
{
	static struct gd_session_config c; /* sixteen devices' facts: off the stack */
	static char lib[PATH_MAX], logpath[64];
	session_config_of(o, dev, ndev, &c);
	c.command = o->command;
	c.via = o->via;
	c.observe_lib = lib;
	c.program_out = STDERR_FILENO;
	if (o->command) {
		char err[PATH_MAX + 128];
		if (observe_lib(lib, sizeof(lib), err, sizeof(err))) {
			gd_say("%s", err);
			return GD_EXIT_FAIL;
		}
		gd_say("observing %s through %s (%s)", o->command[0],
		       o->via == GD_VIA_LAYER     ? "the OpenCL loader layer"
		       : o->via == GD_VIA_PRELOAD ? "LD_PRELOAD"
		                                  : "the OpenCL loader layer and LD_PRELOAD",
		       lib);
	}
	if (o->role == GD_ROLE_DASHBOARD) {
		struct gd_dashboard_config dc = *d;
		if (o->command && (c.program_out = program_log(logpath, sizeof(logpath))) >= 0)
			dc.program_log = logpath;
		else
			c.program_out = STDERR_FILENO;
		int rc = dashboard_run(&c, &dc, outs);
		if (c.program_out != STDERR_FILENO) {
			close(c.program_out);
			gd_say("the programs' output is in %s", logpath);
		}
		return rc;
	}
	if (!o->nsweep)
		return headless_run(&c, outs);
	const struct gd_sweep_config sw = sweep_config_of(o);
	return headless_sweep(&c, &sw, outs);
}

/* --help-fields, or --fields help (opts_parse makes it the help role). */
static bool fields_help_asked(const struct gd_opts *o)
{
	return opts_given(o, "help-fields") || (o->fields_text && strcmp(o->fields_text, "help") == 0);
}

/* The fields --fields picks from, with their units: the sweep rows' with --sweep. */
static int fields_help(const struct gd_opts *o)
{
	struct gd_text t = { 0 };
	const struct gd_kspec k = opts_kspec(o);
	sink_fields_help(&t, o->nsweep > 0, kspec_rate_unit(&k));
	fputs(t.p, stdout);
	free(t.p);
	return GD_EXIT_OK;
}

/* The roles that start nothing of their own: help, version, the listing, and the children the
 * supervisor starts. Returns the exit status, or -1 for the dashboard and headless roles. */
static int run_simple_role(const struct gd_opts *o)
{
	char err[512];
	const struct gd_devref dev = { .platform = o->platform, .index = o->device };
	switch (o->role) {
	case GD_ROLE_HELP:
		if (fields_help_asked(o))
			return fields_help(o);
		fputs(opts_usage(), stdout);
		return GD_EXIT_OK;
	case GD_ROLE_VERSION:
		puts(GD_NAME " " GD_VERSION);
		return GD_EXIT_OK;
	case GD_ROLE_WORKER: {
		if (started_by_us(o, err, sizeof(err)))
			return usage_error(err);
		const struct gd_workload w = opts_workload(o, o->gen_threads);
		return worker_main(&w, dev, &o->worker);
	}
	case GD_ROLE_CALIBRATE: {
		pid_t parent = getppid();
		if (started_by_us(o, err, sizeof(err)))
			return usage_error(err);
		const struct gd_kspec k = opts_kspec(o);
		return calibrate_child_main(&k, dev, parent);
	}
	case GD_ROLE_LIST: {
		char why[1024] = "";
		if (device_list(stdout, why, sizeof(why)) == 0) {
			gd_say("no OpenCL device found: %s", why);
			return GD_EXIT_FAIL;
		}
		return GD_EXIT_OK;
	}
	case GD_ROLE_NONE: /* opts_parse settles every command line on a role */
	case GD_ROLE_DASHBOARD:
	case GD_ROLE_HEADLESS:
		break;
	}
	return -1;
}

int main(int argc, char **argv)
{
	outputs_reserve_std(); /* no file opened later takes the place of 0, 1 or 2 */
	static struct gd_opts o;
	char err[512];
	if (opts_parse(argc, argv, &o, err, sizeof(err)))
		return usage_error(err);
	if (o.command && !command_exists(o.command[0])) {
		snprintf(err, sizeof(err), "%.200s: command not found", o.command[0]);
		return usage_error(err);
	}
	int status = run_simple_role(&o);
	if (status >= 0)
		return status;
	/* From here a quit signal only sets a flag: a slow device probe, a calibration and the
	 * run itself end on it, with their children, and nothing half-starts. */
	sig_install_supervisor();
	if (o.role == GD_ROLE_DASHBOARD && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return usage_error(
		    "the dashboard needs a terminal on standard input and output (use --headless)");
	if (o.role == GD_ROLE_DASHBOARD && dashboard_check_terminal(err, sizeof(err)))
		return usage_error(err);
	/* Headless runs read no config file: a log is what its command line says. */
	static struct gd_dashboard_config dash;
	if (o.role == GD_ROLE_DASHBOARD)
		dashboard_config_of(&o, &dash);
	static struct gd_device dev[GD_DEVICES_MAX];
	int ndev = 0;
	if ((status = resolve_devices(&o, dev, &ndev)) != GD_EXIT_OK || gd_quit_signal)
		return status;              /* a quit signal before the run: nothing was started */
	o.gen_threads = gen_threads_of(&o); /* resolved: the workers and the run header alike */
	if (child_argv_fits(&o, err, sizeof(err)))
		return usage_error(err);
	struct gd_outputs outs = { 0 };
	if (open_outputs(&o, dev, ndev, &outs, err, sizeof(err)))
		return usage_error(err);
	if (o.kernel && o.role == GD_ROLE_HEADLESS) {
		const struct gd_kspec k = opts_kspec(&o);
		gd_say("kernel %s of %s, rates in %s; arguments: %s", kspec_name(&k), o.kernel,
		       kspec_rate_unit(&k), dev[0].kargs);
	}
	status = run_role(&o, &dash, dev, ndev, &outs);
	if (outputs_close(&outs))
		status = GD_EXIT_FAIL;
	sig_restore_flow();
	return status;
}

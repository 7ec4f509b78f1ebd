/* options.c: every option of the command line as data: its names, kind, range, default, help line,
 * the uses it applies to and its field in struct gd_opts. Parsing, defaults, range checks,
 * --help and the run header's options all come from this table; the man page
 * (doc/gputop-decode.1) states the same options, ranges and defaults. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gputop/common.h"
#include "opts_impl.h"

/* The names of the choices, indexed by value: the same as gd_mode_name, gd_dtype_name,
 * gd_profile_name and gd_generator_name give (test_opts checks every one). */
static const char *const mode_names[GD_MODE_COUNT] = { "seed", "pipelined", "kernel-only" };
static const char *const dtype_names[GD_DT_COUNT] = {
	[GD_DT_AUTO] = "auto", [GD_DT_F32] = "f32", [GD_DT_F64] = "f64"
};
static const char *const format_names[GD_FMT_COUNT] = { "csv", "jsonl" };
static const char *const via_names[GD_VIA_COUNT] = { "both", "layer", "preload" };
static const char *const generator_names[GD_GEN_COUNT] = {
	[GD_GEN_AUTO] = "auto", [GD_GEN_ZIGGURAT] = "ziggurat", [GD_GEN_BOX_MULLER] = "box-muller"
};

/* Whole-number and choice fields are stored by their width: 4 or 8 bytes. */
_Static_assert(sizeof(int) == sizeof(uint32_t) && sizeof(enum gd_mode) == sizeof(uint32_t) &&
                   sizeof(enum gd_dtype) == sizeof(uint32_t) && sizeof(enum gd_format) == sizeof(uint32_t),
               "whole-number fields are 4 or 8 bytes");
_Static_assert(sizeof(enum gd_profile) == sizeof(uint32_t) && sizeof(enum gd_generator) == sizeof(uint32_t) &&
                   sizeof(enum gd_via) == sizeof(uint32_t),
               "whole-number fields are 4 or 8 bytes");

#define FIELD(f) .offset = offsetof(struct gd_opts, f), .bytes = sizeof(((struct gd_opts){ 0 }).f)

/* Every option, in --help order. */
const struct gd_optdef opts_defs[] = {
	{ .name = "procs",
	  .letter = 'n',
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 0,
	  .max = GD_PROCS_MAX,
	  .bound = "max-procs",
	  .def = "1",
	  .help = "workers at start",
	  .applies = GD_USE_DASHBOARD | GD_USE_HEADLESS,
	  FIELD(procs) },
	{ .name = "max-procs",
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_PROCS_MAX,
	  .def = "64",
	  .help = "upper bound for workers",
	  .applies = GD_USE_RUN,
	  FIELD(max_procs) },
	{ .name = "device",
	  .letter = 'd',
	  .metavar = "LIST",
	  .kind = GD_OPT_DEVICE,
	  .min = 0,
	  .max = 255,
	  .def_text = "first GPU, else first",
	  .help = "devices, workers spread round robin: P:D[,P:D...], platform and device "
	          "indices (0..255); all (every GPU of the first platform with GPUs, else every "
	          "device of the first platform); or a name substring (every device whose name "
	          "contains it, any case)",
	  .applies = GD_USE_RUN },
	{ .name = "size",
	  .letter = 's',
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_SIZE_MAX,
	  .def = "100000",
	  .help = "symbols per batch",
	  .applies = GD_USE_RUN,
	  FIELD(size) },
	{ .name = "launches",
	  .letter = 'l',
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_LAUNCHES_MAX,
	  .def = "10",
	  .help = "kernel launches per batch",
	  .applies = GD_USE_RUN,
	  FIELD(launches) },
	{ .name = "dtype",
	  .letter = 't',
	  .kind = GD_OPT_CHOICE,
	  .names = dtype_names,
	  .min = GD_DT_F32,
	  .max = GD_DT_F64,
	  .def_text = "f64 if the device has fp64",
	  .help = "element type",
	  .applies = GD_USE_RUN,
	  FIELD(dtype) },
	{ .name = "mode",
	  .letter = 'm',
	  .kind = GD_OPT_CHOICE,
	  .names = mode_names,
	  .min = 0,
	  .max = GD_MODE_COUNT - 1,
	  .def = "seed",
	  .help = "the worker loop",
	  .applies = GD_USE_RUN,
	  FIELD(mode) },
	{ .name = "queues",
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_QUEUES_MAX,
	  .def_text = "pipelined 8, kernel-only 1",
	  .help = "in-order queues of each worker's context (pipelined, kernel-only)",
	  .applies = GD_USE_RUN,
	  FIELD(queues) },
	{ .name = "gen-threads",
	  .metavar = "T",
	  .kind = GD_OPT_WHOLE,
	  .min = 0,
	  .max = GD_GEN_THREADS_MAX,
	  .def_text = "cores / procs - 1",
	  .help = "pipelined: threads generating each worker's inputs (0: its own thread)",
	  .applies = GD_USE_RUN,
	  FIELD(gen_threads) },
	{ .name = "generator",
	  .kind = GD_OPT_CHOICE,
	  .names = generator_names,
	  .min = GD_GEN_ZIGGURAT,
	  .max = GD_GEN_BOX_MULLER,
	  .def_text = "seed box-muller, else ziggurat",
	  .help = "how the host draws the inputs' normals: the fast ziggurat, or numpy's legacy "
	          "normal, value for value and call for call (MT19937 + polar Box-Muller, the "
	          "original program's, near its cost)",
	  .applies = GD_USE_RUN,
	  FIELD(generator) },
	{ .name = "profile",
	  .kind = GD_OPT_CHOICE,
	  .names = gd_profile_names, /* spec.h: the one list of them */
	  .min = 0,
	  .max = GD_PROF_COUNT - 1,
	  .def = "sampled",
	  .help = "profiling: every command, a round of batches in every N (N adapts to the measured cost), "
	          "or none",
	  .applies = GD_USE_RUN,
	  FIELD(profile) },
	{ .name = "sample-every",
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_SAMPLE_MAX,
	  .def_text = "adapts",
	  .help = "--profile sampled: a round of profiled batches starts every N (at least twice a round); "
	          "observing a program, one batch in N of each queue after its first two",
	  .applies = GD_USE_RUN,
	  FIELD(sample_every) },
	{ .name = "calibrate",
	  .kind = GD_OPT_FLAG,
	  .help = "measure the device's ceiling for this kernel before starting workers, and for a "
	          "short batch of the decode kernel at 4x --size too (ceiling_4x)",
	  .applies = GD_USE_RUN,
	  FIELD(calibrate) },
	{ .name = "kernel",
	  .metavar = "FILE",
	  .kind = GD_OPT_FILE,
	  .def_text = "the decode kernel",
	  .help = "run the OpenCL C kernel in FILE instead (see doc/your-kernel.md)",
	  .applies = GD_USE_RUN,
	  FIELD(kernel) },
	{ .name = "kernel-name",
	  .metavar = "NAME",
	  .kind = GD_OPT_FILE,
	  .def_text = "the only kernel",
	  .help = "--kernel: which kernel of FILE to run",
	  .applies = GD_USE_RUN,
	  FIELD(kernel_name) },
	{ .name = "rate-unit",
	  .metavar = "NAME:ITEMS",
	  .kind = GD_OPT_FILE,
	  .help = "-- COMMAND or --kernel: the log's rate in NAME, ITEMS work items making one "
	          "(e.g. Mbit/s:10)",
	  .applies = GD_USE_RUN,
	  FIELD(rate_unit_text) },
	{ .name = "build-options",
	  .metavar = "OPTS",
	  .kind = GD_OPT_TEXT,
	  .help = "added to the program's build options (e.g. \"-DTILE=8 -cl-fast-relaxed-math\")",
	  .applies = GD_USE_RUN,
	  FIELD(build_options) },
	{ .name = "arg",
	  .metavar = "NAME=VALUE",
	  .kind = GD_OPT_KARG,
	  .help = "--kernel: a scalar's VALUE, a local pointer's BYTES, or len:K elements for a "
	          "buffer (repeatable)",
	  .applies = GD_USE_RUN },
	{ .name = "interval",
	  .letter = 'i',
	  .metavar = "SEC",
	  .kind = GD_OPT_SECONDS,
	  .min = 0.05,
	  .max = 60,
	  .def = "1",
	  .help = "sampling and refresh period",
	  .applies = GD_USE_RUN,
	  FIELD(interval) },
	{ .name = "headless",
	  .kind = GD_OPT_ROLE,
	  .role = GD_ROLE_HEADLESS,
	  .help = "log samples instead of drawing",
	  .applies = GD_USE_LOG },
	{ .name = "duration",
	  .letter = 'D',
	  .metavar = "SEC",
	  .kind = GD_OPT_SECONDS,
	  .min = 0.01,
	  .max = 1e7,
	  .def_text = "each sweep step: 10",
	  .help = "stop after SEC seconds",
	  .applies = GD_USE_RUN,
	  FIELD(duration) },
	{ .name = "observe-via",
	  .kind = GD_OPT_CHOICE,
	  .names = via_names,
	  .min = 0,
	  .max = GD_VIA_COUNT - 1,
	  .def = "both",
	  .help =
	      "-- COMMAND: load the observation library as an OpenCL loader layer, by LD_PRELOAD, or both",
	  .applies = GD_USE_RUN,
	  FIELD(via) },
	{ .name = "format",
	  .letter = 'f',
	  .kind = GD_OPT_CHOICE,
	  .names = format_names,
	  .min = 0,
	  .max = GD_FMT_COUNT - 1,
	  .def = "csv",
	  .help = "log format",
	  .applies = GD_USE_RUN,
	  FIELD(format) },
	{ .name = "fields",
	  .metavar = "LIST",
	  .kind = GD_OPT_TEXT,
	  .def_text = "every field",
	  .help = "the log's columns, in this order: field names separated by commas, such as "
	          "t_s,kind,id,mbit_s (doc/fields.md; with --sweep, the sweep rows' fields)",
	  .applies = GD_USE_RUN,
	  FIELD(fields_text) },
	{ .name = "no-header",
	  .kind = GD_OPT_FLAG,
	  .help = "no line of column names at the top of a CSV log",
	  .applies = GD_USE_RUN,
	  FIELD(no_header) },
	{ .name = "output",
	  .letter = 'o',
	  .metavar = "FILE",
	  .kind = GD_OPT_FILE,
	  .def_text = "stdout",
	  .help = "log file; with the dashboard, also its actions",
	  .applies = GD_USE_RUN,
	  FIELD(output) },
	{ .name = "sweep",
	  .metavar = "LIST",
	  .kind = GD_OPT_SWEEP,
	  .min = 1,
	  .max = GD_PROCS_MAX,
	  .bound = "max-procs",
	  .role = GD_ROLE_HEADLESS,
	  .help = "run each step in LIST: P workers (or copies of COMMAND), or PxQ with Q queues "
	          "each (e.g. 1,4,1x4), print a table",
	  .applies = GD_USE_SWEEP },
	{ .name = "repeat",
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_REPEAT_MAX,
	  .def = "1",
	  .help = "--sweep: run the whole list N times; the table shows mean, min, max and spread",
	  .applies = GD_USE_SWEEP,
	  FIELD(repeat) },
	{ .name = "verify",
	  .kind = GD_OPT_FLAG,
	  .help = "check every batch against a CPU reference",
	  .applies = GD_USE_RUN,
	  FIELD(verify) },
	{ .name = "trace",
	  .metavar = "FILE",
	  .kind = GD_OPT_FILE,
	  .help = "host phases and device intervals as trace-event JSON",
	  .applies = GD_USE_RUN,
	  FIELD(trace) },
	{ .name = "report",
	  .metavar = "FILE",
	  .kind = GD_OPT_FILE,
	  .help = "at the end, a self-contained HTML page: scaling, breakdown, diagnosis, timeline",
	  .applies = GD_USE_RUN,
	  FIELD(report) },
	{ .name = "trace-limit",
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = 1e9,
	  .def = "1000000",
	  .help = "stop tracing after N events",
	  .applies = GD_USE_RUN,
	  FIELD(trace_limit) },
	{ .name = "prom-file",
	  .metavar = "FILE",
	  .kind = GD_OPT_FILE,
	  .help = "the latest samples in the Prometheus text format, replaced every interval",
	  .applies = GD_USE_RUN,
	  FIELD(prom_file) },
	{ .name = "listen",
	  .metavar = "ADDR:PORT",
	  .kind = GD_OPT_LISTEN,
	  .help = "serve GET /metrics (Prometheus) there; PORT alone: on loopback; port 0: any free one",
	  .applies = GD_USE_RUN },
	{ .name = "no-config",
	  .kind = GD_OPT_FLAG,
	  .help = "the dashboard neither reads nor writes its config file (settings: defaults)",
	  .applies = GD_USE_DASHBOARD,
	  FIELD(no_config) },
	{ .name = "list-devices",
	  .kind = GD_OPT_ROLE,
	  .role = GD_ROLE_LIST,
	  .help = "list OpenCL platforms and devices",
	  .applies = GD_USE_LIST },
	{ .name = "worker",
	  .metavar = "NAME,GEN,ID,SUPERVISOR-PID",
	  .kind = GD_OPT_WORKER,
	  .role = GD_ROLE_WORKER },
	{ .name = "calibrate-child", .kind = GD_OPT_ROLE, .role = GD_ROLE_CALIBRATE },
	{ .name = "help", .letter = 'h', .kind = GD_OPT_ROLE, .role = GD_ROLE_HELP, .help = "this text" },
	{ .name = "help-fields",
	  .kind = GD_OPT_ROLE,
	  .role = GD_ROLE_HELP,
	  .help = "the log's fields with their units (with --sweep, the sweep rows'), as --fields help" },
	{ .name = "version", .letter = 'V', .kind = GD_OPT_ROLE, .role = GD_ROLE_VERSION, .help = "version" },
};

const size_t opts_ndefs = GD_ARRAY_LEN(opts_defs);
_Static_assert(GD_ARRAY_LEN(opts_defs) <= OPTS_MAX, "options given are bits of a uint64_t");

/* For the tests and the fuzz harness, which walk the table. */
/* cppcheck-suppress unusedFunction */
const struct gd_optdef *opts_table(size_t *n)
{
	*n = opts_ndefs;
	return opts_defs;
}

const struct gd_optdef *opts_find(const char *name)
{
	for (size_t i = 0; i < opts_ndefs; i++)
		if (strcmp(opts_defs[i].name, name) == 0)
			return &opts_defs[i];
	return NULL;
}

bool opts_internal(const struct gd_optdef *d)
{
	return d->help == NULL;
}

/* int, uint32_t, uint64_t and enum fields hold the same non-negative values alike. */
long long opts_read_whole(const struct gd_opts *o, const struct gd_optdef *d)
{
	const char *f = (const char *)o + d->offset;
	if (d->bytes == sizeof(uint64_t)) {
		uint64_t u;
		memcpy(&u, f, sizeof(u));
		return (long long)u;
	}
	/* A 4-byte field is an int (procs, queues, gen-threads: -1 while not set) or a uint32_t
	 * whose range (GD_SIZE_MAX and below) fits an int32_t: read signed, so a -1 stays -1. */
	int32_t v;
	memcpy(&v, f, sizeof(v));
	return v;
}

void opts_join_names(const struct gd_optdef *d, const char *sep, char *s, size_t n)
{
	s[0] = '\0';
	for (int i = (int)d->min; i <= (int)d->max; i++) {
		size_t len = strlen(s);
		snprintf(s + len, n - len, "%s%s", i > (int)d->min ? sep : "", d->names[i]);
	}
}

bool opts_given(const struct gd_opts *o, const char *name)
{
	const struct gd_optdef *d = opts_find(name);
	return d && (o->given >> (size_t)(d - opts_defs) & 1);
}

/* opts.c: the command line, described once by the option table below: getopt's arrays, the
 * defaults, the range checks with their messages and the --help text all come from it. The man
 * page (doc/gputop-decode.1) states the same options, ranges and defaults. */
#include "gputop/opts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/kargs.h"

static const char *const mode_names[GD_MODE_COUNT] = { "seed", "pipelined", "kernel-only" };
static const char *const dtype_names[] = { [GD_DT_AUTO] = "auto", [GD_DT_F32] = "f32", [GD_DT_F64] = "f64" };
static const char *const format_names[GD_FMT_COUNT] = { "csv", "jsonl" };
static const char *const profile_names[GD_PROF_COUNT] = { "full", "sampled", "off" };

/* Whole-number and choice fields are stored by their width: 4 or 8 bytes. */
_Static_assert(sizeof(int) == sizeof(uint32_t) && sizeof(enum gd_mode) == sizeof(uint32_t) &&
                   sizeof(enum gd_dtype) == sizeof(uint32_t) && sizeof(enum gd_format) == sizeof(uint32_t),
               "whole-number fields are 4 or 8 bytes");
_Static_assert(sizeof(enum gd_profile) == sizeof(uint32_t), "whole-number fields are 4 or 8 bytes");

#define FIELD(f) .offset = offsetof(struct gd_opts, f), .bytes = sizeof(((struct gd_opts){ 0 }).f)

/* Every option, in --help order. */
static const struct gd_optdef table[] = {
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
	  .def_text = "pipelined 4, kernel-only 1",
	  .help = "in-order queues of each worker's context (pipelined, kernel-only)",
	  .applies = GD_USE_RUN,
	  FIELD(queues) },
	{ .name = "gen-threads",
	  .metavar = "T",
	  .kind = GD_OPT_WHOLE,
	  .min = 0,
	  .max = GD_GEN_THREADS_MAX,
	  .def_text = "cores / procs",
	  .help = "pipelined: threads generating each worker's inputs (0: its own thread)",
	  .applies = GD_USE_RUN,
	  FIELD(gen_threads) },
	{ .name = "profile",
	  .kind = GD_OPT_CHOICE,
	  .names = profile_names,
	  .min = 0,
	  .max = GD_PROF_COUNT - 1,
	  .def = "sampled",
	  .help = "profiling: every command, two batches in every N (N adapts to the measured cost), or none",
	  .applies = GD_USE_RUN,
	  FIELD(profile) },
	{ .name = "sample-every",
	  .metavar = "N",
	  .kind = GD_OPT_WHOLE,
	  .min = 1,
	  .max = GD_SAMPLE_MAX,
	  .def_text = "adapts",
	  .help = "--profile sampled: profile 2 batches in every N",
	  .applies = GD_USE_RUN,
	  FIELD(sample_every) },
	{ .name = "calibrate",
	  .kind = GD_OPT_FLAG,
	  .help = "measure the device's ceiling for this kernel before starting workers",
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
	  .help = "run each step in LIST: P workers, or PxQ with Q queues each (e.g. 1,4,1x4), "
	          "print a table",
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
	{ .name = "version", .letter = 'V', .kind = GD_OPT_ROLE, .role = GD_ROLE_VERSION, .help = "version" },
};

#define NOPTS GD_ARRAY_LEN(table)
_Static_assert(GD_ARRAY_LEN(table) <= 64, "options given are bits of a uint64_t");

const struct gd_optdef *opts_table(size_t *n)
{
	*n = NOPTS;
	return table;
}

const char *gd_mode_name(enum gd_mode m)
{
	return (unsigned)m < GD_MODE_COUNT ? mode_names[m] : "?";
}

const char *gd_dtype_name(enum gd_dtype d)
{
	return (unsigned)d < GD_ARRAY_LEN(dtype_names) ? dtype_names[d] : "auto";
}

int opts_queues(const struct gd_opts *o)
{
	if (o->queues > 0)
		return o->queues;
	return o->mode == GD_MODE_PIPELINED ? 4 : 1;
}

double opts_duration(const struct gd_opts *o)
{
	return o->duration > 0 ? o->duration : o->nsweep ? GD_SWEEP_STEP_S : 0;
}

int opts_gen_threads(const struct gd_opts *o, int cores)
{
	if (o->mode != GD_MODE_PIPELINED)
		return 0;
	if (o->gen_threads >= 0)
		return o->gen_threads;
	int share = cores / (o->procs > 0 ? o->procs : 1);
	return share < 1 ? 1 : share > 16 ? 16 : share;
}

const char *opts_kernel_name(const struct gd_opts *o)
{
	return o->kernel_name ? o->kernel_name : "decode";
}

const char *opts_rate_unit(const struct gd_opts *o)
{
	return o->kernel ? "Mitem/s" : "Mbit/s";
}

uint64_t opts_items_per_batch(const struct gd_opts *o)
{
	return o->kernel ? (uint64_t)o->size * o->launches : o->size;
}

const char *gd_profile_name(enum gd_profile p)
{
	return (unsigned)p < GD_PROF_COUNT ? profile_names[p] : "?";
}

static const struct gd_optdef *by_letter(int c)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (table[i].letter == c)
			return &table[i];
	return NULL;
}

const struct gd_optdef *opts_find(const char *name)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

static bool takes_value(const struct gd_optdef *d)
{
	return d->kind != GD_OPT_FLAG && d->kind != GD_OPT_ROLE;
}

/* Kinds whose range is a number range (shown in --help). */
static bool numeric(const struct gd_optdef *d)
{
	return d->kind == GD_OPT_WHOLE || d->kind == GD_OPT_SECONDS || d->kind == GD_OPT_SWEEP;
}

/* ---- Parsing ---- */

struct parser {
	char *err;
	size_t errlen;
	const char *opt;  /* the option being parsed, for messages */
	char name[64];    /* its name, where opt points here */
	unsigned pending; /* roles settled after every option: bits (1u << GD_ROLE_...) */
	uint64_t given;   /* options given: bit i is table[i] */
	uint64_t letter;  /* ... given last by their letter */
};

static void name_option(struct parser *p, const struct gd_optdef *d, bool long_form)
{
	if (long_form)
		snprintf(p->name, sizeof(p->name), "--%s", d->name);
	else
		snprintf(p->name, sizeof(p->name), "-%c", d->letter);
	p->opt = p->name;
}

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(p->err, p->errlen, "%s: ", p->opt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	/* The message echoes what was typed: it stays one line, whatever that held. */
	for (char *c = p->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

static void *field(struct gd_opts *o, const struct gd_optdef *d)
{
	return (char *)o + d->offset;
}

/* int, uint32_t, uint64_t and enum fields hold the same non-negative values alike. */
static void store_whole(struct gd_opts *o, const struct gd_optdef *d, long long v)
{
	if (d->bytes == sizeof(uint64_t)) {
		uint64_t u = (uint64_t)v;
		memcpy(field(o, d), &u, sizeof(u));
	} else {
		uint32_t u = (uint32_t)v;
		memcpy(field(o, d), &u, sizeof(u));
	}
}

static long long read_whole(const struct gd_opts *o, const struct gd_optdef *d)
{
	const char *f = (const char *)o + d->offset;
	if (d->bytes == sizeof(uint64_t)) {
		uint64_t u;
		memcpy(&u, f, sizeof(u));
		return (long long)u;
	}
	uint32_t u;
	memcpy(&u, f, sizeof(u));
	return u;
}

/* ---- Numbers: one rule for all of them ----
 * A number is exactly its digits (and, for seconds, a point and an exponent): nothing that
 * strtol or strtod would skip or take around them is accepted, no whitespace and no sign. A
 * minus sign is read only to say that the value is below the range (none of the ranges has
 * negative values). */

static size_t ndigits(const char *s)
{
	return strspn(s, "0123456789");
}

/* Only decimal digits, at least one. */
static bool all_digits(const char *s)
{
	return *s && s[ndigits(s)] == '\0';
}

/* A decimal number as typed: digits with at most one point, then an optional exponent. */
static bool decimal(const char *s)
{
	size_t whole = ndigits(s), frac = 0;
	s += whole;
	if (*s == '.') {
		frac = ndigits(s + 1);
		s += 1 + frac;
	}
	if (whole + frac == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s += 1 + (s[1] == '+' || s[1] == '-');
		size_t exp = ndigits(s);
		if (exp == 0)
			return false;
		s += exp;
	}
	return *s == '\0';
}

/* A whole decimal integer in [lo, hi]. */
static int parse_int(struct parser *p, const char *s, long long lo, long long hi, long long *out)
{
	bool minus = s[0] == '-';
	if (!all_digits(s + minus))
		return fail(p, "'%s' is not a whole number", s);
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno == ERANGE || v < lo || v > hi || (minus && lo >= 0))
		return fail(p, "'%s' is out of range (%lld..%lld)", s, lo, hi);
	*out = v;
	return 0;
}

static int set_whole(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	long long v = 0;
	if (parse_int(p, s, (long long)d->min, (long long)d->max, &v))
		return -1;
	store_whole(o, d, v);
	return 0;
}

static int set_seconds(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	bool minus = s[0] == '-';
	double v = decimal(s + minus) ? strtod(s, NULL) : NAN;
	if (!isfinite(v))
		return fail(p, "'%s' is not a number of seconds", s);
	if (v < d->min || v > d->max || (minus && d->min >= 0))
		return fail(p, "'%s' is out of range (%g..%g seconds)", s, d->min, d->max);
	*(double *)field(o, d) = v;
	return 0;
}

/* names[min..max] joined by sep. */
static void join_names(const struct gd_optdef *d, const char *sep, char *s, size_t n)
{
	s[0] = '\0';
	for (int i = (int)d->min; i <= (int)d->max; i++) {
		size_t len = strlen(s);
		snprintf(s + len, n - len, "%s%s", i > (int)d->min ? sep : "", d->names[i]);
	}
}

static int set_choice(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	for (int i = (int)d->min; i <= (int)d->max; i++)
		if (strcmp(s, d->names[i]) == 0) {
			store_whole(o, d, i);
			return 0;
		}
	char list[128];
	join_names(d, ", ", list, sizeof(list));
	return fail(p, "unknown value '%s' (expected %s)", s, list);
}

static int set_file(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	if (*s == '\0')
		return fail(p, "empty file name");
	*(const char **)field(o, d) = s;
	return 0;
}

static int set_text(const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	*(const char **)field(o, d) = s;
	return 0;
}

static int set_karg(struct parser *p, const char *s, struct gd_opts *o)
{
	if (!kargs_given_valid(s))
		return fail(p, "'%s' is not NAME=VALUE (an argument's name, '=', its value)", s);
	if (o->nkargs == GD_KARGS_MAX)
		return fail(p, "more than %d values", GD_KARGS_MAX);
	o->kargs[o->nkargs++] = s;
	return 0;
}

/* One P:D of a device list at s; *end is left after it. */
static int device_ref(struct parser *p, const struct gd_optdef *d, const char *all, const char *s,
                      const char **end, struct gd_devref *out)
{
	/* Digits, a colon, digits: each index at most 9 digits, so strtol cannot overflow. */
	size_t plat = ndigits(s), dev = s[plat] == ':' ? ndigits(s + plat + 1) : 0;
	long v[2] = { -1, -1 };
	*end = s + plat + 1 + dev;
	if (plat && dev && plat <= 9 && dev <= 9 && (**end == '\0' || **end == ',')) {
		v[0] = strtol(s, NULL, 10);
		v[1] = strtol(s + plat + 1, NULL, 10);
	}
	for (int i = 0; i < 2; i++)
		if (v[i] < d->min || v[i] > d->max)
			return fail(
			    p,
			    "'%s' is not PLATFORM:DEVICE[,PLATFORM:DEVICE...] (for example 0:0), all, "
			    "or a device name",
			    all);
	*out = (struct gd_devref){ .platform = (int)v[0], .index = (int)v[1] };
	return 0;
}

/* A list when it holds a colon or is only digits, commas and signs; else all or a name. */
static int set_device(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	struct gd_devspec *ds = &o->devices;
	memset(ds, 0, sizeof(*ds));
	if (*s == '\0')
		return fail(p, "empty device (expected P:D, a list, all or a name)");
	if (!strchr(s, ':') && s[strspn(s, "0123456789,+- ")] != '\0') {
		ds->sel = strcmp(s, "all") == 0 ? GD_DEVSEL_ALL : GD_DEVSEL_NAME;
		ds->name = s;
		return 0;
	}
	ds->sel = GD_DEVSEL_LIST;
	for (const char *q = s;; q++) {
		struct gd_devref r = { -1, -1 };
		if (device_ref(p, d, s, q, &q, &r))
			return -1;
		for (int i = 0; i < ds->n; i++)
			if (ds->list[i].platform == r.platform && ds->list[i].index == r.index)
				return fail(p, "%d:%d is listed twice", r.platform, r.index);
		if (ds->n == GD_DEVICES_MAX)
			return fail(p, "more than %d devices", GD_DEVICES_MAX);
		ds->list[ds->n++] = r;
		if (*q == '\0')
			break;
	}
	o->platform = ds->list[0].platform;
	o->device = ds->list[0].index;
	return 0;
}

/* One number of a sweep step, in [lo, hi]; *end is left after it. */
static int step_number(struct parser *p, const char *s, const char *q, long lo, long hi, char **end, int *out)
{
	*end = (char *)q;
	if (*q < '0' || *q > '9')
		return fail(p, "'%s' is not a comma-separated list of steps such as 1,2,4 or 1x4", s);
	errno = 0;
	long v = strtol(q, end, 10);
	if (errno || v < lo || v > hi)
		return fail(p, "'%.*s' in '%s' is out of range (%ld..%ld)", (int)(*end - q), q, s, lo, hi);
	*out = (int)v;
	return 0;
}

static int set_sweep(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	o->nsweep = 0;
	if (*s == '\0')
		return fail(p, "empty list (expected steps such as 1,2,4,8 or 1x4)");
	const char *q = s;
	for (;;) {
		char *end;
		if (o->nsweep == GD_SWEEP_MAX)
			return fail(p, "more than %d steps", GD_SWEEP_MAX);
		struct gd_step *st = &o->sweep[o->nsweep++];
		st->queues = 0;
		if (step_number(p, s, q, (long)d->min, (long)d->max, &end, &st->procs))
			return -1;
		if (*end == 'x' && step_number(p, s, end + 1, 1, GD_QUEUES_MAX, &end, &st->queues))
			return -1;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return fail(p, "'%s' is not a comma-separated list of steps such as 1,2,4 or 1x4", s);
		q = end + 1;
	}
}

/* Digits of the base at *s (16 hexadecimal or 19 decimal at most, so that strtoull cannot
 * overflow), then the character after: moves *s past both. */
static bool field_then(const char **s, int base, char after, unsigned long long *out)
{
	size_t n = base == 16 ? strspn(*s, "0123456789abcdefABCDEF") : ndigits(*s);
	if (n == 0 || n > (base == 16 ? 16u : 19u) || (*s)[n] != after)
		return false;
	*out = strtoull(*s, NULL, base);
	*s += n + (after != '\0');
	return true;
}

/* NAME,GEN,ID,SUPERVISOR-PID: internal, written by opts_worker_argv. */
static int set_worker(struct parser *p, const char *s, struct gd_worker_args *w)
{
	const char *comma = strchr(s, ',');
	if (!comma || comma == s || (size_t)(comma - s) >= sizeof(w->shm))
		return fail(p, "malformed worker arguments");
	const char *q = comma + 1;
	unsigned long long gen, id, supervisor;
	if (!field_then(&q, 16, ',', &gen) || !field_then(&q, 10, ',', &id) ||
	    !field_then(&q, 10, '\0', &supervisor) || id > 1000000 || supervisor == 0 ||
	    supervisor > INT32_MAX)
		return fail(p, "malformed worker arguments");
	memcpy(w->shm, s, (size_t)(comma - s));
	w->shm[comma - s] = '\0';
	w->gen = gen;
	w->id = (unsigned)id;
	w->supervisor = (pid_t)supervisor;
	return 0;
}

/* ADDR:PORT (an IPv4 literal), [ADDR6]:PORT, :PORT or PORT (the last two on 127.0.0.1); no
 * host names, so nothing is looked up. */
static int set_listen(struct parser *p, const char *s, struct gd_listen *l)
{
	char host[64] = "";
	const char *port = s;
	l->family = AF_INET;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		size_t n = close ? (size_t)(close - s - 1) : 0;
		if (!close || close[1] != ':' || n == 0 || n >= sizeof(host))
			return fail(p, "'%s' is not [IPV6-ADDRESS]:PORT", s);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		l->family = AF_INET6;
		port = close + 2;
	} else if (strrchr(s, ':')) {
		size_t n = (size_t)(strrchr(s, ':') - s);
		if (n >= sizeof(host) || memchr(s, ':', n))
			return fail(p, "'%s' is not ADDR:PORT (an IPv6 address goes in brackets: [::1]:9400)",
			            s);
		memcpy(host, s, n);
		host[n] = '\0';
		port = s + n + 1;
	}
	memset(l->addr, 0, sizeof(l->addr));
	if (host[0] == '\0')
		l->addr[0] = 127, l->addr[3] = 1; /* loopback unless an address is given */
	else if (inet_pton(l->family, host, l->addr) != 1)
		return fail(p, "'%s' is not an IP address (such as 127.0.0.1, 0.0.0.0 or [::1])", host);
	if (!all_digits(port) || strlen(port) > 5 || strtol(port, NULL, 10) > 65535)
		return fail(p, "'%s': the port is not a number from 0 to 65535", s);
	l->port = (unsigned)strtol(port, NULL, 10);
	l->text = s;
	l->set = true;
	return 0;
}

static int set_value(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	switch (d->kind) {
	case GD_OPT_FLAG:
		*(bool *)field(o, d) = true;
		break;
	case GD_OPT_ROLE:
		break;
	case GD_OPT_WHOLE:
		return set_whole(p, d, s, o);
	case GD_OPT_SECONDS:
		return set_seconds(p, d, s, o);
	case GD_OPT_CHOICE:
		return set_choice(p, d, s, o);
	case GD_OPT_FILE:
		return set_file(p, d, s, o);
	case GD_OPT_DEVICE:
		return set_device(p, d, s, o);
	case GD_OPT_SWEEP:
		return set_sweep(p, d, s, o);
	case GD_OPT_WORKER:
		return set_worker(p, s, &o->worker);
	case GD_OPT_LISTEN:
		return set_listen(p, s, &o->listen);
	case GD_OPT_TEXT:
		return set_text(d, s, o);
	case GD_OPT_KARG:
		return set_karg(p, s, o);
	}
	return 0;
}

/* Help, version and worker take effect at once, the last one given winning; the listing and
 * headless logging are settled after every option, the listing first. */
static void ask_role(struct parser *p, struct gd_opts *o, enum gd_role r)
{
	if (r == GD_ROLE_HEADLESS || r == GD_ROLE_LIST)
		p->pending |= 1u << r;
	else if (r != GD_ROLE_NONE)
		o->role = r;
}

static void settle_role(const struct parser *p, struct gd_opts *o)
{
	if (p->pending & (1u << GD_ROLE_LIST))
		o->role = GD_ROLE_LIST;
	else if (p->pending & (1u << GD_ROLE_HEADLESS))
		o->role = GD_ROLE_HEADLESS;
	else
		o->role = GD_ROLE_DASHBOARD;
}

static int defaults(struct parser *p, struct gd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->platform = o->device = -1; /* chosen at start */
	o->gen_threads = -1;          /* a fair share, at start */
	for (size_t i = 0; i < NOPTS; i++) {
		if (!table[i].def)
			continue;
		name_option(p, &table[i], true);
		if (set_value(p, &table[i], table[i].def, o))
			return -1;
	}
	return 0;
}

/* A value capped by another option's value (such as --procs by --max-procs). */
static int check_bound(struct parser *p, const struct gd_optdef *d, const struct gd_opts *o)
{
	long long cap = read_whole(o, opts_find(d->bound));
	name_option(p, d, true);
	if (d->kind != GD_OPT_SWEEP) {
		long long v = read_whole(o, d);
		return v > cap ? fail(p, "%lld is more than --%s %lld", v, d->bound, cap) : 0;
	}
	for (int i = 0; i < o->nsweep; i++)
		if (o->sweep[i].procs > cap)
			return fail(p, "count %d is more than --%s %lld", o->sweep[i].procs, d->bound, cap);
	return 0;
}

/* Generation threads are the pipelined mode's own. */
static int check_gen_threads(struct parser *p, const struct gd_opts *o)
{
	p->opt = "--gen-threads";
	return o->gen_threads >= 0 && o->mode != GD_MODE_PIPELINED ? fail(p, "needs --mode pipelined") : 0;
}

/* Queues are the pipelined and kernel-only modes' own: the seed loop has one. */
static int check_queues(struct parser *p, const struct gd_opts *o)
{
	if (o->mode != GD_MODE_SEED)
		return 0;
	bool more = o->queues > 1;
	for (int i = 0; i < o->nsweep; i++)
		more = more || o->sweep[i].queues > 1;
	p->opt = o->queues > 1 ? "--queues" : "--sweep";
	return more ? fail(p, "more than one queue needs --mode pipelined or kernel-only") : 0;
}

/* Every option given applies to what the command line asks for: the dashboard, --headless,
 * --sweep or --list-devices. */
unsigned opts_use(const struct gd_opts *o)
{
	if (o->role == GD_ROLE_LIST)
		return GD_USE_LIST;
	if (o->role == GD_ROLE_HEADLESS)
		return o->nsweep ? GD_USE_SWEEP : GD_USE_HEADLESS;
	return GD_USE_DASHBOARD;
}

static int check_applies(struct parser *p, const struct gd_opts *o)
{
	unsigned use = opts_use(o);
	const char *what = use == GD_USE_LIST       ? "--list-devices"
	                   : use == GD_USE_SWEEP    ? "--sweep"
	                   : use == GD_USE_HEADLESS ? "--headless"
	                                            : "the dashboard";
	for (size_t i = 0; i < NOPTS; i++)
		if ((p->given >> i & 1) && !(table[i].applies & use)) {
			name_option(p, &table[i], !(p->letter >> i & 1));
			return fail(p, "does not apply to %s", what);
		}
	return 0;
}

/* A user kernel's options need --kernel; the decode kernel's own (--dtype, --verify's CPU
 * reference) do not apply to it. */
static int check_kernel(struct parser *p, const struct gd_opts *o)
{
	if (!o->kernel) {
		p->opt = o->kernel_name ? "--kernel-name" : "--arg";
		return o->kernel_name || o->nkargs ? fail(p, "needs --kernel FILE") : 0;
	}
	p->opt = "--verify";
	if (o->verify)
		return fail(p, "has no CPU check for a user kernel (--kernel): run without it");
	p->opt = "--dtype";
	if (p->given >> (size_t)(opts_find("dtype") - table) & 1)
		return fail(p, "does not apply to --kernel: the kernel's argument types decide");
	return 0;
}

static int check_bounds(struct parser *p, const struct gd_opts *o)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (table[i].bound && check_bound(p, &table[i], o))
			return -1;
	return check_queues(p, o) || check_gen_threads(p, o) || check_kernel(p, o) ? -1 : 0;
}

/* getopt_long's arrays, from the table: long option i is table[i]. */
static void getopt_arrays(struct option *longs, char *shorts)
{
	*shorts++ = ':'; /* a missing value is reported as ':' */
	for (size_t i = 0; i < NOPTS; i++) {
		const struct gd_optdef *d = &table[i];
		/* Distinct values: getopt_long calls an abbreviation of two options ambiguous only then. */
		longs[i] = (struct option){ d->name, takes_value(d) ? required_argument : no_argument, NULL,
			                    d->letter ? d->letter : 256 + (int)i };
		if (d->letter) {
			*shorts++ = d->letter;
			if (takes_value(d))
				*shorts++ = ':';
		}
	}
	longs[NOPTS] = (struct option){ NULL, 0, NULL, 0 };
	*shorts = '\0';
}

/* Internal options (no help line) are written by the tool itself, never typed. */
static bool internal(const struct gd_optdef *d)
{
	return d->help == NULL;
}

/* The listed options whose long name is the n characters at name or starts with them: how
 * many, their names joined into list, and the last of them. An exact name is the only one. */
static int candidates(const char *name, size_t n, char *list, size_t len, const struct gd_optdef **last)
{
	int k = 0;
	list[0] = '\0';
	for (size_t i = 0; i < NOPTS; i++) {
		const struct gd_optdef *d = &table[i];
		if (internal(d) || strncmp(d->name, name, n) != 0)
			continue;
		if (d->name[n] == '\0') {
			snprintf(list, len, "--%s", d->name);
			*last = d;
			return 1;
		}
		size_t used = strlen(list);
		snprintf(list + used, len - used, "%s--%s", k ? ", " : "", d->name);
		*last = d;
		k++;
	}
	return k;
}

/* getopt_long's '?' (an unknown or ambiguous option, or a value given to a flag) or ':' (no
 * value), for the argument cur. */
static int refuse(struct parser *p, int c, const char *cur)
{
	snprintf(p->name, sizeof(p->name), "%.60s", cur);
	p->opt = p->name;
	if (c == ':')
		return fail(p, "missing value");
	if (cur[0] == '-' && cur[1] == '-') {
		size_t n = strcspn(cur + 2, "=");
		snprintf(p->name, sizeof(p->name), "--%.*s", n < 60 ? (int)n : 60, cur + 2);
		char list[512];
		const struct gd_optdef *d = NULL;
		int k = n ? candidates(cur + 2, n, list, sizeof(list), &d) : 0;
		if (k > 1)
			return fail(p, "ambiguous option (could be %s)", list);
		if (k == 1 && cur[2 + n] == '=' && !takes_value(d)) {
			name_option(p, d, true);
			return fail(p, "takes no value");
		}
		return fail(p, "unknown option (see --help)");
	}
	if (optopt && optopt < 256)
		snprintf(p->name, sizeof(p->name), "-%c", optopt);
	return fail(p, "unknown option (see --help)");
}

/* getopt_long accepts any unambiguous prefix of a long name; an internal option counts only
 * spelled in full. at is the argument getopt_long took it from. */
static int check_spelling(struct parser *p, const struct gd_optdef *d, const char *at)
{
	size_t n = strlen(d->name);
	if (strncmp(at, "--", 2) == 0 && strncmp(at + 2, d->name, n) == 0 &&
	    (at[2 + n] == '\0' || at[2 + n] == '='))
		return 0;
	snprintf(p->name, sizeof(p->name), "%.*s", (int)strcspn(at, "="), at);
	p->opt = p->name;
	return fail(p, "unknown option (see --help)");
}

/* One option that getopt_long returned: table[li] when it came by its long name. */
static int take(struct parser *p, int c, int li, const char *arg, struct gd_opts *o)
{
	const struct gd_optdef *d = li >= 0 ? &table[li] : by_letter(c);
	size_t i = (size_t)(d - table);
	p->given |= UINT64_C(1) << i;
	if (li >= 0)
		p->letter &= ~(UINT64_C(1) << i);
	else
		p->letter |= UINT64_C(1) << i;
	name_option(p, d, li >= 0);
	if (set_value(p, d, arg, o))
		return -1;
	ask_role(p, o, d->role);
	return 0;
}

int opts_parse(int argc, char **argv, struct gd_opts *o, char *err, size_t errlen)
{
	struct parser p = { .err = err, .errlen = errlen, .opt = "" };
	struct option longs[NOPTS + 1];
	char shorts[2 * NOPTS + 2];
	getopt_arrays(longs, shorts);
	err[0] = '\0';
	if (defaults(&p, o))
		return -1;
	optind = 0; /* glibc: a full re-initialisation, so the parser can run again */
	opterr = 0;
	for (;;) {
		int li = -1;
		int c = getopt_long(argc, argv, shorts, longs, &li);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			return refuse(&p, c, optind > 0 && optind <= argc ? argv[optind - 1] : "");
		/* The argument it came from: the one before its value, when that came apart. */
		int at = li >= 0 && takes_value(&table[li]) && optarg == argv[optind - 1] ? optind - 2
		                                                                          : optind - 1;
		if (li >= 0 && internal(&table[li]) && check_spelling(&p, &table[li], at > 0 ? argv[at] : ""))
			return -1;
		if (take(&p, c, li, optarg, o))
			return -1;
	}
	if (optind < argc) {
		p.opt = argv[optind];
		return fail(&p, "unexpected argument (see --help)");
	}
	if (o->role != GD_ROLE_NONE)
		return 0; /* help, version or an internal role: nothing else applies */
	settle_role(&p, o);
	if (check_applies(&p, o))
		return -1;
	return check_bounds(&p, o);
}

/* ---- Values, as the log's run header states them ---- */

/* A sweep list as it would be typed: 1,2x4. */
static void sweep_text(const struct gd_opts *o, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < o->nsweep && len < n; i++) {
		int w = o->sweep[i].queues
		            ? snprintf(buf + len, n - len, "%s%dx%d", i ? "," : "", o->sweep[i].procs,
		                       o->sweep[i].queues)
		            : snprintf(buf + len, n - len, "%s%d", i ? "," : "", o->sweep[i].procs);
		len += w > 0 ? (size_t)w : 0;
	}
}

/* Whether a whole-number option is left to the run: --gen-threads as a fair share of cores
 * (set at start; only pipelined uses it), --sample-every while it adapts (only sampled). */
static bool decided_later(const struct gd_opts *o, const struct gd_optdef *d, long long v)
{
	if (strcmp(d->name, "gen-threads") == 0)
		return v < 0 || o->mode != GD_MODE_PIPELINED;
	if (strcmp(d->name, "sample-every") == 0)
		return v == 0 || o->profile != GD_PROF_SAMPLED;
	return false;
}

/* A whole number; the mode's own queues where --queues was not given. */
static enum gd_optval whole_value(const struct gd_opts *o, const struct gd_optdef *d, char *buf, size_t n)
{
	long long v = strcmp(d->name, "queues") == 0 ? opts_queues(o) : read_whole(o, d);
	if (decided_later(o, d, v))
		return GD_VAL_NONE;
	snprintf(buf, n, "%lld", v);
	return GD_VAL_NUMBER;
}

enum gd_optval opts_value(const struct gd_opts *o, const struct gd_optdef *d, char *buf, size_t n)
{
	buf[0] = '\0';
	switch (d->kind) {
	case GD_OPT_FLAG:
		snprintf(buf, n, "%s", *(const bool *)((const char *)o + d->offset) ? "true" : "false");
		return GD_VAL_BOOL;
	case GD_OPT_ROLE:
		if (internal(d))
			return GD_VAL_NONE;
		snprintf(buf, n, "%s", o->role == d->role ? "true" : "false");
		return GD_VAL_BOOL;
	case GD_OPT_WHOLE:
		return whole_value(o, d, buf, n);
	case GD_OPT_SECONDS: {
		double v;
		memcpy(&v, (const char *)o + d->offset, sizeof(v));
		if (strcmp(d->name, "duration") == 0 && (v = opts_duration(o)) <= 0)
			return GD_VAL_NONE; /* until stopped */
		snprintf(buf, n, "%.15g", v);
		return GD_VAL_NUMBER;
	}
	case GD_OPT_CHOICE:
		snprintf(buf, n, "%s", d->names[read_whole(o, d)]);
		return GD_VAL_TEXT;
	case GD_OPT_FILE:
	case GD_OPT_TEXT: {
		const char *f = *(const char *const *)((const char *)o + d->offset);
		if (!f)
			return GD_VAL_NONE;
		snprintf(buf, n, "%s", f);
		return GD_VAL_TEXT;
	}
	case GD_OPT_KARG: /* the --arg values, space-separated, in the order given */
		if (!o->nkargs)
			return GD_VAL_NONE;
		for (int i = 0, at = 0; i < o->nkargs && at < (int)n; i++)
			at += snprintf(buf + at, n - (size_t)at, "%s%s", i ? " " : "", o->kargs[i]);
		return GD_VAL_TEXT;
	case GD_OPT_DEVICE: /* after the probe, the run's devices as a list */
		if (o->devices.sel == GD_DEVSEL_ALL || o->devices.sel == GD_DEVSEL_NAME) {
			snprintf(buf, n, "%s", o->devices.name);
			return GD_VAL_TEXT;
		}
		if (o->platform < 0)
			return GD_VAL_NONE;
		snprintf(buf, n, "%d:%d", o->platform, o->device);
		for (int i = 1, at = (int)strlen(buf); i < o->devices.n && at < (int)n; i++)
			at += snprintf(buf + at, n - (size_t)at, ",%d:%d", o->devices.list[i].platform,
			               o->devices.list[i].index);
		return GD_VAL_TEXT;
	case GD_OPT_SWEEP:
		if (!o->nsweep)
			return GD_VAL_NONE;
		sweep_text(o, buf, n);
		return GD_VAL_TEXT;
	case GD_OPT_LISTEN: /* as typed: a port 0 is chosen at start */
		if (!o->listen.set || !o->listen.text)
			return GD_VAL_NONE;
		snprintf(buf, n, "%s", o->listen.text);
		return GD_VAL_TEXT;
	case GD_OPT_WORKER:
		break;
	}
	return GD_VAL_NONE;
}

/* ---- --help ---- */

#define HELP_INDENT 25 /* where descriptions start */
#define HELP_WIDTH  80 /* where defaults end */

struct text {
	char *buf;
	size_t cap, len;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len = (size_t)n < t->cap - t->len ? t->len + (size_t)n : t->cap - 1;
}

/* "-n, --procs N" or "    --max-procs N"; a choice shows its names. */
static void help_names(const struct gd_optdef *d, char *s, size_t n)
{
	char meta[96] = "";
	if (d->kind == GD_OPT_CHOICE)
		join_names(d, "|", meta, sizeof(meta));
	else if (d->metavar)
		snprintf(meta, sizeof(meta), "%s", d->metavar);
	snprintf(s, n, "%s%c%s--%s%s%s", d->letter ? "-" : " ", d->letter ? d->letter : ' ',
	         d->letter ? ", " : "  ", d->name, meta[0] ? " " : "", meta);
}

/* The help line, then the range where it is a number range: "symbols per batch (1..134217728)". */
static void help_description(const struct gd_optdef *d, char *s, size_t n)
{
	if (!numeric(d))
		snprintf(s, n, "%s", d->help);
	else if (d->bound)
		snprintf(s, n, "%s (%.15g..%s)", d->help, d->min, d->bound);
	else
		snprintf(s, n, "%s (%.15g..%.15g)", d->help, d->min, d->max);
}

/* Words of s from column HELP_INDENT up to HELP_WIDTH; returns the column where the last line ends. */
static size_t put_wrapped(struct text *t, const char *s)
{
	size_t col = HELP_INDENT;
	while (*s) {
		size_t len = strcspn(s, " ");
		if (col > HELP_INDENT && col + 1 + len > HELP_WIDTH) {
			put(t, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
		} else if (col > HELP_INDENT) {
			put(t, " ");
			col++;
		}
		put(t, "%.*s", (int)len, s);
		col += len;
		s += len + strspn(s + len, " ");
	}
	return col;
}

/* One option: names, description, and the default in brackets ending at HELP_WIDTH. */
static void help_entry(struct text *t, const struct gd_optdef *d)
{
	char names[128], desc[256], def[96] = "";
	help_names(d, names, sizeof(names));
	help_description(d, desc, sizeof(desc));
	if (d->def || d->def_text)
		snprintf(def, sizeof(def), "[%s]", d->def ? d->def : d->def_text);
	if (2 + strlen(names) + 1 > HELP_INDENT)
		put(t, "  %s\n%*s", names, HELP_INDENT, "");
	else
		put(t, "  %-*s", HELP_INDENT - 2, names);
	size_t col = put_wrapped(t, desc);
	if (def[0] && col + 1 + strlen(def) > HELP_WIDTH) {
		put(t, "\n");
		col = 0;
	}
	if (def[0])
		put(t, "%*s", (int)(HELP_WIDTH - col), def);
	put(t, "\n");
}

const char *opts_usage(void)
{
	static char buf[8192];
	struct text t = { buf, sizeof(buf), 0 };
	put(&t, "usage: " GD_NAME " [OPTIONS]                 interactive dashboard (needs a terminal)\n"
	        "       " GD_NAME " --headless [OPTIONS]      no dashboard: samples go to a log\n"
	        "       " GD_NAME " --list-devices            platforms and devices, with indices\n\n");
	for (size_t i = 0; i < NOPTS; i++)
		if (table[i].help)
			help_entry(&t, &table[i]);
	return buf;
}

/* ---- The worker's command line ---- */

struct argv_buf {
	char **argv;
	int n, max;
	char *buf;
	size_t used, len;
};

/* Appends one argument, formatted straight into the buffer; -1 when it does not fit. */
__attribute__((format(printf, 2, 3))) static int add_arg(struct argv_buf *a, const char *fmt, ...)
{
	if (a->n + 1 >= a->max || a->used >= a->len)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(a->buf + a->used, a->len - a->used, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= a->len - a->used)
		return -1;
	a->argv[a->n++] = a->buf + a->used;
	a->used += (size_t)len + 1;
	return 0;
}

int opts_worker_argv(const struct gd_opts *o, const char *exe, const struct gd_worker_args *wa,
                     const struct gd_devref *dev, char **argv, int max, char *buf, size_t buflen)
{
	struct argv_buf a = { .argv = argv, .max = max, .len = buflen };
	a.buf = buf;
	int rc = add_arg(&a, "%s", exe);
	rc |= add_arg(&a, "--worker=%s,%016" PRIx64 ",%u,%d", wa->shm, wa->gen, wa->id, (int)wa->supervisor);
	if (dev)
		rc |= add_arg(&a, "--device=%d:%d", dev->platform, dev->index);
	else if (o->platform >= 0)
		rc |= add_arg(&a, "--device=%d:%d", o->platform, o->device);
	rc |= add_arg(&a, "--size=%u", o->size);
	rc |= add_arg(&a, "--launches=%u", o->launches);
	if (o->dtype != GD_DT_AUTO)
		rc |= add_arg(&a, "--dtype=%s", gd_dtype_name(o->dtype));
	rc |= add_arg(&a, "--mode=%s", gd_mode_name(o->mode));
	rc |= add_arg(&a, "--profile=%s", gd_profile_name(o->profile));
	if (o->sample_every)
		rc |= add_arg(&a, "--sample-every=%u", o->sample_every);
	if (o->queues)
		rc |= add_arg(&a, "--queues=%d", o->queues);
	if (o->gen_threads >= 0)
		rc |= add_arg(&a, "--gen-threads=%d", o->gen_threads);
	if (o->verify)
		rc |= add_arg(&a, "--verify");
	if (o->kernel)
		rc |= add_arg(&a, "--kernel=%s", o->kernel);
	if (o->kernel_name)
		rc |= add_arg(&a, "--kernel-name=%s", o->kernel_name);
	if (o->build_options)
		rc |= add_arg(&a, "--build-options=%s", o->build_options);
	for (int i = 0; i < o->nkargs; i++)
		rc |= add_arg(&a, "--arg=%s", o->kargs[i]);
	if (rc)
		return -1;
	argv[a.n] = NULL;
	return a.n;
}

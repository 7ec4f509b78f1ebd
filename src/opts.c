/* opts.c: parsing and range-checking the command line (SPEC.md "Command line"). */
#include "gputop/opts.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

static const char *const mode_names[GD_MODE_COUNT] = { "seed", "pipelined", "kernel-only" };
static const char *const format_names[GD_FMT_COUNT] = { "csv", "jsonl" };

const char *gd_mode_name(enum gd_mode m)
{
	return (unsigned)m < GD_MODE_COUNT ? mode_names[m] : "?";
}

const char *gd_dtype_name(enum gd_dtype d)
{
	return d == GD_DT_F32 ? "f32" : d == GD_DT_F64 ? "f64" : "auto";
}

const char *gd_format_name(enum gd_format f)
{
	return (unsigned)f < GD_FMT_COUNT ? format_names[f] : "?";
}

static const char usage[] =
    "usage: " GD_NAME " [OPTIONS]                 interactive dashboard (needs a terminal)\n"
    "       " GD_NAME " --headless [OPTIONS]      no dashboard: samples go to a log\n"
    "       " GD_NAME " --list-devices            platforms and devices, with indices\n"
    "\n"
    "  -n, --procs N          workers at start (0..max-procs)              [1]\n"
    "      --max-procs N      upper bound for workers (1..256)             [64]\n"
    "  -d, --device P:D       OpenCL platform and device index   [first GPU, else first]\n"
    "  -s, --size N           symbols per batch (1..134217728)             [100000]\n"
    "  -l, --launches N       kernel launches per batch (1..1000)          [10]\n"
    "  -t, --dtype f32|f64    element type                  [f64 if the device has fp64]\n"
    "  -m, --mode M           seed | pipelined | kernel-only               [seed]\n"
    "  -i, --interval SEC     sampling and refresh period (0.05..60)       [1]\n"
    "      --headless         log samples instead of drawing\n"
    "  -D, --duration SEC     stop after SEC seconds (each sweep step: default 10)\n"
    "  -f, --format csv|jsonl headless log format                          [csv]\n"
    "  -o, --output FILE      headless log file                            [stdout]\n"
    "      --sweep LIST       run each worker count in LIST (e.g. 1,2,4,8), print a table\n"
    "      --verify           check first batches against a CPU reference\n"
    "      --trace FILE       write host phases and device intervals as trace-event JSON\n"
    "      --trace-limit N    stop tracing after N events                  [1000000]\n"
    "      --list-devices     list OpenCL platforms and devices\n"
    "  -h, --help             this text\n"
    "  -V, --version          version\n";

const char *opts_usage(void)
{
	return usage;
}

enum {
	OPT_MAX_PROCS = 256,
	OPT_HEADLESS,
	OPT_SWEEP,
	OPT_VERIFY,
	OPT_TRACE,
	OPT_TRACE_LIMIT,
	OPT_LIST,
	OPT_WORKER,
};

static const struct option long_opts[] = {
	{ "procs", required_argument, NULL, 'n' },
	{ "max-procs", required_argument, NULL, OPT_MAX_PROCS },
	{ "device", required_argument, NULL, 'd' },
	{ "size", required_argument, NULL, 's' },
	{ "launches", required_argument, NULL, 'l' },
	{ "dtype", required_argument, NULL, 't' },
	{ "mode", required_argument, NULL, 'm' },
	{ "interval", required_argument, NULL, 'i' },
	{ "headless", no_argument, NULL, OPT_HEADLESS },
	{ "duration", required_argument, NULL, 'D' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "trace-limit", required_argument, NULL, OPT_TRACE_LIMIT },
	{ "list-devices", no_argument, NULL, OPT_LIST },
	{ "worker", required_argument, NULL, OPT_WORKER },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char short_opts[] = ":n:d:s:l:t:m:i:D:f:o:hV";

struct parser {
	char *err;
	size_t errlen;
	const char *opt; /* option being parsed, for messages */
};

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

/* A whole decimal integer in [lo, hi]. */
static int parse_int(struct parser *p, const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || s[0] == ' ')
		return fail(p, "'%s' is not a whole number", s);
	if (errno == ERANGE || v < lo || v > hi)
		return fail(p, "'%s' is out of range (%lld..%lld)", s, lo, hi);
	*out = v;
	return 0;
}

static int parse_seconds(struct parser *p, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v))
		return fail(p, "'%s' is not a number of seconds", s);
	if (v < lo || v > hi)
		return fail(p, "'%s' is out of range (%g..%g seconds)", s, lo, hi);
	*out = v;
	return 0;
}

/* A name from a table; returns its index. */
static int parse_name(struct parser *p, const char *s, const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	char list[128] = "";
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", names[i]);
	return fail(p, "unknown value '%s' (expected %s)", s, list);
}

static int parse_device(struct parser *p, const char *s, struct gd_opts *o)
{
	char *end;
	errno = 0;
	long plat = strtol(s, &end, 10);
	if (end == s || *end != ':' || plat < 0 || plat > 255 || errno)
		return fail(p, "'%s' is not PLATFORM:DEVICE (for example 0:0)", s);
	const char *d = end + 1;
	long dev = strtol(d, &end, 10);
	if (end == d || *end != '\0' || dev < 0 || dev > 255 || errno || *d == '-' || *d == '+')
		return fail(p, "'%s' is not PLATFORM:DEVICE (for example 0:0)", s);
	o->platform = (int)plat;
	o->device = (int)dev;
	return 0;
}

static int parse_sweep(struct parser *p, const char *s, struct gd_opts *o)
{
	o->nsweep = 0;
	if (*s == '\0')
		return fail(p, "empty list (expected counts such as 1,2,4,8)");
	const char *q = s;
	for (;;) {
		char *end;
		if (*q < '0' || *q > '9')
			return fail(p, "'%s' is not a comma-separated list of worker counts", s);
		errno = 0;
		long v = strtol(q, &end, 10);
		if (errno || v < 1 || v > 256)
			return fail(p, "count in '%s' is out of range (1..256)", s);
		if (o->nsweep == GD_SWEEP_MAX)
			return fail(p, "more than %d counts", GD_SWEEP_MAX);
		o->sweep[o->nsweep++] = (int)v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return fail(p, "'%s' is not a comma-separated list of worker counts", s);
		q = end + 1;
	}
}

/* --worker NAME,GEN,SLOT,PARENT: internal, written by opts_worker_argv. */
static int parse_worker(struct parser *p, const char *s, struct gd_opts *o)
{
	const char *comma = strchr(s, ',');
	if (!comma || (size_t)(comma - s) >= sizeof(o->shm))
		return fail(p, "malformed worker arguments");
	char *end;
	errno = 0;
	unsigned long long gen = strtoull(comma + 1, &end, 16);
	if (*end != ',')
		return fail(p, "malformed worker arguments");
	unsigned long slot = strtoul(end + 1, &end, 10);
	if (*end != ',')
		return fail(p, "malformed worker arguments");
	long parent = strtol(end + 1, &end, 10);
	if (*end != '\0' || errno || slot > 1000000 || parent <= 0 || parent > INT32_MAX)
		return fail(p, "malformed worker arguments");
	memcpy(o->shm, s, (size_t)(comma - s));
	o->shm[comma - s] = '\0';
	o->gen = gen;
	o->slot = (unsigned)slot;
	o->parent = (pid_t)parent;
	o->role = GD_ROLE_WORKER;
	return 0;
}

static void defaults(struct gd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->role = GD_ROLE_DASHBOARD;
	o->procs = 1;
	o->max_procs = 64;
	o->platform = o->device = -1;
	o->size = 100000;
	o->launches = 10;
	o->dtype = GD_DT_AUTO;
	o->mode = GD_MODE_SEED;
	o->interval = 1.0;
	o->format = GD_FMT_CSV;
	o->trace_limit = 1000000;
}

static int parse_one(struct parser *p, int c, const char *arg, struct gd_opts *o, bool *headless, bool *list)
{
	static const char *const dtypes[] = { "f32", "f64" };
	long long v = 0;
	int idx = 0;
	switch (c) {
	case 'n':
		if (parse_int(p, arg, 0, 256, &v))
			return -1;
		o->procs = (int)v;
		return 0;
	case OPT_MAX_PROCS:
		if (parse_int(p, arg, 1, 256, &v))
			return -1;
		o->max_procs = (int)v;
		return 0;
	case 'd':
		return parse_device(p, arg, o);
	case 's':
		if (parse_int(p, arg, 1, GD_SIZE_MAX, &v))
			return -1;
		o->size = (uint32_t)v;
		return 0;
	case 'l':
		if (parse_int(p, arg, 1, 1000, &v))
			return -1;
		o->launches = (uint32_t)v;
		return 0;
	case 't':
		if (parse_name(p, arg, dtypes, 2, &idx))
			return -1;
		o->dtype = idx ? GD_DT_F64 : GD_DT_F32;
		return 0;
	case 'm':
		if (parse_name(p, arg, mode_names, GD_MODE_COUNT, &idx))
			return -1;
		o->mode = (enum gd_mode)idx;
		return 0;
	case 'i':
		return parse_seconds(p, arg, 0.05, 60, &o->interval);
	case 'D':
		return parse_seconds(p, arg, 0.01, 1e7, &o->duration);
	case 'f':
		if (parse_name(p, arg, format_names, GD_FMT_COUNT, &idx))
			return -1;
		o->format = (enum gd_format)idx;
		return 0;
	case 'o':
		if (*arg == '\0')
			return fail(p, "empty file name");
		o->output = arg;
		return 0;
	case OPT_SWEEP:
		*headless = true;
		return parse_sweep(p, arg, o);
	case OPT_TRACE:
		if (*arg == '\0')
			return fail(p, "empty file name");
		o->trace = arg;
		return 0;
	case OPT_TRACE_LIMIT:
		if (parse_int(p, arg, 1, 1000000000, &v))
			return -1;
		o->trace_limit = (uint64_t)v;
		return 0;
	case OPT_VERIFY:
		o->verify = true;
		return 0;
	case OPT_HEADLESS:
		*headless = true;
		return 0;
	case OPT_LIST:
		*list = true;
		return 0;
	case OPT_WORKER:
		return parse_worker(p, arg, o);
	case 'h':
		o->role = GD_ROLE_HELP;
		return 0;
	case 'V':
		o->role = GD_ROLE_VERSION;
		return 0;
	default:
		return fail(p, "unknown option");
	}
}

/* Checks that need every option: bounds relative to each other. */
static int check_together(struct parser *p, struct gd_opts *o)
{
	p->opt = "--procs";
	if (o->procs > o->max_procs)
		return fail(p, "%d is more than --max-procs %d", o->procs, o->max_procs);
	p->opt = "--sweep";
	for (int i = 0; i < o->nsweep; i++)
		if (o->sweep[i] > o->max_procs)
			return fail(p, "count %d is more than --max-procs %d", o->sweep[i], o->max_procs);
	return 0;
}

int opts_parse(int argc, char **argv, struct gd_opts *o, char *err, size_t errlen)
{
	struct parser p = { err, errlen, "" };
	bool headless = false, list = false;
	char optname[64];
	defaults(o);
	err[0] = '\0';
	optind = 0; /* glibc: a full re-initialisation, so the parser can run again */
	opterr = 0;
	for (;;) {
		int li = -1;
		int c = getopt_long(argc, argv, short_opts, long_opts, &li);
		if (c == -1)
			break;
		const char *cur = optind > 0 && optind <= argc ? argv[optind - 1] : "";
		if (li >= 0)
			snprintf(optname, sizeof(optname), "--%s", long_opts[li].name);
		else if (c != '?' && c != ':')
			snprintf(optname, sizeof(optname), "-%c", c);
		else
			snprintf(optname, sizeof(optname), "%.60s", cur);
		p.opt = optname;
		if (c == '?') {
			if (optopt && optopt < 256 && cur[0] == '-' && cur[1] != '-')
				snprintf(optname, sizeof(optname), "-%c", optopt);
			return fail(&p, "unknown option (see --help)");
		}
		if (c == ':')
			return fail(&p, "missing value");
		if (parse_one(&p, c, optarg, o, &headless, &list))
			return -1;
	}
	if (optind < argc) {
		p.opt = argv[optind];
		return fail(&p, "unexpected argument (see --help)");
	}
	if (o->role == GD_ROLE_HELP || o->role == GD_ROLE_VERSION || o->role == GD_ROLE_WORKER)
		return 0;
	if (list)
		o->role = GD_ROLE_LIST;
	else if (headless)
		o->role = GD_ROLE_HEADLESS;
	return check_together(&p, o);
}

int opts_worker_argv(const struct gd_opts *o, const char *exe, const char *shm, uint64_t gen, unsigned slot,
                     pid_t parent, char **argv, int max, char *buf, size_t buflen)
{
	int n = 0;
	size_t used = 0;
	char tmp[256];
#define ARG(...)                                                                  \
	do {                                                                      \
		int len_ = snprintf(tmp, sizeof(tmp), __VA_ARGS__);               \
		if (len_ < 0 || used + (size_t)len_ + 1 > buflen || n + 1 >= max) \
			return -1;                                                \
		argv[n++] = memcpy(buf + used, tmp, (size_t)len_ + 1);            \
		used += (size_t)len_ + 1;                                         \
	} while (0)
	ARG("%s", exe);
	ARG("--worker=%s,%016" PRIx64 ",%u,%d", shm, gen, slot, (int)parent);
	if (o->platform >= 0)
		ARG("--device=%d:%d", o->platform, o->device);
	ARG("--size=%u", o->size);
	ARG("--launches=%u", o->launches);
	if (o->dtype != GD_DT_AUTO)
		ARG("--dtype=%s", gd_dtype_name(o->dtype));
	ARG("--mode=%s", gd_mode_name(o->mode));
	if (o->verify)
		ARG("--verify");
#undef ARG
	argv[n] = NULL;
	return n;
}

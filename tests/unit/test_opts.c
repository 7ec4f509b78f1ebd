/* test_opts.c: the option parser: every bad-input case of a table is refused with a message
 * that names the option (options that do not apply, abbreviated internal options, ambiguous
 * prefixes, values given to flags, numbers with whitespace or a sign among them); good command
 * lines give the documented values; every option of the option table keeps its range, default,
 * --help line and the uses it applies to. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "gputop/opts.h"
#include "tap.h"

#define MAXARGS 40

static int parse_args(struct gd_opts *o, char *err, size_t errlen, ...);

static int parse(const char *line, struct gd_opts *o, char *err, size_t errlen)
{
	static char copy[512];
	char *argv[MAXARGS];
	int argc = 0;
	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = "gputop-decode";
	for (char *tok = strtok(copy, " "); tok && argc < MAXARGS - 1; tok = strtok(NULL, " "))
		argv[argc++] = strcmp(tok, "''") == 0 ? "" : tok;
	argv[argc] = NULL;
	return opts_parse(argc, argv, o, err, errlen);
}

/* A bad command line and a word its message must contain. */
static const struct {
	const char *args, *mentions;
} bad[] = {
	{ "--bogus", "--bogus" },
	{ "-x", "-x" },
	{ "--procs", "--procs" },
	{ "-n", "-n" },
	{ "--procs abc", "not a whole number" },
	{ "--procs -1", "out of range" },
	{ "--procs 65", "--max-procs" },
	{ "--procs 1.5", "not a whole number" },
	{ "--procs 99999999999999999999", "out of range" },
	{ "--max-procs 0", "out of range" },
	{ "--max-procs 257", "out of range" },
	{ "--device 0", "PLATFORM:DEVICE" },
	{ "--device a:b", "PLATFORM:DEVICE" },
	{ "--device 0:", "PLATFORM:DEVICE" },
	{ "--device -1:0", "PLATFORM:DEVICE" },
	{ "--device 0:0:0", "PLATFORM:DEVICE" },
	{ "--size 0", "out of range" },
	{ "--size 134217729", "out of range" },
	{ "--size 1e5", "not a whole number" },
	{ "--size ''", "not a whole number" },
	{ "--launches 0", "out of range" },
	{ "--launches 1001", "out of range" },
	{ "--dtype f16", "unknown value" },
	{ "--dtype ''", "unknown value" },
	{ "--mode turbo", "unknown value" },
	{ "--interval 0.01", "out of range" },
	{ "--interval 61", "out of range" },
	{ "--interval nan", "not a number" },
	{ "--interval inf", "not a number" },
	{ "--interval 1s", "not a number" },
	{ "--duration 0", "out of range" },
	{ "--duration -5", "out of range" },
	{ "--format xml", "unknown value" },
	{ "--output ''", "empty" },
	{ "--sweep ''", "empty" },
	{ "--sweep 1,,2", "comma-separated" },
	{ "--sweep 1,2,", "comma-separated" },
	{ "--sweep ,1", "comma-separated" },
	{ "--sweep 0,1", "out of range" },
	{ "--sweep 1,x", "comma-separated" },
	{ "--sweep 2,100 --max-procs 64", "--max-procs" },
	{ "--trace ''", "empty" },
	{ "--trace-limit 0", "out of range" },
	{ "--headless extra", "unexpected argument" },
	{ "--verify=1", "--verify" },
	{ "--profile some", "unknown value" },
	{ "--queues 2", "--queues" },
	{ "--queues 17 -m pipelined", "out of range" },
	{ "--sweep 1x2", "--mode pipelined or kernel-only" },
	{ "--sweep 1x0 -m kernel-only", "out of range" },
	{ "--sweep 1x17 -m kernel-only", "out of range" },
	{ "--sweep 1x -m kernel-only", "comma-separated" },
	{ "--sweep x2 -m kernel-only", "comma-separated" },
	{ "--sample-every 0", "out of range" },
	/* Options that do not apply to what the command line asks for. */
	{ "--sweep 1 -n 3", "-n: does not apply to --sweep" },
	{ "--sweep 1 --procs=3", "--procs: does not apply to --sweep" },
	{ "--list-devices -o x --sweep 1", "does not apply to --list-devices" },
	{ "--list-devices --headless", "--headless: does not apply to --list-devices" },
	{ "--list-devices -n 2", "-n: does not apply to --list-devices" },
	/* Internal options: never abbreviated. */
	{ "--w x,1,1,1", "unknown option" },
	{ "--work=x,1,1,1", "unknown option" },
	{ "--measure", "unknown option" },
	{ "--measure-c", "unknown option" },
	/* Prefixes and flags. */
	{ "--tr x", "--tr: ambiguous option (could be --trace, --trace-limit)" },
	{ "--m 2", "--m: ambiguous option (could be --max-procs, --mode)" },
	{ "--ver", "--ver: ambiguous option (could be --verify, --version)" },
	{ "--headless=yes", "--headless: takes no value" },
	{ "--head=yes", "--headless: takes no value" },
	{ "--verif=1", "--verify: takes no value" },
	{ "--calibrate=", "--calibrate: takes no value" },
	{ "--nonesuch=1", "--nonesuch: unknown option" },
	/* Numbers: no sign where the range has no negative values. */
	{ "--procs -0", "out of range" },
	{ "--size +5", "not a whole number" },
	{ "--interval +0.5", "not a number" },
	{ "--interval 0x1p-2", "not a number" },
	{ "--interval .", "not a number" },
	{ "--interval 1e", "not a number" },
	{ "--device +0:0", "PLATFORM:DEVICE" },
	{ "--device 0:+0", "PLATFORM:DEVICE" },
	{ "--device 0:99999999999999999999", "PLATFORM:DEVICE" },
	/* Device lists: no duplicates, no empty entries, at most GD_DEVICES_MAX. */
	{ "--device 0:0,0:0", "0:0 is listed twice" },
	{ "--device 1:0,1:1,1:0", "1:0 is listed twice" },
	{ "--device 0:0,", "PLATFORM:DEVICE" },
	{ "--device ,0:0", "PLATFORM:DEVICE" },
	{ "--device 0:0,,0:1", "PLATFORM:DEVICE" },
	{ "--device 0:0;0:1", "PLATFORM:DEVICE" },
	{ "--device 1,2", "PLATFORM:DEVICE" },
	{ "--device 0:256", "PLATFORM:DEVICE" },
	{ "--device 0:0,0:1,0:2,0:3,0:4,0:5,0:6,0:7,0:8,0:9,0:10,0:11,0:12,0:13,0:14,0:15,0:16",
	  "more than 16 devices" },
	{ "--sweep +1", "comma-separated" },
	{ "--worker x,1,1,1 --worker=/a,-1,1,1", "malformed" },
	{ "--worker=/a,+1,1,1", "malformed" },
	{ "--worker=/a,1,-1,1", "malformed" },
	{ "--worker=/a,1,1,+1", "malformed" },
	{ "--worker=/a,,1,1", "malformed" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gd_opts o;
		char err[256];
		int rc = parse(bad[i].args, &o, err, sizeof(err));
		int one_line = strchr(err, '\n') == NULL;
		if (!tap_ok(rc == -1 && strstr(err, bad[i].mentions) && one_line, "refused: %s", bad[i].args))
			printf("#   rc %d, message: %s\n", rc, err);
	}
}

/* The one rule for every number: what strtol and strtod would skip or accept around the digits
 * (whitespace, a sign) is refused, for every numeric option alike. */
static void test_number_rule(void)
{
	static const struct {
		const char *opt, *value;
	} cases[] = {
		{ "-n", "\t2" },         { "-n", " 2" },        { "-n", "2 " },
		{ "-n", "\n2" },         { "-n", "+2" },        { "-s", " 5" },
		{ "-s", "5\t" },         { "-l", "\v3" },       { "-i", " 0.3" },
		{ "-i", "0.3 " },        { "-i", "+0.3" },      { "-i", "\f1" },
		{ "-D", " 1" },          { "-D", "+1" },        { "-d", " 0:0" },
		{ "-d", "+0:0" },        { "-d", "0: 0" },      { "-d", "0:0 " },
		{ "-d", "0 :0" },        { "--sweep", " 1" },   { "--sweep", "1 " },
		{ "--sweep", "1, 2" },   { "--sweep", "1x 2" }, { "--trace-limit", " 5" },
		{ "--max-procs", "+8" }, { "--queues", " 2" },  { "--sample-every", "4 " },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gd_opts o;
		char err[256];
		int rc = parse_args(&o, err, sizeof(err), "--headless", "-m", "pipelined", cases[i].opt,
		                    cases[i].value, (char *)NULL);
		if (strcmp(cases[i].opt, "--sweep") == 0)
			rc = parse_args(&o, err, sizeof(err), "-m", "pipelined", cases[i].opt, cases[i].value,
			                (char *)NULL);
		char shown[32]; /* the value on one line: control characters as '?' */
		snprintf(shown, sizeof(shown), "%s", cases[i].value);
		for (char *c = shown; *c; c++)
			*c = (unsigned char)*c < 0x20 ? '?' : *c;
		if (!tap_ok(rc == -1 && strstr(err, cases[i].opt) && !strchr(err, '\n'), "refused: %s '%s'",
		            cases[i].opt, shown))
			printf("#   rc %d, message: %s\n", rc, err);
	}
	struct gd_opts o;
	char err[256];
	tap_ok(parse_args(&o, err, sizeof(err), "--headless", "-n", "2", "-i", "0.3", "-d", "0:0", "-D", ".5",
	                  "-s", "007", (char *)NULL) == 0 &&
	           o.procs == 2 && o.interval == 0.3 && o.duration == 0.5 && o.size == 7,
	       "plain numbers parse (%s)", err);
	tap_ok(parse_args(&o, err, sizeof(err), "--headless", "-i", "5e-1", "-D", "1.", (char *)NULL) == 0 &&
	           o.interval == 0.5 && o.duration == 1,
	       "seconds with an exponent or a trailing point parse (%s)", err);
}

/* Which options apply to which use: the dashboard, --headless, --sweep, --list-devices. */
static void test_applies(void)
{
	struct gd_opts o;
	char err[256];
	tap_ok(parse("--sweep 1,2 -o x -f jsonl --trace t --trace-limit 5 --max-procs 4 -i 0.5 -D 1 --verify "
	             "--calibrate -d 0:0 -s 10 -l 2 -t f32 -m pipelined --queues 2 --profile full --headless",
	             &o, err, sizeof(err)) == 0,
	       "every option of a sweep applies to it (%s)", err);
	tap_ok(parse("--headless -n 2 -o - -f csv --trace t -D 1", &o, err, sizeof(err)) == 0 &&
	           strcmp(o.output, "-") == 0,
	       "-o - is accepted for standard output (%s)", err);
	tap_ok(parse("-n 2 --max-procs 4 --trace t --trace-limit 9 -D 3 --calibrate --verify", &o, err,
	             sizeof(err)) == 0 &&
	           o.role == GD_ROLE_DASHBOARD,
	       "the dashboard takes workers, a trace and a duration (%s)", err);
	tap_ok(parse("--list-devices", &o, err, sizeof(err)) == 0, "--list-devices alone");
	tap_ok(parse("--help -n 3 -o x", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_HELP,
	       "--help wins over everything else (the man page says so)");
	size_t n;
	const struct gd_optdef *t = opts_table(&n);
	int none = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].help && t[i].role != GD_ROLE_HELP && t[i].role != GD_ROLE_VERSION && !t[i].applies) {
			printf("# --%s applies to nothing\n", t[i].name);
			none++;
		}
	tap_ok(none == 0, "every listed option applies to some use");
}

/* Internal options are spelled in full, and only then. */
static void test_internal(void)
{
	struct gd_opts o;
	char err[256];
	tap_ok(parse_args(&o, err, sizeof(err), "--worker", "/gputop-decode.0.1.2.3,1,2,3", (char *)NULL) ==
	               0 &&
	           o.role == GD_ROLE_WORKER && o.worker.id == 2 && o.worker.supervisor == 3,
	       "--worker with its value apart (%s)", err);
	tap_ok(parse_args(&o, err, sizeof(err), "--wor", "--worker", (char *)NULL) == -1,
	       "an abbreviation whose value is the full name is still refused");
	tap_ok(parse_args(&o, err, sizeof(err), "--worker=/gputop-decode.0.1.2.3,1,2,3", "--measure-ceilin",
	                  (char *)NULL) == -1,
	       "an abbreviated internal option after a full one is refused");
}

static void test_defaults(void)
{
	struct gd_opts o;
	char err[256];
	tap_ok(parse("--headless", &o, err, sizeof(err)) == 0, "--headless alone parses");
	tap_ok(o.role == GD_ROLE_HEADLESS && o.procs == 1 && o.max_procs == 64 && o.size == 100000 &&
	           o.launches == 10 && o.dtype == GD_DT_AUTO && o.mode == GD_MODE_SEED && o.interval == 1.0 &&
	           o.format == GD_FMT_CSV && o.platform == -1 && o.duration == 0 && !o.verify,
	       "defaults are the man page's");
	tap_ok(parse("", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_DASHBOARD, "no option: dashboard");
}

static void test_good(void)
{
	struct gd_opts o;
	char err[256];
	int rc = parse("-n 4 --max-procs 8 -d 1:2 -s 4096 -l 3 -t f32 -m kernel-only -i 0.5 --headless -D 7 "
	               "-f jsonl -o log --verify",
	               &o, err, sizeof(err));
	tap_ok(rc == 0, "a full command line parses (%s)", err);
	tap_ok(o.procs == 4 && o.max_procs == 8 && o.platform == 1 && o.device == 2 && o.size == 4096 &&
	           o.launches == 3 && o.dtype == GD_DT_F32 && o.mode == GD_MODE_KERNEL_ONLY &&
	           o.interval == 0.5 && o.duration == 7 && o.format == GD_FMT_JSONL &&
	           strcmp(o.output, "log") == 0 && o.verify,
	       "every value lands in its field");
	rc = parse("--device 1:1,0:3,2:0 --headless", &o, err, sizeof(err));
	tap_ok(rc == 0 && o.devices.sel == GD_DEVSEL_LIST && o.devices.n == 3 &&
	           o.devices.list[1].platform == 0 && o.devices.list[1].index == 3 && o.platform == 1 &&
	           o.device == 1,
	       "--device P:D,P:D,P:D: a list, in order; the first is o.platform:o.device");
	tap_ok(parse("--device all --headless", &o, err, sizeof(err)) == 0 &&
	           o.devices.sel == GD_DEVSEL_ALL && o.platform == -1,
	       "--device all");
	tap_ok(parse("--device H200 --headless", &o, err, sizeof(err)) == 0 &&
	           o.devices.sel == GD_DEVSEL_NAME && strcmp(o.devices.name, "H200") == 0,
	       "--device NAME: a name substring");
	tap_ok(parse("--headless", &o, err, sizeof(err)) == 0 && o.devices.sel == GD_DEVSEL_DEFAULT,
	       "no --device: the default");
	rc = parse("--sweep 1,2,4,8 -D 3", &o, err, sizeof(err));
	tap_ok(rc == 0 && o.role == GD_ROLE_HEADLESS && o.nsweep == 4 && o.sweep[3].procs == 8 &&
	           o.sweep[3].queues == 0,
	       "--sweep implies headless");
	tap_ok(parse("--list-devices", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_LIST,
	       "--list-devices");
	tap_ok(parse("-h", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_HELP, "-h");
	tap_ok(parse("--version", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_VERSION, "--version");
	tap_ok(parse("--procs=0", &o, err, sizeof(err)) == 0 && o.procs == 0,
	       "--procs=0 (no worker at start)");
	rc = parse("-m kernel-only --sweep 1x4,2,16x1 --profile off --calibrate", &o, err, sizeof(err));
	tap_ok(rc == 0 && o.nsweep == 3 && o.sweep[0].procs == 1 && o.sweep[0].queues == 4 &&
	           o.sweep[1].procs == 2 && o.sweep[1].queues == 0 && o.sweep[2].procs == 16 &&
	           o.sweep[2].queues == 1 && o.profile == GD_PROF_OFF && o.calibrate,
	       "--sweep takes PxQ steps beside worker counts");
	tap_ok(parse("", &o, err, sizeof(err)) == 0 && o.profile == GD_PROF_SAMPLED && o.sample_every == 0 &&
	           opts_queues(&o) == 1,
	       "by default: sampled profiling with an adapting period, one queue");
	tap_ok(parse("-m pipelined", &o, err, sizeof(err)) == 0 && opts_queues(&o) == 4,
	       "the pipelined mode has 4 queues unless told otherwise");
	tap_ok(parse("--calibrate-child", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_CALIBRATE,
	       "--calibrate-child is the calibration's own role");
}

/* The worker's argument vector parses back into the same configuration. */
static void test_worker_roundtrip(void)
{
	struct gd_opts o, w = { .role = GD_ROLE_DASHBOARD };
	char err[256], buf[2048];
	char *argv[24];
	const struct gd_worker_args wa = {
		.shm = "/gputop-decode.0.1.2.3", .gen = 0xfeed, .id = 3, .supervisor = 4242
	};
	parse("-d 0:1 -s 777 -l 5 -t f64 -m pipelined --verify", &o, err, sizeof(err));
	int n = opts_worker_argv(&o, "/bin/gputop-decode", &wa, NULL, argv, 24, buf, sizeof(buf));
	tap_ok(n > 0 && opts_parse(n, argv, &w, err, sizeof(err)) == 0, "worker arguments parse (%s)", err);
	tap_ok(w.role == GD_ROLE_WORKER && strcmp(w.worker.shm, wa.shm) == 0 && w.worker.gen == 0xfeed &&
	           w.worker.id == 3 && w.worker.supervisor == 4242,
	       "the worker role gets its segment, generation, id and supervisor");
	tap_ok(w.platform == 0 && w.device == 1 && w.size == 777 && w.launches == 5 && w.dtype == GD_DT_F64 &&
	           w.mode == GD_MODE_PIPELINED && w.verify,
	       "the worker gets the supervisor's configuration");
	/* Several devices: each worker is started on its own, given one device. */
	parse("-d 0:1,2:3", &o, err, sizeof(err));
	struct gd_devref second = o.devices.list[1];
	n = opts_worker_argv(&o, "/bin/gputop-decode", &wa, &second, argv, 24, buf, sizeof(buf));
	tap_ok(n > 0 && opts_parse(n, argv, &w, err, sizeof(err)) == 0 && w.platform == 2 && w.device == 3 &&
	           w.devices.n == 1,
	       "a worker gets the one device it was placed on (%s)", err);
	tap_ok(parse("--worker=nocomma", &w, err, sizeof(err)) == -1,
	       "malformed worker arguments are refused");
}

/* A 300-character executable path: the arguments are built where they fit, refused where not,
 * and nothing is written past the buffer either way. */
static void test_worker_long_exe(void)
{
	struct gd_opts o, w;
	char err[256], exe[301], guarded[2048 + 64];
	char *argv[24];
	const struct gd_worker_args wa = {
		.shm = "/gputop-decode.0.1.2.3", .gen = 1, .id = 1, .supervisor = 42
	};
	memset(exe, 'x', sizeof(exe) - 1);
	exe[0] = '/';
	exe[sizeof(exe) - 1] = '\0';
	parse("", &o, err, sizeof(err));

	memset(guarded, '#', sizeof(guarded));
	int n = opts_worker_argv(&o, exe, &wa, NULL, argv, 24, guarded, 2048);
	tap_ok(n > 0 && strcmp(argv[0], exe) == 0 && opts_parse(n, argv, &w, err, sizeof(err)) == 0 &&
	           w.role == GD_ROLE_WORKER && w.worker.supervisor == 42,
	       "a 300-character executable path fits a 2048-byte buffer and parses back");
	tap_ok(guarded[2048] == '#', "nothing is written past the buffer");

	for (size_t len = 0; len <= 340; len += 20) {
		memset(guarded, '#', sizeof(guarded));
		n = opts_worker_argv(&o, exe, &wa, NULL, argv, 24, guarded, len);
		if (!tap_ok((n == -1 || strcmp(argv[0], exe) == 0) && guarded[len] == '#',
		            "a %zu-byte buffer: refused, or a correct argument vector, within bounds", len))
			printf("#   returned %d\n", n);
	}
	tap_ok(opts_worker_argv(&o, exe, &wa, NULL, argv, 2, guarded, 2048) == -1,
	       "too few argv entries: refused");
}

/* ---- The option table ---- */

static int parse_args(struct gd_opts *o, char *err, size_t errlen, ...)
{
	char *argv[MAXARGS];
	int argc = 0;
	argv[argc++] = "gputop-decode";
	va_list ap;
	va_start(ap, errlen);
	for (char *a; argc < MAXARGS - 1 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return opts_parse(argc, argv, o, err, errlen);
}

static const struct gd_optdef *find(const char *name)
{
	size_t n;
	const struct gd_optdef *t = opts_table(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

static bool numeric(const struct gd_optdef *d)
{
	return d->kind == GD_OPT_WHOLE || d->kind == GD_OPT_SECONDS || d->kind == GD_OPT_DEVICE ||
	       d->kind == GD_OPT_SWEEP;
}

/* --NAME=V as typed, V being a number of the option's kind. */
static void typed(char *s, size_t n, const struct gd_optdef *d, double v)
{
	if (d->kind == GD_OPT_SECONDS)
		snprintf(s, n, "--%s=%.17g", d->name, v);
	else if (d->kind == GD_OPT_DEVICE)
		snprintf(s, n, "--%s=%.0f:%.0f", d->name, v, v);
	else
		snprintf(s, n, "--%s=%.0f", d->name, v);
}

/* The smallest step out of range: one for whole numbers, the next double for seconds. */
static double outside(const struct gd_optdef *d, double v, double dir)
{
	return d->kind == GD_OPT_SECONDS ? nextafter(v, dir * INFINITY) : v + dir;
}

/* Parses V for option d, with the option that caps it (if any) at its largest. */
static int parse_value(const struct gd_optdef *d, double v, struct gd_opts *o, char *err, size_t errlen)
{
	char arg[64], cap[64] = "--headless";
	typed(arg, sizeof(arg), d, v);
	if (!(d->applies & GD_USE_HEADLESS))
		snprintf(cap, sizeof(cap), "--sweep=1"); /* the options only a sweep takes (--repeat) */
	if (d->bound)
		typed(cap, sizeof(cap), find(d->bound), find(d->bound)->max);
	/* pipelined: the mode every numeric option applies to (--queues, --gen-threads). */
	return parse_args(o, err, errlen, cap, "--mode=pipelined", arg, (char *)NULL);
}

static void test_table_ranges(const struct gd_optdef *d)
{
	struct gd_opts o;
	char err[256], name[64];
	snprintf(name, sizeof(name), "--%s", d->name);
	const double in[2] = { d->min, d->max }, out[2] = { outside(d, d->min, -1), outside(d, d->max, 1) };
	for (int i = 0; i < 2; i++)
		if (!tap_ok(parse_value(d, in[i], &o, err, sizeof(err)) == 0, "%s: its %s %.15g parses", name,
		            i ? "maximum" : "minimum", in[i]))
			printf("#   message: %s\n", err);
	for (int i = 0; i < 2; i++) {
		int rc = parse_value(d, out[i], &o, err, sizeof(err));
		if (!tap_ok(rc == -1 && strstr(err, name) && !strchr(err, '\n'),
		            "%s: %.17g is refused, naming it", name, out[i]))
			printf("#   rc %d, message: %s\n", rc, err);
	}
}

/* Typing the default gives the option's field what no option gives it. */
static void test_table_default(const struct gd_optdef *d)
{
	struct gd_opts given, none;
	char err[256], arg[64];
	snprintf(arg, sizeof(arg), "--%s=%s", d->name, d->def);
	/* --headless, or a sweep for the options that only a sweep takes (--repeat). */
	const char *use = d->applies & GD_USE_HEADLESS ? "--headless" : "--sweep=1";
	int rc = parse_args(&given, err, sizeof(err), use, arg, (char *)NULL);
	parse_args(&none, err, sizeof(err), use, (char *)NULL);
	tap_ok(rc == 0 && memcmp((char *)&given + d->offset, (char *)&none + d->offset, d->bytes) == 0,
	       "--%s: the default %s is what no option gives", d->name, d->def);
}

static void test_table_choice(const struct gd_optdef *d)
{
	struct gd_opts o;
	char err[256], arg[64];
	int good = 0;
	for (int i = (int)d->min; i <= (int)d->max; i++) {
		snprintf(arg, sizeof(arg), "--%s=%s", d->name, d->names[i]);
		good += parse_args(&o, err, sizeof(err), "--headless", arg, (char *)NULL) == 0;
	}
	tap_ok(good == (int)(d->max - d->min) + 1, "--%s: every name parses", d->name);
	snprintf(arg, sizeof(arg), "--%s=nonesuch", d->name);
	tap_ok(parse_args(&o, err, sizeof(err), "--headless", arg, (char *)NULL) == -1 &&
	           strstr(err, "nonesuch"),
	       "--%s: an unknown name is refused", d->name);
}

/* The table itself: names and letters distinct, bounds naming whole-number options, fields of a
 * size the parser stores. */
static void test_table_shape(void)
{
	size_t n;
	const struct gd_optdef *t = opts_table(&n);
	int dup = 0, bad_bound = 0, bad_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++)
			dup +=
			    strcmp(t[i].name, t[j].name) == 0 || (t[i].letter && t[i].letter == t[j].letter);
		bad_bound += t[i].bound && (!find(t[i].bound) || find(t[i].bound)->kind != GD_OPT_WHOLE);
		if (t[i].kind == GD_OPT_WHOLE || t[i].kind == GD_OPT_CHOICE)
			bad_bytes += t[i].bytes != 4 && t[i].bytes != 8;
	}
	tap_ok(n > 0 && dup == 0, "%zu options, names and letters distinct", n);
	tap_ok(bad_bound == 0, "every bound names a whole-number option");
	tap_ok(bad_bytes == 0, "whole-number and choice fields are 4 or 8 bytes");
}

/* --help lists every option but the internal one, with its default. */
static void test_table_help(void)
{
	size_t n;
	const struct gd_optdef *t = opts_table(&n);
	const char *help = opts_usage();
	char want[96];
	int missing = 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "--%s ", t[i].name);
		bool listed = strstr(help, want) != NULL;
		if (listed != (t[i].help != NULL)) {
			printf("# --%s is %s\n", t[i].name, listed ? "listed" : "not listed");
			missing++;
		}
		const char *def = t[i].def ? t[i].def : t[i].def_text;
		snprintf(want, sizeof(want), "[%s]", def ? def : "");
		if (def && !strstr(help, want)) {
			printf("# %s is not shown\n", want);
			missing++;
		}
	}
	size_t len = strlen(help);
	tap_ok(missing == 0 && len > 0 && help[len - 1] == '\n',
	       "--help lists every option with its default");
}

static void test_table(void)
{
	size_t n;
	const struct gd_optdef *t = opts_table(&n);
	test_table_shape();
	for (size_t i = 0; i < n; i++) {
		if (numeric(&t[i]))
			test_table_ranges(&t[i]);
		if (t[i].def)
			test_table_default(&t[i]);
		if (t[i].kind == GD_OPT_CHOICE)
			test_table_choice(&t[i]);
	}
	test_table_help();
}

int main(void)
{
	test_bad();
	test_number_rule();
	test_applies();
	test_internal();
	test_defaults();
	test_good();
	test_worker_roundtrip();
	test_worker_long_exe();
	test_table();
	return tap_done();
}

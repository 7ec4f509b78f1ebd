/* test_opts.c: the option parser: every bad-input case of a table is refused with a message
 * that names the option (options that do not apply, abbreviated internal options, ambiguous
 * prefixes, values given to flags, numbers with whitespace or a sign among them); good command
 * lines give the documented values; every option of the option table keeps its range, default,
 * --help line and the uses it applies to. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/opts.h"
#include "output/sink.h"
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
	{ "--generator gauss", "unknown value 'gauss' (expected ziggurat, box-muller)" },
	{ "--generator auto", "unknown value" },
	{ "--generator ''", "unknown value" },
	{ "--generator", "--generator" },
	{ "--gen 2", "--gen: ambiguous option (could be --gen-threads, --generator)" },
	{ "--queues 2", "--queues" },
	{ "--queues 17 -m pipelined", "out of range" },
	{ "--sweep 1x2", "--mode pipelined or kernel-only" },
	{ "--sweep 1x0 -m kernel-only", "out of range" },
	{ "--sweep 1x17 -m kernel-only", "out of range" },
	{ "--sweep 1x -m kernel-only", "comma-separated" },
	{ "--sweep x2 -m kernel-only", "comma-separated" },
	{ "--sample-every 0", "out of range" },
	{ "--headless --fields t_s,bogus", "--fields: unknown field 'bogus'" },
	{ "--headless --fields ''", "--fields: an empty field name" },
	{ "--fields kind,,t_s", "--fields: an empty field name" },
	{ "--headless --fields kind,kind", "--fields: field 'kind' is listed twice" },
	{ "--headless --fields speedup", "--fields: unknown field 'speedup'" },
	{ "--fields t_s --sweep 1", "--fields: unknown field 't_s' (the sweep rows'" },
	{ "--list-devices --fields t_s", "--fields: does not apply to --list-devices" },
	{ "--list-devices --no-header", "--no-header: does not apply to --list-devices" },
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
	tap_ok(parse("-m pipelined", &o, err, sizeof(err)) == 0 && opts_queues(&o) == 8,
	       "the pipelined mode has 8 queues unless told otherwise");
	tap_ok(parse("--calibrate-child", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_CALIBRATE,
	       "--calibrate-child is the calibration's own role");
	rc = parse("--headless -f jsonl --fields kind,t_s,mbit_s --no-header", &o, err, sizeof(err));
	tap_ok(rc == 0 && o.fields.n == 3 && !o.fields.sweep && o.no_header &&
	           strcmp(o.fields_text, "kind,t_s,mbit_s") == 0,
	       "--fields: three columns of the frame rows; --no-header (%s)", err);
	rc = parse("--fields speedup,procs --sweep 1,2", &o, err, sizeof(err));
	tap_ok(rc == 0 && o.fields.n == 2 && o.fields.sweep && !o.no_header,
	       "--fields before --sweep: the sweep rows' fields (%s)", err);
	tap_ok(parse("--headless", &o, err, sizeof(err)) == 0 && o.fields.n == 0 && !o.no_header,
	       "no --fields: every field, with the header");
}

/* --generator: the mode's own unless given, resolved into the workload, never auto. */
static void test_generator(void)
{
	static const struct {
		const char *args;
		enum gd_generator want;
	} cases[] = {
		{ "--headless", GD_GEN_BOX_MULLER },
		{ "", GD_GEN_BOX_MULLER },
		{ "-m seed", GD_GEN_BOX_MULLER },
		{ "-m pipelined", GD_GEN_ZIGGURAT },
		{ "-m kernel-only", GD_GEN_ZIGGURAT },
		{ "--generator ziggurat", GD_GEN_ZIGGURAT },
		{ "-m seed --generator=ziggurat", GD_GEN_ZIGGURAT },
		{ "-m pipelined --generator box-muller", GD_GEN_BOX_MULLER },
		{ "--generator box-muller -m kernel-only", GD_GEN_BOX_MULLER },
		{ "--sweep 1,2 -m pipelined", GD_GEN_ZIGGURAT },
		{ "--sweep 1,2 --generator ziggurat", GD_GEN_ZIGGURAT },
		{ "--kernel /k.cl", GD_GEN_BOX_MULLER },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gd_opts o;
		char err[256];
		int rc = parse(cases[i].args, &o, err, sizeof(err));
		struct gd_workload w = opts_workload(&o, 0);
		if (!tap_ok(rc == 0 && opts_generator(&o) == cases[i].want && w.generator == cases[i].want,
		            "'%s': generator %s", cases[i].args, gd_generator_name(cases[i].want)))
			printf("#   rc %d (%s), got %s\n", rc, err, gd_generator_name(opts_generator(&o)));
	}
	struct gd_opts o;
	char err[256];
	tap_ok(parse("-m pipelined", &o, err, sizeof(err)) == 0 && o.generator == GD_GEN_AUTO,
	       "not given: the option's field stays auto until resolved");
	tap_ok(gd_generator_of(GD_GEN_AUTO, GD_MODE_SEED) == GD_GEN_BOX_MULLER &&
	           gd_generator_of(GD_GEN_AUTO, GD_MODE_PIPELINED) == GD_GEN_ZIGGURAT &&
	           gd_generator_of(GD_GEN_AUTO, GD_MODE_KERNEL_ONLY) == GD_GEN_ZIGGURAT &&
	           gd_generator_of(GD_GEN_ZIGGURAT, GD_MODE_SEED) == GD_GEN_ZIGGURAT &&
	           gd_generator_of(GD_GEN_BOX_MULLER, GD_MODE_PIPELINED) == GD_GEN_BOX_MULLER,
	       "gd_generator_of: box-muller for seed, ziggurat for the others, a given one kept");
}

/* ---- A child's command line (spec_child_argv) parses back ---- */

/* The workload a run hands its workers, from its parsed options, resolved as the supervisor
 * resolves it (the mode's queues, a share of 8 cores). */
static struct gd_workload workload_of(const struct gd_opts *o)
{
	return opts_workload(o, opts_gen_threads(o, 8));
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The kernel and the one device a child's parsed options give; the first difference named. */
static const char *kernel_differs(const struct gd_opts *c, const struct gd_kspec *k, struct gd_devref dev)
{
	if (c->platform != dev.platform || c->device != dev.index || c->devices.sel != GD_DEVSEL_LIST ||
	    c->devices.n != 1)
		return "device";
	if (c->size != k->size || c->launches != k->launches || c->dtype != k->dtype)
		return "size, launches or dtype";
	if (!same_text(c->kernel, k->source) || !same_text(c->kernel_name, k->name) ||
	    !same_text(c->build_options, k->build_options))
		return "kernel, kernel-name or build-options";
	for (int i = 0; i < k->nargs || i < c->nkargs; i++)
		if (c->nkargs != k->nargs || !same_text(c->kargs[i], k->args[i]))
			return "args";
	return NULL;
}

/* How a worker's parsed options run the kernel, against the workload it was started with. */
static const char *work_differs(const struct gd_opts *c, const struct gd_workload *w)
{
	if (c->mode != w->mode || c->profile != w->profile || c->sample_every != w->sample_every)
		return "mode, profile or sample-every";
	if (opts_queues(c) != w->queues || c->queues != w->queues || c->gen_threads != w->gen_threads ||
	    c->verify != w->verify)
		return "queues, gen-threads or verify";
	if (c->generator != w->generator || opts_generator(c) != w->generator)
		return "generator";
	return NULL;
}

/* Writes the command line of a child started with these options on dev (a worker where wa is
 * set, else the calibration) and parses it back into c; 0, or -1 with err filled. */
static int child_parse(const struct gd_workload *work, struct gd_devref dev, const struct gd_worker_args *wa,
                       struct gd_argv *a, struct gd_opts *c, char *err, size_t errlen)
{
	const struct gd_child child = { .work = work, .dev = dev, .wa = wa };
	snprintf(err, errlen, "spec_child_argv refused");
	if (spec_child_argv(a, "/bin/gputop-decode", &child) != 0)
		return -1;
	return opts_parse(a->argc, a->argv, c, err, errlen);
}

/* One command line: its worker's and its calibration's options are the supervisor's. */
static void roundtrip(const char *what, struct gd_opts *o, struct gd_devref dev)
{
	static const struct gd_worker_args wa = {
		.shm = "/gputop-decode.0.1.2.3", .gen = 0xfeed, .id = 3, .supervisor = 4242
	};
	static struct gd_argv a;
	struct gd_opts c;
	char err[256];
	const struct gd_workload work = workload_of(o);

	int rc = child_parse(&work, dev, &wa, &a, &c, err, sizeof(err));
	tap_ok(rc == 0 && c.role == GD_ROLE_WORKER, "%s: the worker's arguments parse (%s)", what, err);
	tap_ok(strcmp(c.worker.shm, wa.shm) == 0 && c.worker.gen == 0xfeed && c.worker.id == 3 &&
	           c.worker.supervisor == 4242,
	       "%s: the worker role gets its segment, generation, id and supervisor", what);
	const char *k = kernel_differs(&c, &work.kernel, dev);
	k = k ? k : work_differs(&c, &work);
	tap_ok(!k, "%s: the worker gets the supervisor's kernel and workload (%s differs)", what,
	       k ? k : "none");

	rc = child_parse(&work, dev, NULL, &a, &c, err, sizeof(err));
	tap_ok(rc == 0 && c.role == GD_ROLE_CALIBRATE, "%s: the calibration's arguments parse (%s)", what,
	       err);
	k = kernel_differs(&c, &work.kernel, dev);
	tap_ok(!k && c.mode == GD_MODE_SEED && c.queues == 0 && c.gen_threads == -1 && !c.verify,
	       "%s: the calibration gets the kernel alone (%s differs)", what, k ? k : "none");
}

static void test_child_roundtrip(void)
{
	struct gd_opts o, w;
	char err[256];
	tap_ok(parse("-d 0:1 -s 777 -l 5 -t f64 -m pipelined --verify --profile full --sample-every 9 "
	             "--queues 3 --gen-threads 2",
	             &o, err, sizeof(err)) == 0,
	       "the decode kernel's command line parses (%s)", err);
	roundtrip("decode, pipelined", &o, (struct gd_devref){ 0, 1 });
	tap_ok(parse("-m pipelined --profile off", &o, err, sizeof(err)) == 0,
	       "a command line of defaults parses (%s)", err);
	roundtrip("defaults, pipelined", &o, (struct gd_devref){ 0, 0 });
	tap_ok(parse_args(&o, err, sizeof(err), "-d", "2:3", "--kernel", "/k/scale.cl", "--kernel-name=scale",
	                  "--build-options", "-DTILE=8 -cl-fast-relaxed-math", "--arg", "a=2.5",
	                  "--arg=x=len:4", "-m", "kernel-only", "--queues=2", "-s", "64", "-l", "3",
	                  (char *)NULL) == 0,
	       "a user kernel's command line parses (%s)", err);
	roundtrip("user kernel, kernel-only", &o, (struct gd_devref){ 2, 3 });
	tap_ok(parse_args(&o, err, sizeof(err), "--kernel=/k.cl", "--build-options=", (char *)NULL) == 0,
	       "empty build options parse (%s)", err);
	roundtrip("empty build options", &o, (struct gd_devref){ 0, 0 });
	/* Several devices: each child is started on its own, given one device. */
	tap_ok(parse("-d 0:1,2:3", &o, err, sizeof(err)) == 0, "a device list parses (%s)", err);
	roundtrip("the second of two devices", &o, o.devices.list[1]);
	/* The generator: given to the worker as resolved, whichever the mode's own would be. */
	tap_ok(parse("-m seed", &o, err, sizeof(err)) == 0, "a seed command line parses (%s)", err);
	roundtrip("seed, its own generator", &o, (struct gd_devref){ 0, 0 });
	tap_ok(parse("-m seed --generator ziggurat", &o, err, sizeof(err)) == 0,
	       "seed with the ziggurat parses (%s)", err);
	roundtrip("seed, the ziggurat", &o, (struct gd_devref){ 0, 0 });
	tap_ok(parse("-m kernel-only --generator box-muller", &o, err, sizeof(err)) == 0,
	       "kernel-only with box-muller parses (%s)", err);
	roundtrip("kernel-only, box-muller", &o, (struct gd_devref){ 0, 0 });
	tap_ok(parse("--worker=nocomma", &w, err, sizeof(err)) == -1,
	       "malformed worker arguments are refused");
}

/* A long executable path: the command line is written where it fits and refused where it does
 * not, never with an argument left out. */
static void test_child_long_exe(void)
{
	static char exe[sizeof(((struct gd_argv *)0)->buf) + 1];
	static struct gd_argv a;
	const struct gd_worker_args wa = {
		.shm = "/gputop-decode.0.1.2.3", .gen = 1, .id = 1, .supervisor = 42
	};
	struct gd_opts o, w;
	char err[256];
	parse("", &o, err, sizeof(err));
	const struct gd_workload work = workload_of(&o);
	const struct gd_child child = { .work = &work, .dev = { 0, 0 }, .wa = &wa };

	memset(exe, 'x', 300);
	exe[0] = '/';
	tap_ok(spec_child_argv(&a, exe, &child) == 0 && strcmp(a.argv[0], exe) == 0 &&
	           opts_parse(a.argc, a.argv, &w, err, sizeof(err)) == 0 && w.role == GD_ROLE_WORKER &&
	           w.worker.supervisor == 42,
	       "a 300-character executable path fits and parses back (%s)", err);

	int wrong = 0;
	for (size_t len = sizeof(a.buf) - 400; len < sizeof(exe); len += 20) {
		memset(exe, 'x', len);
		exe[0] = '/';
		exe[len] = '\0';
		int rc = spec_child_argv(&a, exe, &child);
		if (rc == 0 &&
		    (strcmp(a.argv[0], exe) != 0 || a.argv[a.argc] != NULL ||
		     opts_parse(a.argc, a.argv, &w, err, sizeof(err)) != 0 || w.worker.supervisor != 42))
			wrong++;
	}
	tap_ok(wrong == 0, "near the buffer's end: refused, or a whole command line that parses back");
	memset(exe, 'x', sizeof(exe) - 1);
	exe[sizeof(exe) - 1] = '\0';
	tap_ok(spec_child_argv(&a, exe, &child) == -1, "a path longer than the buffer is refused");
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

/* "--" where the option needs a program to observe (--observe-via), else NULL: the end of the
 * arguments, so that "true" after it is the program. */
static const char *command_of(const struct gd_optdef *d)
{
	return strcmp(d->name, "observe-via") == 0 ? "--" : NULL;
}

/* Typing the default gives the option's field what no option gives it. */
static void test_table_default(const struct gd_optdef *d)
{
	struct gd_opts given, none;
	char err[256], arg[64];
	snprintf(arg, sizeof(arg), "--%s=%s", d->name, d->def);
	/* --headless, or a sweep for the options that only a sweep takes (--repeat). */
	const char *use = d->applies & GD_USE_HEADLESS ? "--headless" : "--sweep=1";
	int rc = parse_args(&given, err, sizeof(err), use, arg, command_of(d), "true", (char *)NULL);
	parse_args(&none, err, sizeof(err), use, command_of(d), "true", (char *)NULL);
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
		good += parse_args(&o, err, sizeof(err), "--headless", arg, command_of(d), "true",
		                   (char *)NULL) == 0;
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

/* A choice's names are the ones the rest of the tool writes (spec.c): a child's --mode, --dtype,
 * --profile and --generator parse back. */
static void test_names(void)
{
	const struct gd_optdef *mode = find("mode"), *dtype = find("dtype"), *profile = find("profile");
	const struct gd_optdef *gen = find("generator");
	int wrong = 0;
	for (int i = 0; i < GD_GEN_COUNT; i++)
		wrong += strcmp(gen->names[i], gd_generator_name((enum gd_generator)i)) != 0;
	wrong += gen->min != GD_GEN_ZIGGURAT || gen->max != GD_GEN_COUNT - 1;
	for (int i = 0; i < GD_MODE_COUNT; i++)
		wrong += strcmp(mode->names[i], gd_mode_name((enum gd_mode)i)) != 0;
	for (int i = 0; i < GD_DT_COUNT; i++)
		wrong += strcmp(dtype->names[i], gd_dtype_name((enum gd_dtype)i)) != 0 ||
		         strcmp(dtype->names[i], gd_dtype_info((enum gd_dtype)i)->name) != 0;
	for (int i = 0; i < GD_PROF_COUNT; i++)
		wrong += strcmp(profile->names[i], gd_profile_name((enum gd_profile)i)) != 0;
	tap_ok(wrong == 0 && mode->max == GD_MODE_COUNT - 1 && dtype->max == GD_DT_COUNT - 1 &&
	           profile->max == GD_PROF_COUNT - 1,
	       "--mode, --dtype, --profile and --generator take every value by the name gd_*_name gives it");
}

/* The run header's options: the ones that apply to the run, each as resolved, text escaped. */
static void test_json(void)
{
	struct gd_opts o;
	char err[256];
	struct gd_text j = { 0 };
	tap_ok(parse_args(&o, err, sizeof(err), "--headless", "-n", "2", "-D", "3", "-o", "a\"b\\c\x01", "-m",
	                  "pipelined", (char *)NULL) == 0,
	       "a headless command line parses (%s)", err);
	opts_json(&o, &j);
	tap_ok(j.p && strncmp(j.p, "{\"procs\":2,\"max-procs\":64,", 26) == 0 && j.p[j.n - 1] == '}' &&
	           strstr(j.p, ",\"output\":\"a\\\"b\\\\c?\",") && strstr(j.p, ",\"duration\":3,") &&
	           strstr(j.p, ",\"queues\":8,") && strstr(j.p, ",\"headless\":true,") &&
	           strstr(j.p, ",\"generator\":\"ziggurat\",") && strstr(j.p, ",\"device\":null,") &&
	           strstr(j.p, ",\"sample-every\":null,") && !strstr(j.p, "\"repeat\"") &&
	           !strstr(j.p, "\"list-devices\"") && !strstr(j.p, "\"worker\""),
	       "opts_json: %s", j.p ? j.p : "(nothing)");
	free(j.p);
	j = (struct gd_text){ 0 };
	text_json_string(&j, "q\"\\\t\x1f\x7f\xc3\xa9");
	tap_ok(j.p && strcmp(j.p, "\"q\\\"\\\\\\u0009\\u001f\x7f\xc3\xa9\"") == 0, "text_json_string: %s",
	       j.p ? j.p : "(nothing)");
	free(j.p);
}

/* --fields help and --help-fields ask for the list of fields, whatever else the line asks; the
 * list gives every field a help line, and its names are the ones --fields takes. */
static void test_fields_help(void)
{
	struct gd_opts o;
	char err[256];
	tap_ok(parse("--headless -n 2 --fields help", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_HELP,
	       "--fields help is the help role, with a run's options (%s)", err);
	tap_ok(parse("--help-fields --sweep 1,2", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_HELP &&
	           opts_given(&o, "help-fields") && o.nsweep == 2,
	       "--help-fields too, --sweep kept for the sweep rows' list (%s)", err);
	tap_ok(parse("--headless --fields help,t_s", &o, err, sizeof(err)) != 0 &&
	           strstr(err, "unknown field 'help'"),
	       "help among other names is no field: %s", err);
	for (int sweep = 0; sweep < 2; sweep++) {
		struct gd_text t = { 0 }, names = { 0 };
		sink_fields_help(&t, sweep, "Mbit/s");
		int lines = 0, unhelped = 0;
		char *save = NULL;
		for (char *l = strtok_r(t.p, "\n", &save); l; l = strtok_r(NULL, "\n", &save), lines++) {
			if (lines < 2)
				continue; /* the title and the heads */
			text_printf(&names, "%s%.*s", names.n ? "," : "", (int)strcspn(l, " "), l);
			unhelped += strstr(l, "(no help)") != NULL || strlen(l) < 40;
		}
		struct gd_fields f;
		int rc = names.p ? sink_fields_parse(names.p, sweep, &f, err, sizeof(err)) : -1;
		tap_ok(lines > 20 && unhelped == 0 && rc == 0 && f.n == lines - 2,
		       "the %s fields' list: %d fields, each with help, each a --fields name (%s)",
		       sweep ? "sweep" : "log", lines - 2, rc ? err : "ok");
		free(t.p);
		free(names.p);
	}
}

int main(void)
{
	test_bad();
	test_number_rule();
	test_applies();
	test_internal();
	test_defaults();
	test_fields_help();
	test_good();
	test_generator();
	test_child_roundtrip();
	test_child_long_exe();
	test_names();
	test_json();
	test_table();
	return tap_done();
}

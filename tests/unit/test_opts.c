/* test_opts.c: the option parser: every bad-input case of a table is refused with a message
 * that names the option; good command lines give the documented values. */
#include <string.h>

#include "gputop/opts.h"
#include "tap.h"

#define MAXARGS 40

static int parse(const char *line, struct gd_opts *o, char *err, size_t errlen)
{
	static char copy[512];
	char *argv[MAXARGS];
	int argc = 0;
	strcpy(copy, line);
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

static void test_defaults(void)
{
	struct gd_opts o;
	char err[256];
	tap_ok(parse("--headless", &o, err, sizeof(err)) == 0, "--headless alone parses");
	tap_ok(o.role == GD_ROLE_HEADLESS && o.procs == 1 && o.max_procs == 64 && o.size == 100000 &&
	           o.launches == 10 && o.dtype == GD_DT_AUTO && o.mode == GD_MODE_SEED && o.interval == 1.0 &&
	           o.format == GD_FMT_CSV && o.platform == -1 && o.duration == 0 && !o.verify,
	       "defaults are SPEC.md's");
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
	rc = parse("--sweep 1,2,4,8 -D 3", &o, err, sizeof(err));
	tap_ok(rc == 0 && o.role == GD_ROLE_HEADLESS && o.nsweep == 4 && o.sweep[3] == 8,
	       "--sweep implies headless");
	tap_ok(parse("--list-devices", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_LIST,
	       "--list-devices");
	tap_ok(parse("-h", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_HELP, "-h");
	tap_ok(parse("--version", &o, err, sizeof(err)) == 0 && o.role == GD_ROLE_VERSION, "--version");
	tap_ok(parse("--procs=0", &o, err, sizeof(err)) == 0 && o.procs == 0,
	       "--procs=0 (no worker at start)");
}

/* The worker's argument vector parses back into the same configuration. */
static void test_worker_roundtrip(void)
{
	struct gd_opts o, w;
	char err[256], buf[2048];
	char *argv[24];
	parse("-d 0:1 -s 777 -l 5 -t f64 -m pipelined --verify", &o, err, sizeof(err));
	int n = opts_worker_argv(&o, "/bin/gputop-decode", "/gputop-decode.0.1.2.3", 0xfeedULL, 3, 4242, argv,
	                         24, buf, sizeof(buf));
	tap_ok(n > 0 && opts_parse(n, argv, &w, err, sizeof(err)) == 0, "worker arguments parse (%s)", err);
	tap_ok(w.role == GD_ROLE_WORKER && strcmp(w.shm, "/gputop-decode.0.1.2.3") == 0 && w.gen == 0xfeed &&
	           w.slot == 3 && w.parent == 4242,
	       "the worker role gets its segment, generation, slot and supervisor");
	tap_ok(w.platform == 0 && w.device == 1 && w.size == 777 && w.launches == 5 && w.dtype == GD_DT_F64 &&
	           w.mode == GD_MODE_PIPELINED && w.verify,
	       "the worker gets the supervisor's configuration");
	tap_ok(parse("--worker=nocomma", &w, err, sizeof(err)) == -1,
	       "malformed worker arguments are refused");
}

int main(void)
{
	test_bad();
	test_defaults();
	test_good();
	test_worker_roundtrip();
	return tap_done();
}

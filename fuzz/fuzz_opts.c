/* fuzz_opts.c: libFuzzer harness for the command-line parser: NUL-separated arguments in.
 * It must never crash, must give the same answer twice, every error must be one line, and a
 * child's command line (a worker's, the calibration's) must parse back into the same settings. Of a command
 * line it accepts, every numeric value is bare digits (no whitespace around it, no sign) and every internal
 * option was spelled in full: the harness reads argv again the way getopt_long does and checks each option it
 * finds. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/opts.h"
#include "gputop/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 40

/* Splits a copy of the input at NUL bytes: argv[0] is the program's name. */
static int split(char *buf, size_t size, char **argv)
{
	int argc = 0;
	argv[argc++] = "gputop-decode";
	char *p = buf, *end = buf + size;
	while (p < end && argc < MAX_ARGS) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	return argc;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* A child's parsed options run the kernel of k on dev alone. */
static bool same_kernel(const struct gd_opts *c, const struct gd_kspec *k, struct gd_devref dev)
{
	bool same = c->platform == dev.platform && c->device == dev.index && c->devices.n == 1 &&
	            c->size == k->size && c->launches == k->launches && c->dtype == k->dtype &&
	            same_text(c->kernel, k->source) && same_text(c->kernel_name, k->name) &&
	            same_text(c->build_options, k->build_options) && c->nkargs == k->nargs;
	for (int i = 0; same && i < k->nargs; i++)
		same = same_text(c->kargs[i], k->args[i]);
	return same;
}

/* A worker's and the calibration's command lines (spec_child_argv), with --output's value as
 * the executable path (so its length is fuzzed too): where they fit, they parse back into the
 * child's role with the same kernel and, for the worker, the same workload. */
static void child_roundtrip(const struct gd_opts *o)
{
	static const struct gd_worker_args wa = {
		.shm = "/gputop-decode.0.1.1.0", .gen = 1, .id = 1, .supervisor = 1
	};
	static struct gd_argv a;
	const struct gd_workload work = opts_workload(o, opts_gen_threads(o, 8));
	struct gd_child child = { .work = &work, .wa = &wa };
	if (o->platform >= 0)
		child.dev = (struct gd_devref){ o->platform, o->device };
	const char *exe = o->output ? o->output : "/bin/gputop-decode";
	char err[512];
	struct gd_opts c;
	if (spec_child_argv(&a, exe, &child) == 0 &&
	    (opts_parse(a.argc, a.argv, &c, err, sizeof(err)) != 0 || c.role != GD_ROLE_WORKER ||
	     !same_kernel(&c, &work.kernel, child.dev) || c.mode != work.mode || c.profile != work.profile ||
	     c.sample_every != work.sample_every || c.queues != work.queues ||
	     c.gen_threads != work.gen_threads || c.verify != work.verify || c.worker.id != wa.id ||
	     strcmp(c.worker.shm, wa.shm) != 0))
		abort(); /* the worker would run something else */
	child.wa = NULL;
	if (spec_child_argv(&a, exe, &child) == 0 &&
	    (opts_parse(a.argc, a.argv, &c, err, sizeof(err)) != 0 || c.role != GD_ROLE_CALIBRATE ||
	     !same_kernel(&c, &work.kernel, child.dev)))
		abort(); /* the calibration would measure something else */
}

static bool takes_value(const struct gd_optdef *d)
{
	return d->kind != GD_OPT_FLAG && d->kind != GD_OPT_ROLE;
}

/* The option a long name (n characters at name) means to getopt_long: its exact name, else
 * the only option it is a prefix of; *full says which. NULL: none or ambiguous. */
static const struct gd_optdef *long_option(const char *name, size_t n, bool *full)
{
	size_t nt;
	const struct gd_optdef *t = opts_table(&nt), *found = NULL;
	int matches = 0;
	for (size_t i = 0; i < nt; i++) {
		if (strncmp(t[i].name, name, n) != 0)
			continue;
		if (t[i].name[n] == '\0') {
			*full = true;
			return &t[i];
		}
		found = &t[i];
		matches++;
	}
	*full = false;
	return matches == 1 ? found : NULL;
}

static const struct gd_optdef *short_option(char c)
{
	size_t nt;
	const struct gd_optdef *t = opts_table(&nt);
	for (size_t i = 0; i < nt; i++)
		if (c && t[i].letter == c)
			return &t[i];
	return NULL;
}

static bool space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* An accepted numeric value is exactly its digits: nothing strtol or strtod would skip. A
 * device list counts as numeric; a device name may hold anything. */
static void check_value(const struct gd_optdef *d, const char *v)
{
	bool numeric = d->kind == GD_OPT_WHOLE || d->kind == GD_OPT_SECONDS || d->kind == GD_OPT_SWEEP ||
	               (d->kind == GD_OPT_DEVICE && v && strchr(v, ':')); /* a list; else all or a name */
	if (!v || !numeric)
		return;
	size_t n = strlen(v);
	if (n == 0 || space(v[0]) || space(v[n - 1]) || v[0] == '+' || (v[0] == '-' && d->min >= 0))
		abort(); /* a number accepted with whitespace or a sign around it */
}

/* Reads an accepted argv again as getopt_long does (options may follow operands, a value may
 * be joined or apart) and checks every option found. */
static void check_accepted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')
			continue;
		if (a[1] == '-') {
			size_t n = strcspn(a + 2, "=");
			bool full;
			const struct gd_optdef *d = long_option(a + 2, n, &full);
			if (!d)
				continue;
			if (!d->help && !full)
				abort(); /* an internal option accepted abbreviated */
			if (takes_value(d))
				check_value(d, a[2 + n] == '=' ? a + 3 + n : i + 1 < argc ? argv[++i] : NULL);
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			const struct gd_optdef *d = short_option(*c);
			if (!d)
				break;
			if (takes_value(d)) {
				check_value(d, c[1] ? c + 1 : i + 1 < argc ? argv[++i] : NULL);
				break;
			}
		}
	}
}

/* Parses args (argc of them) from a fresh copy of the pointer array into argv, as getopt_long
 * permutes the array it is given: both parses of one input then leave the same pointers in o. */
static void parse(int argc, char *const *args, char **argv, struct gd_opts *o, int *rc, char *err,
                  size_t errlen)
{
	memcpy(argv, args, (size_t)(argc + 1) * sizeof(*argv));
	*rc = opts_parse(argc, argv, o, err, errlen);
	if (*rc == 0)
		check_accepted(argc, argv);
	if (*rc == 0 && o->role != GD_ROLE_WORKER)
		child_roundtrip(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *args[MAX_ARGS + 1], *argv[MAX_ARGS + 1];
	memcpy(buf, data, size);
	buf[size] = '\0';
	int argc = split(buf, size, args);
	struct gd_opts a, b;
	char ea[512], eb[512];
	int ra, rb;
	parse(argc, args, argv, &a, &ra, ea, sizeof(ea));
	parse(argc, args, argv, &b, &rb, eb, sizeof(eb));
	if (ra != rb || strcmp(ea, eb) != 0 || (ra == 0 && memcmp(&a, &b, sizeof(a)) != 0))
		abort(); /* not reentrant */
	if (ra != 0 && (ea[0] == '\0' || strchr(ea, '\n')))
		abort(); /* an error must be one non-empty line */
	if (memcmp(buf, data, size) != 0)
		abort(); /* the parser wrote into its arguments */
	free(buf);
	return 0;
}

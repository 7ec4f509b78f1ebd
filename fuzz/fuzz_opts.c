/* fuzz_opts.c: libFuzzer harness for the command-line parser: NUL-separated arguments in.
 * It must never crash, must give the same answer twice, every error must be one line, and a
 * worker's argument vector must parse back into the same settings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/opts.h"

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

/* A worker's argument vector, built with --output's value as the executable path (so its length
 * is fuzzed too): where it fits, it parses back into the worker role with the same settings. */
static void worker_roundtrip(const struct gd_opts *o)
{
	static const struct gd_worker_args wa = {
		.shm = "/gputop-decode.0.1.1.0", .gen = 1, .id = 1, .supervisor = 1
	};
	char *wargv[24], wbuf[2048], err[512];
	struct gd_opts w;
	int n = opts_worker_argv(o, o->output ? o->output : "/bin/gputop-decode", &wa, wargv, 24, wbuf,
	                         sizeof(wbuf));
	if (n < 0)
		return;
	if (opts_parse(n, wargv, &w, err, sizeof(err)) != 0 || w.role != GD_ROLE_WORKER ||
	    w.size != o->size || w.launches != o->launches || w.mode != o->mode || w.dtype != o->dtype ||
	    w.verify != o->verify || w.platform != o->platform || w.device != o->device)
		abort(); /* the worker would run something else */
}

static void parse(const uint8_t *data, size_t size, struct gd_opts *o, int *rc, char *err, size_t errlen)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1];
	memcpy(buf, data, size);
	buf[size] = '\0';
	int argc = split(buf, size, argv);
	*rc = opts_parse(argc, argv, o, err, errlen);
	if (*rc == 0 && o->role != GD_ROLE_WORKER)
		worker_roundtrip(o);
	/* Strings in o point into buf: keep only what the comparison below needs. */
	o->output = o->output ? "set" : NULL;
	o->trace = o->trace ? "set" : NULL;
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gd_opts a, b;
	char ea[512], eb[512];
	int ra, rb;
	parse(data, size, &a, &ra, ea, sizeof(ea));
	parse(data, size, &b, &rb, eb, sizeof(eb));
	if (ra != rb || strcmp(ea, eb) != 0 || (ra == 0 && memcmp(&a, &b, sizeof(a)) != 0))
		abort(); /* not reentrant */
	if (ra != 0 && (ea[0] == '\0' || strchr(ea, '\n')))
		abort(); /* an error must be one non-empty line */
	return 0;
}

/* opts.h: the command line of every role, parsed and range-checked in one place. */
#ifndef GPUTOP_OPTS_H
#define GPUTOP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum gd_role {
	GD_ROLE_DASHBOARD,
	GD_ROLE_HEADLESS,
	GD_ROLE_LIST,
	GD_ROLE_WORKER,
	GD_ROLE_HELP,
	GD_ROLE_VERSION
};
enum gd_mode { GD_MODE_SEED, GD_MODE_PIPELINED, GD_MODE_KERNEL_ONLY, GD_MODE_COUNT };
enum gd_dtype { GD_DT_AUTO, GD_DT_F32, GD_DT_F64 };
enum gd_format { GD_FMT_CSV, GD_FMT_JSONL, GD_FMT_COUNT };

#define GD_SWEEP_MAX 64
#define GD_SIZE_MAX  (1u << 27)

struct gd_opts {
	enum gd_role role;
	int procs, max_procs;
	int platform, device; /* -1: choose (first GPU, else first device) */
	uint32_t size, launches;
	enum gd_dtype dtype;
	enum gd_mode mode;
	double interval; /* s */
	double duration; /* s; 0: until stopped */
	enum gd_format format;
	const char *output, *trace;
	uint64_t trace_limit; /* trace events at most */
	int sweep[GD_SWEEP_MAX], nsweep;
	bool verify;
	/* Worker role only: --worker NAME,GENERATION,SLOT,SUPERVISOR-PID */
	char shm[128];
	uint64_t gen;
	unsigned slot;
	pid_t parent;
};

const char *gd_mode_name(enum gd_mode m);
const char *gd_dtype_name(enum gd_dtype d);
const char *gd_format_name(enum gd_format f);

/* Fills o from argv. Returns 0, or -1 with a one-line message (no trailing newline) in err.
 * Reentrant: it may be called many times in one process. */
int opts_parse(int argc, char **argv, struct gd_opts *o, char *err, size_t errlen);
/* The --help text. */
const char *opts_usage(void);
/* Builds the argument vector that starts a worker with these options. Strings live in buf. */
int opts_worker_argv(const struct gd_opts *o, const char *exe, const char *shm, uint64_t gen, unsigned slot,
                     pid_t parent, char **argv, int max, char *buf, size_t buflen);

#endif

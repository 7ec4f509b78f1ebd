/* opts.h: the command line of every role, described by one option table (src/opts/options.c)
 * from which parsing, defaults, range checks, --help and the run header's options all come. */
#ifndef GPUTOP_OPTS_H
#define GPUTOP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/common.h"
#include "gputop/device.h"
#include "gputop/settings.h"
#include "gputop/spec.h"

enum gd_role {
	GD_ROLE_NONE, /* in the option table: the option asks for no role */
	GD_ROLE_DASHBOARD,
	GD_ROLE_HEADLESS,
	GD_ROLE_LIST,
	GD_ROLE_WORKER,
	GD_ROLE_HELP,
	GD_ROLE_VERSION,
	GD_ROLE_CALIBRATE, /* internal: the --calibrate measurement, in a child process */
};

struct gd_opts {
	enum gd_role role;
	int procs, max_procs;
	int platform, device;      /* the first device of devices; -1: chosen at start */
	struct gd_devspec devices; /* what --device asks for; after main's probe, LIST of the */
	                           /* run's devices (the worker role: its one device) */
	uint32_t size, launches;
	enum gd_dtype dtype;
	enum gd_mode mode;
	double interval; /* s */
	double duration; /* s; 0: until stopped */
	enum gd_format format;
	struct gd_fields fields; /* the log's columns, resolved from --fields by opts_parse; n 0: all */
	const char *fields_text; /* --fields as typed */
	const char *output, *trace, *report;
	uint64_t trace_limit; /* trace events at most */
	struct gd_step sweep[GD_SWEEP_MAX];
	int nsweep;
	int repeat; /* runs of each sweep step */
	bool verify;
	bool no_header; /* --no-header: no CSV header line */
	enum gd_profile profile;
	uint32_t sample_every;       /* --profile sampled: 0 adapts the period */
	int queues;                  /* 0: the mode's own (pipelined 4, kernel-only 1) */
	int gen_threads;             /* pipelined: generation threads; 0 inline; -1: a fair share */
	enum gd_generator generator; /* GD_GEN_AUTO: the mode's own (opts_generator) */
	bool calibrate;
	const char *prom_file;           /* --prom-file: Prometheus text, replaced every interval */
	struct gd_listen listen;         /* --listen: GET /metrics */
	const char *kernel;              /* --kernel: the user's OpenCL C source; NULL: the decode kernel */
	const char *kernel_name;         /* --kernel-name; at start, the kernel the run measures */
	const char *rate_unit_text;      /* --rate-unit NAME:ITEMS, as given */
	char rate_unit[32];              /* its NAME, once checked; "" without it */
	double rate_items;               /* its ITEMS: work items that make one of NAME; 0: none */
	const char *build_options;       /* --build-options: added to the program's own */
	const char *kargs[GD_KARGS_MAX]; /* --arg NAME=VALUE, in the order given */
	int nkargs;
	struct gd_worker_args worker; /* worker role only */
	char **command;               /* after "--": the program to start and observe; NULL: workers */
	enum gd_via via;              /* --observe-via */
	bool no_config;               /* --no-config: the dashboard neither reads nor writes its file */
	uint64_t given;               /* the options on the command line: bit i is the table's option i */
};

/* What an option's value is. */
enum gd_optkind {
	GD_OPT_FLAG,    /* no value: sets a bool */
	GD_OPT_ROLE,    /* no value: asks for a role */
	GD_OPT_WHOLE,   /* a whole number in [min, max] */
	GD_OPT_SECONDS, /* a number of seconds in [min, max] */
	GD_OPT_CHOICE,  /* one of names[min..max]; the value is the index */
	GD_OPT_FILE,    /* a file name, not empty */
	GD_OPT_DEVICE,  /* P:D[,P:D...] (indices in [min, max], no duplicates), all, or a name */
	GD_OPT_SWEEP,   /* comma-separated steps P or PxQ: P in [min, max], Q in 1..GD_QUEUES_MAX */
	GD_OPT_WORKER,  /* the worker role's arguments (struct gd_worker_args) */
	GD_OPT_LISTEN,  /* ADDR:PORT, [ADDR6]:PORT, :PORT or PORT (loopback): struct gd_listen */
	GD_OPT_TEXT,    /* any text, empty too */
	GD_OPT_KARG,    /* NAME=VALUE, repeatable: appended to kargs */
};

/* The uses of a command line an option can apply to (bits of gd_optdef.applies). An option
 * given where it does not apply is refused; --help and --version end parsing, and the
 * internal roles' options are written by the supervisor. */
enum gd_use {
	GD_USE_DASHBOARD = 1u << 0,
	GD_USE_HEADLESS = 1u << 1, /* --headless without --sweep */
	GD_USE_SWEEP = 1u << 2,
	GD_USE_LIST = 1u << 3,
};
#define GD_USE_RUN (GD_USE_DASHBOARD | GD_USE_HEADLESS | GD_USE_SWEEP)
#define GD_USE_LOG (GD_USE_HEADLESS | GD_USE_SWEEP)

/* One option of the table. */
struct gd_optdef {
	const char *name; /* long name, without "--" */
	char letter;      /* short option, or 0 */
	enum gd_optkind kind;
	const char *metavar;      /* the value in --help; CHOICE shows its names instead */
	const char *help;         /* its line in --help; NULL: internal, not listed */
	double min, max;          /* the accepted range (see enum gd_optkind) */
	const char *bound;        /* the option whose value caps this one's, or NULL */
	const char *def;          /* the default, as it would be typed, or NULL */
	const char *def_text;     /* the default in words, where it is no typed value */
	const char *const *names; /* CHOICE: the names, indexed by value */
	enum gd_role role;        /* the role it asks for, or GD_ROLE_NONE */
	unsigned applies;         /* the uses it applies to: bits of enum gd_use */
	size_t offset, bytes;     /* its field in struct gd_opts (FLAG, WHOLE, SECONDS, CHOICE, FILE) */
};

/* The option table, read-only: n gets its length. */
const struct gd_optdef *opts_table(size_t *n);
/* The option of that long name, or NULL. */
const struct gd_optdef *opts_find(const char *name);
/* Whether the command line gave the option of that long name (not its default). */
bool opts_given(const struct gd_opts *o, const char *name);
/* The use the parsed options ask for: one bit of enum gd_use (dashboard, headless, sweep, list). */
unsigned opts_use(const struct gd_opts *o);

/* What opts_value wrote. */
enum gd_optval {
	GD_VAL_NONE,   /* not set: the run decides (an adapting period, a fair share of cores, no file) */
	GD_VAL_NUMBER, /* digits, as %g or whole */
	GD_VAL_BOOL,   /* true or false */
	GD_VAL_TEXT,   /* a word, a list or a file name */
};
/* Option d's value in o as text in buf (n bytes), resolved where the options alone decide it
 * (the mode's queues, a sweep step's seconds); GD_VAL_NONE for an internal option. */
enum gd_optval opts_value(const struct gd_opts *o, const struct gd_optdef *d, char *buf, size_t n);
/* The seconds a run (or each sweep step) lasts: --duration, for a sweep step GD_SWEEP_STEP_S
 * without it, 0: until stopped. */
double opts_duration(const struct gd_opts *o);

/* The queues of each worker: --queues, or the mode's own (pipelined 4, others 1). */
int opts_queues(const struct gd_opts *o);
/* The generation threads of each pipelined worker: --gen-threads, or a fair share of cores
 * (cores / --procs - 1, at least 1, at most 16); 0 for the other modes. */
int opts_gen_threads(const struct gd_opts *o, int cores);

/* The normal generator of the workers: --generator, or the mode's own (seed box-muller, the
 * others ziggurat). Never GD_GEN_AUTO. */
enum gd_generator opts_generator(const struct gd_opts *o);

/* Fills o from argv. Returns 0, or -1 with a one-line message (no trailing newline) in err.
 * Reentrant: it may be called many times in one process. */
int opts_parse(int argc, char **argv, struct gd_opts *o, char *err, size_t errlen);
/* The --help text. */
const char *opts_usage(void);
/* The kernel spec of o, and the workload every worker runs (gen_threads as resolved:
 * opts_gen_threads for a run, the worker's own --gen-threads in a worker). */
struct gd_kspec opts_kspec(const struct gd_opts *o);
struct gd_workload opts_workload(const struct gd_opts *o, int gen_threads);
/* The run header's "options" object: every option that applies to o's use, as resolved,
 * appended to j as JSON ({"procs":1,...}). */
void opts_json(const struct gd_opts *o, struct gd_text *j);

#endif

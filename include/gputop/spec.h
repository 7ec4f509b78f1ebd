/* spec.h: what the workers run, resolved once from the command line (main.c) and handed down
 * by const pointer, and the one writer of a child's command line: a worker's or the
 * calibration's, both from the same spec, which the child's own parse gives back whole. */
#ifndef GPUTOP_SPEC_H
#define GPUTOP_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Limits of what a run can ask for (the man page states them; a record outside them is
 * refused by the reader). */
#define GD_PROCS_MAX       256        /* workers: --max-procs, --procs, --sweep counts */
#define GD_SIZE_MAX        (1u << 27) /* items per batch: --size */
#define GD_LAUNCHES_MAX    1000       /* kernel launches per batch: --launches */
#define GD_QUEUES_MAX      16         /* in-order queues of one worker: --queues */
#define GD_SAMPLE_MAX      65536      /* --sample-every */
#define GD_GEN_THREADS_MAX 64         /* --gen-threads */
#define GD_KARGS_MAX       32         /* --arg values */
#define GD_DEVICES_MAX     16         /* devices of one run: --device's list, all, or a name */

/* A device as --device and --list-devices number it: platform P, device D, "P:D". */
struct gd_devref {
	int platform, index;
};

enum gd_mode { GD_MODE_SEED, GD_MODE_PIPELINED, GD_MODE_KERNEL_ONLY, GD_MODE_COUNT };
/* What a worker profiles: every command, some batches (sampler.h), or nothing. */
enum gd_profile { GD_PROF_FULL, GD_PROF_SAMPLED, GD_PROF_OFF, GD_PROF_COUNT };
/* How an observed program (-- COMMAND) loads libgputop-observe.so: both ways, or only one. */
enum gd_via { GD_VIA_BOTH, GD_VIA_LAYER, GD_VIA_PRELOAD, GD_VIA_COUNT };
enum gd_dtype { GD_DT_AUTO, GD_DT_F32, GD_DT_F64, GD_DT_COUNT };
/* The host's normal generator for the inputs (rng.h): the ziggurat, or numpy's legacy
 * np.random.RandomState.normal (MT19937 and Marsaglia's polar Box-Muller method, value for
 * value), which the original program used.
 * GD_GEN_AUTO: not given, the mode's own (seed: box-muller; the others: ziggurat). */
enum gd_generator { GD_GEN_AUTO, GD_GEN_ZIGGURAT, GD_GEN_BOX_MULLER, GD_GEN_COUNT };

/* The element types, indexed by enum gd_dtype: the one table of their names and sizes. */
struct gd_dtype_info {
	const char *name;   /* as --dtype takes it; "auto" for GD_DT_AUTO */
	unsigned bytes;     /* 0 for GD_DT_AUTO: the device decides */
	const char *define; /* the decode program's build option for it, or NULL */
};
const struct gd_dtype_info *gd_dtype_info(enum gd_dtype d);
const char *gd_dtype_name(enum gd_dtype d);
const char *gd_mode_name(enum gd_mode m);
const char *gd_profile_name(enum gd_profile p);
/* The profiling policies' names, indexed by enum gd_profile: the one list of them (--profile,
 * the log, an observed program's environment). */
extern const char *const gd_profile_names[GD_PROF_COUNT];
/* The policy named s into *p; false, *p untouched, when s (or NULL) names none. */
bool gd_profile_parse(const char *s, enum gd_profile *p);
const char *gd_generator_name(enum gd_generator g);
/* The generator a mode uses unless told otherwise: g itself when given (not GD_GEN_AUTO). */
enum gd_generator gd_generator_of(enum gd_generator g, enum gd_mode m);

/* The kernel and one batch of it. */
struct gd_kspec {
	const char *source; /* --kernel: the user's OpenCL C file (absolute); NULL: decode */
	const char *name;   /* --kernel-name: the kernel of source, once resolved; NULL: the file's one */
	const char *build_options;      /* added to the program's own, or NULL */
	const char *args[GD_KARGS_MAX]; /* --arg NAME=VALUE, in the order given */
	int nargs;
	uint32_t size, launches; /* items (decode: symbols) per launch, launches per batch */
	enum gd_dtype dtype;     /* resolved before any worker starts */
	bool observed;           /* -- COMMAND: the rows are a program's processes, not workers */
};

/* The kernel's name as logs show it: the user's, "decode", or "observed" for a program's. */
const char *kspec_name(const struct gd_kspec *k);
/* The unit of the rates: "Mbit/s" for the decode kernel (an item is a decoded bit), "Mitem/s"
 * for a user kernel and an observed program (an item is a work item of a launch). */
const char *kspec_rate_unit(const struct gd_kspec *k);
/* Items a batch counts: the decode kernel's size (its launches repeat one codeword batch), a
 * user kernel's size times its launches. */
uint64_t kspec_items_per_batch(const struct gd_kspec *k);

/* How every worker runs the kernel. */
struct gd_workload {
	struct gd_kspec kernel;
	enum gd_mode mode;
	int queues;      /* in-order queues of each worker: resolved, at least 1 */
	int gen_threads; /* pipelined: threads generating inputs (0: the worker's own); -1: not set */
	enum gd_profile profile;
	uint32_t sample_every; /* --profile sampled: a fixed period; 0 adapts */
	bool verify;
	enum gd_generator generator; /* resolved; GD_GEN_AUTO only in a workload made by hand */
};

/* The worker role's own arguments: --worker NAME,GENERATION,ID,SUPERVISOR-PID. */
struct gd_worker_args {
	char shm[128];    /* its shared-memory segment */
	uint64_t gen;     /* the segment's generation */
	unsigned id;      /* the worker's number, as the dashboard and the log show it */
	pid_t supervisor; /* the process that started it */
};

/* A child of this binary: a worker (wa set) or the calibration (wa NULL). */
struct gd_child {
	const struct gd_workload *work; /* the calibration takes only its kernel */
	struct gd_devref dev;
	const struct gd_worker_args *wa;
};

#define GD_ARGV_MAX (24 + 2 * GD_KARGS_MAX)
/* A child's command line: argv[0..argc), then NULL; the strings live in buf. */
struct gd_argv {
	char *argv[GD_ARGV_MAX];
	int argc;
	char buf[65536]; /* main.c refuses options that would not fit, before anything starts */
};

/* Writes the command line that starts c from the executable exe. Returns 0, or -1 when it
 * does not fit (never a command line with an argument left out). */
int spec_child_argv(struct gd_argv *a, const char *exe, const struct gd_child *c);

#endif

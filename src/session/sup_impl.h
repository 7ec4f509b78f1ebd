/* sup_impl.h: the supervisor's own parts, shared by supervisor.c (the row table, reaping,
 * draining, the workers' standard error) and the files of its kinds of row: sup_worker.c (a
 * worker) and sup_program.c (a copy of the observed program, and a process a copy started,
 * found by its segment). What differs between the kinds is in their ops table (struct
 * sup_kind): supervisor.c calls it and never asks which kind a row is. */
#ifndef GPUTOP_SUP_IMPL_H
#define GPUTOP_SUP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/proc.h"
#include "supervisor.h"

struct sup_kind;

/* One row: a process the supervisor shows. Written by supervisor.c and its kind's file alone. */
struct sup_row {
	const struct sup_kind *kind;
	struct gd_row_info info; /* what the queries hand out */
	uint64_t gen;
	char shm[128];
	bool attached; /* segment mapped */
	bool stop_sent, kill_sent;
	bool sigstopped; /* stopped by SIGSTOP (ours or anyone's) and not continued since */
	int64_t cont_ns; /* when it was last continued: its heartbeat's age counts from here at most */
	int64_t stop_ns;
	int64_t spawn_ns; /* when it was started: the attach deadline counts from here */
	char notyet[120]; /* why the last attach was "not yet", when not a missing name */
	struct gd_reader rd;
	struct gd_seg_view view;
	int outfd;         /* a copy's standard output and error (read end, non-blocking); -1: none */
	char outline[256]; /* the line of its output being relayed */
	size_t outn;
	bool dev_known; /* an observed process's device, from its segment, is in info.device */
	/* A process a copy started: not our child, so named by a pidfd (-1: none, it had ended when
	 * found) and its start time; never by its pid alone. */
	int pidfd;
	uint64_t start_ticks;
	/* An observed process that ran exec: the images before the one read now, their totals. */
	unsigned images;
	int64_t looked_ns; /* a copy without a segment: when sup_env_unobserved was last asked */
	struct gd_seg_view before;
	uint64_t lost_before;
};

struct gd_sup {
	struct gd_sup_config c;
	pid_t self;
	char exe[4096];
	struct sup_row *rows;
	int n, cap;
	unsigned next_id;
	bool paused;
	int64_t stall_ns;  /* heartbeat age that counts as stalled */
	int64_t attach_ns; /* a segment not attached this long after the spawn: the worker failed */
	unsigned grace_kills, grace_last; /* stops made a SIGKILL after their grace; the latest's id */
	int errr, errw;    /* the workers' standard error: read end (non-blocking), write end */
	char errline[256]; /* the line being relayed */
	size_t errn;
	uint64_t token; /* observed programs: the run's secret, in their segments' headers */
	pid_t sentinel; /* observed programs: what ends their processes after us (sentinel.h); 0: none */
	int sentfd;
	unsigned forged;           /* names of this run's prefix not made by its processes */
	uint64_t forged_names[64]; /* hashes of the latest of them: each is counted once */
	uint64_t reported[256];    /* the processes told to the sentinel (pid and start time, hashed) */
	unsigned nreported, unreported;
	struct proc_stat *scan; /* the latest reading of /proc, and its room */
	size_t scan_cap;
	int64_t scan_ns; /* when the family was last looked for */
	char *env[8];    /* observed programs: the variables added to their environment */
	char envbuf[8][4200];
};

/* What a kind of row does its own way. A NULL hook does nothing. */
struct sup_kind {
	bool unit;                /* one of the run's units (supervisor.h): a worker, a copy */
	bool child;               /* our child: its pid names it until we reap it */
	enum gd_state unattached; /* its state until its segment is mapped, unless stopping */
	/* Sends sig to its processes. */
	void (*signal)(const struct sup_row *r, int sig);
	/* Pauses or resumes it: sup_pause, and a row started while paused. */
	void (*pause)(const struct sup_row *r, bool pause);
	/* Whether it has published a batch (a unit's readiness, sup_ready). */
	bool (*ready)(const struct gd_sup *sup, const struct sup_row *r);
	/* Each service of it while alive, before its segment is read. */
	void (*service)(const struct gd_sup *sup, struct sup_row *r, int64_t now);
	/* Its segment is mapped now. */
	void (*attached)(struct sup_row *r);
	/* Its segment was rejected, and it failed for that. */
	void (*rejected)(struct sup_row *r);
	/* After every read of its ring: what it takes from the header's view beyond the totals. */
	void (*viewed)(const struct gd_sup *sup, struct sup_row *r);
	/* Its state once attached and not failed, from the segment's, already in info.state. */
	void (*state)(const struct gd_sup *sup, struct sup_row *r, int64_t now);
	/* Its end, from its wait status: state, error and exit status. */
	void (*ended)(struct sup_row *r, int status);
	/* Reaps it when it has ended, without waiting; and waits for its end once killed. */
	void (*wait)(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx);
	void (*wait_killed)(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx);
	/* Relays its output; last: at its end, the rest. */
	void (*relay)(const struct gd_sup *sup, struct sup_row *r, bool last);
};

extern const struct sup_kind sup_kind_worker;  /* sup_worker.c */
extern const struct sup_kind sup_kind_copy;    /* sup_program.c */
extern const struct sup_kind sup_kind_process; /* sup_program.c: one a copy started */

/* ---- supervisor.c, for the kinds ---- */
/* A new row of kind k at the end of the table, with the next id (undone by sup->n--). */
struct sup_row *sup_add_row(struct gd_sup *sup, const struct sup_kind *k);
void sup_fail_row(struct sup_row *r, const char *prefix, const char *why);
/* A stopped row runs again: it is not stalled before it could publish. */
void sup_continued(struct sup_row *r);
/* r has ended with status: its last records are handed over, its segment closed. */
void sup_reaped(const struct gd_sup *sup, struct sup_row *r, int status, gd_record_fn on_record, void *ctx);
/* How a row ended by signal sig: exited when it was ours (the SIGKILL we sent, or SIGTERM after
 * we asked it to stop), else failed, named. */
void sup_killed_by(struct sup_row *r, int sig);
/* r reads the segment rd (checked, at name) from now on: the last records of the one before
 * are handed over, its totals kept in r->before. */
void sup_swap_segment(const struct gd_sup *sup, struct sup_row *r, const struct gd_reader *rd,
                      const char *name, gd_record_fn on_record, void *ctx);
/* The wait and wait_killed of a row that is our child: waitpid on its pid. */
void sup_wait_child(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx);
void sup_wait_child_killed(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx);

/* ---- sup_env.c ---- */
/* The observed programs' environment (sup->env) and the run's token. A library path holding a
 * list's separator (white space, ':') or '$' goes into LD_PRELOAD and OPENCL_LAYERS as
 * /proc/<supervisor pid>/fd/<fd>, a descriptor this process keeps open on it. */
void sup_env_build(struct gd_sup *sup);
/* Why the observation library is not in process pid, into why (n bytes): "" when it is loaded or
 * cannot be told; else a reason such as "statically linked", "secure execution (setuid/setgid):
 * LD_PRELOAD ignored", "its environment dropped LD_PRELOAD"... Reads /proc/pid/maps, exe,
 * environ (and auxv, status). Call it while pid lives (a zombie has no map: ""). Through
 * LD_PRELOAD (--observe-via preload or both) the answer is final once the dynamic linker has
 * loaded the C library, within milliseconds of the exec; through the layer alone the library
 * loads at the first OpenCL call, so "" then means no call yet, unless the environment dropped
 * OPENCL_LAYERS or the mapped libOpenCL ignores layers. */
void sup_env_unobserved(const struct gd_sup *sup, pid_t pid, char *why, size_t n);

/* ---- sup_program.c: the observed programs as a whole; nothing without a command ---- */
/* Their environment and the sentinel: 0, or -1 with err. */
int sup_programs_start(struct gd_sup *sup, char *err, size_t errlen);
/* At the run's end: what the family left running killed (sup_programs_sweep), every segment of
 * theirs unlinked, the sentinel ended. */
void sup_programs_end(struct gd_sup *sup);
/* A new row of an observed process, pid, of kind k (copy or process). */
struct sup_row *sup_add_observed(struct gd_sup *sup, const struct sup_kind *k, pid_t pid);
/* What a copy and a process a copy started do alike (sup_kind). */
void sup_observed_pause(const struct sup_row *r, bool pause);
void sup_observed_attached(struct sup_row *r);
void sup_observed_viewed(const struct gd_sup *sup, struct sup_row *r);
void sup_observed_state(const struct gd_sup *sup, struct sup_row *r, int64_t now);
void sup_observed_ended(struct sup_row *r, int status);

/* ---- sup_process.c: the family of the copies ---- */
/* The prefix of this run's observed segments' names in /dev/shm; its length. */
int sup_observed_prefix(const struct gd_sup *sup, char *buf, size_t n);
/* Calls fn with each name of this run's prefix in /dev/shm ("/..."), and the rest after it. */
void sup_observed_names(const struct gd_sup *sup, void (*fn)(void *arg, const char *name, const char *rest),
                        void *arg);
/* Finds the processes that made their first OpenCL call (rows of their own) and the new images
 * of those that ran exec; counts and ignores names not of the family. */
void sup_programs_discover(struct gd_sup *sup, gd_record_fn on_record, void *ctx);
/* Each service: the family's adopted orphans reaped, its processes told to the sentinel. */
void sup_programs_service(struct gd_sup *sup, int64_t now);
/* Tells the sentinel of pid (a copy just started). */
void sup_programs_report(struct gd_sup *sup, pid_t pid);
/* Kills and reaps whatever of the family is left, until two scans in a row find nobody. */
void sup_programs_sweep(struct gd_sup *sup);

#endif

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
	uint64_t token; /* observed programs: the random part of their segments' names */
	pid_t sentinel; /* observed programs: what ends their processes after us (sentinel.h); 0: none */
	int sentfd;
	char *env[8]; /* observed programs: the variables added to their environment */
	char envbuf[8][4200];
};

/* What a kind of row does its own way. A NULL hook does nothing. */
struct sup_kind {
	bool unit;                /* one of the run's units (supervisor.h): a worker, a copy */
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
	/* At the run's end, reaped: ends what it left running. */
	void (*leftovers)(const struct sup_row *r);
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
/* The wait and wait_killed of a row that is our child: waitpid on its pid. */
void sup_wait_child(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx);
void sup_wait_child_killed(const struct gd_sup *sup, struct sup_row *r, gd_record_fn on_record, void *ctx);

/* ---- sup_program.c: the observed programs as a whole; nothing without a command ---- */
/* Their environment and the sentinel: 0, or -1 with err. */
int sup_programs_start(struct gd_sup *sup, char *err, size_t errlen);
/* Finds the processes that made their first OpenCL call: rows of their own. */
void sup_programs_discover(struct gd_sup *sup);
/* At the run's end: every segment of theirs unlinked, the sentinel ended. */
void sup_programs_end(struct gd_sup *sup);

#endif

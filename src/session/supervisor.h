/* supervisor.h: the processes a run shows, seen from the session: its rows. A row is a worker,
 * or, observing a program (-- COMMAND), a copy of the program or a process a copy started
 * (doc/observe.md). The supervisor starts, stops, signals, pauses and reaps them, attaches to
 * their segments and drains their rings. What a window makes of the records is the collector's
 * business (collect.h): the supervisor hands each record over as it is read. */
#ifndef GPUTOP_SUPERVISOR_H
#define GPUTOP_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/reader.h"
#include "gputop/frame.h"
#include "gputop/session.h"
#include "gputop/spec.h"

struct gd_sup;

/* Called for every record read, in each row's order. */
typedef void (*gd_record_fn)(void *ctx, const struct gd_row_info *w, const struct gd_rec *r);

/* What the supervisor needs of a run. */
struct gd_sup_config {
	struct gd_workload work; /* what workers started from now on run (sup_set_queues); its profiling
	                          * policy is an observed program's too */
	int ndevs;               /* the devices workers spread over, at least 1 */
	struct gd_devref devs[GD_DEVICES_MAX];
	int max_procs;     /* live rows at once, at most */
	double interval_s; /* the sampling interval: a worker is stalled after 3 (and at least 1 s) without a
	                      heartbeat */
	/* Observing a program instead of running workers (doc/observe.md): */
	char *const *command;    /* the program and its arguments; NULL: workers */
	const char *observe_lib; /* libgputop-observe.so, an absolute path */
	enum gd_via via;         /* how the program loads it */
	int program_out; /* where the programs' output goes, a line at a time, prefixed with the row id */
};

/* Sets up signal handling for children and sweeps stale segments; observing a program, makes
 * its environment and starts the sentinel (sentinel.h). Returns NULL with a message in err. */
struct gd_sup *sup_new(const struct gd_sup_config *c, char *err, size_t errlen);
/* The interval from now on, for the stall and attach deadlines. */
void sup_set_interval(struct gd_sup *sup, double interval_s);
/* Asks every live row to stop (a worker after its batch). */
void sup_stop_all(struct gd_sup *sup);
/* Waits up to grace_ns for every row to end, kills those left, reaps them all and hands their
 * last records over; then every segment is unlinked, what the copies left running is killed
 * and the workers' standard error is relayed to its end. */
void sup_reap_all(struct gd_sup *sup, int64_t grace_ns, gd_record_fn on_record, void *ctx);
/* Frees sup (its rows reaped: sup_reap_all). NULL is fine. */
void sup_free(struct gd_sup *sup);

/* Starts one more copy of the command (a row that other rows may join: the processes it starts
 * that make OpenCL calls); its index, or -1 (limit reached or spawn failed: err). */
int sup_spawn_program(struct gd_sup *sup, char *err, size_t errlen);
/* Copies of the command still running. */
int sup_programs_live(const struct gd_sup *sup);
/* Starts one more worker on device dev (an index into the run's devices), or with dev < 0 on
 * the one sup_place picks; returns its index, or -1 (limit reached or spawn failed: err). */
int sup_spawn(struct gd_sup *sup, int dev, char *err, size_t errlen);
/* Pure: the device a new worker goes to, given each device's active workers: the one with
 * the fewest, ties to the lowest index (so workers started one by one go round robin). */
int sup_place(const int *active, int ndev);
/* The run's devices (at least 1), and the active rows on device dev. */
int sup_ndevices(const struct gd_sup *sup);
int sup_active_on(const struct gd_sup *sup, int dev);
/* Graceful stop of row i (SIGTERM: a worker finishes its batch; a copy's whole process group),
 * or SIGKILL when hard is set. */
void sup_stop(struct gd_sup *sup, int i, bool hard);
/* Sends sig to row i: SIGTERM and SIGKILL as sup_stop does (graceful, hard), anything else
 * as it is, to its process. A process stopped by SIGSTOP (from here or anyone) is paused until
 * continued. Returns 0, or -1 when it has ended or the signal could not be sent. */
int sup_signal(struct gd_sup *sup, int i, int sig);
/* Pauses or resumes every row: a worker between batches, a program by SIGSTOP and SIGCONT. */
void sup_pause(struct gd_sup *sup, bool pause);

/* Finds new processes of the observed programs, reaps rows, attaches segments, reads every
 * ring (each record goes to on_record), updates states and escalates stops. Call often. */
void sup_service(struct gd_sup *sup, int64_t now, gd_record_fn on_record, void *ctx);
/* Forgets ended row i (after it has been reported). */
void sup_forget(struct gd_sup *sup, int i);

/* Queries. Rows are indexed 0..sup_nrows()-1 in the order they were started. */
int sup_nrows(const struct gd_sup *sup);
void sup_row_info(const struct gd_sup *sup, int i, struct gd_row_info *out);
/* Index of row id, or -1. */
int sup_find(const struct gd_sup *sup, unsigned id);
/* The units a run starts and stops (+, -, a sweep's steps) are its workers, or, observing a
 * program, its copies: the processes a copy starts are rows of their own but not units.
 * sup_newest: the index of the most recently started active unit, or -1. */
int sup_newest(const struct gd_sup *sup);
/* Rows not reaped yet, stopping ones included: what --max-procs bounds. */
int sup_live(const struct gd_sup *sup);
/* Live units that were not asked to stop. */
int sup_active(const struct gd_sup *sup);
/* Active units that have published at least one batch: a worker itself, a copy through any
 * process of its process group. */
int sup_ready(const struct gd_sup *sup);
/* The queues of workers started from now on, and setting them. */
int sup_queues(const struct gd_sup *sup);
void sup_set_queues(struct gd_sup *sup, int queues);
/* The executable workers are started from. */
const char *sup_exe(const struct gd_sup *sup);
/* Whether the rows are paused (sup_pause). */
bool sup_paused(const struct gd_sup *sup);
/* The first error of any row, or "". */
const char *sup_first_error(const struct gd_sup *sup);
/* Graceful stops that ran out of their grace (SESSION_STOP_GRACE_S) and were made a SIGKILL,
 * since the start; *last gets the id of the latest such row (0: none). */
unsigned sup_grace_kills(const struct gd_sup *sup, unsigned *last);

#endif

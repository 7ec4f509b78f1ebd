/* session.h: what the dashboard and the headless roles share: the rows (workers, or the processes
 * of an observed program), the interval clock, the calibration, and the frames every output gets.
 * The session alone completes a frame and hands it to the outputs; the roles act on it only
 * through the verbs below and read it through the queries. */
#ifndef GPUTOP_SESSION_H
#define GPUTOP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gputop/device.h"
#include "gputop/frame.h"
#include "gputop/spec.h"

struct gd_outputs;
struct gd_ceiling; /* measure/ceiling.h */

/* A graceful stop (SIGTERM: a worker finishes its batch) that has not ended the row this many
 * seconds later is made a SIGKILL. */
#define SESSION_STOP_GRACE_S 5

/* A run's settings, resolved from the command line once (main.c). */
struct gd_session_config {
	struct gd_workload work; /* what every worker runs */
	int ndevs;               /* the run's devices, probed: workers spread over them */
	struct gd_device devs[GD_DEVICES_MAX];
	int procs;         /* workers at start */
	int max_procs;     /* workers alive at once, at most */
	double interval_s; /* the window */
	double duration_s; /* 0: until stopped */
	bool calibrate;    /* measure each device's ceiling before the first worker starts */
	/* -- COMMAND: procs copies of it are started and observed instead of workers; the run
	 * ends once every copy has ended. */
	char *const *command;
	const char *observe_lib; /* libgputop-observe.so, an absolute path */
	enum gd_via via;
	int program_out; /* where the programs' output goes (prefixed lines) */
};

struct gd_session;

/* Starts the supervisor, calibrates where asked and starts the first c->procs workers (or
 * copies of the command). Every record read goes to outs (NULL: none), and every frame completed; outs
 * stays the caller's and must outlive the session. Returns NULL with err filled, having
 * stopped whatever it had started. */
struct gd_session *session_start(const struct gd_session_config *c, struct gd_outputs *outs, char *err,
                                 size_t errlen);
/* Stops every row (gracefully, then hard), reads their last records and frees s. NULL is
 * fine. */
void session_stop(struct gd_session *s);

/* ---- the clock ---- */
/* Reads the rows' rings; when a window is due, completes its frame, hands it to the
 * outputs and returns it (valid until the next call); else NULL. */
const struct gd_frame *session_poll(struct gd_session *s, int64_t now);
/* Reads the rows' rings without closing a window. */
void session_service(struct gd_session *s, int64_t now);
/* "" while every output works; else why one failed as a frame was handed to it (the log):
 * the run cannot go on. */
const char *session_error(const struct gd_session *s);
/* Nanoseconds until session_poll has something to do. */
int64_t session_wait(const struct gd_session *s, int64_t now);
/* True once the window that ends at the end of the run has been produced. */
bool session_done(const struct gd_session *s);
/* Forgets the statistics so far and starts the window clock again at now (the r key, each
 * sweep step); ended rows are dropped, and the latest frame (session_frame) becomes one of
 * the rows left with nothing measured, until the first window closes. */
void session_restart_clock(struct gd_session *s, int64_t now);
/* The run ends with the window that ends seconds after the open window's start (0: never). */
void session_end_after(struct gd_session *s, double seconds);
/* Changes the interval from now on, for the clock and for the supervisor's stall and attach
 * deadlines; the open window ends one new interval after its start. */
void session_set_interval(struct gd_session *s, double interval_s);
double session_interval(const struct gd_session *s);
/* The ring polling period (ns): how long a waiting loop sleeps between looks. */
int64_t session_poll_period(const struct gd_session *s);
/* Forgets ended rows whose every record has been reported. */
void session_prune(struct gd_session *s);

/* ---- the rows: workers, or an observed program's copies and the processes they started ---- */
/* Starts one more worker on device dev (-1: the one with the fewest), or observing a program
 * one more copy of it; its index, or -1 with err. */
int session_spawn(struct gd_session *s, int dev, char *err, size_t errlen);
/* Asks row i to stop (a worker after its batch), or kills it (hard). */
void session_stop_row(struct gd_session *s, int i, bool hard);
/* Sends sig to row i: SIGTERM and SIGKILL as a stop, graceful or hard; anything else as it is.
 * 0, or -1 when it has ended or the signal could not be sent. */
int session_signal(struct gd_session *s, int i, int sig);
/* Pauses or resumes every row: a worker between batches, a program by SIGSTOP and SIGCONT. */
void session_pause(struct gd_session *s, bool pause);
/* The queues of workers started from now on, and setting them. */
int session_queues(const struct gd_session *s);
void session_set_queues(struct gd_session *s, int queues);

/* The rows, read-only, indexed 0..session_nrows()-1 in the order they were started; an index
 * is valid until the next call that adds or forgets a row. session_row: row i, a copy. */
int session_nrows(const struct gd_session *s);
struct gd_row_info session_row(const struct gd_session *s, int i);
/* The index of row id, or -1. */
int session_find(const struct gd_session *s, unsigned id);
/* The units a run starts and stops (+, -, a sweep's steps) are its workers, or, observing a
 * program, its copies (a process a copy started is a row, not a unit). The most recently
 * started active unit, or -1. */
int session_newest(const struct gd_session *s);
/* Rows not reaped yet, stopping ones included: what --max-procs bounds. */
int session_live(const struct gd_session *s);
/* Live units not asked to stop; those of them that have published a batch (a copy through any
 * process of its process group); and the active rows on device d. */
int session_active(const struct gd_session *s);
int session_ready(const struct gd_session *s);
int session_active_on(const struct gd_session *s, int d);
/* Whether the rows are paused (session_pause). */
bool session_paused(const struct gd_session *s);
/* The first error of any row, or "". */
const char *session_first_error(const struct gd_session *s);
/* Graceful stops that ran out of their grace (SESSION_STOP_GRACE_S) and were made a SIGKILL,
 * since the start; *last gets the id of the latest such row (0: none). */
unsigned session_grace_kills(const struct gd_session *s, unsigned *last);

/* ---- the run ---- */
const struct gd_workload *session_workload(const struct gd_session *s);
int session_ndevs(const struct gd_session *s);
const struct gd_device *session_device(const struct gd_session *s, int d);
/* The calibrated ceiling of device d, or with d = -1 the run's (the devices' sum); rate NAN:
 * not calibrated. Valid as long as s; a calibration that answers updates it. */
const struct gd_ceiling *session_ceiling(const struct gd_session *s, int d);
/* The latest frame (zeroed before the first window). */
const struct gd_frame *session_frame(const struct gd_session *s);
/* When the run started (host CLOCK_MONOTONIC ns): the t_s of frames and events counts from it. */
int64_t session_t0(const struct gd_session *s);

/* ---- calibration ---- */
/* Starts a calibration of every device, one after another, with the rows paused while it
 * runs; the session keeps the ceilings. 0, or -1 with err (one is running, or no spawn). */
int session_calibrate(struct gd_session *s, char *err, size_t errlen);
/* How the latest calibration ended, once: copies it to buf and returns true, else false. */
bool session_take_message(struct gd_session *s, char *buf, size_t n);

#endif

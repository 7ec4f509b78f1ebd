/* session.h: what the dashboard and the headless mode share: the supervisor, the collector,
 * the trace and the interval clock. Only the printer differs between them. */
#ifndef GPUTOP_SESSION_H
#define GPUTOP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "gputop/calibrate.h"
#include "gputop/collect.h"
#include "gputop/device.h"
#include "gputop/opts.h"
#include "gputop/supervisor.h"

struct gd_prom;
struct gd_trace;

struct gd_session {
	struct gd_opts o; /* device and dtype resolved */
	int ndevs;        /* the devices the workers run on, o.devices.list's order */
	struct gd_device devs[GD_DEVICES_MAX];
	char refs[GD_DEVICES_MAX][24]; /* their "P:D" */
	struct gd_sup *sup;            /* the workers */
	struct gd_frame frame;         /* the latest window */
	int64_t t0;                    /* start, host CLOCK_MONOTONIC ns */
	int64_t win_start;             /* the open window [win_start, win_end) */
	int64_t win_end;
	int64_t interval; /* ns */
	int64_t settle;   /* a window is closed this long after its end, so batches that */
	                  /* completed inside it have been read */
	int64_t end;      /* stop after the window ending here; INT64_MAX: never */
	int64_t poll;     /* ring polling period */
	int64_t serviced; /* when the workers' rings were last read */
	bool unobserved;  /* records were lost while the supervisor did not run, until gap_end: */
	int64_t gap_end;  /* the open window runs to the boundary after it (collect_skip) */
	struct gd_collector *col;
	struct gd_trace *trace;
	struct gd_prom *prom;        /* --prom-file, --listen: updated as each window closes */
	struct gd_worker_info *info; /* scratch: the supervisor's workers at a window's end */
	int capinfo;
	struct gd_ceiling ceiling; /* mbit_s: the devices' sum, NAN until each is calibrated */
	struct gd_ceiling ceilings[GD_DEVICES_MAX]; /* each device's; mbit_s NAN: not calibrated */
	struct gd_calib *calib;                     /* a calibration in progress, or NULL */
	int calib_dev;                              /* the device it measures; the next one follows it */
	bool calib_paused;                          /* the workers were paused for it */
	char calib_msg[256]; /* how the latest calibration ended; the dashboard shows it once
	                      * and clears it */
};

/* Starts the supervisor and the first --procs workers, spread round robin over devs[0..ndev)
 * (o->devices lists them); takes ownership of trace and prom (either may be NULL). Returns 0
 * or -1 (err); session_stop must be called either way. */
int session_start(struct gd_session *s, const struct gd_opts *o, const struct gd_device *devs, int ndev,
                  struct gd_trace *trace, struct gd_prom *prom, char *err, size_t errlen);
/* Services the workers; when a window is due, fills s->frame and returns true. */
bool session_poll(struct gd_session *s, int64_t now);
/* Services the workers without closing a window. */
void session_service(struct gd_session *s, int64_t now);
/* Nanoseconds until session_poll has something to do. */
int64_t session_wait(const struct gd_session *s, int64_t now);
/* True once the window that ends at --duration has been produced. */
bool session_done(const struct gd_session *s);
/* Forgets the statistics so far and starts the window clock again at now (the `r` key,
 * each sweep step). */
void session_restart_clock(struct gd_session *s, int64_t now);
/* Changes the interval from now on (the dashboard's [ and ] keys), keeping the statistics:
 * the open window ends one new interval after its start. interval_s is within the option's
 * bounds. */
void session_set_interval(struct gd_session *s, double interval_s);
/* Forgets ended workers whose every record has been reported. */
void session_prune(struct gd_session *s);
/* Starts a calibration of every device, one after another: the workers are paused while it
 * runs (session_poll resumes them and sets s->ceilings and s->ceiling). Returns 0, or -1 with
 * err filled (one is already running, or no spawn). */
int session_calibrate(struct gd_session *s, char *err, size_t errlen);
/* Stops every worker and releases everything; returns -1 with the reason in why if the trace
 * or the --prom-file could not be written. */
int session_stop(struct gd_session *s, char *why, size_t whylen);

#endif

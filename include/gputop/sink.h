/* sink.h: the headless log: one record per worker and one aggregate per window, in CSV or
 * JSON lines; sweep rows in the same formats. Each line reaches the file in one write(2). */
#ifndef GPUTOP_SINK_H
#define GPUTOP_SINK_H

#include <stdbool.h>

#include "gputop/collect.h"
#include "gputop/opts.h"

struct gd_sweep_row {
	int procs, queues;
	double mbit_s, speedup, device_busy, gap_batch_us, headroom;
	double of_ceiling; /* mbit_s / the calibrated ceiling; NAN without --calibrate */
	char device[24];   /* "all" for a step's row; "P:D" for one device's share of it (runs */
	                   /* with two or more devices add one such row per device after each step) */
};

/* Something the user did, for a log that replays a session's decisions. */
struct gd_event {
	double t_s, unix_s; /* when: seconds since start, and wall-clock Unix seconds */
	const char *action; /* add, stop, kill, pause, resume, reset, calibrate */
	unsigned id;        /* the worker acted on, or 0: all of them */
	pid_t pid;
};

struct gd_sink;

/* A sink writing to fd, which the caller opened (outputs.h); sink_close closes it if own_fd. */
struct gd_sink *sink_new(int fd, bool own_fd, enum gd_format fmt);
/* Each returns 0, or -1 with the reason in sink_error(). */
int sink_frame(struct gd_sink *s, const struct gd_frame *f);
int sink_sweep_row(struct gd_sink *s, const struct gd_sweep_row *r);
/* An event row: kind "event", the action in the state column, the worker's id and pid. */
int sink_event(struct gd_sink *s, const struct gd_event *e);
const char *sink_error(const struct gd_sink *s);
/* Closes and frees s; returns 0, or -1 with the reason in why. NULL is fine. */
int sink_close(struct gd_sink *s, char *why, size_t whylen);

#endif

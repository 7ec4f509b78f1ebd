/* sink.h: the headless log: a run header first, then one record per worker and one aggregate
 * per window, in CSV or JSON lines; sweep rows in the same formats. Each line reaches the file
 * in one write(2). */
#ifndef GPUTOP_SINK_H
#define GPUTOP_SINK_H

#include <stdbool.h>

#include "measure/collect.h"
#include "gputop/device.h"
#include "gputop/outputs.h"
#include "measure/stats.h"
#include "gputop/settings.h"

struct gd_sink;
struct gd_text;

/* Pure: the comma-separated field names of list ("t_s,kind,mbit_s"), of the sweep rows' table
 * when sweep is set, else of the frame rows', into *out. Returns 0, or -1 with one line in err
 * naming the field that is unknown, empty or listed twice. */
int sink_fields_parse(const char *list, bool sweep, struct gd_fields *out, char *err, size_t errlen);

/* The name of field i of the sweep rows' table (sweep set) or the frame rows'; NULL past its
 * end. */
const char *sink_field_name(bool sweep, size_t i);
/* The index of the field named by the len characters at name, or -1. */
int sink_field_find(bool sweep, const char *name, size_t len);

/* The list of fields that --fields picks from, the sweep rows' when sweep is set, one line
 * each: name, unit (rate_unit for a rate: Mbit/s, or Mitem/s with --kernel), the rows that
 * carry it and what it is, from the figure registry (measure/figures.c) and the log's tables
 * (rows.c). Appended to t. */
void sink_fields_help(struct gd_text *t, bool sweep, const char *rate_unit);

/* The log as one of the run's outputs (outputs.h): frames (but in a sweep's log, which holds
 * its sweep rows alone), events and sweep rows; a row that cannot be written fails the run
 * with the reason. */
extern const struct gd_output_ops sink_output;

/* A sink writing to fd, which the caller opened (outputs.h); sink_close closes it if own_fd. */
struct gd_sink *sink_new(int fd, bool own_fd, enum gd_format fmt);
/* The columns of every row (f copied; NULL or f->n == 0: every field) and whether a CSV log
 * opens with the line of their names; every field and the header until set. Call before
 * sink_run. NULL s: nothing. */
void sink_set_columns(struct gd_sink *s, const struct gd_fields *f, bool header);
/* Queues the run header (kind "run": version, host, the first device's facts, every device of
 * devs[0..ndev) as "P:D" and name, and options, the JSON object of every option of the run as
 * resolved) as the log's first row, a sweep log's when sweep is set; it is written with the
 * next row, or by sink_close. Call once, before any row. NULL s: nothing. */
void sink_run(struct gd_sink *s, const struct gd_device *devs, int ndev, const char *options, bool sweep);
/* Whether a reader that closes the log's pipe (EPIPE: `| head`) ends the run: then the log ends
 * quietly, no error, and gd_quit_signal is set (to SIGPIPE) so that the run stops as on a quit
 * signal. Off until set: the error is the run's. NULL s: nothing. */
void sink_set_reader_ends_run(struct gd_sink *s, bool on);
/* The kernel the run measures and the unit of its rates (kspec_name, kspec_rate_unit),
 * written in every aggregate and sweep row; "decode" and "Mbit/s" until set. The strings
 * must outlive s. NULL s is fine. */
void sink_set_kernel(struct gd_sink *s, const char *name, const char *unit);
/* The rates in a unit of the user's (--rate-unit): unit its name ("Mbit/s"), items the work
 * items that make one of what it counts in millions (10: ten items a bit). Every rate of the
 * log (rate, mbit_s, headroom, ceiling, the sweep's) is divided by items and rate_unit says
 * unit, whatever sink_set_kernel says. Items not above 0: nothing. unit must outlive s. */
void sink_set_rate_unit(struct gd_sink *s, const char *unit, double items);
/* Each returns 0, or -1 with the reason in sink_error(). */
int sink_frame(struct gd_sink *s, const struct gd_frame *f);
int sink_sweep_row(struct gd_sink *s, const struct gd_sweep_row *r);
/* An event row: kind "event", the action in the state column, the worker's id and pid. */
int sink_event(struct gd_sink *s, const struct gd_event *e);
const char *sink_error(const struct gd_sink *s);
/* Closes and frees s; returns 0, or -1 with the reason in why. NULL is fine. */
int sink_close(struct gd_sink *s, char *why, size_t whylen);

#endif

/* trace.h: host phases and device intervals of every batch as Chrome trace-event JSON
 * (array format, timestamps in us since the run started), one track per worker. */
#ifndef GPUTOP_TRACE_H
#define GPUTOP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/ring.h"

struct gd_trace;

/* A trace written to fd, which the caller opened (outputs.h) and trace_close closes if own_fd;
 * path names it in messages. Every event is one line, and lines reach the file whole. */
struct gd_trace *trace_open(int fd, bool own_fd, const char *path, uint64_t limit);
/* Timestamps are written relative to t0 (host CLOCK_MONOTONIC ns), the run's start. */
void trace_set_origin(struct gd_trace *t, int64_t t0);
/* One batch of a worker on device (P:D, which names its device track). */
void trace_batch(struct gd_trace *t, unsigned worker, pid_t pid, const char *device, const struct gd_rec *r);
/* Writes the whole lines buffered so far (called once per window). */
void trace_flush(struct gd_trace *t);
/* Ends the array with an "end of trace" event and closes; returns 0, or -1 with the first
 * write error in why. */
int trace_close(struct gd_trace *t, char *why, size_t whylen);

#endif

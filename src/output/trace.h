/* trace.h: host phases and device intervals of every batch as Chrome trace-event JSON
 * (array format, timestamps in us since the run started), one process per worker with a track
 * per lane and kind of command (estimates on tracks of their own), one process per device with
 * the union of every worker's kernels and a counter of those running, and a sweep's steps as
 * global markers. */
#ifndef GPUTOP_TRACE_H
#define GPUTOP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/outputs.h"

struct gd_trace;

/* A trace written to fd, which the caller opened (outputs.h) and the close closes if own_fd;
 * path names it in messages. Every event is one line, and lines reach the file whole. */
struct gd_trace *trace_open(int fd, bool own_fd, const char *path, uint64_t limit);
/* The trace as one of the run's outputs (outputs.h): timestamps relative to the session's
 * start, every batch's events buffered, whole lines written once a window; close ends the
 * array with an "end of trace" event and reports the first write error. */
extern const struct gd_output_ops trace_output;
/* Marks moment at (host CLOCK_MONOTONIC ns) on each trace among the outputs l (none, or l
 * NULL: nothing happens) with a global instant event named by fmt, written at once: a sweep
 * calls it as each step starts ("step 2: 4 processes x 1 queues, run 1"). */
__attribute__((format(printf, 3, 4))) void trace_mark(struct gd_outputs *l, int64_t at, const char *fmt, ...);

#endif

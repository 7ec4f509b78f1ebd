/* outq.h: an output that must never hold up its caller (src/output/). Whole lines are queued,
 * up to a bound, and a thread of the queue's own writes them; lines that do not fit while the
 * reader does not keep up (a pipe nobody reads, a terminal stopped with Ctrl-S) are dropped
 * and counted, never waited for. Closing waits a bounded time for the rest. */
#ifndef GPUTOP_OUTPUT_OUTQ_H
#define GPUTOP_OUTPUT_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gd_outq;

/* A queue of at most cap bytes in front of fd, with its thread started; NULL when it cannot
 * start. fd stays the caller's. */
struct gd_outq *outq_new(int fd, size_t cap);
/* Queues p[0..n) (whole lines) whole, or drops and counts them when they do not fit. Returns
 * 0, or the errno of a write that failed earlier (after which every line is dropped). */
int outq_put(struct gd_outq *o, const char *p, size_t n);
/* Writes what waits, for at most bound_ns, then ends the thread (cancelling a write that does
 * not return) and frees o. *dropped: every line not written. Returns 0, the errno of a failed
 * write, or EAGAIN when the bound ran out. */
int outq_close(struct gd_outq *o, int64_t bound_ns, uint64_t *dropped);

#endif

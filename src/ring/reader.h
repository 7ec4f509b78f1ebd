/* reader.h: the supervisor's end of a worker's segment (wire.h): every byte hostile, each
 * field loaded once and validated, nothing it cannot use ever accepted (counted as lost). */
#ifndef GPUTOP_READER_H
#define GPUTOP_READER_H

#include "gputop/frame.h"
#include "gputop/wire.h"

/* The header's totals as reader_view bounds them: batches, items, kernels, then the eight of
 * struct gd_obs_totals in their order. */
#define GD_HDR_TOTALS 11

/* A reader of one segment: a plain struct, so its owner can embed it. */
struct gd_reader {
	unsigned char *base; /* the mapping; no descriptor is kept */
	size_t size;
	uint32_t cap;
	uint64_t cursor;   /* next record index to read */
	uint64_t lost;     /* records that could not be read, and header totals refused */
	uint64_t accepted; /* records read and handed over */
	/* Header totals: each as last shown, and as last refused while refused (bit i of
	 * refusing); how many refusals, each value refused once (also counted in lost). */
	uint64_t shown[GD_HDR_TOTALS], refused[GD_HDR_TOTALS];
	uint32_t refusing;
	uint64_t rejected;
};

/* A validated copy of the header's changing part. */
struct gd_seg_view {
	enum gd_state state;
	enum gd_timebase timebase;
	int64_t inflight_ns, inflight_at_ns; /* an observed process's kernel under way since, as it
	                                      * was at (wire.h); 0: none */
	int64_t heartbeat_ns;
	uint64_t batches, items, kernels;
	enum gd_seg_source source;
	struct gd_obs_totals obs;
	uint64_t start_ticks; /* the writer's start time (wire.h) */
	char comm[16];
	int dev_platform, dev_index; /* an observed program's device, P:D; -1: not known yet */
	char error[GD_ERR_LEN];      /* empty unless state is failed */
};

enum gd_open_result {
	GD_OPEN_OK,
	GD_OPEN_NOTYET,   /* not created or still initialising: try again later */
	GD_OPEN_REJECTED, /* exists but is not ours or is malformed: never attach */
};

/* Opens and validates a segment that pid (with generation gen) should have created: a
 * regular file (never a link; a FIFO or anything else at the name is rejected without
 * blocking), owner uid, mode 0600, size, magic, version, layout, pid and generation. Missing,
 * too small, initialising, or our own descriptors exhausted (EMFILE, ENFILE): not yet. */
enum gd_open_result reader_open(struct gd_reader *r, const char *name, pid_t pid, uint64_t gen, char *why,
                                size_t whylen);
/* Copies up to max new records into out; returns how many (>= 0), or -1 when the segment
 * became unreadable (truncated under the mapping: SIGBUS is caught). */
int reader_poll(struct gd_reader *r, struct gd_rec *out, int max);
/* Call once the writer is known dead, after the last poll: a record it was killed in the
 * middle of publishing (its entry says "being written" right at head) counts as lost. */
void reader_writer_died(struct gd_reader *r);
/* Reads and validates the header's changing fields; false if the segment is unreadable. A
 * total is shown only when it is no less than the one shown before and within what the records
 * can account for (reader.c: header_totals); otherwise the one shown before stays, and the value
 * counts once in rejected and lost. */
bool reader_view(struct gd_reader *r, struct gd_seg_view *v);
void reader_close(struct gd_reader *r);

/* Unlinks segments of this uid whose supervisor is no longer running: the pid in the name is
 * gone, a zombie, or a process that started after the segment was last modified (a reused pid).
 * Returns the count. */
int seg_sweep_stale(void);

#endif

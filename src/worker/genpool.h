/* genpool.h (private to the worker side): threads that generate a pipelined worker's inputs
 * while its own thread keeps the device fed. Each thread has its own random stream. Batches are
 * handed over by slot, in turn: one thread submits slots 0, 1, ..., nslots - 1, 0, ..., each
 * once its previous generation was taken with genpool_wait, and later waits for them; what
 * filling one means is the caller's function; which thread generates which slot is not fixed,
 * so the values of a slot depend on the seed and on the order in which threads picked up the
 * work. */
#ifndef GPUTOP_GENPOOL_H
#define GPUTOP_GENPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gputop/rng.h"

struct gd_genpool;

/* What a slot's last generation was: host times and the thread (from 1) that did it. */
struct gd_gen_done {
	int64_t t_begin, t_end;
	int thread;
};

/* Fills the destination dst with values from rng (the calling thread's own stream); ctx is
 * the pool's. Runs on a generation thread: it must touch only dst and read only ctx. */
typedef void (*gd_gen_fill)(struct gd_rng *rng, void *dst, const void *ctx);

/* threads >= 1 threads running fill(rng, dst, ctx) for slots 0..nslots-1; streams derived from
 * seed. NULL when a thread cannot be started. */
struct gd_genpool *genpool_new(int threads, int nslots, gd_gen_fill fill, const void *ctx, uint64_t seed);
/* Queues slot for generation into dst; slots are generated in the order submitted. A slot
 * already queued or generated stays as it is. A slot out of turn is a caller's error: it aborts. */
void genpool_submit(struct gd_genpool *p, int slot, void *dst);
/* True when slot's values are ready (a later genpool_wait will not block). */
bool genpool_ready(struct gd_genpool *p, int slot);
/* Waits until slot's values are ready, and takes them. */
void genpool_wait(struct gd_genpool *p, int slot, struct gd_gen_done *out);
/* Stops the threads after their current slot and frees p. NULL is fine. */
void genpool_free(struct gd_genpool *p);

#endif

/* writer.h: the worker's end of its segment (wire.h): created once, then records published,
 * state, heartbeat and totals stored; it never reads what the reader writes, nor waits. */
#ifndef GPUTOP_WRITER_H
#define GPUTOP_WRITER_H

#include "gputop/wire.h"

struct gd_seg;
/* Creates name O_CREAT|O_EXCL with mode 0600, sizes it, touches every page. Returns NULL
 * and fills err on failure, with errno set to the failed step's. */
struct gd_seg *seg_create(const char *name, const struct gd_seg_info *info, char *err, size_t errlen);
/* Unmaps; unlinks the name too when unlink_name is set. */
void seg_close(struct gd_seg *seg, bool unlink_name);
void seg_publish(struct gd_seg *seg, const struct gd_rec *r);
void seg_set_state(struct gd_seg *seg, enum gd_seg_state st);
void seg_set_timebase(struct gd_seg *seg, enum gd_timebase tb);
/* Stores the error text, then the state failed. */
void seg_set_error(struct gd_seg *seg, const char *msg);
void seg_heartbeat(struct gd_seg *seg);
/* An observed process: since when a kernel of it has been under way (0: none), as it was at
 * at_ns (wire.h). */
void seg_set_inflight(struct gd_seg *seg, int64_t since_ns, int64_t at_ns);
/* Adds to the monotonic totals (written only by the worker). */
void seg_add_totals(struct gd_seg *seg, uint64_t batches, uint64_t items, uint64_t kernels);
/* An observed program's: the path its calls come through, and its transfer and wait totals. */
void seg_set_source(struct gd_seg *seg, enum gd_seg_source src);
/* An observed program's device, platform P and device D as --list-devices numbers them. */
void seg_set_obs_device(struct gd_seg *seg, unsigned platform, unsigned device);
void seg_set_obs_totals(struct gd_seg *seg, const struct gd_obs_totals *t);

#endif

/* supervisor.h: the worker processes seen from the dashboard or headless role: spawning,
 * stopping, reaping, attaching to their segments and draining their rings. */
#ifndef GPUTOP_SUPERVISOR_H
#define GPUTOP_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "gputop/opts.h"
#include "gputop/ring.h"

struct gd_trace;

/* One worker, alive or ended. The collector reads these; only supervisor.c writes them. */
struct gd_slot {
	unsigned id; /* worker number shown to the user, from 1 */
	pid_t pid;
	uint64_t gen;
	char shm[128];
	enum gd_state state;
	bool alive;    /* not reaped yet */
	bool attached; /* segment mapped */
	bool stop_sent, kill_sent;
	int64_t stop_ns;
	char error[GD_ERR_LEN];
	struct gd_reader rd;
	struct gd_seg_view view;
	/* Records read but not yet consumed by a window (collect.c). */
	struct gd_rec *pend;
	size_t npend, cappend;
	uint64_t late;     /* records read after their window was emitted: counted as lost */
	int64_t last_kend; /* last kernel END of the previous batch seen */
	uint64_t last_batch;
	uint64_t base_batches, base_symbols, base_lost; /* baselines of the last reset */
};

struct gd_sup {
	struct gd_opts o; /* device and dtype resolved */
	pid_t self;
	char exe[4096];
	struct gd_slot *slots;
	int nslots, capslots;
	unsigned next_id;
	bool paused;
	int64_t stall_ns; /* heartbeat age that counts as stalled */
	struct gd_trace *trace;
};

/* Sets up signal handling for children and sweeps stale segments. Returns 0 or -1 (err). */
int sup_init(struct gd_sup *s, const struct gd_opts *o, char *err, size_t errlen);
/* Stops every worker (SIGTERM, then SIGKILL after a grace period), reaps them and unlinks
 * every segment. Safe to call more than once. */
void sup_shutdown(struct gd_sup *s);

/* Starts one more worker; returns its slot index, or -1 (limit reached or spawn failed). */
int sup_spawn(struct gd_sup *s, char *err, size_t errlen);
/* Graceful stop (the worker finishes its batch), or SIGKILL when kill is set. */
void sup_stop(struct gd_sup *s, int slot, bool kill);
/* Index of the most recently started live worker, or -1. */
int sup_newest(const struct gd_sup *s);
/* Workers not reaped yet (stopping ones included): what --max-procs bounds. */
int sup_live(const struct gd_sup *s);
/* Live workers that were not asked to stop. */
int sup_active(const struct gd_sup *s);
void sup_pause(struct gd_sup *s, bool pause);
/* Reaps children, attaches segments, drains rings, escalates stops. Call often. */
void sup_service(struct gd_sup *s, int64_t now, int64_t window_start);
/* Drops ended workers from the list (after they have been reported). */
void sup_prune(struct gd_sup *s);
/* Forgets totals and pending samples: the statistics start again. */
void sup_reset(struct gd_sup *s);

#endif

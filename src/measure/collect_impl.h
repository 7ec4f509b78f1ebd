/* collect_impl.h (private to src/measure/collect*.c): the collector's state, shared by
 * collect.c (windows into frames) and collect_count.c (the counters that never reset: the
 * totals, and the late and in-flight kernel time they keep exact). */
#ifndef GPUTOP_COLLECT_IMPL_H
#define GPUTOP_COLLECT_IMPL_H

#include "collect.h"
#include "diagnose.h"
#include "stats.h"

/* One worker's statistics state. */
struct col_worker {
	unsigned id;
	struct gd_rec *pend; /* records read but not yet consumed by a window */
	size_t npend, cappend;
	uint64_t late;     /* records read after their window was reported: counted as lost */
	int64_t last_kend; /* latest kernel END of the run of consecutive profiled batches that
	                    * ends with the previous batch seen; 0: none */
	uint64_t last_batch;
	uint32_t sample_every, share_ppm; /* of the latest record */
	bool last_profiled;               /* the previous batch's times were measured, not estimated */
	uint64_t base_batches, base_items, base_lost; /* baselines of the last reset */
	struct gd_counters tot;                       /* since it started, never reset */
	/* A kernel under way counted in windows already reported (the latest such runs), and the
	 * kernel time its records brought that no reported window counted: its totals' due. */
	int64_t counted[4][2];
	int64_t late_ns, late_done[2]; /* and a late record's transfer and copy times */
};

struct gd_collector {
	int64_t start; /* of the open window */
	bool profiled; /* false under --profile off */
	struct col_worker *workers;
	size_t n, cap;
	struct gd_iv *iv; /* scratch: the window's kernel intervals, one device's after another */
	size_t capiv;
	int ndev;
	char refs[GD_DEVICES_MAX][8];         /* each device's "P:D", copied into every frame */
	bool sliced[GD_DEVICES_MAX];          /* a GPU: contexts of separate processes take turns */
	bool host_cpu[GD_DEVICES_MAX];        /* not a GPU: the host's CPU (gd_devframe.host_cpu) */
	struct gd_span span;                  /* the verdict's last windows (diagnose.h) */
	int64_t launch_limit[GD_DEVICES_MAX]; /* collect_launch_limit; 0: none */
	struct gd_idle *idle;                 /* scratch: one device's workers' diagnoses */
	size_t capidle;
	struct gd_counters devtot[GD_DEVICES_MAX]; /* each device's, its ended workers' included */
	/* Each device's forgotten workers' totals since the last reset (batches, items, lost):
	 * its aggregate and the overall one keep counting them, so that neither goes backwards. */
	struct gd_sample gone[GD_DEVICES_MAX];
};

/* The index of info's device among the collector's. */
static inline int dev_of(const struct gd_collector *c, const struct gd_row_info *info)
{
	return info->device >= 0 && info->device < c->ndev ? info->device : 0;
}

/* collect_count.c */
void collect_counters_init(struct gd_counters *t, bool profiled);
/* A record of cw brought kernel time of windows already reported (before start): what no
 * in-flight run counted goes to cw's totals. */
void collect_late_kernels(struct col_worker *cw, const struct gd_rec *r, int64_t start);
/* In-flight kernel time [s, e) that a window counted for cw. */
void collect_counted_add(struct col_worker *cw, int64_t s, int64_t e);
void collect_count_totals(struct gd_collector *c, struct col_worker *cw, const struct gd_row_info *info);
void collect_count_window(struct col_worker *cw, const struct gd_batch_acc *acc, int64_t busy,
                          const int64_t done[2], const struct gd_sample *s);
void collect_frame_counters(const struct gd_collector *c, struct gd_frame *f);

#endif

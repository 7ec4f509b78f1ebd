/* wire.h: the shared-memory segment a worker publishes into and the supervisor reads: its
 * header, its records and its name, the one contract between the two sides (writer.h is the
 * worker's end, reader.h the supervisor's). Invariants:
 * - One writer (the worker that created the segment, or the observed process whose first
 *   OpenCL call created it: its threads publish under one mutex) and one reader (the
 *   supervisor). The writer never reads anything the reader writes and never waits for it.
 * - `head` counts records ever published (u64, never wraps in practice). Record i lives
 *   in entry i & (capacity - 1). Full ring: the writer overwrites the oldest record.
 * - Writer, record i: seq = 2i+1 (relaxed); payload (release stores of 64-bit words, which
 *   order it after the odd seq like a release fence would); seq = 2i+2 (release);
 *   head = i+1 (release).
 * - Reader: h = head (acquire); more than `capacity` unread records means the excess was
 *   overwritten and is counted as lost. Per record: seq (acquire), payload (acquire loads),
 *   re-read seq; anything but 2i+2 both times is lost, never accepted.
 * - `magic` is stored last (release) at set-up: 0 means "initialising".
 * - The reader treats every byte as hostile: each field is loaded once, validated, and
 *   only the local copy is used; indices are masked with the reader's own mask.
 * - A record names the lane (the worker's in-order stream, from 0, < GD_QUEUES_MAX) its batch
 *   ran on (GD_REC_LANE): device commands of different lanes may overlap, those of one lane's
 *   queue follow each other. Which lane a batch takes depends on the mode and the generation
 *   threads (not on its index alone), so the writer says it; gd_rec_valid bounds it.
 */
#ifndef GPUTOP_WIRE_H
#define GPUTOP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GD_SEG_MAGIC        0x31524447u /* "GDR1" */
#define GD_SEG_VERSION      4u
#define GD_SEG_PREFIX       "gputop-decode."
#define GD_RING_CAPACITY    1024u
#define GD_RING_OFFSET      4096u      /* the ring starts on its own page */
#define GD_REC_KMAX         16         /* kernel intervals kept per record */
#define GD_REC_LAUNCHES_MAX (1u << 24) /* launches in one record (an observed batch may hold many) */
#define GD_ERR_LEN          200
#define GD_DEV_LEN          120
#define GD_SHARE_NONE       UINT32_MAX /* gd_rec.share_ppm: not measured */

/* What a segment says of its worker: the states its writer stores. */
enum gd_seg_state {
	GD_SEG_STARTING,
	GD_SEG_RUNNING,
	GD_SEG_PAUSED,
	GD_SEG_STOPPING,
	GD_SEG_EXITED,
	GD_SEG_FAILED,
	GD_SEG_STATE_COUNT
};

/* Who wrote a segment: a worker of the tool, or the observation library inside a program the
 * tool started (libgputop-observe.so), loaded as an OpenCL loader layer or by LD_PRELOAD. */
enum gd_seg_source {
	GD_SRC_WORKER,
	GD_SRC_LAYER,   /* observed: the ICD loader's layer (OPENCL_LAYERS) */
	GD_SRC_PRELOAD, /* observed: LD_PRELOAD wrappers of the OpenCL entry points */
	GD_SRC_COUNT
};
/* "worker", "layer", "preload". */
const char *gd_source_name(enum gd_seg_source s);

/* An observed program's totals that a record has no room for: its transfers and host waits. */
struct gd_obs_totals {
	uint64_t h2d_bytes, d2h_bytes; /* bytes written to and read (or mapped) from the device */
	uint64_t h2d_count, d2h_count; /* the commands that moved them */
	uint64_t waits;                /* host waits: clFinish, clWaitForEvents, blocking commands */
	uint64_t commands;             /* every command enqueued, of any kind but markers and barriers */
	uint64_t copy_bytes;           /* bytes copied or filled on the device (buffers, images, SVM) */
	uint64_t copy_count;           /* the commands that did */
};
/* to += add, field by field: an exec'd process's totals go on from its old image's. */
void gd_obs_totals_add(struct gd_obs_totals *to, const struct gd_obs_totals *add);

/* How device timestamps were mapped onto the host's CLOCK_MONOTONIC. */
enum gd_timebase {
	GD_TB_NONE,      /* no device times yet */
	GD_TB_HOSTTIMER, /* clGetDeviceAndHostTimer */
	GD_TB_OFFSET,    /* per-worker offset: min(host after completion - device END) */
	GD_TB_COUNT
};
const char *gd_timebase_name(enum gd_timebase t);

/* One batch, as published. Times are host CLOCK_MONOTONIC ns; device times are mapped. */
struct gd_rec {
	uint64_t seq;
	uint64_t batch;        /* index of the batch within its worker, from 0 */
	uint32_t items;        /* items of one launch (decode: input values decoded); an observed
	                        * batch's work items, up to UINT32_MAX */
	uint32_t kernels;      /* launches in the batch, up to GD_REC_LAUNCHES_MAX */
	uint32_t nkiv;         /* kernel intervals stored, <= GD_REC_KMAX */
	uint32_t flags;        /* GD_REC_* */
	int64_t t_begin;       /* host: batch starts (generation begins) */
	int64_t t_gen;         /* host: generation done */
	int64_t t_end;         /* host: output is on the host */
	int64_t h2d[2];        /* device: write START, END (0, 0 when there was none) */
	int64_t d2h[2];        /* device: read START, END */
	int64_t kbusy_ns;      /* sum of END - START over every kernel of the batch */
	int64_t kgap_ns;       /* sum of START(k+1) - END(k) within the batch */
	int64_t kbase;         /* START of the first kernel; kiv are offsets from it */
	int64_t qwait_ns;      /* START - SUBMIT of the first kernel: time queued behind others */
	uint32_t sample_every; /* --profile sampled: the period when this batch completed */
	uint32_t share_ppm;    /* the observer's measured share, parts per million; GD_SHARE_NONE */
	/* Kernel intervals [start, end) as offsets from kbase, in units of 2^shift ns (shift in
	 * flags: GD_REC_SHIFT; 0 while the batch's kernels span less than 2^32 ns). With more than
	 * GD_REC_KMAX launches, consecutive kernels are grouped, parted at the widest gaps; an entry
	 * starts at its group's first START and lasts the group's summed kernel time, so a gap inside
	 * a group is never drawn or counted as busy.
	 * Read them with gd_rec_kiv, write them with gd_rec_set_kernels: nothing else. */
	uint32_t kiv[GD_REC_KMAX][2];
	/* An observed program's batch (zero for a worker): the device span of its copies and fills
	 * (0, 0 when there was none), their summed END - START, the same of its transfers (whose
	 * spans are h2d and d2h) and its commands of every kind. */
	int64_t copy[2];
	int64_t copy_ns;
	int64_t xfer_ns; /* the summed END - START of its transfers to and from the host */
	uint32_t commands;
	uint32_t reserved; /* 0 */
};

enum {
	GD_REC_DEVTIME = 1u << 0,    /* device timestamps present and mapped */
	GD_REC_GROUPED = 1u << 1,    /* kiv entries stand for groups of kernels */
	GD_REC_ESTIMATED = 1u << 2,  /* not profiled (--profile sampled): the device times are the
	                              * latest profiled batch's, moved to end where this one ended */
	GD_REC_PER_LAUNCH = 1u << 3, /* items counts one launch's items (a user kernel): the
	                              * batch's items are items x kernels (gd_rec_items) */
	GD_REC_SHIFT_BIT = 8,        /* bits 8-12: kiv's unit is 2^shift ns */
	GD_REC_SHIFT = 0x1fu << GD_REC_SHIFT_BIT,
	GD_REC_SHIFT_MAX = 16, /* offsets up to 2^48 ns, the longest batch a record describes */
	GD_REC_GEN_BIT = 16,   /* bits 16-23: the thread that generated the input (from 1), 0: inline */
	GD_REC_GEN = 0xffu << GD_REC_GEN_BIT,
	/* The same bits as an observed process writes them: its thread that opened the batch, from 1
	 * in the order its threads first open one (folded into 1..GD_GEN_THREADS_MAX). */
	GD_REC_THREAD_BIT = GD_REC_GEN_BIT,
	GD_REC_THREAD = GD_REC_GEN,
	GD_REC_LANE_BIT = 24, /* bits 24-28: the lane the batch ran on, from 0 */
	GD_REC_LANE = 0x1fu << GD_REC_LANE_BIT,
	GD_REC_FLAGS = GD_REC_DEVTIME | GD_REC_GROUPED | GD_REC_ESTIMATED | GD_REC_PER_LAUNCH | GD_REC_SHIFT,
};
/* The items (decoded bits, or a user kernel's work items) the batch r counts. */
uint64_t gd_rec_items(const struct gd_rec *r);
/* The generation thread of r (GD_REC_GEN), or an observed process's thread (GD_REC_THREAD). */
unsigned gd_rec_gen_thread(const struct gd_rec *r);
/* The lane r's batch ran on, from 0 (GD_REC_LANE). */
unsigned gd_rec_lane(const struct gd_rec *r);

/* Validates a record's internal consistency (end >= start, counts and flags in range). */
bool gd_rec_valid(const struct gd_rec *r);
/* Device interval [start, end) of the batch's kernels, first START to last END. */
int64_t gd_rec_kernel_start(const struct gd_rec *r);
int64_t gd_rec_kernel_end(const struct gd_rec *r);
/* Kernel interval i (< nkiv) of r in host ns, [out[0], out[1]): the one reader of kiv. */
void gd_rec_kiv(const struct gd_rec *r, uint32_t i, int64_t out[2]);
/* The writer of kiv: fills kbase, nkiv, kiv, the grouping flag, the unit (the finest that holds
 * the span: 1 ns up to 4.29 s, 2 ns up to 8.6 s, ...), kbusy_ns and kgap_ns from n kernel
 * intervals [START, END) in host ns, in launch order. A START is rounded down and an END up
 * to the unit, so an interval never shrinks; busy time stays exact (stats_rec_busy). */
void gd_rec_set_kernels(struct gd_rec *r, const int64_t (*kv)[2], uint32_t n);

/* What a worker tells about itself, fixed at set-up. */
struct gd_seg_info {
	uint64_t generation;  /* random, chosen by the supervisor */
	uint32_t id;          /* the worker's id, from 1 */
	uint32_t dtype_bytes; /* 4 or 8; 0 for an observed program */
	enum gd_seg_source source;
	uint64_t start_ticks; /* the writer's start time, clock ticks since boot (proc.h); 0: unknown */
	char comm[16];        /* an observed program's command name; "" for a worker */
	char device[GD_DEV_LEN];
};

/* The header at offset 0 of every segment. Fields the worker changes after set-up are
 * accessed only with __atomic operations; the reader loads each of them once. */
struct gd_seg_header {
	uint32_t magic; /* stored last, with release */
	uint32_t version;
	uint32_t header_size;
	uint32_t record_size;
	uint32_t capacity; /* power of two */
	uint32_t ring_offset;
	int32_t pid;
	uint32_t id;
	uint64_t generation;
	uint32_t dtype_bytes;
	uint32_t state;
	uint32_t timebase;
	int64_t heartbeat_ns;
	uint64_t batches, items, kernels;
	uint64_t head;
	uint32_t source;     /* enum gd_seg_source; an observed program's may change once, from LD_PRELOAD
	                      * to the layer, when the loader initialises the layer after the first call */
	uint32_t obs_device; /* observed: the device of its first queue, 1 + (P << 8 | D) as
	                      * --list-devices numbers it; 0: not known yet */
	struct gd_obs_totals obs; /* observed programs only; zero for a worker */
	char comm[16];
	char device[GD_DEV_LEN];
	char error[GD_ERR_LEN]; /* written before state becomes FAILED */
	uint64_t start_ticks;   /* the writer's start time: with pid, it names the process for good */
	/* An observed process: since when (host ns) a kernel of it has been under way on the device,
	 * submitted and not yet complete, its queue's earlier commands done (0: none), as it was at
	 * inflight_at_ns (stored after it). A kernel longer than a window so counts in every window
	 * it runs in, before its record comes. */
	int64_t inflight_ns, inflight_at_ns;
};

_Static_assert(sizeof(struct gd_seg_header) <= GD_RING_OFFSET, "the header fits before the ring");
_Static_assert(sizeof(struct gd_rec) % 8 == 0, "records are copied as 64-bit words");
_Static_assert(sizeof(struct gd_rec) == 296, "a record is 296 bytes");
_Static_assert((GD_RING_CAPACITY & (GD_RING_CAPACITY - 1)) == 0, "capacity is a power of two");

/* Segment names: "/gputop-decode.<uid>.<supervisor pid>.<worker id>.<generation>". */
void seg_name(char *buf, size_t n, pid_t supervisor, unsigned id, uint64_t gen);
/* Reserves a segment's name before it is published anywhere (a worker's command line can be
 * read by every user): an empty file of ours, mode 0600, made with O_EXCL, which the worker
 * then sizes and fills (seg_create). Nobody else can remove or replace it in /dev/shm (sticky).
 * 0, or -1 with errno (EEXIST: the name is taken, pick another generation). */
int seg_reserve(const char *name);
/* An observed process's: "/gputop-decode.<uid>.<supervisor pid>.o<nonce>.<pid>", the nonce (16 hex
 * digits) random, drawn by that process for this segment, so no other user can predict the name.
 * The run's token (chosen by the supervisor, passed in the program's environment) is in the header
 * alone (its generation), which only the uid can read: a name another user lists says nothing of it. */
void seg_name_observed(char *buf, size_t n, pid_t supervisor, uint64_t nonce, pid_t pid);

#endif

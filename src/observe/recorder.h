/* recorder.h (private to libgputop-observe.so): the recorder's state, one per process, shared by
 * its three parts: segment.c (the process's segment: made at its first call, the publisher
 * thread, fork and exit), record.c (the queues and their commands: where a batch starts and
 * ends) and publish.c (a finished batch as a record: its device times, measured or estimated).
 * Everything here is read and written under obs.mu alone. */
#ifndef GPUTOP_OBSERVE_RECORDER_H
#define GPUTOP_OBSERVE_RECORDER_H

#include <pthread.h>
#include <sys/types.h>

#include "gputop/common.h"
#include "gputop/spec.h"
#include "measure/timebase.h"
#include "observe.h"

#define OBS_PROPS_MAX 32                 /* queue properties kept for CL_QUEUE_PROPERTIES_ARRAY */
#define OBS_SETTLE_NS (GD_NS_PER_S / 20) /* a waited batch with nothing after it is published then */
#define OBS_SLICE_NS \
	(GD_NS_PER_S / 50) /* --profile sampled: batches opened in a slice this long are profiled */
#define OBS_BUDGET   0.02  /* --profile sampled: what profiling may add, of the run's time */
#define OBS_RUN_MAX  16    /* --profile sampled: profiled batches of a queue in a row, then a clean one */
#define OBS_MAPS_MAX 256   /* maps for writing awaiting their unmap, per process */

/* An event the recorder keeps for a profiled batch, and what its command did; theirs: a
 * reference of the recorder's own to the program's event (else an event only it holds). Its
 * times are read once it completes (the publisher thread looks every tick): done. */
struct obs_ev {
	cl_event e;
	enum obs_kind kind;
	bool theirs;
	bool done;
	cl_ulong t[3];   /* SUBMIT, START, END, device ns, once done */
	int64_t seen[2]; /* host ns: when a tick first saw it submitted, running; 0: not yet */
};

/* What a queue's recent profiled batches say an estimated batch (not profiled, --profile sampled)
 * took on the device, two ways: per unit of work (sums of device ns and of units: launches;
 * bytes of OBS_WRITE, OBS_READ, OBS_COPY), and as a share of the batch's span, from its first
 * command to its end (sums of their device ns and spans). Per unit is right where the work sets
 * the time (a GPU's kernels); the share where the device's speed varies and the host waits for
 * it (a CPU device shared with other processes: the same kernel takes 2 ms, then 8). Each
 * profiled batch is first predicted both ways from the batches before it, and the estimate weighs
 * each way by the inverse square of its predictions' mean relative error (err).
 *
 * Each older batch weighs OBS_RATES_DECAY as much as the one after it, so one batch's noise does
 * not set a rate alone and a change of the work shows within a few batches. The first profiled
 * batch with work of a kind sets its rate only until a second is profiled: it is often a warm-up,
 * whose first launch of a kernel can take a hundred times what the launches after it do. */
#define OBS_RATES_DECAY 0.8
struct obs_rates {
	double ns[OBS_KINDS], units[OBS_KINDS]; /* [OBS_KERNEL]: kernels' busy time, launches */
	uint32_t batches[OBS_KINDS];            /* profiled batches taken in with units of the kind */
	double dev_ns, span_ns;                 /* device ns (all kinds) and spans */
	uint32_t spans;                         /* profiled batches taken in with a span */
	double err[2];                          /* per unit, as a share of the span; 0: none yet */
};

struct obs_queue {
	cl_command_queue q;
	bool hidden; /* CL_QUEUE_PROFILING_ENABLE is ours */
	bool own;    /* the program asked for it: every batch is read, whatever the policy */
	cl_queue_properties props[OBS_PROPS_MAX];
	size_t nprops;
	unsigned lane;
	unsigned thread;           /* the thread that opened the batch under way (obs_thread) */
	int64_t last_wait;         /* when its previous batch ended; 0: none yet */
	bool open, profiled;       /* the batch under way */
	bool waited;               /* it has kernels and a wait has returned since its last command */
	int64_t t_wait;            /* that wait's end: the batch's end, unless more of it follows */
	int64_t t_last;            /* the batch's latest command, host time */
	const cl_icd_dispatch *nx; /* the functions its commands went through, for its events */
	int64_t t_begin, t_first;
	uint64_t kernels, items, commands;
	uint64_t bytes[OBS_KINDS]; /* the batch's bytes by kind (OBS_KERNEL unused) */
	uint32_t added;            /* events the library added to the batch's commands */
	uint32_t run;              /* profiled batches in a row, up to the batch under way */
	uint64_t opened;           /* batches opened, the one under way included */
	struct obs_ev *ev;
	size_t nev, capev;
	struct obs_rates rates;
};

/* --profile sampled: batches are profiled in slices of time, started while what profiling has
 * cost (added events, measured as the extra time of the calls that carry one) stays within
 * OBS_BUDGET of the time since the first command; or, with --sample-every, one in every. */
struct obs_sampler {
	int64_t t0;                 /* the first command */
	int64_t slice_end;          /* batches opened before it are profiled */
	double spent_ns;            /* estimated cost of the events added so far */
	double call_ns[2];          /* mean call time without, with an added event (EWMA); 0: none */
	double period_ns[2];        /* mean time from a batch's end to the next's, that one clean or
	                             * profiled (EWMA); 0: none */
	uint64_t batches, profiled; /* for the records' sample_every: batches per profiled batch */
	uint64_t calls;             /* launches on queues it samples: one in 16 is timed */
	uint32_t every;             /* --sample-every: one batch in this many per queue; 0: slices */
};

/* A map for writing, whose bytes its unmap moves. */
struct obs_map {
	cl_mem mem; /* NULL: an SVM map */
	const void *ptr;
	uint64_t bytes;
};

struct obs_state {
	pthread_mutex_t mu;
	bool init, enabled;
	pid_t pid, sup;
	uint64_t token;
	enum gd_profile policy;
	enum gd_seg_source source;
	struct gd_seg *seg;
	struct obs_queue *qs;
	size_t nq, capq;
	unsigned lanes;
	unsigned threads;  /* threads numbered so far (obs_thread) */
	bool device_known; /* its device is in the segment (obs_queue_device) */
	uint64_t batches;
	struct gd_obs_totals tot;
	struct gd_timebase_est tb;
	struct obs_sampler smp;
	struct obs_map maps[OBS_MAPS_MAX];
	size_t nmaps;
	const cl_icd_dispatch *nx; /* the latest functions a command went through: the exit's */
};

/* The process's recorder (segment.c). */
extern struct obs_state obs;

/* segment.c: the segment, at the first call seen in this process (a forked child makes its
 * own); obs.enabled says whether the process is observed. Called with obs.mu held. */
void obs_ensure_segment(void);

/* publish.c: publishes the queue's batch, which ended at its last wait (or, never waited for, at
 * its latest command). Without nx (at exit, when the runtime may be gone) its events are neither
 * read nor released. Called with obs.mu held. */
void obs_close_batch(const cl_icd_dispatch *nx, struct obs_queue *oq);
/* publish.c: reads the times of the kept events of every queue that have completed since the
 * last look (the publisher thread's tick); whether every event of oq's batch has (false without
 * events). Called with obs.mu held. */
void obs_read_completed(void);
/* publish.c: since when (host ns) a kernel of the process has been under way on the device, as
 * its kept events tell (wire.h: inflight_ns); 0: none. Called with obs.mu held. */
int64_t obs_inflight(int64_t now);
bool obs_batch_complete(const struct obs_queue *oq);

/* record.c: the waits of CL_COMPLETE callbacks that found the recorder busy, taken now. Called
 * with obs.mu held. */
void obs_drain_callbacks(int64_t now);

/* sample.c: whether a batch opened now on oq is profiled (and counts it, in oq's run too); a
 * timed launch call of call_ns that carried an added event (with) or none. Called with obs.mu
 * held. */
bool obs_sample_batch(struct obs_queue *oq, int64_t now);
void obs_sample_call(bool with, int64_t call_ns);
/* An event the library added to a command of oq's batch: what it cost, as the timed calls say,
 * is spent. */
void obs_sample_added(struct obs_queue *oq);
/* oq's batch has ended at end (before obs_close_batch moves last_wait): the time since its
 * previous batch ended, against the clean batches', says what profiling cost beyond the calls. */
void obs_sample_closed(const struct obs_queue *oq, int64_t end);
/* The records' sample_every: batches per profiled batch so far, at least 1; 0 when not sampled. */
uint32_t obs_sample_every(const struct obs_queue *oq);

#endif

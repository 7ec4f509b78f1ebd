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

/* An event the recorder keeps for a profiled batch, and what its command moved; theirs: a
 * reference of the recorder's own to the program's event (else an event only it holds). */
struct obs_ev {
	cl_event e;
	enum obs_kind kind;
	bool theirs;
};

/* A profiled batch's device times relative to its end, reused for the batches after it. */
struct obs_template {
	uint32_t kernels;
	int64_t kv[GD_REC_KMAX][2];
	uint32_t nkv;
	int64_t h2d[2], d2h[2];
	bool valid;
};

struct obs_queue {
	cl_command_queue q;
	bool hidden; /* CL_QUEUE_PROFILING_ENABLE is ours */
	bool own;    /* the program asked for it: every batch is read, whatever the policy */
	cl_queue_properties props[OBS_PROPS_MAX];
	size_t nprops;
	unsigned lane;
	unsigned thread;           /* the thread that opened the batch under way (obs_thread) */
	uint64_t started;          /* batches opened on it */
	int64_t last_wait;         /* when its previous batch ended; 0: none yet */
	bool open, profiled;       /* the batch under way */
	bool waited;               /* it has kernels and a wait has returned since its last command */
	int64_t t_wait;            /* that wait's end: the batch's end, unless more of it follows */
	const cl_icd_dispatch *nx; /* the functions its commands went through, for its events */
	int64_t t_begin, t_first;
	uint64_t kernels, items;
	struct obs_ev *ev;
	size_t nev, capev;
	struct obs_template tpl;
};

struct obs_state {
	pthread_mutex_t mu;
	bool init, enabled;
	pid_t pid, sup;
	uint64_t token;
	enum gd_profile policy;
	unsigned every;
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
};

/* The process's recorder (segment.c). */
extern struct obs_state obs;

/* segment.c: the segment, at the first call seen in this process (a forked child makes its
 * own); obs.enabled says whether the process is observed. Called with obs.mu held. */
void obs_ensure_segment(void);

/* publish.c: publishes the queue's batch, which ended at its last wait. Without nx (at exit,
 * when the runtime may be gone) its events are neither read nor released. Called with obs.mu
 * held. */
void obs_close_batch(const cl_icd_dispatch *nx, struct obs_queue *oq);

#endif

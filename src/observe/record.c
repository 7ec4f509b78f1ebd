/* record.c: inside an observed program, its batches as records in a segment of the workers'
 * format, one segment per process, created at the first OpenCL call seen.
 *
 * A batch is a queue's work between two host waits that it needs: its kernels, the transfers
 * that feed them and those that bring their results back. The question's loop waits three times
 * per batch (a blocking write, clFinish, a blocking read): a wait ends the batch only once the
 * batch has kernels, and only when the queue's next command is a write or a kernel (a read after
 * the wait still belongs to it). So the batch is published when the next one starts, when it has
 * waited OBS_SETTLE_NS with nothing after it, when the queue is released or at exit; its end is
 * its last wait. Everything here runs under one mutex, never held across a call into OpenCL that
 * may block (the program's threads keep enqueueing while one of them waits). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/spec.h"
#include "ring/writer.h"
#include "observe.h"
#include "measure/timebase.h"

#define OBS_PROPS_MAX 32 /* queue properties kept for CL_QUEUE_PROPERTIES_ARRAY */
#define OBS_EVERY     16 /* --profile sampled: one batch in this many per queue, by default */
#define OBS_KV_MAX    GD_LAUNCHES_MAX
#define OBS_SETTLE_NS (GD_NS_PER_S / 20) /* a waited batch with nothing after it is published then */

struct obs_ev {
	cl_event e;
	enum obs_kind kind;
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

static struct {
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
	unsigned threads; /* threads numbered so far (obs_thread) */
	bool device_known; /* its device is in the segment (obs_queue_device) */
	uint64_t batches;
	struct gd_obs_totals tot;
	struct gd_timebase_est tb;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER, .source = GD_SRC_PRELOAD };

static void close_batch(const cl_icd_dispatch *nx, struct obs_queue *oq);

/* ---- set-up ---- */

/* GPUTOP_DECODE_OBSERVE="<supervisor pid>:<token>", set by the tool; without it the library only
 * passes calls on. The profiling policy and period come in two more variables. */
static void read_env(void)
{
	const char *v = getenv("GPUTOP_DECODE_OBSERVE");
	char *end;
	long sup = v ? strtol(v, &end, 10) : 0;
	if (!v || sup <= 0 || *end != ':')
		return;
	S.token = strtoull(end + 1, &end, 16);
	if (*end != '\0' || !S.token)
		return;
	S.sup = (pid_t)sup;
	const char *p = getenv("GPUTOP_DECODE_OBSERVE_PROFILE");
	S.policy = p && !strcmp(p, "off")    ? GD_PROF_OFF
	           : p && !strcmp(p, "full") ? GD_PROF_FULL
	                                     : GD_PROF_SAMPLED;
	const char *e = getenv("GPUTOP_DECODE_OBSERVE_EVERY");
	long every = e ? strtol(e, NULL, 10) : 0;
	S.every = every >= 1 && every <= GD_SAMPLE_MAX ? (unsigned)every : OBS_EVERY;
	S.enabled = true;
}

/* A program may compute on its host for seconds after a batch's last wait; the supervisor closes
 * a window a quarter second after its end at most. This thread publishes the batches that have
 * waited OBS_SETTLE_NS with no command after them, so that none reaches the supervisor after its
 * window. It blocks every signal (they are the program's) and touches nothing once the segment
 * is gone (at exit), nor in a forked child, where it does not exist. */
static void *publisher(void *arg)
{
	(void)arg;
	const struct timespec tick = { .tv_nsec = OBS_SETTLE_NS / 2 };
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&S.mu);
		bool gone = !S.seg;
		int64_t now = now_ns();
		for (size_t i = 0; !gone && i < S.nq; i++)
			if (S.qs[i].waited && now - S.qs[i].t_wait >= OBS_SETTLE_NS)
				close_batch(S.qs[i].nx, &S.qs[i]);
		pthread_mutex_unlock(&S.mu);
		if (gone)
			return NULL;
	}
}

static void start_publisher(void)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, publisher, NULL) != 0) {
		/* Without it, batches are published when the next starts: later, never lost. */
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The segment, at the first call seen in this process (a forked child makes its own). */
static void ensure_segment(void)
{
	if (S.init && S.pid == getpid())
		return;
	S.init = true;
	S.pid = getpid();
	read_env();
	if (!S.enabled)
		return;
	timebase_init(&S.tb);
	struct gd_seg_info info = { .generation = S.token, .source = S.source };
	prctl(PR_GET_NAME, info.comm);
	char name[128], err[256];
	seg_name_observed(name, sizeof(name), S.sup, S.token, S.pid);
	if (!(S.seg = seg_create(name, &info, err, sizeof(err)))) {
		fprintf(stderr, GD_NAME " observe: %s (this process is not observed)\n", err);
		S.enabled = false;
		return;
	}
	seg_set_timebase(S.seg, GD_TB_OFFSET);
	seg_set_state(S.seg, GD_SEG_RUNNING);
	start_publisher();
}

bool obs_wants_profiling(void)
{
	pthread_mutex_lock(&S.mu);
	ensure_segment();
	bool want = S.enabled && S.policy != GD_PROF_OFF;
	pthread_mutex_unlock(&S.mu);
	return want;
}

void obs_set_source(enum gd_seg_source src)
{
	pthread_mutex_lock(&S.mu);
	S.source = src;
	if (S.seg)
		seg_set_source(S.seg, src);
	pthread_mutex_unlock(&S.mu);
}

/* After fork the child is a process of its own: the parent's segment and queues are not its
 * (their mapping and handles are inherited, and left alone); its first call makes its own. */
static void after_fork_child(void)
{
	pthread_mutex_init(&S.mu, NULL);
	if (S.seg)
		seg_close(S.seg, false);
	S.seg = NULL;
	free(S.qs);
	S.qs = NULL;
	S.nq = S.capq = 0;
	S.lanes = 0;
	S.threads = 0;
	S.device_known = false;
	S.batches = 0;
	S.tot = (struct gd_obs_totals){ 0 };
	S.init = S.enabled = false;
}

__attribute__((constructor)) static void obs_load(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* Publishes the batches that waited for a next command that will not come. */
void obs_flush(void)
{
	pthread_mutex_lock(&S.mu);
	for (size_t i = 0; S.seg && S.pid == getpid() && i < S.nq; i++)
		if (S.qs[i].waited)
			close_batch(NULL, &S.qs[i]);
	pthread_mutex_unlock(&S.mu);
}

/* At exit the segment stays for the supervisor, which reads its last records and removes it;
 * without a supervisor nobody would, so the process removes it itself. */
__attribute__((destructor)) static void obs_unload(void)
{
	obs_flush();
	pthread_mutex_lock(&S.mu);
	if (S.seg && S.pid == getpid()) {
		seg_set_state(S.seg, GD_SEG_EXITED);
		bool orphan = kill(S.sup, 0) != 0;
		seg_close(S.seg, orphan);
		S.seg = NULL;
	}
	pthread_mutex_unlock(&S.mu);
}

/* ---- queues ---- */

static struct obs_queue *find_queue(cl_command_queue q)
{
	for (size_t i = 0; i < S.nq; i++)
		if (S.qs[i].q == q)
			return &S.qs[i];
	return NULL;
}

static struct obs_queue *add_queue(cl_command_queue q)
{
	if (S.nq == S.capq) {
		S.capq = S.capq ? 2 * S.capq : 8;
		S.qs = xreallocarray(S.qs, S.capq, sizeof(*S.qs));
	}
	struct obs_queue *oq = &S.qs[S.nq++];
	memset(oq, 0, sizeof(*oq));
	oq->q = q;
	oq->lane = S.lanes++ % GD_QUEUES_MAX;
	return oq;
}

/* A queue made before the library saw it (or by an entry point it does not wrap) counts too. */
static struct obs_queue *get_queue(cl_command_queue q)
{
	struct obs_queue *oq = find_queue(q);
	return oq ? oq : add_queue(q);
}

void obs_queue_created(cl_command_queue q, bool added, const cl_queue_properties *props, size_t nprops)
{
	pthread_mutex_lock(&S.mu);
	ensure_segment();
	if (S.enabled) {
		struct obs_queue *oq = get_queue(q);
		oq->hidden = added;
		oq->nprops = nprops < OBS_PROPS_MAX ? nprops : OBS_PROPS_MAX;
		if (props)
			memcpy(oq->props, props, oq->nprops * sizeof(*props));
	}
	pthread_mutex_unlock(&S.mu);
}

/* dev's index in list[0..n), or -1. */
static int index_of(const void *const *list, cl_uint n, const void *dev)
{
	for (cl_uint i = 0; i < n; i++)
		if (list[i] == dev)
			return (int)i;
	return -1;
}

void obs_queue_device(const cl_icd_dispatch *nx, cl_device_id dev)
{
	pthread_mutex_lock(&S.mu);
	bool known = S.device_known;
	pthread_mutex_unlock(&S.mu);
	if (known)
		return;
	enum { MAX = 256 }; /* --list-devices numbers up to 255:255 */
	cl_platform_id plat, plats[MAX];
	cl_device_id devs[MAX];
	cl_uint np = 0, nd = 0;
	if (!nx->clGetDeviceInfo || !nx->clGetPlatformIDs || !nx->clGetDeviceIDs ||
	    nx->clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof(cl_platform_id), &plat, NULL) != CL_SUCCESS ||
	    nx->clGetPlatformIDs(MAX, plats, &np) != CL_SUCCESS)
		return;
	int p = index_of((const void *const *)plats, np < MAX ? np : MAX, plat);
	if (p < 0 || nx->clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, MAX, devs, &nd) != CL_SUCCESS)
		return;
	int d = index_of((const void *const *)devs, nd < MAX ? nd : MAX, dev);
	if (d < 0) /* a sub-device: not numbered */
		return;
	pthread_mutex_lock(&S.mu);
	ensure_segment();
	if (S.seg && !S.device_known)
		seg_set_obs_device(S.seg, (unsigned)p, (unsigned)d);
	S.device_known = true;
	pthread_mutex_unlock(&S.mu);
}

void obs_queue_released(const cl_icd_dispatch *nx, cl_command_queue q)
{
	pthread_mutex_lock(&S.mu);
	struct obs_queue *oq = S.enabled ? find_queue(q) : NULL;
	if (oq && oq->waited)
		close_batch(nx, oq);
	if (oq) {
		free(oq->ev); /* a batch never waited for: its events go with the queue's last reference */
		*oq = S.qs[--S.nq];
	}
	pthread_mutex_unlock(&S.mu);
}

bool obs_queue_hidden(cl_command_queue q, cl_queue_properties *props, size_t max, size_t *nprops)
{
	pthread_mutex_lock(&S.mu);
	struct obs_queue *oq = S.enabled ? find_queue(q) : NULL;
	bool hidden = oq && oq->hidden;
	if (hidden) {
		*nprops = oq->nprops < max ? oq->nprops : max;
		memcpy(props, oq->props, *nprops * sizeof(*props));
	}
	pthread_mutex_unlock(&S.mu);
	return hidden;
}

/* ---- commands ---- */

/* The calling thread's number in this process, from 1 in the order threads first open a batch
 * (the record's GD_REC_GEN field: the trace's track of the thread), folded into 1..64 past 64.
 * A forked child numbers its threads afresh. Called with S.mu held. */
static unsigned obs_thread(void)
{
	static _Thread_local pid_t pid;
	static _Thread_local unsigned n;
	if (pid != S.pid || !n) {
		pid = S.pid;
		n = S.threads++ % GD_GEN_THREADS_MAX + 1;
	}
	return n;
}

/* Opens q's batch: profiled under --profile full, or the first of each queue and then one in
 * every S.every under sampled; never where the queue cannot give device times. */
static void open_batch(struct obs_queue *oq, int64_t now)
{
	oq->open = true;
	oq->waited = false;
	oq->t_first = now;
	oq->t_begin = oq->last_wait ? oq->last_wait : now;
	oq->thread = obs_thread();
	oq->kernels = oq->items = 0;
	oq->nev = 0;
	oq->profiled = oq->hidden && (S.policy == GD_PROF_FULL ||
	                              (S.policy == GD_PROF_SAMPLED && oq->started % S.every == 0));
	oq->started++;
}

bool obs_cmd_begin(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind)
{
	int64_t now = now_ns();
	pthread_mutex_lock(&S.mu);
	ensure_segment();
	bool keep = false;
	if (S.enabled) {
		struct obs_queue *oq = get_queue(q);
		oq->nx = nx;
		if (oq->open && oq->waited && kind != OBS_READ)
			close_batch(nx, oq);
		oq->waited = false;
		if (!oq->open)
			open_batch(oq, now);
		keep = oq->profiled;
	}
	pthread_mutex_unlock(&S.mu);
	return keep;
}

static void keep_event(struct obs_queue *oq, cl_event e, enum obs_kind kind)
{
	if (oq->nev == oq->capev) {
		oq->capev = oq->capev ? 2 * oq->capev : 16;
		oq->ev = xreallocarray(oq->ev, oq->capev, sizeof(*oq->ev));
	}
	oq->ev[oq->nev++] = (struct obs_ev){ .e = e, .kind = kind };
}

void obs_cmd_end(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind, uint64_t amount,
                 cl_event ev, cl_int rc)
{
	pthread_mutex_lock(&S.mu);
	struct obs_queue *oq = S.enabled ? find_queue(q) : NULL;
	if (oq && rc == CL_SUCCESS) {
		if (kind == OBS_KERNEL) {
			oq->kernels++;
			oq->items += amount;
			seg_add_totals(S.seg, 0, amount, 1);
		} else {
			bool w = kind == OBS_WRITE;
			*(w ? &S.tot.h2d_bytes : &S.tot.d2h_bytes) += amount;
			*(w ? &S.tot.h2d_count : &S.tot.d2h_count) += 1;
			seg_set_obs_totals(S.seg, &S.tot);
		}
		if (ev && oq->open && oq->profiled)
			keep_event(oq, ev, kind);
		else if (ev)
			nx->clReleaseEvent(ev);
	} else if (ev) {
		nx->clReleaseEvent(ev);
	}
	pthread_mutex_unlock(&S.mu);
}

/* ---- device times ---- */

/* [START, END] of e, or false when it is not complete or has no profiling information. */
static bool ev_times(const cl_icd_dispatch *nx, cl_event e, cl_ulong t[3])
{
	cl_int st = CL_QUEUED;
	if (nx->clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) != CL_SUCCESS ||
	    st != CL_COMPLETE)
		return false;
	return nx->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_SUBMIT, sizeof(t[0]), &t[0], NULL) ==
	           CL_SUCCESS &&
	       nx->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof(t[1]), &t[1], NULL) ==
	           CL_SUCCESS &&
	       nx->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(t[2]), &t[2], NULL) ==
	           CL_SUCCESS &&
	       t[2] >= t[1];
}

/* Widens span to cover [s, e). */
static void span_add(int64_t span[2], int64_t s, int64_t e)
{
	if (!span[0] || s < span[0])
		span[0] = s;
	if (e > span[1])
		span[1] = e;
}

/* Device intervals of the batch's commands, in device ns: kernels into kv, copies into spans. */
static bool batch_times(const cl_icd_dispatch *nx, const struct obs_queue *oq, int64_t (*kv)[2], uint32_t *nk,
                        int64_t h2d[2], int64_t d2h[2], int64_t *qwait, int64_t *last_end)
{
	*nk = 0;
	*qwait = 0;
	*last_end = 0;
	for (size_t i = 0; i < oq->nev; i++) {
		cl_ulong t[3];
		if (!ev_times(nx, oq->ev[i].e, t))
			return false;
		int64_t s = (int64_t)t[1], e = (int64_t)t[2];
		*last_end = e > *last_end ? e : *last_end;
		if (oq->ev[i].kind == OBS_WRITE)
			span_add(h2d, s, e);
		else if (oq->ev[i].kind == OBS_READ)
			span_add(d2h, s, e);
		else if (*nk < OBS_KV_MAX) {
			if (*nk == 0)
				*qwait = t[1] > t[0] ? (int64_t)(t[1] - t[0]) : 0;
			kv[*nk][0] = s;
			kv[(*nk)++][1] = e;
		}
	}
	return *last_end > 0;
}

static void map_span(int64_t span[2])
{
	span[0] = timebase_map(&S.tb, span[0]);
	span[1] = timebase_map(&S.tb, span[1]);
}

/* The record's device times from the batch's events, mapped onto the host clock; the queue's
 * template for the batches not profiled is kept from them. */
static bool measure(const cl_icd_dispatch *nx, struct obs_queue *oq, struct gd_rec *r)
{
	static int64_t kv[OBS_KV_MAX][2]; /* under S.mu */
	int64_t h2d[2] = { 0, 0 }, d2h[2] = { 0, 0 }, last_end;
	uint32_t nk;
	if (!batch_times(nx, oq, kv, &nk, h2d, d2h, &r->qwait_ns, &last_end))
		return false;
	timebase_observe(&S.tb, r->t_end, last_end);
	for (uint32_t k = 0; k < nk; k++) {
		kv[k][0] = timebase_map(&S.tb, kv[k][0]);
		kv[k][1] = timebase_map(&S.tb, kv[k][1]);
	}
	map_span(h2d);
	map_span(d2h);
	memcpy(r->h2d, h2d, sizeof(h2d));
	memcpy(r->d2h, d2h, sizeof(d2h));
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, nk);
	r->flags |= GD_REC_DEVTIME;
	struct obs_template *t = &oq->tpl;
	*t = (struct obs_template){ .kernels = r->kernels, .nkv = r->nkiv, .valid = true };
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t iv[2];
		gd_rec_kiv(r, i, iv);
		t->kv[i][0] = iv[0] - r->t_end;
		t->kv[i][1] = iv[1] - r->t_end;
	}
	for (int i = 0; i < 2; i++) {
		t->h2d[i] = h2d[i] ? h2d[i] - r->t_end : 0;
		t->d2h[i] = d2h[i] ? d2h[i] - r->t_end : 0;
	}
	return true;
}

/* A batch not profiled: the queue's last profiled one's device times, moved to end where this
 * one ended, when it had as many kernels (as a worker's estimate, sampler_estimate). */
static void estimate(const struct obs_queue *oq, struct gd_rec *r)
{
	const struct obs_template *t = &oq->tpl;
	if (!t->valid || t->kernels != r->kernels || S.policy != GD_PROF_SAMPLED)
		return;
	int64_t kv[GD_REC_KMAX][2];
	for (uint32_t i = 0; i < t->nkv; i++) {
		kv[i][0] = t->kv[i][0] + r->t_end;
		kv[i][1] = t->kv[i][1] + r->t_end;
	}
	for (int i = 0; i < 2; i++) {
		r->h2d[i] = t->h2d[0] ? t->h2d[i] + r->t_end : 0;
		r->d2h[i] = t->d2h[0] ? t->d2h[i] + r->t_end : 0;
	}
	gd_rec_set_kernels(r, (const int64_t(*)[2])kv, t->nkv);
	r->flags |= GD_REC_DEVTIME | GD_REC_ESTIMATED;
}

/* ---- waits ---- */

static void release_events(const cl_icd_dispatch *nx, struct obs_queue *oq)
{
	for (size_t i = 0; i < oq->nev; i++)
		nx->clReleaseEvent(oq->ev[i].e);
	oq->nev = 0;
}

/* Drops what the record cannot carry rather than the record: device times that do not fit
 * its bounds, launches and items past the largest a batch may hold. */
static void clamp(struct gd_rec *r)
{
	if (r->kernels > GD_LAUNCHES_MAX)
		r->kernels = GD_LAUNCHES_MAX;
	if (r->items > GD_SIZE_MAX)
		r->items = GD_SIZE_MAX;
	if (gd_rec_valid(r))
		return;
	uint32_t keep = r->flags & (GD_REC_LANE | GD_REC_GEN);
	memset(&r->h2d, 0, sizeof(*r) - offsetof(struct gd_rec, h2d));
	r->flags = keep;
	r->share_ppm = GD_SHARE_NONE;
}

/* Publishes the queue's batch, which ended at its last wait. Without nx (at exit, when the
 * runtime may be gone) its events are neither read nor released. */
static void close_batch(const cl_icd_dispatch *nx, struct obs_queue *oq)
{
	oq->open = oq->waited = false;
	oq->last_wait = oq->t_wait;
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = S.batches++;
	r.items = (uint32_t)(oq->items > GD_SIZE_MAX ? GD_SIZE_MAX : oq->items);
	r.kernels = (uint32_t)(oq->kernels > UINT32_MAX ? UINT32_MAX : oq->kernels);
	if (r.kernels && !r.items)
		r.items = 1;
	r.t_begin = oq->t_begin;
	r.t_gen = oq->t_first;
	r.t_end = oq->t_wait;
	r.flags = oq->lane << GD_REC_LANE_BIT | oq->thread << GD_REC_GEN_BIT;
	r.sample_every = S.policy == GD_PROF_SAMPLED ? S.every : 0;
	r.share_ppm = GD_SHARE_NONE;
	if (!nx || !oq->profiled || !measure(nx, oq, &r))
		estimate(oq, &r);
	clamp(&r);
	seg_publish(S.seg, &r);
	seg_add_totals(S.seg, 1, 0, 0); /* items and launches were added as they were enqueued */
	if (nx)
		release_events(nx, oq);
	oq->nev = 0;
}

void obs_wait(const cl_command_queue *qs, size_t n)
{
	int64_t now = now_ns();
	pthread_mutex_lock(&S.mu);
	if (S.enabled && S.seg) {
		for (size_t i = 0; i < n; i++) {
			bool seen = false; /* each queue once */
			for (size_t j = 0; j < i; j++)
				seen = seen || qs[j] == qs[i];
			struct obs_queue *oq = seen || !qs[i] ? NULL : find_queue(qs[i]);
			if (oq)
				oq->last_wait = now;
			if (oq && oq->open && oq->kernels) {
				oq->waited = true;
				oq->t_wait = now;
			}
		}
		S.tot.waits++;
		seg_set_obs_totals(S.seg, &S.tot);
		seg_heartbeat(S.seg);
	}
	pthread_mutex_unlock(&S.mu);
}

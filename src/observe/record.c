/* record.c: inside an observed program, its queues and the commands on them: where each queue's
 * batch starts and ends (segment.c makes the process's segment, publish.c a batch's record).
 *
 * A batch is a queue's work between two host waits that it needs: its kernels and copies, the
 * transfers that feed them and those that bring their results back. A wait is the program
 * blocking (clFinish, clWaitForEvents, a blocking command) or learning of a completion otherwise
 * (a status it polled that says complete, a CL_COMPLETE callback of its own). The question's loop
 * waits three times per batch (a blocking write, clFinish, a blocking read): a wait ends the
 * batch only once the batch has kernels or copies, and only when the queue's next command is not
 * a read (a read after the wait still belongs to it). So the batch is published when the next one
 * starts, when it has waited OBS_SETTLE_NS with nothing after it, when the queue is released or at
 * exit; its end is its last wait. Everything here runs under one mutex, never held across a call
 * into OpenCL that may block (the program's threads keep enqueueing while one of them waits). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ring/writer.h"
#include "recorder.h"

/* ---- queues ---- */

static struct obs_queue *find_queue(cl_command_queue q)
{
	for (size_t i = 0; i < obs.nq; i++)
		if (obs.qs[i].q == q)
			return &obs.qs[i];
	return NULL;
}

static struct obs_queue *add_queue(cl_command_queue q)
{
	if (obs.nq == obs.capq) {
		obs.capq = obs.capq ? 2 * obs.capq : 8;
		obs.qs = xreallocarray(obs.qs, obs.capq, sizeof(*obs.qs));
	}
	struct obs_queue *oq = &obs.qs[obs.nq++];
	memset(oq, 0, sizeof(*oq));
	oq->q = q;
	oq->lane = obs.lanes++ % GD_QUEUES_MAX;
	oq->nx = obs.nx;
	return oq;
}

/* A queue made before the library saw it (or by an entry point it does not wrap) counts too. */
static struct obs_queue *get_queue(cl_command_queue q)
{
	struct obs_queue *oq = find_queue(q);
	return oq ? oq : add_queue(q);
}

void obs_queue_created(cl_command_queue q, bool added, bool own, const cl_queue_properties *props,
                       size_t nprops)
{
	pthread_mutex_lock(&obs.mu);
	obs_ensure_segment();
	if (obs.enabled) {
		struct obs_queue *oq = get_queue(q);
		oq->hidden = added;
		oq->own = own;
		oq->nprops = nprops < OBS_PROPS_MAX ? nprops : OBS_PROPS_MAX;
		if (props)
			memcpy(oq->props, props, oq->nprops * sizeof(*props));
	}
	pthread_mutex_unlock(&obs.mu);
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
	pthread_mutex_lock(&obs.mu);
	bool known = obs.device_known;
	pthread_mutex_unlock(&obs.mu);
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
	pthread_mutex_lock(&obs.mu);
	obs_ensure_segment();
	if (obs.seg && !obs.device_known)
		seg_set_obs_device(obs.seg, (unsigned)p, (unsigned)d);
	obs.device_known = true;
	pthread_mutex_unlock(&obs.mu);
}

void obs_queue_releasing(const cl_icd_dispatch *nx, cl_command_queue q)
{
	pthread_mutex_lock(&obs.mu);
	struct obs_queue *oq = obs.enabled ? find_queue(q) : NULL;
	if (oq && oq->waited)
		obs_close_batch(nx, oq);
	pthread_mutex_unlock(&obs.mu);
}

void obs_queue_released(const cl_icd_dispatch *nx, cl_command_queue q)
{
	pthread_mutex_lock(&obs.mu);
	struct obs_queue *oq = obs.enabled ? find_queue(q) : NULL;
	if (oq && oq->waited)
		obs_close_batch(nx, oq);
	if (oq) {
		free(oq->ev); /* a batch never waited for: its events go with the queue's last reference */
		*oq = obs.qs[--obs.nq];
	}
	pthread_mutex_unlock(&obs.mu);
}

bool obs_queue_hidden(cl_command_queue q, cl_queue_properties *props, size_t max, size_t *nprops)
{
	pthread_mutex_lock(&obs.mu);
	struct obs_queue *oq = obs.enabled ? find_queue(q) : NULL;
	bool hidden = oq && oq->hidden;
	if (hidden && props) {
		*nprops = oq->nprops < max ? oq->nprops : max;
		memcpy(props, oq->props, *nprops * sizeof(*props));
	}
	pthread_mutex_unlock(&obs.mu);
	return hidden;
}

/* ---- commands ---- */

/* The calling thread's number in this process, from 1 in the order threads first open a batch
 * (the record's GD_REC_THREAD bits: the trace's track of the thread), folded into 1..64 past 64.
 * A forked child numbers its threads afresh. Called with obs.mu held. */
static unsigned obs_thread(void)
{
	static _Thread_local pid_t pid;
	static _Thread_local unsigned n;
	if (pid != obs.pid || !n) {
		pid = obs.pid;
		n = obs.threads++ % GD_GEN_THREADS_MAX + 1;
	}
	return n;
}

/* Opens q's batch: profiled as the sampler says (sample.c): every batch under --profile full, in
 * slices of time under sampled, never where the queue cannot give device times; every batch of a
 * queue the program made with profiling, under any policy (off included): its runtime times every
 * command already, and the recorder only reads the times (doc/observe.md). */
static void open_batch(struct obs_queue *oq, int64_t now)
{
	oq->open = true;
	oq->waited = false;
	oq->t_first = now;
	oq->t_begin = oq->last_wait ? oq->last_wait : now;
	oq->thread = obs_thread();
	oq->kernels = oq->items = oq->commands = 0;
	memset(oq->bytes, 0, sizeof(oq->bytes));
	oq->nev = 0;
	oq->added = 0;
	oq->profiled = obs_sample_batch(oq, now);
}

static void wait_locked(cl_command_queue q, int64_t now);

/* CL_COMPLETE callbacks of the program's that ran while the recorder was busy: their queues, for
 * the next call or tick to end their batches (a slot holds one, or NULL). */
#define PENDING 16
static cl_command_queue pending[PENDING];
static int npending; /* slots taken, at most: read first, so that a call finds none cheaply */

void obs_drain_callbacks(int64_t now)
{
	if (!__atomic_load_n(&npending, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&npending, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < PENDING; i++) {
		cl_command_queue q = __atomic_exchange_n(&pending[i], NULL, __ATOMIC_ACQ_REL);
		if (q)
			wait_locked(q, now);
	}
}

void obs_callback_wait(cl_command_queue q)
{
	if (pthread_mutex_trylock(&obs.mu) == 0) {
		if (obs.enabled && obs.seg)
			wait_locked(q, now_ns());
		pthread_mutex_unlock(&obs.mu);
		return;
	}
	for (int i = 0; i < PENDING; i++) { /* all taken: the batch ends at its next wait instead */
		cl_command_queue none = NULL;
		if (__atomic_compare_exchange_n(&pending[i], &none, q, false, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			__atomic_store_n(&npending, 1, __ATOMIC_RELEASE);
			return;
		}
	}
}

/* Whether a command of kind, on a queue whose batch has waited, starts the next batch: a read
 * after the wait still belongs to the batch whose results it brings back. */
static bool starts_batch(enum obs_kind kind)
{
	return kind != OBS_READ;
}

bool obs_cmd_begin(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind, bool *timed)
{
	int64_t now = now_ns();
	pthread_mutex_lock(&obs.mu);
	obs_ensure_segment();
	bool keep = false;
	*timed = false;
	if (obs.enabled) {
		obs_drain_callbacks(now);
		struct obs_queue *oq = get_queue(q);
		oq->nx = obs.nx = nx;
		if (oq->open && oq->waited && starts_batch(kind))
			obs_close_batch(nx, oq);
		oq->waited = false;
		if (!oq->open)
			open_batch(oq, now);
		oq->t_last = now;
		keep = oq->profiled;
		/* One launch in 16 is timed: a mean needs no more, and a clock read costs. */
		*timed = kind == OBS_KERNEL && oq->hidden && obs.policy == GD_PROF_SAMPLED &&
		         !(obs.smp.calls++ & 15);
	}
	pthread_mutex_unlock(&obs.mu);
	return keep;
}

static void keep_event(struct obs_queue *oq, cl_event e, enum obs_kind kind, bool theirs)
{
	if (oq->nev == oq->capev) {
		oq->capev = oq->capev ? 2 * oq->capev : 16;
		oq->ev = xreallocarray(oq->ev, oq->capev, sizeof(*oq->ev));
	}
	oq->ev[oq->nev++] = (struct obs_ev){ .e = e, .kind = kind, .theirs = theirs };
}

void obs_cmd_end(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind, uint64_t amount,
                 cl_event ev, bool theirs, cl_int rc, int64_t call_ns)
{
	pthread_mutex_lock(&obs.mu);
	struct obs_queue *oq = obs.enabled ? find_queue(q) : NULL;
	if (oq && rc == CL_SUCCESS) {
		struct gd_obs_totals *t = &obs.tot;
		oq->commands++;
		t->commands++;
		/* A launch updates the header's launches and items alone (the command count follows
		 * at the batch's end): what a kernel costs the program is kept to a few stores. */
		if (kind == OBS_KERNEL) {
			oq->kernels++;
			oq->items += amount;
			seg_add_totals(obs.seg, 0, amount, 1);
		} else {
			oq->bytes[kind] += amount;
			*(kind == OBS_WRITE  ? &t->h2d_bytes
			  : kind == OBS_READ ? &t->d2h_bytes
			                     : &t->copy_bytes) += amount;
			*(kind == OBS_WRITE  ? &t->h2d_count
			  : kind == OBS_READ ? &t->d2h_count
			                     : &t->copy_count) += 1;
			seg_set_obs_totals(obs.seg, t);
		}
		if (call_ns && oq->hidden && !theirs && oq->profiled == (ev != NULL))
			obs_sample_call(ev != NULL, call_ns);
		if (ev && !theirs && oq->hidden)
			obs_sample_added(oq);
		if (ev && oq->open && oq->profiled)
			keep_event(oq, ev, kind, theirs);
		else if (ev)
			nx->clReleaseEvent(ev);
	} else if (ev) {
		nx->clReleaseEvent(ev);
	}
	pthread_mutex_unlock(&obs.mu);
}

/* ---- maps ---- */

void obs_map_note(cl_mem mem, const void *ptr, uint64_t bytes)
{
	pthread_mutex_lock(&obs.mu);
	if (obs.enabled && obs.nmaps < OBS_MAPS_MAX) /* more at once: their unmaps count no bytes */
		obs.maps[obs.nmaps++] = (struct obs_map){ .mem = mem, .ptr = ptr, .bytes = bytes };
	pthread_mutex_unlock(&obs.mu);
}

uint64_t obs_unmap_bytes(cl_mem mem, const void *ptr)
{
	uint64_t bytes = 0;
	pthread_mutex_lock(&obs.mu);
	for (size_t i = obs.nmaps; i-- > 0;) /* the latest map of ptr: a region mapped twice unmaps twice */
		if (obs.maps[i].mem == mem && obs.maps[i].ptr == ptr) {
			bytes = obs.maps[i].bytes;
			obs.maps[i] = obs.maps[--obs.nmaps];
			break;
		}
	pthread_mutex_unlock(&obs.mu);
	return bytes;
}

/* The references the recorder holds on the program's event e: one per command that event is
 * kept for (a program may pass one cl_event variable to several enqueues, each its own event;
 * the same handle twice only once the first is freed and reused). Called with obs.mu held. */
static cl_uint refs_held(cl_event e)
{
	cl_uint n = 0;
	for (size_t i = 0; i < obs.nq; i++)
		for (size_t j = 0; j < obs.qs[i].nev; j++)
			n += obs.qs[i].ev[j].theirs && obs.qs[i].ev[j].e == e;
	return n;
}

/* The count is read under obs.mu, the lock the recorder releases its references under, so the
 * count and the references subtracted from it are of one moment. The query does not block. */
cl_int obs_event_refcount(const cl_icd_dispatch *nx, cl_event e, size_t size, void *value, size_t *size_ret)
{
	pthread_mutex_lock(&obs.mu);
	cl_int rc = nx->clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, size, value, size_ret);
	if (rc == CL_SUCCESS && obs.enabled && value && size >= sizeof(cl_uint)) {
		cl_uint held = refs_held(e), *count = value;
		*count -= *count > held ? held : 0;
	}
	pthread_mutex_unlock(&obs.mu);
	return rc;
}

/* ---- waits ---- */

/* A wait on q returned at now: its batch, holding work for the device, may end here. */
static void wait_locked(cl_command_queue q, int64_t now)
{
	struct obs_queue *oq = q ? find_queue(q) : NULL;
	if (!oq)
		return;
	oq->last_wait = now;
	if (oq->open && (oq->kernels || oq->bytes[OBS_COPY])) {
		oq->waited = true;
		oq->t_wait = now;
	}
}

void obs_wait(const cl_command_queue *qs, size_t n, bool counted)
{
	int64_t now = now_ns();
	pthread_mutex_lock(&obs.mu);
	if (obs.enabled && obs.seg) {
		for (size_t i = 0; i < n; i++) {
			bool seen = false; /* each queue once */
			for (size_t j = 0; j < i; j++)
				seen = seen || qs[j] == qs[i];
			if (!seen)
				wait_locked(qs[i], now);
		}
		if (counted) {
			obs.tot.waits++;
			seg_set_obs_totals(obs.seg, &obs.tot);
		}
		seg_heartbeat(obs.seg);
	}
	pthread_mutex_unlock(&obs.mu);
}

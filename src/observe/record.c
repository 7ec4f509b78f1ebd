/* record.c: inside an observed program, its queues and the commands on them: where each queue's
 * batch starts and ends (segment.c makes the process's segment, publish.c a batch's record).
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

/* Opens q's batch: profiled under --profile full, or the first of each queue and then one in
 * every obs.every under sampled; never where the queue cannot give device times. A queue the
 * program made with profiling has every batch profiled, under any policy (off included): its
 * runtime times every command already, and the recorder only reads the times (doc/observe.md). */
static void open_batch(struct obs_queue *oq, int64_t now)
{
	oq->open = true;
	oq->waited = false;
	oq->t_first = now;
	oq->t_begin = oq->last_wait ? oq->last_wait : now;
	oq->thread = obs_thread();
	oq->kernels = oq->items = 0;
	oq->nev = 0;
	bool sampled = obs.policy == GD_PROF_SAMPLED && oq->started % obs.every == 0;
	oq->profiled = oq->own || (oq->hidden && (obs.policy == GD_PROF_FULL || sampled));
	oq->started++;
}

bool obs_cmd_begin(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind)
{
	int64_t now = now_ns();
	pthread_mutex_lock(&obs.mu);
	obs_ensure_segment();
	bool keep = false;
	if (obs.enabled) {
		struct obs_queue *oq = get_queue(q);
		oq->nx = nx;
		if (oq->open && oq->waited && kind != OBS_READ)
			obs_close_batch(nx, oq);
		oq->waited = false;
		if (!oq->open)
			open_batch(oq, now);
		keep = oq->profiled;
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
                 cl_event ev, bool theirs, cl_int rc)
{
	pthread_mutex_lock(&obs.mu);
	struct obs_queue *oq = obs.enabled ? find_queue(q) : NULL;
	if (oq && rc == CL_SUCCESS) {
		if (kind == OBS_KERNEL) {
			oq->kernels++;
			oq->items += amount;
			seg_add_totals(obs.seg, 0, amount, 1);
		} else {
			bool w = kind == OBS_WRITE;
			*(w ? &obs.tot.h2d_bytes : &obs.tot.d2h_bytes) += amount;
			*(w ? &obs.tot.h2d_count : &obs.tot.d2h_count) += 1;
			seg_set_obs_totals(obs.seg, &obs.tot);
		}
		if (ev && oq->open && oq->profiled)
			keep_event(oq, ev, kind, theirs);
		else if (ev)
			nx->clReleaseEvent(ev);
	} else if (ev) {
		nx->clReleaseEvent(ev);
	}
	pthread_mutex_unlock(&obs.mu);
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

void obs_wait(const cl_command_queue *qs, size_t n)
{
	int64_t now = now_ns();
	pthread_mutex_lock(&obs.mu);
	if (obs.enabled && obs.seg) {
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
		obs.tot.waits++;
		seg_set_obs_totals(obs.seg, &obs.tot);
		seg_heartbeat(obs.seg);
	}
	pthread_mutex_unlock(&obs.mu);
}

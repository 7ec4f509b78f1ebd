/* calls.c: the recording functions of the wrapped OpenCL entry points that are not commands
 * (queues, waits, events: enqueue.c has the commands), shared by the layer and the LD_PRELOAD
 * front ends. Each passes the program's arguments
 * on unchanged but for two additions: the profiling property on queues it creates (hidden again
 * from clGetCommandQueueInfo and clGetEventProfilingInfo), and an event on commands of a
 * profiled batch where the program asked for none (released by the recorder). What the call
 * returns, errors included, is returned as it came, but for the two answers that would show the
 * additions: an added queue's profiling, and the recorder's references in an event's count. */
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "observe.h"

#define PROPS_MAX 64 /* a longer property list is passed on untouched, without profiling added */

cl_command_queue obs_create_queue(const cl_icd_dispatch *nx, cl_context ctx, cl_device_id dev,
                                  cl_command_queue_properties props, cl_int *err)
{
	bool add = obs_wants_profiling() && !(props & CL_QUEUE_PROFILING_ENABLE);
	cl_int rc;
	cl_command_queue q =
	    nx->clCreateCommandQueue(ctx, dev, props | (add ? CL_QUEUE_PROFILING_ENABLE : 0), &rc);
	if (add && rc != CL_SUCCESS) { /* refused with the property: try as the program asked */
		q = nx->clCreateCommandQueue(ctx, dev, props, &rc);
		add = false;
	}
	if (q) {
		obs_queue_created(q, add, (props & CL_QUEUE_PROFILING_ENABLE) != 0, NULL, 0);
		obs_queue_device(nx, dev);
	}
	if (err)
		*err = rc;
	return q;
}

/* The program's property list with CL_QUEUE_PROFILING_ENABLE added to its CL_QUEUE_PROPERTIES
 * (or a CL_QUEUE_PROPERTIES entry appended); its length without the terminating 0 in *n, or
 * false when it is too long to copy or already profiles. */
static bool add_profiling(const cl_queue_properties *props, cl_queue_properties *out, size_t *n)
{
	size_t i = 0;
	bool found = false;
	for (; props && props[i]; i += 2) {
		if (i + 4 >= PROPS_MAX)
			return false;
		out[i] = props[i];
		out[i + 1] = props[i + 1];
		if (props[i] == CL_QUEUE_PROPERTIES) {
			if (props[i + 1] & CL_QUEUE_PROFILING_ENABLE)
				return false;
			out[i + 1] |= CL_QUEUE_PROFILING_ENABLE;
			found = true;
		}
	}
	*n = i;
	if (!found) {
		out[i++] = CL_QUEUE_PROPERTIES;
		out[i++] = CL_QUEUE_PROFILING_ENABLE;
	}
	out[i] = 0;
	return true;
}

/* Whether the program's property list asks for profiling itself. */
static bool profiles(const cl_queue_properties *props)
{
	for (size_t i = 0; props && props[i]; i += 2)
		if (props[i] == CL_QUEUE_PROPERTIES && (props[i + 1] & CL_QUEUE_PROFILING_ENABLE))
			return true;
	return false;
}

cl_command_queue obs_create_queue_props(const cl_icd_dispatch *nx, cl_context ctx, cl_device_id dev,
                                        const cl_queue_properties *props, cl_int *err)
{
	cl_queue_properties mine[PROPS_MAX];
	size_t n = 0;
	bool add = obs_wants_profiling() && add_profiling(props, mine, &n);
	cl_int rc;
	cl_command_queue q = nx->clCreateCommandQueueWithProperties(ctx, dev, add ? mine : props, &rc);
	if (add && rc != CL_SUCCESS) {
		q = nx->clCreateCommandQueueWithProperties(ctx, dev, props, &rc);
		add = false;
	}
	if (q) {
		obs_queue_created(q, add, profiles(props), props, props ? n + 1 : 0);
		obs_queue_device(nx, dev);
	}
	if (err)
		*err = rc;
	return q;
}

/* A waited batch is published before the release, while its events can still be read: the
 * recorder's references to them then no longer hold the queue, so the count read next is the
 * program's and the runtime's alone. */
cl_int obs_release_queue(const cl_icd_dispatch *nx, cl_command_queue q)
{
	obs_queue_releasing(nx, q);
	cl_uint refs = 0;
	if (nx->clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(refs), &refs, NULL) != CL_SUCCESS)
		refs = 0;
	cl_int rc = nx->clReleaseCommandQueue(q);
	if (rc == CL_SUCCESS && refs == 1)
		obs_queue_released(nx, q);
	return rc;
}

/* The property list the program passed, as CL_QUEUE_PROPERTIES_ARRAY returns it. */
static cl_int props_array(const cl_queue_properties *p, size_t n, size_t size, void *value, size_t *size_ret)
{
	if (size_ret)
		*size_ret = n * sizeof(*p);
	if (value && size < n * sizeof(*p))
		return CL_INVALID_VALUE;
	if (value)
		memcpy(value, p, n * sizeof(*p));
	return CL_SUCCESS;
}

cl_int obs_queue_info(const cl_icd_dispatch *nx, cl_command_queue q, cl_command_queue_info what, size_t size,
                      void *value, size_t *size_ret)
{
	cl_queue_properties props[PROPS_MAX];
	size_t n = 0;
	bool hidden = (what == CL_QUEUE_PROPERTIES || what == CL_QUEUE_PROPERTIES_ARRAY) &&
	              obs_queue_hidden(q, props, PROPS_MAX, &n);
	if (hidden && what == CL_QUEUE_PROPERTIES_ARRAY)
		return props_array(props, n, size, value, size_ret);
	cl_int rc = nx->clGetCommandQueueInfo(q, what, size, value, size_ret);
	if (hidden && rc == CL_SUCCESS && value && size >= sizeof(cl_command_queue_properties))
		*(cl_command_queue_properties *)value &=
		    ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
	return rc;
}

cl_int obs_finish(const cl_icd_dispatch *nx, cl_command_queue q)
{
	cl_int rc = nx->clFinish(q);
	if (rc == CL_SUCCESS)
		obs_wait(&q, 1, true);
	return rc;
}

/* The queues of the events waited for: their batches end (a user event has none). */
cl_int obs_wait_events(const cl_icd_dispatch *nx, cl_uint n, const cl_event *list)
{
	cl_int rc = nx->clWaitForEvents(n, list);
	if (rc != CL_SUCCESS || !list)
		return rc;
	cl_command_queue qs[64];
	size_t nq = 0;
	for (cl_uint i = 0; i < n && nq < GD_ARRAY_LEN(qs); i++)
		if (nx->clGetEventInfo(list[i], CL_EVENT_COMMAND_QUEUE, sizeof(cl_command_queue), &qs[nq],
		                       NULL) == CL_SUCCESS &&
		    qs[nq])
			nq++;
	obs_wait(qs, nq, true);
	return rc;
}

/* The queue of e, or NULL (a user event, an invalid one). */
static cl_command_queue queue_of(const cl_icd_dispatch *nx, cl_event e)
{
	cl_command_queue q = NULL;
	if (nx->clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof(cl_command_queue), &q, NULL) != CL_SUCCESS)
		q = NULL;
	return q;
}

/* The program's CL_COMPLETE callback, and the queue whose batch its call ends. */
struct callback {
	void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
	void *ud;
	cl_command_queue q;
};

static void CL_CALLBACK on_complete(cl_event e, cl_int status, void *arg)
{
	struct callback cb = *(struct callback *)arg;
	free(arg);
	if (status == CL_COMPLETE)
		obs_callback_wait(cb.q);
	cb.fn(e, status, cb.ud);
}

/* A program that waits by CL_COMPLETE callbacks learns of its batches' ends through them: the
 * callback is wrapped to tell the recorder first (then calls the program's with its own
 * arguments). Any other callback, or one on an event of no queue, goes on as it is. */
cl_int obs_event_callback(const cl_icd_dispatch *nx, cl_event e, cl_int type,
                          void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *ud)
{
	cl_command_queue q = type == CL_COMPLETE && fn ? queue_of(nx, e) : NULL;
	struct callback *cb = q ? malloc(sizeof(*cb)) : NULL;
	if (!cb)
		return nx->clSetEventCallback(e, type, fn, ud);
	*cb = (struct callback){ .fn = fn, .ud = ud, .q = q };
	cl_int rc = nx->clSetEventCallback(e, type, on_complete, cb);
	if (rc != CL_SUCCESS)
		free(cb);
	return rc;
}

/* An event's reference count without the recorder's references (obs_event_refcount). */
cl_int obs_event_info(const cl_icd_dispatch *nx, cl_event e, cl_event_info what, size_t size, void *value,
                      size_t *size_ret)
{
	if (what == CL_EVENT_REFERENCE_COUNT)
		return obs_event_refcount(nx, e, size, value, size_ret);
	cl_int rc = nx->clGetEventInfo(e, what, size, value, size_ret);
	/* A program that polls its event's status has waited for it once the answer is complete. */
	if (rc == CL_SUCCESS && what == CL_EVENT_COMMAND_EXECUTION_STATUS && value &&
	    size >= sizeof(cl_int) && *(cl_int *)value == CL_COMPLETE) {
		cl_command_queue q = queue_of(nx, e);
		if (q)
			obs_wait(&q, 1, false);
	}
	return rc;
}

/* An event of a queue whose profiling the library added answers as on a queue without it. Any
 * other event, and an invalid one (whose queue cannot be read), goes on as it is. */
cl_int obs_event_profiling(const cl_icd_dispatch *nx, cl_event e, cl_profiling_info what, size_t size,
                           void *value, size_t *size_ret)
{
	cl_command_queue q = queue_of(nx, e);
	if (q && obs_queue_hidden(q, NULL, 0, NULL))
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	return nx->clGetEventProfilingInfo(e, what, size, value, size_ret);
}

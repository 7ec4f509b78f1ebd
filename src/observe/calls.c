/* calls.c: the recording function of each wrapped OpenCL entry point (entry_points.h lists
 * them), shared by the layer and the LD_PRELOAD front ends. Each passes the program's arguments
 * on unchanged but for two additions: the profiling property on queues it creates (hidden again
 * from clGetCommandQueueInfo and clGetEventProfilingInfo), and an event on commands of a
 * profiled batch where the program asked for none (released by the recorder). What the call
 * returns, errors included, is returned as it came, but for the two answers that would show the
 * additions: an added queue's profiling, and the recorder's references in an event's count. */
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

/* One command of a batch, from before its call to after it: whether the recorder keeps its
 * event, the program's event argument, and the event of our own where it passed none. */
struct cmd {
	bool keep;
	cl_event *ev;
	cl_event mine;
};

/* Before the call: the command opens or continues q's batch; returns the event argument to pass
 * on: the program's, or ours while the batch is profiled. */
static cl_event *cmd_begin(struct cmd *c, const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind,
                           cl_event *ev)
{
	c->keep = obs_cmd_begin(nx, q, kind);
	c->ev = ev;
	c->mine = NULL;
	return ev ? ev : c->keep ? &c->mine : NULL;
}

/* After it: the command counted and, after a successful call, the event the recorder keeps handed
 * over to it (ours, or a reference of its own to the program's). */
static void cmd_end(const struct cmd *c, const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind,
                    uint64_t amount, cl_int rc)
{
	cl_event kept = NULL;
	if (c->keep && rc == CL_SUCCESS)
		kept = !c->ev ? c->mine : nx->clRetainEvent(*c->ev) == CL_SUCCESS ? *c->ev : NULL;
	obs_cmd_end(nx, q, kind, amount, kept, c->ev != NULL, rc);
}

cl_int obs_ndrange(const cl_icd_dispatch *nx, cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                   const size_t *global, const size_t *local, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = cmd_begin(&c, nx, q, OBS_KERNEL, ev);
	cl_int rc = nx->clEnqueueNDRangeKernel(q, k, dim, off, global, local, nw, wl, e);
	uint64_t items = 1;
	for (cl_uint d = 0; global && d < dim && d < 3; d++)
		items *= global[d];
	cmd_end(&c, nx, q, OBS_KERNEL, items, rc);
	return rc;
}

/* After a transfer: counted, and where blocking, a host wait that ends the batch. */
static void transfer_end(const struct cmd *c, const cl_icd_dispatch *nx, cl_command_queue q,
                         enum obs_kind kind, uint64_t bytes, cl_bool blocking, cl_int rc)
{
	cmd_end(c, nx, q, kind, bytes, rc);
	if (blocking && rc == CL_SUCCESS)
		obs_wait(&q, 1);
}

cl_int obs_read(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                size_t size, void *ptr, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = cmd_begin(&c, nx, q, OBS_READ, ev);
	cl_int rc = nx->clEnqueueReadBuffer(q, b, blocking, off, size, ptr, nw, wl, e);
	transfer_end(&c, nx, q, OBS_READ, size, blocking, rc);
	return rc;
}

cl_int obs_write(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                 size_t size, const void *ptr, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = cmd_begin(&c, nx, q, OBS_WRITE, ev);
	cl_int rc = nx->clEnqueueWriteBuffer(q, b, blocking, off, size, ptr, nw, wl, e);
	transfer_end(&c, nx, q, OBS_WRITE, size, blocking, rc);
	return rc;
}

static uint64_t region_bytes(const size_t *region)
{
	return region ? (uint64_t)region[0] * region[1] * region[2] : 0;
}

/* A rectangular transfer, either way (kind): origins { buffer, host }, pitches { buffer row,
 * buffer slice, host row, host slice }, as the entry points take them; it moves the region's
 * bytes. A write's host pointer travels as void * only to share this function: it goes on to
 * clEnqueueWriteBufferRect, which takes it as const, and nothing writes through it. */
static cl_int rect(const cl_icd_dispatch *nx, enum obs_kind kind, cl_command_queue q, cl_mem b,
                   cl_bool blocking, const size_t *const org[2], const size_t *region, const size_t pitch[4],
                   void *ptr, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = cmd_begin(&c, nx, q, kind, ev);
	cl_int rc = kind == OBS_READ
	                ? nx->clEnqueueReadBufferRect(q, b, blocking, org[0], org[1], region, pitch[0],
	                                              pitch[1], pitch[2], pitch[3], ptr, nw, wl, e)
	                : nx->clEnqueueWriteBufferRect(q, b, blocking, org[0], org[1], region, pitch[0],
	                                               pitch[1], pitch[2], pitch[3], ptr, nw, wl, e);
	transfer_end(&c, nx, q, kind, region_bytes(region), blocking, rc);
	return rc;
}

cl_int obs_read_rect(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking,
                     const size_t *borigin, const size_t *horigin, const size_t *region, size_t brow,
                     size_t bslice, size_t hrow, size_t hslice, void *ptr, cl_uint nw, const cl_event *wl,
                     cl_event *ev)
{
	return rect(nx, OBS_READ, q, b, blocking, (const size_t *const[]){ borigin, horigin }, region,
	            (const size_t[]){ brow, bslice, hrow, hslice }, ptr, nw, wl, ev);
}

cl_int obs_write_rect(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking,
                      const size_t *borigin, const size_t *horigin, const size_t *region, size_t brow,
                      size_t bslice, size_t hrow, size_t hslice, const void *ptr, cl_uint nw,
                      const cl_event *wl, cl_event *ev)
{
	return rect(nx, OBS_WRITE, q, b, blocking, (const size_t *const[]){ borigin, horigin }, region,
	            (const size_t[]){ brow, bslice, hrow, hslice }, (void *)ptr, nw, wl, ev);
}

/* A map for reading brings the region to the host: counted as read from the device. A map for
 * writing opens or continues the batch as a write does, and counts as a read of no bytes. */
void *obs_map(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags,
              size_t off, size_t size, cl_uint nw, const cl_event *wl, cl_event *ev, cl_int *err)
{
	bool reads = flags & CL_MAP_READ;
	struct cmd c;
	cl_event *e = cmd_begin(&c, nx, q, reads ? OBS_READ : OBS_WRITE, ev);
	cl_int rc;
	void *p = nx->clEnqueueMapBuffer(q, b, blocking, flags, off, size, nw, wl, e, &rc);
	transfer_end(&c, nx, q, OBS_READ, reads ? size : 0, blocking, rc);
	if (err)
		*err = rc;
	return p;
}

cl_int obs_finish(const cl_icd_dispatch *nx, cl_command_queue q)
{
	cl_int rc = nx->clFinish(q);
	if (rc == CL_SUCCESS)
		obs_wait(&q, 1);
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
	obs_wait(qs, nq);
	return rc;
}

/* An event's reference count without the recorder's references (obs_event_refcount). */
cl_int obs_event_info(const cl_icd_dispatch *nx, cl_event e, cl_event_info what, size_t size, void *value,
                      size_t *size_ret)
{
	if (what == CL_EVENT_REFERENCE_COUNT)
		return obs_event_refcount(nx, e, size, value, size_ret);
	return nx->clGetEventInfo(e, what, size, value, size_ret);
}

/* An event of a queue whose profiling the library added answers as on a queue without it. Any
 * other event, and an invalid one (whose queue cannot be read), goes on as it is. */
cl_int obs_event_profiling(const cl_icd_dispatch *nx, cl_event e, cl_profiling_info what, size_t size,
                           void *value, size_t *size_ret)
{
	cl_command_queue q = NULL;
	if (nx->clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof(cl_command_queue), &q, NULL) == CL_SUCCESS &&
	    obs_queue_hidden(q, NULL, 0, NULL))
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	return nx->clGetEventProfilingInfo(e, what, size, value, size_ret);
}

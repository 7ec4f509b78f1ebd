/* layer.c: the library as an OpenCL loader layer (cl_loader_layers: OPENCL_LAYERS names it). The
 * loader hands over the dispatch table of what comes after the layer and takes ours: a copy of
 * it with the wrapped entry points replaced. This path sees calls made through any libOpenCL
 * handle, those of programs that dlopen the loader included, which LD_PRELOAD cannot. */
#include "observe.h"

#include <CL/cl_layer.h>
#include <stddef.h>
#include <string.h>

static cl_icd_dispatch next;  /* what comes after the layer */
static cl_icd_dispatch table; /* ours: next, with the wrapped entries replaced */
static int active;

__thread int obs_depth;

bool obs_layer_active(void)
{
	return __atomic_load_n(&active, __ATOMIC_ACQUIRE);
}

/* A call that an LD_PRELOAD wrapper of this thread is recording already is passed on as it is. */
#define PASS_IF_NESTED(call)         \
	do {                         \
		if (obs_depth > 0)   \
			return call; \
	} while (0)

static cl_command_queue CL_API_CALL l_create_queue(cl_context c, cl_device_id d,
                                                   cl_command_queue_properties p, cl_int *e)
{
	PASS_IF_NESTED(next.clCreateCommandQueue(c, d, p, e));
	return obs_create_queue(&next, c, d, p, e);
}

static cl_command_queue CL_API_CALL l_create_queue_props(cl_context c, cl_device_id d,
                                                         const cl_queue_properties *p, cl_int *e)
{
	PASS_IF_NESTED(next.clCreateCommandQueueWithProperties(c, d, p, e));
	return obs_create_queue_props(&next, c, d, p, e);
}

static cl_int CL_API_CALL l_release_queue(cl_command_queue q)
{
	PASS_IF_NESTED(next.clReleaseCommandQueue(q));
	return obs_release_queue(&next, q);
}

static cl_int CL_API_CALL l_queue_info(cl_command_queue q, cl_command_queue_info w, size_t s, void *v,
                                       size_t *r)
{
	PASS_IF_NESTED(next.clGetCommandQueueInfo(q, w, s, v, r));
	return obs_queue_info(&next, q, w, s, v, r);
}

static cl_int CL_API_CALL l_ndrange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                                    const size_t *g, const size_t *l, cl_uint nw, const cl_event *wl,
                                    cl_event *ev)
{
	PASS_IF_NESTED(next.clEnqueueNDRangeKernel(q, k, dim, off, g, l, nw, wl, ev));
	return obs_ndrange(&next, q, k, dim, off, g, l, nw, wl, ev);
}

static cl_int CL_API_CALL l_read(cl_command_queue q, cl_mem b, cl_bool bl, size_t off, size_t size, void *p,
                                 cl_uint nw, const cl_event *wl, cl_event *ev)
{
	PASS_IF_NESTED(next.clEnqueueReadBuffer(q, b, bl, off, size, p, nw, wl, ev));
	return obs_read(&next, q, b, bl, off, size, p, nw, wl, ev);
}

static cl_int CL_API_CALL l_write(cl_command_queue q, cl_mem b, cl_bool bl, size_t off, size_t size,
                                  const void *p, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	PASS_IF_NESTED(next.clEnqueueWriteBuffer(q, b, bl, off, size, p, nw, wl, ev));
	return obs_write(&next, q, b, bl, off, size, p, nw, wl, ev);
}

static cl_int CL_API_CALL l_read_rect(cl_command_queue q, cl_mem b, cl_bool bl, const size_t *bo,
                                      const size_t *ho, const size_t *r, size_t br, size_t bs, size_t hr,
                                      size_t hs, void *p, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	PASS_IF_NESTED(next.clEnqueueReadBufferRect(q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev));
	return obs_read_rect(&next, q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev);
}

static cl_int CL_API_CALL l_write_rect(cl_command_queue q, cl_mem b, cl_bool bl, const size_t *bo,
                                       const size_t *ho, const size_t *r, size_t br, size_t bs, size_t hr,
                                       size_t hs, const void *p, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	PASS_IF_NESTED(next.clEnqueueWriteBufferRect(q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev));
	return obs_write_rect(&next, q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev);
}

static void *CL_API_CALL l_map(cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t off,
                               size_t size, cl_uint nw, const cl_event *wl, cl_event *ev, cl_int *e)
{
	PASS_IF_NESTED(next.clEnqueueMapBuffer(q, b, bl, f, off, size, nw, wl, ev, e));
	return obs_map(&next, q, b, bl, f, off, size, nw, wl, ev, e);
}

static cl_int CL_API_CALL l_finish(cl_command_queue q)
{
	PASS_IF_NESTED(next.clFinish(q));
	return obs_finish(&next, q);
}

static cl_int CL_API_CALL l_wait(cl_uint n, const cl_event *list)
{
	PASS_IF_NESTED(next.clWaitForEvents(n, list));
	return obs_wait_events(&next, n, list);
}

/* The loader's entry points into the layer: called by the loader only. */
// cppcheck-suppress unusedFunction
OBS_EXPORT cl_int CL_API_CALL clGetLayerInfo(cl_layer_info what, size_t size, void *value, size_t *size_ret)
{
	static const char name[] = "gputop-decode observe";
	const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
	const void *src = what == CL_LAYER_API_VERSION ? (const void *)&version : (const void *)name;
	size_t n = what == CL_LAYER_API_VERSION ? sizeof(version) : sizeof(name);
	if (what != CL_LAYER_API_VERSION && what != CL_LAYER_NAME)
		return CL_INVALID_VALUE;
	if (value && size < n)
		return CL_INVALID_VALUE;
	if (value)
		memcpy(value, src, n);
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

/* Our table, entry by entry: the loader may know fewer entries than these headers. */
#define ENTRIES (sizeof(cl_icd_dispatch) / sizeof(void *))
#define SET(field, fn)                                                                   \
	do {                                                                             \
		if (offsetof(cl_icd_dispatch, field) / sizeof(void *) < n && next.field) \
			table.field = fn;                                                \
	} while (0)

// cppcheck-suppress unusedFunction
OBS_EXPORT cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target,
                                          cl_uint *num_entries_ret,
                                          const cl_icd_dispatch **layer_dispatch_ret)
{
	if (!target || !num_entries_ret || !layer_dispatch_ret)
		return CL_INVALID_VALUE;
	size_t n = num_entries < ENTRIES ? num_entries : ENTRIES;
	next = *target; /* then only the n entries the loader has count */
	void **entry = (void **)&next;
	for (size_t i = n; i < ENTRIES; i++)
		entry[i] = NULL;
	table = next;
	SET(clCreateCommandQueue, l_create_queue);
	SET(clCreateCommandQueueWithProperties, l_create_queue_props);
	SET(clReleaseCommandQueue, l_release_queue);
	SET(clGetCommandQueueInfo, l_queue_info);
	SET(clEnqueueNDRangeKernel, l_ndrange);
	SET(clEnqueueReadBuffer, l_read);
	SET(clEnqueueWriteBuffer, l_write);
	SET(clEnqueueReadBufferRect, l_read_rect);
	SET(clEnqueueWriteBufferRect, l_write_rect);
	SET(clEnqueueMapBuffer, l_map);
	SET(clFinish, l_finish);
	SET(clWaitForEvents, l_wait);
	*num_entries_ret = (cl_uint)n;
	*layer_dispatch_ret = &table;
	__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
	obs_set_source(GD_SRC_LAYER);
	return CL_SUCCESS;
}

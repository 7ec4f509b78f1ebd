/* preload.c: the library as an LD_PRELOAD wrapper: the program's calls to the wrapped entry
 * points land here first and go on to the next definition (the loader's, dlsym RTLD_NEXT).
 * Where the loader has also initialised the layer, the layer records and these only pass calls
 * on; where it ignores OPENCL_LAYERS (NVIDIA's CUDA-toolkit loader), these record. */
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "observe.h"

static cl_icd_dispatch real;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

/* The next definition: the one after this library in the global scope, else the loader's own.
 * A loader that a module pulled in with RTLD_LOCAL (Python's extension modules are loaded so) is
 * not in the global scope, yet the module's calls still land here first. */
static void *next_sym(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f)
		return f;
	static void *loader;
	if (!loader)
		loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!loader)
		loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	return loader ? dlsym(loader, name) : NULL;
}

#define RESOLVE(field) (*(void **)&real.field = next_sym(#field))

static void resolve(void)
{
	RESOLVE(clGetPlatformIDs); /* the device's P:D (obs_queue_device) */
	RESOLVE(clGetDeviceIDs);
	RESOLVE(clGetDeviceInfo);
	RESOLVE(clCreateCommandQueue);
	RESOLVE(clCreateCommandQueueWithProperties);
	RESOLVE(clReleaseCommandQueue);
	RESOLVE(clGetCommandQueueInfo);
	RESOLVE(clEnqueueNDRangeKernel);
	RESOLVE(clEnqueueReadBuffer);
	RESOLVE(clEnqueueWriteBuffer);
	RESOLVE(clEnqueueReadBufferRect);
	RESOLVE(clEnqueueWriteBufferRect);
	RESOLVE(clEnqueueMapBuffer);
	RESOLVE(clFinish);
	RESOLVE(clWaitForEvents);
	/* Used by the recorder itself. */
	RESOLVE(clRetainEvent);
	RESOLVE(clReleaseEvent);
	RESOLVE(clGetEventInfo);
	RESOLVE(clGetEventProfilingInfo);
}

/* The next definitions, or NULL where the entry point has none (no libOpenCL loaded): the
 * program then gets the error it would get from a loader without that entry point. */
static const cl_icd_dispatch *nx(void)
{
	pthread_once(&resolved, resolve);
	return &real;
}

/* Records unless the layer does; obs_depth tells the layer, should the loader reach it from
 * inside this call, that the call is recorded already. */
#define WRAP(field, fail, pass, rec)             \
	do {                                     \
		const cl_icd_dispatch *n = nx(); \
		if (!n->field)                   \
			return fail;             \
		if (obs_layer_active())          \
			return n->pass;          \
		obs_depth++;                     \
		__typeof__(n->pass) rc_ = rec;   \
		obs_depth--;                     \
		return rc_;                      \
	} while (0)

OBS_EXPORT cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context c, cl_device_id d,
                                                             cl_command_queue_properties p, cl_int *e)
{
	WRAP(clCreateCommandQueue, NULL, clCreateCommandQueue(c, d, p, e), obs_create_queue(n, c, d, p, e));
}

OBS_EXPORT cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                                           const cl_queue_properties *p,
                                                                           cl_int *e)
{
	WRAP(clCreateCommandQueueWithProperties, NULL, clCreateCommandQueueWithProperties(c, d, p, e),
	     obs_create_queue_props(n, c, d, p, e));
}

OBS_EXPORT cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q)
{
	WRAP(clReleaseCommandQueue, CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(q),
	     obs_release_queue(n, q));
}

OBS_EXPORT cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info w, size_t s,
                                                    void *v, size_t *r)
{
	WRAP(clGetCommandQueueInfo, CL_INVALID_COMMAND_QUEUE, clGetCommandQueueInfo(q, w, s, v, r),
	     obs_queue_info(n, q, w, s, v, r));
}

OBS_EXPORT cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                                     const size_t *off, const size_t *g, const size_t *l,
                                                     cl_uint nw, const cl_event *wl, cl_event *ev)
{
	WRAP(clEnqueueNDRangeKernel, CL_INVALID_COMMAND_QUEUE,
	     clEnqueueNDRangeKernel(q, k, dim, off, g, l, nw, wl, ev),
	     obs_ndrange(n, q, k, dim, off, g, l, nw, wl, ev));
}

OBS_EXPORT cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t off,
                                                  size_t size, void *p, cl_uint nw, const cl_event *wl,
                                                  cl_event *ev)
{
	WRAP(clEnqueueReadBuffer, CL_INVALID_COMMAND_QUEUE,
	     clEnqueueReadBuffer(q, b, bl, off, size, p, nw, wl, ev),
	     obs_read(n, q, b, bl, off, size, p, nw, wl, ev));
}

OBS_EXPORT cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem b, cl_bool bl, size_t off,
                                                   size_t size, const void *p, cl_uint nw, const cl_event *wl,
                                                   cl_event *ev)
{
	WRAP(clEnqueueWriteBuffer, CL_INVALID_COMMAND_QUEUE,
	     clEnqueueWriteBuffer(q, b, bl, off, size, p, nw, wl, ev),
	     obs_write(n, q, b, bl, off, size, p, nw, wl, ev));
}

OBS_EXPORT cl_int CL_API_CALL clEnqueueReadBufferRect(cl_command_queue q, cl_mem b, cl_bool bl,
                                                      const size_t *bo, const size_t *ho, const size_t *r,
                                                      size_t br, size_t bs, size_t hr, size_t hs, void *p,
                                                      cl_uint nw, const cl_event *wl, cl_event *ev)
{
	WRAP(clEnqueueReadBufferRect, CL_INVALID_COMMAND_QUEUE,
	     clEnqueueReadBufferRect(q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev),
	     obs_read_rect(n, q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev));
}

OBS_EXPORT cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue q, cl_mem b, cl_bool bl,
                                                       const size_t *bo, const size_t *ho, const size_t *r,
                                                       size_t br, size_t bs, size_t hr, size_t hs,
                                                       const void *p, cl_uint nw, const cl_event *wl,
                                                       cl_event *ev)
{
	WRAP(clEnqueueWriteBufferRect, CL_INVALID_COMMAND_QUEUE,
	     clEnqueueWriteBufferRect(q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev),
	     obs_write_rect(n, q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev));
}

OBS_EXPORT void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f,
                                                size_t off, size_t size, cl_uint nw, const cl_event *wl,
                                                cl_event *ev, cl_int *e)
{
	WRAP(clEnqueueMapBuffer, NULL, clEnqueueMapBuffer(q, b, bl, f, off, size, nw, wl, ev, e),
	     obs_map(n, q, b, bl, f, off, size, nw, wl, ev, e));
}

OBS_EXPORT cl_int CL_API_CALL clFinish(cl_command_queue q)
{
	WRAP(clFinish, CL_INVALID_COMMAND_QUEUE, clFinish(q), obs_finish(n, q));
}

OBS_EXPORT cl_int CL_API_CALL clWaitForEvents(cl_uint num, const cl_event *list)
{
	WRAP(clWaitForEvents, CL_INVALID_EVENT, clWaitForEvents(num, list), obs_wait_events(n, num, list));
}

/* _exit skips the destructors (Python's multiprocessing children end with os._exit): the batch
 * each queue completed last would stay unpublished. */
OBS_EXPORT void _exit(int status)
{
	static void (*real_exit)(int);
	obs_flush();
	if (!real_exit)
		*(void **)&real_exit = dlsym(RTLD_NEXT, "_exit");
	if (real_exit)
		real_exit(status);
	for (;;) /* never: libc has _exit */
		;
}

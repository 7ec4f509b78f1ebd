/* fake_cl.c: the least OpenCL runtime that bench/observe_call.c needs: a queue handle and
 * enqueues and waits that return at once, so that what the observation library adds to a call
 * is all there is to time. Built as build/<config>/bench/libfakecl.so; never a real device. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

cl_command_queue clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *e)
{
	(void)c, (void)d, (void)p;
	if (e)
		*e = CL_SUCCESS;
	return (cl_command_queue)(uintptr_t)0x1000;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                              const size_t *g, const size_t *l, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	(void)q, (void)k, (void)dim, (void)off, (void)g, (void)l, (void)nw, (void)wl;
	if (ev)
		*ev = NULL;
	return CL_SUCCESS;
}

cl_int clFinish(cl_command_queue q)
{
	(void)q;
	return CL_SUCCESS;
}

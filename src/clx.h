/* clx.h (private to the worker side): OpenCL helpers: error names, picking a device,
 * building the decode program. Only the worker role and --list-devices load OpenCL. */
#ifndef GPUTOP_CLX_H
#define GPUTOP_CLX_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stddef.h>

#include "gputop/device.h"

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR(-N)" for codes outside the standard. */
const char *clx_err(cl_int e);

struct clx_device {
	cl_platform_id platform;
	cl_device_id id;
	struct gd_device info;
};

#define CLX_KERNEL "decode" /* the kernel's name in decode.cl */

enum {
	CLX_NO_RUNTIME = -1, /* no platform, or none with a device: the runtime did not load or work */
	CLX_NO_DEVICE = -2,  /* devices exist, but not the one asked for */
};
/* The device P:D, or with platform < 0 the first GPU of any platform, else the first device.
 * Returns 0, or CLX_NO_RUNTIME / CLX_NO_DEVICE with a message in err. */
int clx_pick(int platform, int index, struct clx_device *d, char *err, size_t errlen);
/* Reads kernels/decode.cl (device_kernel_source) and builds it for dev with elements of elem
 * bytes (4: float, 8: double). NULL with err holding the reason: the source not found, or the
 * call, the error name and the start of the build log. */
cl_program clx_build_decode(cl_context ctx, cl_device_id dev, int elem, char *err, size_t errlen);

#endif

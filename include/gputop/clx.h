/* clx.h: OpenCL helpers: error names, devices, the decode program. */
#ifndef GPUTOP_CLX_H
#define GPUTOP_CLX_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR(-N)" for codes outside the standard. */
const char *clx_err(cl_int e);

struct clx_device {
	cl_platform_id platform;
	cl_device_id device;
	int pi, di;
	char name[128];
	char platform_name[128];
	char version[96]; /* CL_DEVICE_VERSION */
	bool gpu, fp64;
	cl_ulong max_alloc;
};

/* The device P:D, or with pi < 0 the first GPU of any platform, else the first device.
 * Returns 0, or -1 with a message in err. */
int clx_pick(int pi, int di, struct clx_device *d, char *err, size_t errlen);
/* clx_pick in a short-lived child process, so the caller never loads an OpenCL runtime (tens
 * of MiB of libraries and allocations). The handles in *d are NULL; the facts are filled. */
int clx_probe(int pi, int di, struct clx_device *d, char *err, size_t errlen);
/* Prints one line per device ("P:D  type  name  (platform, version)"); returns the count. */
int clx_list(FILE *out);

/* Reads kernels/decode.cl: $GPUTOP_DECODE_KERNELS, next to the binary, or the install
 * prefix's share/gputop-decode/kernels; never the current directory by accident. */
char *clx_kernel_source(char *err, size_t errlen);
/* Builds src for dev with opts; on failure err holds the call, the error name and the start
 * of the build log. */
cl_program clx_build(cl_context ctx, cl_device_id dev, const char *src, const char *opts, char *err,
                     size_t errlen);

#endif

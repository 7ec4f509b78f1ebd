/* device.h: the OpenCL device as the supervisor side knows it: plain facts, no OpenCL types.
 * The supervisor never loads an OpenCL runtime: device_probe asks a short-lived child. */
#ifndef GPUTOP_DEVICE_H
#define GPUTOP_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gputop/opts.h"

struct gd_device {
	int platform, index; /* P:D, as --device and --list-devices number them */
	char name[128];
	char platform_name[128];
	char version[96]; /* CL_DEVICE_VERSION */
	char driver[96];  /* CL_DRIVER_VERSION */
	bool gpu, fp64;
	/* Filled by device_probe: the kernel the run measures and how its arguments are set up. */
	char kernel[64];
	char kargs[1024]; /* "x: in float[N] normal, each batch, y: out float[N], a: float=2" */
};

enum gd_probe_result {
	GD_PROBE_OK,
	GD_PROBE_NODEVICE,  /* the device asked for does not exist: bad input */
	GD_PROBE_RUNTIME,   /* the OpenCL runtime did not load or initialise, or has no device */
	GD_PROBE_KERNEL,    /* the program's source is missing or unusable, or does not build (the
	                     * log in err) */
	GD_PROBE_BADKERNEL, /* bad input: no such kernel, several without --kernel-name, or an
	                     * argument that cannot be set up (err names it) */
};
/* The device o->platform:o->device, or with platform < 0 the first GPU of any platform, else
 * the first device, found by a child process, which also builds the program (the decode kernel
 * for elements of elem bytes, 0: 8 where the device has fp64, else 4; or o's --kernel) and
 * plans its arguments as the workers will. d is filled unless the result is GD_PROBE_NODEVICE
 * or GD_PROBE_RUNTIME; err says what failed. */
enum gd_probe_result device_probe(const struct gd_opts *o, int elem, struct gd_device *d, char *err,
                                  size_t errlen);
/* Prints one line per device ("P:D  type  name  (platform, version)"); returns the count.
 * This loads the OpenCL runtime into the calling process. */
int device_list(FILE *out);
/* Reads kernels/decode.cl: $GPUTOP_DECODE_KERNELS, next to the binary, or the install
 * prefix's share/gputop-decode/kernels; never the current directory by accident. The first
 * that exists is the one: a directory, an unreadable or an empty file there is an error.
 * Returns a string to free, or NULL with a message in err. */
char *device_kernel_source(char *err, size_t errlen);

#endif

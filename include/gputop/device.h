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
/* The devices o->devices asks for, found by a child process, which also builds the program on
 * each of them (the decode kernel for elements of elem bytes, 0: 8 where every one has fp64,
 * else 4; or o's --kernel) and plans its arguments as the workers will. d[0..*n) is filled
 * unless the result is GD_PROBE_NODEVICE or GD_PROBE_RUNTIME (a GD_PROBE_KERNEL failure names
 * the device); err says what failed. */
enum gd_probe_result device_probe(const struct gd_opts *o, int elem, struct gd_device *d, int *n, char *err,
                                  size_t errlen);
/* Pure: the devices of all[0..nall) (every device, in P:D order) that spec asks for, into
 * out[0..*nout) (GD_DEVICES_MAX at most). Returns 0, or -1 with one line in err naming what
 * was not found (or that more than GD_DEVICES_MAX match). */
int device_select(const struct gd_device *all, int nall, const struct gd_devspec *spec, struct gd_device *out,
                  int *nout, char *err, size_t errlen);
/* "P:D" of a device (at least 24 bytes). */
void device_ref_text(char *buf, size_t n, int platform, int index);
/* Prints one line per device ("P:D  type  name  (platform, version)"); returns the count.
 * This loads the OpenCL runtime into the calling process. */
int device_list(FILE *out);
/* Reads kernels/decode.cl: $GPUTOP_DECODE_KERNELS, next to the binary, or the install
 * prefix's share/gputop-decode/kernels; never the current directory by accident. The first
 * that exists is the one: a directory, an unreadable or an empty file there is an error.
 * Returns a string to free, or NULL with a message in err. */
char *device_kernel_source(char *err, size_t errlen);

#endif

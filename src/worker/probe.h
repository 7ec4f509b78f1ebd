/* probe.h: finding the OpenCL devices, from the supervisor's side. The supervisor never loads
 * an OpenCL runtime: device_probe asks a short-lived child (src/worker/probe.c). */
#ifndef GPUTOP_PROBE_H
#define GPUTOP_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include "gputop/device.h"

enum gd_probe_result {
	GD_PROBE_OK,
	GD_PROBE_NODEVICE,    /* the device asked for does not exist: bad input */
	GD_PROBE_RUNTIME,     /* the OpenCL runtime did not load or initialise, or has no device */
	GD_PROBE_KERNEL,      /* the program's source is missing or unusable, or does not build (the
	                       * log in err) */
	GD_PROBE_BADKERNEL,   /* bad input: no such kernel, several without --kernel-name, or an
	                       * argument that cannot be set up (err names it) */
	GD_PROBE_INTERRUPTED, /* a quit signal (gd_quit_signal) came first: the child is gone */
};
/* The devices sel asks for, found by a child process, which also builds k's program on each
 * of them (the decode kernel for k->dtype's elements, or with GD_DT_AUTO 8 bytes where every
 * one has fp64, else 4; or k's source) and plans its arguments as the workers will. d[0..*n)
 * is filled unless the result is GD_PROBE_NODEVICE or GD_PROBE_RUNTIME (a GD_PROBE_KERNEL
 * failure names the device); err says what failed, or on success holds the build log of a
 * user kernel that built with warnings ("" without). */
enum gd_probe_result device_probe(const struct gd_devspec *sel, const struct gd_kspec *k, struct gd_device *d,
                                  int *n, char *err, size_t errlen);
/* Prints one line per device ("P:D  type  name  (platform, version)"); returns the count, and
 * with none, err says why (as device_probe's GD_PROBE_RUNTIME does). This loads the OpenCL
 * runtime into the calling process. */
int device_list(FILE *out, char *err, size_t errlen);

#endif

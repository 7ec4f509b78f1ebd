/* device.h: the OpenCL device as the supervisor side knows it: plain facts, no OpenCL types,
 * and the pure choice of a run's devices. Finding them is probe.h's. */
#ifndef GPUTOP_DEVICE_H
#define GPUTOP_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gputop/spec.h"

/* What --device asks for. */
enum gd_devsel {
	GD_DEVSEL_DEFAULT, /* not given: the first GPU of any platform, else the first device */
	GD_DEVSEL_LIST,    /* P:D[,P:D...]: exactly these, in this order, no duplicates */
	GD_DEVSEL_ALL,     /* every GPU of the first platform that has one; with no GPU anywhere,
	                    * every device of the first platform that has devices */
	GD_DEVSEL_NAME,    /* every device whose name contains the text (any case), in P:D order */
};

struct gd_devspec {
	enum gd_devsel sel;
	int n; /* LIST: the devices in list */
	struct gd_devref list[GD_DEVICES_MAX];
	const char *name; /* NAME: the text looked for */
};

struct gd_device {
	int platform, index; /* P:D, as --device and --list-devices number them */
	char ref[8];         /* "P:D": the one label of the device everywhere */
	char name[128];
	char platform_name[128];
	char version[96]; /* CL_DEVICE_VERSION */
	char driver[96];  /* CL_DRIVER_VERSION */
	bool gpu, fp64;
	/* Who the device is to its vendor's library (src/vendor/): its PCI address
	 * "domain:bus:device.function" in hex ("" where OpenCL does not say), and its UUID where
	 * the device has cl_khr_device_uuid. */
	char pci[32];
	unsigned char uuid[16];
	bool has_uuid;
	/* Filled by device_probe: the kernel the run measures and how its arguments are set up. */
	char kernel[256]; /* KA_NAME_LEN */
	char kargs[1024]; /* "x: in float[N] normal, each batch, y: out float[N], a: float=2" */
};

/* Pure: the devices of all[0..nall) (every device, in P:D order) that spec asks for, into
 * out[0..*nout) (GD_DEVICES_MAX at most). Returns 0, or -1 with one line in err naming what
 * was not found (or that more than GD_DEVICES_MAX match). */
int device_select(const struct gd_device *all, int nall, const struct gd_devspec *spec, struct gd_device *out,
                  int *nout, char *err, size_t errlen);
/* "P:D" of a device (at least 24 bytes). */
void device_ref_text(char *buf, size_t n, int platform, int index);
#endif

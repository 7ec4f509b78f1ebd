/* vendor.h: what a device's vendor library says about it, beside what the tool measures: the
 * time the driver calls the device busy, the memory in use, how much of the SMs the kernels
 * kept active, and every process on the device. Each vendor sits behind one small table of
 * verbs (struct gd_vendor, after nvtop's struct gpu_vendor); the first whose library answers
 * for an OpenCL device becomes that device's source. Where none answers (PoCL, a vendor without
 * one, a library that is missing, fails or lacks a function) the source is absent, without an
 * error and without a word on any output: every value is then NAN, every list unknown.
 *
 * Not thread-safe: one thread (the session's) opens, samples and closes. */
#ifndef GPUTOP_VENDOR_VENDOR_H
#define GPUTOP_VENDOR_VENDOR_H

#include <stddef.h>
#include <sys/types.h>

#include "gputop/device.h"
#include "gputop/frame.h"

/* The device in one window, each value NAN where the library does not measure it. */
struct gd_vendor_sample {
	double driver_util;    /* 0..1: the share of time the driver calls busy (nvidia-smi's
	                        * utilization.gpu: any kernel running in its sample period) */
	double mem_used_bytes; /* device memory in use, by every process */
	double sm_active;      /* 0..1: the SMs' share of time with work on them (GPM) */
	double sm_occupancy;   /* 0..1: resident warps over the SMs' maximum (GPM) */
};

/* A process on the device, as the driver lists it: ours and everyone else's. */
struct gd_vendor_proc {
	pid_t pid;
	double mem_bytes; /* device memory it holds; NAN: not reported */
	double sm_util;   /* 0..1: the driver's sampled SM share since the previous list; NAN: n/a */
};

struct gd_vdev; /* one device opened by one vendor: that vendor's own state */

struct gd_vendor {
	const char *name;
	/* The vendor's device that is d, matched by its UUID or PCI address; NULL where the library
	 * is missing or fails, or knows no such device. */
	struct gd_vdev *(*open)(const struct gd_device *d);
	void (*sample)(struct gd_vdev *v, struct gd_vendor_sample *out);
	/* The device's compute processes into out[0..max): how many there are (more than max: the
	 * rest left out), or -1 where the list is not known. */
	int (*procs)(struct gd_vdev *v, struct gd_vendor_proc *out, int max);
	void (*close)(struct gd_vdev *v);
};

extern const struct gd_vendor gd_vendor_nvml; /* NVIDIA: libnvidia-ml.so.1 (nvml.c) */

/* A device's source: the first vendor that answers for d, or NULL (absent). */
struct gd_vsource *vendor_open(const struct gd_device *d);
/* The window's values; every one NAN for NULL. */
void vendor_sample(struct gd_vsource *s, struct gd_vendor_sample *out);
/* As struct gd_vendor's procs; -1 for NULL. */
int vendor_procs(struct gd_vsource *s, struct gd_vendor_proc *out, int max);
void vendor_close(struct gd_vsource *s);

/* The vendor's figures of a frame: each device's from its source src[d] (NULL: absent) into
 * f->devs[d], and the run's from the devices' (the shares' mean, the memory's sum, NAN unless
 * every device has the value), then the processes (vendor_fill_procs). src NULL: every one NAN
 * and no process listed (a frame with nothing measured). */
void vendor_fill(struct gd_vsource *const *src, struct gd_frame *f);
/* Part of vendor_fill (procs.c): the drivers' lists of processes, each device's listed flag,
 * each row's entry (gd_sample.drv: matched by pid) and the outside rows, the processes that are
 * neither a row nor started by the tool (f->outside, their command from /proc/PID/comm). */
void vendor_fill_procs(struct gd_vsource *const *src, struct gd_frame *f);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", NVML's text of the UUID that cl_khr_device_uuid
 * gives as 16 bytes (at least 41 bytes of buf). */
void vendor_uuid_text(char *buf, size_t n, const unsigned char uuid[16]);
/* A percentage from a library, as a share 0..1: NAN outside 0..100 (or not a number). */
double vendor_share(double percent);

#endif

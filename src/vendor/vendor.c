/* vendor.c: a device's vendor source (vendor.h): the first vendor that answers for it. */
#include "vendor.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

/* Every vendor, in the order they are asked. */
static const struct gd_vendor *const vendors[] = { &gd_vendor_nvml };

struct gd_vsource {
	const struct gd_vendor *vendor;
	struct gd_vdev *dev;
};

/* d, with the bus id GPUTOP_DECODE_DEVICE_PCI names where the OpenCL driver gives d neither a
 * PCI address nor a UUID (PoCL): how the tests match a device to the fake library. */
static struct gd_device with_pci_hook(const struct gd_device *d)
{
	struct gd_device t = *d;
	const char *pci = getenv("GPUTOP_DECODE_DEVICE_PCI");
	if (!t.pci[0] && !t.has_uuid && pci)
		str_copy(t.pci, sizeof(t.pci), pci);
	return t;
}

struct gd_vsource *vendor_open(const struct gd_device *d)
{
	const struct gd_device dev = with_pci_hook(d);
	for (size_t i = 0; i < GD_ARRAY_LEN(vendors); i++) {
		struct gd_vdev *v = vendors[i]->open(&dev);
		if (!v)
			continue;
		struct gd_vsource *s = xcalloc(1, sizeof(*s));
		s->vendor = vendors[i];
		s->dev = v;
		return s;
	}
	return NULL;
}

void vendor_sample(struct gd_vsource *s, struct gd_vendor_sample *out)
{
	*out = (struct gd_vendor_sample){ NAN, NAN, NAN, NAN };
	if (s)
		s->vendor->sample(s->dev, out);
}

int vendor_procs(struct gd_vsource *s, struct gd_vendor_proc *out, int max)
{
	return s ? s->vendor->procs(s->dev, out, max < 0 ? 0 : max) : -1;
}

void vendor_close(struct gd_vsource *s)
{
	if (!s)
		return;
	s->vendor->close(s->dev);
	free(s);
}

/* The run's value of one figure from its devices': a share's mean, memory's sum. */
static double over_devices(const struct gd_frame *f, size_t off, bool sum)
{
	double total = 0;
	for (int d = 0; d < f->ndevs; d++) {
		double v;
		memcpy(&v, (const char *)&f->devs[d] + off, sizeof(v));
		total += v; /* NAN stays NAN */
	}
	return f->ndevs < 1 ? NAN : sum ? total : total / f->ndevs;
}

void vendor_fill(struct gd_vsource *const *src, struct gd_frame *f)
{
	for (int d = 0; d < f->ndevs; d++) {
		struct gd_vendor_sample v;
		vendor_sample(src ? src[d] : NULL, &v);
		struct gd_devframe *df = &f->devs[d];
		df->driver_util = v.driver_util;
		df->sm_active = v.sm_active;
		df->sm_occupancy = v.sm_occupancy;
		df->mem_used_bytes = v.mem_used_bytes;
	}
	f->driver_util = over_devices(f, offsetof(struct gd_devframe, driver_util), false);
	f->sm_active = over_devices(f, offsetof(struct gd_devframe, sm_active), false);
	f->sm_occupancy = over_devices(f, offsetof(struct gd_devframe, sm_occupancy), false);
	f->mem_used_bytes = over_devices(f, offsetof(struct gd_devframe, mem_used_bytes), true);
	vendor_fill_procs(src, f);
}

void vendor_uuid_text(char *buf, size_t n, const unsigned char u[16])
{
	snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
	         u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
	         u[15]);
}

double vendor_share(double percent)
{
	return percent >= 0 && percent <= 100 ? percent / 100 : NAN;
}

/* nvml.c: NVIDIA's vendor source (vendor.h): libnvidia-ml.so.1, the driver's own library,
 * loaded at run time with dlopen, so the build needs nothing of NVIDIA's and a machine without
 * it runs as before. The few types, constants and functions used are declared here from
 * nvml.h, as nvtop's extract_gpuinfo_nvidia.c does. GPUTOP_DECODE_NVML names another library
 * to load instead (the tests' fake); set but empty, it turns the source off.
 *
 * The library is opened once for every device that uses it (and nvmlInit_v2 called once), and
 * closed with the last of them. Every value it returns is checked before use: a percentage
 * outside 0..100, a count larger than the room given, are left out, never trusted. */
#include "vendor.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

#define NVML_SUCCESS                 0
#define NVML_ERROR_NOT_FOUND         6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE     (~0ULL)
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION     1
#define NVML_GPM_METRIC_SM_UTIL      2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
/* nvmlGpmMetricsGet_t's array is NVML_GPM_METRIC_MAX long, which grows between releases; the
 * library reads only numMetrics of it, and this room is larger than any release's. */
#define GPM_METRICS_ROOM 1024
#define PROCS_MAX        4096 /* a longer list from the library is not believed */

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

typedef struct {
	unsigned int gpu, memory; /* percent */
} nvmlUtilization_t;

typedef struct {
	unsigned long long total, free, used; /* bytes */
} nvmlMemory_t;

/* nvmlProcessInfo_v2_t: what both the _v3 and the _v2 list fill. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory; /* NVML_VALUE_NOT_AVAILABLE: not reported */
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
	unsigned int pid;
	unsigned long long timeStamp; /* CPU time, us */
	unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
	unsigned int version, isSupportedDevice;
} nvmlGpmSupport_t;

typedef struct {
	unsigned int metricId;
	nvmlReturn_t nvmlReturn;
	double value;
	struct {
		char *shortName, *longName, *unit;
	} metricInfo;
} nvmlGpmMetric_t;

typedef struct {
	unsigned int version, numMetrics;
	nvmlGpmSample_t sample1, sample2;
	nvmlGpmMetric_t metrics[GPM_METRICS_ROOM];
} nvmlGpmMetricsGet_t;

/* The library's functions, each NULL where it lacks it. */
struct nvml {
	void *lib;
	int users; /* devices open on it */
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*count)(unsigned int *n);
	nvmlReturn_t (*by_pci)(const char *bus_id, nvmlDevice_t *h);
	nvmlReturn_t (*by_uuid)(const char *uuid, nvmlDevice_t *h);
	nvmlReturn_t (*util)(nvmlDevice_t h, nvmlUtilization_t *u);
	nvmlReturn_t (*mem)(nvmlDevice_t h, nvmlMemory_t *m);
	nvmlReturn_t (*procs)(nvmlDevice_t h, unsigned int *n, nvmlProcessInfo_t *p);
	nvmlReturn_t (*putil)(nvmlDevice_t h, nvmlProcessUtilizationSample_t *s, unsigned int *n,
	                      unsigned long long last_seen);
	nvmlReturn_t (*gpm_support)(nvmlDevice_t h, nvmlGpmSupport_t *s);
	nvmlReturn_t (*gpm_alloc)(nvmlGpmSample_t *s);
	nvmlReturn_t (*gpm_free)(nvmlGpmSample_t s);
	nvmlReturn_t (*gpm_get)(nvmlDevice_t h, nvmlGpmSample_t s);
	nvmlReturn_t (*gpm_metrics)(nvmlGpmMetricsGet_t *m);
};

static struct nvml nv;

/* Each function's name, a name to fall back on, and its place in struct nvml. */
struct nvml_sym {
	const char *name, *alt;
	size_t off;
};
#define SYM(f, name, alt)                           \
	{                                           \
		name, alt, offsetof(struct nvml, f) \
	}
static const struct nvml_sym syms[] = {
	SYM(init, "nvmlInit_v2", NULL),
	SYM(shutdown, "nvmlShutdown", NULL),
	SYM(count, "nvmlDeviceGetCount_v2", NULL),
	SYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2", NULL),
	SYM(by_uuid, "nvmlDeviceGetHandleByUUID", NULL),
	SYM(util, "nvmlDeviceGetUtilizationRates", NULL),
	SYM(mem, "nvmlDeviceGetMemoryInfo", NULL),
	/* _v3 and _v2 fill the same struct; _v3 is what current drivers' headers call */
	SYM(procs, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"),
	SYM(putil, "nvmlDeviceGetProcessUtilization", NULL),
	SYM(gpm_support, "nvmlGpmQueryDeviceSupport", NULL),
	SYM(gpm_alloc, "nvmlGpmSampleAlloc", NULL),
	SYM(gpm_free, "nvmlGpmSampleFree", NULL),
	SYM(gpm_get, "nvmlGpmSampleGet", NULL),
	SYM(gpm_metrics, "nvmlGpmMetricsGet", NULL),
};
#undef SYM

struct gd_vdev {
	nvmlDevice_t h;
	nvmlGpmSample_t gpm[2];  /* both allocated, or GPM is not used */
	bool has_gpm;            /* the device takes GPM samples */
	int older;               /* the sample taken at the previous window's end; -1: none */
	nvmlGpmMetricsGet_t *mg; /* the metrics' request, reused */
	nvmlProcessInfo_t *plist;
	unsigned int pcap;
	nvmlProcessUtilizationSample_t *ulist;
	unsigned int ucap;
	unsigned long long last_seen; /* the newest process sample used */
};

/* Opens the library for one more device: true when it is usable. It must have the functions
 * every sample needs and a way to find a device; the others are used where they exist. */
static bool lib_acquire(void)
{
	if (nv.users > 0) {
		nv.users++;
		return true;
	}
	const char *path = getenv("GPUTOP_DECODE_NVML");
	if (path && !*path)
		return false;
	void *lib = dlopen(path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		dlerror(); /* absent: no error to keep */
		return false;
	}
	struct nvml t = { .lib = lib };
	for (size_t i = 0; i < GD_ARRAY_LEN(syms); i++) {
		void *p = dlsym(lib, syms[i].name);
		if (!p && syms[i].alt)
			p = dlsym(lib, syms[i].alt);
		memcpy((char *)&t + syms[i].off, &p, sizeof(p)); /* POSIX: a function's address */
	}
	if (!t.init || !t.shutdown || !t.util || !t.mem || (!t.by_pci && !t.by_uuid) ||
	    t.init() != NVML_SUCCESS) {
		dlclose(lib);
		return false;
	}
	nv = t;
	nv.users = 1;
	return true;
}

static void lib_release(void)
{
	if (--nv.users > 0)
		return;
	nv.shutdown();
	dlclose(nv.lib);
	memset(&nv, 0, sizeof(nv));
}

/* The library's handle of d: by its UUID first (it names one GPU whatever the bus), then by its
 * PCI address. */
static bool find_handle(const struct gd_device *d, nvmlDevice_t *h)
{
	unsigned int n = 0;
	if (nv.count && (nv.count(&n) != NVML_SUCCESS || n == 0))
		return false;
	if (d->has_uuid && nv.by_uuid) {
		char uuid[48];
		vendor_uuid_text(uuid, sizeof(uuid), d->uuid);
		if (nv.by_uuid(uuid, h) == NVML_SUCCESS)
			return true;
	}
	return d->pci[0] && nv.by_pci && nv.by_pci(d->pci, h) == NVML_SUCCESS;
}

/* GPM (Hopper and later): two samples, the older one kept from the previous window. */
static void gpm_open(struct gd_vdev *v)
{
	if (!nv.gpm_alloc || !nv.gpm_free || !nv.gpm_get || !nv.gpm_metrics)
		return;
	nvmlGpmSupport_t s = { .version = NVML_GPM_SUPPORT_VERSION };
	if (nv.gpm_support && (nv.gpm_support(v->h, &s) != NVML_SUCCESS || !s.isSupportedDevice))
		return;
	if (nv.gpm_alloc(&v->gpm[0]) != NVML_SUCCESS)
		return;
	if (nv.gpm_alloc(&v->gpm[1]) != NVML_SUCCESS) {
		nv.gpm_free(v->gpm[0]);
		return;
	}
	v->mg = xcalloc(1, sizeof(*v->mg));
	v->has_gpm = true;
}

static struct gd_vdev *nvml_open(const struct gd_device *d)
{
	if (!lib_acquire())
		return NULL;
	nvmlDevice_t h;
	if (!find_handle(d, &h)) {
		lib_release();
		return NULL;
	}
	struct gd_vdev *v = xcalloc(1, sizeof(*v));
	v->h = h;
	v->older = -1;
	gpm_open(v);
	return v;
}

/* SM activity and occupancy between the previous window's sample and this one's; the first
 * window, and one after a failed sample, has none. */
static void gpm_sample(struct gd_vdev *v, struct gd_vendor_sample *out)
{
	if (!v->has_gpm)
		return;
	int next = v->older < 0 ? 0 : 1 - v->older;
	if (nv.gpm_get(v->h, v->gpm[next]) != NVML_SUCCESS) {
		v->older = -1;
		return;
	}
	if (v->older >= 0) {
		nvmlGpmMetricsGet_t *mg = v->mg;
		memset(mg, 0, offsetof(nvmlGpmMetricsGet_t, metrics) + 2 * sizeof(mg->metrics[0]));
		mg->version = NVML_GPM_METRICS_GET_VERSION;
		mg->numMetrics = 2;
		mg->sample1 = v->gpm[v->older];
		mg->sample2 = v->gpm[next];
		mg->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
		mg->metrics[1].metricId = NVML_GPM_METRIC_SM_OCCUPANCY;
		if (nv.gpm_metrics(mg) == NVML_SUCCESS) {
			if (mg->metrics[0].nvmlReturn == NVML_SUCCESS)
				out->sm_active = vendor_share(mg->metrics[0].value);
			if (mg->metrics[1].nvmlReturn == NVML_SUCCESS)
				out->sm_occupancy = vendor_share(mg->metrics[1].value);
		}
	}
	v->older = next;
}

static void nvml_sample(struct gd_vdev *v, struct gd_vendor_sample *out)
{
	nvmlUtilization_t u;
	if (nv.util(v->h, &u) == NVML_SUCCESS)
		out->driver_util = vendor_share(u.gpu);
	nvmlMemory_t m;
	/* a total of 0: memory shared with the host (an integrated GPU), not the device's */
	if (nv.mem(v->h, &m) == NVML_SUCCESS && m.total > 0 && m.used <= m.total)
		out->mem_used_bytes = (double)m.used;
	gpm_sample(v, out);
}

/* The device's compute processes into v->plist: how many, or -1. The list may grow between the
 * call that sizes it and the one that fills it: a few tries. */
static int list_procs(struct gd_vdev *v)
{
	for (int tries = 0; tries < 4; tries++) {
		unsigned int n = v->pcap;
		nvmlReturn_t rc = nv.procs(v->h, &n, v->plist);
		if (rc == NVML_SUCCESS)
			return n <= v->pcap ? (int)n : -1;
		if (rc != NVML_ERROR_INSUFFICIENT_SIZE || n > PROCS_MAX)
			return -1;
		v->pcap = n + 8;
		v->plist = xreallocarray(v->plist, v->pcap, sizeof(*v->plist));
	}
	return -1;
}

/* The driver's samples of each process's SM share since the last seen: a process's is the
 * mean of its samples, 0 where it has none (it did not run), NAN for every process where the
 * driver gives no samples at all. */
static void proc_util(struct gd_vdev *v, struct gd_vendor_proc *out, int n)
{
	unsigned int cnt = 0;
	nvmlReturn_t rc = nv.putil ? nv.putil(v->h, NULL, &cnt, v->last_seen) : -1;
	if (rc == NVML_ERROR_NOT_FOUND) /* nothing ran since the last samples */
		cnt = 0;
	else if (rc != NVML_ERROR_INSUFFICIENT_SIZE || cnt == 0 || cnt > PROCS_MAX)
		return;
	if (cnt > v->ucap) {
		v->ucap = cnt + 8;
		v->ulist = xreallocarray(v->ulist, v->ucap, sizeof(*v->ulist));
	}
	if (cnt && (nv.putil(v->h, v->ulist, &cnt, v->last_seen) != NVML_SUCCESS || cnt > v->ucap))
		return;
	for (int i = 0; i < n; i++) {
		double sum = 0;
		int k = 0;
		for (unsigned int j = 0; j < cnt; j++) {
			const nvmlProcessUtilizationSample_t *s = &v->ulist[j];
			if (s->smUtil <= 100 && s->timeStamp > v->last_seen && (pid_t)s->pid == out[i].pid) {
				sum += s->smUtil;
				k++;
			}
		}
		out[i].sm_util = k ? sum / k / 100 : 0;
	}
	for (unsigned int j = 0; j < cnt; j++)
		if (v->ulist[j].timeStamp > v->last_seen)
			v->last_seen = v->ulist[j].timeStamp;
}

static int nvml_procs(struct gd_vdev *v, struct gd_vendor_proc *out, int max)
{
	int n = nv.procs ? list_procs(v) : -1;
	if (n < 0)
		return -1;
	int shown = n < max ? n : max;
	for (int i = 0; i < shown; i++) {
		unsigned long long mem = v->plist[i].usedGpuMemory;
		out[i] =
		    (struct gd_vendor_proc){ .pid = (pid_t)v->plist[i].pid,
			                     .mem_bytes = mem == NVML_VALUE_NOT_AVAILABLE ? NAN : (double)mem,
			                     .sm_util = NAN };
	}
	proc_util(v, out, shown);
	return n;
}

static void nvml_close(struct gd_vdev *v)
{
	if (!v)
		return;
	if (v->has_gpm) {
		nv.gpm_free(v->gpm[0]);
		nv.gpm_free(v->gpm[1]);
	}
	free(v->mg);
	free(v->plist);
	free(v->ulist);
	free(v);
	lib_release();
}

const struct gd_vendor gd_vendor_nvml = {
	.name = "NVIDIA",
	.open = nvml_open,
	.sample = nvml_sample,
	.procs = nvml_procs,
	.close = nvml_close,
};

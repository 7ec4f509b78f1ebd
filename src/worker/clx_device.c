/* clx_device.c: OpenCL error names, queries of unbounded size, and the devices: their facts,
 * each in turn, the one a run asks for (clx.h). */
#include "clx.h"

#include <CL/cl_ext.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"

#define CLX_PLATFORM_NOT_FOUND_KHR (-1001) /* cl_khr_icd: the ICD loader found no platform */
/* cl_nv_device_attribute_query's PCI address, which no Khronos header declares. */
#define CLX_PCI_BUS_ID_NV    0x4008
#define CLX_PCI_SLOT_ID_NV   0x4009
#define CLX_PCI_DOMAIN_ID_NV 0x400A

#define E(x) [-(x)] = #x
static const char *const err_names[] = {
	E(CL_SUCCESS),
	E(CL_DEVICE_NOT_FOUND),
	E(CL_DEVICE_NOT_AVAILABLE),
	E(CL_COMPILER_NOT_AVAILABLE),
	E(CL_MEM_OBJECT_ALLOCATION_FAILURE),
	E(CL_OUT_OF_RESOURCES),
	E(CL_OUT_OF_HOST_MEMORY),
	E(CL_PROFILING_INFO_NOT_AVAILABLE),
	E(CL_MEM_COPY_OVERLAP),
	E(CL_IMAGE_FORMAT_MISMATCH),
	E(CL_IMAGE_FORMAT_NOT_SUPPORTED),
	E(CL_BUILD_PROGRAM_FAILURE),
	E(CL_MAP_FAILURE),
	E(CL_MISALIGNED_SUB_BUFFER_OFFSET),
	E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
	E(CL_COMPILE_PROGRAM_FAILURE),
	E(CL_LINKER_NOT_AVAILABLE),
	E(CL_LINK_PROGRAM_FAILURE),
	E(CL_DEVICE_PARTITION_FAILED),
	E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
	E(CL_INVALID_VALUE),
	E(CL_INVALID_DEVICE_TYPE),
	E(CL_INVALID_PLATFORM),
	E(CL_INVALID_DEVICE),
	E(CL_INVALID_CONTEXT),
	E(CL_INVALID_QUEUE_PROPERTIES),
	E(CL_INVALID_COMMAND_QUEUE),
	E(CL_INVALID_HOST_PTR),
	E(CL_INVALID_MEM_OBJECT),
	E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
	E(CL_INVALID_IMAGE_SIZE),
	E(CL_INVALID_SAMPLER),
	E(CL_INVALID_BINARY),
	E(CL_INVALID_BUILD_OPTIONS),
	E(CL_INVALID_PROGRAM),
	E(CL_INVALID_PROGRAM_EXECUTABLE),
	E(CL_INVALID_KERNEL_NAME),
	E(CL_INVALID_KERNEL_DEFINITION),
	E(CL_INVALID_KERNEL),
	E(CL_INVALID_ARG_INDEX),
	E(CL_INVALID_ARG_VALUE),
	E(CL_INVALID_ARG_SIZE),
	E(CL_INVALID_KERNEL_ARGS),
	E(CL_INVALID_WORK_DIMENSION),
	E(CL_INVALID_WORK_GROUP_SIZE),
	E(CL_INVALID_WORK_ITEM_SIZE),
	E(CL_INVALID_GLOBAL_OFFSET),
	E(CL_INVALID_EVENT_WAIT_LIST),
	E(CL_INVALID_EVENT),
	E(CL_INVALID_OPERATION),
	E(CL_INVALID_GL_OBJECT),
	E(CL_INVALID_BUFFER_SIZE),
	E(CL_INVALID_MIP_LEVEL),
	E(CL_INVALID_GLOBAL_WORK_SIZE),
	E(CL_INVALID_PROPERTY),
	E(CL_INVALID_IMAGE_DESCRIPTOR),
	E(CL_INVALID_COMPILER_OPTIONS),
	E(CL_INVALID_LINKER_OPTIONS),
	E(CL_INVALID_DEVICE_PARTITION_COUNT),
	E(CL_INVALID_PIPE_SIZE),
	E(CL_INVALID_DEVICE_QUEUE),
	E(CL_INVALID_SPEC_ID),
	E(CL_MAX_SIZE_RESTRICTION_EXCEEDED),
};
#undef E

const char *clx_err(cl_int e)
{
	static __thread char unknown[40];
	if (e <= 0 && (size_t)-e < GD_ARRAY_LEN(err_names) && err_names[-e])
		return err_names[-e];
	if (e == CLX_PLATFORM_NOT_FOUND_KHR)
		return "CL_PLATFORM_NOT_FOUND_KHR";
	snprintf(unknown, sizeof(unknown), "CL_UNKNOWN_ERROR(%d)", (int)e);
	return unknown;
}

/* ---- queries of unbounded size ---- */

static cl_int query_raw(const struct clx_query *q, size_t size, void *value, size_t *ret)
{
	switch (q->kind) {
	case CLX_Q_DEVICE:
		return clGetDeviceInfo((cl_device_id)q->obj, q->param, size, value, ret);
	case CLX_Q_PLATFORM:
		return clGetPlatformInfo((cl_platform_id)q->obj, q->param, size, value, ret);
	case CLX_Q_PROGRAM:
		return clGetProgramInfo((cl_program)q->obj, q->param, size, value, ret);
	case CLX_Q_BUILD:
		return clGetProgramBuildInfo((cl_program)q->obj, q->dev, q->param, size, value, ret);
	case CLX_Q_KERNEL_ARG:
		return clGetKernelArgInfo((cl_kernel)q->obj, q->index, q->param, size, value, ret);
	}
	return CL_INVALID_VALUE;
}

char *clx_query_string(const struct clx_query *q, cl_int *rc)
{
	size_t n = 0;
	if ((*rc = query_raw(q, 0, NULL, &n)) != CL_SUCCESS)
		return NULL;
	char *s = xmalloc(n + 1);
	if ((*rc = query_raw(q, n, s, NULL)) != CL_SUCCESS) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

/* A device's or platform's text, for display: whole when it fits the field, else cut (with
 * "..."), never left empty because it was long. */
static void info_text(const struct clx_query *q, char *out, size_t len)
{
	cl_int rc;
	char *s = clx_query_string(q, &rc);
	out[0] = '\0';
	if (s && strlen(s) >= len && len > 4)
		snprintf(out, len, "%.*s...", (int)(len - 4), s);
	else if (s)
		str_copy(out, len, s);
	free(s);
}

static void device_text(cl_device_id dev, cl_uint param, char *out, size_t len)
{
	const struct clx_query q = { CLX_Q_DEVICE, dev, NULL, param, 0 };
	info_text(&q, out, len);
}

static void platform_text(cl_platform_id p, cl_uint param, char *out, size_t len)
{
	const struct clx_query q = { CLX_Q_PLATFORM, p, NULL, param, 0 };
	info_text(&q, out, len);
}

/* Who the device is to its vendor's library: its PCI address from cl_khr_pci_bus_info, else
 * from NVIDIA's own queries (the slot holds device << 3 | function; the domain is 0 on drivers
 * without its query), and its UUID from cl_khr_device_uuid. Each is left empty where the
 * device does not answer. */
static void fill_identity(cl_device_id dev, struct gd_device *info)
{
	cl_device_pci_bus_info_khr pci;
	cl_uint bus = 0, slot = 0, domain = 0;
	if (clGetDeviceInfo(dev, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(pci), &pci, NULL) == CL_SUCCESS)
		snprintf(info->pci, sizeof(info->pci), "%04x:%02x:%02x.%x", pci.pci_domain, pci.pci_bus,
		         pci.pci_device, pci.pci_function);
	else if (clGetDeviceInfo(dev, CLX_PCI_BUS_ID_NV, sizeof(bus), &bus, NULL) == CL_SUCCESS &&
	         clGetDeviceInfo(dev, CLX_PCI_SLOT_ID_NV, sizeof(slot), &slot, NULL) == CL_SUCCESS) {
		if (clGetDeviceInfo(dev, CLX_PCI_DOMAIN_ID_NV, sizeof(domain), &domain, NULL) != CL_SUCCESS)
			domain = 0;
		snprintf(info->pci, sizeof(info->pci), "%04x:%02x:%02x.%x", domain, bus & 0xff,
		         (slot >> 3) & 0x1f, slot & 7);
	}
	info->has_uuid =
	    clGetDeviceInfo(dev, CL_DEVICE_UUID_KHR, sizeof(info->uuid), info->uuid, NULL) == CL_SUCCESS;
}

static void fill(struct clx_device *d, cl_platform_id p, cl_device_id dev, int pi, int di)
{
	memset(d, 0, sizeof(*d));
	d->platform = p;
	d->id = dev;
	struct gd_device *info = &d->info;
	info->platform = pi;
	info->index = di;
	device_ref_text(info->ref, sizeof(info->ref), pi, di);
	cl_device_type type = 0;
	cl_device_fp_config fp = 0;
	device_text(dev, CL_DEVICE_NAME, info->name, sizeof(info->name));
	device_text(dev, CL_DEVICE_VERSION, info->version, sizeof(info->version));
	device_text(dev, CL_DRIVER_VERSION, info->driver, sizeof(info->driver));
	clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp), &fp, NULL);
	platform_text(p, CL_PLATFORM_NAME, info->platform_name, sizeof(info->platform_name));
	info->gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
	info->fp64 = fp != 0;
	fill_identity(dev, info);
}

const char *clx_limit_cause(int e, char *buf, size_t len)
{
	struct rlimit rl;
	if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "too many open files (ulimit -n %llu)", (unsigned long long)rl.rlim_cur);
	else if (e == EMFILE || e == ENFILE)
		snprintf(buf, len, "%s", strerror(e));
	else if (e == ENOMEM && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "out of memory (ulimit -v %llu)", (unsigned long long)rl.rlim_cur / 1024);
	else if (e == ENOMEM)
		snprintf(buf, len, "out of memory");
	else
		return NULL;
	return buf;
}

/* A limit that leaves this process no descriptor or no memory right now, or NULL. */
static const char *limit_now(char *buf, size_t len)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	return clx_limit_cause(errno, buf, len);
}

/* The ICD files in dir, the way the ICD loader reads them: each names a vendor library, which
 * is loaded once (and closed) to find why the runtime did not load. Returns the number of ICDs
 * seen, or -1 with err set when opening a file or a library failed for a reason to report. */
static int walk_icds(const char *dir, cl_int rc, char *err, size_t errlen)
{
	char cause[96];
	DIR *d = opendir(dir);
	if (!d && clx_limit_cause(errno, cause, sizeof(cause))) {
		snprintf(err, errlen, "cannot open the OpenCL runtime: %s", cause);
		return -1;
	}
	if (!d)
		return 0; /* no such directory: nothing installed */
	int icds = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".icd") != 0)
			continue;
		char path[PATH_MAX], lib[PATH_MAX] = "";
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "re");
		if (!f && clx_limit_cause(errno, cause, sizeof(cause))) {
			snprintf(err, errlen, "cannot open the OpenCL runtime: %s", cause);
			icds = -1;
			break;
		}
		if (!f)
			continue; /* unreadable: the loader skips it too */
		if (!fgets(lib, sizeof(lib), f))
			lib[0] = '\0';
		fclose(f);
		lib[strcspn(lib, "\r\n")] = '\0';
		if (!lib[0])
			continue;
		icds++;
		errno = 0;
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			int why_errno = errno;
			const char *dl = dlerror();
			/* dlopen does not promise errno: a limit shows in its text ("failed to map
			 * segment" under ulimit -v, or the errno's own text). */
			if (dl && (strstr(dl, "failed to map segment") || strstr(dl, strerror(ENOMEM))))
				why_errno = ENOMEM;
			else if (dl && strstr(dl, strerror(EMFILE)))
				why_errno = EMFILE;
			const char *why = clx_limit_cause(why_errno, cause, sizeof(cause));
			snprintf(err, errlen,
			         "the OpenCL runtime failed to load (clGetPlatformIDs: %s): %s%s%s",
			         clx_err(rc), why ? why : "", why ? ": " : "", dl ? dl : lib);
			icds = -1;
			break;
		}
		dlclose(h);
	}
	closedir(d);
	return icds;
}

/* Why the OpenCL runtime gave no platform. A resource limit comes first: under a low ulimit -n
 * the loader cannot open its directory or files and finds nothing, which must not read as
 * nothing installed. Then a vendor library that does not load (dlerror's reason), then a
 * runtime that loaded but found nothing; "none installed" only where no ICD is listed. Only
 * called after a failure: it loads each ICD once more. */
static void no_platform(cl_int rc, char *err, size_t errlen)
{
	const char *dir = getenv("OCL_ICD_VENDORS");
	struct stat st;
	if (!dir || !*dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		dir = "/etc/OpenCL/vendors";
	char cause[96];
	int icds = walk_icds(dir, rc, err, errlen);
	if (icds < 0)
		return;
	if (limit_now(cause, sizeof(cause)))
		snprintf(err, errlen, "cannot open the OpenCL runtime: %s", cause);
	else if (icds)
		snprintf(err, errlen, "the OpenCL runtime failed to initialise: clGetPlatformIDs: %s",
		         clx_err(rc));
	else
		snprintf(err, errlen,
		         "no OpenCL platform is installed (no ICD in %s: is one such as pocl-opencl-icd "
		         "installed?)",
		         dir);
}

int clx_each_device(clx_device_fn fn, void *ctx, char *err, size_t errlen)
{
	cl_uint np = 0;
	cl_int rc = clGetPlatformIDs(0, NULL, &np);
	if (rc != CL_SUCCESS || np == 0) {
		if (err)
			no_platform(rc == CL_SUCCESS ? CLX_PLATFORM_NOT_FOUND_KHR : rc, err, errlen);
		return 0;
	}
	cl_platform_id *plats = xcalloc(np, sizeof(cl_platform_id));
	clGetPlatformIDs(np, plats, NULL);
	int seen = 0;
	bool done = false;
	for (cl_uint p = 0; p < np && !done; p++) {
		cl_uint nd = 0;
		rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
		if (rc != CL_SUCCESS || nd == 0) {
			if (err && seen == 0) {
				char name[128];
				platform_text(plats[p], CL_PLATFORM_NAME, name, sizeof(name));
				snprintf(err, errlen,
				         "the OpenCL platform '%s' has no usable device: clGetDeviceIDs: %s",
				         name, clx_err(rc == CL_SUCCESS ? CL_DEVICE_NOT_FOUND : rc));
			}
			continue;
		}
		cl_device_id *devs = xcalloc(nd, sizeof(cl_device_id));
		clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
		for (cl_uint d = 0; d < nd && !done; d++) {
			struct clx_device info;
			fill(&info, plats[p], devs[d], (int)p, (int)d);
			seen++;
			done = fn(&info, ctx);
		}
		free(devs);
	}
	free(plats);
	return seen;
}

struct pick {
	int pi, di;
	struct clx_device *out;
	bool found, have_first;
	struct clx_device first;
};

static bool pick_one(const struct clx_device *d, void *ctx)
{
	struct pick *p = ctx;
	if (p->pi >= 0) {
		if (d->info.platform == p->pi && d->info.index == p->di) {
			*p->out = *d;
			p->found = true;
		}
		return p->found;
	}
	if (!p->have_first) {
		p->first = *d;
		p->have_first = true;
	}
	if (d->info.gpu) {
		*p->out = *d;
		p->found = true;
	}
	return p->found;
}

int clx_pick(int pi, int di, struct clx_device *d, char *err, size_t errlen)
{
	struct pick p = { .pi = pi, .di = di, .out = d };
	int n = clx_each_device(pick_one, &p, err, errlen);
	if (n == 0)
		return CLX_NO_RUNTIME;
	if (!p.found && pi < 0 && p.have_first) {
		*d = p.first;
		p.found = true;
	}
	if (!p.found) {
		snprintf(err, errlen, "--device: no device %d:%d (see --list-devices)", pi, di);
		return CLX_NO_DEVICE;
	}
	return 0;
}

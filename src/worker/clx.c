/* clx.c: OpenCL error names, the devices, the program's source and build (clx.h). */
#include "clx.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"

#define CLX_PLATFORM_NOT_FOUND_KHR (-1001) /* cl_khr_icd: the ICD loader found no platform */

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

/* One OpenCL query that returns bytes of a size not known in advance. A buffer too small is
 * CL_INVALID_VALUE, never a shorter answer, so the size is always asked first. */
struct clx_query {
	enum { Q_DEVICE, Q_PLATFORM, Q_PROGRAM, Q_BUILD, Q_KERNEL_ARG } kind;
	const void *obj;      /* the cl_device_id, cl_platform_id, cl_program or cl_kernel */
	cl_device_id dev;     /* Q_BUILD */
	cl_uint param, index; /* index: Q_KERNEL_ARG's argument */
};

static cl_int query_raw(const struct clx_query *q, size_t size, void *value, size_t *ret)
{
	switch (q->kind) {
	case Q_DEVICE:
		return clGetDeviceInfo((cl_device_id)q->obj, q->param, size, value, ret);
	case Q_PLATFORM:
		return clGetPlatformInfo((cl_platform_id)q->obj, q->param, size, value, ret);
	case Q_PROGRAM:
		return clGetProgramInfo((cl_program)q->obj, q->param, size, value, ret);
	case Q_BUILD:
		return clGetProgramBuildInfo((cl_program)q->obj, q->dev, q->param, size, value, ret);
	case Q_KERNEL_ARG:
		return clGetKernelArgInfo((cl_kernel)q->obj, q->index, q->param, size, value, ret);
	}
	return CL_INVALID_VALUE;
}

/* The query's string, whole and NUL-terminated, to free; NULL with *rc set when it fails. */
static char *query_string(const struct clx_query *q, cl_int *rc)
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

/* The query's string into out[0..len): whole, or -1 (rc CL_SUCCESS) when it does not fit. */
static int query_into(const struct clx_query *q, char *out, size_t len, cl_int *rc)
{
	char *s = query_string(q, rc);
	int fits = s && strlen(s) < len;
	if (fits)
		memcpy(out, s, strlen(s) + 1);
	free(s);
	return fits ? 0 : -1;
}

/* A device's or platform's text, for display: whole when it fits the field, else cut (with
 * "..."), never left empty because it was long. */
static void info_text(const struct clx_query *q, char *out, size_t len)
{
	cl_int rc;
	char *s = query_string(q, &rc);
	out[0] = '\0';
	if (s && strlen(s) >= len && len > 4)
		snprintf(out, len, "%.*s...", (int)(len - 4), s);
	else if (s)
		str_copy(out, len, s);
	free(s);
}

static void device_text(cl_device_id dev, cl_uint param, char *out, size_t len)
{
	const struct clx_query q = { Q_DEVICE, dev, NULL, param, 0 };
	info_text(&q, out, len);
}

static void platform_text(cl_platform_id p, cl_uint param, char *out, size_t len)
{
	const struct clx_query q = { Q_PLATFORM, p, NULL, param, 0 };
	info_text(&q, out, len);
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
}

/* Why the OpenCL runtime gave no platform: an ICD (vendor library) that does not load says so
 * in dlerror ("failed to map segment from shared object" under a memory limit); none listed
 * means none is installed. Only called after a failure: it loads each ICD once more. */
static void no_platform(cl_int rc, char *err, size_t errlen)
{
	const char *dir = getenv("OCL_ICD_VENDORS");
	struct stat st;
	if (!dir || !*dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		dir = "/etc/OpenCL/vendors";
	DIR *d = opendir(dir);
	int icds = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".icd") != 0)
			continue;
		char path[PATH_MAX], lib[PATH_MAX] = "";
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(lib, sizeof(lib), f))
			lib[0] = '\0';
		fclose(f);
		lib[strcspn(lib, "\r\n")] = '\0';
		if (!lib[0])
			continue;
		icds++;
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			const char *why = dlerror();
			snprintf(err, errlen, "the OpenCL runtime failed to load (clGetPlatformIDs: %s): %s",
			         clx_err(rc), why ? why : lib);
			closedir(d);
			return;
		}
		dlclose(h);
	}
	if (d)
		closedir(d);
	if (icds)
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

/* The file's contents, NUL-terminated; NULL with errno set (EISDIR or EINVAL for what is not a
 * regular file). */
static char *read_file(const char *path, size_t *len)
{
	/* The type before anything is read: a FIFO must not hold the probe or a worker. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct stat st = { 0 };
	FILE *f = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0)
			buf = xreallocarray(buf, cap *= 2, 1);
	}
	int failed = ferror(f) ? EIO : 0;
	fclose(f);
	if (failed) {
		free(buf);
		errno = failed;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *device_kernel_source(char *err, size_t errlen)
{
	char dirs[3][PATH_MAX];
	int nd = 0;
	const char *env = getenv("GPUTOP_DECODE_KERNELS");
	if (env && *env)
		snprintf(dirs[nd++], PATH_MAX, "%s", env);
	const char *exe = proc_self_exe();
	if (exe) {
		char copy[PATH_MAX];
		str_copy(copy, sizeof(copy), exe);
		const char *dir = dirname(copy);
		snprintf(dirs[nd++], PATH_MAX, "%.4000s/kernels", dir);
		snprintf(dirs[nd++], PATH_MAX, "%.4000s/../share/" GD_NAME "/kernels", dir);
	}
	for (int i = 0; i < nd; i++) {
		char path[PATH_MAX + 16];
		size_t len;
		snprintf(path, sizeof(path), "%.4000s/decode.cl", dirs[i]);
		char *src = read_file(path, &len);
		if (src && len > 0 && strspn(src, " \t\r\n") < len)
			return src;
		if (src || errno != ENOENT) { /* there, but unusable: say so rather than look on */
			snprintf(err, errlen, "kernel source %s: %s", path, src ? "empty" : strerror(errno));
			free(src);
			return NULL;
		}
		if (i == 0 && env && *env)
			break; /* an explicit directory is the only one looked at */
	}
	if (env && *env)
		snprintf(err, errlen, "kernel source decode.cl not found in %s (GPUTOP_DECODE_KERNELS)",
		         dirs[0]);
	else
		snprintf(err, errlen, "kernel source decode.cl not found in %s or %s",
		         nd > 0 ? dirs[0] : "(unknown)", nd > 1 ? dirs[1] : "(unknown)");
	return NULL;
}

/* The length of the compiler's name for the source at the start of word s, when a line number
 * follows it ("<source>:3:", "/tmp/pocl/tempfile_x.cl:3:"), else 0. */
static size_t source_name(const char *s)
{
	size_t n = strcspn(s, " \t\n:");
	bool named =
	    (n == 8 && strncmp(s, "<source>", 8) == 0) || (n > 3 && strncmp(s + n - 3, ".cl", 3) == 0);
	return named && s[n] == ':' && s[n + 1] >= '0' && s[n + 1] <= '9' ? n : 0;
}

/* The build log of prog for dev: flattened onto one line (" | " between lines) for the decode
 * kernel's one-line errors, or kept line by line with the compiler's name for the source
 * replaced by file (so that "file:3:17: error" points into the user's file). */
static void build_log(cl_program prog, cl_device_id dev, const char *file, char *out, size_t len)
{
	cl_int rc;
	char *log = query_string(&(struct clx_query){ Q_BUILD, prog, dev, CL_PROGRAM_BUILD_LOG, 0 }, &rc);
	out[0] = '\0';
	if (!log)
		return;
	size_t j = 0;
	for (size_t i = 0; log[i] && j + 4 < len; i++) {
		size_t n = file && (i == 0 || strchr(" \t\n", log[i - 1])) ? source_name(log + i) : 0;
		if (n) {
			j += (size_t)snprintf(out + j, len - j, "%s", file);
			j = j < len ? j : len - 1;
			i += n - 1;
		} else if (log[i] == '\n' && !file) {
			if (j && log[i + 1])
				j += (size_t)snprintf(out + j, len - j, " | ");
		} else {
			out[j++] = log[i];
		}
	}
	while (j > 0 && (out[j - 1] == '\n' || out[j - 1] == ' '))
		j--;
	out[j] = '\0';
	free(log);
}

void clx_program_log(const struct clx_program *p, cl_device_id dev, const char *file, char *out, size_t len)
{
	build_log(p->prog, dev, file, out, len);
}

/* The compiler's own diagnostics on standard error say only "1 warning generated.": the build
 * log holds the warnings themselves, and the probe shows it (clx_program_log). Standard error
 * goes to /dev/null for the build (where it is not there already, as in the probe), holding
 * one descriptor more at most: a build under a low ulimit -n needs the others. Returns the
 * saved standard error to restore, or -1. */
static int quiet_stderr(void)
{
	struct stat st, null;
	if (fstat(STDERR_FILENO, &st) == 0 && stat("/dev/null", &null) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_rdev == null.st_rdev)
		return -1;
	fflush(stderr);
	int n = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int saved = n >= 0 ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0) : -1;
	if (saved >= 0)
		dup2(n, STDERR_FILENO);
	if (n >= 0)
		close(n);
	return saved;
}

/* Builds src for dev with opts; on failure err holds the call, the error name and the build
 * log (file: a user's source, its log kept line by line). */
static cl_program build(cl_context ctx, cl_device_id dev, const char *src, const char *opts, const char *file,
                        char *err, size_t errlen)
{
	cl_int rc;
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	if (!prog) {
		snprintf(err, errlen, "clCreateProgramWithSource: %s", clx_err(rc));
		return NULL;
	}
	int saved = quiet_stderr();
	rc = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (rc == CL_SUCCESS)
		return prog;
	char log[7168];
	build_log(prog, dev, file, log, file ? sizeof(log) : 1024);
	if (file)
		snprintf(err, errlen, "clBuildProgram: %s; the build log:\n%s", clx_err(rc),
		         log[0] ? log : "(empty)");
	else
		snprintf(err, errlen, "clBuildProgram: %s: %s", clx_err(rc),
		         log[0] ? log : "(empty build log)");
	clReleaseProgram(prog);
	return NULL;
}

/* The program's kernel names, ", "-separated (to free): every one of them. */
static char *kernel_names(cl_program prog)
{
	cl_int rc;
	char *names =
	    query_string(&(struct clx_query){ Q_PROGRAM, prog, NULL, CL_PROGRAM_KERNEL_NAMES, 0 }, &rc);
	struct gd_text t = { 0 };
	text_printf(&t, "%s", "");
	for (size_t i = 0; names && names[i]; i++)
		if (names[i] == ';')
			text_printf(&t, ", ");
		else
			text_printf(&t, "%c", names[i]);
	free(names);
	return t.p;
}

/* The kernel: --kernel-name, or the program's only one (its name in p->name). names: the
 * program's, for messages. */
static int pick_kernel_named(struct clx_program *p, const struct gd_kspec *k, const char *names, char *err,
                             size_t errlen)
{
	const char *file = k->source ? k->source : "decode.cl";
	cl_uint nk = 0;
	cl_int rc = clCreateKernelsInProgram(p->prog, 0, NULL, &nk);
	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "%s: clCreateKernelsInProgram: %s", file, clx_err(rc));
		return CLX_BUILD_FAILED;
	}
	const char *want = k->source ? k->name : "decode";
	if (!want && nk != 1) {
		if (nk == 0)
			snprintf(err, errlen, "--kernel: %s has no kernel", file);
		else
			snprintf(err, errlen,
			         "--kernel: %s has %u kernels (%s): choose one with --kernel-name", file,
			         (unsigned)nk, names);
		return CLX_BAD_KERNEL;
	}
	if (!want)
		want = names;
	if (strlen(want) >= sizeof(p->name)) { /* carried whole to every worker, or not at all */
		snprintf(err, errlen,
		         "--kernel: %s: kernel names of more than %zu characters are not supported", file,
		         sizeof(p->name) - 1);
		return CLX_BAD_KERNEL;
	}
	str_copy(p->name, sizeof(p->name), want);
	p->kern = clCreateKernel(p->prog, p->name, &rc);
	if (p->kern)
		return 0;
	if (rc == CL_INVALID_KERNEL_NAME && k->source) {
		snprintf(err, errlen, "--kernel-name: %s has no kernel '%s' (its kernels: %s)", file, p->name,
		         names);
		return CLX_BAD_KERNEL;
	}
	snprintf(err, errlen, "%s: clCreateKernel(%s): %s", file, p->name, clx_err(rc));
	return CLX_BUILD_FAILED;
}

static int pick_kernel(struct clx_program *p, const struct gd_kspec *k, char *err, size_t errlen)
{
	char *names = kernel_names(p->prog);
	int rc = pick_kernel_named(p, k, names, err, errlen);
	free(names);
	return rc;
}

/* An argument's name or type into out: the OpenCL error, or CL_SUCCESS with out "" when the
 * text does not fit (the caller refuses it by name). */
static cl_int arg_text(cl_kernel k, cl_uint i, cl_uint param, char *out, size_t len)
{
	cl_int rc;
	out[0] = '\0';
	query_into(&(struct clx_query){ Q_KERNEL_ARG, k, NULL, param, i }, out, len, &rc);
	return rc;
}

/* The kernel's argument descriptors (the program was built with -cl-kernel-arg-info). */
static int query_args(struct clx_program *p, char *err, size_t errlen)
{
	cl_uint n = 0;
	cl_int rc = clGetKernelInfo(p->kern, CL_KERNEL_NUM_ARGS, sizeof(n), &n, NULL);
	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "clGetKernelInfo(%s): %s", p->name, clx_err(rc));
		return CLX_BUILD_FAILED;
	}
	if (n > KA_MAX) {
		snprintf(err, errlen, "--kernel: kernel %s has %u arguments, more than %d", p->name,
		         (unsigned)n, KA_MAX);
		return CLX_BAD_KERNEL;
	}
	for (cl_uint i = 0; i < n; i++) {
		struct ka_desc *d = &p->desc[i];
		cl_kernel_arg_address_qualifier aq = 0;
		cl_kernel_arg_type_qualifier tq = 0;
		if ((rc = clGetKernelArgInfo(p->kern, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq,
		                             NULL)) ||
		    (rc = clGetKernelArgInfo(p->kern, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq,
		                             NULL)) ||
		    (rc = arg_text(p->kern, i, CL_KERNEL_ARG_TYPE_NAME, d->type, sizeof(d->type))) ||
		    (rc = arg_text(p->kern, i, CL_KERNEL_ARG_NAME, d->name, sizeof(d->name)))) {
			snprintf(err, errlen, "clGetKernelArgInfo(%s, %u): %s", p->name, (unsigned)i,
			         clx_err(rc));
			return CLX_BUILD_FAILED;
		}
		if (!d->type[0] || !d->name[0]) {
			snprintf(err, errlen,
			         "--kernel: kernel %s, argument %u: names of more than %zu characters are "
			         "not supported",
			         p->name, (unsigned)i, sizeof(d->name) - 1);
			return CLX_BAD_KERNEL;
		}
		d->addr = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? KA_ADDR_GLOBAL
		          : aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? KA_ADDR_CONSTANT
		          : aq == CL_KERNEL_ARG_ADDRESS_LOCAL    ? KA_ADDR_LOCAL
		                                                 : KA_ADDR_PRIVATE;
		d->is_const = (tq & CL_KERNEL_ARG_TYPE_CONST) != 0;
	}
	p->nargs = (int)n;
	return 0;
}

/* The user's source: --kernel FILE, NUL-terminated; NULL with err set. */
static char *user_source(const char *file, char *err, size_t errlen)
{
	size_t len = 0;
	char *src = read_file(file, &len);
	if (src && len > 0 && strspn(src, " \t\r\n") < len)
		return src;
	snprintf(err, errlen, "--kernel %s: %s", file, src ? "empty" : strerror(errno));
	free(src);
	return NULL;
}

/* The local memory the arguments ask for, with the kernel's own, within the device's: more
 * would fail every launch (or worse, on a CPU device), so it is refused before anything runs. */
static int local_fits(const struct clx_program *p, cl_device_id dev, char *why, size_t whylen)
{
	cl_ulong limit = 0, own = 0, asked = 0;
	if (clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(limit), &limit, NULL) != CL_SUCCESS ||
	    clGetKernelWorkGroupInfo(p->kern, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(own), &own, NULL) !=
	        CL_SUCCESS)
		return 0; /* not known: the launch says it */
	for (int i = 0; i < p->nargs; i++)
		if (p->arg[i].kind == KA_LOCAL)
			asked += p->arg[i].bytes;
	if (asked == 0 || asked + own <= limit)
		return 0;
	snprintf(why, whylen,
	         "local memory of %llu bytes (%llu for the arguments, %llu the kernel's own) is more "
	         "than the device's %llu",
	         (unsigned long long)asked + (unsigned long long)own, (unsigned long long)asked,
	         (unsigned long long)own, (unsigned long long)limit);
	return -1;
}

enum gd_dtype clx_child_dtype(enum gd_dtype asked)
{
	return asked == GD_DT_F32 ? GD_DT_F32 : GD_DT_F64;
}

int clx_program_build(cl_context ctx, const struct clx_device *d, const struct gd_kspec *k,
                      enum gd_dtype dtype, struct clx_program *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	char *src = k->source ? user_source(k->source, err, errlen) : device_kernel_source(err, errlen);
	if (!src)
		return CLX_BUILD_FAILED;
	/* The decode kernel's element type matches the host buffers exactly (kernels/decode.cl). */
	const char *real = k->source ? NULL : gd_dtype_info(dtype)->define;
	/* Options of any length: the run header shows them whole, so they are passed whole. */
	struct gd_text opts = { 0 };
	text_printf(&opts, "%s%s-cl-kernel-arg-info %s", real ? real : "", real ? " " : "",
	            k->build_options ? k->build_options : "");
	char why[7680];
	p->prog = build(ctx, d->id, src, opts.p, k->source, why, sizeof(why));
	free(opts.p);
	free(src);
	if (!p->prog) {
		if (k->source)
			snprintf(err, errlen, "--kernel %s does not build on %s: %s", k->source, d->info.name,
			         why);
		else
			snprintf(err, errlen, "the decode kernel does not build on %s: %.800s", d->info.name,
			         why);
		return CLX_BUILD_FAILED;
	}
	int rc = pick_kernel(p, k, err, errlen);
	if (!rc)
		rc = query_args(p, err, errlen);
	if (!rc && (kargs_plan(p->desc, p->nargs, k->args, k->nargs, k->size, p->arg, why, sizeof(why)) ||
	            local_fits(p, d->id, why, sizeof(why)))) {
		snprintf(err, errlen, "--kernel %s, kernel %s: %s", k->source ? k->source : "decode.cl",
		         p->name, why);
		rc = CLX_BAD_KERNEL;
	}
	return rc;
}

void clx_program_free(struct clx_program *p)
{
	if (p->kern)
		clReleaseKernel(p->kern);
	if (p->prog)
		clReleaseProgram(p->prog);
	p->kern = NULL;
	p->prog = NULL;
}

int clx_set_fixed_args(const struct clx_program *p, cl_kernel k, const cl_mem *once, char *err, size_t errlen)
{
	for (int i = 0; i < p->nargs; i++) {
		const struct ka_setup *a = &p->arg[i];
		cl_int rc = CL_SUCCESS;
		if (a->kind == KA_SCALAR)
			rc = clSetKernelArg(k, (cl_uint)i, a->bytes, a->value);
		else if (a->kind == KA_LOCAL)
			rc = clSetKernelArg(k, (cl_uint)i, a->bytes, NULL);
		else if (once[i])
			rc = clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &once[i]);
		if (rc != CL_SUCCESS) {
			snprintf(err, errlen, "clSetKernelArg(%s): %s", p->desc[i].name, clx_err(rc));
			return -1;
		}
	}
	return 0;
}

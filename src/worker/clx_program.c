/* clx_program.c: the program a run measures: its source (decode.cl or the user's), its build
 * and build log, its kernel, and the plan and setting of its arguments (clx.h). */
#include "clx.h"

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
	char *log =
	    clx_query_string(&(struct clx_query){ CLX_Q_BUILD, prog, dev, CL_PROGRAM_BUILD_LOG, 0 }, &rc);
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
	char *names = clx_query_string(
	    &(struct clx_query){ CLX_Q_PROGRAM, prog, NULL, CL_PROGRAM_KERNEL_NAMES, 0 }, &rc);
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

/* The query's string into out[0..len): whole, or -1 (rc CL_SUCCESS) when it does not fit. */
static int query_into(const struct clx_query *q, char *out, size_t len, cl_int *rc)
{
	char *s = clx_query_string(q, rc);
	int fits = s && strlen(s) < len;
	if (fits)
		memcpy(out, s, strlen(s) + 1);
	free(s);
	return fits ? 0 : -1;
}

/* An argument's name or type into out: the OpenCL error, or CL_SUCCESS with out "" when the
 * text does not fit (the caller refuses it by name). */
static cl_int arg_text(cl_kernel k, cl_uint i, cl_uint param, char *out, size_t len)
{
	cl_int rc;
	out[0] = '\0';
	query_into(&(struct clx_query){ CLX_Q_KERNEL_ARG, k, NULL, param, i }, out, len, &rc);
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

/* The kernel's local memory within the device's: its own (__local arrays it declares,
 * CL_KERNEL_LOCAL_MEM_SIZE, asked before any argument is set) and what --arg gives its local
 * pointers. More fails every launch, or on a CPU device ends the process on the runtime's
 * assertion, so it is refused before anything runs, a kernel without local arguments too. */
static int local_fits(const struct clx_program *p, const struct clx_device *d, char *why, size_t whylen)
{
	cl_ulong limit = 0, own = 0, asked = 0;
	if (clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(limit), &limit, NULL) != CL_SUCCESS ||
	    clGetKernelWorkGroupInfo(p->kern, d->id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(own), &own, NULL) !=
	        CL_SUCCESS)
		return 0; /* not known: the launch says it */
	for (int i = 0; i < p->nargs; i++)
		if (p->arg[i].kind == KA_LOCAL)
			asked += p->arg[i].bytes;
	if (asked + own <= limit)
		return 0;
	unsigned long long total = (unsigned long long)asked + own;
	if (asked == 0)
		snprintf(why, whylen,
		         "local memory of %llu bytes (the kernel's own) is more than the device's %llu "
		         "(CL_DEVICE_LOCAL_MEM_SIZE of %s)",
		         total, (unsigned long long)limit, d->info.name);
	else
		snprintf(why, whylen,
		         "local memory of %llu bytes (%llu for the arguments, %llu the kernel's own) is "
		         "more than the device's %llu (CL_DEVICE_LOCAL_MEM_SIZE of %s)",
		         total, (unsigned long long)asked, (unsigned long long)own, (unsigned long long)limit,
		         d->info.name);
	return -1;
}

/* A resource limit that made a build fail, into cause, or NULL: the compiler runs in this
 * process and reports a file it could not open or write by the errno's text in its log
 * ("unable to open output file ...: 'Too many open files'"), so a low ulimit -n reads as the
 * limit, not as a source that does not build. */
static const char *build_limit(const char *log, char *cause, size_t len)
{
	static const int limits[] = { EMFILE, ENFILE, ENOMEM };
	for (size_t i = 0; i < GD_ARRAY_LEN(limits); i++)
		if (strstr(log, strerror(limits[i])))
			return clx_limit_cause(limits[i], cause, len);
	return NULL;
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
		char cause[96];
		const char *limit = build_limit(why, cause, sizeof(cause));
		if (limit)
			snprintf(err, errlen, "%s%s cannot be built on %s: %s: %.800s",
			         k->source ? "--kernel " : "the decode kernel", k->source ? k->source : "",
			         d->info.name, limit, why);
		else if (k->source)
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
	            local_fits(p, d, why, sizeof(why)))) {
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

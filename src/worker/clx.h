/* clx.h (private to the worker side): OpenCL helpers: error names, queries and the devices
 * (clx_device.c); reading and building the program a run measures (clx_program.c). Only the
 * worker side's processes load OpenCL: the workers, the calibration, the device probe's child
 * and --list-devices. */
#ifndef GPUTOP_CLX_H
#define GPUTOP_CLX_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

#include "gputop/device.h"
#include "gputop/kargs.h"
#include "gputop/spec.h"

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR(-N)" for codes outside the standard. */
const char *clx_err(cl_int e);

/* One OpenCL query that returns bytes of a size not known in advance. A buffer too small is
 * CL_INVALID_VALUE, never a shorter answer, so the size is always asked first. */
struct clx_query {
	enum { CLX_Q_DEVICE, CLX_Q_PLATFORM, CLX_Q_PROGRAM, CLX_Q_BUILD, CLX_Q_KERNEL_ARG } kind;
	const void *obj;      /* the cl_device_id, cl_platform_id, cl_program or cl_kernel */
	cl_device_id dev;     /* CLX_Q_BUILD */
	cl_uint param, index; /* index: CLX_Q_KERNEL_ARG's argument */
};
/* The query's string, whole and NUL-terminated, to free; NULL with *rc set when it fails. */
char *clx_query_string(const struct clx_query *q, cl_int *rc);

/* The resource limit behind errno e, into buf ("too many open files (ulimit -n 6)", "out of
 * memory (ulimit -v 100000)"): descriptors or memory, with the process's limit where one is
 * set. NULL for any other errno. */
const char *clx_limit_cause(int e, char *buf, size_t len);

struct clx_device {
	cl_platform_id platform;
	cl_device_id id;
	struct gd_device info; /* its facts, ref included; no kernel yet */
};

/* Calls fn for each device, in P:D order, until it returns true; returns the number of devices
 * seen. With none seen, err (when not NULL) says why. */
typedef bool (*clx_device_fn)(const struct clx_device *d, void *ctx);
int clx_each_device(clx_device_fn fn, void *ctx, char *err, size_t errlen);

enum {
	CLX_NO_RUNTIME = -1, /* no platform, or none with a device: the runtime did not load or work */
	CLX_NO_DEVICE = -2,  /* devices exist, but not the one asked for */
};
/* The device P:D, or with platform < 0 the first GPU of any platform, else the first device.
 * Returns 0, or CLX_NO_RUNTIME / CLX_NO_DEVICE with a message in err. */
int clx_pick(int platform, int index, struct clx_device *d, char *err, size_t errlen);

/* Reads kernels/decode.cl: $GPUTOP_DECODE_KERNELS, next to the binary, or the install
 * prefix's share/gputop-decode/kernels; never the current directory by accident. The first
 * that exists is the one: a directory, an unreadable or an empty file there is an error.
 * Returns a string to free, or NULL with a message in err. */
char *device_kernel_source(char *err, size_t errlen);

/* The element type of a child's decode kernel: f32 when asked, else f64 (the supervisor
 * resolves auto before it starts a worker or the calibration). */
enum gd_dtype clx_child_dtype(enum gd_dtype asked);

/* The program a run measures, built for one device: the decode kernel (kernels/decode.cl) or
 * the user's (--kernel), its kernel, and how each argument is set up (kargs.h). */
struct clx_program {
	cl_program prog;
	cl_kernel kern;
	char name[KA_NAME_LEN];
	int nargs;
	struct ka_desc desc[KA_MAX];
	struct ka_setup arg[KA_MAX];
};
enum {
	CLX_BUILD_FAILED = -1, /* the source is missing or does not build (the log in err): status 1 */
	CLX_BAD_KERNEL = -2,   /* bad input: no such kernel, several, or arguments that cannot be
	                        * set up (err names them): status 2 */
};
/* The one place that reads and builds the program: k's kernel (decode.cl with elements of
 * dtype, f32 or f64, or k->source) for d, with k->build_options and -cl-kernel-arg-info, its
 * kernel chosen and its arguments planned for k->size items. 0, or CLX_BUILD_FAILED /
 * CLX_BAD_KERNEL with a message in err (a user kernel's build log keeps its lines). p is
 * cleared first; clx_program_free releases it either way. */
int clx_program_build(cl_context ctx, const struct clx_device *d, const struct gd_kspec *k,
                      enum gd_dtype dtype, struct clx_program *p, char *err, size_t errlen);
void clx_program_free(struct clx_program *p);
/* The build log of a program that built, for dev (its warnings; "" when it has none), lines
 * kept, the compiler's name for the source replaced by file. */
void clx_program_log(const struct clx_program *p, cl_device_id dev, const char *file, char *out, size_t len);
/* Sets the arguments that do not change from batch to batch: scalars and local memory, and
 * the buffers that once[i] holds (NULL where a batch's own buffer goes). */
int clx_set_fixed_args(const struct clx_program *p, cl_kernel k, const cl_mem *once, char *err,
                       size_t errlen);

#endif

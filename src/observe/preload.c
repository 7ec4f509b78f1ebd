/* preload.c: the library as an LD_PRELOAD wrapper: the program's calls to the wrapped entry
 * points land here first and go on to the next definition (the loader's, dlsym RTLD_NEXT).
 * Where the loader has also initialised the layer, the layer records and these only pass calls
 * on; where it ignores OPENCL_LAYERS (NVIDIA's CUDA-toolkit loader), these record. */
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "observe.h"

static cl_icd_dispatch real;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

/* The next definition: the one after this library in the global scope, else the loader's own.
 * A loader that a module pulled in with RTLD_LOCAL (Python's extension modules are loaded so) is
 * not in the global scope, yet the module's calls still land here first. */
static void *next_sym(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f)
		return f;
	static void *loader;
	if (!loader)
		loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!loader)
		loader = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	return loader ? dlsym(loader, name) : NULL;
}

#define RESOLVE(field) (*(void **)&real.field = next_sym(#field))

static void resolve(void)
{
	RESOLVE(clGetPlatformIDs); /* the device's P:D (obs_queue_device) */
	RESOLVE(clGetDeviceIDs);
	RESOLVE(clGetDeviceInfo);
#define OBS_ENTRY(ret, name, fn, fail, params, args) RESOLVE(name);
#include "entry_points.h"
	/* Used by the recorder itself. */
	RESOLVE(clRetainEvent);
	RESOLVE(clReleaseEvent);
	RESOLVE(clGetImageInfo);     /* an image's bytes */
	RESOLVE(clGetMemObjectInfo); /* a migration's bytes */
}

/* The next definitions, or NULL where the entry point has none (no libOpenCL loaded): the
 * program then gets the error it would get from a loader without that entry point. */
static const cl_icd_dispatch *nx(void)
{
	pthread_once(&resolved, resolve);
	return &real;
}

/* The exported symbol of each entry point: records unless the layer does, and passes the call on
 * where it does. obs_depth tells the layer, should the loader reach it from inside this call,
 * that the call is recorded already. */
#define OBS_ENTRY(ret, name, fn, fail, params, args) \
	OBS_EXPORT ret CL_API_CALL name params       \
	{                                            \
		const cl_icd_dispatch *nx_ = nx();   \
		if (!nx_->name)                      \
			return fail;                 \
		if (obs_layer_active())              \
			return nx_->name args;       \
		obs_depth++;                         \
		ret rc_ = fn(nx_, OBS_UNWRAP args);  \
		obs_depth--;                         \
		return rc_;                          \
	}
#include "entry_points.h"

/* _exit skips the destructors (Python's multiprocessing children end with os._exit): the batch
 * each queue completed last would stay unpublished. */
OBS_EXPORT void _exit(int status)
{
	static void (*real_exit)(int);
	obs_flush(true); /* the runtime is still there: nothing has been torn down */
	if (!real_exit)
		*(void **)&real_exit = dlsym(RTLD_NEXT, "_exit");
	if (real_exit)
		real_exit(status);
	for (;;) /* never: libc has _exit */
		;
}

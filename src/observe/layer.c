/* layer.c: the library as an OpenCL loader layer (cl_loader_layers: OPENCL_LAYERS names it). The
 * loader hands over the dispatch table of what comes after the layer and takes ours: a copy of
 * it with the wrapped entry points replaced. This path sees calls made through any libOpenCL
 * handle, those of programs that dlopen the loader included, which LD_PRELOAD cannot. */
#include "observe.h"

#include <CL/cl_layer.h>
#include <stddef.h>
#include <string.h>

static cl_icd_dispatch next;  /* what comes after the layer */
static cl_icd_dispatch table; /* ours: next, with the wrapped entries replaced */
static int active;

__thread int obs_depth;

bool obs_layer_active(void)
{
	return __atomic_load_n(&active, __ATOMIC_ACQUIRE);
}

/* The layer's wrapper of each entry point (l_<name>): a call that an LD_PRELOAD wrapper of this
 * thread is recording already is passed on as it is; any other is recorded. */
#define OBS_ENTRY(ret, name, fn, fail, params, args) \
	static ret CL_API_CALL l_##name params       \
	{                                            \
		if (obs_depth > 0)                   \
			return next.name args;       \
		return fn(&next, OBS_UNWRAP args);   \
	}
#include "entry_points.h"

/* The loader's entry points into the layer: called by the loader only. */
// cppcheck-suppress unusedFunction
OBS_EXPORT cl_int CL_API_CALL clGetLayerInfo(cl_layer_info what, size_t size, void *value, size_t *size_ret)
{
	static const char name[] = "gputop-decode observe";
	const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
	const void *src = what == CL_LAYER_API_VERSION ? (const void *)&version : (const void *)name;
	size_t n = what == CL_LAYER_API_VERSION ? sizeof(version) : sizeof(name);
	if (what != CL_LAYER_API_VERSION && what != CL_LAYER_NAME)
		return CL_INVALID_VALUE;
	if (value && size < n)
		return CL_INVALID_VALUE;
	if (value)
		memcpy(value, src, n);
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

/* Our table, entry by entry: the loader may know fewer entries than these headers. */
#define ENTRIES (sizeof(cl_icd_dispatch) / sizeof(void *))
#define SET(field, fn)                                                                   \
	do {                                                                             \
		if (offsetof(cl_icd_dispatch, field) / sizeof(void *) < n && next.field) \
			table.field = fn;                                                \
	} while (0)

// cppcheck-suppress unusedFunction
OBS_EXPORT cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target,
                                          cl_uint *num_entries_ret,
                                          const cl_icd_dispatch **layer_dispatch_ret)
{
	if (!target || !num_entries_ret || !layer_dispatch_ret)
		return CL_INVALID_VALUE;
	size_t n = num_entries < ENTRIES ? num_entries : ENTRIES;
	next = *target; /* then only the n entries the loader has count */
	void **entry = (void **)&next;
	for (size_t i = n; i < ENTRIES; i++)
		entry[i] = NULL;
	table = next;
#define OBS_ENTRY(ret, name, fn, fail, params, args) SET(name, l_##name);
#include "entry_points.h"
	*num_entries_ret = (cl_uint)n;
	*layer_dispatch_ret = &table;
	__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
	obs_set_source(GD_SRC_LAYER);
	return CL_SUCCESS;
}

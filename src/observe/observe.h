/* observe.h (private to libgputop-observe.so): the recorder inside an observed program and the
 * wrappers of the OpenCL entry points it needs. Two front ends call the same wrappers: the
 * loader layer (layer.c, OPENCL_LAYERS) and the LD_PRELOAD symbols (preload.c); each hands over
 * the table of the functions that come next, so a wrapper never calls itself. */
#ifndef GPUTOP_OBSERVE_H
#define GPUTOP_OBSERVE_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <stdbool.h>
#include <stdint.h>

#include "gputop/wire.h"

#define OBS_EXPORT __attribute__((visibility("default")))

/* What a command does, for the batch's counts and device times: runs a kernel (NDRange, Task,
 * Native: its work items), moves bytes to the device (writes, maps for writing at their unmap),
 * from it (reads, maps for reading), or within it (copies, fills, migrations, SVM copies). */
enum obs_kind { OBS_KERNEL, OBS_WRITE, OBS_READ, OBS_COPY, OBS_KINDS };

/* ---- the recorder: the process's segment (segment.c), its queues' batches (record.c) and their
 * records (publish.c) ---- */

/* Whether the queues the program creates get CL_QUEUE_PROFILING_ENABLE added (--profile full or
 * sampled, and the tool's environment present). */
bool obs_wants_profiling(void);
/* The path the calls come through; the layer, once initialised, takes over from LD_PRELOAD. */
void obs_set_source(enum gd_seg_source src);
/* A queue the program created; added: the profiling property is ours, hidden from the program;
 * own: the program asked for profiling itself (every batch of the queue is then read);
 * props[0..nprops) what the program passed (nprops 0: none, or clCreateCommandQueue). */
void obs_queue_created(cl_command_queue q, bool added, bool own, const cl_queue_properties *props,
                       size_t nprops);
/* The device of a queue the program created: the process's device (P:D, as --list-devices
 * numbers it) is its first queue's, found by queries alone and written to the segment once. */
void obs_queue_device(const cl_icd_dispatch *nx, cl_device_id dev);
/* The program is about to release a reference to q: a batch that has waited is published now,
 * its device times read (after its last wait its commands are complete). */
void obs_queue_releasing(const cl_icd_dispatch *nx, cl_command_queue q);
/* The program's last reference to q has gone: its batch is published, the queue forgotten. */
void obs_queue_released(const cl_icd_dispatch *nx, cl_command_queue q);
/* For clGetCommandQueueInfo: whether the profiling property of q is ours, and the properties
 * the program passed (*nprops 0: it passed none); props NULL: only whether it is ours. */
bool obs_queue_hidden(cl_command_queue q, cl_queue_properties *props, size_t max, size_t *nprops);

/* Before a command of kind on q: ends the queue's batch where this command starts the next one
 * (see record.c), opens one where none is open, and says whether the command's event should be
 * kept, for the batch's device times, and whether the call is to be timed (*timed: the sampler
 * measures what an added event costs). */
bool obs_cmd_begin(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind, bool *timed);
/* After it: the counts (work-items of a kernel, bytes moved) and, where kept, its event, which the
 * recorder owns from here on (an event it added, or, theirs, its own reference to the program's);
 * call_ns: how long the call took (the sampler's measure of what an added event costs). Nothing
 * is counted when rc is an error. */
void obs_cmd_end(const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind, uint64_t amount,
                 cl_event ev, bool theirs, cl_int rc, int64_t call_ns);
/* A map for writing of bytes at ptr (of mem; NULL for SVM) has succeeded: its unmap moves them. */
void obs_map_note(cl_mem mem, const void *ptr, uint64_t bytes);
/* The bytes the unmap of ptr (of mem) moves to the device, forgetting the map; 0 for a map for
 * reading or one not seen. */
uint64_t obs_unmap_bytes(cl_mem mem, const void *ptr);
/* clGetEventInfo's CL_EVENT_REFERENCE_COUNT of the program's event e, less the references the
 * recorder holds on it: the count the program would read alone. */
cl_int obs_event_refcount(const cl_icd_dispatch *nx, cl_event e, size_t size, void *value, size_t *size_ret);
/* A host wait on the queues qs[0..n) has returned: their batches may end here. counted: the
 * program blocked for it (clFinish, clWaitForEvents, a blocking command: the log's waits); not:
 * it learned of the completion otherwise (a status it polled, a callback). */
void obs_wait(const cl_command_queue *qs, size_t n, bool counted);
/* A CL_COMPLETE callback of the program's on an event of q has been called: as a wait that is
 * not counted, but from a runtime thread, which must never block on the recorder (deferred to
 * the next call or tick when the recorder is busy). */
void obs_callback_wait(cl_command_queue q);

/* At exit (normal, or _exit through LD_PRELOAD): publishes every queue's batch, with the device
 * times of its commands where they have completed (read), or without reading anything (the
 * runtime may be gone). */
void obs_flush(bool read);

/* ---- calls.c: the recording functions, one per entry point of entry_points.h, calling what
 * comes next through nx ---- */

/* A parenthesised list without its parentheses: OBS_UNWRAP (a, b) is a, b. */
#define OBS_UNWRAP(...) __VA_ARGS__

#define OBS_ENTRY(ret, name, fn, fail, params, args) ret fn(const cl_icd_dispatch *nx, OBS_UNWRAP params);
#include "entry_points.h"

/* ---- layer.c ---- */

/* True once the loader has initialised the layer: the LD_PRELOAD symbols then only pass calls on. */
bool obs_layer_active(void);
/* Calls of this thread already inside a recording wrapper: the layer passes them on (the
 * LD_PRELOAD wrapper that called into the loader records them). */
extern __thread int obs_depth;

#endif

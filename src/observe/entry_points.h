/* entry_points.h (private to libgputop-observe.so): the one list of the OpenCL entry points the
 * library wraps. Each file that needs them defines OBS_ENTRY, includes this file, and gets one
 * expansion per entry point: observe.h the recording functions' declarations, layer.c the
 * layer's wrappers and its dispatch table, preload.c the exported LD_PRELOAD symbols and their
 * look-up. A new entry point is one line here and its recording function in calls.c.
 *
 * OBS_ENTRY(ret, name, fn, fail, params, args):
 *   ret     what the entry point returns
 *   name    the entry point, as the OpenCL headers and cl_icd_dispatch name it
 *   fn      its recording function (calls.c): ret fn(const cl_icd_dispatch *nx, params...)
 *   fail    what the LD_PRELOAD symbol returns where no next definition exists (no libOpenCL
 *           loaded): the error a loader without that entry point would give
 *   params  the parameter list, in parentheses
 *   args    the same parameters' names, in parentheses, to pass them on
 * No include guard: every inclusion expands the list again, then OBS_ENTRY is undefined. */

OBS_ENTRY(cl_command_queue, clCreateCommandQueue, obs_create_queue, NULL,
          (cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *e), (c, d, p, e))
OBS_ENTRY(cl_command_queue, clCreateCommandQueueWithProperties, obs_create_queue_props, NULL,
          (cl_context c, cl_device_id d, const cl_queue_properties *p, cl_int *e), (c, d, p, e))
OBS_ENTRY(cl_int, clReleaseCommandQueue, obs_release_queue, CL_INVALID_COMMAND_QUEUE, (cl_command_queue q),
          (q))
OBS_ENTRY(cl_int, clGetCommandQueueInfo, obs_queue_info, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_command_queue_info w, size_t s, void *v, size_t *r), (q, w, s, v, r))
OBS_ENTRY(cl_int, clEnqueueNDRangeKernel, obs_ndrange, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off, const size_t *g, const size_t *l,
           cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, k, dim, off, g, l, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueReadBuffer, obs_read, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem b, cl_bool bl, size_t off, size_t size, void *p, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, b, bl, off, size, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueWriteBuffer, obs_write, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem b, cl_bool bl, size_t off, size_t size, const void *p, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, b, bl, off, size, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueReadBufferRect, obs_read_rect, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem b, cl_bool bl, const size_t *bo, const size_t *ho, const size_t *r,
           size_t br, size_t bs, size_t hr, size_t hs, void *p, cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueWriteBufferRect, obs_write_rect, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem b, cl_bool bl, const size_t *bo, const size_t *ho, const size_t *r,
           size_t br, size_t bs, size_t hr, size_t hs, const void *p, cl_uint nw, const cl_event *wl,
           cl_event *ev),
          (q, b, bl, bo, ho, r, br, bs, hr, hs, p, nw, wl, ev))
OBS_ENTRY(void *, clEnqueueMapBuffer, obs_map, NULL,
          (cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t off, size_t size, cl_uint nw,
           const cl_event *wl, cl_event *ev, cl_int *e),
          (q, b, bl, f, off, size, nw, wl, ev, e))
OBS_ENTRY(cl_int, clEnqueueTask, obs_task, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_kernel k, cl_uint nw, const cl_event *wl, cl_event *ev), (q, k, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueNativeKernel, obs_native, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, void(CL_CALLBACK *fn)(void *), void *a, size_t cb, cl_uint nm,
           const cl_mem *ml, const void **loc, cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, fn, a, cb, nm, ml, loc, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueReadImage, obs_read_image, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem m, cl_bool bl, const size_t *o, const size_t *r, size_t rp, size_t sp,
           void *p, cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, m, bl, o, r, rp, sp, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueWriteImage, obs_write_image, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem m, cl_bool bl, const size_t *o, const size_t *r, size_t rp, size_t sp,
           const void *p, cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, m, bl, o, r, rp, sp, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueCopyBuffer, obs_copy_buffer, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t size, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, s, d, so, dof, size, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueCopyBufferRect, obs_copy_buffer_rect, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *dof, const size_t *r,
           size_t srp, size_t ssp, size_t drp, size_t dsp, cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueCopyImage, obs_copy_image, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *dof, const size_t *r,
           cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, s, d, so, dof, r, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueCopyImageToBuffer, obs_copy_image_to_buffer, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *r, size_t dof, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, s, d, so, r, dof, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueCopyBufferToImage, obs_copy_buffer_to_image, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem s, cl_mem d, size_t so, const size_t *dof, const size_t *r, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, s, d, so, dof, r, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueFillBuffer, obs_fill_buffer, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem m, const void *pat, size_t ps, size_t off, size_t size, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, m, pat, ps, off, size, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueFillImage, obs_fill_image, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem m, const void *color, const size_t *o, const size_t *r, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, m, color, o, r, nw, wl, ev))
OBS_ENTRY(void *, clEnqueueMapImage, obs_map_image, NULL,
          (cl_command_queue q, cl_mem m, cl_bool bl, cl_map_flags f, const size_t *o, const size_t *r,
           size_t *rp, size_t *sp, cl_uint nw, const cl_event *wl, cl_event *ev, cl_int *e),
          (q, m, bl, f, o, r, rp, sp, nw, wl, ev, e))
OBS_ENTRY(cl_int, clEnqueueUnmapMemObject, obs_unmap, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_mem m, void *p, cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, m, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueMigrateMemObjects, obs_migrate, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_uint n, const cl_mem *ms, cl_mem_migration_flags f, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, n, ms, f, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueSVMMemcpy, obs_svm_memcpy, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_bool bl, void *d, const void *s, size_t size, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, bl, d, s, size, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueSVMMemFill, obs_svm_fill, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, void *p, const void *pat, size_t ps, size_t size, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, p, pat, ps, size, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueSVMMap, obs_svm_map, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_bool bl, cl_map_flags f, void *p, size_t size, cl_uint nw,
           const cl_event *wl, cl_event *ev),
          (q, bl, f, p, size, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueSVMUnmap, obs_svm_unmap, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, void *p, cl_uint nw, const cl_event *wl, cl_event *ev), (q, p, nw, wl, ev))
OBS_ENTRY(cl_int, clEnqueueSVMMigrateMem, obs_svm_migrate, CL_INVALID_COMMAND_QUEUE,
          (cl_command_queue q, cl_uint n, const void **ps, const size_t *sizes, cl_mem_migration_flags f,
           cl_uint nw, const cl_event *wl, cl_event *ev),
          (q, n, ps, sizes, f, nw, wl, ev))
OBS_ENTRY(cl_int, clFinish, obs_finish, CL_INVALID_COMMAND_QUEUE, (cl_command_queue q), (q))
OBS_ENTRY(cl_int, clWaitForEvents, obs_wait_events, CL_INVALID_EVENT, (cl_uint n, const cl_event *list),
          (n, list))
OBS_ENTRY(cl_int, clGetEventInfo, obs_event_info, CL_INVALID_EVENT,
          (cl_event e, cl_event_info w, size_t s, void *v, size_t *r), (e, w, s, v, r))
OBS_ENTRY(cl_int, clSetEventCallback, obs_event_callback, CL_INVALID_EVENT,
          (cl_event e, cl_int type, void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *ud),
          (e, type, fn, ud))
OBS_ENTRY(cl_int, clGetEventProfilingInfo, obs_event_profiling, CL_INVALID_EVENT,
          (cl_event e, cl_profiling_info w, size_t s, void *v, size_t *r), (e, w, s, v, r))

#undef OBS_ENTRY

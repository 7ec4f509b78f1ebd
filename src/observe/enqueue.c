/* enqueue.c: the recording functions of the commands a program enqueues (entry_points.h lists
 * them): kernels (NDRange, Task, Native), transfers to and from the host (buffers, rectangles,
 * images, maps by their flags), and work within the device (copies, fills, migrations, SVM).
 * Each passes the program's arguments on unchanged but for an event of the recorder's own where
 * the batch is profiled and the program asked for none (released by the recorder), and returns
 * what the call returned, errors included. Markers and barriers are not wrapped: they pass. */
#include "gputop/common.h"
#include "observe.h"
#include "recorder.h"

/* One command, from before its call to after it: whether the recorder keeps its event, the
 * program's event argument, the event of our own where it passed none, and when it began. */
struct cmd {
	enum obs_kind kind;
	bool keep, timed;
	cl_event *ev;
	cl_event mine;
	int64_t t0; /* timed calls only */
};

/* Before the call: the command opens or continues q's batch; returns the event argument to pass
 * on: the program's, or ours while the batch is profiled. */
static cl_event *begin(struct cmd *c, const cl_icd_dispatch *nx, cl_command_queue q, enum obs_kind kind,
                       cl_event *ev)
{
	c->kind = kind;
	c->keep = obs_cmd_begin(nx, q, kind, &c->timed);
	c->ev = ev;
	c->mine = NULL;
	c->t0 = c->timed ? now_ns() : 0;
	return ev ? ev : c->keep ? &c->mine : NULL;
}

/* After it: the command counted (amount: work items of a kernel, bytes of anything else) and,
 * after a successful call, the event the recorder keeps handed over to it (ours, or a reference
 * of its own to the program's); a blocking command is a host wait too. */
static void end(const struct cmd *c, const cl_icd_dispatch *nx, cl_command_queue q, uint64_t amount,
                cl_bool blocking, cl_int rc)
{
	int64_t call = c->timed ? now_ns() - c->t0 : 0;
	cl_event kept = NULL;
	if (c->keep && rc == CL_SUCCESS)
		kept = !c->ev ? c->mine : nx->clRetainEvent(*c->ev) == CL_SUCCESS ? *c->ev : NULL;
	obs_cmd_end(nx, q, c->kind, amount, kept, c->ev != NULL, rc, call);
	if (blocking && rc == CL_SUCCESS)
		obs_wait(&q, 1, true);
}

static uint64_t region_of(const size_t *region)
{
	return region ? (uint64_t)region[0] * region[1] * region[2] : 0;
}

/* An image region's bytes: its pixels times the image's element size (0 where unknown). */
static uint64_t image_bytes(const cl_icd_dispatch *nx, cl_mem image, const size_t *region)
{
	size_t elem = 0;
	if (!nx->clGetImageInfo ||
	    nx->clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof(elem), &elem, NULL))
		elem = 0;
	return region_of(region) * elem;
}

/* ---- kernels ---- */

cl_int obs_ndrange(const cl_icd_dispatch *nx, cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
                   const size_t *global, const size_t *local, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_KERNEL, ev);
	cl_int rc = nx->clEnqueueNDRangeKernel(q, k, dim, off, global, local, nw, wl, e);
	uint64_t items = 1;
	for (cl_uint d = 0; global && d < dim && d < 3; d++)
		items *= global[d];
	end(&c, nx, q, items, false, rc);
	return rc;
}

cl_int obs_task(const cl_icd_dispatch *nx, cl_command_queue q, cl_kernel k, cl_uint nw, const cl_event *wl,
                cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_KERNEL, ev);
	cl_int rc = nx->clEnqueueTask(q, k, nw, wl, e);
	end(&c, nx, q, 1, false, rc); /* one work-item */
	return rc;
}

cl_int obs_native(const cl_icd_dispatch *nx, cl_command_queue q, void(CL_CALLBACK *fn)(void *), void *args,
                  size_t cb, cl_uint nm, const cl_mem *ml, const void **loc, cl_uint nw, const cl_event *wl,
                  cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_KERNEL, ev);
	cl_int rc = nx->clEnqueueNativeKernel(q, fn, args, cb, nm, ml, loc, nw, wl, e);
	end(&c, nx, q, 1, false, rc);
	return rc;
}

/* ---- to and from the host ---- */

cl_int obs_read(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                size_t size, void *ptr, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_READ, ev);
	cl_int rc = nx->clEnqueueReadBuffer(q, b, blocking, off, size, ptr, nw, wl, e);
	end(&c, nx, q, size, blocking, rc);
	return rc;
}

cl_int obs_write(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                 size_t size, const void *ptr, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_WRITE, ev);
	cl_int rc = nx->clEnqueueWriteBuffer(q, b, blocking, off, size, ptr, nw, wl, e);
	end(&c, nx, q, size, blocking, rc);
	return rc;
}

cl_int obs_read_rect(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking,
                     const size_t *borigin, const size_t *horigin, const size_t *region, size_t brow,
                     size_t bslice, size_t hrow, size_t hslice, void *ptr, cl_uint nw, const cl_event *wl,
                     cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_READ, ev);
	cl_int rc = nx->clEnqueueReadBufferRect(q, b, blocking, borigin, horigin, region, brow, bslice, hrow,
	                                        hslice, ptr, nw, wl, e);
	end(&c, nx, q, region_of(region), blocking, rc);
	return rc;
}

cl_int obs_write_rect(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking,
                      const size_t *borigin, const size_t *horigin, const size_t *region, size_t brow,
                      size_t bslice, size_t hrow, size_t hslice, const void *ptr, cl_uint nw,
                      const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_WRITE, ev);
	cl_int rc = nx->clEnqueueWriteBufferRect(q, b, blocking, borigin, horigin, region, brow, bslice, hrow,
	                                         hslice, ptr, nw, wl, e);
	end(&c, nx, q, region_of(region), blocking, rc);
	return rc;
}

cl_int obs_read_image(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem m, cl_bool blocking,
                      const size_t *origin, const size_t *region, size_t rp, size_t sp, void *ptr, cl_uint nw,
                      const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_READ, ev);
	cl_int rc = nx->clEnqueueReadImage(q, m, blocking, origin, region, rp, sp, ptr, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? image_bytes(nx, m, region) : 0, blocking, rc);
	return rc;
}

cl_int obs_write_image(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem m, cl_bool blocking,
                       const size_t *origin, const size_t *region, size_t rp, size_t sp, const void *ptr,
                       cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_WRITE, ev);
	cl_int rc = nx->clEnqueueWriteImage(q, m, blocking, origin, region, rp, sp, ptr, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? image_bytes(nx, m, region) : 0, blocking, rc);
	return rc;
}

/* A map for reading brings its bytes to the host at the map; one for writing sends them to the
 * device at its unmap (noted here, counted there). A map command is a read of its bytes or of
 * none, for the batch's device times. */
static void mapped(cl_map_flags flags, cl_mem mem, const void *p, uint64_t bytes, cl_int rc)
{
	if (rc == CL_SUCCESS && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)))
		obs_map_note(mem, p, bytes);
}

void *obs_map(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags flags,
              size_t off, size_t size, cl_uint nw, const cl_event *wl, cl_event *ev, cl_int *err)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_READ, ev);
	cl_int rc;
	void *p = nx->clEnqueueMapBuffer(q, b, blocking, flags, off, size, nw, wl, e, &rc);
	mapped(flags, b, p, size, rc);
	end(&c, nx, q, (flags & CL_MAP_READ) ? size : 0, blocking, rc);
	if (err)
		*err = rc;
	return p;
}

void *obs_map_image(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem m, cl_bool blocking,
                    cl_map_flags flags, const size_t *origin, const size_t *region, size_t *rp, size_t *sp,
                    cl_uint nw, const cl_event *wl, cl_event *ev, cl_int *err)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_READ, ev);
	cl_int rc;
	void *p = nx->clEnqueueMapImage(q, m, blocking, flags, origin, region, rp, sp, nw, wl, e, &rc);
	uint64_t bytes = rc == CL_SUCCESS ? image_bytes(nx, m, region) : 0;
	mapped(flags, m, p, bytes, rc);
	end(&c, nx, q, (flags & CL_MAP_READ) ? bytes : 0, blocking, rc);
	if (err)
		*err = rc;
	return p;
}

cl_int obs_unmap(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem m, void *p, cl_uint nw,
                 const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_WRITE, ev);
	cl_int rc = nx->clEnqueueUnmapMemObject(q, m, p, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? obs_unmap_bytes(m, p) : 0, false, rc);
	return rc;
}

cl_int obs_svm_map(const cl_icd_dispatch *nx, cl_command_queue q, cl_bool blocking, cl_map_flags flags,
                   void *p, size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_READ, ev);
	cl_int rc = nx->clEnqueueSVMMap(q, blocking, flags, p, size, nw, wl, e);
	mapped(flags, NULL, p, size, rc);
	end(&c, nx, q, (flags & CL_MAP_READ) ? size : 0, blocking, rc);
	return rc;
}

cl_int obs_svm_unmap(const cl_icd_dispatch *nx, cl_command_queue q, void *p, cl_uint nw, const cl_event *wl,
                     cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_WRITE, ev);
	cl_int rc = nx->clEnqueueSVMUnmap(q, p, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? obs_unmap_bytes(NULL, p) : 0, false, rc);
	return rc;
}

/* ---- within the device ---- */

cl_int obs_copy_buffer(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem s, cl_mem d, size_t so,
                       size_t dof, size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueCopyBuffer(q, s, d, so, dof, size, nw, wl, e);
	end(&c, nx, q, size, false, rc);
	return rc;
}

cl_int obs_copy_buffer_rect(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem s, cl_mem d,
                            const size_t *so, const size_t *dof, const size_t *region, size_t srp, size_t ssp,
                            size_t drp, size_t dsp, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueCopyBufferRect(q, s, d, so, dof, region, srp, ssp, drp, dsp, nw, wl, e);
	end(&c, nx, q, region_of(region), false, rc);
	return rc;
}

cl_int obs_copy_image(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem s, cl_mem d, const size_t *so,
                      const size_t *dof, const size_t *region, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueCopyImage(q, s, d, so, dof, region, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? image_bytes(nx, s, region) : 0, false, rc);
	return rc;
}

cl_int obs_copy_image_to_buffer(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem s, cl_mem d,
                                const size_t *so, const size_t *region, size_t dof, cl_uint nw,
                                const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueCopyImageToBuffer(q, s, d, so, region, dof, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? image_bytes(nx, s, region) : 0, false, rc);
	return rc;
}

cl_int obs_copy_buffer_to_image(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem s, cl_mem d, size_t so,
                                const size_t *dof, const size_t *region, cl_uint nw, const cl_event *wl,
                                cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueCopyBufferToImage(q, s, d, so, dof, region, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? image_bytes(nx, d, region) : 0, false, rc);
	return rc;
}

cl_int obs_fill_buffer(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem m, const void *pat, size_t ps,
                       size_t off, size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueFillBuffer(q, m, pat, ps, off, size, nw, wl, e);
	end(&c, nx, q, size, false, rc);
	return rc;
}

cl_int obs_fill_image(const cl_icd_dispatch *nx, cl_command_queue q, cl_mem m, const void *color,
                      const size_t *origin, const size_t *region, cl_uint nw, const cl_event *wl,
                      cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueFillImage(q, m, color, origin, region, nw, wl, e);
	end(&c, nx, q, rc == CL_SUCCESS ? image_bytes(nx, m, region) : 0, false, rc);
	return rc;
}

/* A migration moves whole memory objects: their sizes (0 where one cannot be read). */
cl_int obs_migrate(const cl_icd_dispatch *nx, cl_command_queue q, cl_uint n, const cl_mem *ms,
                   cl_mem_migration_flags flags, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueMigrateMemObjects(q, n, ms, flags, nw, wl, e);
	uint64_t bytes = 0;
	for (cl_uint i = 0; rc == CL_SUCCESS && ms && nx->clGetMemObjectInfo && i < n; i++) {
		size_t size = 0;
		if (nx->clGetMemObjectInfo(ms[i], CL_MEM_SIZE, sizeof(size), &size, NULL) == CL_SUCCESS)
			bytes += size;
	}
	end(&c, nx, q, bytes, false, rc);
	return rc;
}

cl_int obs_svm_memcpy(const cl_icd_dispatch *nx, cl_command_queue q, cl_bool blocking, void *d, const void *s,
                      size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueSVMMemcpy(q, blocking, d, s, size, nw, wl, e);
	end(&c, nx, q, size, blocking, rc);
	return rc;
}

cl_int obs_svm_fill(const cl_icd_dispatch *nx, cl_command_queue q, void *p, const void *pat, size_t ps,
                    size_t size, cl_uint nw, const cl_event *wl, cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueSVMMemFill(q, p, pat, ps, size, nw, wl, e);
	end(&c, nx, q, size, false, rc);
	return rc;
}

/* SVM migration: the sizes the program gave (a size of 0, or none, is the whole allocation, which
 * the API does not tell: counted as 0). */
cl_int obs_svm_migrate(const cl_icd_dispatch *nx, cl_command_queue q, cl_uint n, const void **ps,
                       const size_t *sizes, cl_mem_migration_flags flags, cl_uint nw, const cl_event *wl,
                       cl_event *ev)
{
	struct cmd c;
	cl_event *e = begin(&c, nx, q, OBS_COPY, ev);
	cl_int rc = nx->clEnqueueSVMMigrateMem(q, n, ps, sizes, flags, nw, wl, e);
	uint64_t bytes = 0;
	for (cl_uint i = 0; sizes && i < n; i++)
		bytes += sizes[i];
	end(&c, nx, q, bytes, false, rc);
	return rc;
}

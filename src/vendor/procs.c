/* procs.c: every process on a device, as its driver lists it (vendor.h: vendor_fill_procs). A
 * process the tool shows as a row (a worker, an observed program's process) gets its memory and
 * the driver's SM share; one the tool did not start becomes an outside row: listed beside the
 * rows, never counted in device_busy or any aggregate, since the tool sees none of its kernels. */
#include "vendor.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"

#define LIST_MAX     256 /* entries of one device's list looked at */
#define ANCESTRY_MAX 64  /* parents followed to find the tool above a process */

/* Whether pid is the tool or was started by it, however deep: a worker not yet a row, the
 * calibration's child, a process of an observed program that has no segment (yet). */
static bool ours(pid_t pid, pid_t self)
{
	for (int i = 0; i < ANCESTRY_MAX && pid > 1; i++) {
		struct proc_stat st;
		if (pid == self)
			return true;
		if (!proc_stat_read(pid, &st))
			return false;
		pid = st.ppid;
	}
	return false;
}

/* /proc/PID/comm, cleaned: text from another program reaches the screen and the log. */
static void read_comm(pid_t pid, char *buf, size_t n)
{
	char path[32], raw[64];
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t len = read(fd, raw, sizeof(raw));
	close(fd);
	while (len > 0 && raw[len - 1] == '\n')
		len--;
	if (len > 0)
		gd_clean_text(buf, n, raw, (size_t)len);
}

static struct gd_sample *row_of(struct gd_frame *f, pid_t pid)
{
	for (int i = 0; i < f->nworkers; i++)
		if (f->workers[i].pid == pid)
			return &f->workers[i];
	return NULL;
}

/* A row's entry; a process listed on two devices holds the memory of both. */
static void add_to_row(struct gd_drvproc *r, const struct gd_vendor_proc *p)
{
	if (!r->listed) {
		*r = (struct gd_drvproc){ .listed = true, .mem_bytes = p->mem_bytes, .sm = p->sm_util };
		return;
	}
	r->mem_bytes += p->mem_bytes; /* NAN stays NAN */
	if (isnan(r->sm) || p->sm_util > r->sm)
		r->sm = p->sm_util;
}

static void add_outside(struct gd_frame *f, int d, const struct gd_vendor_proc *p)
{
	if (f->noutside >= GD_OUTSIDE_MAX) {
		f->noutside_more++;
		return;
	}
	struct gd_outside *o = &f->outside[f->noutside++];
	*o = (struct gd_outside){ .pid = p->pid, .device = d, .mem_bytes = p->mem_bytes, .sm = p->sm_util };
	read_comm(p->pid, o->comm, sizeof(o->comm));
}

void vendor_fill_procs(struct gd_vsource *const *src, struct gd_frame *f)
{
	static struct gd_vendor_proc list[LIST_MAX];
	pid_t self = getpid();
	f->noutside = f->noutside_more = 0;
	for (int i = 0; i < f->nworkers; i++)
		f->workers[i].drv = (struct gd_drvproc){ .listed = false, .mem_bytes = NAN, .sm = NAN };
	for (int d = 0; d < f->ndevs; d++) {
		int n = vendor_procs(src ? src[d] : NULL, list, LIST_MAX);
		f->devs[d].listed = n >= 0;
		for (int k = 0; k < n && k < LIST_MAX; k++) {
			struct gd_sample *row = list[k].pid > 0 ? row_of(f, list[k].pid) : NULL;
			if (row)
				add_to_row(&row->drv, &list[k]);
			else if (list[k].pid > 0 && !ours(list[k].pid, self))
				add_outside(f, d, &list[k]);
		}
	}
}

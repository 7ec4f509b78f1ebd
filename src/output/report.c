/* report.c: --report FILE.html (report.h). The output keeps what the page needs while the run
 * goes (each window's rate, busy and idle causes; each sweep step; the latest batch records)
 * and writes the page once, when it is closed. Charts are inline SVG (report_charts.c): a
 * handful of lines, points and rectangles, nothing a library would make shorter. */
#include "report.h"
#include "report_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/diagnose.h"

struct gd_report *report_open(int fd, bool own_fd, const char *path, const struct gd_device *devs, int ndev,
                              const char *run_json, const char *unit)
{
	struct gd_report *r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->own_fd = own_fd;
	r->path = xcalloc(1, strlen(path) + 1);
	memcpy(r->path, path, strlen(path));
	mode_t mask = umask(0);
	umask(mask);
	r->mode = 0644 & ~mask;
	str_copy(r->unit, sizeof(r->unit), unit);
	for (int d = 0, n = 0; d < ndev && n < (int)sizeof(r->device); d++)
		n += snprintf(r->device + n, sizeof(r->device) - (size_t)n, "%s%s %s", d ? ", " : "",
		              devs[d].ref, devs[d].name);
	const char *j = run_json ? run_json : "{}";
	r->run_json = xcalloc(1, strlen(j) + 1);
	memcpy(r->run_json, j, strlen(j));
	r->ceiling = r->ceiling_4x = NAN;
	return r;
}

static void report_batch(void *self, const struct gd_row_info *w, const char *device,
                         const struct gd_rec *rec)
{
	(void)device;
	struct gd_report *r = self;
	if (!(rec->flags & GD_REC_DEVTIME) || !rec->nkiv)
		return;
	struct report_rec *k = &r->recs[r->nrecs++ % REPORT_RECS];
	k->worker = w->id;
	k->lane = gd_rec_lane(rec);
	k->estimated = (rec->flags & GD_REC_ESTIMATED) != 0;
	k->nk = rec->nkiv;
	for (uint32_t i = 0; i < rec->nkiv; i++)
		gd_rec_kiv(rec, i, k->kv[i]);
	memcpy(k->h2d, rec->h2d, sizeof(k->h2d));
	memcpy(k->d2h, rec->d2h, sizeof(k->d2h));
}

static int report_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0'; /* keeping a window cannot fail */
	struct gd_report *r = self;
	if (!f->observed)
		return 0;
	if (r->nwin == r->capwin) {
		r->capwin = r->capwin ? 2 * r->capwin : 256;
		r->win = xreallocarray(r->win, r->capwin, sizeof(*r->win));
	}
	struct report_window *w = &r->win[r->nwin++];
	w->t = f->t_s;
	w->len = f->window_s;
	w->rate = f->agg.rate;
	w->busy = f->device_busy;
	memcpy(w->idle, f->agg.idle.share, sizeof(w->idle));
	w->procs = diagnose_procs(f);
	w->cores_used = diagnose_cores_used(f, (int)sysconf(_SC_NPROCESSORS_ONLN));
	r->host_cpu = diagnose_host_cpu(f);
	if (!isnan(f->driver_util) && !isnan(f->device_busy)) {
		r->drv_busy += f->device_busy;
		r->drv_util += f->driver_util;
		r->drv_n++;
	}
	if (!isnan(f->ceiling))
		r->ceiling = f->ceiling;
	if (!isnan(f->ceiling_4x))
		r->ceiling_4x = f->ceiling_4x;
	return 0;
}

static int report_sweep_row(void *self, const struct gd_sweep_row *row, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	struct gd_report *r = self;
	if (row->rep != 0 || strcmp(row->device, "all") != 0)
		return 0; /* the steps' summaries only */
	if (r->nsteps == r->capsteps) {
		r->capsteps = r->capsteps ? 2 * r->capsteps : 16;
		r->steps = xreallocarray(r->steps, r->capsteps, sizeof(*r->steps));
	}
	r->steps[r->nsteps++] = *row;
	r->host_cpu = row->host_cpu;
	if (!isnan(row->of_ceiling) && row->of_ceiling > 0)
		r->ceiling = row->rate / row->of_ceiling;
	return 0;
}

static const char style[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:60em;padding:0 1em;color:#222}"
    "svg{width:100%;height:auto;background:#fff;display:block}code{word-break:break-all}"
    ".frame{fill:none;stroke:#888}.grid{stroke:#e6e6e6}"
    "text{font-size:11px}.yt,.yl{text-anchor:end}.xt,.xl{text-anchor:middle}text.al,text.kt{font-size:12px}"
    ".xa{text-anchor:middle}polyline{fill:none;stroke-width:2}.data line,.legend line{stroke-width:2}"
    ".measured{stroke:#1f5fa8}.predicted{stroke:#d07020;stroke-dasharray:6 4}"
    ".ideal{stroke:#888;stroke-dasharray:2 3}.ceiling{stroke:#c03030;stroke-dasharray:8 3}"
    ".point{fill:#1f5fa8}.kernel{fill:#3a8a3a}.h2d{fill:#50a0d0}.d2h{fill:#a070c0}.est{opacity:.45}"
    "table.run{border-collapse:collapse;font-size:.9em}table.run th,table.run td{text-align:left;"
    "padding:.15em .8em .15em 0;vertical-align:top}table.run th{font-weight:600;white-space:nowrap}"
    "a.data{font-size:.85em}@media print{a.data{display:none}}"
    /* A phone shows a chart at half its size: its words twice as large (the legend leaves them room). */
    "@media (max-width:600px){body{margin:.8em auto;padding:0 .5em}svg text,text.al,text.kt{font-size:18px}}";

static void page(struct gd_report *r, struct gd_text *t)
{
	text_printf(t,
	            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta "
	            "name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" GD_NAME
	            " report</title>\n<style>%s",
	            style);
	report_cause_style(t);
	text_printf(t, "</style>\n</head>\n<body>\n<h1>" GD_NAME " report</h1>\n<p>");
	report_esc(t, r->device);
	text_printf(t, "</p>\n");
	report_diagnosis(r, t);
	if (r->nsteps)
		report_scaling(r, t);
	else
		report_over_time(r, t);
	report_breakdown(r, t);
	report_timeline(r, t);
	report_options(r, t);
	text_printf(t, "</body>\n</html>\n");
}

/* Writes text to a new file beside r->path (a name nobody knows before it exists, made with
 * O_EXCL), flushed to disk, then renamed over r->path: until the page is whole on disk the
 * previous report stays as it was, whatever ends the run (SIGKILL) or fills the disk. 0, or the
 * errno with the step that failed in *step; no temporary file is left after a failure. */
static int replace_file(const struct gd_report *r, const char *text, size_t n, const char **step)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(r->path, '/');
	int dirlen = slash ? (int)(slash - r->path) + 1 : 0;
	int len = snprintf(tmp, sizeof(tmp), "%.*s.gputop-decode-report.XXXXXX", dirlen, r->path);
	*step = "create a file beside";
	if (len < 0 || (size_t)len >= sizeof(tmp))
		return ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return errno;
	int e = fchmod(fd, r->mode) != 0 ? errno : 0;
	if (!e) {
		*step = "write";
		e = write_all(fd, text, n, NULL);
	}
	if (!e && fsync(fd) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e) {
		*step = "rename a file over";
		e = rename(tmp, r->path) != 0 ? errno : 0;
	}
	if (e)
		unlink(tmp);
	return e;
}

static int report_close(void *self, char *why, size_t whylen)
{
	struct gd_report *r = self;
	struct gd_text t = { 0 };
	page(r, &t);
	const char *step = "write";
	int rc = 0, e = r->fd < 0 ? replace_file(r, t.p, t.n, &step) : write_all(r->fd, t.p, t.n, NULL);
	if (e) {
		snprintf(why, whylen, "--report: cannot %s '%s': %s", step, r->path, strerror(e));
		rc = -1;
	}
	if (r->own_fd && close(r->fd) != 0 && !rc) {
		snprintf(why, whylen, "--report: cannot close '%s'", r->path);
		rc = -1;
	}
	free(t.p);
	free(r->path);
	free(r->run_json);
	free(r->win);
	free(r->steps);
	free(r);
	return rc;
}

const struct gd_output_ops report_output = {
	.batch = report_batch,
	.frame = report_frame,
	.sweep_row = report_sweep_row,
	.close = report_close,
};

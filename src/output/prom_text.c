/* prom_text.c: the Prometheus text of a window (prom_render, prom.h): one table of families,
 * in the order they are written, each showing a figure (measure/figures.h) in its own name,
 * type and labels, or what the run is (the info families). prom_serve.c hands the text out. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "measure/figures.h"
#include "prom.h"

/* A label's value, which may come from outside (a command name, a device's name): cleaned
 * (gd_clean_text), as in every output, then escaped as the exposition asks. A space becomes _:
 * a label value is an identifier to match on, and one with spaces is awkward in PromQL and
 * in the tools that read it ("no OpenCL calls seen" was). */
static void put_label(struct gd_text *t, const char *name, const char *v, bool first)
{
	size_t len = strlen(v);
	char *c = xmalloc(len + 1);
	gd_clean_text(c, len + 1, v, len);
	text_printf(t, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = c; *p; p++)
		text_printf(t, *p == '\\' || *p == '"' ? "\\%c" : "%c", *p == ' ' ? '_' : *p);
	text_printf(t, "\"");
	free(c);
}

/* A state as a snake_case identifier: "no OpenCL calls seen" is no_opencl_calls_seen. */
static const char *state_id(enum gd_state st, char *buf, size_t n)
{
	size_t k = 0;
	for (const char *p = gd_state_name(st); *p && k + 1 < n; p++)
		buf[k++] = (*p >= 'A' && *p <= 'Z')                                 ? (char)(*p - 'A' + 'a')
		           : ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) ? *p
		                                                                    : '_';
	buf[k] = '\0';
	return buf;
}

/* A device's stable identity, the device label: its PCI address where OpenCL gives one
 * (cl_khr_pci_bus_info, NVIDIA's query), else its UUID (cl_khr_device_uuid), else its name.
 * P:D can name another device after a driver update or a new card; these do not. */
static const char *device_id(const struct gd_device *d, char *buf, size_t n)
{
	if (d->pci[0])
		return d->pci;
	if (!d->has_uuid)
		return d->name;
	const unsigned char *u = d->uuid;
	snprintf(buf, n, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
	         u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	return buf;
}

/* The labels device (its identity) and index (its P:D) of device d of f. */
static void put_device_labels(struct gd_text *t, const struct gd_frame *f, const struct gd_device *devs,
                              int d, bool first)
{
	char buf[40];
	bool known = d >= 0 && d < f->ndevs;
	put_label(t, "device", known ? device_id(&devs[d], buf, sizeof(buf)) : "", first);
	put_label(t, "index", known ? f->devs[d].ref : "", false);
}

/* Whole values as integers (counters read exactly), others with 15 significant digits; the
 * C locale's '.' always (the dashboard takes only LC_CTYPE from the environment). */
static void put_value(struct gd_text *t, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		text_printf(t, " %.0f\n", v);
	else
		text_printf(t, " %.15g\n", v);
}

/* ---- The families: one row each, in the order they are written ----
 * Counters are the collector's (collect.h, gd_counters): sums of the windows' figures since the
 * tool started, never reset, so rate() over them gives the log's rates and shares. Gauges are
 * what is a state: the worker's state and identity, live workers, the ceiling, the headroom,
 * the diagnosis, the window. */

/* What samples a family has. A row's families have a sample per series (prom_series: a
 * worker's, labels worker, device, index; an observed copy's, labels copy, device, index). */
enum shape {
	PER_WORKER,    /* one sample per series */
	WORKER_INFO,   /* 1 per series, with its pid, source and command as labels */
	WORKER_STATE,  /* one sample per state: 1 for a worker's own; a copy's processes in it */
	WORKER_PHASE,  /* label phase: one sample per phase of a batch */
	PHASE_BATCHES, /* the batches whose device phases were measured */
	WORKER_GAPS,   /* a histogram per series: _bucket (label le), _sum, _count */
	PER_DEVICE,    /* labels device, index: one sample per device of the run */
	DEVICE_IDLE,   /* label cause besides: the device's idle share by cause, a figure each */
	DEVICE_INFO,   /* 1 per device, with its name and platform as labels */
	BUILD_INFO,    /* 1, with the version, the OpenCL platform and driver as labels */
	PER_RUN,       /* no label */
};

struct family {
	const char *name, *type;
	enum shape shape;
	const struct gd_figure *fig; /* what it shows (DEVICE_IDLE: the first cause's); NULL: info */
	/* NULL: the figure's help (help_device for a device's where it has one). Set where the
	 * family says more than its figure: the info families, the state set, the causes together,
	 * the ceiling in its base unit. */
	const char *help;
};

#define FIG(x) .fig = GD_FIGURE(x)

static const struct family families[] = {
	{ "gputop_decode_build_info", "gauge", BUILD_INFO,
	  .help =
	      "The tool's version, and the OpenCL platform and driver of the run's first device; always 1." },
	{ "gputop_decode_worker_info", "gauge", WORKER_INFO,
	  .help = "A worker's, or an observed copy's, process id, source (worker, or observed: a copy of "
	          "-- COMMAND with the processes it started) and command name; always 1." },
	{ "gputop_decode_worker_state", "gauge", WORKER_STATE, FIG(STATE),
	  .help = "A worker: 1 for its current state, 0 for the others. An observed copy: how many of its "
	          "processes are in each state." },
	{ "gputop_decode_symbols_total", "counter", PER_WORKER, FIG(SYMBOLS_TOTAL) },
	{ "gputop_decode_batches_total", "counter", PER_WORKER, FIG(BATCHES_TOTAL) },
	{ "gputop_decode_lost_records_total", "counter", PER_WORKER, FIG(LOST_TOTAL) },
	{ "gputop_decode_kernel_seconds_total", "counter", PER_WORKER, FIG(KERNEL_S_TOTAL) },
	{ "gputop_decode_phase_seconds_total", "counter", WORKER_PHASE, FIG(PHASE_S_TOTAL),
	  .help = "Time the batches spent in each phase, each batch's measured time summed: gen for "
	          "every batch, the device's phases for the batches profiled "
	          "(gputop_decode_phase_batches_total)." },
	{ "gputop_decode_phase_batches_total", "counter", PHASE_BATCHES,
	  .help = "Batches whose device phases (h2d, kernel, d2h, queue_wait, other) were measured: "
	          "profiled, not estimated; every batch under --profile full." },
	{ "gputop_decode_gap_kernel_seconds", "histogram", WORKER_GAPS, FIG(GAP_KERNEL_HIST) },
	{ "gputop_decode_gap_batch_seconds", "histogram", WORKER_GAPS, FIG(GAP_BATCH_HIST) },
	{ "gputop_decode_batch_overlap_seconds_total", "counter", PER_WORKER, FIG(BATCH_OVERLAP_S_TOTAL) },
	{ "gputop_decode_profile_period_batches", "gauge", PER_WORKER, FIG(SAMPLE_EVERY) },
	{ "gputop_decode_device_info", "gauge", DEVICE_INFO,
	  .help = "The OpenCL device, by name and platform (a space written _); always 1." },
	{ "gputop_decode_workers", "gauge", PER_DEVICE, FIG(PROCS) },
	{ "gputop_decode_device_symbols_total", "counter", PER_DEVICE, FIG(SYMBOLS_TOTAL) },
	{ "gputop_decode_device_batches_total", "counter", PER_DEVICE, FIG(BATCHES_TOTAL) },
	{ "gputop_decode_device_lost_records_total", "counter", PER_DEVICE, FIG(LOST_TOTAL) },
	{ "gputop_decode_device_busy_seconds_total", "counter", PER_DEVICE, FIG(BUSY_S_TOTAL) },
	{ "gputop_decode_device_idle_ratio", "gauge", DEVICE_IDLE, FIG(IDLE_HOST),
	  .help = "Share of the latest window in which no kernel ran on the device, by cause (host, "
	          "transfer, launch, wait, other); the causes add up to 1 - device busy." },
	{ "gputop_decode_ceiling_symbols_per_second", "gauge", PER_DEVICE, FIG(CEILING),
	  .help = "The device's ceiling in symbols per second, as measured by --calibrate or the c key." },
	{ "gputop_decode_ceiling_4x_symbols_per_second", "gauge", PER_DEVICE, FIG(CEILING_4X) },
	{ "gputop_decode_headroom_symbols_per_second", "gauge", PER_DEVICE, FIG(HEADROOM) },
	/* What the device's vendor library says (src/vendor/), beside the union above: samples only
	 * where a library answers for the device. The driver keeps no counter of these: each is
	 * its own share of the window, or the memory at its end. */
	{ "gputop_decode_driver_utilization_ratio", "gauge", PER_DEVICE, FIG(DRIVER_UTIL),
	  .help = "Share of the latest window the driver calls the device busy, as nvidia-smi's "
	          "utilization.gpu: any kernel of any process running in its sample period." },
	{ "gputop_decode_sm_active_ratio", "gauge", PER_DEVICE, FIG(SM_ACTIVE) },
	{ "gputop_decode_sm_occupancy_ratio", "gauge", PER_DEVICE, FIG(SM_OCCUPANCY) },
	{ "gputop_decode_memory_used_bytes", "gauge", PER_DEVICE, FIG(MEM_USED_BYTES) },
	{ "gputop_decode_window_seconds", "gauge", PER_RUN, FIG(WINDOW_S) },
	{ "gputop_decode_window_end_timestamp_seconds", "gauge", PER_RUN, FIG(UNIX_S) },
	{ "gputop_decode_window_observed", "gauge", PER_RUN, FIG(OBSERVED) },
};

static const char *family_help(const struct family *m)
{
	if (m->help)
		return m->help;
	if (!m->fig)
		return "";
	return m->shape == PER_DEVICE && m->fig->help_device ? m->fig->help_device : m->fig->help;
}

/* A figure's value in Prometheus's base units: a rate in symbols per second. */
static double base_units(const struct gd_figure *fig, double v)
{
	return fig->unit == GD_UNIT_RATE ? v * 1e6 : v;
}

/* What a row's sample is written with: the text, the frame and its devices, the series. */
struct row_at {
	struct gd_text *t;
	const struct gd_frame *f;
	const struct gd_device *devs;
	const struct prom_series *r;
	struct gd_fig_at at; /* the series' sample, for the figures */
};

/* Opens a series' sample, NAME SUFFIX{ with its labels: worker or copy (its id), and its
 * device's. The caller adds labels of its own, then closes it (end_sample). The pid is
 * gputop_decode_worker_info's alone, so a series is one worker's or copy's, whatever its
 * processes. */
static void begin_row(const struct row_at *w, const char *name, const char *suffix)
{
	char id[16];
	snprintf(id, sizeof(id), "%u", w->r->s->id);
	text_printf(w->t, "%s%s{", name, suffix);
	put_label(w->t, w->r->copy ? "copy" : "worker", id, true);
	put_device_labels(w->t, w->f, w->devs, w->r->s->device, false);
}

/* Opens a device's sample, NAME{ with its labels device and index; closed as a row's. */
static void begin_device(struct gd_text *t, const char *name, const struct gd_frame *f,
                         const struct gd_device *devs, int d)
{
	text_printf(t, "%s{", name);
	put_device_labels(t, f, devs, d, true);
}

static void end_sample(struct gd_text *t, double v)
{
	text_printf(t, "}");
	put_value(t, v);
}

/* One sample of a series with one label of its own (none where they are NULL). */
static void row_sample(const struct row_at *w, const char *name, const char *suffix, const char *label,
                       const char *value, double v)
{
	begin_row(w, name, suffix);
	if (label && value)
		put_label(w->t, label, value, false);
	end_sample(w->t, v);
}

static bool device_times(const struct row_at *w)
{
	return !isnan(figure_value(GD_FIGURE(KERNEL_S_TOTAL), &w->at));
}

/* A series' histogram: cumulative buckets at the fixed bounds (stats.h), +Inf, sum, count.
 * Only where device times are measured (not under --profile off): no gap is measured there. */
static int put_gaps(const struct row_at *w, const struct family *m)
{
	const struct gd_gaps *g = figure_gaps(m->fig, w->r->s);
	if (!device_times(w))
		return 0;
	uint64_t below = 0;
	for (int i = 0; i <= GD_HIST_BOUNDS; i++) {
		char le[32];
		below += g->le[i];
		if (i < GD_HIST_BOUNDS)
			snprintf(le, sizeof(le), "%.15g", (double)stats_hist_bounds[i] * 1e-9);
		else
			snprintf(le, sizeof(le), "+Inf");
		row_sample(w, m->name, "_bucket", "le", le, (double)below);
	}
	row_sample(w, m->name, "_sum", NULL, NULL, (double)g->sum_ns * 1e-9);
	row_sample(w, m->name, "_count", NULL, NULL, (double)g->n);
	return GD_HIST_BOUNDS + 3;
}

/* The state set: a worker's own state 1, the others 0; a copy's processes in each. */
static int put_states(const struct row_at *w, const struct family *m)
{
	char id[32];
	for (int st = 0; st < GD_ST_COUNT; st++) {
		double v = w->r->copy ? w->r->nstate[st] : figure_value(m->fig, &w->at) == st;
		row_sample(w, m->name, "", "state", state_id((enum gd_state)st, id, sizeof(id)), v);
	}
	return GD_ST_COUNT;
}

/* The samples of one series for family m; returns how many. */
static int put_row(const struct row_at *w, const struct family *m)
{
	int n = 0;
	switch (m->shape) {
	case PER_WORKER: {
		double v = base_units(m->fig, figure_value(m->fig, &w->at));
		if (!isfinite(v))
			return 0; /* not measured: no sample */
		row_sample(w, m->name, "", NULL, NULL, v);
		return 1;
	}
	case WORKER_INFO: {
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)w->r->s->pid);
		begin_row(w, m->name, "");
		put_label(w->t, "pid", pid, false);
		put_label(w->t, "source", figure_text(GD_FIGURE(SOURCE), &w->at), false);
		put_label(w->t, "command", figure_text(GD_FIGURE(COMMAND), &w->at), false);
		end_sample(w->t, 1);
		return 1;
	}
	case WORKER_STATE:
		return put_states(w, m);
	case WORKER_PHASE:
		for (int p = 0; p < m->fig->n; p++) {
			double v = figure_item(m->fig, &w->at, p);
			if (isfinite(v)) {
				row_sample(w, m->name, "", "phase", gd_phase_name((enum gd_phase)p), v);
				n++;
			}
		}
		return n;
	case PHASE_BATCHES:
		if (!device_times(w))
			return 0;
		row_sample(w, m->name, "", NULL, NULL, (double)w->r->s->tot.phase_batches);
		return 1;
	case WORKER_GAPS:
		return put_gaps(w, m);
	default:
		return 0;
	}
}

/* The samples of a device family for device d of f; returns how many. */
static int put_device(struct gd_text *t, const struct family *m, const struct gd_frame *f, int d,
                      const struct gd_device *devs)
{
	const struct gd_fig_at at = { .f = f, .s = &f->devs[d].agg, .dev = &f->devs[d] };
	int n = 0;
	switch (m->shape) {
	case PER_DEVICE: {
		double v = base_units(m->fig, figure_value(m->fig, &at));
		if (!isfinite(v))
			return 0;
		begin_device(t, m->name, f, devs, d);
		end_sample(t, v);
		return 1;
	}
	case DEVICE_IDLE:
		for (int c = 0; c < GD_CAUSE_COUNT; c++) {
			const struct gd_figure *cause = m->fig + c; /* the causes' figures, in order */
			double v = figure_value(cause, &at);
			if (!isfinite(v))
				continue;
			begin_device(t, m->name, f, devs, d);
			/* the cause as the log names it, without its idle_ prefix */
			put_label(t, "cause", cause->name + strlen("idle_"), false);
			end_sample(t, v);
			n++;
		}
		return n;
	case DEVICE_INFO:
		begin_device(t, m->name, f, devs, d);
		put_label(t, "name", devs[d].name, false);
		put_label(t, "platform", devs[d].platform_name, false);
		end_sample(t, 1);
		return 1;
	default:
		return 0;
	}
}

/* The samples of one family, f's series rs[0..nrs) on devs[0..f->ndevs); returns how many. */
static int put_samples(struct gd_text *t, const struct family *m, const struct gd_frame *f,
                       const struct gd_device *devs, const struct prom_series *rs, size_t nrs)
{
	int n = 0;
	switch (m->shape) {
	case PER_WORKER:
	case WORKER_INFO:
	case WORKER_STATE:
	case WORKER_PHASE:
	case PHASE_BATCHES:
	case WORKER_GAPS:
		for (size_t i = 0; i < nrs; i++) {
			const struct row_at w = { t, f, devs, &rs[i], { .f = f, .s = rs[i].s } };
			n += put_row(&w, m);
		}
		return n;
	case PER_DEVICE:
	case DEVICE_IDLE:
	case DEVICE_INFO:
		for (int d = 0; d < f->ndevs; d++)
			n += put_device(t, m, f, d, devs);
		return n;
	case PER_RUN: {
		double v = figure_value(m->fig, &(const struct gd_fig_at){ .f = f, .s = &f->agg });
		if (!isfinite(v))
			return 0;
		text_printf(t, "%s", m->name);
		put_value(t, v);
		return 1;
	}
	case BUILD_INFO:
		text_printf(t, "%s{", m->name);
		put_label(t, "version", GD_VERSION, true);
		put_label(t, "platform", f->ndevs > 0 ? devs[0].platform_name : "", false);
		put_label(t, "driver", f->ndevs > 0 ? devs[0].driver : "", false);
		end_sample(t, 1);
		return 1;
	}
	return 0;
}

char *prom_render(const struct gd_frame *f, const struct gd_device *devs, struct prom_memory *mem,
                  size_t *len)
{
	struct gd_text t = { 0 }, family = { 0 };
	struct prom_series *rs;
	size_t nrs = prom_series_build(f, mem, &rs);
	text_printf(&t, "%s", "");
	for (size_t i = 0; i < GD_ARRAY_LEN(families); i++) {
		const struct family *m = &families[i];
		family.n = 0;
		if (put_samples(&family, m, f, devs, rs, nrs) == 0)
			continue; /* HELP and TYPE only over samples */
		text_printf(&t, "# HELP %s %s\n# TYPE %s %s\n%s", m->name, family_help(m), m->name, m->type,
		            family.p);
	}
	free(family.p);
	free(rs);
	*len = t.n;
	return t.p;
}

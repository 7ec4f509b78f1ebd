/* headless.c: the tick loop that logs samples, and the scaling sweep. */
#include "gputop/headless.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/session.h"
#include "gputop/sig.h"

/* Ids of the workers whose failure was reported, so each is reported once. */
struct reported {
	unsigned *ids;
	size_t n, cap;
};

static bool was_reported(struct reported *r, unsigned id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ids[i] == id)
			return true;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->ids = xreallocarray(r->ids, r->cap, sizeof(*r->ids));
	}
	r->ids[r->n++] = id;
	return false;
}

/* Reports each worker failure once, on standard error. */
static void report_failures(const struct gd_frame *f, struct reported *r)
{
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *w = &f->workers[i];
		if (w->state == GD_ST_FAILED && !was_reported(r, w->id))
			fprintf(stderr, GD_NAME ": worker %u (pid %d) failed: %s\n", w->id, (int)w->pid,
			        w->error);
	}
}

static int finish(struct gd_session *s, struct gd_sink *sink, int status)
{
	char why[512];
	if (session_stop(s, why, sizeof(why)) != 0) {
		fprintf(stderr, GD_NAME ": %s\n", why);
		status = GD_EXIT_FAIL;
	}
	if (sink_close(sink, why, sizeof(why)) != 0) {
		fprintf(stderr, GD_NAME ": %s\n", why);
		status = GD_EXIT_FAIL;
	}
	return status;
}

int headless_run(const struct gd_opts *o, const struct gd_device *devs, int ndev, struct gd_sink *sink,
                 struct gd_trace *trace, struct gd_prom *prom)
{
	struct gd_session s;
	char err[256];
	struct reported reported = { 0 };
	if (session_start(&s, o, devs, ndev, trace, prom, err, sizeof(err))) {
		fprintf(stderr, GD_NAME ": %s\n", err);
		return finish(&s, sink, GD_EXIT_FAIL);
	}
	int status = GD_EXIT_OK;
	while (!gd_quit_signal && !session_done(&s)) {
		int64_t now = now_ns();
		if (session_poll(&s, now)) {
			report_failures(&s.frame, &reported);
			if (sink_frame(sink, &s.frame)) {
				fprintf(stderr, GD_NAME ": %s\n", sink_error(sink));
				status = GD_EXIT_FAIL;
				break;
			}
			session_prune(&s); /* ended workers were reported once */
			continue;
		}
		sleep_ns(session_wait(&s, now));
	}
	free(reported.ids);
	return finish(&s, sink, status);
}

/* ---- sweep ---- */

/* The queues a step's workers run with: its own, or those of every worker. */
static int step_queues(const struct gd_opts *o, const struct gd_step *st)
{
	return st->queues ? st->queues : opts_queues(o);
}

/* The newest active worker on the device with the most active workers (ties: the highest
 * index), so that a step with fewer workers stays spread over the devices; -1: none. */
static int most_loaded_newest(const struct gd_session *s)
{
	int best = -1, most = 0;
	for (int d = 0; d < sup_ndevices(s->sup); d++) {
		int n = sup_active_on(s->sup, d);
		if (n > 0 && n >= most) {
			most = n;
			best = d;
		}
	}
	for (int i = sup_count(s->sup) - 1; i >= 0 && best >= 0; i--) {
		struct gd_worker_info w;
		sup_worker(s->sup, i, &w);
		if (w.active && w.device == best)
			return i;
	}
	return -1;
}

/* Starts or stops workers until n are live, each with q queues, spread over the devices: a
 * change of queues starts every worker afresh. */
static int set_workers(struct gd_session *s, int n, int q, char *err, size_t errlen)
{
	if (q != sup_queues(s->sup)) {
		for (int i = sup_newest(s->sup); i >= 0; i = sup_newest(s->sup))
			sup_stop(s->sup, i, false);
		sup_set_queues(s->sup, q);
	}
	while (sup_active(s->sup) > n)
		sup_stop(s->sup, most_loaded_newest(s), false);
	while (sup_active(s->sup) < n)
		if (sup_spawn(s->sup, -1, err, errlen) < 0)
			return -1;
	return 0;
}

/* Waits until every live worker has published a batch (or failed), plus one interval. */
static int warm_up(struct gd_session *s, int n, char *err, size_t errlen)
{
	int64_t deadline = now_ns() + 120 * GD_NS_PER_S;
	for (;;) {
		if (gd_quit_signal)
			return -1;
		int64_t now = now_ns();
		session_service(s, now);
		int ready = sup_ready(s->sup), active = sup_active(s->sup);
		if (active == n && ready == n)
			break;
		if (active < n || now > deadline) {
			const char *why = sup_first_error(s->sup);
			snprintf(err, errlen, "sweep: only %d of %d workers running%s%s", ready, n,
			         *why ? ": " : "", why);
			return -1;
		}
		sleep_ns(s->poll);
	}
	sleep_ns(s->interval);
	return 0;
}

/* One step's sums over its windows: the whole run's, or one device's. */
struct step_acc {
	double sym, busy, gap, gapw, qw, qww;
};

/* Window f's figures into a: agg holds the workers' sums, busy their device busy; the means
 * over batches come from the workers on device dev (-1: every worker). */
static void step_add(struct step_acc *a, const struct gd_frame *f, const struct gd_sample *agg, double busy,
                     int dev)
{
	a->sym += agg->rate * f->window_s;
	if (!isnan(busy))
		a->busy += busy * f->window_s;
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *w = &f->workers[i];
		if (dev >= 0 && w->device != dev)
			continue;
		if (!isnan(w->bd.gap_batch_us)) {
			a->gap += w->bd.gap_batch_us * (double)w->win_batches;
			a->gapw += (double)w->win_batches;
		}
		if (!isnan(w->bd.queue_wait_us)) {
			a->qw += w->bd.queue_wait_us * (double)w->win_batches;
			a->qww += (double)w->win_batches;
		}
	}
}

static void step_row(const struct step_acc *a, double t, double ceiling, struct gd_sweep_row *row)
{
	row->rate = t > 0 ? a->sym / t : 0;
	row->of_ceiling = row->rate / ceiling;
	row->device_busy = t > 0 ? a->busy / t : NAN;
	row->gap_batch_us = a->gapw > 0 ? a->gap / a->gapw : NAN;
	row->queue_wait_us = a->qww > 0 ? a->qw / a->qww : NAN;
	row->headroom = row->device_busy > 0 ? row->rate / row->device_busy : NAN;
}

/* Runs one sweep step: `duration` seconds of windows, averaged; row[0] is the step's, and
 * with two or more devices row[stride * (1 + d)] is device d's share of it. */
static int measure(struct gd_session *s, const struct gd_opts *o, const struct gd_step *st,
                   struct gd_sweep_row *row, size_t stride)
{
	session_restart_clock(s, now_ns());
	s->end = s->win_start + (int64_t)(o->duration * 1e9);
	double t = 0;
	struct step_acc all = { 0 }, dev[GD_DEVICES_MAX];
	memset(dev, 0, sizeof(dev));
	while (!session_done(s)) {
		if (gd_quit_signal)
			return -1;
		int64_t now = now_ns();
		if (!session_poll(s, now)) {
			sleep_ns(session_wait(s, now));
			continue;
		}
		const struct gd_frame *f = &s->frame;
		if (!f->observed)
			continue; /* the supervisor was stopped: the step's figures rest on the rest */
		t += f->window_s;
		step_add(&all, f, &f->agg, f->device_busy, -1);
		for (int d = 0; d < f->ndevs; d++)
			step_add(&dev[d], f, &f->devs[d].agg, f->devs[d].device_busy, d);
	}
	row[0].procs = st->procs;
	row[0].queues = step_queues(o, st);
	str_copy(row[0].device, sizeof(row[0].device), "all");
	step_row(&all, t, s->ceiling.rate, &row[0]);
	for (int d = 0; s->ndevs > 1 && d < s->ndevs; d++) {
		struct gd_sweep_row *r = &row[stride * (size_t)(1 + d)];
		r->procs = sup_active_on(s->sup, d);
		r->queues = row[0].queues;
		str_copy(r->device, sizeof(r->device), s->refs[d]);
		step_row(&dev[d], t, s->ceilings[d].rate, r);
	}
	return 0;
}

/* A table cell: the number, or n/a where it was not measured. */
static void cell(FILE *out, int width, int prec, double v)
{
	if (isnan(v))
		fprintf(out, " %*s", width, "n/a");
	else
		fprintf(out, " %*.*f", width, prec, v);
}

/* The columns after the speedup, the device with several, and the bar for the rate. */
static void row_tail(FILE *out, const struct gd_sweep_row *r, double max, const char *note, bool devices)
{
	int bar = max > 0 ? (int)lround(30.0 * r->rate / max) : 0;
	char bars[31];
	memset(bars, '#', (size_t)bar);
	bars[bar] = '\0';
	cell(out, 7, 1, 100 * r->device_busy);
	cell(out, 9, 1, 100 * r->of_ceiling);
	cell(out, 12, 1, r->gap_batch_us);
	cell(out, 11, 1, r->headroom);
	fprintf(out, "%s", note);
	if (devices)
		fprintf(out, "  %-6s", r->device);
	fprintf(out, "  %s\n", bars);
}

/* The sweep's text table: one line per row (a step's summary of its runs, then with several
 * devices each device's share), with a bar for the rate (Mbit/s, or Mitem/s for a user kernel:
 * unit). With more than one run, the spread of the rate and of the speedup, and the noise
 * note too. */
static void print_sweep(FILE *out, const struct gd_sweep_row *rows, int n, int runs, const char *unit)
{
	double max = 0;
	bool devices = false;
	for (int i = 0; i < n; i++) {
		max = rows[i].rate > max ? rows[i].rate : max;
		devices = devices || strcmp(rows[i].device, "all") != 0;
	}
	char last[64];
	snprintf(last, sizeof(last), "%s%s", devices ? "device  " : "", unit);
	if (runs > 1)
		fprintf(out, "%5s %6s %10s %8s %10s %10s %8s %12s %7s %9s %12s %11s %1s  %s\n", "procs",
		        "queues", unit, "sd", "min", "max", "speedup", "min..max", "busy%", "%ceiling",
		        "gap_batch_us", "headroom~", "~", last);
	else
		fprintf(out, "%5s %6s %10s %8s %7s %9s %12s %11s  %s\n", "procs", "queues", unit, "speedup",
		        "busy%", "%ceiling", "gap_batch_us", "headroom~", last);
	for (int i = 0; i < n; i++) {
		const struct gd_sweep_row *r = &rows[i];
		fprintf(out, "%5d %6d %10.2f", r->procs, r->queues, r->rate);
		if (runs > 1) {
			cell(out, 8, 2, r->mbit.sd);
			cell(out, 10, 2, r->mbit.min);
			cell(out, 10, 2, r->mbit.max);
		}
		cell(out, 7, 2, r->speedup);
		fputc(isnan(r->speedup) ? ' ' : 'x', out);
		if (runs > 1) {
			char range[32];
			snprintf(range, sizeof(range), "%.2f..%.2f", r->speedup_spread.min,
			         r->speedup_spread.max);
			fprintf(out, " %12s", isnan(r->speedup_spread.min) ? "n/a" : range);
		}
		row_tail(out, r, max, runs > 1 ? (r->within_spread == 1 ? " ~" : "  ") : "", devices);
	}
	if (runs > 1) {
		fprintf(out,
		        "%s: mean of %d runs of each step (the list run %d times over), sd, min and max; "
		        "speedup: over the first step in the same pass\n",
		        unit, runs, runs);
		fprintf(out,
		        "~: differs from the step above by less than their spread (the wider max - min): "
		        "not a measured difference\n");
	}
	fprintf(out, "headroom~ is an estimate: %s / device busy, the rate if the device never idled\n",
	        unit);
}

/* A step's summary over its k runs in run[0..k) (one row each); first holds the first step's
 * runs (for the speedup; NULL: none, as for a device's share), prev the summary of the step
 * before or NULL. */
static void summarise(const struct gd_sweep_row *run, const struct gd_sweep_row *first, int k,
                      const struct gd_sweep_row *prev, struct gd_sweep_row *sum)
{
	double v[GD_REPEAT_MAX], ratio[GD_REPEAT_MAX], f[GD_REPEAT_MAX];
	struct gd_spread sp;
	*sum = run[0];
	sum->rep = 0;
	for (int r = 0; r < k; r++) {
		v[r] = run[r].rate;
		f[r] = first ? first[r].rate : NAN;
		ratio[r] = run[r].speedup;
	}
	stats_spread(v, k, &sum->mbit);
	stats_spread(ratio, k, &sum->speedup_spread);
	stats_spread(f, k, &sp);
	sum->rate = sum->mbit.mean;
	sum->speedup = sp.mean > 0 ? sum->rate / sp.mean : NAN; /* within min..max of the runs' */
	/* The other figures: means over the runs that measured them. */
	const size_t off[] = { offsetof(struct gd_sweep_row, device_busy),
		               offsetof(struct gd_sweep_row, gap_batch_us),
		               offsetof(struct gd_sweep_row, headroom),
		               offsetof(struct gd_sweep_row, of_ceiling),
		               offsetof(struct gd_sweep_row, queue_wait_us) };
	for (size_t j = 0; j < GD_ARRAY_LEN(off); j++) {
		for (int r = 0; r < k; r++)
			memcpy(&v[r], (const char *)&run[r] + off[j], sizeof(double));
		stats_spread(v, k, &sp);
		memcpy((char *)sum + off[j], &sp.mean, sizeof(double));
	}
	sum->within_spread =
	    prev && k > 1 && prev->mbit.n > 1 ? stats_within_spread(&prev->mbit, &sum->mbit) : -1;
}

/* Writes a row to the log, if there is one; -1 after saying why. */
static int log_row(const struct gd_opts *o, struct gd_sink *sink, const struct gd_sweep_row *r)
{
	if (!o->output || !sink_sweep_row(sink, r))
		return 0;
	fprintf(stderr, GD_NAME ": %s\n", sink_error(sink));
	return -1;
}

int headless_sweep(const struct gd_opts *o, const struct gd_device *devs, int ndev, struct gd_sink *sink,
                   struct gd_trace *trace, struct gd_prom *prom)
{
	struct gd_opts so = *o;
	so.procs = 0;
	so.duration = 0; /* each step sets its own end */
	struct gd_session s;
	char err[256];
	if (session_start(&s, &so, devs, ndev, trace, prom, err, sizeof(err))) {
		fprintf(stderr, GD_NAME ": %s\n", err);
		return finish(&s, sink, GD_EXIT_FAIL);
	}
	struct gd_opts step = *o;
	step.duration = opts_duration(o);
	/* The list runs `runs` times over, so that slow drift (the machine's other load, its
	 * clocks) spreads over every step alike; speedups compare steps of the same pass. Each
	 * run gives a row for the step and, with two or more devices, one for each device's share:
	 * series k (0: the step's, 1 + d: device d's) of run[] holds [step * runs + pass], and
	 * rows[] the summaries, [step * per + k]. */
	int runs = o->repeat > 1 ? o->repeat : 1, steps = o->nsweep, total = runs * steps, done = 0;
	int per = 1 + (s.ndevs > 1 ? s.ndevs : 0);
	struct gd_sweep_row *run = xcalloc((size_t)total * (size_t)per, sizeof(*run));
	struct gd_sweep_row *rows = xcalloc((size_t)steps * (size_t)per, sizeof(*rows));
	int status = GD_EXIT_OK;
	bool log_ok = true;
	for (; done < total && status == GD_EXIT_OK; done++) {
		int pass = done / steps, i = done % steps;
		const struct gd_step *st = &o->sweep[i];
		struct gd_sweep_row *r = &run[(size_t)i * (size_t)runs + (size_t)pass];
		int n = st->procs;
		if (set_workers(&s, n, step_queues(o, st), err, sizeof(err)) ||
		    warm_up(&s, n, err, sizeof(err)) || measure(&s, &step, st, r, (size_t)total)) {
			if (!gd_quit_signal)
				fprintf(stderr, GD_NAME ": %s\n", err);
			status = GD_EXIT_FAIL;
			break;
		}
		r->speedup = run[pass].rate > 0 ? r->rate / run[pass].rate : NAN;
		char of[64] = "";
		if (runs > 1)
			snprintf(of, sizeof(of), " (run %d of %d)", pass + 1, runs);
		fprintf(stderr, GD_NAME ": sweep %d/%d: %dx%d%s, %.2f %s\n", done + 1, total, n, r->queues,
		        of, r->rate, opts_rate_unit(o));
		for (int k = 0; k < per; k++) {
			struct gd_sweep_row *rk = r + (size_t)k * (size_t)total;
			rk->rep = pass + 1;
			if (k) /* a device's share: the speedup is the step's, over every device */
				rk->speedup = NAN;
			struct gd_sweep_row *sum = &rows[i * per + k];
			if (runs == 1) /* the step's summary is its one run: logged as it completes */
				summarise(rk, k ? NULL : run, 1, NULL, sum);
			if (log_ok && log_row(o, sink, runs == 1 ? sum : rk)) {
				status = GD_EXIT_FAIL;
				log_ok = false;
			}
		}
	}
	/* With repeats, each step's summary over the passes it completed: a failed or interrupted
	 * run ends the sweep, and the summaries are still logged unless the log itself failed. */
	int nsteps = done < steps ? done : steps;
	for (int i = 0; runs > 1 && i < nsteps; i++) {
		int k = done / steps + (i < done % steps);
		for (int j = 0; j < per; j++) {
			const struct gd_sweep_row *series = run + (size_t)j * (size_t)total;
			struct gd_sweep_row *sum = &rows[i * per + j];
			summarise(&series[(size_t)i * (size_t)runs], j ? NULL : run, k,
			          i && !j ? sum - per : NULL, sum);
			if (log_ok && log_row(o, sink, sum)) {
				status = GD_EXIT_FAIL;
				log_ok = false;
			}
		}
	}
	free(run);
	if (o->kernel)
		printf("kernel %s of %s\n", o->kernel_name, o->kernel);
	print_sweep(stdout, rows, nsteps * per, runs, opts_rate_unit(o));
	fflush(stdout);
	free(rows);
	return finish(&s, sink, status);
}

/* sweep.c: the scaling sweep: each step's workers, warmed up, then measured over whole
 * windows; the runs' rows to the outputs, their summaries to the table (summary.c). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "measure/diagnose.h"
#include "headless.h"
#include "gputop/outputs.h"
#include "gputop/sig.h"
#include "output/trace.h"
#include "sweep.h"

#define WARM_UP_NS (120 * GD_NS_PER_S) /* every worker of a step has published by then */

/* Whether a step counts copies of an observed program (-- COMMAND) rather than workers. */
static bool copies(const struct gd_session *s)
{
	return session_workload(s)->kernel.observed;
}

/* The queues a step's workers run with: its own, or those of every worker. */
static int step_queues(const struct gd_session *s, const struct gd_step *st)
{
	return st->queues ? st->queues : session_workload(s)->queues;
}

/* The newest active worker on the device with the most active workers (ties: the highest
 * index), so that a step with fewer workers stays spread over the devices; -1: none. */
static int most_loaded_newest(const struct gd_session *s)
{
	int best = -1, most = 0;
	for (int d = 0; d < session_ndevs(s); d++) {
		int n = session_active_on(s, d);
		if (n > 0 && n >= most) {
			most = n;
			best = d;
		}
	}
	for (int i = session_nrows(s) - 1; i >= 0 && best >= 0; i--) {
		struct gd_row_info w = session_row(s, i);
		if (w.active && w.device == best)
			return i;
	}
	return -1;
}

/* Starts or stops workers (or copies) until n are live, each with q queues, spread over the
 * devices: a change of queues starts every worker afresh. */
static int set_workers(struct gd_session *s, int n, int q, char *err, size_t errlen)
{
	if (q != session_queues(s)) {
		for (int i = session_newest(s); i >= 0; i = session_newest(s))
			session_stop_row(s, i, false);
		session_set_queues(s, q);
	}
	while (session_active(s) > n) /* a copy's device is the program's choice */
		session_stop_row(s, copies(s) ? session_newest(s) : most_loaded_newest(s), false);
	while (session_active(s) < n)
		if (session_spawn(s, -1, err, errlen) < 0)
			return -1;
	return 0;
}

/* Waits until every live worker (every copy, through any of its processes) has published a
 * batch (or failed), plus one interval. */
static int warm_up(struct gd_session *s, int n, char *err, size_t errlen)
{
	int64_t deadline = now_ns() + WARM_UP_NS;
	for (;;) {
		if (gd_quit_signal)
			return -1;
		int64_t now = now_ns();
		session_service(s, now);
		int ready = session_ready(s), active = session_active(s);
		if (active == n && ready == n)
			break;
		if (active < n || now > deadline) {
			const char *why = session_first_error(s);
			snprintf(err, errlen, "sweep: only %d of %d %s%s%s", ready, n,
			         copies(s) ? "copies running OpenCL batches" : "workers running",
			         *why ? ": " : "", why);
			return -1;
		}
		sleep_ns(session_poll_period(s));
	}
	sleep_ns((int64_t)(session_interval(s) * 1e9));
	return 0;
}

static int host_cores(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* One step's sums over its windows: the whole run's, or one device's. rated: the windows whose
 * rate was measured (a window in which no batch completed measured none). */
struct step_acc {
	double items, busy, busyt, gap, gapw, qw, qww, cores, corest, gen, genw, batches;
	double idle[GD_CAUSE_COUNT], idlet;
	int rated;
};

/* Window f's figures into a: agg holds the workers' sums, busy their device busy, cores the
 * host cores they kept busy (NAN: not counted); the means over batches come from the workers
 * on device dev (-1: every worker). A window with no rate completed no batch: it adds no
 * items, and its busy share (not seen) counts in no mean. */
static void step_add(struct step_acc *a, const struct gd_frame *f, const struct gd_sample *agg, double busy,
                     int dev, double cores)
{
	if (!isnan(agg->rate)) {
		a->items += agg->rate * f->window_s;
		a->rated++;
	}
	if (!isnan(busy)) {
		a->busy += busy * f->window_s;
		a->busyt += f->window_s;
	}
	if (!isnan(agg->idle.share[0])) {
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			a->idle[c] += agg->idle.share[c] * f->window_s;
		a->idlet += f->window_s;
	}
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *w = &f->workers[i];
		if (dev >= 0 && w->device != dev)
			continue;
		if (!isnan(w->bd.gap_batch_us)) {
			a->gap += w->bd.gap_batch_us * (double)w->win_batches;
			a->gapw += (double)w->win_batches;
		}
		a->batches += (double)w->win_batches;
		if (!isnan(w->bd.gen_us)) {
			a->gen += w->bd.gen_us * (double)w->win_batches;
			a->genw += (double)w->win_batches;
		}
		if (!isnan(w->bd.queue_wait_us)) {
			a->qw += w->bd.queue_wait_us * (double)w->win_batches;
			a->qww += (double)w->win_batches;
		}
	}
	if (cores > 0) { /* NAN: not counted */
		a->cores += cores * f->window_s;
		a->corest += f->window_s;
	}
}

/* A step's row from its sums over t seconds of windows: not measured (NAN) where no window
 * measured it, never 0. */
static void step_row(const struct step_acc *a, double t, double ceiling, struct gd_sweep_row *row)
{
	row->rate = t > 0 && a->rated ? a->items / t : NAN;
	row->of_ceiling = row->rate / ceiling;
	row->device_busy = a->busyt > 0 ? a->busy / a->busyt : NAN;
	row->gap_batch_us = a->gapw > 0 ? a->gap / a->gapw : NAN;
	row->queue_wait_us = a->qww > 0 ? a->qw / a->qww : NAN;
	row->headroom = row->device_busy > 0 ? row->rate / row->device_busy : NAN;
	row->cores = a->corest > 0 ? a->cores / a->corest : NAN;
	row->predicted = row->pipelined = NAN;
	row->gen_us = a->genw > 0 ? a->gen / a->genw : NAN;
	row->batch_units = a->batches > 0 ? a->items / a->batches : NAN;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		row->idle[c] = a->idlet > 0 ? a->idle[c] / a->idlet : NAN;
}

/* What gap-filling alone gives r's processes, and what one pipelined process would reach,
 * from the first step of r's pass with as many queues (per process: its rate, busy share and
 * host cores; its generation time and batch), on this host's cores. */
static void predict(const struct gd_sweep_row *first, struct gd_sweep_row *r)
{
	if (first->queues != r->queues || first->procs < 1)
		return;
	double n = first->procs;
	int cores = host_cores();
	r->predicted =
	    diagnose_predict(first->rate / n, first->device_busy / n, first->cores / n, cores, r->procs);
	/* As many processes as the first step, or more, reach what it measured at least: the bounds
	 * (device, host cores) say more cannot add, never that fewer would be reached. */
	if (r->procs >= first->procs && r->predicted < first->rate)
		r->predicted = first->rate;
	r->pipelined = diagnose_predict_pipelined(first->rate / n, first->device_busy / n, first->gen_us,
	                                          first->batch_units, cores);
}

/* A worker that ended while a step was measured makes the step's figures those of fewer
 * workers than it says: -1 with the reason (the first failed worker's error, as a headless
 * run reports it), never a row. */
static int step_intact(const struct gd_session *s, const struct gd_frame *f, const struct gd_step *st,
                       char *err, size_t errlen)
{
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *w = &f->workers[i];
		if (w->state == GD_ST_FAILED) {
			snprintf(err, errlen, "sweep: step %dx%d: %s %u (pid %d) failed: %s", st->procs,
			         step_queues(s, st), w->observed ? "process" : "worker", w->id, (int)w->pid,
			         w->error);
			return -1;
		}
	}
	if (session_active(s) >= st->procs)
		return 0;
	snprintf(err, errlen, "sweep: step %dx%d: %s ended during the step (%d of %d left)", st->procs,
	         step_queues(s, st), copies(s) ? "a copy" : "a worker", session_active(s), st->procs);
	return -1;
}

/* Runs one step for step_s seconds of windows, averaged: row[0] is the step's, and with two
 * or more devices row[stride * (1 + d)] is device d's share of it. */
static int measure(struct gd_session *s, double step_s, const struct gd_step *st, struct gd_sweep_row *row,
                   size_t stride, char *err, size_t errlen)
{
	session_restart_clock(s, now_ns());
	session_end_after(s, step_s);
	double t = 0;
	struct step_acc all = { 0 }, dev[GD_DEVICES_MAX];
	memset(dev, 0, sizeof(dev));
	while (!session_done(s)) {
		if (gd_quit_signal)
			return -1;
		int64_t now = now_ns();
		const struct gd_frame *f = session_poll(s, now);
		if (!f) {
			sleep_ns(session_wait(s, now));
			continue;
		}
		if (step_intact(s, f, st, err, errlen))
			return -1;
		if (!f->observed)
			continue; /* the supervisor was stopped: the step's figures rest on the rest */
		t += f->window_s;
		/* The host cores as the dashboard counts them (on a CPU device the kernels' too); only
		 * the step's row predicts from them, not a device's share. */
		step_add(&all, f, &f->agg, f->device_busy, -1, diagnose_cores_used(f, host_cores()));
		for (int d = 0; d < f->ndevs; d++)
			step_add(&dev[d], f, &f->devs[d].agg, f->devs[d].device_busy, d, NAN);
	}
	row[0].procs = st->procs;
	row[0].queues = step_queues(s, st);
	str_copy(row[0].device, sizeof(row[0].device), "all");
	row[0].host_cpu = true;
	for (int d = 0; d < session_ndevs(s); d++)
		row[0].host_cpu = row[0].host_cpu && !session_device(s, d)->gpu;
	step_row(&all, t, session_ceiling(s, -1)->rate, &row[0]);
	for (int d = 0; session_ndevs(s) > 1 && d < session_ndevs(s); d++) {
		struct gd_sweep_row *r = &row[stride * (size_t)(1 + d)];
		r->procs = session_active_on(s, d);
		r->queues = row[0].queues;
		str_copy(r->device, sizeof(r->device), session_device(s, d)->ref);
		r->host_cpu = !session_device(s, d)->gpu;
		step_row(&dev[d], t, session_ceiling(s, d)->rate, r);
	}
	return 0;
}

/* A sweep in progress. The list runs `runs` times over, so that slow drift (the machine's
 * other load, its clocks) spreads over every step alike; speedups compare steps of the same
 * pass. Each run gives a row for the step and, with two or more devices, one for each
 * device's share: series k (0: the step's, 1 + d: device d's) of run[] holds
 * [step * runs + pass], and rows[] the summaries, [step * per + k]. */
struct sweep {
	const struct gd_sweep_config *sw;
	struct gd_session *s;
	struct gd_outputs *outs;
	const char *unit;
	int runs, steps, total, per;
	int done;    /* runs completed */
	bool log_ok; /* the log took every row so far */
	struct gd_sweep_row *run, *rows;
};

/* Writes a row to the outputs (the log, where there is one); false after saying why. */
static bool log_row(struct sweep *w, const struct gd_sweep_row *r)
{
	char err[512];
	if (!w->log_ok || !outputs_sweep_row(w->outs, r, err, sizeof(err)))
		return w->log_ok;
	gd_say("%s", err);
	return w->log_ok = false;
}

/* Run number w->done: its step's workers, warmed up and measured; its rows to the log (a log
 * that fails ends the sweep after this run). */
static int run_one(struct sweep *w, char *err, size_t errlen)
{
	int pass = w->done / w->steps, i = w->done % w->steps;
	const struct gd_step *st = &w->sw->steps[i];
	struct gd_sweep_row *r = &w->run[(size_t)i * (size_t)w->runs + (size_t)pass];
	trace_mark(w->outs, now_ns(), "step %d: %d %s x %d queues, run %d", i + 1, st->procs,
	           copies(w->s) ? "copies" : "processes", step_queues(w->s, st), pass + 1);
	if (set_workers(w->s, st->procs, step_queues(w->s, st), err, errlen) ||
	    warm_up(w->s, st->procs, err, errlen) ||
	    measure(w->s, w->sw->step_s, st, r, (size_t)w->total, err, errlen))
		return -1;
	r->speedup = w->run[pass].rate > 0 ? r->rate / w->run[pass].rate : NAN;
	predict(&w->run[pass], r);
	char of[64] = "";
	if (w->runs > 1)
		snprintf(of, sizeof(of), " (run %d of %d)", pass + 1, w->runs);
	char rate[64];
	if (isnan(r->rate))
		snprintf(rate, sizeof(rate), "not measured (no batch completed)");
	else
		snprintf(rate, sizeof(rate), "%.2f %s", r->rate, w->unit);
	gd_say("sweep %d/%d: %dx%d%s, %s", w->done + 1, w->total, st->procs, r->queues, of, rate);
	for (int k = 0; k < w->per; k++) {
		struct gd_sweep_row *rk = r + (size_t)k * (size_t)w->total;
		rk->rep = pass + 1;
		if (k) /* a device's share: the speedup is the step's, over every device */
			rk->speedup = NAN;
		struct gd_sweep_row *sum = &w->rows[i * w->per + k];
		if (w->runs == 1) /* the step's summary is its one run: logged as it completes */
			sweep_summarise(rk, k ? NULL : w->run, 1, NULL, sum);
		log_row(w, w->runs == 1 ? sum : rk);
	}
	return 0;
}

/* With repeats, each step's summary over the passes it completed (a failed or interrupted run
 * ends the sweep), logged unless the log itself failed; returns the steps summarised. */
static int summarise_repeats(struct sweep *w)
{
	int nsteps = w->done < w->steps ? w->done : w->steps;
	for (int i = 0; w->runs > 1 && i < nsteps; i++) {
		int k = w->done / w->steps + (i < w->done % w->steps);
		for (int j = 0; j < w->per; j++) {
			const struct gd_sweep_row *series = w->run + (size_t)j * (size_t)w->total;
			struct gd_sweep_row *sum = &w->rows[i * w->per + j];
			sweep_summarise(&series[(size_t)i * (size_t)w->runs], j ? NULL : w->run, k,
			                i && !j ? sum - w->per : NULL, sum);
			log_row(w, sum);
		}
	}
	return nsteps;
}

int headless_sweep(const struct gd_session_config *c, const struct gd_sweep_config *sw,
                   struct gd_outputs *outs)
{
	struct gd_session_config sc = *c;
	sc.procs = 0;
	sc.duration_s = 0; /* each step sets its own end */
	char err[256];
	struct gd_session *s = session_start(&sc, outs, err, sizeof(err));
	if (!s && gd_quit_signal)
		return GD_EXIT_OK; /* stopped before the first step, as asked */
	if (!s) {
		gd_say("%s", err);
		return GD_EXIT_FAIL;
	}
	struct sweep w = { .sw = sw,
		           .s = s,
		           .outs = outs,
		           .unit = kspec_rate_unit(&c->work.kernel),
		           .runs = sw->repeat > 1 ? sw->repeat : 1,
		           .steps = sw->nsteps,
		           .log_ok = true };
	w.total = w.runs * w.steps;
	w.per = 1 + (session_ndevs(s) > 1 ? session_ndevs(s) : 0);
	w.run = xcalloc((size_t)w.total * (size_t)w.per, sizeof(*w.run));
	w.rows = xcalloc((size_t)w.steps * (size_t)w.per, sizeof(*w.rows));
	int status = GD_EXIT_OK;
	for (; w.done < w.total && w.log_ok; w.done++)
		if (run_one(&w, err, sizeof(err))) {
			if (!gd_quit_signal)
				gd_say("%s", err);
			/* Interrupted: the steps measured so far are the result (RELIABILITY.md). */
			status = gd_quit_signal ? GD_EXIT_OK : GD_EXIT_FAIL;
			break;
		}
	int nsteps = summarise_repeats(&w);
	if (!w.log_ok)
		status = GD_EXIT_FAIL;
	if (c->work.kernel.source) { /* names from the command line: cleaned, as everywhere */
		char line[8192];
		snprintf(line, sizeof(line), "kernel %s of %s", kspec_name(&c->work.kernel),
		         c->work.kernel.source);
		text_clean(line);
		printf("%s\n", line);
	}
	struct gd_ceiling ceiling = *session_ceiling(s, -1);
	sweep_print(stdout, w.rows, nsteps * w.per, w.runs, w.unit, &ceiling);
	fflush(stdout);
	free(w.run);
	free(w.rows);
	session_stop(s);
	return status;
}

/* session.c: the interval clock around the supervisor and the collector; every record the
 * supervisor reads goes to the trace and the collector from here. */
#include "gputop/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/prom.h"
#include "gputop/trace.h"

static void on_record(void *ctx, const struct gd_worker_info *w, const struct gd_rec *r)
{
	struct gd_session *s = ctx;
	if (s->trace)
		trace_batch(s->trace, w->id, w->pid,
		            s->refs[w->device >= 0 && w->device < s->ndevs ? w->device : 0], r);
	if (s->col)
		collect_push(s->col, w, r);
}

/* Starts the measurement of device d's ceiling. */
static struct gd_calib *calib_device(const struct gd_session *s, int d, char *err, size_t errlen)
{
	struct gd_opts o = s->o;
	o.platform = s->devs[d].platform;
	o.device = s->devs[d].index;
	return calib_start(&o, sup_exe(s->sup), err, errlen);
}

/* The run's ceiling: the sum of the devices' rates, NAN until every one is calibrated. */
static void sum_ceilings(struct gd_session *s)
{
	s->ceiling = (struct gd_ceiling){ .rate = 0 };
	for (int d = 0; d < s->ndevs; d++)
		s->ceiling.rate += s->ceilings[d].rate;
}

/* --calibrate before any worker starts: each device to itself, one after another. */
static int calibrate_now(struct gd_session *s, char *err, size_t errlen)
{
	for (int d = 0; d < s->ndevs; d++) {
		struct gd_calib *c = calib_device(s, d, err, errlen);
		if (!c)
			return -1;
		int rc = calib_wait(c, 120, &s->ceilings[d], err, errlen);
		calib_free(c);
		if (rc)
			return -1;
	}
	sum_ceilings(s);
	return 0;
}

/* The interval and what follows from it. */
static void set_periods(struct gd_session *s, double interval_s)
{
	s->o.interval = interval_s;
	s->interval = (int64_t)(interval_s * 1e9);
	s->settle = s->interval / 2 < GD_NS_PER_S / 4 ? s->interval / 2 : GD_NS_PER_S / 4;
	s->poll = s->interval < GD_NS_PER_S / 20 ? s->interval : GD_NS_PER_S / 20;
}

int session_start(struct gd_session *s, const struct gd_opts *o, const struct gd_device *devs, int ndev,
                  struct gd_trace *trace, struct gd_prom *prom, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->ndevs = ndev < 1 ? 1 : ndev > GD_DEVICES_MAX ? GD_DEVICES_MAX : ndev;
	for (int d = 0; d < s->ndevs; d++) {
		s->devs[d] = devs[d < ndev ? d : 0];
		device_ref_text(s->refs[d], sizeof(s->refs[d]), s->devs[d].platform, s->devs[d].index);
		s->ceilings[d].rate = NAN;
	}
	s->trace = trace;
	s->prom = prom;
	s->ceiling.rate = NAN;
	if (!(s->sup = sup_new(o, err, errlen)))
		return -1;
	if (o->calibrate && calibrate_now(s, err, errlen))
		return -1;
	s->t0 = now_ns();
	s->col = collect_new(s->t0, o->profile != GD_PROF_OFF, o->devices.list, o->devices.n);
	set_periods(s, o->interval);
	s->end = o->duration > 0 ? s->t0 + (int64_t)(o->duration * 1e9) : INT64_MAX;
	s->win_start = s->t0;
	s->win_end = s->t0 + s->interval;
	if (trace)
		trace_set_origin(trace, s->t0);
	for (int i = 0; i < o->procs; i++)
		if (sup_spawn(s->sup, -1, err, errlen) < 0)
			return -1;
	return 0;
}

/* The supervisor's workers, copied into s->info; returns how many. */
static int snapshot(struct gd_session *s)
{
	int n = sup_count(s->sup);
	if (n > s->capinfo) {
		s->capinfo = n + 16;
		s->info = xreallocarray(s->info, (size_t)s->capinfo, sizeof(*s->info));
	}
	for (int i = 0; i < n; i++)
		sup_worker(s->sup, i, &s->info[i]);
	return n;
}

void session_service(struct gd_session *s, int64_t now)
{
	sup_service(s->sup, now, on_record, s);
	s->serviced = now;
}

int session_calibrate(struct gd_session *s, char *err, size_t errlen)
{
	if (s->calib) {
		snprintf(err, errlen, "a calibration is already running");
		return -1;
	}
	if (!(s->calib = calib_device(s, 0, err, errlen)))
		return -1;
	s->calib_dev = 0;
	s->calib_paused = !sup_paused(s->sup);
	if (s->calib_paused)
		sup_pause(s->sup, true);
	return 0;
}

/* A calibration in progress that has answered: keep its figure, resume the workers. */
static void calibration_check(struct gd_session *s)
{
	if (!s->calib)
		return;
	struct gd_ceiling c;
	int rc = calib_poll(s->calib, &c, s->calib_msg, sizeof(s->calib_msg));
	if (rc == 0)
		return;
	calib_free(s->calib);
	s->calib = NULL;
	if (rc > 0) {
		s->ceilings[s->calib_dev] = c;
		char who[48] = "";
		if (s->ndevs > 1)
			snprintf(who, sizeof(who), "of %s ", s->refs[s->calib_dev]);
		snprintf(s->calib_msg, sizeof(s->calib_msg), "ceiling %s%.1f %s (%d queue%s)", who, c.rate,
		         opts_rate_unit(&s->o), c.queues, c.queues > 1 ? "s" : "");
		sum_ceilings(s);
		/* The next device, while the workers stay paused. */
		if (s->calib_dev + 1 < s->ndevs &&
		    (s->calib = calib_device(s, s->calib_dev + 1, s->calib_msg, sizeof(s->calib_msg)))) {
			s->calib_dev++;
			return;
		}
	}
	if (s->calib_paused)
		sup_pause(s->sup, false);
}

/* Records the reader could not use, summed over the supervisor's workers. */
static uint64_t lost_now(const struct gd_session *s)
{
	uint64_t lost = 0;
	for (int i = 0; i < sup_count(s->sup); i++) {
		struct gd_worker_info w;
		sup_worker(s->sup, i, &w);
		lost += w.lost;
	}
	return lost;
}

/* The end of the open window: the next boundary, or --duration's end; for a window that
 * holds a time not observed, the first boundary at or after that time's end. */
static int64_t window_end(const struct gd_session *s)
{
	int64_t b = s->win_end;
	if (s->unobserved && s->gap_end > b)
		b += (s->gap_end - b + s->interval - 1) / s->interval * s->interval;
	return b < s->end ? b : s->end;
}

bool session_poll(struct gd_session *s, int64_t now)
{
	/* Away for several polls: the supervisor did not run (stopped, or starved). What its
	 * workers published meanwhile waited in their rings; where a ring overflowed, records of
	 * that time are gone and no window of it can be told. That time, from the open window's
	 * start to the first boundary after it, becomes one window that says so; the regular
	 * schedule resumes after it. Without an overflow every record is still there, and overdue
	 * windows are closed one by one as usual. */
	bool away = s->serviced && now - s->serviced > 4 * s->poll;
	uint64_t lost = away ? lost_now(s) : 0;
	session_service(s, now);
	if (away && lost_now(s) > lost) {
		s->unobserved = true;
		s->gap_end = now;
	}
	calibration_check(s);
	int64_t b = window_end(s);
	if (now < b + s->settle || s->win_start >= s->end)
		return false;
	if (s->unobserved) {
		collect_skip(s->col, s->info, snapshot(s), s->t0, b, &s->frame);
		s->unobserved = false;
	} else {
		collect_window(s->col, s->info, snapshot(s), s->t0, b, &s->frame);
	}
	s->frame.unix_s = unix_seconds(b);
	s->frame.profile = s->o.profile;
	s->frame.ceiling = s->ceiling.rate;
	s->frame.of_ceiling = s->frame.agg.rate / s->ceiling.rate;
	for (int d = 0; d < s->frame.ndevs; d++) {
		struct gd_devframe *df = &s->frame.devs[d];
		df->ceiling = s->ceilings[d].rate;
		df->of_ceiling = df->agg.rate / df->ceiling;
	}
	if (s->trace)
		trace_flush(s->trace);
	prom_update(s->prom, &s->frame, s->devs);
	s->win_start = b;
	s->win_end = b + s->interval;
	return true;
}

int64_t session_wait(const struct gd_session *s, int64_t now)
{
	int64_t b = window_end(s);
	int64_t due = b + s->settle - now;
	return due < s->poll ? (due > 0 ? due : 0) : s->poll;
}

bool session_done(const struct gd_session *s)
{
	return s->win_start >= s->end;
}

void session_prune(struct gd_session *s)
{
	for (int i = sup_count(s->sup) - 1; i >= 0; i--) {
		struct gd_worker_info w;
		sup_worker(s->sup, i, &w);
		if (w.alive || collect_pending(s->col, w.id))
			continue;
		sup_forget(s->sup, i);
		collect_forget(s->col, w.id);
	}
}

void session_restart_clock(struct gd_session *s, int64_t now)
{
	session_service(s, now); /* read what completed so far, then forget it */
	collect_reset(s->col, s->info, snapshot(s), now);
	session_prune(s);
	s->unobserved = false;
	s->win_start = now;
	s->win_end = now + s->interval;
}

void session_set_interval(struct gd_session *s, double interval_s)
{
	set_periods(s, interval_s);
	/* The open window keeps its start and ends one new interval after it: when that is past
	 * already it closes at the next poll, and the windows after it follow the new clock. */
	s->win_end = s->win_start + s->interval;
}

int session_stop(struct gd_session *s, char *why, size_t whylen)
{
	calib_free(s->calib);
	s->calib = NULL;
	collect_free(s->col);
	s->col = NULL; /* the last records still reach the trace */
	sup_free(s->sup, on_record, s);
	s->sup = NULL;
	collect_frame_free(&s->frame);
	free(s->info);
	s->info = NULL;
	int rc = trace_close(s->trace, why, whylen);
	s->trace = NULL;
	/* The server stops with the workers; a trace error is the one reported when both fail. */
	if (prom_close(s->prom, rc ? NULL : why, whylen))
		rc = -1;
	s->prom = NULL;
	return rc;
}

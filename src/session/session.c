/* session.c: the interval clock around the supervisor and the collector. Every record the
 * supervisor reads goes to the outputs and the collector from here; every window closed here
 * becomes a frame that only this file completes and hands to the outputs. The roles read the
 * supervisor's rows through the queries here, each a copy. */
#include "gputop/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/outputs.h"
#include "measure/collect.h"
#include "vendor/vendor.h"
#include "calibrate.h"
#include "supervisor.h"

#define CALIBRATE_WAIT_S 120               /* --calibrate before the first worker: at most this per device */
#define REAP_GRACE_NS    (3 * GD_NS_PER_S) /* at the end: rows end (a worker its batch), or are killed */

struct gd_session {
	struct gd_session_config c;
	struct gd_sup *sup; /* the rows */
	struct gd_collector *col;
	struct gd_outputs *outs; /* the caller's; NULL: none */
	struct gd_frame frame;   /* the latest window */
	int64_t t0;              /* start, host CLOCK_MONOTONIC ns */
	int64_t win_start;       /* the open window [win_start, win_end) */
	int64_t win_end;
	int64_t interval;         /* ns */
	int64_t settle;           /* a window is closed this long after its end, so batches that */
	                          /* completed inside it have been read */
	int64_t end;              /* stop after the window ending here; INT64_MAX: never */
	int64_t poll;             /* ring polling period */
	int64_t serviced;         /* when the rows' rings were last read */
	bool unobserved;          /* records were lost while the supervisor did not run, until gap_end: */
	int64_t gap_end;          /* the open window runs to the boundary after it (collect_skip) */
	struct gd_row_info *info; /* scratch: the supervisor's rows at a window's end */
	int capinfo;
	struct gd_ceiling ceiling;                  /* rate: the devices' sum, NAN until each is calibrated */
	struct gd_ceiling ceilings[GD_DEVICES_MAX]; /* each device's; rate NAN: not calibrated */
	struct gd_calibration *calib;               /* a calibration in progress, or NULL */
	int calib_dev;                              /* the device it measures; the next one follows it */
	bool calib_paused;                          /* the rows were paused for it */
	char message[256];                          /* how the latest calibration ended, until taken */
	char error[256];                            /* an output that failed: the run cannot go on */
	struct gd_vsource *vendor[GD_DEVICES_MAX];  /* each device's vendor library; NULL: none */
};

static void on_record(void *ctx, const struct gd_row_info *w, const struct gd_rec *r)
{
	struct gd_session *s = ctx;
	int d = w->device >= 0 && w->device < s->c.ndevs ? w->device : 0;
	outputs_batch(s->outs, w, s->c.devs[d].ref, r);
	if (s->col)
		collect_push(s->col, w, r);
}

/* ---- calibration ---- */

/* Starts the measurement of device d's ceiling. */
static struct gd_calibration *calibrate_device(const struct gd_session *s, int d, char *err, size_t errlen)
{
	const struct gd_device *dev = &s->c.devs[d];
	struct gd_devref ref = { .platform = dev->platform, .index = dev->index };
	return calibrate_start(&s->c.work.kernel, ref, sup_exe(s->sup), err, errlen);
}

/* The run's ceiling: the sum of the devices' rates, NAN until every one is calibrated (and
 * at the larger size, until every one is measured there). */
static void sum_ceilings(struct gd_session *s)
{
	s->ceiling = (struct gd_ceiling){ .rate = 0 };
	for (int d = 0; d < s->c.ndevs; d++) {
		s->ceiling.rate += s->ceilings[d].rate;
		s->ceiling.rate_4x += s->ceilings[d].rate_4x;
	}
}

/* --calibrate before any worker starts: each device to itself, one after another. */
static int calibrate_now(struct gd_session *s, char *err, size_t errlen)
{
	for (int d = 0; d < s->c.ndevs; d++) {
		struct gd_calibration *c = calibrate_device(s, d, err, errlen);
		if (!c)
			return -1;
		int rc = calibrate_wait(c, CALIBRATE_WAIT_S, &s->ceilings[d], err, errlen);
		calibrate_free(c);
		if (rc)
			return -1;
	}
	sum_ceilings(s);
	return 0;
}

int session_calibrate(struct gd_session *s, char *err, size_t errlen)
{
	if (s->c.command) {
		snprintf(err, errlen,
		         "no calibration of an observed program: the ceiling is the decode kernel's");
		return -1;
	}
	if (s->calib) {
		snprintf(err, errlen, "a calibration is already running");
		return -1;
	}
	if (!(s->calib = calibrate_device(s, 0, err, errlen)))
		return -1;
	s->calib_dev = 0;
	s->calib_paused = !sup_paused(s->sup);
	if (s->calib_paused)
		sup_pause(s->sup, true);
	return 0;
}

/* The figure of a calibration that answered, in words. */
static void say_ceiling(struct gd_session *s, const struct gd_ceiling *c)
{
	char who[48] = "";
	if (s->c.ndevs > 1)
		snprintf(who, sizeof(who), "of %s ", s->c.devs[s->calib_dev].ref);
	const char *unit = kspec_rate_unit(&s->c.work.kernel);
	int n = snprintf(s->message, sizeof(s->message), "ceiling %s%.1f %s (%d queue%s); launch gap %.1f us",
	                 who, c->rate, unit, c->queues, c->queues > 1 ? "s" : "", c->gap_ns / 1e3);
	if (n > 0 && (size_t)n < sizeof(s->message))
		ceiling_say_4x(s->message + n, sizeof(s->message) - (size_t)n, c, unit);
}

/* A calibration in progress that has answered: keep its figure, go on with the next device,
 * or resume the rows. */
static void calibration_check(struct gd_session *s)
{
	if (!s->calib)
		return;
	struct gd_ceiling c;
	int rc = calibrate_poll(s->calib, &c, s->message, sizeof(s->message));
	if (rc == 0)
		return;
	calibrate_free(s->calib);
	s->calib = NULL;
	if (rc > 0) {
		s->ceilings[s->calib_dev] = c;
		say_ceiling(s, &c);
		sum_ceilings(s);
		/* The next device, while the rows stay paused. */
		if (s->calib_dev + 1 < s->c.ndevs &&
		    (s->calib = calibrate_device(s, s->calib_dev + 1, s->message, sizeof(s->message)))) {
			s->calib_dev++;
			return;
		}
	}
	if (s->calib_paused)
		sup_pause(s->sup, false);
}

bool session_take_message(struct gd_session *s, char *buf, size_t n)
{
	if (!s->message[0])
		return false;
	str_copy(buf, n, s->message);
	s->message[0] = '\0';
	return true;
}

/* ---- start and stop ---- */

/* The interval and what follows from it. */
static void set_periods(struct gd_session *s, double interval_s)
{
	s->c.interval_s = interval_s;
	s->interval = (int64_t)(interval_s * 1e9);
	s->settle = s->interval / 2 < GD_NS_PER_S / 4 ? s->interval / 2 : GD_NS_PER_S / 4;
	s->poll = s->interval < GD_NS_PER_S / 20 ? s->interval : GD_NS_PER_S / 20;
}

static struct gd_sup *start_supervisor(const struct gd_session_config *c, char *err, size_t errlen)
{
	struct gd_sup_config sc = { .work = c->work,
		                    .ndevs = c->ndevs,
		                    .max_procs = c->max_procs,
		                    .interval_s = c->interval_s,
		                    .command = c->command,
		                    .observe_lib = c->observe_lib,
		                    .via = c->via,
		                    .program_out = c->program_out };
	for (int d = 0; d < c->ndevs; d++)
		sc.devs[d] = (struct gd_devref){ .platform = c->devs[d].platform, .index = c->devs[d].index };
	return sup_new(&sc, err, errlen);
}

/* Each device's vendor source, sampled once so that the first window has GPM's figures too. */
static void open_vendors(struct gd_session *s)
{
	struct gd_vendor_sample v;
	for (int d = 0; d < s->c.ndevs; d++) {
		s->vendor[d] = vendor_open(&s->c.devs[d]);
		vendor_sample(s->vendor[d], &v);
	}
}

struct gd_session *session_start(const struct gd_session_config *c, struct gd_outputs *outs, char *err,
                                 size_t errlen)
{
	struct gd_session *s = xcalloc(1, sizeof(*s));
	s->c = *c;
	s->c.ndevs = c->ndevs < 1 ? 1 : c->ndevs > GD_DEVICES_MAX ? GD_DEVICES_MAX : c->ndevs;
	s->outs = outs;
	s->ceiling.rate = s->ceiling.rate_4x = NAN;
	for (int d = 0; d < s->c.ndevs; d++)
		s->ceilings[d].rate = s->ceilings[d].rate_4x = NAN;
	set_periods(s, c->interval_s);
	if (!(s->sup = start_supervisor(&s->c, err, errlen)) ||
	    (c->calibrate && calibrate_now(s, err, errlen))) {
		session_stop(s);
		return NULL;
	}
	open_vendors(s);
	s->t0 = now_ns();
	outputs_start(outs, s->t0);
	s->col = collect_new(s->t0, c->work.profile != GD_PROF_OFF, s->c.devs, s->c.ndevs);
	s->end = INT64_MAX;
	s->win_start = s->t0;
	s->win_end = s->t0 + s->interval;
	session_end_after(s, c->duration_s);
	for (int i = 0; i < c->procs; i++)
		if (session_spawn(s, -1, err, errlen) < 0) {
			session_stop(s);
			return NULL;
		}
	return s;
}

void session_stop(struct gd_session *s)
{
	if (!s)
		return;
	calibrate_free(s->calib);
	collect_free(s->col);
	s->col = NULL; /* the last records still reach the outputs */
	if (s->sup) {
		sup_stop_all(s->sup);
		sup_reap_all(s->sup, REAP_GRACE_NS, on_record, s);
		sup_free(s->sup);
	}
	collect_frame_free(&s->frame);
	for (int d = 0; d < s->c.ndevs; d++)
		vendor_close(s->vendor[d]);
	free(s->info);
	free(s);
}

/* ---- the clock ---- */

/* The supervisor's rows, copied into s->info; returns how many. */
static int snapshot(struct gd_session *s)
{
	int n = sup_nrows(s->sup);
	if (n > s->capinfo) {
		s->capinfo = n + 16;
		s->info = xreallocarray(s->info, (size_t)s->capinfo, sizeof(*s->info));
	}
	for (int i = 0; i < n; i++)
		sup_row_info(s->sup, i, &s->info[i]);
	return n;
}

void session_service(struct gd_session *s, int64_t now)
{
	sup_service(s->sup, now, on_record, s);
	s->serviced = now;
}

/* Records the reader could not use, summed over the supervisor's rows. */
static uint64_t lost_now(const struct gd_session *s)
{
	uint64_t lost = 0;
	for (int i = 0; i < sup_nrows(s->sup); i++)
		lost += session_row(s, i).lost;
	return lost;
}

/* Services the rows and notes a time not observed. Away for several polls, the supervisor
 * did not run (stopped, or starved). What its rows published meanwhile waited in their
 * rings; where a ring overflowed, records of that time are gone and no window of it can be
 * told. That time, from the open window's start to the first boundary after it, becomes one
 * window that says so; the regular schedule resumes after it. Without an overflow every
 * record is still there, and overdue windows are closed one by one as usual. */
static void service_noting_gaps(struct gd_session *s, int64_t now)
{
	bool away = s->serviced && now - s->serviced > 4 * s->poll;
	uint64_t lost = away ? lost_now(s) : 0;
	session_service(s, now);
	if (away && lost_now(s) > lost) {
		s->unobserved = true;
		s->gap_end = now;
	}
}

/* The end of the open window: the next boundary, or the run's end; for a window that holds a
 * time not observed, the first boundary at or after that time's end. */
static int64_t window_end(const struct gd_session *s)
{
	int64_t b = s->win_end;
	if (s->unobserved && s->gap_end > b)
		b += (s->gap_end - b + s->interval - 1) / s->interval * s->interval;
	return b < s->end ? b : s->end;
}

/* The launch limit of a device's gaps between kernels (collect_launch_limit): GD_LAUNCH_LIMIT
 * times its calibrated back-to-back gap, at least GD_LAUNCH_LIMIT_MIN_NS; 0 until calibrated. */
static int64_t launch_limit(const struct gd_ceiling *c)
{
	if (isnan(c->rate))
		return 0;
	double ns = GD_LAUNCH_LIMIT * c->gap_ns;
	return ns > GD_LAUNCH_LIMIT_MIN_NS ? (int64_t)ns : GD_LAUNCH_LIMIT_MIN_NS;
}

/* What the collector does not know of a frame ending at b: the wall clock, the profiling policy
 * and the ceilings. */
static void complete_frame(const struct gd_session *s, struct gd_frame *f, int64_t b)
{
	f->unix_s = unix_seconds(b);
	f->profile = s->c.work.profile;
	f->ceiling = s->ceiling.rate;
	f->of_ceiling = f->agg.rate / s->ceiling.rate;
	f->ceiling_4x = s->ceiling.rate_4x;
	for (int d = 0; d < f->ndevs; d++) {
		struct gd_devframe *df = &f->devs[d];
		df->ceiling = s->ceilings[d].rate;
		df->of_ceiling = df->agg.rate / df->ceiling;
		df->ceiling_4x = s->ceilings[d].rate_4x;
	}
}

/* Closes the open window at b into s->frame and completes it: the wall clock, the profiling
 * policy and the ceilings. */
static void close_window(struct gd_session *s, int64_t b)
{
	struct gd_frame *f = &s->frame;
	int n = snapshot(s); /* first: it may move s->info */
	for (int d = 0; d < s->c.ndevs; d++)
		collect_launch_limit(s->col, d, launch_limit(&s->ceilings[d]));
	if (s->unobserved)
		collect_skip(s->col, s->info, n, s->t0, b, f);
	else
		collect_window(s->col, s->info, n, s->t0, b, f);
	s->unobserved = false;
	complete_frame(s, f, b);
	vendor_fill(s->vendor, f);
	s->win_start = b;
	s->win_end = b + s->interval;
}

/* Whether a live row's latest word, said before b, was of a kernel under way: a word after b
 * tells whether it still ran at b (wire.h: inflight_ns). A program's publisher starved of the
 * CPU says it late; the window waits for it a little longer than for records. */
static bool awaiting_word(struct gd_session *s, int64_t b)
{
	int n = snapshot(s);
	for (int i = 0; i < n; i++)
		if (s->info[i].alive && s->info[i].inflight_ns > 0 && s->info[i].inflight_at_ns < b)
			return true;
	return false;
}

const struct gd_frame *session_poll(struct gd_session *s, int64_t now)
{
	service_noting_gaps(s, now);
	/* Observing a program: the run ends with the window in which its last copy ended (with -n 0,
	 * once a copy started with + has). */
	if (s->c.command && now < s->end && sup_nrows(s->sup) > 0 && sup_programs_live(s->sup) == 0)
		s->end = now > s->win_start ? now : s->win_start + 1;
	calibration_check(s);
	int64_t b = window_end(s);
	if (now < b + s->settle || s->win_start >= s->end)
		return NULL;
	if (now < b + 3 * s->settle && awaiting_word(s, b))
		return NULL;
	close_window(s, b);
	if (!s->error[0])
		outputs_frame(s->outs, &s->frame, s->error, sizeof(s->error));
	return &s->frame;
}

int64_t session_wait(const struct gd_session *s, int64_t now)
{
	int64_t due = window_end(s) + s->settle - now;
	return due < s->poll ? (due > 0 ? due : 0) : s->poll;
}

bool session_done(const struct gd_session *s)
{
	return s->win_start >= s->end;
}

void session_prune(struct gd_session *s)
{
	for (int i = sup_nrows(s->sup) - 1; i >= 0; i--) {
		struct gd_row_info w = session_row(s, i);
		if (w.alive || collect_pending(s->col, w.id))
			continue;
		sup_forget(s->sup, i);
		collect_forget(s->col, &w);
	}
}

void session_restart_clock(struct gd_session *s, int64_t now)
{
	session_service(s, now); /* read what completed so far, then forget it */
	int n = snapshot(s);
	collect_reset(s->col, s->info, n, now);
	session_prune(s);
	/* The latest frame says so too: the rows still listed, nothing measured yet. */
	n = snapshot(s);
	collect_blank(s->col, s->info, n, s->t0, now, &s->frame);
	complete_frame(s, &s->frame, now);
	vendor_fill(NULL, &s->frame);
	s->unobserved = false;
	s->win_start = now;
	s->win_end = now + s->interval;
}

void session_end_after(struct gd_session *s, double seconds)
{
	s->end = seconds > 0 ? s->win_start + (int64_t)(seconds * 1e9) : INT64_MAX;
}

void session_set_interval(struct gd_session *s, double interval_s)
{
	set_periods(s, interval_s);
	sup_set_interval(s->sup, interval_s);
	/* The open window keeps its start and ends one new interval after it: when that is past
	 * already it closes at the next poll, and the windows after it follow the new clock. */
	s->win_end = s->win_start + s->interval;
}

int64_t session_t0(const struct gd_session *s)
{
	return s->t0;
}

double session_interval(const struct gd_session *s)
{
	return s->c.interval_s;
}

int64_t session_poll_period(const struct gd_session *s)
{
	return s->poll;
}

const char *session_error(const struct gd_session *s)
{
	return s->error;
}

/* ---- the rows and the run ---- */

int session_spawn(struct gd_session *s, int dev, char *err, size_t errlen)
{
	if (s->c.command)
		return sup_spawn_program(s->sup, err, errlen);
	return sup_spawn(s->sup, dev, err, errlen);
}

void session_stop_row(struct gd_session *s, int i, bool hard)
{
	sup_stop(s->sup, i, hard);
}

int session_signal(struct gd_session *s, int i, int sig)
{
	return sup_signal(s->sup, i, sig);
}

void session_pause(struct gd_session *s, bool pause)
{
	sup_pause(s->sup, pause);
}

void session_set_queues(struct gd_session *s, int queues)
{
	sup_set_queues(s->sup, queues);
}

int session_queues(const struct gd_session *s)
{
	return sup_queues(s->sup);
}

int session_nrows(const struct gd_session *s)
{
	return sup_nrows(s->sup);
}

struct gd_row_info session_row(const struct gd_session *s, int i)
{
	struct gd_row_info w;
	sup_row_info(s->sup, i, &w);
	return w;
}

int session_find(const struct gd_session *s, unsigned id)
{
	return sup_find(s->sup, id);
}

int session_newest(const struct gd_session *s)
{
	return sup_newest(s->sup);
}

int session_live(const struct gd_session *s)
{
	return sup_live(s->sup);
}

int session_active(const struct gd_session *s)
{
	return sup_active(s->sup);
}

int session_ready(const struct gd_session *s)
{
	return sup_ready(s->sup);
}

int session_active_on(const struct gd_session *s, int d)
{
	return sup_active_on(s->sup, d);
}

bool session_paused(const struct gd_session *s)
{
	return sup_paused(s->sup);
}

const char *session_first_error(const struct gd_session *s)
{
	return sup_first_error(s->sup);
}

unsigned session_grace_kills(const struct gd_session *s, unsigned *last)
{
	return sup_grace_kills(s->sup, last);
}

const struct gd_workload *session_workload(const struct gd_session *s)
{
	return &s->c.work;
}

int session_ndevs(const struct gd_session *s)
{
	return s->c.ndevs;
}

const struct gd_device *session_device(const struct gd_session *s, int d)
{
	return &s->c.devs[d >= 0 && d < s->c.ndevs ? d : 0];
}

const struct gd_ceiling *session_ceiling(const struct gd_session *s, int d)
{
	return d < 0 ? &s->ceiling : &s->ceilings[d < s->c.ndevs ? d : 0];
}

const struct gd_frame *session_frame(const struct gd_session *s)
{
	return &s->frame;
}

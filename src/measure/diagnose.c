/* diagnose.c: idle time by cause, its levers, and the gap-filling prediction (diagnose.h). */
#include "diagnose.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "ceiling.h"
#include "collect.h"
#include "figures.h"

/* The causes' words on screen and their levers; their log fields are figures (figures.h). */
static const struct {
	const char *name, *lever;
} causes[GD_CAUSE_COUNT] = {
	[GD_CAUSE_HOST] = { "host work", "more processes, or pipelining with generation threads" },
	[GD_CAUSE_TRANSFER] = { "transfers", "pipelining: non-blocking transfers on several queues" },
	[GD_CAUSE_LAUNCH] = { "launch gaps", "fewer, larger launches (bigger batches)" },
	[GD_CAUSE_WAIT] = { "waiting for another context",
	                    "fewer processes, more queues in one (contexts take turns)" },
	[GD_CAUSE_COPY] = { "copies and fills", "keep data on the device: fewer copies and fills, or kernels "
	                                        "that write in place" },
	[GD_CAUSE_OTHER] = { "other", "none named" },
};

const char *diagnose_field(enum gd_cause c)
{
	return gd_figures[GD_FIG_IDLE_HOST + c].name;
}

const char *diagnose_name(enum gd_cause c)
{
	return causes[c].name;
}

const char *diagnose_lever(enum gd_cause c)
{
	return causes[c].lever;
}

static double nn(double v)
{
	return isnan(v) || v < 0 ? 0 : v;
}

static void none(struct gd_idle *out)
{
	*out = (struct gd_idle)GD_IDLE_NONE;
}

void diagnose_worker(const struct gd_breakdown *bd, double kernel_busy, double device_busy,
                     struct gd_idle *out)
{
	none(out);
	if (isnan(kernel_busy) || isnan(bd->kernel_us))
		return; /* no device times: nothing to split */
	double t[GD_CAUSE_COUNT] = {
		[GD_CAUSE_HOST] = nn(bd->gen_us) + nn(bd->late_gap_us),
		[GD_CAUSE_TRANSFER] = nn(bd->h2d_us) + nn(bd->d2h_us),
		[GD_CAUSE_LAUNCH] = nn(bd->launch_gap_us),
		[GD_CAUSE_WAIT] = nn(bd->queue_wait_us),
		[GD_CAUSE_COPY] = nn(bd->copy_us),
		[GD_CAUSE_OTHER] = nn(bd->other_us),
	};
	double sum = 0, idle = kernel_busy < 1 ? 1 - kernel_busy : 0;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		sum += t[c];
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		out->share[c] = sum > 0 ? idle * t[c] / sum : c == GD_CAUSE_OTHER ? idle : 0;
	/* Other processes' kernels while this one had none: the device's busy time beyond its own. */
	if (!isnan(device_busy) && idle > 0) {
		double h = (device_busy - kernel_busy) / idle;
		out->hidden = h < 0 ? 0 : h > 1 ? 1 : h;
	} else if (!isnan(device_busy)) {
		out->hidden = 0;
	}
}

void diagnose_device(const struct gd_idle *w, int n, double device_busy, struct gd_idle *out)
{
	none(out);
	if (isnan(device_busy))
		return;
	double acc[GD_CAUSE_COUNT] = { 0 };
	int used = 0;
	for (int i = 0; i < n; i++) {
		double own = 0; /* the worker's idle share */
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			own += nn(w[i].share[c]);
		if (isnan(w[i].share[0]) || own <= 0)
			continue;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			acc[c] += nn(w[i].share[c]) / own;
		used++;
	}
	double idle = device_busy < 1 ? 1 - device_busy : 0;
	double total = 0;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		total += acc[c];
	/* While the device idles every worker is idle: the device's idle time is each worker's
	 * unhidden idle time. Each worker's split of its idle time, averaged over the workers,
	 * scaled to the device's idle share. */
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		out->share[c] = used && total > 0 ? idle * acc[c] / total : c == GD_CAUSE_OTHER ? idle : 0;
}

void diagnose_mean(const struct gd_idle *d, int n, struct gd_idle *out)
{
	none(out);
	int used = 0;
	double acc[GD_CAUSE_COUNT] = { 0 };
	for (int i = 0; i < n; i++) {
		if (isnan(d[i].share[0]))
			continue;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			acc[c] += d[i].share[c];
		used++;
	}
	if (used < n || !used)
		return; /* as device_busy: the mean only when every device measured */
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		out->share[c] = acc[c] / used;
}

double diagnose_predict(double rate_one, double busy_one, double cores_one, int cores, int procs)
{
	if (isnan(rate_one) || isnan(busy_one) || procs < 1)
		return NAN;
	double n = procs;
	if (busy_one > 0 && 1 / busy_one < n)
		n = 1 / busy_one;
	double host = cores_one > 1 ? cores_one : 1;
	if (cores > 0 && cores / host < n)
		n = cores / host;
	return rate_one * n;
}

double diagnose_predict_pipelined(double rate, double busy, double gen_us, double units_per_batch, int cores)
{
	if (isnan(rate) || isnan(busy) || busy <= 0 || isnan(units_per_batch) || units_per_batch <= 0)
		return NAN;
	double device = rate / (busy < 1 ? busy : 1);
	if (isnan(gen_us) || gen_us <= 0 || cores < 2)
		return device; /* no host work to hide, or no core to hide it on: the device bounds it */
	double host = (cores - 1) * units_per_batch * 1e6 / gen_us;
	return host < device ? host : device;
}

/* Appends to buf[0..n) at len, as snprintf: returns the new length, the text cut, never
 * overrun. */
__attribute__((format(printf, 4, 5))) static int add(char *buf, size_t n, int len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + (len < (int)n ? len : 0), len < (int)n ? n - (size_t)len : 0, fmt, ap);
	va_end(ap);
	return len + (k > 0 ? k : 0);
}

void diagnose_rate_text(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else if (fabs(v) >= 100)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

/* Those at work in the window: they made OpenCL calls in it. */
static bool calling(enum gd_state st)
{
	return st == GD_ST_RUNNING || st == GD_ST_STOPPING || st == GD_ST_STALLED;
}

int diagnose_procs(const struct gd_frame *f)
{
	if (!f->nworkers)
		return f->procs;
	int n = 0;
	for (int i = 0; i < f->nworkers; i++)
		n += calling(f->workers[i].state);
	return n;
}

bool diagnose_host_cpu(const struct gd_frame *f)
{
	for (int d = 0; d < f->ndevs; d++)
		if (!f->devs[d].host_cpu)
			return false;
	return f->ndevs > 0;
}

double diagnose_cores_used(const struct gd_frame *f, int cores)
{
	if (!f->nworkers)
		return NAN;
	bool cpu = diagnose_host_cpu(f);
	double used = 0;
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *s = &f->workers[i];
		if (!calling(s->state) || isnan(s->gen_busy))
			continue;
		double own = s->gen_busy, outside = 1 - s->kernel_busy;
		if (cpu && !isnan(outside) && outside > own)
			own = outside; /* its thread works whenever its kernel does not run */
		else if (!cpu && own < 1)
			own = 1; /* its own thread, waiting on the device or not */
		used += own;
	}
	if (cpu && !isnan(f->device_busy) && cores > 0)
		used += f->device_busy * cores; /* a CPU device's kernel takes every core */
	return used;
}

/* diagnose_frame_predict with the processes' host cores given (used; NAN: one each). */
static int predict_with(const struct gd_frame *f, int cores, int target, double used, struct gd_prediction *p)
{
	*p = (struct gd_prediction){ .now = f->agg.rate,
		                     .procs = diagnose_procs(f),
		                     .rate = NAN,
		                     .host_cpu = diagnose_host_cpu(f),
		                     .cores = cores };
	if (p->procs < 1 || !(f->agg.rate > 0) || isnan(f->device_busy))
		return -1;
	double n = p->procs;
	double b1 = f->device_busy / n, c1 = isnan(used) ? 1 : used / n;
	double most = diagnose_predict(1, b1, c1, cores, INT_MAX); /* processes the bounds allow */
	p->bound = b1 > 0 && 1 / b1 <= most ? GD_BOUND_DEVICE : GD_BOUND_CORES;
	if (most <= n) { /* bound already: more processes only share what these have */
		p->reached = true;
		p->rate = p->now;
		return 0;
	}
	if (target <= most)
		p->bound = GD_BOUND_PROCS;
	p->rate = p->now / n * (target < most ? target : most);
	return 0;
}

int diagnose_frame_predict(const struct gd_frame *f, int cores, int target, struct gd_prediction *p)
{
	return predict_with(f, cores, target, diagnose_cores_used(f, cores), p);
}

/* Why p's bound is reached already. */
static int why_reached(char *buf, size_t n, int len, const struct gd_prediction *p)
{
	if (p->bound == GD_BOUND_DEVICE)
		return add(buf, n, len, "the device is already busy all the time");
	return add(buf, n, len, "the host's %d cores are already busy", p->cores);
}

int diagnose_predict_text(char *buf, size_t n, const struct gd_prediction *p, const char *unit)
{
	char r[32], now[32];
	diagnose_rate_text(r, sizeof(r), p->rate);
	diagnose_rate_text(now, sizeof(now), p->now);
	if (isnan(p->rate))
		return add(buf, n, 0, "not measured in this window");
	if (!p->reached)
		return add(buf, n, 0, "about %s %s (now %s with %d)", r, unit, now, p->procs);
	int len = add(buf, n, 0, "about %s %s, as now with %d: ", now, unit, p->procs);
	len = why_reached(buf, n, len, p);
	if (p->host_cpu && p->bound == GD_BOUND_CORES)
		len = add(buf, n, len,
		          " (the device is the host's CPU: its kernels and the host work share them)");
	return len;
}

int diagnose_shortfall(char *buf, size_t n, bool host_cpu, int cores, double queue_wait_us)
{
	if (host_cpu)
		return add(
		    buf, n, 0,
		    "the device is the host's CPU: its %d cores run the kernels and the host work of every "
		    "process",
		    cores);
	return add(buf, n, 0, "queue wait %.0f us: contexts taking turns", queue_wait_us);
}

/* The causes of v of 1% or more, largest first. */
static int line_causes(char *buf, size_t n, int len, const struct gd_idle *idle)
{
	bool done[GD_CAUSE_COUNT] = { false };
	const char *sep = "; idle: ";
	for (int k = 0; k < GD_CAUSE_COUNT; k++) {
		int best = -1;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			if (!done[c] && (best < 0 || idle->share[c] > idle->share[best]))
				best = c;
		done[best] = true;
		if (!(idle->share[best] >= 0.005))
			break;
		len = add(buf, n, len, "%s%s %.0f%%", sep, diagnose_name((enum gd_cause)best),
		          100 * idle->share[best]);
		sep = ", ";
	}
	return len;
}

int diagnose_line(char *buf, size_t n, const struct gd_verdict *v, const struct gd_prediction *p,
                  const char *unit)
{
	if (v->kind == GD_VERDICT_NONE || isnan(v->busy))
		return add(buf, n, 0, "idle time: not measured in this window");
	int len = add(buf, n, 0, "device %.0f%% busy", 100 * v->busy);
	if (v->kind == GD_VERDICT_CEILING) {
		len = add(buf, n, len, "; at the ceiling");
	} else {
		len = line_causes(buf, n, len, &v->idle);
		char r[32];
		diagnose_rate_text(r, sizeof(r), p->rate);
		if (p->reached)
			len = why_reached(buf, n, add(buf, n, len, "; more processes: no gain, "), p);
		else if (p->rate > p->now * 1.05)
			len = add(buf, n, len, "; more processes would reach about %s %s", r, unit);
		/* "other" has no lever to name; host work's names more processes, which the cores
		 * that bound them already would not run. */
		if (v->cause == GD_CAUSE_HOST && p->reached && p->bound == GD_BOUND_CORES)
			len = add(buf, n, len, "; lever: less host work per batch (the cores are spent)");
		else if (v->cause < GD_CAUSE_OTHER)
			len = add(buf, n, len, "; lever: %s", diagnose_lever(v->cause));
	}
	if (p->host_cpu)
		len = add(buf, n, len,
		          "; the device is the host's CPU: its kernels and the host work share %d cores",
		          p->cores);
	return len;
}

int diagnose_larger(char *buf, size_t n, double rate, double ceiling, double ceiling_4x, const char *unit)
{
	/* The calibration's own word on its ceiling, then room for this rate (NAN compares false). */
	const struct gd_ceiling c = { .rate = ceiling, .rate_4x = ceiling_4x };
	if (!(ceiling_gain_4x(&c) > GD_CEILING_LAUNCH_BOUND &&
	      ceiling_4x > rate * (1 + GD_CEILING_LAUNCH_BOUND))) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	char r[32];
	diagnose_rate_text(r, sizeof(r), ceiling_4x);
	return snprintf(buf, n, "; larger batches: about %s %s at %dx the size", r, unit, GD_CEILING_LARGER);
}

/* The largest cause of idle, GD_CAUSE_COUNT where none reaches 1% (rounded). */
static enum gd_cause largest(const struct gd_idle *idle)
{
	int best = 0;
	for (int c = 1; c < GD_CAUSE_COUNT; c++)
		if (idle->share[c] > idle->share[best])
			best = c;
	return idle->share[best] >= 0.005 ? (enum gd_cause)best : GD_CAUSE_COUNT;
}

/* v judged again on its figures, with hysteresis against its kind and cause so far. */
static void judge(struct gd_verdict *v, double t_s)
{
	enum gd_verdict_kind kind = v->kind;
	if (v->busy >= GD_DIAG_BUSY)
		kind = GD_VERDICT_CEILING;
	else if (kind != GD_VERDICT_CEILING || v->busy < GD_DIAG_BUSY_LEAVE)
		kind = GD_VERDICT_IDLE;
	enum gd_cause cause = GD_CAUSE_COUNT, best = largest(&v->idle);
	if (kind == GD_VERDICT_IDLE) {
		cause = best;
		if (v->kind == GD_VERDICT_IDLE && v->cause < GD_CAUSE_COUNT && best < GD_CAUSE_COUNT &&
		    v->idle.share[best] < v->idle.share[v->cause] + GD_DIAG_CAUSE_MARGIN)
			cause = v->cause; /* within the margin of the one named: keep it */
	}
	if (kind != v->kind || cause != v->cause)
		v->since_s = t_s;
	v->kind = kind;
	v->cause = cause;
}

void diagnose_span_reset(struct gd_span *s)
{
	s->head = s->n = s->procs = 0;
	s->v = (struct gd_verdict){ .kind = GD_VERDICT_NONE,
		                    .cause = GD_CAUSE_COUNT,
		                    .busy = NAN,
		                    .idle = GD_IDLE_NONE,
		                    .span_s = 0,
		                    .last_s = NAN,
		                    .since_s = NAN };
}

/* The span's figures: its windows' means weighted by their lengths. */
static void span_means(const struct gd_span *s, struct gd_verdict *v)
{
	double w = 0, busy = 0, idle[GD_CAUSE_COUNT] = { 0 };
	for (int k = 0; k < s->n; k++) {
		int i = (s->head - 1 - k + GD_VERDICT_WINDOWS) % GD_VERDICT_WINDOWS;
		w += s->win[i].window_s;
		busy += s->win[i].busy * s->win[i].window_s;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			idle[c] += nn(s->win[i].idle.share[c]) * s->win[i].window_s;
	}
	v->span_s = w;
	v->busy = busy / w;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		v->idle.share[c] = idle[c] / w;
	v->idle.hidden = NAN;
}

void diagnose_span_add(struct gd_span *s, struct gd_frame *f)
{
	int procs = diagnose_procs(f);
	if (procs != s->procs)
		s->n = 0; /* another situation: judged on its own windows */
	s->procs = procs;
	if (!isnan(f->device_busy) && !isnan(f->agg.idle.share[0]) && f->window_s > 0) {
		s->win[s->head].t_s = f->t_s;
		s->win[s->head].window_s = f->window_s;
		s->win[s->head].busy = f->device_busy;
		s->win[s->head].idle = f->agg.idle;
		s->head = (s->head + 1) % GD_VERDICT_WINDOWS;
		s->n += s->n < GD_VERDICT_WINDOWS;
		/* The oldest go once they ended a span ago. */
		while (s->n > 1 && s->win[(s->head - s->n + GD_VERDICT_WINDOWS) % GD_VERDICT_WINDOWS].t_s <=
		                       f->t_s - GD_VERDICT_SPAN_S)
			s->n--;
		span_means(s, &s->v);
		s->v.last_s = f->t_s;
		judge(&s->v, f->t_s);
	}
	f->verdict = s->v;
}

void diagnose_verdict_window(const struct gd_frame *f, struct gd_verdict *v)
{
	struct gd_span one;
	diagnose_span_reset(&one);
	*v = one.v;
	if (isnan(f->device_busy) || isnan(f->agg.idle.share[0]))
		return;
	v->busy = f->device_busy;
	v->idle = f->agg.idle;
	v->span_s = f->window_s;
	v->last_s = f->t_s;
	judge(v, f->t_s);
}

int diagnose_words(char *buf, size_t n, const struct gd_frame *f, double cores_used, int cores,
                   const char *unit)
{
	struct gd_verdict v = f->verdict;
	if (v.kind == GD_VERDICT_NONE)
		diagnose_verdict_window(f, &v);
	struct gd_prediction p; /* a frame without samples: the caller's count of cores */
	predict_with(f, cores, INT_MAX, f->nworkers ? diagnose_cores_used(f, cores) : cores_used, &p);
	int len = diagnose_line(buf, n, &v, &p, unit);
	if (v.kind != GD_VERDICT_NONE && f->t_s - v.last_s > GD_VERDICT_SPAN_S)
		len = add(buf, n, len, "; last measured %.0f s ago", f->t_s - v.last_s);
	if (v.kind != GD_VERDICT_NONE && len >= 0 && (size_t)len < n)
		len +=
		    diagnose_larger(buf + len, n - (size_t)len, f->agg.rate, f->ceiling, f->ceiling_4x, unit);
	return len;
}

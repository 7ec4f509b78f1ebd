/* diagnose.c: idle time by cause, its levers, and the gap-filling prediction (diagnose.h). */
#include "diagnose.h"

#include <math.h>
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

int diagnose_line(char *buf, size_t n, double device_busy, const struct gd_idle *idle, double rate, int procs,
                  double cores_used, int cores, const char *unit)
{
	if (isnan(device_busy) || isnan(idle->share[0]))
		return snprintf(buf, n, "idle time: not measured in this window");
	int len = snprintf(buf, n, "device %.0f%% busy", 100 * device_busy);
	if (device_busy >= GD_DIAG_BUSY)
		return len + snprintf(buf + len, len < (int)n ? n - (size_t)len : 0, "; at the ceiling");
	bool done[GD_CAUSE_COUNT] = { false };
	const char *sep = "; idle: ";
	int first = -1;                            /* the largest cause: its lever ends the line */
	for (int k = 0; k < GD_CAUSE_COUNT; k++) { /* largest first, those of 1% or more */
		int best = -1;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			if (!done[c] && (best < 0 || idle->share[c] > idle->share[best]))
				best = c;
		done[best] = true;
		if (idle->share[best] < 0.005)
			break;
		first = first < 0 ? best : first;
		len += snprintf(buf + len, len < (int)n ? n - (size_t)len : 0, "%s%s %.0f%%", sep,
		                diagnose_name((enum gd_cause)best), 100 * idle->share[best]);
		sep = ", ";
	}
	if (procs > 0 && rate > 0) {
		double most =
		    diagnose_predict(rate / procs, device_busy / procs, cores_used / procs, cores, 1 << 20);
		if (most > rate * 1.05)
			len += snprintf(buf + len, len < (int)n ? n - (size_t)len : 0,
			                "; more processes would reach about %.0f %s", most, unit);
	}
	if (first >= 0 && first != GD_CAUSE_OTHER) /* "other" has no lever to name */
		len += snprintf(buf + len, len < (int)n ? n - (size_t)len : 0, "; lever: %s",
		                diagnose_lever((enum gd_cause)first));
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
	return snprintf(buf, n, "; larger batches: about %.0f %s at %dx the size", ceiling_4x, unit,
	                GD_CEILING_LARGER);
}

int diagnose_words(char *buf, size_t n, const struct gd_frame *f, double cores_used, int cores,
                   const char *unit)
{
	int len = diagnose_line(buf, n, f->device_busy, &f->agg.idle, f->agg.rate, f->procs, cores_used,
	                        cores, unit);
	if (len >= 0 && (size_t)len < n && !isnan(f->device_busy))
		len +=
		    diagnose_larger(buf + len, n - (size_t)len, f->agg.rate, f->ceiling, f->ceiling_4x, unit);
	return len;
}

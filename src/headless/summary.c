/* summary.c: a sweep's summaries over its runs, and its text table on standard output. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "headless.h"
#include "measure/diagnose.h"
#include "measure/stats.h"
#include "sweep.h"

/* A table cell: the number, or n/a where it was not measured. */
static void cell(FILE *out, int width, int prec, double v)
{
	if (isnan(v))
		fprintf(out, " %*s", width, "n/a");
	else
		fprintf(out, " %*.*f", width, prec, v);
}

static bool stale(const struct gd_sweep_row *r)
{
	return ceiling_stale(r->of_ceiling);
}

/* The columns after the speedup, the device with several, and the bar for the rate. */
static void row_tail(FILE *out, const struct gd_sweep_row *r, double max, const char *note, bool devices)
{
	int bar = max > 0 && r->rate > 0 ? (int)lround(30.0 * r->rate / max) : 0;
	char bars[31];
	memset(bars, '#', (size_t)bar);
	bars[bar] = '\0';
	cell(out, 7, 1, 100 * r->device_busy);
	if (stale(r))
		fprintf(out, " %9s", "stale");
	else
		cell(out, 9, 1, 100 * r->of_ceiling);
	cell(out, 12, 1, r->gap_batch_us);
	cell(out, 11, 1, r->headroom);
	double room = r->headroom - r->rate;
	if (isnan(room))
		fprintf(out, " %9s", "n/a");
	else
		fprintf(out, " %+9.1f", room);
	fprintf(out, "%s", note);
	if (devices)
		fprintf(out, "  %-6s", r->device);
	fprintf(out, "  %s\n", bars);
}

/* What the prediction is, and the first step from which the measured rate falls short of it by
 * more than a fifth: where filling idle time stops explaining the curve. */
static void predicted_note(FILE *out, const struct gd_sweep_row *rows, int n)
{
	fprintf(out,
	        "predicted: the first step's rate per process times the fewest of the processes, "
	        "1 / its device busy and the host's cores / its cores: idle time filled, nothing else\n");
	int gen_cores = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (n > 0 && isfinite(rows[0].pipelined))
		fprintf(out,
		        "one pipelined process would reach about %.1f (from the first step: the fewer of "
		        "rate / device busy and what %d generating core%s make at %.0f us a batch)\n",
		        rows[0].pipelined, gen_cores, gen_cores == 1 ? "" : "s", rows[0].gen_us);
	for (int i = 0; i < n; i++) {
		const struct gd_sweep_row *r = &rows[i];
		if (strcmp(r->device, "all") != 0 || !(r->rate < 0.8 * r->predicted))
			continue;
		char why[200];
		diagnose_shortfall(why, sizeof(why), r->host_cpu, (int)sysconf(_SC_NPROCESSORS_ONLN),
		                   r->queue_wait_us);
		fprintf(
		    out,
		    "from %dx%d the rate is %.0f%% of the prediction: filling idle time no longer explains "
		    "it (%s)\n",
		    r->procs, r->queues, 100 * r->rate / r->predicted, why);
		return;
	}
}

/* The notes under the table: what the estimate is, the ceiling, a stale one, the steps not
 * measured. */
static void notes(FILE *out, const struct gd_sweep_row *rows, int n, const char *unit,
                  const struct gd_ceiling *ceiling)
{
	fprintf(out,
	        "at100%%busy~ is an estimate: %s / device busy, the rate if the device never idled; "
	        "room: at100%%busy~ less %s\n",
	        unit, unit);
	predicted_note(out, rows, n);
	if (!isnan(ceiling->rate)) {
		char larger[128];
		ceiling_say_4x(larger, sizeof(larger), ceiling, unit);
		fprintf(out, "ceiling: %.1f %s at this size%s\n", ceiling->rate, unit, larger);
	}
	bool any_stale = false;
	for (int i = 0; i < n; i++)
		any_stale = any_stale || stale(&rows[i]);
	if (any_stale)
		fprintf(out,
		        "%%ceiling stale: the rate is above the calibrated ceiling, which is out of date; "
		        "calibrate again (--calibrate, or c in the dashboard)\n");
	/* A step is a row of every device ("all"); its devices' rows follow it. */
	int step = 0, unmeasured = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(rows[i].device, "all") != 0)
			continue;
		step++;
		if (!isnan(rows[i].rate))
			continue;
		fprintf(out, "%s step %d (%dx%d)", unmeasured++ ? "," : "n/a:", step, rows[i].procs,
		        rows[i].queues);
	}
	if (unmeasured)
		fprintf(out,
		        ": not measured, no batch completed in %s windows (a batch takes longer than -D?)\n",
		        unmeasured > 1 ? "their" : "its");
}

void sweep_print(FILE *out, const struct gd_sweep_row *rows, int n, int runs, const char *unit,
                 const struct gd_ceiling *ceiling)
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
		fprintf(out, "%5s %6s %10s %8s %10s %10s %10s %8s %12s %7s %9s %12s %11s %9s %1s  %s\n",
		        "procs", "queues", unit, "sd", "min", "max", "predicted", "speedup", "min..max",
		        "busy%", "%ceiling", "gap_batch_us", "at100%busy~", "room", "~", last);
	else
		fprintf(out, "%5s %6s %10s %10s %8s %7s %9s %12s %11s %9s  %s\n", "procs", "queues", unit,
		        "predicted", "speedup", "busy%", "%ceiling", "gap_batch_us", "at100%busy~", "room",
		        last);
	for (int i = 0; i < n; i++) {
		const struct gd_sweep_row *r = &rows[i];
		fprintf(out, "%5d %6d", r->procs, r->queues);
		cell(out, 10, 2, r->rate);
		if (runs > 1) {
			cell(out, 8, 2, r->rate_spread.sd);
			cell(out, 10, 2, r->rate_spread.min);
			cell(out, 10, 2, r->rate_spread.max);
		}
		cell(out, 10, 2, r->predicted);
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
	notes(out, rows, n, unit, ceiling);
}

void sweep_summarise(const struct gd_sweep_row *run, const struct gd_sweep_row *first, int k,
                     const struct gd_sweep_row *prev, struct gd_sweep_row *sum)
{
	double v[GD_REPEAT_MAX], ratio[GD_REPEAT_MAX], f[GD_REPEAT_MAX];
	struct gd_spread sp;
	*sum = run[0];
	sum->rep = 0;
	sum->runs = k;
	for (int r = 0; r < k; r++) {
		v[r] = run[r].rate;
		f[r] = first ? first[r].rate : NAN;
		ratio[r] = run[r].speedup;
	}
	stats_spread(v, k, &sum->rate_spread);
	stats_spread(ratio, k, &sum->speedup_spread);
	stats_spread(f, k, &sp);
	sum->rate = sum->rate_spread.mean;
	sum->speedup = sp.mean > 0 ? sum->rate / sp.mean : NAN; /* within min..max of the runs' */
	/* The other figures: means over the runs that measured them. */
	const size_t off[] = {
		offsetof(struct gd_sweep_row, device_busy),   offsetof(struct gd_sweep_row, gap_batch_us),
		offsetof(struct gd_sweep_row, headroom),      offsetof(struct gd_sweep_row, of_ceiling),
		offsetof(struct gd_sweep_row, queue_wait_us), offsetof(struct gd_sweep_row, cores),
		offsetof(struct gd_sweep_row, predicted),     offsetof(struct gd_sweep_row, pipelined),
		offsetof(struct gd_sweep_row, gen_us),        offsetof(struct gd_sweep_row, batch_units)
	};
	size_t offs[GD_ARRAY_LEN(off) + GD_CAUSE_COUNT];
	memcpy(offs, off, sizeof(off));
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		offs[GD_ARRAY_LEN(off) + (size_t)c] =
		    offsetof(struct gd_sweep_row, idle) + (size_t)c * sizeof(double);
	for (size_t j = 0; j < GD_ARRAY_LEN(offs); j++) {
		for (int r = 0; r < k; r++)
			memcpy(&v[r], (const char *)&run[r] + offs[j], sizeof(double));
		stats_spread(v, k, &sp);
		memcpy((char *)sum + offs[j], &sp.mean, sizeof(double));
	}
	sum->within_spread = prev && k > 1 && prev->rate_spread.n > 1
	                         ? stats_within_spread(&prev->rate_spread, &sum->rate_spread)
	                         : -1;
}

/* report_run.c: the report's words (report_impl.h): the diagnosis, from the very figures the
 * charts draw (a sweep's last step, or the means over a run's measured windows), so that the
 * page quotes one device busy; and the run's options as a table of those that applied. */
#include "report_impl.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/ceiling.h"
#include "measure/diagnose.h"

void report_run_figures(const struct gd_report *r, struct report_figures *f)
{
	double w = 0, rate = 0, busy = 0, procs = 0, idle[GD_CAUSE_COUNT] = { 0 }, used = 0, wused = 0;
	*f = (struct report_figures){ .rate = NAN, .busy = NAN, .procs = 0, .cores_used = NAN };
	for (size_t c = 0; c < GD_CAUSE_COUNT; c++)
		f->idle[c] = NAN;
	for (size_t i = 0; i < r->nwin; i++) {
		const struct report_window *x = &r->win[i];
		if (isnan(x->busy) || isnan(x->idle[0]) || !(x->len > 0))
			continue; /* the windows that measured the device, weighted by their lengths */
		w += x->len;
		rate += x->len * (isfinite(x->rate) ? x->rate : 0);
		busy += x->len * x->busy;
		procs += x->len * x->procs;
		for (int c = 0; c < GD_CAUSE_COUNT; c++)
			idle[c] += x->len * x->idle[c];
		if (isfinite(x->cores_used)) {
			used += x->len * x->cores_used;
			wused += x->len;
		}
		f->windows++;
	}
	if (!(w > 0))
		return;
	f->rate = rate / w;
	f->busy = busy / w;
	f->procs = procs / w;
	for (int c = 0; c < GD_CAUSE_COUNT; c++)
		f->idle[c] = idle[c] / w;
	f->cores_used = wused > 0 ? used / wused : NAN;
}

/* The diagnosis in words (diagnose_words) from figures f: a frame that carries just them. */
static void words(const struct gd_report *r, const struct report_figures *f, char *buf, size_t n)
{
	struct gd_frame *fr = xcalloc(1, sizeof(*fr));
	fr->observed = true;
	fr->procs = (int)lround(f->procs);
	fr->agg.rate = f->rate;
	fr->device_busy = f->busy;
	memcpy(fr->agg.idle.share, f->idle, sizeof(fr->agg.idle.share));
	fr->agg.idle.hidden = NAN;
	fr->verdict.kind = GD_VERDICT_NONE; /* judged from these figures alone */
	fr->ceiling = r->ceiling;
	fr->ceiling_4x = r->ceiling_4x;
	fr->ndevs = 1;
	fr->devs[0].host_cpu = r->host_cpu;
	diagnose_words(buf, n, fr, f->cores_used, (int)sysconf(_SC_NPROCESSORS_ONLN), r->unit);
	free(fr);
}

/* What a sweep's first step predicts for its last, after the diagnosis. */
static void step_predictions(const struct gd_report *r, struct gd_text *t)
{
	const struct gd_sweep_row *last = &r->steps[r->nsteps - 1];
	const char *sep = ". ";
	if (isfinite(last->predicted)) {
		text_printf(t,
		            "%sFilling idle time alone predicts %.2f %s for it (it measured %.0f%% of that)",
		            sep, last->predicted, r->unit, 100 * last->rate / last->predicted);
		sep = "; ";
	}
	if (isfinite(r->steps[0].pipelined))
		text_printf(t, "%s%s pipelined process would reach about %.2f %s", sep,
		            *sep == '.' ? "One" : "one", r->steps[0].pipelined, r->unit);
}

void report_diagnosis(struct gd_report *r, struct gd_text *t)
{
	struct report_figures f;
	text_printf(t, "<h2>Diagnosis</h2>\n<p class=\"diag\">");
	if (r->nsteps) {
		const struct gd_sweep_row *last = &r->steps[r->nsteps - 1];
		f = (struct report_figures){ .rate = last->rate,
			                     .busy = last->device_busy,
			                     .procs = last->procs,
			                     .cores_used = last->cores,
			                     .windows = 1 };
		memcpy(f.idle, last->idle, sizeof(f.idle));
		text_printf(t, "The last step, %dx%d, reached %.2f %s: ", last->procs, last->queues,
		            last->rate, r->unit);
	} else {
		report_run_figures(r, &f);
		if (f.windows)
			text_printf(t, "Over the run's %d measured windows: ", f.windows);
	}
	char buf[512];
	if (isnan(f.busy) || isnan(f.idle[0]))
		snprintf(buf, sizeof(buf), "%s",
		         r->nsteps ? "device busy not measured"
		                   : "No window measured the device's busy time");
	else
		words(r, &f, buf, sizeof(buf));
	report_esc(t, buf);
	if (r->nsteps)
		step_predictions(r, t);
	if (isfinite(r->ceiling)) {
		char larger[128];
		struct gd_ceiling c = { .rate = r->ceiling, .rate_4x = r->ceiling_4x };
		ceiling_say_4x(larger, sizeof(larger), &c, r->unit);
		text_printf(t, ". The calibrated ceiling: %.2f %s", r->ceiling, r->unit);
		report_esc(t, larger);
	}
	text_printf(t, ".</p>\n");
}

/* ---- the options table ---- */

/* The decode kernel's options: an observed program does its own work, so none applies to it. */
static const char *const decode_only[] = { "size",          "launches",  "dtype",     "mode",   "queues",
	                                   "gen-threads",   "generator", "calibrate", "kernel", "kernel-name",
	                                   "build-options", "arg",       "verify",    NULL };

static bool listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* A code point as UTF-8 (a surrogate, which the header never holds, as U+FFFD). */
static void utf8(struct gd_text *out, unsigned cp)
{
	if (cp >= 0xd800 && cp < 0xe000)
		cp = 0xfffd;
	if (cp < 0x80)
		text_printf(out, "%c", (char)cp);
	else if (cp < 0x800)
		text_printf(out, "%c%c", (char)(0xc0 | cp >> 6), (char)(0x80 | (cp & 0x3f)));
	else
		text_printf(out, "%c%c%c", (char)(0xe0 | cp >> 12), (char)(0x80 | (cp >> 6 & 0x3f)),
		            (char)(0x80 | (cp & 0x3f)));
}

/* The JSON string at p (its opening quote) unescaped onto out; the text after it. */
static const char *json_string(const char *p, struct gd_text *out)
{
	for (p++; *p && *p != '"'; p++) {
		if (*p != '\\') {
			text_printf(out, "%c", *p);
			continue;
		}
		p++;
		if (*p == 'u' && strspn(p + 1, "0123456789abcdefABCDEF") >= 4) {
			char hex[5] = { p[1], p[2], p[3], p[4], '\0' };
			utf8(out, (unsigned)strtoul(hex, NULL, 16));
			p += 4;
		} else if (*p) {
			text_printf(out, "%c", *p == 'n' ? ' ' : *p == 't' ? ' ' : *p);
		} else {
			break;
		}
	}
	return *p ? p + 1 : p;
}

/* The JSON value at p onto out: a string unescaped, an array's strings joined by spaces, any
 * other token as it is; the text after it. */
static const char *json_value(const char *p, struct gd_text *out)
{
	if (*p == '"')
		return json_string(p, out);
	if (*p == '[') {
		for (p++; *p && *p != ']';) {
			if (*p == '"') {
				if (out->n)
					text_printf(out, " ");
				p = json_string(p, out);
			} else {
				p++;
			}
		}
		return *p ? p + 1 : p;
	}
	const char *end = p + strcspn(p, ",}]");
	text_printf(out, "%.*s", (int)(end - p), p);
	return end;
}

void report_options(const struct gd_report *r, struct gd_text *t)
{
	/* The header's object is flat (opts_json): "name":value pairs, the program under "command". */
	bool observed = strstr(r->run_json, "\"command\":[") != NULL;
	struct gd_text rows = { 0 }, command = { 0 };
	for (const char *p = r->run_json; (p = strchr(p, '"'));) {
		struct gd_text name = { 0 }, value = { 0 };
		p = json_string(p, &name);
		if (*p == ':')
			p = json_value(p + 1, &value);
		const char *n = name.p ? name.p : "", *v = value.p ? value.p : "";
		if (strcmp(n, "command") == 0)
			report_esc(&command, v);
		else if (strcmp(v, "null") != 0 && strcmp(v, "false") != 0 &&
		         !(observed && listed(decode_only, n)) &&
		         (observed || strcmp(n, "observe-via") != 0)) {
			text_printf(&rows, "<tr><th scope=\"row\">--");
			report_esc(&rows, n);
			text_printf(&rows, "</th><td>");
			report_esc(&rows, strcmp(v, "true") ? v : "yes");
			text_printf(&rows, "</td></tr>\n");
		}
		free(name.p);
		free(value.p);
	}
	text_printf(t, "<h2>Run</h2>\n<p>The options that applied to this run, defaults included%s.</p>\n",
	            observed
	                ? " (an observed program does its own work: the decode kernel's options do not apply)"
	                : "");
	text_printf(t, "<table class=\"run\">\n");
	if (command.p)
		text_printf(t, "<tr><th scope=\"row\">program</th><td><code>%s</code></td></tr>\n",
		            command.p);
	text_printf(t, "%s</table>\n", rows.p ? rows.p : "");
	free(rows.p);
	free(command.p);
}

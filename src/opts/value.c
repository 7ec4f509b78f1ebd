/* value.c: a parsed command line read back: what the options alone decide (the queues, the
 * generation threads, the normal generator, the seconds a run lasts, the use it asks for) and
 * every option's value as the log's run header states it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gputop/common.h"
#include "opts_impl.h"

int opts_queues(const struct gd_opts *o)
{
	if (o->queues > 0)
		return o->queues;
	/* Pipelined: 8, the fewest in-order queues with which a plain pipelined loop reaches the
	 * ceiling on the H200 (doc/PERFORMANCE.md); other modes: 1, the original's. */
	return o->mode == GD_MODE_PIPELINED ? 8 : 1;
}

enum gd_generator opts_generator(const struct gd_opts *o)
{
	return gd_generator_of(o->generator, o->mode);
}

double opts_duration(const struct gd_opts *o)
{
	return o->duration > 0 ? o->duration : o->nsweep ? GD_SWEEP_STEP_S : 0;
}

int opts_gen_threads(const struct gd_opts *o, int cores)
{
	if (o->mode != GD_MODE_PIPELINED)
		return 0;
	if (o->gen_threads >= 0)
		return o->gen_threads;
	/* A share of the cores, less one for the worker's own thread, which enqueues. */
	int share = cores / (o->procs > 0 ? o->procs : 1) - 1;
	return share < 1 ? 1 : share > 16 ? 16 : share;
}

/* --list-devices, --headless with --sweep or without, else the dashboard. */
unsigned opts_use(const struct gd_opts *o)
{
	if (o->role == GD_ROLE_LIST)
		return GD_USE_LIST;
	if (o->role == GD_ROLE_HEADLESS)
		return o->nsweep ? GD_USE_SWEEP : GD_USE_HEADLESS;
	return GD_USE_DASHBOARD;
}

/* ---- Values, as the log's run header states them ---- */

/* A sweep list as it would be typed: 1,2x4. */
static void sweep_text(const struct gd_opts *o, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < o->nsweep && len < n; i++) {
		int w = o->sweep[i].queues
		            ? snprintf(buf + len, n - len, "%s%dx%d", i ? "," : "", o->sweep[i].procs,
		                       o->sweep[i].queues)
		            : snprintf(buf + len, n - len, "%s%d", i ? "," : "", o->sweep[i].procs);
		len += w > 0 ? (size_t)w : 0;
	}
}

/* Whether a whole-number option is left to the run: --gen-threads as a fair share of cores
 * (set at start; only pipelined uses it), --sample-every while it adapts (only sampled). */
static bool decided_later(const struct gd_opts *o, const struct gd_optdef *d, long long v)
{
	if (strcmp(d->name, "gen-threads") == 0)
		return v < 0 || o->mode != GD_MODE_PIPELINED;
	if (strcmp(d->name, "sample-every") == 0)
		return v == 0 || o->profile != GD_PROF_SAMPLED;
	return false;
}

/* A whole number; the mode's own queues where --queues was not given. */
static enum gd_optval whole_value(const struct gd_opts *o, const struct gd_optdef *d, char *buf, size_t n)
{
	long long v = strcmp(d->name, "queues") == 0 ? opts_queues(o) : opts_read_whole(o, d);
	if (decided_later(o, d, v))
		return GD_VAL_NONE;
	snprintf(buf, n, "%lld", v);
	return GD_VAL_NUMBER;
}

enum gd_optval opts_value(const struct gd_opts *o, const struct gd_optdef *d, char *buf, size_t n)
{
	buf[0] = '\0';
	switch (d->kind) {
	case GD_OPT_FLAG:
		snprintf(buf, n, "%s", *(const bool *)((const char *)o + d->offset) ? "true" : "false");
		return GD_VAL_BOOL;
	case GD_OPT_ROLE:
		if (opts_internal(d))
			return GD_VAL_NONE;
		snprintf(buf, n, "%s", o->role == d->role ? "true" : "false");
		return GD_VAL_BOOL;
	case GD_OPT_WHOLE:
		return whole_value(o, d, buf, n);
	case GD_OPT_SECONDS: {
		double v;
		memcpy(&v, (const char *)o + d->offset, sizeof(v));
		if (strcmp(d->name, "duration") == 0 && (v = opts_duration(o)) <= 0)
			return GD_VAL_NONE; /* until stopped */
		snprintf(buf, n, "%.15g", v);
		return GD_VAL_NUMBER;
	}
	case GD_OPT_CHOICE: { /* the mode's own generator where --generator was not given */
		long long v = strcmp(d->name, "generator") == 0 ? opts_generator(o) : opts_read_whole(o, d);
		snprintf(buf, n, "%s", d->names[v]);
		return GD_VAL_TEXT;
	}
	case GD_OPT_FILE:
	case GD_OPT_TEXT: {
		const char *f = *(const char *const *)((const char *)o + d->offset);
		if (!f)
			return GD_VAL_NONE;
		snprintf(buf, n, "%s", f);
		return GD_VAL_TEXT;
	}
	case GD_OPT_KARG: /* the --arg values, space-separated, in the order given */
		if (!o->nkargs)
			return GD_VAL_NONE;
		for (int i = 0, at = 0; i < o->nkargs && at < (int)n; i++)
			at += snprintf(buf + at, n - (size_t)at, "%s%s", i ? " " : "", o->kargs[i]);
		return GD_VAL_TEXT;
	case GD_OPT_DEVICE: /* after the probe, the run's devices as a list */
		if (o->devices.sel == GD_DEVSEL_ALL || o->devices.sel == GD_DEVSEL_NAME) {
			snprintf(buf, n, "%s", o->devices.name);
			return GD_VAL_TEXT;
		}
		if (o->platform < 0)
			return GD_VAL_NONE;
		snprintf(buf, n, "%d:%d", o->platform, o->device);
		for (int i = 1, at = (int)strlen(buf); i < o->devices.n && at < (int)n; i++)
			at += snprintf(buf + at, n - (size_t)at, ",%d:%d", o->devices.list[i].platform,
			               o->devices.list[i].index);
		return GD_VAL_TEXT;
	case GD_OPT_SWEEP:
		if (!o->nsweep)
			return GD_VAL_NONE;
		sweep_text(o, buf, n);
		return GD_VAL_TEXT;
	case GD_OPT_LISTEN: /* as typed: a port 0 is chosen at start */
		if (!o->listen.set || !o->listen.text)
			return GD_VAL_NONE;
		snprintf(buf, n, "%s", o->listen.text);
		return GD_VAL_TEXT;
	case GD_OPT_WORKER:
		break;
	}
	return GD_VAL_NONE;
}

void opts_json(const struct gd_opts *o, struct gd_text *j)
{
	const char *sep = "";
	text_printf(j, "{");
	for (size_t i = 0; i < opts_ndefs; i++) {
		const struct gd_optdef *d = &opts_defs[i];
		char val[PATH_MAX + 64]; /* a path (--kernel is resolved), or the --arg values */
		if (!(d->applies & opts_use(o)))
			continue; /* the run's own options only */
		enum gd_optval kind = opts_value(o, d, val, sizeof(val));
		text_printf(j, "%s\"%s\":", sep, d->name);
		sep = ",";
		if (kind == GD_VAL_TEXT)
			text_json_clean(j, val);
		else
			text_printf(j, "%s", kind == GD_VAL_NONE ? "null" : val);
	}
	if (o->command) { /* what was observed: the program and its arguments, after -- */
		text_printf(j, "%s\"command\":[", sep);
		for (char *const *a = o->command; *a; a++) {
			text_printf(j, "%s", a == o->command ? "" : ",");
			text_json_clean(j, *a);
		}
		text_printf(j, "]");
	}
	text_printf(j, "}");
}

struct gd_kspec opts_kspec(const struct gd_opts *o)
{
	struct gd_kspec k = { .source = o->kernel,
		              .name = o->kernel_name,
		              .build_options = o->build_options,
		              .nargs = o->nkargs,
		              .size = o->size,
		              .launches = o->launches,
		              .dtype = o->dtype,
		              .observed = o->command != NULL };
	memcpy(k.args, o->kargs, sizeof(k.args));
	return k;
}

struct gd_workload opts_workload(const struct gd_opts *o, int gen_threads)
{
	return (struct gd_workload){ .kernel = opts_kspec(o),
		                     .mode = o->mode,
		                     .queues = opts_queues(o),
		                     .gen_threads = gen_threads,
		                     .profile = o->profile,
		                     .sample_every = o->sample_every,
		                     .verify = o->verify,
		                     .generator = opts_generator(o) };
}

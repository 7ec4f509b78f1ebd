/* parse.c: the command line into struct gd_opts, by the option table: getopt_long's arrays, the
 * defaults, the roles, what applies to each use and the checks across options; each option's
 * value is read by its kind (parse_value.c). */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/near.h"
#include "output/sink.h"
#include "parser.h"

static const struct gd_optdef *by_letter(int c)
{
	for (size_t i = 0; i < opts_ndefs; i++)
		if (opts_defs[i].letter == c)
			return &opts_defs[i];
	return NULL;
}

static bool takes_value(const struct gd_optdef *d)
{
	return d->kind != GD_OPT_FLAG && d->kind != GD_OPT_ROLE;
}

static void name_option(struct parser *p, const struct gd_optdef *d, bool long_form)
{
	if (long_form)
		snprintf(p->name, sizeof(p->name), "--%s", d->name);
	else
		snprintf(p->name, sizeof(p->name), "-%c", d->letter);
	p->opt = p->name;
}

int parser_fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(p->err, p->errlen, "%s: ", p->opt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	/* The message echoes what was typed: it stays one line, whatever that held. */
	for (char *c = p->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* Help, version and worker take effect at once, the last one given winning; the listing and
 * headless logging are settled after every option, the listing first. */
static void ask_role(struct parser *p, struct gd_opts *o, enum gd_role r)
{
	if (r == GD_ROLE_HEADLESS || r == GD_ROLE_LIST)
		p->pending |= 1u << r;
	else if (r != GD_ROLE_NONE)
		o->role = r;
}

static void settle_role(const struct parser *p, struct gd_opts *o)
{
	if (p->pending & (1u << GD_ROLE_LIST))
		o->role = GD_ROLE_LIST;
	else if (p->pending & (1u << GD_ROLE_HEADLESS))
		o->role = GD_ROLE_HEADLESS;
	else
		o->role = GD_ROLE_DASHBOARD;
}

static int defaults(struct parser *p, struct gd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->platform = o->device = -1; /* chosen at start */
	o->gen_threads = -1;          /* a fair share, at start */
	for (size_t i = 0; i < opts_ndefs; i++) {
		if (!opts_defs[i].def)
			continue;
		name_option(p, &opts_defs[i], true);
		if (parser_set_value(p, &opts_defs[i], opts_defs[i].def, o))
			return -1;
	}
	return 0;
}

/* A value capped by another option's value (such as --procs by --max-procs). */
static int check_bound(struct parser *p, const struct gd_optdef *d, const struct gd_opts *o)
{
	long long cap = opts_read_whole(o, opts_find(d->bound));
	name_option(p, d, true);
	if (d->kind != GD_OPT_SWEEP) {
		long long v = opts_read_whole(o, d);
		return v > cap ? parser_fail(p, "%lld is more than --%s %lld", v, d->bound, cap) : 0;
	}
	for (int i = 0; i < o->nsweep; i++)
		if (o->sweep[i].procs > cap)
			return parser_fail(p, "count %d is more than --%s %lld", o->sweep[i].procs, d->bound,
			                   cap);
	return 0;
}

/* Generation threads are the pipelined mode's own. */
static int check_gen_threads(struct parser *p, const struct gd_opts *o)
{
	p->opt = "--gen-threads";
	return o->gen_threads >= 0 && o->mode != GD_MODE_PIPELINED ? parser_fail(p, "needs --mode pipelined")
	                                                           : 0;
}

/* Queues are the pipelined and kernel-only modes' own: the seed loop has one. */
static int check_queues(struct parser *p, const struct gd_opts *o)
{
	if (o->mode != GD_MODE_SEED)
		return 0;
	bool more = o->queues > 1;
	for (int i = 0; i < o->nsweep; i++)
		more = more || o->sweep[i].queues > 1;
	p->opt = o->queues > 1 ? "--queues" : "--sweep";
	return more ? parser_fail(p, "more than one queue needs --mode pipelined or kernel-only") : 0;
}

/* Every option given applies to what the command line asks for: the dashboard, --headless,
 * --sweep or --list-devices. */
static int check_applies(struct parser *p, const struct gd_opts *o)
{
	unsigned use = opts_use(o);
	const char *what = use == GD_USE_LIST       ? "--list-devices"
	                   : use == GD_USE_SWEEP    ? "--sweep"
	                   : use == GD_USE_HEADLESS ? "--headless"
	                                            : "the dashboard";
	for (size_t i = 0; i < opts_ndefs; i++)
		if ((p->given >> i & 1) && !(opts_defs[i].applies & use)) {
			name_option(p, &opts_defs[i], !(p->letter >> i & 1));
			return parser_fail(p, "does not apply to %s", what);
		}
	return 0;
}

/* -- COMMAND runs copies of a program instead of workers: --observe-via needs it; the worker's
 * own loop (--kernel, --verify) does not go with it, nor its ceiling (--calibrate measures the
 * decode kernel, which says nothing of another program's work), and a sweep's steps count
 * copies, whose queues are the program's own. */
static int check_command(struct parser *p, const struct gd_opts *o)
{
	size_t via = (size_t)(opts_find("observe-via") - opts_defs);
	if (!o->command && (p->given >> via & 1)) {
		p->opt = "--observe-via";
		return parser_fail(p, "needs -- COMMAND");
	}
	if (o->command && (o->kernel || o->verify)) {
		p->opt = o->kernel ? "--kernel" : "--verify";
		return parser_fail(p, "does not apply to an observed program (-- COMMAND)");
	}
	if (o->command && o->calibrate) {
		p->opt = "--calibrate";
		return parser_fail(p, "does not apply to an observed program (-- COMMAND): the ceiling it "
		                      "measures is the decode kernel's, not the program's");
	}
	for (int i = 0; o->command && i < o->nsweep; i++)
		if (o->sweep[i].queues) {
			p->opt = "--sweep";
			return parser_fail(
			    p, "step %dx%d: an observed program's queues are its own: give copies only",
			    o->sweep[i].procs, o->sweep[i].queues);
		}
	return 0;
}

/* A user kernel's options need --kernel; the decode kernel's own (--dtype, --verify's CPU
 * reference) do not apply to it. */
static int check_kernel(struct parser *p, const struct gd_opts *o)
{
	if (!o->kernel) {
		p->opt = o->kernel_name ? "--kernel-name" : "--arg";
		return o->kernel_name || o->nkargs ? parser_fail(p, "needs --kernel FILE") : 0;
	}
	p->opt = "--verify";
	if (o->verify)
		return parser_fail(p, "has no CPU check for a user kernel (--kernel): run without it");
	p->opt = "--dtype";
	if (p->given >> (size_t)(opts_find("dtype") - opts_defs) & 1)
		return parser_fail(p, "does not apply to --kernel: the kernel's argument types decide");
	return 0;
}

/* The first name of list that no field of the table has, refused with the field nearest to it
 * (near.h); 0 where there is none such, or none near it (sink_fields_parse says the rest). */
static int near_field(struct parser *p, const char *list, bool sweep)
{
	const char *names[GD_FIELDS_MAX];
	size_t n = 0;
	while (n < GD_FIELDS_MAX && (names[n] = sink_field_name(sweep, n)))
		n++;
	for (const char *q = list;; q++) {
		size_t len = strcspn(q, ",");
		const char *near =
		    len && sink_field_find(sweep, q, len) < 0 ? gd_near(q, len, names, n) : NULL;
		if (near)
			return parser_fail(p, "unknown field '%.*s' (did you mean %s?)",
			                   len < 64 ? (int)len : 64, q, near);
		q += len;
		if (*q == '\0')
			return 0;
	}
}

/* --fields names the log's columns: the sweep rows' fields with --sweep, else the frame rows'.
 * Read once every option is known, as --sweep may come after it. */
static int check_fields(struct parser *p, struct gd_opts *o)
{
	char why[256];
	memset(&o->fields, 0, sizeof(o->fields));
	if (!o->fields_text)
		return 0;
	p->opt = "--fields";
	if (near_field(p, o->fields_text, o->nsweep > 0))
		return -1;
	return sink_fields_parse(o->fields_text, o->nsweep > 0, &o->fields, why, sizeof(why))
	           ? parser_fail(p, "%s", why)
	           : 0;
}

/* --rate-unit NAME:ITEMS names the unit of an observed program's or a user kernel's work (the
 * decode kernel's is Mbit/s already): NAME printable, without a comma or a quote (it is a log
 * cell), ITEMS a positive number. */
static int check_rate_unit(struct parser *p, struct gd_opts *o)
{
	const char *t = o->rate_unit_text;
	if (!t)
		return 0;
	p->opt = "--rate-unit";
	if (!o->command && !o->kernel)
		return parser_fail(p, "names the unit of an observed program (-- COMMAND) or of --kernel; "
		                      "the decode kernel's rates are Mbit/s");
	const char *colon = strrchr(t, ':');
	size_t len = colon ? (size_t)(colon - t) : 0;
	char *end = NULL;
	double items = colon ? strtod(colon + 1, &end) : 0;
	bool plain = len > 0 && len < sizeof(o->rate_unit);
	for (size_t i = 0; plain && i < len; i++)
		plain = t[i] > ' ' && t[i] < 0x7f && !strchr(",\"'", t[i]);
	if (!plain || !end || end == colon + 1 || *end || !(items > 0) || !isfinite(items))
		return parser_fail(p,
		                   "'%.40s': want NAME:ITEMS, a unit's name (up to %zu characters, no "
		                   "space, comma or quote) and the work items that make one, e.g. "
		                   "Mbit/s:10",
		                   t, sizeof(o->rate_unit) - 1);
	memcpy(o->rate_unit, t, len);
	o->rate_unit[len] = '\0';
	o->rate_items = items;
	return 0;
}

static int check_bounds(struct parser *p, const struct gd_opts *o)
{
	for (size_t i = 0; i < opts_ndefs; i++)
		if (opts_defs[i].bound && check_bound(p, &opts_defs[i], o))
			return -1;
	return check_queues(p, o) || check_gen_threads(p, o) || check_kernel(p, o) ? -1 : 0;
}

/* getopt_long's arrays, from the table: long option i is opts_defs[i]. */
static void getopt_arrays(struct option *longs, char *shorts)
{
	*shorts++ = ':'; /* a missing value is reported as ':' */
	for (size_t i = 0; i < opts_ndefs; i++) {
		const struct gd_optdef *d = &opts_defs[i];
		/* Distinct values: getopt_long calls an abbreviation of two options ambiguous only then. */
		longs[i] = (struct option){ d->name, takes_value(d) ? required_argument : no_argument, NULL,
			                    d->letter ? d->letter : 256 + (int)i };
		if (d->letter) {
			*shorts++ = d->letter;
			if (takes_value(d))
				*shorts++ = ':';
		}
	}
	longs[opts_ndefs] = (struct option){ NULL, 0, NULL, 0 };
	*shorts = '\0';
}

/* The listed options whose long name is the n characters at name or starts with them: how
 * many, their names joined into list, and the last of them. An exact name is the only one. */
static int candidates(const char *name, size_t n, char *list, size_t len, const struct gd_optdef **last)
{
	int k = 0;
	list[0] = '\0';
	for (size_t i = 0; i < opts_ndefs; i++) {
		const struct gd_optdef *d = &opts_defs[i];
		if (opts_internal(d) || strncmp(d->name, name, n) != 0)
			continue;
		if (d->name[n] == '\0') {
			snprintf(list, len, "--%s", d->name);
			*last = d;
			return 1;
		}
		size_t used = strlen(list);
		snprintf(list + used, len - used, "%s--%s", k ? ", " : "", d->name);
		*last = d;
		k++;
	}
	return k;
}

/* The listed option's long name nearest to the n characters at name (near.h), or NULL. */
static const char *near_option(const char *name, size_t n)
{
	const char *names[OPTS_MAX];
	for (size_t i = 0; i < opts_ndefs; i++)
		names[i] = opts_internal(&opts_defs[i]) ? NULL : opts_defs[i].name;
	return gd_near(name, n, names, opts_ndefs);
}

/* getopt_long's '?' (an unknown or ambiguous option, or a value given to a flag) or ':' (no
 * value), for the argument cur. */
static int refuse(struct parser *p, int c, const char *cur)
{
	snprintf(p->name, sizeof(p->name), "%.60s", cur);
	p->opt = p->name;
	if (c == ':')
		return parser_fail(p, "missing value");
	if (cur[0] == '-' && cur[1] == '-') {
		size_t n = strcspn(cur + 2, "=");
		snprintf(p->name, sizeof(p->name), "--%.*s", n < 60 ? (int)n : 60, cur + 2);
		char list[512];
		const struct gd_optdef *d = NULL;
		int k = n ? candidates(cur + 2, n, list, sizeof(list), &d) : 0;
		if (k > 1)
			return parser_fail(p, "ambiguous option (could be %s)", list);
		if (k == 1 && cur[2 + n] == '=' && !takes_value(d)) {
			name_option(p, d, true);
			return parser_fail(p, "takes no value");
		}
		const char *near = near_option(cur + 2, n);
		if (near)
			return parser_fail(p, "unknown option (did you mean --%s?)", near);
		return parser_fail(p, "unknown option (see --help)");
	}
	if (optopt && optopt < 256)
		snprintf(p->name, sizeof(p->name), "-%c", optopt);
	return parser_fail(p, "unknown option (see --help)");
}

/* getopt_long accepts any unambiguous prefix of a long name; an internal option counts only
 * spelled in full. at is the argument getopt_long took it from. */
static int check_spelling(struct parser *p, const struct gd_optdef *d, const char *at)
{
	size_t n = strlen(d->name);
	if (strncmp(at, "--", 2) == 0 && strncmp(at + 2, d->name, n) == 0 &&
	    (at[2 + n] == '\0' || at[2 + n] == '='))
		return 0;
	snprintf(p->name, sizeof(p->name), "%.*s", (int)strcspn(at, "="), at);
	p->opt = p->name;
	return parser_fail(p, "unknown option (see --help)");
}

/* One option that getopt_long returned: opts_defs[li] when it came by its long name. */
static int take(struct parser *p, int c, int li, const char *arg, struct gd_opts *o)
{
	const struct gd_optdef *d = li >= 0 ? &opts_defs[li] : by_letter(c);
	size_t i = (size_t)(d - opts_defs);
	p->given |= UINT64_C(1) << i;
	if (li >= 0)
		p->letter &= ~(UINT64_C(1) << i);
	else
		p->letter |= UINT64_C(1) << i;
	name_option(p, d, li >= 0);
	if (parser_set_value(p, d, arg, o))
		return -1;
	ask_role(p, o, d->role);
	return 0;
}

int opts_parse(int argc, char **argv, struct gd_opts *o, char *err, size_t errlen)
{
	struct parser p = { .err = err, .errlen = errlen, .opt = "" };
	struct option longs[OPTS_MAX + 1];
	char shorts[2 * OPTS_MAX + 2];
	getopt_arrays(longs, shorts);
	err[0] = '\0';
	if (defaults(&p, o))
		return -1;
	optind = 0; /* glibc: a full re-initialisation, so the parser can run again */
	opterr = 0;
	for (;;) {
		int li = -1;
		int c = getopt_long(argc, argv, shorts, longs, &li);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			return refuse(&p, c, optind > 0 && optind <= argc ? argv[optind - 1] : "");
		/* The argument it came from: the one before its value, when that came apart. */
		int at = li >= 0 && takes_value(&opts_defs[li]) && optarg == argv[optind - 1] ? optind - 2
		                                                                              : optind - 1;
		if (li >= 0 && opts_internal(&opts_defs[li]) &&
		    check_spelling(&p, &opts_defs[li], at > 0 ? argv[at] : ""))
			return -1;
		if (take(&p, c, li, optarg, o))
			return -1;
	}
	/* After "--", the program to observe and its arguments (getopt_long stops there). */
	if (optind < argc && optind > 1 && strcmp(argv[optind - 1], "--") == 0)
		o->command = &argv[optind];
	else if (optind < argc) {
		p.opt = argv[optind];
		return parser_fail(&p, "unexpected argument (see --help)");
	}
	o->given = p.given;
	/* --fields help asks for the list of fields, as --help-fields does: nothing runs. */
	if (o->role == GD_ROLE_NONE && o->fields_text && strcmp(o->fields_text, "help") == 0)
		o->role = GD_ROLE_HELP;
	if (o->role != GD_ROLE_NONE)
		return 0; /* help, version or an internal role: nothing else applies */
	settle_role(&p, o);
	if (check_applies(&p, o) || check_command(&p, o) || check_fields(&p, o) || check_rate_unit(&p, o))
		return -1;
	return check_bounds(&p, o);
}

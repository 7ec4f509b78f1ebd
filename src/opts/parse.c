/* parse.c: the command line into struct gd_opts, by the option table: getopt_long's arrays, the
 * defaults, the range checks with their messages, the roles and what applies to each use. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/kargs.h"
#include "opts_impl.h"

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

struct parser {
	char *err;
	size_t errlen;
	const char *opt;  /* the option being parsed, for messages */
	char name[64];    /* its name, where opt points here */
	unsigned pending; /* roles settled after every option: bits (1u << GD_ROLE_...) */
	uint64_t given;   /* options given: bit i is opts_defs[i] */
	uint64_t letter;  /* ... given last by their letter */
};

static void name_option(struct parser *p, const struct gd_optdef *d, bool long_form)
{
	if (long_form)
		snprintf(p->name, sizeof(p->name), "--%s", d->name);
	else
		snprintf(p->name, sizeof(p->name), "-%c", d->letter);
	p->opt = p->name;
}

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
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

static void *field(struct gd_opts *o, const struct gd_optdef *d)
{
	return (char *)o + d->offset;
}

/* int, uint32_t, uint64_t and enum fields hold the same non-negative values alike. */
static void store_whole(struct gd_opts *o, const struct gd_optdef *d, long long v)
{
	if (d->bytes == sizeof(uint64_t)) {
		uint64_t u = (uint64_t)v;
		memcpy(field(o, d), &u, sizeof(u));
	} else {
		uint32_t u = (uint32_t)v;
		memcpy(field(o, d), &u, sizeof(u));
	}
}

/* ---- Numbers: one rule for all of them ----
 * A number is exactly its digits (and, for seconds, a point and an exponent): nothing that
 * strtol or strtod would skip or take around them is accepted, no whitespace and no sign. A
 * minus sign is read only to say that the value is below the range (none of the ranges has
 * negative values). */

static size_t ndigits(const char *s)
{
	return strspn(s, "0123456789");
}

/* Only decimal digits, at least one. */
static bool all_digits(const char *s)
{
	return *s && s[ndigits(s)] == '\0';
}

/* A decimal number as typed: digits with at most one point, then an optional exponent. */
static bool decimal(const char *s)
{
	size_t whole = ndigits(s), frac = 0;
	s += whole;
	if (*s == '.') {
		frac = ndigits(s + 1);
		s += 1 + frac;
	}
	if (whole + frac == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s += 1 + (s[1] == '+' || s[1] == '-');
		size_t exp = ndigits(s);
		if (exp == 0)
			return false;
		s += exp;
	}
	return *s == '\0';
}

/* A whole decimal integer in [lo, hi]. */
static int parse_int(struct parser *p, const char *s, long long lo, long long hi, long long *out)
{
	bool minus = s[0] == '-';
	if (!all_digits(s + minus))
		return fail(p, "'%s' is not a whole number", s);
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno == ERANGE || v < lo || v > hi || (minus && lo >= 0))
		return fail(p, "'%s' is out of range (%lld..%lld)", s, lo, hi);
	*out = v;
	return 0;
}

static int set_whole(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	long long v = 0;
	if (parse_int(p, s, (long long)d->min, (long long)d->max, &v))
		return -1;
	store_whole(o, d, v);
	return 0;
}

static int set_seconds(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	bool minus = s[0] == '-';
	double v = decimal(s + minus) ? strtod(s, NULL) : NAN;
	if (!isfinite(v))
		return fail(p, "'%s' is not a number of seconds", s);
	if (v < d->min || v > d->max || (minus && d->min >= 0))
		return fail(p, "'%s' is out of range (%g..%g seconds)", s, d->min, d->max);
	*(double *)field(o, d) = v;
	return 0;
}

static int set_choice(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	for (int i = (int)d->min; i <= (int)d->max; i++)
		if (strcmp(s, d->names[i]) == 0) {
			store_whole(o, d, i);
			return 0;
		}
	char list[128];
	opts_join_names(d, ", ", list, sizeof(list));
	return fail(p, "unknown value '%s' (expected %s)", s, list);
}

static int set_file(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	if (*s == '\0') /* --kernel-name takes a NAME, the others a FILE */
		return fail(p, "empty %s",
		            d->metavar && strcmp(d->metavar, "FILE") != 0 ? "name" : "file name");
	*(const char **)field(o, d) = s;
	return 0;
}

static int set_text(const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	*(const char **)field(o, d) = s;
	return 0;
}

static int set_karg(struct parser *p, const char *s, struct gd_opts *o)
{
	if (!kargs_given_valid(s))
		return fail(p, "'%s' is not NAME=VALUE (an argument's name, '=', its value)", s);
	if (o->nkargs == GD_KARGS_MAX)
		return fail(p, "more than %d values", GD_KARGS_MAX);
	o->kargs[o->nkargs++] = s;
	return 0;
}

/* One P:D of a device list at s; *end is left after it. */
static int device_ref(struct parser *p, const struct gd_optdef *d, const char *all, const char *s,
                      const char **end, struct gd_devref *out)
{
	/* Digits, a colon, digits: each index at most 9 digits, so strtol cannot overflow. */
	size_t plat = ndigits(s), dev = s[plat] == ':' ? ndigits(s + plat + 1) : 0;
	long v[2] = { -1, -1 };
	*end = s + plat + 1 + dev;
	if (plat && dev && plat <= 9 && dev <= 9 && (**end == '\0' || **end == ',')) {
		v[0] = strtol(s, NULL, 10);
		v[1] = strtol(s + plat + 1, NULL, 10);
	}
	for (int i = 0; i < 2; i++)
		if (v[i] < d->min || v[i] > d->max)
			return fail(
			    p,
			    "'%s' is not PLATFORM:DEVICE[,PLATFORM:DEVICE...] (for example 0:0), all, "
			    "or a device name",
			    all);
	*out = (struct gd_devref){ .platform = (int)v[0], .index = (int)v[1] };
	return 0;
}

/* A list when it holds a colon or is only digits, commas and signs; else all or a name. */
static int set_device(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	struct gd_devspec *ds = &o->devices;
	memset(ds, 0, sizeof(*ds));
	if (*s == '\0')
		return fail(p, "empty device (expected P:D, a list, all or a name)");
	if (!strchr(s, ':') && s[strspn(s, "0123456789,+- ")] != '\0') {
		ds->sel = strcmp(s, "all") == 0 ? GD_DEVSEL_ALL : GD_DEVSEL_NAME;
		ds->name = s;
		return 0;
	}
	ds->sel = GD_DEVSEL_LIST;
	for (const char *q = s;; q++) {
		struct gd_devref r = { -1, -1 };
		if (device_ref(p, d, s, q, &q, &r))
			return -1;
		for (int i = 0; i < ds->n; i++)
			if (ds->list[i].platform == r.platform && ds->list[i].index == r.index)
				return fail(p, "%d:%d is listed twice", r.platform, r.index);
		if (ds->n == GD_DEVICES_MAX)
			return fail(p, "more than %d devices", GD_DEVICES_MAX);
		ds->list[ds->n++] = r;
		if (*q == '\0')
			break;
	}
	o->platform = ds->list[0].platform;
	o->device = ds->list[0].index;
	return 0;
}

/* One number of a sweep step, in [lo, hi]; *end is left after it. */
static int step_number(struct parser *p, const char *s, const char *q, long lo, long hi, char **end, int *out)
{
	*end = (char *)q;
	if (*q < '0' || *q > '9')
		return fail(p, "'%s' is not a comma-separated list of steps such as 1,2,4 or 1x4", s);
	errno = 0;
	long v = strtol(q, end, 10);
	if (errno || v < lo || v > hi)
		return fail(p, "'%.*s' in '%s' is out of range (%ld..%ld)", (int)(*end - q), q, s, lo, hi);
	*out = (int)v;
	return 0;
}

static int set_sweep(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	o->nsweep = 0;
	if (*s == '\0')
		return fail(p, "empty list (expected steps such as 1,2,4,8 or 1x4)");
	const char *q = s;
	for (;;) {
		char *end;
		if (o->nsweep == GD_SWEEP_MAX)
			return fail(p, "more than %d steps", GD_SWEEP_MAX);
		struct gd_step *st = &o->sweep[o->nsweep++];
		st->queues = 0;
		if (step_number(p, s, q, (long)d->min, (long)d->max, &end, &st->procs))
			return -1;
		if (*end == 'x' && step_number(p, s, end + 1, 1, GD_QUEUES_MAX, &end, &st->queues))
			return -1;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return fail(p, "'%s' is not a comma-separated list of steps such as 1,2,4 or 1x4", s);
		q = end + 1;
	}
}

/* Digits of the base at *s (16 hexadecimal or 19 decimal at most, so that strtoull cannot
 * overflow), then the character after: moves *s past both. */
static bool field_then(const char **s, int base, char after, unsigned long long *out)
{
	size_t n = base == 16 ? strspn(*s, "0123456789abcdefABCDEF") : ndigits(*s);
	if (n == 0 || n > (base == 16 ? 16u : 19u) || (*s)[n] != after)
		return false;
	*out = strtoull(*s, NULL, base);
	*s += n + (after != '\0');
	return true;
}

/* NAME,GEN,ID,SUPERVISOR-PID: internal, written by spec_child_argv. */
static int set_worker(struct parser *p, const char *s, struct gd_worker_args *w)
{
	const char *comma = strchr(s, ',');
	if (!comma || comma == s || (size_t)(comma - s) >= sizeof(w->shm))
		return fail(p, "malformed worker arguments");
	const char *q = comma + 1;
	unsigned long long gen, id, supervisor;
	if (!field_then(&q, 16, ',', &gen) || !field_then(&q, 10, ',', &id) ||
	    !field_then(&q, 10, '\0', &supervisor) || id > 1000000 || supervisor == 0 ||
	    supervisor > INT32_MAX)
		return fail(p, "malformed worker arguments");
	memcpy(w->shm, s, (size_t)(comma - s));
	w->shm[comma - s] = '\0';
	w->gen = gen;
	w->id = (unsigned)id;
	w->supervisor = (pid_t)supervisor;
	return 0;
}

/* A broadcast (255.255.255.255) or multicast (224.0.0.0/4, ff00::/8) address, which no TCP
 * server can be reached on; the kernel would bind some of them all the same. A subnet's
 * broadcast address depends on the interface and is the kernel's to refuse. */
static bool listen_not_unicast(const struct gd_listen *l)
{
	if (l->family == AF_INET6)
		return l->addr[0] == 0xff;
	return (l->addr[0] & 0xf0) == 0xe0 ||
	       (l->addr[0] == 255 && l->addr[1] == 255 && l->addr[2] == 255 && l->addr[3] == 255);
}

/* ADDR:PORT (an IPv4 literal), [ADDR6]:PORT, :PORT or PORT (the last two on 127.0.0.1); no
 * host names, so nothing is looked up. */
static int set_listen(struct parser *p, const char *s, struct gd_listen *l)
{
	char host[64] = "";
	const char *port = s;
	l->family = AF_INET;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		size_t n = close ? (size_t)(close - s - 1) : 0;
		if (!close || close[1] != ':' || n == 0 || n >= sizeof(host))
			return fail(p, "'%s' is not [IPV6-ADDRESS]:PORT", s);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		l->family = AF_INET6;
		port = close + 2;
	} else if (strrchr(s, ':')) {
		size_t n = (size_t)(strrchr(s, ':') - s);
		if (n >= sizeof(host) || memchr(s, ':', n))
			return fail(p, "'%s' is not ADDR:PORT (an IPv6 address goes in brackets: [::1]:9400)",
			            s);
		memcpy(host, s, n);
		host[n] = '\0';
		port = s + n + 1;
	}
	memset(l->addr, 0, sizeof(l->addr));
	if (host[0] == '\0')
		l->addr[0] = 127, l->addr[3] = 1; /* loopback unless an address is given */
	else if (inet_pton(l->family, host, l->addr) != 1)
		return fail(p, "'%s' is not an IP address (such as 127.0.0.1, 0.0.0.0 or [::1])", host);
	if (listen_not_unicast(l))
		return fail(p,
		            "'%s' is a broadcast or multicast address: a server listens on a unicast "
		            "address (such as 127.0.0.1, 0.0.0.0 or [::1])",
		            host);
	if (!all_digits(port) || strlen(port) > 5 || strtol(port, NULL, 10) > 65535)
		return fail(p, "'%s': the port is not a number from 0 to 65535", s);
	l->port = (unsigned)strtol(port, NULL, 10);
	l->text = s;
	l->set = true;
	return 0;
}

static int set_value(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	switch (d->kind) {
	case GD_OPT_FLAG:
		*(bool *)field(o, d) = true;
		break;
	case GD_OPT_ROLE:
		break;
	case GD_OPT_WHOLE:
		return set_whole(p, d, s, o);
	case GD_OPT_SECONDS:
		return set_seconds(p, d, s, o);
	case GD_OPT_CHOICE:
		return set_choice(p, d, s, o);
	case GD_OPT_FILE:
		return set_file(p, d, s, o);
	case GD_OPT_DEVICE:
		return set_device(p, d, s, o);
	case GD_OPT_SWEEP:
		return set_sweep(p, d, s, o);
	case GD_OPT_WORKER:
		return set_worker(p, s, &o->worker);
	case GD_OPT_LISTEN:
		return set_listen(p, s, &o->listen);
	case GD_OPT_TEXT:
		return set_text(d, s, o);
	case GD_OPT_KARG:
		return set_karg(p, s, o);
	}
	return 0;
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
		if (set_value(p, &opts_defs[i], opts_defs[i].def, o))
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
		return v > cap ? fail(p, "%lld is more than --%s %lld", v, d->bound, cap) : 0;
	}
	for (int i = 0; i < o->nsweep; i++)
		if (o->sweep[i].procs > cap)
			return fail(p, "count %d is more than --%s %lld", o->sweep[i].procs, d->bound, cap);
	return 0;
}

/* Generation threads are the pipelined mode's own. */
static int check_gen_threads(struct parser *p, const struct gd_opts *o)
{
	p->opt = "--gen-threads";
	return o->gen_threads >= 0 && o->mode != GD_MODE_PIPELINED ? fail(p, "needs --mode pipelined") : 0;
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
	return more ? fail(p, "more than one queue needs --mode pipelined or kernel-only") : 0;
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
			return fail(p, "does not apply to %s", what);
		}
	return 0;
}

/* -- COMMAND runs copies of a program instead of workers: --observe-via needs it; the worker's
 * own loop (--kernel, --verify) does not go with it, and a sweep's steps count copies, whose
 * queues are the program's own. */
static int check_command(struct parser *p, const struct gd_opts *o)
{
	size_t via = (size_t)(opts_find("observe-via") - opts_defs);
	if (!o->command && (p->given >> via & 1)) {
		p->opt = "--observe-via";
		return fail(p, "needs -- COMMAND");
	}
	if (o->command && (o->kernel || o->verify)) {
		p->opt = o->kernel ? "--kernel" : "--verify";
		return fail(p, "does not apply to an observed program (-- COMMAND)");
	}
	for (int i = 0; o->command && i < o->nsweep; i++)
		if (o->sweep[i].queues) {
			p->opt = "--sweep";
			return fail(p,
			            "step %dx%d: an observed program's queues are its own: give copies only",
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
		return o->kernel_name || o->nkargs ? fail(p, "needs --kernel FILE") : 0;
	}
	p->opt = "--verify";
	if (o->verify)
		return fail(p, "has no CPU check for a user kernel (--kernel): run without it");
	p->opt = "--dtype";
	if (p->given >> (size_t)(opts_find("dtype") - opts_defs) & 1)
		return fail(p, "does not apply to --kernel: the kernel's argument types decide");
	return 0;
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
	return sink_fields_parse(o->fields_text, o->nsweep > 0, &o->fields, why, sizeof(why))
	           ? fail(p, "%s", why)
	           : 0;
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

/* getopt_long's '?' (an unknown or ambiguous option, or a value given to a flag) or ':' (no
 * value), for the argument cur. */
static int refuse(struct parser *p, int c, const char *cur)
{
	snprintf(p->name, sizeof(p->name), "%.60s", cur);
	p->opt = p->name;
	if (c == ':')
		return fail(p, "missing value");
	if (cur[0] == '-' && cur[1] == '-') {
		size_t n = strcspn(cur + 2, "=");
		snprintf(p->name, sizeof(p->name), "--%.*s", n < 60 ? (int)n : 60, cur + 2);
		char list[512];
		const struct gd_optdef *d = NULL;
		int k = n ? candidates(cur + 2, n, list, sizeof(list), &d) : 0;
		if (k > 1)
			return fail(p, "ambiguous option (could be %s)", list);
		if (k == 1 && cur[2 + n] == '=' && !takes_value(d)) {
			name_option(p, d, true);
			return fail(p, "takes no value");
		}
		return fail(p, "unknown option (see --help)");
	}
	if (optopt && optopt < 256)
		snprintf(p->name, sizeof(p->name), "-%c", optopt);
	return fail(p, "unknown option (see --help)");
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
	return fail(p, "unknown option (see --help)");
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
	if (set_value(p, d, arg, o))
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
		return fail(&p, "unexpected argument (see --help)");
	}
	o->given = p.given;
	if (o->role != GD_ROLE_NONE)
		return 0; /* help, version or an internal role: nothing else applies */
	settle_role(&p, o);
	if (check_applies(&p, o) || check_command(&p, o) || check_fields(&p, o))
		return -1;
	return check_bounds(&p, o);
}

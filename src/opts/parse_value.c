/* parse_value.c: one option's value, from its text into its field of struct gd_opts, by the
 * option's kind: numbers and seconds within the option's range, choices, file names, device
 * lists, sweep steps, the worker role's arguments, an address to listen on, NAME=VALUE
 * arguments; each refusal says what was expected. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/kargs.h"
#include "gputop/near.h"
#include "parser.h"

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
		return parser_fail(p, "'%s' is not a whole number", s);
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno == ERANGE || v < lo || v > hi || (minus && lo >= 0))
		return parser_fail(p, "'%s' is out of range (%lld..%lld)", s, lo, hi);
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
		return parser_fail(p, "'%s' is not a number of seconds", s);
	if (v < d->min || v > d->max || (minus && d->min >= 0))
		return parser_fail(p, "'%s' is out of range (%g..%g seconds)", s, d->min, d->max);
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
	const char *near = gd_near(s, strlen(s), d->names + (int)d->min, (size_t)(d->max - d->min) + 1);
	if (near)
		return parser_fail(p, "unknown value '%s' (did you mean %s?)", s, near);
	char list[128];
	opts_join_names(d, ", ", list, sizeof(list));
	return parser_fail(p, "unknown value '%s' (expected %s)", s, list);
}

static int set_file(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	if (*s == '\0') /* --kernel-name takes a NAME, the others a FILE */
		return parser_fail(p, "empty %s",
		                   d->metavar && strcmp(d->metavar, "FILE") != 0 ? "name" : "file name");
	*(const char **)field(o, d) = s;
	return 0;
}

static int set_text(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	(void)p;
	*(const char **)field(o, d) = s;
	return 0;
}

static int set_karg(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	(void)d;
	if (!kargs_given_valid(s))
		return parser_fail(p, "'%s' is not NAME=VALUE (an argument's name, '=', its value)", s);
	if (o->nkargs == GD_KARGS_MAX)
		return parser_fail(p, "more than %d values", GD_KARGS_MAX);
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
			return parser_fail(
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
		return parser_fail(p, "empty device (expected P:D, a list, all or a name)");
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
				return parser_fail(p, "%d:%d is listed twice", r.platform, r.index);
		if (ds->n == GD_DEVICES_MAX)
			return parser_fail(p, "more than %d devices", GD_DEVICES_MAX);
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
		return parser_fail(p, "'%s' is not a comma-separated list of steps such as 1,2,4 or 1x4", s);
	errno = 0;
	long v = strtol(q, end, 10);
	if (errno || v < lo || v > hi)
		return parser_fail(p, "'%.*s' in '%s' is out of range (%ld..%ld)", (int)(*end - q), q, s, lo,
		                   hi);
	*out = (int)v;
	return 0;
}

static int set_sweep(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	o->nsweep = 0;
	if (*s == '\0')
		return parser_fail(p, "empty list (expected steps such as 1,2,4,8 or 1x4)");
	const char *q = s;
	for (;;) {
		char *end;
		if (o->nsweep == GD_SWEEP_MAX)
			return parser_fail(p, "more than %d steps", GD_SWEEP_MAX);
		struct gd_step *st = &o->sweep[o->nsweep++];
		st->queues = 0;
		if (step_number(p, s, q, (long)d->min, (long)d->max, &end, &st->procs))
			return -1;
		if (*end == 'x' && step_number(p, s, end + 1, 1, GD_QUEUES_MAX, &end, &st->queues))
			return -1;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return parser_fail(
			    p, "'%s' is not a comma-separated list of steps such as 1,2,4 or 1x4", s);
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
static int set_worker(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	(void)d;
	struct gd_worker_args *w = &o->worker;
	const char *comma = strchr(s, ',');
	if (!comma || comma == s || (size_t)(comma - s) >= sizeof(w->shm))
		return parser_fail(p, "malformed worker arguments");
	const char *q = comma + 1;
	unsigned long long gen, id, supervisor;
	if (!field_then(&q, 16, ',', &gen) || !field_then(&q, 10, ',', &id) ||
	    !field_then(&q, 10, '\0', &supervisor) || id > 1000000 || supervisor == 0 ||
	    supervisor > INT32_MAX)
		return parser_fail(p, "malformed worker arguments");
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
static int set_listen(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	(void)d;
	struct gd_listen *l = &o->listen;
	char host[64] = "";
	const char *port = s;
	l->family = AF_INET;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		size_t n = close ? (size_t)(close - s - 1) : 0;
		if (!close || close[1] != ':' || n == 0 || n >= sizeof(host))
			return parser_fail(p, "'%s' is not [IPV6-ADDRESS]:PORT", s);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		l->family = AF_INET6;
		port = close + 2;
	} else if (strrchr(s, ':')) {
		size_t n = (size_t)(strrchr(s, ':') - s);
		if (n >= sizeof(host) || memchr(s, ':', n))
			return parser_fail(
			    p, "'%s' is not ADDR:PORT (an IPv6 address goes in brackets: [::1]:9400)", s);
		memcpy(host, s, n);
		host[n] = '\0';
		port = s + n + 1;
	}
	memset(l->addr, 0, sizeof(l->addr));
	if (host[0] == '\0')
		l->addr[0] = 127, l->addr[3] = 1; /* loopback unless an address is given */
	else if (inet_pton(l->family, host, l->addr) != 1)
		return parser_fail(p, "'%s' is not an IP address (such as 127.0.0.1, 0.0.0.0 or [::1])",
		                   host);
	if (listen_not_unicast(l))
		return parser_fail(p,
		                   "'%s' is a broadcast or multicast address: a server listens on a unicast "
		                   "address (such as 127.0.0.1, 0.0.0.0 or [::1])",
		                   host);
	if (!all_digits(port) || strlen(port) > 5 || strtol(port, NULL, 10) > 65535)
		return parser_fail(p, "'%s': the port is not a number from 0 to 65535", s);
	l->port = (unsigned)strtol(port, NULL, 10);
	l->text = s;
	l->set = true;
	return 0;
}

static int set_flag(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	(void)p;
	(void)s;
	*(bool *)field(o, d) = true;
	return 0;
}

/* A role's option has no value: the role is asked for once the option is taken (parse.c). */
static int set_role(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	(void)p;
	(void)d;
	(void)s;
	(void)o;
	return 0;
}

/* The reader of each kind of value. */
static int (*const setters[])(struct parser *p, const struct gd_optdef *d, const char *s,
                              struct gd_opts *o) = {
	[GD_OPT_FLAG] = set_flag,       [GD_OPT_ROLE] = set_role,     [GD_OPT_WHOLE] = set_whole,
	[GD_OPT_SECONDS] = set_seconds, [GD_OPT_CHOICE] = set_choice, [GD_OPT_FILE] = set_file,
	[GD_OPT_DEVICE] = set_device,   [GD_OPT_SWEEP] = set_sweep,   [GD_OPT_WORKER] = set_worker,
	[GD_OPT_LISTEN] = set_listen,   [GD_OPT_TEXT] = set_text,     [GD_OPT_KARG] = set_karg,
};

int parser_set_value(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o)
{
	return setters[d->kind](p, d, s, o);
}

/* kargs.c: a kernel's arguments set up by convention (kargs.h): pure, unit-tested. */
#include "gputop/kargs.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

static const struct {
	const char *name;
	size_t size;
	bool integer, is_signed;
} bases[] = {
	[KA_CHAR] = { "char", 1, true, true },    [KA_UCHAR] = { "uchar", 1, true, false },
	[KA_SHORT] = { "short", 2, true, true },  [KA_USHORT] = { "ushort", 2, true, false },
	[KA_INT] = { "int", 4, true, true },      [KA_UINT] = { "uint", 4, true, false },
	[KA_LONG] = { "long", 8, true, true },    [KA_ULONG] = { "ulong", 8, true, false },
	[KA_FLOAT] = { "float", 4, false, true }, [KA_DOUBLE] = { "double", 8, false, true },
};

/* A type name: base, vector width (1: scalar), pointer. false for anything else. */
struct ka_type {
	enum ka_base base;
	unsigned width;
	bool pointer;
};

static bool parse_type(const char *s, struct ka_type *t)
{
	char buf[KA_NAME_LEN];
	str_copy(buf, sizeof(buf), s);
	size_t n = strlen(buf);
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	t->pointer = n > 0 && buf[n - 1] == '*';
	if (t->pointer)
		buf[--n] = '\0';
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	size_t d = n;
	while (d > 0 && buf[d - 1] >= '0' && buf[d - 1] <= '9')
		d--;
	t->width = d < n ? (unsigned)strtoul(buf + d, NULL, 10) : 1;
	if (t->width != 1 && t->width != 2 && t->width != 3 && t->width != 4 && t->width != 8 &&
	    t->width != 16)
		return false;
	if (d < n && t->width == 1)
		return false; /* "float1" is no type */
	buf[d] = '\0';
	const char *name = buf;
	static const char *const unsigned_names[] = { "unsigned char", "unsigned short", "unsigned int",
		                                      "unsigned long" };
	static const enum ka_base unsigned_bases[] = { KA_UCHAR, KA_USHORT, KA_UINT, KA_ULONG };
	for (size_t i = 0; i < GD_ARRAY_LEN(unsigned_names); i++)
		if (strcmp(name, unsigned_names[i]) == 0) {
			t->base = unsigned_bases[i];
			return t->width == 1;
		}
	for (size_t i = 0; i < GD_ARRAY_LEN(bases); i++)
		if (strcmp(name, bases[i].name) == 0) {
			t->base = (enum ka_base)i;
			return true;
		}
	return false;
}

static bool opaque_type(const char *s)
{
	return strncmp(s, "image", 5) == 0 || strcmp(s, "sampler_t") == 0 || strncmp(s, "pipe", 4) == 0 ||
	       strcmp(s, "queue_t") == 0 || strcmp(s, "clk_event_t") == 0 || strcmp(s, "event_t") == 0;
}

bool kargs_given_valid(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return n > 0 && n < KA_NAME_LEN && s[n] == '=' && s[n + 1] != '\0';
}

/* The value of --arg NAME=VALUE for name, or NULL; the last one given wins. */
static const char *given_value(const char *name, const char *const *given, int ngiven, int *which)
{
	size_t n = strlen(name);
	const char *v = NULL;
	for (int i = 0; i < ngiven; i++)
		if (strncmp(given[i], name, n) == 0 && given[i][n] == '=') {
			v = given[i] + n + 1;
			*which = i;
		}
	return v;
}

/* A whole number of s: all of it, in [1, max]; false otherwise. */
static bool whole(const char *s, unsigned long long max, unsigned long long *out)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return false;
	*out = v;
	return true;
}

/* An integer of size bytes (1, 2, 4 or 8) at dst, in the host's order, from its low bits. */
static void store_int(void *dst, uint64_t x, size_t size)
{
	uint8_t b = (uint8_t)x;
	uint16_t h = (uint16_t)x;
	uint32_t w = (uint32_t)x;
	memcpy(dst,
	       size == 1   ? (void *)&b
	       : size == 2 ? (void *)&h
	       : size == 4 ? (void *)&w
	                   : (void *)&x,
	       size);
}

/* The tool's one rule for numbers, as --arg takes them: only the number's own characters, no
 * whitespace around it and no '+'; a '-' only where the type has a sign; integers in decimal
 * (a leading 0 is no octal) or 0x hexadecimal; reals as digits, a point and an exponent. */
static bool number_text(const char *s, bool is_signed, bool real)
{
	static const char digits[] = "0123456789";
	const char *p = s + (is_signed && *s == '-');
	if (!real && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return p[2] && strspn(p + 2, "0123456789abcdefABCDEF") == strlen(p + 2);
	if (!real)
		return *p && strspn(p, digits) == strlen(p);
	size_t whole = strspn(p, digits), frac = 0;
	p += whole;
	if (*p == '.')
		p += 1 + (frac = strspn(p + 1, digits));
	if (whole + frac == 0)
		return false;
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '-' || p[1] == '+');
		size_t e = strspn(p, digits);
		if (!e)
			return false;
		p += e;
	}
	return *p == '\0';
}

/* A scalar of type base from s into a->value; false when s is no such value (or one the type
 * cannot hold: out of range, or a nonzero real that would become 0). */
static bool scalar_value(enum ka_base base, const char *s, struct ka_setup *a)
{
	char *end;
	bool real = base == KA_FLOAT || base == KA_DOUBLE;
	if (!number_text(s, bases[base].is_signed, real))
		return false;
	errno = 0;
	int radix = strchr(s, 'x') || strchr(s, 'X') ? 16 : 10;
	if (real) {
		double v = strtod(s, &end);
		if (end == s || *end || !isfinite(v) || errno == ERANGE)
			return false;
		if (base == KA_FLOAT) {
			float f = (float)v;
			if (!isfinite(f) || (f == 0 && v != 0))
				return false;
			memcpy(a->value, &f, sizeof(f));
		} else {
			memcpy(a->value, &v, sizeof(v));
		}
		return true;
	}
	size_t size = bases[base].size;
	if (bases[base].is_signed) {
		long long v = strtoll(s, &end, radix);
		long long lim = size == 8 ? INT64_MAX : (1LL << (8 * size - 1)) - 1;
		if (end == s || *end || errno == ERANGE || v > lim || v < -lim - 1)
			return false;
		store_int(a->value, (uint64_t)v, size); /* two's complement: the same low bits */
		return true;
	}
	unsigned long long v = strtoull(s, &end, radix);
	unsigned long long lim = size == 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
	if (end == s || *end || errno == ERANGE || v > lim)
		return false;
	store_int(a->value, v, size);
	return true;
}

static bool is_count_name(const char *s)
{
	return strcmp(s, "n") == 0 || strcmp(s, "N") == 0 || strcmp(s, "count") == 0 ||
	       strcmp(s, "size") == 0;
}

/* The fail helper: "argument 'x' (float*): why", -1. */
__attribute__((format(printf, 4, 5))) static int refuse(const struct ka_desc *d, char *err, size_t errlen,
                                                        const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "argument '%s' (%s%s): %s", d->name,
	         d->addr == KA_ADDR_LOCAL      ? "local "
	         : d->addr == KA_ADDR_CONSTANT ? "constant "
	                                       : "",
	         d->type, why);
	return -1;
}

/* A buffer argument (global or constant pointer). */
static int plan_buffer(const struct ka_desc *d, const struct ka_type *t, const char *v, size_t items,
                       struct ka_setup *a, char *err, size_t errlen)
{
	bool input = d->addr == KA_ADDR_CONSTANT || d->is_const;
	bool real = t->base == KA_FLOAT || t->base == KA_DOUBLE;
	a->kind = !input ? KA_OUT : real ? KA_IN_BATCH : KA_IN_ONCE;
	a->count = items;
	if (v) {
		unsigned long long k;
		if (strncmp(v, "len:", 4) != 0 || !whole(v + 4, KA_LEN_MAX, &k))
			return refuse(d, err, errlen,
			              "'%s' is not a length: pass --arg %s=len:K (K elements, 1..%u)", v,
			              d->name, KA_LEN_MAX);
		/* Each of the N work items reads or writes its own element (the convention): fewer
		 * elements would be read or written past their end, on the device's heap. */
		if (k < items)
			return refuse(
			    d, err, errlen,
			    "len:%llu is fewer elements than the N = %zu work items that each use one: "
			    "pass at least len:%zu",
			    k, items, items);
		a->count = (size_t)k;
		a->given = true;
	}
	a->bytes = a->count * a->lanes * bases[t->base].size;
	return 0;
}

static int plan_one(const struct ka_desc *d, const char *v, size_t items, struct ka_setup *a, char *err,
                    size_t errlen)
{
	struct ka_type t;
	memset(a, 0, sizeof(*a));
	if (opaque_type(d->type))
		return refuse(
		    d, err, errlen,
		    "images, samplers and pipes cannot be set up: pass the data as a global buffer");
	if (!parse_type(d->type, &t))
		return refuse(
		    d, err, errlen,
		    "a struct, union or unknown type cannot be set up: pass its members as separate "
		    "arguments of OpenCL's built-in types");
	a->base = t.base;
	a->lanes = t.width == 3 ? 4 : t.width;
	if (d->addr == KA_ADDR_LOCAL) {
		unsigned long long bytes;
		if (!v)
			return refuse(d, err, errlen, "local memory needs its size: pass --arg %s=BYTES",
			              d->name);
		if (!whole(v, KA_LEN_MAX, &bytes))
			return refuse(d, err, errlen, "'%s' is not a size: pass --arg %s=BYTES (1..%u)", v,
			              d->name, KA_LEN_MAX);
		a->kind = KA_LOCAL;
		a->bytes = (size_t)bytes;
		a->given = true;
		return 0;
	}
	if (t.pointer) {
		if (d->addr != KA_ADDR_GLOBAL && d->addr != KA_ADDR_CONSTANT)
			return refuse(d, err, errlen,
			              "a private pointer cannot be set up: use global memory");
		return plan_buffer(d, &t, v, items, a, err, errlen);
	}
	a->kind = KA_SCALAR;
	a->bytes = bases[t.base].size;
	if (t.width != 1)
		return refuse(d, err, errlen,
		              "vector values cannot be set up: pass each component as a scalar");
	if (!v && bases[t.base].integer && is_count_name(d->name)) {
		char num[32];
		snprintf(num, sizeof(num), "%zu", items);
		if (!scalar_value(t.base, num, a))
			return refuse(d, err, errlen, "N = %zu does not fit: pass --arg %s=VALUE", items,
			              d->name);
		return 0;
	}
	if (!v)
		return refuse(d, err, errlen, "no value: pass --arg %s=VALUE", d->name);
	if (!scalar_value(t.base, v, a))
		return refuse(d, err, errlen, "'%s' is not a %s value: pass --arg %s=VALUE", v,
		              bases[t.base].name, d->name);
	a->given = true;
	return 0;
}

int kargs_plan(const struct ka_desc *d, int n, const char *const *given, int ngiven, size_t items,
               struct ka_setup *out, char *err, size_t errlen)
{
	bool used[KA_MAX * 4] = { false };
	for (int i = 0; i < n; i++) {
		int which = -1;
		const char *v = given_value(d[i].name, given, ngiven, &which);
		if (plan_one(&d[i], v, items, &out[i], err, errlen))
			return -1;
		for (int j = 0; v && j < ngiven && j < (int)GD_ARRAY_LEN(used); j++)
			if (strncmp(given[j], d[i].name, strlen(d[i].name)) == 0 &&
			    given[j][strlen(d[i].name)] == '=')
				used[j] = true;
	}
	for (int j = 0; j < ngiven && j < (int)GD_ARRAY_LEN(used); j++)
		if (!used[j]) {
			char names[512] = "";
			for (int i = 0; i < n; i++) {
				size_t l = strlen(names);
				snprintf(names + l, sizeof(names) - l, "%s%s", i ? ", " : "", d[i].name);
			}
			snprintf(err, errlen,
			         "--arg %.*s: the kernel has no argument of that name (its arguments: %s)",
			         (int)strcspn(given[j], "="), given[j], n ? names : "none");
			return -1;
		}
	return 0;
}

void kargs_fill(const struct ka_setup *a, struct gd_rng *rng, enum gd_generator gen, void *dst)
{
	size_t n = a->count * a->lanes;
	bool polar = gen == GD_GEN_BOX_MULLER;
	if (a->base == KA_FLOAT) {
		(polar ? rng_fill_polar_f32 : rng_fill_normal_f32)(rng, dst, n);
		return;
	}
	if (a->base == KA_DOUBLE) {
		(polar ? rng_fill_polar_f64 : rng_fill_normal_f64)(rng, dst, n);
		return;
	}
	if (a->base == KA_INT || a->base == KA_UINT) {
		rng_permutation(rng, dst, n);
		return;
	}
	int *perm = xcalloc(n, sizeof(int));
	rng_permutation(rng, perm, n);
	size_t size = bases[a->base].size;
	for (size_t i = 0; i < n; i++) {
		int64_t v = perm[i];
		if (size == 8)
			memcpy((char *)dst + 8 * i, &v, 8);
		else if (size == 2) {
			uint16_t h = (uint16_t)v;
			memcpy((char *)dst + 2 * i, &h, 2);
		} else {
			((unsigned char *)dst)[i] = (unsigned char)v;
		}
	}
	free(perm);
}

static void describe_one(const struct ka_desc *d, const struct ka_setup *a, size_t items, char *s, size_t n)
{
	char type[KA_NAME_LEN];
	str_copy(type, sizeof(type), d->type);
	type[strcspn(type, "*")] = '\0';
	char count[32];
	if (a->count == items)
		snprintf(count, sizeof(count), "N");
	else
		snprintf(count, sizeof(count), "%zu", a->count);
	switch (a->kind) {
	case KA_IN_BATCH:
		snprintf(s, n, "%s: in %s[%s] normal, each batch", d->name, type, count);
		break;
	case KA_IN_ONCE:
		snprintf(s, n, "%s: in %s[%s] permutation", d->name, type, count);
		break;
	case KA_OUT:
		snprintf(s, n, "%s: out %s[%s]", d->name, type, count);
		break;
	case KA_LOCAL:
		snprintf(s, n, "%s: local %zu bytes", d->name, a->bytes);
		break;
	case KA_SCALAR: {
		char v[40];
		if (a->base == KA_FLOAT) {
			float f;
			memcpy(&f, a->value, sizeof(f));
			snprintf(v, sizeof(v), "%g", (double)f);
		} else if (a->base == KA_DOUBLE) {
			double x;
			memcpy(&x, a->value, sizeof(x));
			snprintf(v, sizeof(v), "%g", x);
		} else if (!a->given) {
			snprintf(v, sizeof(v), "N");
		} else {
			uint64_t x = 0;
			memcpy(&x, a->value, bases[a->base].size);
			if (bases[a->base].is_signed && bases[a->base].size < 8 &&
			    (x >> (8 * bases[a->base].size - 1)) & 1)
				x |= ~0ULL << (8 * bases[a->base].size); /* sign-extend */
			if (bases[a->base].is_signed)
				snprintf(v, sizeof(v), "%lld", (long long)x);
			else
				snprintf(v, sizeof(v), "%llu", (unsigned long long)x);
		}
		snprintf(s, n, "%s: %s=%s", d->name, type, v);
		break;
	}
	}
}

void kargs_describe(const struct ka_desc *d, const struct ka_setup *a, int n, size_t items, char *buf,
                    size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		char one[512];
		describe_one(&d[i], &a[i], items, one, sizeof(one));
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s", i ? ", " : "", one);
	}
}

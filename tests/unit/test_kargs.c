/* test_kargs.c: the convention that sets up a kernel's arguments, without OpenCL: inputs,
 * outputs, the count scalar, --arg values, lengths, local sizes, and every refusal naming the
 * argument and what to pass. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/kargs.h"
#include "tap.h"

#define G(type, name)                             \
	{                                         \
		KA_ADDR_GLOBAL, false, type, name \
	}
#define GC(type, name)                           \
	{                                        \
		KA_ADDR_GLOBAL, true, type, name \
	}
#define P(type, name)                              \
	{                                          \
		KA_ADDR_PRIVATE, false, type, name \
	}
#define L(type, name)                            \
	{                                        \
		KA_ADDR_LOCAL, false, type, name \
	}

static char err[512];

static int plan(const struct ka_desc *d, int n, const char *const *given, int ng, struct ka_setup *out)
{
	err[0] = '\0';
	return kargs_plan(d, n, given, ng, 1000, out, err, sizeof(err));
}

static void test_convention(void)
{
	const struct ka_desc d[] = { GC("float*", "x"),
		                     GC("int*", "idx"),
		                     G("double4*", "y"),
		                     P("uint", "n"),
		                     P("float", "a"),
		                     L("float*", "tmp"),
		                     { KA_ADDR_CONSTANT, false, "float*", "c" } };
	const char *given[] = { "a=2.5", "tmp=4096" };
	struct ka_setup s[7];
	tap_ok(plan(d, 7, given, 2, s) == 0, "a saxpy-like kernel is planned (%s)", err);
	tap_ok(s[0].kind == KA_IN_BATCH && s[0].count == 1000 && s[0].bytes == 4000,
	       "global const float* is an input of N floats, generated every batch");
	tap_ok(s[1].kind == KA_IN_ONCE && s[1].bytes == 4000, "global const int* is an input made once");
	tap_ok(s[2].kind == KA_OUT && s[2].lanes == 4 && s[2].bytes == 1000 * 4 * 8,
	       "global double4* is an output of N double4");
	uint32_t n;
	memcpy(&n, s[3].value, 4);
	tap_ok(s[3].kind == KA_SCALAR && s[3].bytes == 4 && n == 1000, "uint n gets N");
	float a;
	memcpy(&a, s[4].value, 4);
	tap_ok(s[4].kind == KA_SCALAR && a == 2.5f, "float a gets --arg a=2.5");
	tap_ok(s[5].kind == KA_LOCAL && s[5].bytes == 4096, "local float* gets --arg tmp=BYTES");
	tap_ok(s[6].kind == KA_IN_BATCH, "a constant pointer is an input");
	char text[512];
	kargs_describe(d, s, 7, 1000, text, sizeof(text));
	tap_ok(strstr(text, "x: in float[N]") && strstr(text, "y: out double4[N]") &&
	           strstr(text, "n: uint=N") && strstr(text, "a: float=2.5") &&
	           strstr(text, "tmp: local 4096 bytes"),
	       "the description names each argument's set-up: %s", text);
}

static void test_given(void)
{
	const struct ka_desc d[] = { GC("float*", "x"), G("float*", "y"), P("long", "count"),
		                     P("short", "k") };
	const char *given[] = { "x=len:4096", "count=-5", "k=0x10" };
	struct ka_setup s[4];
	tap_ok(plan(d, 4, given, 3, s) == 0, "lengths and explicit scalars (%s)", err);
	tap_ok(s[0].count == 4096 && s[0].bytes == 16384, "--arg x=len:4096: a buffer of 4096 elements");
	const char *fewer[] = { "x=len:999" };
	tap_ok(plan(d, 1, fewer, 1, s) == -1 && strstr(err, "at least len:1000"),
	       "len:K below N = 1000 is refused: %s", err);
	tap_ok(s[1].count == 1000, "  the others keep N");
	int64_t c;
	memcpy(&c, s[2].value, 8);
	tap_ok(c == -5, "an explicit value wins over the count convention");
	int16_t k;
	memcpy(&k, s[3].value, 2);
	tap_ok(k == 16, "integers take hexadecimal");
}

/* The plan fails and err holds every piece of want. */
static void refused(const struct ka_desc *d, int n, const char *const *given, int ng, const char *what,
                    const char *want1, const char *want2)
{
	struct ka_setup s[8];
	int rc = plan(d, n, given, ng, s);
	tap_ok(rc == -1 && strstr(err, want1) && strstr(err, want2), "%s: %s", what, err);
}

static void test_refusals(void)
{
	const struct ka_desc img[] = { { KA_ADDR_GLOBAL, true, "image2d_t", "img" } };
	refused(img, 1, NULL, 0, "an image", "argument 'img'", "global buffer");
	const struct ka_desc st[] = { P("params", "p") };
	refused(st, 1, NULL, 0, "a struct", "argument 'p'", "struct");
	const struct ka_desc sptr[] = { GC("struct point*", "pts") };
	refused(sptr, 1, NULL, 0, "a pointer to a struct", "argument 'pts'", "struct");
	const struct ka_desc miss[] = { P("float", "alpha") };
	refused(miss, 1, NULL, 0, "a scalar without a value", "argument 'alpha'", "--arg alpha=VALUE");
	const struct ka_desc loc[] = { L("int*", "scratch") };
	refused(loc, 1, NULL, 0, "local memory without a size", "argument 'scratch'", "--arg scratch=BYTES");
	const char *bad[] = { "alpha=fast" };
	refused(miss, 1, bad, 1, "a value of the wrong type", "'fast' is not a float", "--arg alpha=VALUE");
	const char *wide[] = { "c=300" };
	const struct ka_desc ch[] = { P("uchar", "c") };
	refused(ch, 1, wide, 1, "a value out of the type's range", "argument 'c'", "uchar");
	const char *len[] = { "x=12" };
	const struct ka_desc buf[] = { GC("float*", "x") };
	refused(buf, 1, len, 1, "a buffer given a plain number", "argument 'x'", "len:K");
	const char *stray[] = { "y=1" };
	refused(buf, 1, stray, 1, "--arg of no argument", "--arg y", "its arguments: x");
	const struct ka_desc vec[] = { P("float4", "v") };
	const char *vv[] = { "v=1" };
	refused(vec, 1, vv, 1, "a vector scalar", "argument 'v'", "vector");
	const struct ka_desc narrow[] = { P("uchar", "n") };
	refused(narrow, 1, NULL, 0, "N that does not fit the count's type", "argument 'n'", "does not fit");
}

/* --arg numbers follow the tool's one rule: each value is refused, or read as want. */
static void test_numbers(void)
{
	static const struct {
		const char *type, *value;
		bool ok;
		double want;
	} cases[] = {
		{ "int", "010", true, 10 },         { "uint", " -1", false, 0 },
		{ "uint", "-1", false, 0 },         { "int", " 1", false, 0 },
		{ "int", "+1", false, 0 },          { "int", "1 ", false, 0 },
		{ "int", "-7", true, -7 },          { "uint", "0x10", true, 16 },
		{ "int", "-0x10", true, -16 },      { "int", "0x", false, 0 },
		{ "int", "1e3", false, 0 },         { "float", "1e-50", false, 0 },
		{ "double", "1e-50", true, 1e-50 }, { "float", "2.5", true, 2.5 },
		{ "float", "-.5", true, -0.5 },     { "float", "+2", false, 0 },
		{ "float", " 2", false, 0 },        { "float", "inf", false, 0 },
		{ "float", "nan", false, 0 },       { "float", "0x1p3", false, 0 },
		{ "float", "1e", false, 0 },        { "float", ".", false, 0 },
		{ "float", "0", true, 0 },          { "double", "3E+2", true, 300 },
	};
	for (size_t i = 0; i < GD_ARRAY_LEN(cases); i++) {
		struct ka_desc dd = { KA_ADDR_PRIVATE, false, "", "v" };
		str_copy(dd.type, sizeof(dd.type), cases[i].type);
		char given[64];
		snprintf(given, sizeof(given), "v=%s", cases[i].value);
		const char *g[] = { given };
		struct ka_setup s[1];
		int rc = plan(&dd, 1, g, 1, s);
		double got = NAN;
		if (rc == 0 && strcmp(cases[i].type, "float") == 0) {
			float f;
			memcpy(&f, s[0].value, 4);
			got = f;
		} else if (rc == 0 && strcmp(cases[i].type, "double") == 0) {
			memcpy(&got, s[0].value, 8);
		} else if (rc == 0) {
			int32_t v;
			memcpy(&v, s[0].value, 4);
			got = strcmp(cases[i].type, "uint") == 0 ? (double)(uint32_t)v : v;
		}
		tap_ok(cases[i].ok ? rc == 0 && got == cases[i].want : rc == -1, "%s '%s': %s", cases[i].type,
		       cases[i].value, cases[i].ok ? "read" : "refused");
	}
}

static void test_fill(void)
{
	struct gd_rng rng;
	rng_seed(&rng, 3);
	struct ka_setup a = { .kind = KA_IN_ONCE, .base = KA_INT, .lanes = 1, .count = 500, .bytes = 2000 };
	int *p = calloc(500, sizeof(int));
	kargs_fill(&a, &rng, GD_GEN_ZIGGURAT, p);
	char seen[500] = { 0 };
	bool perm = true;
	for (int i = 0; i < 500; i++) {
		perm = perm && p[i] >= 0 && p[i] < 500 && !seen[p[i]];
		if (p[i] >= 0 && p[i] < 500)
			seen[p[i]] = 1;
	}
	tap_ok(perm, "an integer input is a permutation of 0..N-1");
	struct ka_setup l = { .kind = KA_IN_ONCE, .base = KA_LONG, .lanes = 1, .count = 300, .bytes = 2400 };
	int64_t *q = calloc(300, sizeof(int64_t));
	kargs_fill(&l, &rng, GD_GEN_BOX_MULLER, q);
	int64_t sum = 0;
	for (int i = 0; i < 300; i++)
		sum += q[i];
	tap_ok(sum == 299 * 300 / 2, "  also for long (the values 0..N-1 once each)");
	struct ka_setup f = {
		.kind = KA_IN_BATCH, .base = KA_FLOAT, .lanes = 2, .count = 5000, .bytes = 40000
	};
	float *x = calloc(10000, sizeof(float));
	kargs_fill(&f, &rng, GD_GEN_ZIGGURAT, x);
	double s = 0, sq = 0;
	for (int i = 0; i < 10000; i++) {
		s += x[i];
		sq += (double)x[i] * x[i];
	}
	double mean = s / 10000, var = sq / 10000 - mean * mean;
	tap_ok(mean > -0.06 && mean < 0.06 && var > 0.9 && var < 1.1,
	       "a float2 input is standard normals in every component (mean %.3f, var %.3f)", mean, var);

	/* The generator picks the normals' method: the same draws as rng.h's fill of that method. */
	struct ka_setup d = {
		.kind = KA_IN_BATCH, .base = KA_DOUBLE, .lanes = 1, .count = 999, .bytes = 7992
	};
	double *y = calloc(999, sizeof(double)), *want = calloc(999, sizeof(double));
	struct gd_rng r1, r2;
	bool same = true;
	for (int g = GD_GEN_AUTO; g < GD_GEN_COUNT; g++) {
		rng_seed(&r1, 8);
		rng_seed(&r2, 8);
		kargs_fill(&d, &r1, (enum gd_generator)g, y);
		(g == GD_GEN_BOX_MULLER ? rng_fill_polar_f64 : rng_fill_normal_f64)(&r2, want, 999);
		same = same && memcmp(y, want, 999 * sizeof(double)) == 0;
	}
	float *fy = calloc(999, sizeof(float)), *fwant = calloc(999, sizeof(float));
	struct ka_setup fl = {
		.kind = KA_IN_BATCH, .base = KA_FLOAT, .lanes = 1, .count = 999, .bytes = 3996
	};
	rng_seed(&r1, 9);
	rng_seed(&r2, 9);
	kargs_fill(&fl, &r1, GD_GEN_BOX_MULLER, fy);
	rng_fill_polar_f32(&r2, fwant, 999);
	same = same && memcmp(fy, fwant, 999 * sizeof(float)) == 0;
	tap_ok(same, "double and float inputs: box-muller fills by the polar method, auto and ziggurat by "
	             "the ziggurat");
	free(y);
	free(want);
	free(fy);
	free(fwant);
	free(p);
	free(q);
	free(x);
}

static void test_given_valid(void)
{
	tap_ok(kargs_given_valid("a=1") && kargs_given_valid("tile_2=len:8"), "NAME=VALUE is well formed");
	tap_ok(!kargs_given_valid("=1") && !kargs_given_valid("a=") && !kargs_given_valid("a") &&
	           !kargs_given_valid("a-b=1"),
	       "  a missing name, value or '=', or a name with other characters, is not");
}

int main(void)
{
	test_convention();
	test_given();
	test_refusals();
	test_numbers();
	test_fill();
	test_given_valid();
	return tap_done();
}

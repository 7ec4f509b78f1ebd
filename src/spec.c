/* spec.c: the element types, the kernel spec's derived figures and a child's command line. The
 * option names written here are the parser's (src/opts/options.c); test_spec parses every
 * command line written here back into the spec it came from. */
#include "gputop/spec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gputop/common.h"

static const struct gd_dtype_info dtypes[GD_DT_COUNT] = {
	[GD_DT_AUTO] = { "auto", 0, NULL },
	[GD_DT_F32] = { "f32", 4, "-DREAL=float" },
	[GD_DT_F64] = { "f64", 8, "-DREAL=double -DUSE_FP64" },
};
static const char *const modes[GD_MODE_COUNT] = { "seed", "pipelined", "kernel-only" };
const char *const gd_profile_names[GD_PROF_COUNT] = { "full", "sampled", "off" };
static const char *const generators[GD_GEN_COUNT] = { "auto", "ziggurat", "box-muller" };

const struct gd_dtype_info *gd_dtype_info(enum gd_dtype d)
{
	return &dtypes[(unsigned)d < GD_DT_COUNT ? d : GD_DT_AUTO];
}

const char *gd_dtype_name(enum gd_dtype d)
{
	return gd_dtype_info(d)->name;
}

const char *gd_mode_name(enum gd_mode m)
{
	return (unsigned)m < GD_MODE_COUNT ? modes[m] : "?";
}

const char *gd_profile_name(enum gd_profile p)
{
	return (unsigned)p < GD_PROF_COUNT ? gd_profile_names[p] : "?";
}

bool gd_profile_parse(const char *s, enum gd_profile *p)
{
	for (int i = 0; s && i < GD_PROF_COUNT; i++)
		if (strcmp(s, gd_profile_names[i]) == 0) {
			*p = (enum gd_profile)i;
			return true;
		}
	return false;
}

const char *gd_generator_name(enum gd_generator g)
{
	return (unsigned)g < GD_GEN_COUNT ? generators[g] : "?";
}

enum gd_generator gd_generator_of(enum gd_generator g, enum gd_mode m)
{
	if (g != GD_GEN_AUTO)
		return g;
	return m == GD_MODE_SEED ? GD_GEN_BOX_MULLER : GD_GEN_ZIGGURAT;
}

const char *kspec_name(const struct gd_kspec *k)
{
	if (k->observed)
		return "observed";
	return k->source && k->name ? k->name : "decode";
}

const char *kspec_rate_unit(const struct gd_kspec *k)
{
	return k->source || k->observed ? "Mitem/s" : "Mbit/s";
}

uint64_t kspec_items_per_batch(const struct gd_kspec *k)
{
	return k->source ? (uint64_t)k->size * k->launches : k->size;
}

/* Appends one argument, formatted straight into the buffer; -1 when it does not fit. */
__attribute__((format(printf, 3, 4))) static int add(struct gd_argv *a, size_t *used, const char *fmt, ...)
{
	if (a->argc + 1 >= (int)GD_ARRAY_LEN(a->argv) || *used >= sizeof(a->buf))
		return -1;
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(a->buf + *used, sizeof(a->buf) - *used, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(a->buf) - *used)
		return -1;
	a->argv[a->argc++] = a->buf + *used;
	*used += (size_t)len + 1;
	return 0;
}

int spec_child_argv(struct gd_argv *a, const char *exe, const struct gd_child *c)
{
	const struct gd_workload *w = c->work;
	const struct gd_kspec *k = &w->kernel;
	size_t used = 0;
	a->argc = 0;
	int rc = add(a, &used, "%s", exe);
	if (c->wa)
		rc |= add(a, &used, "--worker=%s,%016" PRIx64 ",%u,%d", c->wa->shm, c->wa->gen, c->wa->id,
		          (int)c->wa->supervisor);
	else
		rc |= add(a, &used, "--calibrate-child");
	rc |= add(a, &used, "--device=%d:%d", c->dev.platform, c->dev.index);
	rc |= add(a, &used, "--size=%u", k->size);
	rc |= add(a, &used, "--launches=%u", k->launches);
	if (k->dtype != GD_DT_AUTO)
		rc |= add(a, &used, "--dtype=%s", gd_dtype_name(k->dtype));
	if (k->source)
		rc |= add(a, &used, "--kernel=%s", k->source);
	if (k->name)
		rc |= add(a, &used, "--kernel-name=%s", k->name);
	if (k->build_options)
		rc |= add(a, &used, "--build-options=%s", k->build_options);
	for (int i = 0; i < k->nargs; i++)
		rc |= add(a, &used, "--arg=%s", k->args[i]);
	if (c->wa) { /* how the worker runs it; the calibration tries every arrangement itself */
		rc |= add(a, &used, "--mode=%s", gd_mode_name(w->mode));
		rc |= add(a, &used, "--profile=%s", gd_profile_name(w->profile));
		if (w->sample_every)
			rc |= add(a, &used, "--sample-every=%u", w->sample_every);
		rc |= add(a, &used, "--queues=%d", w->queues);
		if (w->gen_threads >= 0)
			rc |= add(a, &used, "--gen-threads=%d", w->gen_threads);
		if (w->generator != GD_GEN_AUTO)
			rc |= add(a, &used, "--generator=%s", gd_generator_name(w->generator));
		if (w->verify)
			rc |= add(a, &used, "--verify");
	}
	if (rc)
		return -1;
	a->argv[a->argc] = NULL;
	return 0;
}

/* test_spec.c: the kernel spec's one table of element types, the names of modes, profiles and
 * generators, the derived figures of a kernel spec, and the one writer of a child's command
 * line: a worker's and the calibration's for a full workload, exactly; what is left out when not
 * set; a command line that just fits, and one that does not (refused, never shortened). That
 * the option parser reads each back whole is tested with the parser. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gputop/common.h"
#include "gputop/spec.h"
#include "tap.h"

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void test_dtypes(void)
{
	const struct gd_dtype_info *a = gd_dtype_info(GD_DT_AUTO), *f = gd_dtype_info(GD_DT_F32),
	                           *d = gd_dtype_info(GD_DT_F64);
	tap_ok(same(a->name, "auto") && a->bytes == 0 && a->define == NULL,
	       "auto: the device decides, no size, no build option");
	tap_ok(same(f->name, "f32") && f->bytes == 4 && same(f->define, "-DREAL=float"),
	       "f32: 4 bytes, -DREAL=float");
	tap_ok(same(d->name, "f64") && d->bytes == 8 && same(d->define, "-DREAL=double -DUSE_FP64"),
	       "f64: 8 bytes, -DREAL=double -DUSE_FP64");
	tap_ok(gd_dtype_info(GD_DT_COUNT) == a && gd_dtype_info((enum gd_dtype) - 1) == a,
	       "a value out of range reads as auto");
	tap_ok(same(gd_dtype_name(GD_DT_F32), "f32") && same(gd_dtype_name(GD_DT_F64), "f64") &&
	           same(gd_dtype_name(GD_DT_AUTO), "auto"),
	       "gd_dtype_name: the table's names");
	tap_ok(same(gd_mode_name(GD_MODE_SEED), "seed") &&
	           same(gd_mode_name(GD_MODE_PIPELINED), "pipelined") &&
	           same(gd_mode_name(GD_MODE_KERNEL_ONLY), "kernel-only") &&
	           same(gd_mode_name(GD_MODE_COUNT), "?"),
	       "gd_mode_name: seed, pipelined, kernel-only; ? out of range");
	tap_ok(same(gd_generator_name(GD_GEN_AUTO), "auto") &&
	           same(gd_generator_name(GD_GEN_ZIGGURAT), "ziggurat") &&
	           same(gd_generator_name(GD_GEN_BOX_MULLER), "box-muller") &&
	           same(gd_generator_name(GD_GEN_COUNT), "?"),
	       "gd_generator_name: auto, ziggurat, box-muller; ? out of range");
	tap_ok(same(gd_profile_name(GD_PROF_FULL), "full") &&
	           same(gd_profile_name(GD_PROF_SAMPLED), "sampled") &&
	           same(gd_profile_name(GD_PROF_OFF), "off") && same(gd_profile_name(GD_PROF_COUNT), "?"),
	       "gd_profile_name: full, sampled, off; ? out of range");
}

static void test_kspec(void)
{
	struct gd_kspec decode = { .size = 1000, .launches = 4, .dtype = GD_DT_F32 };
	struct gd_kspec user = { .source = "/k/saxpy.cl", .name = "saxpy", .size = 1000, .launches = 4 };
	tap_ok(same(kspec_name(&decode), "decode") && same(kspec_name(&user), "saxpy"),
	       "kspec_name: decode, or the user's kernel");
	tap_ok(same(kspec_rate_unit(&decode), "Mbit/s") && same(kspec_rate_unit(&user), "Mitem/s"),
	       "kspec_rate_unit: Mbit/s for decode (an item is a bit), Mitem/s for a user kernel");
	TAP_EQ_U(kspec_items_per_batch(&decode), 1000,
	         "decode: a batch counts its size (launches repeat it)");
	TAP_EQ_U(kspec_items_per_batch(&user), 4000, "a user kernel: size times launches");
	struct gd_kspec big = { .source = "/k/big.cl", .size = GD_SIZE_MAX, .launches = GD_LAUNCHES_MAX };
	TAP_EQ_U(kspec_items_per_batch(&big), (uint64_t)GD_SIZE_MAX * GD_LAUNCHES_MAX,
	         "the largest batch does not overflow");
}

/* argv[0..argc) equals want[], which ends with NULL, and argv[argc] is NULL. */
static bool argv_is(const struct gd_argv *a, const char *const *want)
{
	int n = 0;
	while (want[n])
		n++;
	bool ok = a->argc == n && a->argv[n] == NULL;
	for (int i = 0; ok && i < n; i++)
		ok = same(a->argv[i], want[i]);
	if (!ok)
		for (int i = 0; i < a->argc || (i < n); i++)
			printf("#   [%d] got %s, want %s\n", i, i < a->argc ? a->argv[i] : "(none)",
			       i < n ? want[i] : "(none)");
	return ok;
}

static struct gd_argv av; /* 8 KiB: off the stack */

static void test_argv(void)
{
	struct gd_workload w = {
		.kernel = { .source = "/home/u/k dir/saxpy.cl",
		            .name = "saxpy",
		            .build_options = "-cl-fast-relaxed-math -DN=4",
		            .args = { "x=in float[N] normal", "a=2.5", "y=out float[N]" },
		            .nargs = 3,
		            .size = 4096,
		            .launches = 3,
		            .dtype = GD_DT_F64 },
		.mode = GD_MODE_PIPELINED,
		.queues = 4,
		.gen_threads = 2,
		.profile = GD_PROF_SAMPLED,
		.sample_every = 16,
		.verify = true,
		.generator = GD_GEN_BOX_MULLER,
	};
	struct gd_worker_args wa = { .shm = "/gputop-decode.1000.4242.3.00000000deadbeef",
		                     .gen = 0xdeadbeefull,
		                     .id = 3,
		                     .supervisor = 4242 };
	struct gd_child worker = { .work = &w, .dev = { 1, 2 }, .wa = &wa };
	static const char *const want_worker[] = { "/usr/bin/gputop-decode",
		                                   "--worker=/gputop-decode.1000.4242.3.00000000deadbeef,"
		                                   "00000000deadbeef,3,4242",
		                                   "--device=1:2",
		                                   "--size=4096",
		                                   "--launches=3",
		                                   "--dtype=f64",
		                                   "--kernel=/home/u/k dir/saxpy.cl",
		                                   "--kernel-name=saxpy",
		                                   "--build-options=-cl-fast-relaxed-math -DN=4",
		                                   "--arg=x=in float[N] normal",
		                                   "--arg=a=2.5",
		                                   "--arg=y=out float[N]",
		                                   "--mode=pipelined",
		                                   "--profile=sampled",
		                                   "--sample-every=16",
		                                   "--queues=4",
		                                   "--gen-threads=2",
		                                   "--generator=box-muller",
		                                   "--verify",
		                                   NULL };
	int rc = spec_child_argv(&av, "/usr/bin/gputop-decode", &worker);
	tap_ok(rc == 0 && argv_is(&av, want_worker),
	       "a worker's command line: its arguments, the device, the kernel and how to run it, in order");

	struct gd_child calib = { .work = &w, .dev = { 1, 2 }, .wa = NULL };
	static const char *const want_calib[] = { "/usr/bin/gputop-decode",
		                                  "--calibrate-child",
		                                  "--device=1:2",
		                                  "--size=4096",
		                                  "--launches=3",
		                                  "--dtype=f64",
		                                  "--kernel=/home/u/k dir/saxpy.cl",
		                                  "--kernel-name=saxpy",
		                                  "--build-options=-cl-fast-relaxed-math -DN=4",
		                                  "--arg=x=in float[N] normal",
		                                  "--arg=a=2.5",
		                                  "--arg=y=out float[N]",
		                                  NULL };
	rc = spec_child_argv(&av, "/usr/bin/gputop-decode", &calib);
	tap_ok(rc == 0 && argv_is(&av, want_calib),
	       "the calibration's: the kernel on the device, nothing of how workers run it");

	/* The decode kernel with nothing optional set. */
	struct gd_workload d = { .kernel = { .size = 1000, .launches = 2 },
		                 .mode = GD_MODE_SEED,
		                 .queues = 1,
		                 .gen_threads = -1,
		                 .profile = GD_PROF_OFF };
	struct gd_worker_args wa1 = { .shm = "/s", .gen = 1, .id = 1, .supervisor = 7 };
	struct gd_child plain = { .work = &d, .dev = { 0, 0 }, .wa = &wa1 };
	static const char *const want_plain[] = { "gd",
		                                  "--worker=/s,0000000000000001,1,7",
		                                  "--device=0:0",
		                                  "--size=1000",
		                                  "--launches=2",
		                                  "--mode=seed",
		                                  "--profile=off",
		                                  "--queues=1",
		                                  NULL };
	rc = spec_child_argv(&av, "gd", &plain);
	tap_ok(rc == 0 && argv_is(&av, want_plain),
	       "what is not set is left out: dtype auto, kernel, name, build options, args, the "
	       "adapting period, generation threads, generator auto, verify");
	d.gen_threads = 0;
	rc = spec_child_argv(&av, "gd", &plain);
	tap_ok(rc == 0 && av.argc == 9 && same(av.argv[8], "--gen-threads=0") && av.argv[9] == NULL,
	       "--gen-threads=0 (inline) is written: only -1 means not set");
	d.generator = GD_GEN_ZIGGURAT;
	rc = spec_child_argv(&av, "gd", &plain);
	tap_ok(rc == 0 && av.argc == 10 && same(av.argv[9], "--generator=ziggurat") && av.argv[10] == NULL,
	       "a resolved generator is written, whichever the mode's own is");
	rc = spec_child_argv(&av, "gd", &calib);
	bool no_gen = rc == 0;
	for (int i = 0; no_gen && i < av.argc; i++)
		no_gen = strncmp(av.argv[i], "--generator", 11) != 0;
	tap_ok(no_gen, "the calibration gets no generator: it fills its inputs its own way");
}

/* The bytes of av.buf the command line takes. */
static size_t used(void)
{
	const char *last = av.argv[av.argc - 1];
	return (size_t)(last - av.buf) + strlen(last) + 1;
}

static void test_limits(void)
{
	static char arg[GD_KARGS_MAX][2101]; /* 32 of 2100: more than the 64 KiB of a command line */
	struct gd_workload w = { .kernel = { .source = "/k.cl", .size = 1, .launches = 1 },
		                 .queues = 1,
		                 .gen_threads = -1 };
	for (int i = 0; i < GD_KARGS_MAX; i++) {
		memset(arg[i], 'a' + i % 26, 2100);
		arg[i][2100] = '\0';
		w.kernel.args[i] = arg[i];
	}
	w.kernel.nargs = GD_KARGS_MAX;
	struct gd_worker_args wa = { .shm = "/s", .gen = 1, .id = 1, .supervisor = 7 };
	struct gd_child worker = { .work = &w, .wa = &wa }, calib = { .work = &w };
	tap_ok(spec_child_argv(&av, "/bin/gd", &worker) == -1,
	       "%d args of 2100 characters do not fit a worker's command line: -1", GD_KARGS_MAX);
	tap_ok(spec_child_argv(&av, "/bin/gd", &calib) == -1, "nor the calibration's: -1");

	/* 200 characters each fit: every one is there, whole. */
	for (int i = 0; i < GD_KARGS_MAX; i++)
		arg[i][200] = '\0';
	int rc = spec_child_argv(&av, "/bin/gd", &worker);
	/* exe, --worker, --device, --size, --launches, --kernel; the args; --mode, --profile, --queues */
	bool whole = rc == 0 && av.argc == 6 + GD_KARGS_MAX + 3;
	for (int i = 0; whole && i < GD_KARGS_MAX; i++)
		whole = strncmp(av.argv[6 + i], "--arg=", 6) == 0 && strcmp(av.argv[6 + i] + 6, arg[i]) == 0;
	tap_ok(whole, "%d args of 200 characters fit, each whole (%d arguments)", GD_KARGS_MAX, av.argc);

	/* The executable's name that fills the buffer exactly fits; one character more does not. */
	rc = spec_child_argv(&av, "x", &calib);
	size_t rest = rc == 0 ? used() - 2 : 0;
	static char exe[sizeof(av.buf) + 1];
	size_t len = sizeof(av.buf) - rest - 1;
	memset(exe, '/', len);
	exe[len] = '\0';
	rc = spec_child_argv(&av, exe, &calib);
	tap_ok(rest > 0 && rc == 0 && used() == sizeof(av.buf) && strlen(av.argv[0]) == len,
	       "a command line of exactly %zu bytes fits", sizeof(av.buf));
	exe[len] = '/';
	exe[len + 1] = '\0';
	tap_ok(spec_child_argv(&av, exe, &calib) == -1, "one byte more: -1");
	memset(exe, '/', sizeof(exe) - 1);
	exe[sizeof(exe) - 1] = '\0';
	tap_ok(spec_child_argv(&av, exe, &calib) == -1, "an executable's name longer than the buffer: -1");
}

int main(void)
{
	test_dtypes();
	test_kspec();
	test_argv();
	test_limits();
	return tap_done();
}

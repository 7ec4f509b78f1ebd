/* test_readback.c: a user kernel's outputs are read back to the host every batch, through the
 * worker's own set-up and modes on the real OpenCL device (PoCL in the tests): a kernel whose
 * output is known (out[i] = in[i] * 2) runs batches in the seed and pipelined modes, and every
 * output element is compared on the host with the input that was generated for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/worker_impl.h"
#include "gputop/common.h"
#include "tap.h"

static const char twice[] = "kernel void twice(global const float *in, global float *out, uint n)\n"
                            "{\n"
                            "	uint i = (uint)get_global_id(0);\n"
                            "	if (i < n)\n"
                            "		out[i] = in[i] * 2.0f;\n"
                            "}\n";

/* Batch b's output, element by element, is twice its input; the output was not left zero. */
static bool doubled(const struct gd_worker *w, const struct gd_batch *b, size_t n)
{
	const float *in = b->host[0], *out = b->host[1];
	bool nonzero = false;
	for (size_t i = 0; i < n; i++) {
		if (out[i] != in[i] * 2.0f)
			return false;
		nonzero = nonzero || out[i] != 0;
	}
	return nonzero && w->prog.arg[1].kind == KA_OUT;
}

static void run_mode(const char *file, enum gd_mode mode, int steps)
{
	const char *mname = gd_mode_name(mode);
	/* --kernel=FILE --size=4099 --launches=2 --mode=MODE, resolved (pipelined: four queues,
	 * --gen-threads=0). */
	struct gd_workload wl = {
		.kernel = { .source = file, .size = 4099, .launches = 2, .dtype = GD_DT_AUTO },
		.mode = mode,
		.queues = mode == GD_MODE_PIPELINED ? 4 : 1,
		.gen_threads = mode == GD_MODE_PIPELINED ? 0 : -1,
		.profile = GD_PROF_SAMPLED,
	};
	char err[512] = "";
	struct gd_worker *w = calloc(1, sizeof(*w));
	w->wl = &wl;
	w->k = &wl.kernel;
	rng_seed(&w->rng, 11);
	char name[96];
	snprintf(name, sizeof(name), "/gputop-decode-test-readback.%d", (int)getpid());
	struct gd_seg_info info = { .generation = 1, .id = 1, .dtype_bytes = 4 };
	w->seg = seg_create(name, &info, err, sizeof(err));
	if (!tap_ok(w->seg != NULL, "%s: a segment for the records (%s)", mname, err)) {
		free(w);
		return;
	}
	int rc = clx_pick(-1, -1, &w->dev, err, sizeof(err));
	if (rc == 0)
		rc = worker_setup(w);
	tap_ok(rc == 0, "%s: the worker sets up the kernel twice (%s)", mname, rc ? w->err : "ok");
	const struct gd_mode_ops *ops = &gd_modes[mode];
	for (int i = 0; rc == 0 && i < steps; i++)
		rc = ops->step(w);
	if (rc == 0)
		rc = ops->drain(w);
	tap_ok(rc == 0 && w->batches > 0, "%s: %llu batches ran (%s)", mname, (unsigned long long)w->batches,
	       rc ? w->err : "ok");
	bool all = w->batches > 0;
	for (int i = 0; i < w->nb; i++)
		all = all && doubled(w, &w->b[i], wl.kernel.size);
	tap_ok(all, "%s: every batch's output read back equals twice its input, element by element", mname);
	worker_teardown(w);
	seg_close(w->seg, true);
	free(w);
}

int main(void)
{
	if (!getenv("POCL_CACHE_DIR"))
		setenv("POCL_CACHE_DIR", "/tmp/gputop-decode-pocl-cache", 0);
	char file[] = "/tmp/gputop-decode-twice.XXXXXX";
	int fd = mkstemp(file);
	bool wrote = fd >= 0 && write(fd, twice, sizeof(twice) - 1) == (ssize_t)(sizeof(twice) - 1);
	if (fd >= 0)
		close(fd);
	if (tap_ok(wrote, "the kernel file is written")) {
		run_mode(file, GD_MODE_SEED, 3);
		run_mode(file, GD_MODE_PIPELINED, 12);
	}
	unlink(file);
	return tap_done();
}

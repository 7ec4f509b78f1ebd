/* test_readback.c: a user kernel's outputs are read back to the host every batch, through the
 * worker's own set-up and modes on the real OpenCL device (PoCL in the tests): a kernel whose
 * output is known (out[i] = in[i] * 2) runs batches in the seed and pipelined modes, and every
 * output element is compared on the host with the input that was generated for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/worker/worker_impl.h"
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

static void run_mode(const char *file, const char *mode, int steps)
{
	char size[] = "--size=4099", m[64], k[512];
	snprintf(m, sizeof(m), "--mode=%s", mode);
	snprintf(k, sizeof(k), "--kernel=%s", file);
	char *argv[] = { "test", "--headless", k, size, "--launches=2", m, "--gen-threads=0", NULL };
	if (strcmp(mode, "pipelined") != 0)
		argv[6] = NULL;
	struct gd_opts o;
	char err[512];
	int argc = 0;
	while (argv[argc])
		argc++;
	if (!tap_ok(opts_parse(argc, argv, &o, err, sizeof(err)) == 0, "%s: options parse (%s)", mode, err))
		return;
	struct gd_worker *w = calloc(1, sizeof(*w));
	w->o = &o;
	rng_seed(&w->rng, 11);
	char name[96];
	snprintf(name, sizeof(name), "/gputop-decode-test-readback.%d", (int)getpid());
	struct gd_seg_info info = { .generation = 1, .id = 1, .dtype_bytes = 4 };
	w->seg = seg_create(name, &info, err, sizeof(err));
	if (!tap_ok(w->seg != NULL, "%s: a segment for the records (%s)", mode, err)) {
		free(w);
		return;
	}
	int rc = clx_pick(-1, -1, &w->dev, err, sizeof(err));
	if (rc == 0)
		rc = worker_setup(w);
	tap_ok(rc == 0, "%s: the worker sets up the kernel twice (%s)", mode, rc ? w->err : "ok");
	const struct gd_mode_ops *ops = &gd_modes[o.mode];
	for (int i = 0; rc == 0 && i < steps; i++)
		rc = ops->step(w);
	if (rc == 0)
		rc = ops->drain(w);
	tap_ok(rc == 0 && w->batches > 0, "%s: %llu batches ran (%s)", mode, (unsigned long long)w->batches,
	       rc ? w->err : "ok");
	bool all = w->batches > 0;
	for (int i = 0; i < w->nb; i++)
		all = all && doubled(w, &w->b[i], o.size);
	tap_ok(all, "%s: every batch's output read back equals twice its input, element by element", mode);
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
		run_mode(file, "seed", 3);
		run_mode(file, "pipelined", 12);
	}
	unlink(file);
	return tap_done();
}

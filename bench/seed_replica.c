/* seed_replica.c: an independent replica of the original experiment's loop, the figure the seed
 * mode is compared with. COPIES processes, each with its own context and default queue, repeat:
 * draw SIZE normals as numpy's legacy np.random.normal does (MT19937, the polar Box-Muller method;
 * written here from the published algorithms, none of the tool's code), copy them (the
 * original's .astype), a blocking write from pageable memory, LAUNCHES launches, clFinish, a
 * blocking read. Usage:
 *   seed_replica KERNEL.cl P:D f32|f64 SIZE LAUNCHES SECONDS COPIES
 * Every copy sets up, then all start together and run SECONDS; prints one line: copies, batches,
 * seconds, Mbit/s (batches x SIZE / s / 1e6, summed over copies) and the mean generation time
 * per batch. */
#define PLAIN_NAME "seed_replica"
#include "plain_cl.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- MT19937 (Matsumoto and Nishimura's reference algorithm) ---- */

#define MT_N 624
#define MT_M 397
struct mt {
	uint32_t s[MT_N];
	int i;
};

static void mt_seed(struct mt *m, uint32_t seed)
{
	m->s[0] = seed;
	for (int i = 1; i < MT_N; i++)
		m->s[i] = 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + (uint32_t)i;
	m->i = MT_N;
}

static uint32_t mt_next(struct mt *m)
{
	if (m->i >= MT_N) {
		for (int k = 0; k < MT_N; k++) {
			uint32_t y = (m->s[k] & 0x80000000u) | (m->s[(k + 1) % MT_N] & 0x7fffffffu);
			m->s[k] = m->s[(k + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
		}
		m->i = 0;
	}
	uint32_t y = m->s[m->i++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	return y ^ (y >> 18);
}

/* A double in [0, 1) from 53 random bits, as numpy's random_sample. */
static double mt_double(struct mt *m)
{
	uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
	return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* The polar method, one value kept for the next call, as numpy's legacy gauss. */
static double gauss(struct mt *m, int *has, double *kept)
{
	if (*has) {
		*has = 0;
		return *kept;
	}
	double x1, x2, r2;
	do {
		x1 = 2.0 * mt_double(m) - 1.0;
		x2 = 2.0 * mt_double(m) - 1.0;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	double f = sqrt(-2.0 * log(r2) / r2);
	*has = 1;
	*kept = f * x1;
	return f * x2;
}

struct args {
	const char *kernel;
	int pi, di, f64, launches, copies;
	size_t size;
	double seconds;
};

/* One copy: sets up, says ready on `ready`, waits for `go` to close, runs, writes its batches
 * and generation seconds on `ready`. */
static void copy_main(const struct args *a, int ready, int go, uint32_t seed)
{
	cl_int rc;
	cl_device_id dev = pick(a->pi, a->di);
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
	check(rc, "clCreateContext");
	cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
	check(rc, "clCreateCommandQueueWithProperties");
	const char *src = slurp(a->kernel);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	check(rc, "clCreateProgramWithSource");
	check(clBuildProgram(prog, 1, &dev, a->f64 ? "-DREAL=double -DUSE_FP64" : "-DREAL=float", NULL, NULL),
	      "clBuildProgram");
	cl_kernel k = clCreateKernel(prog, "decode", &rc);
	check(rc, "clCreateKernel");

	struct mt m;
	mt_seed(&m, seed);
	size_t n = a->size, elem = a->f64 ? 8 : 4;
	int *perm = malloc(n * sizeof(int));
	double *normal = malloc(n * sizeof(double));
	void *in = malloc(n * elem), *out = malloc(n * elem);
	if (!perm || !normal || !in || !out)
		exit(1);
	for (size_t i = 0; i < n; i++)
		perm[i] = (int)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = mt_next(&m) % (i + 1);
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	cl_mem dperm =
	    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(int), perm, &rc);
	check(rc, "clCreateBuffer(perm)");
	cl_mem din = clCreateBuffer(ctx, CL_MEM_READ_ONLY, n * elem, NULL, &rc);
	check(rc, "clCreateBuffer(in)");
	cl_mem dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * elem, NULL, &rc);
	check(rc, "clCreateBuffer(out)");
	clSetKernelArg(k, 0, sizeof(cl_mem), &din);
	clSetKernelArg(k, 1, sizeof(cl_mem), &dperm);
	clSetKernelArg(k, 2, sizeof(cl_mem), &dout);

	int has = 0;
	double kept = 0, gen_s = 0;
	long batches = 0;
	double t0 = 0, t = 0;
	for (int phase = 0; phase < 2; phase++) {
		if (phase == 1) { /* after 3 warm-up batches: ready, then wait for every copy */
			char c = 'r';
			if (write(ready, &c, 1) != 1 || read(go, &c, 1) < 0)
				exit(1);
			t0 = t = now_s();
			gen_s = 0;
		}
		for (long b = 0; phase == 0 ? b < 3 : t - t0 < a->seconds; b++) {
			double g0 = now_s();
			for (size_t i = 0; i < n; i++)
				normal[i] = gauss(&m, &has, &kept);
			if (a->f64) /* .astype(dtype): a copy */
				memcpy(in, normal, n * elem);
			else
				for (size_t i = 0; i < n; i++)
					((float *)in)[i] = (float)normal[i];
			gen_s += now_s() - g0;
			check(clEnqueueWriteBuffer(q, din, CL_TRUE, 0, n * elem, in, 0, NULL, NULL), "write");
			for (int l = 0; l < a->launches; l++)
				check(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL),
				      "launch");
			check(clFinish(q), "clFinish");
			check(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, n * elem, out, 0, NULL, NULL), "read");
			t = now_s();
			batches += phase;
		}
	}
	double res[3] = { (double)batches, t - t0, gen_s };
	if (write(ready, res, sizeof(res)) != (ssize_t)sizeof(res))
		exit(1);
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: seed_replica KERNEL.cl P:D f32|f64 SIZE LAUNCHES SECONDS COPIES\n");
		return 2;
	}
	struct args a = { .kernel = argv[1], .f64 = strcmp(argv[3], "f64") == 0 };
	if (sscanf(argv[2], "%d:%d", &a.pi, &a.di) != 2)
		return 2;
	a.size = strtoul(argv[4], NULL, 10);
	a.launches = atoi(argv[5]);
	a.seconds = atof(argv[6]);
	a.copies = atoi(argv[7]);
	if (a.size < 2 || a.launches < 1 || a.seconds <= 0 || a.copies < 1 || a.copies > 256)
		return 2;
	int ready[2], go[2];
	if (pipe(ready) || pipe(go))
		return 1;
	for (int c = 0; c < a.copies; c++) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			close(ready[0]);
			close(go[1]);
			copy_main(&a, ready[1], go[0], (uint32_t)(getpid() ^ (uint32_t)time(NULL)));
		}
	}
	close(ready[1]);
	close(go[0]);
	for (int c = 0; c < a.copies; c++) {
		char ch;
		if (read(ready[0], &ch, 1) != 1) {
			fprintf(stderr, "seed_replica: a copy failed to set up\n");
			return 1;
		}
	}
	close(go[1]); /* every copy starts now */
	double batches = 0, secs = 0, gen = 0;
	for (int c = 0; c < a.copies; c++) {
		double res[3];
		if (read(ready[0], res, sizeof(res)) != (ssize_t)sizeof(res)) {
			fprintf(stderr, "seed_replica: a copy failed\n");
			return 1;
		}
		batches += res[0];
		secs += res[1];
		gen += res[2];
	}
	while (wait(NULL) > 0)
		;
	secs /= a.copies;
	printf("seed_replica copies=%d dtype=%s size=%zu launches=%d batches=%.0f seconds=%.3f "
	       "mbit_s=%.1f gen_ms_per_batch=%.3f\n",
	       a.copies, argv[3], a.size, a.launches, batches, secs, batches * (double)a.size / secs / 1e6,
	       batches > 0 ? gen / batches * 1e3 : 0.0);
	return 0;
}

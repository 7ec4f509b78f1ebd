/* seed_loop.c: the question's loop (../shared/seed/question_script.py) in C, to observe on machines
 * without PyOpenCL (the H200): one process, one context and queue, kernels/decode.cl's decode
 * kernel; each batch draws SIZE normals as numpy's legacy normal does (src/rng.c's polar fill),
 * writes them (blocking), launches the kernel 10 times, clFinish, reads the output (blocking).
 * Runs SECONDS, then prints its Mbit/s (batches x SIZE / s / 1e6). Usage:
 *   seed_loop KERNEL.cl P:D f32|f64 SIZE SECONDS */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gputop/rng.h"

#define LAUNCHES 10

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(cl_int rc, const char *what)
{
	if (rc != CL_SUCCESS) {
		fprintf(stderr, "seed_loop: %s failed: %d\n", what, (int)rc);
		exit(1);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	s[n] = '\0';
	fclose(f);
	return s;
}

static cl_device_id pick(int pi, int di)
{
	cl_platform_id plats[16];
	cl_device_id devs[64];
	cl_uint np = 0, nd = 0;
	check(clGetPlatformIDs(16, plats, &np), "clGetPlatformIDs");
	if (pi < 0 || (cl_uint)pi >= np)
		exit(2);
	check(clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd), "clGetDeviceIDs");
	if (di < 0 || (cl_uint)di >= nd)
		exit(2);
	return devs[di];
}

int main(int argc, char **argv)
{
	int pi, di;
	if (argc != 6 || sscanf(argv[2], "%d:%d", &pi, &di) != 2) {
		fprintf(stderr, "usage: seed_loop KERNEL.cl P:D f32|f64 SIZE SECONDS\n");
		return 2;
	}
	bool f64 = strcmp(argv[3], "f64") == 0;
	size_t size = strtoul(argv[4], NULL, 10), el = f64 ? 8 : 4;
	double seconds = atof(argv[5]);
	cl_device_id dev = pick(pi, di);
	cl_int rc;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
	check(rc, "clCreateContext");
	cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
	check(rc, "clCreateCommandQueueWithProperties");
	const char *src = slurp(argv[1]);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	check(rc, "clCreateProgramWithSource");
	check(clBuildProgram(prog, 1, &dev, f64 ? "-DREAL=double" : "-DREAL=float", NULL, NULL),
	      "clBuildProgram");
	cl_kernel k = clCreateKernel(prog, "decode", &rc);
	check(rc, "clCreateKernel");
	cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY, size * el, NULL, &rc);
	cl_mem perm = clCreateBuffer(ctx, CL_MEM_READ_ONLY, size * sizeof(cl_int), NULL, &rc);
	cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, size * el, NULL, &rc);
	check(rc, "clCreateBuffer");
	struct gd_rng rng;
	rng_seed(&rng, 1);
	cl_int *p = malloc(size * sizeof(*p));
	for (size_t i = 0; i < size; i++) /* a random permutation (Fisher-Yates) */
		p[i] = (cl_int)i;
	for (size_t i = size - 1; i > 0; i--) {
		size_t j = (size_t)(rng_uniform(&rng) * (double)(i + 1));
		cl_int t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	check(clEnqueueWriteBuffer(q, perm, CL_TRUE, 0, size * sizeof(*p), p, 0, NULL, NULL), "write perm");
	check(clSetKernelArg(k, 0, sizeof(in), &in) | clSetKernelArg(k, 1, sizeof(perm), &perm) |
	          clSetKernelArg(k, 2, sizeof(out), &out),
	      "clSetKernelArg");
	void *host = malloc(size * el), *res = malloc(size * el);
	unsigned long batches = 0;
	double t0 = now_s(), t;
	do {
		if (f64)
			rng_fill_polar_f64(&rng, host, size);
		else
			rng_fill_polar_f32(&rng, host, size);
		check(clEnqueueWriteBuffer(q, in, CL_TRUE, 0, size * el, host, 0, NULL, NULL), "write");
		for (int l = 0; l < LAUNCHES; l++)
			check(clEnqueueNDRangeKernel(q, k, 1, NULL, &size, NULL, 0, NULL, NULL), "launch");
		check(clFinish(q), "clFinish");
		check(clEnqueueReadBuffer(q, out, CL_TRUE, 0, size * el, res, 0, NULL, NULL), "read");
		batches++;
	} while ((t = now_s()) - t0 < seconds);
	printf("seed_loop %s %zu: %lu batches in %.3f s, %.3f Mbit/s\n", argv[3], size, batches, t - t0,
	       (double)batches * (double)size / (t - t0) / 1e6);
	return 0;
}

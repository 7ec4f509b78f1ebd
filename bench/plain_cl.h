/* plain_cl.h: what the plain reference programs (ref_loop.c, seed_replica.c) share: a clock,
 * a check that ends the program on an OpenCL error, reading the kernel's source, and picking a
 * device by P:D. OpenCL and libc only, none of the tool's code. Each program names itself in
 * its messages through PLAIN_NAME. */
#ifndef GPUTOP_BENCH_PLAIN_CL_H
#define GPUTOP_BENCH_PLAIN_CL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(cl_int rc, const char *what)
{
	if (rc != CL_SUCCESS) {
		fprintf(stderr, PLAIN_NAME ": %s failed: %d\n", what, (int)rc);
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
	cl_uint np = 0, nd = 0;
	check(clGetPlatformIDs(16, plats, &np), "clGetPlatformIDs");
	if (pi < 0 || (cl_uint)pi >= np)
		exit(2);
	cl_device_id devs[16];
	check(clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 16, devs, &nd), "clGetDeviceIDs");
	if (di < 0 || (cl_uint)di >= nd)
		exit(2);
	return devs[di];
}

#endif

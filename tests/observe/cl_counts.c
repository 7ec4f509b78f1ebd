/* cl_counts.c: a small OpenCL program with known counts, observed by test_observe.sh. Each of
 * its BATCHES batches writes N floats (non-blocking), launches the kernel LAUNCHES times over N
 * work-items, reads N floats back (non-blocking) and waits with clFinish: per process BATCHES
 * batches and waits, BATCHES x LAUNCHES launches, BATCHES x N x 4 bytes each way. With CHILDREN,
 * the process forks that many children first, each of which runs the same loop (the parent makes
 * no OpenCL call). With THREADS, that many threads of the process run the loop at once, each on
 * a queue of its own. It prints what the program itself sees: the queue's profiling property, a
 * checksum of the results and the errors of two calls that fail, the same observed or not.
 * CL_COUNTS_DEVICE=D in the environment: the loop runs on device D of the first platform.
 * Usage: cl_counts BATCHES LAUNCHES [CHILDREN [THREADS]] */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 4096

static const char *src = "kernel void halve(global float *x) { size_t i = get_global_id(0);"
                         " x[i] = x[i] * 0.5f + 1.0f; }";

static void check(cl_int rc, const char *what)
{
	if (rc != CL_SUCCESS) {
		fprintf(stderr, "cl_counts: %s: %d\n", what, (int)rc);
		exit(1);
	}
}

static int run(int batches, int launches);
static int batches_arg, launches_arg;

static void *thread_main(void *arg)
{
	(void)arg;
	run(batches_arg, launches_arg);
	return NULL;
}

/* The loop in threads threads at once (threads 0: in this one). */
static int run_threads(int batches, int launches, int threads)
{
	if (threads < 1)
		return run(batches, launches);
	pthread_t t[64];
	cl_platform_id p;
	cl_device_id d; /* the loader's first use, before the threads (it is not safe from several) */
	check(clGetPlatformIDs(1, &p, NULL), "clGetPlatformIDs");
	check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL), "clGetDeviceIDs");
	batches_arg = batches;
	launches_arg = launches;
	for (int i = 0; i < threads && i < 64; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < threads && i < 64; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int run(int batches, int launches)
{
	cl_platform_id p;
	cl_device_id all[8], d;
	cl_uint nd = 0;
	cl_int rc;
	const char *which = getenv("CL_COUNTS_DEVICE"); /* device D of the first platform; else 0 */
	int want = which ? atoi(which) & 7 : 0;
	check(clGetPlatformIDs(1, &p, NULL), "clGetPlatformIDs");
	check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 8, all, &nd), "clGetDeviceIDs");
	check((cl_uint)want < nd ? CL_SUCCESS : CL_DEVICE_NOT_FOUND, "CL_COUNTS_DEVICE");
	d = all[want];
	cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &rc);
	check(rc, "clCreateContext");
	cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, NULL, &rc);
	check(rc, "clCreateCommandQueueWithProperties");
	cl_command_queue_properties props = 0;
	check(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL), "queue info");
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	check(rc, "clCreateProgramWithSource");
	check(clBuildProgram(prog, 1, &d, "", NULL, NULL), "clBuildProgram");
	cl_kernel k = clCreateKernel(prog, "halve", &rc);
	check(rc, "clCreateKernel");
	cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &rc);
	check(rc, "clCreateBuffer");
	check(clSetKernelArg(k, 0, sizeof(buf), &buf), "clSetKernelArg");
	static _Thread_local float host[N];
	double sum = 0;
	size_t global = N;
	for (int b = 0; b < batches; b++) {
		for (int i = 0; i < N; i++)
			host[i] = (float)(i % 97) + (float)b;
		check(clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, sizeof(host), host, 0, NULL, NULL), "write");
		for (int l = 0; l < launches; l++)
			check(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), "launch");
		check(clEnqueueReadBuffer(q, buf, CL_FALSE, 0, sizeof(host), host, 0, NULL, NULL), "read");
		check(clFinish(q), "clFinish");
		for (int i = 0; i < N; i++)
			sum += host[i];
	}
	/* Two calls that fail: their errors are the program's to see, and nothing of them counts. */
	cl_int bad_finish = clFinish(NULL);
	cl_int bad_launch = clEnqueueNDRangeKernel(q, k, 0, NULL, &global, NULL, 0, NULL, NULL);
	printf("pid-free result: profiling=%d checksum=%.6f errors=%d,%d\n",
	       (props & CL_QUEUE_PROFILING_ENABLE) != 0, sum, (int)bad_finish, (int)bad_launch);
	fflush(stdout);
	clReleaseMemObject(buf);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cl_counts BATCHES LAUNCHES [CHILDREN]\n");
		return 2;
	}
	int batches = atoi(argv[1]), launches = atoi(argv[2]), children = argc > 3 ? atoi(argv[3]) : 0;
	int threads = argc > 4 ? atoi(argv[4]) : 0;
	if (!children)
		return run_threads(batches, launches, threads);
	for (int c = 0; c < children; c++)
		if (fork() == 0)
			return run_threads(batches, launches, threads);
	int failed = 0, st;
	while (wait(&st) > 0)
		failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	return failed ? 1 : 0;
}

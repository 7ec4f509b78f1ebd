/* observe_call.c: what libgputop-observe.so adds to one enqueue call, on the host alone (`make
 * bench`). The program is linked against the library and then against bench/fake_cl.c's runtime,
 * whose enqueues return at once: its calls of clEnqueueNDRangeKernel go through the library's
 * LD_PRELOAD wrapper (counted as under --profile off, or, with "sampled", as the sampler
 * decides) and on to the fake; the same calls straight to the fake, looked up in it, are the
 * reference. Batches of 1000 launches and a clFinish, as a program of many small kernels has.
 * The run it belongs to is named in the environment as the tool would (its supervisor a process
 * that has ended, so the library removes its segment at exit). Prints ns per call. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES  2000
#define LAUNCHES 1000

typedef cl_int (*ndrange_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                             const size_t *, cl_uint, const cl_event *, cl_event *);
typedef cl_int (*finish_fn)(cl_command_queue);

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ns per launch over BATCHES batches through launch and finish. */
static double run(ndrange_fn launch, finish_fn finish, cl_command_queue q)
{
	size_t global = 64;
	double t0 = now_s();
	for (int b = 0; b < BATCHES; b++) {
		for (int l = 0; l < LAUNCHES; l++)
			launch(q, NULL, 1, NULL, &global, NULL, 0, NULL, NULL);
		finish(q);
	}
	return (now_s() - t0) * 1e9 / ((double)BATCHES * LAUNCHES);
}

int main(int argc, char **argv)
{
	pid_t gone = fork(); /* a pid that has ended: the run's supervisor, gone */
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	char run_env[64];
	snprintf(run_env, sizeof(run_env), "%d:%016llx", (int)gone, 0x5eedull);
	setenv("GPUTOP_DECODE_OBSERVE", run_env, 1);
	setenv("GPUTOP_DECODE_OBSERVE_PROFILE", argc > 1 ? argv[1] : "off", 1);
	void *fake = dlopen("libfakecl.so", RTLD_NOW | RTLD_NOLOAD);
	if (!fake) {
		fprintf(stderr, "observe_call: %s\n", dlerror());
		return 1;
	}
	ndrange_fn plain = (ndrange_fn)dlsym(fake, "clEnqueueNDRangeKernel");
	finish_fn plain_finish = (finish_fn)dlsym(fake, "clFinish");
	cl_command_queue q = clCreateCommandQueue(NULL, NULL, 0, NULL); /* through the library */
	double best[2] = { 1e30, 1e30 };
	for (int round = 0; round < 5; round++) { /* interleaved; the least of each is its cost */
		double p = run(plain, plain_finish, q), o = run(clEnqueueNDRangeKernel, clFinish, q);
		best[0] = p < best[0] ? p : best[0];
		best[1] = o < best[1] ? o : best[1];
	}
	printf("observe_call (%s): %.1f ns a call alone, %.1f ns observed: %.1f ns added\n",
	       argc > 1 ? argv[1] : "off", best[0], best[1], best[1] - best[0]);
	return 0;
}

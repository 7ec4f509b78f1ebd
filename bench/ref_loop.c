/* ref_loop.c: the plain reference loop the tool's figures are compared with. One process, one
 * context, the decode kernel of kernels/decode.cl launched back to back: no shared memory, no
 * records, nothing of the tool's own code. Usage:
 *   ref_loop KERNEL.cl P:D f32|f64 SIZE LAUNCHES SECONDS VARIANT QUEUES [zeros|normal]
 * The inputs are zeros, or with `normal` standard normals as the tool's workers generate (made
 * once: only their values matter to the kernel). VARIANT is one of
 *   plain      in-order queues without profiling, no events, clFinish after each batch
 *   profq      the same on queues created with CL_QUEUE_PROFILING_ENABLE
 *   events     profiling queues, an event on every launch, read and released each batch
 *   lastevent  profiling queues, an event on the last launch of each batch only
 *   idleprof   as plain, with one more queue, with profiling, in the context, never used
 *   pipe       what a pipelined batch does, nothing more: two batches in flight per queue, each
 *              with its own buffers and kernel (arguments set once): a non-blocking write from
 *              pinned memory, the launches, a non-blocking read into pinned memory with an event,
 *              clFlush; the host waits for the oldest batch's read, then enqueues it again
 *   pipeargs   as pipe with one kernel per queue whose buffer arguments are set every batch
 *   pipenoflush  as pipe without the clFlush after each batch
 *   pipethreads  as pipe with one host thread per queue, each waiting for and enqueueing its
 *              own queue's two batches (the threads share the context and nothing else)
 *   pipewrite  as pipe with each queue's writes on a queue of their own: the launches wait for
 *              the write's event, so a batch's copy overlaps the kernels before it
 *   pipecopy   as pipewrite with the reads on a third queue, after the last launch's event
 * With QUEUES > 1 each queue runs its own batches; the host finishes them round robin, so
 * every queue always has a batch in flight. Prints one line: variant, queues, dtype, size,
 * launches, batches, seconds and Mbit/s-equivalent (batches x SIZE / s / 1e6). */
#define PLAIN_NAME "ref_loop"
#include "plain_cl.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXQ 16

#define MAXL 1000

/* One queue's batch in flight: its kernel and the events the variant keeps. */
struct lane {
	cl_command_queue q;
	cl_kernel k;
	cl_event ev[MAXL];
	int nev;
};

/* Enqueues one batch of launches; events as the variant asks. */
static void enqueue(struct lane *l, size_t global, int launches, const char *variant)
{
	int every = strcmp(variant, "events") == 0, last = strcmp(variant, "lastevent") == 0;
	l->nev = 0;
	for (int i = 0; i < launches; i++) {
		int want = every || (last && i == launches - 1);
		check(clEnqueueNDRangeKernel(l->q, l->k, 1, NULL, &global, NULL, 0, NULL,
		                             want ? &l->ev[l->nev] : NULL),
		      "clEnqueueNDRangeKernel");
		l->nev += want;
	}
	clFlush(l->q);
}

/* Waits for the lane's batch, then reads and releases its events. */
static void finish(struct lane *l)
{
	check(clFinish(l->q), "clFinish");
	for (int i = 0; i < l->nev; i++) {
		cl_ulong s = 0, e = 0;
		clGetEventProfilingInfo(l->ev[i], CL_PROFILING_COMMAND_START, sizeof(s), &s, NULL);
		clGetEventProfilingInfo(l->ev[i], CL_PROFILING_COMMAND_END, sizeof(e), &e, NULL);
		clReleaseEvent(l->ev[i]);
	}
	l->nev = 0;
}

/* SIZE inputs of elem bytes: zeros, or standard normals (Box-Muller over rand()). */
static void fill_input(void *in, size_t size, size_t elem, int normal)
{
	for (size_t i = 0; i < size; i++) {
		double x = 0;
		if (normal) {
			double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = rand() / (RAND_MAX + 1.0);
			x = sqrt(-2 * log(u)) * cos(2 * M_PI * v);
		}
		if (elem == 8)
			((double *)in)[i] = x;
		else
			((float *)in)[i] = (float)x;
	}
}

/* One batch slot of the pipe variants: device buffers, pinned staging and its kernel. */
struct slot {
	cl_command_queue q, qw, qr; /* qw, qr: pipewrite's and pipecopy's copy queues, or NULL */
	cl_kernel k;
	cl_mem din, dout;
	void *hin, *hout;
	cl_event done;
};

static void *pinned(cl_context ctx, cl_command_queue q, size_t bytes)
{
	cl_int rc;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &rc);
	check(rc, "clCreateBuffer(pinned)");
	void *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &rc);
	check(rc, "clEnqueueMapBuffer");
	return p; /* mapped for the life of the process */
}

static void pipe_enqueue(struct slot *s, size_t size, size_t elem, int launches, const char *variant)
{
	cl_kernel k = s->k;
	if (strcmp(variant, "pipeargs") == 0) {
		clSetKernelArg(k, 0, sizeof(cl_mem), &s->din);
		clSetKernelArg(k, 2, sizeof(cl_mem), &s->dout);
	}
	cl_event w = NULL, last = NULL;
	cl_command_queue qw = s->qw ? s->qw : s->q, qr = s->qr ? s->qr : s->q;
	check(clEnqueueWriteBuffer(qw, s->din, CL_FALSE, 0, size * elem, s->hin, 0, NULL, s->qw ? &w : NULL),
	      "clEnqueueWriteBuffer");
	if (s->qw)
		clFlush(s->qw);
	for (int i = 0; i < launches; i++)
		check(clEnqueueNDRangeKernel(s->q, k, 1, NULL, &size, NULL, i == 0 && w ? 1 : 0,
		                             i == 0 && w ? &w : NULL,
		                             i == launches - 1 && s->qr ? &last : NULL),
		      "clEnqueueNDRangeKernel");
	if (s->qr)
		clFlush(s->q);
	check(clEnqueueReadBuffer(qr, s->dout, CL_FALSE, 0, size * elem, s->hout, last ? 1 : 0,
	                          last ? &last : NULL, &s->done),
	      "clEnqueueReadBuffer");
	if (strcmp(variant, "pipenoflush") != 0)
		clFlush(qr);
	if (w)
		clReleaseEvent(w);
	if (last)
		clReleaseEvent(last);
}

static void pipe_wait(struct slot *s)
{
	check(clWaitForEvents(1, &s->done), "clWaitForEvents");
	clReleaseEvent(s->done);
}

/* pipethreads: one queue's two slots, driven by a thread of their own. */
struct pipe_thread {
	pthread_t tid;
	struct slot *s[2];
	size_t size, elem;
	int launches;
	double t_end;
	atomic_long *batches;
};

static void *pipe_thread_main(void *arg)
{
	struct pipe_thread *p = arg;
	for (int i = 0; now_s() < p->t_end; i ^= 1) {
		pipe_wait(p->s[i]);
		atomic_fetch_add(p->batches, 1);
		pipe_enqueue(p->s[i], p->size, p->elem, p->launches, "pipe");
	}
	pipe_wait(p->s[0]);
	pipe_wait(p->s[1]);
	return NULL;
}

/* The pipe variants: returns the batches completed in `seconds`, *elapsed the time taken. */
static long run_pipe(cl_context ctx, cl_device_id dev, cl_program prog, cl_mem dperm, int nq, size_t size,
                     size_t elem, int launches, double seconds, const char *variant, int normal,
                     double *elapsed)
{
	static struct slot slots[2 * MAXQ];
	cl_command_queue qs[MAXQ], qw[MAXQ] = { 0 }, qr[MAXQ] = { 0 };
	cl_kernel lane_k[MAXQ];
	cl_int rc;
	int copyw = strcmp(variant, "pipewrite") == 0 || strcmp(variant, "pipecopy") == 0;
	int copyr = strcmp(variant, "pipecopy") == 0;
	for (int i = 0; i < nq; i++) {
		qs[i] = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
		check(rc, "clCreateCommandQueueWithProperties");
		if (copyw) {
			qw[i] = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
			check(rc, "clCreateCommandQueueWithProperties(write)");
		}
		if (copyr) {
			qr[i] = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
			check(rc, "clCreateCommandQueueWithProperties(read)");
		}
		lane_k[i] = clCreateKernel(prog, "decode", &rc);
		check(rc, "clCreateKernel");
		clSetKernelArg(lane_k[i], 1, sizeof(cl_mem), &dperm);
	}
	int ns = 2 * nq;
	for (int i = 0; i < ns; i++) {
		struct slot *s = &slots[i];
		s->q = qs[i % nq];
		s->qw = qw[i % nq];
		s->qr = qr[i % nq];
		if (strcmp(variant, "pipeargs") == 0) {
			s->k = lane_k[i % nq];
		} else {
			s->k = clCreateKernel(prog, "decode", &rc);
			check(rc, "clCreateKernel");
		}
		s->din = clCreateBuffer(ctx, CL_MEM_READ_ONLY, size * elem, NULL, &rc);
		check(rc, "clCreateBuffer(in)");
		s->dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, size * elem, NULL, &rc);
		check(rc, "clCreateBuffer(out)");
		s->hin = pinned(ctx, s->q, size * elem);
		s->hout = pinned(ctx, s->q, size * elem);
		fill_input(s->hin, size, elem, normal);
		clSetKernelArg(s->k, 0, sizeof(cl_mem), &s->din);
		clSetKernelArg(s->k, 1, sizeof(cl_mem), &dperm);
		clSetKernelArg(s->k, 2, sizeof(cl_mem), &s->dout);
	}
	for (int i = 0; i < ns; i++) /* warm-up */
		pipe_enqueue(&slots[i], size, elem, launches, variant);
	for (int i = 0; i < ns; i++)
		pipe_wait(&slots[i]);
	for (int i = 0; i < ns; i++)
		pipe_enqueue(&slots[i], size, elem, launches, variant);
	long batches = 0;
	double t0 = now_s(), t = t0;
	if (strcmp(variant, "pipethreads") == 0) {
		static struct pipe_thread th[MAXQ];
		atomic_long done = 0;
		for (int i = 0; i < nq; i++) {
			th[i] = (struct pipe_thread){ .s = { &slots[i], &slots[i + nq] },
				                      .size = size,
				                      .elem = elem,
				                      .launches = launches,
				                      .t_end = t0 + seconds,
				                      .batches = &done };
			if (pthread_create(&th[i].tid, NULL, pipe_thread_main, &th[i]))
				check(CL_OUT_OF_HOST_MEMORY, "pthread_create");
		}
		for (int i = 0; i < nq; i++)
			pthread_join(th[i].tid, NULL);
		*elapsed = now_s() - t0;
		return atomic_load(&done);
	}
	for (int i = 0; t - t0 < seconds; i = (i + 1) % ns) {
		pipe_wait(&slots[i]);
		batches++;
		pipe_enqueue(&slots[i], size, elem, launches, variant);
		t = now_s();
	}
	for (int i = 0; i < ns; i++)
		pipe_wait(&slots[i]);
	*elapsed = t - t0;
	return batches;
}

int main(int argc, char **argv)
{
	if (argc != 9 && argc != 10) {
		fprintf(stderr, "usage: ref_loop KERNEL.cl P:D f32|f64 SIZE LAUNCHES SECONDS VARIANT QUEUES "
		                "[zeros|normal]\n");
		return 2;
	}
	int pi = 0, di = 0;
	sscanf(argv[2], "%d:%d", &pi, &di);
	int f64 = strcmp(argv[3], "f64") == 0;
	size_t size = strtoul(argv[4], NULL, 10);
	int launches = atoi(argv[5]);
	double seconds = atof(argv[6]);
	const char *variant = argv[7];
	int nq = atoi(argv[8]);
	int normal = argc == 10 && strcmp(argv[9], "normal") == 0;
	if (argc == 10 && !normal && strcmp(argv[9], "zeros") != 0)
		return 2;
	if (nq < 1 || nq > MAXQ || size == 0 || launches < 1 || launches > MAXL)
		return 2;
	size_t elem = f64 ? 8 : 4;

	cl_int rc;
	cl_device_id dev = pick(pi, di);
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
	check(rc, "clCreateContext");
	const char *src = slurp(argv[1]);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	check(rc, "clCreateProgramWithSource");
	check(clBuildProgram(prog, 1, &dev, f64 ? "-DREAL=double -DUSE_FP64" : "-DREAL=float", NULL, NULL),
	      "clBuildProgram");
	int prof = strcmp(variant, "plain") != 0 && strcmp(variant, "idleprof") != 0;
	if (strcmp(variant, "idleprof") == 0) {
		cl_queue_properties pp[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
		cl_command_queue idle = clCreateCommandQueueWithProperties(ctx, dev, pp, &rc);
		check(rc, "clCreateCommandQueueWithProperties(idle)");
		(void)idle; /* lives as long as the context */
	}
	cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, prof ? CL_QUEUE_PROFILING_ENABLE : 0, 0 };
	static struct lane lanes[MAXQ];
	int *perm = malloc(size * sizeof(int));
	void *in = calloc(size, elem);
	for (size_t i = 0; i < size; i++)
		perm[i] = (int)i;
	srand(1);
	for (size_t i = size - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1);
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	fill_input(in, size, elem, normal); /* after the permutation, which stays as it was */
	cl_mem dperm =
	    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size * sizeof(int), perm, &rc);
	check(rc, "clCreateBuffer(perm)");
	if (strncmp(variant, "pipe", 4) == 0) {
		double el = 0;
		long nb =
		    run_pipe(ctx, dev, prog, dperm, nq, size, elem, launches, seconds, variant, normal, &el);
		printf("ref_loop %s queues=%d dtype=%s size=%zu launches=%d batches=%ld seconds=%.3f "
		       "mbit_s=%.1f\n",
		       variant, nq, argv[3], size, launches, nb, el, (double)nb * (double)size / el / 1e6);
		return 0;
	}
	for (int i = 0; i < nq; i++) {
		struct lane *l = &lanes[i];
		l->q = clCreateCommandQueueWithProperties(ctx, dev, props, &rc);
		check(rc, "clCreateCommandQueueWithProperties");
		l->k = clCreateKernel(prog, "decode", &rc);
		check(rc, "clCreateKernel");
		cl_mem din =
		    clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, size * elem, in, &rc);
		check(rc, "clCreateBuffer(in)");
		cl_mem dout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, size * elem, NULL, &rc);
		check(rc, "clCreateBuffer(out)");
		clSetKernelArg(l->k, 0, sizeof(cl_mem), &din);
		clSetKernelArg(l->k, 1, sizeof(cl_mem), &dperm);
		clSetKernelArg(l->k, 2, sizeof(cl_mem), &dout);
	}
	/* Warm-up: one batch per queue. */
	for (int i = 0; i < nq; i++) {
		enqueue(&lanes[i], size, launches, "plain");
		finish(&lanes[i]);
	}
	long batches = 0;
	for (int i = 0; i < nq; i++)
		enqueue(&lanes[i], size, launches, variant);
	double t0 = now_s(), t = t0;
	for (int i = 0; t - t0 < seconds; i = (i + 1) % nq) {
		finish(&lanes[i]);
		batches++;
		enqueue(&lanes[i], size, launches, variant);
		t = now_s();
	}
	for (int i = 0; i < nq; i++)
		finish(&lanes[i]);
	printf("ref_loop %s queues=%d dtype=%s size=%zu launches=%d batches=%ld seconds=%.3f mbit_s=%.1f\n",
	       variant, nq, argv[3], size, launches, batches, t - t0,
	       (double)batches * (double)size / (t - t0) / 1e6);
	return 0;
}

/* compute.cl: compute-bound: a long dependent arithmetic loop per item (ITERS steps of a
 * multiply-add and a sine), almost no memory traffic. ITERS can be set at build time:
 *   gputop-decode --kernel kernels/examples/compute.cl --build-options "-DITERS=4096" */
#ifndef ITERS
#define ITERS 1024
#endif

kernel void compute(global float *out, uint n)
{
	uint i = (uint)get_global_id(0);
	if (i >= n)
		return;
	float x = (float)i / (float)n;
	for (int k = 0; k < ITERS; k++)
		x = sin(x * 1.0001f + 0.5f);
	out[i] = x;
}

/* decode.cl: the boxplus decode kernel. The host builds it with -DREAL=float or -DREAL=double
 * (plus -DUSE_FP64 for double) so the element type matches its buffers exactly; the index
 * type is int. For each work-item: p = gid, then 9 times p = perm[p], t = boxplus(in[p], in[gid]);
 * out[gid] = t. */
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef REAL
#define REAL float
#endif

static REAL boxplus(REAL a, REAL b)
{
	return log(((REAL)1 + exp(a + b)) / (exp(a) + exp(b)));
}

__kernel void decode(__global const REAL *in, __global const int *perm, __global REAL *out)
{
	int gid = (int)get_global_id(0);
	int p = gid;
	REAL t = 0;
	for (int i = 0; i < 9; i++) {
		p = perm[p];
		t = boxplus(in[p], in[gid]);
	}
	out[gid] = t;
}

/* decode_ref.c: CPU reference of the decode kernel and the --verify comparison. */
#include "decode_ref.h"

#include <math.h>
#include <stdlib.h>

#include "gputop/common.h"

static double boxplus(double a, double b)
{
	return log((1.0 + exp(a + b)) / (exp(a) + exp(b)));
}

/* out[gid] for one work-item, in double precision. */
static double decode_ref_one(const double *in, const int *perm, size_t gid)
{
	size_t p = gid;
	double t = 0;
	for (int i = 0; i < 9; i++) {
		p = (size_t)perm[p];
		t = boxplus(in[p], in[gid]);
	}
	return t;
}

double decode_ref_error(const void *in, const void *out, size_t elem_bytes, const int *perm, size_t n)
{
	double *din = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		din[i] = elem_bytes == 4 ? (double)((const float *)in)[i] : ((const double *)in)[i];
	double max_diff = 0, max_ref = 0;
	for (size_t i = 0; i < n; i++) {
		double ref = decode_ref_one(din, perm, i);
		double got = elem_bytes == 4 ? (double)((const float *)out)[i] : ((const double *)out)[i];
		double d = fabs(got - ref);
		if (!(d <= max_diff)) /* also catches NaN */
			max_diff = isnan(d) ? INFINITY : d;
		if (fabs(ref) > max_ref)
			max_ref = fabs(ref);
	}
	free(din);
	return max_ref > 0 ? max_diff / max_ref : max_diff;
}

double decode_ref_tolerance(size_t elem_bytes)
{
	return elem_bytes == 4 ? 1e-5 : 1e-12;
}

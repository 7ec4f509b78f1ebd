/* decode_ref.h (private to the worker side): the double-precision CPU reference of
 * kernels/decode.cl. */
#ifndef GPUTOP_DECODE_REF_H
#define GPUTOP_DECODE_REF_H

#include <stddef.h>

/* Max-norm relative error of a device output against the reference: max|out - ref| / max|ref|.
 * in and out hold n elements of elem_bytes (4: float, 8: double). */
double decode_ref_error(const void *in, const void *out, size_t elem_bytes, const int *perm, size_t n);
/* The tolerance of --verify (doc/fields.md): 1e-12 for double, 1e-5 for float. */
double decode_ref_tolerance(size_t elem_bytes);

#endif

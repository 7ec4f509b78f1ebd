/* kargs.h: how a kernel's arguments are set up, by convention, from what OpenCL says about
 * them (address space, type name, name) and the user's --arg values. Pure: no OpenCL; clx_program.c
 * queries the descriptors and the worker side creates what the plan says.
 *
 * For N work items: global const T* (or constant T*) is an input of N elements: float and
 * double (and their vectors) standard normals generated for every batch, integer types a
 * random permutation of 0..N-1 made once per worker; global T* an output of N elements, zeroed
 * once and read back every batch; an integer scalar named n, N, count or size is N; other
 * scalars take --arg NAME=VALUE, local pointers --arg NAME=BYTES, and --arg NAME=len:K gives a
 * buffer K elements instead of N. Everything else is refused, naming the argument. */
#ifndef GPUTOP_KARGS_H
#define GPUTOP_KARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gputop/rng.h"
#include "gputop/spec.h"

#define KA_MAX 32 /* kernel arguments at most */
#define KA_NAME_LEN                                                                          \
	256                   /* an argument's, its type's or a kernel's name, NUL included: \
	                       * longer ones are refused by name (clx_program.c) */
#define KA_LEN_MAX (1u << 30) /* --arg NAME=len:K: K at most; also a local size's bytes */

/* The argument's address space, as CL_KERNEL_ARG_ADDRESS_QUALIFIER gives it. */
enum ka_addr { KA_ADDR_PRIVATE, KA_ADDR_GLOBAL, KA_ADDR_CONSTANT, KA_ADDR_LOCAL };

/* One argument as the program describes it. */
struct ka_desc {
	enum ka_addr addr;
	bool is_const;          /* CL_KERNEL_ARG_TYPE_CONST */
	char type[KA_NAME_LEN]; /* CL_KERNEL_ARG_TYPE_NAME: "float*", "uint", "image2d_t" */
	char name[KA_NAME_LEN]; /* CL_KERNEL_ARG_NAME */
};

/* What the host does with an argument. */
enum ka_kind {
	KA_IN_BATCH, /* input generated for every batch (float, double): one buffer per batch */
	KA_IN_ONCE,  /* input made once (integers): one buffer shared by every batch */
	KA_OUT,      /* output: one buffer per batch, read back after it */
	KA_LOCAL,    /* local memory of the given bytes */
	KA_SCALAR,   /* a value */
};

enum ka_base {
	KA_CHAR,
	KA_UCHAR,
	KA_SHORT,
	KA_USHORT,
	KA_INT,
	KA_UINT,
	KA_LONG,
	KA_ULONG,
	KA_FLOAT,
	KA_DOUBLE
};

struct ka_setup {
	enum ka_kind kind;
	enum ka_base base;
	unsigned lanes;         /* components stored per element: 1, 2, 4, 8 or 16 (3 is stored as 4) */
	size_t count;           /* a buffer's elements */
	size_t bytes;           /* a buffer's or local memory's bytes; a scalar's size */
	unsigned char value[8]; /* a scalar's value, in the host's byte order */
	bool given;             /* set from --arg */
};

/* Plans the n arguments of d (n <= KA_MAX) for items work items, with the --arg values given
 * ("NAME=VALUE", ngiven of them). Returns 0, or -1 with one line in err that names the
 * argument and what to pass (or the --arg that names no argument). */
int kargs_plan(const struct ka_desc *d, int n, const char *const *given, int ngiven, size_t items,
               struct ka_setup *out, char *err, size_t errlen);
/* Fills dst (a->bytes) with a's values: normals for float and double, by gen (the ziggurat
 * unless GD_GEN_BOX_MULLER), a permutation of 0..count*lanes-1 for integers (narrow types keep
 * its low bits). */
void kargs_fill(const struct ka_setup *a, struct gd_rng *rng, enum gd_generator gen, void *dst);
/* "x: in float[N], y: out float[N], a: float=2, n: uint=N" for the n arguments. */
void kargs_describe(const struct ka_desc *d, const struct ka_setup *a, int n, size_t items, char *buf,
                    size_t len);
/* "--arg NAME=VALUE" well formed: a name of letters, digits and '_', then '=', then a value. */
bool kargs_given_valid(const char *s);

#endif

/* rng_tables.h (private to rng.c and rng_tables.c): the ziggurat's 256 layers, as tables of
 * constants (rng_tables.c says what each holds and prints them). */
#ifndef GPUTOP_RNG_TABLES_H
#define GPUTOP_RNG_TABLES_H

#include <stdint.h>

#define ZIG_LAYERS 256
#define ZIG_R      0x1.d3bb48209ad33p+1 /* 3.65415288536100877165, the start of the tail */

/* For layer i: how many of its cells lie under the curve (of 2^52; of 2^23 for floats), the
 * width of one cell, and f at its lower edge (zig_f[i + 1]: at its upper edge). */
extern const uint64_t zig_k64[ZIG_LAYERS];
extern const double zig_w64[ZIG_LAYERS];
extern const double zig_f[ZIG_LAYERS + 1];
extern const uint32_t zig_k32[ZIG_LAYERS];
extern const float zig_w32[ZIG_LAYERS];

#endif

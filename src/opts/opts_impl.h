/* opts_impl.h: what the parts of the options module share: the table (options.c) and the readers
 * of what it describes. parse.c fills a struct gd_opts from it (each value read by
 * parse_value.c), value.c reads one back as the run header states it, help.c writes --help from
 * it. */
#ifndef GPUTOP_OPTS_IMPL_H
#define GPUTOP_OPTS_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "gputop/opts.h"

/* Options in the table at most: the parser keeps the options given as bits of a uint64_t. */
#define OPTS_MAX 64

/* Every option, in --help order: opts_ndefs of them. */
extern const struct gd_optdef opts_defs[];
extern const size_t opts_ndefs;

/* An internal option (no help line): written by the tool itself, never typed. */
bool opts_internal(const struct gd_optdef *d);
/* A whole-number or choice field of o, whatever its width (4 or 8 bytes). */
long long opts_read_whole(const struct gd_opts *o, const struct gd_optdef *d);
/* A choice's names[min..max] joined by sep into s (n bytes). */
void opts_join_names(const struct gd_optdef *d, const char *sep, char *s, size_t n);

#endif

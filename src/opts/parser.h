/* parser.h: what the command line's walk (parse.c) and the readers of one option's value
 * (parse_value.c) share: the parse in progress and its one-line messages. */
#ifndef GPUTOP_OPTS_PARSER_H
#define GPUTOP_OPTS_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "opts_impl.h"

struct parser {
	char *err;
	size_t errlen;
	const char *opt;  /* the option being parsed, for messages */
	char name[64];    /* its name, where opt points here */
	unsigned pending; /* roles settled after every option: bits (1u << GD_ROLE_...) */
	uint64_t given;   /* options given: bit i is opts_defs[i] */
	uint64_t letter;  /* ... given last by their letter */
};

/* "OPTION: " and the message into p->err, control characters shown as '?' so that it stays one
 * line whatever was typed; returns -1. */
__attribute__((format(printf, 2, 3))) int parser_fail(struct parser *p, const char *fmt, ...);
/* Option d's value s into its field of o, checked against d's kind and range; 0, or -1 with
 * the message in p->err. */
int parser_set_value(struct parser *p, const struct gd_optdef *d, const char *s, struct gd_opts *o);

#endif

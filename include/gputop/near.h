/* near.h: did-you-mean: the known name nearest to a mistyped one, for the messages that refuse
 * an option, a --fields name, a choice's value (--mode, --profile...) or a device's name. */
#ifndef GPUTOP_NEAR_H
#define GPUTOP_NEAR_H

#include <stddef.h>

/* Edits (insert, delete, replace, swap two neighbours) a name may be from the word typed and
 * still be offered: at most 2, and 1 for a word of 3 characters or fewer, where 2 edits
 * make almost any name. */
#define GD_NEAR_MAX 2

/* Of names[0..n), the one nearest to the len characters at word (case ignored), at most
 * GD_NEAR_MAX edits away and not equal to it; the first of the nearest; NULL where none. A
 * NULL name is skipped. */
const char *gd_near(const char *word, size_t len, const char *const *names, size_t n);

#endif

/* near.c: did-you-mean (near.h): the optimal string alignment distance, that of Damerau, between
 * a mistyped word and each known name. */
#include "gputop/near.h"

#include <ctype.h>
#include <string.h>

#define NEAR_LEN 64 /* longer words and names are never offered: no name is this long */

/* The edits from a[0..na) to b[0..nb), case ignored, or more than GD_NEAR_MAX where it is:
 * one row of the table at a time, three kept for the swap. */
static int distance(const char *a, size_t na, const char *b, size_t nb)
{
	int rows[3][NEAR_LEN + 1];
	int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= nb; j++) {
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			int d = prev[j - 1] + !same;
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		int *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}

const char *gd_near(const char *word, size_t len, const char *const *names, size_t n)
{
	const int most = len <= 3 ? 1 : GD_NEAR_MAX;
	const char *best = NULL;
	int bestd = most + 1;
	if (len > NEAR_LEN)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t nb = strlen(names[i]);
		if (nb > NEAR_LEN || (nb == len && strncmp(names[i], word, len) == 0))
			continue; /* too long to be meant, or the word itself */
		if ((nb > len ? nb - len : len - nb) > (size_t)most)
			continue;
		int d = distance(word, len, names[i], nb);
		if (d < bestd) {
			best = names[i];
			bestd = d;
		}
	}
	return best;
}

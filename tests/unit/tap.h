/* tap.h: a minimal TAP producer for the unit tests: ok/not ok lines, a plan at the end, and
 * an exit status that says whether anything failed. */
#ifndef GPUTOP_TESTS_TAP_H
#define GPUTOP_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* Compares with a message that shows both values. */
#define TAP_EQ_U(got, want, ...)                                                                    \
	do {                                                                                        \
		unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
		if (!tap_ok(g_ == w_, __VA_ARGS__))                                                 \
			printf("#   got %llu, want %llu\n", g_, w_);                                \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif

/* common.c: allocation, clocks, threads and string helpers shared by every role. */
#include "gputop/common.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void oom(size_t n)
{
	fprintf(stderr, GD_NAME ": out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	size_t n = nmemb * size;
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * GD_NS_PER_S + ts.tv_nsec;
}

double unix_seconds(int64_t mono_ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double real = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return real - (double)(now_ns() - mono_ns) / 1e9;
}

void sleep_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	struct timespec ts = { .tv_sec = ns / GD_NS_PER_S, .tv_nsec = ns % GD_NS_PER_S };
	nanosleep(&ts, NULL); /* EINTR is the point: a signal wakes the loop */
}

int gd_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, size_t stack)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (!t)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (stack)
		pthread_attr_setstacksize(&attr, stack);
	pthread_t detached;
	int rc = pthread_create(t ? t : &detached, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

char *str_copy(char *dst, size_t n, const char *src)
{
	if (n) {
		size_t len = strnlen(src, n - 1);
		memcpy(dst, src, len);
		dst[len] = '\0';
	}
	return dst;
}

void text_vprintf(struct gd_text *t, const char *fmt, va_list ap)
{
	for (;;) {
		va_list aq;
		va_copy(aq, ap);
		int len = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, aq);
		va_end(aq);
		if (len < 0)
			return;
		if (t->p && t->n + (size_t)len < t->cap) {
			t->n += (size_t)len;
			return;
		}
		t->cap = (t->cap + (size_t)len) * 2 + 256;
		t->p = xreallocarray(t->p, t->cap, 1);
	}
}

void text_printf(struct gd_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(t, fmt, ap);
	va_end(ap);
}

/* The length of the UTF-8 sequence at s, of the left bytes there are, 0 when none is valid. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	if (s[0] < 0x80)
		return 1;
	size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
	           : s[0] >= 0xe0 && s[0] <= 0xef ? 3
	           : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
	                                          : 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

size_t utf8_seq(const char *p)
{
	/* A NUL is no continuation byte: the check stops at it. */
	return utf8_len((const unsigned char *)p, 4);
}

/* A control character of n bytes at s: C0 and DEL (1 byte), C1 (U+0080..U+009F, 2). */
static bool is_control(const unsigned char *s, size_t n)
{
	return (n == 1 && (s[0] < 0x20 || s[0] == 0x7f)) || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

size_t gd_clean_text(char *dst, size_t n, const char *src, size_t len)
{
	if (n == 0)
		return 0;
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_len(s + i, len - i);
		bool keep = k > 0 && !is_control(s + i, k);
		size_t w = keep ? k : 1;
		if (o + w >= n) /* room for the terminator; a character goes whole or not at all */
			break;
		if (keep)
			memmove(dst + o, src + i, k); /* dst may be src, never ahead of it */
		else
			dst[o] = '?';
		o += w;
		i += k ? k : 1;
	}
	dst[o] = '\0';
	return o;
}

void text_clean(char *s)
{
	size_t len = strlen(s);
	gd_clean_text(s, len + 1, s, len);
}

void text_json_string(struct gd_text *t, const char *s)
{
	text_printf(t, "\"");
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_seq(s);
		if (c == '"' || c == '\\')
			text_printf(t, "\\%c", c);
		else if (c < 0x20)
			text_printf(t, "\\u%04x", c);
		else if (n == 0) /* a byte that is no UTF-8: JSON cannot carry it */
			text_printf(t, "\\ufffd");
		else
			text_printf(t, "%.*s", (int)n, s);
		s += n ? n : 1;
	}
	text_printf(t, "\"");
}

void text_json_clean(struct gd_text *t, const char *s)
{
	size_t len = strlen(s);
	char *c = xmalloc(len + 1);
	gd_clean_text(c, len + 1, s, len);
	text_json_string(t, c);
	free(c);
}

void gd_say(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	text_clean(line);
	fprintf(stderr, GD_NAME ": %s\n", line);
}

int write_all(int fd, const void *buf, size_t n, size_t *written)
{
	size_t off = 0;
	int rc = 0;
	while (off < n) {
		ssize_t w = write(fd, (const char *)buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? errno : EIO;
			break;
		}
		off += (size_t)w;
	}
	if (written)
		*written = off;
	return rc;
}

void gd_assert_failed(const char *file, int line, const char *expr)
{
	fprintf(stderr, GD_NAME ": %s:%d: invariant broken: %s\n", file, line, expr);
	abort();
}

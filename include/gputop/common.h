/* common.h: small helpers every module uses: allocation, clocks, threads, messages. */
#ifndef GPUTOP_COMMON_H
#define GPUTOP_COMMON_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define GD_NAME    "gputop-decode"
#define GD_VERSION "0.1.0"

/* Exit statuses shared by every role. */
enum {
	GD_EXIT_OK = 0,
	GD_EXIT_FAIL = 1,  /* run-time failure; a worker's error is in its segment */
	GD_EXIT_USAGE = 2, /* bad input: nothing was started */
	GD_EXIT_NOSEG = 3, /* a worker could not create its shared-memory segment */
	/* The same, for a reason errno e (0 < e < 128) names: the worker exits with this + e, so
	 * the supervisor can say why ("No space left on device", "Read-only file system"). */
	GD_EXIT_NOSEG_ERRNO = 64,
};

#define GD_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* An invariant of the tool's own state, checked in every build (not <assert.h>: NDEBUG does
 * not remove it): when it does not hold, "FILE:LINE: invariant broken: EXPR" goes to standard
 * error and the process aborts. e is evaluated once. Never for what comes from outside (a
 * segment's bytes, a file, an option): those are refused or counted, not asserted. */
#define GD_ASSERT(e) (__builtin_expect(!!(e), 1) ? (void)0 : gd_assert_failed(__FILE__, __LINE__, #e))
_Noreturn void gd_assert_failed(const char *file, int line, const char *expr);
#define GD_NS_PER_S 1000000000LL

/* Allocation that never returns NULL: it aborts with a message instead. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *p, size_t nmemb, size_t size);

/* CLOCK_MONOTONIC in nanoseconds: the one host clock of the tool. */
int64_t now_ns(void);
/* The wall-clock time (Unix seconds) of a CLOCK_MONOTONIC instant, for logs that join others. */
double unix_seconds(int64_t mono_ns);
/* Sleep for ns nanoseconds, returning early on a signal. */
void sleep_ns(int64_t ns);

/* Starts fn(arg) in a new thread with every signal blocked, so that handlers run only in the
 * threads that unblock them (a new thread takes its creator's mask: the caller's is all blocked
 * for the call, then restored). Joinable with its id in *t, or detached where t is NULL; a stack
 * of stack bytes, or the default where stack is 0. Returns pthread_create's error (0: started). */
int gd_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, size_t stack);

/* snprintf that always terminates and never overflows, returning dst. */
char *str_copy(char *dst, size_t n, const char *src);

/* A growing text buffer: text_printf appends; p is NULL until the first append; free(p). */
struct gd_text {
	char *p;
	size_t n, cap;
};
void text_printf(struct gd_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The length of the UTF-8 sequence s starts with (1 for ASCII, up to 4), 0 when s starts with
 * no valid one (a stray byte, an overlong form, a surrogate). s[0] is not NUL. */
size_t utf8_seq(const char *s);
/* The one way text from outside (a command line, a program's output, a file, the runtime's
 * names) reaches any output or screen, so that it reads the same in each and no control
 * character ever acts on a terminal. A NUL among the len bytes is a control character too; a
 * character that does not fit whole in dst is left out with everything after it; dst may be src
 * (the text never grows). */
/* Copies at most len bytes of src into dst (size n, always terminated) as text safe for any output:
 * valid UTF-8 kept, control characters (C0, DEL, C1) and invalid bytes each become one '?'. */
size_t gd_clean_text(char *dst, size_t n, const char *src, size_t len);
/* gd_clean_text in place, up to the terminator. */
void text_clean(char *s);
/* s as a JSON string, quoted: quotes and backslashes escaped, control characters as \uXXXX,
 * bytes that are no UTF-8 as U+FFFD, so the result is always valid JSON. */
void text_json_string(struct gd_text *t, const char *s);
/* s cleaned (gd_clean_text), then as a JSON string: what every JSON output writes for text from
 * outside, so a name reads the same in the JSON as in the CSV and on the screen. */
void text_json_clean(struct gd_text *t, const char *s);
/* One message on standard error after GD_NAME ": ", cleaned (gd_clean_text) into one line,
 * whatever the values it echoes hold (a newline, an escape, a stray byte). */
void gd_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void text_vprintf(struct gd_text *t, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Writes buf[0..n) to fd, going on after a short write or EINTR: 0, or the errno that stopped
 * it (EIO for a write of nothing); *written (when not NULL) gets the bytes that went out. */
int write_all(int fd, const void *buf, size_t n, size_t *written);

#endif

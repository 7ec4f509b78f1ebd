/* test_clean.c: gd_clean_text, the one cleaning of text from outside: what it keeps, what becomes
 * '?', its bounds (len, the size of dst), in place; the JSON and standard-error ways that use it;
 * and, over random bytes, that what comes out is always UTF-8 with no control character. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "tap.h"

/* src (len bytes) cleaned into a buffer of n bytes; *ret gets what gd_clean_text returned. */
static const char *clean(const char *src, size_t len, size_t n, size_t *ret)
{
	static char dst[256];
	memset(dst, 'X', sizeof(dst));
	*ret = gd_clean_text(dst, n, src, len);
	return dst;
}

static void check(const char *src, size_t len, const char *want, const char *what)
{
	size_t ret;
	const char *got = clean(src, len, 256, &ret);
	if (!tap_ok(strcmp(got, want) == 0 && ret == strlen(want), "%s", what))
		printf("#   got '%s' (%zu), want '%s'\n", got, ret, want);
}

/* A literal, every byte of it (a NUL inside too). */
#define CHECK(lit, want, what) check(lit, sizeof(lit) - 1, want, what)

static void test_cases(void)
{
	CHECK("plain text, 1.5", "plain text, 1.5", "ASCII text is kept as it is");
	CHECK("a\x1b[2Jb\rc\bd\ae\tf\ng", "a?[2Jb?c?d?e?f?g",
	      "ESC, CR, backspace, BEL, tab, newline: each one '?'");
	CHECK("a\0b", "a?b", "a NUL among the len bytes is a control character too");
	CHECK("a\x7fz", "a?z", "DEL: '?'");
	CHECK("a\xc2\x9b[2Jb\xc2\x80\xc2\x9f", "a?[2Jb??", "C1 (U+009B CSI, U+0080, U+009F): one '?' each");
	CHECK("\xc2\xa0|\xc3\xa9|\xe2\x82\xac|\xf0\x9f\x98\x80",
	      "\xc2\xa0|\xc3\xa9|\xe2\x82\xac|\xf0\x9f\x98\x80",
	      "valid UTF-8 of 2, 3 and 4 bytes is kept (U+00A0, the first after C1, too)");
	CHECK("a\xffz\xfe", "a?z?", "a byte that is no UTF-8: '?'");
	CHECK("\xc0\x80\xe0\x80\xaf", "?????", "overlong forms: a '?' a byte");
	CHECK("\xed\xa0\x80", "???", "a surrogate: a '?' a byte");
	CHECK("\xf4\x90\x80\x80", "????", "above U+10FFFF: a '?' a byte");
	CHECK("ab\xe2\x82", "ab??", "a sequence cut short by the end: a '?' a byte");
	CHECK("a\xe2\x82z", "a??z", "a sequence cut short by ASCII: a '?' a byte, the ASCII kept");
	CHECK("", "", "nothing: an empty string");
}

static void test_bounds(void)
{
	size_t ret;
	const char *got = clean("abcdef", 3, 256, &ret);
	tap_ok(strcmp(got, "abc") == 0 && ret == 3, "at most len bytes are read: %s", got);
	got = clean("a\xe2\x82\xac", 3, 256, &ret);
	tap_ok(strcmp(got, "a??") == 0, "a character that len cuts is no UTF-8: %s", got);
	got = clean("abcdef", 6, 4, &ret);
	tap_ok(strcmp(got, "abc") == 0 && ret == 3, "dst of n bytes: n - 1 of them and the terminator: %s",
	       got);
	got = clean("a\xe2\x82\xacz", 5, 4, &ret);
	tap_ok(strcmp(got, "a") == 0 && ret == 1,
	       "a character that does not fit whole is left out, and all after it");
	got = clean("a\x1b", 2, 3, &ret);
	tap_ok(strcmp(got, "a?") == 0 && ret == 2, "a '?' takes one byte of dst");
	got = clean("abc", 3, 1, &ret);
	tap_ok(got[0] == '\0' && ret == 0, "n = 1: only the terminator");
	got = clean("abc", 3, 0, &ret);
	tap_ok(got[0] == 'X' && ret == 0, "n = 0: dst is not touched");

	char s[] = "x\xc2\x9b\xe2\x82\xac\r\xffy";
	size_t n = gd_clean_text(s, sizeof(s), s, strlen(s));
	tap_ok(strcmp(s, "x?\xe2\x82\xac??y") == 0 && n == 8, "in place (dst is src): %s", s);
	char t[] = "dev\rice\x1b[2J\xff\xc3\xa9";
	text_clean(t);
	tap_ok(strcmp(t, "dev?ice?[2J?\xc3\xa9") == 0, "text_clean is gd_clean_text in place: %s", t);
}

/* The length of a strictly valid UTF-8 character at s that is no control character, else 0:
 * written apart from the code under test, from the Unicode table of well-formed sequences. */
static size_t printable_char(const unsigned char *s)
{
	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	unsigned lo = 0x80, hi = 0xbf;
	size_t n = 0;
	if (s[0] == 0xc2)
		n = 2, lo = 0xa0; /* U+0080..U+009F are C1 */
	else if (s[0] >= 0xc3 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	if (n == 0 || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static bool all_printable(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;
	for (size_t k; *s; s += k)
		if ((k = printable_char(s)) == 0)
			return false;
	return true;
}

/* Random bytes, weighted to the troublesome ones: whatever comes in, what comes out is UTF-8
 * with no control character, no longer than what came in, and cleaning it again changes
 * nothing (one cleaning, wherever it happens, gives the same text). */
static void test_random(void)
{
	static const unsigned char pick[] = { 0x00, 0x07, 0x08, 0x09, 0x0a, 0x0d, 0x1b, 0x7f, 0x80, 0x9b,
		                              0xa0, 0xbf, 0xc0, 0xc2, 0xc3, 0xdf, 0xe0, 0xe2, 0xed, 0xef,
		                              0xf0, 0xf4, 0xf5, 0xff, 'a',  '[',  '?',  ',' };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int bad = 0, grew = 0, moved = 0, lied = 0;
	for (int round = 0; round < 20000; round++) {
		unsigned char src[40];
		size_t len = (size_t)(x >> 59) + 1;
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			src[i] = (x >> 60) < 12 ? pick[(x >> 32) % sizeof(pick)] : (unsigned char)(x >> 24);
		}
		char a[64], b[64];
		size_t n = 2 + (size_t)(x % 50); /* now and then a dst smaller than the text */
		size_t ra = gd_clean_text(a, n, (const char *)src, len);
		size_t rb = gd_clean_text(b, sizeof(b), a, strlen(a));
		bad += !all_printable(a);
		grew += ra > len || ra >= n;
		lied += ra != strlen(a);
		moved += rb != ra || strcmp(a, b) != 0;
	}
	tap_ok(bad == 0, "random bytes: always UTF-8 without control characters (%d not)", bad);
	tap_ok(grew == 0, "random bytes: never longer than the input, always within dst (%d not)", grew);
	tap_ok(lied == 0, "random bytes: the length returned is the length written (%d not)", lied);
	tap_ok(moved == 0, "random bytes: cleaning twice gives what cleaning once gave (%d not)", moved);
}

static void test_users(void)
{
	struct gd_text j = { 0 };
	text_json_clean(&j, "a\x1b[2J\"\\\r\xff\xc2\x9b\xc3\xa9");
	tap_ok(j.p && strcmp(j.p, "\"a?[2J\\\"\\\\???\xc3\xa9\"") == 0,
	       "text_json_clean: cleaned first, then quotes and backslashes escaped: %s", j.p);
	free(j.p);

	/* gd_say's line, read back from a file in place of standard error. */
	char path[] = "/tmp/gd_test_clean.XXXXXX";
	int fd = mkstemp(path);
	int saved = dup(STDERR_FILENO);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	gd_say("observing %s (%d)", "./a\x1b]0;t\x07\nb\xc2\x9b", 7);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	char got[256] = "";
	ssize_t n = pread(fd, got, sizeof(got) - 1, 0);
	got[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	tap_ok(strcmp(got, GD_NAME ": observing ./a?]0;t??b? (7)\n") == 0,
	       "gd_say: one line, ESC, BEL, the newline and C1 as '?': %s", got);
}

int main(void)
{
	test_cases();
	test_bounds();
	test_random();
	test_users();
	return tap_done();
}

/* text.c: writing text into a window, cleaned, clipped to its line where curses would wrap. */
#include <stdarg.h>
#include <string.h>

#include "ui.h"

static bool utf8;

void ui_text_utf8(bool on)
{
	utf8 = on;
}

/* The cells of the first n bytes of s: one a character (UTF-8), wide ones aside. */
static int cells(const char *s, int n)
{
	int c = 0;
	for (int i = 0; i < n && s[i]; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* The bytes of s that fill at most room cells, never half a character. */
static int bytes_of(const char *s, int room)
{
	int i = 0, c = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == room)
			break;
	}
	return i;
}

/* The first n bytes of s, then the mark that more was there: the reader is never left to
 * take a cut word for a whole one. */
static void put_cut(WINDOW *w, int y, int x, const char *s, int n)
{
	const char *mark = utf8 ? "\u2026" : "...";
	mvwaddnstr(w, y, x, s, n);
	waddstr(w, mark);
}

/* Every text of every screen comes here, and is cleaned (gd_clean_text) on its way: a name or a
 * line from outside shows as the log has it, and no control character reaches curses, which
 * would act on a CR, a backspace or a tab (moving the cursor over what is drawn already). Text
 * longer than its line ends in an ellipsis at the line's end. */
void ui_put(WINDOW *w, int y, int x, attr_t a, const char *s)
{
	int room = getmaxx(w) - x, mark = utf8 ? 1 : 3;
	if (room <= 0 || y < 0 || y >= getmaxy(w) || x < 0)
		return;
	char clean[4096]; /* a screen line's worth: 4 bytes a cell at most, on 1000 columns */
	gd_clean_text(clean, sizeof(clean), s, strlen(s));
	int len = (int)strlen(clean);
	wattrset(w, a);
	if (cells(clean, len) > room && room > mark)
		put_cut(w, y, x, clean, bytes_of(clean, room - mark));
	else
		mvwaddnstr(w, y, x, clean, bytes_of(clean, room));
	wattrset(w, A_NORMAL);
}

void ui_putf(WINDOW *w, int y, int x, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ui_put(w, y, x, a, buf);
}

void ui_put_right(WINDOW *w, int y, attr_t a, const char *s)
{
	int x = getmaxx(w) - (int)strlen(s);
	ui_put(w, y, x > 0 ? x : 0, a, s);
}

void ui_pieces(WINDOW *w, int y, int x, int limit, attr_t a, char pieces[][96], int n)
{
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(pieces[i]);
		if (len == 0)
			continue;
		if (x + len > limit)
			continue;
		ui_put(w, y, x, a, pieces[i]);
		x += len + 2;
	}
}

int ui_words(const char *s, int room)
{
	int len = (int)strlen(s);
	if (room <= 0)
		return 0;
	if (len > room) { /* the last blank that leaves whole words before it */
		len = room;
		while (len > 0 && s[len] != ' ')
			len--;
		while (len > 0 && s[len - 1] == ' ')
			len--;
	}
	return len;
}

void ui_put_words(WINDOW *w, int y, int x, int limit, attr_t a, const char *s)
{
	int room = (limit < getmaxx(w) ? limit : getmaxx(w)) - x, mark = utf8 ? 1 : 3;
	int all = (int)strlen(s);
	if (room <= 0 || y < 0 || y >= getmaxy(w) || x < 0)
		return;
	if (cells(s, all) <= room) {
		ui_put(w, y, x, a, s);
		return;
	}
	if (room <= mark)
		return;
	/* The words that fit before the mark, else as much of the first as fits. */
	int len = ui_words(s, room - mark);
	if (len == 0)
		len = bytes_of(s, room - mark);
	char clean[4096];
	gd_clean_text(clean, sizeof(clean), s, (size_t)len);
	wattrset(w, a);
	put_cut(w, y, x, clean, (int)strlen(clean));
	wattrset(w, A_NORMAL);
}

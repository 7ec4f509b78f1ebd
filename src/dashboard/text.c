/* text.c: writing text into a window, cleaned, clipped to its line where curses would wrap. */
#include <stdarg.h>
#include <string.h>

#include "ui.h"

/* Every text of every screen comes here, and is cleaned (gd_clean_text) on its way: a name or a
 * line from outside shows as the log has it, and no control character reaches curses, which
 * would act on a CR, a backspace or a tab (moving the cursor over what is drawn already). */
void ui_put(WINDOW *w, int y, int x, attr_t a, const char *s)
{
	int room = getmaxx(w) - x;
	if (room <= 0 || y < 0 || y >= getmaxy(w) || x < 0)
		return;
	char clean[4096]; /* a screen line's worth: 4 bytes a cell at most, on 1000 columns */
	gd_clean_text(clean, sizeof(clean), s, strlen(s));
	wattrset(w, a);
	mvwaddnstr(w, y, x, clean, room);
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
	int len = ui_words(s, (limit < getmaxx(w) ? limit : getmaxx(w)) - x);
	if (len > 0)
		ui_putf(w, y, x, a, "%.*s", len, s);
}

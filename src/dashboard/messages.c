/* messages.c: the last line of the screen: a message for a few seconds after an action, else
 * the key bar. */
#include <stdarg.h>
#include <string.h>

#include "ui.h"

#define UI_MSG_NS (4 * GD_NS_PER_S)

void ui_message(struct ui *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->msg.text, sizeof(u->msg.text), fmt, ap);
	va_end(ap);
	ui_message_lasts(u, UI_MSG_NS);
}

void ui_message_lasts(struct ui *u, int64_t ns)
{
	u->msg.lasts = ns;
	u->msg.until = INT64_MAX;
}

/* After the observed program's end, in the key bar's place: how it ended, where its output
 * is (the file too where the line has room) and how to quit. */
static void draw_ended(struct ui *u, WINDOW *w)
{
	char line[sizeof(u->end_text) + 128];
	const char *path = u->progout.path;
	snprintf(line, sizeof(line), "%s; o its output (in %s); q quits", u->end_text, path ? path : "");
	if (!path || (int)strlen(line) > getmaxx(w))
		snprintf(line, sizeof(line), "%s;%s q quits", u->end_text, path ? " o its output;" : "");
	ui_put_words(w, 0, 0, getmaxx(w), ui_attr(u, UI_P_WARN) | A_BOLD, line);
}

/* The key table's entries with a bar name, in its order, as many as fit: the last one (quit)
 * always. */
void ui_draw_keybar(struct ui *u, WINDOW *w, int64_t now)
{
	if (u->msg.lasts) { /* its time runs from here: a loaded host may draw it late */
		u->msg.until = now + u->msg.lasts;
		u->msg.lasts = 0;
	}
	if (now < u->msg.until) {
		ui_put_words(w, 0, 0, getmaxx(w), ui_attr(u, UI_P_WARN), u->msg.text);
		return;
	}
	if (u->ended) {
		draw_ended(u, w);
		return;
	}
	int x = 0, last = -1;
	for (int i = 0; i < ui_nkeys; i++)
		if (ui_keys[i].bar)
			last = i;
	int keep = last < 0 ? 0 : (int)(strlen(ui_keys[last].bar) + 1 + strlen(ui_keys[last].word));
	for (int i = 0; i < ui_nkeys; i++) {
		const struct ui_key *k = &ui_keys[i];
		if (!k->bar)
			continue;
		int len = (int)(strlen(k->bar) + 1 + strlen(k->word));
		if (x + len + (i == last ? 0 : 2 + keep) > getmaxx(w))
			continue;
		ui_put(w, 0, x, ui_attr(u, UI_P_KEY), k->bar);
		ui_put(w, 0, x + (int)strlen(k->bar) + 1, A_NORMAL, k->word);
		x += len + 2;
	}
}

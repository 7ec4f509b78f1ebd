/* progout.c: the key o's screen: the last lines of what the observed programs wrote (their
 * output goes to a file of its own while the dashboard runs, so the screen stays whole), read
 * again at every draw. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ui.h"

#define OUTPUT_TAIL  65536 /* bytes read from the end of the file, at most */
#define OUTPUT_LINES 512   /* lines of them kept, at most */

/* The tail of path into buf, split into lines (the first one dropped when the tail starts
 * inside it); returns how many, or -1 when it cannot be read. */
static int tail_lines(const char *path, char *buf, char *line[OUTPUT_LINES])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t n = -1;
	off_t from = 0;
	if (fstat(fd, &st) == 0) {
		from = st.st_size > OUTPUT_TAIL ? st.st_size - OUTPUT_TAIL : 0;
		n = pread(fd, buf, OUTPUT_TAIL, from);
	}
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	char *p = buf;
	if (from > 0 && (p = strchr(buf, '\n')))
		p++;
	int count = 0;
	for (char *nl; p && *p; p = nl ? nl + 1 : NULL) {
		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		if (count == OUTPUT_LINES) { /* keep the newest */
			memmove(line, line + 1, (OUTPUT_LINES - 1) * sizeof(*line));
			count--;
		}
		line[count++] = p;
	}
	return count;
}

void ui_draw_progout(struct ui *u, WINDOW *w)
{
	static char buf[OUTPUT_TAIL + 1];
	char *line[OUTPUT_LINES];
	ui_put(w, 0, 0, A_BOLD, "The programs' output");
	ui_put_right(w, 0, ui_attr(u, UI_P_DIM), "o or Esc closes; the other keys act as usual");
	if (!u->progout.path) {
		ui_put(w, 2, 0, ui_attr(u, UI_P_DIM), "no program is observed: start one with -- COMMAND");
		return;
	}
	ui_putf(w, 1, 0, ui_attr(u, UI_P_DIM), "the last lines of %s, each after its row's id",
	        u->progout.path);
	int n = tail_lines(u->progout.path, buf, line);
	if (n < 0) {
		ui_put(w, 3, 0, ui_attr(u, UI_P_BAD), "cannot read the file");
		return;
	}
	if (n == 0)
		ui_put(w, 3, 0, ui_attr(u, UI_P_DIM), "nothing written yet");
	int room = getmaxy(w) - 3;
	for (int i = n > room ? n - room : 0, y = 3; i < n; i++)
		ui_put(w, y++, 0, A_NORMAL, line[i]);
}

ui_reaction ui_act_progout(struct ui *u, int key)
{
	(void)key;
	u->progout.shown = !u->progout.shown;
	u->diag.shown = false;
	return UI_R_DRAW;
}

/* terminal.c: taking the terminal over and giving it back: curses set up and torn down, and
 * stderr held back meanwhile; whether a terminal can host the dashboard at all. */
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dashboard.h"
#include "ui.h"

/* Keeps stray messages (the OpenCL runtime's, the tool's own) off the curses screen; they
 * are replayed once the terminal is restored. */
static void capture_stderr(struct ui_term *t)
{
	t->saved_stderr = -1;
	fflush(stderr);
	if (!(t->captured = tmpfile()))
		return;
	if ((t->saved_stderr = dup(STDERR_FILENO)) < 0 || dup2(fileno(t->captured), STDERR_FILENO) < 0) {
		fclose(t->captured);
		t->captured = NULL;
	}
}

static void release_stderr(struct ui_term *t)
{
	if (!t->captured)
		return;
	fflush(stderr);
	dup2(t->saved_stderr, STDERR_FILENO);
	close(t->saved_stderr);
	rewind(t->captured);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), t->captured)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(t->captured);
	t->captured = NULL;
}

int ui_begin(struct ui *u)
{
	setlocale(LC_CTYPE, ""); /* characters only: numbers in the log and trace stay "C" */
	u->term.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	ui_text_utf8(u->term.utf8);
	capture_stderr(&u->term);
	/* newterm, not initscr: an unusable TERM is reported instead of ending the process. */
	if (!(u->term.scr = newterm(NULL, stdout, stdin))) {
		const char *term = getenv("TERM");
		snprintf(u->fatal, sizeof(u->fatal), "cannot drive terminal type '%s' (use --headless)",
		         term ? term : "");
		return -1;
	}
	set_term(u->term.scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	set_escdelay(25); /* F10 and arrows arrive as escape sequences */
	curs_set(0);
	ui_colours(u);
	ui_mouse_begin(u);
	refresh();
	return 0;
}

void ui_end(struct ui *u)
{
	if (u->term.scr) {
		ui_free_windows(u);
		/* Without an alternate screen the last frame stays: blank the key bar, where the
		 * shell's next line goes. */
		wattrset(stdscr, A_NORMAL);
		mvwhline(stdscr, LINES - 1, 0, ' ', COLS);
		wrefresh(stdscr);
		endwin();
		delscreen(u->term.scr);
		u->term.scr = NULL;
	}
	release_stderr(&u->term);
}

/* Included last: term.h defines macros (lines, columns and the other capability names) that
 * the code above could take for ordinary names. */
#include <term.h>

int dashboard_check_terminal(char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	int status = 0;
	if (setupterm(NULL, STDOUT_FILENO, &status) != OK) {
		snprintf(err, errlen, "unknown terminal type '%s' (use --headless)", term ? term : "");
		return -1;
	}
	const char *cup = tigetstr("cup");
	bool addressable = cup && (intptr_t)cup != -1; /* -1: not a string capability */
	del_curterm(cur_term);
	if (!addressable) {
		snprintf(err, errlen, "terminal type '%s' cannot move the cursor (use --headless)",
		         term ? term : "");
		return -1;
	}
	return 0;
}

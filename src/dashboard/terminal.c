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
static void capture_stderr(struct ui *u)
{
	u->saved_stderr = -1;
	fflush(stderr);
	if (!(u->captured = tmpfile()))
		return;
	if ((u->saved_stderr = dup(STDERR_FILENO)) < 0 || dup2(fileno(u->captured), STDERR_FILENO) < 0) {
		fclose(u->captured);
		u->captured = NULL;
	}
}

static void release_stderr(struct ui *u)
{
	if (!u->captured)
		return;
	fflush(stderr);
	dup2(u->saved_stderr, STDERR_FILENO);
	close(u->saved_stderr);
	rewind(u->captured);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), u->captured)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(u->captured);
	u->captured = NULL;
}

int ui_begin(struct ui *u)
{
	setlocale(LC_CTYPE, ""); /* characters only: numbers in the log and trace stay "C" */
	u->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	capture_stderr(u);
	/* newterm, not initscr: an unusable TERM is reported instead of ending the process. */
	if (!(u->scr = newterm(NULL, stdout, stdin))) {
		const char *term = getenv("TERM");
		snprintf(u->fatal, sizeof(u->fatal), "cannot drive terminal type '%s' (use --headless)",
		         term ? term : "");
		return -1;
	}
	set_term(u->scr);
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
	if (u->scr) {
		ui_free_windows(u);
		/* Without an alternate screen the last frame stays: blank the key bar, where the
		 * shell's next line goes. */
		wattrset(stdscr, A_NORMAL);
		mvwhline(stdscr, LINES - 1, 0, ' ', COLS);
		wrefresh(stdscr);
		endwin();
		delscreen(u->scr);
		u->scr = NULL;
	}
	release_stderr(u);
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

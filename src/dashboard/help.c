/* help.c: the help screen: the key table, then notes on the columns and the graphs; it
 * scrolls where it does not fit. */
#include "ui.h"

static const char *const notes[] = {
	"Columns: id, pid, state; Mbit/s decoded in the last interval; batches since the",
	"start or the last reset; kbusy% device time of its kernels per interval;",
	"kgap_us mean gap between kernels of a batch; bgap_us mean gap between batches;",
	"lost samples that could not be read; qwait_us queued behind other work.",
	"Breakdown of a batch's wall time: g generate on the host, w host-to-device",
	"copy, q queued, k kernels, r device-to-host copy, o the rest. No part is",
	"negative: where the parts overlap, logs give the excess as overlap_us, and",
	"batch_overlap_us the time a batch began before earlier ones ended (several",
	"queues); bgap_us is then 0.",
	"n/a: not measured (a window with no batch completed) or not applicable (a",
	"worker paused, starting or ended; gen_thr outside --mode pipelined); no unit",
	"follows it. A dimmed figure is the latest measured: its window completed no batch",
	"while one was under way (a batch longer than the interval).",
	"at 100% busy ~R (room +X): R = Mbit/s / device busy, the rate if the device",
	"never idled (an estimate); X = R - Mbit/s. c measures the ceiling instead;",
	"rates above a calibrated ceiling mark it stale (no share above 100%): c",
	"recalibrates.",
	"A ~ after busy or kbusy%: partly from estimated device times (--profile",
	"sampled: batches not profiled get an estimate from the latest round; the",
	"breakdown and the gaps come from profiled batches only).",
	"Rows: > selected, * tagged. The header shows the sort column and its direction;",
	"its head is coloured. Ended rows leave the table 10 s after they end (e keeps them).",
	"Columns that do not fit are left out whole, the least important first; F2",
	"shows, hides and orders them. The mouse: a click on a row selects it, on a",
	"column's head sorts by it (again: the other way round); the wheel moves the",
	"selection.",
	"Sort, interval, columns and colours stay in",
	"$XDG_CONFIG_HOME/gputop-decode/config (else ~/.config/gputop-decode/config),",
	"written when the dashboard ends; an -i given on the command line is this run's",
	"only, and --no-config neither reads nor writes the file.",
	"The graphs headed \"worker N\" are the selected worker's own history.",
	"Logs also give p50 and p99 of kgap and bgap (gap_kernel_p50_us ...): the median",
	"and 99th percentile of each interval's gaps, per worker and over all workers.",
	"With --kernel, Mitem/s (the kernel's work items) stands wherever Mbit/s does.",
};

/* The help is one list of lines: a title, a blank, the key table, a blank, the notes. */
static int help_len(void)
{
	return 3 + ui_nkeys + (int)GD_ARRAY_LEN(notes);
}

static void help_line(struct ui *u, WINDOW *w, int y, int i)
{
	if (i == 0) {
		ui_put(w, y, 0, ui_attr(u, UI_P_HEAD), GD_NAME " " GD_VERSION ": keys");
	} else if (i >= 2 && i < 2 + ui_nkeys) {
		ui_put(w, y, 2, ui_attr(u, UI_P_KEY), ui_keys[i - 2].label);
		ui_put_words(w, y, 14, getmaxx(w), A_NORMAL, ui_keys[i - 2].help);
	} else if (i >= 3 + ui_nkeys) {
		ui_put_words(w, y, 0, getmaxx(w), A_NORMAL, notes[i - 3 - ui_nkeys]);
	}
}

/* The help from its line u->help.top; where it does not fit, the arrows and pages scroll it. */
void ui_draw_help(struct ui *u, WINDOW *w)
{
	int rows = getmaxy(w) - 1, total = help_len();
	int most = total - rows > 0 ? total - rows : 0;
	u->help.top = u->help.top < 0 ? 0 : u->help.top > most ? most : u->help.top;
	for (int y = 0; y < rows && u->help.top + y < total; y++)
		help_line(u, w, y, u->help.top + y);
	if (most == 0)
		ui_put(w, rows, 0, ui_attr(u, UI_P_DIM),
		       "Esc or any key but the arrows and page keys closes this screen.");
	else
		ui_putf(w, rows, 0, ui_attr(u, UI_P_DIM),
		        "lines %d-%d of %d: Up/Down/PgUp/PgDn scroll, Esc or any other key closes",
		        u->help.top + 1, u->help.top + rows, total);
}

ui_reaction ui_act_help(struct ui *u, int key)
{
	(void)key;
	u->help.shown = true;
	u->help.top = 0;
	return UI_R_DRAW;
}

/* A key while the help is shown: the arrows and pages scroll it, any other closes it. */
ui_reaction ui_help_key(struct ui *u, int ch)
{
	int page = LINES > 3 ? LINES - 2 : 1;
	switch (ch) {
	case KEY_UP:
		u->help.top--;
		break;
	case KEY_DOWN:
		u->help.top++;
		break;
	case KEY_PPAGE:
		u->help.top -= page;
		break;
	case KEY_NPAGE:
		u->help.top += page;
		break;
	case KEY_HOME:
		u->help.top = 0;
		break;
	case KEY_END:
		u->help.top = help_len();
		break;
	default:
		u->help.shown = false;
	}
	return UI_R_DRAW;
}

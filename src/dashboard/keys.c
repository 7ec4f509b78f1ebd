/* keys.c: the key table and where a key goes. The help screen lists the table in its order;
 * the key bar shows the entries with a bar name, in this order, as many as fit (the last one
 * always). The man page's KEYS section states the same list. */
#include "ui.h"

#define STR_(x) #x
#define STR(x)  STR_(x)
#define GRACE   "SIGKILL after " STR(SESSION_STOP_GRACE_S) " s"

/* Up, Down, PgUp, PgDn, Home and End move the selection. */
static ui_reaction act_move(struct ui *u, int key)
{
	int page = u->term.lay.table_rows > 1 ? u->term.lay.table_rows : 1;
	switch (key) {
	case KEY_UP:
		ui_move(u, -1);
		break;
	case KEY_DOWN:
		ui_move(u, 1);
		break;
	case KEY_PPAGE:
		ui_move(u, -page);
		break;
	case KEY_NPAGE:
		ui_move(u, page);
		break;
	case KEY_HOME:
		ui_move(u, -GD_PROCS_MAX);
		break;
	case KEY_END:
		ui_move(u, GD_PROCS_MAX);
		break;
	}
	return UI_R_DRAW;
}

static ui_reaction act_none(struct ui *u, int key)
{
	(void)u;
	(void)key; /* Esc with nothing open */
	return UI_R_DRAW;
}

static ui_reaction act_quit(struct ui *u, int key)
{
	(void)u;
	(void)key;
	return UI_R_QUIT;
}

const struct ui_key ui_keys[] = {
	{ .keys = { 'h', '?', KEY_F(1) },
	  .label = "h ? F1",
	  .bar = "h",
	  .word = "help",
	  .help = "this help; Esc or any other key closes it",
	  .act = ui_act_help },
	{ .keys = { '+', '=' },
	  .label = "+ =",
	  .bar = "+",
	  .word = "more",
	  .help = "start one more worker",
	  .act = ui_act_spawn,
	  .run = true },
	{ .keys = { '-' },
	  .label = "-",
	  .bar = "-",
	  .word = "fewer",
	  .help = "stop the newest worker (it finishes its batch; " GRACE ")",
	  .act = ui_act_stop_newest,
	  .run = true },
	{ .keys = { KEY_UP, KEY_DOWN },
	  .label = "Up Down",
	  .bar = "Up/Dn",
	  .word = "select",
	  .help = "select the worker above or below",
	  .act = act_move },
	{ .keys = { KEY_PPAGE, KEY_NPAGE },
	  .label = "PgUp PgDn",
	  .help = "select a page of rows up or down",
	  .act = act_move },
	{ .keys = { KEY_HOME, KEY_END },
	  .label = "Home End",
	  .help = "select the first or the last worker",
	  .act = act_move },
	{ .keys = { ' ' },
	  .label = "Space",
	  .bar = "Spc",
	  .word = "tag",
	  .help = "tag or untag the selected worker (*) and select the next",
	  .act = ui_act_tag },
	{ .keys = { 'U' }, .label = "U", .help = "untag every worker", .act = ui_act_untag },
	{ .keys = { 'x' },
	  .label = "x",
	  .bar = "x",
	  .word = "stop",
	  .help = "stop the tagged, else the selected (graceful; " GRACE ")",
	  .act = ui_act_stop,
	  .run = true },
	{ .keys = { 'k', KEY_F(9) },
	  .label = "k F9",
	  .bar = "k",
	  .word = "signal",
	  .help = "a menu: TERM, KILL, STOP or CONT to the tagged, else the selected",
	  .act = ui_act_signal_menu,
	  .run = true },
	{ .keys = { 'K' },
	  .label = "K",
	  .bar = "K",
	  .word = "kill",
	  .help = "SIGKILL to the tagged, else the selected, once confirmed (y/n)",
	  .act = ui_act_kill,
	  .run = true },
	{ .keys = { 's' },
	  .label = "s",
	  .bar = "s",
	  .word = "sort",
	  .help = "sort the rows by the next column",
	  .act = ui_act_sort },
	{ .keys = { '<', '>' },
	  .label = "< >",
	  .help = "sort by the column to the left or the right",
	  .act = ui_act_sort },
	{ .keys = { KEY_F(6) },
	  .label = "F6",
	  .help = "choose the sort column from a menu",
	  .act = ui_act_sort_menu },
	{ .keys = { 'I' }, .label = "I", .help = "invert the sort order", .act = ui_act_invert },
	{ .keys = { KEY_F(2), 'S' },
	  .label = "F2 S",
	  .bar = "F2",
	  .word = "columns",
	  .help = "choose and order the table's columns; the config file keeps them",
	  .act = ui_act_setup },
	{ .keys = { '[', ']' },
	  .label = "[ ]",
	  .bar = "[]",
	  .word = "interval",
	  .help = "interval a step down or up: 0.05 0.1 0.2 0.5 1 2 5 10 20 30 60 s",
	  .act = ui_act_interval,
	  .run = true },
	{ .keys = { 'p' },
	  .label = "p",
	  .bar = "p",
	  .word = "pause",
	  .help = "pause or resume every worker",
	  .act = ui_act_pause,
	  .run = true },
	{ .keys = { 'c' },
	  .label = "c",
	  .help = "calibrate: pause the workers, measure the device's ceiling, resume",
	  .act = ui_act_calibrate,
	  .run = true },
	{ .keys = { 'd' },
	  .label = "d",
	  .bar = "d",
	  .word = "diagnose",
	  .help = "where the idle time goes: causes, levers, predictions and a timeline (d or Esc closes)",
	  .act = ui_act_diagnosis },
	{ .keys = { 'o' },
	  .label = "o",
	  .help = "the observed programs' output, its last lines (o or Esc closes)",
	  .act = ui_act_progout },
	{ .keys = { 'e' },
	  .label = "e",
	  .help = "keep the ended rows in the table, or let them leave 10 s after they end",
	  .act = ui_act_keep_ended },
	{ .keys = { 'r' },
	  .label = "r",
	  .bar = "r",
	  .word = "reset",
	  .help = "reset statistics and history (figures again after an interval)",
	  .act = ui_act_reset,
	  .run = true },
	{ .keys = { UI_KEY_ESC },
	  .label = "Esc",
	  .help = "close the help or a menu (n too, in a menu)",
	  .act = act_none },
	{ .keys = { 'q', KEY_F(10) },
	  .label = "q F10",
	  .bar = "q",
	  .word = "quit",
	  .help = "quit: stop every worker, restore the terminal",
	  .act = act_quit },
};
const int ui_nkeys = (int)GD_ARRAY_LEN(ui_keys);

ui_reaction ui_key(struct ui *u, int ch)
{
	if (ch == KEY_RESIZE)
		return UI_R_DRAW; /* the windows follow in the loop */
	if (ch == KEY_MOUSE)
		return ui_mouse(u);
	if (u->help.shown)
		return ui_help_key(u, ch);
	if (u->menu.open)
		return u->menu.open->key(u, ch);
	if ((u->diag.shown || u->progout.shown) && ch == UI_KEY_ESC) {
		u->diag.shown = u->progout.shown = false;
		return UI_R_DRAW;
	}
	for (int i = 0; i < ui_nkeys; i++)
		for (int j = 0; j < 4 && ui_keys[i].keys[j]; j++) {
			if (ui_keys[i].keys[j] != ch)
				continue;
			if (ui_keys[i].run && u->ended) { /* the screen is a record now */
				ui_message(u, "%s: nothing left to act on; q quits", u->end_text);
				return UI_R_DRAW;
			}
			return ui_keys[i].act(u, ch);
		}
	return UI_R_DRAW;
}

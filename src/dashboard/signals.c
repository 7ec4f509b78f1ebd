/* signals.c: signals to the tagged workers, else the selected one: x (TERM), K (KILL), and the
 * signal menu (k, F9) that sends the one chosen. */
#include <signal.h>

#include "ui.h"

/* What a signal does to the targets, as the menu says it and as the log names it. */
static const struct ui_sig {
	const char *name; /* in the menu */
	int sig, key;     /* key: selects it in the menu */
	const char *what, *action;
} sigs[] = {
	{ "TERM", SIGTERM, 't', "stop: it finishes its batch", "signal-TERM" },
	{ "KILL", SIGKILL, 'k', "end it at once", "signal-KILL" },
	{ "STOP", SIGSTOP, 's', "freeze it: paused until CONT", "signal-STOP" },
	{ "CONT", SIGCONT, 'c', "let a frozen worker run again", "signal-CONT" },
};
#define NSIGS ((int)GD_ARRAY_LEN(sigs))

/* Sends sig to every target, logging each as action; the key bar says "<done> worker 3" or
 * "<done> workers 3 5". */
static void signal_targets(struct ui *u, int sig, const char *action, const char *done)
{
	int idx[GD_PROCS_MAX], n = ui_targets(u, idx), sent = 0;
	char list[GD_ERR_LEN] = "";
	size_t len = 0;
	for (int k = 0; k < n; k++) {
		struct gd_row_info w = session_row(u->s, idx[k]);
		if (session_signal(u->s, idx[k], sig) != 0)
			continue;
		sent++;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, " %u", w.id);
		ui_log(u, action, &w);
	}
	if (sent == 0 && u->table.sel_id && !u->table.ntags)
		ui_message(u, "worker %u has already ended", u->table.sel_id);
	else if (sent == 0)
		ui_message(u, u->table.ntags ? "the tagged workers have ended" : "no worker selected");
	else
		ui_message(u, "%s worker%s%s", done, sent > 1 ? "s" : "", list);
}

ui_reaction ui_act_stop(struct ui *u, int key)
{
	(void)key;
	signal_targets(u, SIGTERM, "stop", "stopping");
	return UI_R_DRAW;
}

/* ---- the menus' targets ---- */

/* A menu's title: before, whom it acts on ("3 tagged workers", else the selected one, "worker 5
 * (pid 1234)", pid 0 once the session has forgotten it), then after. */
static void targets_title(const struct ui *u, const char *before, const char *after, char *buf, size_t n)
{
	struct gd_row_info w = { .pid = 0 };
	int i = session_find(u->s, u->table.sel_id);
	if (i >= 0)
		w = session_row(u->s, i);
	if (u->table.ntags)
		snprintf(buf, n, "%s%d tagged worker%s%s", before, u->table.ntags,
		         u->table.ntags > 1 ? "s" : "", after);
	else
		snprintf(buf, n, "%sworker %u (pid %d)%s", before, u->table.sel_id, (int)w.pid, after);
}

/* Opens m with item sel highlighted when there is a worker to act on, else says why not. */
static ui_reaction open_on_targets(struct ui *u, const struct ui_menu *m, int sel)
{
	int idx[GD_PROCS_MAX];
	if (ui_targets(u, idx) == 0) {
		ui_message(u, u->table.sel_id ? "worker %u has already ended" : "no worker selected",
		           u->table.sel_id);
		return UI_R_DRAW;
	}
	return ui_menu_open(u, m, sel);
}

/* ---- K: SIGKILL, once confirmed (y or Enter on yes; n, Esc or Enter on no keeps them) ---- */

static void kill_menu_title(const struct ui *u, char *buf, size_t n)
{
	targets_title(u, "kill ", " with SIGKILL?", buf, n);
}

static void kill_menu_item(const struct ui *u, int k, char *buf, size_t n)
{
	(void)u;
	snprintf(buf, n, "%s", k == 0 ? "y  yes: it ends at once, its batch lost" : "n  no: keep it running");
}

static ui_reaction kill_menu_choose(struct ui *u, int k)
{
	if (k == 0)
		signal_targets(u, SIGKILL, "kill", "SIGKILL sent to");
	else
		ui_message(u, "no worker killed");
	return UI_R_DRAW;
}

/* y and n answer at once; Up, Down and Enter as in every menu; other keys do nothing. */
static ui_reaction kill_menu_key(struct ui *u, int ch)
{
	if (ch == 'y' || ch == 'Y' || ch == 'n' || ch == 'N') {
		u->menu.open = NULL;
		return UI_R_DRAW | kill_menu_choose(u, ch == 'y' || ch == 'Y' ? 0 : 1);
	}
	if (ch == UI_KEY_ESC) {
		u->menu.open = NULL;
		ui_message(u, "no worker killed");
		return UI_R_DRAW;
	}
	return ui_menu_key(u, ch);
}

static const struct ui_menu kill_menu = {
	.foot = "y kill  n/Esc keep",
	.cancelled = "no worker killed",
	.nitems = 2,
	.title = kill_menu_title,
	.item = kill_menu_item,
	.key = kill_menu_key,
	.choose = kill_menu_choose,
};

ui_reaction ui_act_kill(struct ui *u, int key)
{
	(void)key;
	return open_on_targets(u, &kill_menu, 1); /* no, unless asked */
}

/* ---- the menu: a signal, chosen before anything is sent ---- */

static void signal_menu_title(const struct ui *u, char *buf, size_t n)
{
	targets_title(u, "signal to ", "", buf, n);
}

static void signal_menu_item(const struct ui *u, int k, char *buf, size_t n)
{
	(void)u;
	snprintf(buf, n, "%c  %s  %s", sigs[k].key, sigs[k].name, sigs[k].what);
}

/* A signal's letter highlights it; the other keys are every menu's. */
static ui_reaction signal_menu_key(struct ui *u, int ch)
{
	for (int i = 0; i < NSIGS; i++)
		if (sigs[i].key == ch) {
			u->menu.sel = i;
			return UI_R_DRAW;
		}
	return ui_menu_key(u, ch);
}

static ui_reaction signal_menu_choose(struct ui *u, int k)
{
	char done[32];
	snprintf(done, sizeof(done), "SIG%s sent to", sigs[k].name);
	signal_targets(u, sigs[k].sig, sigs[k].action, done);
	return UI_R_DRAW;
}

static const struct ui_menu signal_menu = {
	.foot = "Enter/y send  Esc/n cancel",
	.cancelled = "no signal sent",
	.nitems = NSIGS,
	.title = signal_menu_title,
	.item = signal_menu_item,
	.key = signal_menu_key,
	.choose = signal_menu_choose,
};

ui_reaction ui_act_signal_menu(struct ui *u, int key)
{
	(void)key;
	return open_on_targets(u, &signal_menu, 0); /* TERM, as htop's default */
}

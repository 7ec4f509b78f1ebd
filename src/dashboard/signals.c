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
	const struct gd_sup *sup = session_workers(u->s);
	int idx[GD_PROCS_MAX], n = ui_targets(u, idx), sent = 0;
	char list[GD_ERR_LEN] = "";
	size_t len = 0;
	for (int k = 0; k < n; k++) {
		struct gd_row_info w;
		sup_worker(sup, idx[k], &w);
		if (session_signal(u->s, idx[k], sig) != 0)
			continue;
		sent++;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, " %u", w.id);
		ui_log(u, action, &w);
	}
	if (sent == 0 && u->sel_id && !u->ntags)
		ui_message(u, "worker %u has already ended", u->sel_id);
	else if (sent == 0)
		ui_message(u, u->ntags ? "the tagged workers have ended" : "no worker selected");
	else
		ui_message(u, "%s worker%s%s", done, sent > 1 ? "s" : "", list);
}

ui_reaction ui_act_stop(struct ui *u, int key)
{
	(void)key;
	signal_targets(u, SIGTERM, "stop", "stopping");
	return UI_R_DRAW;
}

/* ---- K: SIGKILL, once confirmed (y or Enter on yes; n, Esc or Enter on no keeps them) ---- */

static int kill_menu_len(void)
{
	return 2;
}

static void kill_menu_title(const struct ui *u, char *buf, size_t n)
{
	const struct gd_sup *sup = session_workers(u->s);
	struct gd_row_info w = { .pid = 0 };
	int i = sup_find(sup, u->sel_id);
	if (i >= 0)
		sup_worker(sup, i, &w);
	if (u->ntags)
		snprintf(buf, n, "kill %d tagged worker%s with SIGKILL?", u->ntags, u->ntags > 1 ? "s" : "");
	else
		snprintf(buf, n, "kill worker %u (pid %d) with SIGKILL?", u->sel_id, (int)w.pid);
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
		u->menu = NULL;
		return UI_R_DRAW | kill_menu_choose(u, ch == 'y' || ch == 'Y' ? 0 : 1);
	}
	if (ch == UI_KEY_ESC) {
		u->menu = NULL;
		ui_message(u, "no worker killed");
		return UI_R_DRAW;
	}
	return ui_menu_key(u, ch);
}

static const struct ui_menu kill_menu = {
	.foot = "y kill  n/Esc keep",
	.cancelled = "no worker killed",
	.len = kill_menu_len,
	.title = kill_menu_title,
	.item = kill_menu_item,
	.key = kill_menu_key,
	.choose = kill_menu_choose,
};

ui_reaction ui_act_kill(struct ui *u, int key)
{
	(void)key;
	int idx[GD_PROCS_MAX];
	if (ui_targets(u, idx) == 0) {
		ui_message(u, u->sel_id ? "worker %u has already ended" : "no worker selected", u->sel_id);
		return UI_R_DRAW;
	}
	ui_menu_open(u, &kill_menu, 1); /* no, unless asked */
	return UI_R_DRAW;
}

/* ---- the menu: a signal, chosen before anything is sent ---- */

static int signal_menu_len(void)
{
	return NSIGS;
}

static void signal_menu_title(const struct ui *u, char *buf, size_t n)
{
	const struct gd_sup *sup = session_workers(u->s);
	int i = sup_find(sup, u->sel_id);
	struct gd_row_info w = { .pid = 0 };
	if (i >= 0)
		sup_worker(sup, i, &w);
	if (u->ntags)
		snprintf(buf, n, "signal to %d tagged worker%s", u->ntags, u->ntags > 1 ? "s" : "");
	else
		snprintf(buf, n, "signal to worker %u (pid %d)", u->sel_id, (int)w.pid);
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
			u->menu_sel = i;
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
	.len = signal_menu_len,
	.title = signal_menu_title,
	.item = signal_menu_item,
	.key = signal_menu_key,
	.choose = signal_menu_choose,
};

ui_reaction ui_act_signal_menu(struct ui *u, int key)
{
	(void)key;
	int idx[GD_PROCS_MAX];
	if (ui_targets(u, idx) == 0) {
		ui_message(u, u->sel_id ? "worker %u has already ended" : "no worker selected", u->sel_id);
		return UI_R_DRAW;
	}
	ui_menu_open(u, &signal_menu, 0); /* TERM, as htop's default */
	return UI_R_DRAW;
}

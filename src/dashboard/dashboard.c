/* dashboard.c: the interactive ncurses role: the loop that draws the session's frames and turns
 * keys into the session's verbs. The session completes the frames and hands them to the
 * outputs, as in the headless role; the dashboard only shows them. ui.h names the files of its
 * parts; chart.c and layout.c hold the arithmetic behind them (chart.h, layout.h). */
#include "dashboard.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/sig.h"
#include "ui.h"

#define UI_CLOCK_NS  GD_NS_PER_S        /* the elapsed clock is redrawn at least this often */
#define UI_NOTICE_NS (10 * GD_NS_PER_S) /* a faulty config file's notice stays this long */

/* Stops that ran out of their grace since the last look: the key bar says so. */
static void grace_kills(struct ui *u)
{
	unsigned last, n = session_grace_kills(u->s, &last);
	if (n == u->grace_kills)
		return;
	if (n - u->grace_kills == 1)
		ui_message(u, "worker %u did not stop within %d s of SIGTERM: SIGKILL sent", last,
		           SESSION_STOP_GRACE_S);
	else
		ui_message(u, "%u workers did not stop within %d s of SIGTERM: SIGKILL sent",
		           n - u->grace_kills, SESSION_STOP_GRACE_S);
	u->grace_kills = n;
	u->dirty = true;
}

/* A frame has come: its values join the histories. */
static void on_frame(struct ui *u, const struct gd_frame *f)
{
	ui_history_push(u, f);
	ui_drop_ended_tags(u);
	if (!f->observed)
		ui_message(u, "%.1f s not observed (the dashboard was stopped): no figures for it",
		           f->window_s);
	ui_prune_ended(u);
	u->dirty = true;
}

/* Reads the workers, and takes what the session has for the screen: a frame, the end of a
 * calibration, or the failure of an output. */
static void poll_session(struct ui *u, int64_t now)
{
	const struct gd_frame *f = session_poll(u->s, now);
	const char *err = session_error(u->s);
	if (err[0] && !u->fatal[0])
		str_copy(u->fatal, sizeof(u->fatal), err); /* the loop ends, as a headless run does */
	if (f)
		on_frame(u, f);
	char msg[256];
	if (session_take_message(u->s, msg, sizeof(msg))) { /* its figure, or why it failed */
		ui_message(u, "%s", msg);
		u->dirty = true;
	}
	grace_kills(u);
}

/* Whether the terminal takes output now. One stopped with Ctrl-S, or whose reader stalls,
 * does not: a screen update would block the loop, and with it the reading of the rings, the
 * outputs and the answer to signals. The update is left to the next turn that can write;
 * curses keeps the screen's changes meanwhile. */
static bool term_writable(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
}

/* Whether a copy of the observed program is alive. */
static bool copies_live(const struct ui *u)
{
	for (int i = 0; i < session_nrows(u->s); i++) {
		struct gd_row_info w = session_row(u->s, i);
		if (w.alive && w.copy == w.id)
			return true;
	}
	return false;
}

/* "program exited (status 0)", or with several copies each one's status. */
static void end_text(struct ui *u)
{
	char st[96] = "";
	int n = 0, len = 0;
	for (int i = 0; i < session_nrows(u->s) && len < (int)sizeof(st) - 16; i++) {
		struct gd_row_info w = session_row(u->s, i);
		if (w.copy != w.id || w.exit_status < 0)
			continue;
		len += snprintf(st + len, sizeof(st) - (size_t)len, "%s%d", n++ ? ", " : "", w.exit_status);
	}
	snprintf(u->end_text, sizeof(u->end_text), "%s exited (status%s %s)", n > 1 ? "programs" : "program",
	         n > 1 ? "es" : "", n ? st : "unknown");
}

/* Whether the loop goes on after the run's last window: observing a program that has ended
 * (not a --duration that ran out), the screen keeps its last frame until q. */
static bool hold_last_frame(struct ui *u, int64_t now)
{
	if (u->ended)
		return true;
	if (!u->observing || copies_live(u))
		return false;
	u->ended = now;
	end_text(u);
	u->dirty = true;
	return true;
}

/* How long to wait for a key: until the session's next poll, or, once the program has ended,
 * until the next redraw of a screen that no longer changes by itself. */
static int key_wait_ms(const struct ui *u)
{
	int64_t wait = u->ended ? UI_CLOCK_NS : session_wait(u->s, now_ns());
	return (int)((wait + 999999) / 1000000);
}

static void loop(struct ui *u)
{
	bool quit = false;
	while (!quit && !u->fatal[0] && !gd_quit_signal) {
		int64_t now = now_ns();
		if (session_done(u->s) && !hold_last_frame(u, now))
			break;
		u->now = now;
		if (!u->ended)
			poll_session(u, now);
		if (ui_windows(u)) {
			snprintf(u->fatal, sizeof(u->fatal), "cannot create curses windows (%dx%d)", COLS,
			         LINES);
			return;
		}
		bool due =
		    u->dirty || now - u->last_draw >= UI_CLOCK_NS || (u->msg.until && now >= u->msg.until);
		if (due && term_writable()) {
			if (now >= u->msg.until)
				u->msg.until = 0;
			ui_draw(u, now);
		}
		/* Never block on the workers: wait for a key at most until the next poll is due. */
		timeout(key_wait_ms(u));
		int ch = getch();
		if (ch == ERR)
			continue;
		ui_reaction r = ui_key(u, ch);
		if (r & UI_R_DRAW)
			u->dirty = true;
		if (r & UI_R_QUIT)
			quit = true;
	}
}

/* ---- the settings the config file keeps ---- */

static void settings_apply(struct ui *u, const struct gd_dash_settings *s)
{
	struct ui_table *t = &u->table;
	bool listed[UI_NCOLS] = { false };
	int k = 0;
	t->bar = false;
	for (int j = 0; j < s->ncols; j++) {
		int c = s->cols[j];
		if (c == GD_DASH_BAR) {
			t->bar = true;
		} else if (c >= 0 && c < UI_NCOLS && !listed[c]) {
			listed[c] = true;
			t->colorder[k++] = c;
		}
	}
	for (int i = 0; i < UI_NCOLS; i++) {
		t->colon[i] = listed[i];
		if (!listed[i]) /* the hidden ones after the shown, in the table's order */
			t->colorder[k++] = i;
	}
	t->sort = s->sort >= 0 && s->sort < UI_NCOLS ? s->sort : 0;
	t->sort_desc = s->sort_desc;
	u->keep_interval = s->interval;
	u->term.colour_use = s->colour;
	u->term.mouse = s->mouse;
}

static void settings_of(const struct ui *u, struct gd_dash_settings *s)
{
	const struct ui_table *t = &u->table;
	*s = u->conf->settings; /* what the dashboard does not change */
	s->sort = t->sort;
	s->sort_desc = t->sort_desc;
	s->interval = u->keep_interval;
	s->ncols = 0;
	for (int k = 0; k < UI_NCOLS; k++)
		if (t->colon[t->colorder[k]])
			s->cols[s->ncols++] = t->colorder[k];
	if (t->bar)
		s->cols[s->ncols++] = GD_DASH_BAR;
}

static bool settings_same(const struct gd_dash_settings *a, const struct gd_dash_settings *b)
{
	return a->interval == b->interval && a->sort == b->sort && a->sort_desc == b->sort_desc &&
	       a->colour == b->colour && a->mouse == b->mouse && a->ncols == b->ncols &&
	       memcmp(a->cols, b->cols, (size_t)a->ncols * sizeof(a->cols[0])) == 0;
}

/* At the end, after the terminal is restored: the settings into the config file, when it is
 * used, was not faulty, and there is something new to keep (or no file yet). */
static void settings_save(const struct ui *u)
{
	const struct gd_dashboard_config *d = u->conf;
	struct gd_dash_settings now;
	char err[4096 + 128];
	if (!d->config || d->notice)
		return;
	settings_of(u, &now);
	if (d->existed && settings_same(&now, &d->settings))
		return;
	if (dashboard_settings_write(d->config, &now, err, sizeof(err)))
		gd_say("%s", err);
}

static void ui_free(struct ui *u)
{
	ui_history_free(u);
	free(u->table.tags);
	free(u->table.order);
	free(u);
}

int dashboard_run(const struct gd_session_config *c, const struct gd_dashboard_config *d,
                  struct gd_outputs *outs)
{
	struct ui *u = xcalloc(1, sizeof(*u));
	u->outs = outs;
	u->max_procs = c->max_procs;
	u->progout.path = d->program_log;
	u->observing = c->command != NULL;
	u->conf = d;
	settings_apply(u, &d->settings);
	if (ui_begin(u)) {
		ui_end(u);
		gd_say("%s", u->fatal);
		ui_free(u);
		return GD_EXIT_USAGE;
	}
	char err[256] = "";
	int status = GD_EXIT_OK;
	ui_diag_attach(u, outs);
	if (!(u->s = session_start(c, outs, err, sizeof(err)))) {
		if (!gd_quit_signal) { /* a quit signal during --calibrate: stopped, as asked */
			str_copy(u->fatal, sizeof(u->fatal), err);
			status = GD_EXIT_FAIL;
		}
	} else {
		if (d->notice) { /* the config file was not used: say so for longer than a key's word */
			ui_message(u, "%s", d->notice);
			ui_message_lasts(u, UI_NOTICE_NS);
		}
		unsigned last;
		u->grace_kills = session_grace_kills(u->s, &last);
		loop(u);
		if (u->fatal[0])
			status = GD_EXIT_FAIL;
	}
	ui_end(u); /* the terminal first: everything after this may print */
	if (d->notice)
		gd_say("%s", d->notice);
	settings_save(u);
	if (u->fatal[0])
		gd_say("%s", u->fatal);
	session_stop(u->s);
	ui_free(u);
	return status;
}

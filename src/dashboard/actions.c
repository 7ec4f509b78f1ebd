/* actions.c: the keys that act on the run (more and fewer workers, the interval, pause,
 * reset, calibrate) and the event row every action leaves in the outputs. */
#include "gputop/outputs.h"
#include "ui.h"

void ui_log(struct ui *u, const char *action, const struct gd_row_info *w)
{
	if (u->fatal[0])
		return;
	int64_t now = now_ns();
	struct gd_event e = { .t_s = (double)(now - session_t0(u->s)) / 1e9,
		              .unix_s = unix_seconds(now),
		              .action = action,
		              .id = w ? w->id : 0,
		              .pid = w ? w->pid : 0 };
	char err[sizeof(u->fatal)] = "";
	if (outputs_event(u->outs, &e, err, sizeof(err)))
		str_copy(u->fatal, sizeof(u->fatal), err[0] ? err : "an output failed to take an event row");
}

ui_reaction ui_act_spawn(struct ui *u, int key)
{
	(void)key;
	char err[GD_ERR_LEN];
	int i = session_spawn(u->s, -1, err, sizeof(err)); /* on the device with the fewest */
	if (i < 0) {
		ui_message(u, "cannot start a worker: %s", err);
		return UI_R_DRAW;
	}
	struct gd_row_info w = session_row(u->s, i);
	if (session_ndevs(u->s) > 1)
		ui_message(u, "started worker %u (pid %d) on %s", w.id, (int)w.pid,
		           session_device(u->s, w.device)->ref);
	else
		ui_message(u, "started worker %u (pid %d)", w.id, (int)w.pid);
	ui_log(u, "add", &w);
	return UI_R_DRAW;
}

ui_reaction ui_act_stop_newest(struct ui *u, int key)
{
	(void)key;
	int i = session_newest(u->s);
	if (i < 0) {
		ui_message(u, "no running worker to stop");
		return UI_R_DRAW;
	}
	struct gd_row_info w = session_row(u->s, i);
	session_stop_row(u->s, i, false);
	ui_message(u, "stopping worker %u", w.id);
	ui_log(u, "stop", &w);
	return UI_R_DRAW;
}

/* The intervals [ and ] step through: 1, 2, 5 in each decade, so that stepping down from any of
 * them, or from a -i between them, comes to 1 s exactly. */
static const double steps[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60 };

/* [ takes the next step below the interval, ] the next above, within the bounds of -i. */
ui_reaction ui_act_interval(struct ui *u, int key)
{
	double lo = u->conf->interval_min, hi = u->conf->interval_max, now = session_interval(u->s),
	       next = now;
	int n = (int)GD_ARRAY_LEN(steps);
	if (key == ']')
		for (int i = 0; i < n && next == now; i++)
			next = steps[i] > now ? steps[i] : now;
	else
		for (int i = n - 1; i >= 0 && next == now; i--)
			next = steps[i] < now ? steps[i] : now;
	next = next < lo ? lo : next > hi ? hi : next;
	if (next == now) {
		ui_message(u, "the interval is already the %s, %g s", key == ']' ? "longest" : "shortest",
		           now);
		return UI_R_DRAW;
	}
	session_set_interval(u->s, next);
	u->keep_interval = next; /* chosen here: the config file keeps it */
	ui_message(u, "interval %g s from now on", next);
	char action[48];
	snprintf(action, sizeof(action), "interval-%g", next);
	ui_log(u, action, NULL);
	return UI_R_DRAW;
}

ui_reaction ui_act_pause(struct ui *u, int key)
{
	(void)key;
	session_pause(u->s, !session_paused(u->s));
	bool paused = session_paused(u->s);
	ui_message(u, paused ? "paused every worker (p resumes)" : "resumed every worker");
	ui_log(u, paused ? "pause" : "resume", NULL);
	return UI_R_DRAW;
}

ui_reaction ui_act_reset(struct ui *u, int key)
{
	(void)key;
	session_restart_clock(u->s, now_ns());
	ui_history_clear(u);
	ui_message(u, "statistics and history reset");
	ui_log(u, "reset", NULL);
	return UI_R_DRAW;
}

/* Each device in turn, the workers paused meanwhile; the key bar says how it ended. */
ui_reaction ui_act_calibrate(struct ui *u, int key)
{
	(void)key;
	char err[256];
	if (session_calibrate(u->s, err, sizeof(err))) {
		ui_message(u, "%s", err);
	} else {
		ui_message(u, "calibrating: workers paused for about two seconds");
		ui_log(u, "calibrate", NULL);
	}
	return UI_R_DRAW;
}

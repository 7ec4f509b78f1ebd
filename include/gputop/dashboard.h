/* dashboard.h: the interactive ncurses role. */
#ifndef GPUTOP_DASHBOARD_H
#define GPUTOP_DASHBOARD_H

#include <stddef.h>

#include "gputop/session.h"

struct gd_outputs;

/* What the dashboard needs beyond the session's settings. */
struct gd_dashboard_config {
	double interval_min, interval_max; /* the bounds of --interval, for the [ and ] keys */
};

/* 0 if the terminal named by TERM can host the dashboard (it is known and can address the
 * cursor), else -1 with a one-line reason in err. Opens nothing and leaves no state behind:
 * it is checked before any file is opened. */
int dashboard_check_terminal(char *err, size_t errlen);
/* Runs until q, F10, the run's duration or a quit signal; returns the process exit status.
 * The terminal is restored on every path before anything is printed. Every frame reaches
 * outs through the session, and an event row for every action goes to outs too. */
int dashboard_run(const struct gd_session_config *c, const struct gd_dashboard_config *d,
                  struct gd_outputs *outs);

#endif

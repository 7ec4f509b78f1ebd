/* dashboard.h: the interactive ncurses role. */
#ifndef GPUTOP_DASHBOARD_H
#define GPUTOP_DASHBOARD_H

#include <stddef.h>

#include "gputop/session.h"

struct gd_outputs;

/* How the dashboard uses colours: where the terminal has them unless NO_COLOR is set (auto),
 * never, or where the terminal has them whatever NO_COLOR says (always). */
enum gd_colour { GD_COLOUR_AUTO, GD_COLOUR_NEVER, GD_COLOUR_ALWAYS, GD_COLOUR_COUNT };

#define GD_DASH_COLS_MAX 32   /* entries of gd_dash_settings.cols, at most */
#define GD_DASH_BAR      (-1) /* in gd_dash_settings.cols: the breakdown bar */

/* The dashboard's settings that stay from one run to the next, in its config file (FILES in
 * the man page): read at start, written when the dashboard ends. Columns are the worker
 * table's, by their index in its column table (src/dashboard/columns.c). */
struct gd_dash_settings {
	double interval; /* s; 0: not set (the option's default) */
	int sort;        /* the column the rows are sorted by */
	bool sort_desc;  /* largest first */
	int ncols;       /* the shown columns in their order, GD_DASH_BAR for the breakdown bar */
	int cols[GD_DASH_COLS_MAX];
	enum gd_colour colour;
	bool mouse; /* clicks select and sort; off leaves the mouse to the terminal */
};

/* Every column in the table's order, the bar last; by id ascending; no interval; colours auto;
 * the mouse on. */
void dashboard_settings_default(struct gd_dash_settings *s);
/* The config file: $XDG_CONFIG_HOME/gputop-decode/config where XDG_CONFIG_HOME is an absolute
 * path, else ~/.config/gputop-decode/config; "" when no home directory is known. */
void dashboard_config_path(char *buf, size_t n);
/* Reads the file at path into s (libinih), an interval within [interval_min, interval_max].
 * Returns 1 when it was read, 0 when there is no such file, -1 when it cannot be used: then err
 * holds one line naming the file (and the line of the first fault) and s the defaults, whatever
 * the file held. */
int dashboard_settings_read(const char *path, double interval_min, double interval_max,
                            struct gd_dash_settings *s, char *err, size_t errlen);
/* Writes s to path as a new file renamed over the old one (its directory made if needed).
 * Returns 0, or -1 with err filled; the old file is then as it was. */
int dashboard_settings_write(const char *path, const struct gd_dash_settings *s, char *err, size_t errlen);

/* What the dashboard needs beyond the session's settings. */
struct gd_dashboard_config {
	double interval_min, interval_max; /* the bounds of --interval, for the [ and ] keys */
	struct gd_dash_settings settings;  /* as read from the config file, or the defaults */
	const char *config;                /* the file written at the end; NULL: none (--no-config) */
	bool existed;                      /* it was read: written again only if something changed */
	const char *notice;                /* why the file was not used, for the status line; or NULL */
	const char *program_log;           /* the file the observed programs' output goes to; NULL: none */
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

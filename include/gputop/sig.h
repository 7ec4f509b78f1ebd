/* sig.h: signal set-up, and the supervisor roles' signal flags. Handlers only set flags; loops
 * act on them. */
#ifndef GPUTOP_SIG_H
#define GPUTOP_SIG_H

#include <signal.h>

/* SIGINT, SIGTERM, SIGHUP or SIGQUIT received: which; or SIGPIPE, set by the headless log's
 * writer when the reader of its pipe has gone (the run ends quietly, as asked). */
extern volatile sig_atomic_t gd_quit_signal;

/* Sets sig's disposition: handler (or SIG_IGN, SIG_DFL) with sigaction's flags (SA_RESTART,
 * SA_NOCLDSTOP, ...) and nothing more blocked while it runs. */
void sig_handle(int sig, void (*handler)(int), int flags);
/* SIGINT, SIGTERM, SIGHUP set gd_quit_signal; SIGPIPE and SIGXFSZ are ignored, so a write
 * fails with an error instead. SIGWINCH is left to curses, which turns it into KEY_RESIZE. */
void sig_install_supervisor(void);
/* Gives the terminal back the flow control (Ctrl-S, Ctrl-Q) that a quit signal lifted to end
 * a stop of its output (see sig.c); nothing when none was lifted. */
void sig_restore_flow(void);

#endif

/* sig.c: signal set-up, and the signal flags of the dashboard and headless roles. */
#include "gputop/sig.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

volatile sig_atomic_t gd_quit_signal;

void sig_handle(int sig, void (*handler)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static struct termios flow_saved; /* the terminal's modes before flow control was lifted */
static volatile sig_atomic_t flow_lifted;

/* A terminal stopped with Ctrl-S holds every write to it: the last screen update, the
 * restoring of the terminal, the last messages. Asked to quit, the supervisor lifts the stop
 * the only way the kernel offers for a Ctrl-S (tcflow's TCOON undoes only TCOOFF): turning
 * IXON off starts the output again. Only on our own foreground terminal, and only when it
 * does not take output; every call here is async-signal-safe. */
static void lift_flow_stop(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct termios t;
	if (flow_lifted || poll(&p, 1, 0) != 0 || tcgetpgrp(STDOUT_FILENO) != getpgrp() ||
	    tcgetattr(STDOUT_FILENO, &t) != 0 || !(t.c_iflag & IXON))
		return;
	flow_saved = t;
	t.c_iflag &= ~(tcflag_t)IXON;
	if (tcsetattr(STDOUT_FILENO, TCSANOW, &t) == 0)
		flow_lifted = 1;
}

static void on_quit(int sig)
{
	int saved = errno;
	gd_quit_signal = sig;
	lift_flow_stop();
	errno = saved;
}

void sig_restore_flow(void)
{
	if (!flow_lifted)
		return;
	struct termios t;
	if (tcgetattr(STDOUT_FILENO, &t) == 0) { /* curses may have restored other modes since */
		t.c_iflag |= flow_saved.c_iflag & IXON;
		tcsetattr(STDOUT_FILENO, TCSANOW, &t);
	}
	flow_lifted = 0;
}

void sig_install_supervisor(void)
{
	sig_handle(SIGINT, on_quit, 0);
	sig_handle(SIGTERM, on_quit, 0);
	sig_handle(SIGHUP, on_quit, 0);
	sig_handle(SIGQUIT, on_quit, 0); /* Ctrl-\ stops like Ctrl-C: terminal restored, workers reaped */
	sig_handle(SIGPIPE, SIG_IGN, 0);
	/* A file size limit (ulimit -f) must not kill us mid-line: the write fails with EFBIG
	 * instead, which the sink reports ("File too large"). */
	sig_handle(SIGXFSZ, SIG_IGN, 0);
}

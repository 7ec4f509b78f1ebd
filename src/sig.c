/* sig.c: signal set-up, and the signal flags of the dashboard and headless roles. */
#include "gputop/sig.h"

#include <string.h>

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

static void on_quit(int sig)
{
	gd_quit_signal = sig;
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

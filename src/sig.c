/* sig.c: signal flags for the dashboard and headless roles. */
#include "gputop/sig.h"

#include <string.h>

volatile sig_atomic_t gd_quit_signal;

static void on_quit(int sig)
{
	gd_quit_signal = sig;
}

void sig_install_supervisor(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL); /* Ctrl-\ stops like Ctrl-C: terminal restored, workers reaped */
	signal(SIGPIPE, SIG_IGN);
	/* A file size limit (ulimit -f) must not kill us mid-line: the write fails with EFBIG
	 * instead, which the sink reports ("File too large"). */
	signal(SIGXFSZ, SIG_IGN);
}

/* conncut.h: a bound on how long any HTTP connection of --listen lives (src/output/).
 * libmicrohttpd's own timeout counts idle time only, so a client that sends one byte a second
 * would hold a connection slot for ever: each connection is noted when libmicrohttpd opens it
 * and its socket is shut down once it is older than the bound, which makes libmicrohttpd
 * close it. */
#ifndef GPUTOP_OUTPUT_CONNCUT_H
#define GPUTOP_OUTPUT_CONNCUT_H

#include <microhttpd.h>

struct gd_conncut;

/* A cutter for at most max connections at once (libmicrohttpd's connection limit), each cut
 * max_s seconds after it opened; its thread started with every signal blocked. NULL when the
 * thread cannot start. */
struct gd_conncut *conncut_new(unsigned max, unsigned max_s);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback; cls is the cutter. */
void conncut_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                    enum MHD_ConnectionNotificationCode code);
/* Ends the thread and frees k; after MHD_stop_daemon, so that no notification comes later. */
void conncut_free(struct gd_conncut *k);

#endif

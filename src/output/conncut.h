/* conncut.h: who holds the HTTP connections of --listen, and for how long (src/output/).
 * libmicrohttpd's own timeout counts idle time only, so a client that sends one byte a second
 * would hold a connection slot for ever, and its per-address limit refuses a new connection
 * outright: a few such clients on the scraper's own address lock the scraper out. Here each
 * connection is noted when libmicrohttpd opens it, with its address and whether it waits for a
 * request's head or has one being answered. Its socket is shut down (which makes libmicrohttpd
 * close it) once it is older than the age bound, or when a new connection needs its slot and
 * it is the one that has waited longest for a request: a new connection from an address that
 * holds its share, or from anywhere once all slots but one are taken, takes the place of such
 * a connection. A client that sends its request at once is answered before any newer one can
 * take its place; only connections being answered are never given up. */
#ifndef GPUTOP_OUTPUT_CONNCUT_H
#define GPUTOP_OUTPUT_CONNCUT_H

#include <microhttpd.h>

struct gd_conncut;

/* A cutter for at most max connections at once (libmicrohttpd's connection limit), per_addr of
 * them from one address, each cut max_s seconds after it opened; its thread started with every
 * signal blocked. NULL when the thread cannot start. */
struct gd_conncut *conncut_new(unsigned max, unsigned per_addr, unsigned max_s);
/* libmicrohttpd's MHD_AcceptPolicyCallback; cls is the cutter. It makes room for the new
 * connection as above; MHD_NO only when its address holds its share and every one of them is
 * being answered. */
enum MHD_Result conncut_admit(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback; cls is the cutter. */
void conncut_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                    enum MHD_ConnectionNotificationCode code);
/* A request's head has arrived on c: it is answered, and its connection not given up meanwhile. */
void conncut_answering(struct gd_conncut *k, struct MHD_Connection *c);
/* libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED callback; cls is the cutter: the connection
 * waits for its next request again. */
void conncut_completed(void *cls, struct MHD_Connection *c, void **request_context,
                       enum MHD_RequestTerminationCode toe);
/* Ends the thread and frees k; after MHD_stop_daemon, so that no notification comes later. */
void conncut_free(struct gd_conncut *k);

#endif

/* conncut.c: connections of --listen cut at an age bound, and given up for new ones (conncut.h).
 * Every function runs under `lock`: libmicrohttpd's thread calls all but conncut_main, which
 * cuts by age. A slot's fd is valid until libmicrohttpd says the connection closed (it frees
 * the slot then), so a socket shut down under the lock is never one already closed. */
#include "conncut.h"

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "gputop/common.h"

#define CONNCUT_TICK_NS (GD_NS_PER_S / 4) /* how often ages are looked at */

/* A client's address, without the port: what the per-address share counts. */
struct peer {
	int family;
	unsigned char addr[16];
};

struct slot {
	int fd; /* -1: free */
	int64_t opened_ns;
	int64_t waiting_ns; /* since when it has waited for a request's head */
	bool answering;     /* a request's head arrived and its answer is not yet sent */
	bool cut;           /* shut down: libmicrohttpd closes it on its next look */
	struct peer from;
};

struct gd_conncut {
	pthread_mutex_t lock; /* held across shutdown(): a socket in the table is still open */
	pthread_cond_t wake;
	bool stop;
	unsigned max, per_addr, max_s;
	struct slot *slots;
	pthread_t thread;
};

/* sa as accept() filled it in: its family says its size. */
static struct peer peer_of(const struct sockaddr *sa)
{
	struct peer p = { .family = sa ? sa->sa_family : AF_UNSPEC };
	if (p.family == AF_INET)
		memcpy(p.addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (p.family == AF_INET6)
		memcpy(p.addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	return p;
}

static bool same_peer(const struct peer *a, const struct peer *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

static void cut(struct slot *s)
{
	shutdown(s->fd, SHUT_RDWR); /* libmicrohttpd sees the end and closes it */
	s->cut = true;
}

static void cut_old(struct gd_conncut *k, int64_t now)
{
	for (unsigned i = 0; i < k->max; i++) {
		struct slot *s = &k->slots[i];
		if (s->fd >= 0 && !s->cut && now - s->opened_ns > (int64_t)k->max_s * GD_NS_PER_S)
			cut(s);
	}
}

static void *conncut_main(void *arg)
{
	struct gd_conncut *k = arg;
	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += CONNCUT_TICK_NS;
		until.tv_sec += until.tv_nsec / GD_NS_PER_S;
		until.tv_nsec %= GD_NS_PER_S;
		pthread_cond_timedwait(&k->wake, &k->lock, &until);
		cut_old(k, now_ns());
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

struct gd_conncut *conncut_new(unsigned max, unsigned per_addr, unsigned max_s)
{
	struct gd_conncut *k = xcalloc(1, sizeof(*k));
	k->max = max;
	k->per_addr = per_addr;
	k->max_s = max_s;
	k->slots = xcalloc(max, sizeof(*k->slots));
	for (unsigned i = 0; i < max; i++)
		k->slots[i].fd = -1;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	int rc = gd_thread_start(&k->thread, conncut_main, k, 0);
	if (rc != 0) {
		free(k->slots);
		free(k);
		return NULL;
	}
	return k;
}

/* The one of two connections that has waited longer for a request (NULL: neither waits). */
static struct slot *longer_waiting(struct slot *a, struct slot *b)
{
	if (!b || b->answering)
		return a;
	return !a || b->waiting_ns < a->waiting_ns ? b : a;
}

/* Connections that are cut are not counted: they are on their way out. The slot kept free
 * lets a new connection in while another one is given up, before libmicrohttpd's own limit
 * would stop it accepting. */
enum MHD_Result conncut_admit(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct gd_conncut *k = cls;
	struct peer from = peer_of(addr);
	unsigned live = 0, same = 0;
	struct slot *oldest = NULL, *oldest_same = NULL;
	enum MHD_Result rc = MHD_YES;
	(void)addrlen;
	pthread_mutex_lock(&k->lock);
	for (unsigned i = 0; i < k->max; i++) {
		struct slot *s = &k->slots[i];
		if (s->fd < 0 || s->cut)
			continue;
		live++;
		oldest = longer_waiting(oldest, s);
		if (same_peer(&s->from, &from)) {
			same++;
			oldest_same = longer_waiting(oldest_same, s);
		}
	}
	if (same >= k->per_addr) {
		if (oldest_same)
			cut(oldest_same);
		else
			rc = MHD_NO;
	} else if (live + 1 >= k->max && oldest) {
		cut(oldest);
	}
	pthread_mutex_unlock(&k->lock);
	return rc;
}

void conncut_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                    enum MHD_ConnectionNotificationCode code)
{
	struct gd_conncut *k = cls;
	pthread_mutex_lock(&k->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ad =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		int64_t now = now_ns();
		for (unsigned i = 0; fd && i < k->max; i++)
			if (k->slots[i].fd < 0) {
				k->slots[i] = (struct slot){
					.fd = fd->connect_fd,
					.opened_ns = now,
					.waiting_ns = now,
					.from = peer_of(ad ? ad->client_addr : NULL),
				};
				*socket_context = &k->slots[i];
				break;
			}
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
		/* Called before libmicrohttpd closes the socket: from here it is not ours to cut. */
		((struct slot *)*socket_context)->fd = -1;
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&k->lock);
}

/* The connection's slot, or NULL where the table had none for it. */
static struct slot *slot_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void conncut_answering(struct gd_conncut *k, struct MHD_Connection *c)
{
	pthread_mutex_lock(&k->lock);
	struct slot *s = slot_of(c);
	if (s)
		s->answering = true;
	pthread_mutex_unlock(&k->lock);
}

void conncut_completed(void *cls, struct MHD_Connection *c, void **request_context,
                       enum MHD_RequestTerminationCode toe)
{
	struct gd_conncut *k = cls;
	(void)request_context, (void)toe;
	pthread_mutex_lock(&k->lock);
	struct slot *s = slot_of(c);
	if (s) {
		s->answering = false;
		s->waiting_ns = now_ns();
	}
	pthread_mutex_unlock(&k->lock);
}

void conncut_free(struct gd_conncut *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_signal(&k->wake);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	pthread_cond_destroy(&k->wake);
	pthread_mutex_destroy(&k->lock);
	free(k->slots);
	free(k);
}

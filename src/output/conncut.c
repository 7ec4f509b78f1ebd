/* conncut.c: connections of --listen cut at an age bound (conncut.h). */
#include "conncut.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "gputop/common.h"

#define CONNCUT_TICK_NS (GD_NS_PER_S / 4) /* how often ages are looked at */

struct slot {
	int fd; /* -1: free */
	int64_t opened_ns;
	bool cut;
};

struct gd_conncut {
	pthread_mutex_t lock; /* held across shutdown(): a socket in the table is still open */
	pthread_cond_t wake;
	bool stop;
	unsigned max, max_s;
	struct slot *slots;
	pthread_t thread;
};

static void cut_old(struct gd_conncut *k, int64_t now)
{
	for (unsigned i = 0; i < k->max; i++) {
		struct slot *s = &k->slots[i];
		if (s->fd >= 0 && !s->cut && now - s->opened_ns > (int64_t)k->max_s * GD_NS_PER_S) {
			shutdown(s->fd, SHUT_RDWR); /* libmicrohttpd sees the end and closes it */
			s->cut = true;
		}
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

struct gd_conncut *conncut_new(unsigned max, unsigned max_s)
{
	struct gd_conncut *k = xcalloc(1, sizeof(*k));
	k->max = max;
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

void conncut_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                    enum MHD_ConnectionNotificationCode code)
{
	struct gd_conncut *k = cls;
	pthread_mutex_lock(&k->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		for (unsigned i = 0; ci && i < k->max; i++)
			if (k->slots[i].fd < 0) {
				k->slots[i] = (struct slot){ .fd = ci->connect_fd, .opened_ns = now_ns() };
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

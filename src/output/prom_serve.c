/* prom_serve.c: the Prometheus exporter (prom.h): the text of each window (prom_text.c)
 * rendered once, written to --prom-file by rename and served on --listen by libmicrohttpd.
 *
 * Threads: the session thread renders each window and only swaps the text in under `lock`;
 * it never does I/O here. libmicrohttpd answers every connection from its own polling thread,
 * which never blocks on a client (a slow or stalled one is dropped after GD_PROM_TIMEOUT_S idle
 * seconds, or gives way to a new one: conncut.h) and copies the text under `lock`. The writer
 * thread copies the newest text under `lock` and writes --prom-file without it: a file system
 * that stalls (a rename took seconds on a loaded machine) delays only the file, and windows
 * that close meanwhile are folded into the next write. Nobody holds `lock` across I/O, so
 * neither a client nor the disk can hold up a window. */
#include "prom.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conncut.h"
#include "gputop/common.h"

#define GD_PROM_CONNECTIONS 64 /* clients served at once, at most; more wait in the listen queue */
#define GD_PROM_PER_IP      32 /* of them from one address: others always get in (conncut.h) */
#define GD_PROM_TIMEOUT_S   5  /* a connection idle this long is closed */
#define GD_PROM_LIFETIME_S  10 /* and any connection this old (conncut.c) */
#define GD_PROM_FD_SPARE    16 /* descriptors kept for everything else of the run */

struct gd_prom {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the writer: a new rendering, or stop */
	/* Under lock: */
	char *text; /* the latest rendering ("" before the first window) */
	size_t len;
	uint64_t gen;    /* renderings so far */
	bool stop;       /* the writer writes what is new, then ends */
	unsigned failed; /* writes of the file that failed */
	char why[256];   /* the latest failure's reason */
	/* Set before the threads start, read-only after: */
	struct MHD_Daemon *mhd; /* NULL without --listen */
	struct gd_conncut *cut; /* its connections' age bound */
	unsigned port;
	char where[80];   /* the address served, for prom_announce */
	char *file, *tmp; /* --prom-file and the template of its temporary files beside it */
	mode_t mode;      /* the file's mode: 0644 less the umask, as the other outputs */
	pthread_t writer;
	bool writing;            /* the writer thread runs */
	bool written;            /* under lock: the file has been written: it is ours to remove at the end */
	struct prom_memory *mem; /* the session thread's alone (prom_frame) */
	int ndevs;               /* the run's devices, for the device families' names */
	struct gd_device devs[GD_DEVICES_MAX];
};

/* ---- --prom-file ---- */

/* A new temporary file from the template name (its XXXXXX replaced): a name nobody can know
 * before it exists, created with O_EXCL (so nothing planted there, a FIFO or a link, is ever
 * opened), owned by us, mode as the other outputs. The descriptor, or -1 with errno. */
static int prom_tmp_create(char *name, mode_t mode)
{
	int fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, mode) != 0) {
		int e = errno;
		close(fd);
		unlink(name);
		errno = e;
		return -1;
	}
	return fd;
}

/* Writes text to a temporary file and renames it over the file: a reader sees the old
 * contents or the new, never a part. 0, or -1 with the reason in why. */
static int write_file(const struct gd_prom *p, const char *text, size_t len, char *why, size_t whylen)
{
	char tmp[PATH_MAX];
	const char *step = "create", *name = str_copy(tmp, sizeof(tmp), p->tmp);
	int fd = prom_tmp_create(tmp, p->mode);
	if (fd >= 0) {
		step = "write";
		size_t done = 0;
		ssize_t w = 1;
		while (done < len &&
		       ((w = write(fd, text + done, len - done)) > 0 || (w < 0 && errno == EINTR)))
			done += w > 0 ? (size_t)w : 0;
		if (w == 0)
			errno = EIO;
		int saved = errno;
		bool failed = done < len;
		if (close(fd) != 0)
			failed = true;
		else if (failed)
			errno = saved;
		if (!failed) {
			step = "rename";
			name = p->file;
			if (rename(tmp, p->file) == 0)
				return 0;
		}
		unlink(tmp);
	}
	snprintf(why, whylen, "--prom-file: cannot %s '%s': %s", step, name, strerror(errno));
	return -1;
}

/* The writer thread: writes the newest rendering whenever there is one it has not written. */
static void *writer_main(void *arg)
{
	struct gd_prom *p = arg;
	char *copy = NULL, why[256];
	size_t cap = 0;
	uint64_t done = 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->gen == done)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->gen == done)
			break; /* stopped, everything written (prom_close then removes it) */
		done = p->gen;
		size_t len = p->len;
		if (!copy || len + 1 > cap) {
			cap = 2 * (len + 1);
			copy = xreallocarray(copy, cap, 1);
		}
		memcpy(copy, p->text, len);
		pthread_mutex_unlock(&p->lock);
		int rc = write_file(p, copy, len, why, sizeof(why));
		pthread_mutex_lock(&p->lock);
		if (rc != 0) {
			p->failed++;
			str_copy(p->why, sizeof(p->why), why);
		} else {
			p->written = true;
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(copy);
	return NULL;
}

/* --prom-file's checks: a regular file or none, and a directory that takes the temporary file
 * (created and removed here). That it is none of the other outputs is outputs_open's check. */
static int file_open(struct gd_prom *p, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (strcmp(path, "-") == 0) {
		snprintf(err, errlen, "--prom-file: '-' is no file (the file is replaced by a rename)");
		return -1;
	}
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "--prom-file: '%s' is not a regular file", path);
		return -1;
	}
	/* The temporary files go in the file's directory (a rename does not cross file systems)
	 * under a short name of their own, so any name that fits there fits for them too. */
	static const char base[] = ".gputop-decode-prom.XXXXXX";
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	size_t n = (size_t)dirlen + sizeof(base);
	if (n > PATH_MAX) {
		snprintf(err, errlen, "--prom-file: '%s': %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	p->file = xmalloc(strlen(path) + 1);
	memcpy(p->file, path, strlen(path) + 1);
	p->tmp = xmalloc(n);
	snprintf(p->tmp, n, "%.*s%s", dirlen, path, base);
	mode_t mask = umask(0);
	umask(mask);
	p->mode = 0644 & ~mask;
	char tmp[PATH_MAX];
	int fd = prom_tmp_create(str_copy(tmp, sizeof(tmp), p->tmp), p->mode);
	if (fd < 0) {
		snprintf(err, errlen, "--prom-file: cannot create a file in the directory of '%s': %s", path,
		         strerror(errno));
		return -1;
	}
	close(fd);
	unlink(tmp);
	/* It blocks every signal: the flags the supervisor's handlers set belong to its own thread. */
	int rc = gd_thread_start(&p->writer, writer_main, p, 0);
	if (rc != 0) {
		snprintf(err, errlen, "--prom-file: cannot start its writer thread: %s", strerror(rc));
		return -1;
	}
	p->writing = true;
	return 0;
}

/* ---- --listen ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	                        status == MHD_HTTP_OK ? "text/plain; version=0.0.4; charset=utf-8"
	                                              : "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* GET /metrics: a copy of the latest rendering, taken under the lock. The parameters are
 * libmicrohttpd's MHD_AccessHandlerCallback. */
/* NOLINTBEGIN(readability-non-const-parameter) */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
/* NOLINTEND(readability-non-const-parameter) */
{
	struct gd_prom *p = cls;
	(void)version, (void)upload, (void)upload_size, (void)state;
	conncut_answering(p->cut, c);
	static const char not_allowed[] = "only GET and HEAD\n", not_found[] = "not found: see /metrics\n";
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed, sizeof(not_allowed) - 1);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1);
	pthread_mutex_lock(&p->lock);
	enum MHD_Result rc = reply(c, MHD_HTTP_OK, p->text, p->len);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* "127.0.0.1:9400" or "[::1]:9400". */
static void address_text(const struct gd_listen *l, unsigned port, char *s, size_t n)
{
	char host[INET6_ADDRSTRLEN];
	inet_ntop(l->family, l->addr, host, sizeof(host));
	snprintf(s, n, l->family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, port);
}

/* A listening socket on --listen's address, close-on-exec (workers never hold it). */
static int bind_socket(const struct gd_listen *l, unsigned *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (l->family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)l->port);
		memcpy(&a->sin6_addr, l->addr, 16);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)l->port);
		memcpy(&a->sin_addr, l->addr, 4);
		len = sizeof(*a);
	}
	int one = 1;
	int fd = socket(l->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* [::] is the IPv6 address it says, not IPv4 too: the system's default (bindv6only) may
	 * differ, so it is set. */
	if (fd < 0 ||
	    (l->family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		snprintf(err, errlen, "--listen %s: %s", l->text, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(l->family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
	                                    : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* The connections the server may hold at once: GD_PROM_CONNECTIONS, or fewer where the
 * descriptor limit leaves fewer beside those open now and a spare. libmicrohttpd then refuses
 * more itself, and never meets EMFILE on accept (after which it stopped accepting). */
static unsigned connection_limit(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
		return GD_PROM_CONNECTIONS;
	long open_now = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		open_now += e->d_name[0] != '.';
	if (d)
		closedir(d);
	long left = (long)r.rlim_cur - open_now - GD_PROM_FD_SPARE;
	return left <= 0 ? 0 : left < GD_PROM_CONNECTIONS ? (unsigned)left : GD_PROM_CONNECTIONS;
}

/* Binds --listen's address and starts libmicrohttpd's polling thread on it, with every signal
 * blocked (the flags the supervisor's handlers set belong to its own thread). No client holds
 * the server: connections are limited in all and per address, closed when idle, and cut at
 * an age bound however they trickle; where the limits are reached, a new connection takes the
 * place of the one that has waited longest for a request (conncut.h), so slow clients cannot
 * lock out a scraper, from their address or any other, that sends its request at once. */
static int serve(struct gd_prom *p, const struct gd_listen *l, char *err, size_t errlen)
{
	unsigned limit = connection_limit();
	if (limit == 0) {
		snprintf(err, errlen, "--listen %s: the descriptor limit (ulimit -n) leaves none for clients",
		         l->text);
		return -1;
	}
	if (!(p->cut = conncut_new(limit, GD_PROM_PER_IP, GD_PROM_LIFETIME_S))) {
		snprintf(err, errlen, "--listen %s: cannot start a thread", l->text);
		return -1;
	}
	int fd = bind_socket(l, &p->port, err, errlen);
	if (fd < 0)
		return -1;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* The share per address is conncut's, not MHD_OPTION_PER_IP_CONNECTION_LIMIT, which would
	 * refuse a connection over it before conncut could make room. */
	p->mhd = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, conncut_admit, p->cut, on_request, p,
	                          MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
	                          limit, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)GD_PROM_TIMEOUT_S,
	                          MHD_OPTION_NOTIFY_CONNECTION, conncut_notify, p->cut,
	                          MHD_OPTION_NOTIFY_COMPLETED, conncut_completed, p->cut, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->mhd) {
		close(fd);
		snprintf(err, errlen, "--listen %s: the HTTP server did not start", l->text);
		return -1;
	}
	address_text(l, p->port, p->where, sizeof(p->where));
	return 0;
}

/* ---- The exporter ---- */

struct gd_prom *prom_open(const struct gd_prom_config *c, char *err, size_t errlen)
{
	err[0] = '\0';
	if (!c->file && !c->listen.set)
		return NULL;
	struct gd_prom *p = xcalloc(1, sizeof(*p));
	p->ndevs = c->ndevs < GD_DEVICES_MAX ? c->ndevs : GD_DEVICES_MAX;
	for (int d = 0; d < p->ndevs; d++)
		p->devs[d] = c->devs[d];
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->text = xmalloc(1);
	p->text[0] = '\0';
	p->mem = prom_memory_new();
	if ((c->file && file_open(p, c->file, err, errlen)) ||
	    (c->listen.set && serve(p, &c->listen, err, errlen))) {
		prom_close(p, NULL, 0);
		return NULL;
	}
	return p;
}

/* The output's frame: renders f once, for /metrics and the file's writer. */
/* NOLINTNEXTLINE(readability-non-const-parameter): the outputs interface; this one never fails */
static int prom_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct gd_prom *p = self;
	size_t len;
	char *text = prom_render(f, p->devs, p->mem, &len);
	pthread_mutex_lock(&p->lock);
	char *old = p->text;
	p->text = text;
	p->len = len;
	p->gen++;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	free(old);
	return 0; /* a file that could not be written is tried again, and said at the close */
}

void prom_announce(const struct gd_prom *p)
{
	if (p && p->mhd)
		fprintf(stderr, GD_NAME ": metrics on http://%s/metrics\n", p->where);
}

/* For the tests, which listen on port 0; the tool itself announces the port (prom_announce). */
/* cppcheck-suppress unusedFunction */
unsigned prom_port(const struct gd_prom *p)
{
	return p ? p->port : 0;
}

static int prom_close_output(void *self, char *why, size_t whylen)
{
	return prom_close(self, why, whylen);
}

const struct gd_output_ops prom_output = { .frame = prom_frame, .close = prom_close_output };

int prom_close(struct gd_prom *p, char *why, size_t whylen)
{
	if (!p)
		return 0;
	if (p->mhd)
		MHD_stop_daemon(p->mhd); /* joins its thread; closes the socket and every connection */
	conncut_free(p->cut);
	if (p->writing) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->writer, NULL);
	}
	/* A file left after the run would go on saying its last window's workers run, at their
	 * last rates, to whatever reads it (node_exporter's textfile collector): removed, as a
	 * stopped exporter's endpoint goes away. Only the file this run wrote. */
	if (p->written && unlink(p->file) != 0 && errno != ENOENT) {
		p->failed++;
		snprintf(p->why, sizeof(p->why), "--prom-file: cannot remove '%s': %s", p->file,
		         strerror(errno));
	}
	int rc = 0;
	if (p->failed && why) {
		snprintf(why, whylen, "%s (%u write%s failed)", p->why, p->failed, p->failed > 1 ? "s" : "");
		rc = -1;
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	prom_memory_free(p->mem);
	free(p->text);
	free(p->file);
	free(p->tmp);
	free(p);
	return rc;
}

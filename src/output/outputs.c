/* outputs.c: the run's output files, checked together and opened last, and the list of its
 * outputs (outputs.h). */
#include "gputop/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"

void outputs_reserve_std(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* The lowest free descriptor: this one, as those below it are open. */
		int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
}

/* One output, created alike whoever asks: 0644 less the umask, close-on-exec, never a
 * controlling terminal. An existing file is opened as it is (outputs_open truncates it once
 * every check has passed). */
static int open_one(struct gd_output *o, char *err, size_t errlen)
{
	o->fd = STDOUT_FILENO;
	o->own = o->created = false;
	if (o->replaced) {
		o->fd = -1;
		return 0;
	}
	if (strcmp(o->path, "-") == 0)
		return 0;
	for (int tries = 0; tries < 2; tries++) {
		o->fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
		if (o->fd >= 0) {
			o->own = o->created = true;
			return 0;
		}
		if (errno != EEXIST)
			break;
		/* O_NONBLOCK: a FIFO that nobody reads (planted by anyone who can write to the
		 * directory) is refused at once instead of holding the start; writes block as
		 * usual afterwards (a slow reader is the log's queue's to handle). */
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (o->fd >= 0) {
			fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK);
			o->own = true;
			return 0;
		}
		if (errno != ENOENT) /* ENOENT: removed in between; create it after all */
			break;
	}
	snprintf(err, errlen, "%s: cannot open '%s': %s", o->what, o->path,
	         errno == ENXIO ? "a FIFO that nobody reads" : strerror(errno));
	return -1;
}

void outputs_discard(struct gd_output *out, int n)
{
	GD_ASSERT(n >= 0 && n <= GD_OUTPUTS_MAX && (out || n == 0));
	for (int i = 0; i < n; i++) {
		if (out[i].own)
			close(out[i].fd);
		if (out[i].created)
			unlink(out[i].path);
		out[i].fd = -1;
		out[i].own = out[i].created = false;
	}
}

/* An output replaced by a rename when written (the report, the Prometheus file): a regular
 * file or none, never followed through a link (the rename would put a new file in place of a
 * FIFO, a device or the link itself), in a directory that takes a new file (one is made and
 * removed here, as the temporary file will be made there). */
static int check_replaced(const struct gd_output *o, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: '%s' is not a regular file (it is replaced by a rename)", o->what,
		         o->path);
		return -1;
	}
	const char *slash = strrchr(o->path, '/');
	char probe[PATH_MAX];
	int dirlen = slash ? (int)(slash - o->path) + 1 : 0;
	int n = snprintf(probe, sizeof(probe), "%.*s.gputop-decode.XXXXXX", dirlen, o->path);
	int fd = n > 0 && (size_t)n < sizeof(probe) ? mkostemp(probe, O_CLOEXEC) : -1;
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create a file in the directory of '%s': %s", o->what,
		         o->path,
		         n > 0 && (size_t)n < sizeof(probe) ? strerror(errno) : strerror(ENAMETOOLONG));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

/* /dev/null may take every output at once. */
static bool null_device(const struct stat *st)
{
	struct stat null;
	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && st->st_rdev == null.st_rdev;
}

static bool null_path(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && null_device(&st);
}

/* -1 when two outputs share one file, with a message naming both. A file that is only
 * replaced is compared where it exists already. */
static int shared(const struct gd_output *out, int n, char *err, size_t errlen)
{
	struct stat st[GD_OUTPUTS_MAX];
	bool exists[GD_OUTPUTS_MAX];
	for (int j = 0; j < n; j++) {
		exists[j] = (out[j].replaced ? stat(out[j].path, &st[j]) : fstat(out[j].fd, &st[j])) == 0;
		if (!exists[j] && !(out[j].replaced && errno == ENOENT)) {
			snprintf(err, errlen, "%s: '%s': %s", out[j].what, out[j].path, strerror(errno));
			return -1;
		}
		for (int i = 0; i < j && exists[j]; i++)
			if (exists[i] && st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino &&
			    !null_device(&st[j])) {
				snprintf(err, errlen, "%s: '%s' is the same file as %s", out[j].what,
				         out[j].path, out[i].what);
				return -1;
			}
	}
	return 0;
}

int outputs_open(struct gd_output *out, int n, char *err, size_t errlen)
{
	GD_ASSERT(n >= 0 && (out || n == 0));
	if (n > GD_OUTPUTS_MAX) {
		snprintf(err, errlen, "more than %d outputs", GD_OUTPUTS_MAX);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		out[i].fd = -1;
		out[i].own = out[i].created = false;
	}
	/* The same name twice: refused before anything is opened. */
	for (int j = 0; j < n; j++)
		for (int i = 0; i < j; i++)
			if (strcmp(out[i].path, out[j].path) == 0 && !null_path(out[j].path)) {
				snprintf(err, errlen, "%s: '%s' is the same file as %s", out[j].what,
				         out[j].path, out[i].what);
				return -1;
			}
	for (int i = 0; i < n; i++)
		if (open_one(&out[i], err, errlen)) {
			outputs_discard(out, i);
			return -1;
		}
	if (shared(out, n, err, errlen)) {
		outputs_discard(out, n);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (out[i].replaced && check_replaced(&out[i], err, errlen)) {
			outputs_discard(out, n);
			return -1;
		}
	/* Every check passed: existing files start empty, as with O_TRUNC. */
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (out[i].own && !out[i].created && fstat(out[i].fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    ftruncate(out[i].fd, 0) != 0) {
			snprintf(err, errlen, "%s: cannot truncate '%s': %s", out[i].what, out[i].path,
			         strerror(errno));
			outputs_discard(out, n);
			return -1;
		}
	}
	return 0;
}

/* ---- the list ---- */

/* The list's count within its array (a NULL list: none). */
#define LIST_OK(l) (!(l) || ((l)->n >= 0 && (l)->n <= GD_OUTPUTS_MAX))

void outputs_add(struct gd_outputs *l, const struct gd_output_ops *ops, void *self)
{
	if (!self)
		return;
	/* close is the one member every output has: outputs_close calls it without asking. */
	GD_ASSERT(ops && ops->close && l->n >= 0 && l->n < GD_OUTPUTS_MAX && !l->started && !l->closed);
	l->out[l->n].ops = ops;
	l->out[l->n].self = self;
	l->n++;
}

void outputs_start(struct gd_outputs *l, int64_t t0)
{
	GD_ASSERT(LIST_OK(l) && (!l || (!l->started && !l->closed)));
	if (l)
		l->started = true;
	for (int i = 0; l && i < l->n; i++)
		if (l->out[i].ops->start)
			l->out[i].ops->start(l->out[i].self, t0);
}

void outputs_batch(struct gd_outputs *l, const struct gd_row_info *w, const char *device,
                   const struct gd_rec *r)
{
	GD_ASSERT(LIST_OK(l) && w && device && r && (!l || (l->started && !l->closed)));
	for (int i = 0; l && i < l->n; i++)
		if (l->out[i].ops->batch)
			l->out[i].ops->batch(l->out[i].self, w, device, r);
}

/* The one loop behind frames, events and sweep rows: each output's member, where it has one;
 * the first that fails ends it. */
#define EACH(l, member, value, err, errlen)                                                  \
	do {                                                                                 \
		GD_ASSERT(LIST_OK(l) && (value) && (!(l) || !(l)->closed));                  \
		for (int i_ = 0; (l) && i_ < (l)->n; i_++)                                   \
			if ((l)->out[i_].ops->member &&                                      \
			    (l)->out[i_].ops->member((l)->out[i_].self, value, err, errlen)) \
				return -1;                                                   \
		return 0;                                                                    \
	} while (0)

int outputs_frame(struct gd_outputs *l, const struct gd_frame *f, char *err, size_t errlen)
{
	EACH(l, frame, f, err, errlen);
}

int outputs_event(struct gd_outputs *l, const struct gd_event *e, char *err, size_t errlen)
{
	EACH(l, event, e, err, errlen);
}

int outputs_sweep_row(struct gd_outputs *l, const struct gd_sweep_row *r, char *err, size_t errlen)
{
	EACH(l, sweep_row, r, err, errlen);
}

int outputs_close(struct gd_outputs *l)
{
	GD_ASSERT(LIST_OK(l));
	int rc = 0;
	for (int i = 0; l && i < l->n; i++) {
		char why[512];
		if (l->out[i].ops->close(l->out[i].self, why, sizeof(why)) != 0) {
			gd_say("%s", why);
			rc = -1;
		}
	}
	if (l) {
		l->n = 0;
		l->closed = true;
	}
	return rc;
}

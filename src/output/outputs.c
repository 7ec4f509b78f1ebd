/* outputs.c: the run's output files, checked together and opened last (outputs.h). */
#include "gputop/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (o->fd >= 0) {
			o->own = true;
			return 0;
		}
		if (errno != ENOENT) /* ENOENT: removed in between; create it after all */
			break;
	}
	snprintf(err, errlen, "%s: cannot open '%s': %s", o->what, o->path, strerror(errno));
	return -1;
}

void outputs_discard(struct gd_output *out, int n)
{
	for (int i = 0; i < n; i++) {
		if (out[i].own)
			close(out[i].fd);
		if (out[i].created)
			unlink(out[i].path);
		out[i].fd = -1;
		out[i].own = out[i].created = false;
	}
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

/* -1 when two outputs share one file, with a message naming both. */
static int shared(const struct gd_output *out, int n, char *err, size_t errlen)
{
	struct stat st[GD_OUTPUTS_MAX];
	for (int j = 0; j < n; j++) {
		if (fstat(out[j].fd, &st[j]) != 0) {
			snprintf(err, errlen, "%s: '%s': %s", out[j].what, out[j].path, strerror(errno));
			return -1;
		}
		for (int i = 0; i < j; i++)
			if (st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino &&
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

/* proc.c: process facts from /proc: stat lines, start times, the executable's path. */
#include "gputop/proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"

static double boot_time(void)
{
	static double btime = -1;
	if (btime >= 0)
		return btime;
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return 0;
	char line[256];
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "btime ", 6) == 0) {
			btime = strtod(line + 6, NULL);
			break;
		}
	fclose(f);
	return btime < 0 ? 0 : btime;
}

/* The fields of a stat line: comm may hold spaces and parentheses, so they resume after the
 * last ')'. */
static bool parse_stat(pid_t pid, char *buf, struct proc_stat *out)
{
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return false;
	out->pid = pid;
	out->state = p[2];
	/* state is field 3; ppid 4, pgrp 5; starttime 22. */
	char *end;
	long ppid = strtol(p + 3, &end, 10), pgid = end > p + 3 ? strtol(end, &end, 10) : 0;
	if (*end != ' ')
		return false;
	out->ppid = (pid_t)ppid;
	out->pgid = (pid_t)pgid;
	p += 2;
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || (out->start_ticks = strtoull(p, &end, 10), end == p))
		return false;
	return true;
}

bool proc_stat_read(pid_t pid, struct proc_stat *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return parse_stat(pid, buf, out);
}

uint64_t proc_self_start_ticks(void)
{
	struct proc_stat st;
	return proc_stat_read(getpid(), &st) ? st.start_ticks : 0;
}

size_t proc_scan(struct proc_stat *out, size_t max)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while (n < max && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end == '\0' && pid > 0 && pid <= INT32_MAX && proc_stat_read((pid_t)pid, &out[n]))
			n++;
	}
	closedir(d);
	return n;
}

/* Start time of pid in seconds since the epoch, or -1 if it is not running (a zombie is not). */
static double proc_start_time(pid_t pid)
{
	struct proc_stat st;
	if (!proc_stat_read(pid, &st) || st.state == 'Z' || st.state == 'X')
		return -1;
	return boot_time() + (double)st.start_ticks / (double)sysconf(_SC_CLK_TCK);
}

bool proc_running_since(pid_t pid, const struct timespec *since)
{
	double start = proc_start_time(pid);
	/* The start time is computed from whole-second btime and clock ticks, so it may read up to
	 * 1 s early; the extra second of slack only ever keeps, never removes. */
	return start >= 0 && start <= (double)since->tv_sec + (double)since->tv_nsec / 1e9 + 1.0;
}

const char *proc_self_exe(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	return path;
}

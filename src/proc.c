/* proc.c: process facts from /proc: start times, the executable's path. */
#include "gputop/proc.h"

#include <limits.h>
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

/* Start time of pid in seconds since the epoch, or -1 if it is not running (a zombie is not). */
static double proc_start_time(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields resume after the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return -1;
	/* After ")": state is field 3; starttime is field 22, so skip 19 fields. */
	p++;
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -1;
	char *end;
	unsigned long long start = strtoull(p, &end, 10);
	if (end == p)
		return -1;
	return boot_time() + (double)start / (double)sysconf(_SC_CLK_TCK);
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

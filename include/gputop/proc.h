/* proc.h: facts about processes read from /proc. A pid alone names a process only while it is
 * known to be alive; its start time (clock ticks since boot, /proc/PID/stat field 22) names it
 * for good, together with the pid. */
#ifndef GPUTOP_PROC_H
#define GPUTOP_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct proc_stat {
	pid_t pid, ppid, pgid;
	char state;           /* 'R', 'S', ..., 'Z' a zombie */
	uint64_t start_ticks; /* clock ticks since boot */
};

/* pid's stat line; false when there is no such process (a zombie has one). */
bool proc_stat_read(pid_t pid, struct proc_stat *out);
/* This process's start time in clock ticks since boot; 0 when /proc cannot say. */
uint64_t proc_self_start_ticks(void);
/* Every process's stat, into out (at most max); returns how many (a process that ended while it
 * was read is left out). */
size_t proc_scan(struct proc_stat *out, size_t max);
/* True if pid is running (not a zombie) and started no later than `since` (epoch time): a
 * pid reused by a process younger than `since` does not count. Neither the process's name nor
 * its executable is looked at. */
bool proc_running_since(pid_t pid, const struct timespec *since);
/* Path of the running executable (for spawning workers), or NULL. */
const char *proc_self_exe(void);

#endif

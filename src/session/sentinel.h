/* sentinel.h: the process that ends an observed program's processes once the tool has gone,
 * however it went (a SIGKILL included). */
#ifndef GPUTOP_SENTINEL_H
#define GPUTOP_SENTINEL_H

#include <stdint.h>
#include <sys/types.h>

/* Starts the sentinel for the processes whose environment holds the entry var ("NAME=VALUE",
 * which the copies of the program get and pass on to what they start). It waits for the end of
 * a pipe whose write end, *fd, only this process holds (close-on-exec, non-blocking): when that
 * end closes, by sentinel_stop or by this process's death, it ends the family: the holders of
 * the entry, the processes reported with sentinel_report, and every descendant of either that
 * still has its parent. SIGTERM first, for up to SESSION_STOP_GRACE_S while any lives; then
 * SIGSTOP and SIGKILL in rounds until two scans in a row find nobody, giving up 10 s later.
 * Returns its pid, or -1 (errno). */
pid_t sentinel_start(const char *var, int *fd);
/* Tells the sentinel of a process of the family (pid, and its start time in clock ticks since boot,
 * field 22 of /proc/PID/stat): after the tool it is ended even when its environment cannot be read
 * (not dumpable) or no longer holds the entry. Never blocks: a report the pipe has no room for
 * (or with no sentinel to read it) is dropped, and returns -1 for the caller to count. */
int sentinel_report(int fd, pid_t pid, uint64_t start_ticks);
/* Closes fd and waits for the sentinel (it finds what is left, if anything, and ends). */
void sentinel_stop(pid_t pid, int fd);

#endif

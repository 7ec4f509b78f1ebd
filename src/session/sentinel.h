/* sentinel.h: the process that ends an observed program's processes once the tool has gone,
 * however it went (a SIGKILL included). */
#ifndef GPUTOP_SENTINEL_H
#define GPUTOP_SENTINEL_H

#include <sys/types.h>

/* Starts the sentinel for the processes whose environment holds the entry var ("NAME=VALUE",
 * which the copies of the program get and pass on to what they start). It waits for the end of
 * a pipe whose write end, *fd, only this process holds (close-on-exec): when that end closes, by
 * sentinel_stop or by this process's death, it sends SIGTERM to every process of ours with that
 * entry, and SIGKILL to those left after SESSION_STOP_GRACE_S. Returns its pid, or -1 (errno). */
pid_t sentinel_start(const char *var, int *fd);
/* Closes fd and waits for the sentinel (it finds what is left, if anything, and ends). */
void sentinel_stop(pid_t pid, int fd);

#endif

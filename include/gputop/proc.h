/* proc.h: facts about other processes read from /proc. */
#ifndef GPUTOP_PROC_H
#define GPUTOP_PROC_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/* True if pid is running (not a zombie) and started no later than `since` (epoch time): a
 * pid reused by a process younger than `since` does not count. Neither the process's name nor
 * its executable is looked at. */
bool proc_running_since(pid_t pid, const struct timespec *since);
/* Path of the running executable (for spawning workers), or NULL. */
const char *proc_self_exe(void);

#endif

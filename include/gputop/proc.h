/* proc.h: facts about other processes read from /proc. */
#ifndef GPUTOP_PROC_H
#define GPUTOP_PROC_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/* True if pid is a running gputop-decode that started no later than `since` (epoch s):
 * a pid that was reused by a younger process does not count. */
bool proc_is_gputop(pid_t pid, time_t since);
/* Path of the running executable (for spawning workers), or NULL. */
const char *proc_self_exe(void);

#endif

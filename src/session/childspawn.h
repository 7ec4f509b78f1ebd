/* childspawn.h: starting a child of this binary, a worker or the calibration, from its spec: one
 * command line (spec_child_argv) and one set-up for both. */
#ifndef GPUTOP_CHILDSPAWN_H
#define GPUTOP_CHILDSPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "gputop/spec.h"

/* Starts c from exe with standard input on /dev/null, standard output on out_fd (-1:
 * /dev/null) and standard error on err_fd (-1: ours); SIGUSR1 and SIGUSR2 (pause, resume)
 * blocked until the child has its handlers, a worker's stop signals (SIGTERM, SIGINT, SIGHUP,
 * SIGQUIT) until its OpenCL set-up is done (so the runtime's threads never take them), and
 * every signal this process handles or ignores back at its default. Returns the child's pid, or -1 with err
 * filled: a command line that does not fit is refused, never shortened. */
pid_t spawn_child(const char *exe, const struct gd_child *c, int out_fd, int err_fd, char *err,
                  size_t errlen);

/* Starts argv (looked up in PATH) as a program to observe: in a process group of its own (so a
 * stop reaches every process it started), ended with SIGTERM when this process dies however it
 * dies (PR_SET_PDEATHSIG; the processes it starts are the sentinel's to end: sentinel.h),
 * standard input on /dev/null, standard output and error on out_fd, no signal blocked and
 * every signal this process handles at its default, with environ plus the variables in extra
 * (NAME=VALUE, NULL-terminated; they replace ones of the same name). Returns its pid, or -1
 * with err filled. */
pid_t spawn_program(char *const *argv, char *const *extra, int out_fd, char *err, size_t errlen);

#endif

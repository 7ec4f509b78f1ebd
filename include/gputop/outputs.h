/* outputs.h: the files a run writes (the log, the trace), checked together and opened after
 * every other check: two outputs never share a file, a refused set leaves no file behind and
 * every existing file as it was, and each output is created alike (mode 0644 less the umask,
 * close-on-exec). */
#ifndef GPUTOP_OUTPUTS_H
#define GPUTOP_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#define GD_OUTPUTS_MAX 8 /* outputs of one run, at most */

struct gd_output {
	const char *what; /* for messages: "--output", "--trace", "the dashboard's terminal" */
	const char *path; /* "-": standard output, used as it is */
	int fd;           /* set by outputs_open */
	bool own;         /* fd was opened here (not standard output) */
	bool created;     /* the file did not exist before */
};

/* Makes sure descriptors 0, 1 and 2 are open (on /dev/null where one is closed), so that no
 * file opened later takes the place of standard input, output or error. */
void outputs_reserve_std(void);
/* Opens out[0..n) (n at most GD_OUTPUTS_MAX): refuses two of them on one file (the same name, or the same
 * file once opened; "-" is standard output), then truncates existing files. Returns 0, or -1 with err filled,
 * every descriptor closed, every file it created removed and no file truncated. */
int outputs_open(struct gd_output *out, int n, char *err, size_t errlen);
/* Undoes outputs_open after a later failure: closes its descriptors, removes created files. */
void outputs_discard(struct gd_output *out, int n);

#endif

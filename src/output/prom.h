/* prom.h: the Prometheus exposition of the latest window: a text file replaced atomically
 * every interval (--prom-file, for node_exporter's textfile collector) and GET /metrics served
 * by libmicrohttpd (--listen). The session renders each window once; readers get a copy. */
#ifndef GPUTOP_PROM_H
#define GPUTOP_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/collect.h"
#include "gputop/device.h"
#include "gputop/outputs.h"
#include "gputop/settings.h"

struct gd_prom;

struct gd_prom_config {
	const char *file;        /* --prom-file, or NULL */
	struct gd_listen listen; /* --listen, where set */
	int ndevs;               /* the run's devices: their names label the device families */
	const struct gd_device *devs;
};

/* The exporter as one of the run's outputs (outputs.h): each frame is rendered once, for
 * /metrics and the file's writer (the caller never waits on the file system); a file that
 * cannot be written is tried again with the next frame, and close reports how many writes
 * failed and the latest reason. */
extern const struct gd_output_ops prom_output;

/* The exporter that c asks for (a file, an address), or NULL with err empty when it asks for
 * neither. Every check that can refuse the command line is made here, before any worker
 * starts: the file's directory takes a new file, the address is bound and listening (a port
 * in use is refused); that the file is none of the run's other outputs is outputs_open's.
 * On refusal it returns NULL with one line in err and leaves nothing behind. */
struct gd_prom *prom_open(const struct gd_prom_config *c, char *err, size_t errlen);
/* Says on standard error where /metrics is served (the chosen port, for port 0), when it is:
 * called once nothing can refuse the run any more. */
void prom_announce(const struct gd_prom *p);
/* The port /metrics is served on; 0 without --listen. */
unsigned prom_port(const struct gd_prom *p);
/* Stops serving and writing, removes the file this run wrote, and frees p (NULL is fine): once
 * the run has ended the file's values are no longer true (a run killed with SIGKILL leaves it;
 * node_exporter reports its age). Returns -1 with the reason in why (when why is not NULL) if
 * some write or the removal of the file failed, else 0. */
int prom_close(struct gd_prom *p, char *why, size_t whylen);

/* What the text remembers from one frame to the next: each observed copy's processes, and
 * the counters of those that ended (prom_rows.c). One per exporter; NULL: nothing. */
struct prom_memory;
struct prom_memory *prom_memory_new(void);
void prom_memory_free(struct prom_memory *mem);

/* One series of the per-row families: a worker's, or an observed copy's on one device. */
struct prom_series {
	bool copy;                 /* a copy's: labelled copy, not worker */
	const struct gd_sample *s; /* a worker's sample in the frame, or own */
	/* A copy's: its id, device, pid and command name (its own process's), the latest
	 * profiling period of its processes, and their counters summed, ended ones included. */
	struct gd_sample own;
	unsigned nstate[GD_ST_COUNT]; /* a copy's processes in each state */
};
/* f's rows as series into *out (to free), workers in the frame's order, each copy where its
 * first process is; returns how many. mem learns which processes ended since the last call. */
size_t prom_series_build(const struct gd_frame *f, struct prom_memory *mem, struct prom_series **out);

/* The text format of f (its rows on devs[0..f->ndevs)): a string to free, its length in
 * *len. Rows are series (prom_series_build, mem as there) carrying their device's labels, and
 * the device families one sample per device (with several devices, each one's own figures).
 * Samples whose value is not a number are left out; a family without samples is left out
 * whole. */
char *prom_render(const struct gd_frame *f, const struct gd_device *devs, struct prom_memory *mem,
                  size_t *len);

#endif

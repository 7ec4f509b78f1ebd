/* prom.h: the Prometheus exposition of the latest window: a text file replaced atomically
 * every interval (--prom-file, for node_exporter's textfile collector) and GET /metrics served
 * by libmicrohttpd (--listen). The session renders each window once; readers get a copy. */
#ifndef GPUTOP_PROM_H
#define GPUTOP_PROM_H

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
/* Stops serving, writes the latest rendering to the file if it is not there yet, and frees p
 * (NULL is fine). Returns -1 with the reason in why (when why is not NULL) if some write of
 * the file failed, else 0. The last file written stays: node_exporter reports its age. */
int prom_close(struct gd_prom *p, char *why, size_t whylen);

/* The text format of f (its workers on devs[0..f->ndevs)): a string to free, its length in
 * *len. Workers carry their device's label, and the device families one sample per device
 * (with several devices, each one's own figures). Samples whose value is not a number are
 * left out; a family without samples is left out whole. */
char *prom_render(const struct gd_frame *f, const struct gd_device *devs, size_t *len);

#endif

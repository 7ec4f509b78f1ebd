/* prom.h: the Prometheus exposition of the latest window: a text file replaced atomically
 * every interval (--prom-file, for node_exporter's textfile collector) and GET /metrics served
 * by libmicrohttpd (--listen). The session renders each window once; readers get a copy. */
#ifndef GPUTOP_PROM_H
#define GPUTOP_PROM_H

#include <stddef.h>

#include "gputop/collect.h"
#include "gputop/device.h"
#include "gputop/opts.h"

struct gd_prom;

/* The exporter that o asks for (--prom-file, --listen), or NULL with err empty when it asks for
 * neither. Every check that can refuse the command line is made here, before any worker
 * starts: the file's directory takes a new file, the file is none of the run's other outputs,
 * the address is bound and listening (a port in use is refused). On refusal it returns NULL
 * with one line in err and leaves nothing behind. With --listen it says on standard error
 * where /metrics is served (the chosen port, where --listen asked for port 0). */
struct gd_prom *prom_open(const struct gd_opts *o, char *err, size_t errlen);
/* Renders f (a window of the workers on devs[0..f->ndevs)) once: the text /metrics serves from now on and,
 * with --prom-file, the file's next contents, which a thread of the exporter writes (the
 * caller never waits on the file system). A file that cannot be written is tried again with
 * the next window; prom_close reports how many writes failed and the latest reason. */
void prom_update(struct gd_prom *p, const struct gd_frame *f, const struct gd_device *devs);
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

/* settings.h: the small values of a run's settings that the command line fills (opts.h) and the
 * parts that take them read: the log's format and columns (output/sink.h), a sweep's steps
 * (headless/headless.h) and the exporter's address (output/prom.h). Values only: each part's
 * functions stay in its own header. */
#ifndef GPUTOP_SETTINGS_H
#define GPUTOP_SETTINGS_H

#include <stdbool.h>

/* ---- the log (--format, --fields) ---- */

enum gd_format { GD_FMT_CSV, GD_FMT_JSONL, GD_FMT_COUNT };

/* The log's columns (--fields): fields of one table, in the order given; n == 0: every field,
 * in the log's own order. */
#define GD_FIELDS_MAX 128 /* room for the fields to come: an id is an unsigned char */
struct gd_fields {
	int n;
	bool sweep; /* of the sweep rows' table; else the frame rows' */
	unsigned char id[GD_FIELDS_MAX];
};

/* ---- the sweep (--sweep, --repeat) ---- */

#define GD_SWEEP_MAX    64  /* steps in one --sweep list */
#define GD_REPEAT_MAX   100 /* --repeat: runs of each sweep step */
#define GD_SWEEP_STEP_S 10  /* a sweep step's seconds without --duration */

/* One step of a sweep: procs workers with queues queues each (0: the workload's). */
struct gd_step {
	int procs, queues;
};

/* ---- the exporter (--listen) ---- */

/* --listen ADDR:PORT: where the exporter serves /metrics (a literal address). */
struct gd_listen {
	bool set;
	int family;             /* AF_INET or AF_INET6 */
	unsigned char addr[16]; /* network order: 4 bytes (IPv4) or 16 (IPv6) */
	unsigned port;          /* 0: a free port, chosen at start */
	const char *text;       /* as typed, for messages */
};

#endif

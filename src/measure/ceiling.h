/* ceiling.h: the calibrated ceiling as a value: what the calibration child answers, its line's
 * parse, and its figure at the larger size in words. Pure: the process that measures it is
 * session/calibrate.c's, the measurement worker/calibrate_child.c's. */
#ifndef GPUTOP_CEILING_H
#define GPUTOP_CEILING_H

#include <stdbool.h>
#include <stddef.h>

struct gd_ceiling {
	double rate;      /* the best of 1, 2, 4 and 8 queues: the ceiling */
	int queues;       /* where it was reached */
	double one_queue; /* the figure on one queue */
	double gap_ns;    /* the median gap between kernels launched back to back on one queue */
	double rate_4x;   /* the ceiling at GD_CEILING_LARGER times the size, on as many queues;
	                   * NAN: not measured (calibrate_child.c says when) */
};

/* The larger size the calibration also measures, as a multiple of --size. */
#define GD_CEILING_LARGER 4
/* A ceiling that grows by more than this share at the larger size is not the device's bound
 * for this kernel: costs paid per launch are (the host thread's calls, or the device's own cost
 * of a launch), and larger batches are the lever. */
#define GD_CEILING_LAUNCH_BOUND 0.05

/* What the larger size gains over the ceiling (rate_4x / rate - 1); NAN when not measured.
 * Inline: the diagnosis uses it without the calibration's process code. */
static inline double ceiling_gain_4x(const struct gd_ceiling *c)
{
	return c->rate_4x / c->rate - 1; /* NAN stays NAN */
}
/* The larger size's figure in words, after the ceiling's: "; 4x the size: 1745.0 Mbit/s, +25%
 * (launch costs bound this size)", or "..., +1% (the device's bound)"; "" when not
 * measured. Returns the length, as snprintf. */
int ceiling_say_4x(char *buf, size_t n, const struct gd_ceiling *c, const char *unit);

/* Parses the child's line "ceiling MBIT_S QUEUES ONE_QUEUE_MBIT_S GAP_NS MBIT_S_4X" (the last 0
 * when not measured); 0 or -1. */
int calibrate_parse(const char *line, struct gd_ceiling *out);

/* Whether a share of the calibrated ceiling (rate / ceiling) says the ceiling is stale: the
 * rate is above it, so the ceiling, always measured before the rate, is out of date. A share
 * above 100% is never shown as one. False for NAN (no ceiling, or no rate). */
bool ceiling_stale(double of_ceiling);

#endif

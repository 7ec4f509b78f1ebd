/* chart.h: the arithmetic behind the dashboard's charts: a ring of recent values, their means
 * per graph column, a bar's cells shared among its segments, numbers that fit a width. No
 * curses, no I/O, no clocks: tests call it with made-up series. */
#ifndef GPUTOP_CHART_H
#define GPUTOP_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHART_HIST 4096 /* values of history kept per series */

/* One series, one value per frame; the oldest is overwritten first. */
struct chart_hist {
	double v[CHART_HIST]; /* ring; NAN: not measured */
	uint64_t n;           /* values pushed since the start or the last reset */
};

void chart_push(struct chart_hist *h, double v);
/* Mean of values [k*per, (k+1)*per) that are still held; NAN when none was measured. */
double chart_bucket(const struct chart_hist *h, uint64_t k, uint64_t per);
/* Values per column, so that width columns of values interval_s apart span at least span_s. */
uint64_t chart_per_column(double span_s, double interval_s, int width);
/* Fills cols[0..width) with the buckets of per values, newest on the right, NAN where there
 * is none; returns the largest, or 0. */
double chart_columns(const struct chart_hist *h, uint64_t per, double *cols, int width);
/* Shares width cells among n segments in proportion to v[] (a negative counts as 0), by
 * largest remainder: cells[] sums to width. False, cells[] untouched, when a value is NAN or
 * none is above 0. */
bool chart_split(const double *v, int n, int width, int *cells);
/* v for a field width characters wide, leaving one blank: with prec digits after the point
 * when they fit, else none, else as an exponent (8 characters at most). NAN is "n/a", never a
 * made-up number. */
void chart_num(char *buf, size_t n, int width, double v, int prec);
/* The summary's word on capacity, rates in unit. Without a ceiling (NAN): the rate at 100%
 * busy (headroom: rate / device busy, an estimate) and the room left to it (headroom - rate).
 * With one: the share of it reached (of_ceiling), or, where the rate is above it, that it is
 * stale and c recalibrates. NAN figures read "n/a", with no unit after them. */
void chart_capacity(char *buf, size_t n, double rate, double headroom, double ceiling, double of_ceiling,
                    const char *unit);

#endif

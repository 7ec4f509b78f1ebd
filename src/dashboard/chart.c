/* chart.c: history ring, graph columns, bar segments and fitted numbers (pure: no curses,
 * no I/O, no clocks). */
#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measure/ceiling.h"

void chart_push(struct chart_hist *h, double v)
{
	h->v[h->n % CHART_HIST] = v;
	h->n++;
}

double chart_bucket(const struct chart_hist *h, uint64_t k, uint64_t per)
{
	uint64_t lo = k * per, hi = lo + per;
	if (hi > h->n)
		hi = h->n;
	if (h->n > CHART_HIST && lo < h->n - CHART_HIST)
		lo = h->n - CHART_HIST;
	double sum = 0;
	int cnt = 0;
	for (uint64_t i = lo; i < hi; i++)
		if (!isnan(h->v[i % CHART_HIST])) {
			sum += h->v[i % CHART_HIST];
			cnt++;
		}
	return cnt ? sum / cnt : NAN;
}

uint64_t chart_per_column(double span_s, double interval_s, int width)
{
	double per = ceil(span_s / (interval_s * (width > 0 ? width : 1)));
	return per < 1 ? 1 : (uint64_t)per;
}

double chart_columns(const struct chart_hist *h, uint64_t per, double *cols, int width)
{
	double max = 0;
	uint64_t newest = h->n ? (h->n - 1) / per : 0;
	for (int c = 0; c < width; c++) {
		uint64_t back = (uint64_t)(width - 1 - c);
		cols[c] = h->n == 0 || back > newest ? NAN : chart_bucket(h, newest - back, per);
		if (!isnan(cols[c]) && cols[c] > max)
			max = cols[c];
	}
	return max;
}

/* A segment's weight: a negative or NAN value counts as 0. */
static double chart_weight(double v)
{
	return v > 0 ? v : 0;
}

/* The segment whose exact share lost the most to rounding down. */
static int chart_largest_remainder(const double *v, int n, double total, int width, const int *cells)
{
	int best = 0;
	double rem = -1;
	for (int i = 0; i < n; i++) {
		double r = chart_weight(v[i]) / total * width - cells[i];
		if (r > rem) {
			rem = r;
			best = i;
		}
	}
	return best;
}

bool chart_split(const double *v, int n, int width, int *cells)
{
	double total = 0;
	for (int i = 0; i < n; i++)
		total += isnan(v[i]) ? NAN : chart_weight(v[i]);
	if (!(total > 0))
		return false;
	int used = 0;
	for (int i = 0; i < n; i++)
		used += cells[i] = (int)(chart_weight(v[i]) / total * width);
	for (; used < width; used++)
		cells[chart_largest_remainder(v, n, total, width, cells)]++;
	return true;
}

void chart_num(char *buf, size_t n, int width, double v, int prec)
{
	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	snprintf(buf, n, "%.*f", prec, v);
	if ((int)strlen(buf) >= width)
		snprintf(buf, n, "%.0f", v);
	if ((int)strlen(buf) >= width)
		snprintf(buf, n, "%.1e", v);
}

void chart_capacity(char *buf, size_t n, double rate, double headroom, double ceiling, double of_ceiling,
                    const char *unit)
{
	char a[32], b[32];
	if (isnan(ceiling)) {
		chart_num(a, sizeof(a), 12, headroom, 1);
		chart_num(b, sizeof(b), 12, headroom - rate, 1);
		snprintf(buf, n, "at 100%% busy %s%s%s%s (room %s%s; c calibrates)",
		         isnan(headroom) ? "" : "~", a, isnan(headroom) ? "" : " ",
		         isnan(headroom) ? "" : unit, headroom - rate >= 0 ? "+" : "", b);
		return;
	}
	chart_num(a, sizeof(a), 12, ceiling, 1);
	if (ceiling_stale(of_ceiling)) {
		snprintf(buf, n, "ceiling %s %s stale (rate above it): c recalibrates", a, unit);
		return;
	}
	chart_num(b, sizeof(b), 8, 100 * of_ceiling, 1);
	snprintf(buf, n, "ceiling %s %s, at %s%s", a, unit, b, isnan(of_ceiling) ? "" : "%");
}

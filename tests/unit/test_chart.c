/* test_chart.c: the dashboard's chart arithmetic on made-up series: bucket means and
 * unmeasured values, the ring past its capacity, columns newest on the right, columns that
 * span the time asked, bar cells that add up to the width, numbers that fit. */
#include <math.h>
#include <string.h>

#include "dashboard/chart.h"
#include "gputop/rng.h"
#include "tap.h"

/* The history is 32 KiB: one static copy, refilled by each test. */
static struct chart_hist hist;

static void fill(uint64_t n)
{
	memset(&hist, 0, sizeof(hist));
	for (uint64_t i = 0; i < n; i++)
		chart_push(&hist, (double)i);
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_bucket(void)
{
	memset(&hist, 0, sizeof(hist));
	const double v[] = { 1, 2, NAN, 6, NAN, NAN, 9 };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		chart_push(&hist, v[i]);
	tap_ok(near(chart_bucket(&hist, 0, 4), 3.0), "a bucket is the mean of its measured values");
	tap_ok(isnan(chart_bucket(&hist, 2, 2)), "a bucket with nothing measured is NAN");
	tap_ok(near(chart_bucket(&hist, 1, 4), 9.0), "a bucket cut short by the newest value");
	tap_ok(isnan(chart_bucket(&hist, 2, 4)), "a bucket past the newest value is NAN");
}

static void test_ring(void)
{
	fill(CHART_HIST + 10);
	TAP_EQ_U(hist.n, CHART_HIST + 10, "every push counts past the capacity");
	tap_ok(isnan(chart_bucket(&hist, 0, 10)), "values overwritten by the ring are gone");
	tap_ok(near(chart_bucket(&hist, 0, 20), 14.5), "a bucket half overwritten keeps its held half");
	tap_ok(near(chart_bucket(&hist, CHART_HIST + 9, 1), CHART_HIST + 9.0), "the newest value is held");
	tap_ok(near(chart_bucket(&hist, 0, CHART_HIST + 10), (10 + CHART_HIST + 9) / 2.0),
	       "one bucket over everything is the mean of the last %d values", CHART_HIST);
}

static void test_columns(void)
{
	double cols[12];
	fill(0);
	double max = chart_columns(&hist, 1, cols, 12);
	bool none = true;
	for (int c = 0; c < 12; c++)
		none = none && isnan(cols[c]);
	tap_ok(none && max == 0, "no history: every column NAN, maximum 0");
	fill(10); /* values 0..9 */
	max = chart_columns(&hist, 1, cols, 12);
	tap_ok(near(cols[11], 9) && near(cols[2], 0) && isnan(cols[1]) && isnan(cols[0]) && near(max, 9),
	       "newest on the right, the empty past on the left");
	max = chart_columns(&hist, 3, cols, 12); /* buckets {0,1,2} {3,4,5} {6,7,8} {9} */
	tap_ok(near(cols[11], 9) && near(cols[10], 7) && near(cols[9], 4) && near(cols[8], 1) &&
	           isnan(cols[7]) && near(max, 9),
	       "columns of 3 values each, the newest partly filled");
	fill(100);
	chart_columns(&hist, 1, cols, 12);
	tap_ok(near(cols[0], 88) && near(cols[11], 99), "a long history shows its latest values");
}

static void test_per_column(void)
{
	const double intervals[] = { 0.05, 0.1, 0.25, 1, 3, 7.5, 200 };
	const int widths[] = { -3, 0, 1, 40, 50, 90, 270, 1024 };
	int bad = 0, cases = 0;
	for (size_t i = 0; i < sizeof(intervals) / sizeof(intervals[0]); i++)
		for (size_t j = 0; j < sizeof(widths) / sizeof(widths[0]); j++, cases++) {
			int w = widths[j] > 0 ? widths[j] : 1;
			uint64_t per = chart_per_column(120, intervals[i], widths[j]);
			double span = (double)per * w * intervals[i];
			double less = (double)(per - 1) * w * intervals[i];
			if (per < 1 || span < 120 - 1e-9 || (per > 1 && less >= 120 + 1e-9))
				bad++;
		}
	tap_ok(bad == 0, "%d cases: the columns span at least the time asked, with no column to spare",
	       cases);
}

static int sum(const int *cells, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += cells[i];
	return s;
}

static void test_split(void)
{
	struct gd_rng r;
	rng_seed(&r, 5);
	int bad = 0, cases = 2000;
	for (int c = 0; c < cases; c++) {
		double v[5], total = 0;
		int cells[5], width = 1 + (int)(rng_next(&r) % 200);
		for (int i = 0; i < 5; i++) {
			v[i] = rng_next(&r) % 4 == 0 ? 0 : rng_uniform(&r) * 1000;
			total += v[i];
		}
		if (total == 0)
			v[0] = total = 1;
		bool ok = chart_split(v, 5, width, cells) && sum(cells, 5) == width;
		for (int i = 0; i < 5; i++)
			ok = ok && fabs(cells[i] - v[i] / total * width) < 1;
		bad += !ok;
	}
	tap_ok(bad == 0, "%d random bars: the cells sum to the width, each within one of its share", cases);
	int cells[3] = { 0 };
	tap_ok(chart_split((const double[]){ 1, 1, 2 }, 3, 8, cells) && cells[0] == 2 && cells[1] == 2 &&
	           cells[2] == 4,
	       "exact shares are kept");
	tap_ok(chart_split((const double[]){ 1, 1, 1 }, 3, 10, cells) && sum(cells, 3) == 10,
	       "a remainder cell goes to one segment");
	tap_ok(chart_split((const double[]){ -4, 1, 0 }, 3, 7, cells) && cells[0] == 0 && cells[1] == 7,
	       "a negative value counts as 0");
	tap_ok(!chart_split((const double[]){ 1, NAN, 2 }, 3, 10, cells), "a NAN value: no bar");
	tap_ok(!chart_split((const double[]){ 0, 0, -1 }, 3, 10, cells), "nothing above 0: no bar");
}

static void test_num(void)
{
	const double values[] = { 0, 0.004, 1.5, 99.95, 123.456, 99999.99, -5.25, 1e9, 1e15, -1e15, 1e300 };
	char buf[64];
	int bad = 0, cases = 0;
	for (int width = 9; width <= 13; width++)
		for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++, cases++) {
			chart_num(buf, sizeof(buf), width, values[i], 2);
			bad += (int)strlen(buf) >= width;
		}
	tap_ok(bad == 0, "%d cases: a number takes fewer characters than its width", cases);
	chart_num(buf, sizeof(buf), 10, 12.25, 2);
	tap_ok(strcmp(buf, "12.25") == 0, "the digits asked for when they fit");
	chart_num(buf, sizeof(buf), 7, 123456.25, 2);
	tap_ok(strcmp(buf, "123456") == 0, "no digits after the point where they do not fit");
	chart_num(buf, sizeof(buf), 9, 1.25e9, 2);
	tap_ok(strcmp(buf, "1.2e+09") == 0, "an exponent where the integer does not fit");
	chart_num(buf, sizeof(buf), 10, NAN, 2);
	tap_ok(strcmp(buf, "n/a") == 0, "NAN is n/a");
}

/* The summary's word on capacity: what the estimate is, the room left, and a stale ceiling. */
static void test_capacity(void)
{
	char buf[128];
	chart_capacity(buf, sizeof(buf), 778, 1234, NAN, NAN, "Mbit/s");
	tap_ok(strcmp(buf, "at 100% busy ~1234.0 Mbit/s (room +456.0; c calibrates)") == 0,
	       "no ceiling: the rate at 100%% busy and the room left to it (%s)", buf);
	chart_capacity(buf, sizeof(buf), NAN, NAN, NAN, NAN, "Mitem/s");
	tap_ok(strcmp(buf, "at 100% busy n/a (room n/a; c calibrates)") == 0,
	       "not measured: n/a, never a number, and no unit after it (%s)", buf);
	chart_capacity(buf, sizeof(buf), 450, 900, 1000, 0.45, "Mbit/s");
	tap_ok(strcmp(buf, "ceiling 1000.0 Mbit/s, at 45.0%") == 0, "a ceiling: the share of it reached (%s)",
	       buf);
	chart_capacity(buf, sizeof(buf), 1790, 1800, 1000, 1.79, "Mbit/s");
	tap_ok(strcmp(buf, "ceiling 1000.0 Mbit/s stale (rate above it): c recalibrates") == 0 &&
	           !strstr(buf, "179"),
	       "a rate above the ceiling: stale, c recalibrates, never at 179%% (%s)", buf);
	chart_capacity(buf, sizeof(buf), 1000, 1100, 1000, 1.0, "Mbit/s");
	tap_ok(strcmp(buf, "ceiling 1000.0 Mbit/s, at 100.0%") == 0,
	       "at the ceiling exactly: 100%%, not stale");
	chart_capacity(buf, sizeof(buf), NAN, NAN, 1000, NAN, "Mbit/s");
	tap_ok(strcmp(buf, "ceiling 1000.0 Mbit/s, at n/a") == 0, "a ceiling, no rate measured: at n/a (%s)",
	       buf);
}

int main(void)
{
	test_bucket();
	test_ring();
	test_columns();
	test_per_column();
	test_split();
	test_num();
	test_capacity();
	return tap_done();
}

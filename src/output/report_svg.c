/* report_svg.c: the report's chart furniture (report_impl.h): nice ticks, the frame and its
 * axes, legends with swatches, and the page's escaping. Data outside the axes is a bug here,
 * not something to clip: every range is chosen to hold what is drawn. */
#include "report_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ML     64 /* margins: left (the y ticks' labels), right */
#define MR     16
#define MB     REPORT_MB
#define KEY_H  24  /* a legend row */
#define CHAR_W 9.9 /* a legend character at 18 units, the size a phone shows it at */

double report_nice_step(double span, int most)
{
	if (!(span > 0) || !isfinite(span) || most < 1)
		return 1;
	static const double mant[] = { 1, 2, 2.5, 5, 10 };
	double raw = span / most, p = pow(10, floor(log10(raw)));
	for (size_t i = 0; i < sizeof(mant) / sizeof(mant[0]); i++)
		if (mant[i] * p >= raw * (1 - 1e-9)) /* a span of exactly 5 steps keeps that step */
			return mant[i] * p;
	return 10 * p;
}

double report_nice_top(double max, int most)
{
	if (!(max > 0) || !isfinite(max))
		return 1;
	double step = report_nice_step(max, most);
	return ceil(max / step - 1e-9) * step;
}

double report_px(const struct report_axes *a, double x)
{
	double w = REPORT_W - ML - MR;
	return ML + w * (a->x1 > a->x0 ? (x - a->x0) / (a->x1 - a->x0) : 0.5);
}

double report_py(const struct report_axes *a, double y)
{
	return a->top + a->height * (1 - (a->y1 > a->y0 ? (y - a->y0) / (a->y1 - a->y0) : 0));
}

/* The decimals that print a multiple of step exactly: 0.25 -> 2, 5 -> 0. */
static int decimals(double step)
{
	int d = 0;
	double s = step;
	while (d < 9 && fabs(s - round(s)) > 1e-6 * fmax(1, s)) {
		s *= 10;
		d++;
	}
	return d;
}

/* Where key i sits: its left x and its row, the keys flowing left to right and wrapping. */
static void key_place(const struct report_key *k, size_t i, double *x, int *row)
{
	double at = ML;
	int r = 0;
	for (size_t j = 0;; j++) {
		double w = 22 + CHAR_W * (double)strlen(k[j].name) + 18;
		if (at + w > REPORT_W - MR && at > ML) {
			at = ML;
			r++;
		}
		if (j == i) {
			*x = at;
			*row = r;
			return;
		}
		at += w;
	}
}

double report_legend_height(const struct report_key *k, size_t n)
{
	double x;
	int row = -1;
	if (n)
		key_place(k, n - 1, &x, &row);
	return KEY_H * (row + 1) + 6;
}

void report_svg_open(struct gd_text *t, const char *label, const struct report_axes *a, double h,
                     const char *ylabel, const char *xlabel, bool yt)
{
	text_printf(t, "<svg class=\"chart\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"", REPORT_W,
	            ceil(h));
	report_esc(t, label);
	text_printf(t, "\">\n<rect class=\"frame\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>\n", ML,
	            a->top, REPORT_W - ML - MR, a->height);
	if (yt) {
		double step = report_nice_step(a->y1 - a->y0, 5);
		int d = decimals(step);
		int ticks = (int)floor((a->y1 - a->y0) / step + 1e-6);
		for (int i = 0; i <= ticks; i++) { /* counted: a float counter drifts */
			double v = a->y0 + i * step;
			double y = report_py(a, v);
			if (v > a->y0 && v < a->y1 - step * 1e-6)
				text_printf(
				    t, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
				    ML, REPORT_W - MR, y, y);
			text_printf(t, "<text class=\"yt\" x=\"%d\" y=\"%.1f\">%.*f</text>\n", ML - 6, y + 4,
			            d, v);
		}
	}
	text_printf(t, "<text class=\"al\" x=\"%d\" y=\"%.1f\">", ML, a->top - 10);
	report_esc(t, ylabel);
	text_printf(t, "</text>\n<text class=\"al xa\" x=\"%d\" y=\"%.1f\">", (REPORT_W + ML - MR) / 2,
	            a->top + a->height + 32);
	report_esc(t, xlabel);
	text_printf(t, "</text>\n<g class=\"data\">\n");
}

void report_x_ticks(struct gd_text *t, const struct report_axes *a)
{
	double step = report_nice_step(a->x1 - a->x0, 6);
	int d = decimals(step);
	long first = (long)ceil(a->x0 / step - 1e-9), last = (long)floor(a->x1 / step + 1e-6);
	for (long k = first; k <= last; k++)
		text_printf(t, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%.*f</text>\n",
		            report_px(a, (double)k * step), a->top + a->height + 14, d,
		            (double)k * step + 0.0); /* + 0.0: never "-0.0" */
}

void report_x_label(struct gd_text *t, const struct report_axes *a, double x, const char *words)
{
	text_printf(t, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", x, a->top + a->height + 14);
	report_esc(t, words);
	text_printf(t, "</text>\n");
}

void report_svg_close(struct gd_text *t, const struct report_axes *a, const struct report_key *k, size_t n)
{
	text_printf(t, "</g>\n<g class=\"legend\">\n");
	for (size_t i = 0; i < n; i++) {
		double x, y;
		int row;
		key_place(k, i, &x, &row);
		y = a->top + a->height + MB + 6 + KEY_H * row;
		text_printf(t, "<g class=\"key\">");
		if (k[i].line)
			text_printf(t,
			            "<line class=\"sw %s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			            k[i].cls, x, x + 16, y + 6, y + 6);
		else
			text_printf(
			    t, "<rect class=\"sw %s\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\"/>",
			    k[i].cls, x + 2, y);
		text_printf(t, "<text class=\"kt\" x=\"%.1f\" y=\"%.1f\">", x + 22, y + 10);
		report_esc(t, k[i].name);
		text_printf(t, "</text></g>\n");
	}
	text_printf(t, "</g>\n</svg>\n");
}

void report_polyline(struct gd_text *t, const struct report_axes *a, const double *x, const double *y,
                     size_t n, const char *cls)
{
	text_printf(t, "<polyline class=\"%s\" points=\"", cls);
	for (size_t i = 0; i < n; i++)
		if (isfinite(y[i]))
			text_printf(t, "%.1f,%.1f ", report_px(a, x[i]), report_py(a, y[i]));
	text_printf(t, "\"/>\n");
}

void report_esc(struct gd_text *t, const char *text)
{
	size_t len = strlen(text);
	char *c = xmalloc(len + 1);
	gd_clean_text(c, len + 1, text, len);
	for (const char *s = c; *s; s++) {
		const char *e = *s == '<'   ? "&lt;"
		                : *s == '>' ? "&gt;"
		                : *s == '&' ? "&amp;"
		                : *s == '"' ? "&quot;"
		                            : NULL;
		if (e)
			text_printf(t, "%s", e);
		else
			text_printf(t, "%c", *s);
	}
	free(c);
}

void report_data_link(struct gd_text *t, const char *csv, const char *name)
{
	text_printf(t, "<a class=\"data\" download=\"%s\" href=\"data:text/csv;charset=utf-8,", name);
	for (const unsigned char *p = (const unsigned char *)csv; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-_.~,", *p))
			text_printf(t, "%c", *p);
		else
			text_printf(t, "%%%02X", *p);
	}
	text_printf(t, "\">data (CSV)</a>\n");
}

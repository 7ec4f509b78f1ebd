/* format.c: CSV and JSON lines: how a row of fields is printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* A CSV cell in quotes, its quotes doubled (RFC 4180). */
static void csv_quoted(struct gd_text *b, const char *s)
{
	text_printf(b, "\"");
	for (; *s; s++)
		text_printf(b, *s == '"' ? "\"\"" : "%c", *s);
	text_printf(b, "\"");
}

/* A text field, which may come from outside (a command name, an error, a kernel's name):
 * cleaned (gd_clean_text) first, so that the log is UTF-8 with no control character in any
 * format; then a JSON string, or a CSV cell in quotes where it holds a separator or a quote. */
static void put_string(struct gd_text *b, const char *s, bool json)
{
	size_t len = strlen(s);
	char *c = xmalloc(len + 1);
	gd_clean_text(c, len + 1, s, len);
	if (json)
		text_json_string(b, c);
	else if (strpbrk(c, ",\""))
		csv_quoted(b, c);
	else
		text_printf(b, "%s", c);
	free(c);
}

static void put_value(struct gd_text *b, const struct field *t, const struct value *v, bool json)
{
	if (!v->str && isnan(v->num)) { /* JSON has no NaN; numbers never depend on a printf "nan" */
		text_printf(b, "%s", json ? "null" : "");
		return;
	}
	switch (t->print) {
	case PRINT_INT:
		text_printf(b, "%.0f", v->num);
		break;
	case PRINT_FIXED:
		text_printf(b, "%.*f", t->prec, v->num);
		break;
	case PRINT_STRING:
		put_string(b, v->str ? v->str : "", json);
		break;
	case PRINT_BOOL: /* JSON true or false, CSV 1 or 0 */
		text_printf(b, "%s", v->num != 0 ? (json ? "true" : "1") : (json ? "false" : "0"));
		break;
	case PRINT_JSON: /* a JSON text: as it is in JSONL, one quoted CSV cell */
		if (json)
			text_printf(b, "%s", v->str ? v->str : "null");
		else
			csv_quoted(b, v->str ? v->str : "");
		break;
	}
}

static void csv_header(struct gd_text *b, const struct field *t, size_t n)
{
	const char *sep = "";
	for (size_t i = 0; i < n; i++)
		if (!t[i].jsonl_only) {
			text_printf(b, "%s%s", sep, field_name(&t[i]));
			sep = ",";
		}
	text_printf(b, "\n");
}

static void csv_line(struct gd_text *b, const struct field *t, const struct value *v, size_t n)
{
	const char *sep = "";
	for (size_t i = 0; i < n; i++)
		if (!t[i].jsonl_only) {
			text_printf(b, "%s", sep);
			if (v[i].shown)
				put_value(b, &t[i], &v[i], false);
			sep = ",";
		}
	text_printf(b, "\n");
}

static void jsonl_line(struct gd_text *b, const struct field *t, const struct value *v, size_t n)
{
	const char *sep = "{";
	for (int lead = 1; lead >= 0; lead--)
		for (size_t i = 0; i < n; i++)
			if (t[i].jsonl_lead == lead && v[i].shown) {
				text_printf(b, "%s\"%s\":", sep, field_name(&t[i]));
				put_value(b, &t[i], &v[i], true);
				sep = ",";
			}
	text_printf(b, "}\n");
}

const struct log_format log_formats[GD_FMT_COUNT] = {
	[GD_FMT_CSV] = { .header = csv_header, .line = csv_line },
	[GD_FMT_JSONL] = { .line = jsonl_line },
};

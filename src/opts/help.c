/* help.c: the --help text, from the option table: each listed option's names, its help line
 * with the range where that is a number range, and its default in brackets at the right edge.
 * doc/gputop-decode.1 states the same (tests/integration/test_help.sh compares them). */
#include <stdio.h>
#include <string.h>

#include "gputop/common.h"
#include "opts_impl.h"

#define HELP_INDENT 25 /* where descriptions start */
#define HELP_WIDTH  80 /* where defaults end */

/* Kinds whose range is a number range (shown in --help). */
static bool numeric(const struct gd_optdef *d)
{
	return d->kind == GD_OPT_WHOLE || d->kind == GD_OPT_SECONDS || d->kind == GD_OPT_SWEEP;
}

/* "-n, --procs N" or "    --max-procs N"; a choice shows its names. */
static void help_names(const struct gd_optdef *d, char *s, size_t n)
{
	char meta[96] = "";
	if (d->kind == GD_OPT_CHOICE)
		opts_join_names(d, "|", meta, sizeof(meta));
	else if (d->metavar)
		snprintf(meta, sizeof(meta), "%s", d->metavar);
	snprintf(s, n, "%s%c%s--%s%s%s", d->letter ? "-" : " ", d->letter ? d->letter : ' ',
	         d->letter ? ", " : "  ", d->name, meta[0] ? " " : "", meta);
}

/* The help line, then the range where it is a number range: "symbols per batch (1..134217728)". */
static void help_description(const struct gd_optdef *d, char *s, size_t n)
{
	if (!numeric(d))
		snprintf(s, n, "%s", d->help);
	else if (d->bound)
		snprintf(s, n, "%s (%.15g..%s)", d->help, d->min, d->bound);
	else
		snprintf(s, n, "%s (%.15g..%.15g)", d->help, d->min, d->max);
}

/* Words of s from column HELP_INDENT up to HELP_WIDTH; returns the column where the last line ends. */
static size_t put_wrapped(struct gd_text *t, const char *s)
{
	size_t col = HELP_INDENT;
	while (*s) {
		size_t len = strcspn(s, " ");
		if (col > HELP_INDENT && col + 1 + len > HELP_WIDTH) {
			text_printf(t, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
		} else if (col > HELP_INDENT) {
			text_printf(t, " ");
			col++;
		}
		text_printf(t, "%.*s", (int)len, s);
		col += len;
		s += len + strspn(s + len, " ");
	}
	return col;
}

/* One option: names, description, and the default in brackets ending at HELP_WIDTH. */
static void help_entry(struct gd_text *t, const struct gd_optdef *d)
{
	char names[128], desc[256], def[96] = "";
	help_names(d, names, sizeof(names));
	help_description(d, desc, sizeof(desc));
	if (d->def || d->def_text)
		snprintf(def, sizeof(def), "[%s]", d->def ? d->def : d->def_text);
	if (2 + strlen(names) + 1 > HELP_INDENT)
		text_printf(t, "  %s\n%*s", names, HELP_INDENT, "");
	else
		text_printf(t, "  %-*s", HELP_INDENT - 2, names);
	size_t col = put_wrapped(t, desc);
	if (def[0] && col + 1 + strlen(def) > HELP_WIDTH) {
		text_printf(t, "\n");
		col = 0;
	}
	if (def[0])
		text_printf(t, "%*s", (int)(HELP_WIDTH - col), def);
	text_printf(t, "\n");
}

const char *opts_usage(void)
{
	static struct gd_text t; /* built once, kept until exit */
	if (t.p)
		return t.p;
	text_printf(&t,
	            "usage: " GD_NAME " [OPTIONS]                 interactive dashboard (needs a terminal)\n"
	            "       " GD_NAME " --headless [OPTIONS]      no dashboard: samples go to a log\n"
	            "       " GD_NAME " [OPTIONS] -- COMMAND [ARGS...]\n"
	            "                                          observe COMMAND's OpenCL processes instead\n"
	            "       " GD_NAME " --list-devices            platforms and devices, with indices\n\n");
	for (size_t i = 0; i < opts_ndefs; i++)
		if (opts_defs[i].help)
			help_entry(&t, &opts_defs[i]);
	return t.p;
}

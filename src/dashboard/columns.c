/* columns.c: the worker table's columns: what each shows, how wide, from which terminal width,
 * and how a sample's value reads as a cell and as a number to sort by. Each shows a figure
 * (measure/figures.h), which says how its value is read; a column keeps its own name, heading
 * and words for the setup screen (kgap_us shows gap_kernel_us). */
#include <math.h>
#include <string.h>

#include "measure/figures.h"
#include "ui.h"

#define FIG(x) .fig = GD_FIGURE(x)

static const struct ui_col cols[] = {
	{ .name = "id",
	  .head = "id",
	  .desc = "worker number, from 1",
	  FIG(ID),
	  .width = 4,
	  .rank = 0,
	  .kind = UI_K_ID },
	{ .name = "pid",
	  .head = "pid",
	  .desc = "process id",
	  FIG(PID),
	  .width = 8,
	  .rank = 1,
	  .kind = UI_K_PID },
	{ .name = "state",
	  .head = "state",
	  .desc = "running, paused, exited ...",
	  FIG(STATE),
	  .width = 9,
	  .rank = 2,
	  .kind = UI_K_STATE },
	{ .name = "rate",
	  .rate = true,
	  .desc = "throughput in the last interval",
	  FIG(RATE),
	  .width = 9,
	  .rank = 3,
	  .kind = UI_K_F,
	  .prec = 2,
	  .busy = true },
	{ .name = "batches",
	  .head = "batches",
	  .desc = "batches since the start or r",
	  FIG(BATCHES),
	  .width = 9,
	  .rank = 5,
	  .kind = UI_K_U64 },
	{ .name = "kbusy%",
	  .head = "kbusy%",
	  .desc = "its kernels' device time",
	  FIG(KERNEL_BUSY),
	  .width = 7,
	  .rank = 4,
	  .kind = UI_K_PCT,
	  .prec = 1,
	  .est = true,
	  .busy = true },
	{ .name = "kgap_us",
	  .head = "kgap_us",
	  .desc = "gap between kernels of a batch",
	  FIG(GAP_KERNEL_US),
	  .width = 9,
	  .rank = 7,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "bgap_us",
	  .head = "bgap_us",
	  .desc = "idle gap between its batches",
	  FIG(GAP_BATCH_US),
	  .width = 9,
	  .rank = 6,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "lost",
	  .head = "lost",
	  .desc = "samples that could not be read",
	  FIG(LOST),
	  .width = 6,
	  .rank = 9,
	  .kind = UI_K_U64 },
	{ .name = "qwait_us",
	  .head = "qwait_us",
	  .desc = "first kernel's wait in the queue",
	  FIG(QUEUE_WAIT_US),
	  .width = 9,
	  .rank = 10,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "gen_thr",
	  .head = "gen_thr",
	  .desc = "generation threads kept busy",
	  FIG(GEN_BUSY),
	  .width = 8,
	  .rank = 12,
	  .kind = UI_K_F,
	  .prec = 2,
	  .busy = true,
	  .pipelined = true },
	{ .name = "gen_us",
	  .head = "gen_us",
	  .desc = "host generation",
	  FIG(GEN_US),
	  .width = 9,
	  .rank = 14,
	  .kind = UI_K_F },
	{ .name = "h2d_us",
	  .head = "h2d_us",
	  .desc = "host-to-device copy",
	  FIG(H2D_US),
	  .width = 9,
	  .rank = 15,
	  .kind = UI_K_F },
	{ .name = "kern_us",
	  .head = "kern_us",
	  .desc = "kernels, first start to last end",
	  FIG(KERNEL_US),
	  .width = 9,
	  .rank = 13,
	  .kind = UI_K_F },
	{ .name = "d2h_us",
	  .head = "d2h_us",
	  .desc = "device-to-host copy",
	  FIG(D2H_US),
	  .width = 9,
	  .rank = 16,
	  .kind = UI_K_F },
	{ .name = "oth_us",
	  .head = "oth_us",
	  .desc = "the rest of a batch's time",
	  FIG(OTHER_US),
	  .width = 9,
	  .rank = 17,
	  .kind = UI_K_F },
	{ .name = "ovl_us",
	  .head = "ovl_us",
	  .desc = "overlap of a batch's parts",
	  FIG(OVERLAP_US),
	  .width = 9,
	  .rank = 18,
	  .kind = UI_K_F },
	{ .name = "bovl_us",
	  .head = "bovl_us",
	  .desc = "overlap with earlier batches",
	  FIG(BATCH_OVERLAP_US),
	  .width = 9,
	  .rank = 19,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "mem",
	  .head = "MEM",
	  .desc = "device memory, as the driver says",
	  FIG(MEM_USED_BYTES),
	  .width = 7,
	  .rank = 8,
	  .kind = UI_K_BYTES },
};
_Static_assert(GD_ARRAY_LEN(cols) == UI_NCOLS, "UI_NCOLS counts the columns");

const struct ui_col *ui_col(int i)
{
	return &cols[i];
}

const char *ui_col_head(const struct ui *u, int i)
{
	return cols[i].rate ? kspec_rate_unit(&session_workload(u->s)->kernel) : cols[i].head;
}

const char *ui_est(double v, const struct gd_sample *s)
{
	return !isnan(v) && sample_estimated(s) ? "~" : "";
}

/* Bytes in at most 6 cells: 512K, 1.5G, 80.0G. */
void ui_bytes(char *text, size_t n, double v)
{
	static const char units[] = "KMGTP";
	if (isnan(v)) {
		snprintf(text, n, "n/a");
		return;
	}
	int u = 0;
	v /= 1024;
	while (v >= 1000 && u < (int)sizeof(units) - 2) {
		v /= 1024;
		u++;
	}
	snprintf(text, n, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
}

double ui_col_value(const struct ui_col *c, const struct gd_sample *s, char *text, size_t n)
{
	const struct gd_fig_at at = { .s = s };
	double v = figure_value(c->fig, &at);
	switch (c->kind) {
	case UI_K_ID:
	case UI_K_PID:
	case UI_K_U64: /* whole numbers */
		if (text)
			snprintf(text, n, "%.0f", v);
		return v;
	case UI_K_STATE:
		if (text) /* the long name of an observed row without OpenCL calls is in its bar's place */
			snprintf(text, n, "%s", v == GD_ST_NOCL ? "no CL" : figure_text(c->fig, &at));
		return v;
	case UI_K_BYTES:
		if (text)
			ui_bytes(text, n, v);
		return v;
	case UI_K_F:
	case UI_K_PCT:
		break;
	}
	const char *est = c->est ? ui_est(v, s) : "";
	if (text) {
		chart_num(text, n, c->width - (int)strlen(est), c->kind == UI_K_PCT ? 100 * v : v, c->prec);
		size_t len = strlen(text);
		snprintf(text + len, n - len, "%s", est);
	}
	return v;
}

/* Numbers sort largest first, as in htop; id, pid and state smallest first. */
bool ui_col_desc(int i)
{
	enum ui_kind k = cols[i].kind;
	return k != UI_K_ID && k != UI_K_PID && k != UI_K_STATE;
}

bool ui_vendor_lists(const struct ui *u)
{
	const struct gd_frame *f = session_frame(u->s);
	for (int d = 0; d < f->ndevs; d++)
		if (f->devs[d].listed)
			return true;
	return false;
}

/* Whether column c applies to the run at all: the generation threads are the pipelined
 * workers' own. */
static bool col_applies(const struct ui *u, const struct ui_col *c)
{
	const struct gd_workload *w = session_workload(u->s);
	return !c->pipelined || (w->mode == GD_MODE_PIPELINED && !w->kernel.observed);
}

/* Whether a worker in state st has batches under way: one that has not (starting, paused,
 * ended) and completed none in the window has no rate, busy time or generation to show. */
static bool at_work(enum gd_state st)
{
	return st == GD_ST_RUNNING || st == GD_ST_STOPPING || st == GD_ST_STALLED;
}

double ui_cell(const struct ui *u, int i, const struct gd_sample *s, char *text, size_t n)
{
	const struct ui_col *c = &cols[i];
	if (!col_applies(u, c) || (c->busy && !at_work(s->state) && s->win_batches == 0)) {
		if (text)
			snprintf(text, n, "n/a");
		return NAN;
	}
	return ui_col_value(c, s, text, n);
}

int ui_col_find(const char *name)
{
	bool unit = strcmp(name, "Mbit/s") == 0 || strcmp(name, "Mitem/s") == 0;
	for (int i = 0; i < UI_NCOLS; i++)
		if (strcmp(cols[i].name, name) == 0 || (unit && cols[i].rate)) /* the rate: its heading too */
			return i;
	return -1;
}

int ui_col_x(const struct ui *u, int width, int xs[UI_NCOLS])
{
	/* A column that does not apply to the run is the first to go: it only says n/a. */
	struct layout_col lc[UI_NCOLS];
	int at[UI_NCOLS], n = 0;
	for (int k = 0; k < UI_NCOLS; k++) {
		int i = u->table.colorder[k];
		xs[i] = -1;
		if (!u->table.colon[i] || (cols[i].kind == UI_K_BYTES && !ui_vendor_lists(u)))
			continue;
		lc[n] = (struct layout_col){ .width = cols[i].width,
			                     .rank = col_applies(u, &cols[i]) ? cols[i].rank : UI_RANK_NA };
		at[n++] = i;
	}
	int pos[UI_NCOLS];
	int bar = layout_columns(lc, n, u->table.bar, width, pos);
	for (int k = 0; k < n; k++)
		xs[at[k]] = pos[k];
	return bar;
}

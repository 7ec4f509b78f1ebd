/* columns.c: the worker table's columns: what each shows, how wide, from which terminal width,
 * and how a sample's value reads as a cell and as a number to sort by. */
#include <math.h>
#include <string.h>

#include "ui.h"

static const struct ui_col cols[] = {
	{ .name = "id",
	  .head = "id",
	  .desc = "worker number, from 1",
	  .off = offsetof(struct gd_sample, id),
	  .width = 4,
	  .rank = 0,
	  .kind = UI_K_ID },
	{ .name = "pid",
	  .head = "pid",
	  .desc = "process id",
	  .off = offsetof(struct gd_sample, pid),
	  .width = 8,
	  .rank = 1,
	  .kind = UI_K_PID },
	{ .name = "state",
	  .head = "state",
	  .desc = "running, paused, exited ...",
	  .off = offsetof(struct gd_sample, state),
	  .width = 9,
	  .rank = 2,
	  .kind = UI_K_STATE },
	{ .name = "rate",
	  .rate = true,
	  .desc = "throughput in the last interval",
	  .off = offsetof(struct gd_sample, rate),
	  .width = 9,
	  .rank = 3,
	  .kind = UI_K_F,
	  .prec = 2,
	  .busy = true },
	{ .name = "batches",
	  .head = "batches",
	  .desc = "batches since the start or r",
	  .off = offsetof(struct gd_sample, batches),
	  .width = 9,
	  .rank = 5,
	  .kind = UI_K_U64 },
	{ .name = "kbusy%",
	  .head = "kbusy%",
	  .desc = "its kernels' device time",
	  .off = offsetof(struct gd_sample, kernel_busy),
	  .width = 7,
	  .rank = 4,
	  .kind = UI_K_PCT,
	  .prec = 1,
	  .est = true,
	  .busy = true },
	{ .name = "kgap_us",
	  .head = "kgap_us",
	  .desc = "gap between kernels of a batch",
	  .off = offsetof(struct gd_sample, bd.gap_kernel_us),
	  .width = 9,
	  .rank = 7,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "bgap_us",
	  .head = "bgap_us",
	  .desc = "idle gap between its batches",
	  .off = offsetof(struct gd_sample, bd.gap_batch_us),
	  .width = 9,
	  .rank = 6,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "lost",
	  .head = "lost",
	  .desc = "samples that could not be read",
	  .off = offsetof(struct gd_sample, lost),
	  .width = 6,
	  .rank = 9,
	  .kind = UI_K_U64 },
	{ .name = "qwait_us",
	  .head = "qwait_us",
	  .desc = "first kernel's wait in the queue",
	  .off = offsetof(struct gd_sample, bd.queue_wait_us),
	  .width = 9,
	  .rank = 10,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .name = "gen_thr",
	  .head = "gen_thr",
	  .desc = "generation threads kept busy",
	  .off = offsetof(struct gd_sample, gen_busy),
	  .width = 8,
	  .rank = 12,
	  .kind = UI_K_F,
	  .prec = 2,
	  .busy = true,
	  .pipelined = true },
	{ .name = "gen_us",
	  .head = "gen_us",
	  .desc = "host generation",
	  .off = offsetof(struct gd_sample, bd.gen_us),
	  .width = 9,
	  .rank = 14,
	  .kind = UI_K_F },
	{ .name = "h2d_us",
	  .head = "h2d_us",
	  .desc = "host-to-device copy",
	  .off = offsetof(struct gd_sample, bd.h2d_us),
	  .width = 9,
	  .rank = 15,
	  .kind = UI_K_F },
	{ .name = "kern_us",
	  .head = "kern_us",
	  .desc = "kernels, first start to last end",
	  .off = offsetof(struct gd_sample, bd.kernel_us),
	  .width = 9,
	  .rank = 13,
	  .kind = UI_K_F },
	{ .name = "d2h_us",
	  .head = "d2h_us",
	  .desc = "device-to-host copy",
	  .off = offsetof(struct gd_sample, bd.d2h_us),
	  .width = 9,
	  .rank = 16,
	  .kind = UI_K_F },
	{ .name = "oth_us",
	  .head = "oth_us",
	  .desc = "the rest of a batch's time",
	  .off = offsetof(struct gd_sample, bd.other_us),
	  .width = 9,
	  .rank = 17,
	  .kind = UI_K_F },
	{ .name = "ovl_us",
	  .head = "ovl_us",
	  .desc = "overlap of a batch's parts",
	  .off = offsetof(struct gd_sample, bd.overlap_us),
	  .width = 9,
	  .rank = 18,
	  .kind = UI_K_F },
	{ .name = "bovl_us",
	  .head = "bovl_us",
	  .desc = "overlap with earlier batches",
	  .off = offsetof(struct gd_sample, bd.batch_overlap_us),
	  .width = 9,
	  .rank = 19,
	  .kind = UI_K_F,
	  .prec = 1 },
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

double ui_col_value(const struct ui_col *c, const struct gd_sample *s, char *text, size_t n)
{
	const char *p = (const char *)s + c->off;
	unsigned id;
	pid_t pid;
	enum gd_state st;
	uint64_t count;
	double d;
	switch (c->kind) {
	case UI_K_ID:
		memcpy(&id, p, sizeof(id));
		if (text)
			snprintf(text, n, "%u", id);
		return id;
	case UI_K_PID:
		memcpy(&pid, p, sizeof(pid));
		if (text)
			snprintf(text, n, "%d", (int)pid);
		return pid;
	case UI_K_STATE:
		memcpy(&st, p, sizeof(st));
		if (text) /* the long name of an observed row without OpenCL calls is in its bar's place */
			snprintf(text, n, "%s", st == GD_ST_NOCL ? "no CL" : gd_state_name(st));
		return (double)st;
	case UI_K_U64:
		memcpy(&count, p, sizeof(count));
		if (text)
			snprintf(text, n, "%llu", (unsigned long long)count);
		return (double)count;
	case UI_K_F:
	case UI_K_PCT:
		break;
	}
	memcpy(&d, p, sizeof(d));
	const char *est = c->est ? ui_est(d, s) : "";
	if (text) {
		chart_num(text, n, c->width - (int)strlen(est), c->kind == UI_K_PCT ? 100 * d : d, c->prec);
		size_t len = strlen(text);
		snprintf(text + len, n - len, "%s", est);
	}
	return d;
}

/* Numbers sort largest first, as in htop; id, pid and state smallest first. */
bool ui_col_desc(int i)
{
	enum ui_kind k = cols[i].kind;
	return k != UI_K_ID && k != UI_K_PID && k != UI_K_STATE;
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
		int i = u->colorder[k];
		xs[i] = -1;
		if (!u->colon[i])
			continue;
		lc[n] = (struct layout_col){ .width = cols[i].width,
			                     .rank = col_applies(u, &cols[i]) ? cols[i].rank : UI_RANK_NA };
		at[n++] = i;
	}
	int pos[UI_NCOLS];
	int bar = layout_columns(lc, n, u->bar, width, pos);
	for (int k = 0; k < n; k++)
		xs[at[k]] = pos[k];
	return bar;
}

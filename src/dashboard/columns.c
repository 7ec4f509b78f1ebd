/* columns.c: the worker table's columns: what each shows, how wide, from which terminal width,
 * and how a sample's value reads as a cell and as a number to sort by. */
#include <math.h>
#include <string.h>

#include "ui.h"

static const struct ui_col cols[] = {
	{ .head = "id", .off = offsetof(struct gd_sample, id), .width = 4, .kind = UI_K_ID },
	{ .head = "pid", .off = offsetof(struct gd_sample, pid), .width = 8, .kind = UI_K_PID },
	{ .head = "state", .off = offsetof(struct gd_sample, state), .width = 9, .kind = UI_K_STATE },
	{ .rate = true, .off = offsetof(struct gd_sample, rate), .width = 9, .kind = UI_K_F, .prec = 2 },
	{ .head = "batches", .off = offsetof(struct gd_sample, batches), .width = 9, .kind = UI_K_U64 },
	{ .head = "kbusy%",
	  .off = offsetof(struct gd_sample, kernel_busy),
	  .width = 7,
	  .kind = UI_K_PCT,
	  .prec = 1,
	  .est = true },
	{ .head = "kgap_us",
	  .off = offsetof(struct gd_sample, bd.gap_kernel_us),
	  .width = 9,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .head = "bgap_us",
	  .off = offsetof(struct gd_sample, bd.gap_batch_us),
	  .width = 9,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .head = "lost", .off = offsetof(struct gd_sample, lost), .width = 6, .kind = UI_K_U64 },
	{ .head = "qwait_us",
	  .off = offsetof(struct gd_sample, bd.queue_wait_us),
	  .width = 9,
	  .min_cols = 100,
	  .kind = UI_K_F,
	  .prec = 1 },
	{ .head = "gen_thr",
	  .off = offsetof(struct gd_sample, gen_busy),
	  .width = 8,
	  .min_cols = 140,
	  .kind = UI_K_F,
	  .prec = 2 },
	{ .head = "gen_us",
	  .off = offsetof(struct gd_sample, bd.gen_us),
	  .width = 9,
	  .min_cols = 125,
	  .kind = UI_K_F },
	{ .head = "h2d_us",
	  .off = offsetof(struct gd_sample, bd.h2d_us),
	  .width = 9,
	  .min_cols = 125,
	  .kind = UI_K_F },
	{ .head = "kern_us",
	  .off = offsetof(struct gd_sample, bd.kernel_us),
	  .width = 9,
	  .min_cols = 125,
	  .kind = UI_K_F },
	{ .head = "d2h_us",
	  .off = offsetof(struct gd_sample, bd.d2h_us),
	  .width = 9,
	  .min_cols = 125,
	  .kind = UI_K_F },
	{ .head = "oth_us",
	  .off = offsetof(struct gd_sample, bd.other_us),
	  .width = 9,
	  .min_cols = 125,
	  .kind = UI_K_F },
	{ .head = "ovl_us",
	  .off = offsetof(struct gd_sample, bd.overlap_us),
	  .width = 9,
	  .min_cols = 175,
	  .kind = UI_K_F },
	{ .head = "bovl_us",
	  .off = offsetof(struct gd_sample, bd.batch_overlap_us),
	  .width = 9,
	  .min_cols = 175,
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

int ui_col_x(int width, int xs[UI_NCOLS])
{
	int x = 1; /* column 0 holds the selection mark */
	for (int i = 0; i < UI_NCOLS; i++) {
		xs[i] = width >= cols[i].min_cols ? x : -1;
		if (xs[i] >= 0)
			x += cols[i].width;
	}
	return x; /* every column ends in a blank: the bar needs no gap of its own */
}

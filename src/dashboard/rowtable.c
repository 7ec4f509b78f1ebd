/* rowtable.c: the worker table: the rows' order, the selection and its scrolling, and drawing the
 * rows, the devices' heading lines and each batch's breakdown bar. */
#include <math.h>
#include <string.h>

#include "measure/ceiling.h"
#include "ui.h"

/* With two or more devices the table groups the workers by device, each group headed by a
 * line of its device's aggregate; with one it lists them as the supervisor started them. */
static bool grouped(const struct ui *u)
{
	return session_frame(u->s)->ndevs > 1;
}

/* Whether a goes above b: grouped, by device first; then by the sort column, n/a last either
 * way, then by id. */
static bool before(const struct ui *u, const struct gd_sample *a, const struct gd_sample *b)
{
	if (grouped(u) && a->device != b->device)
		return a->device < b->device;
	double x = ui_cell(u, u->table.sort, a, NULL, 0), y = ui_cell(u, u->table.sort, b, NULL, 0);
	if (isnan(x) != isnan(y))
		return isnan(y);
	if (!isnan(x) && x != y)
		return u->table.sort_desc ? x > y : x < y;
	return a->id < b->id;
}

/* The table's order for the current frame: an insertion sort, stable and in place (the live
 * workers, GD_PROCS_MAX at most, and the ended ones that have not left yet). */
static void sort_rows(struct ui *u)
{
	const struct gd_frame *f = session_frame(u->s);
	struct ui_table *t = &u->table;
	if (f->nworkers > t->caporder) {
		t->caporder = f->nworkers + 16;
		t->order = xreallocarray(t->order, (size_t)t->caporder, sizeof(*t->order));
	}
	int n = 0;
	for (int i = 0; i < f->nworkers; i++) {
		if (ui_row_left(u, &f->workers[i]))
			continue;
		int v = i, j = n++;
		for (; j > 0 && before(u, &f->workers[v], &f->workers[t->order[j - 1]]); j--)
			t->order[j] = t->order[j - 1];
		t->order[j] = v;
	}
	t->nshown = n;
}

/* The sample on display row r (rows as sorted by the last sort_rows). */
static const struct gd_sample *row(const struct ui *u, int r)
{
	return &session_frame(u->s)->workers[u->table.order[r]];
}

/* Whether a row has work to show: an OpenCL call or a batch. */
static bool has_work(const struct gd_sample *s)
{
	return s->state != GD_ST_NOCL && (s->batches > 0 || s->kernels > 0);
}

/* Until the user chooses a row, the selection leaves a row without OpenCL calls (an observed
 * program's parent has nothing to graph) for the first row with work. */
static void select_work(struct ui *u)
{
	struct ui_table *t = &u->table;
	if (t->sel_chosen || t->nshown == 0 || row(u, t->sel)->state != GD_ST_NOCL)
		return;
	for (int r = 0; r < t->nshown; r++)
		if (has_work(row(u, r))) {
			t->sel = r;
			t->sel_id = row(u, r)->id;
			return;
		}
}

/* The table line of the worker at position p of the order (headings before it counted). */
static int line_of(const struct ui *u, int p)
{
	return grouped(u) ? p + row(u, p)->device + 1 : p;
}

int ui_nlines(const struct ui *u)
{
	const struct gd_frame *f = session_frame(u->s);
	int n = 0;
	for (int i = 0; i < f->nworkers; i++)
		n += !ui_row_left(u, &f->workers[i]);
	return n + (grouped(u) ? f->ndevs : 0) + f->noutside; /* outside rows last */
}

void ui_follow(struct ui *u)
{
	struct ui_table *t = &u->table;
	sort_rows(u);
	int n = t->nshown;
	for (int r = 0; r < n; r++)
		if (row(u, r)->id == t->sel_id)
			t->sel = r;
	if (t->sel >= n)
		t->sel = n - 1;
	if (t->sel < 0)
		t->sel = 0;
	t->sel_id = n ? row(u, t->sel)->id : 0;
	select_work(u);
	int rows = u->term.lay.table_rows > 0 ? u->term.lay.table_rows : 1, nl = ui_nlines(u);
	int line = n ? line_of(u, t->sel) : 0;
	if (line < t->top)
		t->top = line;
	if (line >= t->top + rows)
		t->top = line - rows + 1;
	if (t->top > nl - rows)
		t->top = nl - rows > 0 ? nl - rows : 0;
}

void ui_move(struct ui *u, int by)
{
	struct ui_table *t = &u->table;
	ui_follow(u);
	int n = t->nshown;
	if (n == 0)
		return;
	t->sel = t->sel + by < 0 ? 0 : t->sel + by >= n ? n - 1 : t->sel + by;
	t->sel_id = row(u, t->sel)->id;
	t->sel_chosen = true;
}

/* ---- drawing ---- */

/* The segments of the breakdown bar, in its order: their letters and colours. */
static const struct {
	char ch;
	enum ui_pair pair;
	size_t off;
} segs[] = {
	{ .ch = 'g', .pair = UI_P_SEG_GEN, .off = offsetof(struct gd_breakdown, gen_us) },
	{ .ch = 'w', .pair = UI_P_SEG_H2D, .off = offsetof(struct gd_breakdown, h2d_us) },
	{ .ch = 'q', .pair = UI_P_SEG_QWAIT, .off = offsetof(struct gd_breakdown, queue_wait_us) },
	{ .ch = 'k', .pair = UI_P_SEG_KERNEL, .off = offsetof(struct gd_breakdown, kernel_us) },
	{ .ch = 'r', .pair = UI_P_SEG_D2H, .off = offsetof(struct gd_breakdown, d2h_us) },
	{ .ch = 'o', .pair = UI_P_SEG_OTHER, .off = offsetof(struct gd_breakdown, other_us) },
};
#define NSEGS ((int)GD_ARRAY_LEN(segs))

/* The batch breakdown as a stacked bar: cells shared out by largest remainder. */
static void draw_bar(struct ui *u, WINDOW *w, int y, int x, int width, attr_t base,
                     const struct gd_breakdown *bd)
{
	double v[NSEGS];
	int cells[NSEGS];
	for (int i = 0; i < NSEGS; i++)
		memcpy(&v[i], (const char *)bd + segs[i].off, sizeof(double));
	if (!chart_split(v, NSEGS, width, cells)) {
		ui_put(w, y, x, base, "n/a");
		return;
	}
	for (int i = 0; i < NSEGS; i++) {
		char seg[UI_GRAPH_MAXW];
		int n = cells[i] < (int)sizeof(seg) - 1 ? cells[i] : (int)sizeof(seg) - 1;
		memset(seg, segs[i].ch, (size_t)n);
		seg[n] = '\0';
		ui_put(w, y, x, base | ui_attr(u, segs[i].pair), seg);
		x += cells[i];
	}
}

/* For a row whose window has no breakdown while a batch is under way: its latest sample
 * with one, drawn dimmed; else NULL. */
static const struct gd_sample *last_bar(const struct ui *u, const struct gd_sample *s)
{
	double v[NSEGS];
	int cells[NSEGS];
	const struct gd_sample *last = ui_last_measured(u, s);
	if (!last)
		return NULL;
	for (int i = 0; i < NSEGS; i++)
		memcpy(&v[i], (const char *)&last->bd + segs[i].off, sizeof(double));
	return chart_split(v, NSEGS, 1, cells) ? last : NULL;
}

/* One worker's row. Column 0: > when selected; column 1: * when tagged; the selected row is
 * drawn in reverse video. */
static void draw_row(struct ui *u, WINDOW *w, int y, const struct gd_sample *s, bool sel)
{
	int xs[UI_NCOLS];
	int bar = ui_col_x(u, getmaxx(w), xs);
	attr_t base = sel ? A_REVERSE : A_NORMAL;
	if (sel) {
		wattrset(w, base);
		mvwhline(w, y, 0, ' ', getmaxx(w));
		ui_put(w, y, 0, base | A_BOLD, ">");
	}
	if (ui_tagged(u, s->id))
		ui_put(w, y, 1, base | A_BOLD, "*");
	for (int k = 0; k < UI_NCOLS; k++) {
		int i = u->table.colorder[k];
		if (xs[i] < 0)
			continue;
		const struct ui_col *c = ui_col(i);
		char cell[64];
		if (s->state == GD_ST_FAILED && c->kind != UI_K_ID && c->kind != UI_K_PID &&
		    c->kind != UI_K_STATE) {
			/* A failed worker's numbers mean nothing: its error takes the rest of the row. */
			ui_put_words(w, y, xs[i] + 1, getmaxx(w), base | ui_attr(u, UI_P_BAD), s->error);
			return;
		}
		double v = ui_cell(u, i, s, cell, sizeof(cell));
		attr_t a = base;
		const struct gd_sample *last = isnan(v) ? ui_last_measured(u, s) : NULL;
		if (last && !isnan(ui_cell(u, i, last, cell, sizeof(cell))))
			a |= ui_attr(u, UI_P_DIM); /* a batch under way: its latest figure, dimmed */
		if (c->kind == UI_K_STATE)
			ui_putf(w, y, xs[i] + 1, base | ui_attr(u, ui_state_pair(s->state)), "%-*s",
			        c->width - 1, cell);
		else
			ui_putf(w, y, xs[i], a, "%*s", c->width - 1, cell);
	}
	int bw = getmaxx(w) - bar;
	if (!u->table.bar)
		return;
	if (s->error[0] && s->state == GD_ST_EXITED)
		ui_put_words(w, y, bar, getmaxx(w), base | ui_attr(u, UI_P_DIM), s->error);
	else if (s->state == GD_ST_NOCL)
		ui_put_words(w, y, bar, getmaxx(w), base | ui_attr(u, UI_P_DIM), gd_state_name(s->state));
	else if (bw >= 3 && last_bar(u, s))
		draw_bar(u, w, y, bar, bw, base | ui_attr(u, UI_P_DIM), &last_bar(u, s)->bd);
	else if (bw >= 3)
		draw_bar(u, w, y, bar, bw, base, &s->bd);
}

/* A process the driver lists that the tool did not start (gd_outside): dimmed, never
 * selected, its pid, "outside" as its state, its memory, and in the bar's place its command,
 * device and the driver's SM share ("python3 0:0 SM 40%"); the tool measures nothing of it. */
static void draw_outside(struct ui *u, WINDOW *w, int y, const struct gd_outside *o)
{
	int xs[UI_NCOLS];
	int bar = ui_col_x(u, getmaxx(w), xs);
	attr_t a = ui_attr(u, UI_P_DIM);
	for (int i = 0; i < UI_NCOLS; i++) {
		const struct ui_col *c = ui_col(i);
		char cell[32] = "";
		if (xs[i] < 0)
			continue;
		if (c->kind == UI_K_PID)
			snprintf(cell, sizeof(cell), "%d", (int)o->pid);
		else if (c->kind == UI_K_BYTES)
			ui_bytes(cell, sizeof(cell), o->mem_bytes);
		if (c->kind == UI_K_STATE)
			ui_putf(w, y, xs[i] + 1, a, "%-*s", c->width - 1, "outside");
		else if (cell[0])
			ui_putf(w, y, xs[i], a, "%*s", c->width - 1, cell);
	}
	char text[128], sm[16] = "n/a";
	if (!isnan(o->sm))
		snprintf(sm, sizeof(sm), "%.0f%%", 100 * o->sm);
	snprintf(text, sizeof(text), "%s %s SM %s", o->comm[0] ? o->comm : "?",
	         frame_device_ref(session_frame(u->s), o->device), sm);
	if (u->table.bar)
		ui_put_words(w, y, bar, getmaxx(w), a, text);
}

/* A device's line heading its group: P:D and name, its rate, busy (~ when its workers' device
 * times were partly estimated), ceiling share, workers. */
static void draw_device(struct ui *u, WINDOW *w, int y, int d)
{
	const struct gd_devframe *df = &session_frame(u->s)->devs[d];
	const struct gd_device *dev = session_device(u->s, d);
	char rate[32], busy[32], pct[48] = "n/a";
	chart_num(rate, sizeof(rate), 10, df->agg.rate, 2);
	chart_num(busy, sizeof(busy), 8, 100 * df->device_busy, 1);
	if (ceiling_stale(df->of_ceiling)) /* the rate is above it: never "at 179%" */
		snprintf(pct, sizeof(pct), "stale (rate above it): c recalibrates");
	else if (!isnan(df->of_ceiling))
		snprintf(pct, sizeof(pct), "%.1f%%", 100 * df->of_ceiling);
	const char *unit = kspec_rate_unit(&session_workload(u->s)->kernel);
	char line[320];
	snprintf(line, sizeof(line), "%s %.*s  %s%s%s  busy %s%s%s  ceiling %s  workers %d", dev->ref,
	         ui_words(dev->name, 40), dev->name, rate, isnan(df->agg.rate) ? "" : " ",
	         isnan(df->agg.rate) ? "" : unit, busy, ui_est(df->device_busy, &df->agg),
	         isnan(df->device_busy) ? "" : "%", pct, df->procs);
	ui_put_words(w, y, 1, getmaxx(w), ui_attr(u, UI_P_HEAD), line);
}

/* The bar's heading in the cells it has: with its legend, or the word alone, or nothing;
 * never a word cut. */
static const char *bar_head(int room)
{
	static const char legend[] = "breakdown g w q k r o", word[] = "breakdown";
	return room >= (int)sizeof(legend) - 1 ? legend : room >= (int)sizeof(word) - 1 ? word : "";
}

/* Column i's head at x; the sort column's in a colour of its own, as htop marks it (the header
 * names it with the arrow of its direction). */
static void draw_head(struct ui *u, WINDOW *w, int x, int i)
{
	const struct ui_col *c = ui_col(i);
	attr_t a = ui_attr(u, i == u->table.sort ? UI_P_SORT : UI_P_COLS);
	ui_putf(w, 0, x, a, c->kind == UI_K_STATE ? " %-*s" : "%*s", c->width - 1, ui_col_head(u, i));
}

/* The column heads, the breakdown's legend, and which lines are shown when not all fit: that
 * note takes the end of the line after the columns ("rows 1-9 of 20", else "1-9/20", else
 * nothing), and the bar's heading what is left before it. */
static void draw_heads(struct ui *u, WINDOW *w)
{
	int xs[UI_NCOLS];
	int width = getmaxx(w), bar = ui_col_x(u, width, xs);
	wattrset(w, ui_attr(u, UI_P_COLS));
	mvwhline(w, 0, 0, ' ', width);
	for (int i = 0; i < UI_NCOLS; i++)
		if (xs[i] >= 0)
			draw_head(u, w, xs[i], i);
	int rows = u->term.lay.table_rows, nl = ui_nlines(u);
	char more[48] = "";
	if (nl > rows)
		snprintf(more, sizeof(more), "rows %d-%d of %d", u->table.top + 1, u->table.top + rows, nl);
	if (width - (int)strlen(more) < bar)
		snprintf(more, sizeof(more), "%d-%d/%d", u->table.top + 1, u->table.top + rows, nl);
	if (width - (int)strlen(more) < bar)
		more[0] = '\0';
	int end = width - (int)strlen(more);
	if (u->table.bar)
		ui_put(w, 0, bar, ui_attr(u, UI_P_COLS), bar_head(end - bar - (more[0] ? 1 : 0)));
	if (more[0])
		ui_put(w, 0, end, ui_attr(u, UI_P_COLS) | A_BOLD, more);
}

void ui_draw_table(struct ui *u, WINDOW *w)
{
	const struct gd_frame *f = session_frame(u->s);
	ui_follow(u);
	draw_heads(u, w);
	int rows = u->term.lay.table_rows, top = u->table.top;
	int shown = u->table.nshown;
	if (shown == 0 && !grouped(u))
		ui_put(w, 1, 1, ui_attr(u, UI_P_DIM),
		       ui_measured(u) ? "no workers: press + to start one"
		                      : "waiting for the first interval");
	/* Line by line: each device's heading (grouped), then its workers. */
	int line = 0, p = 0;
	for (int d = 0; d < (grouped(u) ? f->ndevs : 1); d++) {
		if (grouped(u)) {
			if (line >= top && line < top + rows)
				draw_device(u, w, 1 + line - top, d);
			line++;
		}
		for (; p < shown && (!grouped(u) || row(u, p)->device == d); p++, line++)
			if (line >= top && line < top + rows)
				draw_row(u, w, 1 + line - top, row(u, p), p == u->table.sel);
	}
	for (int i = 0; i < f->noutside; i++, line++)
		if (line >= top && line < top + rows)
			draw_outside(u, w, 1 + line - top, &f->outside[i]);
}

int ui_row_at(const struct ui *u, int y)
{
	const struct gd_frame *f = session_frame(u->s);
	int want = u->table.top + y - 1, line = 0, p = 0; /* y 0 is the heads */
	if (y < 1 || y > u->term.lay.table_rows)
		return -1;
	for (int d = 0; d < (grouped(u) ? f->ndevs : 1); d++) {
		line += grouped(u); /* the device's heading */
		for (; p < u->table.nshown && (!grouped(u) || row(u, p)->device == d); p++, line++)
			if (line == want)
				return p;
	}
	return -1;
}

void ui_select(struct ui *u, int p)
{
	if (p < 0 || p >= u->table.nshown)
		return;
	u->table.sel = p;
	u->table.sel_id = row(u, p)->id;
	u->table.sel_chosen = true;
}

/* dashboard.c: the interactive ncurses role: draws the session's frames and turns keys into
 * supervisor actions. Collection is the same as the headless mode's; only the printer differs. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* the wide-character functions of ncursesw */
#endif
#include "gputop/dashboard.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "gputop/chart.h"
#include "gputop/common.h"
#include "gputop/layout.h"
#include "gputop/prom.h"
#include "gputop/session.h"
#include "gputop/sig.h"
#include "gputop/sink.h"
#include "gputop/trace.h"

#define UI_SPAN_S     120.0 /* a graph covers at least this much time */
#define UI_GRAPH_MAXW 1024  /* graph columns drawn at most */
#define UI_ENDED_KEEP 8     /* ended workers stay listed until there are more than this */
#define UI_MSG_NS     (4 * GD_NS_PER_S)
#define UI_CLOCK_NS   GD_NS_PER_S /* the elapsed clock is redrawn at least this often */

/* ---- colours and attributes ---- */

enum ui_pair {
	UI_P_NONE,
	UI_P_HEAD,
	UI_P_TPUT,
	UI_P_BUSY,
	UI_P_GOOD,
	UI_P_WARN,
	UI_P_BAD,
	UI_P_INFO,
	UI_P_DIM,
	UI_P_KEY,
	UI_P_COLS,
	UI_P_SEG_GEN,
	UI_P_SEG_H2D,
	UI_P_SEG_KERNEL,
	UI_P_SEG_D2H,
	UI_P_SEG_OTHER,
	UI_P_SEG_QWAIT,
	UI_P_COUNT
};

/* Each role's colours, and the plain attribute used where there are no colours (TERM=vt100,
 * NO_COLOR): the screen must read the same without colour. */
static const struct {
	short fg, bg;
	attr_t colour_extra, mono;
} ui_pairs[UI_P_COUNT] = {
	[UI_P_NONE] = { -1, -1, A_NORMAL, A_NORMAL },
	[UI_P_HEAD] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[UI_P_TPUT] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[UI_P_BUSY] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[UI_P_GOOD] = { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[UI_P_WARN] = { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[UI_P_BAD] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[UI_P_INFO] = { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[UI_P_DIM] = { -1, -1, A_DIM, A_DIM },
	[UI_P_KEY] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[UI_P_COLS] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE },
	[UI_P_SEG_GEN] = { COLOR_BLACK, COLOR_BLUE, A_NORMAL, A_NORMAL },
	[UI_P_SEG_H2D] = { COLOR_BLACK, COLOR_MAGENTA, A_NORMAL, A_NORMAL },
	[UI_P_SEG_KERNEL] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_BOLD },
	[UI_P_SEG_D2H] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_NORMAL },
	[UI_P_SEG_OTHER] = { COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_NORMAL },
	[UI_P_SEG_QWAIT] = { COLOR_BLACK, COLOR_RED, A_NORMAL, A_UNDERLINE },
};

static const enum ui_pair ui_state_pair[GD_ST_COUNT] = {
	[GD_ST_STARTING] = UI_P_WARN, [GD_ST_RUNNING] = UI_P_GOOD, [GD_ST_PAUSED] = UI_P_INFO,
	[GD_ST_STOPPING] = UI_P_WARN, [GD_ST_EXITED] = UI_P_DIM,   [GD_ST_FAILED] = UI_P_BAD,
	[GD_ST_STALLED] = UI_P_BAD,
};

/* ---- state ---- */

enum ui_menu { UI_MENU_NONE, UI_MENU_SIGNAL, UI_MENU_SORT };

/* One worker's history, one value per frame, aligned with the aggregate's: value k of both
 * is frame k, NAN before the worker was listed. */
struct ui_whist {
	unsigned id;
	struct chart_hist mbit, busy; /* its Mbit/s and kernel busy (0..1) */
};

struct ui {
	struct gd_session s;
	struct gd_sink *log; /* -o: every frame and every action, or NULL */
	SCREEN *scr;
	struct layout lay;
	bool have_windows;
	WINDOW *part[LAYOUT_NPARTS];
	WINDOW *full; /* the help and too-small screens */
	bool colour, utf8, help, quit, dirty;
	int help_top;      /* first help line shown, when the help does not fit */
	enum ui_menu menu; /* the menu open over the screen, or UI_MENU_NONE */
	int menu_sel;      /* its highlighted item */
	unsigned sel_id;   /* selected worker, by id: rows come and go */
	int sel, top;      /* selected worker (a position in order) and first visible table line */
	int sort;          /* the column rows are sorted by (index in ui_cols) */
	bool sort_desc;    /* largest first */
	int *order;        /* display position -> index in s.frame.workers, grouped by device */
	int caporder;
	unsigned *tags; /* ids of the tagged workers: x, k and K act on them */
	int ntags;
	struct ui_whist **wh; /* every listed worker's history, by id */
	int nwh, capwh;
	struct chart_hist mbit, busy; /* the aggregate's, one value per frame */
	double cols[UI_GRAPH_MAXW];
	char msg[GD_ERR_LEN + 64];
	int64_t msg_until, last_draw;
	char fatal[256];
	int saved_stderr; /* -1: stderr not captured */
	FILE *captured;
};

static attr_t ui_attr(const struct ui *u, enum ui_pair p)
{
	return u->colour ? (attr_t)COLOR_PAIR(p) | ui_pairs[p].colour_extra : ui_pairs[p].mono;
}

static void ui_message(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ui_message(struct ui *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->msg, sizeof(u->msg), fmt, ap);
	va_end(ap);
	u->msg_until = now_ns() + UI_MSG_NS;
}

/* ---- the worker table's columns: drawn, sorted by ---- */

enum ui_kind { UI_K_ID, UI_K_PID, UI_K_STATE, UI_K_F, UI_K_PCT, UI_K_U64 };

/* The columns: heading (with its unit), width, the terminal width from which it is shown,
 * and where its value lives in a sample. */
static const struct ui_col {
	const char *head;
	size_t off;
	int width, min_cols;
	enum ui_kind kind;
	int prec;
} ui_cols[] = {
	{ .head = "id", .off = offsetof(struct gd_sample, id), .width = 4, .kind = UI_K_ID },
	{ .head = "pid", .off = offsetof(struct gd_sample, pid), .width = 8, .kind = UI_K_PID },
	{ .head = "state", .off = offsetof(struct gd_sample, state), .width = 9, .kind = UI_K_STATE },
	{ .head = "Mbit/s",
	  .off = offsetof(struct gd_sample, rate),
	  .width = 9,
	  .kind = UI_K_F,
	  .prec = 2 },
	{ .head = "batches", .off = offsetof(struct gd_sample, batches), .width = 9, .kind = UI_K_U64 },
	{ .head = "kbusy%",
	  .off = offsetof(struct gd_sample, kernel_busy),
	  .width = 7,
	  .kind = UI_K_PCT,
	  .prec = 1 },
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
};

/* Column i's heading: the rate column says the run's unit (Mbit/s, or Mitem/s for --kernel). */
static const char *ui_col_head(const struct ui *u, size_t i)
{
	return ui_cols[i].off == offsetof(struct gd_sample, rate) ? opts_rate_unit(&u->s.o)
	                                                            : ui_cols[i].head;
}

static void ui_cell(char *buf, size_t n, const struct ui_col *c, const struct gd_sample *s)
{
	const char *p = (const char *)s + c->off;
	double d;
	switch (c->kind) {
	case UI_K_ID:
		snprintf(buf, n, "%u", *(const unsigned *)(const void *)p);
		break;
	case UI_K_PID:
		snprintf(buf, n, "%d", (int)*(const pid_t *)(const void *)p);
		break;
	case UI_K_STATE:
		snprintf(buf, n, "%s", gd_state_name(*(const enum gd_state *)(const void *)p));
		break;
	case UI_K_U64:
		snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)(const void *)p);
		break;
	case UI_K_F:
	case UI_K_PCT:
		memcpy(&d, p, sizeof(d));
		chart_num(buf, n, c->width, c->kind == UI_K_PCT ? 100 * d : d, c->prec);
		break;
	}
}

#define UI_NCOLS ((int)GD_ARRAY_LEN(ui_cols))

/* ---- sorting, tags, the workers' histories ---- */

/* A column's value as a number, for sorting. */
static double ui_value(const struct ui_col *c, const struct gd_sample *s)
{
	const char *p = (const char *)s + c->off;
	double d;
	switch (c->kind) {
	case UI_K_ID:
		return *(const unsigned *)(const void *)p;
	case UI_K_PID:
		return *(const pid_t *)(const void *)p;
	case UI_K_STATE:
		return (double)*(const enum gd_state *)(const void *)p;
	case UI_K_U64:
		return (double)*(const uint64_t *)(const void *)p;
	case UI_K_F:
	case UI_K_PCT:
		break;
	}
	memcpy(&d, p, sizeof(d));
	return d;
}

/* Numbers sort largest first, as in htop; id, pid and state smallest first. */
static bool ui_col_desc(int col)
{
	enum ui_kind k = ui_cols[col].kind;
	return k != UI_K_ID && k != UI_K_PID && k != UI_K_STATE;
}

/* With two or more devices the table groups the workers by device, each group headed by a
 * line of its device's aggregate; with one it lists them as the supervisor started them. */
static bool ui_grouped(const struct ui *u)
{
	return u->s.frame.ndevs > 1;
}

/* Whether a goes above b: grouped, by device first; then by the sort column, n/a last either
 * way, then by id. */
static bool ui_before(const struct ui *u, const struct gd_sample *a, const struct gd_sample *b)
{
	if (ui_grouped(u) && a->device != b->device)
		return a->device < b->device;
	double x = ui_value(&ui_cols[u->sort], a), y = ui_value(&ui_cols[u->sort], b);
	if (isnan(x) != isnan(y))
		return isnan(y);
	if (!isnan(x) && x != y)
		return u->sort_desc ? x > y : x < y;
	return a->id < b->id;
}

/* u->order for the current frame: an insertion sort, stable and in place (256 rows at most). */
static void ui_sort(struct ui *u)
{
	const struct gd_frame *f = &u->s.frame;
	if (f->nworkers > u->caporder) {
		u->caporder = f->nworkers + 16;
		u->order = xreallocarray(u->order, (size_t)u->caporder, sizeof(*u->order));
	}
	for (int i = 0; i < f->nworkers; i++) {
		int v = i, j = i;
		for (; j > 0 && ui_before(u, &f->workers[v], &f->workers[u->order[j - 1]]); j--)
			u->order[j] = u->order[j - 1];
		u->order[j] = v;
	}
}

/* The sample on display row r (rows as sorted by the last ui_sort). */
static const struct gd_sample *ui_row(const struct ui *u, int r)
{
	return &u->s.frame.workers[u->order[r]];
}

/* The table line of the worker at position p of the order (headings before it counted). */
static int ui_line_of(const struct ui *u, int p)
{
	return ui_grouped(u) ? p + u->s.frame.workers[u->order[p]].device + 1 : p;
}

static int ui_nlines(const struct ui *u)
{
	return u->s.frame.nworkers + (ui_grouped(u) ? u->s.frame.ndevs : 0);
}

static int ui_tag_index(const struct ui *u, unsigned id)
{
	for (int i = 0; i < u->ntags; i++)
		if (u->tags[i] == id)
			return i;
	return -1;
}

/* Tags stay on live workers only: an ended worker's tag is dropped. */
static void ui_drop_ended_tags(struct ui *u)
{
	int k = 0;
	for (int i = 0; i < u->ntags; i++) {
		int w = sup_find(u->s.sup, u->tags[i]);
		struct gd_worker_info info = { .alive = false };
		if (w >= 0)
			sup_worker(u->s.sup, w, &info);
		if (info.alive)
			u->tags[k++] = u->tags[i];
	}
	u->ntags = k;
}

static struct ui_whist *ui_whist_find(const struct ui *u, unsigned id)
{
	for (int i = 0; i < u->nwh; i++)
		if (u->wh[i]->id == id)
			return u->wh[i];
	return NULL;
}

static void ui_whist_clear(struct ui *u)
{
	for (int i = 0; i < u->nwh; i++)
		free(u->wh[i]);
	u->nwh = 0;
}

/* A new history for worker id, aligned with the aggregate's before this frame's value. */
static struct ui_whist *ui_whist_add(struct ui *u, unsigned id)
{
	if (u->nwh == u->capwh) {
		u->capwh = u->capwh ? 2 * u->capwh : 16;
		u->wh = xreallocarray(u->wh, (size_t)u->capwh, sizeof(struct ui_whist *));
	}
	struct ui_whist *h = xmalloc(sizeof(*h));
	h->id = id;
	for (int i = 0; i < CHART_HIST; i++)
		h->mbit.v[i] = h->busy.v[i] = NAN;
	h->mbit.n = h->busy.n = u->mbit.n ? u->mbit.n - 1 : 0;
	u->wh[u->nwh++] = h;
	return h;
}

/* After the aggregate's value of a frame: every listed worker's values; the histories of
 * workers no longer listed are dropped. */
static void ui_whist_push(struct ui *u)
{
	const struct gd_frame *f = &u->s.frame;
	int k = 0;
	for (int i = 0; i < u->nwh; i++) {
		bool listed = false;
		for (int j = 0; j < f->nworkers && !listed; j++)
			listed = f->workers[j].id == u->wh[i]->id;
		if (listed)
			u->wh[k++] = u->wh[i];
		else
			free(u->wh[i]);
	}
	u->nwh = k;
	for (int j = 0; j < f->nworkers; j++) {
		const struct gd_sample *w = &f->workers[j];
		struct ui_whist *h = ui_whist_find(u, w->id);
		if (!h)
			h = ui_whist_add(u, w->id);
		chart_push(&h->mbit, w->rate);
		chart_push(&h->busy, w->kernel_busy);
	}
}

/* ---- text helpers: every write is clipped to its line, where curses would wrap ---- */

static void ui_put(WINDOW *w, int y, int x, attr_t a, const char *s)
{
	int room = getmaxx(w) - x;
	if (room <= 0 || y < 0 || y >= getmaxy(w) || x < 0)
		return;
	wattrset(w, a);
	mvwaddnstr(w, y, x, s, room);
	wattrset(w, A_NORMAL);
}

static void ui_putf(WINDOW *w, int y, int x, attr_t a, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void ui_putf(WINDOW *w, int y, int x, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ui_put(w, y, x, a, buf);
}

static void ui_put_right(WINDOW *w, int y, attr_t a, const char *s)
{
	int x = getmaxx(w) - (int)strlen(s);
	ui_put(w, y, x > 0 ? x : 0, a, s);
}

/* Writes pieces left to right, two spaces apart, leaving out those that no longer fit
 * before `limit`: a field is shown whole or not at all. */
static void ui_pieces(WINDOW *w, int y, int x, int limit, attr_t a, char pieces[][96], int n)
{
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(pieces[i]);
		if (len == 0)
			continue;
		if (x + len > limit)
			continue;
		ui_put(w, y, x, a, pieces[i]);
		x += len + 2;
	}
}

/* ---- drawing: graphs ---- */

/* Frames per graph column, so that a graph of width columns spans at least UI_SPAN_S. */
static uint64_t ui_per_column(const struct ui *u, int width)
{
	return chart_per_column(UI_SPAN_S, (double)u->s.interval / 1e9, width);
}

/* Fills u->cols with h's columns for a graph width wide; returns their maximum. */
static double ui_columns(struct ui *u, const struct chart_hist *h, int width, uint64_t per)
{
	return chart_columns(h, per, u->cols, width < UI_GRAPH_MAXW ? width : UI_GRAPH_MAXW);
}

static const wchar_t ui_blocks[] = L" \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
static const char ui_ascii[] = " ._-~=+*#";

/* Column bars of height rows, eighths of a cell with block characters (ASCII levels
 * otherwise); a value above zero always shows at least its lowest level. */
static void ui_graph(struct ui *u, WINDOW *w, const struct layout_rect *g, int rows, double scale,
                     enum ui_pair p)
{
	int width = g->w < UI_GRAPH_MAXW ? g->w : UI_GRAPH_MAXW;
	int x0 = g->x - getbegx(w) + g->w - width; /* g is on the screen, w a part of it */
	wattrset(w, ui_attr(u, p));
	for (int c = 0; c < width; c++) {
		double v = u->cols[c];
		if (isnan(v))
			continue;
		long eighths = scale > 0 ? lround(v / scale * rows * 8) : 0;
		if (eighths < 1 && v > 0)
			eighths = 1;
		for (int r = 0; r < rows; r++) {
			long lv = eighths - 8L * (rows - 1 - r);
			lv = lv < 0 ? 0 : lv > 8 ? 8 : lv;
			if (u->utf8)
				mvwaddnwstr(w, r, x0 + c, &ui_blocks[lv], 1);
			else
				mvwaddch(w, r, x0 + c, (chtype)ui_ascii[lv]);
		}
	}
	wattrset(w, A_NORMAL);
}

static void ui_draw_tput(struct ui *u, WINDOW *w)
{
	const struct layout *l = &u->lay;
	int rows = l->part[LAYOUT_TPUT].h;
	const struct gd_frame *f = &u->s.frame;
	uint64_t per = ui_per_column(u, l->tput_graph.w);
	double max = ui_columns(u, &u->mbit, l->tput_graph.w, per);
	char now[32], top[32];
	chart_num(now, sizeof(now), 10, u->mbit.n ? f->agg.rate : NAN, 2);
	chart_num(top, sizeof(top), 9, max, 1);
	const char *unit = opts_rate_unit(&u->s.o);
	ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "%-7s%9s", unit, now);
	if (rows > 1)
		ui_putf(w, 1, 0, A_NORMAL, "graph top %s %s", top, unit);
	else
		ui_putf(w, 0, 17, A_NORMAL, "top %s", top);
	ui_graph(u, w, &l->tput_graph, rows, max, UI_P_TPUT);
	if (rows > 2)
		ui_putf(w, rows - 1, 0, ui_attr(u, UI_P_DIM), "last %.1f min",
		        (double)per * l->tput_graph.w * (double)u->s.interval / 1e9 / 60);
}

/* The selected worker's graph: its Mbit/s (busy false) or its kernel busy, labelled with its id. */
static void ui_draw_worker(struct ui *u, WINDOW *w, const struct layout_rect *g, bool busy)
{
	const struct ui_whist *h = ui_whist_find(u, u->sel_id);
	const struct gd_sample *s = NULL;
	for (int i = 0; i < u->s.frame.nworkers; i++)
		if (u->s.frame.workers[i].id == u->sel_id)
			s = &u->s.frame.workers[i];
	if (!h || !s) {
		ui_put(w, 0, 0, ui_attr(u, UI_P_DIM), busy ? "" : "no worker selected");
		return;
	}
	const struct chart_hist *series = busy ? &h->busy : &h->mbit;
	uint64_t per = ui_per_column(u, g->w);
	double max = ui_columns(u, series, g->w, per);
	char now[32], top[32];
	if (busy) {
		chart_num(now, sizeof(now), 7, 100 * s->kernel_busy, 1);
		ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "worker %u kbusy %6s %%", s->id, now);
		if (g->h > 1)
			ui_put(w, 1, 0, A_NORMAL, "its kernels' device time");
	} else {
		chart_num(now, sizeof(now), 10, s->rate, 2);
		chart_num(top, sizeof(top), 9, max, 1);
		const char *unit = opts_rate_unit(&u->s.o);
		ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "worker %u %s %9s", s->id, unit, now);
		if (g->h > 1)
			ui_putf(w, 1, 0, A_NORMAL, "graph top %s %s", top, unit);
	}
	ui_graph(u, w, g, g->h, busy ? 1.0 : max, busy ? UI_P_BUSY : UI_P_TPUT);
}

static void ui_draw_busy(struct ui *u, WINDOW *w)
{
	const struct layout *l = &u->lay;
	int rows = l->part[LAYOUT_BUSY].h;
	const struct gd_frame *f = &u->s.frame;
	ui_columns(u, &u->busy, l->busy_graph.w, ui_per_column(u, l->busy_graph.w));
	double busy = u->busy.n ? f->device_busy : NAN;
	char b[16], idle[16];
	chart_num(b, sizeof(b), 7, 100 * busy, 1);
	chart_num(idle, sizeof(idle), 7, 100 * (1 - busy), 1);
	ui_putf(w, 0, 0, ui_attr(u, UI_P_HEAD), "busy %6s %%", b);
	ui_putf(w, 0, 15, A_NORMAL, "idle %6s %%", idle);
	if (rows > 1)
		ui_put(w, 1, 0, A_NORMAL,
		       f->busy_from_sum ? "sum of workers, capped" : "union of kernel intervals");
	ui_graph(u, w, &l->busy_graph, rows, 1.0, UI_P_BUSY);
}

/* ---- actions ---- */

/* An event row in the log for an action on worker w (NULL: on all of them). A log that cannot
 * be written ends the dashboard, as it ends a headless run. */
static void ui_log(struct ui *u, const char *action, const struct gd_worker_info *w)
{
	if (!u->log || u->fatal[0])
		return;
	int64_t now = now_ns();
	struct gd_event e = { .t_s = (double)(now - u->s.t0) / 1e9,
		              .unix_s = unix_seconds(now),
		              .action = action,
		              .id = w ? w->id : 0,
		              .pid = w ? w->pid : 0 };
	if (sink_event(u->log, &e)) {
		snprintf(u->fatal, sizeof(u->fatal), "%s", sink_error(u->log));
		u->quit = true;
	}
}

/* Sorts the rows and keeps the selection on its worker (by id) and in view. */
static void ui_follow(struct ui *u)
{
	const struct gd_frame *f = &u->s.frame;
	ui_sort(u);
	for (int r = 0; r < f->nworkers; r++)
		if (ui_row(u, r)->id == u->sel_id)
			u->sel = r;
	if (u->sel >= f->nworkers)
		u->sel = f->nworkers - 1;
	if (u->sel < 0)
		u->sel = 0;
	u->sel_id = f->nworkers ? ui_row(u, u->sel)->id : 0;
	int rows = u->lay.table_rows > 0 ? u->lay.table_rows : 1, nl = ui_nlines(u);
	int line = f->nworkers ? ui_line_of(u, u->sel) : 0;
	if (line < u->top)
		u->top = line;
	if (line >= u->top + rows)
		u->top = line - rows + 1;
	if (u->top > nl - rows)
		u->top = nl - rows > 0 ? nl - rows : 0;
}

static void ui_act_spawn(struct ui *u, int key)
{
	(void)key;
	char err[GD_ERR_LEN];
	int i = sup_spawn(u->s.sup, -1, err, sizeof(err)); /* on the device with the fewest */
	if (i < 0) {
		ui_message(u, "cannot start a worker: %s", err);
		return;
	}
	struct gd_worker_info w;
	sup_worker(u->s.sup, i, &w);
	if (u->s.ndevs > 1)
		ui_message(u, "started worker %u (pid %d) on %s", w.id, (int)w.pid, u->s.refs[w.device]);
	else
		ui_message(u, "started worker %u (pid %d)", w.id, (int)w.pid);
	ui_log(u, "add", &w);
}

static void ui_act_stop_newest(struct ui *u, int key)
{
	(void)key;
	int i = sup_newest(u->s.sup);
	if (i < 0) {
		ui_message(u, "no running worker to stop");
		return;
	}
	struct gd_worker_info w;
	sup_worker(u->s.sup, i, &w);
	sup_stop(u->s.sup, i, false);
	ui_message(u, "stopping worker %u", w.id);
	ui_log(u, "stop", &w);
}

/* The workers x, k and K act on, as supervisor indices: the tagged ones when any is tagged,
 * else the selected one when it is alive. Returns how many. */
static int ui_targets(struct ui *u, int idx[GD_PROCS_MAX])
{
	ui_drop_ended_tags(u);
	int n = 0;
	if (u->ntags) {
		for (int i = 0; i < u->ntags && n < GD_PROCS_MAX; i++)
			idx[n++] = sup_find(u->s.sup, u->tags[i]);
		return n;
	}
	int i = sup_find(u->s.sup, u->sel_id);
	struct gd_worker_info w = { .alive = false };
	if (i >= 0)
		sup_worker(u->s.sup, i, &w);
	if (w.alive)
		idx[n++] = i;
	return n;
}

/* What a signal does to the targets, as the key bar says it and as the log names it. */
static const struct ui_sig {
	const char *name; /* in the menu */
	int sig, key;     /* key: selects it in the menu */
	const char *what, *action;
} ui_sigs[] = {
	{ "TERM", SIGTERM, 't', "stop: it finishes its batch", "signal-TERM" },
	{ "KILL", SIGKILL, 'k', "end it at once", "signal-KILL" },
	{ "STOP", SIGSTOP, 's', "freeze it: paused until CONT", "signal-STOP" },
	{ "CONT", SIGCONT, 'c', "let a frozen worker run again", "signal-CONT" },
};
#define UI_NSIGS ((int)GD_ARRAY_LEN(ui_sigs))

/* Sends sig to every target, logging each as action; the key bar says "<done> worker 3" or
 * "<done> workers 3 5". */
static void ui_signal_targets(struct ui *u, int sig, const char *action, const char *done)
{
	int idx[GD_PROCS_MAX], n = ui_targets(u, idx), sent = 0;
	char list[GD_ERR_LEN] = "";
	size_t len = 0;
	for (int k = 0; k < n; k++) {
		struct gd_worker_info w;
		sup_worker(u->s.sup, idx[k], &w);
		if (sup_signal(u->s.sup, idx[k], sig) != 0)
			continue;
		sent++;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, " %u", w.id);
		ui_log(u, action, &w);
	}
	if (sent == 0 && u->sel_id && !u->ntags)
		ui_message(u, "worker %u has already ended", u->sel_id);
	else if (sent == 0)
		ui_message(u, u->ntags ? "the tagged workers have ended" : "no worker selected");
	else
		ui_message(u, "%s worker%s%s", done, sent > 1 ? "s" : "", list);
}

static void ui_act_stop(struct ui *u, int key)
{
	(void)key;
	ui_signal_targets(u, SIGTERM, "stop", "stopping");
}

static void ui_act_kill(struct ui *u, int key)
{
	(void)key;
	ui_signal_targets(u, SIGKILL, "kill", "SIGKILL sent to");
}

static void ui_act_signal_menu(struct ui *u, int key)
{
	(void)key;
	int idx[GD_PROCS_MAX];
	if (ui_targets(u, idx) == 0) {
		ui_message(u, u->sel_id ? "worker %u has already ended" : "no worker selected", u->sel_id);
		return;
	}
	u->menu = UI_MENU_SIGNAL;
	u->menu_sel = 0; /* TERM, as htop's default */
}

static void ui_move(struct ui *u, int by)
{
	ui_follow(u);
	int n = u->s.frame.nworkers;
	if (n == 0)
		return;
	u->sel = u->sel + by < 0 ? 0 : u->sel + by >= n ? n - 1 : u->sel + by;
	u->sel_id = ui_row(u, u->sel)->id;
}

static void ui_act_move(struct ui *u, int key)
{
	int page = u->lay.table_rows > 1 ? u->lay.table_rows : 1;
	switch (key) {
	case KEY_UP:
		ui_move(u, -1);
		break;
	case KEY_DOWN:
		ui_move(u, 1);
		break;
	case KEY_PPAGE:
		ui_move(u, -page);
		break;
	case KEY_NPAGE:
		ui_move(u, page);
		break;
	case KEY_HOME:
		ui_move(u, -GD_PROCS_MAX);
		break;
	case KEY_END:
		ui_move(u, GD_PROCS_MAX);
		break;
	}
}

static void ui_act_tag(struct ui *u, int key)
{
	(void)key;
	ui_follow(u);
	int i = sup_find(u->s.sup, u->sel_id);
	struct gd_worker_info w = { .alive = false };
	if (i >= 0)
		sup_worker(u->s.sup, i, &w);
	int t = ui_tag_index(u, u->sel_id);
	if (t >= 0)
		u->tags[t] = u->tags[--u->ntags];
	else if (!w.alive) {
		ui_message(u, u->sel_id ? "worker %u has ended: nothing to tag" : "no worker selected",
		           u->sel_id);
		return;
	} else {
		u->tags = xreallocarray(u->tags, (size_t)u->ntags + 1, sizeof(*u->tags));
		u->tags[u->ntags++] = u->sel_id;
	}
	ui_move(u, 1); /* as in htop: Space again tags the next one */
}

static void ui_act_untag(struct ui *u, int key)
{
	(void)key;
	u->ntags = 0;
	ui_message(u, "no worker tagged");
}

static void ui_set_sort(struct ui *u, int col)
{
	u->sort = col;
	u->sort_desc = ui_col_desc(col);
}

/* s: the next column, round; < and >: the one to the left or right. */
static void ui_act_sort(struct ui *u, int key)
{
	if (key == 's')
		ui_set_sort(u, (u->sort + 1) % UI_NCOLS);
	else if (key == '<' && u->sort > 0)
		ui_set_sort(u, u->sort - 1);
	else if (key == '>' && u->sort < UI_NCOLS - 1)
		ui_set_sort(u, u->sort + 1);
}

static void ui_act_sort_menu(struct ui *u, int key)
{
	(void)key;
	u->menu = UI_MENU_SORT;
	u->menu_sel = u->sort;
}

static void ui_act_invert(struct ui *u, int key)
{
	(void)key;
	u->sort_desc = !u->sort_desc;
}

/* [ halves the interval, ] doubles it, within the bounds of -i in the option table. */
static void ui_act_interval(struct ui *u, int key)
{
	const struct gd_optdef *d = opts_find("interval");
	double lo = d->min, hi = d->max, now = u->s.o.interval;
	double next = key == ']' ? now * 2 : now / 2;
	next = next < lo ? lo : next > hi ? hi : next;
	if (next == now) {
		ui_message(u, "the interval is already the %s, %g s", key == ']' ? "longest" : "shortest",
		           now);
		return;
	}
	session_set_interval(&u->s, next);
	ui_message(u, "interval %g s from now on", next);
	char action[48];
	snprintf(action, sizeof(action), "interval-%g", next);
	ui_log(u, action, NULL);
}

static void ui_act_pause(struct ui *u, int key)
{
	(void)key;
	sup_pause(u->s.sup, !sup_paused(u->s.sup));
	ui_message(u, sup_paused(u->s.sup) ? "paused every worker (p resumes)" : "resumed every worker");
	ui_log(u, sup_paused(u->s.sup) ? "pause" : "resume", NULL);
}

static void ui_act_reset(struct ui *u, int key)
{
	(void)key;
	session_restart_clock(&u->s, now_ns());
	memset(&u->mbit, 0, sizeof(u->mbit));
	memset(&u->busy, 0, sizeof(u->busy));
	ui_whist_clear(u);
	ui_message(u, "statistics and history reset");
	ui_log(u, "reset", NULL);
}

static void ui_act_calibrate(struct ui *u, int key)
{
	(void)key;
	char err[256];
	if (session_calibrate(&u->s, err, sizeof(err)))
		ui_message(u, "%s", err);
	else {
		ui_message(u, "calibrating: workers paused for about two seconds");
		ui_log(u, "calibrate", NULL);
	}
}

static void ui_act_help(struct ui *u, int key)
{
	(void)key;
	u->help = true;
	u->help_top = 0;
}

static void ui_act_none(struct ui *u, int key)
{
	(void)u;
	(void)key; /* Esc with nothing open */
}

static void ui_act_quit(struct ui *u, int key)
{
	(void)key;
	u->quit = true;
}

#define UI_KEY_ESC 27

/* The key table: the keys, how the help and the key bar name them, and what they do. The help
 * screen lists it in this order; the key bar shows the entries with a bar name, in this order,
 * as many as fit (the last one always). The man page's KEYS section states the same list. */
struct ui_key {
	int keys[4];       /* 0 ends the list */
	const char *label; /* in the help screen */
	const char *bar;   /* in the key bar; NULL: not there */
	const char *word;
	const char *help;
	void (*act)(struct ui *u, int key);
};

static const struct ui_key ui_keys[] = {
	{ .keys = { 'h', '?', KEY_F(1) },
	  .label = "h ? F1",
	  .bar = "h",
	  .word = "help",
	  .help = "this help; Esc or any other key closes it",
	  .act = ui_act_help },
	{ .keys = { '+', '=' },
	  .label = "+ =",
	  .bar = "+",
	  .word = "more",
	  .help = "start one more worker",
	  .act = ui_act_spawn },
	{ .keys = { '-' },
	  .label = "-",
	  .bar = "-",
	  .word = "fewer",
	  .help = "stop the newest worker (it finishes its batch)",
	  .act = ui_act_stop_newest },
	{ .keys = { KEY_UP, KEY_DOWN },
	  .label = "Up Down",
	  .bar = "Up/Dn",
	  .word = "select",
	  .help = "select the worker above or below",
	  .act = ui_act_move },
	{ .keys = { KEY_PPAGE, KEY_NPAGE },
	  .label = "PgUp PgDn",
	  .help = "select a page of rows up or down",
	  .act = ui_act_move },
	{ .keys = { KEY_HOME, KEY_END },
	  .label = "Home End",
	  .help = "select the first or the last worker",
	  .act = ui_act_move },
	{ .keys = { ' ' },
	  .label = "Space",
	  .bar = "Spc",
	  .word = "tag",
	  .help = "tag or untag the selected worker (*) and select the next",
	  .act = ui_act_tag },
	{ .keys = { 'U' }, .label = "U", .help = "untag every worker", .act = ui_act_untag },
	{ .keys = { 'x' },
	  .label = "x",
	  .bar = "x",
	  .word = "stop",
	  .help = "stop the tagged workers, else the selected one (graceful)",
	  .act = ui_act_stop },
	{ .keys = { 'k', KEY_F(9) },
	  .label = "k F9",
	  .bar = "k",
	  .word = "signal",
	  .help = "a menu: TERM, KILL, STOP or CONT to the tagged, else the selected",
	  .act = ui_act_signal_menu },
	{ .keys = { 'K' },
	  .label = "K",
	  .bar = "K",
	  .word = "kill",
	  .help = "kill the tagged workers, else the selected one (SIGKILL)",
	  .act = ui_act_kill },
	{ .keys = { 's' },
	  .label = "s",
	  .bar = "s",
	  .word = "sort",
	  .help = "sort the rows by the next column",
	  .act = ui_act_sort },
	{ .keys = { '<', '>' },
	  .label = "< >",
	  .help = "sort by the column to the left or the right",
	  .act = ui_act_sort },
	{ .keys = { KEY_F(6) },
	  .label = "F6",
	  .help = "choose the sort column from a menu",
	  .act = ui_act_sort_menu },
	{ .keys = { 'I' }, .label = "I", .help = "invert the sort order", .act = ui_act_invert },
	{ .keys = { '[', ']' },
	  .label = "[ ]",
	  .bar = "[]",
	  .word = "interval",
	  .help = "halve or double the interval (within the bounds of -i)",
	  .act = ui_act_interval },
	{ .keys = { 'p' },
	  .label = "p",
	  .bar = "p",
	  .word = "pause",
	  .help = "pause or resume every worker",
	  .act = ui_act_pause },
	{ .keys = { 'c' },
	  .label = "c",
	  .help = "calibrate: pause the workers, measure the device's ceiling, resume",
	  .act = ui_act_calibrate },
	{ .keys = { 'r' },
	  .label = "r",
	  .bar = "r",
	  .word = "reset",
	  .help = "reset statistics and history",
	  .act = ui_act_reset },
	{ .keys = { UI_KEY_ESC },
	  .label = "Esc",
	  .help = "close the help or a menu (n too, in a menu)",
	  .act = ui_act_none },
	{ .keys = { 'q', KEY_F(10) },
	  .label = "q F10",
	  .bar = "q",
	  .word = "quit",
	  .help = "quit: stop every worker, restore the terminal",
	  .act = ui_act_quit },
};
static const size_t ui_nkeys = GD_ARRAY_LEN(ui_keys);

/* ---- menus: a signal for the targets, a sort column ---- */

static int ui_menu_len(const struct ui *u)
{
	return u->menu == UI_MENU_SIGNAL ? UI_NSIGS : UI_NCOLS;
}

static void ui_menu_accept(struct ui *u, enum ui_menu m)
{
	if (m == UI_MENU_SORT) {
		ui_set_sort(u, u->menu_sel);
		return;
	}
	const struct ui_sig *g = &ui_sigs[u->menu_sel];
	char done[32];
	snprintf(done, sizeof(done), "SIG%s sent to", g->name);
	ui_signal_targets(u, g->sig, g->action, done);
}

/* A key while a menu is open: nothing is done before Enter or y. */
static void ui_menu_key(struct ui *u, int ch)
{
	int n = ui_menu_len(u);
	enum ui_menu m = u->menu;
	if (ch == KEY_UP || ch == KEY_DOWN) {
		u->menu_sel = (u->menu_sel + (ch == KEY_UP ? n - 1 : 1)) % n;
	} else if (ch == KEY_HOME || ch == KEY_END) {
		u->menu_sel = ch == KEY_HOME ? 0 : n - 1;
	} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER || ch == 'y') {
		u->menu = UI_MENU_NONE;
		ui_menu_accept(u, m);
	} else if (ch == UI_KEY_ESC || ch == 'n') {
		u->menu = UI_MENU_NONE;
		ui_message(u, "%s: nothing done", m == UI_MENU_SIGNAL ? "no signal sent" : "sort unchanged");
	} else if (ch >= '1' && ch < '1' + n && ch <= '9') {
		u->menu_sel = ch - '1';
	} else if (m == UI_MENU_SIGNAL) {
		for (int i = 0; i < UI_NSIGS; i++)
			if (ui_sigs[i].key == ch)
				u->menu_sel = i;
	}
}

/* ---- drawing: header, summary, key bar ---- */

static void ui_clock(char *buf, size_t n, int64_t ns)
{
	long s = (long)(ns / GD_NS_PER_S);
	snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

/* The run's settings; the compact form where the long one does not fit in width. */
static int ui_settings(const struct ui *u, char p[][96], int width)
{
	const struct gd_opts *o = &u->s.o;
	for (int c = 0; c < 2; c++) {
		snprintf(p[0], 96, c ? "%u sym" : "size %u", (unsigned)o->size);
		if (o->kernel) /* a user kernel: its arguments' types are its own */
			snprintf(p[1], 96, c ? "%s" : "kernel %s", o->kernel_name);
		else
			snprintf(p[1], 96, c ? "%s" : "dtype %s", gd_dtype_name(o->dtype));
		snprintf(p[2], 96, c ? "%u launches" : "launches %u", (unsigned)o->launches);
		snprintf(p[3], 96, c ? "%s" : "mode %s", gd_mode_name(o->mode));
		snprintf(p[4], 96, c ? "every %g s" : "interval %g s", o->interval);
		snprintf(p[5], 96, "timebase %s", gd_timebase_name(u->s.frame.timebase));
		int len = 0;
		for (int i = 0; i < 6; i++)
			len += (int)strlen(p[i]) + 2;
		if (len - 2 <= width)
			break;
	}
	return 6;
}

static void ui_draw_header(struct ui *u, WINDOW *w, int64_t now)
{
	char clock[32], right[64], dev[160], sort[64], p[6][96];
	ui_clock(clock, sizeof(clock), now - u->s.t0);
	snprintf(right, sizeof(right), "%selapsed %s", sup_paused(u->s.sup) ? "PAUSED  " : "", clock);
	snprintf(sort, sizeof(sort), "sort: %s ", ui_col_head(u, u->sort));
	/* Right to left: the clock, the sort with its arrow (one cell, pointing the way values grow
	 * down the table); the device's name and version give way to both. */
	int sx = getmaxx(w) - (int)strlen(right) - 2 - 1 - (int)strlen(sort);
	int limit = sx - 2;
	ui_put(w, 0, 0, ui_attr(u, UI_P_HEAD), GD_NAME);
	int x = (int)strlen(GD_NAME) + 2;
	if (u->s.ndevs > 1) { /* each device's name heads its group below */
		int n = snprintf(dev, sizeof(dev), "%d devices:", u->s.ndevs);
		for (int d = 0; d < u->s.ndevs && n < (int)sizeof(dev); d++)
			n += snprintf(dev + n, sizeof(dev) - (size_t)n, " %s", u->s.refs[d]);
	} else {
		snprintf(dev, sizeof(dev), "%s %s", u->s.refs[0], u->s.devs[0].name);
	}
	if (x < limit)
		ui_putf(w, 0, x, ui_attr(u, UI_P_HEAD), "%.*s", limit - x, dev);
	x += (int)strlen(dev) + 2;
	if (x < limit && u->s.ndevs == 1)
		ui_putf(w, 0, x, A_NORMAL, "%.*s", limit - x, u->s.devs[0].version);
	ui_put(w, 0, sx, A_NORMAL, sort);
	wattrset(w, A_BOLD);
	int ax = sx + (int)strlen(sort);
	if (u->utf8)
		mvwaddnwstr(w, 0, ax, u->sort_desc ? L"\u25bc" : L"\u25b2", 1);
	else
		mvwaddch(w, 0, ax, u->sort_desc ? 'v' : '^');
	wattrset(w, A_NORMAL);
	ui_put_right(w, 0, ui_attr(u, sup_paused(u->s.sup) ? UI_P_WARN : UI_P_NONE), right);
	ui_pieces(w, 1, 0, getmaxx(w), A_NORMAL, p, ui_settings(u, p, getmaxx(w)));
}

static void ui_draw_summary(struct ui *u, WINDOW *w)
{
	const struct gd_frame *f = &u->s.frame;
	char head[32], ceil[32], pct[32], p[6][96];
	chart_num(head, sizeof(head), 12, u->mbit.n ? f->headroom : NAN, 1);
	chart_num(ceil, sizeof(ceil), 12, u->s.ceiling.rate, 1);
	chart_num(pct, sizeof(pct), 8, u->mbit.n ? 100 * f->of_ceiling : NAN, 1);
	if (isnan(u->s.ceiling.rate))
		snprintf(p[0], sizeof(p[0]), "headroom~ %s %s (estimate; c calibrates)", head,
		         opts_rate_unit(&u->s.o));
	else
		snprintf(p[0], sizeof(p[0]), "ceiling %s %s, at %s%%", ceil, opts_rate_unit(&u->s.o), pct);
	snprintf(p[1], sizeof(p[1]), "workers %d/%d", sup_live(u->s.sup), u->s.o.max_procs);
	snprintf(p[2], sizeof(p[2]), "lost %llu", (unsigned long long)f->agg.lost);
	snprintf(p[3], sizeof(p[3]), "profile %s", gd_profile_name(u->s.o.profile));
	snprintf(p[4], sizeof(p[4]), "timebase %s", gd_timebase_name(f->timebase));
	snprintf(p[5], sizeof(p[5]), "%s", f->busy_from_sum ? "busy: sum of workers (no clock mapping)" : "");
	ui_pieces(w, 0, 0, getmaxx(w), A_NORMAL, p, 6);
}

static void ui_draw_keybar(struct ui *u, WINDOW *w, int64_t now)
{
	if (now < u->msg_until) {
		ui_put(w, 0, 0, ui_attr(u, UI_P_WARN), u->msg);
		return;
	}
	int x = 0, last = 0;
	for (size_t i = 0; i < ui_nkeys; i++)
		if (ui_keys[i].bar)
			last = (int)i;
	int keep = (int)(strlen(ui_keys[last].bar) + 1 + strlen(ui_keys[last].word));
	for (int i = 0; i < (int)ui_nkeys; i++) {
		const struct ui_key *k = &ui_keys[i];
		if (!k->bar)
			continue;
		int len = (int)(strlen(k->bar) + 1 + strlen(k->word));
		if (x + len + (i == last ? 0 : 2 + keep) > getmaxx(w))
			continue;
		ui_put(w, 0, x, ui_attr(u, UI_P_KEY), k->bar);
		ui_put(w, 0, x + (int)strlen(k->bar) + 1, A_NORMAL, k->word);
		x += len + 2;
	}
}

/* x of each shown column (-1: hidden); returns where the breakdown bar starts. */
static int ui_col_x(int cols, int *xs)
{
	int x = 1; /* column 0 holds the selection mark */
	for (size_t i = 0; i < GD_ARRAY_LEN(ui_cols); i++) {
		xs[i] = cols >= ui_cols[i].min_cols ? x : -1;
		if (xs[i] >= 0)
			x += ui_cols[i].width;
	}
	return x; /* every column ends in a blank: the bar needs no gap of its own */
}

static const struct {
	char ch;
	enum ui_pair pair;
	size_t off;
} ui_segs[] = {
	{ .ch = 'g', .pair = UI_P_SEG_GEN, .off = offsetof(struct gd_breakdown, gen_us) },
	{ .ch = 'w', .pair = UI_P_SEG_H2D, .off = offsetof(struct gd_breakdown, h2d_us) },
	{ .ch = 'q', .pair = UI_P_SEG_QWAIT, .off = offsetof(struct gd_breakdown, queue_wait_us) },
	{ .ch = 'k', .pair = UI_P_SEG_KERNEL, .off = offsetof(struct gd_breakdown, kernel_us) },
	{ .ch = 'r', .pair = UI_P_SEG_D2H, .off = offsetof(struct gd_breakdown, d2h_us) },
	{ .ch = 'o', .pair = UI_P_SEG_OTHER, .off = offsetof(struct gd_breakdown, other_us) },
};
#define UI_NSEGS ((int)GD_ARRAY_LEN(ui_segs))

/* The batch breakdown as a stacked bar: cells shared out by largest remainder. */
static void ui_bar(struct ui *u, WINDOW *w, int y, int x, int width, attr_t base,
                   const struct gd_breakdown *bd)
{
	double v[UI_NSEGS];
	int cells[UI_NSEGS];
	for (int i = 0; i < UI_NSEGS; i++)
		memcpy(&v[i], (const char *)bd + ui_segs[i].off, sizeof(double));
	if (!chart_split(v, UI_NSEGS, width, cells)) {
		ui_put(w, y, x, base, "n/a");
		return;
	}
	for (int i = 0; i < UI_NSEGS; i++) {
		char seg[UI_GRAPH_MAXW];
		int n = cells[i] < (int)sizeof(seg) - 1 ? cells[i] : (int)sizeof(seg) - 1;
		memset(seg, ui_segs[i].ch, (size_t)n);
		seg[n] = '\0';
		ui_put(w, y, x, base | ui_attr(u, ui_segs[i].pair), seg);
		x += cells[i];
	}
}

/* One worker's row. Column 0: * when tagged, else > when selected; the selected row is
 * drawn in reverse video either way. */
static void ui_draw_row(struct ui *u, WINDOW *w, int y, const struct gd_sample *s, bool sel)
{
	int xs[GD_ARRAY_LEN(ui_cols)];
	int bar = ui_col_x(getmaxx(w), xs);
	attr_t base = sel ? A_REVERSE : A_NORMAL;
	bool tagged = ui_tag_index(u, s->id) >= 0;
	if (sel) {
		wattrset(w, base);
		mvwhline(w, y, 0, ' ', getmaxx(w));
	}
	if (sel || tagged)
		ui_put(w, y, 0, base | A_BOLD, tagged ? "*" : ">");
	enum ui_pair sp = (unsigned)s->state < GD_ST_COUNT ? ui_state_pair[s->state] : UI_P_BAD;
	for (size_t i = 0; i < GD_ARRAY_LEN(ui_cols); i++) {
		if (xs[i] < 0)
			continue;
		const struct ui_col *c = &ui_cols[i];
		char cell[64];
		if (s->state == GD_ST_FAILED && c->kind != UI_K_ID && c->kind != UI_K_PID &&
		    c->kind != UI_K_STATE) {
			/* A failed worker's numbers mean nothing: its error takes the rest of the row. */
			ui_putf(w, y, xs[i] + 1, base | ui_attr(u, UI_P_BAD), "%s", s->error);
			return;
		}
		ui_cell(cell, sizeof(cell), c, s);
		attr_t a = base | (c->kind == UI_K_STATE ? ui_attr(u, sp) : A_NORMAL);
		if (c->kind == UI_K_STATE)
			ui_putf(w, y, xs[i] + 1, a, "%-*s", c->width - 1, cell);
		else
			ui_putf(w, y, xs[i], a, "%*s", c->width - 1, cell);
	}
	int bw = getmaxx(w) - bar;
	if (s->error[0] && s->state == GD_ST_EXITED)
		ui_put(w, y, bar, base | ui_attr(u, UI_P_DIM), s->error);
	else if (bw >= 3)
		ui_bar(u, w, y, bar, bw, base, &s->bd);
}

/* A device's line heading its group: P:D and name, its rate, busy, ceiling share, workers. */
static void ui_draw_device(struct ui *u, WINDOW *w, int y, int d)
{
	const struct gd_devframe *df = &u->s.frame.devs[d];
	const struct gd_device *dev = &u->s.devs[d];
	char mbit[32], busy[32], pct[32] = "n/a";
	chart_num(mbit, sizeof(mbit), 10, df->agg.rate, 2);
	chart_num(busy, sizeof(busy), 8, 100 * df->device_busy, 1);
	if (!isnan(df->of_ceiling))
		snprintf(pct, sizeof(pct), "%.1f%%", 100 * df->of_ceiling);
	ui_putf(w, y, 1, ui_attr(u, UI_P_HEAD), "%s %.40s  %s %s  busy %s%%  ceiling %s  workers %d",
	        u->s.refs[d], dev->name, mbit, opts_rate_unit(&u->s.o), busy, pct, df->procs);
}

static void ui_draw_table(struct ui *u, WINDOW *w)
{
	const struct gd_frame *f = &u->s.frame;
	int xs[GD_ARRAY_LEN(ui_cols)];
	int bar = ui_col_x(getmaxx(w), xs);
	wattrset(w, ui_attr(u, UI_P_COLS));
	mvwhline(w, 0, 0, ' ', getmaxx(w));
	for (size_t i = 0; i < GD_ARRAY_LEN(ui_cols); i++)
		if (xs[i] >= 0)
			ui_putf(w, 0, xs[i], ui_attr(u, UI_P_COLS),
			        ui_cols[i].kind == UI_K_STATE ? " %-*s" : "%*s", ui_cols[i].width - 1,
			        ui_col_head(u, i));
	ui_put(w, 0, bar, ui_attr(u, UI_P_COLS),
	       getmaxx(w) - bar >= 21 ? "breakdown g w q k r o" : "breakdown");
	ui_follow(u);
	int rows = u->lay.table_rows, nl = ui_nlines(u);
	if (nl > rows) {
		char more[48];
		snprintf(more, sizeof(more), " rows %d-%d of %d ", u->top + 1, u->top + rows, nl);
		ui_put_right(w, 0, ui_attr(u, UI_P_COLS) | A_BOLD, more);
	}
	if (f->nworkers == 0 && !ui_grouped(u))
		ui_put(w, 1, 1, ui_attr(u, UI_P_DIM),
		       u->mbit.n ? "no workers: press + to start one" : "waiting for the first interval");
	/* Line by line: each device's heading (grouped), then its workers. */
	int line = 0, p = 0;
	for (int d = 0; d < (ui_grouped(u) ? f->ndevs : 1); d++) {
		if (ui_grouped(u)) {
			if (line >= u->top && line < u->top + rows)
				ui_draw_device(u, w, 1 + line - u->top, d);
			line++;
		}
		for (; p < f->nworkers && (!ui_grouped(u) || ui_row(u, p)->device == d); p++, line++)
			if (line >= u->top && line < u->top + rows)
				ui_draw_row(u, w, 1 + line - u->top, ui_row(u, p), p == u->sel);
	}
}

/* ---- drawing: whole screens ---- */

static void ui_draw_small(struct ui *u, WINDOW *w)
{
	int y = getmaxy(w) / 2, width = getmaxx(w);
	char a[64], b[64];
	snprintf(a, sizeof(a), "terminal too small: need %dx%d", LAYOUT_MIN_W, LAYOUT_MIN_H);
	snprintf(b, sizeof(b), "now %dx%d; q quits", u->lay.cols, u->lay.lines);
	int xa = (width - (int)strlen(a)) / 2, xb = (width - (int)strlen(b)) / 2;
	ui_put(w, y > 0 ? y - 1 : 0, xa > 0 ? xa : 0, ui_attr(u, UI_P_BAD), a);
	ui_put(w, y, xb > 0 ? xb : 0, A_NORMAL, b);
}

static const char *const ui_help_notes[] = {
	"Columns: id, pid, state; Mbit/s decoded in the last interval; batches since the",
	"start or the last reset; kbusy% device time of its kernels per interval; kgap_us",
	"mean gap between kernels of a batch; bgap_us mean gap between batches; lost",
	"samples that could not be read; qwait_us queued behind other work (wide screens).",
	"Breakdown of a batch's wall time: g generate on the host, w host-to-device copy,",
	"q queued, k kernels, r device-to-host copy, o the rest. n/a: not measured.",
	"headroom~: Mbit/s / device busy, an estimate; c measures the ceiling instead.",
	"Rows: > selected, * tagged. The header shows the sort column and its direction.",
	"The graphs headed \"worker N\" are the selected worker's own history.",
	"Logs also give p50 and p99 of kgap and bgap (gap_kernel_p50_us ...): the median",
	"and 99th percentile of each interval's gaps, per worker and over all workers.",
	"With --kernel, Mitem/s (the kernel's work items) stands wherever Mbit/s does.",
};

/* The help is one list of lines: a title, the key table, the notes. */
static int ui_help_len(void)
{
	return 3 + (int)ui_nkeys + (int)GD_ARRAY_LEN(ui_help_notes);
}

static void ui_help_line(struct ui *u, WINDOW *w, int y, int i)
{
	int nk = (int)ui_nkeys;
	if (i == 0) {
		ui_put(w, y, 0, ui_attr(u, UI_P_HEAD), GD_NAME " " GD_VERSION ": keys");
	} else if (i >= 2 && i < 2 + nk) {
		ui_put(w, y, 2, ui_attr(u, UI_P_KEY), ui_keys[i - 2].label);
		ui_put(w, y, 14, A_NORMAL, ui_keys[i - 2].help);
	} else if (i >= 3 + nk) {
		ui_put(w, y, 0, A_NORMAL, ui_help_notes[i - 3 - nk]);
	}
}

/* The help from line help_top; where it does not fit, the arrows and pages scroll it. */
static void ui_draw_help(struct ui *u, WINDOW *w)
{
	int rows = getmaxy(w) - 1, total = ui_help_len();
	int most = total - rows > 0 ? total - rows : 0;
	u->help_top = u->help_top < 0 ? 0 : u->help_top > most ? most : u->help_top;
	for (int y = 0; y < rows && u->help_top + y < total; y++)
		ui_help_line(u, w, y, u->help_top + y);
	if (most == 0)
		ui_put(w, rows, 0, ui_attr(u, UI_P_DIM),
		       "Esc or any key but the arrows and page keys closes this screen.");
	else
		ui_putf(w, rows, 0, ui_attr(u, UI_P_DIM),
		        "lines %d-%d of %d: Up/Down/PgUp/PgDn scroll, Esc or any other key closes",
		        u->help_top + 1, u->help_top + rows, total);
}

static void ui_help_key(struct ui *u, int ch)
{
	int page = LINES > 3 ? LINES - 2 : 1;
	switch (ch) {
	case KEY_UP:
		u->help_top--;
		break;
	case KEY_DOWN:
		u->help_top++;
		break;
	case KEY_PPAGE:
		u->help_top -= page;
		break;
	case KEY_NPAGE:
		u->help_top += page;
		break;
	case KEY_HOME:
		u->help_top = 0;
		break;
	case KEY_END:
		u->help_top = ui_help_len();
		break;
	default:
		u->help = false;
	}
}

/* The open menu, in a box over the middle of the screen; the highlighted item in reverse. */
static void ui_draw_menu(struct ui *u)
{
	char title[96], items[UI_NCOLS > UI_NSIGS ? UI_NCOLS : UI_NSIGS][80];
	int n = ui_menu_len(u);
	const char *foot;
	if (u->menu == UI_MENU_SIGNAL) {
		int i = sup_find(u->s.sup, u->sel_id);
		struct gd_worker_info w = { .pid = 0 };
		if (i >= 0)
			sup_worker(u->s.sup, i, &w);
		if (u->ntags)
			snprintf(title, sizeof(title), "signal to %d tagged worker%s", u->ntags,
			         u->ntags > 1 ? "s" : "");
		else
			snprintf(title, sizeof(title), "signal to worker %u (pid %d)", u->sel_id, (int)w.pid);
		for (int k = 0; k < n; k++)
			snprintf(items[k], sizeof(items[k]), "%c  %s  %s", ui_sigs[k].key, ui_sigs[k].name,
			         ui_sigs[k].what);
		foot = "Enter/y send  Esc/n cancel";
	} else {
		snprintf(title, sizeof(title), "sort by (now %s)", ui_col_head(u, u->sort));
		for (int k = 0; k < n; k++)
			snprintf(items[k], sizeof(items[k]), "%s", ui_col_head(u, k));
		foot = "Enter/y sort  Esc/n cancel";
	}
	int width = (int)strlen(foot) > (int)strlen(title) ? (int)strlen(foot) : (int)strlen(title);
	for (int k = 0; k < n; k++)
		width = (int)strlen(items[k]) > width ? (int)strlen(items[k]) : width;
	width = width + 4 < COLS ? width + 4 : COLS;
	int height = n + 4 < LINES ? n + 4 : LINES;
	int shown = height - 4, top = u->menu_sel >= shown ? u->menu_sel - shown + 1 : 0;
	WINDOW *m = newwin(height, width, (LINES - height) / 2, (COLS - width) / 2);
	if (!m)
		return;
	werase(m);
	box(m, 0, 0);
	ui_put(m, 1, 2, ui_attr(u, UI_P_HEAD), title);
	for (int r = 0; r < shown && top + r < n; r++) {
		attr_t a = top + r == u->menu_sel ? A_REVERSE : A_NORMAL;
		wattrset(m, a);
		mvwhline(m, 2 + r, 1, ' ', width - 2);
		ui_put(m, 2 + r, 2, a, items[top + r]);
	}
	ui_put(m, height - 2, 2, ui_attr(u, UI_P_DIM), foot);
	wnoutrefresh(m);
	delwin(m);
}

static void ui_draw(struct ui *u, int64_t now)
{
	/* stdscr is never drawn on; refreshing it first keeps getch from refreshing it later. */
	wnoutrefresh(stdscr);
	if (u->lay.too_small || u->help) {
		werase(u->full);
		if (u->lay.too_small)
			ui_draw_small(u, u->full);
		else
			ui_draw_help(u, u->full);
		wnoutrefresh(u->full);
	} else {
		for (int i = 0; i < LAYOUT_NPARTS; i++)
			if (u->part[i])
				werase(u->part[i]);
		ui_draw_header(u, u->part[LAYOUT_HEADER], now);
		ui_draw_table(u, u->part[LAYOUT_TABLE]); /* first: it settles the selection */
		ui_draw_tput(u, u->part[LAYOUT_TPUT]);
		ui_draw_busy(u, u->part[LAYOUT_BUSY]);
		if (u->lay.worker_graphs) {
			ui_draw_worker(u, u->part[LAYOUT_WTPUT], &u->lay.wtput_graph, false);
			ui_draw_worker(u, u->part[LAYOUT_WBUSY], &u->lay.wbusy_graph, true);
		}
		ui_draw_summary(u, u->part[LAYOUT_SUMMARY]);
		ui_draw_keybar(u, u->part[LAYOUT_KEYBAR], now);
		for (int i = 0; i < LAYOUT_NPARTS; i++)
			if (u->part[i])
				wnoutrefresh(u->part[i]);
		if (u->menu != UI_MENU_NONE)
			ui_draw_menu(u);
	}
	doupdate(); /* one screen update per frame: no flicker */
	u->last_draw = now;
	u->dirty = false;
}

/* ---- windows ---- */

static void ui_free_windows(struct ui *u)
{
	for (int i = 0; i < LAYOUT_NPARTS; i++)
		if (u->part[i])
			delwin(u->part[i]);
	if (u->full)
		delwin(u->full);
	memset(u->part, 0, sizeof(u->part));
	u->full = NULL;
	u->have_windows = false;
}

/* The same size and the same rectangles: the windows can stay. */
static bool ui_same_layout(const struct layout *a, const struct layout *b)
{
	if (a->cols != b->cols || a->lines != b->lines || a->too_small != b->too_small)
		return false;
	for (int i = 0; i < LAYOUT_NPARTS; i++) {
		const struct layout_rect *x = &a->part[i], *y = &b->part[i];
		if (x->y != y->y || x->x != y->x || x->h != y->h || x->w != y->w)
			return false;
	}
	return true;
}

/* Recomputes the layout and makes new windows when it changed. Returns -1 on failure. */
static int ui_windows(struct ui *u)
{
	struct layout l;
	layout_compute(COLS, LINES, ui_nlines(u), &l);
	if (u->have_windows && ui_same_layout(&l, &u->lay))
		return 0;
	ui_free_windows(u);
	u->lay = l;
	u->dirty = true;
	if (!(u->full = newwin(LINES, COLS, 0, 0)))
		return -1;
	if (!l.too_small)
		for (int i = 0; i < LAYOUT_NPARTS; i++) {
			const struct layout_rect *r = &l.part[i];
			if (r->h == 0 || r->w == 0)
				continue; /* an empty part has no window (newwin would make it full-screen) */
			if (!(u->part[i] = newwin(r->h, r->w, r->y, r->x)))
				return -1;
		}
	u->have_windows = true;
	return 0;
}

static void ui_key(struct ui *u, int ch)
{
	u->dirty = true;
	if (ch == KEY_RESIZE)
		return; /* the windows follow in the loop */
	if (u->help) {
		ui_help_key(u, ch);
		return;
	}
	if (u->menu != UI_MENU_NONE) {
		ui_menu_key(u, ch);
		return;
	}
	for (size_t i = 0; i < ui_nkeys; i++)
		for (int j = 0; j < 4 && ui_keys[i].keys[j]; j++)
			if (ui_keys[i].keys[j] == ch) {
				ui_keys[i].act(u, ch);
				return;
			}
}

/* ---- set-up, the loop, tear-down ---- */

/* Keeps stray messages (the OpenCL runtime's, the tool's own) off the curses screen; they
 * are replayed once the terminal is restored. */
static void ui_capture_stderr(struct ui *u)
{
	u->saved_stderr = -1;
	fflush(stderr);
	if (!(u->captured = tmpfile()))
		return;
	if ((u->saved_stderr = dup(STDERR_FILENO)) < 0 || dup2(fileno(u->captured), STDERR_FILENO) < 0) {
		fclose(u->captured);
		u->captured = NULL;
	}
}

static void ui_release_stderr(struct ui *u)
{
	if (!u->captured)
		return;
	fflush(stderr);
	dup2(u->saved_stderr, STDERR_FILENO);
	close(u->saved_stderr);
	rewind(u->captured);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), u->captured)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(u->captured);
	u->captured = NULL;
}

static void ui_colours(struct ui *u)
{
	const char *no = getenv("NO_COLOR");
	u->colour = has_colors() && !(no && *no);
	if (!u->colour || start_color() == ERR) {
		u->colour = false;
		return;
	}
	use_default_colors();
	for (int i = 1; i < UI_P_COUNT; i++)
		init_pair((short)i, ui_pairs[i].fg, ui_pairs[i].bg);
}

/* Returns 0, or -1 with u->fatal set when the terminal cannot be driven. */
static int ui_begin(struct ui *u)
{
	setlocale(LC_CTYPE, ""); /* characters only: numbers in the log and trace stay "C" */
	u->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	ui_capture_stderr(u);
	/* newterm, not initscr: an unusable TERM is reported instead of ending the process. */
	if (!(u->scr = newterm(NULL, stdout, stdin))) {
		const char *term = getenv("TERM");
		snprintf(u->fatal, sizeof(u->fatal), "cannot drive terminal type '%s' (use --headless)",
		         term ? term : "");
		return -1;
	}
	set_term(u->scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	set_escdelay(25); /* F10 and arrows arrive as escape sequences */
	curs_set(0);
	ui_colours(u);
	refresh();
	return 0;
}

static void ui_end(struct ui *u)
{
	if (u->scr) {
		ui_free_windows(u);
		/* Without an alternate screen the last frame stays: blank the key bar, where the
		 * shell's next line goes. */
		wattrset(stdscr, A_NORMAL);
		mvwhline(stdscr, LINES - 1, 0, ' ', COLS);
		wrefresh(stdscr);
		endwin();
		delscreen(u->scr);
		u->scr = NULL;
	}
	ui_release_stderr(u);
}

static void ui_frame(struct ui *u)
{
	const struct gd_frame *f = &u->s.frame;
	if (u->log && !u->fatal[0] && sink_frame(u->log, f)) {
		snprintf(u->fatal, sizeof(u->fatal), "%s", sink_error(u->log));
		u->quit = true;
	}
	chart_push(&u->mbit, f->agg.rate);
	chart_push(&u->busy, f->device_busy);
	ui_whist_push(u);
	ui_drop_ended_tags(u);
	if (!f->observed)
		ui_message(u, "%.1f s not observed (the dashboard was stopped): no figures for it",
		           f->window_s);
	int ended = sup_count(u->s.sup) - sup_live(u->s.sup);
	if (ended > UI_ENDED_KEEP)
		session_prune(&u->s); /* they were shown; the next frame drops them */
	u->dirty = true;
}

static void ui_loop(struct ui *u)
{
	while (!u->quit && !gd_quit_signal && !session_done(&u->s)) {
		int64_t now = now_ns();
		if (session_poll(&u->s, now))
			ui_frame(u);
		if (u->s.calib_msg[0]) { /* a calibration ended: its figure, or why it failed */
			ui_message(u, "%s", u->s.calib_msg);
			u->s.calib_msg[0] = '\0';
			u->dirty = true;
		}
		if (ui_windows(u)) {
			snprintf(u->fatal, sizeof(u->fatal), "cannot create curses windows (%dx%d)", COLS,
			         LINES);
			return;
		}
		if (u->dirty || now - u->last_draw >= UI_CLOCK_NS || (u->msg_until && now >= u->msg_until)) {
			if (now >= u->msg_until)
				u->msg_until = 0;
			ui_draw(u, now);
		}
		/* Never block on the workers: wait for a key at most until the next poll is due. */
		int64_t wait = session_wait(&u->s, now_ns());
		timeout((int)((wait + 999999) / 1000000));
		int ch = getch();
		if (ch != ERR)
			ui_key(u, ch);
	}
}

int dashboard_run(const struct gd_opts *o, const struct gd_device *devs, int ndev, struct gd_sink *sink,
                  struct gd_trace *trace, struct gd_prom *prom)
{
	struct ui *u = xcalloc(1, sizeof(*u));
	char err[256];
	ui_set_sort(u, 0); /* by id, as started */
	int status = GD_EXIT_OK;
	u->log = sink;
	if (ui_begin(u)) {
		ui_end(u);
		fprintf(stderr, GD_NAME ": %s\n", u->fatal);
		trace_close(trace, err, sizeof(err));
		prom_close(prom, NULL, 0);
		sink_close(sink, err, sizeof(err));
		free(u);
		return GD_EXIT_USAGE;
	}
	if (session_start(&u->s, o, devs, ndev, trace, prom, err, sizeof(err))) {
		snprintf(u->fatal, sizeof(u->fatal), "%s", err);
		status = GD_EXIT_FAIL;
	} else {
		ui_loop(u);
		if (u->fatal[0])
			status = GD_EXIT_FAIL;
	}
	ui_end(u); /* the terminal first: everything after this may print */
	if (u->fatal[0])
		fprintf(stderr, GD_NAME ": %s\n", u->fatal);
	char why[512];
	if (session_stop(&u->s, why, sizeof(why)) != 0) {
		fprintf(stderr, GD_NAME ": %s\n", why);
		status = GD_EXIT_FAIL;
	}
	if (sink_close(u->log, why, sizeof(why)) != 0) {
		fprintf(stderr, GD_NAME ": %s\n", why);
		status = GD_EXIT_FAIL;
	}
	ui_whist_clear(u);
	free(u->wh);
	free(u->tags);
	free(u->order);
	free(u);
	return status;
}

/* ---- whether the terminal can host the dashboard ---- */

/* Included last: term.h defines macros (lines, columns and the other capability names) that
 * the code above uses as ordinary names. */
#include <term.h>

int dashboard_check_terminal(char *err, size_t errlen)
{
	const char *term = getenv("TERM");
	int status = 0;
	if (setupterm(NULL, STDOUT_FILENO, &status) != OK) {
		snprintf(err, errlen, "unknown terminal type '%s' (use --headless)", term ? term : "");
		return -1;
	}
	const char *cup = tigetstr("cup");
	bool addressable = cup && (intptr_t)cup != -1; /* -1: not a string capability */
	del_curterm(cur_term);
	if (!addressable) {
		snprintf(err, errlen, "terminal type '%s' cannot move the cursor (use --headless)",
		         term ? term : "");
		return -1;
	}
	return 0;
}

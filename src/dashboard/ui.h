/* ui.h: the dashboard's own header, shared by its files and by nothing else. The dashboard
 * reads the run through the session's queries and acts on it through its verbs; what it keeps
 * itself (the selection, the sort, the tags, the histories, the open menu) is struct ui, a part
 * for each screen, each screen's files using their own. */
#ifndef GPUTOP_DASHBOARD_UI_H
#define GPUTOP_DASHBOARD_UI_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* the wide-character functions of ncursesw */
#endif

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chart.h"
#include "gputop/common.h"
#include "dashboard.h"
#include "layout.h"
#include "gputop/session.h"

struct gd_outputs;

#define UI_GRAPH_MAXW 1024 /* graph columns drawn at most */
#define UI_KEY_ESC    27
#define UI_NCOLS      19 /* the worker table's columns (columns.c), the breakdown bar apart */

/* What a key's handler asks of the loop, as bits (htop's Htop_Reaction): a handler changes
 * only struct ui and the session, and says what follows. */
typedef unsigned ui_reaction;
enum {
	UI_R_DRAW = 1u << 0, /* the screen changed: draw it */
	UI_R_QUIT = 1u << 1, /* end the run */
};

/* ---- colours and attributes (colours.c) ---- */

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
	UI_P_SORT, /* the sort column's head */
	UI_P_SEG_GEN,
	UI_P_SEG_H2D,
	UI_P_SEG_KERNEL,
	UI_P_SEG_D2H,
	UI_P_SEG_OTHER,
	UI_P_SEG_QWAIT,
	UI_P_COUNT
};

/* ---- state ---- */

/* One worker's history, one value per frame, aligned with the aggregate's: value k of both
 * is frame k, NAN before the worker was listed. */
struct ui_whist {
	unsigned id;
	struct chart_hist rate, busy; /* its rate and kernel busy (0..1) */
	struct gd_sample last;        /* its latest sample with a batch completed in the window */
	bool has_last;
	double run_s;      /* time it was at work, over the windows seen, and ... */
	uint64_t run_bats; /* ... the batches it completed then: its time a batch */
	int64_t ended;     /* when it was first seen ended (host ns); 0: not ended */
};

struct ui;

/* A key's action: what it changed (struct ui, the session) and what the loop does next. */
typedef ui_reaction ui_act_fn(struct ui *u, int key);

/* A menu open over the screen (menu.c draws it and moves its highlight, as htop's Panel);
 * each menu's own file says what its items are and what choosing one does. */
struct ui_menu {
	const char *foot;      /* its keys, at its foot */
	const char *cancelled; /* the key bar's words when it is closed with nothing done */
	int nitems;            /* its items */
	void (*title)(const struct ui *u, char *buf, size_t n);
	void (*item)(const struct ui *u, int k, char *buf, size_t n);
	/* A key while it is open: its own keys, then ui_menu_key's. */
	ui_act_fn *key;
	/* Item k was chosen (the menu is closed); NULL for a menu whose keys act at once. */
	ui_reaction (*choose)(struct ui *u, int k);
};

/* The terminal and the windows of the layout (terminal.c, paint.c, colours.c, mouse.c). */
struct ui_term {
	SCREEN *scr;
	struct layout lay;
	bool have_windows;
	WINDOW *part[LAYOUT_NPARTS];
	WINDOW *full; /* the screens that take it whole: help, diagnosis, output, too small */
	bool colour, utf8;
	enum gd_colour colour_use; /* the colour setting (colours.c) */
	bool mouse;                /* clicks and the wheel (mouse.c) */
	int saved_stderr;          /* -1: stderr not captured */
	FILE *captured;
};

/* The worker table (rowtable.c): the rows' order and the selection, the sort (sort.c), the
 * columns (setup.c, F2) and the tags (tags.c). */
struct ui_table {
	unsigned sel_id;        /* selected worker, by id: rows come and go */
	bool sel_chosen;        /* the user chose it; until then a row with work is selected */
	bool keep_ended;        /* ended rows stay in the table (e); else they leave UI_ENDED_S after */
	int nshown;             /* the rows in order: the frame's, less those that left */
	int sel, top;           /* selected worker (a position in order) and first visible table line */
	int sort;               /* the column rows are sorted by (an index of ui_col) */
	bool sort_desc;         /* largest first */
	int colorder[UI_NCOLS]; /* every column, in the order drawn (the setup screen's, F2) */
	bool colon[UI_NCOLS];   /* by column index: shown (F2) */
	bool bar;               /* the breakdown bar shown, after the columns */
	int *order;             /* display position -> index in the frame's workers, grouped by device */
	int caporder;
	unsigned *tags; /* ids of the tagged workers: x, k and K act on them */
	int ntags;
};

/* The graphs' histories (history.c) and the columns of the one being drawn (graphs.c). */
struct ui_graphs {
	struct ui_whist **wh; /* every listed worker's history, by id */
	int nwh, capwh;
	struct chart_hist rate, busy; /* the aggregate's, one value per frame */
	double cols[UI_GRAPH_MAXW];
};

/* The menu open over the screen (menu.c). */
struct ui_menu_state {
	const struct ui_menu *open; /* or NULL */
	int sel;                    /* its highlighted item */
};

/* The message in the key bar's place (messages.c). */
struct ui_msg {
	char text[GD_ERR_LEN + 64];
	int64_t until; /* shown until then; 0: none */
	int64_t lasts; /* not drawn yet: how long it stays once it is (until waits for that) */
};

/* The help screen (help.c). */
struct ui_help {
	bool shown;
	int top; /* first help line shown, when the help does not fit */
};

/* The diagnosis screen, key d (diagnosis.c). */
struct ui_diag {
	bool shown;
	struct ui_strip *strip; /* its timeline's intervals: an output of the session's (NULL: none) */
};

/* The observed programs' output, key o (progout.c). */
struct ui_progout {
	bool shown;
	const char *path; /* where the observed programs' output goes; NULL: none */
};

/* The dashboard: the run it shows and acts on, the loop's own state, and each screen's part. */
struct ui {
	struct gd_session *s;
	struct gd_outputs *outs;                /* event rows: one for every action (NULL: none) */
	const struct gd_dashboard_config *conf; /* the bounds of -i for [ and ], the config file */
	int max_procs;                          /* workers alive at once, at most */
	double keep_interval; /* the interval the config file keeps (0: none): [ and ] set it */
	unsigned grace_kills; /* the supervisor's count of stops that ran out of their grace, seen */
	bool dirty;           /* the screen changed since it was last drawn */
	int64_t last_draw;
	int64_t now;        /* the time of the latest update: ended rows leave by it */
	bool observing;     /* -- COMMAND: the run ends with the program, and the screen stays */
	int64_t ended;      /* when the observed program ended (host ns); 0: it runs */
	char end_text[128]; /* "program exited (status N)" */
	char fatal[256];    /* why the run ends in failure; the loop stops once it is set */
	struct ui_term term;
	struct ui_table table;
	struct ui_graphs graphs;
	struct ui_menu_state menu;
	struct ui_msg msg;
	struct ui_help help;
	struct ui_diag diag;
	struct ui_progout progout;
};

/* ---- colours.c ---- */
void ui_colours(struct ui *u); /* after the terminal is set up */
attr_t ui_attr(const struct ui *u, enum ui_pair p);
enum ui_pair ui_state_pair(enum gd_state st);

/* ---- text.c: every write is clipped to its line, where curses would wrap ---- */
void ui_put(WINDOW *w, int y, int x, attr_t a, const char *s);
void ui_putf(WINDOW *w, int y, int x, attr_t a, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void ui_put_right(WINDOW *w, int y, attr_t a, const char *s);
/* How many bytes of s are its words that fit in room cells: all of s, or up to the last blank
 * before room, blanks trimmed; 0 when its first word does not fit. */
int ui_words(const char *s, int room);
/* s from x, as many of its words as fit before limit (the line's end at most), then an
 * ellipsis where words were left out: no word cut without one. */
void ui_put_words(WINDOW *w, int y, int x, int limit, attr_t a, const char *s);
/* Writes pieces left to right, two spaces apart, leaving out those that no longer fit
 * before limit: a field is shown whole or not at all. */
void ui_pieces(WINDOW *w, int y, int x, int limit, attr_t a, char pieces[][96], int n);
/* Whether the terminal takes UTF-8: text cut short ends in an ellipsis, else in "...". */
void ui_text_utf8(bool utf8);

/* ---- messages.c: the last line ---- */
/* A message in the key bar's place for a few seconds. */
void ui_message(struct ui *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message stays ns (ui_message: 4 s) from when it is first drawn. */
void ui_message_lasts(struct ui *u, int64_t ns);
void ui_draw_keybar(struct ui *u, WINDOW *w, int64_t now);

/* ---- columns.c: the worker table's columns ---- */

/* UI_K_BYTES: the driver's figure of memory, shown only where a vendor library lists the
 * processes on some device (src/vendor/). */
enum ui_kind { UI_K_ID, UI_K_PID, UI_K_STATE, UI_K_F, UI_K_PCT, UI_K_U64, UI_K_BYTES };

struct gd_figure;

/* A column: its name (in the config file and the setup screen), heading, what it shows, the
 * figure it shows (measure/figures.h: a worker's), its width, and its rank in the order of
 * importance: where the terminal is too narrow for every column, the highest ranks are left out
 * first (layout.h). Its name is its own: a key of the settings file, not always the figure's. */
struct ui_col {
	const char *name;
	const char *head; /* with its unit; NULL where rate says it */
	const char *desc; /* a few words for the setup screen */
	bool rate;        /* a rate: headed by the run's unit (Mbit/s, or Mitem/s for --kernel) */
	const struct gd_figure *fig;
	int width, rank;
	enum ui_kind kind;
	int prec;
	bool est;       /* a figure of device times: ~ after it where the window's were partly estimated */
	bool busy;      /* a figure of work under way: n/a for a worker not at work that completed no batch */
	bool pipelined; /* the pipelined workers' own: n/a in the other modes */
};

#define UI_RANK_NA 100 /* the rank of a column that does not apply to the run: it goes first */
const struct ui_col *ui_col(int i);
const char *ui_col_head(const struct ui *u, int i);
/* The column of that config name (or, for the rate, its unit), or -1. */
int ui_col_find(const char *name);
/* Column c's value in s, the number rows are sorted by; with text, also as the cell shows it
 * (followed by ~ when it rests partly on estimated device times: sample_estimated). */
double ui_col_value(const struct ui_col *c, const struct gd_sample *s, char *text, size_t n);
/* Column i's value in s as the table shows and sorts it: NAN and "n/a" where the column does
 * not apply (to the run's mode, or to a worker not at work that completed no batch). */
double ui_cell(const struct ui *u, int i, const struct gd_sample *s, char *text, size_t n);
/* Whether the column sorts largest first (numbers) or smallest first (id, pid, state). */
bool ui_col_desc(int i);
/* x of each column (by index) shown on a table width cells wide, -1 where it is hidden (F2)
 * or left out for room; returns where the breakdown bar starts. */
int ui_col_x(const struct ui *u, int width, int xs[UI_NCOLS]);
/* Whether a vendor library lists the processes on some device: the MEM column and the outside
 * rows are shown. */
bool ui_vendor_lists(const struct ui *u);
/* Bytes in at most 6 cells ("512K", "1.5G"); "n/a" for NAN. */
void ui_bytes(char *text, size_t n, double v);
/* "~" after a figure v of device times that rest partly on estimated ones (sample_estimated
 * of s, the sample they come from; --profile sampled), else "" (also for n/a). */
const char *ui_est(double v, const struct gd_sample *s);

/* ---- rowtable.c: the rows, the selection ---- */
/* The table's lines: a row for every worker, with several devices a heading line each. */
int ui_nlines(const struct ui *u);
/* Sorts the rows and keeps the selection on its worker (by id) and in view. */
void ui_follow(struct ui *u);
/* Moves the selection by rows (clamped to the table). */
void ui_move(struct ui *u, int by);
/* The position (in the order) of the worker drawn on line y of the table (0: the heads), as
 * last drawn; -1 for the heads, a device's heading or no row. */
int ui_row_at(const struct ui *u, int y);
/* Selects the worker at position p of the order. */
void ui_select(struct ui *u, int p);
void ui_draw_table(struct ui *u, WINDOW *w);

/* ---- sort.c: the sort column, its keys and its menu (F6) ---- */
void ui_set_sort(struct ui *u, int col);
/* By column col, or the other way round when it is the sort column already (a click). */
void ui_sort_by(struct ui *u, int col);
ui_act_fn ui_act_sort, ui_act_sort_menu, ui_act_invert;

/* ---- history.c: the aggregate's and the workers' histories ---- */
/* Adds a frame's values: the aggregate's, then every listed worker's; the histories of workers
 * no longer listed are dropped. */
void ui_history_push(struct ui *u, const struct gd_frame *f);
const struct ui_whist *ui_whist_find(const struct ui *u, unsigned id);
/* Forgets every history (the r key). */
void ui_history_clear(struct ui *u);
void ui_history_free(struct ui *u);
/* Whether a frame has come since the start or the last reset: before it nothing is measured. */
bool ui_measured(const struct ui *u);
/* For a row at work whose window completed no batch (a batch longer than the interval): its
 * latest sample that had one, whose figures are shown dimmed in place of n/a; else NULL. */
const struct gd_sample *ui_last_measured(const struct ui *u, const struct gd_sample *s);
/* The aggregate's latest measured rate (busy false) or device busy, for a window of f without
 * a batch while a row is at work; NAN otherwise. */
double ui_agg_last(const struct ui *u, const struct gd_frame *f, bool busy);
/* The longest time a batch of the rows at work, seconds (window time at work over batches
 * completed); NAN before any row completed two. */
double ui_batch_s(const struct ui *u);
/* ---- ended.c: ended rows leaving the table ---- */
/* Whether row s has left the table: ended UI_ENDED_S ago or more, unless e keeps them (and
 * never after the observed program ended: the last frame stays whole). */
bool ui_row_left(const struct ui *u, const struct gd_sample *s);
/* Forgets the ended rows once every one of them has left the table (or, kept, once there are
 * more than UI_ENDED_KEEP): the next frame no longer lists them. */
void ui_prune_ended(struct ui *u);
ui_act_fn ui_act_keep_ended;
/* Whether a row in state st has batches under way (running, stopping, stalled). */
bool ui_at_work(enum gd_state st);

/* ---- graphs.c ---- */
void ui_draw_tput(struct ui *u, WINDOW *w);
void ui_draw_busy(struct ui *u, WINDOW *w);
/* The selected worker's graph: its rate (busy false) or its kernel busy. */
void ui_draw_worker(struct ui *u, WINDOW *w, const struct layout_rect *g, bool busy);

/* ---- header.c: the header and the summary line ---- */
void ui_draw_header(struct ui *u, WINDOW *w, int64_t now);
void ui_draw_summary(struct ui *u, WINDOW *w);
/* The host cores f's workers kept busy: each its generation threads' busy share, at least 1. */
double ui_frame_cores(const struct gd_frame *f);
/* The diagnosis in words (diagnose_line) of frame f. */
void ui_diagnosis_words(const struct gd_frame *f, const char *unit, char *buf, size_t n);

/* ---- paint.c: windows and whole screens ---- */
/* Recomputes the layout and makes new windows when it changed. Returns -1 on failure. */
int ui_windows(struct ui *u);
void ui_free_windows(struct ui *u);
void ui_draw(struct ui *u, int64_t now);

/* ---- menu.c: the menu over the screen ---- */
/* Opens m with item sel highlighted; the screen is to be drawn again. */
ui_reaction ui_menu_open(struct ui *u, const struct ui_menu *m, int sel);
/* The keys every menu shares: arrows, Home, End and digits move the highlight, Enter or y
 * chooses, Esc or n closes it. Nothing is done before a choice. */
ui_reaction ui_menu_key(struct ui *u, int ch);
void ui_draw_menu(struct ui *u);

/* ---- diagnosis.c: the key d's screen ---- */
/* Adds the output that keeps the timeline's intervals to outs, before the session starts;
 * closing outs frees it. */
void ui_diag_attach(struct ui *u, struct gd_outputs *outs);
ui_act_fn ui_act_diagnosis;
void ui_draw_diagnosis(struct ui *u, WINDOW *w);

/* ---- progout.c: the key o's screen ---- */
ui_act_fn ui_act_progout;
void ui_draw_progout(struct ui *u, WINDOW *w);

/* ---- help.c ---- */
ui_act_fn ui_act_help, ui_help_key;
void ui_draw_help(struct ui *u, WINDOW *w);

/* ---- keys.c: the key table ---- */

/* A binding: the keys, how the help and the key bar name them, and what they do. */
struct ui_key {
	int keys[4];       /* 0 ends the list */
	const char *label; /* in the help screen */
	const char *bar;   /* in the key bar; NULL: not there */
	const char *word;
	const char *help;
	ui_act_fn *act;
	bool run; /* acts on the run: refused once the observed program has ended */
};
extern const struct ui_key ui_keys[];
extern const int ui_nkeys;
/* A key: to the help when it is open, else to the open menu, else to its binding. */
ui_reaction ui_key(struct ui *u, int ch);

/* ---- actions.c: actions on the run ---- */
/* An event row for an action on worker w (NULL: on all of them). An output that cannot take
 * it ends the dashboard, as a failed log ends a headless run. */
void ui_log(struct ui *u, const char *action, const struct gd_row_info *w);
ui_act_fn ui_act_spawn, ui_act_stop_newest, ui_act_interval, ui_act_pause, ui_act_reset, ui_act_calibrate;

/* ---- tags.c: tags, and the workers x, k and K act on ---- */
bool ui_tagged(const struct ui *u, unsigned id);
/* Tags stay on live workers only: an ended worker's tag is dropped. */
void ui_drop_ended_tags(struct ui *u);
/* The tagged workers when any is tagged, else the selected one when it is alive, as
 * indices of the session's workers. Returns how many. */
int ui_targets(struct ui *u, int idx[GD_PROCS_MAX]);
ui_act_fn ui_act_tag, ui_act_untag;

/* ---- signals.c: x, K and the signal menu (k) ---- */
ui_act_fn ui_act_stop, ui_act_kill, ui_act_signal_menu;

/* ---- setup.c: the setup screen (F2), the table's columns ---- */
ui_act_fn ui_act_setup;

/* ---- mouse.c ---- */
/* Asks the terminal for button presses (after the terminal is set up), unless u->term.mouse is off. */
void ui_mouse_begin(const struct ui *u);
/* KEY_MOUSE: the event's press. */
ui_reaction ui_mouse(struct ui *u);

/* ---- terminal.c ---- */
/* Returns 0, or -1 with u->fatal set when the terminal cannot be driven. */
int ui_begin(struct ui *u);
/* Restores the terminal and replays what was written to stderr meanwhile. */
void ui_end(struct ui *u);

#endif

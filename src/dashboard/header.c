/* header.c: the header (the tool, the devices, the sort, the clock, the run's settings) and
 * the summary under the graphs: its figures, and the diagnosis in words. */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "measure/ceiling.h"
#include "measure/diagnose.h"
#include "ui.h"

static void clock_text(char *buf, size_t n, int64_t ns)
{
	long s = (long)(ns / GD_NS_PER_S);
	snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

/* The run's settings: the long form, else the compact one where it does not fit in width, with
 * the generator's name, then its short name (zig, bm), then the mode alone. */
static int settings(const struct ui *u, char p[][96], int width)
{
	static const char *const gen_short[GD_GEN_COUNT] = { "auto", "zig", "bm" };
	const struct gd_workload *w = session_workload(u->s);
	const struct gd_kspec *k = &w->kernel;
	unsigned g = (unsigned)w->generator < GD_GEN_COUNT ? (unsigned)w->generator : GD_GEN_AUTO;
	if (k->observed) { /* a program's processes: the workers' settings do not apply */
		snprintf(p[0], 96, "observed program");
		snprintf(p[1], 96, "profile %s", gd_profile_name(w->profile));
		snprintf(p[2], 96, "interval %g s", session_interval(u->s));
		snprintf(p[3], 96, "timebase %s", gd_timebase_name(session_frame(u->s)->timebase));
		return 4;
	}
	for (int l = 0; l < 4; l++) {
		bool c = l > 0;
		snprintf(p[0], 96, c ? "%u sym" : "size %u", (unsigned)k->size);
		if (k->source) /* a user kernel: its arguments' types are its own */
			snprintf(p[1], 96, c ? "%s" : "kernel %s", kspec_name(k));
		else
			snprintf(p[1], 96, c ? "%s" : "dtype %s", gd_dtype_name(k->dtype));
		snprintf(p[2], 96, c ? "%u launches" : "launches %u", (unsigned)k->launches);
		if (l < 3)
			snprintf(p[3], 96, c ? "%s/%s" : "mode %s/%s", gd_mode_name(w->mode),
			         l < 2 ? gd_generator_name(g) : gen_short[g]);
		else
			snprintf(p[3], 96, "%s", gd_mode_name(w->mode));
		snprintf(p[4], 96, c ? "every %g s" : "interval %g s", session_interval(u->s));
		snprintf(p[5], 96, "timebase %s", gd_timebase_name(session_frame(u->s)->timebase));
		int len = 0;
		for (int i = 0; i < 6; i++)
			len += (int)strlen(p[i]) + 2;
		if (len - 2 <= width)
			break;
	}
	return 6;
}

/* One device: its P:D and name; several: how many and each one's P:D (each one's name heads
 * its group in the table). */
static void devices_text(const struct ui *u, char *buf, size_t size)
{
	int ndevs = session_ndevs(u->s);
	if (ndevs <= 1) {
		snprintf(buf, size, "%s %s", session_device(u->s, 0)->ref, session_device(u->s, 0)->name);
		return;
	}
	int n = snprintf(buf, size, "%d devices:", ndevs);
	for (int d = 0; d < ndevs && n < (int)size; d++)
		n += snprintf(buf + n, size - (size_t)n, " %s", session_device(u->s, d)->ref);
}

void ui_draw_header(struct ui *u, WINDOW *w, int64_t now)
{
	bool paused = session_paused(u->s);
	char clock[32], right[64], dev[160], sort[64], p[6][96];
	clock_text(clock, sizeof(clock), (u->ended ? u->ended : now) - session_t0(u->s));
	snprintf(right, sizeof(right), "%selapsed %s", paused ? "PAUSED  " : "", clock);
	snprintf(sort, sizeof(sort), "sort: %s ", ui_col_head(u, u->table.sort));
	/* Right to left: the clock, the sort with its arrow (one cell, pointing the way values grow
	 * down the table); the devices (and the version of a single one) give way to both. */
	int sx = getmaxx(w) - (int)strlen(right) - 2 - 1 - (int)strlen(sort);
	int limit = sx - 2;
	ui_put(w, 0, 0, ui_attr(u, UI_P_HEAD), GD_NAME);
	int x = (int)strlen(GD_NAME) + 2;
	devices_text(u, dev, sizeof(dev));
	/* Whole words only: the version goes first, then the name's last words. */
	ui_put_words(w, 0, x, limit, ui_attr(u, UI_P_HEAD), dev);
	x += (int)strlen(dev) + 2;
	if (session_ndevs(u->s) == 1)
		ui_put_words(w, 0, x, limit, A_NORMAL, session_device(u->s, 0)->version);
	ui_put(w, 0, sx, A_NORMAL, sort);
	wattrset(w, A_BOLD);
	int ax = sx + (int)strlen(sort);
	if (u->term.utf8)
		mvwaddnwstr(w, 0, ax, u->table.sort_desc ? L"\u25bc" : L"\u25b2", 1);
	else
		mvwaddch(w, 0, ax, u->table.sort_desc ? 'v' : '^');
	wattrset(w, A_NORMAL);
	ui_put_right(w, 0, ui_attr(u, paused ? UI_P_WARN : UI_P_NONE), right);
	ui_pieces(w, 1, 0, getmaxx(w), A_NORMAL, p, settings(u, p, getmaxx(w)));
}

double ui_frame_cores(const struct gd_frame *f)
{
	double cores = 0;
	for (int i = 0; i < f->nworkers; i++)
		if (!isnan(f->workers[i].gen_busy))
			cores += f->workers[i].gen_busy > 1 ? f->workers[i].gen_busy : 1;
	return cores;
}

/* Whether every row that could work is paused (p, or STOP to each): the device idles because
 * we stopped it, which is no verdict on the program. */
static bool all_paused(const struct gd_frame *f)
{
	int paused = 0;
	for (int i = 0; i < f->nworkers; i++) {
		enum gd_state st = f->workers[i].state;
		if (st == GD_ST_RUNNING || st == GD_ST_STARTING || st == GD_ST_STALLED)
			return false;
		paused += st == GD_ST_PAUSED;
	}
	return paused > 0;
}

void ui_diagnosis_words(const struct gd_frame *f, const char *unit, char *buf, size_t n)
{
	if (all_paused(f)) {
		snprintf(buf, n, "paused (p resumes): stopped processes leave the device idle");
		return;
	}
	diagnose_words(buf, n, f, ui_frame_cores(f), (int)sysconf(_SC_NPROCESSORS_ONLN), unit);
}

/* Line 1 of the summary: the window's idle time by cause in words, and what more processes would
 * give (diagnose.h); empty before the first frame. */
static void diagnosis_line(const struct ui *u, WINDOW *w, const struct gd_frame *f, const char *unit)
{
	char line[512];
	if (!ui_measured(u))
		return;
	ui_diagnosis_words(f, unit, line, sizeof(line));
	ui_put_words(w, 1, 0, getmaxx(w), A_NORMAL, line);
}

/* Device busy beside what the driver calls busy (nvidia-smi's utilization), where a vendor
 * library answers for every device: the gap is what the union of kernel intervals corrects.
 * Empty where none answers (PoCL), so the line is as it was. */
static void driver_piece(char *buf, size_t n, const struct gd_frame *f, bool measured)
{
	buf[0] = '\0';
	if (!measured || isnan(f->driver_util))
		return;
	if (isnan(f->device_busy))
		snprintf(buf, n, "driver says %.0f%% busy", 100 * f->driver_util);
	else
		snprintf(buf, n, "busy %.0f%% (driver says %.0f%%)", 100 * f->device_busy,
		         100 * f->driver_util);
}

/* Where the workers' batches take longer than the interval (the default size on a CPU device
 * takes about a second), windows go by without one: their figures are the latest, dimmed. A hint
 * says so and what to change; empty otherwise, and for an observed program, whose batches are
 * its own. */
static void slow_piece(const struct ui *u, char *buf, size_t n, int width)
{
	double batch = ui_batch_s(u), iv = session_interval(u->s);
	buf[0] = '\0';
	if (session_workload(u->s)->kernel.observed || isnan(batch) || batch <= iv)
		return;
	batch = batch < 9999 ? batch : 9999; /* the text's room */
	bool cpu = session_ndevs(u->s) == 1 && !session_device(u->s, 0)->gpu;
	if (width >= 140)
		snprintf(buf, n, "slow: a batch takes ~%.1f s%s, over the %.2g s interval (-s smaller, or ])",
		         batch, cpu ? " on this CPU device" : "", iv);
	else
		snprintf(buf, n, "slow: ~%.1f s a batch (-s smaller)", batch);
}

void ui_draw_summary(struct ui *u, WINDOW *w)
{
	const struct gd_frame *f = session_frame(u->s);
	const char *unit = kspec_rate_unit(&session_workload(u->s)->kernel);
	double ceiling = session_ceiling(u->s, -1)->rate;
	char p[8][96];
	/* Before the first frame nothing is measured. */
	bool measured = ui_measured(u);
	chart_capacity(p[0], sizeof(p[0]), measured ? f->agg.rate : NAN, measured ? f->headroom : NAN,
	               ceiling, measured ? f->of_ceiling : NAN, unit);
	/* The driver's word second, before what a narrow terminal leaves out */
	driver_piece(p[1], sizeof(p[1]), f, measured);
	slow_piece(u, p[2], sizeof(p[2]), getmaxx(w));
	snprintf(p[3], sizeof(p[3]), "workers %d/%d", session_live(u->s), u->max_procs);
	snprintf(p[4], sizeof(p[4]), "lost %llu", (unsigned long long)f->agg.lost);
	snprintf(p[5], sizeof(p[5]), "profile %s", gd_profile_name(session_workload(u->s)->profile));
	snprintf(p[6], sizeof(p[6]), "timebase %s", gd_timebase_name(f->timebase));
	snprintf(p[7], sizeof(p[7]), "%s", f->busy_from_sum ? "busy: sum of workers (no clock mapping)" : "");
	ui_pieces(w, 0, 0, getmaxx(w), A_NORMAL, p, 8);
	diagnosis_line(u, w, f, unit);
}

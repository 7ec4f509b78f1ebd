/* test_figures.c: the figure registry: every figure named once with its help and the rows that
 * carry it, and each read from where it says, for a worker, a device's aggregate and the run's. */
#include <string.h>

#include "measure/figures.h"
#include "tap.h"

static void test_entries(void)
{
	int unnamed = 0, nohelp = 0, noscope = 0, twice = 0, noread = 0;
	for (int i = 0; i < GD_FIG_COUNT; i++) {
		const struct gd_figure *f = &gd_figures[i];
		unnamed += !f->name || !*f->name;
		nohelp += !f->help || !*f->help;
		noscope += !(f->scope & GD_SCOPE_ALL) || (f->scope & ~(unsigned)GD_SCOPE_ALL);
		noread += f->from == GD_FROM_CODE && !f->num && !f->text;
		for (int j = 0; j < i && f->name; j++)
			twice += gd_figures[j].name && strcmp(gd_figures[j].name, f->name) == 0;
	}
	TAP_EQ_U(unnamed, 0, "every figure has a name");
	TAP_EQ_U(nohelp, 0, "every figure has a help text");
	TAP_EQ_U(noscope, 0, "every figure is carried by some row, and only by known ones");
	TAP_EQ_U(twice, 0, "no name is given to two figures");
	TAP_EQ_U(noread, 0, "every computed figure says how it is computed");
	tap_ok(strcmp(GD_FIGURE(RATE)->name, "mbit_s") == 0 &&
	           strcmp(GD_FIGURE(DEVICE_BUSY)->name, "device_busy") == 0,
	       "the names are the log's fields");
}

static void test_values(void)
{
	struct gd_sample w = {
		.id = 3, .rate = 12.5, .kernel_busy = 0.25, .batches = 40, .state = GD_ST_RUNNING
	};
	struct gd_frame f = { .device_busy = 0.75, .window_s = 1, .ndevs = 2, .agg = { .rate = 20 } };
	f.devs[1].device_busy = 0.5;
	f.devs[1].agg.rate = 7;
	struct gd_fig_at worker = { .f = &f, .s = &w }, run = { .f = &f, .s = &f.agg },
	                 dev = { .f = &f, .s = &f.devs[1].agg, .dev = &f.devs[1] };
	tap_ok(figure_value(GD_FIGURE(RATE), &worker) == 12.5, "a worker's rate is its sample's");
	tap_ok(figure_value(GD_FIGURE(KERNEL_BUSY), &worker) == 0.25,
	       "a worker's kernel_busy is its sample's");
	tap_ok(figure_value(GD_FIGURE(BATCHES), &worker) == 40, "a count is read as a number");
	tap_ok(figure_value(GD_FIGURE(RATE), &dev) == 7, "a device's rate is its aggregate's");
	tap_ok(figure_value(GD_FIGURE(DEVICE_BUSY), &dev) == 0.5, "a device's busy is its own");
	tap_ok(figure_value(GD_FIGURE(DEVICE_BUSY), &run) == 0.75, "the run's busy is the frame's");
	const char *st = figure_text(GD_FIGURE(STATE), &worker);
	tap_ok(st && strcmp(st, "running") == 0, "a state is a word (%s)", st ? st : "NULL");
	tap_ok(figure_value(GD_FIGURE(STATE), &worker) == GD_ST_RUNNING, "a state also sorts as its number");
	tap_ok(!figure_text(GD_FIGURE(RATE), &worker), "a number has no word");
}

int main(void)
{
	test_entries();
	test_values();
	return tap_done();
}

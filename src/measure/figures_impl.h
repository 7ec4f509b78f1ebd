/* figures_impl.h (private to src/measure/figures*.c): the figures whose value is computed
 * (a word, or a number that no member holds as it is), for the table in figures.c; figures_read.c
 * defines them beside the readers of every figure. */
#ifndef GPUTOP_FIGURES_IMPL_H
#define GPUTOP_FIGURES_IMPL_H

#include "figures.h"

const char *fig_state_text(const struct gd_fig_at *at);
const char *fig_device_text(const struct gd_fig_at *at);
const char *fig_source_text(const struct gd_fig_at *at);
const char *fig_command_text(const struct gd_fig_at *at);
const char *fig_via_text(const struct gd_fig_at *at);
const char *fig_error_text(const struct gd_fig_at *at);
const char *fig_profile_text(const struct gd_fig_at *at);
const char *fig_timebase_text(const struct gd_fig_at *at);
const char *fig_busy_method_text(const struct gd_fig_at *at);
double fig_mem_used(const struct gd_fig_at *at);
double fig_driver_sm(const struct gd_fig_at *at);
double fig_items_s(const struct gd_fig_at *at);
double fig_batches_s(const struct gd_fig_at *at);
double fig_window_batches(const struct gd_fig_at *at);
double fig_sample_every(const struct gd_fig_at *at);
double fig_exit_status(const struct gd_fig_at *at);
double fig_batch_overlap_s(const struct gd_fig_at *at);

#endif

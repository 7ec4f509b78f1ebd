/* figures_read.c: how a figure's value is read from a frame (figures.h), and the figures whose
 * value is computed (figures_impl.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "figures.h"
#include "figures_impl.h"
#include "gputop/common.h"

const char *fig_state_text(const struct gd_fig_at *at)
{
	return gd_state_name(at->s->state);
}

const char *fig_device_text(const struct gd_fig_at *at)
{
	return frame_device_ref(at->f, at->s->device);
}

const char *fig_source_text(const struct gd_fig_at *at)
{
	return at->s->observed ? "observed" : "worker";
}

const char *fig_command_text(const struct gd_fig_at *at)
{
	return at->s->comm;
}

/* Known once its first batch is in. */
const char *fig_via_text(const struct gd_fig_at *at)
{
	return at->s->observed && at->s->batches ? gd_source_name(at->s->via) : "";
}

const char *fig_error_text(const struct gd_fig_at *at)
{
	return at->s->error;
}

const char *fig_profile_text(const struct gd_fig_at *at)
{
	return gd_profile_name(at->f->profile);
}

const char *fig_timebase_text(const struct gd_fig_at *at)
{
	return gd_timebase_name(at->f->timebase);
}

const char *fig_busy_method_text(const struct gd_fig_at *at)
{
	const struct gd_frame *f = at->f;
	const struct gd_devframe *dev = at->dev;
	if (f->profile == GD_PROF_OFF)
		return "none";
	if (dev ? dev->busy_from_sum : f->busy_from_sum)
		return "sum-capped";
	return (dev ? dev->busy_per_context : f->busy_per_context) ? "union-per-context" : "union";
}

/* A device's memory in use (the frame's for the run's aggregate); a row's: what the driver
 * lists for its process (gd_sample.drv). */
double fig_mem_used(const struct gd_fig_at *at)
{
	if (at->dev || (at->f && at->s == &at->f->agg))
		return at->dev ? at->dev->mem_used_bytes : at->f->mem_used_bytes;
	return at->s->drv.listed ? at->s->drv.mem_bytes : NAN;
}

double fig_driver_sm(const struct gd_fig_at *at)
{
	return at->s->drv.listed ? at->s->drv.sm : NAN;
}

/* Work items per second: the rate, in millions of them. */
double fig_items_s(const struct gd_fig_at *at)
{
	return at->s->rate * 1e6;
}

/* Batches per second where a batch means something: not in a window without one under way
 * (rate NAN), nor for an observed process that never waits on the host (its batches are the
 * work between waits). */
double fig_batches_s(const struct gd_fig_at *at)
{
	const struct gd_sample *s = at->s;
	if (isnan(s->rate) || !at->f->observed || !(at->f->window_s > 0) || (s->observed && !s->obs.waits))
		return NAN;
	return (double)s->win_batches / at->f->window_s;
}

/* A window the tool did not observe counted nothing in it. */
double fig_window_batches(const struct gd_fig_at *at)
{
	return at->f->observed ? (double)at->s->win_batches : NAN;
}

double fig_sample_every(const struct gd_fig_at *at)
{
	return at->s->sample_every ? (double)at->s->sample_every : NAN;
}

double fig_exit_status(const struct gd_fig_at *at)
{
	return at->s->observed && at->s->exit_status >= 0 ? at->s->exit_status : NAN;
}

/* Not measured where device times are not (as the gaps' histograms). */
double fig_batch_overlap_s(const struct gd_fig_at *at)
{
	return isnan(at->s->tot.kernel_s) ? NAN : (double)at->s->tot.bover_ns * 1e-9;
}

static double read_member(const void *base, enum gd_fig_type type, size_t off)
{
	const char *p = (const char *)base + off;
	double d;
	uint64_t u64;
	unsigned u;
	int i;
	bool b;
	switch (type) {
	case GD_T_DOUBLE:
		memcpy(&d, p, sizeof(d));
		return d;
	case GD_T_U64:
		memcpy(&u64, p, sizeof(u64));
		return (double)u64;
	case GD_T_UNSIGNED:
		memcpy(&u, p, sizeof(u));
		return u;
	case GD_T_INT:
		memcpy(&i, p, sizeof(i));
		return i;
	case GD_T_BOOL:
		memcpy(&b, p, sizeof(b));
		return b;
	case GD_T_GAPS: /* figure_gaps */
		break;
	}
	return NAN;
}

double figure_item(const struct gd_figure *fig, const struct gd_fig_at *at, int i)
{
	size_t off = fig->off + (size_t)i * sizeof(double); /* the arrays are of doubles */
	if (fig->observed && !at->s->observed)
		return NAN;
	switch (fig->from) {
	case GD_FROM_CODE:
		break;
	case GD_FROM_SAMPLE:
		return read_member(at->s, fig->type, off);
	case GD_FROM_DEVICE:
		return at->dev ? read_member(at->dev, fig->type, off)
		               : read_member(at->f, fig->type, fig->off_frame);
	case GD_FROM_FRAME:
		return read_member(at->f, fig->type, off);
	}
	return fig->num ? fig->num(at) : NAN;
}

double figure_value(const struct gd_figure *fig, const struct gd_fig_at *at)
{
	return figure_item(fig, at, 0);
}

const char *figure_text(const struct gd_figure *fig, const struct gd_fig_at *at)
{
	return fig->text ? fig->text(at) : NULL;
}

const struct gd_gaps *figure_gaps(const struct gd_figure *fig, const struct gd_sample *s)
{
	return (const struct gd_gaps *)(const void *)((const char *)s + fig->off);
}

/* collect.c: the records of one interval window of every worker -> struct gd_frame. */
#include "collect_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"

const char *gd_phase_name(enum gd_phase p)
{
	static const char *const names[GD_PHASE_COUNT] = { "gen",        "h2d",  "kernel", "d2h",
		                                           "queue_wait", "copy", "other" };
	return p < GD_PHASE_COUNT ? names[p] : "?";
}

struct gd_collector *collect_new(int64_t start, bool profiled, const struct gd_device *devs, int ndev)
{
	struct gd_collector *c = xcalloc(1, sizeof(*c));
	c->start = start;
	c->profiled = profiled;
	c->ndev = ndev < 1 ? 1 : ndev > GD_DEVICES_MAX ? GD_DEVICES_MAX : ndev;
	for (int d = 0; d < c->ndev && d < ndev; d++) {
		str_copy(c->refs[d], sizeof(c->refs[d]), devs[d].ref);
		c->sliced[d] = devs[d].gpu;
		c->host_cpu[d] = !devs[d].gpu;
	}
	diagnose_span_reset(&c->span);
	for (int d = 0; d < GD_DEVICES_MAX; d++)
		collect_counters_init(&c->devtot[d], profiled);
	return c;
}

void collect_launch_limit(struct gd_collector *c, int d, int64_t ns)
{
	if (d >= 0 && d < c->ndev)
		c->launch_limit[d] = ns > 0 ? ns : 0;
}

/* The device index of a worker, kept in range: a worker's index always names a device. */

void collect_free(struct gd_collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->workers[i].pend);
	free(c->workers);
	free(c->iv);
	free(c->idle);
	free(c);
}

static struct col_worker *find(const struct gd_collector *c, unsigned id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->workers[i].id == id)
			return &c->workers[i];
	return NULL;
}

static struct col_worker *get(struct gd_collector *c, unsigned id)
{
	struct col_worker *cw = find(c, id);
	if (cw)
		return cw;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->workers = xreallocarray(c->workers, c->cap, sizeof(*c->workers));
	}
	cw = &c->workers[c->n++];
	memset(cw, 0, sizeof(*cw));
	cw->id = id;
	collect_counters_init(&cw->tot, c->profiled);
	return cw;
}

void collect_push(struct gd_collector *c, const struct gd_row_info *info, const struct gd_rec *r)
{
	/* A row the supervisor numbered (ids count from 1) and a record its reader accepted: the
	 * reader counts a record that fails gd_rec_valid as lost and never hands it over. */
	GD_ASSERT(info->id > 0 && gd_rec_valid(r));
	struct col_worker *cw = get(c, info->id);
	cw->sample_every = r->sample_every;
	cw->share_ppm = r->share_ppm;
	collect_late_kernels(cw, r,
	                     c->start); /* a late record's too: the windows missed it, the totals not */
	if (r->t_end < c->start) {
		cw->late++;
		cw->late_done[0] += r->xfer_ns;
		cw->late_done[1] += r->copy_ns;
		return;
	}
	if (cw->npend == cw->cappend) {
		cw->cappend = cw->cappend ? 2 * cw->cappend : 64;
		cw->pend = xreallocarray(cw->pend, cw->cappend, sizeof(*cw->pend));
	}
	cw->pend[cw->npend++] = *r;
}

size_t collect_pending(const struct gd_collector *c, unsigned id)
{
	const struct col_worker *cw = find(c, id);
	return cw ? cw->npend : 0;
}

void collect_reset(struct gd_collector *c, const struct gd_row_info *info, int n, int64_t start)
{
	for (int i = 0; i < n; i++) {
		struct col_worker *cw = get(c, info[i].id);
		cw->base_batches = info[i].batches;
		cw->base_items = info[i].items;
		cw->base_lost = info[i].lost + cw->late;
		cw->npend = 0;
		cw->last_kend = 0;
	}
	memset(c->gone, 0, sizeof(c->gone));
	diagnose_span_reset(&c->span);
	c->start = start;
}

/* What a worker's sample says in every window: who, in which state, its totals. */
static void worker_totals(struct gd_collector *c, struct col_worker *cw, const struct gd_row_info *info,
                          struct gd_sample *out)
{
	out->device = dev_of(c, info);
	out->id = info->id;
	out->pid = info->pid;
	out->state = info->state;
	out->batches = info->batches - cw->base_batches;
	out->items = info->items - cw->base_items;
	out->lost = info->lost + cw->late - cw->base_lost;
	out->sample_every = cw->sample_every;
	out->observer_share = cw->share_ppm == GD_SHARE_NONE || !cw->sample_every ? NAN : cw->share_ppm / 1e6;
	str_copy(out->error, sizeof(out->error), info->error);
	out->observed = info->observed;
	out->via = info->via;
	str_copy(out->comm, sizeof(out->comm), info->comm);
	out->copy = info->copy;
	out->kernels = info->kernels;
	out->obs = info->obs;
	out->exit_status = info->exit_status;
	collect_count_totals(c, cw, info);
	out->tot = cw->tot;
}

/* Whether a worker in state st has a batch under way: then a window in which it completed no
 * batch measured no rate (nor busy time: its kernels' intervals come with its record), which
 * is not a rate of 0. A worker starting up, paused or ended runs nothing. */
static bool working(enum gd_state st)
{
	return st == GD_ST_RUNNING || st == GD_ST_STOPPING || st == GD_ST_STALLED;
}

/* Whether row info had a kernel under way at b, by what it said after b. */
static bool row_under_way(const struct gd_row_info *info, int64_t b)
{
	return info->inflight_ns > 0 && info->inflight_ns < b && info->inflight_at_ns >= b;
}

/* Worker cw's statistics of [a, b); appends its kernel intervals to the scratch list and its
 * batches to *all (the aggregate's gaps). Returns its busy time in the window (ns): the union
 * of its own kernel intervals, counted even when no batch of it completed in the window. */
static int64_t worker_sample(struct gd_collector *c, struct col_worker *cw, const struct gd_row_info *info,
                             int64_t a, int64_t b, size_t *niv, struct gd_batch_acc *all,
                             struct gd_sample *out)
{
	struct gd_batch_acc acc;
	memset(&acc, 0, sizeof(acc));
	acc.launch_limit = c->launch_limit[dev_of(c, info)];
	int64_t busy = 0, xfer = 0, copy = 0, xfer_done = 0, copy_done = 0;
	size_t keep = 0, first = *niv;
	uint64_t devrecs = 0, estimated = 0, commands = 0;
	for (size_t i = 0; i < cw->npend; i++) {
		const struct gd_rec *r = &cw->pend[i];
		busy += stats_rec_busy(r, a, b);
		xfer += stats_rec_transfer(r, a, b);
		copy += stats_rec_copy(r, a, b);
		stats_rec_intervals(r, &c->iv, niv, &c->capiv);
		/* Its device times count here when it completed in the window (the breakdown) or
		 * its kernels ran in it (busy). */
		if ((r->flags & GD_REC_DEVTIME) &&
		    (r->t_end < b || (r->nkiv && gd_rec_kernel_start(r) < b && gd_rec_kernel_end(r) > a))) {
			devrecs++;
			estimated += (r->flags & GD_REC_ESTIMATED) != 0;
		}
		if (r->t_end >= b) { /* completes in a later window: keep it */
			cw->pend[keep++] = *r;
			continue;
		}
		/* The gap between batches is measured only between consecutive profiled batches: from
		 * the latest END of the run of them before this one (with several lanes an earlier
		 * batch can end after the previous one). */
		bool consecutive = cw->last_kend && cw->last_profiled && r->batch == cw->last_batch + 1;
		stats_batch_add(&acc, r, consecutive ? cw->last_kend : 0);
		commands += r->commands;
		xfer_done += r->xfer_ns ? r->xfer_ns : stats_rec_transfer(r, INT64_MIN, INT64_MAX);
		copy_done += r->copy_ns;
		int64_t kend = gd_rec_kernel_end(r);
		cw->last_kend = consecutive && cw->last_kend > kend ? cw->last_kend : kend;
		cw->last_batch = r->batch;
		cw->last_profiled = stats_rec_profiled(r);
	}
	cw->npend = keep;
	/* A kernel under way at the window's end (an observed process says since when, as it saw
	 * after the end: an older word may be of a kernel done since): busy in this window already,
	 * before its record comes. */
	if (row_under_way(info, b)) {
		int64_t since = info->inflight_ns > a ? info->inflight_ns : a;
		const int64_t iv[2] = { since, b };
		stats_iv_add(&c->iv, niv, &c->capiv, iv);
		busy += b - since;
		collect_counted_add(cw, since, b);
	}
	/* Records can overlap (an unprofiled batch's intervals are estimated, a kernel under way
	 * may be in a record already): its busy time is never more than the union of its own. */
	int64_t own = *niv > first ? stats_union(c->iv + first, *niv - first, a, b) : 0;
	busy = busy < own ? busy : own;

	double win = (double)(b - a) / 1e9;
	worker_totals(c, cw, info, out);
	out->win_batches = acc.n;
	out->win_devrecs = devrecs;
	out->win_estimated = estimated;
	out->gen_busy = (double)acc.gen / (double)(b - a);
	out->rate = (double)acc.items / win / 1e6;
	/* Device times are measured under --profile full or sampled, and for a queue an observed
	 * program made with profiling itself under off too. */
	bool devtimes = c->profiled || devrecs;
	out->kernel_busy = devtimes ? (double)busy / (double)(b - a) : NAN;
	out->transfer_busy = devtimes ? (double)xfer / (double)(b - a) : NAN;
	out->copy_busy = devtimes ? (double)copy / (double)(b - a) : NAN;
	out->commands_s = info->observed ? (double)commands / win : NAN;
	if (!acc.n && working(info->state)) { /* no batch completed: not measured */
		out->rate = out->gen_busy = out->transfer_busy = out->copy_busy = out->commands_s = NAN;
		/* but a kernel under way is measured, by its word or by a record that came already */
		if (!row_under_way(info, b) && !devrecs)
			out->kernel_busy = NAN;
	}
	stats_breakdown(&acc, &out->bd);
	collect_count_window(cw, &acc, busy, (const int64_t[2]){ xfer_done, copy_done }, out);
	out->tot = cw->tot;
	stats_batch_merge(all, &acc);
	return busy;
}

/* Worker cw in a window that was not observed, ending at b: the records that completed in it
 * count as lost (no window holds them), and nothing is measured. */
static void worker_gap(struct gd_collector *c, struct col_worker *cw, const struct gd_row_info *info,
                       int64_t b, struct gd_sample *out)
{
	size_t keep = 0;
	for (size_t i = 0; i < cw->npend; i++) {
		if (cw->pend[i].t_end >= b)
			cw->pend[keep++] = cw->pend[i];
		else
			cw->late++;
	}
	cw->npend = keep;
	cw->last_kend = 0; /* no gap between batches is measured across it */
	worker_totals(c, cw, info, out);
	out->win_batches = 0;
	out->win_devrecs = out->win_estimated = 0;
	out->rate = NAN;
	out->kernel_busy = out->transfer_busy = out->copy_busy = out->commands_s = NAN;
	out->gen_busy = NAN;
	out->bd = (struct gd_breakdown)GD_BREAKDOWN_NONE;
}

/* A worker's sample into an aggregate: the rates of the workers that measured one (one that
 * completed no batch added nothing in the window). */
static void add_to(struct gd_sample *agg, const struct gd_sample *cw)
{
	if (!isnan(cw->rate))
		agg->rate += cw->rate;
	agg->batches += cw->batches;
	agg->items += cw->items;
	agg->win_batches += cw->win_batches;
	agg->win_devrecs += cw->win_devrecs;
	agg->win_estimated += cw->win_estimated;
	agg->lost += cw->lost;
}

void collect_forget(struct gd_collector *c, const struct gd_row_info *info)
{
	struct col_worker *cw = get(c, info->id);
	struct gd_sample last;
	memset(&last, 0, sizeof(last));
	worker_totals(c, cw, info, &last); /* its final counts, into its device's counters too */
	add_to(&c->gone[dev_of(c, info)], &last);
	free(cw->pend);
	*cw = c->workers[--c->n];
}

/* Makes room for n workers' samples and starts the aggregates from the forgotten workers'. */
static void frame_begin(const struct gd_collector *c, struct gd_frame *f, int n)
{
	if (f->capworkers < n) {
		f->capworkers = n + 16;
		f->workers = xreallocarray(f->workers, (size_t)f->capworkers, sizeof(*f->workers));
	}
	memset(&f->agg, 0, sizeof(f->agg));
	f->agg.state = GD_ST_RUNNING;
	f->agg.device = -1;
	f->ndevs = c->ndev;
	for (int d = 0; d < c->ndev; d++) {
		struct gd_devframe *df = &f->devs[d];
		memset(df, 0, sizeof(*df));
		df->agg.state = GD_ST_RUNNING;
		df->agg.device = d;
		str_copy(df->ref, sizeof(df->ref), c->refs[d]);
		df->ceiling = df->of_ceiling = df->ceiling_4x = NAN;
		df->host_cpu = c->host_cpu[d];
		add_to(&df->agg, &c->gone[d]);
		add_to(&f->agg, &c->gone[d]);
	}
	f->nworkers = n;
	f->procs = 0;
	f->verdict = c->span.v;
	f->timebase = GD_TB_NONE;
}

/* A worker's sample into its device's aggregate and the overall one. */
static void add_worker(const struct gd_collector *c, struct gd_frame *f, const struct gd_row_info *info,
                       const struct gd_sample *smp)
{
	struct gd_devframe *df = &f->devs[dev_of(c, info)];
	f->procs += info->alive;
	df->procs += info->alive;
	add_to(&f->agg, smp);
	add_to(&df->agg, smp);
	if (info->timebase != GD_TB_NONE)
		f->timebase = info->timebase;
}

/* The overall device figures from the devices': the mean busy, any sum-capped. */
static void overall_busy(struct gd_frame *f)
{
	double busy = 0;
	int nbusy = 0;
	f->busy_from_sum = f->busy_per_context = false;
	for (int d = 0; d < f->ndevs; d++) {
		const struct gd_devframe *df = &f->devs[d];
		f->busy_from_sum = f->busy_from_sum || df->busy_from_sum;
		f->busy_per_context = f->busy_per_context || df->busy_per_context;
		if (!isnan(df->device_busy)) {
			busy += df->device_busy;
			nbusy++;
		}
	}
	f->device_busy = nbusy == f->ndevs && nbusy > 0 ? busy / nbusy : NAN;
	f->headroom = f->device_busy > 0 ? f->agg.rate / f->device_busy : NAN;
}

/* The window's diagnosis: each worker's idle time by cause, each device's from its workers',
 * and their mean (diagnose.h). */
static void diagnose_frame(struct gd_collector *c, const struct gd_row_info *info, int n, struct gd_frame *f)
{
	struct gd_idle devs[GD_DEVICES_MAX];
	if ((size_t)n > c->capidle) {
		c->capidle = (size_t)n + 16;
		c->idle = xreallocarray(c->idle, c->capidle, sizeof(*c->idle));
	}
	for (int d = 0; d < c->ndev; d++) {
		struct gd_devframe *df = &f->devs[d];
		size_t k = 0;
		for (int i = 0; i < n; i++) {
			if (dev_of(c, &info[i]) != d)
				continue;
			struct gd_sample *s = &f->workers[i];
			diagnose_worker(&s->bd, s->kernel_busy, df->device_busy, &s->idle);
			c->idle[k++] = s->idle;
		}
		diagnose_device(c->idle, (int)k, df->device_busy, &df->agg.idle);
		devs[d] = df->agg.idle;
	}
	diagnose_mean(devs, c->ndev, &f->agg.idle);
}

void collect_window(struct gd_collector *c, const struct gd_row_info *info, int n, int64_t t0, int64_t end,
                    struct gd_frame *f)
{
	int64_t a = c->start, b = end;
	struct gd_batch_acc all; /* every worker's batches: the aggregate's breakdown and gaps */
	memset(&all, 0, sizeof(all));
	int working_all = 0;
	frame_begin(c, f, n);
	/* Device by device, so that each device's kernel intervals are a run of the scratch list
	 * and its busy time is their union alone: devices run side by side. */
	for (int d = 0; d < c->ndev; d++) {
		struct gd_devframe *df = &f->devs[d];
		struct gd_batch_acc dev_all; /* its workers' batches: its breakdown and gaps */
		memset(&dev_all, 0, sizeof(dev_all));
		size_t niv = 0;
		int64_t sum_busy = 0; /* ns: each worker's own busy time */
		bool mapped = true;
		int busy_workers = 0;   /* with a batch under way */
		bool under_way = false; /* a kernel under way at the window's end, or kernels timed */
		for (int i = 0; i < n; i++) {
			if (dev_of(c, &info[i]) != d)
				continue;
			struct gd_sample *smp = &f->workers[i];
			size_t before = niv;
			sum_busy += worker_sample(c, get(c, info[i].id), &info[i], a, b, &niv, &dev_all, smp);
			add_worker(c, f, &info[i], smp);
			busy_workers += working(info[i].state);
			under_way = under_way || row_under_way(&info[i], b) || smp->win_devrecs > 0;
			if (info[i].timebase == GD_TB_NONE && niv > before)
				mapped = false;
		}
		working_all += busy_workers;
		df->busy_from_sum = !mapped;
		/* On a GPU the contexts of separate processes take turns (measured on the H200: their
		 * kernels never overlap), so the device was busy for the sum of each worker's own busy
		 * time. Their union would be less where two workers' estimates overlap. */
		df->busy_per_context = mapped && c->sliced[d];
		/* Workers at work and no batch completed: the device measured nothing in it (its rate);
		 * its busy time only where a kernel is under way or a record timed kernels in it. */
		bool measured = df->agg.win_batches > 0 || busy_workers == 0;
		if (!measured)
			df->agg.rate = NAN;
		measured = measured || under_way;
		if (!c->profiled || !measured)
			df->device_busy = NAN;
		else if (mapped && !df->busy_per_context)
			df->device_busy = (double)stats_union(c->iv, niv, a, b) / (double)(b - a);
		else
			df->device_busy = sum_busy < b - a ? (double)sum_busy / (double)(b - a) : 1;
		df->headroom = df->device_busy > 0 ? df->agg.rate / df->device_busy : NAN;
		if (!isnan(df->device_busy))
			c->devtot[d].busy_s += df->device_busy * (double)(b - a) / 1e9;
		stats_breakdown(&dev_all, &df->agg.bd);
		stats_batch_merge(&all, &dev_all);
	}
	stats_breakdown(&all, &f->agg.bd);
	if (f->agg.win_batches == 0 && working_all > 0)
		f->agg.rate = NAN; /* as a device's: not measured */
	overall_busy(f);
	diagnose_frame(c, info, n, f);
	collect_frame_counters(c, f);
	f->t_s = (double)(b - t0) / 1e9;
	f->window_s = (double)(b - a) / 1e9;
	diagnose_span_add(&c->span, f);
	f->observed = true;
	c->start = b;
}

/* The aggregates of a frame in which nothing was measured: every figure NAN. */
static void frame_unmeasured(const struct gd_collector *c, struct gd_frame *f)
{
	for (int i = 0; i < f->nworkers; i++)
		f->workers[i].idle = (struct gd_idle)GD_IDLE_NONE;
	for (int d = 0; d < c->ndev; d++) {
		struct gd_devframe *df = &f->devs[d];
		df->agg.idle = (struct gd_idle)GD_IDLE_NONE;
		df->agg.bd = (struct gd_breakdown)GD_BREAKDOWN_NONE;
		df->agg.rate = df->agg.kernel_busy = NAN;
		df->device_busy = df->headroom = NAN;
	}
	f->agg.bd = (struct gd_breakdown)GD_BREAKDOWN_NONE;
	f->agg.idle = (struct gd_idle)GD_IDLE_NONE;
	f->agg.rate = NAN;
	f->agg.kernel_busy = NAN;
	f->device_busy = NAN;
	f->headroom = NAN;
	f->busy_from_sum = false;
}

void collect_skip(struct gd_collector *c, const struct gd_row_info *info, int n, int64_t t0, int64_t end,
                  struct gd_frame *f)
{
	frame_begin(c, f, n);
	for (int i = 0; i < n; i++) {
		worker_gap(c, get(c, info[i].id), &info[i], end, &f->workers[i]);
		add_worker(c, f, &info[i], &f->workers[i]);
	}
	frame_unmeasured(c, f);
	f->t_s = (double)(end - t0) / 1e9;
	f->window_s = (double)(end - c->start) / 1e9;
	f->observed = false;
	collect_frame_counters(c, f);
	c->start = end;
}

void collect_blank(struct gd_collector *c, const struct gd_row_info *info, int n, int64_t t0, int64_t at,
                   struct gd_frame *f)
{
	frame_begin(c, f, n);
	for (int i = 0; i < n; i++) {
		struct gd_sample *s = &f->workers[i];
		worker_totals(c, get(c, info[i].id), &info[i], s);
		s->win_batches = s->win_devrecs = s->win_estimated = 0;
		s->rate = s->kernel_busy = s->gen_busy = NAN;
		s->bd = (struct gd_breakdown)GD_BREAKDOWN_NONE;
		add_worker(c, f, &info[i], s);
	}
	frame_unmeasured(c, f);
	f->t_s = (double)(at - t0) / 1e9;
	f->window_s = 0;
	f->observed = true;
}

void collect_frame_free(struct gd_frame *f)
{
	free(f->workers);
	memset(f, 0, sizeof(*f));
}

bool sample_estimated(const struct gd_sample *s)
{
	return s->win_estimated > 0;
}

const char *frame_device_ref(const struct gd_frame *f, int d)
{
	return d >= 0 && d < f->ndevs ? f->devs[d].ref : "all";
}

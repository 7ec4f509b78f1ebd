/* wire.c: what both ends of a segment agree on (wire.h): the record's helpers, the names of
 * timebases and segments. */
#include "gputop/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/spec.h"

static const char *const source_names[GD_SRC_COUNT] = { "worker", "layer", "preload" };

const char *gd_source_name(enum gd_seg_source s)
{
	return (unsigned)s < GD_SRC_COUNT ? source_names[s] : "unknown";
}

void gd_obs_totals_add(struct gd_obs_totals *to, const struct gd_obs_totals *add)
{
	_Static_assert(sizeof(*to) == 8 * sizeof(uint64_t), "every counter of the totals is added here");
	to->h2d_bytes += add->h2d_bytes;
	to->d2h_bytes += add->d2h_bytes;
	to->h2d_count += add->h2d_count;
	to->d2h_count += add->d2h_count;
	to->waits += add->waits;
	to->commands += add->commands;
	to->copy_bytes += add->copy_bytes;
	to->copy_count += add->copy_count;
}

static const char *const timebase_names[GD_TB_COUNT] = { "none", "host-timer", "offset-estimate" };

const char *gd_timebase_name(enum gd_timebase t)
{
	return (unsigned)t < GD_TB_COUNT ? timebase_names[t] : "unknown";
}

/* Bounds that keep every difference and per-window sum the statistics form far from int64
 * overflow, whatever bytes a record holds: no time beyond 2^60 ns (36 years of uptime), and
 * nothing of one batch more than 2^48 ns (78 hours) away from the batch's host times. */
#define REC_TIME_MAX ((int64_t)1 << 60)
#define REC_SPAN_MAX ((int64_t)1 << 48)

static unsigned kiv_shift(const struct gd_rec *r)
{
	return (r->flags & GD_REC_SHIFT) >> GD_REC_SHIFT_BIT;
}

static bool near_batch(const struct gd_rec *r, int64_t t)
{
	return t >= 0 && t >= r->t_begin - REC_SPAN_MAX && t <= r->t_end + REC_SPAN_MAX;
}

/* A device copy's [START, END]: (0, 0) when there was none. */
static bool copy_valid(const struct gd_rec *r, const int64_t c[2])
{
	if (c[0] == 0 && c[1] == 0)
		return true;
	return c[1] >= c[0] && near_batch(r, c[0]) && near_batch(r, c[1]);
}

bool gd_rec_valid(const struct gd_rec *r)
{
	/* No items only without kernels: an observed program's batch of transfers alone. */
	bool per_launch = r->flags & GD_REC_PER_LAUNCH; /* items x kernels: both bounded by the spec */
	if ((r->items == 0 && r->kernels != 0) || (per_launch && r->items > GD_SIZE_MAX) ||
	    r->kernels > (per_launch ? GD_LAUNCHES_MAX : GD_REC_LAUNCHES_MAX) || r->nkiv > GD_REC_KMAX ||
	    (r->flags & ~(uint32_t)(GD_REC_FLAGS | GD_REC_GEN | GD_REC_LANE)) ||
	    kiv_shift(r) > GD_REC_SHIFT_MAX || gd_rec_gen_thread(r) > GD_GEN_THREADS_MAX ||
	    gd_rec_lane(r) >= GD_QUEUES_MAX)
		return false;
	if (r->t_begin <= 0 || r->t_begin > REC_TIME_MAX || r->t_gen < r->t_begin || r->t_end < r->t_gen ||
	    r->t_end - r->t_begin > REC_SPAN_MAX)
		return false;
	if (!copy_valid(r, r->h2d) || !copy_valid(r, r->d2h) || !copy_valid(r, r->copy) ||
	    (r->nkiv && !near_batch(r, r->kbase)))
		return false;
	if (r->copy_ns < 0 || r->copy_ns > REC_SPAN_MAX || r->xfer_ns < 0 || r->xfer_ns > REC_SPAN_MAX ||
	    r->reserved)
		return false;
	if (r->kbusy_ns < 0 || r->kbusy_ns > REC_SPAN_MAX || r->kgap_ns < -REC_SPAN_MAX ||
	    r->kgap_ns > REC_SPAN_MAX || r->qwait_ns < 0 || r->qwait_ns > REC_SPAN_MAX ||
	    r->sample_every > GD_SAMPLE_MAX || (r->share_ppm != GD_SHARE_NONE && r->share_ppm > 1000000))
		return false;
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t iv[2];
		gd_rec_kiv(r, i, iv);
		if (r->kiv[i][1] < r->kiv[i][0] || (i && r->kiv[i][0] < r->kiv[i - 1][0]) ||
		    !near_batch(r, iv[1]))
			return false;
	}
	return true;
}

uint64_t gd_rec_items(const struct gd_rec *r)
{
	return (r->flags & GD_REC_PER_LAUNCH) ? (uint64_t)r->items * r->kernels : r->items;
}

unsigned gd_rec_gen_thread(const struct gd_rec *r)
{
	return (r->flags & GD_REC_GEN) >> GD_REC_GEN_BIT;
}

unsigned gd_rec_lane(const struct gd_rec *r)
{
	return (r->flags & GD_REC_LANE) >> GD_REC_LANE_BIT;
}

void gd_rec_kiv(const struct gd_rec *r, uint32_t i, int64_t out[2])
{
	/* Callers stay below nkiv, which no valid record has above GD_REC_KMAX. */
	GD_ASSERT(i < GD_REC_KMAX);
	unsigned shift = kiv_shift(r); /* at most GD_REC_SHIFT_MAX in a valid record */
	out[0] = r->kbase + (int64_t)((uint64_t)r->kiv[i][0] << shift);
	out[1] = r->kbase + (int64_t)((uint64_t)r->kiv[i][1] << shift);
}

int64_t gd_rec_kernel_start(const struct gd_rec *r)
{
	int64_t iv[2] = { 0, 0 };
	if (r->nkiv)
		gd_rec_kiv(r, 0, iv);
	return iv[0];
}

int64_t gd_rec_kernel_end(const struct gd_rec *r)
{
	int64_t end = 0;
	for (uint32_t i = 0; i < r->nkiv; i++) {
		int64_t iv[2];
		gd_rec_kiv(r, i, iv);
		if (iv[1] > end)
			end = iv[1];
	}
	return end;
}

static uint32_t in_units(int64_t ns, unsigned shift, bool up)
{
	int64_t v = ns <= 0 ? 0 : (ns + (up ? ((int64_t)1 << shift) - 1 : 0)) >> shift;
	return (uint32_t)(v > UINT32_MAX ? UINT32_MAX : v);
}

/* The first kernel of each group after the first, ascending, for n > GD_REC_KMAX kernels: the
 * GD_REC_KMAX - 1 widest gaps between consecutive kernels part them (of equal gaps, the earlier),
 * so what a group leaves out is the narrowest gaps. */
static void group_cuts(const int64_t (*kv)[2], uint32_t n, uint32_t cut[GD_REC_KMAX - 1])
{
	enum { CUTS = GD_REC_KMAX - 1 };
	int64_t gap[CUTS];
	uint32_t m = 0, least = 0; /* cuts kept so far; the one with the narrowest gap */
	for (uint32_t k = 1; k < n; k++) {
		int64_t g = kv[k][0] - kv[k - 1][1];
		if (m == CUTS && g <= gap[least])
			continue;
		uint32_t at = m < CUTS ? m++ : least;
		gap[at] = g;
		cut[at] = k;
		for (uint32_t i = 0; i < m; i++)
			least =
			    gap[i] < gap[least] || (gap[i] == gap[least] && cut[i] > cut[least]) ? i : least;
	}
	for (uint32_t i = 1; i < CUTS; i++) /* insertion sort of 15 */
		for (uint32_t j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
			uint32_t t = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
}

void gd_rec_set_kernels(struct gd_rec *r, const int64_t (*kv)[2], uint32_t n)
{
	GD_ASSERT(n == 0 || kv);
	uint32_t groups = n < GD_REC_KMAX ? n : GD_REC_KMAX;
	uint32_t cut[GD_REC_KMAX] = { 0 };
	int64_t off[GD_REC_KMAX][2], span = 0;
	r->kbase = n ? kv[0][0] : 0;
	r->nkiv = groups;
	r->flags &= ~(uint32_t)(GD_REC_GROUPED | GD_REC_SHIFT);
	if (n > GD_REC_KMAX) {
		r->flags |= GD_REC_GROUPED;
		group_cuts(kv, n, cut);
	} else {
		for (uint32_t g = 1; g < groups; g++)
			cut[g - 1] = g;
	}
	cut[groups - (groups > 0)] = n;
	for (uint32_t g = 0, first = 0; g < groups; first = cut[g++]) {
		/* A group lasts as long as its kernels ran (their sum, no more than the group's
		 * span): its gaps are left out, never counted as busy; the record's kernels still
		 * number every launch. It starts at its first kernel's START, but the last group
		 * ends at its last END, so that the batch's first START and last END stay exact. */
		int64_t s = kv[first][0] - r->kbase, e = kv[first][1], busy = 0;
		for (uint32_t k = first; k < cut[g]; k++) {
			e = kv[k][1] > e ? kv[k][1] : e;
			busy += kv[k][1] > kv[k][0] ? kv[k][1] - kv[k][0] : 0;
		}
		e -= r->kbase;
		if (s < 0 || (g && s < off[g - 1][0])) /* starts never go back */
			s = g ? off[g - 1][0] : 0;
		if (e - s > busy && g + 1 < groups)
			e = s + busy;
		else if (e - s > busy)
			s = e - busy;
		off[g][0] = s;
		off[g][1] = e < s ? s : e;
		span = off[g][1] > span ? off[g][1] : span;
	}
	unsigned shift = 0;
	while (shift < GD_REC_SHIFT_MAX && in_units(span, shift, true) == UINT32_MAX)
		shift++;
	r->flags |= shift << GD_REC_SHIFT_BIT;
	for (uint32_t g = 0; g < groups; g++) {
		r->kiv[g][0] = in_units(off[g][0], shift, false);
		r->kiv[g][1] = in_units(off[g][1], shift, true);
	}
	r->kbusy_ns = r->kgap_ns = 0;
	for (uint32_t k = 0; k < n; k++) {
		r->kbusy_ns += kv[k][1] - kv[k][0];
		if (k)
			r->kgap_ns += kv[k][0] - kv[k - 1][1];
	}
}

int seg_reserve(const char *name)
{
	int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0600) != 0) { /* exactly 0600, whatever the umask */
		int e = errno;
		close(fd);
		shm_unlink(name);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

void seg_name(char *buf, size_t n, pid_t supervisor, unsigned id, uint64_t gen)
{
	snprintf(buf, n, "/" GD_SEG_PREFIX "%u.%d.%u.%016llx", (unsigned)geteuid(), (int)supervisor, id,
	         (unsigned long long)gen);
}

void seg_name_observed(char *buf, size_t n, pid_t supervisor, uint64_t nonce, pid_t pid)
{
	snprintf(buf, n, "/" GD_SEG_PREFIX "%u.%d.o%016llx.%d", (unsigned)geteuid(), (int)supervisor,
	         (unsigned long long)nonce, (int)pid);
}

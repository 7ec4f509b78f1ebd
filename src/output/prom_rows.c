/* prom_rows.c: the rows of a frame as the Prometheus text's series (prom.h). A worker is a
 * series of its own. The processes of an observed copy on one device are one series: their
 * counters summed, with those of the copy's processes that have ended, so that the number of
 * series is the number of copies however many processes come and go (a pid per series grew
 * without bound under a program that starts a process per job), and no counter goes back
 * when one of them ends. */
#include <stdlib.h>
#include <string.h>

#include "gputop/common.h"
#include "prom.h"

/* An observed process seen in the latest frame, and the copy's series it counts in. */
struct prom_member {
	unsigned id;
	size_t group;            /* index into prom_memory.g */
	struct gd_counters last; /* its counters in the latest frame it was in */
	bool seen;               /* in the frame being rendered */
};

/* A copy's processes on one device: what it keeps of those that ended, and who it is. */
struct prom_group {
	unsigned copy; /* 0: processes outside every copy's process group */
	int device;
	struct gd_counters gone; /* the counters of its processes that ended, summed */
	pid_t pid;               /* the copy's process, or the first one seen */
	char comm[16];
	uint32_t sample_every; /* the latest profiling period any of its processes had */
};

struct prom_memory {
	struct prom_member *m;
	size_t nm, capm;
	struct prom_group *g; /* only grows: one per copy and device of the run */
	size_t ng, capg;
};

struct prom_memory *prom_memory_new(void)
{
	return xcalloc(1, sizeof(struct prom_memory));
}

void prom_memory_free(struct prom_memory *mem)
{
	if (!mem)
		return;
	free(mem->m);
	free(mem->g);
	free(mem);
}

static void gaps_sum(struct gd_gaps *a, const struct gd_gaps *b)
{
	a->n += b->n;
	a->sum_ns += b->sum_ns;
	for (int i = 0; i <= GD_HIST_BOUNDS; i++)
		a->le[i] += b->le[i];
}

/* b's counters into a's. A counter not measured (NAN, --profile off) stays NAN. */
static void counters_add(struct gd_counters *a, const struct gd_counters *b)
{
	a->batches += b->batches;
	a->items += b->items;
	a->lost += b->lost;
	a->kernel_s += b->kernel_s;
	a->busy_s += b->busy_s;
	for (int p = 0; p < GD_PHASE_COUNT; p++)
		a->phase_s[p] += b->phase_s[p];
	a->phase_batches += b->phase_batches;
	gaps_sum(&a->kgap, &b->kgap);
	gaps_sum(&a->bgap, &b->bgap);
	a->bover_ns += b->bover_ns;
}

static size_t group_of(struct prom_memory *mem, const struct gd_sample *s)
{
	for (size_t i = 0; i < mem->ng; i++)
		if (mem->g[i].copy == s->copy && mem->g[i].device == s->device)
			return i;
	if (mem->ng == mem->capg) {
		mem->capg = mem->capg ? 2 * mem->capg : 8;
		mem->g = xreallocarray(mem->g, mem->capg, sizeof(*mem->g));
	}
	struct prom_group *g = &mem->g[mem->ng];
	memset(g, 0, sizeof(*g));
	g->copy = s->copy;
	g->device = s->device;
	g->pid = s->pid;
	str_copy(g->comm, sizeof(g->comm), s->comm);
	return mem->ng++;
}

/* s's member, marked seen with its latest counters; a new one joins its copy's group for good
 * (a process's copy and device never change). */
static void member_see(struct prom_memory *mem, const struct gd_sample *s)
{
	struct prom_member *m = NULL;
	for (size_t i = 0; i < mem->nm && !m; i++)
		if (mem->m[i].id == s->id)
			m = &mem->m[i];
	if (!m) {
		if (mem->nm == mem->capm) {
			mem->capm = mem->capm ? 2 * mem->capm : 16;
			mem->m = xreallocarray(mem->m, mem->capm, sizeof(*mem->m));
		}
		m = &mem->m[mem->nm++];
		m->id = s->id;
		m->group = group_of(mem, s);
	}
	m->last = s->tot;
	m->seen = true;
	struct prom_group *g = &mem->g[m->group];
	if (s->id == s->copy) { /* the copy's own process names the series */
		g->pid = s->pid;
		str_copy(g->comm, sizeof(g->comm), s->comm);
	}
	if (s->sample_every)
		g->sample_every = s->sample_every;
}

/* The members not in this frame have ended: their counters go to their group's for good. */
static void members_end(struct prom_memory *mem)
{
	size_t keep = 0;
	for (size_t i = 0; i < mem->nm; i++) {
		struct prom_member *m = &mem->m[i];
		if (!m->seen) {
			counters_add(&mem->g[m->group].gone, &m->last);
			continue;
		}
		m->seen = false;
		mem->m[keep++] = *m;
	}
	mem->nm = keep;
}

/* The series of group gi in out[0..n), or a new one at out[n] (then *n grows). */
static struct prom_series *series_of(const struct prom_memory *mem, size_t gi, struct prom_series *out,
                                     size_t *n)
{
	const struct prom_group *g = &mem->g[gi];
	for (size_t i = 0; i < *n; i++)
		if (out[i].copy && out[i].own.id == g->copy && out[i].own.device == g->device)
			return &out[i];
	struct prom_series *r = &out[(*n)++];
	memset(r, 0, sizeof(*r));
	r->copy = true;
	r->own.id = g->copy;
	r->own.copy = g->copy;
	r->own.device = g->device;
	r->own.pid = g->pid;
	r->own.observed = true;
	r->own.exit_status = -1;
	str_copy(r->own.comm, sizeof(r->own.comm), g->comm);
	r->own.sample_every = g->sample_every;
	r->own.tot = g->gone;
	return r;
}

/* Copy 0's processes (outside every copy's group, or found only once they had ended) come and
 * go one by one: their series stay, with what they counted, while the program shows any
 * process, rather than appearing and going stale with each. r has room for every group. */
static void keep_outsiders(const struct prom_memory *mem, struct prom_series *r, size_t *n)
{
	bool running = false;
	for (size_t i = 0; i < *n; i++)
		running = running || r[i].copy;
	for (size_t gi = 0; running && gi < mem->ng; gi++)
		if (mem->g[gi].copy == 0)
			series_of(mem, gi, r, n); /* its own when it has rows in the frame */
}

size_t prom_series_build(const struct gd_frame *f, struct prom_memory *mem, struct prom_series **out)
{
	struct prom_memory tmp = { 0 };
	if (!mem)
		mem = &tmp; /* nothing remembered: the frame's processes alone */
	for (int i = 0; i < f->nworkers; i++)
		if (f->workers[i].observed)
			member_see(mem, &f->workers[i]);
	members_end(mem);
	size_t n = 0;
	/* A series per row at most, and one per group kept without rows (keep_outsiders). */
	struct prom_series *r = xcalloc((size_t)f->nworkers + mem->ng + 1, sizeof(*r));
	for (int i = 0; i < f->nworkers; i++) {
		const struct gd_sample *s = &f->workers[i];
		if (!s->observed) {
			r[n++] = (struct prom_series){ .s = s };
			continue;
		}
		size_t gi = 0;
		while (mem->g[gi].copy != s->copy || mem->g[gi].device != s->device)
			gi++; /* member_see made it */
		struct prom_series *c = series_of(mem, gi, r, &n);
		counters_add(&c->own.tot, &s->tot);
		c->nstate[s->state < GD_ST_COUNT ? s->state : GD_ST_FAILED]++;
	}
	keep_outsiders(mem, r, &n);
	for (size_t i = 0; i < n; i++)
		if (r[i].copy)
			r[i].s = &r[i].own; /* r no longer moves */
	free(tmp.m);
	free(tmp.g);
	*out = r;
	return n;
}

/* test_trace.c: the trace writer on hand-made records: each lane and kind of device command on
 * a track of its own, a batch that would overlap the previous one of its track moved to an
 * overlap track, clipped (or dropped) once every overlap track is busy too, and counted at the
 * end; estimated device times marked "estimated": true, measured ones and host slices not; no
 * two slices of one track overlapping. Times are literals: no clock is read but the close's. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gputop/common.h"
#include "output/trace.h"
#include "gputop/wire.h"
#include "gputop/frame.h"
#include "tap.h"

#define US ((int64_t)1000)
#define T0 ((int64_t)1000 * GD_NS_PER_S)

/* Batch b on lane (from 0): generation [10 b + 1, 10 b + 2), a write w (0, 0: none), kernels
 * kv[0..n) and a read rd (0, 0: none), all in us after T0. */
static struct gd_rec rec(uint64_t b, unsigned lane, bool estimated, const int64_t w[2],
                         const int64_t (*kv)[2], uint32_t n, const int64_t rd[2])
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	r.batch = b;
	r.items = 100;
	r.kernels = n;
	r.t_begin = T0 + (int64_t)(10 * b + 1) * US;
	r.t_gen = T0 + (int64_t)(10 * b + 2) * US;
	r.t_end = T0 + 10000 * US;
	r.flags = GD_REC_DEVTIME | (estimated ? GD_REC_ESTIMATED : 0) | lane << GD_REC_LANE_BIT;
	int64_t k[GD_REC_KMAX][2];
	for (uint32_t i = 0; i < n; i++) {
		k[i][0] = T0 + kv[i][0] * US;
		k[i][1] = T0 + kv[i][1] * US;
	}
	gd_rec_set_kernels(&r, (const int64_t(*)[2])k, n);
	for (int i = 0; i < 2; i++) {
		r.h2d[i] = w[1] ? T0 + w[i] * US : 0;
		r.d2h[i] = rd[1] ? T0 + rd[i] * US : 0;
	}
	return r;
}

struct slice {
	char name[16];
	int pid, tid;
	double ts, dur, clipped;
	uint64_t batch;
	int lane;
	bool estimated;
};

static struct slice sl[256];
static int nsl;
static char tnames[2000][48]; /* thread names by tid */
static char text[1 << 16];
static unsigned long long clipped, dropped;

static double num_after(const char *line, const char *key, double none)
{
	const char *p = strstr(line, key);
	return p ? atof(p + strlen(key)) : none;
}

/* Reads the trace back: its slices, thread names and the counts of its last event. */
static bool parse(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	nsl = 0;
	memset(tnames, 0, sizeof(tnames));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int tid = (int)num_after(line, "\"tid\":", -1);
		if (strstr(line, "\"thread_name\"") && tid >= 0 && tid < 2000) {
			const char *p = strstr(line, "\"args\":{\"name\":\"") + 16;
			snprintf(tnames[tid], sizeof(tnames[tid]), "%.*s", (int)strcspn(p, "\""), p);
		} else if (strstr(line, "\"ph\":\"X\"") && nsl < (int)GD_ARRAY_LEN(sl)) {
			struct slice *s = &sl[nsl++];
			const char *p = strstr(line, "\"name\":\"") + 8;
			snprintf(s->name, sizeof(s->name), "%.*s", (int)strcspn(p, "\""), p);
			s->pid = (int)num_after(line, "\"pid\":", -1);
			s->tid = tid;
			s->ts = num_after(line, "\"ts\":", -1);
			s->dur = num_after(line, "\"dur\":", -1);
			s->batch = (uint64_t)num_after(line, "\"batch\":", -1);
			s->lane = (int)num_after(line, "\"lane\":", 0);
			s->clipped = num_after(line, "\"clipped_us\":", 0);
			s->estimated = strstr(line, "\"estimated\":true") != NULL;
		} else if (strstr(line, "end of trace")) {
			clipped = (unsigned long long)num_after(line, "\"clipped\":", -1);
			dropped = (unsigned long long)num_after(line, "\"dropped\":", -1);
		}
	}
	return true;
}

/* The slices named name of batch b, into out (at most 16); how many. */
static int find(const char *name, uint64_t b, const struct slice *out[16])
{
	int k = 0;
	for (int i = 0; i < nsl && k < 16; i++)
		if (sl[i].batch == b && strcmp(sl[i].name, name) == 0)
			out[k++] = &sl[i];
	return k;
}

/* No two slices of one track overlap (at 1 ns: ts and dur have three decimals). */
static bool no_overlap(void)
{
	for (int i = 0; i < nsl; i++)
		for (int j = 0; j < nsl; j++) {
			const struct slice *a = &sl[i], *b = &sl[j];
			if (i == j || a->pid != b->pid || a->tid != b->tid)
				continue;
			if (a->ts < b->ts + b->dur - 5e-4 && b->ts < a->ts + a->dur - 5e-4) {
				printf("#   tid %d: batch %llu [%.3f +%.3f] and batch %llu [%.3f +%.3f]\n",
				       a->tid, (unsigned long long)a->batch, a->ts, a->dur,
				       (unsigned long long)b->batch, b->ts, b->dur);
				return false;
			}
		}
	return true;
}

int main(void)
{
	char path[] = "/tmp/gputop-decode-test-trace.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		tap_ok(0, "mkstemp");
		return tap_done();
	}
	struct gd_trace *t = trace_open(fd, true, path, 1000);
	trace_output.start(t, T0);
	struct gd_row_info w;
	memset(&w, 0, sizeof(w));
	w.id = 1;
	w.pid = 4242;
	static const int64_t none[2] = { 0, 0 };

	/* Lane 1 and lane 2 side by side: write, two kernels, read each. */
	static const int64_t k0[2][2] = { { 110, 200 }, { 200, 300 } },
	                     k1[2][2] = { { 150, 250 }, { 260, 350 } };
	static const int64_t w0[2] = { 100, 110 }, r0[2] = { 300, 320 }, w1[2] = { 105, 150 },
	                     r1[2] = { 350, 360 };
	struct gd_rec r = rec(0, 0, false, w0, k0, 2, r0);
	trace_output.batch(t, &w, "0:0", &r);
	r = rec(1, 1, false, w1, k1, 2, r1);
	trace_output.batch(t, &w, "0:0", &r);
	/* Lane 1 again, estimated, starting inside batch 0's kernels: its overlap track. */
	static const int64_t k2[2][2] = { { 250, 400 }, { 400, 500 } }, w2[2] = { 240, 250 },
	                     r2[2] = { 500, 510 };
	r = rec(2, 0, true, w2, k2, 2, r2);
	trace_output.batch(t, &w, "0:0", &r);
	/* Two more inside both: the second overlap track, then clipped to where a track frees
	 * first (lane 1's kernel track, at 300 us); the part before is cut. */
	static const int64_t k3[1][2] = { { 260, 450 } }, k4[1][2] = { { 270, 600 } },
	                     k5[1][2] = { { 280, 290 } };
	r = rec(3, 0, false, none, k3, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	r = rec(4, 0, false, none, k4, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	/* One that every track covers: dropped. */
	r = rec(5, 0, false, none, k5, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	char why[256] = "";
	int rc = trace_output.close(t, why, sizeof(why));
	tap_ok(rc == 0 && parse(path), "the trace is written and read back (%s)", why);
	unlink(path);

	const struct slice *s[16];
	tap_ok(find("kernel", 0, s) == 2 && s[0]->tid == 110 && s[1]->tid == 110 && s[0]->lane == 1 &&
	           strcmp(tnames[110], "lane 1 kernels") == 0,
	       "batch 0's kernels on lane 1's kernel track (tid 110, \"%s\")", tnames[110]);
	tap_ok(find("write", 0, s) == 1 && s[0]->tid == 100 && strcmp(tnames[100], "lane 1 write") == 0 &&
	           find("read", 0, s) == 1 && s[0]->tid == 120 && strcmp(tnames[120], "lane 1 read") == 0,
	       "its write and read on lane 1's write and read tracks");
	tap_ok(find("kernel", 1, s) == 2 && s[0]->tid == 210 && s[0]->lane == 2 &&
	           strcmp(tnames[210], "lane 2 kernels") == 0 && find("write", 1, s) == 1 && s[0]->tid == 200,
	       "batch 1, on lane 2 at the same time, on lane 2's tracks");
	tap_ok(find("kernel", 2, s) == 2 && s[0]->tid == 111 && s[1]->tid == 111 &&
	           strcmp(tnames[111], "lane 1 kernels, overlap 1") == 0,
	       "batch 2's kernels, starting inside batch 0's, together on lane 1's first overlap track");
	tap_ok(find("write", 2, s) == 1 && s[0]->tid == 100 && find("read", 2, s) == 1 && s[0]->tid == 120,
	       "its write and read, after batch 0's, on lane 1's own write and read tracks");
	bool est = true, meas = true;
	for (int i = 0; i < nsl; i++) {
		bool dev = strcmp(sl[i].name, "generate") != 0;
		if (dev && sl[i].batch == 2)
			est = est && sl[i].estimated;
		else
			meas = meas && !sl[i].estimated;
	}
	tap_ok(est, "every device slice of the estimated batch says \"estimated\": true");
	tap_ok(meas, "no measured slice, and no host slice, says it");
	tap_ok(find("kernel", 3, s) == 1 && s[0]->tid == 112 && s[0]->clipped == 0 &&
	           strcmp(tnames[112], "lane 1 kernels, overlap 2") == 0,
	       "batch 3, inside both, on the second overlap track, whole");
	tap_ok(find("kernel", 4, s) == 1 && s[0]->tid == 110 && s[0]->ts == 300.0 && s[0]->dur == 300.0 &&
	           s[0]->clipped == 30.0,
	       "batch 4, with every track busy: clipped to start at 300 us on the track that frees first "
	       "(clipped_us 30)");
	tap_ok(find("kernel", 5, s) == 0, "batch 5, inside what every track holds: dropped");
	tap_ok(clipped == 1 && dropped == 1, "the last event counts 1 clipped and 1 dropped (%llu, %llu)",
	       clipped, dropped);
	tap_ok(find("generate", 0, s) == 1 && s[0]->tid == 1 && strcmp(tnames[1], "host") == 0 &&
	           s[0]->lane == 0,
	       "generation on the host track, without a lane");
	tap_ok(no_overlap(), "no two slices of one track overlap");
	return tap_done();
}

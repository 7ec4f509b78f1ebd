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
	char name[32];
	int pid, tid;
	double ts, dur, clipped;
	uint64_t batch;
	int lane;
	bool estimated;
	bool cname;  /* it has a colour of its own */
	int kernels; /* a union slice: the kernels it holds */
};

/* A counter value: when, and what. */
struct count {
	int pid;
	double ts;
	int v;
};

static struct slice sl[256];
static int nsl;
static struct count cnt[256];
static int ncnt;
static char tnames[2000][48]; /* thread names of worker 1, by tid */
static char text[1 << 16];
static char marks[4][64]; /* the sweep markers' names */
static int nmarks;
static unsigned long long clipped, dropped, late;

static double num_after(const char *line, const char *key, double none)
{
	const char *p = strstr(line, key);
	return p ? atof(p + strlen(key)) : none;
}

/* The string value after key, into out. */
static void str_after(const char *line, const char *key, char *out, size_t len)
{
	const char *p = strstr(line, key);
	p = p ? p + strlen(key) : "";
	snprintf(out, len, "%.*s", (int)strcspn(p, "\""), p);
}

/* One line's slice. */
static void parse_slice(const char *line, int tid)
{
	struct slice *s = &sl[nsl++];
	str_after(line, "\"name\":\"", s->name, sizeof(s->name));
	s->pid = (int)num_after(line, "\"pid\":", -1);
	s->tid = tid;
	s->ts = num_after(line, "\"ts\":", -1);
	s->dur = num_after(line, "\"dur\":", -1);
	s->batch = (uint64_t)num_after(line, "\"batch\":", -1);
	s->lane = (int)num_after(line, "\"lane\":", 0);
	s->clipped = num_after(line, "\"clipped_us\":", 0);
	s->estimated = strstr(line, "\"estimated\":true") != NULL;
	s->cname = strstr(line, "\"cname\":") != NULL;
	s->kernels = (int)num_after(line, "\"kernels\":", 0);
}

/* Reads the trace back: its slices, counter values, markers, worker 1's thread names and the
 * counts of its last event. */
static bool parse(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	nsl = ncnt = nmarks = 0;
	memset(tnames, 0, sizeof(tnames));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int tid = (int)num_after(line, "\"tid\":", -1);
		int pid = (int)num_after(line, "\"pid\":", -1);
		if (strstr(line, "\"thread_name\"") && pid == 1 && tid >= 0 && tid < 2000)
			str_after(line, "\"args\":{\"name\":\"", tnames[tid], sizeof(tnames[tid]));
		else if (strstr(line, "\"ph\":\"X\"") && nsl < (int)GD_ARRAY_LEN(sl))
			parse_slice(line, tid);
		else if (strstr(line, "\"ph\":\"C\"") && ncnt < (int)GD_ARRAY_LEN(cnt))
			cnt[ncnt++] = (struct count){ pid, num_after(line, "\"ts\":", -1),
				                      (int)num_after(line, "\"running\":", -1) };
		else if (strstr(line, "\"cat\":\"sweep\"") && strstr(line, "\"ph\":\"i\",\"s\":\"g\"") &&
		         nmarks < 4)
			str_after(line, "\"name\":\"", marks[nmarks++], sizeof(marks[0]));
		else if (strstr(line, "end of trace")) {
			clipped = (unsigned long long)num_after(line, "\"clipped\":", -1);
			dropped = (unsigned long long)num_after(line, "\"dropped\":", -1);
			late = (unsigned long long)num_after(line, "\"late\":", -1);
		}
	}
	return true;
}

/* The slices named name of batch b of worker pid, into out (at most 16); how many. */
static int find_of(int pid, const char *name, uint64_t b, const struct slice *out[16])
{
	int k = 0;
	for (int i = 0; i < nsl && k < 16; i++)
		if (sl[i].pid == pid && sl[i].batch == b && strcmp(sl[i].name, name) == 0)
			out[k++] = &sl[i];
	return k;
}

static int find(const char *name, uint64_t b, const struct slice *out[16])
{
	return find_of(1, name, b, out);
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

/* Device pid's union slices, "[s,e)" each, into out; and whether its counter, stepped through
 * its values in time order, is at every whole and half us in [0, 1000) the number of the
 * kernels iv[0..n) running then (and 0 after them). */
static bool union_of(int pid, const int64_t (*iv)[2], int n, char *out, size_t len)
{
	out[0] = '\0';
	for (int i = 0; i < nsl; i++)
		if (sl[i].pid == pid && strcmp(sl[i].name, "busy") == 0)
			snprintf(out + strlen(out), len - strlen(out), "[%g,%g)", sl[i].ts,
			         sl[i].ts + sl[i].dur);
	int v = 0, c = 0;
	double last = -1;
	for (double at = 0; at < 1000; at += 0.5) {
		for (; c < ncnt && cnt[c].pid != pid; c++)
			;
		for (; c < ncnt && cnt[c].ts <= at; c++) {
			if (cnt[c].pid != pid)
				continue;
			if (cnt[c].ts < last || cnt[c].v == v)
				return false; /* out of order, or a value that is no change */
			last = cnt[c].ts;
			v = cnt[c].v;
		}
		int want = 0;
		for (int i = 0; i < n; i++)
			want += iv[i][0] <= at && at < iv[i][1];
		if (v != want) {
			printf("#   pid %d at %.1f us: counter %d, kernels running %d\n", pid, at, v, want);
			return false;
		}
	}
	return true;
}

/* A trace file to write: its descriptor, or -1 after saying why not. */
static int temp(char *path)
{
	int fd = mkstemp(path);
	if (fd < 0)
		tap_ok(0, "mkstemp");
	return fd;
}

/* Worker 1's batches on lanes 1 and 2, overlapping, clipped and estimated; worker 2 on the
 * same device, worker 3 on another; a sweep marker. */
static void lanes(void)
{
	char path[] = "/tmp/gputop-decode-test-trace.XXXXXX";
	int fd = temp(path);
	if (fd < 0)
		return;
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
	/* Lane 1 again, estimated, starting inside batch 0's kernels: tracks of its own. */
	static const int64_t k2[2][2] = { { 250, 400 }, { 400, 500 } }, w2[2] = { 240, 250 },
	                     r2[2] = { 500, 510 };
	r = rec(2, 0, true, w2, k2, 2, r2);
	trace_output.batch(t, &w, "0:0", &r);
	/* Measured ones inside batch 0's: the overlap tracks, then clipped to where a track frees
	 * first (lane 1's kernel track, at 300 us), the part before cut; one that every track
	 * covers: dropped. */
	static const int64_t k3[1][2] = { { 260, 450 } }, k4[1][2] = { { 270, 600 } },
	                     k5[1][2] = { { 280, 290 } }, k6[1][2] = { { 285, 500 } };
	r = rec(3, 0, false, none, k3, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	r = rec(4, 0, false, none, k4, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	r = rec(5, 0, false, none, k5, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	r = rec(6, 0, false, none, k6, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	/* Worker 2 on device 0 before and after worker 1; worker 3 on device 1. */
	static const int64_t k7[2][2] = { { 50, 60 }, { 700, 800 } }, k8[1][2] = { { 100, 200 } };
	w.id = 2;
	r = rec(0, 0, false, none, k7, 2, none);
	trace_output.batch(t, &w, "0:0", &r);
	w.id = 3;
	w.device = 1;
	r = rec(0, 0, false, none, k8, 1, none);
	trace_output.batch(t, &w, "1:0", &r);
	struct gd_outputs l = { .n = 1 };
	l.out[0].ops = &trace_output;
	l.out[0].self = t;
	trace_mark(&l, T0 + 40 * US, "step %d: %d processes", 2, 4);
	trace_mark(NULL, T0, "nowhere");
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
	tap_ok(find("kernel (estimated)", 2, s) == 2 && s[0]->tid == 115 && s[1]->tid == 115 &&
	           s[0]->estimated && s[0]->cname && strcmp(tnames[115], "lane 1 kernels, estimated") == 0 &&
	           find("kernel", 2, s) == 0,
	       "the estimated batch 2's kernels: named \"kernel (estimated)\", grey, on a track of their own "
	       "(tid 115, \"%s\")",
	       tnames[115]);
	tap_ok(find("write (estimated)", 2, s) == 1 && s[0]->tid == 105 &&
	           strcmp(tnames[105], "lane 1 write, estimated") == 0 &&
	           find("read (estimated)", 2, s) == 1 && s[0]->tid == 125 &&
	           strcmp(tnames[125], "lane 1 read, estimated") == 0,
	       "its write and read on lane 1's estimated write and read tracks");
	bool est = true, meas = true;
	for (int i = 0; i < nsl; i++) {
		if (sl[i].pid != 1)
			continue;
		bool dev = strcmp(sl[i].name, "generate") != 0;
		if (dev && sl[i].batch == 2)
			est = est && sl[i].estimated && strstr(tnames[sl[i].tid], "estimated");
		else
			meas = meas && !sl[i].estimated && !sl[i].cname &&
			       !strstr(tnames[sl[i].tid], "estimated");
	}
	tap_ok(est,
	       "every device slice of the estimated batch says \"estimated\": true, on an estimated track");
	tap_ok(meas, "no measured slice, and no host slice, says it or is on such a track");
	tap_ok(find("kernel", 3, s) == 1 && s[0]->tid == 111 && s[0]->clipped == 0 &&
	           strcmp(tnames[111], "lane 1 kernels, overlap 1") == 0 && find("kernel", 4, s) == 1 &&
	           s[0]->tid == 112 && strcmp(tnames[112], "lane 1 kernels, overlap 2") == 0,
	       "batches 3 and 4, inside batch 0's kernels, on the first and second overlap tracks, whole");
	tap_ok(find("kernel", 5, s) == 0, "batch 5, inside what every track holds: dropped");
	tap_ok(find("kernel", 6, s) == 1 && s[0]->tid == 110 && s[0]->ts == 300.0 && s[0]->dur == 200.0 &&
	           s[0]->clipped == 15.0,
	       "batch 6, with every track busy: clipped to start at 300 us on the track that frees first "
	       "(clipped_us 15)");
	tap_ok(clipped == 1 && dropped == 1 && late == 0,
	       "the last event counts 1 clipped, 1 dropped and 0 late (%llu, %llu, %llu)", clipped, dropped,
	       late);
	tap_ok(find("generate", 0, s) == 1 && s[0]->tid == 1 && strcmp(tnames[1], "host") == 0 &&
	           s[0]->lane == 0,
	       "generation on the host track, without a lane");
	tap_ok(no_overlap(), "no two slices of one track overlap");

	/* Device 0's kernels: worker 1's ten (batch 5's, dropped from its track, too) and worker 2's. */
	static const int64_t dev0[12][2] = { { 110, 200 }, { 200, 300 }, { 150, 250 }, { 260, 350 },
		                             { 250, 400 }, { 400, 500 }, { 260, 450 }, { 270, 600 },
		                             { 280, 290 }, { 285, 500 }, { 50, 60 },   { 700, 800 } };
	char u[256];
	bool ok = union_of(1000000, dev0, 12, u, sizeof(u));
	tap_ok(ok && strcmp(u, "[50,60)[110,600)[700,800)") == 0,
	       "device 0's track: the union of both workers' kernels as busy slices (%s), the counter the "
	       "kernels running at every point",
	       u);
	int k = 0;
	for (int i = 0; i < nsl; i++)
		if (sl[i].pid == 1000000 && sl[i].ts == 110.0)
			k = sl[i].kernels;
	tap_ok(k == 10, "its busy slice [110, 600) holds 10 kernels (%d)", k);
	ok = union_of(1000001, k8, 1, u, sizeof(u));
	tap_ok(ok && strcmp(u, "[100,200)") == 0, "device 1's track: worker 3's kernel alone (%s)", u);
	tap_ok(nmarks == 1 && strcmp(marks[0], "step 2: 4 processes") == 0,
	       "one sweep marker, a global instant event named \"%s\"", nmarks ? marks[0] : "");
}

/* The union written a window at a time: up to its mark at a frame, a kernel before the mark
 * that arrives later clipped to it and counted late. */
static void windows(void)
{
	char path[] = "/tmp/gputop-decode-test-trace.XXXXXX";
	int fd = temp(path);
	if (fd < 0)
		return;
	struct gd_trace *t = trace_open(fd, true, path, 1000);
	trace_output.start(t, T0);
	struct gd_row_info w;
	memset(&w, 0, sizeof(w));
	w.id = 1;
	static const int64_t none[2] = { 0, 0 };
	static const int64_t ka[1][2] = { { 1000000, 1200000 } }, kb[1][2] = { { 3000000, 3100000 } },
	                     kc[2][2] = { { 1500000, 1800000 }, { 2000000, 2500000 } };
	struct gd_rec r = rec(0, 0, false, none, ka, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	r = rec(1, 0, false, none, kb, 1, none);
	trace_output.batch(t, &w, "0:0", &r);
	char err[64];
	trace_output.frame(t, NULL, err, sizeof(err));
	bool out = parse(path);
	char u[256];
	union_of(1000000, ka, 0, u, sizeof(u));
	tap_ok(out && strcmp(u, "[1e+06,1.2e+06)") == 0,
	       "at a frame, the union up to 1 s behind the latest batch is written: %s", u);
	w.id = 2;
	r = rec(0, 0, false, none, kc, 2, none);
	trace_output.batch(t, &w, "0:0", &r);
	char why[256] = "";
	tap_ok(trace_output.close(t, why, sizeof(why)) == 0 && parse(path), "closed (%s)", why);
	unlink(path);
	union_of(1000000, ka, 0, u, sizeof(u));
	tap_ok(strcmp(u, "[1e+06,1.2e+06)[2.1e+06,2.5e+06)[3e+06,3.1e+06)") == 0 && late == 2,
	       "kernels that arrive after the mark (2.1 s) that they start before: only their part after it "
	       "in the union (%s), counted late (%llu)",
	       u, late);
}

int main(void)
{
	lanes();
	windows();
	return tap_done();
}

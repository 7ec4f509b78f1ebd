/* test_session.c: the session with real child processes. The supervisor starts its workers
 * from /proc/self/exe, which is this test: started with --worker=NAME,GEN,ID,PID it is a fake
 * worker that creates its segment with the ring's writer API, checks the command line it was
 * given, publishes a batch every few milliseconds with a heartbeat, and ends on SIGTERM
 * (FAKE_WORKER_STALL set: it publishes two batches, then neither publishes nor beats).
 *
 * The session: starting workers, frames with every worker's sample, a test output that sees
 * every batch and frame, adding workers (placement, the --max-procs limit), stopping one
 * gracefully and one hard, forgetting ended workers, changing the interval, ending the run
 * after a time, an output that fails, and stopping it all: no child and no segment left. A
 * worker whose heartbeat stops is stalled, and is not once the interval is long enough. Every
 * wait is bounded; nothing here depends on speed. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/outputs.h"
#include "ring/writer.h"
#include "gputop/session.h"
#include "measure/ceiling.h"
#include "tap.h"

#define WAIT_NS     (10 * GD_NS_PER_S) /* the longest any condition is waited for */
#define BATCH_NS    (5 * 1000 * 1000)  /* a fake batch's length */
#define STALL_AFTER 2                  /* batches a stalling fake worker publishes */

/* ---- the fake worker ---- */

static volatile sig_atomic_t fake_stop;

static void fake_on_term(int sig)
{
	(void)sig;
	fake_stop = 1;
}

/* What a worker of the sessions below is given after --worker and --device (spec_child_argv). */
static const char *const fake_args[] = { "--size=1000", "--launches=2",  "--dtype=f32",
	                                 "--mode=seed", "--profile=off", "--queues=1" };

static const char *fake_check_argv(int argc, char **argv)
{
	if (argc != 3 + (int)GD_ARRAY_LEN(fake_args))
		return "unexpected command line: argument count";
	if (strncmp(argv[2], "--device=0:", 11) != 0)
		return "unexpected command line: --device";
	for (size_t i = 0; i < GD_ARRAY_LEN(fake_args); i++)
		if (strcmp(argv[3 + i], fake_args[i]) != 0)
			return "unexpected command line: the workload";
	return NULL;
}

static int fake_worker(int argc, char **argv)
{
	char shm[128];
	unsigned long long gen;
	unsigned id;
	int supervisor;
	if (sscanf(argv[1], "--worker=%127[^,],%llx,%u,%d", shm, &gen, &id, &supervisor) != 4)
		return GD_EXIT_USAGE;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = fake_on_term; /* no SA_RESTART: a sleep ends at once */
	sigaction(SIGTERM, &sa, NULL);
	/* Spawned with its stop signals blocked, as every worker: a real one unblocks them after
	 * its OpenCL set-up, this one has none. */
	sigset_t stops, was;
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &stops, &was);
	bool blocked = sigismember(&was, SIGTERM) == 1;
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != supervisor)
		return GD_EXIT_OK;

	struct gd_seg_info info = { .generation = gen, .id = id, .dtype_bytes = 4 };
	str_copy(info.device, sizeof(info.device), "fake device");
	char err[256];
	struct gd_seg *seg = seg_create(shm, &info, err, sizeof(err));
	if (!seg) {
		int e = errno;
		fprintf(stderr, "fake worker %u: %s\n", id, err);
		return e > 0 && e < 128 ? GD_EXIT_NOSEG_ERRNO + e : GD_EXIT_NOSEG;
	}
	const char *bad = blocked ? fake_check_argv(argc, argv) : "spawned with SIGTERM not blocked";
	if (bad) {
		seg_set_error(seg, bad);
		while (!fake_stop && getppid() == supervisor)
			sleep_ns(BATCH_NS);
		seg_close(seg, getppid() != supervisor);
		return GD_EXIT_FAIL;
	}
	bool stall = getenv("FAKE_WORKER_STALL") != NULL;
	seg_set_state(seg, GD_SEG_RUNNING);
	seg_heartbeat(seg);
	for (uint64_t b = 0; !fake_stop && getppid() == supervisor;) {
		if (stall && b >= STALL_AFTER) {
			sleep_ns(BATCH_NS); /* alive, but its heartbeat has stopped */
			continue;
		}
		struct gd_rec r;
		memset(&r, 0, sizeof(r));
		r.t_begin = now_ns();
		sleep_ns(BATCH_NS);
		r.t_end = now_ns();
		r.t_gen = r.t_begin + (r.t_end - r.t_begin) / 4;
		r.batch = b++;
		r.items = 1000;
		r.kernels = 2;
		r.share_ppm = GD_SHARE_NONE;
		seg_publish(seg, &r);
		seg_add_totals(seg, 1, 1000, 2);
		seg_heartbeat(seg);
	}
	seg_set_state(seg, GD_SEG_EXITED);
	seg_close(seg, getppid() != supervisor); /* the supervisor unlinks it after its last read */
	return GD_EXIT_OK;
}

/* ---- the test output ---- */

#define IDS 16

struct tout {
	const struct gd_session_config *c; /* each worker's device label comes from it */
	int starts, frames;
	double last_t_s;
	int last_nworkers;
	uint64_t batches[IDS]; /* per worker id */
	uint64_t last_batch[IDS];
	bool in_order, on_device, valid;
	bool fail; /* frame returns -1 */
};

static void t_start(void *self, int64_t t0)
{
	struct tout *t = self;
	(void)t0;
	t->starts++;
}

static void t_batch(void *self, const struct gd_row_info *w, const char *device, const struct gd_rec *r)
{
	struct tout *t = self;
	if (w->id >= IDS) {
		t->valid = false;
		return;
	}
	if (t->batches[w->id] && r->batch <= t->last_batch[w->id])
		t->in_order = false;
	t->last_batch[w->id] = r->batch;
	t->batches[w->id]++;
	if (w->device < 0 || w->device >= t->c->ndevs || strcmp(device, t->c->devs[w->device].ref) != 0)
		t->on_device = false;
	if (!gd_rec_valid(r) || r->items != 1000 || r->kernels != 2)
		t->valid = false;
}

static int t_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	struct tout *t = self;
	t->frames++;
	t->last_t_s = f->t_s;
	t->last_nworkers = f->nworkers;
	if (t->fail) {
		snprintf(err, errlen, "test output: cannot take frame %d", t->frames);
		return -1;
	}
	return 0;
}

static int t_close(void *self, char *why, size_t whylen)
{
	(void)self, (void)why, (void)whylen;
	return 0;
}

static const struct gd_output_ops test_ops = {
	.start = t_start, .batch = t_batch, .frame = t_frame, .close = t_close
};

static void tout_init(struct tout *t, const struct gd_session_config *c)
{
	memset(t, 0, sizeof(*t));
	t->c = c;
	t->in_order = t->on_device = t->valid = true;
}

/* ---- helpers ---- */

static struct gd_session_config config(int ndevs, int procs)
{
	struct gd_session_config c;
	memset(&c, 0, sizeof(c));
	c.work = (struct gd_workload){ .kernel = { .size = 1000, .launches = 2, .dtype = GD_DT_F32 },
		                       .mode = GD_MODE_SEED,
		                       .queues = 1,
		                       .gen_threads = -1,
		                       .profile = GD_PROF_OFF };
	c.ndevs = ndevs;
	for (int d = 0; d < ndevs; d++) {
		c.devs[d].platform = 0;
		c.devs[d].index = d;
		device_ref_text(c.devs[d].ref, sizeof(c.devs[d].ref), 0, d);
		snprintf(c.devs[d].name, sizeof(c.devs[d].name), "fake device %d", d);
	}
	c.procs = procs;
	c.max_procs = 4;
	c.interval_s = 0.1;
	return c;
}

static int polled; /* frames session_poll returned */

/* What a wait that gave up saw last: the latest frame and the workers. */
static void show(const struct gd_session *s)
{
	const struct gd_frame *f = session_frame(s);
	printf("#   gave up: latest frame at %.3f s, %d workers:", f->t_s, f->nworkers);
	for (int i = 0; i < f->nworkers; i++)
		printf(" %u %s %" PRIu64 "/%" PRIu64, f->workers[i].id, gd_state_name(f->workers[i].state),
		       f->workers[i].win_batches, f->workers[i].batches);
	printf("\n#   the supervisor's %d:", session_nrows(s));
	for (int i = 0; i < session_nrows(s); i++) {
		struct gd_row_info w = session_row(s, i);
		printf(" %u pid %d %s%s %s", w.id, (int)w.pid, gd_state_name(w.state),
		       w.alive ? "" : " (ended)", w.error);
	}
	printf("\n");
}

/* Runs the session's clock until cond holds (checked after every poll, with the frame it
 * returned or NULL) or WAIT_NS have passed; whether it held. */
typedef bool (*cond_fn)(struct gd_session *s, const struct gd_frame *f, void *ctx);
static bool run_until(struct gd_session *s, cond_fn cond, void *ctx)
{
	int64_t deadline = now_ns() + WAIT_NS;
	for (;;) {
		const struct gd_frame *f = session_poll(s, now_ns());
		polled += f != NULL;
		if (cond(s, f, ctx))
			return true;
		int64_t now = now_ns();
		if (now > deadline) {
			show(s);
			return false;
		}
		int64_t wait = session_wait(s, now);
		sleep_ns(wait > 0 ? wait : GD_NS_PER_S / 1000);
	}
}

static struct gd_row_info info_of(const struct gd_session *s, int i)
{
	struct gd_row_info w;
	memset(&w, 0, sizeof(w));
	if (i >= 0 && i < session_nrows(s))
		w = session_row(s, i);
	return w;
}

/* A frame of n workers, every one running with batches measured in it. */
static bool all_measured(struct gd_session *s, const struct gd_frame *f, void *ctx)
{
	(void)s;
	int n = *(int *)ctx;
	if (!f || f->nworkers != n)
		return false;
	for (int i = 0; i < n; i++)
		if (f->workers[i].state != GD_ST_RUNNING || f->workers[i].win_batches == 0)
			return false;
	return true;
}

/* Worker i has been reaped. */
static bool reaped(struct gd_session *s, const struct gd_frame *f, void *ctx)
{
	(void)f;
	return !info_of(s, *(int *)ctx).alive;
}

/* A frame. */
static bool any_frame(struct gd_session *s, const struct gd_frame *f, void *ctx)
{
	(void)s, (void)ctx;
	return f != NULL;
}

static bool done(struct gd_session *s, const struct gd_frame *f, void *ctx)
{
	(void)f, (void)ctx;
	return session_done(s);
}

/* The ended workers have been forgotten: n remain. */
static bool pruned_to(struct gd_session *s, const struct gd_frame *f, void *ctx)
{
	(void)f;
	session_prune(s);
	return session_nrows(s) == *(int *)ctx;
}

/* Worker 0 is in state *ctx. */
static bool worker0_in(struct gd_session *s, const struct gd_frame *f, void *ctx)
{
	(void)f;
	return info_of(s, 0).state == *(enum gd_state *)ctx;
}

/* Segments of this process's workers left in /dev/shm. */
static int segments_left(void)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), GD_SEG_PREFIX "%u.%d.", (unsigned)geteuid(), (int)getpid());
	DIR *d = opendir("/dev/shm");
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

/* After session_stop: no child left to wait for, no segment left behind. */
static void nothing_left(const char *what)
{
	errno = 0;
	pid_t p = waitpid(-1, NULL, WNOHANG);
	int e = errno;
	tap_ok(p == -1 && e == ECHILD, "%s: no child is left (waitpid: %d, %s)", what, (int)p, strerror(e));
	TAP_EQ_U(segments_left(), 0, "%s: no segment of ours is left in /dev/shm", what);
}

/* A session of c whose one output is t (counted through outs); NULL after saying why. */
static struct gd_session *start(const struct gd_session_config *c, struct tout *t, struct gd_outputs *outs,
                                const char *what)
{
	tout_init(t, c);
	*outs = (struct gd_outputs){ .n = 0 };
	outputs_add(outs, &test_ops, t);
	char err[256] = "";
	struct gd_session *s = session_start(c, outs, err, sizeof(err));
	tap_ok(s != NULL, "%s: session_start: %s", what, s ? "started" : err);
	return s;
}

/* ---- the tests ---- */

static void test_session(void)
{
	struct gd_session_config c = config(1, 2);
	struct tout t;
	struct gd_outputs outs;
	struct gd_session *s = start(&c, &t, &outs, "session");
	if (!s)
		return;
	char err[256] = "";
	tap_ok(session_nrows(s) == 2 && session_live(s) == 2 && session_active(s) == 2,
	       "--procs 2: two workers started");
	tap_ok(info_of(s, 0).id == 1 && info_of(s, 1).id == 2 && info_of(s, 0).pid > 0 &&
	           info_of(s, 1).pid > 0 && info_of(s, 0).device == 0,
	       "each a process of its own, numbered from 1, on the one device");
	TAP_EQ_U(t.starts, 1, "the outputs were started once");
	tap_ok(session_ndevs(s) == 1 && strcmp(session_device(s, 0)->ref, "0:0") == 0 &&
	           session_workload(s)->kernel.size == 1000 && fabs(session_interval(s) - 0.1) < 1e-12,
	       "the run's devices, workload and interval as configured");
	tap_ok(isnan(session_ceiling(s, -1)->rate) && isnan(session_ceiling(s, 0)->rate),
	       "not calibrated: no ceiling");

	int two = 2;
	bool ok = run_until(s, all_measured, &two);
	const struct gd_frame *f = session_frame(s);
	tap_ok(ok, "frames arrive with both workers' samples, each running and measured");
	tap_ok(ok && f->workers[0].id == 1 && f->workers[1].id == 2 && f->procs == 2 && f->agg.device == -1 &&
	           f->agg.win_batches == f->workers[0].win_batches + f->workers[1].win_batches &&
	           f->agg.rate > 0 && f->observed && isnan(f->ceiling),
	       "the frame: both workers in order, the aggregate their sum");
	tap_ok(strcmp(session_first_error(s), "") == 0,
	       "no worker failed: each was given the command line the workload asks for");
	tap_ok(t.frames == polled && t.frames > 0 && t.last_t_s == f->t_s && t.last_nworkers == 2,
	       "the test output saw every frame session_poll returned (%d), the latest last", polled);
	tap_ok(t.batches[1] > 0 && t.batches[2] > 0 && t.in_order && t.on_device && t.valid,
	       "the test output saw both workers' batches, each worker's in order, with its device");
	tap_ok(strcmp(session_error(s), "") == 0, "session_error: \"\" while every output works");
	char msg[256];
	tap_ok(!session_take_message(s, msg, sizeof(msg)), "no calibration: no message");

	/* More workers, up to --max-procs. */
	int i = session_spawn(s, -1, err, sizeof(err));
	struct gd_row_info w = info_of(s, 2);
	tap_ok(i == 2 && w.id == 3 && w.alive && w.device == 0, "session_spawn: a third worker, id 3 (%s)",
	       i < 0 ? err : "started");
	i = session_spawn(s, 0, err, sizeof(err));
	tap_ok(i == 3 && info_of(s, 3).device == 0 && session_active_on(s, 0) == 4,
	       "session_spawn on device 0: a fourth, every one placed on the one device");
	err[0] = '\0';
	i = session_spawn(s, -1, err, sizeof(err));
	tap_ok(i == -1 && strstr(err, "--max-procs") && session_live(s) == 4,
	       "a fifth is refused by --max-procs: %s", err);
	int four = 4;
	tap_ok(run_until(s, all_measured, &four), "frames with all four workers measured");

	/* Stopping: worker 4 gracefully, worker 3 hard. */
	session_stop_row(s, 3, false);
	tap_ok(info_of(s, 3).state == GD_ST_STOPPING && !info_of(s, 3).active,
	       "a graceful stop: stopping at once");
	int three = 3;
	ok = run_until(s, reaped, &three);
	w = info_of(s, 3);
	tap_ok(ok && w.state == GD_ST_EXITED && w.error[0] == '\0', "it ends exited (%s%s%s)",
	       gd_state_name(w.state), w.error[0] ? ": " : "", w.error);
	tap_ok(ok && t.batches[4] + w.lost == w.batches,
	       "every batch it published reached the outputs (%" PRIu64 " + %" PRIu64 " lost of %" PRIu64 ")",
	       t.batches[4], w.lost, w.batches);
	session_stop_row(s, 2, true);
	two = 2;
	ok = run_until(s, reaped, &two);
	w = info_of(s, 2);
	tap_ok(ok && w.state == GD_ST_EXITED, "a hard stop: killed by us, so exited (%s)",
	       gd_state_name(w.state));
	tap_ok(session_live(s) == 2 && session_active(s) == 2, "two workers are left");
	ok = run_until(s, pruned_to, &two);
	tap_ok(ok && session_nrows(s) == 2 && info_of(s, 0).id == 1 && info_of(s, 1).id == 2,
	       "session_prune forgets the ended workers once their records were reported");
	ok = run_until(s, all_measured, &two);
	tap_ok(ok && session_frame(s)->procs == 2, "frames go on with the two");

	/* A new interval: the open window ends one new interval after its start, and so do the next. */
	session_set_interval(s, 0.2);
	tap_ok(fabs(session_interval(s) - 0.2) < 1e-12, "session_interval: 0.2 s");
	double before = session_frame(s)->t_s;
	ok = run_until(s, any_frame, NULL);
	double first = session_frame(s)->t_s, first_len = session_frame(s)->window_s;
	ok = ok && run_until(s, any_frame, NULL);
	f = session_frame(s);
	tap_ok(ok && fabs(first_len - 0.2) < 1e-6 && fabs(first - before - 0.2) < 1e-6 &&
	           fabs(f->window_s - 0.2) < 1e-6 && fabs(f->t_s - first - 0.2) < 1e-6,
	       "windows follow the new interval (%.6f, %.6f s)", first_len, f->window_s);

	/* An output that fails: the session says why. */
	t.fail = true;
	int frames = t.frames;
	ok = run_until(s, any_frame, NULL);
	tap_ok(ok && t.frames == frames + 1 && strstr(session_error(s), "test output: cannot take frame"),
	       "session_error carries the failed output's reason: %s", session_error(s));
	char first_error[256];
	str_copy(first_error, sizeof(first_error), session_error(s));
	run_until(s, any_frame, NULL);
	tap_ok(strcmp(session_error(s), first_error) == 0, "and keeps it");

	/* The run ends with the window that ends 0.5 s after the open window's start. */
	double start = session_frame(s)->t_s;
	session_end_after(s, 0.5);
	tap_ok(!session_done(s), "session_end_after: not done yet");
	ok = run_until(s, done, NULL);
	f = session_frame(s);
	tap_ok(ok && fabs(f->t_s - (start + 0.5)) < 1e-6,
	       "done with the window that ends 0.5 s later (%.6f s)", f->t_s - start);
	int after = polled;
	for (int k = 0; k < 5; k++) {
		polled += session_poll(s, now_ns()) != NULL;
		sleep_ns(session_poll_period(s));
	}
	tap_ok(polled == after && session_done(s), "once done, no more frames");

	session_stop(s);
	nothing_left("session_stop");
}

/* Two devices: workers go round robin, each frame has a row per device. */
static void test_devices(void)
{
	struct gd_session_config c = config(2, 3);
	struct tout t;
	struct gd_outputs outs;
	struct gd_session *s = start(&c, &t, &outs, "two devices");
	if (!s)
		return;
	char err[256] = "";
	tap_ok(info_of(s, 0).device == 0 && info_of(s, 1).device == 1 && info_of(s, 2).device == 0,
	       "three workers placed round robin: 0, 1, 0");
	int i = session_spawn(s, -1, err, sizeof(err));
	tap_ok(i == 3 && info_of(s, 3).device == 1 && session_active_on(s, 0) == 2 &&
	           session_active_on(s, 1) == 2,
	       "a fourth goes to the device with the fewest");
	int four = 4;
	bool ok = run_until(s, all_measured, &four);
	const struct gd_frame *f = session_frame(s);
	tap_ok(ok && f->ndevs == 2 && f->devs[0].procs == 2 && f->devs[1].procs == 2 &&
	           strcmp(f->devs[0].ref, "0:0") == 0 && strcmp(f->devs[1].ref, "0:1") == 0,
	       "each frame has both devices, two workers each");
	tap_ok(ok && strcmp(frame_device_ref(f, f->workers[1].device), "0:1") == 0 &&
	           f->devs[0].agg.win_batches + f->devs[1].agg.win_batches == f->agg.win_batches,
	       "each worker names its device; the devices' batches add up");
	tap_ok(t.on_device && t.in_order && t.valid,
	       "every batch reached the output with its worker's device");
	session_stop(s);
	nothing_left("two devices");
}

/* A worker that stops beating is stalled after 3 intervals (at least 1 s); with a longer
 * interval it is not. */
static void test_stall(void)
{
	struct gd_session_config c = config(1, 1);
	struct tout t;
	struct gd_outputs outs;
	setenv("FAKE_WORKER_STALL", "1", 1);
	struct gd_session *s = start(&c, &t, &outs, "stall");
	unsetenv("FAKE_WORKER_STALL");
	if (!s)
		return;
	enum gd_state stalled = GD_ST_STALLED;
	bool ok = run_until(s, worker0_in, &stalled);
	struct gd_row_info w = info_of(s, 0);
	tap_ok(ok && w.alive, "a worker whose heartbeat stopped is stalled (%s)", gd_state_name(w.state));
	TAP_EQ_U(w.batches, STALL_AFTER, "  after the batches it published");
	session_set_interval(s, 30.0);
	session_service(s, now_ns());
	w = info_of(s, 0);
	tap_ok(w.state == GD_ST_RUNNING, "with a 30 s interval the same heartbeat is recent enough: %s",
	       gd_state_name(w.state));
	session_stop(s);
	nothing_left("stall");
}

int main(int argc, char **argv)
{
	/* A fake worker ends at once: without the exit-time leak check of a sanitized build, which
	 * on a loaded machine can outlast the supervisor's grace before SIGKILL. */
	if (argc > 1 && strncmp(argv[1], "--worker=", 9) == 0)
		_exit(fake_worker(argc, argv));
	test_session();
	test_devices();
	test_stall();
	return tap_done();
}

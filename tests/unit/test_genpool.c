/* test_genpool.c: generation threads: every submitted slot comes back generated, by a thread of
 * the pool, in any number of rounds; the values are standard normals; stopping is clean; a slot
 * submitted out of turn is refused. Counts and states only: nothing depends on how fast the
 * threads run. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "worker/genpool.h"
#include "tap.h"

#define SLOTS 8
#define N     1000

/* What a worker's fill does for one input: n standard normals of elem bytes. */
struct normals {
	size_t n, elem;
};

static void fill_normals(struct gd_rng *rng, void *dst, const void *ctx)
{
	const struct normals *w = ctx;
	if (w->elem == 8)
		rng_fill_normal_f64(rng, dst, w->n);
	else
		rng_fill_normal_f32(rng, dst, w->n);
}

static void test_rounds(int threads, size_t elem, int rounds)
{
	static struct normals kind;
	kind = (struct normals){ N, elem };
	struct gd_genpool *p = genpool_new(threads, SLOTS, fill_normals, &kind, 42);
	if (!tap_ok(p != NULL, "%d threads start", threads))
		return;
	static double buf[SLOTS][N];
	bool in_range = true, ordered = true, filled = true;
	int used[65] = { 0 };
	for (int r = 0; r < rounds; r++) {
		for (int s = 0; s < SLOTS; s++) {
			memset(buf[s], 0, sizeof(buf[s]));
			genpool_submit(p, s, buf[s]);
		}
		for (int s = 0; s < SLOTS; s++) {
			struct gd_gen_done d;
			genpool_wait(p, s, &d);
			in_range = in_range && d.thread >= 1 && d.thread <= threads;
			ordered = ordered && d.t_end >= d.t_begin && d.t_begin > 0;
			used[d.thread > 0 && d.thread <= 64 ? d.thread : 0]++;
			/* The last value of the slot was written: a zero there is vanishingly unlikely. */
			if (elem == 8)
				filled = filled && buf[s][N - 1] != 0;
			else
				filled = filled && ((float *)buf[s])[N - 1] != 0;
		}
	}
	tap_ok(in_range, "%d threads, %d rounds: every slot says which thread filled it", threads, rounds);
	tap_ok(ordered, "  and when (end after start)");
	tap_ok(filled, "  and every slot was filled (%s)", elem == 8 ? "f64" : "f32");
	genpool_free(p);
}

static void test_values(void)
{
	static const struct normals kind = { 200000, 8 };
	struct gd_genpool *p = genpool_new(3, 1, fill_normals, &kind, 7);
	double *x = malloc(200000 * sizeof(*x));
	genpool_submit(p, 0, x);
	struct gd_gen_done d;
	genpool_wait(p, 0, &d);
	double sum = 0, sq = 0;
	for (int i = 0; i < 200000; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	double mean = sum / 200000, var = sq / 200000 - mean * mean;
	/* Standard errors: 0.0022 for the mean, 0.0032 for the variance; bounds at 6 of them. */
	tap_ok(fabs(mean) < 0.014 && fabs(var - 1) < 0.02,
	       "a slot holds standard normals (mean %.4f, var %.4f)", mean, var);
	free(x);
	genpool_free(p);
}

static void test_states(void)
{
	static const struct normals kind = { 10, 8 };
	struct gd_genpool *p = genpool_new(2, 2, fill_normals, &kind, 1);
	static double a[10];
	tap_ok(!genpool_ready(p, 0), "a slot never submitted is not ready");
	genpool_submit(p, 0, a);
	genpool_submit(p, 0, a); /* twice: queued once */
	struct gd_gen_done d;
	genpool_wait(p, 0, &d);
	tap_ok(!genpool_ready(p, 0), "a slot taken with wait is no longer ready");
	genpool_submit(p, 1, a);
	genpool_free(p); /* with work possibly still queued: the threads stop (a hang fails the run) */
	genpool_free(NULL);
}

/* Slots go in turn; one out of turn would be taken by the wrong ticket, so the pool aborts. Run
 * first, in a child, while this process has no other thread. */
static void test_out_of_turn(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, STDERR_FILENO);
		static const struct normals kind = { 10, 8 };
		static double a[10];
		struct gd_genpool *p = genpool_new(1, 2, fill_normals, &kind, 1);
		genpool_submit(p, 1, a); /* slot 0's turn */
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "a slot submitted out of turn aborts (status %d)",
	       st);
}

int main(void)
{
	test_out_of_turn();
	test_rounds(1, 8, 50);
	test_rounds(4, 8, 200);
	test_rounds(3, 4, 200);
	test_values();
	test_states();
	return tap_done();
}

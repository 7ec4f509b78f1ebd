/* worker.c: the worker role: its signals, its segment, the loop around a mode, and the watchdog
 * that ends an orphan. */
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"
#include "gputop/sig.h"
#include "worker_impl.h"

static volatile sig_atomic_t stop_flag, pause_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_pause(int sig)
{
	pause_flag = (sig == SIGUSR1);
}

static void install_signals(void)
{
	/* SA_RESTART: a stop or pause must not break a system call inside the OpenCL runtime
	 * (PoCL's kernel build fails when a rename in its cache is interrupted). */
	sig_handle(SIGTERM, on_stop, SA_RESTART);
	sig_handle(SIGINT, on_stop, SA_RESTART);
	sig_handle(SIGHUP, on_stop, SA_RESTART);
	sig_handle(SIGQUIT, on_stop, SA_RESTART); /* Ctrl-\ reaches the whole foreground group: a stop too */
	sig_handle(SIGUSR1, on_pause, SA_RESTART);
	sig_handle(SIGUSR2, on_pause, SA_RESTART);
	sig_handle(SIGPIPE, SIG_IGN, 0);
}

/* The supervisor spawns us with pause, resume and the stop signals blocked. They stay blocked
 * through the OpenCL set-up: an OpenCL runtime built on LLVM (PoCL) installs LLVM's handlers
 * for SIGUSR1 and others, and LLVM swallows SIGUSR1; and a stop taken by one of the runtime's
 * threads in the middle of a kernel compile breaks it (PoCL's clang then prints "1 error
 * generated."). So the handlers are installed again after set-up, and only then unblocked, in
 * this thread alone: threads the runtime started meanwhile keep them blocked. A stop that came
 * during set-up is taken now, before the first batch. */
static void unblock_signals(void)
{
	install_signals();
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < GD_ARRAY_LEN(sigs); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Runs until SIGTERM or a failure; pauses between batches on SIGUSR1, resumes on SIGUSR2. */
static int run_loop(struct gd_worker *w)
{
	const struct gd_mode_ops *m = &gd_modes[w->wl->mode];
	pid_t sup = w->wa->supervisor;
	seg_set_state(w->seg, GD_SEG_RUNNING);
	while (!stop_flag && getppid() == sup) {
		if (pause_flag) {
			if (m->drain(w))
				return -1;
			seg_set_state(w->seg, GD_SEG_PAUSED);
			while (pause_flag && !stop_flag && getppid() == sup) {
				seg_heartbeat(w->seg);
				sleep_ns(GD_NS_PER_S / 50);
			}
			seg_set_state(w->seg, GD_SEG_RUNNING);
			continue;
		}
		if (m->step(w))
			return -1;
		seg_heartbeat(w->seg);
	}
	seg_set_state(w->seg, GD_SEG_STOPPING);
	return m->drain(w);
}

/* ---- the orphan watchdog ---- */

#define ORPHAN_POLL_NS  (GD_NS_PER_S / 5)
#define ORPHAN_GRACE_NS (2 * GD_NS_PER_S)

/* Held around the segment's creation, and by the watchdog from its last unlink to _exit, so
 * that no segment can be created after that unlink. */
static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;

/* The parent-death SIGTERM only sets a flag that the loop reads between batches, and nothing
 * interrupts a kernel or a hung OpenCL call. So a thread watches the parent: once it is gone,
 * the graceful path gets ORPHAN_GRACE_NS to finish the batch and clean up, then the watchdog
 * removes the segment and ends the process, whatever the main thread is doing. */
static void *watchdog(void *arg)
{
	const struct gd_worker_args *wa = arg;
	while (getppid() == wa->supervisor)
		sleep_ns(ORPHAN_POLL_NS);
	int64_t deadline = now_ns() + ORPHAN_GRACE_NS;
	for (int64_t now = now_ns(); now < deadline; now = now_ns())
		sleep_ns(deadline - now);
	pthread_mutex_lock(&seg_lock); /* never released: the process ends here */
	shm_unlink(wa->shm);
	_exit(GD_EXIT_OK);
	return NULL;
}

/* Starts the watchdog with every signal blocked in it: handlers run in the main thread. */
static void start_watchdog(const struct gd_worker_args *wa)
{
	/* Without it an orphan still ends after its batch (the parent-death signal). */
	int rc = gd_thread_start(NULL, watchdog, (void *)wa, (size_t)256 * 1024);
	if (rc != 0)
		fprintf(stderr, GD_NAME ": worker %u: no orphan watchdog: %s\n", wa->id, strerror(rc));
}

int worker_main(const struct gd_workload *wl, struct gd_devref dev, const struct gd_worker_args *wa)
{
	install_signals();
	/* Die with the supervisor; it may already be gone before prctl took effect. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != wa->supervisor)
		return GD_EXIT_OK;
	start_watchdog(wa);

	struct gd_worker w;
	memset(&w, 0, sizeof(w));
	w.wl = wl;
	w.k = &wl->kernel;
	w.wa = wa;
	rng_seed(&w.rng, rng_entropy());
	char msg[GD_ERR_LEN];
	if (clx_pick(dev.platform, dev.index, &w.dev, msg, sizeof(msg)) != 0)
		str_copy(w.err, sizeof(w.err), msg);

	struct gd_seg_info info = { .generation = wa->gen,
		                    .id = wa->id,
		                    .dtype_bytes = gd_dtype_info(clx_child_dtype(w.k->dtype))->bytes,
		                    .start_ticks = proc_self_start_ticks() };
	str_copy(info.device, sizeof(info.device), w.dev.info.name);
	pthread_mutex_lock(&seg_lock);
	w.seg = seg_create(wa->shm, &info, msg, sizeof(msg));
	int e = errno;
	pthread_mutex_unlock(&seg_lock);
	if (!w.seg) {
		fprintf(stderr, GD_NAME ": worker %u (pid %d): %s\n", wa->id, (int)getpid(), msg);
		/* The supervisor reads the reason from the exit status. */
		return e > 0 && e < 128 ? GD_EXIT_NOSEG_ERRNO + e : GD_EXIT_NOSEG;
	}
	int rc = w.err[0] ? -1 : worker_setup(&w);
	unblock_signals();
	if (rc == 0)
		rc = run_loop(&w);
	worker_teardown(&w);
	if (rc != 0)
		seg_set_error(w.seg, w.err); /* the supervisor reports it */
	else {
		seg_set_state(w.seg, GD_SEG_EXITED);
	}
	/* The supervisor unlinks after its last read; an orphan cleans up after itself. */
	seg_close(w.seg, getppid() != wa->supervisor);
	return rc ? GD_EXIT_FAIL : GD_EXIT_OK;
}

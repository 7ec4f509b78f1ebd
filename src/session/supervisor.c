/* supervisor.c: spawning, stopping and reaping workers; attaching to and draining their
 * segments. Workers are started with posix_spawn of this same binary (spawn.h: never a fork
 * after OpenCL or curses own anything), die with us (PR_SET_PDEATHSIG) and are reaped on
 * SIGCHLD, each by its own pid: other children of this process are not the supervisor's.
 * Everything in struct sup_worker is written here and nowhere else. */
#include "supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"
#include "gputop/rng.h"
#include "gputop/sig.h"
#include "spawn.h"
#include "sentinel.h"

#define GRACE_NS (SUP_STOP_GRACE_S * GD_NS_PER_S) /* SIGTERM, then SIGKILL after this */
/* A worker whose segment has not appeared this long after its spawn is ended as failed (at
 * least this, or 4 intervals; GPUTOP_DECODE_ATTACH_TIMEOUT seconds instead, for tests). */
#define ATTACH_NS (30 * GD_NS_PER_S)

struct sup_worker {
	struct gd_row_info info; /* what the queries hand out */
	uint64_t gen;
	char shm[128];
	bool attached; /* segment mapped */
	bool stop_sent, kill_sent;
	bool sigstopped; /* stopped by SIGSTOP (ours or anyone's) and not continued since */
	int64_t cont_ns; /* when it was last continued: its heartbeat's age counts from here at most */
	int64_t stop_ns;
	int64_t spawn_ns; /* when it was started: the attach deadline counts from here */
	char notyet[120]; /* why the last attach was "not yet", when not a missing name */
	struct gd_reader rd;
	struct gd_seg_view view;
	bool program;      /* a copy of the observed command: started here, leads its process group */
	int outfd;         /* a copy's standard output and error (read end, non-blocking); -1: none */
	char outline[256]; /* the line of its output being relayed */
	size_t outn;
	bool dev_known; /* an observed process's device, from its segment, is in info.device */
};

struct gd_sup {
	struct gd_sup_config c;
	pid_t self;
	char exe[4096];
	struct sup_worker *workers;
	int n, cap;
	unsigned next_id;
	bool paused;
	int64_t stall_ns;  /* heartbeat age that counts as stalled */
	int64_t attach_ns; /* a segment not attached this long after the spawn: the worker failed */
	unsigned grace_kills, grace_last; /* stops made a SIGKILL after GRACE_NS; the latest's id */
	int errr, errw;    /* the workers' standard error: read end (non-blocking), write end */
	char errline[256]; /* the line being relayed */
	size_t errn;
	uint64_t token; /* observed programs: the random part of their segments' names */
	pid_t sentinel; /* observed programs: what ends their processes after us (sentinel.h); 0: none */
	int sentfd;
	char *env[8]; /* observed programs: the variables added to their environment */
	char envbuf[8][4200];
};

/* SIGCHLD has a handler, and one without SA_RESTART, only so that a worker's end interrupts
 * the loop's sleep; the reaping itself happens in sup_service. */
static void on_child(int sig)
{
	(void)sig;
}

/* The attach deadline: GPUTOP_DECODE_ATTACH_TIMEOUT seconds when set to a number in (0, 3600],
 * else ATTACH_NS or 4 intervals, whichever is longer. */
static int64_t attach_deadline(double interval)
{
	const char *env = getenv("GPUTOP_DECODE_ATTACH_TIMEOUT");
	if (env && *env) {
		char *end;
		double s = strtod(env, &end);
		if (*end == '\0' && s > 0 && s <= 3600)
			return (int64_t)(s * 1e9);
	}
	int64_t four = (int64_t)(4 * interval * 1e9);
	return four > ATTACH_NS ? four : ATTACH_NS;
}

void sup_set_interval(struct gd_sup *sup, double interval_s)
{
	sup->c.interval_s = interval_s;
	int64_t three = (int64_t)(3 * interval_s * 1e9);
	sup->stall_ns = three > GD_NS_PER_S ? three : GD_NS_PER_S;
	sup->attach_ns = attach_deadline(interval_s);
}

/* NAME=VALUE, or NAME=VALUE:OLD where the variable is a list the program already has. */
static void set_var(struct gd_sup *sup, int *n, const char *name, const char *value, bool list)
{
	const char *old = list ? getenv(name) : NULL;
	snprintf(sup->envbuf[*n], sizeof(sup->envbuf[*n]), "%s=%s%s%s", name, value, old && *old ? ":" : "",
	         old && *old ? old : "");
	sup->env[*n] = sup->envbuf[*n];
	++*n;
}

/* What an observed program finds in its environment: how to load the library, the run it belongs
 * to (this supervisor and the token in its segments' names) and the profiling policy. */
static void observe_env(struct gd_sup *sup)
{
	static const char *const profiles[GD_PROF_COUNT] = { "full", "sampled", "off" };
	const struct gd_sup_config *c = &sup->c;
	int n = 0;
	char v[64];
	sup->token = rng_entropy() | 1; /* never 0: the library takes 0 for "no token" */
	snprintf(v, sizeof(v), "%d:%016llx", (int)sup->self, (unsigned long long)sup->token);
	set_var(sup, &n, "GPUTOP_DECODE_OBSERVE", v, false);
	set_var(sup, &n, "GPUTOP_DECODE_OBSERVE_PROFILE",
	        profiles[c->profile < GD_PROF_COUNT ? c->profile : 1], false);
	if (c->sample_every) {
		snprintf(v, sizeof(v), "%u", (unsigned)c->sample_every);
		set_var(sup, &n, "GPUTOP_DECODE_OBSERVE_EVERY", v, false);
	}
	if (c->via != GD_VIA_PRELOAD)
		set_var(sup, &n, "OPENCL_LAYERS", c->observe_lib, true);
	if (c->via != GD_VIA_LAYER)
		set_var(sup, &n, "LD_PRELOAD", c->observe_lib, true);
	sup->env[n] = NULL;
}

struct gd_sup *sup_new(const struct gd_sup_config *c, char *err, size_t errlen)
{
	const char *exe = proc_self_exe();
	if (!exe) {
		snprintf(err, errlen, "cannot find the running executable (/proc/self/exe)");
		return NULL;
	}
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return NULL;
	}
	struct gd_sup *sup = xcalloc(1, sizeof(*sup));
	sup->errr = errpipe[0];
	sup->errw = errpipe[1];
	sup->c = *c;
	if (sup->c.ndevs < 1)
		sup->c.ndevs = 1;
	sup->self = getpid();
	str_copy(sup->exe, sizeof(sup->exe), exe);
	sup_set_interval(sup, c->interval_s);
	if (c->command) {
		observe_env(sup);
		sup->sentinel = sentinel_start(sup->env[0], &sup->sentfd); /* GPUTOP_DECODE_OBSERVE=... */
		if (sup->sentinel < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			close(sup->errr);
			close(sup->errw);
			free(sup);
			return NULL;
		}
	}
	sig_handle(SIGCHLD, on_child, SA_NOCLDSTOP); /* no SA_RESTART: a child's end wakes the loop */
	seg_sweep_stale();
	return sup;
}

static struct sup_worker *at(const struct gd_sup *sup, int i)
{
	GD_ASSERT(i >= 0 && i < sup->n);
	return &sup->workers[i];
}

static bool is_active(const struct sup_worker *sw)
{
	return sw->info.alive && !sw->stop_sent && !sw->kill_sent;
}

/* A unit of the run (supervisor.h): a worker, or a copy of the observed command. */
static bool is_unit(const struct gd_sup *sup, const struct sup_worker *sw)
{
	return !sup->c.command || sw->program;
}

int sup_count(const struct gd_sup *sup)
{
	return sup->n;
}

void sup_worker(const struct gd_sup *sup, int i, struct gd_row_info *out)
{
	const struct sup_worker *sw = at(sup, i);
	*out = sw->info;
	out->active = is_active(sw);
}

int sup_find(const struct gd_sup *sup, unsigned id)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->workers[i].info.id == id)
			return i;
	return -1;
}

int sup_newest(const struct gd_sup *sup)
{
	for (int i = sup->n - 1; i >= 0; i--)
		if (is_unit(sup, &sup->workers[i]) && is_active(&sup->workers[i]))
			return i;
	return -1;
}

int sup_live(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += sup->workers[i].info.alive;
	return n;
}

int sup_active(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += is_unit(sup, &sup->workers[i]) && is_active(&sup->workers[i]);
	return n;
}

/* Whether unit sw has published a batch: itself, or a process of its copy's group. */
static bool unit_ready(const struct gd_sup *sup, const struct sup_worker *sw)
{
	if (!sw->program)
		return sw->view.batches > 0;
	for (int i = 0; i < sup->n; i++)
		if (sup->workers[i].info.copy == sw->info.id && sup->workers[i].view.batches > 0)
			return true;
	return false;
}

int sup_ready(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++) {
		const struct sup_worker *sw = &sup->workers[i];
		n += is_unit(sup, sw) && is_active(sw) && unit_ready(sup, sw);
	}
	return n;
}

const char *sup_first_error(const struct gd_sup *sup)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->workers[i].info.error[0])
			return sup->workers[i].info.error;
	return "";
}

int sup_queues(const struct gd_sup *sup)
{
	return sup->c.work.queues;
}

void sup_set_queues(struct gd_sup *sup, int queues)
{
	sup->c.work.queues = queues;
}

const char *sup_exe(const struct gd_sup *sup)
{
	return sup->exe;
}

bool sup_paused(const struct gd_sup *sup)
{
	return sup->paused;
}

static struct sup_worker *add_worker(struct gd_sup *sup)
{
	if (sup->n == sup->cap) {
		sup->cap = sup->cap ? 2 * sup->cap : 16;
		sup->workers = xreallocarray(sup->workers, (size_t)sup->cap, sizeof(*sup->workers));
	}
	struct sup_worker *sw = &sup->workers[sup->n++];
	memset(sw, 0, sizeof(*sw));
	sw->outfd = -1;
	sw->info.exit_status = -1;
	return sw;
}

/* Relays what the workers write on their standard error (the OpenCL runtime's messages, a
 * worker's own about a segment it could not create) to ours, a line at a time, each line
 * prefixed: one pipe for all of them, so a worker costs the supervisor no descriptor. Lines up
 * to PIPE_BUF bytes, each written at once, arrive whole. The dashboard keeps our standard error
 * off the screen and replays it at exit. */
static void relay_line(struct gd_sup *sup)
{
	fprintf(stderr, GD_NAME ": from a worker: %.*s\n", (int)sup->errn, sup->errline);
	sup->errn = 0;
}

static void relay_stderr(struct gd_sup *sup)
{
	char buf[1024];
	ssize_t n;
	while ((n = read(sup->errr, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return; /* EAGAIN: nothing more now */
		}
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			bool end = c == '\n' || sup->errn == sizeof(sup->errline) - 1;
			if (c != '\n')
				sup->errline[sup->errn++] = (unsigned char)c < 0x20 && c != '\t' ? '?' : c;
			if (end)
				relay_line(sup);
		}
	}
}

int sup_place(const int *active, int ndev)
{
	int best = 0;
	for (int d = 1; d < ndev; d++)
		if (active[d] < active[best])
			best = d;
	return best;
}

int sup_ndevices(const struct gd_sup *sup)
{
	return sup->c.ndevs;
}

int sup_active_on(const struct gd_sup *sup, int dev)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += is_active(&sup->workers[i]) && sup->workers[i].info.device == dev;
	return n;
}

int sup_spawn(struct gd_sup *sup, int dev, char *err, size_t errlen)
{
	if (sup_live(sup) >= sup->c.max_procs) {
		snprintf(err, errlen, "already %d workers (--max-procs)", sup->c.max_procs);
		return -1;
	}
	int ndev = sup_ndevices(sup);
	if (dev < 0 || dev >= ndev) {
		int active[GD_DEVICES_MAX];
		for (int d = 0; d < ndev; d++)
			active[d] = sup_active_on(sup, d);
		dev = sup_place(active, ndev);
	}
	struct sup_worker *sw = add_worker(sup);
	sw->info.id = ++sup->next_id;
	sw->info.device = dev;
	/* The name exists, ours, before the command line that publishes it: nobody can take it
	 * while the worker starts. A name taken already (never by chance) gets another draw. */
	int tries = 0, reserved;
	do {
		sw->gen = rng_entropy();
		seg_name(sw->shm, sizeof(sw->shm), sup->self, sw->info.id, sw->gen);
	} while ((reserved = seg_reserve(sw->shm)) != 0 && errno == EEXIST && ++tries < 8);
	if (reserved != 0) {
		snprintf(err, errlen, "worker %u: cannot reserve its segment %s: %s", sw->info.id, sw->shm,
		         strerror(errno));
		sup->n--;
		return -1;
	}

	struct gd_worker_args wa = { .gen = sw->gen, .id = sw->info.id, .supervisor = sup->self };
	str_copy(wa.shm, sizeof(wa.shm), sw->shm);
	const struct gd_child child = { .work = &sup->c.work, .dev = sup->c.devs[dev], .wa = &wa };
	sw->info.pid = spawn_child(sup->exe, &child, -1, sup->errw, err, errlen);
	if (sw->info.pid < 0) {
		shm_unlink(sw->shm);
		sup->n--;
		return -1;
	}
	sw->info.alive = true;
	sw->info.state = GD_ST_STARTING;
	sw->spawn_ns = now_ns();
	if (sup->paused)
		kill(sw->info.pid, SIGUSR1);
	return sup->n - 1;
}

/* ---- observed programs ---- */

/* A signal to a row's processes: a copy's whole process group (what it started too), else the
 * one process. */
static void send_sig(const struct sup_worker *sw, int sig)
{
	if (!sw->program || kill(-sw->info.pid, sig) != 0)
		kill(sw->info.pid, sig);
}

/* An observed row: its segment's name is known from its pid. */
static struct sup_worker *add_observed(struct gd_sup *sup, pid_t pid)
{
	struct sup_worker *sw = add_worker(sup);
	sw->info.id = ++sup->next_id;
	sw->info.pid = pid;
	sw->info.observed = true;
	sw->info.alive = true;
	sw->info.state = GD_ST_NOCL;
	sw->gen = sup->token;
	sw->spawn_ns = now_ns();
	seg_name_observed(sw->shm, sizeof(sw->shm), sup->self, sup->token, pid);
	return sw;
}

int sup_spawn_program(struct gd_sup *sup, char *err, size_t errlen)
{
	if (sup_live(sup) >= sup->c.max_procs) {
		snprintf(err, errlen, "already %d processes (--max-procs)", sup->c.max_procs);
		return -1;
	}
	int out[2];
	if (pipe2(out, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = spawn_program(sup->c.command, sup->env, out[1], err, errlen);
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		return -1;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	struct sup_worker *sw = add_observed(sup, pid);
	sw->program = true;
	sw->info.copy = sw->info.id;
	sw->outfd = out[0];
	const char *name = strrchr(sup->c.command[0], '/');
	str_copy(sw->info.comm, sizeof(sw->info.comm), name ? name + 1 : sup->c.command[0]);
	if (sup->paused)
		send_sig(sw, SIGSTOP);
	return sup->n - 1;
}

int sup_programs_live(const struct gd_sup *sup)
{
	int n = 0;
	for (int i = 0; i < sup->n; i++)
		n += sup->workers[i].program && sup->workers[i].info.alive;
	return n;
}

/* Writes a copy's line of output where the programs' output goes, prefixed with its row id. */
static void program_line(const struct gd_sup *sup, struct sup_worker *sw)
{
	char line[sizeof(sw->outline) + 32];
	int n = snprintf(line, sizeof(line), "[%u] %.*s\n", sw->info.id, (int)sw->outn, sw->outline);
	if (write_all(sup->c.program_out, line, (size_t)n, NULL) != 0) {
		/* Nowhere to put it: the program's output is dropped, the run goes on. */
	}
	sw->outn = 0;
}

/* Relays what a copy (and whatever it started) wrote, a line at a time; at its end, the rest. */
static void relay_program(const struct gd_sup *sup, struct sup_worker *sw, bool last)
{
	char buf[4096];
	ssize_t n;
	while (sw->outfd >= 0 && (n = read(sw->outfd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n')
				sw->outline[sw->outn++] = buf[i];
			if (buf[i] == '\n' || sw->outn == sizeof(sw->outline))
				program_line(sup, sw);
		}
	}
	if (last && sw->outfd >= 0) {
		if (sw->outn)
			program_line(sup, sw);
		close(sw->outfd);
		sw->outfd = -1;
	}
}

/* Every segment of this run's observed programs, rows or not (past --max-procs). */
static void unlink_observed(const struct gd_sup *sup)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	char prefix[96], name[400];
	int plen = snprintf(prefix, sizeof(prefix), GD_SEG_PREFIX "%u.%d.o%016llx.", (unsigned)geteuid(),
	                    (int)sup->self, (unsigned long long)sup->token);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, (size_t)plen) == 0) {
			snprintf(name, sizeof(name), "/%s", e->d_name);
			shm_unlink(name);
		}
	closedir(d);
}

static struct sup_worker *by_pid(struct gd_sup *sup, pid_t pid)
{
	for (int i = 0; i < sup->n; i++)
		if (sup->workers[i].info.observed && sup->workers[i].info.pid == pid)
			return &sup->workers[i];
	return NULL;
}

/* The copy whose process group pid is in (a copy leads its own, and what it starts stays in it
 * unless it makes a group of its own); 0: none. */
static unsigned copy_of(const struct gd_sup *sup, pid_t pid)
{
	pid_t group = getpgid(pid);
	for (int i = 0; group > 0 && i < sup->n; i++)
		if (sup->workers[i].program && sup->workers[i].info.pid == group)
			return sup->workers[i].info.id;
	return 0;
}

/* Processes of the observed programs that made their first OpenCL call: a segment of this run
 * (this supervisor, this run's token) names each. A copy's own joins its row; any other process
 * (a child of a copy) gets a row of its own. */
static void discover(struct gd_sup *sup)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return;
	char prefix[96];
	int plen = snprintf(prefix, sizeof(prefix), GD_SEG_PREFIX "%u.%d.o%016llx.", (unsigned)geteuid(),
	                    (int)sup->self, (unsigned long long)sup->token);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
			continue;
		char *end;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX || by_pid(sup, (pid_t)pid))
			continue;
		if (sup_live(sup) < sup->c.max_procs)
			add_observed(sup, (pid_t)pid)->info.copy = copy_of(sup, (pid_t)pid);
	}
	closedir(d);
}

/* A row the supervisor did not start cannot be waited for: it has ended when its pid no longer
 * runs (or is a zombie, or is a younger process that took the pid). */
static bool observed_gone(const struct sup_worker *sw)
{
	struct timespec since;
	clock_gettime(CLOCK_REALTIME, &since);
	return !proc_running_since(sw->info.pid, &since);
}

void sup_stop(struct gd_sup *sup, int i, bool hard)
{
	struct sup_worker *sw = at(sup, i);
	if (!sw->info.alive)
		return;
	if (hard) {
		send_sig(sw, SIGKILL);
		sw->kill_sent = true;
		return;
	}
	send_sig(sw, SIGTERM);
	send_sig(sw, SIGCONT); /* a stopped worker must run to see SIGTERM */
	sw->sigstopped = false;
	if (!sw->stop_sent)
		sw->stop_ns = now_ns();
	sw->stop_sent = true;
	sw->info.state = GD_ST_STOPPING;
}

/* A stopped worker runs again: it is not stalled before it could publish. */
static void continued(struct sup_worker *sw)
{
	sw->sigstopped = false;
	sw->cont_ns = now_ns();
}

int sup_signal(struct gd_sup *sup, int i, int sig)
{
	struct sup_worker *sw = at(sup, i);
	if (!sw->info.alive)
		return -1;
	if (sig == SIGTERM || sig == SIGKILL) {
		sup_stop(sup, i, sig == SIGKILL); /* so that its end counts as ours */
		return 0;
	}
	if (kill(sw->info.pid, sig) != 0)
		return -1;
	/* Known at once; waitpid confirms it, and reports stops and continues by anyone else. */
	if (sig == SIGSTOP)
		sw->sigstopped = true;
	else if (sig == SIGCONT)
		continued(sw);
	return 0;
}

void sup_pause(struct gd_sup *sup, bool pause)
{
	sup->paused = pause;
	for (int i = 0; i < sup->n; i++) {
		struct sup_worker *sw = &sup->workers[i];
		if (sw->info.alive && sw->info.observed) /* a program has no pause of its own */
			send_sig(sw, pause ? SIGSTOP : SIGCONT);
		else if (sw->info.alive)
			kill(sw->info.pid, pause ? SIGUSR1 : SIGUSR2);
	}
}

static void fail_worker(struct sup_worker *sw, const char *prefix, const char *why)
{
	snprintf(sw->info.error, sizeof(sw->info.error), "%s%s", prefix, why);
	sw->info.state = GD_ST_FAILED;
}

static void detach(struct sup_worker *sw)
{
	reader_close(&sw->rd);
	sw->attached = false;
}

/* An observed process's device, once its segment names it: the run's device with the same
 * P:D. A process on a device the run does not list (-d) stays on the run's first, and says so
 * once: its kernels count in that device's figures. */
static void observed_device(const struct gd_sup *sup, struct sup_worker *sw)
{
	if (sw->dev_known || sw->view.dev_platform < 0)
		return;
	sw->dev_known = true;
	for (int d = 0; d < sup->c.ndevs; d++)
		if (sup->c.devs[d].platform == sw->view.dev_platform &&
		    sup->c.devs[d].index == sw->view.dev_index) {
			sw->info.device = d;
			return;
		}
	fprintf(stderr,
	        GD_NAME ": process %u (pid %d) uses device %d:%d, which is not one of the run's devices "
	                "(-d): it is counted on %d:%d\n",
	        sw->info.id, (int)sw->info.pid, sw->view.dev_platform, sw->view.dev_index,
	        sup->c.devs[0].platform, sup->c.devs[0].index);
}

/* Hands every new record over, then refreshes the header's view. */
static void drain(const struct gd_sup *sup, struct sup_worker *sw, gd_record_fn on_record, void *ctx)
{
	struct gd_rec buf[64];
	int n;
	while ((n = reader_poll(&sw->rd, buf, (int)GD_ARRAY_LEN(buf))) > 0)
		for (int i = 0; i < n; i++)
			on_record(ctx, &sw->info, &buf[i]);
	sw->info.lost = sw->rd.lost;
	if (n < 0 || !reader_view(&sw->rd, &sw->view)) {
		/* Truncated under us: keep what was read, stop reading, end the worker. */
		fail_worker(sw, "", "shared-memory segment became unreadable");
		detach(sw);
		if (sw->info.alive)
			kill(sw->info.pid, SIGKILL);
		return;
	}
	sw->info.batches = sw->view.batches;
	sw->info.items = sw->view.items;
	sw->info.timebase = sw->view.timebase;
	if (sw->info.observed) {
		sw->info.kernels = sw->view.kernels;
		sw->info.obs = sw->view.obs;
		sw->info.via = sw->view.source;
		if (sw->view.comm[0])
			str_copy(sw->info.comm, sizeof(sw->info.comm), sw->view.comm);
		observed_device(sup, sw);
	}
}

static void try_attach(struct sup_worker *sw)
{
	char why[160];
	switch (reader_open(&sw->rd, sw->shm, sw->info.pid, sw->gen, why, sizeof(why))) {
	case GD_OPEN_OK:
		sw->attached = true;
		/* An observed program's segment is mapped on both sides now: its name is needed no
		 * more, and gone it cannot outlive a program that dies by a signal, nor this run. */
		if (sw->info.observed)
			shm_unlink(sw->shm);
		break;
	case GD_OPEN_NOTYET:
		/* A missing name is the usual "not yet"; anything else is worth saying at the deadline. */
		str_copy(sw->notyet, sizeof(sw->notyet), strcmp(why, strerror(ENOENT)) ? why : "");
		break;
	case GD_OPEN_REJECTED:
		/* Not the segment our worker made: never read it, and end the worker. */
		fail_worker(sw, "segment rejected: ", why);
		if (sw->info.observed) /* the program is not ours to end for it */
			break;
		if (sw->info.alive)
			kill(sw->info.pid, SIGKILL);
		sw->kill_sent = true;
		break;
	}
}

static void update_state(const struct gd_sup *sup, struct sup_worker *sw, int64_t now)
{
	enum gd_state *st = &sw->info.state;
	if (*st == GD_ST_FAILED)
		return;
	if (!sw->attached) {
		*st = sw->stop_sent ? GD_ST_STOPPING : sw->info.observed ? GD_ST_NOCL : GD_ST_STARTING;
		return;
	}
	*st = sw->view.state;
	if (sw->info.observed && *st == GD_ST_EXITED && sw->info.alive)
		*st = GD_ST_RUNNING; /* its library is done, the process not yet */
	if (sw->info.observed && *st == GD_ST_RUNNING && sw->sigstopped)
		*st = GD_ST_PAUSED;
	if (sw->info.observed) /* a program may wait on its host as long as it likes: never stalled */
		return;
	if (sw->view.state == GD_ST_FAILED) {
		str_copy(sw->info.error, sizeof(sw->info.error), sw->view.error);
		return;
	}
	if (sw->stop_sent && *st != GD_ST_EXITED)
		*st = GD_ST_STOPPING;
	else if (sw->sigstopped && *st != GD_ST_EXITED)
		*st = GD_ST_PAUSED; /* its heartbeat stopped because it was told to, not stalled */
	else if ((*st == GD_ST_RUNNING || *st == GD_ST_PAUSED) &&
	         now - (sw->view.heartbeat_ns > sw->cont_ns ? sw->view.heartbeat_ns : sw->cont_ns) >
	             sup->stall_ns)
		*st = GD_ST_STALLED;
}

/* "SIGSEGV", or "signal 77" for a number without a name. */
static void signal_name(int sig, char *buf, size_t n)
{
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "signal %d", sig);
}

/* The state a worker ends in, from its exit status, unless it already failed. Ending by a
 * signal is exited only when it was ours: the SIGKILL we sent, or SIGTERM after we asked it to
 * stop. Any other signal (SIGSEGV, SIGXFSZ, the OOM killer's SIGKILL, anyone's kill) is a
 * failure, named. */
/* An observed copy's end: its status, kept; failed only when it says so (non-zero) or a signal
 * not ours ended it. One that never made an OpenCL call keeps saying so. */
static void program_ended(struct sup_worker *sw, int status)
{
	sw->info.exit_status = WEXITSTATUS(status);
	if (WEXITSTATUS(status) != 0) {
		snprintf(sw->info.error, sizeof(sw->info.error), "exited with status %d",
		         WEXITSTATUS(status));
		sw->info.state = GD_ST_FAILED;
	} else if (sw->info.state != GD_ST_NOCL) {
		sw->info.state = GD_ST_EXITED;
	}
}

static void ended(struct sup_worker *sw, int status)
{
	if (sw->info.observed && WIFEXITED(status)) {
		program_ended(sw, status);
		return;
	}
	if (sw->info.observed)
		sw->info.exit_status = 128 + WTERMSIG(status);
	if (sw->info.state == GD_ST_FAILED)
		return;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		char name[32];
		signal_name(sig, name, sizeof(name));
		snprintf(sw->info.error, sizeof(sw->info.error), "killed by %s (%s)", name, strsignal(sig));
		bool ours = (sig == SIGKILL && sw->kill_sent) || (sig == SIGTERM && sw->stop_sent);
		sw->info.state = ours ? GD_ST_EXITED : GD_ST_FAILED;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) > GD_EXIT_NOSEG_ERRNO &&
	           WEXITSTATUS(status) < GD_EXIT_NOSEG_ERRNO + 128) {
		fail_worker(sw, "could not create its shared-memory segment: ",
		            strerror(WEXITSTATUS(status) - GD_EXIT_NOSEG_ERRNO));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == GD_EXIT_NOSEG) {
		fail_worker(sw, "", "could not create its shared-memory segment");
	} else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		snprintf(sw->info.error, sizeof(sw->info.error), "exited with status %d",
		         WEXITSTATUS(status));
		sw->info.state = GD_ST_FAILED;
	} else {
		sw->info.state = GD_ST_EXITED;
	}
}

static void reaped(const struct gd_sup *sup, struct sup_worker *sw, int status, gd_record_fn on_record,
                   void *ctx)
{
	sw->info.alive = false;
	if (sw->program)
		relay_program(sup, sw, true);
	if (!sw->attached && sw->info.state != GD_ST_FAILED)
		try_attach(sw); /* a worker that failed fast left its error in the segment */
	if (sw->attached) {
		drain(sup, sw, on_record, ctx);
		reader_writer_died(&sw->rd); /* killed mid-publish: that record is lost */
		sw->info.lost = sw->rd.lost;
	}
	update_state(sup, sw, now_ns());
	detach(sw);
	shm_unlink(sw->shm);
	ended(sw, status);
}

/* What waitpid says of each live worker: stopped, continued, or ended (reaped). Only the
 * workers' own pids: another child of this process (the calibration) is its owner's. */
static void wait_workers(struct gd_sup *sup, gd_record_fn on_record, void *ctx)
{
	for (int i = 0; i < sup->n; i++) {
		struct sup_worker *sw = &sup->workers[i];
		int status;
		if (sw->info.observed && !sw->program) { /* not our child: /proc says when it ends */
			if (sw->info.alive && observed_gone(sw)) {
				reaped(sup, sw, sw->kill_sent ? SIGKILL : 0, on_record, ctx);
				sw->info.exit_status = -1; /* only its parent learns it */
			}
			continue;
		}
		while (sw->info.alive &&
		       waitpid(sw->info.pid, &status, WNOHANG | WUNTRACED | WCONTINUED) > 0) {
			if (WIFSTOPPED(status))
				sw->sigstopped = true;
			else if (WIFCONTINUED(status))
				continued(sw);
			else
				reaped(sup, sw, status, on_record, ctx);
		}
	}
}

void sup_service(struct gd_sup *sup, int64_t now, gd_record_fn on_record, void *ctx)
{
	if (sup->c.command)
		discover(sup);
	wait_workers(sup, on_record, ctx);
	relay_stderr(sup);
	for (int i = 0; i < sup->n; i++) {
		struct sup_worker *sw = &sup->workers[i];
		if (sw->program)
			relay_program(sup, sw, false);
		if (!sw->info.alive)
			continue;
		if (!sw->attached && sw->info.state != GD_ST_FAILED)
			try_attach(sw);
		if (!sw->attached && !sw->info.observed && sw->info.state != GD_ST_FAILED && !sw->stop_sent &&
		    !sw->kill_sent && now - sw->spawn_ns > sup->attach_ns) {
			/* Removed before we attached (or never made): without a segment we can neither see
			 * nor stop it gracefully. */
			if (sw->notyet[0])
				fail_worker(sw,
				            "its shared-memory segment never became usable: ", sw->notyet);
			else
				fail_worker(sw, "", "its shared-memory segment never appeared");
			kill(sw->info.pid, SIGKILL);
			sw->kill_sent = true;
		}
		if (sw->attached)
			drain(sup, sw, on_record, ctx);
		update_state(sup, sw, now);
		if (sw->stop_sent && !sw->kill_sent && now - sw->stop_ns > GRACE_NS) {
			send_sig(sw, SIGKILL);
			sw->kill_sent = true;
			sup->grace_kills++;
			sup->grace_last = sw->info.id;
		}
	}
}

void sup_forget(struct gd_sup *sup, int i)
{
	struct sup_worker *sw = at(sup, i);
	GD_ASSERT(!sw->info.alive);
	reader_close(&sw->rd);
	memmove(sw, sw + 1, (size_t)(sup->n - i - 1) * sizeof(*sw));
	sup->n--;
}

void sup_stop_all(struct gd_sup *sup)
{
	for (int i = 0; i < sup->n; i++)
		sup_stop(sup, i, false);
}

/* Kills worker sw, which outlived every grace, and waits for its end. */
static void kill_and_reap(struct gd_sup *sup, struct sup_worker *sw, gd_record_fn on_record, void *ctx)
{
	send_sig(sw, SIGKILL);
	sw->kill_sent = true;
	int status;
	if (sw->info.observed && !sw->program) { /* not our child: gone within a second */
		for (int tries = 0; tries < 100 && !observed_gone(sw); tries++)
			sleep_ns(GD_NS_PER_S / 100);
		reaped(sup, sw, SIGKILL, on_record, ctx);
		sw->info.exit_status = -1;
		return;
	}
	while (waitpid(sw->info.pid, &status, 0) < 0 && errno == EINTR)
		;
	reaped(sup, sw, status, on_record, ctx);
}

void sup_reap_all(struct gd_sup *sup, int64_t grace_ns, gd_record_fn on_record, void *ctx)
{
	int64_t deadline = now_ns() + grace_ns;
	while (sup_live(sup) > 0 && now_ns() < deadline) {
		sup_service(sup, now_ns(), on_record, ctx);
		sleep_ns(GD_NS_PER_S / 100);
	}
	for (int i = 0; i < sup->n; i++)
		if (sup->workers[i].info.alive)
			kill_and_reap(sup, &sup->workers[i], on_record, ctx);
	for (int i = 0; i < sup->n; i++) {
		if (sup->workers[i].program) /* what a copy started and left running */
			kill(-sup->workers[i].info.pid, SIGKILL);
		shm_unlink(sup->workers[i].shm); /* idempotent: ENOENT when already gone */
	}
	if (sup->c.command)
		unlink_observed(sup);
	sentinel_stop(sup->sentinel, sup->sentfd); /* what left the copies' groups, ended too */
	sup->sentinel = 0;
	if (sup->errw >= 0) {
		close(sup->errw); /* then the pipe ends once every worker has gone */
		sup->errw = -1;
	}
	relay_stderr(sup);
	if (sup->errn) /* the last line had no newline */
		relay_line(sup);
}

void sup_free(struct gd_sup *sup)
{
	if (!sup)
		return;
	for (int i = 0; i < sup->n; i++)
		GD_ASSERT(!sup->workers[i].info.alive);
	for (int i = 0; i < sup->n; i++) {
		reader_close(&sup->workers[i].rd);
		if (sup->workers[i].outfd >= 0)
			close(sup->workers[i].outfd);
	}
	sentinel_stop(sup->sentinel, sup->sentfd); /* reap_all not run: after an error */
	if (sup->errw >= 0)
		close(sup->errw);
	close(sup->errr);
	free(sup->workers);
	free(sup);
}

unsigned sup_grace_kills(const struct gd_sup *sup, unsigned *last)
{
	*last = sup->grace_last;
	return sup->grace_kills;
}

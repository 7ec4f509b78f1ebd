/* prom.c: the Prometheus exposition (prom.h): one table of metrics rendered once per window,
 * written to --prom-file by rename and served on --listen by libmicrohttpd.
 *
 * Threads: the session thread renders each window and only swaps the text in under `lock`;
 * it never does I/O here. libmicrohttpd answers every connection from its own polling thread,
 * which never blocks on a client (a slow or stalled one is dropped after GD_PROM_TIMEOUT_S idle
 * seconds, at most GD_PROM_CONNECTIONS at once) and copies the text under `lock`. The writer
 * thread copies the newest text under `lock` and writes --prom-file without it: a file system
 * that stalls (a rename took seconds on a loaded machine) delays only the file, and windows
 * that close meanwhile are folded into the next write. Nobody holds `lock` across I/O, so
 * neither a client nor the disk can hold up a window. */
#include "prom.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conncut.h"
#include "gputop/common.h"
#include "measure/diagnose.h"

#define GD_PROM_CONNECTIONS 64 /* clients served at once, at most; more wait in the listen queue */
#define GD_PROM_PER_IP      32 /* of them from one address: others always get in */
#define GD_PROM_TIMEOUT_S   5  /* a connection idle this long is closed */
#define GD_PROM_LIFETIME_S  10 /* and any connection this old (conncut.c) */
#define GD_PROM_FD_SPARE    16 /* descriptors kept for everything else of the run */

struct gd_prom {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the writer: a new rendering, or stop */
	/* Under lock: */
	char *text; /* the latest rendering ("" before the first window) */
	size_t len;
	uint64_t gen;    /* renderings so far */
	bool stop;       /* the writer writes what is new, then ends */
	unsigned failed; /* writes of the file that failed */
	char why[256];   /* the latest failure's reason */
	/* Set before the threads start, read-only after: */
	struct MHD_Daemon *mhd; /* NULL without --listen */
	struct gd_conncut *cut; /* its connections' age bound */
	unsigned port;
	char where[80];   /* the address served, for prom_announce */
	char *file, *tmp; /* --prom-file and the template of its temporary files beside it */
	mode_t mode;      /* the file's mode: 0644 less the umask, as the other outputs */
	pthread_t writer;
	bool writing; /* the writer thread runs */
	int ndevs;    /* the run's devices, for the device families' names */
	struct gd_device devs[GD_DEVICES_MAX];
};

/* ---- The text ---- */

static void put_label(struct gd_text *t, const char *name, const char *v, bool first)
{
	text_printf(t, "%s%s=\"", first ? "" : ",", name);
	while (*v) {
		size_t n = utf8_seq(v);
		if (*v == '\\' || *v == '"')
			text_printf(t, "\\%c", *v);
		else if (*v == '\n')
			text_printf(t, "\\n");
		else if (n == 0 || (unsigned char)*v < 0x20) /* the exposition is UTF-8 text */
			text_printf(t, "\xef\xbf\xbd");
		else
			text_printf(t, "%.*s", (int)n, v);
		v += n ? n : 1;
	}
	text_printf(t, "\"");
}

/* Whole values as integers (counters read exactly), others with 15 significant digits; the
 * C locale's '.' always (the dashboard takes only LC_CTYPE from the environment). */
static void put_value(struct gd_text *t, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		text_printf(t, " %.0f\n", v);
	else
		text_printf(t, " %.15g\n", v);
}

/* ---- The metrics: one row each, in the order they are written ----
 * Counters are the collector's (collect.h, gd_counters): sums of the windows' figures since the
 * tool started, never reset, so rate() over them gives the log's rates and shares. Gauges are
 * what is a state: the worker's state and identity, live workers, the ceiling, the headroom,
 * the diagnosis, the window. */

enum scope {
	PER_WORKER,   /* labels worker, device: one sample per worker */
	WORKER_INFO,  /* 1 per worker, with its pid, source and command as labels */
	WORKER_STATE, /* a state set: one sample per state, 1 for the worker's own */
	WORKER_PHASE, /* labels worker, device, phase: one sample per phase of a batch */
	WORKER_GAPS,  /* a histogram per worker: _bucket (label le), _sum, _count */
	PER_DEVICE,   /* label device: one sample per device of the run */
	DEVICE_IDLE,  /* labels device, cause: the device's idle share by cause (diagnose.h) */
	DEVICE_INFO,  /* 1 per device, with its name and platform as labels */
	BUILD_INFO,   /* 1, with the version, the OpenCL platform and driver as labels */
	PER_RUN,      /* no label */
};

struct metric {
	const char *name, *type, *help;
	enum scope scope;
	double (*worker)(const struct gd_sample *w);              /* PER_WORKER */
	double (*device)(const struct gd_devframe *d);            /* PER_DEVICE */
	double (*frame)(const struct gd_frame *f);                /* PER_RUN */
	const struct gd_gaps *(*gaps)(const struct gd_sample *w); /* WORKER_GAPS */
};

static double w_symbols(const struct gd_sample *w)
{
	return (double)w->tot.items;
}
static double w_batches(const struct gd_sample *w)
{
	return (double)w->tot.batches;
}
static double w_lost(const struct gd_sample *w)
{
	return (double)w->tot.lost;
}
static double w_kernel(const struct gd_sample *w)
{
	return w->tot.kernel_s;
}
static double w_batch_overlap(const struct gd_sample *w)
{
	return isnan(w->tot.kernel_s) ? NAN : (double)w->tot.bover_ns * 1e-9; /* as the gaps' */
}
static double w_sample_every(const struct gd_sample *w)
{
	return w->sample_every ? (double)w->sample_every : NAN;
}
static const struct gd_gaps *w_gap_kernel(const struct gd_sample *w)
{
	return &w->tot.kgap;
}
static const struct gd_gaps *w_gap_batch(const struct gd_sample *w)
{
	return &w->tot.bgap;
}
static double d_workers(const struct gd_devframe *d)
{
	return d->procs;
}
static double d_symbols(const struct gd_devframe *d)
{
	return (double)d->agg.tot.items;
}
static double d_batches(const struct gd_devframe *d)
{
	return (double)d->agg.tot.batches;
}
static double d_lost(const struct gd_devframe *d)
{
	return (double)d->agg.tot.lost;
}
static double d_busy(const struct gd_devframe *d)
{
	return d->agg.tot.busy_s;
}
static double d_ceiling(const struct gd_devframe *d)
{
	return d->ceiling * 1e6;
}
static double d_ceiling_4x(const struct gd_devframe *d)
{
	return d->ceiling_4x * 1e6;
}
static double d_headroom(const struct gd_devframe *d)
{
	return d->headroom * 1e6;
}
static double f_window(const struct gd_frame *f)
{
	return f->window_s;
}
static double f_window_end(const struct gd_frame *f)
{
	return f->unix_s;
}
static double f_observed(const struct gd_frame *f)
{
	return f->observed;
}

static const struct metric metrics[] = {
	{ "gputop_decode_build_info", "gauge",
	  "The tool's version, and the OpenCL platform and driver of the run's first device; always 1.",
	  .scope = BUILD_INFO },
	{ "gputop_decode_worker_info", "gauge",
	  "The worker's process id, source (worker, or observed: a process of -- COMMAND) and command "
	  "name; always 1.",
	  .scope = WORKER_INFO },
	{ "gputop_decode_worker_state", "gauge", "1 for the worker's current state, 0 for the others.",
	  .scope = WORKER_STATE },
	{ "gputop_decode_symbols_total", "counter",
	  "Symbols decoded by the worker since it started (one symbol is one bit; with --kernel, work "
	  "items).",
	  PER_WORKER, .worker = w_symbols },
	{ "gputop_decode_batches_total", "counter", "Batches the worker completed since it started.",
	  PER_WORKER, .worker = w_batches },
	{ "gputop_decode_lost_records_total", "counter",
	  "Batch records of the worker that the tool could not use (overwritten, malformed or late).",
	  PER_WORKER, .worker = w_lost },
	{ "gputop_decode_kernel_seconds_total", "counter",
	  "Time the worker's kernels ran on the device (the union of their intervals): the windows' "
	  "kernel_busy times their length, summed.",
	  PER_WORKER, .worker = w_kernel },
	{ "gputop_decode_phase_seconds_total", "counter",
	  "Time the worker's batches spent in each phase (gen, h2d, kernel, d2h, queue_wait, other): "
	  "each batch counts its window's mean.",
	  .scope = WORKER_PHASE },
	{ "gputop_decode_gap_kernel_seconds", "histogram",
	  "Idle time between consecutive kernels of one batch, of the profiled batches.", WORKER_GAPS,
	  .gaps = w_gap_kernel },
	{ "gputop_decode_gap_batch_seconds", "histogram",
	  "Idle time of the worker's kernels before each profiled batch's first kernel (0 where it "
	  "overlapped earlier batches).",
	  WORKER_GAPS, .gaps = w_gap_batch },
	{ "gputop_decode_batch_overlap_seconds_total", "counter",
	  "Time each batch's first kernel started before the worker's earlier batches' kernels ended "
	  "(several queues), over the batches of gputop_decode_gap_batch_seconds.",
	  PER_WORKER, .worker = w_batch_overlap },
	{ "gputop_decode_profile_period_batches", "gauge",
	  "--profile sampled: a round of batches is profiled in every this many.", PER_WORKER,
	  .worker = w_sample_every },
	{ "gputop_decode_device_info", "gauge", "The OpenCL device, by name and platform; always 1.",
	  .scope = DEVICE_INFO },
	{ "gputop_decode_workers", "gauge", "Live workers on the device.", PER_DEVICE, .device = d_workers },
	{ "gputop_decode_device_symbols_total", "counter",
	  "Symbols decoded by every worker the device has had since the tool started.", PER_DEVICE,
	  .device = d_symbols },
	{ "gputop_decode_device_batches_total", "counter",
	  "Batches completed by every worker the device has had since the tool started.", PER_DEVICE,
	  .device = d_batches },
	{ "gputop_decode_device_lost_records_total", "counter",
	  "Batch records of the device's workers that the tool could not use.", PER_DEVICE,
	  .device = d_lost },
	{ "gputop_decode_device_busy_seconds_total", "counter",
	  "Time in which any worker's kernel ran on the device: the windows' device_busy times their "
	  "length, summed.",
	  PER_DEVICE, .device = d_busy },
	{ "gputop_decode_device_idle_ratio", "gauge",
	  "Share of the latest window in which no kernel ran on the device, by cause (host, transfer, "
	  "launch, wait, other); the causes add up to 1 - device busy.",
	  .scope = DEVICE_IDLE },
	{ "gputop_decode_ceiling_symbols_per_second", "gauge",
	  "The device's ceiling in symbols per second, as measured by --calibrate or the c key.", PER_DEVICE,
	  .device = d_ceiling },
	{ "gputop_decode_ceiling_4x_symbols_per_second", "gauge",
	  "The device's ceiling at 4 times the batch size, measured with the ceiling: more than 5% "
	  "above it, launch costs bound the ceiling, and larger batches are the lever.",
	  PER_DEVICE, .device = d_ceiling_4x },
	{ "gputop_decode_headroom_symbols_per_second", "gauge",
	  "The latest window's rate over its device busy: the rate at 100% busy, an estimate.", PER_DEVICE,
	  .device = d_headroom },
	{ "gputop_decode_window_seconds", "gauge", "Length of the latest window.", PER_RUN,
	  .frame = f_window },
	{ "gputop_decode_window_end_timestamp_seconds", "gauge", "End of the latest window, in Unix seconds.",
	  PER_RUN, .frame = f_window_end },
	{ "gputop_decode_window_observed", "gauge",
	  "1 when the tool ran through the latest window; 0: it was stopped or starved and measured nothing.",
	  PER_RUN, .frame = f_observed },
};

/* Opens a worker's sample, NAME SUFFIX{ with its labels: its id, and its device as --device
 * takes it, P:D. The caller adds labels of its own, then closes it (end_sample). The pid is
 * gputop_decode_worker_info's alone, so a series is one worker's, whatever its process. */
static void begin_worker(struct gd_text *t, const char *name, const char *suffix, const struct gd_frame *f,
                         const struct gd_sample *w)
{
	char id[16];
	snprintf(id, sizeof(id), "%u", w->id);
	text_printf(t, "%s%s{", name, suffix);
	put_label(t, "worker", id, true);
	put_label(t, "device", frame_device_ref(f, w->device), false);
}

static void end_sample(struct gd_text *t, double v)
{
	text_printf(t, "}");
	put_value(t, v);
}

/* A worker's histogram: cumulative buckets at the fixed bounds (stats.h), +Inf, sum, count.
 * Only where device times are measured (not under --profile off): no gap is measured there. */
static int put_gaps(struct gd_text *t, const struct metric *m, const struct gd_frame *f,
                    const struct gd_sample *w)
{
	const struct gd_gaps *g = m->gaps(w);
	if (isnan(w->tot.kernel_s))
		return 0;
	uint64_t below = 0;
	for (int i = 0; i <= GD_HIST_BOUNDS; i++) {
		char le[32];
		below += g->le[i];
		if (i < GD_HIST_BOUNDS)
			snprintf(le, sizeof(le), "%.15g", (double)stats_hist_bounds[i] * 1e-9);
		else
			snprintf(le, sizeof(le), "+Inf");
		begin_worker(t, m->name, "_bucket", f, w);
		put_label(t, "le", le, false);
		end_sample(t, (double)below);
	}
	begin_worker(t, m->name, "_sum", f, w);
	end_sample(t, (double)g->sum_ns * 1e-9);
	begin_worker(t, m->name, "_count", f, w);
	end_sample(t, (double)g->n);
	return GD_HIST_BOUNDS + 3;
}

/* The samples of one worker for metric m; returns how many. */
static int put_worker(struct gd_text *t, const struct metric *m, const struct gd_frame *f,
                      const struct gd_sample *w)
{
	int n = 0;
	switch (m->scope) {
	case PER_WORKER: {
		double v = m->worker(w);
		if (!isfinite(v))
			return 0; /* not measured: no sample */
		begin_worker(t, m->name, "", f, w);
		end_sample(t, v);
		return 1;
	}
	case WORKER_INFO: {
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)w->pid);
		begin_worker(t, m->name, "", f, w);
		put_label(t, "pid", pid, false);
		put_label(t, "source", w->observed ? "observed" : "worker", false);
		put_label(t, "command", w->comm, false);
		end_sample(t, 1);
		return 1;
	}
	case WORKER_STATE:
		for (int st = 0; st < GD_ST_COUNT; st++, n++) {
			begin_worker(t, m->name, "", f, w);
			put_label(t, "state", gd_state_name((enum gd_state)st), false);
			end_sample(t, w->state == (enum gd_state)st);
		}
		return n;
	case WORKER_PHASE:
		for (int p = 0; p < GD_PHASE_COUNT; p++)
			if (isfinite(w->tot.phase_s[p])) {
				begin_worker(t, m->name, "", f, w);
				put_label(t, "phase", gd_phase_name((enum gd_phase)p), false);
				end_sample(t, w->tot.phase_s[p]);
				n++;
			}
		return n;
	case WORKER_GAPS:
		return put_gaps(t, m, f, w);
	default:
		return 0;
	}
}

/* The samples of one metric, f's workers on devs[0..f->ndevs); returns how many. */
static int put_samples(struct gd_text *t, const struct metric *m, const struct gd_frame *f,
                       const struct gd_device *devs)
{
	int n = 0;
	switch (m->scope) {
	case PER_WORKER:
	case WORKER_INFO:
	case WORKER_STATE:
	case WORKER_PHASE:
	case WORKER_GAPS:
		for (int i = 0; i < f->nworkers; i++)
			n += put_worker(t, m, f, &f->workers[i]);
		break;
	case PER_DEVICE:
		for (int d = 0; d < f->ndevs; d++) {
			double v = m->device(&f->devs[d]);
			if (!isfinite(v))
				continue;
			text_printf(t, "%s{", m->name);
			put_label(t, "device", f->devs[d].ref, true);
			text_printf(t, "}");
			put_value(t, v);
			n++;
		}
		break;
	case PER_RUN:
		if (!isfinite(m->frame(f)))
			break;
		text_printf(t, "%s", m->name);
		put_value(t, m->frame(f));
		n++;
		break;
	case DEVICE_IDLE:
		for (int d = 0; d < f->ndevs; d++)
			for (int c = 0; c < GD_CAUSE_COUNT; c++) {
				double v = f->devs[d].agg.idle.share[c];
				if (!isfinite(v))
					continue;
				text_printf(t, "%s{", m->name);
				put_label(t, "device", f->devs[d].ref, true);
				/* the cause as the log names it, without its idle_ prefix */
				put_label(t, "cause", diagnose_field((enum gd_cause)c) + strlen("idle_"),
				          false);
				text_printf(t, "}");
				put_value(t, v);
				n++;
			}
		break;
	case DEVICE_INFO:
		for (int d = 0; d < f->ndevs; d++, n++) {
			text_printf(t, "%s{", m->name);
			put_label(t, "device", f->devs[d].ref, true);
			put_label(t, "name", devs[d].name, false);
			put_label(t, "platform", devs[d].platform_name, false);
			text_printf(t, "}");
			put_value(t, 1);
		}
		break;
	case BUILD_INFO:
		text_printf(t, "%s{", m->name);
		put_label(t, "version", GD_VERSION, true);
		put_label(t, "platform", f->ndevs > 0 ? devs[0].platform_name : "", false);
		put_label(t, "driver", f->ndevs > 0 ? devs[0].driver : "", false);
		text_printf(t, "}");
		put_value(t, 1);
		n++;
		break;
	}
	return n;
}

char *prom_render(const struct gd_frame *f, const struct gd_device *devs, size_t *len)
{
	struct gd_text t = { 0 }, family = { 0 };
	text_printf(&t, "%s", "");
	for (size_t i = 0; i < GD_ARRAY_LEN(metrics); i++) {
		const struct metric *m = &metrics[i];
		family.n = 0;
		if (put_samples(&family, m, f, devs) == 0)
			continue; /* HELP and TYPE only over samples */
		text_printf(&t, "# HELP %s %s\n# TYPE %s %s\n%s", m->name, m->help, m->name, m->type,
		            family.p);
	}
	free(family.p);
	*len = t.n;
	return t.p;
}

/* ---- --prom-file ---- */

/* A new temporary file from the template name (its XXXXXX replaced): a name nobody can know
 * before it exists, created with O_EXCL (so nothing planted there, a FIFO or a link, is ever
 * opened), owned by us, mode as the other outputs. The descriptor, or -1 with errno. */
static int prom_tmp_create(char *name, mode_t mode)
{
	int fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, mode) != 0) {
		int e = errno;
		close(fd);
		unlink(name);
		errno = e;
		return -1;
	}
	return fd;
}

/* Writes text to a temporary file and renames it over the file: a reader sees the old
 * contents or the new, never a part. 0, or -1 with the reason in why. */
static int write_file(const struct gd_prom *p, const char *text, size_t len, char *why, size_t whylen)
{
	char tmp[PATH_MAX];
	const char *step = "create", *name = str_copy(tmp, sizeof(tmp), p->tmp);
	int fd = prom_tmp_create(tmp, p->mode);
	if (fd >= 0) {
		step = "write";
		size_t done = 0;
		ssize_t w = 1;
		while (done < len &&
		       ((w = write(fd, text + done, len - done)) > 0 || (w < 0 && errno == EINTR)))
			done += w > 0 ? (size_t)w : 0;
		if (w == 0)
			errno = EIO;
		int saved = errno;
		bool failed = done < len;
		if (close(fd) != 0)
			failed = true;
		else if (failed)
			errno = saved;
		if (!failed) {
			step = "rename";
			name = p->file;
			if (rename(tmp, p->file) == 0)
				return 0;
		}
		unlink(tmp);
	}
	snprintf(why, whylen, "--prom-file: cannot %s '%s': %s", step, name, strerror(errno));
	return -1;
}

/* The writer thread: writes the newest rendering whenever there is one it has not written. */
static void *writer_main(void *arg)
{
	struct gd_prom *p = arg;
	char *copy = NULL, why[256];
	size_t cap = 0;
	uint64_t done = 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->gen == done)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->gen == done)
			break; /* stopped, everything written */
		done = p->gen;
		size_t len = p->len;
		if (!copy || len + 1 > cap) {
			cap = 2 * (len + 1);
			copy = xreallocarray(copy, cap, 1);
		}
		memcpy(copy, p->text, len);
		pthread_mutex_unlock(&p->lock);
		int rc = write_file(p, copy, len, why, sizeof(why));
		pthread_mutex_lock(&p->lock);
		if (rc != 0) {
			p->failed++;
			str_copy(p->why, sizeof(p->why), why);
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(copy);
	return NULL;
}

/* Threads started here block every signal: the flags the supervisor's handlers set belong to
 * its own thread. */
static int start_blocked(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* --prom-file's checks: a regular file or none, and a directory that takes the temporary file
 * (created and removed here). That it is none of the other outputs is outputs_open's check. */
static int file_open(struct gd_prom *p, const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (strcmp(path, "-") == 0) {
		snprintf(err, errlen, "--prom-file: '-' is no file (the file is replaced by a rename)");
		return -1;
	}
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "--prom-file: '%s' is not a regular file", path);
		return -1;
	}
	/* The temporary files go in the file's directory (a rename does not cross file systems)
	 * under a short name of their own, so any name that fits there fits for them too. */
	static const char base[] = ".gputop-decode-prom.XXXXXX";
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	size_t n = (size_t)dirlen + sizeof(base);
	if (n > PATH_MAX) {
		snprintf(err, errlen, "--prom-file: '%s': %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	p->file = xmalloc(strlen(path) + 1);
	memcpy(p->file, path, strlen(path) + 1);
	p->tmp = xmalloc(n);
	snprintf(p->tmp, n, "%.*s%s", dirlen, path, base);
	mode_t mask = umask(0);
	umask(mask);
	p->mode = 0644 & ~mask;
	char tmp[PATH_MAX];
	int fd = prom_tmp_create(str_copy(tmp, sizeof(tmp), p->tmp), p->mode);
	if (fd < 0) {
		snprintf(err, errlen, "--prom-file: cannot create a file in the directory of '%s': %s", path,
		         strerror(errno));
		return -1;
	}
	close(fd);
	unlink(tmp);
	int rc = start_blocked(&p->writer, writer_main, p);
	if (rc != 0) {
		snprintf(err, errlen, "--prom-file: cannot start its writer thread: %s", strerror(rc));
		return -1;
	}
	p->writing = true;
	return 0;
}

/* ---- --listen ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	                        status == MHD_HTTP_OK ? "text/plain; version=0.0.4; charset=utf-8"
	                                              : "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* GET /metrics: a copy of the latest rendering, taken under the lock. The parameters are
 * libmicrohttpd's MHD_AccessHandlerCallback. */
/* NOLINTBEGIN(readability-non-const-parameter) */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
/* NOLINTEND(readability-non-const-parameter) */
{
	struct gd_prom *p = cls;
	(void)version, (void)upload, (void)upload_size, (void)state;
	static const char not_allowed[] = "only GET and HEAD\n", not_found[] = "not found: see /metrics\n";
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed, sizeof(not_allowed) - 1);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1);
	pthread_mutex_lock(&p->lock);
	enum MHD_Result rc = reply(c, MHD_HTTP_OK, p->text, p->len);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* "127.0.0.1:9400" or "[::1]:9400". */
static void address_text(const struct gd_listen *l, unsigned port, char *s, size_t n)
{
	char host[INET6_ADDRSTRLEN];
	inet_ntop(l->family, l->addr, host, sizeof(host));
	snprintf(s, n, l->family == AF_INET6 ? "[%s]:%u" : "%s:%u", host, port);
}

/* A listening socket on --listen's address, close-on-exec (workers never hold it). */
static int bind_socket(const struct gd_listen *l, unsigned *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (l->family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)l->port);
		memcpy(&a->sin6_addr, l->addr, 16);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)l->port);
		memcpy(&a->sin_addr, l->addr, 4);
		len = sizeof(*a);
	}
	int one = 1;
	int fd = socket(l->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* [::] is the IPv6 address it says, not IPv4 too: the system's default (bindv6only) may
	 * differ, so it is set. */
	if (fd < 0 ||
	    (l->family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		snprintf(err, errlen, "--listen %s: %s", l->text, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(l->family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
	                                    : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* The connections the server may hold at once: GD_PROM_CONNECTIONS, or fewer where the
 * descriptor limit leaves fewer beside those open now and a spare. libmicrohttpd then refuses
 * more itself, and never meets EMFILE on accept (after which it stopped accepting). */
static unsigned connection_limit(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
		return GD_PROM_CONNECTIONS;
	long open_now = 0;
	DIR *d = opendir("/proc/self/fd");
	for (struct dirent *e; d && (e = readdir(d));)
		open_now += e->d_name[0] != '.';
	if (d)
		closedir(d);
	long left = (long)r.rlim_cur - open_now - GD_PROM_FD_SPARE;
	return left <= 0 ? 0 : left < GD_PROM_CONNECTIONS ? (unsigned)left : GD_PROM_CONNECTIONS;
}

/* Binds --listen's address and starts libmicrohttpd's polling thread on it, with every signal
 * blocked (the flags the supervisor's handlers set belong to its own thread). No client holds
 * the server: connections are limited in all and per address, closed when idle, and cut at
 * an age bound however they trickle. */
static int serve(struct gd_prom *p, const struct gd_listen *l, char *err, size_t errlen)
{
	unsigned limit = connection_limit();
	if (limit == 0) {
		snprintf(err, errlen, "--listen %s: the descriptor limit (ulimit -n) leaves none for clients",
		         l->text);
		return -1;
	}
	if (!(p->cut = conncut_new(limit, GD_PROM_LIFETIME_S))) {
		snprintf(err, errlen, "--listen %s: cannot start a thread", l->text);
		return -1;
	}
	int fd = bind_socket(l, &p->port, err, errlen);
	if (fd < 0)
		return -1;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->mhd = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, p,
	                          MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
	                          limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)GD_PROM_PER_IP,
	                          MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)GD_PROM_TIMEOUT_S,
	                          MHD_OPTION_NOTIFY_CONNECTION, conncut_notify, p->cut, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->mhd) {
		close(fd);
		snprintf(err, errlen, "--listen %s: the HTTP server did not start", l->text);
		return -1;
	}
	address_text(l, p->port, p->where, sizeof(p->where));
	return 0;
}

/* ---- The exporter ---- */

struct gd_prom *prom_open(const struct gd_prom_config *c, char *err, size_t errlen)
{
	err[0] = '\0';
	if (!c->file && !c->listen.set)
		return NULL;
	struct gd_prom *p = xcalloc(1, sizeof(*p));
	p->ndevs = c->ndevs < GD_DEVICES_MAX ? c->ndevs : GD_DEVICES_MAX;
	for (int d = 0; d < p->ndevs; d++)
		p->devs[d] = c->devs[d];
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->text = xmalloc(1);
	p->text[0] = '\0';
	if ((c->file && file_open(p, c->file, err, errlen)) ||
	    (c->listen.set && serve(p, &c->listen, err, errlen))) {
		prom_close(p, NULL, 0);
		return NULL;
	}
	return p;
}

/* The output's frame: renders f once, for /metrics and the file's writer. */
/* NOLINTNEXTLINE(readability-non-const-parameter): the outputs interface; this one never fails */
static int prom_frame(void *self, const struct gd_frame *f, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct gd_prom *p = self;
	size_t len;
	char *text = prom_render(f, p->devs, &len);
	pthread_mutex_lock(&p->lock);
	char *old = p->text;
	p->text = text;
	p->len = len;
	p->gen++;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	free(old);
	return 0; /* a file that could not be written is tried again, and said at the close */
}

void prom_announce(const struct gd_prom *p)
{
	if (p && p->mhd)
		fprintf(stderr, GD_NAME ": metrics on http://%s/metrics\n", p->where);
}

/* For the tests, which listen on port 0; the tool itself announces the port (prom_announce). */
/* cppcheck-suppress unusedFunction */
unsigned prom_port(const struct gd_prom *p)
{
	return p ? p->port : 0;
}

static int prom_close_output(void *self, char *why, size_t whylen)
{
	return prom_close(self, why, whylen);
}

const struct gd_output_ops prom_output = { .frame = prom_frame, .close = prom_close_output };

int prom_close(struct gd_prom *p, char *why, size_t whylen)
{
	if (!p)
		return 0;
	if (p->mhd)
		MHD_stop_daemon(p->mhd); /* joins its thread; closes the socket and every connection */
	conncut_free(p->cut);
	if (p->writing) { /* the last window is written before the run ends */
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->writer, NULL);
	}
	int rc = 0;
	if (p->failed && why) {
		snprintf(why, whylen, "%s (%u write%s failed)", p->why, p->failed, p->failed > 1 ? "s" : "");
		rc = -1;
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p->text);
	free(p->file);
	free(p->tmp);
	free(p);
	return rc;
}

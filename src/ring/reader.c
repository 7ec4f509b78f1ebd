/* reader.c: the supervisor's end of a worker's segment (reader.h). */
#include "reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/proc.h"
#include "gputop/spec.h"

#define REC_WORDS (sizeof(struct gd_rec) / 8)

static const char *const state_names[GD_ST_COUNT] = {
	"starting", "running", "paused", "stopping", "exited", "failed", "stalled", "no OpenCL calls seen",
};

const char *gd_state_name(enum gd_state st)
{
	return (unsigned)st < GD_ST_COUNT ? state_names[st] : "unknown";
}

/* A segment can be truncated under the reader's mapping; touching it then raises SIGBUS.
 * Reads run inside bus_guard(): the handler jumps back and the read reports failure. */
static __thread sigjmp_buf *bus_jmp;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (bus_jmp)
		siglongjmp(*bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_bus_handler(void)
{
	static int installed;
	if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL))
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static const struct gd_seg_header *hdr(const struct gd_reader *r)
{
	return (const struct gd_seg_header *)r->base;
}

#define LOAD(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)

static const char *file_kind(mode_t mode)
{
	return S_ISFIFO(mode)   ? "a FIFO"
	       : S_ISDIR(mode)  ? "a directory"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISLNK(mode)  ? "a symbolic link"
	                        : "not a file";
}

/* Opens name and maps it into r when it is a regular file of ours, large enough: OK, NOTYET or
 * REJECTED with why filled. */
static enum gd_open_result map_segment(struct gd_reader *r, const char *name, char *why, size_t whylen)
{
	/* Anyone may create names in /dev/shm. O_NONBLOCK: opening a FIFO (or anything else that
	 * waits) returns at once; O_NOFOLLOW: a symbolic link is refused. Then fstat decides. */
	int fd = shm_open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0);
	if (fd < 0) {
		int e = errno;
		snprintf(why, whylen, "%s", strerror(e));
		/* Missing, or our own descriptors exhausted for now: neither is the segment's fault. */
		return e == ENOENT || e == EMFILE || e == ENFILE || e == EINTR ? GD_OPEN_NOTYET
		                                                               : GD_OPEN_REJECTED;
	}
	struct stat st;
	size_t need = GD_RING_OFFSET + (size_t)GD_RING_CAPACITY * sizeof(struct gd_rec);
	enum gd_open_result rc = GD_OPEN_REJECTED;
	void *base = MAP_FAILED;
	if (fstat(fd, &st) != 0)
		snprintf(why, whylen, "cannot stat segment: %s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, whylen, "%s is in place of the segment, not a regular file",
		         file_kind(st.st_mode));
	else if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0600)
		snprintf(why, whylen, "segment owned by uid %u with mode %04o, not ours", (unsigned)st.st_uid,
		         (unsigned)(st.st_mode & 07777));
	else if ((size_t)st.st_size < need) { /* the worker sizes it right after creating it */
		snprintf(why, whylen, "segment too small (%lld bytes)", (long long)st.st_size);
		rc = GD_OPEN_NOTYET;
	} else if ((base = mmap(NULL, need, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
	} else {
		r->base = base;
		r->size = need;
		rc = GD_OPEN_OK;
	}
	close(fd); /* the mapping stays: a worker costs the reader no descriptor */
	return rc;
}

/* The mapped header's fixed part, checked against what the supervisor expects: pid's segment
 * of generation gen, in this version's layout. */
static enum gd_open_result check_header(struct gd_reader *r, pid_t pid, uint64_t gen, char *why,
                                        size_t whylen)
{
	sigjmp_buf jb;
	if (sigsetjmp(jb, 1)) {
		bus_jmp = NULL;
		snprintf(why, whylen, "segment truncated while opening");
		return GD_OPEN_REJECTED;
	}
	bus_jmp = &jb;
	const struct gd_seg_header *h = hdr(r);
	uint32_t magic = LOAD(h->magic);
	uint32_t version = h->version, hsize = h->header_size, rsize = h->record_size;
	uint32_t cap = h->capacity, off = h->ring_offset;
	int32_t owner = h->pid;
	uint64_t g = h->generation;
	bus_jmp = NULL;

	if (magic == 0) {
		snprintf(why, whylen, "initialising");
		return GD_OPEN_NOTYET;
	}
	if (magic != GD_SEG_MAGIC)
		snprintf(why, whylen, "bad magic 0x%08x", magic);
	else if (version != GD_SEG_VERSION)
		snprintf(why, whylen, "version %u, expected %u", version, GD_SEG_VERSION);
	else if (hsize != sizeof(struct gd_seg_header) || rsize != sizeof(struct gd_rec) ||
	         cap != GD_RING_CAPACITY || off != GD_RING_OFFSET)
		snprintf(why, whylen, "unexpected layout (header %u, record %u, capacity %u, offset %u)",
		         hsize, rsize, cap, off);
	else if (owner != (int32_t)pid || g != gen)
		snprintf(why, whylen, "segment belongs to pid %d, not to worker %d", (int)owner, (int)pid);
	else {
		r->cap = cap;
		/* From here on the reader's own: a power of two whose ring lies inside the mapping. */
		GD_ASSERT(r->cap == GD_RING_CAPACITY &&
		          r->size >= GD_RING_OFFSET + (size_t)r->cap * sizeof(struct gd_rec));
		return GD_OPEN_OK;
	}
	return GD_OPEN_REJECTED;
}

enum gd_open_result reader_open(struct gd_reader *r, const char *name, pid_t pid, uint64_t gen, char *why,
                                size_t whylen)
{
	memset(r, 0, sizeof(*r));
	install_bus_handler();
	enum gd_open_result rc = map_segment(r, name, why, whylen);
	if (rc == GD_OPEN_OK && (rc = check_header(r, pid, gen, why, whylen)) != GD_OPEN_OK)
		reader_close(r);
	return rc;
}

/* Copies record i into out; false if it was overwritten, torn or inconsistent. */
static bool read_one(const struct gd_reader *r, uint64_t i, struct gd_rec *out)
{
	size_t slot = (size_t)(i & (r->cap - 1)) * sizeof(*out);
	GD_ASSERT(GD_RING_OFFSET + slot + sizeof(*out) <= r->size);
	const uint64_t *src = (const uint64_t *)(r->base + GD_RING_OFFSET + slot);
	uint64_t *dst = (uint64_t *)out;
	uint64_t want = 2 * i + 2;

	uint64_t s1 = __atomic_load_n(&src[0], __ATOMIC_ACQUIRE);
	if (s1 != want)
		return false;
	/* Acquire loads instead of an acquire fence: see seg_publish. */
	for (size_t w = 1; w < REC_WORDS; w++)
		dst[w] = __atomic_load_n(&src[w], __ATOMIC_ACQUIRE);
	uint64_t s2 = __atomic_load_n(&src[0], __ATOMIC_RELAXED);
	dst[0] = s2;
	return s2 == want && gd_rec_valid(out);
}

int reader_poll(struct gd_reader *r, struct gd_rec *out, int max)
{
	if (!r->base)
		return -1;
	GD_ASSERT(r->cap == GD_RING_CAPACITY && max >= 0 && (out || max == 0));
	sigjmp_buf jb;
	if (sigsetjmp(jb, 1)) {
		bus_jmp = NULL;
		return -1;
	}
	bus_jmp = &jb;
	uint64_t h = LOAD(hdr(r)->head);
	if (h < r->cursor) {
		/* A head that moves backwards is corrupt. Resynchronise without going back: what
		 * was read before is never read, or counted, twice. */
		r->lost++;
		r->cursor = h;
	} else if (h - r->cursor > ((uint64_t)1 << 32)) {
		/* A head that leaps absurdly is corrupt too: look at the last ring's worth only. */
		r->lost++;
		r->cursor = h - r->cap;
	}
	if (h - r->cursor > r->cap) {
		r->lost += h - r->cursor - r->cap;
		r->cursor = h - r->cap;
	}
	/* Whatever head the segment holds: at most one ring's worth ahead, never behind. */
	GD_ASSERT(r->cursor <= h && h - r->cursor <= r->cap);
	int n = 0;
	while (r->cursor < h && n < max) {
		if (read_one(r, r->cursor, &out[n])) {
			n++;
			r->accepted++;
		} else
			r->lost++;
		r->cursor++;
	}
	bus_jmp = NULL;
	return n;
}

void reader_writer_died(struct gd_reader *r)
{
	if (!r->base)
		return;
	sigjmp_buf jb;
	if (sigsetjmp(jb, 1)) {
		bus_jmp = NULL;
		return;
	}
	bus_jmp = &jb;
	uint64_t h = LOAD(hdr(r)->head);
	size_t slot = (size_t)(h & (r->cap - 1)) * sizeof(struct gd_rec);
	GD_ASSERT(r->cap == GD_RING_CAPACITY && GD_RING_OFFSET + slot + sizeof(struct gd_rec) <= r->size);
	const uint64_t *seq = (const uint64_t *)(r->base + GD_RING_OFFSET + slot);
	/* Only when everything before it was read, and only once: the count stays exact. */
	if (h == r->cursor && __atomic_load_n(seq, __ATOMIC_ACQUIRE) == 2 * h + 1) {
		r->lost++;
		r->cursor = h + 1;
	}
	bus_jmp = NULL;
}

/* Copies a string from the segment, keeping only printable ASCII. */
static void copy_text(char *dst, const char *src, size_t n)
{
	size_t i = 0;
	for (; i + 1 < n; i++) {
		char c = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		if (c == '\0')
			break;
		dst[i] = c;
	}
	dst[i] = '\0';
	text_clean(dst); /* as every text from outside: valid UTF-8 kept, the rest '?' */
}

/* What a header's totals may claim. A record is one batch, and one batch of either writer
 * counts at most 2^32 launches (an observed library counts a batch's in 32 bits) and 2^48 items
 * (2^27 per launch at most for a worker; an observed program's larger kernels fit too), so the
 * totals are bounded by the records that account for them: those read, those lost, those
 * published but not read yet (head; a head the poll will count as a leap adds none), and a
 * ring's worth more for batches under way, whose launches an observed library counts as they are
 * enqueued. The records carry no transfers or waits: a process makes at most 2^40 of each kind
 * (about 12 days of nothing but calls at 1 us each), each transfer at most 2^40 bytes (the
 * count read just after the bytes may lag them by the one transfer the bytes include). */
#define PER_BATCH_KERNELS ((uint64_t)1 << 32)
#define PER_BATCH_ITEMS   ((uint64_t)1 << 48)
#define PROCESS_COMMANDS  ((uint64_t)1 << 40)
#define TRANSFER_BYTES    ((uint64_t)1 << 40)

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Total i as the header claims it, v: shown when it is no less than the one shown before and at
 * most bound; otherwise the one shown before stays, and v counts as refused once (until the
 * total is shown again, or another value is refused). */
static uint64_t take_total(struct gd_reader *r, int i, uint64_t v, uint64_t bound)
{
	uint32_t bit = 1u << i;
	if (v >= r->shown[i] && v <= bound) {
		r->shown[i] = v;
		r->refusing &= ~bit;
	} else if (!(r->refusing & bit) || r->refused[i] != v) {
		r->refusing |= bit;
		r->refused[i] = v;
		r->rejected++;
		r->lost++;
	}
	return r->shown[i];
}

/* The header's totals into v, each bounded (see above). Bytes are loaded before their counts,
 * and the head after the totals, as the writer stores them in the other order. */
static void header_totals(struct gd_reader *r, const struct gd_seg_header *h, struct gd_seg_view *v)
{
	uint64_t batches = LOAD(h->batches), items = LOAD(h->items), kernels = LOAD(h->kernels);
	uint64_t h2d_bytes = LOAD(h->obs.h2d_bytes), d2h_bytes = LOAD(h->obs.d2h_bytes);
	uint64_t h2d_count = LOAD(h->obs.h2d_count), d2h_count = LOAD(h->obs.d2h_count);
	uint64_t waits = LOAD(h->obs.waits), commands = LOAD(h->obs.commands);
	uint64_t copy_bytes = LOAD(h->obs.copy_bytes), copy_count = LOAD(h->obs.copy_count);
	uint64_t head = LOAD(h->head);
	uint64_t unread = head >= r->cursor && head - r->cursor <= ((uint64_t)1 << 32) ? head - r->cursor : 0;
	uint64_t recs = sat_add(sat_add(r->accepted, r->lost - r->rejected), sat_add(unread, r->cap));
	v->batches = take_total(r, 0, batches, recs);
	v->items = take_total(r, 1, items, sat_mul(recs, PER_BATCH_ITEMS));
	v->kernels = take_total(r, 2, kernels, sat_mul(recs, PER_BATCH_KERNELS));
	v->obs.h2d_count = take_total(r, 5, h2d_count, PROCESS_COMMANDS);
	v->obs.d2h_count = take_total(r, 6, d2h_count, PROCESS_COMMANDS);
	v->obs.waits = take_total(r, 7, waits, PROCESS_COMMANDS);
	v->obs.h2d_bytes = take_total(r, 3, h2d_bytes, sat_mul(v->obs.h2d_count + 1, TRANSFER_BYTES));
	v->obs.d2h_bytes = take_total(r, 4, d2h_bytes, sat_mul(v->obs.d2h_count + 1, TRANSFER_BYTES));
	v->obs.commands = take_total(r, 8, commands, PROCESS_COMMANDS);
	v->obs.copy_count = take_total(r, 10, copy_count, PROCESS_COMMANDS);
	v->obs.copy_bytes = take_total(r, 9, copy_bytes, sat_mul(v->obs.copy_count + 1, TRANSFER_BYTES));
}

bool reader_view(struct gd_reader *r, struct gd_seg_view *v)
{
	if (!r->base)
		return false;
	sigjmp_buf jb;
	if (sigsetjmp(jb, 1)) {
		bus_jmp = NULL;
		return false;
	}
	bus_jmp = &jb;
	const struct gd_seg_header *h = hdr(r);
	uint32_t st = LOAD(h->state), tb = LOAD(h->timebase);
	v->state =
	    st < GD_SEG_STATE_COUNT ? (enum gd_state)st : GD_ST_FAILED; /* a state the segment may hold */
	v->timebase = tb < GD_TB_COUNT ? (enum gd_timebase)tb : GD_TB_NONE;
	int64_t hb = LOAD(h->heartbeat_ns);
	v->heartbeat_ns = hb > 0 ? hb : 0; /* the supervisor subtracts it from now: keep it sane */
	header_totals(r, h, v);
	uint32_t src = LOAD(h->source);
	v->source = src < GD_SRC_COUNT ? (enum gd_seg_source)src : GD_SRC_WORKER;
	v->start_ticks = LOAD(h->start_ticks);
	int64_t at = LOAD(h->inflight_at_ns), inflight = LOAD(h->inflight_ns), now = now_ns();
	bool sane = inflight > 0 && inflight <= at && at <= now; /* times to come: none */
	v->inflight_ns = sane ? inflight : 0;
	v->inflight_at_ns = sane ? at : 0;
	copy_text(v->comm, h->comm, sizeof(v->comm));
	uint32_t od = LOAD(h->obs_device); /* any value names some P:D, both within 0..255 */
	v->dev_platform = od ? (int)((od - 1) >> 8 & 0xffu) : -1;
	v->dev_index = od ? (int)((od - 1) & 0xffu) : -1;
	if (v->state == GD_ST_FAILED)
		copy_text(v->error, h->error, sizeof(v->error));
	else
		v->error[0] = '\0';
	bus_jmp = NULL;
	return true;
}

void reader_close(struct gd_reader *r)
{
	if (r->base)
		munmap(r->base, r->size);
	r->base = NULL;
}

int seg_sweep_stale(void)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return 0;
	char prefix[64];
	snprintf(prefix, sizeof(prefix), GD_SEG_PREFIX "%u.", (unsigned)geteuid());
	size_t plen = strlen(prefix);
	int swept = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		char *end;
		long sup = strtol(e->d_name + plen, &end, 10);
		if (end == e->d_name + plen || *end != '.' || sup <= 0)
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
			continue;
		/* Alive means: that pid runs a process that started before the segment was made. A
		 * worker creates its segment only while the pid in its name is its parent, so such a
		 * process is that supervisor; a pid reused since is younger than the segment. The
		 * name and executable are not looked at: a supervisor started through a link or a
		 * copy, or from a rebuilt binary, is just as alive. */
		if (proc_running_since((pid_t)sup, &st.st_mtim))
			continue;
		char name[300];
		snprintf(name, sizeof(name), "/%s", e->d_name);
		if (shm_unlink(name) == 0)
			swept++;
	}
	closedir(d);
	return swept;
}

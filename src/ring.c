/* ring.c: the per-worker shared-memory segment: its header, the record ring, the writer and
 * the hostile-input-safe reader. The invariants are stated in include/gputop/ring.h. */
#include "gputop/ring.h"

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

/* The header at offset 0 of every segment. Fields the worker changes after set-up are
 * accessed only with __atomic operations; the reader loads each of them once. */
struct seg_header {
	uint32_t magic; /* stored last, with release */
	uint32_t version;
	uint32_t header_size;
	uint32_t record_size;
	uint32_t capacity; /* power of two */
	uint32_t ring_offset;
	int32_t pid;
	uint32_t id;
	uint64_t generation;
	uint32_t dtype_bytes;
	uint32_t state;
	uint32_t timebase;
	int64_t heartbeat_ns;
	uint64_t batches, items, kernels;
	uint64_t head;
	char device[GD_DEV_LEN];
	char error[GD_ERR_LEN]; /* written before state becomes FAILED */
};

_Static_assert(sizeof(struct seg_header) <= GD_RING_OFFSET, "header must fit before the ring");
_Static_assert(sizeof(struct gd_rec) % 8 == 0, "records are copied as 64-bit words");
_Static_assert(sizeof(struct gd_rec) == 256, "a record is 256 bytes");
_Static_assert((GD_RING_CAPACITY & (GD_RING_CAPACITY - 1)) == 0, "capacity is a power of two");

#define REC_WORDS (sizeof(struct gd_rec) / 8)

static const char *const state_names[GD_ST_COUNT] = {
	"starting", "running", "paused", "stopping", "exited", "failed", "stalled",
};

const char *gd_state_name(enum gd_state st)
{
	return (unsigned)st < GD_ST_COUNT ? state_names[st] : "unknown";
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
	if (r->items == 0 || r->items > GD_SIZE_MAX || r->kernels > GD_LAUNCHES_MAX ||
	    r->nkiv > GD_REC_KMAX || (r->flags & ~(uint32_t)(GD_REC_FLAGS | GD_REC_GEN)) ||
	    kiv_shift(r) > GD_REC_SHIFT_MAX || gd_rec_gen_thread(r) > GD_GEN_THREADS_MAX)
		return false;
	if (r->t_begin <= 0 || r->t_begin > REC_TIME_MAX || r->t_gen < r->t_begin || r->t_end < r->t_gen ||
	    r->t_end - r->t_begin > REC_SPAN_MAX)
		return false;
	if (!copy_valid(r, r->h2d) || !copy_valid(r, r->d2h) || (r->nkiv && !near_batch(r, r->kbase)))
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

void gd_rec_kiv(const struct gd_rec *r, uint32_t i, int64_t out[2])
{
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

void gd_rec_set_kernels(struct gd_rec *r, const int64_t (*kv)[2], uint32_t n)
{
	uint32_t groups = n < GD_REC_KMAX ? n : GD_REC_KMAX;
	int64_t off[GD_REC_KMAX][2], span = 0;
	r->kbase = n ? kv[0][0] : 0;
	r->nkiv = groups;
	r->flags &= ~(uint32_t)(GD_REC_GROUPED | GD_REC_SHIFT);
	if (n > GD_REC_KMAX)
		r->flags |= GD_REC_GROUPED;
	for (uint32_t g = 0; g < groups; g++) {
		uint32_t first = (uint32_t)((uint64_t)g * n / groups);
		uint32_t last = (uint32_t)((uint64_t)(g + 1) * n / groups) - 1;
		int64_t s = kv[first][0] - r->kbase, e = kv[first][1];
		for (uint32_t k = first; k <= last; k++)
			e = kv[k][1] > e ? kv[k][1] : e;
		e -= r->kbase;
		if (s < 0 || (g && s < off[g - 1][0])) /* starts never go back */
			s = g ? off[g - 1][0] : 0;
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

/* ---- writer ---- */

struct gd_seg {
	int fd;
	size_t size;
	struct seg_header *h;
	unsigned char *ring;
	char name[128];
};

static size_t seg_size(void)
{
	return GD_RING_OFFSET + (size_t)GD_RING_CAPACITY * sizeof(struct gd_rec);
}

/* Writes the header, magic last. */
static void seg_init_header(struct gd_seg *seg, const struct gd_seg_info *info)
{
	struct seg_header *h = seg->h;
	h->version = GD_SEG_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct gd_rec);
	h->capacity = GD_RING_CAPACITY;
	h->ring_offset = GD_RING_OFFSET;
	h->pid = (int32_t)getpid();
	h->id = info->id;
	h->generation = info->generation;
	h->dtype_bytes = info->dtype_bytes;
	h->state = GD_ST_STARTING;
	str_copy(h->device, sizeof(h->device), info->device);
	h->heartbeat_ns = now_ns();
	__atomic_store_n(&h->magic, GD_SEG_MAGIC, __ATOMIC_RELEASE);
}

struct gd_seg *seg_create(const char *name, const struct gd_seg_info *info, char *err, size_t errlen)
{
	struct gd_seg *seg = xcalloc(1, sizeof(*seg));
	str_copy(seg->name, sizeof(seg->name), name);
	seg->size = seg_size();
	const char *step = "shm_open";
	seg->fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (seg->fd < 0)
		goto fail;
	step = "fchmod";
	if (fchmod(seg->fd, 0600) != 0) /* exactly 0600, whatever the umask */
		goto fail;
	step = "ftruncate";
	if (ftruncate(seg->fd, (off_t)seg->size) != 0)
		goto fail;
	/* Reserve every page now so a full /dev/shm fails here, not later as SIGBUS. */
	step = "posix_fallocate";
	int rc = posix_fallocate(seg->fd, 0, (off_t)seg->size);
	if (rc != 0) {
		errno = rc;
		goto fail;
	}
	step = "mmap";
	void *base = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED, seg->fd, 0);
	if (base == MAP_FAILED)
		goto fail;
	memset(base, 0, seg->size);
	seg->h = base;
	seg->ring = (unsigned char *)base + GD_RING_OFFSET;
	seg_init_header(seg, info);
	return seg;

fail:; /* errno is the failed step's until it has been formatted */
	int saved = errno;
	snprintf(err, errlen, "%s %s: %s", step, name, strerror(saved));
	if (seg->fd >= 0) { /* O_EXCL: the name is ours to remove */
		close(seg->fd);
		shm_unlink(name);
	}
	free(seg);
	errno = saved;
	return NULL;
}

void seg_close(struct gd_seg *seg, bool unlink_name)
{
	if (!seg)
		return;
	munmap(seg->h, seg->size);
	close(seg->fd);
	if (unlink_name)
		shm_unlink(seg->name);
	free(seg);
}

void seg_publish(struct gd_seg *seg, const struct gd_rec *r)
{
	uint64_t i = __atomic_load_n(&seg->h->head, __ATOMIC_RELAXED);
	uint64_t *dst = (uint64_t *)(seg->ring + (i & (GD_RING_CAPACITY - 1)) * sizeof(*r));
	const uint64_t *src = (const uint64_t *)r;

	/* Payload words are release stores rather than relaxed stores after a release fence:
	 * the same order (free on x86), and ThreadSanitizer understands it. */
	__atomic_store_n(&dst[0], 2 * i + 1, __ATOMIC_RELAXED);
	for (size_t w = 1; w < REC_WORDS; w++)
		__atomic_store_n(&dst[w], src[w], __ATOMIC_RELEASE);
	__atomic_store_n(&dst[0], 2 * i + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&seg->h->head, i + 1, __ATOMIC_RELEASE);
}

void seg_set_state(struct gd_seg *seg, enum gd_state st)
{
	__atomic_store_n(&seg->h->state, (uint32_t)st, __ATOMIC_RELEASE);
}

void seg_set_timebase(struct gd_seg *seg, enum gd_timebase tb)
{
	__atomic_store_n(&seg->h->timebase, (uint32_t)tb, __ATOMIC_RELEASE);
}

void seg_set_error(struct gd_seg *seg, const char *msg)
{
	size_t n = strnlen(msg, GD_ERR_LEN - 1);
	for (size_t i = 0; i < GD_ERR_LEN; i++)
		__atomic_store_n(&seg->h->error[i], i < n ? msg[i] : '\0', __ATOMIC_RELAXED);
	__atomic_store_n(&seg->h->state, (uint32_t)GD_ST_FAILED, __ATOMIC_RELEASE);
}

void seg_heartbeat(struct gd_seg *seg)
{
	__atomic_store_n(&seg->h->heartbeat_ns, now_ns(), __ATOMIC_RELEASE);
}

void seg_add_totals(struct gd_seg *seg, uint64_t batches, uint64_t items, uint64_t kernels)
{
	struct seg_header *h = seg->h;
	__atomic_store_n(&h->batches, __atomic_load_n(&h->batches, __ATOMIC_RELAXED) + batches,
	                 __ATOMIC_RELEASE);
	__atomic_store_n(&h->items, __atomic_load_n(&h->items, __ATOMIC_RELAXED) + items,
	                 __ATOMIC_RELEASE);
	__atomic_store_n(&h->kernels, __atomic_load_n(&h->kernels, __ATOMIC_RELAXED) + kernels,
	                 __ATOMIC_RELEASE);
}

/* ---- reader ---- */

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

static const struct seg_header *hdr(const struct gd_reader *r)
{
	return (const struct seg_header *)r->base;
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

enum gd_open_result reader_open(struct gd_reader *r, const char *name, pid_t pid, uint64_t gen, char *why,
                                size_t whylen)
{
	memset(r, 0, sizeof(*r));
	install_bus_handler();
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
	if (fstat(fd, &st) != 0) {
		snprintf(why, whylen, "cannot stat segment: %s", strerror(errno));
		goto rejected;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is in place of the segment, not a regular file",
		         file_kind(st.st_mode));
		goto rejected;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0600) {
		snprintf(why, whylen, "segment owned by uid %u with mode %04o, not ours", (unsigned)st.st_uid,
		         (unsigned)(st.st_mode & 07777));
		goto rejected;
	}
	if ((size_t)st.st_size < need) {
		/* The worker sizes the segment right after creating it: give it time. */
		snprintf(why, whylen, "segment too small (%lld bytes)", (long long)st.st_size);
		close(fd);
		return GD_OPEN_NOTYET;
	}
	void *base = mmap(NULL, need, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		goto rejected;
	}
	close(fd); /* the mapping stays: a worker costs the reader no descriptor */
	r->base = base;
	r->size = need;

	sigjmp_buf jb;
	if (sigsetjmp(jb, 1)) {
		bus_jmp = NULL;
		snprintf(why, whylen, "segment truncated while opening");
		reader_close(r);
		return GD_OPEN_REJECTED;
	}
	bus_jmp = &jb;
	const struct seg_header *h = hdr(r);
	uint32_t magic = LOAD(h->magic);
	uint32_t version = h->version, hsize = h->header_size, rsize = h->record_size;
	uint32_t cap = h->capacity, off = h->ring_offset;
	int32_t owner = h->pid;
	uint64_t g = h->generation;
	bus_jmp = NULL;

	if (magic == 0) {
		snprintf(why, whylen, "initialising");
		reader_close(r);
		return GD_OPEN_NOTYET;
	}
	if (magic != GD_SEG_MAGIC)
		snprintf(why, whylen, "bad magic 0x%08x", magic);
	else if (version != GD_SEG_VERSION)
		snprintf(why, whylen, "version %u, expected %u", version, GD_SEG_VERSION);
	else if (hsize != sizeof(struct seg_header) || rsize != sizeof(struct gd_rec) ||
	         cap != GD_RING_CAPACITY || off != GD_RING_OFFSET)
		snprintf(why, whylen, "unexpected layout (header %u, record %u, capacity %u, offset %u)",
		         hsize, rsize, cap, off);
	else if (owner != (int32_t)pid || g != gen)
		snprintf(why, whylen, "segment belongs to pid %d, not to worker %d", (int)owner, (int)pid);
	else {
		r->cap = cap;
		return GD_OPEN_OK;
	}
	reader_close(r);
	return GD_OPEN_REJECTED;

rejected:
	close(fd);
	return GD_OPEN_REJECTED;
}

/* Copies record i into out; false if it was overwritten, torn or inconsistent. */
static bool read_one(const struct gd_reader *r, uint64_t i, struct gd_rec *out)
{
	const uint64_t *src =
	    (const uint64_t *)(r->base + GD_RING_OFFSET + (i & (r->cap - 1)) * sizeof(*out));
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
	int n = 0;
	while (r->cursor < h && n < max) {
		if (read_one(r, r->cursor, &out[n]))
			n++;
		else
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
	const uint64_t *seq =
	    (const uint64_t *)(r->base + GD_RING_OFFSET + (h & (r->cap - 1)) * sizeof(struct gd_rec));
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
		dst[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	dst[i] = '\0';
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
	const struct seg_header *h = hdr(r);
	uint32_t st = LOAD(h->state), tb = LOAD(h->timebase);
	v->state = st < GD_ST_STALLED ? (enum gd_state)st : GD_ST_FAILED;
	v->timebase = tb < GD_TB_COUNT ? (enum gd_timebase)tb : GD_TB_NONE;
	int64_t hb = LOAD(h->heartbeat_ns);
	v->heartbeat_ns = hb > 0 ? hb : 0; /* the supervisor subtracts it from now: keep it sane */
	v->batches = LOAD(h->batches);
	v->items = LOAD(h->items);
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

/* ---- names ---- */

void seg_name(char *buf, size_t n, pid_t supervisor, unsigned id, uint64_t gen)
{
	snprintf(buf, n, "/" GD_SEG_PREFIX "%u.%d.%u.%016llx", (unsigned)geteuid(), (int)supervisor, id,
	         (unsigned long long)gen);
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

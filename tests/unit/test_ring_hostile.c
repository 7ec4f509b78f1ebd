/* test_ring_hostile.c: the reader against broken and hostile segments: bad headers, wild heads,
 * inconsistent and torn records, truncation under the mapping, foreign owners and modes,
 * pre-created names, FIFOs and other non-files at a name (never waited on), attached readers
 * holding no descriptor, and a live process flipping random bytes while the reader polls. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gputop/common.h"
#include "ring/reader.h"
#include "ring/writer.h"
#include "measure/stats.h"
#include "tap.h"

#define SEG_SIZE (GD_RING_OFFSET + (size_t)GD_RING_CAPACITY * sizeof(struct gd_rec))
#define NOBODY   65534

/* The version-1 header as wire.h lays it out. A hostile writer knows it too; test_layout()
 * checks the mirror against a real segment so a change in wire.h cannot pass unnoticed. */
struct hdr_v1 {
	uint32_t magic, version, header_size, record_size, capacity, ring_offset;
	int32_t pid;
	uint32_t id;
	uint64_t generation;
	uint32_t dtype_bytes, state, timebase;
	int64_t heartbeat_ns;
	uint64_t batches, items, kernels, head;
	char device[GD_DEV_LEN];
	char error[GD_ERR_LEN];
};

static char names[32][96];
static int nnames;

/* A fresh name outside the tool's prefix, so no sweep of a running instance touches it. */
static const char *new_name(void)
{
	char *n = names[nnames % 32];
	snprintf(n, sizeof(names[0]), "/gputop-decode-hostile.%d.%d", (int)getpid(), nnames++);
	shm_unlink(n);
	return n;
}

static void unlink_all(void)
{
	for (int i = 0; i < nnames && i < 32; i++)
		shm_unlink(names[i]);
}

static struct gd_seg *make_seg(const char *name, uint64_t gen)
{
	struct gd_seg_info info = { .generation = gen, .id = 1, .dtype_bytes = 8 };
	strcpy(info.device, "hostile-test");
	char err[256];
	struct gd_seg *s = seg_create(name, &info, err, sizeof(err));
	if (!s)
		printf("# seg_create: %s\n", err);
	return s;
}

/* A second, writable view of the segment: what a hostile or buggy writer holds. */
static unsigned char *map_rw(const char *name)
{
	int fd = shm_open(name, O_RDWR, 0);
	if (fd < 0)
		return NULL;
	void *p = mmap(NULL, SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static struct gd_rec good_rec(uint64_t i)
{
	struct gd_rec r;
	memset(&r, 0, sizeof(r));
	int64_t t = 1000000000 + (int64_t)i * 1000000;
	r.batch = i;
	r.items = 1000;
	r.kernels = 2;
	r.nkiv = 2;
	r.flags = GD_REC_DEVTIME;
	r.t_begin = t;
	r.t_gen = t + 100000;
	r.t_end = t + 900000;
	r.h2d[0] = t + 101000;
	r.h2d[1] = t + 120000;
	r.kbase = t + 130000;
	r.kiv[0][1] = 100000;
	r.kiv[1][0] = 110000;
	r.kiv[1][1] = 200000;
	r.d2h[0] = t + 340000;
	r.d2h[1] = t + 380000;
	r.kbusy_ns = 190000;
	r.kgap_ns = 10000;
	return r;
}

static enum gd_open_result try_open(struct gd_reader *rd, const char *name, uint64_t gen, char *why)
{
	return reader_open(rd, name, getpid(), gen, why, 160);
}

/* A valid segment with n records, and a writable view of it. */
static struct gd_seg *setup(const char **name, uint64_t gen, int n, unsigned char **rw)
{
	*name = new_name();
	struct gd_seg *s = make_seg(*name, gen);
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		struct gd_rec r = good_rec((uint64_t)i);
		seg_publish(s, &r);
	}
	*rw = map_rw(*name);
	return s;
}

static void teardown(struct gd_seg *s, unsigned char *rw)
{
	if (rw)
		munmap(rw, SEG_SIZE);
	seg_close(s, true);
}

static void test_layout(void)
{
	const char *name;
	unsigned char *rw;
	struct gd_seg *s = setup(&name, 0x1234, 3, &rw);
	if (!tap_ok(s && rw, "a valid segment is created and mapped writable"))
		exit(tap_done());
	const struct hdr_v1 *h = (const struct hdr_v1 *)rw;
	tap_ok(h->magic == GD_SEG_MAGIC && h->version == GD_SEG_VERSION && h->pid == getpid() &&
	           h->generation == 0x1234 && h->head == 3 && h->capacity == GD_RING_CAPACITY &&
	           h->ring_offset == GD_RING_OFFSET && h->record_size == sizeof(struct gd_rec),
	       "the test's mirror of the header matches wire.h's layout");
	struct stat st;
	int fd = shm_open(name, O_RDONLY, 0);
	tap_ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600,
	       "a segment is created with mode 0600 exactly");
	if (fd >= 0)
		close(fd);
	teardown(s, rw);
}

/* One header corruption: a field set to a value, and what the reader must answer. */
struct hdr_case {
	const char *what;
	size_t off, len;
	uint64_t value;
	enum gd_open_result want;
	const char *why; /* a word the reason must contain */
};

#define F(field) offsetof(struct hdr_v1, field), sizeof(((struct hdr_v1 *)0)->field)

static const struct hdr_case hdr_cases[] = {
	{ "bad magic", F(magic), 0xdeadbeef, GD_OPEN_REJECTED, "magic" },
	{ "magic 0 (initialising)", F(magic), 0, GD_OPEN_NOTYET, "initialising" },
	{ "wrong version", F(version), GD_SEG_VERSION + 1, GD_OPEN_REJECTED, "version" },
	{ "version 0", F(version), 0, GD_OPEN_REJECTED, "version" },
	{ "capacity 0", F(capacity), 0, GD_OPEN_REJECTED, "layout" },
	{ "capacity not a power of two", F(capacity), 1000, GD_OPEN_REJECTED, "layout" },
	{ "capacity 2^31", F(capacity), 1u << 31, GD_OPEN_REJECTED, "layout" },
	{ "capacity UINT32_MAX", F(capacity), UINT32_MAX, GD_OPEN_REJECTED, "layout" },
	{ "capacity larger than the segment", F(capacity), 2 * GD_RING_CAPACITY, GD_OPEN_REJECTED, "layout" },
	{ "ring offset 0 (over the header)", F(ring_offset), 0, GD_OPEN_REJECTED, "layout" },
	{ "ring offset past the end", F(ring_offset), UINT32_MAX, GD_OPEN_REJECTED, "layout" },
	{ "ring offset unaligned", F(ring_offset), GD_RING_OFFSET + 1, GD_OPEN_REJECTED, "layout" },
	{ "record size 8", F(record_size), 8, GD_OPEN_REJECTED, "layout" },
	{ "record size huge", F(record_size), 1u << 30, GD_OPEN_REJECTED, "layout" },
	{ "header size 0", F(header_size), 0, GD_OPEN_REJECTED, "layout" },
	{ "another pid", F(pid), 1, GD_OPEN_REJECTED, "pid" },
	{ "negative pid", F(pid), (uint32_t)-5, GD_OPEN_REJECTED, "pid" },
	{ "another generation", F(generation), 0x1235, GD_OPEN_REJECTED, "pid" },
};

static void put_field(unsigned char *p, size_t len, uint64_t v)
{
	if (len == 4) {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, 4);
	} else {
		memcpy(p, &v, 8);
	}
}

static void test_headers(void)
{
	for (size_t i = 0; i < GD_ARRAY_LEN(hdr_cases); i++) {
		const struct hdr_case *c = &hdr_cases[i];
		const char *name;
		unsigned char *rw;
		struct gd_seg *s = setup(&name, 0x1234, 5, &rw);
		if (!s || !rw) {
			tap_ok(0, "%s: set-up", c->what);
			continue;
		}
		put_field(rw + c->off, c->len, c->value);
		struct gd_reader rd;
		char why[160] = "";
		enum gd_open_result got = try_open(&rd, name, 0x1234, why);
		tap_ok(got == c->want && strstr(why, c->why), "%s: %s (%s)", c->what,
		       c->want == GD_OPEN_NOTYET ? "not yet" : "rejected", why);
		if (got == GD_OPEN_OK)
			reader_close(&rd);
		tap_ok(rd.base == NULL, "%s: nothing stays mapped", c->what);
		teardown(s, rw);
	}
}

/* A segment smaller than the layout is "not yet" (its worker may be sizing it), never read. */
static void test_short(void)
{
	static const off_t sizes[] = { 0, 100, GD_RING_OFFSET, (off_t)SEG_SIZE - 1 };
	for (size_t i = 0; i < GD_ARRAY_LEN(sizes); i++) {
		const char *name = new_name();
		int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
		int ok = fd >= 0 && ftruncate(fd, sizes[i]) == 0;
		struct gd_reader rd;
		char why[160] = "";
		ok = ok && try_open(&rd, name, 1, why) == GD_OPEN_NOTYET && rd.base == NULL;
		tap_ok(ok, "a segment of %lld bytes is not attached (%s)", (long long)sizes[i], why);
		if (fd >= 0)
			close(fd);
		shm_unlink(name);
	}
}

/* A name that exists before the worker creates it: the worker's O_EXCL create fails and the
 * reader never attaches to what is there, whatever its owner and mode. */
static void test_precreated(mode_t mode, uid_t owner)
{
	const char *name = new_name();
	int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	int ok = fd >= 0 && fchmod(fd, mode) == 0 && ftruncate(fd, (off_t)SEG_SIZE) == 0;
	if (owner != geteuid())
		ok = ok && fchown(fd, owner, (gid_t)-1) == 0;
	if (!tap_ok(ok, "pre-create %s with mode %04o, uid %u", name, (unsigned)mode, (unsigned)owner))
		return;
	/* A plausible header: right magic, version, layout and pid, but an earlier generation. */
	unsigned char *p = mmap(NULL, SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct hdr_v1 h = { .magic = GD_SEG_MAGIC,
		            .version = GD_SEG_VERSION,
		            .header_size = sizeof(struct hdr_v1),
		            .record_size = sizeof(struct gd_rec),
		            .capacity = GD_RING_CAPACITY,
		            .ring_offset = GD_RING_OFFSET,
		            .pid = (int32_t)getpid(),
		            .id = 1,
		            .generation = 0x76,
		            .dtype_bytes = 8 };
	if (p != MAP_FAILED) {
		memcpy(p, &h, sizeof(h));
		munmap(p, SEG_SIZE);
	}
	char err[256] = "";
	struct gd_seg_info info = { .generation = 0x77, .id = 1, .dtype_bytes = 8 };
	struct gd_seg *s = seg_create(name, &info, err, sizeof(err));
	tap_ok(!s && strstr(err, strerror(EEXIST)), "the worker's O_EXCL create fails: %s", err);
	seg_close(s, false);
	struct gd_reader rd;
	char why[160] = "";
	tap_ok(try_open(&rd, name, 0x77, why) == GD_OPEN_REJECTED && rd.base == NULL,
	       "the reader rejects it: %s", why);
	struct stat st;
	tap_ok(fstat(fd, &st) == 0 && st.st_nlink > 0 && st.st_size == (off_t)SEG_SIZE,
	       "the failed create left the other segment alone");
	close(fd);
	shm_unlink(name);
}

/* The reader must never block on what another user can put at a name: a FIFO, a directory,
 * a socket, a symbolic link to a FIFO. A guard alarm turns a regression into a failure. */
static const char *guarded;
static char guarded_path[128];

static void on_alarm(int sig)
{
	(void)sig;
	char msg[200];
	int n =
	    snprintf(msg, sizeof(msg), "not ok %d - reader_open blocked for 5 s on %s\n", tap_n + 1, guarded);
	unlink(guarded_path);
	if (write(STDOUT_FILENO, msg, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_not_regular(const char *what, int (*make)(const char *path), uid_t owner)
{
	const char *name = new_name();
	char path[128];
	snprintf(path, sizeof(path), "/dev/shm%s", name);
	if (!tap_ok(make(path) == 0 && (owner == geteuid() || lchown(path, owner, (gid_t)-1) == 0),
	            "%s at a segment's name (uid %u)", what, (unsigned)owner))
		return;
	guarded = what;
	str_copy(guarded_path, sizeof(guarded_path), path);
	signal(SIGALRM, on_alarm);
	alarm(5);
	int fds = count_fds();
	struct gd_reader rd;
	char why[160] = "";
	enum gd_open_result got = try_open(&rd, name, 1, why);
	alarm(0);
	tap_ok(got == GD_OPEN_REJECTED && rd.base == NULL && count_fds() == fds,
	       "%s: rejected at once, nothing left open (%s)", what, why);
	char err[256] = "";
	struct gd_seg_info info = { .generation = 1, .id = 1, .dtype_bytes = 8 };
	struct gd_seg *s = seg_create(name, &info, err, sizeof(err));
	tap_ok(!s && strstr(err, strerror(EEXIST)), "%s: a worker's create fails: %s", what, err);
	seg_close(s, false);
	if (unlink(path) != 0)
		rmdir(path);
	char fifo[160]; /* what a link pointed at */
	snprintf(fifo, sizeof(fifo), "%.120s.fifo", path);
	unlink(fifo);
}

static int make_fifo(const char *path)
{
	return mkfifo(path, 0600);
}

static int make_fifo_open(const char *path)
{
	return mkfifo(path, 0666) == 0 ? chmod(path, 0666) : -1;
}

static int make_dir(const char *path)
{
	return mkdir(path, 0600);
}

static int make_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	str_copy(a.sun_path, sizeof(a.sun_path), path);
	int rc =
	    fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && chmod(path, 0600) == 0 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return rc;
}

static int make_link_to_fifo(const char *path)
{
	char fifo[160];
	snprintf(fifo, sizeof(fifo), "%.120s.fifo", path);
	return mkfifo(fifo, 0600) == 0 && symlink(fifo, path) == 0 ? 0 : -1;
}

static void test_blocking_names(void)
{
	test_not_regular("a FIFO of mode 0600", make_fifo, geteuid());
	test_not_regular("a FIFO of mode 0666", make_fifo_open, geteuid());
	if (geteuid() == 0)
		test_not_regular("another uid's FIFO", make_fifo_open, NOBODY);
	else
		printf("ok %d # skip another uid's FIFO needs root to chown\n", ++tap_n);
	test_not_regular("a directory", make_dir, geteuid());
	test_not_regular("a socket", make_socket, geteuid());
	test_not_regular("a symbolic link to a FIFO", make_link_to_fifo, geteuid());
}

/* A supervisor attached to many workers must not run out of descriptors: the reader keeps the
 * mapping only. */
static void test_no_descriptor(void)
{
	enum { N = 24 };
	struct gd_seg *segs[N];
	struct gd_reader rd[N];
	const char *nm[N];
	int before = count_fds(), attached = 0;
	for (int i = 0; i < N; i++) {
		char why[160];
		nm[i] = new_name();
		segs[i] = make_seg(nm[i], 40 + (uint64_t)i);
		attached += segs[i] && try_open(&rd[i], nm[i], 40 + (uint64_t)i, why) == GD_OPEN_OK;
	}
	int fds = count_fds(); /* each writer holds one: those are the workers' */
	tap_ok(attached == N && fds == before + N,
	       "%d readers attached hold no descriptor (%d more, all writers')", attached, fds - before);
	for (int i = 0; i < N; i++) {
		if (i < attached)
			reader_close(&rd[i]);
		seg_close(segs[i], true);
	}
	tap_ok(count_fds() == before, "closing them leaves the count where it was");
}

static void test_names(void)
{
	test_precreated(0666, geteuid());
	test_precreated(0644, geteuid());
	test_precreated(0600, geteuid()); /* same uid and mode: the header does not match */
	if (geteuid() == 0) {
		test_precreated(0600, NOBODY);
	} else {
		printf("ok %d # skip another uid's segment needs root to fchown\n", ++tap_n);
	}
	/* A symbolic link in place of the segment is never followed. */
	const char *name = new_name();
	char path[128];
	snprintf(path, sizeof(path), "/dev/shm%s", name);
	int ok = symlink("/etc/passwd", path) == 0;
	struct gd_reader rd;
	char why[160] = "";
	ok = ok && try_open(&rd, name, 1, why) == GD_OPEN_REJECTED;
	tap_ok(ok, "a symbolic link in place of a segment is rejected (%s)", why);
	unlink(path);
}

/* A valid segment made by our writer, then chown'ed away: another uid's segment. */
static void test_foreign_owner(void)
{
	if (geteuid() != 0) {
		printf("ok %d # skip fchown to another uid needs root\n", ++tap_n);
		return;
	}
	const char *name;
	unsigned char *rw;
	struct gd_seg *s = setup(&name, 0x99, 4, &rw);
	int fd = shm_open(name, O_RDWR, 0);
	int ok = s && fd >= 0 && fchown(fd, NOBODY, NOBODY) == 0;
	struct gd_reader rd;
	char why[160] = "";
	ok = ok && try_open(&rd, name, 0x99, why) == GD_OPEN_REJECTED && strstr(why, "uid");
	tap_ok(ok, "a valid segment owned by uid %d is rejected: %s", NOBODY, why);
	if (fd >= 0)
		close(fd);
	teardown(s, rw);
}

/* One corruption of an otherwise valid record, which the writer publishes as it is. */
struct rec_case {
	const char *what;
	size_t off, len;
	bool add; /* add value to the field instead of setting it */
	int64_t value;
};

#define R(field) offsetof(struct gd_rec, field), sizeof(((struct gd_rec *)0)->field)
#define DAY_NS   (86400 * GD_NS_PER_S)

static const struct rec_case rec_cases[] = {
	{ "batch ends before it starts", R(t_end), true, -1000000 },
	{ "generation ends before it starts", R(t_gen), true, -200000 },
	{ "start time 0", R(t_begin), false, 0 },
	{ "negative start time", R(t_begin), false, -5 },
	{ "start time INT64_MAX", R(t_begin), false, INT64_MAX },
	{ "a batch of 100 days", R(t_end), true, 100 * DAY_NS },
	{ "host-to-device copy ends before it starts", R(h2d[1]), true, -30000 },
	{ "device-to-host copy ends before it starts", R(d2h[1]), true, -50000 },
	{ "copy start at INT64_MIN", R(h2d[0]), false, INT64_MIN },
	{ "copy end at INT64_MAX", R(d2h[1]), false, INT64_MAX },
	{ "kernel base 2^62", R(kbase), false, (int64_t)1 << 62 },
	{ "kernel base negative", R(kbase), false, -1 },
	{ "kernel interval ends before it starts", R(kiv[1][1]), false, 5 },
	{ "more kernel intervals than a record holds", R(nkiv), false, GD_REC_KMAX + 1 },
	{ "nkiv UINT32_MAX", R(nkiv), false, UINT32_MAX },
	{ "zero symbols", R(items), false, 0 },
	{ "more launches than a record holds", R(kernels), false, GD_REC_LAUNCHES_MAX + 1 },
	{ "launches UINT32_MAX", R(kernels), false, UINT32_MAX },
	{ "copy ends before it starts", R(copy[1]), true, -1 },
	{ "negative copy time", R(copy_ns), false, -1 },
	{ "the reserved word set", R(reserved), false, 1 },
	{ "negative kernel busy time", R(kbusy_ns), false, -1 },
	{ "kernel busy time INT64_MAX", R(kbusy_ns), false, INT64_MAX },
	{ "kernel gap INT64_MIN", R(kgap_ns), false, INT64_MIN },
	{ "kernel offsets in units of 2^17 ns", R(flags), false, GD_REC_DEVTIME | (17u << GD_REC_SHIFT_BIT) },
	{ "kernel offsets in units of 2^31 ns", R(flags), false, GD_REC_DEVTIME | GD_REC_SHIFT },
	{ "an unknown flag", R(flags), false, GD_REC_DEVTIME | (1u << 30) },
	{ "a generation thread beyond 64", R(flags), false, GD_REC_DEVTIME | (65u << GD_REC_GEN_BIT) },
	{ "a lane beyond --queues' 16", R(flags), false, GD_REC_DEVTIME | (16u << GD_REC_LANE_BIT) },
};

static void spoil(struct gd_rec *r, const struct rec_case *c)
{
	unsigned char *p = (unsigned char *)r + c->off;
	if (c->len == 4) {
		uint32_t x;
		memcpy(&x, p, 4);
		x = c->add ? x + (uint32_t)c->value : (uint32_t)c->value;
		memcpy(p, &x, 4);
	} else {
		int64_t x;
		memcpy(&x, p, 8);
		x = c->add ? x + c->value : c->value;
		memcpy(p, &x, 8);
	}
}

static void test_records(void)
{
	for (size_t k = 0; k < GD_ARRAY_LEN(rec_cases); k++) {
		const struct rec_case *c = &rec_cases[k];
		const char *name = new_name();
		struct gd_seg *s = make_seg(name, 5);
		struct gd_reader rd;
		char why[160];
		if (!s || try_open(&rd, name, 5, why) != GD_OPEN_OK) {
			tap_ok(0, "%s: set-up (%s)", c->what, why);
			seg_close(s, true);
			continue;
		}
		struct gd_rec r[3] = { good_rec(0), good_rec(1), good_rec(2) }, out[8];
		spoil(&r[1], c);
		for (int i = 0; i < 3; i++)
			seg_publish(s, &r[i]);
		int n = reader_poll(&rd, out, 8);
		tap_ok(n == 2 && out[0].batch == 0 && out[1].batch == 2 && rd.lost == 1,
		       "%s: rejected and counted lost; its neighbours are read", c->what);
		reader_close(&rd);
		seg_close(s, true);
	}
}

/* A reader attached to a fresh segment holding n valid records. */
static struct gd_seg *attached(const char **name, int n, unsigned char **rw, struct gd_reader *rd)
{
	char why[160];
	struct gd_seg *s = setup(name, 9, n, rw);
	if (s && *rw && try_open(rd, *name, 9, why) == GD_OPEN_OK)
		return s;
	printf("# set-up failed: %s\n", s ? why : "seg_create");
	exit(tap_done() | 1);
}

static void set_head(unsigned char *rw, uint64_t h)
{
	__atomic_store_n(&((struct hdr_v1 *)rw)->head, h, __ATOMIC_RELEASE);
}

static void test_head_backwards(void)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, 10, &rw, &rd);
	static struct gd_rec out[GD_RING_CAPACITY];
	int n = reader_poll(&rd, out, GD_RING_CAPACITY);
	TAP_EQ_U(n, 10, "10 valid records are read");
	set_head(rw, 4);
	n = reader_poll(&rd, out, GD_RING_CAPACITY);
	tap_ok(n == 0 && rd.lost == 1, "a head that goes back from 10 to 4 is counted once, nothing re-read");
	struct gd_rec r = good_rec(100); /* the writer carries on from the head it finds */
	seg_publish(s, &r);
	n = reader_poll(&rd, out, GD_RING_CAPACITY);
	tap_ok(n == 1 && out[0].batch == 100, "the next record published after it is read, once");
	reader_close(&rd);
	teardown(s, rw);
}

static void test_head_wild(uint64_t head, uint64_t want_lost, const char *what)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, 10, &rw, &rd);
	static struct gd_rec out[GD_RING_CAPACITY];
	int n = reader_poll(&rd, out, GD_RING_CAPACITY);
	set_head(rw, head);
	int n1 = reader_poll(&rd, out, GD_RING_CAPACITY);
	uint64_t lost1 = rd.lost;
	int n2 = reader_poll(&rd, out, GD_RING_CAPACITY);
	tap_ok(n == 10 && n1 == 0 && n2 == 0 && lost1 == want_lost && rd.lost == lost1,
	       "head %s: no record accepted, %llu counted lost once (got %d, %d, lost %llu)", what,
	       (unsigned long long)want_lost, n1, n2, (unsigned long long)rd.lost);
	struct gd_seg_view v;
	tap_ok(reader_view(&rd, &v) && v.state == GD_ST_STARTING, "head %s: the header is still viewable",
	       what);
	reader_close(&rd);
	teardown(s, rw);
}

static void test_heads(void)
{
	test_head_backwards();
	/* Claimed but unreadable: the overrun beyond one ring plus every slot looked at. */
	test_head_wild(5010, 5000, "leaping to 5010");
	test_head_wild((uint64_t)1 << 40, 1 + GD_RING_CAPACITY, "leaping to 2^40");
	test_head_wild(UINT64_MAX, 1 + GD_RING_CAPACITY, "at UINT64_MAX");
}

static uint64_t *seq_of(unsigned char *rw, uint64_t i)
{
	return (uint64_t *)(rw + GD_RING_OFFSET + (i % GD_RING_CAPACITY) * sizeof(struct gd_rec));
}

/* A record whose sequence word says "being written" or "another lap" is lost, not read. */
static void test_torn(void)
{
	static const struct {
		const char *what;
		uint64_t seq;
	} cases[] = {
		{ "torn (odd sequence: the writer died mid-publish)", 2 * 1 + 1 },
		{ "from a later lap", 2 * (1 + GD_RING_CAPACITY) + 2 },
		{ "never written (sequence 0)", 0 },
		{ "sequence UINT64_MAX", UINT64_MAX },
	};
	for (size_t k = 0; k < GD_ARRAY_LEN(cases); k++) {
		const char *name;
		unsigned char *rw;
		struct gd_reader rd;
		struct gd_seg *s = attached(&name, 3, &rw, &rd);
		*seq_of(rw, 1) = cases[k].seq;
		struct gd_rec out[4];
		int n = reader_poll(&rd, out, 4);
		tap_ok(n == 2 && out[0].batch == 0 && out[1].batch == 2 && rd.lost == 1,
		       "a record %s is lost", cases[k].what);
		reader_close(&rd);
		teardown(s, rw);
	}
}

/* A writer killed mid-publish leaves "being written" in the slot at head: lost, once. */
static void test_died(uint64_t seq_at_head, bool read_first, uint64_t want, const char *what)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, 3, &rw, &rd);
	struct gd_rec out[4];
	int n = read_first ? reader_poll(&rd, out, 4) : 0;
	*seq_of(rw, 3) = seq_at_head;
	reader_writer_died(&rd);
	reader_writer_died(&rd);
	tap_ok(rd.lost == want && n == (read_first ? 3 : 0), "writer died %s: %llu lost", what,
	       (unsigned long long)want);
	reader_close(&rd);
	teardown(s, rw);
}

/* Truncated under the reader's mapping: the SIGBUS is caught and the read reports failure. */
static void test_truncated(off_t to)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, GD_RING_CAPACITY, &rw, &rd);
	int fd = shm_open(name, O_RDWR, 0);
	int ok = fd >= 0 && ftruncate(fd, to) == 0;
	static struct gd_rec out[GD_RING_CAPACITY];
	struct gd_seg_view v;
	int n = reader_poll(&rd, out, GD_RING_CAPACITY);
	bool viewed = reader_view(&rd, &v);
	tap_ok(ok && n == -1, "truncated to %lld bytes while mapped: the poll reports failure (%d)",
	       (long long)to, n);
	if (to == 0)
		tap_ok(!viewed, "truncated to 0 bytes: the view reports failure too");
	reader_close(&rd);
	tap_ok(rd.base == NULL, "the reader closes it and the process lives on");
	if (fd >= 0)
		close(fd);
	munmap(rw, SEG_SIZE); /* the writer's view is past the end too: never touch it again */
	rw = NULL;
	teardown(s, rw);
}

static void test_view(void)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, 1, &rw, &rd);
	struct hdr_v1 *h = (struct hdr_v1 *)rw;
	h->state = GD_ST_FAILED;
	h->timebase = 77;
	h->heartbeat_ns = INT64_MIN;
	memset(h->error, 0xff, sizeof(h->error)); /* not text, and no terminating NUL */
	struct gd_seg_view v;
	bool ok = reader_view(&rd, &v);
	size_t el = strnlen(v.error, sizeof(v.error));
	bool printable = true;
	for (size_t i = 0; i < el; i++)
		printable = printable && v.error[i] >= 0x20 && v.error[i] < 0x7f;
	tap_ok(ok && el < sizeof(v.error) && printable,
	       "unterminated, unprintable error text comes out terminated and printable");
	tap_ok(v.timebase == GD_TB_NONE && v.heartbeat_ns >= 0,
	       "an unknown timebase reads as none, a negative heartbeat as 0");
	static const uint32_t states[] = { GD_ST_STALLED, GD_ST_COUNT, 999, UINT32_MAX };
	bool all_failed = true;
	for (size_t i = 0; i < GD_ARRAY_LEN(states); i++) {
		h->state = states[i];
		all_failed = all_failed && reader_view(&rd, &v) && v.state == GD_ST_FAILED;
	}
	tap_ok(all_failed, "a state the writer may not publish reads as failed");
	reader_close(&rd);
	teardown(s, rw);
}

/* The header's totals in the view, in the reader's order (GD_HDR_TOTALS). */
static void view_totals(const struct gd_seg_view *v, uint64_t out[GD_HDR_TOTALS])
{
	const uint64_t t[GD_HDR_TOTALS] = { v->batches,       v->items,         v->kernels,
		                            v->obs.h2d_bytes, v->obs.d2h_bytes, v->obs.h2d_count,
		                            v->obs.d2h_count, v->obs.waits };
	memcpy(out, t, sizeof(t));
}

/* What the view has shown so far: every total never below the one before nor above its bound. */
struct totals_seen {
	uint64_t prev[GD_HDR_TOTALS];
	int views, steady;
};

/* Views the header and checks its totals against the ones before and the bounds, with recs the
 * records that account for them (read, lost, unread, and a ring's worth under way). */
static struct gd_seg_view view_checked(struct gd_reader *rd, struct totals_seen *seen, uint64_t recs)
{
	struct gd_seg_view v;
	memset(&v, 0, sizeof(v));
	uint64_t t[GD_HDR_TOTALS];
	bool ok = reader_view(rd, &v);
	view_totals(&v, t);
	const uint64_t cmds = (uint64_t)1 << 40;
	const uint64_t bound[GD_HDR_TOTALS] = {
		recs, recs << 48, recs << 32, (t[5] + 1) << 40, (t[6] + 1) << 40, cmds, cmds, cmds
	};
	bool steady = ok;
	for (int i = 0; i < GD_HDR_TOTALS; i++)
		steady = steady && t[i] >= seen->prev[i] && t[i] <= bound[i];
	memcpy(seen->prev, t, sizeof(t));
	seen->views++;
	seen->steady += steady;
	return v;
}

/* Totals an observed program's header claims: never shown beyond what its records can account
 * for, never going backwards; each refused value counted once, as rejected and as lost. */
static void test_totals(void)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, 5, &rw, &rd);
	struct gd_seg_header *h = (struct gd_seg_header *)rw;
	struct gd_rec out[8];
	int n = reader_poll(&rd, out, 8);
	uint64_t recs = 5 + GD_RING_CAPACITY; /* read, plus a ring's worth under way */
	struct totals_seen seen = { { 0 }, 0, 0 };

	/* A worker's own: its totals equal its records'. */
	seg_add_totals(s, 5, 5000, 10);
	struct gd_seg_view v = view_checked(&rd, &seen, recs);
	tap_ok(n == 5 && v.batches == 5 && v.items == 5000 && v.kernels == 10 && rd.rejected == 0 &&
	           rd.lost == 0,
	       "a worker's totals, equal to its records', are shown as they are");

	/* Every total UINT64_MAX: none shown, each counted once however often it is viewed. */
	h->batches = h->items = h->kernels = UINT64_MAX;
	h->obs = (struct gd_obs_totals){ UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
		                         UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	for (int i = 0; i < 3; i++)
		v = view_checked(&rd, &seen, recs);
	tap_ok(v.batches == 5 && v.items == 5000 && v.kernels == 10 && v.obs.waits == 0 &&
	           v.obs.h2d_bytes == 0,
	       "UINT64_MAX totals: the ones shown before stay");
	tap_ok(rd.rejected == GD_HDR_TOTALS && rd.lost == GD_HDR_TOTALS,
	       "each refused total counted once, as rejected and as lost (%llu)",
	       (unsigned long long)rd.rejected);

	/* Batches alternating between UINT64_MAX and a true value: never shown, counted each time. */
	h->batches = 5, h->items = 5000, h->kernels = 10;
	h->obs = (struct gd_obs_totals){ 0 };
	view_checked(&rd, &seen, recs);
	uint64_t before = rd.rejected, shown = 0;
	for (int i = 0; i < 6; i++) {
		h->batches = i % 2 ? 5 : UINT64_MAX;
		shown += view_checked(&rd, &seen, recs).batches == 5;
	}
	tap_ok(shown == 6 && rd.rejected == before + 3,
	       "batches alternating with UINT64_MAX: 5 throughout, 3 refusals");

	/* Going backwards: refused. */
	h->batches = 4, h->items = 4999;
	v = view_checked(&rd, &seen, recs);
	tap_ok(v.batches == 5 && v.items == 5000 && rd.rejected == before + 5,
	       "totals going backwards: refused");

	/* The bounds themselves: a ring's worth of batches beyond the records read, no more. */
	h->batches = recs + 1;
	uint64_t over = view_checked(&rd, &seen, recs).batches;
	h->batches = recs;
	uint64_t at = view_checked(&rd, &seen, recs).batches;
	h->batches = recs - 1;
	uint64_t back = view_checked(&rd, &seen, recs).batches;
	tap_ok(over == 5 && at == recs && back == recs, "batches: %llu refused, %llu shown, then never less",
	       (unsigned long long)(recs + 1), (unsigned long long)recs);
	h->obs.h2d_count = 3;
	h->obs.h2d_bytes = ((uint64_t)4 << 40) + 1;
	h->obs.waits = ((uint64_t)1 << 40) + 1;
	v = view_checked(&rd, &seen, recs);
	h->obs.h2d_bytes = (uint64_t)4 << 40;
	uint64_t bytes = view_checked(&rd, &seen, recs).obs.h2d_bytes;
	tap_ok(v.obs.h2d_count == 3 && v.obs.h2d_bytes == 0 && v.obs.waits == 0 && bytes == (uint64_t)4 << 40,
	       "transfers: at most 2^40 bytes each (and the one under way), at most 2^40 commands");

	/* Records published but not read yet count, as the poll will read or lose them. */
	for (int i = 5; i < 2000; i++) {
		struct gd_rec r = good_rec((uint64_t)i);
		seg_publish(s, &r);
	}
	h->batches = 2000;
	tap_ok(view_checked(&rd, &seen, 2000 + GD_RING_CAPACITY).batches == 2000,
	       "batches published but not read yet are accounted for");
	tap_ok(seen.steady == seen.views, "in all %d views no total went backwards or past its bound",
	       seen.views);
	reader_close(&rd);
	teardown(s, rw);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The child: keeps publishing valid records while flipping random bytes of the header and
 * the ring, now and then writing a random head, for ms milliseconds. */
static void flipper(struct gd_seg *s, unsigned char *rw, int ms)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	for (uint64_t i = 0; now_ns() < end; i++) {
		struct gd_rec r = good_rec(i);
		seg_publish(s, &r);
		uint64_t v = xorshift(&x);
		size_t at = v & 1 ? (v >> 8) % sizeof(struct hdr_v1)
		                  : GD_RING_OFFSET + (v >> 8) % (SEG_SIZE - GD_RING_OFFSET);
		__atomic_fetch_xor(&rw[at], (unsigned char)(1u << (v >> 4 & 7)), __ATOMIC_RELAXED);
		if ((v & 0x3f0) == 0)
			set_head(rw, (v & 0x400) ? xorshift(&x) : xorshift(&x) & 0xffff);
		if (i % 16 == 0)
			sleep_ns(20000);
	}
	_exit(0);
}

/* What the supervisor does with the records it accepts: the statistics must stay defined
 * (UBSan watches every sum) whatever the bytes were. */
static void consume(const struct gd_rec *r, int n, int64_t *prev_kend, uint64_t *bad)
{
	struct gd_batch_acc acc;
	struct gd_breakdown bd;
	struct gd_iv *iv = NULL;
	size_t niv = 0, cap = 0;
	memset(&acc, 0, sizeof(acc));
	for (int i = 0; i < n; i++) {
		*bad += !gd_rec_valid(&r[i]) || r[i].t_end < r[i].t_begin;
		stats_batch_add(&acc, &r[i], *prev_kend);
		stats_rec_busy(&r[i], r[i].t_begin, r[i].t_end);
		stats_rec_intervals(&r[i], &iv, &niv, &cap);
		*prev_kend = gd_rec_kernel_end(&r[i]);
	}
	if (n > 0)
		stats_union(iv, niv, r[0].t_begin, r[n - 1].t_end);
	stats_breakdown(&acc, &bd);
	free(iv);
}

static void test_flipping(void)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, 0, &rw, &rd);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0)
		flipper(s, rw, 800);
	static struct gd_rec out[GD_RING_CAPACITY];
	uint64_t accepted = 0, bad = 0, polls = 0, views = 0, failed_polls = 0;
	int64_t prev_kend = 0;
	int status;
	while (waitpid(child, &status, WNOHANG) == 0) {
		int n = reader_poll(&rd, out, GD_RING_CAPACITY);
		failed_polls += n < 0;
		consume(out, n > 0 ? n : 0, &prev_kend, &bad);
		accepted += n > 0 ? (uint64_t)n : 0;
		struct gd_seg_view v;
		views += reader_view(&rd, &v) && (unsigned)v.state < GD_ST_COUNT;
		polls++;
		sleep_ns(200000);
	}
	printf("# %llu polls: %llu records accepted, %llu lost\n", (unsigned long long)polls,
	       (unsigned long long)accepted, (unsigned long long)rd.lost);
	tap_ok(WIFEXITED(status) && polls > 20 && failed_polls == 0 && views == polls,
	       "the reader polled and viewed throughout the flipping, without a failure");
	tap_ok(accepted > 100 && rd.lost > 0 && bad == 0,
	       "it accepted only valid records and counted the rest as lost");
	/* The flipping is over: the reader carries on with a clean writer. */
	reader_poll(&rd, out, GD_RING_CAPACITY);
	uint64_t lost = rd.lost;
	for (int i = 0; i < 10; i++) {
		struct gd_rec r = good_rec((uint64_t)i);
		seg_publish(s, &r);
	}
	int n = reader_poll(&rd, out, GD_RING_CAPACITY);
	tap_ok(n == 10 && rd.lost == lost, "after the flipping it reads the next 10 records, losing none");
	reader_close(&rd);
	teardown(s, rw);
}

/* Another process truncates and restores the segment again and again: each poll either
 * reads or reports failure; SIGBUS never ends the reader. */
static void test_truncate_race(void)
{
	const char *name;
	unsigned char *rw;
	struct gd_reader rd;
	struct gd_seg *s = attached(&name, GD_RING_CAPACITY, &rw, &rd);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		int fd = shm_open(name, O_RDWR, 0);
		for (int i = 0; i < 300 && fd >= 0; i++) {
			if (ftruncate(fd, i % 2 ? (off_t)SEG_SIZE : (off_t)(i % 7) * 4096) != 0)
				break;
			sleep_ns(300000);
		}
		_exit(0);
	}
	static struct gd_rec out[GD_RING_CAPACITY];
	uint64_t polls = 0, failed = 0;
	int status;
	while (waitpid(child, &status, WNOHANG) == 0) {
		struct gd_seg_view v;
		int n = reader_poll(&rd, out, GD_RING_CAPACITY);
		failed += n < 0 || !reader_view(&rd, &v);
		rd.cursor = 0; /* read the whole ring again each time */
		polls++;
	}
	printf("# %llu polls, %llu met a truncated segment\n", (unsigned long long)polls,
	       (unsigned long long)failed);
	tap_ok(WIFEXITED(status) && polls > 0, "a reader racing truncations survives every SIGBUS");
	reader_close(&rd);
	munmap(rw, SEG_SIZE);
	seg_close(s, true);
}

int main(void)
{
	atexit(unlink_all);
	test_layout();
	test_headers();
	test_short();
	test_names();
	test_blocking_names();
	test_no_descriptor();
	test_foreign_owner();
	test_records();
	test_heads();
	test_torn();
	test_died(2 * 3 + 1, true, 1, "in the middle of publishing record 3");
	test_died(0, true, 0, "between records");
	test_died(2 * 3 + 1, false, 0, "before the reader caught up (the poll counts the rest)");
	test_truncated(0);
	test_truncated(GD_RING_OFFSET + 100 * (off_t)sizeof(struct gd_rec));
	test_view();
	test_totals();
	test_flipping();
	test_truncate_race();
	return tap_done();
}

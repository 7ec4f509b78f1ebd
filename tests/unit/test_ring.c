/* test_ring.c: the shared-memory ring: wrap-around, exact overrun accounting, torn records,
 * and a writer and a reader as threads on one mapping (run it under ThreadSanitizer too). */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gputop/common.h"
#include "ring/reader.h"
#include "ring/writer.h"
#include "tap.h"

static char name[96];

static struct gd_seg *make_seg(uint64_t gen)
{
	snprintf(name, sizeof(name), "/gputop-decode-test.%d.%llx", (int)getpid(), (unsigned long long)gen);
	struct gd_seg_info info = { .generation = gen, .id = 1, .dtype_bytes = 8 };
	strcpy(info.device, "test");
	char err[256];
	struct gd_seg *s = seg_create(name, &info, err, sizeof(err));
	if (!s)
		printf("# seg_create: %s\n", err);
	return s;
}

static void fill(struct gd_rec *r, uint64_t i)
{
	memset(r, 0, sizeof(*r));
	r->batch = i;
	r->items = 100;
	r->kernels = 2;
	r->nkiv = 2;
	r->t_begin = 1000 + (int64_t)i;
	r->t_gen = r->t_begin + 1;
	r->t_end = r->t_gen + 10;
	r->kbase = r->t_gen + 2;
	r->kiv[0][0] = 0;
	r->kiv[0][1] = 3;
	r->kiv[1][0] = 4;
	r->kiv[1][1] = (uint32_t)(5 + (i & 0xff));
}

static int open_reader(struct gd_reader *rd, uint64_t gen)
{
	char why[160];
	return reader_open(rd, name, getpid(), gen, why, sizeof(why)) == GD_OPEN_OK;
}

/* A segment of generation gen with a reader attached, or NULL (reported as a failed test,
 * with nothing left in /dev/shm). */
static struct gd_seg *attach(uint64_t gen, struct gd_reader *rd, const char *what)
{
	struct gd_seg *s = make_seg(gen);
	if (tap_ok(s && open_reader(rd, gen), "%s", what))
		return s;
	seg_close(s, true);
	return NULL;
}

static void test_wrap(void)
{
	struct gd_reader rd;
	struct gd_seg *s = attach(1, &rd, "writer creates, reader attaches");
	if (!s)
		return;
	static struct gd_rec out[GD_RING_CAPACITY];
	struct gd_rec r;
	const uint64_t total = 3000000; /* about 2900 trips around the ring */
	uint64_t got = 0, bad_order = 0, next = 0;
	for (uint64_t i = 0; i < total; i++) {
		fill(&r, i);
		seg_publish(s, &r);
		if (i % 700 == 699) {
			int n = reader_poll(&rd, out, (int)GD_ARRAY_LEN(out));
			for (int k = 0; k < n; k++)
				bad_order += out[k].batch != next++;
			got += (uint64_t)n;
		}
	}
	int n = reader_poll(&rd, out, (int)GD_ARRAY_LEN(out));
	got += (uint64_t)n;
	TAP_EQ_U(got, total, "every record of %llu is read across the wrap", (unsigned long long)total);
	TAP_EQ_U(bad_order, 0, "records arrive in order");
	TAP_EQ_U(rd.lost, 0, "nothing is lost when the reader keeps up");
	reader_close(&rd);
	seg_close(s, true);
}

static void test_overrun(void)
{
	struct gd_reader rd;
	struct gd_seg *s = attach(2, &rd, "attach for the overrun test");
	if (!s)
		return;
	static struct gd_rec out[GD_RING_CAPACITY];
	struct gd_rec r;
	const uint64_t burst = 5 * GD_RING_CAPACITY + 17;
	for (uint64_t i = 0; i < burst; i++) {
		fill(&r, i);
		seg_publish(s, &r);
	}
	int n = reader_poll(&rd, out, (int)GD_ARRAY_LEN(out));
	TAP_EQ_U(n, GD_RING_CAPACITY, "a full ring yields exactly its capacity");
	TAP_EQ_U(rd.lost, burst - GD_RING_CAPACITY, "the overwritten records are counted as lost, exactly");
	TAP_EQ_U(out[0].batch, burst - GD_RING_CAPACITY, "the oldest surviving record comes first");
	TAP_EQ_U(n + rd.lost, burst, "read + lost = published");
	reader_close(&rd);
	seg_close(s, true);
}

/* Tampers with the ring through a second, writable mapping, as a broken writer would. */
static void test_torn(void)
{
	struct gd_reader rd;
	struct gd_seg *s = attach(3, &rd, "attach for the torn-record test");
	if (!s)
		return;
	int fd = shm_open(name, O_RDWR, 0);
	size_t size = GD_RING_OFFSET + GD_RING_CAPACITY * sizeof(struct gd_rec);
	unsigned char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	struct gd_rec r, out[8];
	for (uint64_t i = 0; i < 4; i++) {
		fill(&r, i);
		seg_publish(s, &r);
	}
	struct gd_rec *ring = (struct gd_rec *)(m + GD_RING_OFFSET);
	ring[1].seq = 2 * 1 + 1;             /* record 1 left half-written */
	ring[2].t_end = ring[2].t_begin - 5; /* record 2 ends before it starts */
	int n = reader_poll(&rd, out, 8);
	TAP_EQ_U(n, 2, "only the two intact records are accepted");
	TAP_EQ_U(rd.lost, 2, "the torn and the inconsistent record count as lost");
	tap_ok(n == 2 && out[0].batch == 0 && out[1].batch == 3, "the accepted ones are records 0 and 3");
	munmap(m, size);
	reader_close(&rd);
	seg_close(s, true);
}

struct race {
	struct gd_seg *seg;
	uint64_t total;
	volatile int done;
};

static void *writer(void *arg)
{
	struct race *rc = arg;
	struct gd_rec r;
	for (uint64_t i = 0; i < rc->total; i++) {
		fill(&r, i);
		seg_publish(rc->seg, &r);
	}
	__atomic_store_n(&rc->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Writer and reader run concurrently: every accepted record must be intact, and accepted +
 * lost must equal published. */
static void test_threads(void)
{
	struct gd_reader rd;
	struct race rc = { .seg = attach(4, &rd, "attach for the thread test"), .total = 400000 };
	if (!rc.seg)
		return;
	pthread_t t;
	pthread_create(&t, NULL, writer, &rc);
	static struct gd_rec out[256];
	uint64_t got = 0, corrupt = 0, last = 0;
	bool first = true, ordered = true;
	for (;;) {
		int done = __atomic_load_n(&rc.done, __ATOMIC_ACQUIRE);
		int n = reader_poll(&rd, out, (int)GD_ARRAY_LEN(out));
		for (int k = 0; k < n; k++) {
			struct gd_rec want;
			fill(&want, out[k].batch);
			want.seq = out[k].seq;
			corrupt += memcmp(&want, &out[k], sizeof(want)) != 0;
			if (!first && out[k].batch <= last)
				ordered = false;
			last = out[k].batch;
			first = false;
		}
		got += (uint64_t)n;
		if (done && n == 0)
			break;
	}
	pthread_join(t, NULL);
	TAP_EQ_U(corrupt, 0, "no accepted record is torn (%llu accepted)", (unsigned long long)got);
	tap_ok(ordered, "accepted records keep their order");
	TAP_EQ_U(got + rd.lost, rc.total, "accepted + lost = published under concurrency");
	reader_close(&rd);
	seg_close(rc.seg, true);
}

static void test_names(void)
{
	char buf[128];
	seg_name(buf, sizeof(buf), 1234, 7, 0xabcULL);
	char want[128];
	snprintf(want, sizeof(want), "/gputop-decode.%u.1234.7.0000000000000abc", (unsigned)geteuid());
	tap_ok(strcmp(buf, want) == 0, "segment names carry uid, supervisor pid, slot, generation (%s)", buf);
	struct gd_seg *s = make_seg(5);
	struct gd_seg_info info = { .generation = 5 };
	char err[256] = "";
	struct gd_seg *again = seg_create(name, &info, err, sizeof(err));
	tap_ok(s && !again && strstr(err, "File exists"),
	       "a second create of the same name fails (O_EXCL): %s", err);
	struct gd_reader rd;
	char why[160];
	tap_ok(reader_open(&rd, name, getpid(), 6, why, sizeof(why)) == GD_OPEN_REJECTED,
	       "a reader expecting another generation rejects the segment (%s)", why);
	tap_ok(reader_open(&rd, name, getpid() + 1, 5, why, sizeof(why)) == GD_OPEN_REJECTED,
	       "a reader expecting another pid rejects the segment (%s)", why);
	tap_ok(reader_open(&rd, "/gputop-decode-test.none", getpid(), 5, why, sizeof(why)) == GD_OPEN_NOTYET,
	       "a missing segment is 'not yet', not an error");
	seg_close(s, true);
}

int main(void)
{
	test_wrap();
	test_overrun();
	test_torn();
	test_threads();
	test_names();
	return tap_done();
}

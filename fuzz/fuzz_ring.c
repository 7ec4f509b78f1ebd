/* fuzz_ring.c: libFuzzer harness for the shared-memory reader: the input edits a real segment
 * (patches, a head, a truncation) before and while the reader opens, polls and views it.
 * Whatever the bytes, the reader must never crash, and what it accepts must be safe to add up. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gputop/common.h"
#include "ring/reader.h"
#include "ring/writer.h"
#include "measure/stats.h"

#define SEG_SIZE (GD_RING_OFFSET + (size_t)GD_RING_CAPACITY * sizeof(struct gd_rec))
#define GEN      0xf022f022ull
#define HEAD_OFF 88 /* the header's head word in layout version 1 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char name[64];
static int fd = -1;
static unsigned char *rw, *pristine;

static void remove_segment(void)
{
	shm_unlink(name);
}

/* One real segment, written by the real writer past one wrap of the ring: every input
 * starts from a copy of it. */
static void init(void)
{
	snprintf(name, sizeof(name), "/gputop-decode-fuzz.%d", (int)getpid());
	shm_unlink(name);
	struct gd_seg_info info = { .generation = GEN, .id = 1, .dtype_bytes = 8 };
	char err[256];
	struct gd_seg *s = seg_create(name, &info, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "fuzz_ring: %s\n", err);
		abort();
	}
	atexit(remove_segment);
	for (uint64_t i = 0; i < GD_RING_CAPACITY + GD_RING_CAPACITY / 2; i++) {
		struct gd_rec r = { .batch = i, .items = 1000, .kernels = 2, .nkiv = 2 };
		r.t_begin = 1000000000 + (int64_t)i * 1000000;
		r.t_gen = r.t_begin + 1000;
		r.t_end = r.t_begin + 900000;
		r.kbase = r.t_gen + 100;
		r.kiv[0][1] = 1000;
		r.kiv[1][0] = 2000;
		r.kiv[1][1] = 3000;
		seg_publish(s, &r);
	}
	fd = shm_open(name, O_RDWR, 0);
	rw = mmap(NULL, SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd < 0 || rw == MAP_FAILED)
		abort();
	uint64_t head;
	memcpy(&head, rw + HEAD_OFF, sizeof(head));
	if (head != GD_RING_CAPACITY + GD_RING_CAPACITY / 2)
		abort(); /* HEAD_OFF no longer matches wire.h's layout */
	pristine = xmalloc(SEG_SIZE);
	memcpy(pristine, rw, SEG_SIZE);
	seg_close(s, false);
}

struct input {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct input *in, size_t bytes)
{
	uint64_t v = 0;
	for (size_t i = 0; i < bytes && in->n; i++, in->n--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

/* Applies edits until the input ends or says "next phase" (op 0). Returns false after a
 * truncation: the mapping past the new end must not be touched again. */
static bool edit(struct input *in)
{
	while (in->n) {
		switch (take(in, 1) % 5) {
		case 0:
			return true;
		case 1: { /* patch anywhere */
			size_t at = take(in, 4) % SEG_SIZE, len = take(in, 1);
			for (size_t i = 0; i < len && in->n && at + i < SEG_SIZE; i++)
				rw[at + i] = (uint8_t)take(in, 1);
			break;
		}
		case 2: { /* patch the header, where most checks are */
			size_t at = take(in, 2) % 512, len = take(in, 1);
			for (size_t i = 0; i < len && in->n; i++)
				rw[at + i] = (uint8_t)take(in, 1);
			break;
		}
		case 3: { /* a new head */
			uint64_t h = take(in, 8);
			memcpy(rw + HEAD_OFF, &h, sizeof(h));
			break;
		}
		case 4: /* truncate under the reader */
			if (ftruncate(fd, (off_t)(take(in, 4) % (SEG_SIZE + 1))) != 0)
				abort();
			return false;
		}
	}
	return true;
}

/* What the supervisor does with accepted records: UBSan checks every sum. */
static void consume(const struct gd_rec *r, int n)
{
	static struct gd_iv *iv;
	static size_t cap;
	size_t niv = 0;
	struct gd_batch_acc acc;
	struct gd_breakdown bd;
	memset(&acc, 0, sizeof(acc));
	int64_t prev = 0;
	for (int i = 0; i < n; i++) {
		if (!gd_rec_valid(&r[i]))
			abort(); /* the reader handed out something it should have rejected */
		stats_batch_add(&acc, &r[i], prev);
		stats_rec_busy(&r[i], r[i].t_begin, r[i].t_end);
		stats_rec_intervals(&r[i], &iv, &niv, &cap);
		prev = gd_rec_kernel_end(&r[i]);
	}
	if (n)
		stats_union(iv, niv, r[0].t_begin, r[n - 1].t_end);
	stats_breakdown(&acc, &bd);
}

static void read_all(struct gd_reader *rd)
{
	static struct gd_rec out[GD_RING_CAPACITY];
	struct gd_seg_view v;
	for (int i = 0; i < 3; i++) {
		int n = reader_poll(rd, out, (int)GD_ARRAY_LEN(out));
		if (n < 0)
			return;
		consume(out, n);
	}
	if (reader_view(rd, &v) && (strlen(v.error) >= sizeof(v.error) || (unsigned)v.state >= GD_ST_COUNT))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0)
		init();
	if (ftruncate(fd, (off_t)SEG_SIZE) != 0)
		abort();
	memcpy(rw, pristine, SEG_SIZE);
	struct input in = { data, size };
	struct gd_reader rd;
	char why[160];
	bool whole = edit(&in);
	if (reader_open(&rd, name, getpid(), GEN, why, sizeof(why)) != GD_OPEN_OK)
		return 0;
	read_all(&rd);
	if (whole && in.n) { /* the writer's view changes while the reader is attached */
		edit(&in);
		read_all(&rd);
	}
	reader_writer_died(&rd);
	reader_close(&rd);
	return 0;
}

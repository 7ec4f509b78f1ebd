/* writer.c: the worker's end of its segment (writer.h). */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gputop/common.h"
#include "gputop/spec.h"

#define REC_WORDS (sizeof(struct gd_rec) / 8)

struct gd_seg {
	int fd;
	size_t size;
	struct gd_seg_header *h;
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
	struct gd_seg_header *h = seg->h;
	h->version = GD_SEG_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct gd_rec);
	h->capacity = GD_RING_CAPACITY;
	h->ring_offset = GD_RING_OFFSET;
	h->pid = (int32_t)getpid();
	h->id = info->id;
	h->generation = info->generation;
	h->start_ticks = info->start_ticks;
	h->dtype_bytes = info->dtype_bytes;
	h->source = (uint32_t)info->source;
	str_copy(h->comm, sizeof(h->comm), info->comm);
	h->state = GD_SEG_STARTING;
	str_copy(h->device, sizeof(h->device), info->device);
	h->heartbeat_ns = now_ns();
	__atomic_store_n(&h->magic, GD_SEG_MAGIC, __ATOMIC_RELEASE);
}

/* The name the supervisor reserved (seg_reserve): opened without O_CREAT, never followed or
 * waited on, and taken only as it was reserved (an empty regular file of ours, mode 0600).
 * Where nothing was reserved (the unit tests), it is created here with O_EXCL. */
static int seg_open_reserved(const char *name)
{
	int fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0 && errno == ENOENT) {
		fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
		if (fd >= 0 && fchmod(fd, 0600) != 0) { /* exactly 0600, whatever the umask */
			int e = errno;
			close(fd);
			shm_unlink(name);
			errno = e;
			return -1;
		}
		return fd;
	}
	if (fd < 0) { /* a directory, a socket, a link: something not ours is at the name */
		errno = EEXIST;
		return -1;
	}
	struct stat st;
	if ((fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	     (st.st_mode & 07777) != 0600 || st.st_size != 0)) {
		close(fd);
		errno = EEXIST; /* not our reservation: never used */
		return -1;
	}
	return fd;
}

struct gd_seg *seg_create(const char *name, const struct gd_seg_info *info, char *err, size_t errlen)
{
	struct gd_seg *seg = xcalloc(1, sizeof(*seg));
	str_copy(seg->name, sizeof(seg->name), name);
	seg->size = seg_size();
	const char *step = "shm_open";
	seg->fd = seg_open_reserved(name);
	if (seg->fd < 0)
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
	if (seg->fd >= 0) { /* reserved for us or made with O_EXCL: the name is ours to remove */
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
	size_t slot = (size_t)(i & (GD_RING_CAPACITY - 1)) * sizeof(*r);
	/* Whatever head holds, the mask keeps its entry inside the mapping seg_create sized. */
	GD_ASSERT(seg->size == seg_size() && GD_RING_OFFSET + slot + sizeof(*r) <= seg->size);
	uint64_t *dst = (uint64_t *)(seg->ring + slot);
	const uint64_t *src = (const uint64_t *)r;

	/* Payload words are release stores rather than relaxed stores after a release fence:
	 * the same order (free on x86), and ThreadSanitizer understands it. */
	__atomic_store_n(&dst[0], 2 * i + 1, __ATOMIC_RELAXED);
	for (size_t w = 1; w < REC_WORDS; w++)
		__atomic_store_n(&dst[w], src[w], __ATOMIC_RELEASE);
	__atomic_store_n(&dst[0], 2 * i + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&seg->h->head, i + 1, __ATOMIC_RELEASE);
}

void seg_set_state(struct gd_seg *seg, enum gd_seg_state st)
{
	GD_ASSERT((unsigned)st < GD_SEG_STATE_COUNT);
	__atomic_store_n(&seg->h->state, (uint32_t)st, __ATOMIC_RELEASE);
}

void seg_set_timebase(struct gd_seg *seg, enum gd_timebase tb)
{
	GD_ASSERT((unsigned)tb < GD_TB_COUNT);
	__atomic_store_n(&seg->h->timebase, (uint32_t)tb, __ATOMIC_RELEASE);
}

void seg_set_error(struct gd_seg *seg, const char *msg)
{
	size_t n = strnlen(msg, GD_ERR_LEN - 1);
	for (size_t i = 0; i < GD_ERR_LEN; i++)
		__atomic_store_n(&seg->h->error[i], i < n ? msg[i] : '\0', __ATOMIC_RELAXED);
	__atomic_store_n(&seg->h->state, (uint32_t)GD_SEG_FAILED, __ATOMIC_RELEASE);
}

void seg_heartbeat(struct gd_seg *seg)
{
	__atomic_store_n(&seg->h->heartbeat_ns, now_ns(), __ATOMIC_RELEASE);
}

void seg_add_totals(struct gd_seg *seg, uint64_t batches, uint64_t items, uint64_t kernels)
{
	struct gd_seg_header *h = seg->h;
	__atomic_store_n(&h->batches, __atomic_load_n(&h->batches, __ATOMIC_RELAXED) + batches,
	                 __ATOMIC_RELEASE);
	__atomic_store_n(&h->items, __atomic_load_n(&h->items, __ATOMIC_RELAXED) + items, __ATOMIC_RELEASE);
	__atomic_store_n(&h->kernels, __atomic_load_n(&h->kernels, __ATOMIC_RELAXED) + kernels,
	                 __ATOMIC_RELEASE);
}

void seg_set_source(struct gd_seg *seg, enum gd_seg_source src)
{
	GD_ASSERT((unsigned)src < GD_SRC_COUNT);
	__atomic_store_n(&seg->h->source, (uint32_t)src, __ATOMIC_RELEASE);
}

void seg_set_obs_device(struct gd_seg *seg, unsigned platform, unsigned device)
{
	uint32_t v = 1 + ((platform & 0xffu) << 8 | (device & 0xffu));
	__atomic_store_n(&seg->h->obs_device, v, __ATOMIC_RELEASE);
}

void seg_set_obs_totals(struct gd_seg *seg, const struct gd_obs_totals *t)
{
	struct gd_obs_totals *o = &seg->h->obs;
	__atomic_store_n(&o->h2d_bytes, t->h2d_bytes, __ATOMIC_RELEASE);
	__atomic_store_n(&o->d2h_bytes, t->d2h_bytes, __ATOMIC_RELEASE);
	__atomic_store_n(&o->h2d_count, t->h2d_count, __ATOMIC_RELEASE);
	__atomic_store_n(&o->d2h_count, t->d2h_count, __ATOMIC_RELEASE);
	__atomic_store_n(&o->waits, t->waits, __ATOMIC_RELEASE);
	__atomic_store_n(&o->copy_bytes, t->copy_bytes, __ATOMIC_RELEASE);
	__atomic_store_n(&o->copy_count, t->copy_count, __ATOMIC_RELEASE);
	__atomic_store_n(&o->commands, t->commands, __ATOMIC_RELEASE);
}

void seg_set_inflight(struct gd_seg *seg, int64_t since_ns, int64_t at_ns)
{
	__atomic_store_n(&seg->h->inflight_ns, since_ns, __ATOMIC_RELEASE);
	__atomic_store_n(&seg->h->inflight_at_ns, at_ns, __ATOMIC_RELEASE);
}

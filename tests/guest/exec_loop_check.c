// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The correctness check of exec_loop.ko (make check-kernel-exec-loop): the
 * kernel's loop driver converted to exec by scripts/exec-loop.sh, run in
 * QEMU beside the stock loop driver.  tests/guest/init.c runs it as
 * /check once exec.ko, loop.ko and exec_loop.ko are loaded, and unloads
 * them afterwards.  Built static, like init.
 *
 * The same cases run on the stock driver first, then on exec_loop: a case
 * that fails on both is the check's fault, one that fails on exec_loop
 * alone is the conversion's.  Each device is bound to a file on tmpfs with
 * LOOP_CTL_GET_FREE and LOOP_CONFIGURE; the cases write a pattern through
 * the device and read it back through the file and through the device
 * (O_DIRECT, past the device's page cache), the other way round, from
 * several threads at once, discard, and tear the device down while I/O is
 * in flight.  The results are KTAP, one subtest per driver, which
 * scripts/kunit-qemu.sh counts as it counts KUnit's; the status is 0 when
 * every case passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loop_guest.h"

#define MNT		"/tmp"
#define DEV_SIZE	(16UL << 20)
#define BLOCK		4096UL
#define NR_BLOCKS	(DEV_SIZE / BLOCK)
#define NR_THREADS	4
#define RANDOM_OPS	1000
#define CHUNK		(64UL << 10)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Named after the KTAP subtest of each. */
static const struct loop_driver drivers[] = {
	{ "exec-loop-stock", "/dev/loop-control", "/dev/loop" },
	{ "exec-loop", "/dev/exec-loop-control", "/dev/exec_loop" },
};

#define NR_CASES	7

struct bench {
	const struct loop_driver *drv;
	char path[64];		/* the disk */
	char file[64];		/* its backing file */
	int nr;			/* its number */
	int ctl;		/* loop-control */
	int filefd;		/* the backing file */
	int dfd;		/* the disk, O_DIRECT */
	int cases;		/* cases reported so far */
	int failed;
	/* The random case: the generation last written to each block. */
	uint32_t gen[NR_BLOCKS];
	int stop;		/* the teardown case's threads: stop */
};

/* Report one case; @why is the reason it failed, NULL if it passed. */
static void result(struct bench *b, const char *name, const char *why)
{
	b->cases++;
	if (why) {
		b->failed++;
		line("    # %s: %s: %s", b->drv->name, name, why);
		line("    not ok %d %s", b->cases, name);
	} else {
		line("    ok %d %s", b->cases, name);
	}
}

static char why_buf[256];

static const char *why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

/* The pattern: each 8 bytes a function of their offset and a seed. */
static uint64_t word(uint64_t off, uint64_t seed)
{
	uint64_t z = off * 0x9e3779b97f4a7c15ULL + seed;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill(void *buf, uint64_t off, size_t len, uint64_t seed)
{
	uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = word(off + i * 8, seed);
}

/* Returns the offset of the first wrong word, or -1. */
static long long differs(const void *buf, uint64_t off, size_t len,
			 uint64_t seed)
{
	const uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] != word(off + i * 8, seed))
			return off + i * 8;
	return -1;
}

static void *aligned(size_t len)
{
	void *p;

	if (posix_memalign(&p, BLOCK, len))
		return NULL;
	return p;
}

static int full_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

static int full_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/* Every CHUNK of @fd against the pattern of @seed. */
static const char *check_all(int fd, uint64_t seed, const char *what)
{
	void *buf = aligned(CHUNK);
	const char *ret = NULL;
	uint64_t off;
	long long bad;
	int err;

	if (!buf)
		return "out of memory";
	for (off = 0; off < DEV_SIZE && !ret; off += CHUNK) {
		err = full_pread(fd, buf, CHUNK, off);
		bad = err ? -1 : differs(buf, off, CHUNK, seed);
		if (err)
			ret = why("%s: read at %llu: %s", what,
				  (unsigned long long)off, strerror(-err));
		else if (bad >= 0)
			ret = why("%s: wrong data at offset %lld", what, bad);
	}
	free(buf);
	return ret;
}

/* Bind a free disk of the driver to a new file on tmpfs. */
static const char *configure(struct bench *b)
{
	const char *step;
	uint64_t size = 0;
	int fd;

	snprintf(b->file, sizeof(b->file), MNT "/%s.img", b->drv->name);
	b->filefd = open(b->file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (b->filefd < 0 || ftruncate(b->filefd, DEV_SIZE))
		return why("%s: %s", b->file, strerror(errno));
	if (b->ctl >= 0)
		close(b->ctl);
	b->dfd = loop_guest_bind(b->drv, b->filefd, 512, O_RDWR | O_DIRECT,
				 &b->ctl, &b->nr, b->path, sizeof(b->path),
				 &step);
	if (b->dfd < 0)
		return why("%s: %s", step, strerror(errno));
	fd = b->dfd;
	if (ioctl(fd, BLKGETSIZE64, &size) || size != DEV_SIZE)
		return why("%s: size %llu, not %lu", b->path,
			   (unsigned long long)size, DEV_SIZE);
	return NULL;
}

/* Buffered writes through the disk reach the file. */
static const char *write_device_read_file(struct bench *b)
{
	void *buf = aligned(CHUNK);
	const char *ret = NULL;
	uint64_t off;
	int fd, err;

	if (!buf)
		return "out of memory";
	fd = open(b->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return why("%s: %s", b->path, strerror(errno));
	}
	for (off = 0; off < DEV_SIZE && !ret; off += CHUNK) {
		fill(buf, off, CHUNK, 1);
		err = full_pwrite(fd, buf, CHUNK, off);
		if (err)
			ret = why("write at %llu: %s",
				  (unsigned long long)off, strerror(-err));
	}
	if (!ret && fsync(fd))
		ret = why("fsync %s: %s", b->path, strerror(errno));
	close(fd);
	free(buf);
	return ret ? ret : check_all(b->filefd, 1, "file");
}

/* ... and read back through the disk, past its page cache. */
static const char *read_device(struct bench *b)
{
	return check_all(b->dfd, 1, "disk");
}

/* Writes to the file show through the disk. */
static const char *write_file_read_device(struct bench *b)
{
	void *buf = aligned(CHUNK);
	uint64_t off;
	int err;

	if (!buf)
		return "out of memory";
	for (off = 0; off < DEV_SIZE; off += CHUNK) {
		fill(buf, off, CHUNK, 2);
		err = full_pwrite(b->filefd, buf, CHUNK, off);
		if (err) {
			free(buf);
			return why("file write: %s", strerror(-err));
		}
	}
	free(buf);
	return check_all(b->dfd, 2, "disk");
}

struct worker {
	struct bench *b;
	pthread_t thread;
	unsigned int id;
	const char *why;
	char why_buf[160];
	unsigned long ops;
};

static uint64_t block_seed(unsigned int block, uint32_t gen)
{
	return ((uint64_t)gen << 32 | block) + 3;
}

/*
 * Each thread owns every NR_THREADS-th block: it writes a new generation
 * of one at random and reads it back at once, all through the one O_DIRECT
 * descriptor, so that several requests are in the driver at a time.
 */
static void *random_io(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	unsigned int seed = w->id + 1, i, block;
	void *buf = aligned(BLOCK);
	long long bad;
	int err;

	if (!buf) {
		w->why = "out of memory";
		return NULL;
	}
	for (i = 0; i < RANDOM_OPS && !w->why; i++) {
		block = (rand_r(&seed) % (NR_BLOCKS / NR_THREADS)) *
			NR_THREADS + w->id;
		fill(buf, block * BLOCK, BLOCK,
		     block_seed(block, b->gen[block] + 1));
		err = full_pwrite(b->dfd, buf, BLOCK, block * BLOCK);
		if (!err) {
			b->gen[block]++;
			memset(buf, 0, BLOCK);
			err = full_pread(b->dfd, buf, BLOCK, block * BLOCK);
		}
		bad = err ? -1 : differs(buf, block * BLOCK, BLOCK,
					 block_seed(block, b->gen[block]));
		if (err) {
			snprintf(w->why_buf, sizeof(w->why_buf),
				 "block %u: %s", block, strerror(-err));
			w->why = w->why_buf;
		} else if (bad >= 0) {
			snprintf(w->why_buf, sizeof(w->why_buf),
				 "block %u: read back wrong at %lld", block,
				 bad);
			w->why = w->why_buf;
		}
	}
	free(buf);
	return NULL;
}

static const char *random_threads(struct bench *b)
{
	struct worker w[NR_THREADS];
	void *buf = aligned(BLOCK);
	const char *ret = NULL;
	unsigned int i, block;
	long long bad;

	if (!buf)
		return "out of memory";
	memset(b->gen, 0, sizeof(b->gen));
	for (i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .b = b, .id = i };
		if (pthread_create(&w[i].thread, NULL, random_io, &w[i])) {
			free(buf);
			return "pthread_create failed";
		}
	}
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].why && !ret)
			ret = why("thread %u: %s", i, w[i].why);
	}
	if (!ret && fdatasync(b->dfd))
		ret = why("fdatasync: %s", strerror(errno));
	/* The file has each block's last generation, or pattern 2. */
	for (block = 0; block < NR_BLOCKS && !ret; block++) {
		uint64_t seed = b->gen[block] ?
				block_seed(block, b->gen[block]) : 2;

		if (full_pread(b->filefd, buf, BLOCK, block * BLOCK)) {
			ret = why("file read: %s", strerror(errno));
			break;
		}
		bad = differs(buf, block * BLOCK, BLOCK, seed);
		if (bad >= 0)
			ret = why("file: block %u wrong at %lld", block, bad);
	}
	free(buf);
	return ret;
}

/* Discard punches a hole in the file: zeroes through both. */
static const char *discard(struct bench *b)
{
	uint64_t range[2] = { DEV_SIZE / 2, 1UL << 20 };
	void *buf = aligned(CHUNK), *zero = calloc(1, CHUNK);
	const char *ret = NULL;
	uint64_t off;

	if (!buf || !zero) {
		free(buf);
		free(zero);
		return "out of memory";
	}
	if (ioctl(b->dfd, BLKDISCARD, range))
		ret = why("BLKDISCARD: %s", strerror(errno));
	for (off = range[0]; off < range[0] + range[1] && !ret; off += CHUNK) {
		if (full_pread(b->dfd, buf, CHUNK, off) ||
		    memcmp(buf, zero, CHUNK))
			ret = why("disk: not zero at %llu after discard",
				  (unsigned long long)off);
		else if (full_pread(b->filefd, buf, CHUNK, off) ||
			 memcmp(buf, zero, CHUNK))
			ret = why("file: not zero at %llu after discard",
				  (unsigned long long)off);
	}
	free(buf);
	free(zero);
	return ret;
}

/* Reads and writes through the disk until told to stop; errors expected. */
static void *busy_io(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	unsigned int seed = w->id + 7, block;
	void *buf = aligned(BLOCK);
	ssize_t n;

	if (!buf)
		return NULL;
	fill(buf, 0, BLOCK, 9);
	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED)) {
		block = rand_r(&seed) % NR_BLOCKS;
		if (rand_r(&seed) & 1)
			n = pwrite(b->dfd, buf, BLOCK, block * BLOCK);
		else
			n = pread(b->dfd, buf, BLOCK, block * BLOCK);
		if (n > 0)
			w->ops++;
	}
	free(buf);
	return NULL;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * LOOP_CLR_FD while threads have requests in the driver: the disk is the
 * only opener, so the backing file goes at once, the queue frozen over the
 * requests in flight; then the disk is removed (its executor destroyed).
 */
static const char *teardown_in_flight(struct bench *b)
{
	struct worker w[NR_THREADS];
	struct loop_info64 info;
	unsigned long ops = 0;
	const char *ret = NULL;
	unsigned int i;

	b->stop = 0;
	for (i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .b = b, .id = i };
		if (pthread_create(&w[i].thread, NULL, busy_io, &w[i]))
			return "pthread_create failed";
	}
	sleep_ms(200);
	if (ioctl(b->dfd, LOOP_CLR_FD))
		ret = why("LOOP_CLR_FD: %s", strerror(errno));
	sleep_ms(50);
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(w[i].thread, NULL);
		ops += w[i].ops;
	}
	if (!ret && !ops)
		ret = "no I/O completed before the teardown";
	if (!ret && (!ioctl(b->dfd, LOOP_GET_STATUS64, &info) ||
		     errno != ENXIO))
		ret = why("LOOP_GET_STATUS64 after LOOP_CLR_FD: %s",
			  strerror(errno));
	close(b->dfd);
	b->dfd = -1;
	if (!ret && ioctl(b->ctl, LOOP_CTL_REMOVE, b->nr) < 0)
		ret = why("LOOP_CTL_REMOVE %d: %s", b->nr, strerror(errno));
	line("    # %s: %lu I/O before and during the teardown",
	     b->drv->name, ops);
	return ret;
}

/*
 * Bound again, used, unbound and left there: the module's unload, after
 * this program, removes the disk and destroys its executor.
 */
static const char *left_for_unload(struct bench *b)
{
	const char *ret;

	ret = configure(b);
	if (!ret)
		ret = write_file_read_device(b);
	if (!ret && ioctl(b->dfd, LOOP_CLR_FD))
		ret = why("LOOP_CLR_FD: %s", strerror(errno));
	return ret;
}

static int run_driver(const struct loop_driver *drv, int index)
{
	static struct bench bench;
	struct bench *b = &bench;
	const char *ret;

	memset(b, 0, sizeof(*b));
	b->drv = drv;
	b->ctl = -1;
	b->filefd = -1;
	b->dfd = -1;
	line("    KTAP version 1");
	line("    # Subtest: %s", drv->name);
	line("    1..%d", NR_CASES);
	ret = configure(b);
	result(b, "configure", ret);
	if (!ret) {
		result(b, "write_device_read_file", write_device_read_file(b));
		result(b, "read_device", read_device(b));
		result(b, "write_file_read_device", write_file_read_device(b));
		result(b, "random_threads", random_threads(b));
		result(b, "discard", discard(b));
		result(b, "teardown_in_flight", teardown_in_flight(b));
		if (b->filefd >= 0)
			close(b->filefd);
		b->filefd = -1;
		result(b, "left_for_unload", left_for_unload(b));
	}
	while (b->cases < NR_CASES)
		result(b, "not run", "configure failed");
	if (b->dfd >= 0)
		close(b->dfd);
	if (b->filefd >= 0)
		close(b->filefd);
	if (b->ctl >= 0)
		close(b->ctl);
	unlink(b->file);
	line("%sok %d %s", b->failed ? "not " : "", index, drv->name);
	return b->failed;
}

int main(void)
{
	int failed = 0;
	size_t i;

	mkdir(MNT, 0755);
	if (mount("tmpfs", MNT, "tmpfs", 0, "size=128m")) {
		line("# exec_loop_check: mount tmpfs: %s", strerror(errno));
		return 1;
	}
	line("KTAP version 1");
	line("1..%zu", ARRAY_SIZE(drivers));
	for (i = 0; i < ARRAY_SIZE(drivers); i++)
		failed += run_driver(&drivers[i], (int)i + 1);
	umount(MNT);
	return failed ? 1 : 0;
}

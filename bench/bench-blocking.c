// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: blocking_mix, what blocking items cost the other items of an
 * executor.
 *
 * Its body is bench/common/blocking_mix.c, the kernel benchmark's too; here
 * are the executors, the items and their submission by one producer (this
 * thread), the sleep (clock_nanosleep(), as blocking I/O would) and the
 * spin (until the item's thread has used 20 us of CPU time,
 * CLOCK_THREAD_CPUTIME_ID), and the thread sampler:
 *
 *   threads_max   the peak of the process's threads (the Threads: line of
 *                 /proc/self/status), read every millisecond by a sampler
 *                 thread from before the first submission until every item
 *                 has finished.  The sampler itself is not counted; this
 *                 (producer) thread is, so a pool of T workers that adds no
 *                 thread reads T + 1.  Threads living less than a
 *                 millisecond can be missed.
 *
 * The executors measured (--executor):
 *
 *   thread_pool     libexec, bm_libexec_executor()
 *   managed_queue   libexec's managed model: a managed queue of a thread
 *                   manager whose one pool starts T workers and grows under
 *                   the default policy (bm_libexec_executor())
 *   condvar_pool    the mutex+condvar reference pool of T threads
 *                   (bench-refpool.c)
 *   condvar_spare   that pool with a spare thread started per blocking
 *                   item, the upper bound of what growing can do
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common/blocking_mix.h"

/**
 * struct bm_item - one task
 * @work: the item submitted
 * @s: its record
 */
struct bm_item {
	struct exec_work work;
	struct bench_blk_item s;
};

static struct {
	struct bench_blk run;
	sem_t done;
} bm;

static uint64_t bm_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void bm_block(struct bench_blk *bb)
{
	/* Only condvar_spare does anything with these two calls. */
	bench_ref_pool_blocking_begin();
	if (bb->hints)
		exec_blocking_begin();
	bench_sleep_until(bench_now_ns() + BENCH_BLK_SLEEP_NS);
	if (bb->hints)
		exec_blocking_end();
	bench_ref_pool_blocking_end();
}

static void bm_spin(struct bench_blk *bb)
{
	uint64_t t0 = bm_thread_cpu_ns();

	while (bm_thread_cpu_ns() - t0 < BENCH_BLK_SPIN_NS)
		;
}

static const struct bench_blk_ops bm_ops = {
	.block = bm_block,
	.spin = bm_spin,
	.now = bench_now_ns,
};

static void bm_item_fn(struct exec_work *work)
{
	struct bm_item *it = container_of(work, struct bm_item, work);

	if (bench_blk_run(&bm.run, &it->s))
		sem_post(&bm.done);
}

/* --- the thread sampler ---------------------------------------------------- */

/**
 * struct bm_sampler - reads the process's thread count every millisecond
 * @tid: its thread
 * @fd: /proc/self/status, kept open and read again from offset 0
 * @stop: set to end the sampling
 * @max: the highest count read, the sampler included
 * @err: the sampler could not read the count
 */
static struct bm_sampler {
	pthread_t tid;
	int fd;
	bool stop;
	unsigned int max;
	bool err;
} bm_sampler;

/* The Threads: count of /proc/self/status, or 0 if it cannot be read. */
static unsigned int bm_read_threads(int fd)
{
	static const char key[] = "\nThreads:";
	char buf[4096], *p;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, key);
	if (!p)
		return 0;
	return (unsigned int)strtoul(p + sizeof(key) - 1, NULL, 10);
}

static void *bm_sampler_main(void *arg)
{
	struct bm_sampler *s = arg;
	uint64_t deadline = bench_now_ns();
	unsigned int n;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		n = bm_read_threads(s->fd);
		if (!n)
			s->err = true;
		if (n > s->max)
			s->max = n;
		/* A fixed schedule: a late sample does not shift the rest. */
		deadline += BENCH_BLK_SAMPLE_NS;
		bench_sleep_until(deadline);
	}
	return NULL;
}

/* Starts the sampler; returns its first reading, 0 on failure. */
static unsigned int bm_sampler_start(struct bm_sampler *s)
{
	unsigned int n;
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		bench_err("/proc/self/status: %s", strerror(errno));
		return 0;
	}
	err = pthread_create(&s->tid, NULL, bm_sampler_main, s);
	if (err) {
		bench_err("pthread_create: %s", strerror(err));
		close(s->fd);
		return 0;
	}
	/* Read here, once the sampler exists, so that it is counted alike. */
	n = bm_read_threads(s->fd);
	if (!n) {
		bench_err("/proc/self/status: no Threads: line");
		__atomic_store_n(&s->stop, true, __ATOMIC_RELEASE);
		pthread_join(s->tid, NULL);
		close(s->fd);
	}
	return n;
}

/* Stops the sampler; returns the peak it read, 0 if a reading failed. */
static unsigned int bm_sampler_stop(struct bm_sampler *s)
{
	__atomic_store_n(&s->stop, true, __ATOMIC_RELEASE);
	pthread_join(s->tid, NULL);
	close(s->fd);
	if (s->err) {
		bench_err("/proc/self/status: the Threads: line could not be read");
		return 0;
	}
	return s->max;
}

/* --- the executors --------------------------------------------------------- */

/**
 * bm_libexec_executor - create the libexec executor blocking_mix measures
 * @be: filled in
 * @opts: the command line
 *
 * The one place that says which libexec executor runs the workload, and how
 * it is configured for the T threads the caller asks for: a thread pool of
 * exactly T workers, or a thread manager (one pool, T workers to start
 * with, the default policy and limits) and a managed queue with no limits.
 *
 * Return: 0, or -1 with a message on stderr.
 */
static int bm_libexec_executor(struct bench_exec *be,
			       const struct bench_opts *opts)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = opts->threads,
		.thread.name = "bench-pool",
	};
	int err;

	memset(be, 0, sizeof(*be));
	be->kind = opts->kind;
	be->threads = opts->threads;
	if (opts->kind == BENCH_MANAGED_QUEUE) {
		struct exec_thread_manager_attr mattr = {
			.n_pools = 1,
			.pool.nr_threads = opts->threads,
			.pool.thread.name = "bench-mgr",
		};

		err = exec_thread_manager_create(&be->manager, &mattr);
		if (err) {
			bench_err("exec_thread_manager_create: %s",
				  strerror(-err));
			return -1;
		}
		err = exec_thread_manager_new_queue(be->manager, &be->queue,
						    NULL);
		if (err) {
			bench_err("exec_thread_manager_new_queue: %s",
				  strerror(-err));
			bench_exec_destroy(be);
			return -1;
		}
		be->ex = exec_managed_queue_executor(be->queue);
		goto warm;
	}
	err = exec_thread_pool_create(&be->pool, &attr);
	if (err) {
		bench_err("exec_thread_pool_create: %s", strerror(-err));
		return -1;
	}
	be->ex = exec_thread_pool_executor(be->pool);
warm:
	if (bench_warm(be->ex, 4 * be->threads)) {
		bench_exec_destroy(be);
		return -1;
	}
	return 0;
}

/**
 * struct bm_exec - the executor under test, libexec's or a reference pool
 * @be: libexec's (thread_pool)
 * @ref: the reference pool (condvar_pool, condvar_spare), or NULL
 */
struct bm_exec {
	struct bench_exec be;
	struct bench_ref_pool *ref;
};

static int bm_exec_create(struct bm_exec *e, const struct bench_opts *opts)
{
	memset(e, 0, sizeof(*e));
	switch (opts->kind) {
	case BENCH_REF_CONDVAR_POOL:
	case BENCH_REF_CONDVAR_SPARE:
		return bench_ref_pool_start(&e->ref, opts->threads,
					    opts->kind ==
					    BENCH_REF_CONDVAR_SPARE);
	default:
		return bm_libexec_executor(&e->be, opts);
	}
}

static int bm_submit(struct bm_exec *e, struct bm_item *it)
{
	int err;

	if (e->ref) {
		bench_ref_pool_submit(e->ref, &it->work);
		return 0;
	}
	err = exec_submit(e->be.ex, &it->work);
	if (err)
		bench_err("exec_submit: %s", strerror(-err));
	return err;
}

/* Runs what is queued, then tears down; nonzero if anything was amiss. */
static int bm_exec_destroy(struct bm_exec *e)
{
	if (e->ref)
		return bench_ref_pool_stop(e->ref);
	return bench_exec_destroy(&e->be);
}

/* --- the workload ---------------------------------------------------------- */

int bench_blocking_mix(const struct bench_opts *opts)
{
	unsigned long n = opts->tasks, b = opts->blocking, total = n + b, i;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int before, peak, spare = 0;
	struct bench_blk *bb = &bm.run;
	unsigned long submitted = 0;
	int ret = BENCH_EXIT_FAIL;
	struct bm_item *items;
	struct bm_exec e;

	if (cpus < 1)
		cpus = 1;
	items = calloc(total, sizeof(*items));
	if (!items) {
		bench_err("out of memory");
		return BENCH_EXIT_FAIL;
	}
	for (i = 0; i < total; i++)
		exec_work_init(&items[i].work, bm_item_fn);
	bench_blk_init(bb, &bm_ops, &items[0].s, sizeof(*items), b, n);
	bb->hints = opts->hints;
	if (sem_init(&bm.done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		goto out_free;
	}

	if (bm_exec_create(&e, opts))
		goto out_sem;
	before = bm_sampler_start(&bm_sampler);
	if (!before) {
		bm_exec_destroy(&e);
		goto out_sem;
	}

	bb->t0 = bench_now_ns();
	for (i = 0; i < total; i++) {
		if (bm_submit(&e, &items[i]))
			break;
		submitted++;
	}
	if (submitted == total)
		bench_wait(&bm.done);
	peak = bm_sampler_stop(&bm_sampler);
	if (e.ref)
		spare = bench_ref_pool_started(e.ref) - opts->threads;
	/* Waits for whatever was submitted before a failure. */
	if (bm_exec_destroy(&e) || submitted != total || !peak)
		goto out_sem;
	if (bench_blk_verify(bb))
		goto out_sem;

	bb->cpus = cpus;
	/* Without the sampler, as the comment at the top says. */
	bb->threads_max = peak - 1;
	bb->threads_before = before - 1;
	bench_out_begin(opts, opts->threads);
	bench_blk_line(bb, bench_out_line());
	if (opts->kind == BENCH_REF_CONDVAR_SPARE)
		bench_out_uint("spare_threads", spare);
	bench_out_end();
	ret = BENCH_EXIT_OK;
out_sem:
	sem_destroy(&bm.done);
out_free:
	free(items);
	return ret;
}

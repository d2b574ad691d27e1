// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the raw references, the limits the executors are read against.
 *
 *   raw_futex           (wakeup_latency) one thread parked in FUTEX_WAIT,
 *                       woken by the submitter's FUTEX_WAKE; it runs the item
 *                       and parks again.
 *   raw_uring_timeout   (timer_lateness) one thread that sorts the armed
 *                       items by deadline, then sleeps in one absolute
 *                       IORING_OP_TIMEOUT for the earliest deadline not yet
 *                       run, re-armed after each, and runs the items inline.
 *
 * They run the workloads' own items and are timed by the workloads' own
 * code, so the only difference from an executor run is what stands between
 * the submission (or the deadline) and the item's first instruction.  They
 * are not executors: nothing here is a model of how libexec works.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <liburing.h>

#include "bench.h"

/*
 * The backlog of 13 s of the 200 us submission period, 512 KiB: on the
 * shared development machine the thread has been kept off the CPU for over
 * 200 ms while the submitter ran (1,024 slots overflowed, and the run failed
 * with -EAGAIN, in 3 of 5 runs at a load average of 14), which libexec's
 * unbounded queues take in their stride.
 */
#define RAW_FUTEX_SLOTS		65536U

/**
 * struct bench_raw_futex - one thread woken through a futex
 * @tail: the futex word: items published, ever; written by the submitter
 * @head: items taken, ever; written by the thread
 * @stop: set by bench_raw_futex_stop()
 * @slots: the items, a single-producer single-consumer ring
 * @thread: the thread
 */
struct bench_raw_futex {
	_Alignas(BENCH_CACHELINE) uint32_t tail;
	_Alignas(BENCH_CACHELINE) uint32_t head;
	bool stop;
	struct exec_work *slots[RAW_FUTEX_SLOTS];
	pthread_t thread;
};

static long raw_futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL,
		       NULL, 0);
}

static void *raw_futex_main(void *arg)
{
	struct bench_raw_futex *rf = arg;
	struct exec_work *work;
	uint32_t head = 0, tail;

	for (;;) {
		tail = __atomic_load_n(&rf->tail, __ATOMIC_ACQUIRE);
		if (tail == head) {
			if (__atomic_load_n(&rf->stop, __ATOMIC_ACQUIRE))
				return NULL;
			/* Sleeps only while @tail is still @head. */
			raw_futex(&rf->tail, FUTEX_WAIT, head);
			continue;
		}
		work = rf->slots[head % RAW_FUTEX_SLOTS];
		__atomic_store_n(&rf->head, ++head, __ATOMIC_RELEASE);
		work->func(work);
	}
}

/**
 * bench_raw_futex_start - start the raw_futex reference
 * @rfp: set to it
 *
 * Return: 0, or -1 with a message.
 */
int bench_raw_futex_start(struct bench_raw_futex **rfp)
{
	struct bench_raw_futex *rf;
	int err;

	rf = aligned_alloc(BENCH_CACHELINE, sizeof(*rf));
	if (!rf) {
		bench_err("out of memory");
		return -1;
	}
	memset(rf, 0, sizeof(*rf));
	err = pthread_create(&rf->thread, NULL, raw_futex_main, rf);
	if (err) {
		bench_err("pthread_create: %s", strerror(err));
		free(rf);
		return -1;
	}
	*rfp = rf;
	return 0;
}

/**
 * bench_raw_futex_submit - hand @work to the thread and wake it
 * @rf: the reference
 * @work: the item; its function runs on the thread
 *
 * Return: 0, or -EAGAIN if the ring is full.
 */
int bench_raw_futex_submit(struct bench_raw_futex *rf, struct exec_work *work)
{
	uint32_t tail = rf->tail;

	if (tail - __atomic_load_n(&rf->head, __ATOMIC_ACQUIRE) >=
	    RAW_FUTEX_SLOTS)
		return -EAGAIN;
	rf->slots[tail % RAW_FUTEX_SLOTS] = work;
	__atomic_store_n(&rf->tail, tail + 1, __ATOMIC_SEQ_CST);
	raw_futex(&rf->tail, FUTEX_WAKE, 1);
	return 0;
}

/**
 * bench_raw_futex_stop - run what is queued, then stop and free
 * @rf: the reference
 */
void bench_raw_futex_stop(struct bench_raw_futex *rf)
{
	__atomic_store_n(&rf->stop, true, __ATOMIC_RELEASE);
	__atomic_add_fetch(&rf->tail, 0, __ATOMIC_SEQ_CST);
	raw_futex(&rf->tail, FUTEX_WAKE, 1);
	pthread_join(rf->thread, NULL);
	free(rf);
}

/**
 * struct raw_timed - one armed item of the raw_uring_timeout reference
 * @work: the item
 * @deadline: its deadline, CLOCK_MONOTONIC
 */
struct raw_timed {
	struct exec_work *work;
	uint64_t deadline;
};

/**
 * struct bench_raw_timers - the raw_uring_timeout reference
 * @items: the armed items, sorted by the thread before it starts
 * @nr: how many are armed
 * @max: room in @items
 * @go: posted when every item is armed
 * @ring: the thread's ring
 * @thread: the thread
 */
struct bench_raw_timers {
	struct raw_timed *items;
	unsigned long nr;
	unsigned long max;
	sem_t go;
	struct io_uring ring;
	pthread_t thread;
};

static int raw_timed_cmp(const void *a, const void *b)
{
	const struct raw_timed *x = a, *y = b;

	return x->deadline < y->deadline ? -1 : x->deadline > y->deadline;
}

/* Sleeps in one absolute IORING_OP_TIMEOUT until @deadline. */
static int raw_timeout_wait(struct io_uring *ring, uint64_t deadline)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(deadline / NSEC_PER_SEC),
		.tv_nsec = (long long)(deadline % NSEC_PER_SEC),
	};
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_ABS);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_peek_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res == -ETIME ? 0 : cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static void *raw_timers_main(void *arg)
{
	struct bench_raw_timers *rt = arg;
	unsigned long i = 0;
	uint64_t now;
	int err;

	if (bench_wait(&rt->go))
		exit(BENCH_EXIT_FAIL);
	/* Arming: the sort is part of it, and counts as lateness. */
	qsort(rt->items, rt->nr, sizeof(*rt->items), raw_timed_cmp);
	while (i < rt->nr) {
		now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
		if (rt->items[i].deadline > now) {
			err = raw_timeout_wait(&rt->ring,
					       rt->items[i].deadline);
			if (err && err != -EINTR) {
				/* The workload would wait for ever. */
				bench_err("raw_uring_timeout: %s",
					  strerror(-err));
				exit(BENCH_EXIT_FAIL);
			}
			continue;
		}
		/* Everything due at @now runs now, in deadline order. */
		while (i < rt->nr && rt->items[i].deadline <= now) {
			rt->items[i].work->func(rt->items[i].work);
			i++;
		}
	}
	return NULL;
}

/**
 * bench_raw_timers_start - set up the raw_uring_timeout reference
 * @rtp: set to it
 * @max: how many items will be armed
 *
 * The thread is started, and waits for bench_raw_timers_go().
 *
 * Return: 0, or -1 with a message.
 */
int bench_raw_timers_start(struct bench_raw_timers **rtp, unsigned long max)
{
	struct bench_raw_timers *rt;
	int err;

	rt = calloc(1, sizeof(*rt));
	if (!rt)
		goto err_nomem;
	rt->items = calloc(max, sizeof(*rt->items));
	if (!rt->items)
		goto err_free_rt;
	rt->max = max;
	if (sem_init(&rt->go, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		goto err_free_items;
	}
	err = io_uring_queue_init(4, &rt->ring, 0);
	if (err < 0) {
		bench_err("io_uring_queue_init: %s", strerror(-err));
		goto err_free_items;
	}
	err = pthread_create(&rt->thread, NULL, raw_timers_main, rt);
	if (err) {
		bench_err("pthread_create: %s", strerror(err));
		goto err_exit_ring;
	}
	*rtp = rt;
	return 0;

err_exit_ring:
	io_uring_queue_exit(&rt->ring);
err_free_items:
	free(rt->items);
err_free_rt:
	free(rt);
	return -1;
err_nomem:
	bench_err("out of memory");
	return -1;
}

/**
 * bench_raw_timers_add - arm @work for @deadline
 * @rt: the reference
 * @work: the item
 * @deadline: CLOCK_MONOTONIC, in ns
 *
 * Return: 0, or -ENOSPC past the @max given to bench_raw_timers_start().
 */
int bench_raw_timers_add(struct bench_raw_timers *rt, struct exec_work *work,
			 uint64_t deadline)
{
	if (rt->nr >= rt->max)
		return -ENOSPC;
	rt->items[rt->nr].work = work;
	rt->items[rt->nr].deadline = deadline;
	rt->nr++;
	return 0;
}

/**
 * bench_raw_timers_go - every item is armed: let the thread run them
 * @rt: the reference
 */
void bench_raw_timers_go(struct bench_raw_timers *rt)
{
	sem_post(&rt->go);
}

/**
 * bench_raw_timers_stop - wait for the thread to run every item, and free
 * @rt: the reference, after bench_raw_timers_go()
 */
void bench_raw_timers_stop(struct bench_raw_timers *rt)
{
	pthread_join(rt->thread, NULL);
	io_uring_queue_exit(&rt->ring);
	sem_destroy(&rt->go);
	free(rt->items);
	free(rt);
}

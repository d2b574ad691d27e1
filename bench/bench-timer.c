// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the timer workloads, timer_lateness and timer_churn.
 *
 * Both arm intrusive struct exec_timer items with exec_submit_at() on the
 * executor under test: a thread pool, a serial executor over one, or a loop
 * executor run by a dedicated thread; timer_lateness also on its raw
 * reference, raw_uring_timeout (bench-raw.c).  Every deadline is on
 * EXEC_CLOCK_MONOTONIC and counts from one start time read with
 * exec_clock_now() just before the first arm, so that slow arming shows up
 * as lateness, as the contract asks.  The deadlines come from a generator
 * with a fixed seed, so every run arms the same pattern: bench_rand() of
 * bench/common/, the kernel benchmark's too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* @span * @i / @d, rounded down, without overflow for @i <= @d < 2^32. */
static uint64_t timer_scale(uint64_t span, uint64_t i, uint64_t d)
{
	return span / d * i + span % d * i / d;
}

/*
 * timer_lateness: K timers armed up front with deadlines uniformly
 * distributed over 1-50 ms from the start time; each records when its
 * function started.  The lateness is that time less the deadline: it holds
 * the library's timer resolution, the wakeup of the thread that notices the
 * deadline and the hand-over of the item to a worker.
 */

#define LATE_MIN_NS		(1 * NSEC_PER_MSEC)
#define LATE_MAX_NS		(50 * NSEC_PER_MSEC)

/**
 * struct late_item - one timer
 * @timer: the timed item
 * @deadline: the deadline it was armed for
 * @ran_ns: when its function started
 * @runs: how many times its function ran
 */
struct late_item {
	struct exec_timer timer;
	uint64_t deadline;
	uint64_t ran_ns;
	unsigned int runs;
};

static struct {
	unsigned long total;
	unsigned long ran;
	sem_t done;
} late;

static void late_fn(struct exec_work *work)
{
	struct late_item *it = container_of(work, struct late_item,
					    timer.work);

	it->ran_ns = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	/* Atomic: an item run twice might run on two workers at once. */
	__atomic_add_fetch(&it->runs, 1, __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&late.ran, 1, __ATOMIC_ACQ_REL) == late.total)
		sem_post(&late.done);
}

int bench_timer_lateness(const struct bench_opts *opts)
{
	unsigned long n = opts->samples, k, bad = 0, early = 0;
	uint64_t t0, last = 0, rng = BENCH_TIMER_SEED, *lat;
	int err, ret = BENCH_EXIT_FAIL;
	struct bench_raw_timers *raw = NULL;
	struct bench_exec be = { .threads = 1 };
	struct late_item *items, *it;

	if (sem_init(&late.done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	late.total = n;
	items = calloc(n, sizeof(*items));
	lat = malloc(n * sizeof(*lat));
	if (!items || !lat) {
		bench_err("out of memory");
		goto out_free;
	}
	/*
	 * @deadline holds the offset from the start time until the item is
	 * armed: the random numbers are drawn before the clock starts.
	 */
	for (k = 0; k < n; k++) {
		exec_timer_init(&items[k].timer, late_fn, NULL);
		items[k].deadline = LATE_MIN_NS +
			bench_rand_below(&rng, LATE_MAX_NS - LATE_MIN_NS + 1);
	}

	if (opts->kind == BENCH_RAW_URING_TIMEOUT) {
		if (bench_raw_timers_start(&raw, n))
			goto out_free;
	} else if (bench_exec_create(&be, opts->kind, opts->threads)) {
		goto out_free;
	}

	t0 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (k = 0; k < n; k++) {
		it = &items[k];
		it->deadline += t0;
		if (raw)
			err = bench_raw_timers_add(raw, &it->timer.work,
						   it->deadline);
		else
			err = exec_submit_at(be.ex, &it->timer,
					     EXEC_CLOCK_MONOTONIC,
					     it->deadline);
		if (err) {
			bench_err("exec_submit_at: %s", strerror(-err));
			/* Timers already armed may still run. */
			exit(BENCH_EXIT_FAIL);
		}
	}
	if (raw)
		bench_raw_timers_go(raw);
	if (bench_wait(&late.done))
		exit(BENCH_EXIT_FAIL);
	/* Destroying joins the workers: their writes are visible after. */
	if (raw)
		bench_raw_timers_stop(raw);
	else if (bench_exec_destroy(&be))
		goto out_free;

	for (k = 0; k < n; k++) {
		it = &items[k];
		if (it->runs != 1) {
			if (!bad)
				bench_err("timer_lateness: timer %lu ran %u times",
					  k, it->runs);
			bad++;
			continue;
		}
		if (it->ran_ns < it->deadline) {
			if (!early)
				bench_err("timer_lateness: timer %lu ran %llu ns before its deadline",
					  k, (unsigned long long)
					  (it->deadline - it->ran_ns));
			early++;
			continue;
		}
		lat[k] = it->ran_ns - it->deadline;
		if (it->ran_ns > last)
			last = it->ran_ns;
	}
	if (bad || early) {
		bench_err("timer_lateness: of %lu timers, %lu did not run exactly once and %lu ran early",
			  n, bad, early);
		goto out_free;
	}
	if (bench_samples_write(opts, be.threads, lat, n))
		goto out_free;
	qsort(lat, n, sizeof(*lat), bench_cmp_u64);

	bench_out_begin(opts, be.threads);
	bench_out_uint("samples", n);
	bench_out_double("seconds", "%.6f", (double)(last - t0) / NSEC_PER_SEC);
	bench_out_uint("p50_ns", bench_percentile(lat, n, 50000));
	bench_out_uint("p99_ns", bench_percentile(lat, n, 99000));
	bench_out_uint("max_ns", lat[n - 1]);
	bench_out_end();
	ret = BENCH_EXIT_OK;

out_free:
	free(lat);
	free(items);
	return ret;
}

/*
 * timer_churn: N timers armed with deadlines spread evenly over 1-60 s from
 * the start time, in random order, then all cancelled, in the order they
 * were armed, long before the first deadline: the cost of timeouts that
 * almost never fire (a server's request and idle timeouts).
 *
 * The items are bare struct exec_timers, so "rss_kb" is the memory the
 * library needs per armed timer with nothing of the benchmark's own but the
 * item itself.  It is the growth of the current resident set (not the
 * peak, which never shrinks) from before the items are allocated until all
 * are armed; the deadlines are computed before it, and the items are
 * allocated and initialised inside it but before the clock starts.
 */

#define CHURN_MIN_NS		(1 * NSEC_PER_SEC)
#define CHURN_MAX_NS		(60 * NSEC_PER_SEC)

static unsigned long churn_ran;

static void churn_fn(struct exec_work *work)
{
	__atomic_add_fetch(&churn_ran, 1, __ATOMIC_RELAXED);
}

int bench_timer_churn(const struct bench_opts *opts)
{
	unsigned long n = opts->tasks, armed, cancelled = 0, i, j;
	uint64_t t0, t1, t2, rng = BENCH_TIMER_SEED, *offset, tmp;
	struct exec_timer *timers = NULL;
	long long rss0, rss1;
	struct bench_exec be;
	int err = 0, ret = BENCH_EXIT_FAIL;

	offset = malloc(n * sizeof(*offset));
	if (!offset) {
		bench_err("out of memory");
		return BENCH_EXIT_FAIL;
	}
	/* Evenly spread, then shuffled (Fisher-Yates). */
	for (i = 0; i < n; i++)
		offset[i] = CHURN_MIN_NS + (n > 1 ?
			    timer_scale(CHURN_MAX_NS - CHURN_MIN_NS, i, n - 1) :
			    0);
	for (i = n - 1; i > 0; i--) {
		j = bench_rand_below(&rng, i + 1);
		tmp = offset[i];
		offset[i] = offset[j];
		offset[j] = tmp;
	}

	if (bench_exec_create(&be, opts->kind, opts->threads))
		goto out_free;

	rss0 = bench_rss_kb();
	if (rss0 < 0)
		goto out_destroy;
	timers = malloc(n * sizeof(*timers));
	if (!timers) {
		bench_err("out of memory");
		goto out_destroy;
	}
	for (i = 0; i < n; i++)
		exec_timer_init(&timers[i], churn_fn, NULL);

	t0 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		err = exec_submit_at(be.ex, &timers[i], EXEC_CLOCK_MONOTONIC,
				     t0 + offset[i]);
		if (bench_unlikely(err))
			break;
	}
	t1 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	rss1 = bench_rss_kb();
	armed = i;

	/* Also what takes back the timers armed before a failure. */
	for (i = 0; i < armed; i++)
		cancelled += exec_timer_cancel(&timers[i]) == 1;
	t2 = exec_clock_now(EXEC_CLOCK_MONOTONIC);

	if (err) {
		bench_err("exec_submit_at: timer %lu: %s", armed,
			  strerror(-err));
		goto out_destroy;
	}
	/* Destroying joins the workers: a timer that ran is counted after. */
	if (bench_exec_destroy(&be) || rss1 < 0)
		goto out_free;
	if (cancelled != n || churn_ran) {
		bench_err("timer_churn: of %lu timers, %lu were cancelled before their deadline and %lu ran",
			  n, cancelled, churn_ran);
		goto out_free;
	}

	bench_out_begin(opts, be.threads);
	bench_out_uint("tasks", n);
	bench_out_double("seconds", "%.6f", (double)(t2 - t0) / NSEC_PER_SEC);
	bench_out_uint("arm_ns", (t1 - t0 + n / 2) / n);
	bench_out_uint("cancel_ns", (t2 - t1 + n / 2) / n);
	bench_out_int("rss_kb", rss1 - rss0);
	bench_out_uint("item_bytes", sizeof(*timers));
	bench_out_end();
	ret = BENCH_EXIT_OK;
	goto out_free;

out_destroy:
	bench_exec_destroy(&be);
out_free:
	free(timers);
	free(offset);
	return ret;
}

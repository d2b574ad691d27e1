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
#include "common/timer_churn.h"
#include "common/timer_lateness.h"

/*
 * timer_lateness: its body is bench/common/timer_lateness.c, the kernel
 * benchmark's too; here are the timed items and their arming on the
 * executor or the raw reference under test.
 */

/**
 * struct late_item - one timer
 * @timer: the timed item
 * @s: its record
 */
struct late_item {
	struct exec_timer timer;
	struct bench_late_sample s;
};

static struct {
	struct bench_late run;
	struct late_item *items;
	struct bench_raw_timers *raw;
	struct exec_executor *ex;
	sem_t done;
} late;

static void late_fn(struct exec_work *work)
{
	struct late_item *it = container_of(work, struct late_item,
					    timer.work);

	if (bench_late_ran(&late.run, &it->s,
			   exec_clock_now(EXEC_CLOCK_MONOTONIC)))
		sem_post(&late.done);
}

static int late_arm(struct bench_late *l, unsigned long k)
{
	struct late_item *it = &late.items[k];

	if (late.raw)
		return bench_raw_timers_add(late.raw, &it->timer.work,
					    it->s.deadline);
	return exec_submit_at(late.ex, &it->timer, EXEC_CLOCK_MONOTONIC,
			      it->s.deadline);
}

static const struct bench_late_ops late_ops = {
	.arm = late_arm,
};

int bench_timer_lateness(const struct bench_opts *opts)
{
	unsigned long n = opts->samples, k, armed;
	int err, ret = BENCH_EXIT_FAIL;
	struct bench_exec be = { .threads = 1 };
	uint64_t *lat;

	if (sem_init(&late.done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	late.raw = NULL;
	late.items = calloc(n, sizeof(*late.items));
	lat = malloc(n * sizeof(*lat));
	if (!late.items || !lat) {
		bench_err("out of memory");
		goto out_free;
	}
	for (k = 0; k < n; k++)
		exec_timer_init(&late.items[k].timer, late_fn, NULL);
	bench_late_init(&late.run, &late_ops, &late.items[0].s,
			sizeof(*late.items), n);

	if (opts->kind == BENCH_RAW_URING_TIMEOUT) {
		if (bench_raw_timers_start(&late.raw, n))
			goto out_free;
	} else if (bench_exec_create(&be, opts->kind, opts->threads)) {
		goto out_free;
	}
	late.ex = be.ex;

	err = bench_late_arm_all(&late.run,
				 exec_clock_now(EXEC_CLOCK_MONOTONIC), &armed);
	if (err) {
		bench_err("exec_submit_at: %s", strerror(-err));
		/* Timers already armed may still run. */
		exit(BENCH_EXIT_FAIL);
	}
	if (late.raw)
		bench_raw_timers_go(late.raw);
	if (bench_wait(&late.done))
		exit(BENCH_EXIT_FAIL);
	/* Destroying joins the workers: their writes are visible after. */
	if (late.raw)
		bench_raw_timers_stop(late.raw);
	else if (bench_exec_destroy(&be))
		goto out_free;

	if (bench_late_latencies(&late.run, lat))
		goto out_free;
	if (bench_samples_write(opts, be.threads, lat, n))
		goto out_free;
	bench_out_begin(opts, be.threads);
	bench_late_line(&late.run, lat, bench_out_line());
	bench_out_end();
	ret = BENCH_EXIT_OK;

out_free:
	free(lat);
	free(late.items);
	return ret;
}

/*
 * timer_churn: its body is bench/common/timer_churn.c, the kernel
 * benchmark's too; here are the timers, their arming and cancelling on the
 * executor under test, and the memory they take.
 *
 * The items are bare struct exec_timers, so "rss_kb" is the memory the
 * library needs per armed timer with nothing of the benchmark's own but the
 * item itself.  It is the growth of the current resident set (not the
 * peak, which never shrinks) from before the items are allocated until all
 * are armed; the deadlines are computed before it, and the items are
 * allocated and initialised inside it but before the clock starts.
 */

static struct bench_tchurn churn;

static void churn_fn(struct exec_work *work)
{
	bench_tchurn_ran(&churn);
}

/* The measured arm loop; Return: 0, or the error that stopped it. */
static int churn_arm(struct exec_executor *ex, struct exec_timer *timers)
{
	struct bench_tchurn *c = &churn;
	unsigned long i;
	int err = 0;

	c->t0 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (i = 0; i < c->n; i++) {
		err = exec_submit_at(ex, &timers[i], EXEC_CLOCK_MONOTONIC,
				     c->t0 + c->offset[i]);
		if (bench_unlikely(err))
			break;
	}
	c->t1 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	c->armed = i;
	return err;
}

/*
 * The measured cancel loop, also what takes back the timers armed before a
 * failure.
 */
static void churn_cancel(struct exec_timer *timers)
{
	struct bench_tchurn *c = &churn;
	unsigned long i;

	for (i = 0; i < c->armed; i++)
		c->cancelled += exec_timer_cancel(&timers[i]) == 1;
	c->t2 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
}

int bench_timer_churn(const struct bench_opts *opts)
{
	unsigned long n = opts->tasks, i;
	struct exec_timer *timers = NULL;
	int err, ret = BENCH_EXIT_FAIL;
	long long rss0, rss1;
	struct bench_exec be;
	uint64_t *offset;

	offset = malloc(n * sizeof(*offset));
	if (!offset) {
		bench_err("out of memory");
		return BENCH_EXIT_FAIL;
	}
	bench_tchurn_init(&churn, offset, n);

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

	err = churn_arm(be.ex, timers);
	rss1 = bench_rss_kb();
	churn_cancel(timers);
	if (err) {
		bench_err("exec_submit_at: timer %lu: %s", churn.armed,
			  strerror(-err));
		goto out_destroy;
	}
	/* Destroying joins the workers: a timer that ran is counted after. */
	if (bench_exec_destroy(&be) || rss1 < 0)
		goto out_free;
	if (bench_tchurn_verify(&churn))
		goto out_free;

	bench_out_begin(opts, be.threads);
	bench_tchurn_line(&churn, bench_out_line());
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

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: a loop executor's thread that watches its timer base and
 * finds a large batch due at once works through it in time linear in the
 * batch.  A watcher takes one due item a pass and leaves the rest on the
 * base's due list for its next passes; under load (other processes keeping
 * the CPUs busy) it falls behind and finds thousands due, and a pass that
 * walked the whole rest made catching up quadratic: timer_lateness under
 * load had runs hundreds of milliseconds late (Documentation/benchmarks.rst,
 * "Under load").  Timed against the same batch handed over by the clock
 * event device while the loop's thread is away (all of it queued at once),
 * as a ratio, so that a slow build (a sanitizer) moves both sides.  The
 * time is the process's CPU time, not the wall clock's: on a busy machine
 * the test's threads, preempted by other processes while they drain, took
 * up to hundreds of times as long on the wall clock with the linear code,
 * in one side's rounds and not the other's.  The quadratic walk shows only
 * where the clock event device does not take the batch from the watcher
 * first, so a run of the quadratic code fails often, not always.
 */
#include <time.h>

#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define TB_ITEMS	16000U
#define TB_ROUNDS	5
#define TB_AHEAD_NS	(20 * NSEC_PER_MSEC)
#define TB_AWAY_MS	50		/* device path: due long before the run */

struct tb_fx;

struct tb_item {
	struct exec_timer timer;
	struct tb_fx *fx;
};

struct tb_fx {
	struct exec_loop *loop;
	struct tb_item *items;
	unsigned int total;
	unsigned int ran;		/* run on the loop's thread: plain */
	u64 first_ns;
	u64 last_ns;
};

/* The CPU time of the process's threads: what they spent, not waited. */
static u64 tb_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void tb_fn(struct exec_work *work)
{
	struct tb_fx *fx = container_of(work, struct tb_item, timer.work)->fx;

	if (++fx->ran == 1)
		fx->first_ns = tb_cpu_ns();
	if (fx->ran == fx->total) {
		fx->last_ns = tb_cpu_ns();
		exec_loop_make_loop_exit(fx->loop);
	}
}

/*
 * Arms @n items for one deadline on a loop executor whose thread (this
 * one) then runs the loop: with @away, only once they have long been due
 * (the device has queued them all); without, at once, so that it watches
 * the base when they come due.  Returns the process's CPU time from the
 * first item's run to the last's, or 0 on failure.
 */
static u64 tb_drain_ns(struct kunit *test, unsigned int n, bool away)
{
	struct tb_fx fx = { .total = n };
	u64 deadline;
	unsigned int i;

	fx.items = kcalloc(n, sizeof(*fx.items), GFP_KERNEL);
	if (!fx.items || exec_loop_create(&fx.loop)) {
		kfree(fx.items);
		KUNIT_FAIL(test, "no memory for %u timers", n);
		return 0;
	}
	deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) + TB_AHEAD_NS;
	for (i = 0; i < n; i++) {
		fx.items[i].fx = &fx;
		exec_timer_init(&fx.items[i].timer, tb_fn, NULL);
		if (exec_submit_at(exec_loop_executor(fx.loop),
				   &fx.items[i].timer,
				   EXEC_CLOCK_MONOTONIC, deadline))
			break;
	}
	KUNIT_EXPECT_EQ(test, i, n);
	if (away)
		msleep(TB_AHEAD_NS / NSEC_PER_MSEC + TB_AWAY_MS);
	if (i == n)
		KUNIT_EXPECT_EQ(test, exec_loop_run(fx.loop), 0);
	KUNIT_EXPECT_EQ(test, fx.ran, i == n ? n : 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(fx.loop), i == n ? 0 : i);
	kfree(fx.items);
	return fx.ran == n ? fx.last_ns - fx.first_ns + 1 : 0;
}

/*
 * The fastest of TB_ROUNDS drains, or with @median their median: the
 * clock event device's backstop sometimes takes a batch from a watcher
 * that fell behind, and one such round is no proof of linear time.
 */
static u64 tb_rounds_ns(struct kunit *test, unsigned int n, bool away,
			bool median)
{
	u64 ns[TB_ROUNDS], t;
	int r, i;

	for (r = 0; r < TB_ROUNDS; r++) {
		ns[r] = tb_drain_ns(test, n, away);
		if (!ns[r])
			return 0;
		/* Insertion: the list is short. */
		for (i = r; i > 0 && ns[i - 1] > ns[i]; i--) {
			t = ns[i];
			ns[i] = ns[i - 1];
			ns[i - 1] = t;
		}
	}
	return median ? ns[TB_ROUNDS / 2] : ns[0];
}

/*
 * Handed over item by item to the watching thread or all at once to the
 * queue, a batch takes about as long; walking the rest of the batch at
 * every item took far more than 10 times as long.
 */
static void timer_backlog_watcher_drains_in_linear_time(struct kunit *test)
{
	u64 queued = tb_rounds_ns(test, TB_ITEMS, true, false);
	u64 watched = tb_rounds_ns(test, TB_ITEMS, false, true);

	KUNIT_ASSERT_GT(test, queued, 0ULL);
	KUNIT_ASSERT_GT(test, watched, 0ULL);
	kunit_info(test, "%u items: %llu us CPU queued (best), %llu us watched (median)\n",
		   TB_ITEMS, (unsigned long long)(queued / 1000),
		   (unsigned long long)(watched / 1000));
	KUNIT_EXPECT_LT(test, watched, 10 * queued);
}

static struct kunit_case exec_timer_backlog_cases[] = {
	KUNIT_CASE(timer_backlog_watcher_drains_in_linear_time),
	{}
};

static struct kunit_suite exec_timer_backlog_suite = {
	.name = "exec-timer-backlog",
	.test_cases = exec_timer_backlog_cases,
};

kunit_test_suites(&exec_timer_backlog_suite);

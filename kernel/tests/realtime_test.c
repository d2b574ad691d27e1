// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: wall-clock deadlines follow a real change of the
 * system clock.
 *
 * The shared timer suite moves the library's own realtime offset, which
 * takes the same path inside libexec; this suite changes CLOCK_REALTIME
 * itself with do_settimeofday64(), as an administrator or NTP step would,
 * and relies on the kernel's hrtimers (HRTIMER_MODE_ABS on CLOCK_REALTIME
 * are re-evaluated by clock_was_set()) to tell the timer base.  It runs
 * only in the throw-away QEMU guest of scripts/kunit-qemu.sh, and puts the
 * clock back where it would have been, measured on CLOCK_MONOTONIC.
 */
#include <linux/ktime.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define RT_HOUR_NS	(3600ULL * NSEC_PER_SEC)

struct rt_item {
	struct exec_timer timer;
	u64 deadline;
	atomic_t runs;
	atomic_t early;
};

static void rt_run(struct exec_work *work)
{
	struct rt_item *it = container_of(work, struct rt_item, timer.work);

	if (ktime_get_real_ns() < it->deadline)
		exec_test_count(&it->early);
	exec_test_count(&it->runs);
}

/* The wall clock as it was at @real0, @mono0 plus the time since. */
static void rt_restore(u64 real0, u64 mono0)
{
	struct timespec64 ts;

	ts = ns_to_timespec64(real0 + (ktime_get_ns() - mono0));
	do_settimeofday64(&ts);
}

static int rt_set(u64 ns)
{
	struct timespec64 ts = ns_to_timespec64(ns);

	return do_settimeofday64(&ts);
}

/*
 * An item due in an hour runs when the clock is set past its deadline; an
 * item due in 20 ms waits when the clock is set back an hour, and runs when
 * it is set forward again.  Neither runs before its deadline on the clock
 * as it stands when it runs.
 */
static void realtime_deadline_follows_settimeofday(struct kunit *test)
{
	u64 real0 = ktime_get_real_ns(), mono0 = ktime_get_ns();
	struct exec_thread_pool *pool;
	struct rt_item fwd = { }, back = { };
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	ex = exec_thread_pool_executor(pool);
	exec_timer_init(&fwd.timer, rt_run, NULL);
	exec_timer_init(&back.timer, rt_run, NULL);

	fwd.deadline = real0 + RT_HOUR_NS;
	KUNIT_EXPECT_EQ(test, exec_submit_at(ex, &fwd.timer,
					     EXEC_CLOCK_REALTIME,
					     fwd.deadline), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fwd.runs), 0);
	KUNIT_ASSERT_EQ(test, rt_set(ktime_get_real_ns() + 2 * RT_HOUR_NS), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fwd.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));

	back.deadline = ktime_get_real_ns() + 20 * NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, exec_submit_at(ex, &back.timer,
					     EXEC_CLOCK_REALTIME,
					     back.deadline), 0);
	KUNIT_EXPECT_EQ(test, rt_set(ktime_get_real_ns() - RT_HOUR_NS), 0);
	msleep(4 * EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&back.runs), 0);
	KUNIT_EXPECT_EQ(test, rt_set(ktime_get_real_ns() + RT_HOUR_NS), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&back.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));

	rt_restore(real0, mono0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fwd.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&back.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fwd.early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&back.early), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static struct kunit_case exec_realtime_cases[] = {
	KUNIT_CASE(realtime_deadline_follows_settimeofday),
	{}
};

static struct kunit_suite exec_realtime_suite = {
	.name = "exec-kernel-realtime",
	.test_cases = exec_realtime_cases,
};

kunit_test_suites(&exec_realtime_suite);

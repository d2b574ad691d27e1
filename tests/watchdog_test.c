// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The stall watchdog (include/exec/watchdog.h): an item that overruns the
 * threshold is reported once, however long it stays stuck; a queue whose
 * items wait behind it is reported once too; nothing is reported when the
 * watchdog is off; thresholds under 1 ms are refused.  The reports are
 * counted here; tests/user/managed_queue_log_test.c checks their text.
 */
#include "exec_test.h"
#include "internal.h"

#define WD_TEST_THRESH_NS	(20ULL * 1000 * 1000)
/* Several of the watchdog's looks (every quarter of the threshold). */
#define WD_TEST_MORE_LOOKS_MS	150

struct wd_fixture {
	struct exec_thread_pool *pool;
	struct exec_test_gate gate;
	struct exec_work stuck, behind;
	atomic_t ran;
	u64 old_thresh;
};

static void wd_stuck_fn(struct exec_work *work)
{
	struct wd_fixture *fx = container_of(work, struct wd_fixture, stuck);

	exec_test_gate_pass(&fx->gate);
	exec_test_count(&fx->ran);
}

static void wd_behind_fn(struct exec_work *work)
{
	struct wd_fixture *fx = container_of(work, struct wd_fixture, behind);

	exec_test_count(&fx->ran);
}

/* A pool of one worker named "wd-test", the watchdog at @thresh. */
static void wd_setup(struct kunit *test, struct wd_fixture *fx, u64 thresh)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1,
		.thread = { .name = "wd-test" },
	};

	memset(fx, 0, sizeof(*fx));
	exec_test_gate_init(&fx->gate);
	exec_work_init(&fx->stuck, wd_stuck_fn);
	exec_work_init(&fx->behind, wd_behind_fn);
	fx->old_thresh = exec_watchdog_thresh();
	KUNIT_ASSERT_EQ(test, exec_watchdog_set(thresh), 0);
	KUNIT_EXPECT_EQ(test, exec_watchdog_thresh(), thresh);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
}

static void wd_finish(struct kunit *test, struct wd_fixture *fx, int ran)
{
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->ran), ran);
	KUNIT_EXPECT_EQ(test, exec_watchdog_set(fx->old_thresh), 0);
}

/* The fixture's pool's own: another pool may stall on a loaded machine. */
static unsigned long wd_reports(struct wd_fixture *fx)
{
	return exec_watchdog_test_pool_reports(fx->pool);
}

/* Waits until @n reports have been made of the fixture's pool. */
static bool wd_wait_reports(struct wd_fixture *fx, unsigned long n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (wd_reports(fx) < n) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

/* Waits until the library's count of reports reaches @n. */
static bool wd_wait_library_reports(unsigned long n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (exec_watchdog_test_reports() < n) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

static void watchdog_reports_an_overrunning_item_once(struct kunit *test)
{
	struct wd_fixture fx;
	unsigned long all;

	wd_setup(test, &fx, WD_TEST_THRESH_NS);
	all = exec_watchdog_test_reports();
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx.pool),
					  &fx.stuck), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	/* Reported while it is still stuck... */
	KUNIT_EXPECT_TRUE(test, wd_wait_reports(&fx, 1));
	/*
	 * ...in the library's count too, with any other pool's: counted
	 * once written, which may be after the pool's count moved.
	 */
	KUNIT_EXPECT_TRUE(test, wd_wait_library_reports(all + 1));
	/* ...and not again at the watchdog's later looks. */
	msleep(WD_TEST_MORE_LOOKS_MS);
	KUNIT_EXPECT_EQ(test, wd_reports(&fx), 1UL);
	wd_finish(test, &fx, 1);
}

static void watchdog_reports_a_stalled_queue_once(struct kunit *test)
{
	struct wd_fixture fx;

	wd_setup(test, &fx, WD_TEST_THRESH_NS);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx.pool),
					  &fx.stuck), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	/* Queued behind it: the pool starts nothing while it is stuck. */
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx.pool),
					  &fx.behind), 0);
	/* The stuck item, and the queue. */
	KUNIT_EXPECT_TRUE(test, wd_wait_reports(&fx, 2));
	msleep(WD_TEST_MORE_LOOKS_MS);
	KUNIT_EXPECT_EQ(test, wd_reports(&fx), 2UL);
	wd_finish(test, &fx, 2);
}

static void watchdog_off_reports_nothing(struct kunit *test)
{
	struct wd_fixture fx;
	unsigned long all;

	wd_setup(test, &fx, 0);
	KUNIT_EXPECT_EQ(test, exec_watchdog_thresh(), 0ULL);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx.pool),
					  &fx.stuck), 0);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx.pool),
					  &fx.behind), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	all = exec_watchdog_test_reports();
	msleep(WD_TEST_MORE_LOOKS_MS);
	KUNIT_EXPECT_EQ(test, wd_reports(&fx), 0UL);
	/* Off: no pool's stall is reported. */
	KUNIT_EXPECT_EQ(test, exec_watchdog_test_reports(), all);
	wd_finish(test, &fx, 2);
}

static void watchdog_refuses_a_tiny_threshold(struct kunit *test)
{
	u64 old = exec_watchdog_thresh();

	KUNIT_EXPECT_EQ(test, exec_watchdog_set(999999), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_watchdog_set(1), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_watchdog_thresh(), old);
}

static struct kunit_case exec_watchdog_cases[] = {
	KUNIT_CASE(watchdog_reports_an_overrunning_item_once),
	KUNIT_CASE(watchdog_reports_a_stalled_queue_once),
	KUNIT_CASE(watchdog_off_reports_nothing),
	KUNIT_CASE(watchdog_refuses_a_tiny_threshold),
	{}
};

static struct kunit_suite exec_watchdog_suite = {
	.name = "exec-watchdog",
	.test_cases = exec_watchdog_cases,
};

kunit_test_suites(&exec_watchdog_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: steps of the kernel module's exit (kernel/module.c),
 * which no userspace process takes by itself, run in the middle of the
 * test process.  exec_static_context_release() tears down the inline
 * executor's context (its services are shut down and destroyed) and the
 * next use makes a new, empty one; exec_default_shutdown() stops the
 * built-in pool (its threads are gone), gives back an installed default
 * executor (it may then be destroyed), frees the calling thread's closures
 * and those of threads that exited, and the next use of the default
 * executor starts a new built-in pool; exec_watchdog_exit() stops the
 * watchdog until exec_watchdog_set() starts it again.  None of this can be
 * done from the kernel's test module: exec.ko's own state is in use by
 * every other module.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

static const struct exec_service_key le_key = { .name = "library-exit" };

struct le_service {
	struct exec_service svc;
	atomic_t shutdowns;
	atomic_t destroys;
};

static void le_shutdown(struct exec_service *svc)
{
	atomic_inc(&container_of(svc, struct le_service, svc)->shutdowns);
}

/* The object is the test's: the count is all destroy does. */
static void le_destroy(struct exec_service *svc)
{
	atomic_inc(&container_of(svc, struct le_service, svc)->destroys);
}

static const struct exec_service_ops le_ops = {
	.shutdown = le_shutdown,
	.destroy = le_destroy,
};

static void library_exit_inline_context_released(struct kunit *test)
{
	struct exec_context *ctx, *again;
	struct le_service *s = kzalloc(sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	exec_service_init(&s->svc, &le_key, &le_ops);
	ctx = exec_executor_context(exec_inline_executor());
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, exec_make_service(ctx, &s->svc), 0);

	exec_static_context_release();
	KUNIT_EXPECT_EQ(test, atomic_read(&s->shutdowns), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->destroys), 1);

	again = exec_executor_context(exec_inline_executor());
	KUNIT_EXPECT_NOT_NULL(test, again);
	KUNIT_EXPECT_FALSE(test, exec_has_service(again, &le_key));
	kfree(s);
}

struct le_run {
	struct exec_thread_pool *pool;
	atomic_t ran;
	bool on_pool;
};

static void le_run_fn(void *arg)
{
	struct le_run *r = arg;

	r->on_pool = exec_thread_pool_running_in_this_thread(r->pool);
	exec_test_count(&r->ran);
}

/* Runs a closure on the default executor; whether it ran on @r->pool. */
static bool le_run_default(struct kunit *test, struct le_run *r)
{
	atomic_set(&r->ran, 0);
	r->on_pool = false;
	KUNIT_EXPECT_EQ(test, exec_default_submit_fn(le_run_fn, r), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&r->ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	return r->on_pool;
}

static void library_exit_default_shutdown(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_executor *ex, *old;
	struct le_run r = {};
	unsigned long before;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&r.pool, &attr), 0);
	ex = exec_thread_pool_executor(r.pool);
	/* The built-in pool, started if it was not. */
	old = exec_set_default_executor(NULL);
	KUNIT_EXPECT_NULL(test, old);
	KUNIT_EXPECT_FALSE(test, le_run_default(test, &r));
	KUNIT_EXPECT_GT(test, exec_test_count_threads("exec-system/"), 0U);
	/* Flushed: its closures are finished when this returns. */
	KUNIT_EXPECT_EQ(test, exec_executor_flush(exec_default_executor()), 0);

	/* An installed default, which runs a closure of this thread's. */
	KUNIT_EXPECT_NULL(test, exec_set_default_executor(ex));
	KUNIT_EXPECT_TRUE(test, le_run_default(test, &r));
	KUNIT_EXPECT_EQ(test, exec_executor_flush(ex), 0);
	before = exec_closures_allocated();
	KUNIT_EXPECT_GT(test, before, 0UL);

	exec_default_shutdown();
	KUNIT_EXPECT_EQ(test, exec_test_count_threads("exec-system/"), 0U);
	/* This thread's ring at least, and the built-in workers' ones. */
	KUNIT_EXPECT_LT(test, exec_closures_allocated(), before);
	/* Given back: the default is the built-in pool again, a new one. */
	KUNIT_EXPECT_PTR_NE(test, exec_default_executor(), ex);
	KUNIT_EXPECT_FALSE(test, le_run_default(test, &r));
	KUNIT_EXPECT_GT(test, exec_test_count_threads("exec-system/"), 0U);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(r.pool), 0);
}

#define LE_WD_THRESH_NS		(20ULL * 1000 * 1000)
/* Several of the watchdog's looks (every quarter of the threshold). */
#define LE_WD_LOOKS_MS		150

struct le_stall {
	struct exec_work work;
	struct exec_test_gate gate;
};

static void le_stall_fn(struct exec_work *work)
{
	exec_test_gate_pass(&container_of(work, struct le_stall, work)->gate);
}

/* Waits until the watchdog has reported @pool's stall. */
static bool le_wait_report(struct exec_thread_pool *pool)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (!exec_watchdog_test_pool_reports(pool)) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

/*
 * exec_watchdog_exit() stops the watchdog's clock: an item stuck past the
 * threshold is not reported, though the threshold is still set; a later
 * exec_watchdog_set() starts the watchdog afresh, and the stall is
 * reported.
 */
static void library_exit_watchdog_stopped(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .thread = { .name = "le-wd" },
	};
	u64 old = exec_watchdog_thresh();
	struct exec_thread_pool *pool;
	struct le_stall *st = kzalloc(sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	exec_test_gate_init(&st->gate);
	exec_work_init(&st->work, le_stall_fn);
	KUNIT_ASSERT_EQ(test, exec_watchdog_set(LE_WD_THRESH_NS), 0);
	exec_watchdog_exit();
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(pool),
					  &st->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&st->gate, 1));
	msleep(LE_WD_LOOKS_MS);
	KUNIT_EXPECT_EQ(test, exec_watchdog_test_pool_reports(pool), 0UL);

	KUNIT_EXPECT_EQ(test, exec_watchdog_set(LE_WD_THRESH_NS), 0);
	KUNIT_EXPECT_TRUE(test, le_wait_report(pool));
	exec_test_gate_open(&st->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, exec_watchdog_set(old), 0);
	kfree(st);
}

static struct kunit_case exec_library_exit_cases[] = {
	KUNIT_CASE(library_exit_inline_context_released),
	KUNIT_CASE(library_exit_default_shutdown),
	KUNIT_CASE(library_exit_watchdog_stopped),
	{}
};

static struct kunit_suite exec_library_exit_suite = {
	.name = "exec-library-exit",
	.test_cases = exec_library_exit_cases,
};

kunit_test_suites(&exec_library_exit_suite);

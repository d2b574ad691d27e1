// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A work item is never re-entered (the kernel's workqueues guarantee it,
 * and Documentation/migration.rst maps queue_work() to exec_submit() on a
 * thread pool): an item submitted again while it runs runs after that run
 * ends, not beside it on another worker.  FAILS on the tree of 2026-11-29
 * (2bf6467): the second run starts at once on the pool's other worker.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define RE_ROUNDS	20
#define RE_RUN_MS	20

struct re_fx {
	struct exec_work work;
	atomic_t inside;
	atomic_t overlaps;
	atomic_t runs;
	atomic_t started;
};

static void re_fn(struct exec_work *work)
{
	struct re_fx *fx = container_of(work, struct re_fx, work);

	if (atomic_inc_return(&fx->inside) > 1)
		atomic_inc(&fx->overlaps);
	atomic_inc(&fx->started);
	msleep(RE_RUN_MS);
	atomic_dec(&fx->inside);
	atomic_inc(&fx->runs);
}

static void reentrance_pool_runs_an_item_once_at_a_time(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct re_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_work_init(&fx->work, re_fn);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	for (i = 0; i < RE_ROUNDS; i++) {
		/* Submitted again once the previous run has started. */
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->started,
					i, EXEC_TEST_TIMEOUT_MS));
		while (exec_submit(ex, &fx->work) == -EBUSY)
			msleep(1);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_work_flush(ex, &fx->work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	kfree(fx);
}

static struct kunit_case exec_reentrance_cases[] = {
	KUNIT_CASE(reentrance_pool_runs_an_item_once_at_a_time),
	{}
};

static struct kunit_suite exec_reentrance_suite = {
	.name = "exec-reentrance",
	.test_cases = exec_reentrance_cases,
};

kunit_test_suite(exec_reentrance_suite);

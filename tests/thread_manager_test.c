// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The thread manager (include/exec/thread_manager.h): its queues run their
 * items and the pool behind them grows while they block; thread_limit holds
 * on a growing pool; queues spread over the pools; destroy waits for the
 * work of queues already destroyed and refuses new queues meanwhile; bad
 * attributes.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define TM_ITEMS	24

struct tm_fx;

struct tm_item {
	struct exec_work work;
	struct tm_fx *fx;
};

struct tm_fx {
	struct exec_test_gate gate;
	atomic_t runs;
	atomic_t blockers_in;
	atomic_t inside;
	atomic_t max_inside;
	struct tm_item blocker;
	struct tm_item plain;
	struct tm_item items[TM_ITEMS];
};

static struct tm_fx *tm_fx_of(struct exec_work *work)
{
	return container_of(work, struct tm_item, work)->fx;
}

static void tm_blocker_fn(struct exec_work *work)
{
	struct tm_fx *fx = tm_fx_of(work);

	exec_test_count(&fx->blockers_in);
	exec_test_gate_pass(&fx->gate);
	exec_test_count(&fx->runs);
}

static void tm_plain_fn(struct exec_work *work)
{
	exec_test_count(&tm_fx_of(work)->runs);
}

/* Sleeps a little, recording how many of its kind run at once. */
static void tm_limited_fn(struct exec_work *work)
{
	struct tm_fx *fx = tm_fx_of(work);
	int in = atomic_inc_return(&fx->inside);
	int max = atomic_read(&fx->max_inside);

	while (in > max && atomic_cmpxchg(&fx->max_inside, max, in) != max)
		max = atomic_read(&fx->max_inside);
	msleep(20);
	atomic_dec(&fx->inside);
	exec_test_count(&fx->runs);
}

static struct tm_fx *tm_fx_alloc(void)
{
	struct tm_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i;

	if (!fx)
		return NULL;
	exec_test_gate_init(&fx->gate);
	fx->blocker.fx = fx;
	fx->plain.fx = fx;
	exec_work_init(&fx->blocker.work, tm_blocker_fn);
	exec_work_init(&fx->plain.work, tm_plain_fn);
	for (i = 0; i < TM_ITEMS; i++) {
		fx->items[i].fx = fx;
		exec_work_init(&fx->items[i].work, tm_limited_fn);
	}
	return fx;
}

/* A blocked item does not hold up the queue's next one. */
static void manager_queue_grows_past_a_blocked_item(struct kunit *test)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 1,
		.pool = { .nr_threads = 1, .concurrency = 1, .max_threads = 4 },
	};
	struct exec_managed_queue *q;
	struct exec_thread_manager *m;
	struct exec_executor *qex;
	struct tm_fx *fx = tm_fx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&m, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_new_queue(m, &q, NULL), 0);
	qex = exec_managed_queue_executor(q);
	KUNIT_EXPECT_EQ(test, exec_submit(qex, &fx->blocker.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->blockers_in, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_submit(qex, &fx->plain.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->gate.open), 0);
	KUNIT_EXPECT_GE(test,
			exec_thread_pool_nr_live(exec_thread_manager_pool(m, 0)),
			2U);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(q), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	KUNIT_EXPECT_GE(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_destroy(m), 0);
	kfree(fx);
}

/* thread_limit holds even though the pool behind it may grow. */
static void manager_thread_limit_holds_on_a_growing_pool(struct kunit *test)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 1,
		.pool = { .nr_threads = 1, .concurrency = 1, .max_threads = 8 },
	};
	struct exec_managed_queue_attr qattr = { .thread_limit = 2 };
	struct exec_managed_queue *q;
	struct exec_thread_manager *m;
	struct tm_fx *fx = tm_fx_alloc();
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&m, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_new_queue(m, &q, &qattr), 0);
	for (i = 0; i < TM_ITEMS; i++)
		KUNIT_EXPECT_EQ(test,
				exec_submit(exec_managed_queue_executor(q),
					    &fx->items[i].work), 0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(q), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), TM_ITEMS);
	KUNIT_EXPECT_LE(test, atomic_read(&fx->max_inside), 2);
	/* They slept: a second one ran beside the first at some point. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->max_inside), 2);
	KUNIT_EXPECT_GE(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_destroy(m), 0);
	kfree(fx);
}

static void manager_queues_spread_over_pools(struct kunit *test)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 3, .pool = { .nr_threads = 1 },
	};
	struct exec_managed_queue *q[4];
	struct exec_thread_manager *m;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&m, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_nr_pools(m), 4U);
	KUNIT_EXPECT_NULL(test, exec_thread_manager_pool(m, 4));
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test,
				exec_thread_manager_new_queue(m, &q[i], NULL),
				0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test,
				exec_executor_dependents(exec_thread_pool_executor(
					exec_thread_manager_pool(m, i))),
				1UL);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q[i]), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_destroy(m), 0);
}

static int tm_destroy_thread(void *arg)
{
	return exec_thread_manager_destroy(arg);
}

/*
 * A destroyed queue's item still runs, and the manager's destroy waits for
 * it; meanwhile it refuses new queues.
 */
static void manager_destroy_waits_for_work_of_destroyed_queues(
	struct kunit *test)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 1, .pool = { .nr_threads = 1 },
	};
	struct exec_managed_queue *q, *late = NULL;
	struct exec_test_thread destroyer;
	struct exec_thread_manager *m;
	struct tm_fx *fx = tm_fx_alloc();

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&m, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_new_queue(m, &q, NULL), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_managed_queue_executor(q),
					  &fx->blocker.work), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_managed_queue_executor(q),
					  &fx->plain.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->blockers_in, 1,
							 EXEC_TEST_TIMEOUT_MS));
	/* Returns while its item still runs; nothing is discarded. */
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&destroyer,
						     tm_destroy_thread, m,
						     "tm-destroy"), 0);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&destroyer));
	KUNIT_EXPECT_EQ(test, exec_thread_manager_new_queue(m, &late, NULL),
			-ESHUTDOWN);
	KUNIT_EXPECT_NULL(test, late);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&destroyer,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, destroyer.ret, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	kfree(fx);
}

static void manager_bad_attributes(struct kunit *test)
{
	struct exec_thread_manager_attr attr = { 0 };
	struct exec_thread_manager *m = NULL;
	struct exec_managed_queue *q;

	attr.n_pools = EXEC_THREAD_MANAGER_MAX_POOLS + 1;
	KUNIT_EXPECT_EQ(test, exec_thread_manager_create(&m, &attr), -EINVAL);
	attr.n_pools = 1;
	attr.pool.per_cpu = true;
	KUNIT_EXPECT_EQ(test, exec_thread_manager_create(&m, &attr), -EINVAL);
	attr.pool.per_cpu = false;
	attr.pool.queue_limit = 8;
	KUNIT_EXPECT_EQ(test, exec_thread_manager_create(&m, &attr), -EINVAL);
	attr.pool.queue_limit = 0;
	attr.pool.nr_threads = 4;
	attr.pool.max_threads = 2;
	KUNIT_EXPECT_EQ(test, exec_thread_manager_create(&m, &attr), -EINVAL);
	KUNIT_EXPECT_NULL(test, m);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_create(NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_new_queue(NULL, &q, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_destroy(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_nr_pools(NULL), 0U);
	/* The defaults: at least one pool, and it works. */
	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&m, NULL), 0);
	KUNIT_EXPECT_GE(test, exec_thread_manager_nr_pools(m), 1U);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_destroy(m), 0);
}

static struct kunit_case exec_thread_manager_cases[] = {
	KUNIT_CASE(manager_queue_grows_past_a_blocked_item),
	KUNIT_CASE(manager_thread_limit_holds_on_a_growing_pool),
	KUNIT_CASE(manager_queues_spread_over_pools),
	KUNIT_CASE(manager_destroy_waits_for_work_of_destroyed_queues),
	KUNIT_CASE(manager_bad_attributes),
	{}
};

static struct kunit_suite exec_thread_manager_suite = {
	.name = "exec-thread-manager",
	.test_cases = exec_thread_manager_cases,
};

kunit_test_suites(&exec_thread_manager_suite);

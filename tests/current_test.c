// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_current_executor() (include/exec/executor.h): inside an item, the
 * executor whose item it is, the innermost one; NULL in a thread that runs
 * no item.  One case per executor kind, and the nestings where two
 * executors share a thread: a strand over a pool, an item dispatched from a
 * strand to its pool, a loop run from a pool's item.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

/*
 * An item that records what exec_current_executor() says when it starts
 * and, after @nest has run inside it, again when it ends.
 */
struct cur_item {
	struct exec_work work;
	struct exec_executor *seen;
	struct exec_executor *seen_after;
	void (*nest)(struct cur_item *it);
	struct exec_executor *nest_ex;
	struct exec_loop *nest_loop;
	struct cur_item *inner;
	atomic_t ran;
};

static void cur_fn(struct exec_work *work)
{
	struct cur_item *it = container_of(work, struct cur_item, work);

	it->seen = exec_current_executor();
	if (it->nest)
		it->nest(it);
	it->seen_after = exec_current_executor();
	exec_test_count(&it->ran);
}

static void cur_closure(void *arg)
{
	cur_fn(&((struct cur_item *)arg)->work);
}

static void cur_init(struct cur_item *it)
{
	memset(it, 0, sizeof(*it));
	exec_work_init(&it->work, cur_fn);
}

/* Submits @it to @ex, waits for it, and checks that it saw @want. */
static void cur_check_on(struct kunit *test, struct exec_executor *ex,
			 struct cur_item *it, struct exec_executor *want)
{
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &it->work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&it->ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_PTR_EQ(test, it->seen, want);
	KUNIT_EXPECT_PTR_EQ(test, it->seen_after, want);
}

static int cur_thread_fn(void *arg)
{
	return exec_current_executor() ? -EINVAL : 0;
}

static void current_is_null_outside_any_item(struct kunit *test)
{
	struct exec_test_thread t;

	KUNIT_EXPECT_NULL(test, exec_current_executor());
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, cur_thread_fn, NULL,
						     "exec-cur"), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, t.ret, 0L);
}

static void current_on_thread_pool(struct kunit *test)
{
	struct exec_thread_pool_attr grow = { .nr_threads = 1,
					      .max_threads = 4 };
	struct exec_thread_pool *pool;
	struct cur_item it;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	cur_init(&it);
	cur_check_on(test, exec_thread_pool_executor(pool), &it,
		     exec_thread_pool_executor(pool));
	/* A closure too, and after the item, still NULL here. */
	cur_init(&it);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_thread_pool_executor(pool),
					     cur_closure, &it), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&it.ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_PTR_EQ(test, it.seen, exec_thread_pool_executor(pool));
	KUNIT_EXPECT_NULL(test, exec_current_executor());
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &grow), 0);
	cur_init(&it);
	cur_check_on(test, exec_thread_pool_executor(pool), &it,
		     exec_thread_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* Inside a strand's item: dispatch to the pool runs right here. */
static void cur_nest_dispatch(struct cur_item *it)
{
	exec_dispatch_fn(it->nest_ex, cur_closure, it->inner);
}

static void current_on_serial_is_the_strand(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_executor *pex, *sex;
	struct cur_item it, inner;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	pex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, pex), 0);
	sex = exec_serial_executor(serial);
	cur_init(&it);
	cur_check_on(test, sex, &it, sex);

	/* The pool's item inside the strand's, then the strand's again. */
	cur_init(&it);
	cur_init(&inner);
	it.nest = cur_nest_dispatch;
	it.nest_ex = pex;
	it.inner = &inner;
	cur_check_on(test, sex, &it, sex);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.ran), 1);
	KUNIT_EXPECT_PTR_EQ(test, inner.seen, pex);

	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void current_on_priority_and_managed_queue(struct kunit *test)
{
	struct exec_managed_queue *q;
	struct exec_thread_pool *pool;
	struct exec_priority *prio;
	struct exec_executor *pex;
	struct cur_item it;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	pex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio, pex, NULL), 0);
	cur_init(&it);
	cur_check_on(test, exec_priority_executor(prio), &it,
		     exec_priority_executor(prio));
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);

	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q, pex, NULL), 0);
	cur_init(&it);
	cur_check_on(test, exec_managed_queue_executor(q), &it,
		     exec_managed_queue_executor(q));
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(q), 0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void current_on_loop(struct kunit *test)
{
	struct exec_loop *loop;
	struct exec_executor *lex;
	struct cur_item it;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	lex = exec_loop_executor(loop);
	cur_init(&it);
	KUNIT_ASSERT_EQ(test, exec_submit(lex, &it.work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.ran), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.ran), 1);
	KUNIT_EXPECT_PTR_EQ(test, it.seen, lex);
	/* The run is over: this thread runs nothing again. */
	KUNIT_EXPECT_NULL(test, exec_current_executor());
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

/* Inside a pool's item: run a loop's items, which are the loop's. */
static void cur_nest_loop(struct cur_item *it)
{
	exec_loop_run_queued_closures(it->nest_loop);
}

static void current_loop_run_inside_pool_item(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_executor *pex;
	struct cur_item it, inner;
	struct exec_loop *loop;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	pex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	cur_init(&inner);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_loop_executor(loop),
					  &inner.work), 0);
	cur_init(&it);
	it.nest = cur_nest_loop;
	it.nest_loop = loop;
	cur_check_on(test, pex, &it, pex);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner.ran), 1);
	KUNIT_EXPECT_PTR_EQ(test, inner.seen, exec_loop_executor(loop));
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void current_on_loop_scheduler(struct kunit *test)
{
	struct exec_loop_scheduler *ls;
	struct exec_executor *lex;
	struct cur_item it;

	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	lex = exec_loop_scheduler_executor(ls);
	cur_init(&it);
	KUNIT_ASSERT_EQ(test, exec_submit(lex, &it.work), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(ls), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.ran), 1);
	KUNIT_EXPECT_PTR_EQ(test, it.seen, lex);
	KUNIT_EXPECT_NULL(test, exec_current_executor());
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), 0L);
}

static void current_on_inline_and_thread_per_task(struct kunit *test)
{
	struct exec_thread_per_task *tpt;
	struct cur_item it;

	cur_init(&it);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_inline_executor(), &it.work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.ran), 1);
	KUNIT_EXPECT_PTR_EQ(test, it.seen, exec_inline_executor());
	KUNIT_EXPECT_NULL(test, exec_current_executor());

	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);
	cur_init(&it);
	cur_check_on(test, exec_thread_per_task_executor(tpt), &it,
		     exec_thread_per_task_executor(tpt));
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
}

static struct kunit_case exec_current_cases[] = {
	KUNIT_CASE(current_is_null_outside_any_item),
	KUNIT_CASE(current_on_thread_pool),
	KUNIT_CASE(current_on_serial_is_the_strand),
	KUNIT_CASE(current_on_priority_and_managed_queue),
	KUNIT_CASE(current_on_loop),
	KUNIT_CASE(current_loop_run_inside_pool_item),
	KUNIT_CASE(current_on_loop_scheduler),
	KUNIT_CASE(current_on_inline_and_thread_per_task),
	{}
};

static struct kunit_suite exec_current_suite = {
	.name = "exec-current",
	.test_cases = exec_current_cases,
};

kunit_test_suites(&exec_current_suite);

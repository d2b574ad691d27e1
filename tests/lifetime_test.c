// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Lifetimes (include/exec/executor.h): an executor that something still
 * depends on is not destroyed.  For each kind of dependent, destroy fails
 * with -EBUSY and leaves the executor working, and succeeds once the
 * dependent has gone; every destroy function makes the check.  Timed items
 * armed on an executor are no dependents: destroy discards them.
 *
 * Each refusal also reports a warning (stderr, or pr_warn() and a
 * WARN_ON_ONCE() that check-kernel expects).
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

struct lt_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	atomic_t runs;
	atomic_t discards;
	long result;
};

static struct lt_fx *lt_create(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct lt_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

	if (!fx)
		return NULL;
	fx->test = test;
	if (exec_thread_pool_create(&fx->pool, &attr)) {
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_thread_pool_executor(fx->pool);
	return fx;
}

/* A new pool for a fixture whose pool was destroyed. */
static struct lt_fx *lt_recreate(struct lt_fx *fx)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };

	if (exec_thread_pool_create(&fx->pool, &attr)) {
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_thread_pool_executor(fx->pool);
	return fx;
}

/* Destroys the pool unless a case did; frees the fixture. */
static void lt_finish(struct lt_fx *fx)
{
	if (fx->pool)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool),
				0L);
	kfree(fx);
}

static void lt_count(void *arg)
{
	struct lt_fx *fx = arg;

	exec_test_count(&fx->runs);
}

static void lt_result(void *arg, long result)
{
	struct lt_fx *fx = arg;

	fx->result = result;
	exec_test_count(&fx->runs);
}

/* The executor still runs what it is given: one more closure runs on @ex. */
static bool lt_still_works(struct lt_fx *fx, struct exec_executor *ex)
{
	int before = atomic_read(&fx->runs);

	if (exec_submit_fn(ex, lt_count, fx))
		return false;
	return exec_test_wait_atomic_ge(&fx->runs, before + 1,
					EXEC_TEST_TIMEOUT_MS);
}

/* The first row: the installed default executor. */
static void lifetime_installed_default_not_destroyed(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_NULL(test, exec_set_default_executor(fx->ex));
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	/* Still the default, still running what it is given. */
	KUNIT_EXPECT_PTR_EQ(test, exec_default_executor(), fx->ex);
	KUNIT_EXPECT_EQ(test, exec_default_submit_fn(lt_count, fx), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	/* Replaced, it is given back and nothing reaches it any more. */
	KUNIT_EXPECT_PTR_EQ(test, exec_set_default_executor(NULL), fx->ex);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 0UL);
	lt_finish(fx);
}

/* Installed twice, replaced once: still installed, still refused. */
static void lifetime_default_installed_again_counts_once(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_NULL(test, exec_set_default_executor(fx->ex));
	KUNIT_EXPECT_PTR_EQ(test, exec_set_default_executor(fx->ex), fx->ex);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, exec_set_default_executor(NULL), fx->ex);
	lt_finish(fx);
}

/* The second row: a serial executor over a pool. */
static void lifetime_serial_keeps_underlying_pool(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_serial *serial;
	struct exec_executor *sex;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, fx->ex), 0);
	sex = exec_serial_executor(serial);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, sex));
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 0UL);
	lt_finish(fx);
}

/* A priority executor over a pool keeps it, and is kept by a serial. */
static void lifetime_priority_keeps_underlying_pool(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_priority *prio;
	struct exec_serial *serial;
	struct exec_executor *pex;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio, fx->ex, NULL), 0);
	pex = exec_priority_executor(prio);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, pex));
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, pex), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, exec_serial_executor(serial)));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 0UL);
	lt_finish(fx);
}

struct lt_timer {
	struct exec_timer timer;
	struct lt_fx *fx;
};

static void lt_timer_run(struct exec_work *work)
{
}

static void lt_timer_discard(struct exec_work *work)
{
	struct lt_timer *t = container_of(work, struct lt_timer, timer.work);

	exec_test_count(&t->fx->discards);
}

/*
 * The third row, kept: a timed item armed on the pool is no
 * dependent; destroy discards it and a later cancel finds nothing.
 */
static void lifetime_armed_timed_item_discarded_by_destroy(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct lt_timer t;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_timer_init(&t.timer, lt_timer_run, lt_timer_discard);
	t.fx = fx;
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &t.timer,
						3600ULL * 1000000000ULL), 0);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 1L);
	fx->pool = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discards), 1);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&t.timer), 0);
	lt_finish(fx);
}

/* A serial executor over each kind of executor keeps it from going. */
static void lifetime_every_destroy_checks_for_serials(struct kunit *test)
{
	struct exec_loop_scheduler *ls;
	struct exec_thread_per_task *tpt;
	struct exec_serial *outer, *s_loop, *s_ls, *s_tpt, *s_outer;
	struct lt_fx *fx = lt_create(test);
	struct exec_loop *loop;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&outer, fx->ex), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&s_loop,
						 exec_loop_executor(loop)), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&s_ls,
						 exec_loop_scheduler_executor(ls)),
			0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&s_tpt,
						 exec_thread_per_task_executor(tpt)),
			0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&s_outer,
						 exec_serial_executor(outer)),
			0);

	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(outer), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);

	/* Each still works: through the serial executor over it. */
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_serial_executor(s_loop),
					     lt_count, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_serial_executor(s_ls),
					     lt_count, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run(ls), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx,
					       exec_serial_executor(s_tpt)));
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx,
					       exec_serial_executor(s_outer)));

	KUNIT_EXPECT_EQ(test, exec_serial_destroy(s_loop), 0L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(s_ls), 0L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(s_tpt), 0L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(s_outer), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	/* The pool still has @outer over it. */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(outer), 0L);
	lt_finish(fx);
}

/* Work guards, and units of outstanding work taken by hand. */
static void lifetime_work_guard_keeps_executor(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_work_guard guard;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(&guard, fx->ex), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&guard), 0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&guard), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 0UL);

	exec_on_work_started(fx->ex);
	exec_on_work_started(fx->ex);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 2UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	exec_on_work_finished(fx->ex);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	exec_on_work_finished(fx->ex);
	lt_finish(fx);
}

/* A continuation registered on the pool, until its future completes. */
static void lifetime_future_continuation_keeps_executor(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_future *fut;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, fx->ex, lt_result, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	/* Completed here: the hand-over is over when this returns. */
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 42), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->result, 42L);
	exec_future_put(fut);
	lt_finish(fx);
}

/* Completes a future from a worker of another pool; drops its reference. */
static void lt_complete(void *arg)
{
	struct exec_future *fut = arg;

	exec_future_complete(fut, 1);
	exec_future_put(fut);
}

/*
 * A continuation completed by a worker of another pool: once it has run,
 * its executor may be destroyed at once (destroy waits out the completer's
 * hand-over instead of refusing).
 */
static void lifetime_continuation_handed_over_by_other_thread(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_thread_pool *other;
	struct exec_future *fut;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&other, NULL), 0);
	for (i = 0; i < 50; i++) {
		atomic_set(&fx->runs, 0);
		KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
		KUNIT_EXPECT_EQ(test, exec_future_then(fut, fx->ex, lt_result,
						       fx), 0);
		/* Completed by a worker of @other. */
		KUNIT_EXPECT_EQ(test,
				exec_submit_fn(exec_thread_pool_executor(other),
					       lt_complete, exec_future_get(fut)),
				0);
		exec_future_put(fut);
		KUNIT_EXPECT_TRUE(test,
				  exec_test_wait_atomic_ge(&fx->runs, 1,
							   EXEC_TEST_TIMEOUT_MS));
		/* Seen to have run: no refusal, however far the completer is. */
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0L);
		fx->pool = NULL;
		if (i + 1 < 50) {
			fx = lt_recreate(fx);
			KUNIT_ASSERT_NOT_NULL(test, fx);
		}
	}
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(other), 0L);
	lt_finish(fx);
}

static void lt_group_item(struct exec_group_item *item)
{
}

/* A group notification armed on the pool, until the group empties. */
static void lifetime_group_notify_keeps_executor(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_group_item item;
	struct exec_group *g;
	struct exec_loop *loop;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_ASSERT_EQ(test, exec_group_create(&g), 0);
	exec_group_item_init(&item, lt_group_item, NULL);
	/* The item waits in the loop, so the group is not empty. */
	KUNIT_EXPECT_EQ(test, exec_group_submit(g, exec_loop_executor(loop),
						&item), 0);
	KUNIT_EXPECT_EQ(test, exec_group_notify(g, fx->ex, lt_count, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	/* The group empties on this thread: the notification fires. */
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0L);
	fx->pool = NULL;
	KUNIT_EXPECT_EQ(test, exec_group_destroy(g), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	lt_finish(fx);
}

/* A latch continuation on the pool, until the latch opens. */
static void lifetime_latch_continuation_keeps_executor(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_latch latch;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_latch_init(&latch, 1, fx->ex, lt_count, fx),
			0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, fx->ex));
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&latch), 1);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&latch, 10000000000ULL), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	/* Without a continuation a latch names no executor. */
	KUNIT_EXPECT_EQ(test, exec_latch_init(&latch, 1, NULL, NULL, NULL), 0);
	lt_finish(fx);
}

/* A handler bound to the pool, until it is unbound. */
static void lifetime_bound_handler_keeps_executor(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_handler h;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, fx->ex, lt_result, fx),
			0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&h, NULL, 7), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->result, 7L);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), 0);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(NULL), -EINVAL);
	lt_finish(fx);
}

/* Several kinds at once: each must go before destroy succeeds. */
static void lifetime_several_dependents_all_counted(struct kunit *test)
{
	struct lt_fx *fx = lt_create(test);
	struct exec_work_guard guard;
	struct exec_serial *a, *b;
	struct exec_handler h;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&a, fx->ex), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&b, fx->ex), 0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(&guard, fx->ex), 0);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, fx->ex, lt_result, fx),
			0);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 4UL);
	KUNIT_EXPECT_EQ(test, exec_executor_check_unused(fx->ex), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(a), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&guard), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), (long)-EBUSY);
	KUNIT_EXPECT_TRUE(test, lt_still_works(fx, exec_serial_executor(b)));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(b), 0L);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(fx->ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_executor_check_unused(fx->ex), 0);
	KUNIT_EXPECT_EQ(test, exec_executor_check_unused(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(NULL), 0UL);
	lt_finish(fx);
}

static struct kunit_case exec_lifetime_cases[] = {
	KUNIT_CASE(lifetime_installed_default_not_destroyed),
	KUNIT_CASE(lifetime_default_installed_again_counts_once),
	KUNIT_CASE(lifetime_serial_keeps_underlying_pool),
	KUNIT_CASE(lifetime_priority_keeps_underlying_pool),
	KUNIT_CASE(lifetime_armed_timed_item_discarded_by_destroy),
	KUNIT_CASE(lifetime_every_destroy_checks_for_serials),
	KUNIT_CASE(lifetime_work_guard_keeps_executor),
	KUNIT_CASE(lifetime_future_continuation_keeps_executor),
	KUNIT_CASE(lifetime_continuation_handed_over_by_other_thread),
	KUNIT_CASE(lifetime_group_notify_keeps_executor),
	KUNIT_CASE(lifetime_latch_continuation_keeps_executor),
	KUNIT_CASE(lifetime_bound_handler_keeps_executor),
	KUNIT_CASE(lifetime_several_dependents_all_counted),
	{}
};

static struct kunit_suite exec_lifetime_suite = {
	.name = "exec-lifetime",
	.test_cases = exec_lifetime_cases,
};

kunit_test_suites(&exec_lifetime_suite);

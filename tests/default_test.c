// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The default executor (include/exec/executor.h): the built-in pool, its
 * replacement by exec_set_default_executor() and the promise that, once the
 * replacement returns, no submission still uses the old one, so it may be
 * destroyed at once while other threads keep submitting.
 *
 * Every case puts the built-in default back before it returns.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define DF_PRODUCERS	3
#define DF_PER_PRODUCER	20000U
#define DF_SWAPS	40

struct default_fx;

struct dw {
	struct exec_work work;
	struct default_fx *fx;
	atomic_t runs;
	bool on_pool;
	bool accepted;		/* set by the submitter */
};

struct df_producer {
	struct default_fx *fx;
	struct exec_test_thread thread;
	struct dw *items;
	unsigned int accepted;
	unsigned int errors;
	int first_error;
};

struct default_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	atomic_t total_runs;
	atomic_t stop;
	struct dw item;
	struct df_producer producers[DF_PRODUCERS];
};

static void dw_func(struct exec_work *work)
{
	struct dw *w = container_of(work, struct dw, work);

	if (w->fx->pool)
		w->on_pool = exec_thread_pool_running_in_this_thread(w->fx->pool);
	exec_test_count(&w->fx->total_runs);
	/*
	 * Last: the built-in pool is never destroyed, so a case that saw this
	 * count may free @w at once.
	 */
	exec_test_count(&w->runs);
}

static void dw_closure(void *arg)
{
	dw_func(&((struct dw *)arg)->work);
}

static void default_executor_is_non_null_and_runs_work(struct kunit *test)
{
	struct default_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	struct exec_executor *ex = exec_default_executor();

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, ex);
	KUNIT_EXPECT_PTR_EQ(test, exec_default_executor(), ex);
	exec_work_init(&fx->item.work, dw_func);
	fx->item.fx = fx;
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->item.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->item.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_default_submit(&fx->item.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->item.runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_default_submit_fn(dw_closure, &fx->item), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->item.runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_default_submit(NULL), -EINVAL);
}

static void default_set_returns_previous_and_submissions_follow(struct kunit *test)
{
	struct default_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	struct exec_executor *builtin, *pool_ex;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	builtin = exec_default_executor();
	KUNIT_ASSERT_NOT_NULL(test, builtin);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, NULL), 0);
	pool_ex = exec_thread_pool_executor(fx->pool);
	exec_work_init(&fx->item.work, dw_func);
	fx->item.fx = fx;

	/* Replacing the built-in pool answers NULL. */
	KUNIT_EXPECT_NULL(test, exec_set_default_executor(pool_ex));
	KUNIT_EXPECT_PTR_EQ(test, exec_default_executor(), pool_ex);
	KUNIT_EXPECT_EQ(test, exec_default_submit(&fx->item.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->item.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, fx->item.on_pool);
	fx->item.on_pool = false;
	KUNIT_EXPECT_EQ(test, exec_default_submit_fn(dw_closure, &fx->item), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->item.runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, fx->item.on_pool);

	/* Setting it again answers the pool; NULL restores the built-in. */
	KUNIT_EXPECT_PTR_EQ(test, exec_set_default_executor(pool_ex), pool_ex);
	KUNIT_EXPECT_PTR_EQ(test, exec_set_default_executor(NULL), pool_ex);
	KUNIT_EXPECT_PTR_EQ(test, exec_default_executor(), builtin);
	KUNIT_EXPECT_NULL(test, exec_set_default_executor(NULL));
	KUNIT_EXPECT_EQ(test, exec_default_submit(&fx->item.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->item.runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_FALSE(test, fx->item.on_pool);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->pool = NULL;
}

static int df_produce(void *arg)
{
	struct df_producer *p = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < DF_PER_PRODUCER; i++) {
		ret = exec_default_submit(&p->items[i].work);
		p->items[i].accepted = !ret;
		if (ret) {
			if (!p->errors++)
				p->first_error = ret;
		} else {
			p->accepted++;
		}
		/* Spread the submissions over the replacements. */
		if ((i & 255) == 255 && !atomic_read(&p->fx->stop))
			msleep(1);
	}
	return 0;
}

/*
 * Producers submit through exec_default_submit() while the test replaces
 * the default again and again, destroying each replaced pool as soon as
 * exec_set_default_executor() returns.  No submission may fail and every
 * one runs exactly once, on whichever executor took it.
 */
static void default_replacement_racing_submitters_loses_nothing(struct kunit *test)
{
	struct default_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *cur = NULL, *next;
	struct exec_executor *old;
	unsigned int i, j, started = 0, swaps = 0, wrong = 0, accepted = 0;
	bool all_done;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->test = test;
	atomic_set(&fx->total_runs, 0);
	atomic_set(&fx->stop, 0);
	for (i = 0; i < DF_PRODUCERS; i++) {
		struct df_producer *p = &fx->producers[i];

		p->fx = fx;
		p->items = kcalloc(DF_PER_PRODUCER, sizeof(*p->items),
				   GFP_KERNEL);
		if (!p->items) {
			KUNIT_FAIL(test, "out of memory");
			goto out;
		}
		for (j = 0; j < DF_PER_PRODUCER; j++) {
			exec_work_init(&p->items[j].work, dw_func);
			p->items[j].fx = fx;
		}
	}
	for (i = 0; i < DF_PRODUCERS; i++) {
		if (exec_test_thread_start(&fx->producers[i].thread, df_produce,
					   &fx->producers[i], "exec-test-prod"))
			break;
		started++;
	}
	KUNIT_EXPECT_EQ(test, started, (unsigned int)DF_PRODUCERS);

	do {
		if (exec_thread_pool_create(&next, &attr)) {
			KUNIT_FAIL(test, "exec_thread_pool_create failed");
			break;
		}
		old = exec_set_default_executor(exec_thread_pool_executor(next));
		KUNIT_EXPECT_PTR_EQ(test, old,
				    cur ? exec_thread_pool_executor(cur) : NULL);
		/* Safe at once: nobody submits to it any more. */
		if (cur)
			KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(cur), 0);
		cur = next;
		swaps++;
		msleep(2);
		all_done = true;
		for (i = 0; i < started; i++)
			all_done &= exec_test_thread_done(&fx->producers[i].thread);
	} while (!all_done && swaps < DF_SWAPS);
	atomic_set(&fx->stop, 1);

	for (i = 0; i < started; i++)
		if (!exec_test_thread_join(&fx->producers[i].thread,
					   EXEC_TEST_TIMEOUT_MS)) {
			KUNIT_FAIL(test, "producer hangs; leaking");
			return;
		}
	/* Back to the built-in pool; the last one may go too. */
	old = exec_set_default_executor(NULL);
	KUNIT_EXPECT_PTR_EQ(test, old, cur ? exec_thread_pool_executor(cur) : NULL);
	if (cur)
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(cur), 0);
	kunit_info(test, "%u replacements during the submissions", swaps);

	for (i = 0; i < started; i++) {
		KUNIT_EXPECT_EQ_MSG(test, fx->producers[i].errors, 0U,
				    "first error %d", fx->producers[i].first_error);
		accepted += fx->producers[i].accepted;
	}
	/* Items that went to the built-in pool may still be on their way. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 (int)accepted,
							 EXEC_TEST_TIMEOUT_MS));
	for (i = 0; i < started; i++) {
		for (j = 0; j < DF_PER_PRODUCER; j++) {
			struct dw *w = &fx->producers[i].items[j];

			/* Each item's own count comes after the total. */
			if (w->accepted &&
			    !exec_test_wait_atomic_ge(&w->runs, 1,
						      EXEC_TEST_TIMEOUT_MS)) {
				KUNIT_FAIL(test, "an item never ran; leaking");
				return;
			}
			wrong += atomic_read(&w->runs) != w->accepted;
		}
	}
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), (int)accepted);
	KUNIT_EXPECT_EQ(test, accepted, started * DF_PER_PRODUCER);
out:
	for (i = 0; i < DF_PRODUCERS; i++)
		kfree(fx->producers[i].items);
	kfree(fx);
}

/*
 * N3785: "separate tasks added to the initial default executor can wait on
 * each other without deadlocks".  More tasks than CPUs (3 x CPUs + 1, so
 * more than a fixed pool of one worker per CPU holds) each count a latch
 * down and sleep until it opens, that is until every one of them has
 * started.  Should they not all start in time, the case opens the latch
 * itself so that the built-in pool is left free, and fails.
 */
struct dwait_fx {
	struct exec_latch latch;
	atomic_t done;
	atomic_t bad;
	bool hint;
};

static void dwait_task(void *arg)
{
	struct dwait_fx *fx = arg;
	int ret;

	exec_latch_count_down(&fx->latch);
	if (fx->hint)
		exec_blocking_begin();
	ret = exec_latch_wait(&fx->latch, EXEC_TIME_NEVER);
	if (fx->hint)
		exec_blocking_end();
	if (ret)
		atomic_inc(&fx->bad);
	exec_test_count(&fx->done);
}

static void default_tasks_wait_on_each_other(struct kunit *test, bool hint)
{
	unsigned int cpus = exec_online_cpus();
	unsigned int i, n = min(3 * cpus + 1, EXEC_DEFAULT_MAX_THREADS);
	struct dwait_fx *fx;
	bool all;

	KUNIT_ASSERT_NOT_NULL(test, exec_default_executor());
	/* Not kunit_kzalloc(): tasks that never end must not see it freed. */
	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->hint = hint;
	KUNIT_ASSERT_EQ(test, exec_latch_init(&fx->latch, n, NULL, NULL, NULL),
			0);
	for (i = 0; i < n; i++) {
		if (exec_default_submit_fn(dwait_task, fx)) {
			KUNIT_FAIL(test, "submission %u refused", i);
			break;
		}
	}
	for (; i < n; i++)
		exec_latch_count_down(&fx->latch);
	all = exec_latch_wait(&fx->latch,
			      (u64)EXEC_TEST_TIMEOUT_MS * NSEC_PER_MSEC) == 0;
	KUNIT_EXPECT_TRUE_MSG(test, all,
			      "%lu of %u tasks never started beside the others",
			      exec_latch_remaining(&fx->latch), n);
	/* Frees the waiting tasks, so that the queued ones can run. */
	while (exec_latch_remaining(&fx->latch))
		exec_latch_count_down(&fx->latch);
	if (!exec_test_wait_atomic_ge(&fx->done, n, 6 * EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(test, "tasks still blocked; leaking them");
		return;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->bad), 0);
	kfree(fx);
}

static void default_tasks_wait_on_each_other_unhinted(struct kunit *test)
{
	default_tasks_wait_on_each_other(test, false);
}

static void default_tasks_wait_on_each_other_hinted(struct kunit *test)
{
	default_tasks_wait_on_each_other(test, true);
}

static struct kunit_case exec_default_cases[] = {
	KUNIT_CASE(default_executor_is_non_null_and_runs_work),
	KUNIT_CASE(default_set_returns_previous_and_submissions_follow),
	KUNIT_CASE(default_replacement_racing_submitters_loses_nothing),
	KUNIT_CASE(default_tasks_wait_on_each_other_unhinted),
	KUNIT_CASE(default_tasks_wait_on_each_other_hinted),
	{}
};

static struct kunit_suite exec_default_suite = {
	.name = "exec-default",
	.test_cases = exec_default_cases,
};

kunit_test_suites(&exec_default_suite);

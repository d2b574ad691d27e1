// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The loop executor (include/exec/loop.h, N3785 loop_executor): FIFO order,
 * run() until make_loop_exit(), run_queued_closures() and its count,
 * try_run_one_closure(), -EBUSY for a second closure-executing call, destroy
 * (discards, -EBUSY while running), wake-ups from other threads.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define LX_ITEMS	128

enum lw_action {
	LW_COUNT,
	LW_EXIT,		/* make_loop_exit() */
	LW_SUBMIT_NEXT,		/* submit the item after this one */
	LW_NESTED_CALLS,	/* closure-executing calls and destroy: -EBUSY */
	LW_SIGNAL,		/* tell the test that run() is running */
};

struct loop_fx;

struct lw {
	struct exec_work work;
	struct loop_fx *fx;
	enum lw_action action;
	unsigned int seq;
	atomic_t runs;
	atomic_t discards;
	int nested_run;
	long nested_queued;
	int nested_one;
	long nested_destroy;
};

struct loop_fx {
	struct kunit *test;
	struct exec_loop *loop;
	struct exec_executor *ex;
	atomic_t total_runs;
	atomic_t total_discards;
	atomic_t in_run;		/* set by an LW_SIGNAL item */
	unsigned int next_seq;		/* items run on one thread: plain */
	unsigned int order_errors;
	struct exec_test_thread helper;
	long run_ret;
	struct lw items[LX_ITEMS];
};

static void lw_func(struct exec_work *work)
{
	struct lw *w = container_of(work, struct lw, work);
	struct loop_fx *fx = w->fx;

	if (w->seq != fx->next_seq)
		fx->order_errors++;
	fx->next_seq = w->seq + 1;
	switch (w->action) {
	case LW_COUNT:
		break;
	case LW_EXIT:
		exec_loop_make_loop_exit(fx->loop);
		break;
	case LW_SUBMIT_NEXT:
		if (exec_submit(fx->ex, &w[1].work))
			fx->order_errors += 1000;
		break;
	case LW_NESTED_CALLS:
		w->nested_run = exec_loop_run(fx->loop);
		w->nested_queued = exec_loop_run_queued_closures(fx->loop);
		w->nested_one = exec_loop_try_run_one_closure(fx->loop);
		w->nested_destroy = exec_loop_destroy(fx->loop);
		break;
	case LW_SIGNAL:
		exec_test_count(&fx->in_run);
		break;
	}
	exec_test_count(&w->runs);
	exec_test_count(&fx->total_runs);
}

static void lw_discard(struct exec_work *work)
{
	struct lw *w = container_of(work, struct lw, work);

	exec_test_count(&w->discards);
	exec_test_count(&w->fx->total_discards);
}

static struct loop_fx *lfx_create(struct kunit *test)
{
	struct loop_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i;

	if (!fx)
		return NULL;
	fx->test = test;
	if (exec_loop_create(&fx->loop)) {
		KUNIT_FAIL(test, "exec_loop_create failed");
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_loop_executor(fx->loop);
	for (i = 0; i < LX_ITEMS; i++) {
		exec_work_init_discard(&fx->items[i].work, lw_func, lw_discard);
		fx->items[i].fx = fx;
		fx->items[i].seq = i;
	}
	return fx;
}

static void lfx_finish(struct loop_fx *fx)
{
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(fx->test, "helper thread hangs; leaking the loop");
		return;
	}
	if (fx->loop)
		KUNIT_EXPECT_GE(fx->test, exec_loop_destroy(fx->loop), 0L);
	kfree(fx);
}

/* Submit items [first, first + n) in order. */
static void lfx_submit(struct loop_fx *fx, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++)
		KUNIT_EXPECT_EQ(fx->test, exec_submit(fx->ex, &fx->items[i].work),
				0);
}

static void loop_runs_items_in_fifo_order(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lfx_submit(fx, 0, LX_ITEMS);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop),
			(long)LX_ITEMS);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), LX_ITEMS);
	lfx_finish(fx);
}

static void loop_creates_no_thread(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lfx_submit(fx, 0, 3);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 3UL);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 2UL);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 2L);
	lfx_finish(fx);
}

static void loop_run_returns_after_make_loop_exit_from_item(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[2].action = LW_EXIT;
	lfx_submit(fx, 0, 5);
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx->loop), 0);
	/* It returned after the item that asked, without running more. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[3].runs), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 2L);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	lfx_finish(fx);
}

static int helper_exit_when_running(void *arg)
{
	struct loop_fx *fx = arg;
	u64 deadline;

	if (!exec_test_wait_atomic_ge(&fx->in_run, 1, EXEC_TEST_TIMEOUT_MS))
		return -ETIMEDOUT;
	/* run() is now asleep or about to sleep with nothing queued. */
	msleep(10);
	exec_loop_make_loop_exit(fx->loop);
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!atomic_read_acquire(&fx->total_discards) &&
	       !exec_test_expired(deadline))
		msleep(1);
	if (atomic_read_acquire(&fx->total_discards))
		return 0;
	/*
	 * The exit request was lost.  Keep asking, so that the case fails
	 * instead of hanging.
	 */
	while (!atomic_read_acquire(&fx->total_discards)) {
		exec_loop_make_loop_exit(fx->loop);
		msleep(10);
	}
	return -ETIMEDOUT;
}

static void loop_run_returns_after_make_loop_exit_from_other_thread(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = LW_SIGNAL;
	lfx_submit(fx, 0, 1);
	if (exec_test_thread_start(&fx->helper, helper_exit_when_running, fx,
				   "exec-test-exit")) {
		KUNIT_FAIL(test, "cannot start the helper");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx->loop), 0);
	/* total_discards doubles as "run() returned" for the helper. */
	exec_test_count(&fx->total_discards);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 1);
out:
	lfx_finish(fx);
}

static int helper_submit_later(void *arg)
{
	struct loop_fx *fx = arg;

	if (!exec_test_wait_atomic_ge(&fx->in_run, 1, EXEC_TEST_TIMEOUT_MS))
		return -ETIMEDOUT;
	/* Let run() go to sleep on an empty queue first. */
	msleep(EXEC_TEST_SETTLE_MS);
	if (exec_submit(fx->ex, &fx->items[1].work))
		return -EINVAL;
	if (!exec_test_wait_atomic_ge(&fx->items[1].runs, 1,
				      EXEC_TEST_TIMEOUT_MS))
		return -ETIMEDOUT;
	msleep(EXEC_TEST_SETTLE_MS);
	return exec_submit(fx->ex, &fx->items[2].work);
}

static void loop_run_wakes_up_for_submission_from_other_thread(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = LW_SIGNAL;
	fx->items[2].action = LW_EXIT;
	lfx_submit(fx, 0, 1);
	if (exec_test_thread_start(&fx->helper, helper_submit_later, fx,
				   "exec-test-submit")) {
		KUNIT_FAIL(test, "cannot start the helper");
		goto out;
	}
	/*
	 * If a wake-up is lost, run() sleeps for ever; the runner's timeout
	 * then fails the case (there is no way to interrupt run() here).
	 */
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx->loop), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 3);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
out:
	lfx_finish(fx);
}

static void loop_run_queued_closures_runs_only_items_queued_at_call(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	/* 0 submits 1, which submits 2, ... : one item per call. */
	for (i = 0; i < 10; i++)
		fx->items[i].action = LW_SUBMIT_NEXT;
	lfx_submit(fx, 0, 1);
	for (i = 1; i <= 10; i++) {
		KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop),
				1L);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), (int)i);
	}
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 11);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	lfx_finish(fx);
}

static void loop_run_queued_closures_returns_count(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 0L);
	lfx_submit(fx, 0, 7);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 7L);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 0L);
	lfx_finish(fx);
}

static void loop_exit_inside_run_queued_closures_does_not_affect_later_calls(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[1].action = LW_EXIT;
	fx->items[6].action = LW_EXIT;
	lfx_submit(fx, 0, 5);
	/* Returns after the item that asked. */
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 2L);
	/* A later call is not cut short by the earlier request... */
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 3L);
	/* ... nor is a later run(), which stops at its own request only. */
	lfx_submit(fx, 5, 2);
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx->loop), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 7);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	lfx_finish(fx);
}

static void loop_make_loop_exit_while_idle_has_no_effect(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_loop_make_loop_exit(fx->loop);
	lfx_submit(fx, 0, 3);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 3L);
	exec_loop_make_loop_exit(fx->loop);
	fx->items[4].action = LW_EXIT;
	lfx_submit(fx, 3, 2);
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx->loop), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 5);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	lfx_finish(fx);
}

static void loop_try_run_one_closure_returns_1_then_0(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 0);
	lfx_submit(fx, 0, 2);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 2);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	lfx_finish(fx);
}

/* From inside an item, every closure-executing call and destroy: -EBUSY. */
static void loop_nested_closure_executing_call_and_destroy_ebusy(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);
	struct lw *w;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	w = &fx->items[0];
	w->action = LW_NESTED_CALLS;
	lfx_submit(fx, 0, 2);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, w->nested_run, -EBUSY);
	KUNIT_EXPECT_EQ(test, w->nested_queued, (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, w->nested_one, -EBUSY);
	/* Nothing was run or destroyed by the refused calls. */
	KUNIT_EXPECT_EQ(test, w->nested_destroy, (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	lfx_finish(fx);
}

struct lx_concurrent {
	struct loop_fx *fx;
	int one;
	long queued;
	int run;
	long destroy;
};

static int helper_concurrent_calls(void *arg)
{
	struct lx_concurrent *c = arg;
	struct loop_fx *fx = c->fx;

	if (!exec_test_wait_atomic_ge(&fx->in_run, 1, EXEC_TEST_TIMEOUT_MS))
		return -ETIMEDOUT;
	c->one = exec_loop_try_run_one_closure(fx->loop);
	c->queued = exec_loop_run_queued_closures(fx->loop);
	c->run = exec_loop_run(fx->loop);
	c->destroy = exec_loop_destroy(fx->loop);
	/* Now let run() return. */
	return exec_submit(fx->ex, &fx->items[1].work);
}

/* From another thread while run() sleeps: -EBUSY as well. */
static void loop_concurrent_closure_executing_call_and_destroy_ebusy(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);
	struct lx_concurrent *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!c) {
		KUNIT_FAIL(test, "out of memory");
		goto out;
	}
	c->fx = fx;
	fx->items[0].action = LW_SIGNAL;
	fx->items[1].action = LW_EXIT;
	lfx_submit(fx, 0, 1);
	if (exec_test_thread_start(&fx->helper, helper_concurrent_calls, c,
				   "exec-test-busy")) {
		KUNIT_FAIL(test, "cannot start the helper");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx->loop), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	KUNIT_EXPECT_EQ(test, c->one, -EBUSY);
	KUNIT_EXPECT_EQ(test, c->queued, (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, c->run, -EBUSY);
	KUNIT_EXPECT_EQ(test, c->destroy, (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 2);
out:
	lfx_finish(fx);
}

static void loop_destroy_discards_queued_items_and_returns_count(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 4; i < 6; i++)
		fx->items[i].work.discard = NULL;
	lfx_submit(fx, 0, 6);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(fx->loop), 6L);
	fx->loop = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards), 1);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
	lfx_finish(fx);
}

static void loop_null_arguments_einval(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, exec_loop_create(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_run(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(NULL), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(NULL), (long)-EINVAL);
}

static void lx_closure(void *arg)
{
	struct lw *w = arg;

	lw_func(&w->work);
}

static void loop_closures_run_in_fifo_order_with_items(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 0; i < 20; i++) {
		if (i & 1)
			KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, lx_closure,
							     &fx->items[i]), 0);
		else
			lfx_submit(fx, i, 1);
	}
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 20UL);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 20L);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 20);
	lfx_finish(fx);
}

static void loop_destroy_discards_queued_closures(struct kunit *test)
{
	struct loop_fx *fx = lfx_create(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn_full(fx->ex, lx_closure,
							  NULL, &fx->items[i],
							  0), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(fx->loop), 3L);
	fx->loop = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	lfx_finish(fx);
}

static struct kunit_case exec_loop_cases[] = {
	KUNIT_CASE(loop_runs_items_in_fifo_order),
	KUNIT_CASE(loop_creates_no_thread),
	KUNIT_CASE(loop_run_returns_after_make_loop_exit_from_item),
	KUNIT_CASE(loop_run_returns_after_make_loop_exit_from_other_thread),
	KUNIT_CASE(loop_run_wakes_up_for_submission_from_other_thread),
	KUNIT_CASE(loop_run_queued_closures_runs_only_items_queued_at_call),
	KUNIT_CASE(loop_run_queued_closures_returns_count),
	KUNIT_CASE(loop_exit_inside_run_queued_closures_does_not_affect_later_calls),
	KUNIT_CASE(loop_make_loop_exit_while_idle_has_no_effect),
	KUNIT_CASE(loop_try_run_one_closure_returns_1_then_0),
	KUNIT_CASE(loop_nested_closure_executing_call_and_destroy_ebusy),
	KUNIT_CASE(loop_concurrent_closure_executing_call_and_destroy_ebusy),
	KUNIT_CASE(loop_destroy_discards_queued_items_and_returns_count),
	KUNIT_CASE(loop_destroy_discards_queued_closures),
	KUNIT_CASE(loop_null_arguments_einval),
	KUNIT_CASE(loop_closures_run_in_fifo_order_with_items),
	{}
};

static struct kunit_suite exec_loop_suite = {
	.name = "exec-loop",
	.test_cases = exec_loop_cases,
};

kunit_test_suites(&exec_loop_suite);

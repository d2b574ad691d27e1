// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executors without a queue (include/exec/simple.h): the inline executor
 * runs an item in the submitter before submission returns; the
 * thread-per-task executor runs each item on a thread of its own and its
 * destroy waits for all of them.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

#define TPT_CONCURRENT	4
#define TPT_ITEMS	16

struct simple_fx;

struct smw {
	struct exec_work work;
	struct simple_fx *fx;
	atomic_t runs;
	int ret;
	bool on_pool;			/* ran on a worker of fx->pool */
	bool met_all;			/* saw all TPT_CONCURRENT items at once */
	unsigned int depth;		/* inline resubmissions still to do */
};

struct simple_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_thread_per_task *tpt;
	atomic_t arrived;
	atomic_t total_runs;
	struct smw outer;
	struct smw items[TPT_ITEMS];
};

static struct simple_fx *smfx_create(struct kunit *test, bool pool, bool tpt)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct simple_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i;

	if (!fx)
		return NULL;
	fx->test = test;
	exec_work_init(&fx->outer.work, NULL);
	fx->outer.fx = fx;
	for (i = 0; i < TPT_ITEMS; i++) {
		exec_work_init(&fx->items[i].work, NULL);
		fx->items[i].fx = fx;
	}
	if (pool && exec_thread_pool_create(&fx->pool, &attr)) {
		KUNIT_FAIL(test, "exec_thread_pool_create failed");
		kfree(fx);
		return NULL;
	}
	if (tpt && exec_thread_per_task_create(&fx->tpt)) {
		KUNIT_FAIL(test, "exec_thread_per_task_create failed");
		if (fx->pool)
			exec_thread_pool_destroy(fx->pool);
		kfree(fx);
		return NULL;
	}
	return fx;
}

static void smfx_finish(struct simple_fx *fx)
{
	if (fx->tpt)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_per_task_destroy(fx->tpt), 0);
	if (fx->pool)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool), 0);
	kfree(fx);
}

static void smw_where_func(struct exec_work *work)
{
	struct smw *w = container_of(work, struct smw, work);

	w->on_pool = w->fx->pool &&
		     exec_thread_pool_running_in_this_thread(w->fx->pool);
	exec_test_count(&w->runs);
	exec_test_count(&w->fx->total_runs);
}

/* Runs on a pool worker and submits items[0] to @ex from there. */
static void smw_submit_from_pool_func(struct exec_work *work)
{
	struct smw *w = container_of(work, struct smw, work);
	struct simple_fx *fx = w->fx;
	struct exec_executor *ex = fx->tpt ? exec_thread_per_task_executor(fx->tpt)
					   : exec_inline_executor();

	w->ret = exec_submit(ex, &fx->items[0].work);
	/* Inline: it ran already.  Thread per task: it need not have. */
	w->on_pool = atomic_read(&fx->items[0].runs) == 1;
	exec_test_count(&w->runs);
}

static void inline_executor_is_one_non_null_instance(struct kunit *test)
{
	KUNIT_EXPECT_NOT_NULL(test, exec_inline_executor());
	KUNIT_EXPECT_PTR_EQ(test, exec_inline_executor(), exec_inline_executor());
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_inline_executor()), 0UL);
}

static void inline_runs_item_in_caller_before_submit_returns(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, true, false);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	/* From the test's thread. */
	fx->items[1].work.func = smw_where_func;
	KUNIT_EXPECT_EQ(test, exec_submit(exec_inline_executor(),
					  &fx->items[1].work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 1);
	KUNIT_EXPECT_FALSE(test, fx->items[1].on_pool);
	/* From a pool worker: it runs on that very worker. */
	fx->outer.work.func = smw_submit_from_pool_func;
	fx->items[0].work.func = smw_where_func;
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(fx->pool),
					  &fx->outer.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->outer.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->outer.ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, fx->outer.on_pool,
			      "the item had not run when submit returned");
	KUNIT_EXPECT_TRUE_MSG(test, fx->items[0].on_pool,
			      "the item ran on another thread than the caller");
	smfx_finish(fx);
}

static void smw_recurse_func(struct exec_work *work)
{
	struct smw *w = container_of(work, struct smw, work);

	exec_test_count(&w->runs);
	if (w->depth) {
		w->depth--;
		w->ret |= exec_submit(exec_inline_executor(), work);
	}
}

static void inline_item_may_resubmit_itself(struct kunit *test)
{
	struct smw w;

	exec_work_init(&w.work, smw_recurse_func);
	atomic_set(&w.runs, 0);
	w.ret = 0;
	w.depth = 3;
	KUNIT_EXPECT_EQ(test, exec_submit(exec_inline_executor(), &w.work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&w.runs), 4);
	KUNIT_EXPECT_EQ(test, w.ret, 0);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&w.work));
}

static void count_closure(void *arg)
{
	exec_test_count(arg);
}

static void inline_closure_runs_before_submit_returns(struct kunit *test)
{
	atomic_t n = ATOMIC_INIT(0);

	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_inline_executor(),
					     count_closure, &n), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&n), 1);
}

/*
 * TPT_CONCURRENT items wait for each other: each one counts itself and
 * waits until all have.  They can only all get there if each runs on a
 * thread of its own at the same time.
 */
static void smw_meet_func(struct exec_work *work)
{
	struct smw *w = container_of(work, struct smw, work);

	exec_test_count(&w->fx->arrived);
	w->met_all = exec_test_wait_atomic_ge(&w->fx->arrived, TPT_CONCURRENT,
					      EXEC_TEST_TIMEOUT_MS);
	exec_test_count(&w->runs);
	exec_test_count(&w->fx->total_runs);
}

static void tpt_runs_each_item_on_its_own_thread(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, false, true);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_thread_per_task_executor(fx->tpt);
	for (i = 0; i < TPT_CONCURRENT; i++) {
		fx->items[i].work.func = smw_meet_func;
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	}
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(fx->tpt), 0);
	fx->tpt = NULL;
	for (i = 0; i < TPT_CONCURRENT; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
		KUNIT_EXPECT_TRUE(test, fx->items[i].met_all);
	}
	smfx_finish(fx);
}

static void tpt_item_does_not_run_on_the_submitting_thread(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, true, true);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->outer.work.func = smw_submit_from_pool_func;
	fx->items[0].work.func = smw_where_func;
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(fx->pool),
					  &fx->outer.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[0].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->outer.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->outer.ret, 0);
	KUNIT_EXPECT_FALSE(test, fx->items[0].on_pool);
	smfx_finish(fx);
}

static void smw_slow_func(struct exec_work *work)
{
	struct smw *w = container_of(work, struct smw, work);

	msleep(20);
	exec_test_count(&w->runs);
	exec_test_count(&w->fx->total_runs);
}

static void tpt_destroy_waits_for_all_work(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, false, true);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_thread_per_task_executor(fx->tpt);
	for (i = 0; i < TPT_ITEMS; i++) {
		fx->items[i].work.func = smw_slow_func;
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	}
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(fx->tpt), 0);
	fx->tpt = NULL;
	/* No waiting here: destroy did. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), TPT_ITEMS);
	smfx_finish(fx);
}

static void smw_destroy_own_func(struct exec_work *work)
{
	struct smw *w = container_of(work, struct smw, work);

	w->ret = exec_thread_per_task_destroy(w->fx->tpt);
	exec_test_count(&w->runs);
}

static void tpt_destroy_from_own_item_edeadlk(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, false, true);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].work.func = smw_destroy_own_func;
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_per_task_executor(fx->tpt),
					  &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[0].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, -EDEADLK);
	smfx_finish(fx);
}

static atomic_t tpt_fault_runs;

static void tpt_fault_func(struct exec_work *work)
{
	exec_test_count(&tpt_fault_runs);
}

/*
 * A submission whose thread cannot start fails with the thread creation's
 * error, leaves the item idle and never runs it; the executor goes on
 * working and its destroy still joins everything.
 */
static void tpt_thread_start_failure_fails_submission_cleanly(struct kunit *test)
{
	struct exec_thread_per_task *tpt;
	struct exec_executor *ex;
	struct exec_work items[2];

	atomic_set(&tpt_fault_runs, 0);
	exec_work_init(&items[0], tpt_fault_func);
	exec_work_init(&items[1], tpt_fault_func);
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);
	ex = exec_thread_per_task_executor(tpt);

	exec_fault_inject_thread_start(0);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &items[0]), -EAGAIN);
	exec_fault_inject_thread_start(-1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&items[0]));

	KUNIT_EXPECT_EQ(test, exec_submit(ex, &items[1]), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tpt_fault_runs), 1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&items[0]));
}

static void tpt_null_arguments_einval(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_create(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(NULL), -EINVAL);
}

static void smfx_closure(void *arg)
{
	struct simple_fx *fx = arg;

	exec_test_count(&fx->total_runs);
}

static void tpt_closures_run_and_destroy_waits(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, false, true);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 0; i < TPT_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_thread_per_task_executor(fx->tpt),
						     smfx_closure, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(fx->tpt), 0);
	fx->tpt = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), TPT_ITEMS);
	smfx_finish(fx);
}

/*
 * Starting a thread sleeps: the submissions that may come from atomic
 * context are refused, the item left idle and not run, while exec_submit()
 * and the closures of process context still start one.  A serial or
 * priority executor over it follows its caller: exec_submit() starts the
 * run's thread, exec_try_submit() is refused.
 */
static void tpt_refuses_submissions_that_must_not_sleep(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, false, true);
	struct exec_serial *serial;
	struct exec_priority *prio;
	struct exec_executor *ex, *sex, *pex;
	struct exec_stats st = {};
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_thread_per_task_executor(fx->tpt);
	for (i = 0; i < 8; i++)
		fx->items[i].work.func = smw_where_func;
	KUNIT_EXPECT_EQ(test, exec_try_submit(ex, &fx->items[0].work), -EAGAIN);
	KUNIT_EXPECT_EQ(test, exec_post(ex, &fx->items[1].work), -EAGAIN);
	KUNIT_EXPECT_EQ(test, exec_dispatch(ex, &fx->items[2].work), -EAGAIN);
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(ex, smfx_closure, NULL, fx,
						  EXEC_SUBMIT_NOWAIT), -EAGAIN);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.refused, 4ULL);
	KUNIT_EXPECT_EQ(test, st.submitted, 0ULL);

	/* Process context: each of these starts a thread. */
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[3].work), 0);
	KUNIT_EXPECT_EQ(test, exec_post_fn(ex, smfx_closure, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_dispatch_fn(ex, smfx_closure, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_defer_fn(ex, smfx_closure, fx), 0);

	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, ex), 0);
	sex = exec_serial_executor(serial);
	KUNIT_EXPECT_EQ(test, exec_try_submit(sex, &fx->items[4].work), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[4].work));
	KUNIT_EXPECT_EQ(test, exec_submit(sex, &fx->items[5].work), 0);
	/* So does a priority executor's. */
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio, ex, NULL), 0);
	pex = exec_priority_executor(prio);
	KUNIT_EXPECT_EQ(test, exec_try_submit(pex, &fx->items[6].work), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[6].work));
	KUNIT_EXPECT_EQ(test, exec_submit(pex, &fx->items[7].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 6,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(fx->tpt), 0);
	fx->tpt = NULL;
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs),
				i == 3 || i == 5 || i == 7 ? 1 : 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 6);
	smfx_finish(fx);
}

/*
 * Every item a thread-per-task executor accepted has a thread of its own:
 * none waits to start, so its pending count is 0 even while each of its
 * items is held inside its run.
 */
static void tpt_pending_count_is_zero_while_items_run(struct kunit *test)
{
	struct simple_fx *fx = smfx_create(test, false, true);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_thread_per_task_executor(fx->tpt);
	for (i = 0; i < TPT_CONCURRENT; i++) {
		fx->items[i].work.func = smw_meet_func;
		/* All but the last: the last lets the others go. */
		if (i + 1 < TPT_CONCURRENT)
			KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work),
					0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->arrived,
							 TPT_CONCURRENT - 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i - 1].work), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(fx->tpt), 0);
	fx->tpt = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), TPT_CONCURRENT);
	smfx_finish(fx);
}

/*
 * How long the cancels race the submissions: INLINE_RACE_MS at least, and
 * on until the canceller has seen the item pending INLINE_RACE_SEEN times
 * or INLINE_RACE_MAX_MS are up (the window is a few instructions of the
 * submitter's).
 */
#define INLINE_RACE_MS		200
#define INLINE_RACE_MAX_MS	1000
#define INLINE_RACE_SEEN	100

struct inline_race {
	struct exec_work work;
	atomic_t runs;
	atomic_t started;
	atomic_t stop;
	unsigned long submitted;
	int submit_err;
};

static void inline_race_func(struct exec_work *work)
{
	struct inline_race *r = container_of(work, struct inline_race, work);

	atomic_inc(&r->runs);
}

static int inline_race_submitter(void *arg)
{
	struct inline_race *r = arg;
	unsigned long n = 0;
	int ret;

	atomic_set_release(&r->started, 1);
	while (!atomic_read_acquire(&r->stop)) {
		ret = exec_submit(exec_inline_executor(), &r->work);
		if (ret)
			r->submit_err = ret;
		else
			r->submitted++;
		if (!(++n % 64))
			cond_resched();
	}
	return 0;
}

/*
 * A cancel racing submissions to the inline executor never takes the
 * item back: the submitter runs it before its submission returns, and the
 * item's pending bit, which the cancel may see set for a moment, is the
 * submitter's run under way (exec_inline_take_back()).  Every submission
 * runs the item once; every cancel finds it idle (a run on the inline
 * executor is not seen from other threads).
 */
static void inline_cancel_racing_submit_never_takes_back(struct kunit *test)
{
	struct inline_race *r = kzalloc(sizeof(*r), GFP_KERNEL);
	unsigned long cancels = 0, other = 0, seen = 0;
	struct exec_test_thread t;
	u64 end, limit;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, r);
	exec_work_init(&r->work, inline_race_func);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, inline_race_submitter,
						     r, "inline-race"), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&r->started, 1,
							 EXEC_TEST_TIMEOUT_MS));
	end = exec_test_deadline(INLINE_RACE_MS);
	limit = exec_test_deadline(INLINE_RACE_MAX_MS);
	while (!exec_test_expired(limit) &&
	       (seen < INLINE_RACE_SEEN || !exec_test_expired(end))) {
		/* Mostly the same moment as the cancel's own look. */
		seen += exec_work_pending(&r->work);
		ret = exec_work_cancel(exec_inline_executor(), &r->work);
		if (ret != EXEC_CANCEL_IDLE)
			other++;
		/* A kernel of one CPU runs the submitter meanwhile. */
		if (!(++cancels % 64))
			cond_resched();
	}
	atomic_set_release(&r->stop, 1);
	KUNIT_EXPECT_TRUE(test,
			  exec_test_thread_join(&t, EXEC_TEST_TIMEOUT_MS));
	kunit_info(test, "%lu cancels, %lu saw the item pending first",
		   cancels, seen);
	KUNIT_EXPECT_EQ(test, other, 0UL);
	KUNIT_EXPECT_GT(test, cancels, 0UL);
	KUNIT_EXPECT_EQ(test, r->submit_err, 0);
	KUNIT_EXPECT_GT(test, r->submitted, 0UL);
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&r->runs),
			r->submitted);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&r->work));
	kfree(r);
}

static struct kunit_case exec_simple_cases[] = {
	KUNIT_CASE(inline_executor_is_one_non_null_instance),
	KUNIT_CASE(inline_runs_item_in_caller_before_submit_returns),
	KUNIT_CASE(inline_item_may_resubmit_itself),
	KUNIT_CASE(inline_closure_runs_before_submit_returns),
	KUNIT_CASE(tpt_runs_each_item_on_its_own_thread),
	KUNIT_CASE(tpt_item_does_not_run_on_the_submitting_thread),
	KUNIT_CASE(tpt_destroy_waits_for_all_work),
	KUNIT_CASE(tpt_destroy_from_own_item_edeadlk),
	KUNIT_CASE(tpt_null_arguments_einval),
	KUNIT_CASE(tpt_thread_start_failure_fails_submission_cleanly),
	KUNIT_CASE(tpt_closures_run_and_destroy_waits),
	KUNIT_CASE(tpt_refuses_submissions_that_must_not_sleep),
	KUNIT_CASE(tpt_pending_count_is_zero_while_items_run),
	KUNIT_CASE(inline_cancel_racing_submit_never_takes_back),
	{}
};

static struct kunit_suite exec_simple_suite = {
	.name = "exec-simple",
	.test_cases = exec_simple_cases,
};

kunit_test_suites(&exec_simple_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The loop scheduler (include/exec/loop_scheduler.h, P0113 loop_scheduler):
 * stopping when outstanding work falls to zero, work guards, each run
 * function's count and return conditions, deadlines, stop/stopped/restart,
 * -EBUSY and -EDEADLK, several donated threads at once, dispatch inline
 * from inside, armed timed items as outstanding work, destroy.
 *
 * Every blocking run function is called on a helper thread that the case
 * joins with a deadline, so that a lost wake-up fails the case instead of
 * hanging it.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define LSX_ITEMS	32
#define LSX_THREADS	4
#define LSX_MANY	1024
#define LSX_MS		1000000ULL

enum lsw_action {
	LSW_COUNT,
	LSW_STOP,		/* exec_loop_scheduler_stop() */
	LSW_RESET_GUARD,	/* release the fixture's work guard */
	LSW_NESTED,		/* blocking run calls, destroy: -EDEADLK */
	LSW_POLL,		/* a nested poll: allowed */
	LSW_RESTART,		/* restart from inside: -EBUSY */
	LSW_DISPATCH,		/* dispatch, post, defer the next items */
	LSW_GATE,		/* wait at the fixture's gate */
};

struct ls_fx;

struct lsw {
	struct exec_work work;
	struct ls_fx *fx;
	enum lsw_action action;
	atomic_t runs;
	atomic_t discards;
	long nested[8];
	bool inside;		/* running_in_this_thread in the item */
	bool next_ran;		/* dispatched item had run on return */
};

/* A timed item. */
struct lst {
	struct exec_timer timer;
	struct ls_fx *fx;
	atomic_t runs;
	atomic_t discards;
};

/* The run functions, by name, for callers on helper threads. */
enum ls_op {
	LS_RUN,
	LS_RUN_FOR,
	LS_RUN_UNTIL,
	LS_RUN_ONE,
	LS_RUN_ONE_FOR,
	LS_RUN_ONE_UNTIL,
	LS_POLL,
	LS_POLL_ONE,
};

static long ls_call(struct exec_loop_scheduler *ls, enum ls_op op, u64 arg)
{
	switch (op) {
	case LS_RUN:
		return exec_loop_scheduler_run(ls);
	case LS_RUN_FOR:
		return exec_loop_scheduler_run_for(ls, arg);
	case LS_RUN_UNTIL:
		return exec_loop_scheduler_run_until(ls, arg);
	case LS_RUN_ONE:
		return exec_loop_scheduler_run_one(ls);
	case LS_RUN_ONE_FOR:
		return exec_loop_scheduler_run_one_for(ls, arg);
	case LS_RUN_ONE_UNTIL:
		return exec_loop_scheduler_run_one_until(ls, arg);
	case LS_POLL:
		return exec_loop_scheduler_poll(ls);
	case LS_POLL_ONE:
		return exec_loop_scheduler_poll_one(ls);
	}
	return -EINVAL;
}

/* A run function called on a helper thread. */
struct ls_caller {
	struct ls_fx *fx;
	enum ls_op op;
	u64 arg;
	long ret;
	u64 start;
	u64 end;
	struct exec_test_thread thread;
};

struct ls_fx {
	struct kunit *test;
	struct exec_loop_scheduler *ls;
	struct exec_executor *ex;
	struct exec_work_guard guard;
	struct exec_test_gate gate;
	atomic_t total_runs;
	atomic_t total_discards;
	bool leak;		/* a run function never returned */
	struct lst timer;
	struct ls_caller callers[LSX_THREADS];
	struct lsw items[LSX_ITEMS];
};

static int ls_caller_fn(void *arg)
{
	struct ls_caller *c = arg;

	c->start = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	c->ret = ls_call(c->fx->ls, c->op, c->arg);
	c->end = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	return 0;
}

static bool ls_caller_start(struct ls_fx *fx, struct ls_caller *c,
			    enum ls_op op, u64 arg)
{
	c->fx = fx;
	c->op = op;
	c->arg = arg;
	c->ret = -ETIMEDOUT;
	if (exec_test_thread_start(&c->thread, ls_caller_fn, c,
				   "exec-test-ls")) {
		KUNIT_FAIL(fx->test, "cannot start a run thread");
		return false;
	}
	return true;
}

/*
 * Joins the caller; if it has not returned within the timeout, fails the
 * case and stops the scheduler to get it back; if even that does not work,
 * the scheduler is leaked.
 */
static bool ls_caller_join(struct ls_caller *c)
{
	struct ls_fx *fx = c->fx;

	if (exec_test_thread_join(&c->thread, EXEC_TEST_TIMEOUT_MS))
		return true;
	KUNIT_FAIL(fx->test, "a run function did not return");
	exec_loop_scheduler_stop(fx->ls);
	if (exec_test_thread_join(&c->thread, EXEC_TEST_TIMEOUT_MS))
		return false;
	fx->leak = true;
	return false;
}

/* A blocking run function, bounded: its return value, or -ETIMEDOUT. */
static long ls_bounded(struct ls_fx *fx, enum ls_op op, u64 arg)
{
	struct ls_caller *c = kzalloc(sizeof(*c), GFP_KERNEL);
	long ret;

	if (!c) {
		KUNIT_FAIL(fx->test, "out of memory");
		return -ENOMEM;
	}
	if (!ls_caller_start(fx, c, op, arg)) {
		kfree(c);
		return -EAGAIN;
	}
	if (!ls_caller_join(c)) {
		/* Still running if leaked: the caller must stay. */
		return -ETIMEDOUT;
	}
	ret = c->ret;
	kfree(c);
	return ret;
}

static void lsw_func(struct exec_work *work)
{
	struct lsw *w = container_of(work, struct lsw, work);
	struct ls_fx *fx = w->fx;
	struct exec_loop_scheduler *ls = fx->ls;

	w->inside = exec_running_in_this_thread(fx->ex);
	switch (w->action) {
	case LSW_COUNT:
		break;
	case LSW_STOP:
		exec_loop_scheduler_stop(ls);
		break;
	case LSW_RESET_GUARD:
		w->nested[0] = exec_work_guard_reset(&fx->guard);
		break;
	case LSW_NESTED:
		w->nested[0] = exec_loop_scheduler_run(ls);
		w->nested[1] = exec_loop_scheduler_run_for(ls, LSX_MS);
		w->nested[2] = exec_loop_scheduler_run_until(ls,
							     EXEC_TIME_NEVER);
		w->nested[3] = exec_loop_scheduler_run_one(ls);
		w->nested[4] = exec_loop_scheduler_run_one_for(ls, LSX_MS);
		w->nested[5] = exec_loop_scheduler_run_one_until(ls, 0);
		w->nested[6] = exec_loop_scheduler_destroy(ls);
		break;
	case LSW_POLL:
		w->nested[0] = exec_loop_scheduler_poll(ls);
		break;
	case LSW_RESTART:
		w->nested[0] = exec_loop_scheduler_restart(ls);
		w->nested[1] = exec_loop_scheduler_stopped(ls);
		break;
	case LSW_DISPATCH:
		w->nested[0] = exec_dispatch(fx->ex, &w[1].work);
		w->next_ran = atomic_read(&w[1].runs) == 1;
		w->nested[1] = exec_post(fx->ex, &w[2].work);
		w->nested[2] = exec_defer(fx->ex, &w[3].work);
		w->nested[3] = atomic_read(&w[2].runs) +
			       atomic_read(&w[3].runs);
		break;
	case LSW_GATE:
		exec_test_gate_pass(&fx->gate);
		break;
	}
	exec_test_count(&w->runs);
	exec_test_count(&fx->total_runs);
}

static void lsw_discard(struct exec_work *work)
{
	struct lsw *w = container_of(work, struct lsw, work);

	exec_test_count(&w->discards);
	exec_test_count(&w->fx->total_discards);
}

static void lsw_closure(void *arg)
{
	struct lsw *w = arg;

	lsw_func(&w->work);
}

static void lsw_closure_discard(void *arg)
{
	struct lsw *w = arg;

	lsw_discard(&w->work);
}

static void lst_func(struct exec_work *work)
{
	struct lst *t = container_of(work, struct lst, timer.work);

	exec_test_count(&t->runs);
	exec_test_count(&t->fx->total_runs);
}

static void lst_discard(struct exec_work *work)
{
	struct lst *t = container_of(work, struct lst, timer.work);

	exec_test_count(&t->discards);
}

static struct ls_fx *lsfx_create(struct kunit *test)
{
	struct ls_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i;

	if (!fx)
		return NULL;
	fx->test = test;
	if (exec_loop_scheduler_create(&fx->ls)) {
		KUNIT_FAIL(test, "exec_loop_scheduler_create failed");
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_loop_scheduler_executor(fx->ls);
	exec_test_gate_init(&fx->gate);
	exec_timer_init(&fx->timer.timer, lst_func, lst_discard);
	fx->timer.fx = fx;
	for (i = 0; i < LSX_ITEMS; i++) {
		exec_work_init_discard(&fx->items[i].work, lsw_func,
				       lsw_discard);
		fx->items[i].fx = fx;
	}
	return fx;
}

static void lsfx_finish(struct ls_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	if (fx->leak) {
		KUNIT_FAIL(fx->test, "leaking the scheduler");
		return;
	}
	exec_work_guard_reset(&fx->guard);
	if (fx->ls)
		KUNIT_EXPECT_GE(fx->test, exec_loop_scheduler_destroy(fx->ls),
				0L);
	kfree(fx);
}

static void lsfx_submit(struct ls_fx *fx, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++)
		KUNIT_EXPECT_EQ(fx->test,
				exec_submit(fx->ex, &fx->items[i].work), 0);
}

static void lsfx_hold(struct ls_fx *fx)
{
	KUNIT_EXPECT_EQ(fx->test, exec_work_guard_init(&fx->guard, fx->ex), 0);
}

static u64 ls_now(void)
{
	return exec_clock_now(EXEC_CLOCK_MONOTONIC);
}

static void ls_run_with_no_work_returns_0_and_stops(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	enum ls_op op;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	/* Every run function, from the not-stopped state. */
	for (op = LS_RUN; op <= LS_POLL_ONE; op++) {
		KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
		KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
		KUNIT_EXPECT_EQ(test, ls_bounded(fx, op, 10 * LSX_MS), 0L);
		KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	}
	lsfx_finish(fx);
}

static void ls_run_without_guard_returns_when_items_run_out(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_submit(fx, 0, 5);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 5UL);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 5L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 5);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 0UL);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_finish(fx);
}

static void ls_run_with_guard_returns_when_item_resets_it(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_hold(fx);
	fx->items[4].action = LSW_RESET_GUARD;
	lsfx_submit(fx, 0, 5);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 5L);
	KUNIT_EXPECT_EQ(test, fx->items[4].nested[0], 0L);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_finish(fx);
}

/* run() sleeps while the guard holds work, and wakes when it goes. */
static void ls_run_with_guard_sleeps_until_guard_reset(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_caller *c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = &fx->callers[0];
	lsfx_hold(fx);
	if (!ls_caller_start(fx, c, LS_RUN, 0))
		goto out;
	/* Asleep with nothing queued: a submission wakes it. */
	msleep(EXEC_TEST_SETTLE_MS);
	lsfx_submit(fx, 0, 3);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&c->thread));
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	/* The last unit of work goes: run() wakes and returns. */
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	if (ls_caller_join(c))
		KUNIT_EXPECT_EQ(test, c->ret, 3L);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
out:
	lsfx_finish(fx);
}

static void ls_run_one_runs_exactly_one(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_hold(fx);
	lsfx_submit(fx, 0, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_ONE, 0), 1L);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), (int)i + 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
		KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex),
				2UL - i);
	}
	/* Nothing queued, the guard holds: run_one_for waits, returns 0. */
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_ONE_FOR, 20 * LSX_MS), 0L);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_finish(fx);
}

static void ls_poll_runs_only_ready_items_without_sleeping(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct exec_timer *timer;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	timer = &fx->timer.timer;
	lsfx_hold(fx);
	/* Not ready: a timed item ten seconds away. */
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, timer,
						10000 * LSX_MS), 0);
	lsfx_submit(fx, 0, 4);
	start = ls_now();
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll_one(fx->ls), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 3L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll_one(fx->ls), 0L);
	/* Never slept: well under the timed item's deadline. */
	KUNIT_EXPECT_LT(test, ls_now() - start, 2000 * LSX_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 4);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(timer), 1);
	lsfx_finish(fx);
}

/* run_for, run_until, run_one_until: at the deadline, never before. */
static void ls_run_for_and_until_return_at_deadline(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_caller *c;
	const u64 d = 50 * LSX_MS;
	const u64 late = 2000 * LSX_MS;
	enum ls_op ops[] = { LS_RUN_FOR, LS_RUN_UNTIL, LS_RUN_ONE_FOR,
			     LS_RUN_ONE_UNTIL };
	unsigned int i;
	u64 arg, deadline;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = &fx->callers[0];
	lsfx_hold(fx);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		deadline = ls_now() + d;
		arg = ops[i] == LS_RUN_FOR || ops[i] == LS_RUN_ONE_FOR ?
		      d : deadline;
		if (!ls_caller_start(fx, c, ops[i], arg))
			break;
		if (!ls_caller_join(c))
			break;
		KUNIT_EXPECT_EQ(test, c->ret, 0L);
		KUNIT_EXPECT_GE(test, c->end, deadline);
		KUNIT_EXPECT_GE(test, c->end - c->start, ops[i] == LS_RUN_FOR ||
				ops[i] == LS_RUN_ONE_FOR ? d : 0);
		KUNIT_EXPECT_LT(test, c->end, deadline + late);
	}
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	/* A deadline already past: nothing runs, even with items ready. */
	lsfx_submit(fx, 0, 2);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_UNTIL, ls_now() - 1), 0L);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_FOR, 0), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	/* Items ready before the deadline run. */
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_FOR, d), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 2);
	lsfx_finish(fx);
}

/* Items that come during run_for run, then it returns at the deadline. */
static void ls_run_for_runs_items_that_come_before_deadline(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_caller *c;
	const u64 d = 300 * LSX_MS;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = &fx->callers[0];
	lsfx_hold(fx);
	if (!ls_caller_start(fx, c, LS_RUN_FOR, d))
		goto out;
	msleep(EXEC_TEST_SETTLE_MS);
	lsfx_submit(fx, 0, 2);
	if (ls_caller_join(c)) {
		KUNIT_EXPECT_EQ(test, c->ret, 2L);
		KUNIT_EXPECT_GE(test, c->end - c->start, d);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 2);
out:
	lsfx_finish(fx);
}

static void ls_stop_from_item_ends_run_after_that_item(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_hold(fx);
	fx->items[2].action = LSW_STOP;
	lsfx_submit(fx, 0, 5);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 3L);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[3].runs), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 2UL);
	/* Stopped: nothing runs until restart. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 5);
	lsfx_finish(fx);
}

/* stop() from another thread wakes a sleeping run(). */
static void ls_stop_from_other_thread_wakes_run(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_caller *c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = &fx->callers[0];
	lsfx_hold(fx);
	if (!ls_caller_start(fx, c, LS_RUN, 0))
		goto out;
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&c->thread));
	exec_loop_scheduler_stop(fx->ls);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&c->thread.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	if (ls_caller_join(c))
		KUNIT_EXPECT_EQ(test, c->ret, 0L);
out:
	lsfx_finish(fx);
}

static void ls_stopped_queues_submissions_until_restart(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	enum ls_op op;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_hold(fx);
	exec_loop_scheduler_stop(fx->ls);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_submit(fx, 0, 2);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 2UL);
	for (op = LS_RUN; op <= LS_POLL_ONE; op++)
		KUNIT_EXPECT_EQ(test, ls_bounded(fx, op, 10 * LSX_MS), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	/* Restarting when not stopped changes nothing. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_FOR, 20 * LSX_MS), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 2);
	lsfx_finish(fx);
}

static void ls_restart_while_running_ebusy(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_caller *c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = &fx->callers[0];
	lsfx_hold(fx);
	/* From inside an item. */
	fx->items[0].action = LSW_RESTART;
	lsfx_submit(fx, 0, 1);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 1L);
	KUNIT_EXPECT_EQ(test, fx->items[0].nested[0], (long)-EBUSY);
	/* From another thread while run() sleeps, stopped or not. */
	if (!ls_caller_start(fx, c, LS_RUN, 0))
		goto out;
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(fx->ls),
			(long)-EBUSY);
	lsfx_submit(fx, 1, 1);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	exec_loop_scheduler_stop(fx->ls);
	if (ls_caller_join(c))
		KUNIT_EXPECT_EQ(test, c->ret, 1L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
out:
	lsfx_finish(fx);
}

static void ls_nested_run_from_item_edeadlk(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct lsw *w;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	w = &fx->items[0];
	w->action = LSW_NESTED;
	lsfx_submit(fx, 0, 2);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_ONE, 0), 1L);
	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_EQ(test, w->nested[i], (long)-EDEADLK);
	/* The refused calls ran nothing and destroyed nothing. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
	KUNIT_EXPECT_TRUE(test, w->inside);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 1L);
	lsfx_finish(fx);
}

/* poll never sleeps, so it may be called from inside an item. */
static void ls_nested_poll_from_item_runs_ready_items(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = LSW_POLL;
	lsfx_submit(fx, 0, 3);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 1L);
	KUNIT_EXPECT_EQ(test, fx->items[0].nested[0], 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 3);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_finish(fx);
}

/* The items that several donated threads share. */
struct ls_many {
	struct exec_work work;
	atomic_t runs;
	atomic_t *total;
};

static void ls_many_func(struct exec_work *work)
{
	struct ls_many *m = container_of(work, struct ls_many, work);

	exec_test_count(&m->runs);
	exec_test_count(m->total);
}

static void ls_several_threads_run_each_item_once(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_many *m = kcalloc(LSX_MANY, sizeof(*m), GFP_KERNEL);
	unsigned int i, started = 0, once = 0;
	struct ls_caller *c;
	bool leak;
	long sum = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = fx->callers;
	if (!m) {
		KUNIT_FAIL(test, "out of memory");
		goto out;
	}
	lsfx_hold(fx);
	for (i = 0; i < LSX_MANY; i++) {
		exec_work_init(&m[i].work, ls_many_func);
		m[i].total = &fx->total_runs;
	}
	for (i = 0; i < LSX_THREADS; i++) {
		if (!ls_caller_start(fx, &c[i], LS_RUN, 0))
			break;
		started++;
	}
	/* All asleep with nothing queued first, usually. */
	msleep(EXEC_TEST_SETTLE_MS);
	/*
	 * LSX_THREADS items that wait until all of them have started: they
	 * can only finish if that many threads run items at once.
	 */
	for (i = 0; i < LSX_THREADS; i++)
		fx->items[i].action = LSW_GATE;
	lsfx_submit(fx, 0, started);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, started));
	exec_test_gate_open(&fx->gate);
	for (i = 0; i < LSX_MANY; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &m[i].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 LSX_MANY + started,
							 EXEC_TEST_TIMEOUT_MS));
	/* Out of work: every thread returns. */
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	for (i = 0; i < started; i++) {
		if (!ls_caller_join(&c[i]))
			continue;
		KUNIT_EXPECT_GE(test, c[i].ret, 0L);
		sum += c[i].ret;
	}
	KUNIT_EXPECT_EQ(test, sum, (long)(LSX_MANY + started));
	for (i = 0; i < LSX_MANY; i++)
		once += atomic_read(&m[i].runs) == 1;
	KUNIT_EXPECT_EQ(test, once, (unsigned int)LSX_MANY);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs),
			(int)(LSX_MANY + started));
	KUNIT_EXPECT_EQ(test, started, (unsigned int)LSX_THREADS);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
out:
	leak = fx->leak;
	lsfx_finish(fx);
	if (!leak)
		kfree(m);
}

static void ls_dispatch_inside_runs_inline_outside_queues(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct lsw *w;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_hold(fx);
	/* From outside: queued, whatever the verb. */
	KUNIT_EXPECT_FALSE(test, exec_running_in_this_thread(fx->ex));
	KUNIT_EXPECT_EQ(test, exec_dispatch(fx->ex, &fx->items[10].work), 0);
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[11].work), 0);
	KUNIT_EXPECT_EQ(test, exec_defer(fx->ex, &fx->items[12].work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 3UL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 3L);
	KUNIT_EXPECT_TRUE(test, fx->items[10].inside);
	/* From inside: dispatch runs at once, post and defer queue. */
	w = &fx->items[0];
	w->action = LSW_DISPATCH;
	lsfx_submit(fx, 0, 1);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll_one(fx->ls), 1L);
	KUNIT_EXPECT_EQ(test, w->nested[0], 0L);
	KUNIT_EXPECT_TRUE(test, w->next_ran);
	KUNIT_EXPECT_EQ(test, w->nested[1], 0L);
	KUNIT_EXPECT_EQ(test, w->nested[2], 0L);
	KUNIT_EXPECT_EQ(test, w->nested[3], 0L);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 2UL);
	/* The dispatched item does not count towards poll's return. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 7);
	lsfx_finish(fx);
}

static void ls_armed_timed_item_is_outstanding_work(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct exec_timer *timer;
	const u64 d = 50 * LSX_MS;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	timer = &fx->timer.timer;
	/* No guard: only the armed item keeps run() running. */
	start = ls_now();
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, timer, d), 0);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 1L);
	KUNIT_EXPECT_GE(test, ls_now() - start, d);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	/* Moved while armed: still one unit, run once. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, timer,
						10000 * LSX_MS), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_mod(fx->ex, timer,
					     EXEC_CLOCK_MONOTONIC,
					     ls_now() + d), 1);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN, 0), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->timer.runs), 2);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_finish(fx);
}

/* Cancelling the only armed item leaves no work: run() returns. */
static void ls_cancel_of_armed_timed_item_stops_run(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct exec_timer *timer;
	struct ls_caller *c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	timer = &fx->timer.timer;
	c = &fx->callers[0];
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, timer,
						10000 * LSX_MS), 0);
	if (!ls_caller_start(fx, c, LS_RUN, 0))
		goto out;
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&c->thread));
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(timer), 1);
	if (ls_caller_join(c))
		KUNIT_EXPECT_EQ(test, c->ret, 0L);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
out:
	lsfx_finish(fx);
}

static void ls_destroy_discards_and_counts(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 4; i < 6; i++)
		fx->items[i].work.discard = NULL;
	lsfx_submit(fx, 0, 6);
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(fx->ex, lsw_closure,
						  lsw_closure_discard,
						  &fx->items[20], 0), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &fx->timer.timer,
						10000 * LSX_MS), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 8UL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(fx->ls), 8L);
	fx->ls = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	/* Items 0-3 and the closure have discard callbacks, 4 and 5 not. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[20].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->timer.discards), 1);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->timer.timer.work));
	lsfx_finish(fx);
}

static void ls_destroy_from_other_thread_while_running_ebusy(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct ls_caller *c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	c = &fx->callers[0];
	lsfx_hold(fx);
	lsfx_submit(fx, 0, 1);
	if (!ls_caller_start(fx, c, LS_RUN, 0))
		goto out;
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(fx->ls),
			(long)-EBUSY);
	/* Still working after the refused destroy. */
	lsfx_submit(fx, 1, 1);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	if (ls_caller_join(c))
		KUNIT_EXPECT_EQ(test, c->ret, 2L);
out:
	lsfx_finish(fx);
}

static void ls_work_guard_counts_outstanding_work(struct kunit *test)
{
	struct ls_fx *fx = lsfx_create(test);
	struct exec_work_guard g2;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	lsfx_hold(fx);
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(&g2, fx->ex), 0);
	/* Two units: releasing one leaves the scheduler running. */
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g2), 0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g2), -EALREADY);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(fx->ls), 0L);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	/* The last unit: stopped at once, no run function needed. */
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	/* Raw on_work_started/finished count the same way. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(fx->ls), 0);
	exec_on_work_started(fx->ex);
	KUNIT_EXPECT_EQ(test, ls_bounded(fx, LS_RUN_FOR, 10 * LSX_MS), 0L);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	exec_on_work_finished(fx->ex);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(fx->ls));
	lsfx_finish(fx);
}

static void ls_null_arguments_einval(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_create(NULL), -EINVAL);
	KUNIT_EXPECT_NULL(test, exec_loop_scheduler_executor(NULL));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run(NULL), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_for(NULL, 1),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_until(NULL, 1),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_one(NULL), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_one_for(NULL, 1),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_one_until(NULL, 1),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll(NULL), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_poll_one(NULL),
			(long)-EINVAL);
	exec_loop_scheduler_stop(NULL);
	KUNIT_EXPECT_TRUE(test, exec_loop_scheduler_stopped(NULL));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_restart(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(NULL),
			(long)-EINVAL);
}

static struct kunit_case exec_loop_scheduler_cases[] = {
	KUNIT_CASE(ls_run_with_no_work_returns_0_and_stops),
	KUNIT_CASE(ls_run_without_guard_returns_when_items_run_out),
	KUNIT_CASE(ls_run_with_guard_returns_when_item_resets_it),
	KUNIT_CASE(ls_run_with_guard_sleeps_until_guard_reset),
	KUNIT_CASE(ls_run_one_runs_exactly_one),
	KUNIT_CASE(ls_poll_runs_only_ready_items_without_sleeping),
	KUNIT_CASE(ls_run_for_and_until_return_at_deadline),
	KUNIT_CASE(ls_run_for_runs_items_that_come_before_deadline),
	KUNIT_CASE(ls_stop_from_item_ends_run_after_that_item),
	KUNIT_CASE(ls_stop_from_other_thread_wakes_run),
	KUNIT_CASE(ls_stopped_queues_submissions_until_restart),
	KUNIT_CASE(ls_restart_while_running_ebusy),
	KUNIT_CASE(ls_nested_run_from_item_edeadlk),
	KUNIT_CASE(ls_nested_poll_from_item_runs_ready_items),
	KUNIT_CASE(ls_several_threads_run_each_item_once),
	KUNIT_CASE(ls_dispatch_inside_runs_inline_outside_queues),
	KUNIT_CASE(ls_armed_timed_item_is_outstanding_work),
	KUNIT_CASE(ls_cancel_of_armed_timed_item_stops_run),
	KUNIT_CASE(ls_destroy_discards_and_counts),
	KUNIT_CASE(ls_destroy_from_other_thread_while_running_ebusy),
	KUNIT_CASE(ls_work_guard_counts_outstanding_work),
	KUNIT_CASE(ls_null_arguments_einval),
	{}
};

static struct kunit_suite exec_loop_scheduler_suite = {
	.name = "exec-loop-scheduler",
	.test_cases = exec_loop_scheduler_cases,
};

kunit_test_suites(&exec_loop_scheduler_suite);

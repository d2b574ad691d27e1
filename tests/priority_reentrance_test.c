// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A priority executor with several runners never re-enters a work item: an
 * item submitted again while it runs, and taken by another runner, is
 * handed to the runner that runs it and runs again after that run returns
 * (core/priority.c, "One run of an item at a time"), as on a thread pool
 * (tests/reentrance_test.c).  The handed item is counted as pending,
 * refused a third time, cancelled, flushed, discarded by destroy and run
 * by a managed queue's destroy; a stress resubmits items from several
 * threads and from their own runs and counts runs and overlaps.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "exec_test.h"
#include "internal.h"

#define PR_RUNNING	2

/* A priority executor of PR_RUNNING runners over a pool of as many. */
struct pr_env {
	struct exec_thread_pool *pool;
	struct exec_priority *prio;
	struct exec_executor *ex;
};

static void pr_env_create(struct kunit *test, struct pr_env *env)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = PR_RUNNING };
	struct exec_priority_attr attr = { .max_running = PR_RUNNING };

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&env->pool, &pattr), 0);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&env->prio,
			exec_thread_pool_executor(env->pool), &attr), 0);
	env->ex = exec_priority_executor(env->prio);
}

struct pr_hold_wait {
	struct exec_executor *ex;
	struct exec_test_rerun_item *fx;
};

/*
 * What exec_test_rerun_hold() waits for: the item held for its runner, or
 * started a second time (by the other runner, before the rule), which ends
 * the wait at once for the expectations below to fail.
 */
static unsigned int pr_held(void *arg)
{
	struct pr_hold_wait *w = arg;

	if (atomic_read(&w->fx->started) != 1)
		return 1;
	return exec_priority_test_held(w->ex);
}

/*
 * The first run of @fx waits at its gate; the item is submitted again and
 * the other runner takes it: true once it has been handed to the first
 * (and not started beside it).
 */
static bool pr_hold(struct kunit *test, struct exec_executor *ex,
		    struct exec_test_rerun_item *fx)
{
	struct pr_hold_wait w = { .ex = ex, .fx = fx };

	if (!exec_test_rerun_hold(test, ex, fx, pr_held, &w))
		return false;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->started), 1);
	KUNIT_EXPECT_EQ(test, exec_priority_test_held(ex), 1U);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&fx->work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 1UL);
	/* Held, not run: submitted a third time, it is refused. */
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->work), -EALREADY);
	return atomic_read(&fx->started) == 1;
}

static void prio_reentrance_held_item_runs_after_the_run(struct kunit *test)
{
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct pr_env env;

	pr_env_create(test, &env);
	KUNIT_ASSERT_TRUE(test, pr_hold(test, env.ex, fx));
	/* Not started beside the first run while that one waits. */
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->started), 1);
	KUNIT_EXPECT_EQ(test, exec_pending_count(env.ex), 1UL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_executor_flush(env.ex), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_test_held(env.ex), 0U);
	KUNIT_EXPECT_EQ(test, exec_pending_count(env.ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(env.prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 0);
}

static void prio_reentrance_cancel_takes_a_held_item_back(struct kunit *test)
{
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct pr_env env;

	pr_env_create(test, &env);
	KUNIT_ASSERT_TRUE(test, pr_hold(test, env.ex, fx));
	KUNIT_EXPECT_EQ(test, exec_work_cancel(env.ex, &fx->work),
			EXEC_CANCEL_REMOVED);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(env.ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_priority_test_held(env.ex), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
	exec_test_gate_open(&fx->gate);
	/* 1 if the first run was still returning, 0 if it was over. */
	KUNIT_EXPECT_GE(test, exec_work_flush(env.ex, &fx->work), 0);
	KUNIT_EXPECT_EQ(test, exec_executor_flush(env.ex), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(env.prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
}

struct pr_waiter {
	struct exec_executor *ex;
	struct exec_priority *prio;
	struct exec_test_rerun_item *fx;
	bool item;			/* exec_work_flush() of the item */
	atomic_t entered;		/* about to call the flush */
	int runs_seen;
};

static int pr_flush_thread(void *arg)
{
	struct pr_waiter *w = arg;
	int ret;

	atomic_set(&w->entered, 1);
	ret = w->item ? exec_work_flush(w->ex, &w->fx->work) :
			exec_executor_flush(w->ex);

	w->runs_seen = atomic_read(&w->fx->runs);
	return ret;
}

/* A flush waits for the run under way and for the rerun it holds. */
static void pr_flush_case(struct kunit *test, bool item)
{
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct pr_waiter w = { .fx = fx, .item = item };
	struct exec_test_thread t;
	struct pr_env env;

	pr_env_create(test, &env);
	w.ex = env.ex;
	KUNIT_ASSERT_TRUE(test, pr_hold(test, env.ex, fx));
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, pr_flush_thread, &w,
						     "pr-flush"), 0);
	/* The flush is under way before the gate opens. */
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&w.entered, 1,
						EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&t));
	exec_test_gate_open(&fx->gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	/* exec_work_flush(): 1, it waited for the item. */
	KUNIT_EXPECT_EQ(test, t.ret, item ? 1L : 0L);
	KUNIT_EXPECT_EQ(test, w.runs_seen, 2);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(env.prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
}

static void prio_reentrance_flush_waits_for_the_rerun(struct kunit *test)
{
	pr_flush_case(test, false);
}

static void prio_reentrance_work_flush_waits_for_the_rerun(struct kunit *test)
{
	pr_flush_case(test, true);
}

static int pr_destroy_thread(void *arg)
{
	struct pr_waiter *w = arg;

	return exec_priority_destroy(w->prio);
}

/* A probe's run: counted, never gated. */
static void pr_count(void *arg)
{
	atomic_inc(arg);
}

/*
 * exec_priority_destroy() waits for the run under way and discards what
 * waits: the held item too, counted in its return, never lost nor run.
 */
static void prio_reentrance_destroy_discards_the_held_item(struct kunit *test)
{
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct pr_waiter w = { .fx = fx };
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;
	atomic_t probes_run;
	struct exec_test_thread t;
	struct pr_env env;
	int ret, accepted = 0;

	atomic_set(&probes_run, 0);
	pr_env_create(test, &env);
	w.ex = env.ex;
	w.prio = env.prio;
	KUNIT_ASSERT_TRUE(test, pr_hold(test, env.ex, fx));
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, pr_destroy_thread, &w,
						     "pr-destroy"), 0);
	/* Destroy has begun once submissions fail: probes until then. */
	while ((ret = exec_submit_fn(env.ex, pr_count, &probes_run)) !=
	       -ESHUTDOWN) {
		if (!ret)
			accepted++;
		if (exec_test_expired(deadline))
			break;
		exec_test_relax(&spins);
	}
	KUNIT_EXPECT_EQ(test, ret, -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&t));
	exec_test_gate_open(&fx->gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	/* The held item, and the probes still queued. */
	KUNIT_EXPECT_EQ(test, t.ret,
			1L + accepted - atomic_read(&probes_run));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->work));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
}

/* A managed queue's destroy lets the queued items run: the held one too. */
static void prio_reentrance_managed_queue_runs_the_held_item(struct kunit *test)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = PR_RUNNING };
	struct exec_managed_queue_attr attr = { .thread_limit = PR_RUNNING };
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct exec_managed_queue *q;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &pattr), 0);
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q,
			exec_thread_pool_executor(pool), &attr), 0);
	ex = exec_managed_queue_executor(q);
	KUNIT_ASSERT_TRUE(test, pr_hold(test, ex, fx));
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	/* Its last runner frees it as it returns: a flush of the pool's. */
	KUNIT_EXPECT_EQ(test, exec_executor_flush(exec_thread_pool_executor(pool)),
			0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 0);
}

/*
 * Many items, at several levels, submitted again from several threads and
 * from their own runs: every accepted submission runs once, and no item
 * ever runs beside itself.
 */
#define PS_ITEMS	4
#define PS_THREADS	3
#define PS_ACCEPTS	2000		/* per submitter thread */
#define PS_SELF		500

struct ps_item {
	struct exec_work work;
	struct ps_ctx *ctx;
	atomic_t inside;
	atomic_t accepted;
	atomic_t runs;
	unsigned int self;		/* submissions from its runs, to go */
};

struct ps_ctx {
	struct exec_priority *prio;
	struct ps_item items[PS_ITEMS];
	atomic_t overlaps;
	atomic_t errors;
};

/* Whether the submission was accepted. */
static bool ps_submit(struct ps_ctx *ctx, struct ps_item *it, int level)
{
	int ret = exec_priority_submit(ctx->prio, &it->work, level);

	if (!ret)
		atomic_inc(&it->accepted);
	else if (ret != -EALREADY)
		atomic_inc(&ctx->errors);
	return !ret;
}

static void ps_fn(struct exec_work *work)
{
	struct ps_item *it = container_of(work, struct ps_item, work);
	int i;

	if (atomic_inc_return(&it->inside) > 1)
		atomic_inc(&it->ctx->overlaps);
	/* A while inside, so that runs would meet if they could. */
	for (i = 0; i < 2000; i++)
		cpu_relax();
	atomic_dec(&it->inside);
	if (it->self) {
		it->self--;
		ps_submit(it->ctx, it, it->self % 3);
	}
	atomic_inc(&it->runs);
}

/* Submits until PS_ACCEPTS submissions were accepted (or time is up). */
static int ps_submitter(void *arg)
{
	u64 deadline = exec_test_deadline(5 * EXEC_TEST_TIMEOUT_MS);
	struct ps_ctx *ctx = arg;
	unsigned int accepted = 0, k = 0;

	while (accepted < PS_ACCEPTS && !exec_test_expired(deadline)) {
		k = (k * 1103515245 + 12345) & 0x7fffffff;
		accepted += ps_submit(ctx, &ctx->items[k % PS_ITEMS],
				      (k >> 8) % 3);
	}
	return 0;
}

static void prio_reentrance_stress_counts_every_run(struct kunit *test)
{
	struct ps_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct exec_test_thread threads[PS_THREADS];
	struct pr_env env;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	pr_env_create(test, &env);
	ctx->prio = env.prio;
	for (i = 0; i < PS_ITEMS; i++) {
		exec_work_init(&ctx->items[i].work, ps_fn);
		ctx->items[i].ctx = ctx;
		ctx->items[i].self = PS_SELF;
	}
	for (i = 0; i < PS_THREADS; i++)
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&threads[i],
					ps_submitter, ctx, "pr-stress"), 0);
	for (i = 0; i < PS_THREADS; i++)
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&threads[i],
						10 * EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_executor_drain(env.ex), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(env.ex), 0UL);
	for (i = 0; i < PS_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&ctx->items[i].runs),
				atomic_read(&ctx->items[i].accepted));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(env.prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
}

/* Gates @fx's next run as its first was: it waits at the gate. */
static void pr_regate(struct exec_test_rerun_item *fx)
{
	atomic_set(&fx->started, 0);
	exec_test_gate_init(&fx->gate);
}

static unsigned int pr_pool_held(void *pool)
{
	return exec_thread_pool_test_held(pool);
}

/* As pr_hold(), on a thread pool of two workers: true once @fx is held. */
static bool pr_pool_hold(struct kunit *test, struct exec_thread_pool *pool,
			 struct exec_test_rerun_item *fx)
{
	return exec_test_rerun_hold(test, exec_thread_pool_executor(pool), fx,
				    pr_pool_held, pool) &&
	       atomic_read(&fx->started) == 1;
}

/*
 * An item's flags name the runner that last started it by its address,
 * for a thread pool's workers and a priority executor's runners alike
 * (core/internal.h, EXEC_WORK_RUNNER_MASK).  An item goes from a pool to
 * a priority executor and back, each time with the name its last executor
 * left: the name never reads as a runner of the next one, whose own
 * hand-over still holds the item submitted again while it runs.
 */
static void prio_reentrance_item_moves_between_executors(struct kunit *test)
{
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, false);
	struct exec_thread_pool_attr pattr = { .nr_threads = 2 };
	struct exec_thread_pool *other;
	struct exec_executor *oex;
	struct pr_env env;

	pr_env_create(test, &env);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&other, &pattr), 0);
	oex = exec_thread_pool_executor(other);
	KUNIT_EXPECT_EQ(test, exec_submit(oex, &fx->work), 0);
	KUNIT_EXPECT_GE(test, exec_work_flush(oex, &fx->work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);

	/* Named by a worker of @other: none of the priority executor's. */
	pr_regate(fx);
	KUNIT_ASSERT_TRUE(test, pr_hold(test, env.ex, fx));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_executor_flush(env.ex), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_test_held(env.ex), 0U);

	/* Named by a runner of the priority executor: none of @other's. */
	pr_regate(fx);
	KUNIT_ASSERT_TRUE(test, pr_pool_hold(test, other, fx));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 5,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_executor_flush(oex), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_test_held(other), 0U);

	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(other), 0L);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(env.prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(env.pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 0);
}

static struct kunit_case exec_prio_reentrance_cases[] = {
	KUNIT_CASE(prio_reentrance_held_item_runs_after_the_run),
	KUNIT_CASE(prio_reentrance_cancel_takes_a_held_item_back),
	KUNIT_CASE(prio_reentrance_flush_waits_for_the_rerun),
	KUNIT_CASE(prio_reentrance_work_flush_waits_for_the_rerun),
	KUNIT_CASE(prio_reentrance_destroy_discards_the_held_item),
	KUNIT_CASE(prio_reentrance_managed_queue_runs_the_held_item),
	KUNIT_CASE(prio_reentrance_item_moves_between_executors),
	KUNIT_CASE(prio_reentrance_stress_counts_every_run),
	{}
};

static struct kunit_suite exec_prio_reentrance_suite = {
	.name = "exec-priority-reentrance",
	.test_cases = exec_prio_reentrance_cases,
};

kunit_test_suite(exec_prio_reentrance_suite);

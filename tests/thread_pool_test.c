// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fixed thread pool (include/exec/thread_pool.h): runs everything, its
 * size, destroy (waits for work, -EDEADLK from a worker, -ESHUTDOWN for
 * outsiders), the bounded queue (-EAGAIN, waiting for room), shutdown_hard
 * (discard callbacks, counts, -ESHUTDOWN, a flush whose marker it
 * discards), running_in_this_thread, the pending count, closures, and a
 * pool whose workers do not spin (no_spin).
 *
 * Workers are held at a gate wherever a test needs items to stay queued, so
 * that the state the test inspects does not depend on scheduling.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "pool.h"
#include "exec_test.h"

#define FX_ITEMS	256
#define FX_BLOCKERS	4

struct pool_fx;

struct pw {
	struct exec_work work;
	struct pool_fx *fx;
	atomic_t runs;
	atomic_t discards;
	struct pw *chain_next;		/* submitted by this one when it runs */
	int submit_ret;
	int ret;			/* result of a call made from the item */
	bool in_pool;
	bool in_other;
};

struct pool_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_thread_pool *other;
	struct exec_executor *ex;
	struct exec_test_gate gate;
	atomic_t total_runs;
	atomic_t total_discards;
	struct exec_test_thread helper;
	bool destroyed;
	struct pw blockers[FX_BLOCKERS];
	struct pw items[FX_ITEMS];
};

static void pw_count_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_count(&w->runs);
	exec_test_count(&w->fx->total_runs);
}

static void pw_discard(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_count(&w->discards);
	exec_test_count(&w->fx->total_discards);
}

static void pw_block_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_gate_pass(&w->fx->gate);
	exec_test_count(&w->runs);
}

static void pw_chain_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	if (w->chain_next)
		w->submit_ret = exec_submit(w->fx->ex, &w->chain_next->work);
	exec_test_count(&w->runs);
	exec_test_count(&w->fx->total_runs);
}

static void fx_closure_run(void *arg)
{
	struct pool_fx *fx = arg;

	exec_test_count(&fx->total_runs);
}

static void fx_closure_discard(void *arg)
{
	struct pool_fx *fx = arg;

	exec_test_count(&fx->total_discards);
}

static struct pool_fx *fx_create(struct kunit *test, unsigned int nr_threads,
				 unsigned long queue_limit)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = nr_threads,
		.queue_limit = queue_limit,
		.thread.name = "exec-test",
	};
	struct pool_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i;
	int ret;

	if (!fx)
		return NULL;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	atomic_set(&fx->total_runs, 0);
	atomic_set(&fx->total_discards, 0);
	for (i = 0; i < FX_BLOCKERS; i++) {
		exec_work_init(&fx->blockers[i].work, pw_block_func);
		fx->blockers[i].fx = fx;
	}
	for (i = 0; i < FX_ITEMS; i++) {
		exec_work_init_discard(&fx->items[i].work, pw_count_func,
				       pw_discard);
		fx->items[i].fx = fx;
	}
	ret = exec_thread_pool_create(&fx->pool, &attr);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret) {
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_thread_pool_executor(fx->pool);
	return fx;
}

/* Submit @n blockers and wait until they all hold a worker at the gate. */
static bool fx_block(struct pool_fx *fx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(fx->test,
				exec_submit(fx->ex, &fx->blockers[i].work), 0);
	if (!exec_test_gate_wait_for(&fx->gate, n)) {
		KUNIT_FAIL(fx->test, "%u blockers never started", n);
		return false;
	}
	return true;
}

/*
 * Tear down.  A helper thread that never returned may still use @fx, so
 * then everything is leaked rather than freed under it.
 */
static void fx_finish(struct pool_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(fx->test, "helper thread hangs; leaking the pool");
		return;
	}
	if (!fx->destroyed)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool), 0);
	kfree(fx);
}

static int helper_destroy(void *arg)
{
	struct pool_fx *fx = arg;

	fx->destroyed = true;
	return exec_thread_pool_destroy(fx->pool);
}

static int helper_shutdown_hard(void *arg)
{
	struct pool_fx *fx = arg;

	return (int)exec_thread_pool_shutdown_hard(fx->pool);
}

static void pool_runs_every_submitted_item(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 4, 0);
	unsigned int i, wrong = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 0; i < FX_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[i].work),
				0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 FX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->destroyed = true;
	for (i = 0; i < FX_ITEMS; i++)
		wrong += atomic_read(&fx->items[i].runs) != 1;
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), FX_ITEMS);
	fx_finish(fx);
}

static void pool_size_defaults_to_online_cpus(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 0 };
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_size(pool), exec_online_cpus());
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_size(pool), exec_online_cpus());
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);

	attr.nr_threads = 3;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_size(pool), 3U);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static void pool_create_rejects_too_many_threads_and_null_poolp(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = EXEC_THREAD_POOL_MAX_THREADS + 1,
	};
	struct exec_thread_pool *pool = NULL;

	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(&pool, &attr), -EINVAL);
	attr.nr_threads = ~0U;
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(&pool, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(NULL, NULL), -EINVAL);
	attr.nr_threads = 1;
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(NULL, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(NULL), -EINVAL);
}

/*
 * A worker that cannot start makes creation fail with the thread creation's
 * error: the workers already started are stopped and joined, the output
 * pointer is left alone, and nothing leaks (the sanitizer runs check memory
 * and threads).  Creation works again once threads start.
 */
static void pool_create_fails_cleanly_when_a_thread_cannot_start(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 4 };
	struct exec_thread_pool *pool = NULL;
	unsigned int after;

	for (after = 0; after < attr.nr_threads; after++) {
		exec_fault_inject_thread_start(after);
		KUNIT_EXPECT_EQ_MSG(test, exec_thread_pool_create(&pool, &attr),
				    -EAGAIN, "failing start %u", after);
		KUNIT_EXPECT_NULL(test, pool);
	}
	exec_fault_inject_thread_start(-1);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_size(pool), attr.nr_threads);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static void pool_destroy_waits_for_queued_work(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	unsigned int i, wrong = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 1))
		goto out;
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[i].work),
				0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     helper_destroy, fx,
						     "exec-test-destroy"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE_MSG(test, exec_test_thread_done(&fx->helper),
			       "destroy returned while work was queued");
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		goto out;
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	for (i = 0; i < 64; i++)
		wrong += atomic_read(&fx->items[i].runs) != 1;
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->blockers[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
out:
	fx_finish(fx);
}

/* Work submitted by running work while destroy waits runs too. */
static void pool_destroy_runs_work_submitted_by_running_work(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 2, 0);
	unsigned int i, wrong = 0, bad_ret = 0;
	const unsigned int chain = 32;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	/* Block both workers, then queue the head of a chain of 32 items. */
	for (i = 0; i < chain; i++) {
		fx->items[i].work.func = pw_chain_func;
		fx->items[i].chain_next = i + 1 < chain ? &fx->items[i + 1]
							: NULL;
	}
	if (!fx_block(fx, 2))
		goto out;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[0].work), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     helper_destroy, fx,
						     "exec-test-destroy"), 0);
	/* Let destroy begin before the chain starts to grow. */
	msleep(EXEC_TEST_SETTLE_MS);
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		goto out;
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	for (i = 0; i < chain; i++) {
		wrong += atomic_read(&fx->items[i].runs) != 1;
		bad_ret += fx->items[i].submit_ret != 0;
	}
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, bad_ret, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), (int)chain);
out:
	fx_finish(fx);
}

static void pool_destroy_rejects_outside_submissions_eshutdown(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	unsigned int i, accepted = 0, wrong = 0;
	u64 deadline;
	int ret = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 1))
		goto out;
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     helper_destroy, fx,
						     "exec-test-destroy"), 0);
	/*
	 * Submit until destroy has started.  The blocked worker keeps the
	 * pool alive until the gate opens, so this cannot race with the free.
	 */
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	for (i = 0; i < FX_ITEMS - 1 && !exec_test_expired(deadline); i++) {
		ret = exec_submit(fx->ex, &fx->items[i].work);
		if (ret)
			break;
		accepted++;
		msleep(1);
	}
	KUNIT_EXPECT_EQ(test, ret, -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
	KUNIT_EXPECT_EQ(test, exec_try_submit(fx->ex, &fx->items[FX_ITEMS - 1].work),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, fx_closure_run, fx),
			-ESHUTDOWN);
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		goto out;
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	/* Everything accepted before destroy began still ran, once. */
	for (i = 0; i < accepted; i++)
		wrong += atomic_read(&fx->items[i].runs) != 1;
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	/* ... and the refused closure did not. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), (int)accepted);
out:
	fx_finish(fx);
}

static void pw_destroy_own_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	w->ret = exec_thread_pool_destroy(w->fx->pool);
	exec_test_count(&w->runs);
}

static void pool_destroy_from_own_worker_edeadlk(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 2, 0);
	struct pw *w, *after;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	w = &fx->items[0];
	after = &fx->items[1];
	w->work.func = pw_destroy_own_func;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &w->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&w->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, w->ret, -EDEADLK);
	/* The pool was left untouched: it still runs work. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &after->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&after->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	fx_finish(fx);
}

static void pool_try_submit_eagain_when_queue_full(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 4);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 1))
		goto out;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_try_submit(fx->ex,
						      &fx->items[i].work), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 4UL);
	KUNIT_EXPECT_EQ(test, exec_try_submit(fx->ex, &fx->items[4].work),
			-EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[4].work));
	KUNIT_EXPECT_EQ(test, exec_submit_flags(fx->ex, &fx->items[5].work,
						EXEC_SUBMIT_NOWAIT), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[5].work));
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(fx->ex, fx_closure_run,
						  fx_closure_discard, fx,
						  EXEC_SUBMIT_NOWAIT), -EAGAIN);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 4UL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 4,
							 EXEC_TEST_TIMEOUT_MS));
	/* There is room again. */
	KUNIT_EXPECT_EQ(test, exec_try_submit(fx->ex, &fx->items[4].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 5,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->destroyed = true;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[5].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
out:
	fx_finish(fx);
}

static int helper_submit_item4(void *arg)
{
	struct pool_fx *fx = arg;

	return exec_submit(fx->ex, &fx->items[4].work);
}

static void pool_submit_waits_for_room_when_queue_full(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 4);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 1))
		goto out;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[i].work),
				0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     helper_submit_item4, fx,
						     "exec-test-submit"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE_MSG(test, exec_test_thread_done(&fx->helper),
			       "exec_submit() returned on a full queue");
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		goto out;
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 5,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[4].runs), 1);
out:
	fx_finish(fx);
}

/*
 * The hard-shutdown scene: one worker held by a blocker, ten items queued
 * behind it (six with a discard callback, four without), shutdown_hard
 * called from a helper thread.  shutdown_hard may or may not wait for the
 * running item, so the gate opens once the helper returned or the discards
 * were seen.
 */
#define HARD_QUEUED	10
#define HARD_WITH_DISCARD	6

static bool fx_hard_shutdown(struct pool_fx *fx)
{
	struct kunit *test = fx->test;
	u64 deadline;
	unsigned int i, spins = 0;

	if (!fx_block(fx, 1))
		return false;
	for (i = 0; i < HARD_QUEUED; i++) {
		if (i >= HARD_WITH_DISCARD)
			fx->items[i].work.discard = NULL;
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[i].work),
				0);
	}
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     helper_shutdown_hard, fx,
						     "exec-test-shutdown"), 0);
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!exec_test_thread_done(&fx->helper) &&
	       atomic_read(&fx->total_discards) < HARD_WITH_DISCARD &&
	       !exec_test_expired(deadline))
		exec_test_relax(&spins);
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		return false;
	/* The worker has left the blocker by now, or will soon. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->blockers[0].runs,
							 1,
							 EXEC_TEST_TIMEOUT_MS));
	return true;
}

static void pool_shutdown_hard_lets_running_item_finish(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (fx_hard_shutdown(fx)) {
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
		fx->destroyed = true;
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->blockers[0].runs), 1);
	}
	fx_finish(fx);
}

static void pool_shutdown_hard_discards_queued_items_and_counts_them(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	unsigned int i, bad = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (fx_hard_shutdown(fx)) {
		KUNIT_EXPECT_EQ(test, fx->helper.ret, (long)HARD_QUEUED);
		KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 0UL);
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
		fx->destroyed = true;
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards),
				HARD_WITH_DISCARD);
		for (i = 0; i < HARD_QUEUED; i++) {
			bad += exec_work_pending(&fx->items[i].work);
			if (i < HARD_WITH_DISCARD)
				bad += atomic_read(&fx->items[i].discards) != 1;
		}
		KUNIT_EXPECT_EQ(test, bad, 0U);
	}
	fx_finish(fx);
}

static int helper_flush(void *arg)
{
	struct pool_fx *fx = arg;

	return exec_executor_flush(fx->ex);
}

/*
 * A flush waits behind a running item, its marker queued after another
 * item; shutdown_hard discards both, and the flush returns -ECANCELED at
 * once, without waiting for the running item (exec_executor_flush(): "if
 * @ex discarded the flush's marker").  The marker counts among the
 * discarded items, in shutdown_hard's result and in the statistics.
 */
static void pool_flush_whose_marker_is_discarded_ecanceled(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	struct exec_stats st;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 1))
		goto out;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[0].work), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper, helper_flush,
						     fx, "pool-flush"), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_pending(fx->ex, 2));
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&fx->helper));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(fx->pool), 2L);
	/* The gate is still closed: the flush did not wait for the run. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->helper.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->blockers[0].runs), 0);
	KUNIT_EXPECT_EQ(test, fx->helper.ret, (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, exec_executor_stats(fx->ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.discarded, 2ULL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->destroyed = true;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->blockers[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
out:
	fx_finish(fx);
}

static void pool_submission_after_shutdown_hard_eshutdown(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	struct pw *w;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (fx_hard_shutdown(fx)) {
		w = &fx->items[FX_ITEMS - 1];
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &w->work), -ESHUTDOWN);
		KUNIT_EXPECT_EQ(test, exec_try_submit(fx->ex, &w->work),
				-ESHUTDOWN);
		KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, fx_closure_run,
						     fx), -ESHUTDOWN);
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&w->work));
		/* A refused item is free to go elsewhere. */
		KUNIT_EXPECT_EQ(test, exec_submit(exec_inline_executor(),
						  &w->work), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&w->runs), 1);
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
		fx->destroyed = true;
		/* Only the inline run above counted. */
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 1);
	}
	fx_finish(fx);
}

static void pool_second_shutdown_hard_eshutdown(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (fx_hard_shutdown(fx)) {
		KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(fx->pool),
				(long)-ESHUTDOWN);
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
		fx->destroyed = true;
	}
	fx_finish(fx);
}

static void pool_shutdown_hard_idle_returns_zero(struct kunit *test)
{
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(pool), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static void pw_shutdown_own_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_gate_pass(&w->fx->gate);
	w->ret = (int)exec_thread_pool_shutdown_hard(w->fx->pool);
	exec_test_count(&w->runs);
}

static void pool_shutdown_hard_from_own_worker_returns(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	struct pw *w;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	w = &fx->blockers[0];
	w->work.func = pw_shutdown_own_func;
	if (!fx_block(fx, 1))
		goto out;
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[i].work),
				0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&w->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, w->ret, 3);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[3].work),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->destroyed = true;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
out:
	fx_finish(fx);
}

static void pw_where_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	w->in_pool = exec_thread_pool_running_in_this_thread(w->fx->pool);
	w->in_other = exec_thread_pool_running_in_this_thread(w->fx->other);
	exec_test_count(&w->runs);
}

static void pool_running_in_this_thread_only_in_its_workers(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 2, 0);
	struct pw *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (exec_thread_pool_create(&fx->other, NULL)) {
		KUNIT_FAIL(test, "cannot create a second pool");
		goto out;
	}
	a = &fx->items[0];
	b = &fx->items[1];
	a->work.func = pw_where_func;
	b->work.func = pw_where_func;
	KUNIT_EXPECT_FALSE(test, exec_thread_pool_running_in_this_thread(fx->pool));
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &a->work), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(fx->other),
					  &b->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&a->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&b->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, a->in_pool);
	KUNIT_EXPECT_FALSE(test, a->in_other);
	KUNIT_EXPECT_FALSE(test, b->in_pool);
	KUNIT_EXPECT_TRUE(test, b->in_other);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->other), 0);
out:
	fx_finish(fx);
}

static void pool_pending_count_exact_while_workers_gated(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 2, 0);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 2))
		goto out;
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 0UL);
	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->items[i].work),
				0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 7UL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 7,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 0UL);
out:
	fx_finish(fx);
}

static void pool_submit_fn_runs_every_closure(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 2, 0);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 0; i < 200; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, fx_closure_run,
						     fx), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 200,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->destroyed = true;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 200);
	fx_finish(fx);
}

static void pool_submit_fn_full_discard_called_on_shutdown_hard(struct kunit *test)
{
	struct pool_fx *fx = fx_create(test, 1, 0);
	u64 deadline;
	unsigned int i, spins = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!fx_block(fx, 1))
		goto out;
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn_full(fx->ex, fx_closure_run,
							  fx_closure_discard,
							  fx, 0), 0);
	/* Without a discard callback it is dropped and counted all the same. */
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(fx->ex, fx_closure_run,
						  NULL, fx, 0), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     helper_shutdown_hard, fx,
						     "exec-test-shutdown"), 0);
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!exec_test_thread_done(&fx->helper) &&
	       atomic_read(&fx->total_discards) < 5 &&
	       !exec_test_expired(deadline))
		exec_test_relax(&spins);
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		goto out;
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 6L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->destroyed = true;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
out:
	fx_finish(fx);
}

/*
 * Bursts of items that each block until all of them have started: a pool
 * of BURST_THREADS workers must wake one worker per item even when the
 * burst arrives while a worker is spinning for work (it takes one item and
 * must pass the other wake-ups on).
 */
#define BURST_THREADS	3
#define BURST_ROUNDS	1000

struct burst_fx {
	struct exec_test_gate gate;
	atomic_t done;
	struct exec_work items[BURST_THREADS];
};

static struct burst_fx *burst_fx;

static void burst_func(struct exec_work *work)
{
	exec_test_gate_pass(&burst_fx->gate);
	exec_test_count(&burst_fx->done);
}

static void pool_burst_wakes_a_worker_per_blocking_item(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = BURST_THREADS };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	unsigned int round, i, stuck = 0;

	burst_fx = kzalloc(sizeof(*burst_fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, burst_fx);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	for (i = 0; i < BURST_THREADS; i++)
		exec_work_init(&burst_fx->items[i], burst_func);

	for (round = 0; round < BURST_ROUNDS && !stuck; round++) {
		exec_test_gate_init(&burst_fx->gate);
		for (i = 0; i < BURST_THREADS; i++)
			KUNIT_EXPECT_EQ(test, exec_submit(ex, &burst_fx->items[i]),
					0);
		if (!exec_test_gate_wait_for(&burst_fx->gate, BURST_THREADS))
			stuck = round + 1;
		exec_test_gate_open(&burst_fx->gate);
		/* All of them have left the gate before it is reset. */
		if (!exec_test_wait_atomic_ge(&burst_fx->done,
					      (round + 1) * BURST_THREADS,
					      EXEC_TEST_TIMEOUT_MS))
			stuck = round + 1;
		msleep(round % 3);
	}
	KUNIT_EXPECT_EQ_MSG(test, stuck, 0U, "round %u left an item waiting",
			    stuck);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	kfree(burst_fx);
}

/*
 * Timed items due at the same time, each of which blocks at the gate until
 * all have reached it, must each get a worker: the thread that takes them
 * (the clock event's interrupt in the kernel, a watching worker in
 * userspace, core/timer.c) must not leave them all to one worker, whose
 * first item then waits for ever for the others.  In the kernel a per-CPU
 * pool leaves the items an interrupt submits to the awake worker of that
 * CPU (exec_pool_leave_local()), whose local timer wakes another worker
 * once it sees it blocked.  Once the first item has reached the gate, a
 * timer a minute away is armed: it must not move the clock event device
 * away from the items left waiting (core/timer.c, @left_by).
 */
#define TIMED_BURST_ROUNDS	100

static struct exec_timer timed_burst_timers[BURST_THREADS];
static struct exec_timer timed_burst_far;

static void pool_timed_burst_of_blocking_items_all_run(struct kunit *test,
							bool per_cpu)
{
	struct exec_thread_pool_attr attr = { .per_cpu = per_cpu };
	struct exec_thread_pool *pool;
	unsigned int round, i, n, stuck = 0;
	struct exec_executor *ex;
	u64 at;

	burst_fx = kzalloc(sizeof(*burst_fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, burst_fx);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	n = min_t(unsigned int, exec_thread_pool_size(pool), BURST_THREADS);
	for (i = 0; i < n; i++)
		exec_timer_init(&timed_burst_timers[i], burst_func, NULL);
	exec_timer_init(&timed_burst_far, burst_func, NULL);

	for (round = 0; round < TIMED_BURST_ROUNDS && !stuck; round++) {
		exec_test_gate_init(&burst_fx->gate);
		at = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 1000000;
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ(test,
					exec_submit_at(ex, &timed_burst_timers[i],
						       EXEC_CLOCK_MONOTONIC, at),
					0);
		if (!exec_test_gate_wait_for(&burst_fx->gate, 1))
			stuck = round + 1;
		KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &timed_burst_far,
							60000000000ULL), 0);
		if (!exec_test_gate_wait_for(&burst_fx->gate, n))
			stuck = round + 1;
		KUNIT_EXPECT_EQ(test, exec_timer_cancel(&timed_burst_far), 1);
		exec_test_gate_open(&burst_fx->gate);
		if (!exec_test_wait_atomic_ge(&burst_fx->done, (round + 1) * n,
					      EXEC_TEST_TIMEOUT_MS))
			stuck = round + 1;
		msleep(round % 3);
	}
	KUNIT_EXPECT_EQ_MSG(test, stuck, 0U,
			    "round %u left an item behind a blocked one", stuck);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	kfree(burst_fx);
}

static void pool_timed_burst_of_blocking_items_each_get_a_worker(struct kunit *test)
{
	pool_timed_burst_of_blocking_items_all_run(test, false);
}

static void per_cpu_pool_timed_burst_of_blocking_items_each_get_a_worker(struct kunit *test)
{
	pool_timed_burst_of_blocking_items_all_run(test, true);
}

/*
 * Outside threads keep submitting while destroy runs.  A gate item keeps
 * destroy from returning until every producer has stopped (a handle must not
 * be used after destroy returns), so the producers' submissions race with
 * the start of destroy only.  Each one either was accepted and has run
 * exactly once when destroy returns, or failed with -ESHUTDOWN and never
 * runs; a producer stops at its first -ESHUTDOWN.
 */
#define RACE_PRODUCERS	2
#define RACE_ITEMS	50000

struct race_item {
	struct exec_work work;
	atomic_t runs;
	int result;	/* 1: not submitted, 0: accepted, <0: error */
};

struct race_fx {
	struct exec_executor *ex;
	struct race_item *items[RACE_PRODUCERS];
	atomic_t go;
	atomic_t progress;
	struct exec_test_gate gate;
	struct exec_work gate_work;
	struct exec_thread_pool *pool;
};

static struct race_fx *race_fx_of_gate;

static void race_gate_func(struct exec_work *work)
{
	exec_test_gate_pass(&race_fx_of_gate->gate);
}

static void race_item_func(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct race_item, work)->runs);
}

static int race_produce(void *arg)
{
	struct race_item *items = arg;
	struct race_fx *fx = race_fx_of_gate;
	unsigned int i;

	while (!atomic_read_acquire(&fx->go))
		cpu_relax();
	for (i = 0; i < RACE_ITEMS; i++) {
		items[i].result = exec_submit(fx->ex, &items[i].work);
		atomic_inc(&fx->progress);
		if (items[i].result)
			break;
	}
	return 0;
}

static int race_destroy(void *arg)
{
	struct race_fx *fx = arg;

	atomic_set_release(&fx->go, 1);
	/* Destroy under the producers, a fifth of the way through. */
	while (atomic_read(&fx->progress) < RACE_ITEMS / 5)
		cpu_relax();
	return exec_thread_pool_destroy(fx->pool);
}

static void pool_destroy_racing_outside_submitters_loses_nothing(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_test_thread producers[RACE_PRODUCERS], destroyer;
	unsigned int i, j, accepted = 0, refused = 0, wrong = 0;
	struct race_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	race_fx_of_gate = fx;
	exec_test_gate_init(&fx->gate);
	exec_work_init(&fx->gate_work, race_gate_func);
	for (i = 0; i < RACE_PRODUCERS; i++) {
		fx->items[i] = kcalloc(RACE_ITEMS, sizeof(struct race_item),
				       GFP_KERNEL);
		if (!fx->items[i]) {
			KUNIT_FAIL(test, "out of memory");
			goto out_free;
		}
		for (j = 0; j < RACE_ITEMS; j++) {
			exec_work_init(&fx->items[i][j].work, race_item_func);
			fx->items[i][j].result = 1;
		}
	}
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
	fx->ex = exec_thread_pool_executor(fx->pool);
	KUNIT_ASSERT_EQ(test, exec_submit(fx->ex, &fx->gate_work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));

	for (i = 0; i < RACE_PRODUCERS; i++)
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&producers[i],
				race_produce, fx->items[i], "exec-test-race"), 0);
	/* The destroyer lets the producers go, then destroys under them. */
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&destroyer, race_destroy,
						     fx, "exec-test-dtor"),
			0);
	for (i = 0; i < RACE_PRODUCERS; i++)
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&producers[i],
						EXEC_TEST_TIMEOUT_MS));
	exec_test_gate_open(&fx->gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&destroyer,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, destroyer.ret, 0L);

	for (i = 0; i < RACE_PRODUCERS; i++) {
		for (j = 0; j < RACE_ITEMS; j++) {
			struct race_item *it = &fx->items[i][j];
			int runs = atomic_read(&it->runs);

			if (it->result == 0) {
				accepted++;
				wrong += runs != 1;
			} else if (it->result == -ESHUTDOWN) {
				refused++;
				wrong += runs != 0 || exec_work_pending(&it->work);
			} else {
				wrong += it->result != 1 || runs != 0;
			}
		}
	}
	kunit_info(test, "%u accepted and run, %u refused", accepted, refused);
	KUNIT_EXPECT_EQ(test, wrong, 0U);
out_free:
	for (i = 0; i < RACE_PRODUCERS; i++)
		kfree(fx->items[i]);
	kfree(fx);
}

struct tp_stall {
	struct exec_work work;
	atomic_t *runs;
};

static void tp_stall_fn(struct exec_work *work)
{
	exec_test_count(container_of(work, struct tp_stall, work)->runs);
}

/*
 * A producer stalled between the two stores of its push, as a descheduled
 * vCPU can leave one: the worker that meets the gap waits it out, sleeping
 * only with the consumer lock dropped (in the kernel, a sleep under it is a
 * "sleeping function called from invalid context" report), and runs both
 * items once the link is made.
 */
static void pool_producer_stalled_in_push_is_waited_out(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct tp_stall a, b;
	struct exec_work *prev;
	atomic_t runs;

	atomic_set(&runs, 0);
	a.runs = &runs;
	b.runs = &runs;
	exec_work_init(&a.work, tp_stall_fn);
	exec_work_init(&b.work, tp_stall_fn);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	/* The first half of a push of @a, done by hand: not linked yet. */
	KUNIT_ASSERT_FALSE(test, test_and_set_bit(EXEC_WORK_PENDING_BIT,
						  &a.work.flags));
	WRITE_ONCE(a.work.next, NULL);
	prev = xchg(&pool->queue.q.tail, &a.work);
	atomic_long_inc(&pool->nr_submitted);
	/* @b behind it wakes the worker, which meets the gap. */
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(pool),
					  &b.work), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&runs), 0);
	/* The stalled producer resumes. */
	smp_store_release(&prev->next, &a.work);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

struct tp_gated {
	struct exec_work work;
	struct exec_test_gate *gate;
	atomic_t *order;
	int seen;
};

static void tp_gated_fn(struct exec_work *work)
{
	struct tp_gated *g = container_of(work, struct tp_gated, work);

	if (g->gate)
		exec_test_gate_pass(g->gate);
	g->seen = atomic_inc_return(g->order);
}

/*
 * An outside submission that wakes a parked worker is handed to it with the
 * claim that wakes it, not through the shared queue; one made while the
 * worker is busy goes through the queue.  Both are counted as submitted and
 * pending, and run in the order they were submitted.
 */
static void pool_item_for_a_parked_worker_is_handed_to_it(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct tp_gated first, second;
	struct exec_thread_pool *pool;
	struct exec_test_gate gate;
	struct exec_executor *ex;
	struct exec_stats st;
	atomic_t order;
	long queued;

	atomic_set(&order, 0);
	exec_test_gate_init(&gate);
	exec_work_init(&first.work, tp_gated_fn);
	first.gate = &gate;
	first.order = &order;
	exec_work_init(&second.work, tp_gated_fn);
	second.gate = NULL;
	second.order = &order;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&pool->idle.nr_idle, 1,
							 EXEC_TEST_TIMEOUT_MS));
	queued = atomic_long_read(&pool->nr_submitted);

	KUNIT_ASSERT_EQ(test, exec_submit(ex, &first.work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&pool->nr_submitted), queued);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pool->workers[0].nr_handed), 1UL);

	KUNIT_ASSERT_EQ(test, exec_submit(ex, &second.work), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&pool->nr_submitted),
			queued + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pool->workers[0].nr_handed), 1UL);
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, 2ULL);

	exec_test_gate_open(&gate);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&order, 2,
							 EXEC_TEST_TIMEOUT_MS));
	/* Read after the join, which orders the workers' writes before. */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, first.seen, 1);
	KUNIT_EXPECT_EQ(test, second.seen, 2);
}

/*
 * A pool made with no_spin: its worker, out of work, goes idle without
 * spinning, never counted in @nr_spinning, so each submission made once
 * it is idle is handed to it with a wake-up.  One item is submitted at a
 * time, after the last one ran and the worker went idle; @nr_spinning is
 * sampled without pause all along.  (A pool that spins is seen spinning
 * here nearly every time, between the end of an item and its idle.)
 */
#define NOSPIN_ITEMS	200

/* Waits for the worker to have run @ran items and gone idle; samples. */
static bool tp_nospin_wait_idle(struct exec_thread_pool *pool, atomic_t *order,
				int ran, int *spinning)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int i = 0;

	while (atomic_read_acquire(order) < ran ||
	       !atomic_read(&pool->idle.nr_idle)) {
		*spinning = max(*spinning, atomic_read(&pool->nr_spinning));
		if (++i % 4096 == 0) {
			if (exec_test_expired(deadline))
				return false;
			cond_resched();
		}
		cpu_relax();
	}
	return true;
}

static void pool_no_spin_worker_goes_idle_without_spinning(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1, .no_spin = true };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct tp_gated item;
	int i, spinning = 0;
	atomic_t order;

	atomic_set(&order, 0);
	exec_work_init(&item.work, tp_gated_fn);
	item.gate = NULL;
	item.order = &order;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	for (i = 0; i < NOSPIN_ITEMS; i++) {
		KUNIT_ASSERT_TRUE(test, tp_nospin_wait_idle(pool, &order, i,
							    &spinning));
		KUNIT_ASSERT_EQ(test, exec_submit(ex, &item.work), 0);
	}
	KUNIT_ASSERT_TRUE(test, tp_nospin_wait_idle(pool, &order, NOSPIN_ITEMS,
						    &spinning));
	KUNIT_EXPECT_EQ(test, spinning, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pool->workers[0].nr_handed),
			(unsigned long)NOSPIN_ITEMS);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, item.seen, NOSPIN_ITEMS);
}

/*
 * Outside submitters race to wake the pool's parked workers: each claims a
 * worker without a lock (core/idle.h), so two of them may pick the
 * same one, and a worker may leave its idle state by itself (its spin, or
 * the deadline of a timed item it watches for) while a submitter claims
 * it.  Each submitter waits for its item to run and pauses, so that
 * workers park between items and most items are handed over with a claim;
 * every fourth is a timed item instead.  Every item runs once per
 * submission; the count of idle workers stays between 0 and the number of
 * workers all along (sampled meanwhile); the workers count a wake-up for
 * every hand-over; once all is quiet, the count is the number of workers
 * idle on the idle list, so no claim was lost or counted twice; and a join
 * then finishes.
 */
#define CLAIM_SUBMITTERS	3
#define CLAIM_WORKERS		4
#define CLAIM_ROUNDS		1000

struct claim_item {
	struct exec_work work;
	struct exec_timer timer;
	atomic_t runs;
	int failed;
	unsigned int seed;
};

static struct exec_executor *claim_ex;

static void claim_item_fn(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct claim_item, work)->runs);
}

static void claim_timer_fn(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct claim_item,
				      timer.work)->runs);
}

static int claim_submit(void *arg)
{
	struct claim_item *it = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < CLAIM_ROUNDS; i++) {
		it->seed = it->seed * 1103515245U + 12345U;
		if (i % 4 == 3)
			ret = exec_submit_after(claim_ex, &it->timer,
						(it->seed >> 16) % 50000);
		else
			ret = exec_submit(claim_ex, &it->work);
		if (ret || !exec_test_wait_atomic_ge(&it->runs, i + 1,
						     EXEC_TEST_TIMEOUT_MS)) {
			it->failed = 1;
			break;
		}
		/* Long enough, often, for the workers to park. */
		usleep_range(10 + (it->seed >> 20) % 40, 60);
	}
	return 0;
}

struct claim_fx {
	struct exec_test_thread threads[CLAIM_SUBMITTERS];
	struct claim_item items[CLAIM_SUBMITTERS];
};

static void pool_racing_wakers_claim_each_idle_worker_once(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = CLAIM_WORKERS };
	struct claim_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned long woken = 0, handed = 0;
	int idle, low = CLAIM_WORKERS, high = 0;
	struct exec_thread_pool *pool;
	unsigned int i, done, waiting = 0;
	struct exec_pool_worker *w;
	unsigned long flags;
	u64 deadline;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (exec_thread_pool_create(&pool, &attr)) {
		kfree(fx);
		KUNIT_FAIL(test, "exec_thread_pool_create failed");
		return;
	}
	claim_ex = exec_thread_pool_executor(pool);
	for (i = 0; i < CLAIM_SUBMITTERS; i++) {
		exec_work_init(&fx->items[i].work, claim_item_fn);
		exec_timer_init(&fx->items[i].timer, claim_timer_fn, NULL);
		atomic_set(&fx->items[i].runs, 0);
		fx->items[i].seed = i + 1;
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->threads[i],
				claim_submit, &fx->items[i], "exec-test-claim"),
				0);
	}
	deadline = exec_test_deadline(2 * EXEC_TEST_TIMEOUT_MS);
	do {
		idle = atomic_read(&pool->idle.nr_idle);
		low = min(low, idle);
		high = max(high, idle);
		for (i = 0, done = 0; i < CLAIM_SUBMITTERS; i++)
			done += exec_test_thread_done(&fx->threads[i]);
		cond_resched();
	} while (done < CLAIM_SUBMITTERS && !exec_test_expired(deadline));
	for (i = 0; i < CLAIM_SUBMITTERS; i++) {
		if (!exec_test_thread_join(&fx->threads[i],
					   EXEC_TEST_TIMEOUT_MS)) {
			/* Leaked: the submitters and the pool still run. */
			KUNIT_FAIL(test, "a submitter did not finish");
			return;
		}
	}
	for (i = 0; i < CLAIM_SUBMITTERS; i++) {
		KUNIT_EXPECT_EQ(test, fx->items[i].failed, 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs),
				CLAIM_ROUNDS);
	}
	KUNIT_EXPECT_GE(test, low, 0);
	KUNIT_EXPECT_LE(test, high, CLAIM_WORKERS);

	/* Quiet: every worker parks, counted once. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&pool->idle.nr_idle,
				CLAIM_WORKERS, EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	raw_spin_lock_irqsave(&pool->idle.lock, flags);
	for (i = 0; i < CLAIM_WORKERS; i++) {
		w = &pool->workers[i];
		waiting += exec_pool_worker_idle(w) && w->idle.pprev;
		woken += READ_ONCE(w->nr_woken);
		handed += READ_ONCE(w->nr_handed);
	}
	raw_spin_unlock_irqrestore(&pool->idle.lock, flags);
	KUNIT_EXPECT_EQ(test, atomic_read(&pool->idle.nr_idle), CLAIM_WORKERS);
	KUNIT_EXPECT_EQ(test, waiting, CLAIM_WORKERS);
	kunit_info(test, "%lu wake-ups, %lu items handed over, idle count %d-%d",
		   woken, handed, low, high);
	KUNIT_EXPECT_GE(test, handed, 1UL);
	KUNIT_EXPECT_GE(test, woken, handed);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(pool), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	kfree(fx);
}

static struct kunit_case exec_thread_pool_cases[] = {
	KUNIT_CASE(pool_runs_every_submitted_item),
	KUNIT_CASE(pool_timed_burst_of_blocking_items_each_get_a_worker),
	KUNIT_CASE(per_cpu_pool_timed_burst_of_blocking_items_each_get_a_worker),
	KUNIT_CASE(pool_producer_stalled_in_push_is_waited_out),
	KUNIT_CASE(pool_item_for_a_parked_worker_is_handed_to_it),
	KUNIT_CASE(pool_racing_wakers_claim_each_idle_worker_once),
	KUNIT_CASE(pool_no_spin_worker_goes_idle_without_spinning),
	KUNIT_CASE(pool_size_defaults_to_online_cpus),
	KUNIT_CASE(pool_create_rejects_too_many_threads_and_null_poolp),
	KUNIT_CASE(pool_create_fails_cleanly_when_a_thread_cannot_start),
	KUNIT_CASE(pool_destroy_waits_for_queued_work),
	KUNIT_CASE(pool_destroy_runs_work_submitted_by_running_work),
	KUNIT_CASE(pool_destroy_rejects_outside_submissions_eshutdown),
	KUNIT_CASE(pool_destroy_racing_outside_submitters_loses_nothing),
	KUNIT_CASE(pool_burst_wakes_a_worker_per_blocking_item),
	KUNIT_CASE(pool_destroy_from_own_worker_edeadlk),
	KUNIT_CASE(pool_try_submit_eagain_when_queue_full),
	KUNIT_CASE(pool_submit_waits_for_room_when_queue_full),
	KUNIT_CASE(pool_shutdown_hard_lets_running_item_finish),
	KUNIT_CASE(pool_shutdown_hard_discards_queued_items_and_counts_them),
	KUNIT_CASE(pool_submission_after_shutdown_hard_eshutdown),
	KUNIT_CASE(pool_flush_whose_marker_is_discarded_ecanceled),
	KUNIT_CASE(pool_second_shutdown_hard_eshutdown),
	KUNIT_CASE(pool_shutdown_hard_idle_returns_zero),
	KUNIT_CASE(pool_shutdown_hard_from_own_worker_returns),
	KUNIT_CASE(pool_running_in_this_thread_only_in_its_workers),
	KUNIT_CASE(pool_pending_count_exact_while_workers_gated),
	KUNIT_CASE(pool_submit_fn_runs_every_closure),
	KUNIT_CASE(pool_submit_fn_full_discard_called_on_shutdown_hard),
	{}
};

static struct kunit_suite exec_thread_pool_suite = {
	.name = "exec-thread-pool",
	.test_cases = exec_thread_pool_cases,
};

kunit_test_suites(&exec_thread_pool_suite);

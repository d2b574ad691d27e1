// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A thread pool never re-enters a work item (core/pool_rerun.h): an item
 * submitted again while it runs, and taken by another worker, runs again
 * after that run returns, on the worker that ran it, as a workqueue's work
 * item does (Documentation/migration.rst maps queue_work() to
 * exec_submit() on a pool).  Each case counts runs and overlaps; the held
 * item is also cancelled, flushed, stopped and discarded while it waits.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "exec_test.h"
#include "internal.h"

#define RE_ROUNDS	20
#define RE_RUN_MS	20

static struct exec_thread_pool *re_pool(struct kunit *test, unsigned int n)
{
	struct exec_thread_pool_attr attr = { .nr_threads = n };
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	return pool;
}

static void reentrance_pool_runs_an_item_once_at_a_time(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_executor *ex = exec_thread_pool_executor(pool);
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, false);
	int i, accepted = 0, ret;
	unsigned int spins = 0;

	fx->sleep_ms = RE_RUN_MS;
	for (i = 0; i < RE_ROUNDS; i++) {
		/* Submitted again once the previous run has started. */
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->started,
					i, EXEC_TEST_TIMEOUT_MS));
		while ((ret = exec_submit(ex, &fx->work)) == -EALREADY)
			exec_test_relax(&spins);
		KUNIT_ASSERT_EQ(test, ret, 0);
		accepted++;
	}
	KUNIT_EXPECT_GE(test, exec_work_flush(ex, &fx->work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), accepted);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static unsigned int re_pool_held(void *pool)
{
	return exec_thread_pool_test_held(pool);
}

/*
 * The first run of @fx waits at its gate; the item is submitted again and
 * the other worker hands it to the first: true once it is held.
 */

static bool re_hold(struct kunit *test, struct exec_thread_pool *pool,
		    struct exec_test_rerun_item *fx)
{
	struct exec_executor *ex = exec_thread_pool_executor(pool);

	if (!exec_test_rerun_hold(test, ex, fx, re_pool_held, pool))
		return false;
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&fx->work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 1UL);
	/* Held, not run: submitted a third time, it is refused. */
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->work), -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->started), 1);
	return true;
}

static void reentrance_held_item_runs_after_the_run(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_executor *ex = exec_thread_pool_executor(pool);
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct exec_test_rerun_item *other = exec_test_rerun_new(test, false);

	KUNIT_ASSERT_TRUE(test, re_hold(test, pool, fx));
	/* The worker that handed it over is free: other items run. */
	other->sleep_ms = 0;
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &other->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&other->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->started), 1);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_test_held(pool), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 0);
}

static void reentrance_cancel_takes_a_held_item_back(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_executor *ex = exec_thread_pool_executor(pool);
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);

	KUNIT_ASSERT_TRUE(test, re_hold(test, pool, fx));
	KUNIT_EXPECT_EQ(test, exec_work_cancel(ex, &fx->work),
			EXEC_CANCEL_REMOVED);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
	exec_test_gate_open(&fx->gate);
	/* 1 if the first run was still returning, 0 if it was over. */
	KUNIT_EXPECT_GE(test, exec_work_flush(ex, &fx->work), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
}

struct re_flusher {
	struct exec_executor *ex;
	struct exec_test_rerun_item *fx;
	atomic_t entered;
	int runs_seen;
};

static int re_flush_thread(void *arg)
{
	struct re_flusher *f = arg;
	int ret;

	atomic_set(&f->entered, 1);
	ret = exec_work_flush(f->ex, &f->fx->work);

	f->runs_seen = atomic_read(&f->fx->runs);
	return ret;
}

static void reentrance_flush_waits_for_the_rerun(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_executor *ex = exec_thread_pool_executor(pool);
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);
	struct re_flusher f = { .ex = ex, .fx = fx };
	struct exec_test_thread t;

	KUNIT_ASSERT_TRUE(test, re_hold(test, pool, fx));
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, re_flush_thread, &f,
						     "re-flush"), 0);
	/* The flush is under way before the gate opens. */
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&f.entered, 1,
						EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&t));
	exec_test_gate_open(&fx->gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, t.ret, 1L);
	KUNIT_EXPECT_EQ(test, f.runs_seen, 2);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* stop: the worker leaves its held item for destroy's discard. */
static void reentrance_stop_leaves_the_held_item_to_destroy(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);

	KUNIT_ASSERT_TRUE(test, re_hold(test, pool, fx));
	exec_thread_pool_stop(pool);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->work));
}

static void reentrance_shutdown_hard_discards_the_held_item(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_test_rerun_item *fx = exec_test_rerun_new(test, true);

	KUNIT_ASSERT_TRUE(test, re_hold(test, pool, fx));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(pool), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
}

/* A timed item that comes due while it runs waits for that run too. */
struct re_timer_fx {
	struct exec_timer timer;
	struct exec_test_gate gate;
	atomic_t inside;
	atomic_t overlaps;
	atomic_t runs;
	atomic_t started;
};

static void re_timer_fn(struct exec_work *work)
{
	struct re_timer_fx *fx = container_of(work, struct re_timer_fx,
					      timer.work);

	if (atomic_inc_return(&fx->inside) > 1)
		atomic_inc(&fx->overlaps);
	if (atomic_inc_return(&fx->started) == 1)
		exec_test_gate_pass(&fx->gate);
	atomic_dec(&fx->inside);
	atomic_inc(&fx->runs);
}

static void reentrance_timer_due_while_it_runs(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 2);
	struct exec_executor *ex = exec_thread_pool_executor(pool);
	struct re_timer_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_timer_init(&fx->timer, re_timer_fn, NULL);
	exec_test_gate_init(&fx->gate);
	KUNIT_ASSERT_EQ(test, exec_submit_after(ex, &fx->timer, 0), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	/* Due at once, while the first run waits at the gate. */
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &fx->timer, 1000), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->started), 1);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
}

/*
 * Many items, submitted again from several threads and from their own
 * runs, and cancelled now and then, on a pool of four: every accepted
 * submission that no cancel removed runs once, and no item ever runs
 * beside itself.
 */
#define RS_ITEMS	32
#define RS_THREADS	3
#define RS_SUBMITS	20000

struct rs_item {
	struct exec_work work;
	struct rs_ctx *ctx;
	atomic_t inside;
	atomic_t accepted;
	atomic_t removed;
	atomic_t runs;
	unsigned int self;		/* submissions from its runs, to go */
};

struct rs_ctx {
	struct exec_executor *ex;
	struct rs_item items[RS_ITEMS];
	atomic_t overlaps;
	atomic_t errors;
};

static void rs_fn(struct exec_work *work)
{
	struct rs_item *it = container_of(work, struct rs_item, work);
	int i, ret;

	if (atomic_inc_return(&it->inside) > 1)
		atomic_inc(&it->ctx->overlaps);
	/* A while inside, so that runs would meet if they could. */
	for (i = 0; i < 200; i++)
		cpu_relax();
	atomic_dec(&it->inside);
	if (it->self) {
		it->self--;
		ret = exec_submit(it->ctx->ex, &it->work);
		if (!ret)
			atomic_inc(&it->accepted);
		else if (ret != -EALREADY)
			atomic_inc(&it->ctx->errors);
	}
	atomic_inc(&it->runs);
}

static int rs_submitter(void *arg)
{
	struct rs_ctx *ctx = arg;
	struct rs_item *it;
	unsigned int i, k = 0;
	int ret;

	for (i = 0; i < RS_SUBMITS; i++) {
		k = (k * 1103515245 + 12345) & 0x7fffffff;
		it = &ctx->items[k % RS_ITEMS];
		/* Cancels too: items taken out of a slot, or held. */
		if (!(k & 0x300)) {
			ret = exec_work_cancel(ctx->ex, &it->work);
			if (ret == EXEC_CANCEL_REMOVED)
				atomic_inc(&it->removed);
			else if (ret < 0)
				atomic_inc(&ctx->errors);
			continue;
		}
		ret = exec_submit(ctx->ex, &it->work);
		if (!ret)
			atomic_inc(&it->accepted);
		else if (ret != -EALREADY)
			atomic_inc(&ctx->errors);
	}
	return 0;
}

static void reentrance_stress_counts_every_run(struct kunit *test)
{
	struct exec_thread_pool *pool = re_pool(test, 4);
	struct rs_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct exec_test_thread threads[RS_THREADS];
	unsigned long runs = 0, removed = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->ex = exec_thread_pool_executor(pool);
	for (i = 0; i < RS_ITEMS; i++) {
		exec_work_init(&ctx->items[i].work, rs_fn);
		ctx->items[i].ctx = ctx;
		ctx->items[i].self = 500;
	}
	for (i = 0; i < RS_THREADS; i++)
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&threads[i],
					rs_submitter, ctx, "re-stress"), 0);
	for (i = 0; i < RS_THREADS; i++)
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&threads[i],
						10 * EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_executor_drain(ctx->ex), 0);
	for (i = 0; i < RS_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&ctx->items[i].runs),
				atomic_read(&ctx->items[i].accepted) -
				atomic_read(&ctx->items[i].removed));
	for (i = 0; i < RS_ITEMS; i++) {
		runs += atomic_read(&ctx->items[i].runs);
		removed += atomic_read(&ctx->items[i].removed);
	}
	kunit_info(test, "%lu runs, %lu submissions removed by a cancel",
		   runs, removed);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->errors), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static struct kunit_case exec_reentrance_cases[] = {
	KUNIT_CASE(reentrance_pool_runs_an_item_once_at_a_time),
	KUNIT_CASE(reentrance_held_item_runs_after_the_run),
	KUNIT_CASE(reentrance_cancel_takes_a_held_item_back),
	KUNIT_CASE(reentrance_flush_waits_for_the_rerun),
	KUNIT_CASE(reentrance_stop_leaves_the_held_item_to_destroy),
	KUNIT_CASE(reentrance_shutdown_hard_discards_the_held_item),
	KUNIT_CASE(reentrance_timer_due_while_it_runs),
	KUNIT_CASE(reentrance_stress_counts_every_run),
	{}
};

static struct kunit_suite exec_reentrance_suite = {
	.name = "exec-reentrance",
	.test_cases = exec_reentrance_cases,
};

kunit_test_suite(exec_reentrance_suite);

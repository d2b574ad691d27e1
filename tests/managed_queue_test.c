// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The managed queue (include/exec/managed_queue.h): thread_limit under
 * load, queue_limit (submit waits for room, try_submit -EAGAIN), the time
 * limit's report while an overrunning item still runs and none for a short
 * one, wait_until_complete with a timed item armed, destroy that returns
 * while an item runs and lets the queued ones run afterwards (the
 * underlying refusing destroy meanwhile), an item submitted as the runner
 * of the one before ends, and argument checks.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

#define MQ_ITEMS	64
#define MQ_LIMIT	2
/* Far above what a short item takes, even on a loaded machine. */
#define MQ_TIME_LIMIT_NS	(200ULL * 1000 * 1000)

struct mq_fx;

struct mqw {
	struct exec_work work;
	struct mq_fx *fx;
	unsigned int id;
	bool gated;
	atomic_t runs;
	atomic_t discards;
};

struct mq_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_managed_queue *q;
	struct exec_executor *ex;
	struct exec_test_gate gate;
	atomic_t inside;
	atomic_t max_inside;
	atomic_t total_runs;
	atomic_t order_len;
	unsigned int order[MQ_ITEMS];
	struct exec_test_thread helper;
	struct exec_timer timer;
	atomic_t timer_runs;
	atomic_t timer_discards;
	struct mqw items[MQ_ITEMS];
};

static struct mq_fx *mfx_create(struct kunit *test, unsigned int threads,
				const struct exec_managed_queue_attr *attr)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = threads };
	struct mq_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int ret;

	if (!fx)
		return NULL;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	ret = exec_thread_pool_create(&fx->pool, &pattr);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret) {
		kfree(fx);
		return NULL;
	}
	ret = exec_managed_queue_create(&fx->q,
					exec_thread_pool_executor(fx->pool),
					attr);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret) {
		exec_thread_pool_destroy(fx->pool);
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_managed_queue_executor(fx->q);
	return fx;
}

/* Waits until the queue has let go of the pool, then destroys the pool. */
static void mfx_destroy_pool(struct mq_fx *fx)
{
	struct exec_executor *pex = exec_thread_pool_executor(fx->pool);
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (exec_executor_dependents(pex) && !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_EXPECT_EQ(fx->test, exec_executor_dependents(pex), 0UL);
	KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool), 0);
}

static void mfx_finish(struct mq_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(fx->test, "helper thread hangs; leaking everything");
		return;
	}
	if (fx->q)
		KUNIT_EXPECT_GE(fx->test, exec_managed_queue_destroy(fx->q), 0L);
	mfx_destroy_pool(fx);
	kfree(fx);
}

/* Records its order and the most items of the queue inside at once. */
static void mqw_func(struct exec_work *work)
{
	struct mqw *w = container_of(work, struct mqw, work);
	struct mq_fx *fx = w->fx;
	int now = atomic_inc_return(&fx->inside);
	int max = atomic_read(&fx->max_inside);
	int pos;

	while (now > max && !atomic_try_cmpxchg(&fx->max_inside, &max, now))
		;
	pos = atomic_inc_return(&fx->order_len) - 1;
	if (pos < MQ_ITEMS)
		fx->order[pos] = w->id;
	if (w->gated)
		exec_test_gate_pass(&fx->gate);
	atomic_dec_return(&fx->inside);
	exec_test_count(&w->runs);
	exec_test_count(&fx->total_runs);
}

static void mqw_discard(struct exec_work *work)
{
	struct mqw *w = container_of(work, struct mqw, work);

	exec_test_count(&w->discards);
}

static struct mqw *mqw_init(struct mq_fx *fx, unsigned int id, bool gated)
{
	struct mqw *w = &fx->items[id];

	exec_work_init_discard(&w->work, mqw_func, mqw_discard);
	w->fx = fx;
	w->id = id;
	w->gated = gated;
	atomic_set(&w->runs, 0);
	atomic_set(&w->discards, 0);
	return w;
}

static void mq_thread_limit_bounds_items_at_once(struct kunit *test)
{
	struct exec_managed_queue_attr attr = { .thread_limit = MQ_LIMIT };
	struct mq_fx *fx = mfx_create(test, 4, &attr);
	unsigned int i;

	if (!fx)
		return;
	/* Every item waits at the gate: the queue fills the pool if it can. */
	for (i = 0; i < MQ_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex,
						  &mqw_init(fx, i, true)->work),
				0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, MQ_LIMIT));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 MQ_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	/* Two at once were seen at the gate; more never were. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->max_inside), MQ_LIMIT);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	for (i = 0; i < MQ_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
	/* After the wait the queue goes at once, and the pool after it. */
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(fx->q), 0L);
	fx->q = NULL;
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(
				exec_thread_pool_executor(fx->pool)), 0UL);
	mfx_finish(fx);
}

static int mq_submit_thread(void *arg)
{
	struct mq_fx *fx = arg;

	return exec_submit(fx->ex, &fx->items[3].work);
}

static void mq_queue_limit_submit_waits_try_submit_eagain(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.thread_limit = 1,
		.queue_limit = 2,
	};
	struct mq_fx *fx = mfx_create(test, 2, &attr);
	unsigned int i;

	if (!fx)
		return;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 0, true)->work),
			0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	/* Item 0 runs; two wait: the queue is full. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 1, false)->work),
			0);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 2, false)->work),
			0);
	mqw_init(fx, 3, false);
	KUNIT_EXPECT_EQ(test, exec_try_submit(fx->ex, &fx->items[3].work),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[3].work), -EAGAIN);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     mq_submit_thread, fx,
						     "mq-submit"), 0);
	/* It waits for room as long as item 0 holds the only runner. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&fx->helper));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 4);
	/* One runner: in submission order. */
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, fx->order[i], i);
	mfx_finish(fx);
}

static void mq_time_limit_reports_overrun_while_running(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.name = "mq-test",
		.thread_limit = 1,
		.time_limit_ns = MQ_TIME_LIMIT_NS,
	};
	struct mq_fx *fx = mfx_create(test, 1, &attr);
	unsigned long before = exec_prio_test_reports();
	u64 deadline;
	unsigned int spins = 0;

	if (!fx)
		return;
	/* A short item first: within its limit, never reported. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 0, false)->work),
			0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	KUNIT_EXPECT_EQ(test, exec_prio_test_reports(), before);

	/* An item stuck at the gate is reported before it returns. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 1, true)->work),
			0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (exec_prio_test_reports() == before &&
	       !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_EXPECT_EQ(test, exec_prio_test_reports(), before + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	/* Once, not again when it returns. */
	KUNIT_EXPECT_EQ(test, exec_prio_test_reports(), before + 1);

	/* And a short item after it is not reported either. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 2, false)->work),
			0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	KUNIT_EXPECT_EQ(test, exec_prio_test_reports(), before + 1);
	mfx_finish(fx);
}

static void mq_timer_func(struct exec_work *work)
{
	struct exec_timer *t = container_of(work, struct exec_timer, work);
	struct mq_fx *fx = container_of(t, struct mq_fx, timer);

	exec_test_count(&fx->timer_runs);
}

static void mq_timer_discard(struct exec_work *work)
{
	struct exec_timer *t = container_of(work, struct exec_timer, work);
	struct mq_fx *fx = container_of(t, struct mq_fx, timer);

	exec_test_count(&fx->timer_discards);
}

/* From an item of the queue: waiting for itself is refused. */
static void mq_wait_from_inside(struct exec_work *work)
{
	struct mqw *w = container_of(work, struct mqw, work);

	if (exec_managed_queue_wait_until_complete(w->fx->q) == -EDEADLK)
		exec_test_count(&w->discards);
	exec_test_count(&w->runs);
}

static void mq_wait_until_complete_waits_for_timed_item(struct kunit *test)
{
	struct mq_fx *fx = mfx_create(test, 2, NULL);
	struct mqw *w;

	if (!fx)
		return;
	exec_timer_init(&fx->timer, mq_timer_func, mq_timer_discard);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &fx->timer,
						30ULL * 1000 * 1000), 0);
	/* Armed, not due: the queue has work, so the wait lasts until it ran. */
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->timer_runs), 1);

	w = mqw_init(fx, 0, false);
	w->work.func = mq_wait_from_inside;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &w->work), 0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->discards), 1);
	mfx_finish(fx);
}

static void mq_destroy_returns_while_items_run_then_they_run(struct kunit *test)
{
	struct exec_managed_queue_attr attr = { .thread_limit = 1 };
	struct mq_fx *fx = mfx_create(test, 2, &attr);
	struct exec_executor *pex;
	unsigned int i;

	if (!fx)
		return;
	pex = exec_thread_pool_executor(fx->pool);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 0, true)->work),
			0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex,
						  &mqw_init(fx, i, false)->work),
				0);
	exec_timer_init(&fx->timer, mq_timer_func, mq_timer_discard);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &fx->timer,
						60ULL * 1000 * 1000 * 1000), 0);

	/* Returns at once, with item 0 stuck: the armed timed item goes. */
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(fx->q), 1L);
	fx->q = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->timer_discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards), 0);
	/* The executor lives on until its last item: it refuses new work. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &mqw_init(fx, 4, false)->work),
			-ESHUTDOWN);
	/* The pool cannot go while the queue's items are to run on it. */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), -EBUSY);
	KUNIT_EXPECT_GE(test, exec_executor_dependents(pex), 1UL);

	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 4,
							 EXEC_TEST_TIMEOUT_MS));
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
		KUNIT_EXPECT_EQ(test, fx->order[i], i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[4].runs), 0);
	/* After the last one the pool may go. */
	mfx_finish(fx);
}

static void mq_destroy_from_own_item(struct exec_work *work)
{
	struct mqw *w = container_of(work, struct mqw, work);

	w->fx->helper.ret = exec_managed_queue_destroy(w->fx->q);
	exec_test_count(&w->runs);
	exec_test_count(&w->fx->total_runs);
}

static void mq_destroy_from_own_item_is_allowed(struct kunit *test)
{
	struct mq_fx *fx = mfx_create(test, 1, NULL);
	struct mqw *w;

	if (!fx)
		return;
	w = mqw_init(fx, 0, false);
	w->work.func = mq_destroy_from_own_item;
	fx->helper.ret = -1;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &w->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
	fx->q = NULL;
	mfx_finish(fx);
}

/*
 * Each item is submitted as the runner of the one before ends: the runner
 * must not end as the last one with the new item left behind (discarded).
 */
static void mq_item_submitted_as_runner_ends_runs(struct kunit *test)
{
	struct exec_managed_queue_attr attr = { .thread_limit = 1 };
	struct mq_fx *fx = mfx_create(test, 2, &attr);
	struct mqw *w;
	int i;

	if (!fx)
		return;
	w = mqw_init(fx, 0, false);
	for (i = 1; i <= 2000; i++) {
		KUNIT_ASSERT_EQ(test, exec_submit(fx->ex, &w->work), 0);
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&w->runs, i,
							EXEC_TEST_TIMEOUT_MS));
	}
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(fx->q), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->runs), 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->discards), 0);
	mfx_finish(fx);
}

static void mq_bad_input(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.thread_limit = EXEC_MANAGED_QUEUE_MAX_THREADS + 1,
	};
	struct exec_managed_queue *q = NULL;
	struct exec_thread_pool *pool;
	struct exec_executor *pex;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	pex = exec_thread_pool_executor(pool);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_create(NULL, pex, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_create(&q, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_create(&q, pex, &attr),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, q, (struct exec_managed_queue *)NULL);
	KUNIT_EXPECT_PTR_EQ(test, exec_managed_queue_executor(NULL),
			    (struct exec_executor *)NULL);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(NULL), -EINVAL);

	/* The largest limit is fine, and an idle queue frees at once. */
	attr.thread_limit = EXEC_MANAGED_QUEUE_MAX_THREADS;
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q, pex, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(q), 0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_executor_dependents(pex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static struct kunit_case exec_managed_queue_cases[] = {
	KUNIT_CASE(mq_thread_limit_bounds_items_at_once),
	KUNIT_CASE(mq_queue_limit_submit_waits_try_submit_eagain),
	KUNIT_CASE(mq_time_limit_reports_overrun_while_running),
	KUNIT_CASE(mq_wait_until_complete_waits_for_timed_item),
	KUNIT_CASE(mq_destroy_returns_while_items_run_then_they_run),
	KUNIT_CASE(mq_destroy_from_own_item_is_allowed),
	KUNIT_CASE(mq_item_submitted_as_runner_ends_runs),
	KUNIT_CASE(mq_bad_input),
	{}
};

static struct kunit_suite exec_managed_queue_suite = {
	.name = "exec-managed-queue",
	.test_cases = exec_managed_queue_cases,
};

kunit_test_suites(&exec_managed_queue_suite);

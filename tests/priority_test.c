// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The priority executor (include/exec/priority.h): higher levels first and
 * FIFO within a level, max_running, aging (a waiting low item passes later
 * high ones, and a stream of high items does not starve it), destroy
 * (discards, -EDEADLK), an underlying executor that refuses or drops the
 * runner, dispatch, closures, argument checks, and a stress run from
 * several submitters that checks every task and per-level FIFO order.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define PX_ITEMS	512
#define PX_HIGH		7
#define PX_MID		3
#define PX_LOW		0
#define PX_AGING_NS	(5ULL * 1000 * 1000)
#define PX_CHAIN	400
#define PX_CHAIN_SPIN_NS	(250ULL * 1000)

struct prio_fx;

struct pw {
	struct exec_work work;
	struct prio_fx *fx;
	unsigned int id;
	int level;
	atomic_t runs;
	atomic_t discards;
	long ret;
	bool in_prio;
	bool in_ex;
	int dispatched_runs;
};

struct prio_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_priority *prio;
	struct exec_test_gate gate;
	atomic_t order_len;
	atomic_t total_runs;
	atomic_t total_discards;
	atomic_t inside;
	atomic_t too_many;		/* times more than max ran at once */
	int max_inside;
	unsigned int chain_left;	/* touched by the chain's items only */
	unsigned int order[PX_ITEMS];
	struct exec_test_thread helper;
	struct pw items[PX_ITEMS];
};

static struct prio_fx *pfx_create(struct kunit *test, unsigned int threads,
				  const struct exec_priority_attr *attr)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = threads };
	struct prio_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int ret;

	if (!fx)
		return NULL;
	fx->test = test;
	fx->max_inside = attr && attr->max_running ? attr->max_running : 1;
	exec_test_gate_init(&fx->gate);
	ret = exec_thread_pool_create(&fx->pool, &pattr);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret) {
		kfree(fx);
		return NULL;
	}
	ret = exec_priority_create(&fx->prio,
				   exec_thread_pool_executor(fx->pool), attr);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret) {
		exec_thread_pool_destroy(fx->pool);
		kfree(fx);
		return NULL;
	}
	return fx;
}

static void pfx_finish(struct prio_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(fx->test, "helper thread hangs; leaking everything");
		return;
	}
	if (fx->prio)
		KUNIT_EXPECT_GE(fx->test, exec_priority_destroy(fx->prio), 0L);
	if (fx->pool)
		KUNIT_EXPECT_GE(fx->test, exec_thread_pool_destroy(fx->pool),
				0);
	kfree(fx);
}

/* Records where it ran, and checks that no more than max run at once. */
static void pw_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);
	struct prio_fx *fx = w->fx;
	int pos;

	if (atomic_inc_return(&fx->inside) > fx->max_inside)
		exec_test_count(&fx->too_many);
	pos = atomic_inc_return(&fx->order_len) - 1;
	if (pos < PX_ITEMS)
		fx->order[pos] = w->id;
	w->in_prio = exec_priority_running_in_this_thread(fx->prio);
	w->in_ex = exec_running_in_this_thread(exec_priority_executor(fx->prio));
	atomic_dec_return(&fx->inside);
	exec_test_count(&w->runs);
	exec_test_count(&fx->total_runs);
}

static void pw_discard(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_count(&w->discards);
	exec_test_count(&w->fx->total_discards);
}

/* Blocks its runner at the gate; not recorded in the order. */
static void pw_gate_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_gate_pass(&w->fx->gate);
	exec_test_count(&w->runs);
}

static void pw_prepare(struct prio_fx *fx, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++) {
		exec_work_init_discard(&fx->items[i].work, pw_func, pw_discard);
		fx->items[i].fx = fx;
		fx->items[i].id = i;
	}
}

static int pw_submit(struct prio_fx *fx, unsigned int i, int level)
{
	fx->items[i].level = level;
	return exec_priority_submit(fx->prio, &fx->items[i].work, level);
}

/* Item 0 at @level takes the runner and holds it at the gate. */
static bool pw_block(struct prio_fx *fx, int level)
{
	pw_prepare(fx, 0, 1);
	fx->items[0].work.func = pw_gate_func;
	KUNIT_EXPECT_EQ(fx->test, pw_submit(fx, 0, level), 0);
	if (exec_test_gate_wait_for(&fx->gate, 1))
		return true;
	KUNIT_FAIL(fx->test, "the gate item never started");
	return false;
}

static unsigned int pw_wrong_runs(struct prio_fx *fx, unsigned int first,
				  unsigned int n)
{
	unsigned int i, wrong = 0;

	for (i = first; i < first + n; i++)
		wrong += atomic_read(&fx->items[i].runs) != 1;
	return wrong;
}

static void pw_expect_order(struct prio_fx *fx, const unsigned int *want,
			    unsigned int n)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(fx->test, atomic_read(&fx->order_len), (int)n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(fx->test, fx->order[i], want[i],
				    "position %u", i);
}

/*
 * Low, high and middle items (and exec_submit() at the default level)
 * queued behind a gate, interleaved: they run highest level first, each
 * level in submission order, each once.
 */
static void priority_runs_higher_levels_first_fifo_within_a_level(struct kunit *test)
{
	static const int level[] = {
		0, PX_LOW, PX_HIGH, PX_MID, PX_LOW, -1, PX_HIGH, PX_MID,
		PX_LOW, PX_HIGH, -1, PX_MID,
	};
	static const unsigned int want[] = { 2, 6, 9, 5, 10, 3, 7, 11, 1, 4, 8 };
	struct prio_fx *fx = pfx_create(test, 1, NULL);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_priority_executor(fx->prio);
	KUNIT_EXPECT_EQ(test, exec_priority_default_level(fx->prio), 4);
	KUNIT_EXPECT_STREQ(test, exec_executor_kind(ex), "priority");
	KUNIT_EXPECT_PTR_EQ(test, exec_priority_underlying(fx->prio),
			    exec_thread_pool_executor(fx->pool));
	if (!pw_block(fx, PX_LOW))
		goto out;
	pw_prepare(fx, 1, 11);
	for (i = 1; i < 12; i++) {
		if (level[i] < 0)
			KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work),
					0);
		else
			KUNIT_EXPECT_EQ(test, pw_submit(fx, i, level[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 11UL);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 11,
							 EXEC_TEST_TIMEOUT_MS));
	pw_expect_order(fx, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, pw_wrong_runs(fx, 0, 12), 0U);
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_TRUE(test, fx->items[1].in_prio);
	KUNIT_EXPECT_TRUE(test, fx->items[1].in_ex);
	KUNIT_EXPECT_FALSE(test, exec_priority_running_in_this_thread(fx->prio));
out:
	pfx_finish(fx);
}

static void pc_closure(void *arg)
{
	struct pw *w = arg;

	pw_func(&w->work);
}

/* Closures and intrusive items share the levels and their order. */
static void priority_closures_take_their_level(struct kunit *test)
{
	/* 6 goes in at the default level, 4: between the high and mid ones. */
	static const unsigned int want[] = { 2, 4, 6, 1, 3, 5 };
	struct prio_fx *fx = pfx_create(test, 1, NULL);
	struct exec_executor *ex;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_priority_executor(fx->prio);
	if (!pw_block(fx, PX_HIGH))
		goto out;
	pw_prepare(fx, 1, 6);
	KUNIT_EXPECT_EQ(test, exec_priority_submit_fn(fx->prio, pc_closure,
						      &fx->items[1], PX_MID), 0);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 2, PX_HIGH), 0);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 3, PX_MID), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_submit_fn(fx->prio, pc_closure,
						      &fx->items[4], PX_HIGH), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_submit_fn(fx->prio, pc_closure,
						      &fx->items[5], PX_LOW), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, pc_closure, &fx->items[6]), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_submit_fn(fx->prio, pc_closure,
						      &fx->items[7], 8),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_priority_submit_fn(fx->prio, NULL, NULL, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_priority_submit_fn(NULL, pc_closure,
						      &fx->items[7], 1),
			-EINVAL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 6,
							 EXEC_TEST_TIMEOUT_MS));
	pw_expect_order(fx, want, ARRAY_SIZE(want));
out:
	pfx_finish(fx);
}

/* max_running items run at once, no more; the rest wait their turn. */
static void priority_max_running_bounds_items_at_once(struct kunit *test)
{
	struct exec_priority_attr attr = { .max_running = 3 };
	struct prio_fx *fx = pfx_create(test, 4, &attr);
	struct exec_executor *ex;
	unsigned int i, pending;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_priority_executor(fx->prio);
	pw_prepare(fx, 0, 5);
	for (i = 0; i < 5; i++) {
		fx->items[i].work.func = pw_gate_func;
		KUNIT_EXPECT_EQ(test, pw_submit(fx, i, i % 2 ? PX_HIGH : PX_LOW),
				0);
	}
	if (!exec_test_gate_wait_for(&fx->gate, 3)) {
		KUNIT_FAIL(test, "three runners never ran at once");
		goto out;
	}
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->gate.waiting), 3);
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 2UL);
	for (i = 0, pending = 0; i < 5; i++)
		pending += exec_work_pending(&fx->items[i].work);
	KUNIT_EXPECT_EQ(test, pending, 2U);
	exec_test_gate_open(&fx->gate);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_TRUE(test,
				  exec_test_wait_atomic_ge(&fx->items[i].runs, 1,
							   EXEC_TEST_TIMEOUT_MS));
	/* Now many plain items: never more than three at once. */
	pw_prepare(fx, 5, PX_ITEMS - 5);
	for (i = 5; i < PX_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, pw_submit(fx, i, i % 8), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 PX_ITEMS - 5,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->too_many), 0);
	KUNIT_EXPECT_EQ(test, pw_wrong_runs(fx, 0, PX_ITEMS), 0U);
out:
	pfx_finish(fx);
}

/*
 * A low item waits behind the gate for longer than the bound; high items
 * come later.  With aging it runs first; without, or with a bound it has
 * not reached, it runs last.
 */
static void px_aging_case(struct kunit *test, u64 aging_ns, bool low_first)
{
	struct exec_priority_attr attr = { .aging_ns = aging_ns };
	struct prio_fx *fx = pfx_create(test, 1, &attr);
	unsigned int i, low_pos = low_first ? 0 : 8;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!pw_block(fx, PX_HIGH))
		goto out;
	pw_prepare(fx, 1, 9);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 1, PX_LOW), 0);
	msleep(4 * PX_AGING_NS / 1000000);
	for (i = 2; i < 10; i++)
		KUNIT_EXPECT_EQ(test, pw_submit(fx, i, i & 1 ? PX_MID : PX_HIGH),
				0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 9,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->order[low_pos], 1U);
	KUNIT_EXPECT_EQ(test, pw_wrong_runs(fx, 1, 9), 0U);
out:
	pfx_finish(fx);
}

static void priority_aging_lets_a_waiting_low_item_pass_later_high_ones(struct kunit *test)
{
	px_aging_case(test, PX_AGING_NS, true);
}

static void priority_without_aging_a_low_item_waits_for_all_high_ones(struct kunit *test)
{
	px_aging_case(test, 0, false);
	/* A bound not reached changes nothing. */
	px_aging_case(test, 1000ULL * PX_AGING_NS, false);
}

/* A chain of high items, each queueing the next before it spins a while. */
static void pw_chain_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);
	struct prio_fx *fx = w->fx;
	u64 until = ktime_get_ns() + PX_CHAIN_SPIN_NS;

	if (fx->chain_left) {
		fx->chain_left--;
		if (exec_priority_submit(fx->prio, &fx->items[w->id + 1].work,
					 PX_HIGH))
			exec_test_count(&fx->too_many);
	}
	while (ktime_get_ns() < until)
		cpu_relax();
	pw_func(work);
}

/*
 * A stream of high items that never leaves their level empty starves a
 * low item without aging; with aging it runs before the stream ends.
 */
static void px_stream_case(struct kunit *test, u64 aging_ns)
{
	struct exec_priority_attr attr = { .aging_ns = aging_ns };
	struct prio_fx *fx = pfx_create(test, 1, &attr);
	unsigned int i, low_pos = PX_CHAIN;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!pw_block(fx, PX_HIGH))
		goto out;
	pw_prepare(fx, 1, PX_CHAIN + 1);
	for (i = 2; i < PX_CHAIN + 2; i++)
		fx->items[i].work.func = pw_chain_func;
	fx->chain_left = PX_CHAIN - 1;
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 1, PX_LOW), 0);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 2, PX_HIGH), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 PX_CHAIN + 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->too_many), 0);
	KUNIT_EXPECT_EQ(test, pw_wrong_runs(fx, 1, PX_CHAIN + 1), 0U);
	for (i = 0; i <= PX_CHAIN; i++)
		if (fx->order[i] == 1)
			low_pos = i;
	kunit_info(test, "aging %llu ns: the low item ran at %u of %u",
		   (unsigned long long)aging_ns, low_pos, PX_CHAIN);
	if (aging_ns)
		KUNIT_EXPECT_LT(test, low_pos, PX_CHAIN);
	else
		KUNIT_EXPECT_EQ(test, low_pos, PX_CHAIN);
out:
	pfx_finish(fx);
}

static void priority_aging_a_stream_of_high_items_does_not_starve_a_low_one(struct kunit *test)
{
	px_stream_case(test, 0);
	px_stream_case(test, PX_AGING_NS);
}

static int helper_priority_destroy(void *arg)
{
	struct prio_fx *fx = arg;

	fx->items[0].ret = exec_priority_destroy(fx->prio);
	fx->items[1].ret = atomic_read(&fx->items[0].runs);
	return 0;
}

/*
 * One item running (at the gate), five waiting with a discard callback and
 * two without, on several levels: destroy waits for the running one, then
 * discards the seven and returns 7.
 */
static void priority_destroy_discards_waiting_items_after_running_one(struct kunit *test)
{
	struct prio_fx *fx = pfx_create(test, 2, NULL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!pw_block(fx, PX_MID))
		goto out;
	pw_prepare(fx, 1, 7);
	for (i = 6; i < 8; i++)
		fx->items[i].work.discard = NULL;
	for (i = 1; i < 8; i++)
		KUNIT_EXPECT_EQ(test, pw_submit(fx, i, i % 8), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_priority_executor(fx->prio)),
			7UL);
	if (exec_test_thread_start(&fx->helper, helper_priority_destroy, fx,
				   "exec-test-destroy")) {
		KUNIT_FAIL(test, "cannot start the helper");
		goto out;
	}
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE_MSG(test, exec_test_thread_done(&fx->helper),
			       "destroy returned while an item was running");
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
		goto out;
	fx->prio = NULL;
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, 7L);
	KUNIT_EXPECT_EQ(test, fx->items[1].ret, 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	for (i = 1; i < 6; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards), 1);
	for (i = 1; i < 8; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
out:
	pfx_finish(fx);
}

static void pw_destroy_own_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	w->ret = exec_priority_destroy(w->fx->prio);
	exec_test_count(&w->runs);
}

static void priority_destroy_from_own_item_edeadlk(struct kunit *test)
{
	struct prio_fx *fx = pfx_create(test, 2, NULL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	pw_prepare(fx, 0, 2);
	fx->items[0].work.func = pw_destroy_own_func;
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, PX_HIGH), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[0].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, (long)-EDEADLK);
	/* Nothing was done: it still runs work. */
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 1, PX_LOW), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[1].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	pfx_finish(fx);
}

static void pw_dispatch_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);
	struct pw *next = &w->fx->items[w->id + 1];

	w->ret = exec_dispatch(exec_priority_executor(w->fx->prio),
			       &next->work);
	w->dispatched_runs = atomic_read(&next->runs);
	pw_func(work);
}

/* Dispatch from inside an item posts: it would pass over higher items. */
static void priority_dispatch_from_inside_posts(struct kunit *test)
{
	static const unsigned int want[] = { 3, 1, 2 };
	struct prio_fx *fx = pfx_create(test, 1, NULL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!pw_block(fx, PX_HIGH))
		goto out;
	pw_prepare(fx, 1, 3);
	fx->items[1].work.func = pw_dispatch_func;
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 1, 5), 0);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 3, 6), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->items[1].ret, 0L);
	KUNIT_EXPECT_EQ(test, fx->items[1].dispatched_runs, 0);
	/* 2 went in at the default level (4), after 1 had left its level 5. */
	pw_expect_order(fx, want, ARRAY_SIZE(want));
out:
	pfx_finish(fx);
}

/* The pool below refuses the first runner: the submission fails. */
static void priority_underlying_refusing_the_runner_fails_the_submission(struct kunit *test)
{
	struct prio_fx *fx = pfx_create(test, 1, NULL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	pw_prepare(fx, 0, 1);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(fx->pool), 0L);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, PX_MID), -ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[0].work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_priority_executor(fx->prio)),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(fx->prio), 0L);
	fx->prio = NULL;
	pfx_finish(fx);
}

static void pw_pool_gate_func(struct exec_work *work)
{
	struct pw *w = container_of(work, struct pw, work);

	exec_test_gate_pass(&w->fx->gate);
	exec_test_count(&w->runs);
}

/*
 * The runner waits in the pool behind a blocked item when the pool is shut
 * down hard: the pool drops the runner, and the priority executor discards
 * its waiting items through their callbacks.
 */
static void priority_underlying_dropping_the_runner_discards_waiting_items(struct kunit *test)
{
	struct prio_fx *fx = pfx_create(test, 1, NULL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	pw_prepare(fx, 0, 5);
	fx->items[0].work.func = pw_pool_gate_func;
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(fx->pool),
					  &fx->items[0].work), 0);
	if (!exec_test_gate_wait_for(&fx->gate, 1)) {
		KUNIT_FAIL(test, "the pool's item never started");
		goto out;
	}
	for (i = 1; i < 5; i++)
		KUNIT_EXPECT_EQ(test, pw_submit(fx, i, i), 0);
	/* The pool drops one item: the runner. */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(fx->pool), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 4);
	for (i = 1; i < 5; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_priority_executor(fx->prio)),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
out:
	pfx_finish(fx);
}

/* Nothing runs until the loop below is driven, then in priority order. */
static void priority_over_loop_runs_when_loop_runs(struct kunit *test)
{
	static const unsigned int want[] = { 2, 4, 1, 3, 0 };
	struct exec_priority *prio;
	struct exec_loop *loop;
	struct prio_fx *fx;
	unsigned int i;

	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->test = test;
	fx->max_inside = 1;
	if (exec_loop_create(&loop)) {
		KUNIT_FAIL(test, "exec_loop_create failed");
		kfree(fx);
		return;
	}
	KUNIT_EXPECT_EQ(test, exec_priority_create(&prio,
						   exec_loop_executor(loop),
						   NULL), 0);
	fx->prio = prio;
	pw_prepare(fx, 0, 5);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, pw_submit(fx, i, (int)(i * 3) % 8), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_priority_executor(prio)),
			5UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	pw_expect_order(fx, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	kfree(fx);
}

struct pt {
	struct exec_timer timer;
	struct prio_fx *fx;
	unsigned int id;
	atomic_t runs;
	atomic_t discards;
};

static void pt_func(struct exec_work *work)
{
	struct pt *t = container_of(work, struct pt, timer.work);
	struct prio_fx *fx = t->fx;
	int pos = atomic_inc_return(&fx->order_len) - 1;

	if (pos < PX_ITEMS)
		fx->order[pos] = t->id;
	exec_test_count(&t->runs);
	exec_test_count(&fx->total_runs);
}

static void pt_discard(struct exec_work *work)
{
	struct pt *t = container_of(work, struct pt, timer.work);

	exec_test_count(&t->discards);
}

/* Until @ex has accepted @n items, timed items that came due among them. */
static bool pt_wait_accepted(struct exec_executor *ex, u64 n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	struct exec_stats st;
	unsigned int spins = 0;

	for (;;) {
		if (exec_executor_stats(ex, &st))
			return false;
		if (st.submitted >= n)
			return true;
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
}

/*
 * A timed item that comes due waits at the default level; destroy discards
 * one still armed, and counts it.
 */
static void priority_timed_items_come_due_at_the_default_level(struct kunit *test)
{
	static const unsigned int want[] = { 1, 10, 2 };
	struct prio_fx *fx = pfx_create(test, 1, NULL);
	struct exec_executor *ex;
	struct pt *t;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ex = exec_priority_executor(fx->prio);
	t = kunit_kzalloc(test, 2 * sizeof(*t), GFP_KERNEL);
	if (!t || !pw_block(fx, PX_HIGH))
		goto out;
	pw_prepare(fx, 1, 2);
	t[0].fx = fx;
	t[0].id = 10;
	t[1].fx = fx;
	t[1].id = 11;
	exec_timer_init(&t[0].timer, pt_func, pt_discard);
	exec_timer_init(&t[1].timer, pt_func, pt_discard);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 1, 5), 0);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 2, 3), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &t[1].timer,
						 1000ULL * EXEC_TEST_TIMEOUT_MS *
						 1000000), 0);
	/* Armed and not yet due: counted. */
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 3UL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &t[0].timer, 1000000), 0);
	/*
	 * On its way from the timer to the queue the item may be missed by
	 * the count for a moment: it is read once the item is queued (the
	 * gate item and items 1 and 2 were accepted before it).
	 */
	KUNIT_EXPECT_TRUE(test, pt_wait_accepted(ex, 4));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 4UL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	pw_expect_order(fx, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(fx->prio), 1L);
	fx->prio = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&t[1].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t[1].runs), 0);
out:
	pfx_finish(fx);
}

static void priority_bad_input(struct kunit *test)
{
	struct exec_priority_attr attr = { 0 };
	struct exec_priority *prio = NULL;
	struct exec_executor *lex;
	struct exec_work work, nofunc;
	struct exec_loop *loop;
	struct prio_fx *fx;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	lex = exec_loop_executor(loop);

	KUNIT_EXPECT_EQ(test, exec_priority_create(NULL, lex, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_priority_create(&prio, NULL, NULL), -EINVAL);
	attr.nr_levels = EXEC_PRIORITY_MAX_LEVELS + 1;
	KUNIT_EXPECT_EQ(test, exec_priority_create(&prio, lex, &attr), -EINVAL);
	attr.nr_levels = 0;
	attr.max_running = EXEC_PRIORITY_MAX_RUNNING + 1;
	KUNIT_EXPECT_EQ(test, exec_priority_create(&prio, lex, &attr), -EINVAL);
	KUNIT_EXPECT_NULL(test, prio);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(NULL), (long)-EINVAL);
	KUNIT_EXPECT_NULL(test, exec_priority_executor(NULL));
	KUNIT_EXPECT_NULL(test, exec_priority_underlying(NULL));
	KUNIT_EXPECT_EQ(test, exec_priority_default_level(NULL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_priority_running_in_this_thread(NULL));

	/* 0 levels: the default 8. */
	attr.max_running = 0;
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio, lex, &attr), 0);
	fx->test = test;
	fx->prio = prio;
	fx->max_inside = 1;
	pw_prepare(fx, 0, 3);
	exec_work_init(&work, pw_func);
	exec_work_init(&nofunc, NULL);
	KUNIT_EXPECT_EQ(test, exec_priority_submit(NULL, &work, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_priority_submit(prio, NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_priority_submit(prio, &nofunc, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, 8), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[0].work));
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, 7), 0);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 1, 0), 0);
	/* Pending: refused, on any level, and still runs once. */
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, 7), -EALREADY);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 0, 3), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_priority_executor(prio),
					  &fx->items[0].work), -EALREADY);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&fx->items[0].work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_priority_executor(prio)),
			2UL);
	/* Destroy discards both; the loop then drops the idle runner. */
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].discards), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 1L);

	/* 64 levels is the most: 63 is the highest. */
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	attr.nr_levels = EXEC_PRIORITY_MAX_LEVELS;
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio,
						   exec_loop_executor(loop),
						   &attr), 0);
	fx->prio = prio;
	KUNIT_EXPECT_EQ(test, exec_priority_default_level(prio), 32);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 2, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, pw_submit(fx, 2, 63), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[2].runs), 1);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

/*
 * Stress: exec_test_stress_tasks() tasks from four submitters, on the
 * levels in turn.  With one runner each task checks that it is the next of
 * its submitter on its level, and that it runs alone; with four, that no
 * more than four run at once.  Every task must run exactly once.
 */
#define PS_PRODUCERS	4
#define PS_CHUNK	8192U
#define PS_LEVELS	8U

struct ps_ctx;

struct ps_item {
	struct exec_work work;
	struct ps_producer *p;
	unsigned int level;
	unsigned long seq;
};

struct ps_producer {
	struct ps_ctx *ctx;
	unsigned int id;
	struct exec_test_thread thread;
	struct ps_item *items;
	atomic_t *runs;
	atomic_t done;
	unsigned long tasks;
	unsigned long accepted;
	unsigned long submit_errors;
	int first_error;
	unsigned long wrong_runs;
	bool timed_out;
} ____cacheline_aligned;

struct ps_ctx {
	struct exec_priority *prio;
	int max_inside;
	bool check_order;
	atomic_t inside;
	atomic_t overlaps;
	atomic_t order_errors;
	/* touched by the items only, one at a time when checked */
	unsigned long next[PS_PRODUCERS][PS_LEVELS];
	struct ps_producer producers[PS_PRODUCERS];
};

static void ps_func(struct exec_work *work)
{
	struct ps_item *it = container_of(work, struct ps_item, work);
	struct ps_producer *p = it->p;
	struct ps_ctx *ctx = p->ctx;

	if (atomic_inc_return(&ctx->inside) > ctx->max_inside)
		exec_test_count(&ctx->overlaps);
	if (ctx->check_order) {
		if (ctx->next[p->id][it->level] != it->seq)
			exec_test_count(&ctx->order_errors);
		ctx->next[p->id][it->level] = it->seq + 1;
	}
	atomic_dec_return(&ctx->inside);
	atomic_inc(&p->runs[it - p->items]);
	exec_test_count(&p->done);
}

/* As st_wait_chunk(): gives up only when nothing ran for the timeout. */
static bool ps_wait_chunk(struct ps_producer *p, int n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;
	int seen = 0, now;

	while ((now = atomic_read_acquire(&p->done)) < n) {
		if (now != seen) {
			seen = now;
			deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
		} else if (exec_test_expired(deadline)) {
			return false;
		}
		exec_test_relax(&spins);
	}
	return true;
}

static int ps_produce(void *arg)
{
	struct ps_producer *p = arg;
	unsigned long base, j;
	unsigned int i, n;
	struct ps_item *it;
	int ret;

	for (base = 0; base < p->tasks; base += n) {
		n = p->tasks - base < PS_CHUNK ? p->tasks - base : PS_CHUNK;
		atomic_set(&p->done, 0);
		for (i = 0; i < n; i++) {
			it = &p->items[i];
			j = base + i;
			it->level = j % PS_LEVELS;
			it->seq = j / PS_LEVELS;
			ret = exec_priority_submit(p->ctx->prio, &it->work,
						   it->level);
			if (ret) {
				if (!p->submit_errors++)
					p->first_error = ret;
				atomic_inc(&p->runs[i]);
				exec_test_count(&p->done);
			} else {
				p->accepted++;
			}
		}
		if (!ps_wait_chunk(p, n)) {
			WRITE_ONCE(p->timed_out, true);
			return -ETIMEDOUT;
		}
		for (i = 0; i < n; i++) {
			if (atomic_read(&p->runs[i]) != 1)
				p->wrong_runs++;
			atomic_set(&p->runs[i], 0);
		}
	}
	return 0;
}

static void ps_free(struct ps_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < PS_PRODUCERS; i++) {
		kfree(ctx->producers[i].items);
		kfree(ctx->producers[i].runs);
	}
	kfree(ctx);
}

static void ps_run(struct kunit *test, unsigned int max_running)
{
	struct exec_thread_pool_attr pattr = {
		.nr_threads = 4,
		.thread.name = "exec-stress",
	};
	struct exec_priority_attr attr = {
		.nr_levels = PS_LEVELS,
		.max_running = max_running,
	};
	unsigned long total = exec_test_stress_tasks(), accepted = 0, ran;
	struct exec_thread_pool *pool;
	struct ps_ctx *ctx;
	struct ps_producer *p;
	unsigned int i, k, lvl, started = 0;
	bool ok = true;
	u64 t0;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->max_inside = max_running;
	ctx->check_order = max_running == 1;
	for (i = 0; i < PS_PRODUCERS; i++) {
		p = &ctx->producers[i];
		p->ctx = ctx;
		p->id = i;
		p->tasks = total / PS_PRODUCERS + (i < total % PS_PRODUCERS);
		p->items = kcalloc(PS_CHUNK, sizeof(*p->items), GFP_KERNEL);
		p->runs = kcalloc(PS_CHUNK, sizeof(*p->runs), GFP_KERNEL);
		if (!p->items || !p->runs) {
			KUNIT_FAIL(test, "out of memory");
			ps_free(ctx);
			return;
		}
		for (k = 0; k < PS_CHUNK; k++) {
			exec_work_init(&p->items[k].work, ps_func);
			p->items[k].p = p;
		}
	}
	if (exec_thread_pool_create(&pool, &pattr)) {
		KUNIT_FAIL(test, "exec_thread_pool_create failed");
		ps_free(ctx);
		return;
	}
	if (exec_priority_create(&ctx->prio, exec_thread_pool_executor(pool),
				 &attr)) {
		KUNIT_FAIL(test, "exec_priority_create failed");
		exec_thread_pool_destroy(pool);
		ps_free(ctx);
		return;
	}

	t0 = ktime_get_ns();
	for (i = 0; i < PS_PRODUCERS; i++) {
		if (exec_test_thread_start(&ctx->producers[i].thread, ps_produce,
					   &ctx->producers[i], "exec-stress"))
			break;
		started++;
	}
	KUNIT_EXPECT_EQ(test, started, (unsigned int)PS_PRODUCERS);
	for (i = 0; i < started; i++) {
		while (!exec_test_thread_join(&ctx->producers[i].thread,
					      EXEC_TEST_TIMEOUT_MS)) {
			if (READ_ONCE(ctx->producers[i].timed_out)) {
				ok = false;
				break;
			}
		}
	}
	for (i = 0; i < started; i++) {
		p = &ctx->producers[i];
		KUNIT_EXPECT_FALSE_MSG(test, p->timed_out,
				       "producer %u: no task ran for %u ms", i,
				       EXEC_TEST_TIMEOUT_MS);
		KUNIT_EXPECT_EQ_MSG(test, p->submit_errors, 0UL,
				    "producer %u: first error %d", i,
				    p->first_error);
		KUNIT_EXPECT_EQ_MSG(test, p->wrong_runs, 0UL,
				    "producer %u: tasks not run exactly once", i);
		accepted += p->accepted;
	}
	KUNIT_EXPECT_EQ(test, accepted, total);
	kunit_info(test, "%lu tasks, %u runners, in %llu ns", accepted,
		   max_running, (unsigned long long)(ktime_get_ns() - t0));
	if (!ok)
		return;		/* leak: the executors may still run items */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->order_errors), 0);
	if (ctx->check_order) {
		/* Each submitter's last task on each level ran too. */
		for (i = 0; i < PS_PRODUCERS; i++) {
			ran = 0;
			for (lvl = 0; lvl < PS_LEVELS; lvl++)
				ran += ctx->next[i][lvl];
			KUNIT_EXPECT_EQ_MSG(test, ran, ctx->producers[i].tasks,
					    "producer %u", i);
		}
	}
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(ctx->prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	ps_free(ctx);
}

static void priority_stress_one_runner_keeps_fifo_per_level(struct kunit *test)
{
	ps_run(test, 1);
}

static void priority_stress_four_runners_run_every_task_once(struct kunit *test)
{
	ps_run(test, 4);
}

static struct kunit_case exec_priority_cases[] = {
	KUNIT_CASE(priority_runs_higher_levels_first_fifo_within_a_level),
	KUNIT_CASE(priority_closures_take_their_level),
	KUNIT_CASE(priority_max_running_bounds_items_at_once),
	KUNIT_CASE(priority_aging_lets_a_waiting_low_item_pass_later_high_ones),
	KUNIT_CASE(priority_without_aging_a_low_item_waits_for_all_high_ones),
	KUNIT_CASE(priority_aging_a_stream_of_high_items_does_not_starve_a_low_one),
	KUNIT_CASE(priority_destroy_discards_waiting_items_after_running_one),
	KUNIT_CASE(priority_destroy_from_own_item_edeadlk),
	KUNIT_CASE(priority_dispatch_from_inside_posts),
	KUNIT_CASE(priority_underlying_refusing_the_runner_fails_the_submission),
	KUNIT_CASE(priority_underlying_dropping_the_runner_discards_waiting_items),
	KUNIT_CASE(priority_over_loop_runs_when_loop_runs),
	KUNIT_CASE(priority_timed_items_come_due_at_the_default_level),
	KUNIT_CASE(priority_bad_input),
	KUNIT_CASE(priority_stress_one_runner_keeps_fifo_per_level),
	KUNIT_CASE(priority_stress_four_runners_run_every_task_once),
	{}
};

static struct kunit_suite exec_priority_suite = {
	.name = "exec-priority",
	.test_cases = exec_priority_cases,
};

kunit_test_suites(&exec_priority_suite);

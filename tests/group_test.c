// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Cancellation tokens, task groups and latches (include/exec/group.h): the
 * token seen by running work, cancel removing exactly the queued items over a
 * thread pool, a serial and a loop executor, notify, -ECANCELED until reset,
 * exact counting under concurrent submission and racing cancels, latches,
 * timeouts, bad input.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define GX_ITEMS	256
#define GX_THREADS	4
#define GX_ROUNDS	200
#define GX_MS		1000000ULL

enum gx_action {
	GX_COUNT,
	GX_GATE,		/* block at the gate, then look at the token */
	GX_WAIT_OWN_GROUP,	/* exec_group_wait() from inside: -EDEADLK */
};

struct gx_fx;

struct gx_item {
	struct exec_group_item item;
	struct gx_fx *fx;
	enum gx_action action;
	atomic_t runs;
	atomic_t discards;
	int saw_cancel;
	int own_wait;
	int accepted;
};

struct gx_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_loop *loop;
	struct exec_group *g;
	struct exec_test_gate gate;
	atomic_t total_runs;
	atomic_t total_discards;
	atomic_t accepted;
	atomic_t refused;
	atomic_t notified;
	int notify_on_ex;
	int notify_saw_runs;
	struct exec_executor *notify_ex;
	struct exec_test_thread threads[GX_THREADS];
	struct gx_item items[GX_ITEMS];
};

static void gx_func(struct exec_group_item *item)
{
	struct gx_item *w = container_of(item, struct gx_item, item);
	struct gx_fx *fx = w->fx;

	switch (w->action) {
	case GX_COUNT:
		break;
	case GX_GATE:
		exec_test_gate_pass(&fx->gate);
		w->saw_cancel = exec_cancel_requested(exec_group_token(fx->g));
		break;
	case GX_WAIT_OWN_GROUP:
		w->own_wait = exec_group_wait(fx->g, 0);
		break;
	}
	exec_test_count(&w->runs);
	exec_test_count(&fx->total_runs);
}

static void gx_discard(struct exec_group_item *item)
{
	struct gx_item *w = container_of(item, struct gx_item, item);

	exec_test_count(&w->discards);
	exec_test_count(&w->fx->total_discards);
}

static void gx_notify(void *arg)
{
	struct gx_fx *fx = arg;

	fx->notify_on_ex = exec_running_in_this_thread(fx->notify_ex);
	fx->notify_saw_runs = atomic_read(&fx->total_runs) +
			      atomic_read(&fx->total_discards);
	exec_test_count(&fx->notified);
}

static atomic_t gx_closure_runs = ATOMIC_INIT(0);
static atomic_t gx_closure_discards = ATOMIC_INIT(0);

static void gx_closure(void *arg)
{
	exec_test_count(&gx_closure_runs);
}

static void gx_closure_discard(void *arg)
{
	exec_test_count(&gx_closure_discards);
}

/* A fixture with a group and a pool of @threads workers (none for 0). */
static struct gx_fx *gx_create(struct kunit *test, unsigned int threads,
			       bool loop)
{
	struct exec_thread_pool_attr attr = { .nr_threads = threads };
	struct gx_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i;

	if (!fx)
		return NULL;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	for (i = 0; i < GX_ITEMS; i++) {
		exec_group_item_init(&fx->items[i].item, gx_func, gx_discard);
		fx->items[i].fx = fx;
	}
	if (exec_group_create(&fx->g))
		goto err_free_fx;
	if (threads && exec_thread_pool_create(&fx->pool, &attr))
		goto err_destroy_group;
	if (loop && exec_loop_create(&fx->loop))
		goto err_destroy_pool;
	return fx;

err_destroy_pool:
	if (fx->pool)
		exec_thread_pool_destroy(fx->pool);
err_destroy_group:
	exec_group_destroy(fx->g);
err_free_fx:
	KUNIT_FAIL(test, "fixture setup failed");
	kfree(fx);
	return NULL;
}

static struct exec_executor *gx_pool_ex(struct gx_fx *fx)
{
	return exec_thread_pool_executor(fx->pool);
}

static struct exec_executor *gx_loop_ex(struct gx_fx *fx)
{
	return exec_loop_executor(fx->loop);
}

static void gx_finish(struct gx_fx *fx)
{
	unsigned int i;

	exec_test_gate_open(&fx->gate);
	for (i = 0; i < GX_THREADS; i++) {
		if (!exec_test_thread_join(&fx->threads[i],
					   EXEC_TEST_TIMEOUT_MS)) {
			KUNIT_FAIL(fx->test, "helper thread hangs; leaking");
			return;
		}
	}
	if (fx->serial)
		KUNIT_EXPECT_GE(fx->test, exec_serial_destroy(fx->serial), 0L);
	if (fx->pool)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool), 0);
	if (fx->loop)
		KUNIT_EXPECT_GE(fx->test, exec_loop_destroy(fx->loop), 0L);
	if (fx->g) {
		KUNIT_EXPECT_EQ(fx->test,
				exec_group_wait(fx->g,
						EXEC_TEST_TIMEOUT_MS * GX_MS),
				0);
		KUNIT_EXPECT_EQ(fx->test, exec_group_destroy(fx->g), 0);
	}
	kfree(fx);
}

/* Wait until @v >= @n, with the usual deadline. */
static bool gx_wait_ge(atomic_t *v, int n)
{
	return exec_test_wait_atomic_ge(v, n, EXEC_TEST_TIMEOUT_MS);
}

static bool gx_join(struct exec_test_thread *t)
{
	return exec_test_thread_join(t, EXEC_TEST_TIMEOUT_MS);
}

/* Submit items [first, first + n) to @ex through the group. */
static void gx_submit(struct gx_fx *fx, struct exec_executor *ex,
		      unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++)
		KUNIT_EXPECT_EQ(fx->test, exec_group_submit(fx->g, ex,
							    &fx->items[i].item),
				0);
}

struct gx_spinner {
	struct exec_cancel_token *tok;
	atomic_t started;
	atomic_t done;
	int stopped_by_token;
};

static void gx_spin_until_cancelled(void *arg)
{
	struct gx_spinner *s = arg;
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);

	exec_test_count(&s->started);
	while (!exec_cancel_requested(s->tok) && !exec_test_expired(deadline))
		usleep_range(500, 1000);
	s->stopped_by_token = exec_cancel_requested(s->tok);
	exec_test_count(&s->done);
}

static void group_token_request_is_seen_by_running_work(struct kunit *test)
{
	struct exec_cancel_token tok = EXEC_CANCEL_TOKEN_INIT;
	struct gx_fx *fx = gx_create(test, 1, false);
	struct gx_spinner s = { .tok = &tok };
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	atomic_set(&s.started, 0);
	atomic_set(&s.done, 0);
	KUNIT_EXPECT_FALSE(test, exec_cancel_requested(&tok));
	KUNIT_ASSERT_EQ(test, exec_submit_fn(gx_pool_ex(fx),
					     gx_spin_until_cancelled, &s), 0);
	KUNIT_ASSERT_TRUE(test, gx_wait_ge(&s.started, 1));
	start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, exec_cancel_request(&tok), 0);
	KUNIT_EXPECT_EQ(test, exec_cancel_request(&tok), -EALREADY);
	KUNIT_EXPECT_TRUE(test, gx_wait_ge(&s.done, 1));
	/* It stopped by itself, early, because of the token. */
	KUNIT_EXPECT_EQ(test, s.stopped_by_token, 1);
	KUNIT_EXPECT_LT(test, ktime_get_ns() - start,
			(u64)EXEC_TEST_TIMEOUT_MS * GX_MS / 2);
	KUNIT_EXPECT_EQ(test, exec_cancel_token_reset(&tok), 0);
	KUNIT_EXPECT_FALSE(test, exec_cancel_requested(&tok));
	KUNIT_EXPECT_EQ(test, exec_cancel_request(&tok), 0);
	gx_finish(fx);
}

/*
 * One worker, held at the gate by item 0; items 1..n queued behind it.
 * cancel() removes exactly those, which are discarded and never run.
 */
static void gx_cancel_queued(struct kunit *test, struct gx_fx *fx,
			     struct exec_executor *ex, unsigned int n)
{
	unsigned int i;

	fx->items[0].action = GX_GATE;
	gx_submit(fx, ex, 0, 1);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	gx_submit(fx, ex, 1, n);
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), (unsigned long)n + 1);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), (long)n);
	KUNIT_EXPECT_TRUE(test, exec_cancel_requested(exec_group_token(fx->g)));
	/* The running one is still counted until it finishes. */
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, 0), -ETIMEDOUT);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test,
			exec_group_wait(fx->g, EXEC_TEST_TIMEOUT_MS * GX_MS), 0);
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, fx->items[0].saw_cancel, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), (int)n);
	for (i = 1; i <= n; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards), 1);
		KUNIT_EXPECT_FALSE(test,
				   exec_group_item_pending(&fx->items[i].item));
	}
}

static void group_cancel_removes_queued_items_on_thread_pool(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 1, false);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	gx_cancel_queued(test, fx, gx_pool_ex(fx), 32);
	gx_finish(fx);
}

static void group_cancel_removes_queued_items_on_serial(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 2, false);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial, gx_pool_ex(fx)),
			0);
	gx_cancel_queued(test, fx, exec_serial_executor(fx->serial), 32);
	gx_finish(fx);
}

static void group_cancel_on_loop_discards_when_loop_runs(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	gx_submit(fx, gx_loop_ex(fx), 0, 10);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 8L);
	/* Removed, but discarded only when the loop reaches them. */
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 8UL);
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, 20 * GX_MS), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 8L);
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, 0), 0);
	for (i = 0; i < 10; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs),
				i < 2 ? 1 : 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards),
				i < 2 ? 0 : 1);
	}
	/* A second cancel has nothing left to remove. */
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 0L);
	gx_finish(fx);
}

static void group_items_dropped_by_executor_are_discarded(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	gx_submit(fx, gx_loop_ex(fx), 0, 6);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 6L);
	KUNIT_EXPECT_EQ(test, exec_group_reset(fx->g), -EBUSY);
	/* Dropped by the executor: discarded once, not twice. */
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(fx->loop), 6L);
	fx->loop = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 0UL);
	KUNIT_EXPECT_EQ(test, exec_group_reset(fx->g), 0);
	gx_finish(fx);
}

static void group_notify_runs_once_on_its_executor_when_empty(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 2, true);
	unsigned int n = 64;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->notify_ex = gx_loop_ex(fx);
	fx->items[0].action = GX_GATE;
	gx_submit(fx, gx_pool_ex(fx), 0, n);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, fx->notify_ex,
						gx_notify, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, fx->notify_ex,
						gx_notify, fx), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->notify_ex), 0UL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test,
			exec_group_wait(fx->g, EXEC_TEST_TIMEOUT_MS * GX_MS), 0);
	/* Handed to the loop by the thread that emptied the group. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_pending(fx->notify_ex, 1));
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, fx->notify_ex,
						gx_notify, fx), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(fx->g), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	KUNIT_EXPECT_EQ(test, fx->notify_on_ex, 1);
	KUNIT_EXPECT_EQ(test, fx->notify_saw_runs, (int)n);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	/* On an empty group it is submitted at once. */
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, fx->notify_ex,
						gx_notify, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 2);
	gx_finish(fx);
}

static void group_notify_on_thread_pool_after_cancel(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 1, false);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->notify_ex = gx_pool_ex(fx);
	fx->items[0].action = GX_GATE;
	gx_submit(fx, gx_pool_ex(fx), 0, 1);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	gx_submit(fx, gx_pool_ex(fx), 1, 20);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, fx->notify_ex,
						gx_notify, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 20L);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, gx_wait_ge(&fx->notified, 1));
	KUNIT_EXPECT_EQ(test, fx->notify_on_ex, 1);
	/* Discards count as done: the continuation saw all 21. */
	KUNIT_EXPECT_EQ(test, fx->notify_saw_runs, 21);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	gx_finish(fx);
}

static void gx_destroy_group(void *arg)
{
	struct gx_fx *fx = arg;

	fx->notify_saw_runs = exec_group_destroy(fx->g);
	fx->g = NULL;
	exec_test_count(&fx->notified);
}

static void group_notify_continuation_may_destroy_group(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	gx_submit(fx, gx_loop_ex(fx), 0, 2);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, gx_loop_ex(fx),
						gx_destroy_group, fx), 0);
	/* The items, then the continuation queued behind them. */
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 2L);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	KUNIT_EXPECT_EQ(test, fx->notify_saw_runs, 0);
	KUNIT_EXPECT_NULL(test, fx->g);
	gx_finish(fx);
}

static void group_submit_after_cancel_ecanceled_until_reset(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 0L);
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, gx_loop_ex(fx),
						&fx->items[0].item),
			-ECANCELED);
	KUNIT_EXPECT_EQ(test, exec_group_submit_fn(fx->g, gx_loop_ex(fx),
						   gx_closure, NULL,
						   fx),
			-ECANCELED);
	KUNIT_EXPECT_FALSE(test, exec_group_item_pending(&fx->items[0].item));
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 0UL);
	KUNIT_EXPECT_EQ(test, exec_group_reset(fx->g), 0);
	KUNIT_EXPECT_FALSE(test, exec_cancel_requested(exec_group_token(fx->g)));
	gx_submit(fx, gx_loop_ex(fx), 0, 1);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, exec_group_reset(fx->g), 0);
	gx_finish(fx);
}

static void group_closures_are_counted_and_removed(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	atomic_set(&gx_closure_runs, 0);
	atomic_set(&gx_closure_discards, 0);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test,
				exec_group_submit_fn(fx->g, gx_loop_ex(fx),
						     gx_closure,
						     gx_closure_discard, NULL),
				0);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(fx->loop), 1);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 4L);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 4L);
	KUNIT_EXPECT_EQ(test, atomic_read(&gx_closure_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&gx_closure_discards), 4);
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, 0), 0);
	gx_finish(fx);
}

/* Helper: submit this thread's slice of the items. */
static int gx_submitter(void *arg)
{
	struct gx_item *w = arg;
	struct gx_fx *fx = w->fx;
	unsigned int i;
	int ret;

	for (i = 0; i < GX_ITEMS / GX_THREADS; i++) {
		ret = exec_group_submit(fx->g, gx_pool_ex(fx), &w[i].item);
		if (!ret) {
			w[i].accepted = 1;
			exec_test_count(&fx->accepted);
		} else if (ret == -ECANCELED) {
			exec_test_count(&fx->refused);
		} else {
			return ret;
		}
	}
	return 0;
}

static void group_counts_every_item_from_several_threads(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 2, false);
	unsigned int i, per = GX_ITEMS / GX_THREADS;
	int accepted, runs, discards;
	long removed;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (i = 0; i < GX_THREADS; i++)
		KUNIT_ASSERT_EQ(test,
				exec_test_thread_start(&fx->threads[i],
						       gx_submitter,
						       &fx->items[i * per],
						       "gx-submit"),
				0);
	exec_test_wait_atomic_ge(&fx->accepted, GX_ITEMS / 4,
				 EXEC_TEST_TIMEOUT_MS);
	removed = exec_group_cancel(fx->g);
	for (i = 0; i < GX_THREADS; i++) {
		KUNIT_ASSERT_TRUE(test, gx_join(&fx->threads[i]));
		KUNIT_EXPECT_EQ(test, fx->threads[i].ret, 0L);
	}
	KUNIT_EXPECT_EQ(test,
			exec_group_wait(fx->g, EXEC_TEST_TIMEOUT_MS * GX_MS), 0);
	accepted = atomic_read(&fx->accepted);
	runs = atomic_read(&fx->total_runs);
	discards = atomic_read(&fx->total_discards);
	KUNIT_EXPECT_EQ(test, accepted + atomic_read(&fx->refused), GX_ITEMS);
	KUNIT_EXPECT_EQ(test, runs + discards, accepted);
	KUNIT_EXPECT_EQ(test, (long)discards, removed);
	for (i = 0; i < GX_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs) +
				atomic_read(&fx->items[i].discards),
				fx->items[i].accepted);
	gx_finish(fx);
}

static void group_cancel_racing_runs_or_discards_each(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 2, false);
	unsigned int round, i, n = 32;
	long removed = 0;
	int bad = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (round = 0; round < GX_ROUNDS; round++) {
		gx_submit(fx, gx_pool_ex(fx), 0, n);
		removed += exec_group_cancel(fx->g);
		if (exec_group_wait(fx->g, EXEC_TEST_TIMEOUT_MS * GX_MS)) {
			KUNIT_FAIL(test, "round %u: wait timed out", round);
			break;
		}
		KUNIT_ASSERT_EQ(test, exec_group_reset(fx->g), 0);
	}
	for (i = 0; i < n; i++)
		if (atomic_read(&fx->items[i].runs) +
		    atomic_read(&fx->items[i].discards) != (int)round)
			bad++;
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, (long)atomic_read(&fx->total_discards), removed);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs) +
			atomic_read(&fx->total_discards), (int)(round * n));
	gx_finish(fx);
}

static int gx_waiter(void *arg)
{
	struct gx_fx *fx = arg;

	return exec_group_wait(fx->g, EXEC_TEST_TIMEOUT_MS * GX_MS);
}

static void group_wait_sleeps_until_group_is_empty(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 1, false);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = GX_GATE;
	gx_submit(fx, gx_pool_ex(fx), 0, 4);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->threads[0],
						     gx_waiter, fx,
						     "gx-wait"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&fx->threads[0]));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->threads[0],
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->threads[0].ret, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 4);
	gx_finish(fx);
}

static void group_and_latch_waits_time_out(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 1, false);
	struct exec_latch l;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = GX_GATE;
	gx_submit(fx, gx_pool_ex(fx), 0, 1);
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, 0), -ETIMEDOUT);
	start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, 30 * GX_MS), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - start, 30 * GX_MS);
	KUNIT_EXPECT_EQ(test, exec_latch_init(&l, 1, NULL, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&l, 0), -ETIMEDOUT);
	start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&l, 30 * GX_MS), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, ktime_get_ns() - start, 30 * GX_MS);
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&l), 1);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&l, 0), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_group_wait(fx->g, EXEC_TIME_NEVER), 0);
	gx_finish(fx);
}

struct gx_latch_fx {
	struct exec_latch latch;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	atomic_t runs;
	atomic_t opened;
	atomic_t errors;
	int on_ex;
	unsigned long remaining_at_run;
};

#define GX_LATCH_PER_THREAD	250

static void gx_latch_done(void *arg)
{
	struct gx_latch_fx *lf = arg;

	lf->on_ex = exec_running_in_this_thread(lf->ex);
	lf->remaining_at_run = exec_latch_remaining(&lf->latch);
	exec_test_count(&lf->runs);
}

static int gx_counter(void *arg)
{
	struct gx_latch_fx *lf = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < GX_LATCH_PER_THREAD; i++) {
		ret = exec_latch_count_down(&lf->latch);
		if (ret == 1)
			exec_test_count(&lf->opened);
		else if (ret)
			exec_test_count(&lf->errors);
	}
	return 0;
}

static void latch_runs_continuation_once_after_count_downs(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 2, false);
	struct gx_latch_fx *lf = kzalloc(sizeof(*lf), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, lf);
	lf->pool = fx->pool;
	lf->ex = gx_pool_ex(fx);
	KUNIT_ASSERT_EQ(test, exec_latch_init(&lf->latch,
					      GX_THREADS * GX_LATCH_PER_THREAD,
					      lf->ex, gx_latch_done, lf), 0);
	for (i = 0; i < GX_THREADS; i++)
		KUNIT_ASSERT_EQ(test,
				exec_test_thread_start(&fx->threads[i],
						       gx_counter, lf,
						       "gx-count"),
				0);
	for (i = 0; i < GX_THREADS; i++)
		KUNIT_ASSERT_TRUE(test, gx_join(&fx->threads[i]));
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&lf->latch,
					      EXEC_TEST_TIMEOUT_MS * GX_MS), 0);
	KUNIT_EXPECT_TRUE(test, gx_wait_ge(&lf->runs, 1));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&lf->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lf->opened), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lf->errors), 0);
	KUNIT_EXPECT_EQ(test, lf->on_ex, 1);
	KUNIT_EXPECT_EQ(test, lf->remaining_at_run, 0UL);
	gx_finish(fx);
	kfree(lf);
}

static void latch_count_down_past_zero_einval_counted(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);
	struct gx_latch_fx *lf = kzalloc(sizeof(*lf), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, lf);
	lf->ex = gx_loop_ex(fx);
	KUNIT_ASSERT_EQ(test, exec_latch_init(&lf->latch, 2, lf->ex,
					      gx_latch_done, lf), 0);
	KUNIT_EXPECT_EQ(test, exec_latch_remaining(&lf->latch), 2UL);
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&lf->latch), 0);
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&lf->latch), 1);
	/* The continuation is queued on the loop, not yet started. */
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&lf->latch, 0), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&lf->latch), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&lf->latch), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_latch_excess(&lf->latch), 2UL);
	KUNIT_EXPECT_EQ(test, exec_latch_remaining(&lf->latch), 0UL);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&lf->runs), 1);
	KUNIT_EXPECT_EQ(test, lf->on_ex, 1);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&lf->latch, 0), 0);
	/* Count 0 opens at once. */
	KUNIT_ASSERT_EQ(test, exec_latch_init(&lf->latch, 0, lf->ex,
					      gx_latch_done, lf), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&lf->runs), 2);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&lf->latch, 0), 0);
	gx_finish(fx);
	kfree(lf);
}

/*
 * A hand-driven executor: queues items until the test runs them, can refuse
 * them, can cancel a group from inside its submit (to land a cancel between
 * a group's count and the executor's refusal), and counts outstanding work.
 */
struct gx_cex {
	struct exec_executor ex;
	struct exec_work *q[8];
	unsigned int nr;
	int refuse;
	struct exec_group *cancel_in_submit;
	long cancelled;
	atomic_t started;
	atomic_t finished;
};

static int gx_cex_submit(struct exec_executor *ex, struct exec_work *work,
			 unsigned int flags)
{
	struct gx_cex *c = container_of(ex, struct gx_cex, ex);

	if (c->cancel_in_submit)
		c->cancelled = exec_group_cancel(c->cancel_in_submit);
	if (c->refuse || c->nr == ARRAY_SIZE(c->q))
		return -ESHUTDOWN;
	c->q[c->nr++] = work;
	return 0;
}

static unsigned long gx_cex_pending(struct exec_executor *ex)
{
	return container_of(ex, struct gx_cex, ex)->nr;
}

static void gx_cex_work_started(struct exec_executor *ex)
{
	exec_test_count(&container_of(ex, struct gx_cex, ex)->started);
}

static void gx_cex_work_finished(struct exec_executor *ex)
{
	exec_test_count(&container_of(ex, struct gx_cex, ex)->finished);
}

static const struct exec_executor_ops gx_cex_ops = {
	.kind = "gx-custom",
	.submit = gx_cex_submit,
	.pending = gx_cex_pending,
	.work_started = gx_cex_work_started,
	.work_finished = gx_cex_work_finished,
};

/* Start the oldest item as an executor must: clear the bit, then call. */
static bool gx_cex_run_one(struct gx_cex *c)
{
	struct exec_work *w;
	unsigned int i;

	if (!c->nr)
		return false;
	w = c->q[0];
	for (i = 1; i < c->nr; i++)
		c->q[i - 1] = c->q[i];
	c->nr--;
	clear_bit(0, &w->flags);	/* EXEC_WORK_PENDING is bit 0 */
	w->func(w);
	return true;
}

static struct gx_cex *gx_cex_create(struct kunit *test)
{
	struct gx_cex *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c || exec_executor_init(&c->ex, &gx_cex_ops))
		return NULL;
	return c;
}

static void group_notify_holds_work_guard_on_its_executor(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);
	struct gx_cex *c = gx_cex_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	fx->notify_ex = &c->ex;
	gx_submit(fx, gx_loop_ex(fx), 0, 3);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, &c->ex, gx_notify, fx),
			0);
	/* One unit of outstanding work while the group counts items. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c->started), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->finished), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 3L);
	/* Released once the continuation is queued on the executor. */
	KUNIT_EXPECT_EQ(test, c->nr, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->finished), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 0);
	KUNIT_EXPECT_TRUE(test, gx_cex_run_one(c));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	KUNIT_EXPECT_EQ(test, fx->notify_saw_runs, 3);
	/* An empty group: submitted at once, no guard taken. */
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, &c->ex, gx_notify, fx),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->started), 1);
	KUNIT_EXPECT_TRUE(test, gx_cex_run_one(c));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 2);
	gx_finish(fx);
	exec_executor_fini(&c->ex);
}

static void group_notify_refused_runs_in_emptying_thread(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);
	struct gx_cex *c = gx_cex_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	fx->notify_ex = &c->ex;
	gx_submit(fx, gx_loop_ex(fx), 0, 2);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, &c->ex, gx_notify, fx),
			0);
	c->refuse = 1;
	/* One continuation at a time. */
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, &c->ex, gx_notify, fx),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 2L);
	/* Not lost: it ran in the thread that emptied the group. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	KUNIT_EXPECT_EQ(test, fx->notify_on_ex, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->finished), 1);
	/* Refused on an empty group: the error, and nothing runs. */
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, &c->ex, gx_notify, fx),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->notified), 1);
	gx_finish(fx);
	exec_executor_fini(&c->ex);
}

static void group_submit_refused_by_executor_is_not_counted(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, false);
	struct gx_cex *c = gx_cex_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->refuse = 1;
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, &c->ex,
						&fx->items[0].item),
			-ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, exec_group_item_pending(&fx->items[0].item));
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 0);
	/* Nothing was left queued for a cancel to remove. */
	KUNIT_EXPECT_EQ(test, exec_group_cancel(fx->g), 0L);
	gx_finish(fx);
	exec_executor_fini(&c->ex);
}

static void group_submit_refused_after_cancel_discards(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, false);
	struct gx_cex *c = gx_cex_create(test);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	/* The cancel lands after the group counted the item. */
	c->cancel_in_submit = fx->g;
	c->refuse = 1;
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, &c->ex,
						&fx->items[0].item), 0);
	KUNIT_EXPECT_EQ(test, c->cancelled, 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 0);
	KUNIT_EXPECT_FALSE(test, exec_group_item_pending(&fx->items[0].item));
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 0UL);
	/* Accepted after the cancel, the item is discarded when reached. */
	c->refuse = 0;
	KUNIT_EXPECT_EQ(test, exec_group_reset(fx->g), 0);
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, &c->ex,
						&fx->items[1].item), 0);
	KUNIT_EXPECT_EQ(test, c->cancelled, 1L);
	KUNIT_EXPECT_TRUE(test, gx_cex_run_one(c));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	c->cancel_in_submit = NULL;
	gx_finish(fx);
	exec_executor_fini(&c->ex);
}

static void latch_continuation_refused_runs_in_caller(struct kunit *test)
{
	struct gx_latch_fx *lf = kunit_kzalloc(test, sizeof(*lf), GFP_KERNEL);
	struct gx_cex *c = gx_cex_create(test);

	KUNIT_ASSERT_NOT_NULL(test, lf);
	KUNIT_ASSERT_NOT_NULL(test, c);
	lf->ex = &c->ex;
	KUNIT_ASSERT_EQ(test, exec_latch_init(&lf->latch, 1, &c->ex,
					      gx_latch_done, lf), 0);
	c->refuse = 1;
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(&lf->latch), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lf->runs), 1);
	KUNIT_EXPECT_EQ(test, lf->on_ex, 0);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(&lf->latch, 0), 0);
	exec_executor_fini(&c->ex);
}

static void group_bad_input(struct kunit *test)
{
	struct gx_fx *fx = gx_create(test, 0, true);
	struct exec_group_item nofn;
	struct exec_latch l;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_group_item_init(&nofn, NULL, NULL);
	KUNIT_EXPECT_EQ(test, exec_cancel_request(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_cancel_token_reset(NULL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_cancel_requested(NULL));
	KUNIT_EXPECT_EQ(test, exec_group_create(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_create_key(NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_submit(NULL, gx_loop_ex(fx),
						&fx->items[0].item), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, NULL,
						&fx->items[0].item), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, gx_loop_ex(fx), NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, gx_loop_ex(fx), &nofn),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_submit_fn(fx->g, gx_loop_ex(fx),
						   NULL, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_cancel(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_reset(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_wait(NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_notify(NULL, gx_loop_ex(fx),
						gx_notify, fx), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, NULL, gx_notify, fx),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_group_notify(fx->g, gx_loop_ex(fx), NULL,
						fx), -EINVAL);
	KUNIT_EXPECT_NULL(test, exec_group_token(NULL));
	KUNIT_EXPECT_EQ(test, exec_group_count(NULL), 0UL);
	KUNIT_EXPECT_EQ(test, exec_latch_init(NULL, 1, NULL, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_latch_init(&l, 1, NULL, gx_closure, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_latch_count_down(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_latch_wait(NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_latch_remaining(NULL), 0UL);
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 0UL);

	/* A pending item: -EALREADY, and it still runs once. */
	fx->items[0].action = GX_WAIT_OWN_GROUP;
	gx_submit(fx, gx_loop_ex(fx), 0, 1);
	KUNIT_EXPECT_TRUE(test, exec_group_item_pending(&fx->items[0].item));
	KUNIT_EXPECT_EQ(test, exec_group_submit(fx->g, gx_loop_ex(fx),
						&fx->items[0].item),
			-EALREADY);
	KUNIT_EXPECT_EQ(test, exec_group_count(fx->g), 1UL);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(fx->g), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	/* Waiting for its own group from inside an item. */
	KUNIT_EXPECT_EQ(test, fx->items[0].own_wait, -EDEADLK);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(fx->loop), 0L);
	gx_finish(fx);
}

/*
 * A group made with its lockdep class given (what exec_group_create()
 * does in a kernel with lockdep) works as any: its item runs, it waits.
 */
static void group_create_key_gives_a_working_group(struct kunit *test)
{
	static struct lock_class_key key;
	struct gx_fx *fx = gx_create(test, 1, false);
	struct exec_group *g;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_group_create_key(&g, &key), 0);
	KUNIT_EXPECT_EQ(test, exec_group_submit(g, gx_pool_ex(fx),
						&fx->items[0].item), 0);
	KUNIT_EXPECT_EQ(test, exec_group_wait(g, EXEC_TIME_NEVER), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(g), 0);
	gx_finish(fx);
}

static struct kunit_case exec_group_cases[] = {
	KUNIT_CASE(group_create_key_gives_a_working_group),
	KUNIT_CASE(group_token_request_is_seen_by_running_work),
	KUNIT_CASE(group_cancel_removes_queued_items_on_thread_pool),
	KUNIT_CASE(group_cancel_removes_queued_items_on_serial),
	KUNIT_CASE(group_cancel_on_loop_discards_when_loop_runs),
	KUNIT_CASE(group_items_dropped_by_executor_are_discarded),
	KUNIT_CASE(group_notify_runs_once_on_its_executor_when_empty),
	KUNIT_CASE(group_notify_on_thread_pool_after_cancel),
	KUNIT_CASE(group_notify_continuation_may_destroy_group),
	KUNIT_CASE(group_submit_after_cancel_ecanceled_until_reset),
	KUNIT_CASE(group_closures_are_counted_and_removed),
	KUNIT_CASE(group_counts_every_item_from_several_threads),
	KUNIT_CASE(group_cancel_racing_runs_or_discards_each),
	KUNIT_CASE(group_wait_sleeps_until_group_is_empty),
	KUNIT_CASE(group_and_latch_waits_time_out),
	KUNIT_CASE(latch_runs_continuation_once_after_count_downs),
	KUNIT_CASE(latch_count_down_past_zero_einval_counted),
	KUNIT_CASE(group_notify_holds_work_guard_on_its_executor),
	KUNIT_CASE(group_notify_refused_runs_in_emptying_thread),
	KUNIT_CASE(group_submit_refused_by_executor_is_not_counted),
	KUNIT_CASE(group_submit_refused_after_cancel_discards),
	KUNIT_CASE(latch_continuation_refused_runs_in_caller),
	KUNIT_CASE(group_bad_input),
	{}
};

static struct kunit_suite exec_group_suite = {
	.name = "exec-group",
	.test_cases = exec_group_cases,
};

kunit_test_suites(&exec_group_suite);

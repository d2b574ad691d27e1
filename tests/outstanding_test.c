// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Outstanding work through the executors built on another (P0113 strand:
 * "on_work_started() Effects: Calls inner_ex_.on_work_started()"): a
 * serial executor, a priority executor and a managed queue, each over a
 * thread pool and over a loop scheduler.  Something that holds a unit on
 * the adapter (a work guard, a future continuation, a group notification,
 * a timed item) keeps the pool's exec_thread_pool_join() and the
 * scheduler's run() from ending, and the item it leads to runs on the
 * adapter with its own result: not refused, not discarded, not
 * -ECANCELED.  Also: destroying an adapter while a unit is held on it,
 * and while a timed item that counts is armed on it.
 *
 * The I/O handler bound to an adapter is in tests/user/outstanding_io_test.c
 * (userspace only).
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

/* A timed item that holds its unit while the case looks. */
#define OC_TIMER_DELAY_NS	(300ULL * 1000000ULL)
/* A timed item that does not come due while the case runs. */
#define OC_FAR_NS		(3600ULL * 1000000000ULL)
/* How long to wait for what should have come when the case failed early. */
#define OC_SHORT_MS		500U
/* The result of the continuation's future. */
#define OC_RESULT		42L

enum oc_base { OC_POOL, OC_LS };
enum oc_kind { OC_SERIAL, OC_PRIORITY, OC_MQ };

/**
 * struct oc_fx - one adapter over one base executor
 * @test: the case
 * @base: what @under is
 * @pool: @under, if a pool
 * @ls: @under, if a loop scheduler
 * @under: the base
 * @kind: what @ex is
 * @serial: @ex, if a serial executor
 * @prio: @ex, if a priority executor
 * @mq: @ex, if a managed queue
 * @ex: the adapter over @under
 * @ender: a thread in exec_thread_pool_join() or exec_loop_scheduler_run()
 * @guard: a unit held on @ex by the case
 * @timer: a timed item armed on @ex
 * @reset_guard: @timer's function (or discard) releases @guard
 * @runs: the case's item ran
 * @discards: it was discarded
 * @elsewhere: it ran, but not on @ex
 * @result: what it got
 */
struct oc_fx {
	struct kunit *test;
	enum oc_base base;
	struct exec_thread_pool *pool;
	struct exec_loop_scheduler *ls;
	struct exec_executor *under;
	enum oc_kind kind;
	struct exec_serial *serial;
	struct exec_priority *prio;
	struct exec_managed_queue *mq;
	struct exec_executor *ex;
	struct exec_test_thread ender;
	struct exec_work_guard guard;
	struct exec_timer timer;
	bool reset_guard;
	atomic_t runs;
	atomic_t discards;
	atomic_t elsewhere;
	long result;
};

static int oc_create_adapter(struct oc_fx *fx, struct exec_executor *under)
{
	int ret;

	switch (fx->kind) {
	case OC_SERIAL:
		ret = exec_serial_create(&fx->serial, under);
		fx->ex = ret ? NULL : exec_serial_executor(fx->serial);
		break;
	case OC_PRIORITY:
		ret = exec_priority_create(&fx->prio, under, NULL);
		fx->ex = ret ? NULL : exec_priority_executor(fx->prio);
		break;
	default:
		ret = exec_managed_queue_create(&fx->mq, under, NULL);
		fx->ex = ret ? NULL : exec_managed_queue_executor(fx->mq);
		break;
	}
	return ret;
}

static long oc_destroy_adapter(struct oc_fx *fx)
{
	switch (fx->kind) {
	case OC_SERIAL:
		return exec_serial_destroy(fx->serial);
	case OC_PRIORITY:
		return exec_priority_destroy(fx->prio);
	default:
		return exec_managed_queue_destroy(fx->mq);
	}
}

static struct oc_fx *oc_create(struct kunit *test, enum oc_base base,
			       enum oc_kind kind)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct oc_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int ret;

	if (!fx)
		return NULL;
	fx->test = test;
	fx->base = base;
	fx->kind = kind;
	if (base == OC_POOL) {
		ret = exec_thread_pool_create(&fx->pool, &attr);
		fx->under = ret ? NULL : exec_thread_pool_executor(fx->pool);
	} else {
		ret = exec_loop_scheduler_create(&fx->ls);
		fx->under = ret ? NULL : exec_loop_scheduler_executor(fx->ls);
	}
	if (ret) {
		kfree(fx);
		return NULL;
	}
	if (oc_create_adapter(fx, fx->under)) {
		if (fx->pool)
			exec_thread_pool_destroy(fx->pool);
		else
			exec_loop_scheduler_destroy(fx->ls);
		kfree(fx);
		return NULL;
	}
	return fx;
}

static int oc_ender_fn(void *arg)
{
	struct oc_fx *fx = arg;

	if (fx->base == OC_POOL)
		return exec_thread_pool_join(fx->pool);
	return (int)exec_loop_scheduler_run(fx->ls);
}

static void oc_start_ender(struct oc_fx *fx)
{
	KUNIT_ASSERT_EQ(fx->test, exec_test_thread_start(&fx->ender,
							 oc_ender_fn, fx,
							 "exec-oc-end"), 0);
}

/*
 * The join or run is still waiting a while after it began, unless the
 * case's item has already run (a timed item on a slow machine).  Returns
 * whether it waited: if not, the case has failed, and what it waits for
 * afterwards it waits for briefly.
 */
static bool oc_held(struct oc_fx *fx)
{
	bool held;

	msleep(EXEC_TEST_SETTLE_MS);
	held = !exec_test_thread_done(&fx->ender) ||
	       atomic_read_acquire(&fx->runs);
	KUNIT_EXPECT_TRUE_MSG(fx->test, held,
			      "%s over %s: %s returned with a unit held",
			      exec_executor_kind(fx->ex),
			      exec_executor_kind(fx->under),
			      fx->base == OC_POOL ? "join" : "run");
	return held;
}

/* The case's item ran once, on the adapter, with @result. */
static void oc_expect_ran(struct oc_fx *fx, bool held, long result)
{
	KUNIT_EXPECT_TRUE(fx->test, exec_test_wait_atomic_ge(&fx->runs, 1,
			  held ? EXEC_TEST_TIMEOUT_MS : OC_SHORT_MS));
	KUNIT_EXPECT_EQ(fx->test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(fx->test, atomic_read(&fx->discards), 0);
	KUNIT_EXPECT_EQ(fx->test, atomic_read(&fx->elsewhere), 0);
	KUNIT_EXPECT_EQ(fx->test, READ_ONCE(fx->result), result);
}

/*
 * The join or run ends once the unit is gone; then everything goes.  A
 * base that does not end by itself is stopped, so that the case fails
 * rather than hangs.
 */
static void oc_finish(struct oc_fx *fx, bool held)
{
	struct kunit *test = fx->test;
	bool ended;

	ended = exec_test_thread_join(&fx->ender, held ? EXEC_TEST_TIMEOUT_MS :
							 OC_SHORT_MS);
	KUNIT_EXPECT_TRUE(test, ended);
	if (!ended) {
		if (fx->pool)
			exec_thread_pool_stop(fx->pool);
		else
			exec_loop_scheduler_stop(fx->ls);
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&fx->ender,
						EXEC_TEST_TIMEOUT_MS));
	}
	KUNIT_EXPECT_GE(test, fx->ender.ret, 0L);
	/* A loop scheduler's run ran the item, through the adapter. */
	if (fx->ls && held)
		KUNIT_EXPECT_GE(test, fx->ender.ret, 1L);
	if (exec_work_guard_owns(&fx->guard))
		exec_work_guard_reset(&fx->guard);
	KUNIT_EXPECT_GE(test, oc_destroy_adapter(fx), 0L);
	if (fx->pool)
		KUNIT_EXPECT_GE(test, exec_thread_pool_destroy(fx->pool), 0L);
	else
		KUNIT_EXPECT_GE(test, exec_loop_scheduler_destroy(fx->ls), 0L);
	kfree(fx);
}

static void oc_note(struct oc_fx *fx, long result)
{
	if (!exec_running_in_this_thread(fx->ex))
		exec_test_count(&fx->elsewhere);
	WRITE_ONCE(fx->result, result);
	exec_test_count(&fx->runs);
}

static void oc_item(void *arg)
{
	oc_note(arg, 1);
}

static void oc_cont(void *arg, long result)
{
	oc_note(arg, result);
}

/*
 * A work guard on the adapter: the operation it stands for posts its
 * completion, then releases the guard (executor.h).
 */
static void oc_guard(struct kunit *test, enum oc_base base, enum oc_kind kind)
{
	struct oc_fx *fx = oc_create(test, base, kind);
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_work_guard_init(&fx->guard, fx->ex), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, oc_item, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	oc_expect_ran(fx, held, 1);
	oc_finish(fx, held);
}

/* A continuation on the adapter, of a future completed later. */
static void oc_continuation(struct kunit *test, enum oc_base base,
			    enum oc_kind kind)
{
	struct oc_fx *fx = oc_create(test, base, kind);
	struct exec_future *fut;
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, fx->ex, oc_cont, fx), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, OC_RESULT), 0);
	exec_future_put(fut);
	oc_expect_ran(fx, held, OC_RESULT);
	oc_finish(fx, held);
}

static void oc_nothing(void *arg)
{
}

/*
 * A notification on the adapter, of a group whose item waits on a loop
 * executor that nobody runs until the case does.
 */
static void oc_group_notify(struct kunit *test, enum oc_base base,
			    enum oc_kind kind)
{
	struct oc_fx *fx = oc_create(test, base, kind);
	struct exec_group *g;
	struct exec_loop *side;
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&side), 0);
	KUNIT_ASSERT_EQ(test, exec_group_create(&g), 0);
	KUNIT_EXPECT_EQ(test, exec_group_submit_fn(g, exec_loop_executor(side),
						   oc_nothing, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, exec_group_notify(g, fx->ex, oc_item, fx), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(side), 1L);
	oc_expect_ran(fx, held, 1);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(g), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(side), 0L);
	oc_finish(fx, held);
}

static void oc_timer_fn(struct exec_work *work)
{
	struct oc_fx *fx = container_of(work, struct oc_fx, timer.work);

	oc_note(fx, 1);
	if (fx->reset_guard)
		exec_work_guard_reset(&fx->guard);
}

static void oc_timer_discard(struct exec_work *work)
{
	struct oc_fx *fx = container_of(work, struct oc_fx, timer.work);

	exec_test_count(&fx->discards);
	if (fx->reset_guard)
		exec_work_guard_reset(&fx->guard);
}

/*
 * A timed item armed on the adapter.  With @guarded, the code that armed
 * it holds a guard on the adapter until it runs, as an asynchronous
 * operation waiting for a deadline does: needed where the adapter counts
 * its timed items only as the executor beneath counts its own, and that
 * is a thread pool, whose join does not wait for armed items
 * (thread_pool.h).  Without it the item alone holds the base: on a loop
 * scheduler, and on anything over a managed queue, which counts its own.
 */
static void oc_timed(struct kunit *test, enum oc_base base, enum oc_kind kind,
		     bool guarded)
{
	struct oc_fx *fx = oc_create(test, base, kind);
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_timer_init(&fx->timer, oc_timer_fn, oc_timer_discard);
	if (guarded) {
		KUNIT_ASSERT_EQ(test, exec_work_guard_init(&fx->guard, fx->ex),
				0);
		fx->reset_guard = true;
	}
	KUNIT_ASSERT_EQ(test, exec_submit_after(fx->ex, &fx->timer,
						OC_TIMER_DELAY_NS), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	oc_expect_ran(fx, held, 1);
	oc_finish(fx, held);
}

#define OC_CASES(name, kind, base, pool_guarded)			\
static void outstanding_##name##_guard(struct kunit *test)		\
{									\
	oc_guard(test, base, kind);					\
}									\
static void outstanding_##name##_continuation(struct kunit *test)	\
{									\
	oc_continuation(test, base, kind);				\
}									\
static void outstanding_##name##_group_notify(struct kunit *test)	\
{									\
	oc_group_notify(test, base, kind);				\
}									\
static void outstanding_##name##_timed_item(struct kunit *test)	\
{									\
	oc_timed(test, base, kind, pool_guarded);			\
}

OC_CASES(serial_pool, OC_SERIAL, OC_POOL, true)
OC_CASES(serial_ls, OC_SERIAL, OC_LS, false)
OC_CASES(priority_pool, OC_PRIORITY, OC_POOL, true)
OC_CASES(priority_ls, OC_PRIORITY, OC_LS, false)
OC_CASES(mq_pool, OC_MQ, OC_POOL, true)
OC_CASES(mq_ls, OC_MQ, OC_LS, false)

/* A managed queue counts its timed items: they hold the pool's join. */
static void outstanding_mq_pool_timed_item_alone(struct kunit *test)
{
	oc_timed(test, OC_POOL, OC_MQ, false);
}

/*
 * Destroying a strand while a guard is held on it: refused (-EBUSY, the
 * warning provoked), and nothing changes: the strand runs what it is
 * given, its unit still holds the pool's join, and the pool still depends
 * on the strand.  Once the guard goes, the join ends and both go.
 */
static void outstanding_destroy_strand_with_guard(struct kunit *test)
{
	struct oc_fx *fx = oc_create(test, OC_POOL, OC_SERIAL);
	int before;
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_work_guard_init(&fx->guard, fx->ex), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(fx->serial), (long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool),
			(long)-EBUSY);
	/* The unit is still forwarded: the join goes on waiting. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&fx->ender));
	KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, oc_item, fx), 0);
	oc_expect_ran(fx, held, 1);
	before = atomic_read(&fx->runs);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, oc_item, fx), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, before + 1,
			  held ? EXEC_TEST_TIMEOUT_MS : OC_SHORT_MS));
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	oc_finish(fx, held);
}

/*
 * The same over a loop scheduler, with the unit of a timed item armed on
 * the strand: destroy discards the item and releases its unit, and the
 * scheduler's run, which the unit held, returns.
 */
static void outstanding_destroy_strand_with_timed_item(struct kunit *test)
{
	struct oc_fx *fx = oc_create(test, OC_LS, OC_SERIAL);
	bool held, ended;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_timer_init(&fx->timer, oc_timer_fn, oc_timer_discard);
	KUNIT_ASSERT_EQ(test, exec_submit_after(fx->ex, &fx->timer,
						OC_FAR_NS), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(fx->serial), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
	ended = exec_test_thread_join(&fx->ender, EXEC_TEST_TIMEOUT_MS);
	KUNIT_EXPECT_TRUE(test, ended);
	if (!ended) {
		exec_loop_scheduler_stop(fx->ls);
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&fx->ender,
						EXEC_TEST_TIMEOUT_MS));
	}
	KUNIT_EXPECT_EQ(test, fx->ender.ret, 0L);
	KUNIT_EXPECT_TRUE(test, held);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(fx->ls), 0L);
	kfree(fx);
}

/*
 * A managed queue with a unit held: its destroy is refused, and the
 * queue's own wait and the scheduler's run both wait for the unit.
 */
static void outstanding_mq_counts_and_forwards(struct kunit *test)
{
	struct oc_fx *fx = oc_create(test, OC_LS, OC_MQ);
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_work_guard_init(&fx->guard, fx->ex), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(fx->mq),
			(long)-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, oc_item, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	/* Not where the run ended early: nobody would run the item. */
	if (held)
		KUNIT_EXPECT_EQ(test,
				exec_managed_queue_wait_until_complete(fx->mq),
				0);
	oc_expect_ran(fx, held, 1);
	oc_finish(fx, held);
}

/* Adapters stacked: a strand over a priority executor over a pool. */
static void outstanding_stacked_adapters(struct kunit *test)
{
	struct oc_fx *fx = oc_create(test, OC_POOL, OC_PRIORITY);
	struct exec_executor *prio_ex;
	struct exec_serial *top;
	bool held;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&top, fx->ex), 0);
	prio_ex = fx->ex;
	fx->ex = exec_serial_executor(top);
	KUNIT_ASSERT_EQ(test, exec_work_guard_init(&fx->guard, fx->ex), 0);
	oc_start_ender(fx);
	held = oc_held(fx);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(fx->ex, oc_item, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&fx->guard), 0);
	oc_expect_ran(fx, held, 1);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->ender,
			  held ? EXEC_TEST_TIMEOUT_MS : OC_SHORT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(top), 0L);
	fx->ex = prio_ex;
	oc_finish(fx, held);
}

/*
 * An executor whose release of a unit takes its time, so that a strand's
 * destroy comes while the unit forwarded to it is being released: after
 * the moment a join or a run would have ended, before the releasing
 * thread is done with the strand.
 */
struct oc_slow {
	struct exec_executor ex;
	atomic_t started;
	atomic_t finishing;
};

#define OC_SLOW_RELEASE_MS	100U

static int oc_slow_submit(struct exec_executor *ex, struct exec_work *work,
			  unsigned int flags)
{
	return -EOPNOTSUPP;
}

static void oc_slow_work_started(struct exec_executor *ex)
{
	exec_test_count(&container_of(ex, struct oc_slow, ex)->started);
}

static void oc_slow_work_finished(struct exec_executor *ex)
{
	exec_test_count(&container_of(ex, struct oc_slow, ex)->finishing);
	msleep(OC_SLOW_RELEASE_MS);
}

static const struct exec_executor_ops oc_slow_ops = {
	.kind = "oc_slow",
	.submit = oc_slow_submit,
	.work_started = oc_slow_work_started,
	.work_finished = oc_slow_work_finished,
};

static int oc_reset_fn(void *arg)
{
	return exec_work_guard_reset(arg);
}

/*
 * Whoever saw the unit go from beneath (a join that ended) may destroy the
 * strand at once: the destroy waits for the release to be over instead of
 * finding the guard still counted (-EBUSY).
 */
static void outstanding_destroy_during_release(struct kunit *test)
{
	struct exec_work_guard guard;
	struct exec_test_thread t;
	struct exec_serial *serial;
	struct oc_slow *slow;

	slow = kzalloc(sizeof(*slow), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slow);
	KUNIT_ASSERT_EQ(test, exec_executor_init(&slow->ex, &oc_slow_ops), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, &slow->ex), 0);
	KUNIT_ASSERT_EQ(test, exec_work_guard_init(&guard,
					exec_serial_executor(serial)), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&slow->started), 1);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, oc_reset_fn, &guard,
						     "exec-oc-rel"), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&slow->finishing, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&t,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, t.ret, 0L);
	KUNIT_EXPECT_EQ(test, exec_executor_check_unused(&slow->ex), 0);
	exec_executor_fini(&slow->ex);
	kfree(slow);
}

#define OC_CASE_SET(name)						\
	KUNIT_CASE(outstanding_##name##_guard),				\
	KUNIT_CASE(outstanding_##name##_continuation),			\
	KUNIT_CASE(outstanding_##name##_group_notify),			\
	KUNIT_CASE(outstanding_##name##_timed_item)

static struct kunit_case exec_outstanding_cases[] = {
	OC_CASE_SET(serial_pool),
	OC_CASE_SET(serial_ls),
	OC_CASE_SET(priority_pool),
	OC_CASE_SET(priority_ls),
	OC_CASE_SET(mq_pool),
	OC_CASE_SET(mq_ls),
	KUNIT_CASE(outstanding_mq_pool_timed_item_alone),
	KUNIT_CASE(outstanding_destroy_strand_with_guard),
	KUNIT_CASE(outstanding_destroy_strand_with_timed_item),
	KUNIT_CASE(outstanding_destroy_during_release),
	KUNIT_CASE(outstanding_mq_counts_and_forwards),
	KUNIT_CASE(outstanding_stacked_adapters),
	{}
};

static struct kunit_suite exec_outstanding_suite = {
	.name = "exec-outstanding",
	.test_cases = exec_outstanding_cases,
};

kunit_test_suites(&exec_outstanding_suite);

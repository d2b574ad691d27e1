// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_timer_flush() (include/exec/timer.h), the kernel's
 * flush_delayed_work(): an armed item runs at once on the executor it is
 * armed on and the call returns after that run; a queued item and a run
 * under way are waited for; an idle or cancelled item returns 0; a call
 * from the item's own function is refused; a periodic item runs now and
 * keeps its period.  On a thread pool, a serial executor and a loop
 * executor run by a test thread.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "exec_test.h"

#define TF_NS_PER_MS	1000000ULL
/* A deadline no run of the suite reaches: an hour ahead. */
#define TF_FAR_NS	(3600000ULL * TF_NS_PER_MS)
/* How long an item's function sleeps before it marks its run done. */
#define TF_SLEEP_MS	20U
#define TF_PERIOD_MS	100U

struct tf_item {
	struct exec_timer timer;
	struct exec_test_gate *gate;	/* passed first, if set */
	u64 ran_at;
	int self_ret;			/* its own flush's return, if asked */
	bool self_flush;
	atomic_t started;
	atomic_t done;			/* set after the sleep */
};

static struct tf_item *tf_of(struct exec_work *work)
{
	return container_of(work, struct tf_item, timer.work);
}

/* Starts, waits at the gate if any, sleeps, then marks itself done. */
static void tf_fn(struct exec_work *work)
{
	struct tf_item *it = tf_of(work);

	it->ran_at = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	exec_test_count(&it->started);
	if (it->self_flush)
		it->self_ret = exec_timer_flush(&it->timer);
	if (it->gate)
		exec_test_gate_pass(it->gate);
	msleep(TF_SLEEP_MS);
	exec_test_count(&it->done);
}

static void tf_init(struct tf_item *it)
{
	memset(it, 0, sizeof(*it));
	exec_timer_init(&it->timer, tf_fn, NULL);
}

/* A thread that flushes, and sees whether the run was done by then. */
struct tf_flusher {
	struct exec_test_thread thread;
	struct tf_item *it;
	int done_at_return;
};

static int tf_flush_thread(void *arg)
{
	struct tf_flusher *f = arg;
	int ret = exec_timer_flush(&f->it->timer);

	f->done_at_return = atomic_read(&f->it->done);
	return ret;
}

/* Starts @f's flush of @it, and checks that it waits. */
static void tf_flush_start(struct kunit *test, struct tf_flusher *f,
			   struct tf_item *it)
{
	f->it = it;
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&f->thread,
						     tf_flush_thread, f,
						     "exec-test-flush"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&f->thread));
}

/* Opens @gate, and checks that @f's flush returned 1 with the run done. */
static void tf_flush_finish(struct kunit *test, struct tf_flusher *f,
			    struct exec_test_gate *gate)
{
	exec_test_gate_open(gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&f->thread,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, f->thread.ret, 1L);
	KUNIT_EXPECT_EQ(test, f->done_at_return, 1);
}

static struct exec_thread_pool *tf_pool(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;

	if (exec_thread_pool_create(&pool, &attr))
		return NULL;
	return pool;
}

/*
 * Armed an hour ahead on @ex and flushed: it runs at once, well before
 * its deadline, and the flush returns 1 after the run has returned.  A
 * second flush finds it idle.
 */
static void tf_armed_case(struct kunit *test, struct exec_executor *ex)
{
	struct tf_item it;
	u64 start, deadline;

	tf_init(&it);
	start = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	deadline = start + TF_FAR_NS;
	KUNIT_ASSERT_EQ(test, exec_submit_at(ex, &it.timer,
					     EXEC_CLOCK_MONOTONIC, deadline),
			0);
	KUNIT_EXPECT_EQ(test, exec_timer_flush(&it.timer), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.done), 1);
	KUNIT_EXPECT_GE(test, it.ran_at, start);
	KUNIT_EXPECT_LT(test, it.ran_at,
			start + (u64)EXEC_TEST_TIMEOUT_MS * TF_NS_PER_MS);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&it.timer.work));
	KUNIT_EXPECT_EQ(test, exec_timer_flush(&it.timer), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.started), 1);
	/* Nothing left to take back; a failed flush leaves no armed item. */
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&it.timer), 0);
}

static void timer_flush_runs_an_armed_item_now_on_a_pool(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);

	KUNIT_ASSERT_NOT_NULL(test, pool);
	tf_armed_case(test, exec_thread_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static void timer_flush_runs_an_armed_item_now_on_a_serial_executor(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct exec_serial *serial;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
						 exec_thread_pool_executor(pool)),
			0);
	tf_armed_case(test, exec_serial_executor(serial));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

struct tf_loop {
	struct exec_loop *loop;
	struct exec_timer exit;
};

static void tf_loop_exit_fn(struct exec_work *work)
{
	struct tf_loop *tl = container_of(work, struct tf_loop, exit.work);

	exec_loop_make_loop_exit(tl->loop);
}

static int tf_loop_thread(void *arg)
{
	return exec_loop_run(arg);
}

/* A loop executor whose run() a test thread calls: the same. */
static void timer_flush_runs_an_armed_item_now_on_a_loop(struct kunit *test)
{
	struct exec_test_thread runner;
	struct tf_loop tl = { };

	KUNIT_ASSERT_EQ(test, exec_loop_create(&tl.loop), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&runner, tf_loop_thread,
						     tl.loop, "exec-test-loop"),
			0);
	tf_armed_case(test, exec_loop_executor(tl.loop));
	exec_timer_init(&tl.exit, tf_loop_exit_fn, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_loop_executor(tl.loop),
						&tl.exit, 0), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&runner,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, runner.ret, 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(tl.loop), 0L);
}

/* Idle, cancelled, NULL, not a timed item. */
static void timer_flush_of_an_idle_or_cancelled_item_returns_0(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct tf_item it, plain;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	tf_init(&it);
	KUNIT_EXPECT_EQ(test, exec_timer_flush(&it.timer), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_thread_pool_executor(pool),
						&it.timer, TF_FAR_NS), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&it.timer), 1);
	KUNIT_EXPECT_EQ(test, exec_timer_flush(&it.timer), 0);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&it.timer.work));
	KUNIT_EXPECT_EQ(test, exec_timer_flush(NULL), -EINVAL);
	exec_work_init(&plain.timer.work, tf_fn);
	KUNIT_EXPECT_EQ(test, exec_timer_flush(&plain.timer), -EINVAL);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.started), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

/* A run under way: the flush returns once the function has returned. */
static void timer_flush_waits_for_a_run_under_way(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct exec_test_gate gate;
	struct tf_flusher f = { };
	struct tf_item it;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	tf_init(&it);
	exec_test_gate_init(&gate);
	it.gate = &gate;
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_thread_pool_executor(pool),
						&it.timer, 0), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	tf_flush_start(test, &f, &it);
	tf_flush_finish(test, &f, &gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

/*
 * An item that came due and waits in its serial executor's queue behind a
 * gated one is waited for until it has run.
 */
static void timer_flush_waits_for_a_queued_item(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct exec_test_gate gate;
	struct exec_serial *serial;
	struct tf_flusher f = { };
	struct tf_item first, it;
	struct exec_executor *ex;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
						 exec_thread_pool_executor(pool)),
			0);
	ex = exec_serial_executor(serial);
	tf_init(&first);
	tf_init(&it);
	exec_test_gate_init(&gate);
	first.gate = &gate;
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &first.timer, 0), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &it.timer, 0), 0);
	tf_flush_start(test, &f, &it);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.started), 0);
	tf_flush_finish(test, &f, &gate);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

/* From the item's own function: -EDEADLK, and the run goes on. */
static void timer_flush_from_own_function_edeadlk(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct tf_item it;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	tf_init(&it);
	it.self_flush = true;
	it.self_ret = 1;
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_thread_pool_executor(pool),
						&it.timer, 0), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&it.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, it.self_ret, -EDEADLK);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

struct tf_inside {
	struct exec_timer caller;
	struct tf_item *it;
	int ret;
	atomic_t done;
};

static void tf_inside_fn(struct exec_work *work)
{
	struct tf_inside *in = container_of(work, struct tf_inside,
					    caller.work);

	in->ret = exec_timer_flush(&in->it->timer);
	exec_test_count(&in->done);
}

/*
 * From another item of the serial executor the item is armed on, which
 * could not start it while the caller runs: -EDEADLK, the item left armed.
 */
static void timer_flush_from_inside_its_serial_executor_edeadlk(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct tf_inside in = { .ret = 1 };
	struct exec_serial *serial;
	struct exec_executor *ex;
	struct tf_item it;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
						 exec_thread_pool_executor(pool)),
			0);
	ex = exec_serial_executor(serial);
	tf_init(&it);
	in.it = &it;
	exec_timer_init(&in.caller, tf_inside_fn, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &it.timer, TF_FAR_NS), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &in.caller, 0), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&in.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, in.ret, -EDEADLK);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&it.timer.work));
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&it.timer), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.started), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

/*
 * An item that came due and waits in its serial executor's queue, then
 * moved an hour ahead by exec_timer_mod() (its executor still holds it):
 * the flush makes it run when dequeued, not filed again, and waits for
 * that run.
 */
static void timer_flush_runs_an_item_moved_after_it_came_due(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	struct exec_test_gate gate;
	struct exec_serial *serial;
	struct tf_flusher f = { };
	struct tf_item first, it;
	struct exec_executor *ex;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
						 exec_thread_pool_executor(pool)),
			0);
	ex = exec_serial_executor(serial);
	tf_init(&first);
	tf_init(&it);
	exec_test_gate_init(&gate);
	first.gate = &gate;
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &first.timer, 0), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &it.timer, 0), 0);
	/* Due, queued behind the gated item: the mod catches it there. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, exec_timer_mod(ex, &it.timer, EXEC_CLOCK_MONOTONIC,
					     exec_clock_now(EXEC_CLOCK_MONOTONIC) +
					     TF_FAR_NS), 1);
	tf_flush_start(test, &f, &it);
	tf_flush_finish(test, &f, &gate);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&it.timer.work));
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&it.timer), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

struct tf_count {
	struct exec_timer timer;
	atomic_t runs;
};

static void tf_count_fn(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct tf_count,
				      timer.work)->runs);
}

/*
 * Flush racing the item's own expiry (deadlines 0 to 20 us ahead, so that
 * either comes first): every round the item has run exactly once when the
 * flush returns, which says it waited unless the run had ended before it
 * looked.
 */
static void timer_flush_racing_expiry_runs_each_arm_once(struct kunit *test)
{
	unsigned long rounds = min_t(unsigned long, 20000UL,
				     exec_test_stress_tasks() / 100 + 1);
	struct exec_thread_pool *pool = tf_pool(test);
	unsigned long i, wrong = 0, waited = 0;
	struct tf_count c = { };
	struct exec_executor *ex;
	u32 rand = 12345;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	ex = exec_thread_pool_executor(pool);
	exec_timer_init(&c.timer, tf_count_fn, NULL);
	for (i = 0; i < rounds; i++) {
		rand = rand * 1664525U + 1013904223U;
		ret = exec_submit_at(ex, &c.timer, EXEC_CLOCK_MONOTONIC,
				     exec_clock_now(EXEC_CLOCK_MONOTONIC) +
				     (rand >> 8) % 20000);
		if (!ret)
			ret = exec_timer_flush(&c.timer);
		/* 0 where the run had ended before the flush looked. */
		if (ret == 1)
			waited++;
		if (ret < 0 || atomic_read(&c.runs) != (int)i + 1) {
			kunit_info(test, "round %lu: flush %d, runs %d", i, ret,
				   atomic_read(&c.runs));
			wrong++;
			break;
		}
	}
	kunit_info(test, "%lu rounds, %lu flushes waited", i, waited);
	KUNIT_EXPECT_EQ(test, wrong, 0UL);
	KUNIT_EXPECT_GT(test, waited, 0UL);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&c.timer), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

struct tf_periodic {
	struct exec_periodic p;
	u64 ran_at[2];
	atomic_t runs;
};

static void tf_periodic_fn(struct exec_work *work)
{
	struct tf_periodic *tp = container_of(work, struct tf_periodic,
					      p.timer.work);
	int n = atomic_read(&tp->runs);

	if (n < 2)
		tp->ran_at[n] = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	msleep(TF_SLEEP_MS);
	exec_test_count(&tp->runs);
}

/*
 * A periodic item first due in an hour: flushed, it runs now, the flush
 * returns after that run, and it runs again a period after the flush.
 */
static void timer_flush_runs_a_periodic_item_now_and_keeps_its_period(struct kunit *test)
{
	struct exec_thread_pool *pool = tf_pool(test);
	const u64 period = TF_PERIOD_MS * TF_NS_PER_MS;
	struct tf_periodic tp = { };
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	exec_periodic_init(&tp.p, tf_periodic_fn, NULL);
	start = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	KUNIT_ASSERT_EQ(test, exec_submit_periodic(exec_thread_pool_executor(pool),
						   &tp.p, EXEC_CLOCK_MONOTONIC,
						   start + TF_FAR_NS, period, 0,
						   EXEC_PERIOD_FIXED_RATE), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_flush(&tp.p.timer), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&tp.runs), 1);
	/* Re-armed by its run, for a period after the flush. */
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&tp.p.timer.work));
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&tp.runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_GE(test, tp.ran_at[1], start + period);
	KUNIT_EXPECT_LT(test, tp.ran_at[1], start + TF_FAR_NS);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&tp.p.timer), 1);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static struct kunit_case exec_timer_flush_cases[] = {
	KUNIT_CASE(timer_flush_runs_an_armed_item_now_on_a_pool),
	KUNIT_CASE(timer_flush_runs_an_armed_item_now_on_a_serial_executor),
	KUNIT_CASE(timer_flush_runs_an_armed_item_now_on_a_loop),
	KUNIT_CASE(timer_flush_of_an_idle_or_cancelled_item_returns_0),
	KUNIT_CASE(timer_flush_waits_for_a_run_under_way),
	KUNIT_CASE(timer_flush_waits_for_a_queued_item),
	KUNIT_CASE(timer_flush_runs_an_item_moved_after_it_came_due),
	KUNIT_CASE(timer_flush_racing_expiry_runs_each_arm_once),
	KUNIT_CASE(timer_flush_from_own_function_edeadlk),
	KUNIT_CASE(timer_flush_from_inside_its_serial_executor_edeadlk),
	KUNIT_CASE(timer_flush_runs_a_periodic_item_now_and_keeps_its_period),
	{}
};

static struct kunit_suite exec_timer_flush_suite = {
	.name = "exec-timer-flush",
	.test_cases = exec_timer_flush_cases,
};

kunit_test_suites(&exec_timer_flush_suite);

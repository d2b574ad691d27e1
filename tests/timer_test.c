// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Timed work (include/exec/timer.h): deadlines honoured and never early,
 * a busy thread not holding up the next deadline, cancel racing expiry,
 * cancel_sync, re-arm, periodic items without drift, realtime deadlines
 * following a clock change, order through a serial executor, slack,
 * destroy with armed items, bad input.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

#define TX_MANY		100000U	/* timers in the never-early case */
#define TX_CHUNK	4096U	/* items per allocation */
/*
 * Cancel-versus-expiry rounds: 100,000 at the default stress size, fewer
 * where the runner asks for less (the emulated kernel, the sanitizers).
 */
#define TX_RACES_MAX	100000UL
#define TX_ORDERED	1000U
#define TX_NS_PER_MS	1000000ULL

struct tx_item {
	struct exec_timer timer;
	struct tx_fx *fx;
	u64 ran_at;
	unsigned int seq;
	atomic_t runs;
	atomic_t discards;
};

struct tx_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	atomic_t runs;
	atomic_t early;
	atomic_t discards;
	atomic_t order_errors;
	unsigned int next_seq;	/* touched by serialised items only */
	u32 rand;
};

static u32 tx_rand(struct tx_fx *fx)
{
	/* Numerical Recipes' LCG: deterministic, the same in both worlds. */
	fx->rand = fx->rand * 1664525U + 1013904223U;
	return fx->rand >> 8;
}

/* Uniform enough in [0, @range) for spreading deadlines. */
static u64 tx_rand_below(struct tx_fx *fx, u64 range)
{
	u64 r = (u64)tx_rand(fx) << 24 | tx_rand(fx);

	return r % range;
}

static struct tx_fx *tx_create(struct kunit *test, unsigned int threads)
{
	struct exec_thread_pool_attr attr = { .nr_threads = threads };
	struct tx_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

	if (!fx)
		return NULL;
	fx->test = test;
	fx->rand = 12345;
	if (exec_thread_pool_create(&fx->pool, &attr)) {
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_thread_pool_executor(fx->pool);
	return fx;
}

static void tx_finish(struct tx_fx *fx)
{
	if (fx->pool)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool), 0);
	kfree(fx);
}

static struct tx_item *tx_of(struct exec_work *work)
{
	return container_of(work, struct tx_item, timer.work);
}

/* Records the run and whether it came before the item's deadline. */
static void tx_record(struct tx_item *it, enum exec_clock clock)
{
	it->ran_at = exec_clock_now(clock);
	if (it->ran_at < exec_timer_expires(&it->timer))
		exec_test_count(&it->fx->early);
	exec_test_count(&it->runs);
	exec_test_count(&it->fx->runs);
}

static void tx_run(struct exec_work *work)
{
	tx_record(tx_of(work), EXEC_CLOCK_MONOTONIC);
}

static void tx_run_real(struct exec_work *work)
{
	tx_record(tx_of(work), EXEC_CLOCK_REALTIME);
}

static void tx_discard(struct exec_work *work)
{
	exec_test_count(&tx_of(work)->discards);
	exec_test_count(&tx_of(work)->fx->discards);
}

static void tx_init(struct tx_fx *fx, struct tx_item *it, exec_work_fn fn)
{
	exec_timer_init(&it->timer, fn, tx_discard);
	it->fx = fx;
	atomic_set(&it->runs, 0);
	atomic_set(&it->discards, 0);
}

static void timer_100k_deadlines_over_1ms_to_1s_none_early(struct kunit *test)
{
	unsigned int nr_chunks = (TX_MANY + TX_CHUNK - 1) / TX_CHUNK, c, i;
	struct tx_fx *fx = tx_create(test, 2);
	struct tx_item **chunks;
	struct tx_item *it;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	chunks = kcalloc(nr_chunks, sizeof(*chunks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, chunks);
	for (c = 0; c < nr_chunks; c++) {
		chunks[c] = kcalloc(TX_CHUNK, sizeof(**chunks), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, chunks[c]);
	}
	start = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (i = 0; i < TX_MANY; i++) {
		it = &chunks[i / TX_CHUNK][i % TX_CHUNK];
		tx_init(fx, it, tx_run);
		KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &it->timer,
						     EXEC_CLOCK_MONOTONIC,
						     start + TX_NS_PER_MS +
						     tx_rand_below(fx, 999 * TX_NS_PER_MS)),
				0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, TX_MANY,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	/* Each exactly once: a second run would show after the last. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), (int)TX_MANY);
	tx_finish(fx);
	for (c = 0; c < nr_chunks; c++)
		kfree(chunks[c]);
	kfree(chunks);
}

static void timer_past_deadline_and_zero_delay_run_at_once(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_item a, b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &a, tx_run);
	tx_init(fx, &b, tx_run);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &a.timer,
					     EXEC_CLOCK_MONOTONIC, 0), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &b.timer, 0), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	tx_finish(fx);
}

/* How long tx_run_busy() keeps its thread at most. */
#define TX_BUSY_MS	400

/* Keeps its thread busy, not asleep, until another item has run. */
static void tx_run_busy(struct exec_work *work)
{
	struct tx_item *it = tx_of(work);
	u64 until = exec_clock_now(EXEC_CLOCK_MONOTONIC) +
		    TX_BUSY_MS * TX_NS_PER_MS;

	tx_record(it, EXEC_CLOCK_MONOTONIC);
	while (atomic_read(&it->fx->runs) < 2 &&
	       exec_clock_now(EXEC_CLOCK_MONOTONIC) < until)
		cpu_relax();
}

/*
 * A thread kept busy by a timed item does not hold up the next deadline
 * while another thread is idle.  In userspace the thread that watched for
 * the first deadline runs that item itself and stays the watcher; the
 * clock event device, armed as its backstop, hands the next item over to
 * the idle thread.
 */
static void timer_busy_item_does_not_hold_up_the_next(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 2);
	struct tx_item busy, next;
	u64 now;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &busy, tx_run_busy);
	tx_init(fx, &next, tx_run);
	now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &busy.timer,
					     EXEC_CLOCK_MONOTONIC,
					     now + 2 * TX_NS_PER_MS), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &next.timer,
					     EXEC_CLOCK_MONOTONIC,
					     now + 10 * TX_NS_PER_MS), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	/* While the busy item still ran: long before it would have given up. */
	KUNIT_EXPECT_EQ(test, atomic_read(&next.runs), 1);
	KUNIT_EXPECT_LT(test, next.ran_at - exec_timer_expires(&next.timer),
			(u64)TX_BUSY_MS / 2 * TX_NS_PER_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	tx_finish(fx);
}

static void timer_overflowing_delay_never_fires_and_cancels(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_item a, b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &a, tx_run);
	tx_init(fx, &b, tx_run);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &a.timer,
						EXEC_TIME_NEVER - 5), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_expires(&a.timer), EXEC_TIME_NEVER);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &b.timer,
					     EXEC_CLOCK_REALTIME,
					     EXEC_TIME_NEVER), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&a.timer), 1);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&b.timer), 1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&a.timer.work));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discards), 0);
	tx_finish(fx);
}

static void timer_bad_input(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct exec_periodic p;
	struct tx_item a, plain;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &a, tx_run);
	/* An exec_work, not an exec_timer. */
	exec_work_init(&plain.timer.work, tx_run);
	KUNIT_EXPECT_EQ(test, exec_submit_after(NULL, &a.timer, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &plain.timer, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &a.timer,
					     (enum exec_clock)7, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_inline_executor(),
						&a.timer, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&plain.timer), -EINVAL);
	/* Cancelling an item never armed: nothing to do. */
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&a.timer), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&a.timer), 0);
	/* Arming a pending item. */
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &a.timer,
						1000 * TX_NS_PER_MS), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &a.timer, 0),
			-EALREADY);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &a.timer.work), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&a.timer), 1);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&a.timer), 0);
	exec_periodic_init(&p, tx_run, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit_periodic(fx->ex, &p,
						   EXEC_CLOCK_MONOTONIC, 0, 0,
						   0, EXEC_PERIOD_FIXED_RATE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_periodic(fx->ex, &p,
						   EXEC_CLOCK_MONOTONIC, 0, 1,
						   0, (enum exec_period_mode)9),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_periodic(fx->ex,
						   (struct exec_periodic *)&a.timer,
						   EXEC_CLOCK_MONOTONIC, 0, 1,
						   0, EXEC_PERIOD_FIXED_RATE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
	tx_finish(fx);
}

/*
 * After cancel_sync returns the item is idle: it ran exactly once if the
 * cancel came too late (0), never if it came in time (1).  Half the rounds
 * cancel at once, half just after the deadline.
 */
static void timer_cancel_sync_racing_expiry_100k_times(struct kunit *test)
{
	unsigned long races = min_t(unsigned long, TX_RACES_MAX,
				    exec_test_stress_tasks() / 100 + 1);
	struct tx_fx *fx = tx_create(test, 2);
	unsigned long i, wrong = 0, cancelled = 0;
	struct tx_item it;
	u64 deadline, spins;
	int ret, runs;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &it, tx_run);
	for (i = 0; i < races; i++) {
		atomic_set(&it.runs, 0);
		deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) +
			   tx_rand_below(fx, 20000);
		ret = exec_submit_at(fx->ex, &it.timer, EXEC_CLOCK_MONOTONIC,
				     deadline);
		if (ret) {
			wrong++;
			break;
		}
		/*
		 * Every other round, cancel after the deadline: a random
		 * while after the clock passed it, or once the item has run,
		 * whichever comes first, so the cancel lands around the
		 * expiry on a fine clock as on a tick-based one.
		 */
		if (i & 1) {
			while (exec_clock_now(EXEC_CLOCK_MONOTONIC) <= deadline)
				cpu_relax();
			for (spins = tx_rand_below(fx, 1000000);
			     spins && !atomic_read(&it.runs); spins--)
				cpu_relax();
		}
		ret = exec_timer_cancel_sync(&it.timer);
		runs = atomic_read(&it.runs);
		if ((ret == 1 && runs != 0) || (ret == 0 && runs != 1) ||
		    exec_work_pending(&it.timer.work))
			wrong++;
		cancelled += ret == 1;
	}
	kunit_info(test, "%lu rounds, %lu cancelled in time", races, cancelled);
	KUNIT_EXPECT_EQ(test, wrong, 0UL);
	/* Both outcomes happened, or the race was not exercised. */
	KUNIT_EXPECT_GT(test, cancelled, 0UL);
	KUNIT_EXPECT_LT(test, cancelled, races);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discards), 0);
	tx_finish(fx);
}

/* Counts a run, not early: a mod may re-arm the item while this runs. */
static void tx_count_run(struct exec_work *work)
{
	tx_of(work)->ran_at = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	exec_test_count(&tx_of(work)->runs);
}

/*
 * A mod that lands as the item starts either moves it (1: it runs once, at
 * the new deadline) or finds it started and arms it again (0: it runs
 * twice), the last run at the new deadline or later: never both, never
 * neither, never a mod lost.  The rounds mod a random while after
 * the first deadline, around the workers' start of the item.
 */
static void timer_mod_racing_start_runs_each_arm_once(struct kunit *test)
{
	unsigned long races = min_t(unsigned long, TX_RACES_MAX / 10,
				    exec_test_stress_tasks() / 1000 + 1);
	struct tx_fx *fx = tx_create(test, 2);
	unsigned long i, wrong = 0, moved = 0;
	u64 deadline, spins, until;
	struct tx_item it;
	int ret, want;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &it, tx_count_run);
	until = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	/*
	 * The rounds asked for, and more while one outcome has not been
	 * seen yet (a slow kernel, KCSAN's, may start every item first for
	 * hundreds of rounds), within the test's timeout.
	 */
	for (i = 0; (i < races || ((!moved || moved == i) &&
				   !exec_test_expired(until))) && !wrong;
	     i++) {
		atomic_set(&it.runs, 0);
		deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) +
			   tx_rand_below(fx, 20000);
		if (exec_submit_at(fx->ex, &it.timer, EXEC_CLOCK_MONOTONIC,
				   deadline)) {
			wrong++;
			break;
		}
		while (exec_clock_now(EXEC_CLOCK_MONOTONIC) <= deadline)
			cpu_relax();
		for (spins = tx_rand_below(fx, 20000);
		     spins && !atomic_read(&it.runs); spins--)
			cpu_relax();
		deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 20000;
		ret = exec_timer_mod(fx->ex, &it.timer, EXEC_CLOCK_MONOTONIC,
				     deadline);
		want = ret == 1 ? 1 : 2;
		if (ret != 0 && ret != 1) {
			wrong++;
			break;
		}
		moved += ret == 1;
		for (spins = 0; atomic_read(&it.runs) < want &&
		     spins < 2000; spins++)
			usleep_range(100, 200);
		/*
		 * Idle again: no run in progress, nothing pending; and the
		 * last run was the new deadline's.
		 */
		if (exec_timer_cancel_sync(&it.timer) != 0 ||
		    atomic_read(&it.runs) != want || it.ran_at < deadline)
			wrong++;
	}
	kunit_info(test, "%lu rounds, %lu moved before the start", i, moved);
	KUNIT_EXPECT_EQ(test, wrong, 0UL);
	/* Both outcomes happened, or the race was not exercised. */
	KUNIT_EXPECT_GT(test, moved, 0UL);
	KUNIT_EXPECT_LT(test, moved, i);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discards), 0);
	tx_finish(fx);
}

static void timer_mod_moves_a_pending_item_and_arms_an_idle_one(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_item it;
	u64 now;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &it, tx_run);
	now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, exec_timer_mod(fx->ex, &it.timer,
					     EXEC_CLOCK_MONOTONIC,
					     now + 3600000 * TX_NS_PER_MS), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_mod(fx->ex, &it.timer,
					     EXEC_CLOCK_MONOTONIC,
					     now + 2 * TX_NS_PER_MS), 1);
	KUNIT_EXPECT_EQ(test, exec_timer_expires(&it.timer),
			now + 2 * TX_NS_PER_MS);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&it.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	KUNIT_EXPECT_GE(test, it.ran_at, now + 2 * TX_NS_PER_MS);
	tx_finish(fx);
}

/*
 * A new loop executor in *@loopp with @it armed on it for a deadline that
 * has passed, so handed to the loop's queue, which nothing runs, and then
 * cancelled there (the cancel returns 1).  Returns the loop's executor.
 */
static struct exec_executor *tx_loop_cancel_due_item(struct kunit *test,
						     struct exec_loop **loopp,
						     struct tx_item *it)
{
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_loop_create(loopp), 0);
	ex = exec_loop_executor(*loopp);
	exec_timer_init(&it->timer, tx_count_run, tx_discard);
	KUNIT_EXPECT_EQ(test, exec_submit_at(ex, &it->timer,
					     EXEC_CLOCK_MONOTONIC, 0), 0);
	/* Due at once: in the loop's queue, not started. */
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&it->timer), 1);
	return ex;
}

/*
 * An item cancelled after it came due still sits in its executor's queue;
 * that arm is over, so a mod arms it anew (0), and it runs once, at the new
 * deadline.  A loop executor holds due items until it is run.
 */
static void timer_mod_rearms_an_item_cancelled_after_it_came_due(struct kunit *test)
{
	struct exec_loop *loop;
	struct exec_executor *ex;
	struct tx_item it = { };
	u64 deadline, timeout;

	ex = tx_loop_cancel_due_item(test, &loop, &it);
	deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 2 * TX_NS_PER_MS;
	KUNIT_EXPECT_EQ(test, exec_timer_mod(ex, &it.timer,
					     EXEC_CLOCK_MONOTONIC, deadline), 0);
	/* The loop dequeues it and files it again, for the new deadline. */
	exec_loop_run_queued_closures(loop);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&it.timer.work));
	timeout = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (exec_work_pending(&it.timer.work) &&
	       !exec_test_expired(timeout)) {
		if (exec_loop_try_run_one_closure(loop) != 1)
			usleep_range(1000, 2000);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&it.runs), 1);
	KUNIT_EXPECT_GE(test, it.ran_at, deadline);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&it.timer), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

/*
 * A destroy counts what it discarded: not an item that a cancel took back
 * after it came due, which the destroy dequeues without a discard
 * callback, as that cancel ended it.
 */
static void timer_destroy_does_not_count_an_item_a_cancel_ended(struct kunit *test)
{
	struct exec_loop *loop;
	struct tx_item it = { };

	tx_loop_cancel_due_item(test, &loop, &it);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), 0);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&it.timer.work));
}

#define TX_REARMS	1000

struct tx_rearm {
	struct exec_executor *ex;
	struct tx_item it;
};

/*
 * Arms and cancels until TX_REARMS arms in a row have been refused: each
 * start of the clock event device takes its lock, and some of them wait
 * for it while shutdown_hard stops the device.
 */
static int tx_rearm_fn(void *arg)
{
	struct tx_rearm *ra = arg;
	unsigned int refused = 0;
	int ret;

	while (refused < TX_REARMS) {
		ret = exec_submit_after(ra->ex, &ra->it.timer,
					3600000 * TX_NS_PER_MS);
		if (!ret) {
			/* Idle again only once the shutdown let it go. */
			exec_timer_cancel_sync(&ra->it.timer);
			continue;
		}
		if (ret != -ESHUTDOWN)
			return ret;
		refused++;
	}
	return -ESHUTDOWN;
}

static bool tx_arm_after_shutdown_round(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct exec_test_thread helper[2];
	struct tx_rearm *ra;
	struct tx_item it;
	unsigned int i;
	bool hung = false;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ra = kunit_kcalloc(test, 2, sizeof(*ra), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ra);
	tx_init(fx, &it, tx_run);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &it.timer,
						3600000 * TX_NS_PER_MS), 0);
	for (i = 0; i < 2; i++) {
		ra[i].ex = fx->ex;
		tx_init(fx, &ra[i].it, tx_run);
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper[i],
							     tx_rearm_fn,
							     &ra[i],
							     "tx-rearm"), 0);
	}
	usleep_range(2000, 3000);
	KUNIT_EXPECT_GE(test, exec_thread_pool_shutdown_hard(fx->pool), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), 1);
	for (i = 0; i < 2; i++) {
		if (!exec_test_thread_join(&helper[i], EXEC_TEST_TIMEOUT_MS)) {
			hung = true;
			continue;
		}
		KUNIT_EXPECT_EQ(test, helper[i].ret, (long)-ESHUTDOWN);
	}
	if (hung) {
		/* A helper holds @fx and @ra: leave them to it. */
		KUNIT_FAIL(test, "an arm after shutdown_hard hangs");
		return false;
	}
	tx_finish(fx);
	return true;
}

/*
 * After shutdown_hard has stopped the pool's clock event device, an arm
 * still goes through the device's start before it finds the pool shut
 * down: it must say -ESHUTDOWN, not hang on what the stop released, from
 * two threads at once too, some of them waiting for the device's lock
 * while the stop holds it.  From helper threads, so that a hang fails the
 * case instead of the run.
 */
static void timer_arm_after_shutdown_hard_is_refused(struct kunit *test)
{
	unsigned int round;

	for (round = 0; round < 10; round++)
		if (!tx_arm_after_shutdown_round(test))
			break;
}

#define TX_RACE_TIMERS	64
#define TX_RACE_ROUNDS	20

struct tx_canceller {
	struct tx_item *items;
	atomic_t *cancels;		/* per item: cancels that returned 1 */
	atomic_t stop;
};

/* Cancels every item, again and again, until told to stop. */
static int tx_canceller_fn(void *arg)
{
	struct tx_canceller *c = arg;
	unsigned int i;

	while (!atomic_read_acquire(&c->stop))
		for (i = 0; i < TX_RACE_TIMERS; i++)
			if (exec_timer_cancel(&c->items[i].timer) == 1)
				exec_test_count(&c->cancels[i]);
	return 0;
}

/*
 * shutdown_hard discards the armed items while another thread cancels them:
 * each arm ends once, by the cancel (which returned 1) or by the discard,
 * and shutdown_hard counts only the discards.
 */
static void timer_cancel_racing_shutdown_ends_each_item_once(struct kunit *test)
{
	struct exec_test_thread helper;
	struct tx_canceller *c;
	struct tx_fx *fx;
	unsigned int round, i;
	long discarded, ended;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->items = kunit_kcalloc(test, TX_RACE_TIMERS, sizeof(*c->items),
				 GFP_KERNEL);
	c->cancels = kunit_kcalloc(test, TX_RACE_TIMERS, sizeof(*c->cancels),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->items);
	KUNIT_ASSERT_NOT_NULL(test, c->cancels);
	for (round = 0; round < TX_RACE_ROUNDS; round++) {
		fx = tx_create(test, 1);
		KUNIT_ASSERT_NOT_NULL(test, fx);
		for (i = 0; i < TX_RACE_TIMERS; i++) {
			tx_init(fx, &c->items[i], tx_run);
			atomic_set(&c->cancels[i], 0);
			KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex,
						&c->items[i].timer,
						3600000 * TX_NS_PER_MS), 0);
		}
		atomic_set(&c->stop, 0);
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper,
							     tx_canceller_fn,
							     c, "tx-cancel"),
				0);
		discarded = exec_thread_pool_shutdown_hard(fx->pool);
		atomic_set_release(&c->stop, 1);
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&helper,
						EXEC_TEST_TIMEOUT_MS));
		ended = 0;
		for (i = 0; i < TX_RACE_TIMERS; i++) {
			KUNIT_EXPECT_EQ(test, atomic_read(&c->cancels[i]) +
					      atomic_read(&c->items[i].discards),
					1);
			ended += atomic_read(&c->items[i].discards);
		}
		KUNIT_EXPECT_EQ(test, discarded, ended);
		tx_finish(fx);
	}
}

struct tx_slow_discard {
	struct exec_timer timer;
	atomic_t in_discard;	/* the discard callback has started */
	atomic_t calling;	/* the test is about to call cancel_sync */
	atomic_t discards;	/* the discard callback has finished */
	int self_cancel;	/* its own cancel_sync's return */
};

static void tx_never_run(struct exec_work *work)
{
}

/* Waits until the test calls cancel_sync, then takes 50 ms more. */
static void tx_slow_discard_fn(struct exec_work *work)
{
	struct tx_slow_discard *sd = container_of(work, struct tx_slow_discard,
						  timer.work);
	int i;

	/* From the callback itself, it cannot wait for the callback. */
	sd->self_cancel = exec_timer_cancel_sync(&sd->timer);
	atomic_set_release(&sd->in_discard, 1);
	for (i = 0; i < 500 && !atomic_read_acquire(&sd->calling); i++)
		msleep(20);
	msleep(50);
	atomic_inc_return(&sd->discards);
}

static int tx_shutdown_hard_fn(void *arg)
{
	exec_thread_pool_shutdown_hard(arg);
	return 0;
}

/*
 * exec_timer_cancel_sync() waits for a discard callback in progress, as it
 * waits for the item's function: the callback may still use the item that
 * the caller of cancel_sync is then free to free.  From the callback
 * itself it returns -EDEADLK.
 */
static void timer_cancel_sync_waits_for_a_discard_callback(struct kunit *test)
{
	struct exec_test_thread helper;
	struct tx_slow_discard *sd;
	struct tx_fx *fx;
	int i, ret;

	sd = kunit_kzalloc(test, sizeof(*sd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sd);
	fx = tx_create(test, 1);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_timer_init(&sd->timer, tx_never_run, tx_slow_discard_fn);
	KUNIT_ASSERT_EQ(test, exec_submit_after(fx->ex, &sd->timer,
						3600000 * TX_NS_PER_MS), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper,
						     tx_shutdown_hard_fn,
						     fx->pool, "tx-shut"), 0);
	for (i = 0; i < 500 && !atomic_read_acquire(&sd->in_discard); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read_acquire(&sd->in_discard), 1);
	atomic_set_release(&sd->calling, 1);
	ret = exec_timer_cancel_sync(&sd->timer);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read_acquire(&sd->discards), 1);
	KUNIT_EXPECT_EQ(test, sd->self_cancel, -EDEADLK);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&helper,
						      EXEC_TEST_TIMEOUT_MS));
	tx_finish(fx);
}

struct tx_gate_item {
	struct exec_work work;
	struct exec_test_gate gate;
};

static void tx_gate_fn(struct exec_work *work)
{
	exec_test_gate_pass(&container_of(work, struct tx_gate_item,
					  work)->gate);
}

static int tx_destroy_fn(void *arg)
{
	return exec_thread_pool_destroy(arg);
}

/*
 * An item due, waiting in a pool's queue behind a blocked worker, moved by
 * exec_timer_mod(), then dequeued by the worker after destroy has shut the
 * pool's timed work down: it cannot be filed on the dead base, and must be
 * discarded rather than lost (pending for ever, on freed memory).
 */
static void timer_moved_item_dequeued_after_shutdown_is_discarded(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_test_thread helper;
	struct tx_gate_item blocker;
	struct exec_executor *ex;
	struct tx_fx fx = { .test = test };
	struct tx_item it;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	exec_work_init(&blocker.work, tx_gate_fn);
	exec_test_gate_init(&blocker.gate);
	tx_init(&fx, &it, tx_run);
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &blocker.work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&blocker.gate, 1));
	/* Past: due at once, queued behind the blocker. */
	KUNIT_EXPECT_EQ(test, exec_submit_at(ex, &it.timer,
					     EXEC_CLOCK_MONOTONIC, 0), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_mod(ex, &it.timer,
					     EXEC_CLOCK_MONOTONIC,
					     exec_clock_now(EXEC_CLOCK_MONOTONIC) +
					     3600000 * TX_NS_PER_MS), 1);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper, tx_destroy_fn,
						     pool, "tx-destroy"), 0);
	/* Let destroy shut the timed work down, then let the worker go. */
	msleep(EXEC_TEST_SETTLE_MS);
	exec_test_gate_open(&blocker.gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, helper.ret, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), 1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&it.timer.work));
}

#define TX_SKIP_ROUNDS		20000
#define TX_REARM_ROUNDS		100

struct tx_spin_cancel {
	struct exec_periodic *p[2];
	atomic_t ones;		/* cancels that returned 1, every caller's */
	atomic_t runs;
	atomic_t discards;
	atomic_t stop;
};

struct tx_spin_item {
	struct exec_periodic p;
	struct tx_spin_cancel *sc;
};

static struct tx_spin_cancel *tx_spin_of(struct exec_work *work)
{
	return container_of(work, struct tx_spin_item, p.timer.work)->sc;
}

static void tx_spin_run(struct exec_work *work)
{
	exec_test_count(&tx_spin_of(work)->runs);
}

static void tx_spin_discard(struct exec_work *work)
{
	exec_test_count(&tx_spin_of(work)->discards);
}

static int tx_spin_cancel_fn(void *arg)
{
	struct tx_spin_cancel *sc = arg;

	while (!atomic_read_acquire(&sc->stop)) {
		if (exec_timer_cancel(&sc->p[0]->timer) == 1)
			exec_test_count(&sc->ones);
		if (exec_timer_cancel(&sc->p[1]->timer) == 1)
			exec_test_count(&sc->ones);
	}
	return 0;
}

static void tx_spin_count(struct tx_spin_cancel *sc, int ret)
{
	if (ret == 1)
		exec_test_count(&sc->ones);
}

/*
 * Each arm of a periodic item is ended by exactly one cancel that returns
 * 1, while another thread cancels it again and again: also when a loop
 * executor dequeues it only to skip it (cancelled after it came due), and
 * when a cancel meets its re-arm after a run on a pool.  No discard.
 */
static void timer_periodic_cancel_counts_once_while_skipped_or_rearmed(struct kunit *test)
{
	struct tx_spin_item *a, *b;
	struct tx_spin_cancel *sc;
	struct exec_test_thread helper;
	struct exec_loop *loop;
	struct tx_fx *fx;
	unsigned int i;
	u64 deadline;

	sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sc && a && b);
	fx = tx_create(test, 2);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	exec_periodic_init(&a->p, tx_spin_run, tx_spin_discard);
	exec_periodic_init(&b->p, tx_spin_run, tx_spin_discard);
	a->sc = sc;
	b->sc = sc;
	sc->p[0] = &a->p;
	sc->p[1] = &b->p;
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper, tx_spin_cancel_fn,
						     sc, "tx-spin"), 0);
	for (i = 0; i < TX_SKIP_ROUNDS; i++) {
		/* Due at once: it waits in the loop's queue. */
		KUNIT_EXPECT_EQ(test, exec_submit_periodic(exec_loop_executor(loop),
							   &a->p,
							   EXEC_CLOCK_MONOTONIC,
							   0, 3600000 * TX_NS_PER_MS,
							   0,
							   EXEC_PERIOD_FIXED_RATE),
				0);
		tx_spin_count(sc, exec_timer_cancel(&a->p.timer));
		exec_loop_try_run_one_closure(loop);
		tx_spin_count(sc, exec_timer_cancel_sync(&a->p.timer));
	}
	for (i = 0; i < TX_REARM_ROUNDS; i++) {
		KUNIT_EXPECT_EQ(test, exec_submit_periodic(fx->ex, &b->p,
							   EXEC_CLOCK_MONOTONIC,
							   0, 20000, 0,
							   EXEC_PERIOD_FIXED_DELAY),
				0);
		deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) +
			   2 * TX_NS_PER_MS;
		while (exec_clock_now(EXEC_CLOCK_MONOTONIC) < deadline &&
		       exec_work_pending(&b->p.timer.work))
			cpu_relax();
		tx_spin_count(sc, exec_timer_cancel_sync(&b->p.timer));
	}
	atomic_set_release(&sc->stop, 1);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&sc->ones),
			TX_SKIP_ROUNDS + TX_REARM_ROUNDS);
	KUNIT_EXPECT_EQ(test, atomic_read(&sc->discards), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	tx_finish(fx);
}

struct tx_periodic {
	struct exec_periodic p;
	struct tx_fx *fx;
	enum exec_period_mode mode;
	unsigned int runs, stop_after;
	u64 first, period, last_end;
	atomic_t errors;
	atomic_t done;
	int cancel_ret;
	bool slow;
};

static void tx_periodic_fn(struct exec_work *work)
{
	struct tx_periodic *tp = container_of(work, struct tx_periodic,
					      p.timer.work);
	u64 now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	u64 expires = exec_timer_expires(&tp->p.timer);

	if (now < expires)
		exec_test_count(&tp->errors);
	if (tp->mode == EXEC_PERIOD_FIXED_RATE) {
		/* Deadline k is first + k * period, skipped ones counted. */
		tp->runs += exec_periodic_overruns(&tp->p);
		if (expires != tp->first + tp->runs * tp->period)
			exec_test_count(&tp->errors);
	} else if (tp->runs && expires < tp->last_end + tp->period) {
		exec_test_count(&tp->errors);
	}
	tp->runs++;
	if (tp->slow)
		msleep(20);
	if (tp->runs >= tp->stop_after && !atomic_read(&tp->done)) {
		tp->cancel_ret = exec_timer_cancel(&tp->p.timer);
		exec_test_count(&tp->done);
	}
	tp->last_end = exec_clock_now(EXEC_CLOCK_MONOTONIC);
}

static void tx_periodic_case(struct kunit *test, enum exec_period_mode mode)
{
	struct tx_fx *fx = tx_create(test, 2);
	struct tx_periodic tp = { .mode = mode, .stop_after = 40 };
	unsigned int runs;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_periodic_init(&tp.p, tx_periodic_fn, NULL);
	tp.period = TX_NS_PER_MS;
	tp.first = exec_clock_now(EXEC_CLOCK_MONOTONIC) + TX_NS_PER_MS;
	KUNIT_EXPECT_EQ(test, exec_submit_periodic(fx->ex, &tp.p,
						   EXEC_CLOCK_MONOTONIC,
						   tp.first, tp.period, 0,
						   mode), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&tp.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&tp.p.timer), 0);
	runs = tp.runs;
	msleep(EXEC_TEST_SETTLE_MS);
	/* Cancelled from its own run: it was not armed again. */
	KUNIT_EXPECT_EQ(test, tp.cancel_ret, 1);
	KUNIT_EXPECT_EQ(test, tp.runs, runs);
	KUNIT_EXPECT_GE(test, tp.runs, tp.stop_after);
	KUNIT_EXPECT_EQ(test, atomic_read(&tp.errors), 0);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&tp.p.timer.work));
	tx_finish(fx);
}

static void timer_periodic_fixed_rate_deadlines_do_not_drift(struct kunit *test)
{
	tx_periodic_case(test, EXEC_PERIOD_FIXED_RATE);
}

static void timer_periodic_fixed_delay_waits_a_period_after_each_run(struct kunit *test)
{
	tx_periodic_case(test, EXEC_PERIOD_FIXED_DELAY);
}

static int tx_cancel_sync_thread(void *arg)
{
	return exec_timer_cancel_sync(arg);
}

/* cancel_sync of a running periodic item waits for the run to end. */
static void timer_cancel_sync_waits_for_a_running_periodic_item(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_periodic tp = { .mode = EXEC_PERIOD_FIXED_DELAY,
				  .stop_after = ~0U, .slow = true };
	struct exec_test_thread canceller;
	unsigned int runs;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_periodic_init(&tp.p, tx_periodic_fn, NULL);
	tp.period = TX_NS_PER_MS;
	KUNIT_EXPECT_EQ(test, exec_submit_periodic(fx->ex, &tp.p,
						   EXEC_CLOCK_MONOTONIC, 0,
						   tp.period, 0,
						   EXEC_PERIOD_FIXED_DELAY), 0);
	msleep(45);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&canceller,
						     tx_cancel_sync_thread,
						     &tp.p.timer,
						     "exec-test-cancel"), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&canceller,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, canceller.ret, 1L);
	runs = tp.runs;
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&tp.p.timer.work));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, tp.runs, runs);
	KUNIT_EXPECT_GE(test, runs, 1U);
	tx_finish(fx);
}

struct tx_self {
	struct exec_timer timer;
	int ret;
	atomic_t done;
};

static void tx_self_cancel_sync(struct exec_work *work)
{
	struct tx_self *s = container_of(work, struct tx_self, timer.work);

	s->ret = exec_timer_cancel_sync(&s->timer);
	exec_test_count(&s->done);
}

static void timer_cancel_sync_from_own_function_edeadlk(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_self s = { };

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_timer_init(&s.timer, tx_self_cancel_sync, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit_after(fx->ex, &s.timer, 0), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&s.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, s.ret, -EDEADLK);
	tx_finish(fx);
}

/*
 * Through the library's realtime offset (the path of a change of the system
 * clock): forward past a deadline runs the item, back makes it wait.
 */
static void timer_realtime_deadline_follows_clock_changes(struct kunit *test)
{
	const s64 hour = 3600LL * 1000 * TX_NS_PER_MS;
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_item fwd, back;
	u64 now;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &fwd, tx_run_real);
	tx_init(fx, &back, tx_run_real);
	now = exec_clock_now(EXEC_CLOCK_REALTIME);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &fwd.timer,
					     EXEC_CLOCK_REALTIME, now + hour),
			0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fwd.runs), 0);
	exec_timer_test_set_realtime_offset(2 * hour);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fwd.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));

	/* Due in 20 ms, then the clock goes back an hour and a half. */
	now = exec_clock_now(EXEC_CLOCK_REALTIME);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &back.timer,
					     EXEC_CLOCK_REALTIME,
					     now + 20 * TX_NS_PER_MS), 0);
	exec_timer_test_set_realtime_offset(hour / 2);
	msleep(4 * EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&back.runs), 0);
	exec_timer_test_set_realtime_offset(2 * hour);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&back.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	exec_timer_test_set_realtime_offset(0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	tx_finish(fx);
}

/*
 * An item armed on the realtime clock after it went back behind the last
 * time the base expired: its deadline is behind the wheel's clock, yet
 * ahead of the new time, so the wheel is filed again from the new time
 * (exec_wheel_rebase()) and the item waits for its deadline rather than
 * run at once; so does one armed before the step, filed again with it.
 */
static void timer_realtime_armed_after_clock_went_back_waits(struct kunit *test)
{
	const s64 hour = 3600LL * 1000 * TX_NS_PER_MS;
	struct tx_fx *fx = tx_create(test, 1);
	struct tx_item first, later, after;
	u64 now;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	tx_init(fx, &first, tx_run_real);
	tx_init(fx, &later, tx_run_real);
	tx_init(fx, &after, tx_run_real);
	/*
	 * An hour ahead, an item runs out of the wheel: the wheel expired
	 * up to that time.
	 */
	exec_timer_test_set_realtime_offset(hour);
	now = exec_clock_now(EXEC_CLOCK_REALTIME);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &first.timer,
					     EXEC_CLOCK_REALTIME,
					     now + TX_NS_PER_MS), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&first.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &later.timer,
					     EXEC_CLOCK_REALTIME,
					     now + 8 * EXEC_TEST_SETTLE_MS *
						   TX_NS_PER_MS), 0);
	/* Back to the system's time: both deadlines are behind the wheel. */
	exec_timer_test_set_realtime_offset(0);
	now = exec_clock_now(EXEC_CLOCK_REALTIME);
	KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &after.timer,
					     EXEC_CLOCK_REALTIME,
					     now + 2 * EXEC_TEST_SETTLE_MS *
						   TX_NS_PER_MS), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&after.runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&later.runs), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&after.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	/* The other is an hour away now. */
	msleep(4 * EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&later.runs), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&later.timer), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	tx_finish(fx);
}

static void tx_ordered(struct exec_work *work)
{
	struct tx_item *it = tx_of(work);

	if (it->seq != it->fx->next_seq)
		exec_test_count(&it->fx->order_errors);
	it->fx->next_seq = it->seq + 1;
	tx_record(it, EXEC_CLOCK_MONOTONIC);
}

/* Items of one serial executor come due and run in deadline order. */
static void timer_serial_runs_due_items_in_deadline_order(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 2);
	struct exec_serial *serial;
	struct tx_item *items;
	unsigned int i;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	items = kcalloc(TX_ORDERED, sizeof(*items), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, items);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, fx->ex), 0);
	/* Far enough ahead that all are armed before the first is due. */
	start = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 500 * TX_NS_PER_MS;
	/* Armed in reverse, deadlines 5 us apart: distinct wheel ticks. */
	for (i = TX_ORDERED; i-- > 0;) {
		tx_init(fx, &items[i], tx_ordered);
		items[i].seq = i;
		KUNIT_EXPECT_EQ(test, exec_submit_at(exec_serial_executor(serial),
						     &items[i].timer,
						     EXEC_CLOCK_MONOTONIC,
						     start + i * 5000ULL), 0);
	}
	KUNIT_EXPECT_LT(test, exec_clock_now(EXEC_CLOCK_MONOTONIC), start);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, TX_ORDERED,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->order_errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	tx_finish(fx);
	kfree(items);
}

/* Destroying an executor discards its armed items, and only its own. */
static void timer_destroy_discards_armed_items(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	struct exec_serial *serial;
	struct tx_item a[4];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, fx->ex), 0);
	for (i = 0; i < 4; i++) {
		tx_init(fx, &a[i], tx_run);
		KUNIT_EXPECT_EQ(test, exec_submit_after(i < 2 ? fx->ex :
							exec_serial_executor(serial),
							&a[i].timer,
							3600000 * TX_NS_PER_MS),
				0);
	}
	KUNIT_EXPECT_EQ(test, exec_pending_count(fx->ex), 2UL);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[2].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[3].discards), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[0].discards), 0);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&a[0].timer.work));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 2L);
	fx->pool = NULL;
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discards), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&a[i].timer.work));
	tx_finish(fx);
}

/* Deadlines within each other's slack share a deadline, none early. */
static void timer_slack_coalesces_close_deadlines(struct kunit *test)
{
	struct tx_fx *fx = tx_create(test, 1);
	u64 start, deadline, distinct = 0, prev = 0;
	struct tx_item *a;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	a = kcalloc(64, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	start = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 5 * TX_NS_PER_MS;
	for (i = 0; i < 64; i++) {
		tx_init(fx, &a[i], tx_run);
		deadline = start + i * 15000ULL;	/* 1 ms in all */
		KUNIT_EXPECT_EQ(test, exec_submit_at_slack(fx->ex, &a[i].timer,
							   EXEC_CLOCK_MONOTONIC,
							   deadline,
							   10 * TX_NS_PER_MS),
				0);
		KUNIT_EXPECT_GE(test, exec_timer_expires(&a[i].timer),
				deadline);
		KUNIT_EXPECT_LE(test, exec_timer_expires(&a[i].timer),
				deadline + 10 * TX_NS_PER_MS);
		if (exec_timer_expires(&a[i].timer) != prev)
			distinct++;
		prev = exec_timer_expires(&a[i].timer);
	}
	/* At most one boundary of the chosen alignment inside 1 ms. */
	KUNIT_EXPECT_LE(test, distinct, 2ULL);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 64,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	tx_finish(fx);
	kfree(a);
}

struct tx_loop {
	struct exec_timer timer;
	struct exec_loop *loop;
	u64 ran_at;
};

static void tx_loop_exit(struct exec_work *work)
{
	struct tx_loop *tl = container_of(work, struct tx_loop, timer.work);

	tl->ran_at = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	exec_loop_make_loop_exit(tl->loop);
}

/* A loop executor's run() sleeps until its timed item is due. */
static void timer_loop_executor_runs_timed_item(struct kunit *test)
{
	struct tx_loop tl = { };
	u64 deadline;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&tl.loop), 0);
	exec_timer_init(&tl.timer, tx_loop_exit, NULL);
	deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 10 * TX_NS_PER_MS;
	KUNIT_EXPECT_EQ(test, exec_submit_at(exec_loop_executor(tl.loop),
					     &tl.timer, EXEC_CLOCK_MONOTONIC,
					     deadline), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run(tl.loop), 0);
	KUNIT_EXPECT_GE(test, tl.ran_at, deadline);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(tl.loop), 0L);
}

/* The timed park of the parker: returns at the deadline, or when unparked. */
static void timer_parker_park_until_deadline(struct kunit *test)
{
	u64 when[EXEC_CLOCK_COUNT] = { 0, EXEC_TIME_NEVER };
	struct exec_parker parker;
	u64 start;

	KUNIT_ASSERT_EQ(test, exec_parker_init(&parker), 0);
	start = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	when[EXEC_CLOCK_MONOTONIC] = start + 5 * TX_NS_PER_MS;
	while (exec_clock_now(EXEC_CLOCK_MONOTONIC) < when[0])
		exec_parker_park_until(&parker, when);
	KUNIT_EXPECT_LT(test, exec_clock_now(EXEC_CLOCK_MONOTONIC) - start,
			(u64)EXEC_TEST_TIMEOUT_MS * TX_NS_PER_MS);
	/* A permit given first ends the park at once. */
	when[EXEC_CLOCK_MONOTONIC] = EXEC_TIME_NEVER;
	when[EXEC_CLOCK_REALTIME] = exec_clock_now(EXEC_CLOCK_REALTIME) +
				    3600000 * TX_NS_PER_MS;
	exec_parker_unpark(&parker);
	exec_parker_park_until(&parker, when);
	exec_parker_destroy(&parker);
}

static struct kunit_case exec_timer_cases[] = {
	KUNIT_CASE(timer_100k_deadlines_over_1ms_to_1s_none_early),
	KUNIT_CASE(timer_past_deadline_and_zero_delay_run_at_once),
	KUNIT_CASE(timer_busy_item_does_not_hold_up_the_next),
	KUNIT_CASE(timer_overflowing_delay_never_fires_and_cancels),
	KUNIT_CASE(timer_bad_input),
	KUNIT_CASE(timer_cancel_sync_racing_expiry_100k_times),
	KUNIT_CASE(timer_mod_moves_a_pending_item_and_arms_an_idle_one),
	KUNIT_CASE(timer_mod_racing_start_runs_each_arm_once),
	KUNIT_CASE(timer_mod_rearms_an_item_cancelled_after_it_came_due),
	KUNIT_CASE(timer_arm_after_shutdown_hard_is_refused),
	KUNIT_CASE(timer_cancel_sync_waits_for_a_discard_callback),
	KUNIT_CASE(timer_cancel_racing_shutdown_ends_each_item_once),
	KUNIT_CASE(timer_periodic_cancel_counts_once_while_skipped_or_rearmed),
	KUNIT_CASE(timer_moved_item_dequeued_after_shutdown_is_discarded),
	KUNIT_CASE(timer_periodic_fixed_rate_deadlines_do_not_drift),
	KUNIT_CASE(timer_periodic_fixed_delay_waits_a_period_after_each_run),
	KUNIT_CASE(timer_cancel_sync_waits_for_a_running_periodic_item),
	KUNIT_CASE(timer_cancel_sync_from_own_function_edeadlk),
	KUNIT_CASE(timer_realtime_deadline_follows_clock_changes),
	KUNIT_CASE(timer_realtime_armed_after_clock_went_back_waits),
	KUNIT_CASE(timer_serial_runs_due_items_in_deadline_order),
	KUNIT_CASE(timer_destroy_discards_armed_items),
	KUNIT_CASE(timer_destroy_does_not_count_an_item_a_cancel_ended),
	KUNIT_CASE(timer_slack_coalesces_close_deadlines),
	KUNIT_CASE(timer_loop_executor_runs_timed_item),
	KUNIT_CASE(timer_parker_park_until_deadline),
	{}
};

static struct kunit_suite exec_timer_suite = {
	.name = "exec-timer",
	.test_cases = exec_timer_cases,
};

kunit_test_suites(&exec_timer_suite);

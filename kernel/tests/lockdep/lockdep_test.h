/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel-only KUnit suite: lockdep sees a wait for items while a lock that
 * an item takes is held, the first time the two orders occur, before they
 * ever meet in a deadlock (Documentation/cancel.rst, "Lockdep").
 *
 * Each case plants the pattern without deadlocking: an item of a pool (of
 * one worker) takes a mutex and returns; then the case holds the mutex
 * around a wait on the pool that has nothing to wait for, or (cancel_sync)
 * around the cancel of that item, queued again behind a gate that keeps it
 * from running.  Lockdep has seen "map, then mutex" in
 * the item and "mutex, then map" in the wait, and reports a circular
 * dependency, after which it turns itself off (debug_locks is 0): what the
 * case checks.  That blinds lockdep for the rest of the boot, so the cases
 * are not in exec_test.ko: each is a module of its own
 * (exec_lockdep_<case>.ko, from a file beside this one that defines
 * LD_CASE), loaded alone in a boot of its own by make check-kernel-lockdep,
 * which fails unless lockdep's report shows in the log.  (Neither a module
 * parameter nor kunit.filter_glob could pick the case: on these kernels
 * KUnit runs a module's suites before its parameters are parsed and does
 * not filter them.)
 */
#ifndef EXEC_LOCKDEP_TEST_H
#define EXEC_LOCKDEP_TEST_H

#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <exec/exec.h>

#include "exec_test.h"

struct ld_fx {
	struct exec_thread_pool *pool;
	/* Taken by @taker on the pool, then held around the case's wait. */
	struct mutex lock;
	struct exec_work taker;
	struct exec_work idle;
	atomic_t taken;
	/* Holds the pool's one worker while the case waits. */
	struct exec_work gated;
	struct exec_test_gate gate;
};

static void ld_taker_fn(struct exec_work *work)
{
	struct ld_fx *fx = container_of(work, struct ld_fx, taker);

	mutex_lock(&fx->lock);
	mutex_unlock(&fx->lock);
	atomic_inc(&fx->taken);
}

static void ld_idle_fn(struct exec_work *work)
{
}

static void ld_gated_fn(struct exec_work *work)
{
	struct ld_fx *fx = container_of(work, struct ld_fx, gated);

	exec_test_gate_pass(&fx->gate);
}

/*
 * A pool whose item has taken @fx->lock once and returned; skips when
 * lockdep is not on (then the boot's check finds no report and fails).
 */
static void ld_setup(struct kunit *test, struct ld_fx *fx)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "the kernel has no CONFIG_PROVE_LOCKING");
	if (!debug_locks)
		kunit_skip(test, "lockdep is off already (an earlier report)");
	mutex_init(&fx->lock);
	exec_work_init(&fx->taker, ld_taker_fn);
	exec_work_init(&fx->idle, ld_idle_fn);
	exec_work_init(&fx->gated, ld_gated_fn);
	exec_test_gate_init(&fx->gate);
	atomic_set(&fx->taken, 0);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx->pool),
					  &fx->taker), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->taken, 1,
							 EXEC_TEST_TIMEOUT_MS));
	/* Lockdep is still on: only the wait below may turn it off. */
	KUNIT_ASSERT_TRUE(test, debug_locks);
}

/*
 * cancel_sync, under the mutex, of the very item that takes it, queued
 * behind a gate that holds the pool's one worker: it cannot run while the
 * mutex is held, and the cancel takes it back without waiting.
 */
static void __maybe_unused ld_cancel_sync_under_lock(struct kunit *test)
{
	struct exec_executor *ex;
	struct ld_fx fx;
	int ret;

	ld_setup(test, &fx);
	ex = exec_thread_pool_executor(fx.pool);
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &fx.gated), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &fx.taker), 0);
	mutex_lock(&fx.lock);
	ret = exec_work_cancel_sync(ex, &fx.taker);
	mutex_unlock(&fx.lock);
	exec_test_gate_open(&fx.gate);
	KUNIT_EXPECT_EQ(test, ret, EXEC_CANCEL_REMOVED);
	/* Its one run is the setup's. */
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.taken), 1);
	KUNIT_EXPECT_FALSE(test, debug_locks);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx.pool), 0L);
}

/* A flush of the pool, empty by now, under the mutex. */
static void __maybe_unused ld_flush_under_lock(struct kunit *test)
{
	struct ld_fx fx;
	int ret;

	ld_setup(test, &fx);
	mutex_lock(&fx.lock);
	ret = exec_executor_flush(exec_thread_pool_executor(fx.pool));
	mutex_unlock(&fx.lock);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, debug_locks);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx.pool), 0L);
}

/* The pool's destroy, which joins its workers, under the mutex. */
static void __maybe_unused ld_destroy_under_lock(struct kunit *test)
{
	struct ld_fx fx;
	long ret;

	ld_setup(test, &fx);
	mutex_lock(&fx.lock);
	ret = exec_thread_pool_destroy(fx.pool);
	mutex_unlock(&fx.lock);
	KUNIT_EXPECT_EQ(test, ret, 0L);
	KUNIT_EXPECT_FALSE(test, debug_locks);
}

/* A group's item that takes the mutex, as @fx->taker does on the pool. */
struct ld_group_item {
	struct exec_group_item item;
	struct ld_fx *fx;
};

static void ld_group_taker_fn(struct exec_group_item *gi)
{
	struct ld_group_item *it = container_of(gi, struct ld_group_item,
						item);

	mutex_lock(&it->fx->lock);
	mutex_unlock(&it->fx->lock);
	atomic_inc(&it->fx->taken);
}

/*
 * A wait for a task group, empty by now, under the mutex that one of its
 * items took: the group's own map (its class its creator's call site),
 * not the pool's.
 */
static void __maybe_unused ld_group_wait_under_lock(struct kunit *test)
{
	struct ld_group_item it = { .fx = NULL };
	struct exec_group *g;
	struct ld_fx fx;
	int ret;

	ld_setup(test, &fx);
	it.fx = &fx;
	KUNIT_ASSERT_EQ(test, exec_group_create(&g), 0);
	exec_group_item_init(&it.item, ld_group_taker_fn, NULL);
	KUNIT_ASSERT_EQ(test, exec_group_submit(g, exec_thread_pool_executor(fx.pool),
						&it.item), 0);
	KUNIT_ASSERT_EQ(test, exec_group_wait(g, EXEC_TIME_NEVER), 0);
	KUNIT_ASSERT_EQ(test, atomic_read(&fx.taken), 2);
	/* Lockdep is still on: only the wait below may turn it off. */
	KUNIT_ASSERT_TRUE(test, debug_locks);
	mutex_lock(&fx.lock);
	ret = exec_group_wait(g, EXEC_TIME_NEVER);
	mutex_unlock(&fx.lock);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, debug_locks);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(g), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx.pool), 0L);
}

/* KUNIT_CASE() names the case after its argument: expand LD_CASE first. */
#define LD_KUNIT_CASE(name)	KUNIT_CASE(name)

/* cancel_sync of a timed item armed on the pool, under the mutex. */
static void __maybe_unused ld_timer_cancel_sync_under_lock(struct kunit *test)
{
	struct exec_timer timer;
	struct ld_fx fx;
	int ret;

	ld_setup(test, &fx);
	exec_timer_init(&timer, ld_idle_fn, NULL);
	/* An hour away: it stays armed until the cancel. */
	KUNIT_ASSERT_EQ(test, exec_submit_after(exec_thread_pool_executor(fx.pool),
						&timer, 3600ULL * NSEC_PER_SEC),
			0);
	mutex_lock(&fx.lock);
	ret = exec_timer_cancel_sync(&timer);
	mutex_unlock(&fx.lock);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_FALSE(test, debug_locks);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx.pool), 0L);
}

static struct kunit_case ld_cases[] = {
	LD_KUNIT_CASE(LD_CASE),
	{}
};

static struct kunit_suite exec_kernel_lockdep_suite = {
	.name = "exec-kernel-lockdep",
	.test_cases = ld_cases,
};

kunit_test_suites(&exec_kernel_lockdep_suite);

MODULE_DESCRIPTION("KUnit: a planted lockdep report of exec.ko's waits");
MODULE_IMPORT_NS(EXEC);
MODULE_LICENSE("Dual MIT/GPL");

#endif /* EXEC_LOCKDEP_TEST_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: a pool's worker out of work spins only while no
 * other task waits for its CPU (core/thread_pool.c, single_task_running()).
 *
 * The pool has one worker, bound to one CPU.  The test thread, on another
 * CPU, submits one item at a time, each once the last one ran and the
 * worker went idle, and samples the pool's @nr_spinning without pause all
 * along.  With a kthread kept runnable on the worker's CPU, the worker is
 * never seen spinning; alone there, it is.  A userspace thread cannot see
 * its CPU's run queue (its single_task_running() answers yes), so the
 * shared suites cannot test this.
 */
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include <kunit/test.h>
#include <exec/exec.h>

#include "pool.h"
#include "exec_test.h"

#define SPIN_ITEMS	200

struct spin_item {
	struct exec_work work;
	atomic_t runs;
};

static void spin_item_fn(struct exec_work *work)
{
	struct spin_item *it = container_of(work, struct spin_item, work);

	/* Release: the sampler reads the worker's state after it. */
	atomic_inc_return_release(&it->runs);
}

/* A task that stays runnable on its CPU until stopped. */
static int spin_hog_fn(void *arg)
{
	while (!kthread_should_stop()) {
		cpu_relax();
		cond_resched();
	}
	return 0;
}

/*
 * Waits for @ran items to have run and the worker to have gone idle;
 * counts in *@seen the waits during which it was seen spinning.
 */
static bool spin_wait_idle(struct exec_thread_pool *pool,
			   struct spin_item *it, int ran, int *seen)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	bool spinning = false;
	unsigned int i = 0;

	while (atomic_read_acquire(&it->runs) < ran ||
	       !atomic_read(&pool->idle.nr_idle)) {
		spinning |= atomic_read(&pool->nr_spinning) > 0;
		if (++i % 4096 == 0) {
			if (exec_test_expired(deadline))
				return false;
			cond_resched();
		}
		cpu_relax();
	}
	*seen += spinning;
	return true;
}

/*
 * Runs SPIN_ITEMS items on a pool whose one worker is bound to a CPU other
 * than the test thread's, with a hog kept runnable on that CPU if @hog;
 * returns in how many of the waits for them the worker was seen spinning,
 * or -1 on a failed assertion (reported through @test).
 */
static int spin_run(struct kunit *test, bool hog)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct task_struct *hog_task = NULL;
	unsigned int here, there;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct spin_item it;
	int i, seen = -1;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	here = cpumask_first(cpu_online_mask);
	there = cpumask_next(here, cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)),
			0);
	attr.thread.cpus = cpumask_bits(cpumask_of(there));
	attr.thread.nr_cpu_bits = nr_cpu_ids;
	exec_work_init(&it.work, spin_item_fn);
	atomic_set(&it.runs, 0);
	if (hog) {
		hog_task = kthread_create(spin_hog_fn, NULL, "exec-spin-hog");
		KUNIT_ASSERT_FALSE(test, IS_ERR(hog_task));
		kthread_bind(hog_task, there);
		wake_up_process(hog_task);
	}
	if (exec_thread_pool_create(&pool, &attr)) {
		KUNIT_FAIL(test, "cannot create the pool");
		goto stop_hog;
	}
	ex = exec_thread_pool_executor(pool);
	seen = 0;
	for (i = 0; i <= SPIN_ITEMS && seen >= 0; i++) {
		if (!spin_wait_idle(pool, &it, i, &seen)) {
			KUNIT_FAIL(test, "item %d not run, or no idle worker", i);
			seen = -1;
		} else if (i < SPIN_ITEMS) {
			KUNIT_EXPECT_EQ(test, exec_submit(ex, &it.work), 0);
		}
	}
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.runs), SPIN_ITEMS);
	kunit_info(test, "%s: seen spinning in %d of %d waits\n",
		   hog ? "with a runnable task" : "alone", seen, SPIN_ITEMS + 1);
stop_hog:
	if (hog_task)
		kthread_stop(hog_task);
	return seen;
}

static void pool_worker_does_not_spin_while_a_task_waits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, spin_run(test, true), 0);
}

/* The control: the same worker alone on its CPU spins before it parks. */
static void pool_worker_spins_alone_on_its_cpu(struct kunit *test)
{
	KUNIT_EXPECT_GT(test, spin_run(test, false), 0);
}

static struct kunit_case exec_spin_cases[] = {
	KUNIT_CASE(pool_worker_does_not_spin_while_a_task_waits),
	KUNIT_CASE(pool_worker_spins_alone_on_its_cpu),
	{}
};

static struct kunit_suite exec_spin_suite = {
	.name = "exec-kernel-spin",
	.test_cases = exec_spin_cases,
};

kunit_test_suites(&exec_spin_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: tearing down with work still queued, as a module
 * that uses exec.ko does in its exit function, and as exec.ko does with its
 * own built-in pool.
 *
 * The semantics are the userspace ones: destroying a serial or loop
 * executor lets the item now running finish and hands the others to their
 * discard callbacks; destroying a thread-per-task executor or a thread pool
 * waits for everything submitted to run.  What the kernel adds: afterwards
 * no kthread of the executors is left (a module whose kthread outlived it
 * would run freed text).  Leftover memory is kmemleak's to find, when the
 * test kernel has it.
 *
 * The unloads themselves are exercised by scripts/kunit-qemu.sh, which
 * removes the modules in reverse order after the suites ran: exec_example.ko
 * with its timer still deferring work, exec_test.ko, then exec.ko with its
 * built-in pool; it fails on any warning, KASAN report or module left
 * loaded.  (A KUnit module cannot unload the module it depends on.)
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"
#include "exec_kunit.h"

#define UL_POOL_NAME	"exec-unload"
#define UL_TPT_NAME	"exec-task"
#define UL_POOL_THREADS	3
#define UL_POOL_GATED	2	/* + the serial executor's first item */
#define UL_POOL_ITEMS	32
#define UL_SERIAL_ITEMS	16
#define UL_LOOP_ITEMS	8
#define UL_TPT_ITEMS	4

struct ul_fx;

struct ul_item {
	struct exec_work work;
	struct ul_fx *fx;
	atomic_t runs;
	atomic_t discards;
};

struct ul_fx {
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_loop *loop;
	struct exec_thread_per_task *tpt;
	struct exec_test_gate gate;
	struct exec_test_thread helper;
	bool torn_down;

	long serial_discarded;
	long loop_discarded;
	int tpt_ret;
	int pool_ret;

	struct ul_item gated[UL_POOL_GATED];
	struct ul_item pool_items[UL_POOL_ITEMS];
	struct ul_item serial_items[UL_SERIAL_ITEMS];
	struct ul_item loop_items[UL_LOOP_ITEMS];
	struct ul_item tpt_items[UL_TPT_ITEMS];
};

static void ul_run(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct ul_item, work)->runs);
}

static void ul_run_gated(struct exec_work *work)
{
	struct ul_item *it = container_of(work, struct ul_item, work);

	exec_test_gate_pass(&it->fx->gate);
	exec_test_count(&it->runs);
}

static void ul_discard(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct ul_item, work)->discards);
}

static void ul_init_items(struct ul_fx *fx, struct ul_item *items,
			  unsigned int nr, exec_work_fn fn)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		items[i].fx = fx;
		exec_work_init_discard(&items[i].work, fn, ul_discard);
	}
}

/* The exit function of a module: serial, loop, thread-per-task, pool. */
static int ul_teardown(void *arg)
{
	struct ul_fx *fx = arg;

	fx->serial_discarded = exec_serial_destroy(fx->serial);
	fx->loop_discarded = exec_loop_destroy(fx->loop);
	fx->tpt_ret = exec_thread_per_task_destroy(fx->tpt);
	fx->pool_ret = exec_thread_pool_destroy(fx->pool);
	return 0;
}

static int ul_init(struct kunit *test)
{
	struct ul_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);

	if (!fx)
		return -ENOMEM;
	exec_test_gate_init(&fx->gate);
	ul_init_items(fx, fx->gated, UL_POOL_GATED, ul_run_gated);
	ul_init_items(fx, fx->pool_items, UL_POOL_ITEMS, ul_run);
	ul_init_items(fx, fx->serial_items, UL_SERIAL_ITEMS, ul_run);
	fx->serial_items[0].work.func = ul_run_gated;
	ul_init_items(fx, fx->loop_items, UL_LOOP_ITEMS, ul_run);
	ul_init_items(fx, fx->tpt_items, UL_TPT_ITEMS, ul_run_gated);
	test->priv = fx;
	return 0;
}

static void ul_exit(struct kunit *test)
{
	struct ul_fx *fx = test->priv;

	exec_test_gate_open(&fx->gate);
	if (fx->helper.started) {
		/* Leak rather than free what the teardown may still use. */
		exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS);
		return;
	}
	if (fx->torn_down)
		return;
	if (fx->serial)
		exec_serial_destroy(fx->serial);
	if (fx->loop)
		exec_loop_destroy(fx->loop);
	if (fx->tpt)
		exec_thread_per_task_destroy(fx->tpt);
	if (fx->pool)
		exec_thread_pool_destroy(fx->pool);
}

static void ul_submit_all(struct kunit *test, struct exec_executor *ex,
			  struct ul_item *items, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		KUNIT_ASSERT_EQ(test, exec_submit(ex, &items[i].work), 0);
}

static void ul_expect(struct kunit *test, struct ul_item *items,
		      unsigned int nr, int runs, int discards)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&items[i].runs), runs,
				    "item %u", i);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&items[i].discards),
				    discards, "item %u", i);
	}
}

static void ul_pending_work_at_teardown(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = UL_POOL_THREADS,
		.thread.name = UL_POOL_NAME,
	};
	struct ul_fx *fx = test->priv;
	struct exec_executor *pool_ex;

	KUNIT_ASSERT_TRUE(test, exec_kunit_wait_no_tasks(UL_TPT_NAME,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
	pool_ex = exec_thread_pool_executor(fx->pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial, pool_ex), 0);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&fx->loop), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&fx->tpt), 0);
	KUNIT_EXPECT_EQ(test, exec_kunit_count_tasks(UL_POOL_NAME),
			UL_POOL_THREADS);

	/* Every pool worker blocked: two pool items, one serial item. */
	ul_submit_all(test, pool_ex, fx->gated, UL_POOL_GATED);
	ul_submit_all(test, exec_serial_executor(fx->serial), fx->serial_items,
		      UL_SERIAL_ITEMS);
	ul_submit_all(test, exec_thread_per_task_executor(fx->tpt),
		      fx->tpt_items, UL_TPT_ITEMS);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate,
							UL_POOL_THREADS +
							UL_TPT_ITEMS));
	/* Queued behind them, and on a loop that never runs. */
	ul_submit_all(test, pool_ex, fx->pool_items, UL_POOL_ITEMS);
	ul_submit_all(test, exec_loop_executor(fx->loop), fx->loop_items,
		      UL_LOOP_ITEMS);
	KUNIT_EXPECT_EQ(test, exec_pending_count(pool_ex),
			(unsigned long)UL_POOL_ITEMS);

	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper, ul_teardown,
						     fx, "exec-ul-exit"), 0);
	/* The serial executor's running item holds its destroy back. */
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&fx->helper));
	exec_test_gate_open(&fx->gate);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	fx->torn_down = true;

	KUNIT_EXPECT_EQ(test, fx->serial_discarded, (long)UL_SERIAL_ITEMS - 1);
	KUNIT_EXPECT_EQ(test, fx->loop_discarded, (long)UL_LOOP_ITEMS);
	KUNIT_EXPECT_EQ(test, fx->tpt_ret, 0);
	KUNIT_EXPECT_EQ(test, fx->pool_ret, 0);
	ul_expect(test, fx->gated, UL_POOL_GATED, 1, 0);
	ul_expect(test, fx->pool_items, UL_POOL_ITEMS, 1, 0);
	ul_expect(test, fx->serial_items, 1, 1, 0);
	ul_expect(test, fx->serial_items + 1, UL_SERIAL_ITEMS - 1, 0, 1);
	ul_expect(test, fx->loop_items, UL_LOOP_ITEMS, 0, 1);
	ul_expect(test, fx->tpt_items, UL_TPT_ITEMS, 1, 0);

	/* Nothing left running: no worker, no per-task thread. */
	KUNIT_EXPECT_TRUE(test, exec_kunit_wait_no_tasks(UL_POOL_NAME,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, exec_kunit_wait_no_tasks(UL_TPT_NAME,
							 EXEC_TEST_TIMEOUT_MS));
}

/* A pool whose items are all still queued: destroy runs every one. */
static void ul_pool_destroy_runs_queue(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1,
		.thread.name = UL_POOL_NAME,
	};
	struct ul_fx *fx = test->priv;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
	ex = exec_thread_pool_executor(fx->pool);
	ul_submit_all(test, ex, fx->gated, 1);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	ul_submit_all(test, ex, fx->pool_items, UL_POOL_ITEMS);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0);
	fx->pool = NULL;
	ul_expect(test, fx->gated, 1, 1, 0);
	ul_expect(test, fx->pool_items, UL_POOL_ITEMS, 1, 0);
	KUNIT_EXPECT_TRUE(test, exec_kunit_wait_no_tasks(UL_POOL_NAME,
							 EXEC_TEST_TIMEOUT_MS));
}

static struct kunit_case ul_cases[] = {
	KUNIT_CASE(ul_pending_work_at_teardown),
	KUNIT_CASE(ul_pool_destroy_runs_queue),
	{}
};

static struct kunit_suite exec_kernel_unload_suite = {
	.name = "exec-kernel-unload",
	.init = ul_init,
	.exit = ul_exit,
	.test_cases = ul_cases,
};

kunit_test_suites(&exec_kernel_unload_suite);

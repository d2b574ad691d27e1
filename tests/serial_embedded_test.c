// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A serial executor as cheap as the connection it serves
 * (include/exec/serial.h): its size, exec_serial_init() in the caller's
 * memory with no allocation, a destroy after which that memory may go at
 * once (the runner taken back from the underlying executor, or waited
 * for), and the limit of queued items.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

#define SE_ITEMS	100
#define SE_ROUNDS	200

struct se_item {
	struct exec_work work;
	struct se_fx *fx;
	unsigned int seq;
};

struct se_fx {
	struct exec_test_gate gate;
	bool use_gate;
	atomic_t ran;
	atomic_t discarded;
	/* written by the serialised items only */
	unsigned int next_seq;
	unsigned int order_errors;
	struct se_item items[SE_ITEMS];
};

static void se_item_fn(struct exec_work *work)
{
	struct se_item *it = container_of(work, struct se_item, work);
	struct se_fx *fx = it->fx;

	if (fx->use_gate && it->seq == 0)
		exec_test_gate_pass(&fx->gate);
	if (it->seq != fx->next_seq)
		fx->order_errors++;
	fx->next_seq = it->seq + 1;
	exec_test_count(&fx->ran);
}

static void se_item_discard(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct se_item, work)->fx->discarded);
}

static void se_fx_init(struct se_fx *fx)
{
	unsigned int i;

	memset(fx, 0, sizeof(*fx));
	exec_test_gate_init(&fx->gate);
	for (i = 0; i < SE_ITEMS; i++) {
		exec_work_init_discard(&fx->items[i].work, se_item_fn,
				       se_item_discard);
		fx->items[i].fx = fx;
		fx->items[i].seq = i;
	}
}

static struct exec_thread_pool *se_pool(struct kunit *test,
					unsigned int nr_threads)
{
	struct exec_thread_pool_attr attr = { .nr_threads = nr_threads };
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	return pool;
}

/* What a connection can afford: sixteen words, everything included. */
static void serial_fits_a_connection(struct kunit *test)
{
	KUNIT_EXPECT_LE(test, sizeof(struct exec_serial),
			16 * sizeof(void *));
}

/*
 * exec_serial_init() on the caller's memory: the items run in order, and
 * neither the set-up, the runs nor the destroy allocates (the core's fault
 * point, armed to fail the next allocation, never fires).
 */
static void serial_init_runs_in_order_allocating_nothing(struct kunit *test)
{
	struct exec_thread_pool *pool = se_pool(test, 2);
	struct exec_serial serial;
	struct exec_executor *ex;
	struct se_fx *fx;
	unsigned int i;

	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	se_fx_init(fx);
	exec_fault_inject_alloc(0);
	KUNIT_ASSERT_EQ(test, exec_serial_init(&serial,
				exec_thread_pool_executor(pool)), 0);
	ex = exec_serial_executor(&serial);
	for (i = 0; i < SE_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->ran, SE_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(&serial), 0L);
	KUNIT_EXPECT_FALSE(test, exec_fault_alloc_fired());
	exec_fault_inject_alloc(-1);
	KUNIT_EXPECT_EQ(test, fx->order_errors, 0U);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	kfree(fx);
}

static void serial_init_null_args_einval(struct kunit *test)
{
	struct exec_thread_pool *pool = se_pool(test, 1);
	struct exec_serial serial;

	KUNIT_EXPECT_EQ(test, exec_serial_init(NULL,
				exec_thread_pool_executor(pool)), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_serial_init(&serial, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/*
 * The strand's runner waits in the pool's queue behind a blocked item when
 * the strand is destroyed: destroy takes it back and returns at once, with
 * the strand's item discarded, and the memory is freed before the pool
 * gets to where the runner was (KASAN and ASan watch it).
 */
static void serial_init_destroy_takes_back_a_queued_runner(struct kunit *test)
{
	struct exec_thread_pool *pool = se_pool(test, 1);
	struct exec_executor *pool_ex = exec_thread_pool_executor(pool);
	struct exec_serial *serial;
	struct se_fx *blocker, *fx;

	blocker = kzalloc(sizeof(*blocker), GFP_KERNEL);
	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	serial = kzalloc(sizeof(*serial), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, blocker && fx && serial);
	se_fx_init(blocker);
	se_fx_init(fx);
	blocker->use_gate = true;
	KUNIT_ASSERT_EQ(test, exec_submit(pool_ex, &blocker->items[0].work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&blocker->gate, 1));

	KUNIT_ASSERT_EQ(test, exec_serial_init(serial, pool_ex), 0);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_serial_executor(serial),
					  &fx->items[0].work), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->discarded), 1);
	memset(serial, 0x6b, sizeof(*serial));
	kfree(serial);

	exec_test_gate_open(&blocker->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&blocker->ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->ran), 0);
	kfree(fx);
	kfree(blocker);
}

/*
 * Destroyed as soon as its items have run, while its runner lingers or is
 * about to (a run that took several items and emptied the queue posts it
 * once more): each round's memory is poisoned and freed at once, and the
 * pool runs on.  No round discards anything.
 */
static void serial_init_destroy_while_runner_lingers(struct kunit *test)
{
	struct exec_thread_pool *pool = se_pool(test, 2);
	struct exec_serial *serial;
	struct exec_executor *ex;
	unsigned int round, i;
	struct se_fx *fx;

	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (round = 0; round < SE_ROUNDS; round++) {
		se_fx_init(fx);
		serial = kmalloc(sizeof(*serial), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, serial);
		KUNIT_ASSERT_EQ(test, exec_serial_init(serial,
					exec_thread_pool_executor(pool)), 0);
		ex = exec_serial_executor(serial);
		for (i = 0; i < 3; i++)
			KUNIT_ASSERT_EQ(test,
					exec_submit(ex, &fx->items[i].work), 0);
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->ran, 3,
						EXEC_TEST_TIMEOUT_MS));
		KUNIT_ASSERT_EQ(test, exec_serial_destroy(serial), 0L);
		memset(serial, 0x6b, sizeof(*serial));
		kfree(serial);
		KUNIT_ASSERT_EQ(test, fx->order_errors, 0U);
	}
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	kfree(fx);
}

/*
 * A strand holds at most 2^27 items: past that, a submission is refused
 * with -ENOSPC and counted as refused (the first refusal makes the
 * strand's record); below it again, it is taken.
 */
static void serial_queue_limit_enospc(struct kunit *test)
{
	struct exec_thread_pool *pool = se_pool(test, 1);
	struct exec_serial serial;
	struct exec_executor *ex;
	struct exec_stats st;
	struct se_fx *fx;

	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	se_fx_init(fx);
	KUNIT_ASSERT_EQ(test, exec_serial_init(&serial,
				exec_thread_pool_executor(pool)), 0);
	ex = exec_serial_executor(&serial);
	exec_serial_test_add_queued(&serial, 1 << 27);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[0].work), -ENOSPC);
	KUNIT_EXPECT_EQ(test, exec_post(ex, &fx->items[0].work), -ENOSPC);
	exec_serial_test_add_queued(&serial, -(1 << 27));
	KUNIT_EXPECT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.refused, 2ULL);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(&serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	kfree(fx);
}

static struct kunit_case exec_serial_embedded_cases[] = {
	KUNIT_CASE(serial_fits_a_connection),
	KUNIT_CASE(serial_init_runs_in_order_allocating_nothing),
	KUNIT_CASE(serial_init_null_args_einval),
	KUNIT_CASE(serial_init_destroy_takes_back_a_queued_runner),
	KUNIT_CASE(serial_init_destroy_while_runner_lingers),
	KUNIT_CASE(serial_queue_limit_enospc),
	{}
};

static struct kunit_suite exec_serial_embedded_suite = {
	.name = "exec-serial-embedded",
	.test_cases = exec_serial_embedded_cases,
};

kunit_test_suite(exec_serial_embedded_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The serial executor (include/exec/serial.h): FIFO order, one item at a
 * time, completion of one before the start of the next, stacking over
 * another serial executor and over a loop executor, destroy (discards,
 * -EDEADLK), underlying(), argument checks, running_in_this_thread.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define SX_ITEMS	2000
#define SX_WORDS	8

struct serial_fx;

struct sw {
	struct exec_work work;
	struct serial_fx *fx;
	struct exec_serial *serial;	/* the executor it was submitted to */
	unsigned int seq;
	atomic_t runs;
	atomic_t discards;
	long ret;
	bool in_serial;
	bool in_other;
};

struct serial_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_serial *other;
	struct exec_loop *loop;
	struct exec_test_gate gate;
	atomic_t inside;		/* items running now */
	atomic_t overlaps;		/* times inside went above 1 */
	atomic_t total_runs;
	atomic_t total_discards;
	atomic_t order_errors;
	atomic_t hb_errors;
	/* items of two serial executors run at once: check only where */
	bool only_where;
	/* touched only by the serialised items: plain on purpose */
	unsigned int next_seq;
	unsigned int other_next_seq;
	unsigned long record[SX_WORDS];
	struct exec_test_thread helper;
	struct sw items[SX_ITEMS];
};

static struct serial_fx *sfx_create(struct kunit *test, unsigned int threads)
{
	struct exec_thread_pool_attr attr = { .nr_threads = threads };
	struct serial_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int ret;

	if (!fx)
		return NULL;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	if (threads) {
		ret = exec_thread_pool_create(&fx->pool, &attr);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (ret) {
			kfree(fx);
			return NULL;
		}
	}
	return fx;
}

/* The serial executor under test, over the fixture's pool. */
static int sfx_add_serial(struct serial_fx *fx)
{
	int ret = exec_serial_create(&fx->serial,
				     exec_thread_pool_executor(fx->pool));

	if (ret)
		KUNIT_FAIL(fx->test, "exec_serial_create failed: %d", ret);
	return ret;
}

static void sfx_finish(struct serial_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(fx->test, "helper thread hangs; leaking everything");
		return;
	}
	if (fx->other)
		KUNIT_EXPECT_GE(fx->test, exec_serial_destroy(fx->other), 0L);
	if (fx->serial)
		KUNIT_EXPECT_GE(fx->test, exec_serial_destroy(fx->serial), 0L);
	if (fx->pool)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool), 0);
	if (fx->loop)
		KUNIT_EXPECT_GE(fx->test, exec_loop_destroy(fx->loop), 0L);
	kfree(fx);
}

static void sw_enter(struct serial_fx *fx)
{
	if (atomic_inc_return(&fx->inside) != 1)
		exec_test_count(&fx->overlaps);
}

static void sw_leave(struct serial_fx *fx)
{
	atomic_dec_return(&fx->inside);
}

/*
 * The checking item: checks it is next in order, that it runs alone, and
 * that it sees everything its predecessor wrote (plain stores, so that
 * ThreadSanitizer also reports a missing happens-before).
 */
static void sw_func(struct exec_work *work)
{
	struct sw *w = container_of(work, struct sw, work);
	struct serial_fx *fx = w->fx;
	unsigned int i;

	if (fx->only_where) {
		w->in_serial = exec_serial_running_in_this_thread(fx->serial);
		w->in_other = exec_serial_running_in_this_thread(fx->other);
		goto out;
	}
	sw_enter(fx);
	if (w->serial == fx->serial) {
		if (fx->next_seq != w->seq)
			exec_test_count(&fx->order_errors);
		fx->next_seq = w->seq + 1;
	} else {
		if (fx->other_next_seq != w->seq)
			exec_test_count(&fx->order_errors);
		fx->other_next_seq = w->seq + 1;
	}
	for (i = 0; i < SX_WORDS; i++)
		if (fx->record[i] != fx->record[0])
			exec_test_count(&fx->hb_errors);
	/* Widen the window in which a second item could sneak in. */
	if ((w->seq & 63) == 0)
		cond_resched();
	for (i = 0; i < SX_WORDS; i++)
		fx->record[i] = (unsigned long)w;
	w->in_serial = exec_serial_running_in_this_thread(fx->serial);
	if (fx->other)
		w->in_other = exec_serial_running_in_this_thread(fx->other);
	sw_leave(fx);
out:
	exec_test_count(&w->runs);
	exec_test_count(&fx->total_runs);
}

static void sw_discard(struct exec_work *work)
{
	struct sw *w = container_of(work, struct sw, work);

	exec_test_count(&w->discards);
	exec_test_count(&w->fx->total_discards);
}

static void sw_block_func(struct exec_work *work)
{
	struct sw *w = container_of(work, struct sw, work);

	exec_test_gate_pass(&w->fx->gate);
	exec_test_count(&w->runs);
}

static void sw_prepare(struct serial_fx *fx, unsigned int first,
		       unsigned int n, struct exec_serial *serial)
{
	unsigned int i;

	for (i = first; i < first + n; i++) {
		exec_work_init_discard(&fx->items[i].work, sw_func, sw_discard);
		fx->items[i].fx = fx;
		fx->items[i].serial = serial;
	}
}

static unsigned int sw_wrong_runs(struct serial_fx *fx, unsigned int first,
				  unsigned int n)
{
	unsigned int i, wrong = 0;

	for (i = first; i < first + n; i++)
		wrong += atomic_read(&fx->items[i].runs) != 1;
	return wrong;
}

static void serial_runs_items_in_fifo_order(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 4);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (sfx_add_serial(fx))
		goto out;
	ex = exec_serial_executor(fx->serial);
	sw_prepare(fx, 0, SX_ITEMS, fx->serial);
	for (i = 0; i < SX_ITEMS; i++) {
		fx->items[i].seq = i;
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 SX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->order_errors), 0);
	KUNIT_EXPECT_EQ(test, sw_wrong_runs(fx, 0, SX_ITEMS), 0U);
out:
	sfx_finish(fx);
}

struct sx_producer {
	struct serial_fx *fx;
	unsigned int first;
	unsigned int n;
	atomic_t errors;
};

static int sx_produce(void *arg)
{
	struct sx_producer *p = arg;
	struct exec_executor *ex = exec_serial_executor(p->fx->serial);
	unsigned int i;

	for (i = p->first; i < p->first + p->n; i++)
		if (exec_submit(ex, &p->fx->items[i].work))
			exec_test_count(&p->errors);
	return 0;
}

/* Submitters on several threads, workers on several threads: still one. */
static void serial_never_runs_two_items_at_once(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 4);
	struct sx_producer *p;
	struct exec_test_thread *t;
	unsigned int i, half = SX_ITEMS / 2;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!p || !t ||
	    exec_serial_create(&fx->serial, exec_thread_pool_executor(fx->pool))) {
		KUNIT_FAIL(test, "setup failed");
		goto out;
	}
	sw_prepare(fx, 0, SX_ITEMS, fx->serial);
	/* Order is unknown across submitters: seq is only counted here. */
	for (i = 0; i < SX_ITEMS; i++)
		fx->items[i].seq = 0;
	p->fx = fx;
	p->first = half;
	p->n = SX_ITEMS - half;
	atomic_set(&p->errors, 0);
	if (exec_test_thread_start(t, sx_produce, p, "exec-test-prod")) {
		KUNIT_FAIL(test, "cannot start a producer");
		goto out;
	}
	for (i = 0; i < half; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(exec_serial_executor(fx->serial),
						  &fx->items[i].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(t, EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->errors), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 SX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, sw_wrong_runs(fx, 0, SX_ITEMS), 0U);
out:
	sfx_finish(fx);
}

static void serial_completion_happens_before_next_start(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 4);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (sfx_add_serial(fx))
		goto out;
	ex = exec_serial_executor(fx->serial);
	sw_prepare(fx, 0, SX_ITEMS, fx->serial);
	for (i = 0; i < SX_ITEMS; i++) {
		fx->items[i].seq = i;
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
		/* Let the serial executor drain and restart now and then. */
		if ((i & 255) == 255)
			msleep(1);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 SX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->hb_errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->order_errors), 0);
out:
	sfx_finish(fx);
}

/*
 * Serial A over serial B over a pool: A keeps FIFO, and since A's items run
 * inside B's, no item of A ever overlaps an item submitted to B directly.
 */
static void serial_over_serial_keeps_order_and_exclusion(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 4);
	struct exec_executor *a, *b;
	unsigned int i, na = 0, nb = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (exec_serial_create(&fx->other, exec_thread_pool_executor(fx->pool)) ||
	    exec_serial_create(&fx->serial, exec_serial_executor(fx->other))) {
		KUNIT_FAIL(test, "exec_serial_create failed");
		goto out;
	}
	KUNIT_EXPECT_PTR_EQ(test, exec_serial_underlying(fx->serial),
			    exec_serial_executor(fx->other));
	a = exec_serial_executor(fx->serial);
	b = exec_serial_executor(fx->other);
	for (i = 0; i < SX_ITEMS; i++) {
		bool to_a = i % 3 != 0;

		sw_prepare(fx, i, 1, to_a ? fx->serial : fx->other);
		fx->items[i].seq = to_a ? na++ : nb++;
		KUNIT_EXPECT_EQ(test, exec_submit(to_a ? a : b,
						  &fx->items[i].work), 0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs,
							 SX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->order_errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, sw_wrong_runs(fx, 0, SX_ITEMS), 0U);
	/* An item of A also runs inside an item of B. */
	KUNIT_EXPECT_TRUE(test, fx->items[1].in_serial);
	KUNIT_EXPECT_TRUE(test, fx->items[1].in_other);
	KUNIT_EXPECT_FALSE(test, fx->items[0].in_serial);
	KUNIT_EXPECT_TRUE(test, fx->items[0].in_other);
	/* Destroy the upper one first: B must outlive A. */
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(fx->serial), 0L);
	fx->serial = NULL;
out:
	sfx_finish(fx);
}

/* Nothing runs until the loop is driven, then in order on the driver. */
static void serial_over_loop_runs_when_loop_runs(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 0);
	struct exec_executor *ex;
	unsigned int i, spins = 0;
	u64 deadline;
	long ran;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (exec_loop_create(&fx->loop) ||
	    exec_serial_create(&fx->serial, exec_loop_executor(fx->loop))) {
		KUNIT_FAIL(test, "setup failed");
		goto out;
	}
	ex = exec_serial_executor(fx->serial);
	sw_prepare(fx, 0, 100, fx->serial);
	for (i = 0; i < 100; i++) {
		fx->items[i].seq = i;
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	}
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 100UL);
	msleep(10);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	/* The serial executor may batch: drive the loop until all ran. */
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (atomic_read(&fx->total_runs) < 100 &&
	       !exec_test_expired(deadline)) {
		ran = exec_loop_run_queued_closures(fx->loop);
		KUNIT_EXPECT_GE(test, ran, 0L);
		if (ran <= 0)
			exec_test_relax(&spins);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->order_errors), 0);
	KUNIT_EXPECT_EQ(test, sw_wrong_runs(fx, 0, 100), 0U);
	KUNIT_EXPECT_TRUE(test, fx->items[99].in_serial);
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(fx->serial), 0L);
	fx->serial = NULL;
out:
	sfx_finish(fx);
}

static int helper_serial_destroy(void *arg)
{
	struct serial_fx *fx = arg;

	fx->items[0].ret = exec_serial_destroy(fx->serial);
	/* Read after destroy returned: did the running item finish before? */
	fx->items[1].ret = atomic_read(&fx->items[0].runs);
	return 0;
}

/*
 * One item running (held at the gate), five queued with a discard callback
 * and two without.  Destroy lets the running one finish, then discards the
 * seven and returns 7.
 */
static void serial_destroy_discards_queued_after_running_one_finishes(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 2);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (sfx_add_serial(fx))
		goto out;
	ex = exec_serial_executor(fx->serial);
	sw_prepare(fx, 0, 8, fx->serial);
	fx->items[0].work.func = sw_block_func;
	for (i = 6; i < 8; i++)
		fx->items[i].work.discard = NULL;
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	if (!exec_test_gate_wait_for(&fx->gate, 1)) {
		KUNIT_FAIL(test, "the first item never started");
		goto out;
	}
	/*
	 * Seven wait.  The count is only promised to be approximate, and a
	 * serial executor that takes items in batches may still count the
	 * running one; more or fewer than that would be wrong.
	 */
	KUNIT_EXPECT_GE(test, exec_pending_count(ex), 7UL);
	KUNIT_EXPECT_LE(test, exec_pending_count(ex), 8UL);
	if (exec_test_thread_start(&fx->helper, helper_serial_destroy, fx,
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
	fx->serial = NULL;
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, 7L);
	KUNIT_EXPECT_EQ(test, fx->items[1].ret, 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_discards), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->total_runs), 0);
	for (i = 1; i < 6; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards), 1);
	for (i = 1; i < 8; i++)
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[i].work));
out:
	sfx_finish(fx);
}

static void serial_destroy_idle_returns_zero(struct kunit *test)
{
	struct exec_serial *serial;
	struct exec_loop *loop;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
						 exec_loop_executor(loop)), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static void sw_destroy_own_func(struct exec_work *work)
{
	struct sw *w = container_of(work, struct sw, work);

	w->ret = exec_serial_destroy(w->fx->serial);
	exec_test_count(&w->runs);
}

static void serial_destroy_from_own_item_edeadlk(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 2);
	struct exec_executor *ex;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (sfx_add_serial(fx))
		goto out;
	ex = exec_serial_executor(fx->serial);
	sw_prepare(fx, 0, 2, fx->serial);
	fx->items[0].work.func = sw_destroy_own_func;
	fx->items[1].seq = 0;
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[0].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, (long)-EDEADLK);
	/* Nothing was done: it still runs work. */
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[1].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[1].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
out:
	sfx_finish(fx);
}

static void serial_underlying_returns_given_executor(struct kunit *test)
{
	struct exec_serial *serial;
	struct exec_loop *loop;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
						 exec_loop_executor(loop)), 0);
	KUNIT_EXPECT_PTR_EQ(test, exec_serial_underlying(serial),
			    exec_loop_executor(loop));
	KUNIT_EXPECT_PTR_NE(test, exec_serial_executor(serial),
			    exec_loop_executor(loop));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static void serial_create_null_args_einval(struct kunit *test)
{
	struct exec_serial *serial = NULL;
	struct exec_loop *loop;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_create(NULL, exec_loop_executor(loop)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_serial_create(&serial, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(NULL), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static void serial_running_in_this_thread_only_inside_its_items(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 2);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (exec_serial_create(&fx->serial, exec_thread_pool_executor(fx->pool)) ||
	    exec_serial_create(&fx->other, exec_thread_pool_executor(fx->pool))) {
		KUNIT_FAIL(test, "exec_serial_create failed");
		goto out;
	}
	KUNIT_EXPECT_FALSE(test, exec_serial_running_in_this_thread(fx->serial));
	fx->only_where = true;
	/* Items 0..9 on serial, 10..19 on other, both over the same pool. */
	sw_prepare(fx, 0, 10, fx->serial);
	sw_prepare(fx, 10, 10, fx->other);
	for (i = 0; i < 20; i++) {
		fx->items[i].seq = i % 10;
		KUNIT_EXPECT_EQ(test, exec_submit(exec_serial_executor(fx->items[i].serial),
						  &fx->items[i].work), 0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 20,
							 EXEC_TEST_TIMEOUT_MS));
	for (i = 0; i < 20; i++) {
		KUNIT_EXPECT_EQ(test, fx->items[i].in_serial, i < 10);
		KUNIT_EXPECT_EQ(test, fx->items[i].in_other, i >= 10);
	}
	KUNIT_EXPECT_FALSE(test, exec_serial_running_in_this_thread(fx->serial));
out:
	sfx_finish(fx);
}

static void sx_closure(void *arg)
{
	struct sw *w = arg;

	sw_func(&w->work);
}

static void serial_closures_run_in_fifo_order_with_items(struct kunit *test)
{
	struct serial_fx *fx = sfx_create(test, 2);
	struct exec_executor *ex;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (sfx_add_serial(fx))
		goto out;
	ex = exec_serial_executor(fx->serial);
	sw_prepare(fx, 0, 200, fx->serial);
	for (i = 0; i < 200; i++) {
		fx->items[i].seq = i;
		if (i & 1)
			KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, sx_closure,
							     &fx->items[i]), 0);
		else
			KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work),
					0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->total_runs, 200,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->order_errors), 0);
	KUNIT_EXPECT_EQ(test, sw_wrong_runs(fx, 0, 200), 0U);
out:
	sfx_finish(fx);
}

/* Items of the full-pool cases: counted, and the first may wait at a gate. */
struct sx_full {
	struct exec_work work;
	struct exec_test_gate *gate;
	atomic_t *runs;
	atomic_t *discards;
};

static void sx_full_run(struct exec_work *work)
{
	struct sx_full *it = container_of(work, struct sx_full, work);

	if (it->gate)
		exec_test_gate_pass(it->gate);
	exec_test_count(it->runs);
}

static void sx_full_discard(struct exec_work *work)
{
	exec_test_count(container_of(work, struct sx_full, work)->discards);
}

static void sx_full_init(struct sx_full *it, atomic_t *runs,
			 atomic_t *discards)
{
	exec_work_init_discard(&it->work, sx_full_run, sx_full_discard);
	it->gate = NULL;
	it->runs = runs;
	it->discards = discards;
}

/*
 * A bounded pool of one worker, blocked at a gate, with its one queue slot
 * taken.  Nothing of a serial executor over it runs in a submitter, which
 * may be in any context: with the only worker blocked, any run before the
 * gate opens would be the submitter's.  A try-submit and a post to the idle
 * strand get their items back with -EAGAIN; a submit, which never waits, is
 * accepted beyond the pool's limit, and a try-submit behind it joins the
 * strand's queue; all run once the worker is free.
 */
static void serial_submit_over_full_pool_runs_nothing_in_caller(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1,
					      .queue_limit = 1 };
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_executor *pex, *sex;
	struct exec_test_gate gate;
	struct sx_full blocker, filler, a, b, c, d;
	atomic_t runs, discards;

	atomic_set(&runs, 0);
	atomic_set(&discards, 0);
	exec_test_gate_init(&gate);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	pex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, pex), 0);
	sex = exec_serial_executor(serial);
	sx_full_init(&blocker, &runs, &discards);
	blocker.gate = &gate;
	sx_full_init(&filler, &runs, &discards);
	sx_full_init(&a, &runs, &discards);
	sx_full_init(&b, &runs, &discards);
	sx_full_init(&c, &runs, &discards);
	sx_full_init(&d, &runs, &discards);
	KUNIT_ASSERT_EQ(test, exec_submit(pex, &blocker.work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	KUNIT_ASSERT_EQ(test, exec_submit(pex, &filler.work), 0);

	KUNIT_EXPECT_EQ(test, exec_try_submit(sex, &a.work), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&a.work));
	KUNIT_EXPECT_EQ(test, exec_post(sex, &b.work), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&b.work));
	KUNIT_EXPECT_EQ(test, exec_submit(sex, &c.work), 0);
	KUNIT_EXPECT_EQ(test, exec_try_submit(sex, &d.work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&runs), 0);

	exec_test_gate_open(&gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&runs, 4,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&runs), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&discards), 0);
}

#define SX_FULL_ITEMS	100

/*
 * The runner ends a batch of 64 with items left, and the bounded pool it
 * runs on is full (one worker, the runner's own, and its one slot taken):
 * the next batch runs on the same worker instead of being discarded.
 */
static void serial_batch_left_over_full_pool_runs_not_dropped(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1,
					      .queue_limit = 1 };
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_executor *pex, *sex;
	struct exec_test_gate gate;
	struct sx_full *items, filler;
	atomic_t runs, discards;
	unsigned int i;

	items = kunit_kcalloc(test, SX_FULL_ITEMS, sizeof(*items), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, items);
	atomic_set(&runs, 0);
	atomic_set(&discards, 0);
	exec_test_gate_init(&gate);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	pex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, pex), 0);
	sex = exec_serial_executor(serial);
	for (i = 0; i < SX_FULL_ITEMS; i++)
		sx_full_init(&items[i], &runs, &discards);
	items[0].gate = &gate;
	sx_full_init(&filler, &runs, &discards);
	KUNIT_ASSERT_EQ(test, exec_submit(sex, &items[0].work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	for (i = 1; i < SX_FULL_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(sex, &items[i].work), 0);
	/* The runner holds the worker: the filler takes the only slot. */
	KUNIT_EXPECT_EQ(test, exec_submit(pex, &filler.work), 0);
	exec_test_gate_open(&gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&runs,
							 SX_FULL_ITEMS + 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&runs), SX_FULL_ITEMS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&discards), 0);
}

#define SX_RACE_THREADS	3
#define SX_RACE_ITEMS	3000

struct sx_race {
	struct exec_executor *ex;
	struct sx_full *items;
	atomic_t runs, discards, refused;
	int *ret;
};

static int sx_race_fn(void *arg)
{
	struct sx_race *r = arg;
	unsigned int i;

	for (i = 0; i < SX_RACE_ITEMS; i++) {
		r->ret[i] = exec_submit(r->ex, &r->items[i].work);
		if (r->ret[i])
			exec_test_count(&r->refused);
		if (r->ret[i] && r->ret[i] != -ESHUTDOWN)
			return r->ret[i];
	}
	return 0;
}

/*
 * Submitters race with the shutdown of the pool below: an item pushed but
 * not yet counted may be run, or dropped, by an earlier owner of the queue
 * before its own submitter finds the runner refused.  Each item then ends
 * exactly once: it runs, it is discarded, or its submission fails - never
 * two of these, and the refusal never looks for an item already gone.
 */
static void serial_submissions_racing_pool_shutdown_end_once(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_test_thread helper[SX_RACE_THREADS];
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct sx_race *r;
	unsigned int t, i;
	long ended;

	r = kunit_kcalloc(test, SX_RACE_THREADS, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
				exec_thread_pool_executor(pool)), 0);
	for (t = 0; t < SX_RACE_THREADS; t++) {
		r[t].ex = exec_serial_executor(serial);
		r[t].items = kunit_kcalloc(test, SX_RACE_ITEMS,
					   sizeof(*r[t].items), GFP_KERNEL);
		r[t].ret = kunit_kcalloc(test, SX_RACE_ITEMS, sizeof(int),
					 GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r[t].items);
		KUNIT_ASSERT_NOT_NULL(test, r[t].ret);
		atomic_set(&r[t].runs, 0);
		atomic_set(&r[t].discards, 0);
		atomic_set(&r[t].refused, 0);
		for (i = 0; i < SX_RACE_ITEMS; i++)
			sx_full_init(&r[t].items[i], &r[t].runs,
				     &r[t].discards);
	}
	for (t = 0; t < SX_RACE_THREADS; t++)
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper[t],
							     sx_race_fn, &r[t],
							     "sx-race"), 0);
	usleep_range(500, 1000);
	KUNIT_EXPECT_GE(test, exec_thread_pool_shutdown_hard(pool), 0L);
	for (t = 0; t < SX_RACE_THREADS; t++) {
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&helper[t],
						EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, helper[t].ret, 0L);
	}
	KUNIT_EXPECT_GE(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	for (t = 0; t < SX_RACE_THREADS; t++) {
		ended = atomic_read(&r[t].runs) + atomic_read(&r[t].discards) +
			atomic_read(&r[t].refused);
		KUNIT_EXPECT_EQ(test, ended, (long)SX_RACE_ITEMS);
		for (i = 0; i < SX_RACE_ITEMS; i++)
			KUNIT_EXPECT_FALSE(test,
				exec_work_pending(&r[t].items[i].work));
	}
}

struct sx_counted {
	struct exec_work work;
	atomic_t runs;
	struct exec_test_gate *gate;	/* passed first, if set */
	bool nap;			/* then sleeps 2 ms, if set */
};

static void sx_count(struct exec_work *work)
{
	struct sx_counted *c = container_of(work, struct sx_counted, work);

	if (c->gate)
		exec_test_gate_pass(c->gate);
	if (c->nap)
		usleep_range(2000, 3000);
	exec_test_count(&c->runs);
}

/*
 * The pending count of @ex once a round's last item has run: its batch may
 * still count up to @round_items until the batch ends, never more (a
 * lingering runner's bias is no item), and it falls to 0.
 */
static void sx_expect_pending_drains(struct kunit *test,
				     struct exec_executor *ex,
				     unsigned long round_items)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	KUNIT_EXPECT_LE(test, exec_pending_count(ex), round_items);
	while (exec_pending_count(ex) && !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
}

/* Three counted items, the first to wait at @gate; the last naps if @nap. */
static void sx_counted_init(struct sx_counted *item,
			    struct exec_test_gate *gate, bool nap)
{
	exec_work_init(&item->work, sx_count);
	atomic_set(&item->runs, 0);
	item->gate = gate;
	item->nap = nap;
}

static void sx_three_init(struct sx_counted *item, struct exec_test_gate *gate,
			  bool nap)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		sx_counted_init(&item[i], i ? NULL : gate, nap && i == 2);
}

/* A pool of @nr_threads and a serial executor over it; returns the latter. */
static struct exec_executor *sx_serial_over_pool(struct kunit *test,
						 unsigned int nr_threads,
						 struct exec_thread_pool **pool,
						 struct exec_serial **serial)
{
	struct exec_thread_pool_attr attr = { .nr_threads = nr_threads };

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(pool, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(serial,
				exec_thread_pool_executor(*pool)), 0);
	return exec_serial_executor(*serial);
}

/*
 * Submits the three to @ex so that a second run takes the last two: the
 * first waits at the gate, still closed on return, until they are queued.
 */
static void sx_three_submit(struct kunit *test, struct exec_executor *ex,
			    struct sx_counted *item,
			    struct exec_test_gate *gate)
{
	unsigned int i;

	exec_test_gate_init(gate);
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &item[0].work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(gate, 1));
	for (i = 1; i < 3; i++)
		KUNIT_ASSERT_EQ(test, exec_submit(ex, &item[i].work), 0);
}

/* sx_three_submit(), then the last has run for the @round-th time. */
static void sx_three_run(struct kunit *test, struct exec_executor *ex,
			 struct sx_counted *item, struct exec_test_gate *gate,
			 unsigned int round)
{
	sx_three_submit(test, ex, item, gate);
	exec_test_gate_open(gate);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&item[2].runs, round,
							 EXEC_TEST_TIMEOUT_MS));
}

/*
 * Over a thread pool, a serial executor's run that took several items and
 * emptied the queue lets its runner linger once at the back of the pool's
 * queue before it lets go, and wakes no worker for it; the pending count
 * does not count it as an item.  A run of one item lets go at once.
 *
 * Rounds far apart of three items: the first blocks until the other two
 * are queued, so a second run takes those two and lingers: three scheduled
 * runs per round.  The pool wakes a worker for the first run and one for
 * the second (the running worker passes the wake-up on), but none for the
 * lingering one: the last item sleeps long enough for the other worker to
 * have parked again.  Then rounds of one item: one scheduled run each.
 * Once a round's items have run, the pending count shows at most the
 * round's items (a batch counts its own until it ends), never the bias of
 * a lingering runner, and falls to 0.
 */
#define SX_LINGER_ROUNDS	10

static void serial_runner_lingers_without_waking_a_worker(struct kunit *test)
{
	struct exec_stats pool_st, serial_st;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_test_gate gate;
	struct sx_counted item[3];
	struct exec_executor *ex;
	unsigned int round;

	ex = sx_serial_over_pool(test, 2, &pool, &serial);
	sx_three_init(item, &gate, true);
	/* Idle workers park; every round starts from parked workers. */
	msleep(20);
	for (round = 1; round <= SX_LINGER_ROUNDS; round++) {
		sx_three_run(test, ex, item, &gate, round);
		sx_expect_pending_drains(test, ex, 3);
		msleep(20);
	}
	/* The runs scheduled: the pool's only submissions. */
	KUNIT_EXPECT_EQ(test, exec_executor_stats(exec_thread_pool_executor(pool),
						  &pool_st), 0);
	KUNIT_EXPECT_EQ(test, pool_st.submitted, 3ULL * SX_LINGER_ROUNDS);
	KUNIT_EXPECT_LE(test, pool_st.wakeups, 2ULL * SX_LINGER_ROUNDS + 2);

	item[0].gate = NULL;
	item[2].nap = false;
	for (round = 1; round <= SX_LINGER_ROUNDS; round++) {
		KUNIT_ASSERT_EQ(test, exec_submit(ex, &item[1].work), 0);
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&item[1].runs,
					SX_LINGER_ROUNDS + round,
					EXEC_TEST_TIMEOUT_MS));
		sx_expect_pending_drains(test, ex, 1);
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, exec_executor_stats(ex, &serial_st), 0);
	KUNIT_EXPECT_EQ(test, serial_st.completed, 4ULL * SX_LINGER_ROUNDS);
	KUNIT_EXPECT_EQ(test, exec_executor_stats(exec_thread_pool_executor(pool),
						  &pool_st), 0);
	KUNIT_EXPECT_EQ(test, pool_st.submitted, 4ULL * SX_LINGER_ROUNDS);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/*
 * A serial executor destroyed while its runner lingers, or is about to: the
 * last item has run, the runner's lingering pass is queued on the pool or
 * running.  Destroy discards nothing, the pass only drops its reference
 * (KASAN and ASan watch the memory), and the pool goes on.
 */
#define SX_LINGER_DESTROY_ROUNDS	200

static void serial_destroy_while_runner_lingers(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_test_gate gate;
	struct sx_counted item[3];
	unsigned int round, i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	sx_three_init(item, &gate, false);
	for (round = 1; round <= SX_LINGER_DESTROY_ROUNDS; round++) {
		KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
					exec_thread_pool_executor(pool)), 0);
		sx_three_run(test, exec_serial_executor(serial), item, &gate,
			     round);
		KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	}
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&item[i].runs),
				SX_LINGER_DESTROY_ROUNDS);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/*
 * While the runner lingers, the serial executor counts no item: one worker,
 * and an item of the pool's own queued before the lingering runner and
 * held at a gate, so that the runner waits behind it.  The pending count
 * and the statistics show nothing queued; once the gate opens, the
 * lingering pass finds nothing and lets go.
 */
static void serial_lingering_runner_counts_no_item(struct kunit *test)
{
	struct exec_test_gate gate, hold_gate;
	struct exec_thread_pool *pool;
	struct sx_counted item[3], hold;
	struct exec_serial *serial;
	struct exec_executor *ex;
	struct exec_stats st;

	ex = sx_serial_over_pool(test, 1, &pool, &serial);
	sx_three_init(item, &gate, false);
	sx_counted_init(&hold, &hold_gate, false);
	exec_test_gate_init(&hold_gate);

	sx_three_submit(test, ex, item, &gate);
	/* Queued on the pool before the runner's lingering post. */
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(pool),
					  &hold.work), 0);
	exec_test_gate_open(&gate);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&hold_gate, 1));
	KUNIT_EXPECT_EQ(test, atomic_read(&item[2].runs), 1);
	/* The runner lingers behind @hold now. */
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, 3ULL);
	KUNIT_EXPECT_EQ(test, st.completed, 3ULL);
	/* Three runs scheduled, and @hold. */
	KUNIT_EXPECT_EQ(test, exec_executor_stats(exec_thread_pool_executor(pool),
						  &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, 4ULL);
	exec_test_gate_open(&hold_gate);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&hold.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	/* The lingering pass found nothing and let go: a new run is needed. */
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &item[1].work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&item[1].runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* A timed item that notes whether it ran on its strand. */
struct st_item {
	struct exec_timer timer;
	struct exec_serial *serial;
	atomic_t runs;
	bool on_strand;
};

static void st_item_fn(struct exec_work *work)
{
	struct st_item *it = container_of(work, struct st_item, timer.work);

	it->on_strand = !it->serial ||
			exec_serial_running_in_this_thread(it->serial);
	exec_test_count(&it->runs);
}

/*
 * A strand makes its record of timed items at its first arm: executors
 * built over a strand that has none yet (a strand, a priority executor)
 * arm theirs on the same base, and each item runs where it was armed.
 */
static void serial_timed_items_over_a_strand_without_any(struct kunit *test)
{
	struct exec_priority_attr pattr = { .max_running = 1 };
	struct serial_fx *fx = sfx_create(test, 2);
	struct exec_priority *prio = NULL;
	struct st_item *items;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	items = kunit_kzalloc(test, 3 * sizeof(*items), GFP_KERNEL);
	if (!items || sfx_add_serial(fx))
		goto out;
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->other,
						 exec_serial_executor(fx->serial)), 0);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio,
						   exec_serial_executor(fx->serial),
						   &pattr), 0);
	for (i = 0; i < 3; i++)
		exec_timer_init(&items[i].timer, st_item_fn, NULL);
	items[0].serial = fx->other;
	items[1].serial = NULL;
	items[2].serial = fx->serial;
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_serial_executor(fx->other),
						&items[0].timer, 1000000), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_priority_executor(prio),
						&items[1].timer, 1000000), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_after(exec_serial_executor(fx->serial),
						&items[2].timer, 2000000), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&items[i].runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_TRUE(test, items[i].on_strand);
	}
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
out:
	sfx_finish(fx);
}

static struct kunit_case exec_serial_cases[] = {
	KUNIT_CASE(serial_runs_items_in_fifo_order),
	KUNIT_CASE(serial_never_runs_two_items_at_once),
	KUNIT_CASE(serial_completion_happens_before_next_start),
	KUNIT_CASE(serial_over_serial_keeps_order_and_exclusion),
	KUNIT_CASE(serial_over_loop_runs_when_loop_runs),
	KUNIT_CASE(serial_destroy_discards_queued_after_running_one_finishes),
	KUNIT_CASE(serial_destroy_idle_returns_zero),
	KUNIT_CASE(serial_destroy_from_own_item_edeadlk),
	KUNIT_CASE(serial_underlying_returns_given_executor),
	KUNIT_CASE(serial_create_null_args_einval),
	KUNIT_CASE(serial_running_in_this_thread_only_inside_its_items),
	KUNIT_CASE(serial_closures_run_in_fifo_order_with_items),
	KUNIT_CASE(serial_submit_over_full_pool_runs_nothing_in_caller),
	KUNIT_CASE(serial_batch_left_over_full_pool_runs_not_dropped),
	KUNIT_CASE(serial_submissions_racing_pool_shutdown_end_once),
	KUNIT_CASE(serial_runner_lingers_without_waking_a_worker),
	KUNIT_CASE(serial_destroy_while_runner_lingers),
	KUNIT_CASE(serial_lingering_runner_counts_no_item),
	KUNIT_CASE(serial_timed_items_over_a_strand_without_any),
	{}
};

static struct kunit_suite exec_serial_suite = {
	.name = "exec-serial",
	.test_cases = exec_serial_cases,
};

kunit_test_suites(&exec_serial_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Cancel and flush of plain items (exec_work_cancel(), _sync,
 * exec_work_flush(), exec_executor_flush(), exec_executor_drain()), the
 * same cases on every executor kind.
 *
 * A kind's fixture gives an executor and how many items it runs at once
 * (@width): that many items blocked at a gate keep what is submitted after
 * them queued.  Loops and loop schedulers are driven by a thread of the
 * fixture's.
 */
#include "exec_test.h"

/* The userspace shim's header: the I/O context exists only there. */
#ifdef EXEC_USER_KUNIT_TEST_H
#include <exec/io.h>
#define CFX_HAVE_IO	1
#endif

struct cfx;

struct cfx_kind {
	const char *name;
	int (*create)(struct cfx *fx);
	void (*destroy)(struct cfx *fx);
	/*
	 * Items it runs at once: -1 for none queued ever (inline), which is
	 * run in its submitter.
	 */
	int width;
	/* Items submitted behind @width blocked ones wait (no new thread). */
	bool queues;
	/*
	 * One at a time, in order: a flush's marker does not wait for what
	 * comes behind it.  Other kinds wait for the runs under way once
	 * their marker has started, whichever items those are.
	 */
	bool fifo;
};

struct cfx {
	const struct cfx_kind *kind;
	struct kunit *test;
	struct exec_executor *ex;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_loop *loop;
	struct exec_loop_scheduler *ls;
	struct exec_thread_per_task *tpt;
	struct exec_priority *prio;
	struct exec_managed_queue *mq;
#ifdef CFX_HAVE_IO
	struct exec_io *io;
#endif
	struct exec_test_thread driver;
};

/* An item that counts its runs and discards, and may wait at a gate. */
struct citem {
	struct exec_work work;
	struct cfx *fx;
	struct exec_test_gate *gate;
	atomic_t runs;
	atomic_t discards;
	atomic_t started;
	int self_cancel;
	int resubmit;
	int *freed;
};

static void citem_fn(struct exec_work *work)
{
	struct citem *it = container_of(work, struct citem, work);

	exec_test_count(&it->started);
	if (it->gate) {
		/* A growing pool adds a worker for the next blocked item. */
		exec_blocking_begin();
		exec_test_gate_pass(it->gate);
		exec_blocking_end();
	}
	if (it->self_cancel == 1)
		it->self_cancel = exec_work_cancel_sync(it->fx->ex, work);
	if (it->resubmit > 0) {
		it->resubmit--;
		exec_submit(it->fx->ex, work);
	}
	exec_test_count(&it->runs);
}

static void citem_discard(struct exec_work *work)
{
	struct citem *it = container_of(work, struct citem, work);

	exec_test_count(&it->discards);
}

static void citem_init(struct citem *it, struct cfx *fx,
		       struct exec_test_gate *gate)
{
	memset(it, 0, sizeof(*it));
	exec_work_init_discard(&it->work, citem_fn, citem_discard);
	it->fx = fx;
	it->gate = gate;
}

static int pool_create_attr(struct cfx *fx,
			    const struct exec_thread_pool_attr *attr)
{
	int ret = exec_thread_pool_create(&fx->pool, attr);

	if (!ret)
		fx->ex = exec_thread_pool_executor(fx->pool);
	return ret;
}

static int pool_create(struct cfx *fx)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };

	return pool_create_attr(fx, &attr);
}

static int grow_create(struct cfx *fx)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1,
					      .max_threads = 2 };

	return pool_create_attr(fx, &attr);
}

static int percpu_create(struct cfx *fx)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2,
					      .per_cpu = true };

	return pool_create_attr(fx, &attr);
}

static void pool_destroy(struct cfx *fx)
{
	if (fx->prio)
		KUNIT_EXPECT_GE(fx->test, exec_priority_destroy(fx->prio), 0);
	if (fx->mq) {
		KUNIT_EXPECT_GE(fx->test, exec_managed_queue_destroy(fx->mq),
				0);
		/* Its last reference may still be on its way out. */
		exec_thread_pool_join(fx->pool);
	}
	if (fx->serial)
		KUNIT_EXPECT_GE(fx->test, exec_serial_destroy(fx->serial), 0);
	KUNIT_EXPECT_GE(fx->test, exec_thread_pool_destroy(fx->pool), 0);
}

static int serial_create(struct cfx *fx)
{
	int ret = pool_create(fx);

	if (ret)
		return ret;
	ret = exec_serial_create(&fx->serial, fx->ex);
	if (ret) {
		exec_thread_pool_destroy(fx->pool);
		return ret;
	}
	fx->ex = exec_serial_executor(fx->serial);
	return 0;
}

static int prio_create(struct cfx *fx)
{
	struct exec_priority_attr attr = { .nr_levels = 4, .max_running = 2 };
	int ret = pool_create(fx);

	if (ret)
		return ret;
	ret = exec_priority_create(&fx->prio, fx->ex, &attr);
	if (ret) {
		exec_thread_pool_destroy(fx->pool);
		return ret;
	}
	fx->ex = exec_priority_executor(fx->prio);
	return 0;
}

static int mq_create(struct cfx *fx)
{
	struct exec_managed_queue_attr attr = { .thread_limit = 1 };
	int ret = pool_create(fx);

	if (ret)
		return ret;
	ret = exec_managed_queue_create(&fx->mq, fx->ex, &attr);
	if (ret) {
		exec_thread_pool_destroy(fx->pool);
		return ret;
	}
	fx->ex = exec_managed_queue_executor(fx->mq);
	return 0;
}

static int loop_drive(void *arg)
{
	return exec_loop_run(arg);
}

static int loop_create(struct cfx *fx)
{
	int ret = exec_loop_create(&fx->loop);

	if (ret)
		return ret;
	fx->ex = exec_loop_executor(fx->loop);
	ret = exec_test_thread_start(&fx->driver, loop_drive, fx->loop,
				     "cancel-loop");
	if (ret)
		exec_loop_destroy(fx->loop);
	return ret;
}

static void loop_destroy(struct cfx *fx)
{
	/* The driver may not be in the run yet: ask until it has left. */
	while (!exec_test_thread_done(&fx->driver)) {
		exec_loop_make_loop_exit(fx->loop);
		msleep(1);
	}
	exec_test_thread_join(&fx->driver, EXEC_TEST_TIMEOUT_MS);
	KUNIT_EXPECT_GE(fx->test, exec_loop_destroy(fx->loop), 0);
}

static int ls_drive(void *arg)
{
	return exec_loop_scheduler_run(arg) < 0;
}

static int ls_create(struct cfx *fx)
{
	int ret = exec_loop_scheduler_create(&fx->ls);

	if (ret)
		return ret;
	fx->ex = exec_loop_scheduler_executor(fx->ls);
	/* Outstanding work keeps the run going until the fixture ends. */
	exec_on_work_started(fx->ex);
	ret = exec_test_thread_start(&fx->driver, ls_drive, fx->ls,
				     "cancel-ls");
	if (ret) {
		exec_on_work_finished(fx->ex);
		exec_loop_scheduler_destroy(fx->ls);
	}
	return ret;
}

static void ls_destroy(struct cfx *fx)
{
	exec_on_work_finished(fx->ex);
	exec_loop_scheduler_stop(fx->ls);
	exec_test_thread_join(&fx->driver, EXEC_TEST_TIMEOUT_MS);
	KUNIT_EXPECT_GE(fx->test, exec_loop_scheduler_destroy(fx->ls), 0);
}

static int tpt_create(struct cfx *fx)
{
	int ret = exec_thread_per_task_create(&fx->tpt);

	if (!ret)
		fx->ex = exec_thread_per_task_executor(fx->tpt);
	return ret;
}

static void tpt_destroy(struct cfx *fx)
{
	KUNIT_EXPECT_EQ(fx->test, exec_thread_per_task_destroy(fx->tpt), 0);
}

#ifdef CFX_HAVE_IO
/* The I/O context's executor: a loop run by the context's own thread. */
static int io_create(struct cfx *fx)
{
	int ret = exec_io_create(&fx->io, NULL);

	if (!ret)
		fx->ex = exec_io_executor(fx->io);
	return ret;
}

static void io_destroy(struct cfx *fx)
{
	KUNIT_EXPECT_GE(fx->test, exec_io_destroy(fx->io), 0);
}
#endif

static int inline_create(struct cfx *fx)
{
	fx->ex = exec_inline_executor();
	return 0;
}

static void inline_destroy(struct cfx *fx)
{
}

static const struct cfx_kind cfx_kinds[] = {
	{ "thread_pool", pool_create, pool_destroy, 2, true, false },
	{ "growing_pool", grow_create, pool_destroy, 2, true, false },
	{ "per_cpu_pool", percpu_create, pool_destroy, 2, true, false },
	{ "serial", serial_create, pool_destroy, 1, true, true },
	{ "priority", prio_create, pool_destroy, 2, true, false },
	{ "managed_queue", mq_create, pool_destroy, 1, true, false },
	{ "loop", loop_create, loop_destroy, 1, true, true },
	{ "loop_scheduler", ls_create, ls_destroy, 1, true, false },
#ifdef CFX_HAVE_IO
	{ "io_context", io_create, io_destroy, 1, true, true },
#endif
	{ "inline", inline_create, inline_destroy, -1, false, false },
	/* Nothing waits for a runner: a new thread per item. */
	{ "thread_per_task", tpt_create, tpt_destroy, 1, false, false },
};

static bool cfx_setup(struct kunit *test, struct cfx *fx,
		      const struct cfx_kind *kind)
{
	memset(fx, 0, sizeof(*fx));
	fx->kind = kind;
	fx->test = test;
	if (kind->create(fx)) {
		KUNIT_FAIL(test, "%s: could not create", kind->name);
		return false;
	}
	return true;
}

/* Fills every runner of @fx with an item blocked at @gate. */
static bool cfx_block(struct cfx *fx, struct citem *blockers,
		      struct exec_test_gate *gate)
{
	int i;

	for (i = 0; i < fx->kind->width; i++) {
		citem_init(&blockers[i], fx, gate);
		KUNIT_EXPECT_EQ(fx->test,
				exec_submit(fx->ex, &blockers[i].work), 0);
	}
	return exec_test_gate_wait_for(gate, fx->kind->width);
}

#define CFX_MAX_WIDTH	2

/* A queued item is taken back: it does not run, it is discarded once. */
static void cancel_queued_one(struct kunit *test, const struct cfx_kind *kind)
{
	struct citem blockers[CFX_MAX_WIDTH], it, after;
	struct exec_test_gate gate;
	struct cfx fx;

	if (!cfx_setup(test, &fx, kind))
		return;
	exec_test_gate_init(&gate);
	citem_init(&it, &fx, NULL);
	citem_init(&after, &fx, NULL);
	if (kind->queues) {
		KUNIT_EXPECT_TRUE(test, cfx_block(&fx, blockers, &gate));
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &it.work), 0);
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &after.work), 0);
		KUNIT_EXPECT_EQ_MSG(test, exec_work_cancel(fx.ex, &it.work),
				    EXEC_CANCEL_REMOVED, "%s", kind->name);
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&it.work));
		KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), 1);
		/* Taken back once: a second cancel finds it idle. */
		KUNIT_EXPECT_EQ(test, exec_work_cancel(fx.ex, &it.work),
				EXEC_CANCEL_IDLE);
		exec_test_gate_open(&gate);
		KUNIT_EXPECT_EQ(test, exec_executor_flush(fx.ex), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&after.runs), 1);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&it.runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), kind->queues ? 1 : 0);
	/* Never submitted, or done: idle. */
	KUNIT_EXPECT_EQ(test, exec_work_cancel(fx.ex, &it.work),
			EXEC_CANCEL_IDLE);
	KUNIT_EXPECT_EQ(test, exec_work_cancel_sync(fx.ex, &it.work),
			EXEC_CANCEL_IDLE);
	KUNIT_EXPECT_EQ(test, exec_work_flush(fx.ex, &it.work), 0);
	kind->destroy(&fx);
}

static void cancel_queued_item_is_discarded_not_run(struct kunit *test)
{
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++)
		cancel_queued_one(test, &cfx_kinds[k]);
}

struct csync {
	struct cfx *fx;
	struct citem *it;
	int ret;
	atomic_t started;	/* the thread is about to make its call */
	int runs_before;	/* the item's runs, read before the call */
};

static int csync_cancel(void *arg)
{
	struct csync *c = arg;

	exec_test_count(&c->started);
	c->runs_before = atomic_read(&c->it->runs);
	c->ret = exec_work_cancel_sync(c->fx->ex, &c->it->work);
	return 0;
}

static int csync_flush_item(void *arg)
{
	struct csync *c = arg;

	exec_test_count(&c->started);
	c->runs_before = atomic_read(&c->it->runs);
	c->ret = exec_work_flush(c->fx->ex, &c->it->work);
	return 0;
}

/* Until cancel_sync holds the running item's pending bit, as it waits. */
static bool csync_cancel_waits(struct csync *c)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (!exec_work_pending(&c->it->work)) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

static int csync_flush(void *arg)
{
	struct csync *c = arg;

	c->ret = exec_executor_flush(c->fx->ex);
	return 0;
}

/*
 * A running item: cancel says so; cancel_sync and flush of the item wait
 * until it returns.
 *
 * The item is let go once the call is seen waiting: cancel_sync holds the
 * item's pending bit then.  A flush of the item shows nothing: it is let
 * go a while after its thread has started, which on a busy machine may be
 * before the call looks; then 0 is right if the item had returned before
 * the call, as the thread reads first.
 */
static void cancel_running_one(struct kunit *test, const struct cfx_kind *kind,
			       int (*fn)(void *arg), int expect)
{
	struct exec_test_thread t;
	struct exec_test_gate gate;
	struct citem it;
	struct csync c;
	struct cfx fx;

	if (kind->width < 0 || !cfx_setup(test, &fx, kind))
		return;
	exec_test_gate_init(&gate);
	citem_init(&it, &fx, &gate);
	KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &it.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	KUNIT_EXPECT_EQ_MSG(test, exec_work_cancel(fx.ex, &it.work),
			    EXEC_CANCEL_RUNNING, "%s", kind->name);
	c.fx = &fx;
	c.it = &it;
	c.ret = -1;
	atomic_set(&c.started, 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, fn, &c, "csync"), 0);
	if (fn == csync_cancel) {
		KUNIT_EXPECT_TRUE_MSG(test, csync_cancel_waits(&c), "%s",
				      kind->name);
	} else {
		KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&c.started, 1,
						EXEC_TEST_TIMEOUT_MS));
		msleep(EXEC_TEST_SETTLE_MS);
	}
	KUNIT_EXPECT_FALSE_MSG(test, exec_test_thread_done(&t), "%s",
			       kind->name);
	exec_test_gate_open(&gate);
	KUNIT_EXPECT_TRUE(test,
			  exec_test_thread_join(&t, EXEC_TEST_TIMEOUT_MS));
	if (c.ret != 0 || fn == csync_cancel || !c.runs_before)
		KUNIT_EXPECT_EQ_MSG(test, c.ret, expect, "%s", kind->name);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&it.discards), 0);
	kind->destroy(&fx);
}

static void cancel_sync_waits_for_a_running_item(struct kunit *test)
{
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++)
		cancel_running_one(test, &cfx_kinds[k], csync_cancel,
				   EXEC_CANCEL_RUNNING);
}

static void flush_item_waits_for_its_run(struct kunit *test)
{
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++)
		cancel_running_one(test, &cfx_kinds[k], csync_flush_item, 1);
}

/* From inside the item: cancel_sync of itself cannot wait. */
static void cancel_sync_from_own_item_edeadlk(struct kunit *test)
{
	struct citem it;
	struct cfx fx;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (cfx_kinds[k].width < 0 ||
		    !cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		citem_init(&it, &fx, NULL);
		it.self_cancel = 1;
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &it.work), 0);
		KUNIT_EXPECT_EQ(test, exec_work_flush(fx.ex, &it.work) >= 0,
				true);
		KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&it.runs, 1,
						EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ_MSG(test, it.self_cancel, -EDEADLK, "%s",
				    cfx_kinds[k].name);
		cfx_kinds[k].destroy(&fx);
	}
}

/*
 * A flush of the executor waits for what was queued before it, behind
 * items blocked at a gate.
 */
#define CFLUSH_ITEMS	8

static void flush_waits_for_queued_items(struct kunit *test)
{
	struct citem *blockers, *items;
	struct exec_test_thread t;
	struct exec_test_gate gate;
	struct csync c;
	struct cfx fx;
	unsigned int k, i;
	int ret;

	/* On the heap: the kernel's stack frames are small. */
	items = kcalloc(CFLUSH_ITEMS + CFX_MAX_WIDTH, sizeof(*items),
			GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, items);
	blockers = items + CFLUSH_ITEMS;
	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (!cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		if (cfx_kinds[k].width < 0) {
			KUNIT_EXPECT_EQ(test, exec_executor_flush(fx.ex), 0);
			KUNIT_EXPECT_EQ(test, exec_executor_drain(fx.ex), 0);
			cfx_kinds[k].destroy(&fx);
			continue;
		}
		exec_test_gate_init(&gate);
		KUNIT_EXPECT_TRUE(test, cfx_block(&fx, blockers, &gate));
		for (i = 0; i < CFLUSH_ITEMS; i++) {
			citem_init(&items[i], &fx, NULL);
			ret = exec_submit(fx.ex, &items[i].work);
			KUNIT_EXPECT_EQ(test, ret, 0);
		}
		c.fx = &fx;
		c.ret = -1;
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, csync_flush,
							      &c, "cflush"), 0);
		msleep(EXEC_TEST_SETTLE_MS);
		KUNIT_EXPECT_FALSE_MSG(test, exec_test_thread_done(&t), "%s",
				       cfx_kinds[k].name);
		exec_test_gate_open(&gate);
		KUNIT_EXPECT_TRUE_MSG(test, exec_test_thread_join(&t,
						EXEC_TEST_TIMEOUT_MS), "%s",
				      cfx_kinds[k].name);
		KUNIT_EXPECT_EQ(test, c.ret, 0);
		for (i = 0; i < CFLUSH_ITEMS; i++) {
			ret = atomic_read(&items[i].runs);
			KUNIT_EXPECT_EQ_MSG(test, ret, 1, "%s item %u",
					    cfx_kinds[k].name, i);
		}
		for (i = 0; i < (unsigned int)cfx_kinds[k].width; i++) {
			ret = atomic_read(&blockers[i].runs);
			KUNIT_EXPECT_EQ(test, ret, 1);
		}
		/* Still usable. */
		citem_init(&items[0], &fx, NULL);
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &items[0].work), 0);
		KUNIT_EXPECT_EQ(test, exec_executor_flush(fx.ex), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&items[0].runs), 1);
		cfx_kinds[k].destroy(&fx);
	}
	kfree(items);
}

/*
 * On a FIFO executor, an item submitted after the flush's marker is not
 * waited for: the flush returns while it is still blocked.
 */
static void flush_does_not_wait_for_later_items(struct kunit *test)
{
	struct exec_test_gate gate, later_gate;
	struct exec_test_thread t;
	struct citem *items;
	unsigned long pending;
	struct csync c;
	struct cfx fx;
	unsigned int k;

	/* On the heap: the kernel's stack frames are small. */
	items = kcalloc(2, sizeof(*items), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, items);
	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (!cfx_kinds[k].fifo || !cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		exec_test_gate_init(&gate);
		exec_test_gate_init(&later_gate);
		citem_init(&items[0], &fx, &gate);
		citem_init(&items[1], &fx, &later_gate);
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &items[0].work), 0);
		KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
		c.fx = &fx;
		c.ret = -1;
		/* A serial executor counts the item it runs as queued. */
		pending = exec_pending_count(fx.ex);
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, csync_flush,
							      &c, "cflush"), 0);
		/* The marker is queued once the pending count shows it. */
		KUNIT_EXPECT_TRUE(test, exec_test_wait_pending(fx.ex, pending + 1));
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &items[1].work), 0);
		exec_test_gate_open(&gate);
		KUNIT_EXPECT_TRUE_MSG(test, exec_test_thread_join(&t,
						EXEC_TEST_TIMEOUT_MS / 2),
				      "%s", cfx_kinds[k].name);
		KUNIT_EXPECT_EQ(test, c.ret, 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&items[1].runs), 0);
		exec_test_gate_open(&later_gate);
		KUNIT_EXPECT_EQ(test, exec_work_flush(fx.ex, &items[1].work) >= 0,
				true);
		KUNIT_EXPECT_EQ(test, atomic_read(&items[1].runs), 1);
		cfx_kinds[k].destroy(&fx);
	}
	kfree(items);
}

/* A drain waits for items that resubmit themselves until they stop. */
static void drain_waits_for_resubmitted_items(struct kunit *test)
{
	struct citem items[4];
	struct cfx fx;
	unsigned int k, i;
	int ret;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (!cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		for (i = 0; i < ARRAY_SIZE(items); i++) {
			citem_init(&items[i], &fx, NULL);
			items[i].resubmit = 50;
			ret = exec_submit(fx.ex, &items[i].work);
			KUNIT_EXPECT_EQ(test, ret, 0);
		}
		KUNIT_EXPECT_EQ(test, exec_executor_drain(fx.ex), 0);
		for (i = 0; i < ARRAY_SIZE(items); i++) {
			ret = atomic_read(&items[i].runs);
			KUNIT_EXPECT_EQ_MSG(test, ret, 51, "%s item %u",
					    cfx_kinds[k].name, i);
		}
		cfx_kinds[k].destroy(&fx);
	}
}

/* From inside the executor, a flush would wait for itself. */
static int cflush_inside_ret;

static void cflush_inside_fn(struct exec_work *work)
{
	struct citem *it = container_of(work, struct citem, work);

	cflush_inside_ret = exec_executor_flush(it->fx->ex);
	exec_test_count(&it->runs);
}

static void flush_from_inside_edeadlk(struct kunit *test)
{
	struct citem it;
	struct cfx fx;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (cfx_kinds[k].width < 0 ||
		    !cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		citem_init(&it, &fx, NULL);
		it.work.func = cflush_inside_fn;
		cflush_inside_ret = 1;
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &it.work), 0);
		KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&it.runs, 1,
						EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ_MSG(test, cflush_inside_ret, -EDEADLK, "%s",
				    cfx_kinds[k].name);
		cfx_kinds[k].destroy(&fx);
	}
}

/*
 * Cancel racing with the executor's start: each item runs or is
 * discarded, exactly once, and cancel's answer says which.
 */
#define CRACE_ITEMS	64
/*
 * Each round waits for the executor's threads several times (cancel_sync,
 * flush): on a busy machine a round takes as long as those threads take
 * to be scheduled, and 2000 rounds a kind outlasted the runner's time
 * limit.  Past this time, a kind stops after CRACE_MIN_ROUNDS rounds.
 */
#define CRACE_BUDGET_MS		2000U
#define CRACE_MIN_ROUNDS	20U

static void cancel_races_with_the_consumer(struct kunit *test)
{
	unsigned long rounds = min(exec_test_stress_tasks() / CRACE_ITEMS,
				   2000UL);
	struct citem *items;
	struct cfx fx;
	unsigned int k, i, removed, r, n;
	u64 stop;
	int ret;

	items = kcalloc(CRACE_ITEMS, sizeof(*items), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, items);
	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (!cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		/*
		 * A thread per item: fewer rounds, so that a loaded machine
		 * does not run out of threads (-EAGAIN) or time.
		 */
		n = cfx_kinds[k].queues ? rounds : rounds / 20 + 1;
		stop = exec_test_deadline(CRACE_BUDGET_MS);
		for (r = 0; r < n; r++) {
			if (r >= CRACE_MIN_ROUNDS && exec_test_expired(stop))
				break;
			removed = 0;
			for (i = 0; i < CRACE_ITEMS; i++) {
				citem_init(&items[i], &fx, NULL);
				KUNIT_ASSERT_EQ(test,
					exec_submit(fx.ex, &items[i].work), 0);
			}
			for (i = 0; i < CRACE_ITEMS; i++) {
				ret = exec_work_cancel_sync(fx.ex,
							    &items[i].work);
				KUNIT_ASSERT_GE(test, ret, 0);
				if (ret == EXEC_CANCEL_REMOVED)
					removed++;
				/* Synchronous: done with it either way. */
				KUNIT_ASSERT_EQ_MSG(test,
					atomic_read(&items[i].runs) +
					atomic_read(&items[i].discards), 1,
					"%s round %u item %u",
					cfx_kinds[k].name, r, i);
				KUNIT_ASSERT_EQ(test,
					atomic_read(&items[i].discards),
					ret == EXEC_CANCEL_REMOVED ? 1 : 0);
			}
			KUNIT_ASSERT_EQ(test, exec_executor_flush(fx.ex), 0);
			for (i = 0; i < CRACE_ITEMS; i++)
				KUNIT_ASSERT_EQ(test,
					atomic_read(&items[i].runs) +
					atomic_read(&items[i].discards), 1);
		}
		cfx_kinds[k].destroy(&fx);
	}
	kfree(items);
}

/*
 * The kernel's cancel_work_sync(); kfree(): once cancel_sync returns the
 * executor holds no pointer to the item (ASan checks it in userspace).
 */
static void cfree_fn(struct exec_work *work)
{
	struct citem *it = container_of(work, struct citem, work);

	exec_test_count(&it->runs);
	/* Resubmits itself once: cancel_sync must stop that too. */
	if (it->resubmit-- > 0)
		exec_submit(it->fx->ex, work);
}

static void cancel_sync_then_free(struct kunit *test)
{
	struct citem *it;
	struct cfx fx;
	unsigned int k, i, n = 2000;

	for (k = 0; k < ARRAY_SIZE(cfx_kinds); k++) {
		if (!cfx_setup(test, &fx, &cfx_kinds[k]))
			continue;
		for (i = 0; i < n; i++) {
			it = kmalloc(sizeof(*it), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, it);
			citem_init(it, &fx, NULL);
			it->work.func = cfree_fn;
			it->resubmit = i & 1;
			if (cfx_kinds[k].width > 0 || !(i & 1))
				exec_submit(fx.ex, &it->work);
			KUNIT_EXPECT_GE(test, exec_work_cancel_sync(fx.ex,
								    &it->work),
					0);
			KUNIT_EXPECT_FALSE(test, exec_work_pending(&it->work));
			kfree(it);
		}
		KUNIT_EXPECT_EQ(test, exec_executor_flush(fx.ex), 0);
		cfx_kinds[k].destroy(&fx);
	}
}

/*
 * A thread pool's worker slot: an item submitted from inside the pool waits
 * in its worker's slot, out of the shared queue, while that worker is busy
 * (one worker: nobody steals it).  Cancel takes it out of the slot; a
 * flush waits for it.
 */
struct cslot {
	struct citem parent;
	struct citem child;
	struct exec_test_gate gate;
	struct exec_executor *ex;
};

static void cslot_parent_fn(struct exec_work *work)
{
	struct cslot *cs = container_of(work, struct cslot, parent.work);

	exec_submit(cs->ex, &cs->child.work);
	exec_test_gate_pass(&cs->gate);
	exec_test_count(&cs->parent.runs);
}

static void pool_slot_cancel_and_flush(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_test_thread t;
	struct cslot *cs;
	struct csync c;
	struct cfx *fx;
	int cancel, ret;

	/* On the heap: the kernel's stack frames are small. */
	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cs);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	for (cancel = 1; cancel >= 0; cancel--) {
		KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
		memset(fx, 0, sizeof(*fx));
		fx->ex = exec_thread_pool_executor(pool);
		cs->ex = fx->ex;
		exec_test_gate_init(&cs->gate);
		citem_init(&cs->parent, fx, NULL);
		cs->parent.work.func = cslot_parent_fn;
		citem_init(&cs->child, fx, NULL);
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &cs->parent.work), 0);
		KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&cs->gate, 1));
		KUNIT_EXPECT_TRUE(test, exec_work_pending(&cs->child.work));
		if (cancel) {
			ret = exec_work_cancel(fx->ex, &cs->child.work);
			KUNIT_EXPECT_EQ(test, ret, EXEC_CANCEL_REMOVED);
			exec_test_gate_open(&cs->gate);
			KUNIT_EXPECT_EQ(test, exec_executor_flush(fx->ex), 0);
			KUNIT_EXPECT_EQ(test, atomic_read(&cs->child.runs), 0);
			KUNIT_EXPECT_EQ(test, atomic_read(&cs->child.discards),
					1);
		} else {
			c.fx = fx;
			c.ret = -1;
			KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t,
					csync_flush, &c, "cflush"), 0);
			msleep(EXEC_TEST_SETTLE_MS);
			KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&t));
			exec_test_gate_open(&cs->gate);
			KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&t,
					EXEC_TEST_TIMEOUT_MS));
			KUNIT_EXPECT_EQ(test, c.ret, 0);
			/* The slot's item ran before the flush returned. */
			KUNIT_EXPECT_EQ(test, atomic_read(&cs->child.runs), 1);
		}
		KUNIT_EXPECT_GE(test, exec_thread_pool_destroy(pool), 0);
	}
	kfree(fx);
	kfree(cs);
}

/* Bad arguments. */
static void cancel_flush_einval(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_timer timer;
	struct exec_work work;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	ex = exec_thread_pool_executor(pool);
	exec_work_init(&work, NULL);
	exec_timer_init(&timer, citem_fn, NULL);
	KUNIT_EXPECT_EQ(test, exec_work_cancel(NULL, &work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_work_cancel(ex, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_work_cancel(ex, &work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_work_cancel(ex, &timer.work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_work_cancel_sync(ex, &timer.work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_work_flush(ex, &timer.work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_executor_flush(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_executor_drain(NULL), -EINVAL);
	exec_thread_pool_stop(pool);
	KUNIT_EXPECT_EQ(test, exec_executor_flush(ex), -ESHUTDOWN);
	KUNIT_EXPECT_GE(test, exec_thread_pool_destroy(pool), 0);
}

static struct kunit_case exec_cancel_cases[] = {
	KUNIT_CASE(cancel_queued_item_is_discarded_not_run),
	KUNIT_CASE(cancel_sync_waits_for_a_running_item),
	KUNIT_CASE(flush_item_waits_for_its_run),
	KUNIT_CASE(cancel_sync_from_own_item_edeadlk),
	KUNIT_CASE(flush_waits_for_queued_items),
	KUNIT_CASE(flush_does_not_wait_for_later_items),
	KUNIT_CASE(drain_waits_for_resubmitted_items),
	KUNIT_CASE(flush_from_inside_edeadlk),
	KUNIT_CASE(cancel_races_with_the_consumer),
	KUNIT_CASE(cancel_sync_then_free),
	KUNIT_CASE(pool_slot_cancel_and_flush),
	KUNIT_CASE(cancel_flush_einval),
	{}
};

static struct kunit_suite exec_cancel_suite = {
	.name = "exec-cancel",
	.test_cases = exec_cancel_cases,
};

kunit_test_suites(&exec_cancel_suite);

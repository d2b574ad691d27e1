// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: submission from interrupt context.
 *
 * The intrusive submission (exec_submit() of an embedded struct exec_work)
 * must work from hard interrupt context (an hrtimer in HRTIMER_MODE_REL_HARD,
 * an irq_work with IRQ_WORK_HARD_IRQ) and from softirq context (a
 * timer_list) without sleeping or allocating; closures with
 * EXEC_SUBMIT_NOWAIT must work from softirq.  With lockdep and
 * CONFIG_DEBUG_ATOMIC_SLEEP, a sleeping call or a lock taken with the wrong
 * interrupt state on these paths is reported by the kernel itself.
 *
 * An interrupt is not the task it interrupts: a handler that runs while a
 * pool worker is in the middle of an item must not be taken for that
 * worker, and frames an interrupt pushes (a serial executor on the inline
 * executor runs its items right in the handler) must be its own.
 *
 * Every entry point documented for any context (exec_submit() where it
 * never waits, exec_try_submit(), exec_post(), exec_defer(), exec_dispatch()
 * of an executor not running the caller, closures with EXEC_SUBMIT_NOWAIT,
 * exec_submit_after(), exec_timer_cancel(), exec_on_work_started() and
 * exec_on_work_finished()) is tried once from a hard irq_work and once from
 * a timer_list softirq on each executor kind built on the others: the
 * priority executor, a managed queue of a thread manager, the loop
 * scheduler, the thread-per-task executor, the default executor and a
 * growing pool.  Each item runs once, never in interrupt context, or is
 * refused with the documented error and does not run.
 */
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/preempt.h>
#include <linux/timer.h>

#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"
#include "exec_kunit.h"

#define CTX_ITEMS	128
/* Between two hrtimer firings; QEMU without KVM is slow. */
#define CTX_PERIOD_NS	(200 * NSEC_PER_USEC)
#define CTX_BOUND	4

/* The entry points of the ctx_ep_* cases, one item each per round. */
enum {
	CTX_EP_SUBMIT,
	CTX_EP_TRY,
	CTX_EP_POST,
	CTX_EP_DEFER,
	CTX_EP_DISPATCH,
	CTX_EP_CLOSURE,		/* exec_submit_fn_full(), EXEC_SUBMIT_NOWAIT */
	CTX_EP_TIMED,		/* exec_submit_after(), soon */
	CTX_EP_ARM,		/* exec_submit_after(), far off ... */
	CTX_EP_CANCEL,		/* ... then exec_timer_cancel() */
	CTX_EP_NR
};

/* Round 0 from a hard irq_work, round 1 from a timer_list softirq. */
#define CTX_EP_ROUNDS	2
/* Not called: exec_submit() of an executor documented to sleep there. */
#define CTX_EP_SKIP	1
#define CTX_EP_FAR_NS	(60ULL * NSEC_PER_SEC)

struct ctx_fx;

struct ctx_item {
	struct exec_work work;
	struct ctx_fx *fx;
	unsigned int seq;
	atomic_t runs;
};

/* A timed item of the ctx_ep_* cases. */
struct ctx_timed {
	struct exec_timer timer;
	struct ctx_fx *fx;
	atomic_t runs;
};

struct ctx_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_serial *inline_serial;
	struct exec_loop *loop;
	struct exec_test_gate gate;
	struct exec_test_thread helper;

	/* What the interrupt does on each firing */
	struct exec_executor *target;
	bool closures;
	bool check_order;

	struct hrtimer hrtimer;
	bool hrtimer_armed;
	struct timer_list timer;
	bool timer_armed;
	struct irq_work irq_work;
	bool irq_work_used;

	unsigned int fired;		/* interrupt side only */
	atomic_t done_firing;
	atomic_t errors;
	atomic_t wrong_ctx;
	atomic_t runs;
	atomic_t closure_runs;
	atomic_t out_of_order;
	unsigned int last_seq;		/* serial items only */

	/* irq_work cases */
	int try_ret[2 * CTX_BOUND];
	struct task_struct *worker_task;
	bool worker_in_pool_before;
	bool worker_in_pool_after;
	bool irq_hit_worker;
	bool irq_in_hardirq;
	bool irq_in_pool;
	int irq_submit_ret;
	int irq_inline_ret;
	bool inline_in_hardirq;
	bool inline_in_serial;
	bool irq_in_serial_after;
	atomic_t irq_done;

	/* ctx_ep_* cases */
	struct exec_priority *prio;
	struct exec_thread_manager *mgr;
	struct exec_managed_queue *mq;
	struct exec_loop_scheduler *ls;
	struct exec_thread_per_task *tpt;
	bool ls_unit;			/* a unit held on @ls while it runs */
	unsigned int round;
	int ep_ret[CTX_EP_ROUNDS][CTX_EP_NR];
	const int *ep_expect;
	struct ctx_timed timed[CTX_EP_ROUNDS][2];

	struct ctx_item blocker;
	struct ctx_item items[CTX_ITEMS];
};

static void ctx_item_fn(struct exec_work *work)
{
	struct ctx_item *it = container_of(work, struct ctx_item, work);
	struct ctx_fx *fx = it->fx;

	if (fx->check_order) {
		if (it->seq != fx->last_seq + 1)
			exec_test_count(&fx->out_of_order);
		fx->last_seq = it->seq;
	}
	exec_test_count(&it->runs);
	if (exec_test_count(&fx->runs) == CTX_ITEMS && fx->loop)
		exec_loop_make_loop_exit(fx->loop);
}

static void ctx_block_fn(struct exec_work *work)
{
	struct ctx_item *it = container_of(work, struct ctx_item, work);

	exec_test_gate_pass(&it->fx->gate);
	exec_test_count(&it->runs);
}

static void ctx_closure_fn(void *arg)
{
	struct ctx_fx *fx = arg;

	exec_test_count(&fx->closure_runs);
}

/* One firing of the interrupt: submit the next item (and a closure). */
static void ctx_fire(struct ctx_fx *fx, bool hard)
{
	struct ctx_item *it = &fx->items[fx->fired];

	if (hard ? !in_hardirq() : !in_serving_softirq())
		atomic_inc(&fx->wrong_ctx);
	it->seq = ++fx->fired;
	if (exec_submit(fx->target, &it->work))
		atomic_inc(&fx->errors);
	if (fx->closures &&
	    exec_submit_fn_full(exec_thread_pool_executor(fx->pool),
				ctx_closure_fn, NULL, fx, EXEC_SUBMIT_NOWAIT))
		atomic_inc(&fx->errors);
	if (fx->fired == CTX_ITEMS)
		atomic_set_release(&fx->done_firing, 1);
}

static enum hrtimer_restart ctx_hrtimer_fn(struct hrtimer *timer)
{
	struct ctx_fx *fx = container_of(timer, struct ctx_fx, hrtimer);

	ctx_fire(fx, true);
	if (fx->fired == CTX_ITEMS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(CTX_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void ctx_timer_fn(struct timer_list *timer)
{
	struct ctx_fx *fx = container_of(timer, struct ctx_fx, timer);

	ctx_fire(fx, false);
	if (fx->fired < CTX_ITEMS)
		mod_timer(&fx->timer, jiffies + 1);
}

static int ctx_init(struct kunit *test)
{
	struct ctx_fx *fx;
	unsigned int i;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	fx->blocker.fx = fx;
	exec_work_init(&fx->blocker.work, ctx_block_fn);
	for (i = 0; i < CTX_ITEMS; i++) {
		fx->items[i].fx = fx;
		exec_work_init(&fx->items[i].work, ctx_item_fn);
	}
	test->priv = fx;
	return 0;
}

static void ctx_exit(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	/* Interrupt sources first, so nothing submits during teardown. */
	if (fx->hrtimer_armed)
		hrtimer_cancel(&fx->hrtimer);
	if (fx->timer_armed)
		timer_shutdown_sync(&fx->timer);
	if (fx->irq_work_used)
		irq_work_sync(&fx->irq_work);
	exec_test_gate_open(&fx->gate);
	if (fx->ls) {
		if (fx->ls_unit)
			exec_on_work_finished(exec_loop_scheduler_executor(fx->ls));
		exec_loop_scheduler_stop(fx->ls);
		if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
			return;		/* leak rather than free under it */
		exec_loop_scheduler_destroy(fx->ls);
	}
	if (fx->prio)
		exec_priority_destroy(fx->prio);
	if (fx->mq)
		exec_managed_queue_destroy(fx->mq);
	if (fx->mgr)
		exec_thread_manager_destroy(fx->mgr);
	if (fx->tpt)
		exec_thread_per_task_destroy(fx->tpt);
	if (fx->loop) {
		exec_loop_make_loop_exit(fx->loop);
		if (!exec_test_thread_join(&fx->helper, EXEC_TEST_TIMEOUT_MS))
			return;		/* leak rather than free under it */
		exec_loop_destroy(fx->loop);
	}
	if (fx->serial)
		exec_serial_destroy(fx->serial);
	if (fx->inline_serial)
		exec_serial_destroy(fx->inline_serial);
	if (fx->pool)
		exec_thread_pool_destroy(fx->pool);
}

static void ctx_create_pool(struct kunit *test, unsigned int nr,
			    unsigned long limit)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = nr,
		.queue_limit = limit,
		.thread.name = "exec-ctx",
	};
	struct ctx_fx *fx = test->priv;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
}

static void ctx_start_hrtimer(struct ctx_fx *fx)
{
	exec_hrtimer_setup(&fx->hrtimer, ctx_hrtimer_fn, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);
	fx->hrtimer_armed = true;
	hrtimer_start(&fx->hrtimer, ns_to_ktime(CTX_PERIOD_NS),
		      HRTIMER_MODE_REL_HARD);
}

static void ctx_start_timer(struct ctx_fx *fx)
{
	timer_setup(&fx->timer, ctx_timer_fn, 0);
	fx->timer_armed = true;
	mod_timer(&fx->timer, jiffies + 1);
}

/* Wait for every firing and every item; check what the interrupt saw. */
static void ctx_check(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->done_firing, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, CTX_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->wrong_ctx), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->out_of_order), 0);
	for (i = 0; i < CTX_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
	if (fx->closures)
		KUNIT_EXPECT_TRUE(test,
				  exec_test_wait_atomic_ge(&fx->closure_runs,
							   CTX_ITEMS,
							   EXEC_TEST_TIMEOUT_MS));
}

static void ctx_pool_from_hardirq(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	ctx_create_pool(test, 2, 0);
	fx->target = exec_thread_pool_executor(fx->pool);
	ctx_start_hrtimer(fx);
	ctx_check(test);
}

static void ctx_serial_from_hardirq(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	ctx_create_pool(test, 2, 0);
	KUNIT_ASSERT_EQ(test,
			exec_serial_create(&fx->serial,
					   exec_thread_pool_executor(fx->pool)),
			0);
	fx->target = exec_serial_executor(fx->serial);
	fx->check_order = true;
	ctx_start_hrtimer(fx);
	ctx_check(test);
}

static int ctx_loop_thread(void *arg)
{
	return exec_loop_run(arg);
}

/* The loop's owner sleeps in its parker; the hard interrupt wakes it. */
static void ctx_loop_from_hardirq(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&fx->loop), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     ctx_loop_thread, fx->loop,
						     "exec-ctx-loop"), 0);
	fx->target = exec_loop_executor(fx->loop);
	fx->check_order = true;
	ctx_start_hrtimer(fx);
	ctx_check(test);
	/* The last item made the loop exit. */
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
}

static void ctx_serial_and_closures_from_softirq(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	ctx_create_pool(test, 2, 0);
	KUNIT_ASSERT_EQ(test,
			exec_serial_create(&fx->serial,
					   exec_thread_pool_executor(fx->pool)),
			0);
	fx->target = exec_serial_executor(fx->serial);
	fx->check_order = true;
	fx->closures = true;
	ctx_start_timer(fx);
	ctx_check(test);
}

static void ctx_try_submit_irq_fn(struct irq_work *work)
{
	struct ctx_fx *fx = container_of(work, struct ctx_fx, irq_work);
	struct exec_executor *ex = exec_thread_pool_executor(fx->pool);
	unsigned int i;

	if (!in_hardirq())
		atomic_inc(&fx->wrong_ctx);
	for (i = 0; i < ARRAY_SIZE(fx->try_ret); i++)
		fx->try_ret[i] = exec_try_submit(ex, &fx->items[i].work);
}

/* A full bounded pool says -EAGAIN to a hard interrupt, never waits. */
static void ctx_bounded_try_submit_from_hardirq(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;
	struct exec_executor *ex;
	unsigned int i;

	ctx_create_pool(test, 1, CTX_BOUND);
	ex = exec_thread_pool_executor(fx->pool);
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &fx->blocker.work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));

	fx->irq_work = IRQ_WORK_INIT_HARD(ctx_try_submit_irq_fn);
	fx->irq_work_used = true;
	irq_work_queue(&fx->irq_work);
	irq_work_sync(&fx->irq_work);

	KUNIT_EXPECT_EQ(test, atomic_read(&fx->wrong_ctx), 0);
	for (i = 0; i < ARRAY_SIZE(fx->try_ret); i++)
		KUNIT_EXPECT_EQ_MSG(test, fx->try_ret[i],
				    i < CTX_BOUND ? 0 : -EAGAIN, "item %u", i);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, CTX_BOUND,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), CTX_BOUND);
}

/* An item of a strand over a full pool: never in the interrupt. */
static void ctx_full_item_fn(struct exec_work *work)
{
	struct ctx_item *it = container_of(work, struct ctx_item, work);

	if (in_interrupt())
		atomic_inc(&it->fx->wrong_ctx);
	exec_test_count(&it->runs);
	exec_test_count(&it->fx->runs);
}

/* Indices in fx->items of the serial-over-a-full-pool case. */
enum {
	CTX_FULL_TRY,
	CTX_FULL_POST,
	CTX_FULL_SUBMIT,
	CTX_FULL_BEHIND,
	CTX_FULL_FILL,
};

static void ctx_serial_full_irq_fn(struct irq_work *work)
{
	struct ctx_fx *fx = container_of(work, struct ctx_fx, irq_work);
	struct exec_executor *sex = exec_serial_executor(fx->serial);
	struct ctx_item *it = fx->items;

	if (!in_hardirq())
		atomic_inc(&fx->wrong_ctx);
	fx->try_ret[0] = exec_try_submit(sex, &it[CTX_FULL_TRY].work);
	fx->try_ret[1] = exec_post(sex, &it[CTX_FULL_POST].work);
	fx->try_ret[2] = exec_submit(sex, &it[CTX_FULL_SUBMIT].work);
	fx->try_ret[3] = exec_try_submit(sex, &it[CTX_FULL_BEHIND].work);
	fx->try_ret[4] = atomic_read(&fx->runs);
}

/*
 * A serial executor over a bounded pool that is full, from a hard
 * interrupt: nothing runs in the interrupt and nothing waits.  The idle
 * strand refuses a try-submit and a post (-EAGAIN); a submit is accepted
 * beyond the pool's limit and a try-submit behind it joins the queue.
 */
static void ctx_serial_over_full_pool_from_hardirq(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;
	struct exec_executor *ex;
	unsigned int i;

	ctx_create_pool(test, 1, CTX_BOUND);
	ex = exec_thread_pool_executor(fx->pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial, ex), 0);
	for (i = 0; i < CTX_FULL_FILL + CTX_BOUND; i++)
		exec_work_init(&fx->items[i].work, ctx_full_item_fn);
	KUNIT_ASSERT_EQ(test, exec_submit(ex, &fx->blocker.work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	for (i = CTX_FULL_FILL; i < CTX_FULL_FILL + CTX_BOUND; i++)
		KUNIT_ASSERT_EQ(test, exec_try_submit(ex, &fx->items[i].work),
				0);

	fx->irq_work = IRQ_WORK_INIT_HARD(ctx_serial_full_irq_fn);
	fx->irq_work_used = true;
	irq_work_queue(&fx->irq_work);
	irq_work_sync(&fx->irq_work);

	KUNIT_EXPECT_EQ(test, fx->try_ret[0], -EAGAIN);
	KUNIT_EXPECT_EQ(test, fx->try_ret[1], -EAGAIN);
	KUNIT_EXPECT_EQ(test, fx->try_ret[2], 0);
	KUNIT_EXPECT_EQ(test, fx->try_ret[3], 0);
	/* The pool's only worker is blocked: no run yet, anywhere. */
	KUNIT_EXPECT_EQ(test, fx->try_ret[4], 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs,
							 CTX_BOUND + 2,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), CTX_BOUND + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[CTX_FULL_TRY].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[CTX_FULL_POST].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->wrong_ctx), 0);
}

static void ctx_inline_item_fn(struct exec_work *work)
{
	struct ctx_item *it = container_of(work, struct ctx_item, work);
	struct ctx_fx *fx = it->fx;

	fx->inline_in_hardirq = in_hardirq();
	fx->inline_in_serial = exec_serial_running_in_this_thread(fx->inline_serial);
	exec_test_count(&it->runs);
}

static void ctx_probe_irq_fn(struct irq_work *work)
{
	struct ctx_fx *fx = container_of(work, struct ctx_fx, irq_work);

	fx->irq_hit_worker = current == fx->worker_task;
	fx->irq_in_hardirq = in_hardirq();
	fx->irq_in_pool = exec_thread_pool_running_in_this_thread(fx->pool);
	fx->irq_submit_ret = exec_submit(exec_thread_pool_executor(fx->pool),
					 &fx->items[0].work);
	fx->irq_inline_ret =
		exec_submit(exec_serial_executor(fx->inline_serial),
			    &fx->items[1].work);
	fx->irq_in_serial_after =
		exec_serial_running_in_this_thread(fx->inline_serial);
	atomic_set_release(&fx->irq_done, 1);
}

/* Runs on a worker: raise a hard interrupt on this CPU and wait for it. */
static void ctx_probe_item_fn(struct exec_work *work)
{
	struct ctx_item *it = container_of(work, struct ctx_item, work);
	struct ctx_fx *fx = it->fx;
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);

	fx->worker_task = current;
	fx->worker_in_pool_before =
		exec_thread_pool_running_in_this_thread(fx->pool);
	preempt_disable();
	irq_work_queue(&fx->irq_work);
	while (!atomic_read_acquire(&fx->irq_done) &&
	       !exec_test_expired(deadline))
		cpu_relax();
	preempt_enable();
	fx->worker_in_pool_after =
		exec_thread_pool_running_in_this_thread(fx->pool);
	exec_test_count(&it->runs);
}

/*
 * A hard interrupt that lands on a pool worker in the middle of an item is
 * not that worker, and what it pushes (a serial executor running inline)
 * is its own and gone when it returns.
 */
static void ctx_irq_is_not_the_interrupted_worker(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	ctx_create_pool(test, 1, 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->inline_serial,
						 exec_inline_executor()), 0);
	fx->irq_work = IRQ_WORK_INIT_HARD(ctx_probe_irq_fn);
	fx->irq_work_used = true;
	exec_work_init(&fx->blocker.work, ctx_probe_item_fn);
	exec_work_init(&fx->items[1].work, ctx_inline_item_fn);

	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(fx->pool),
					  &fx->blocker.work), 0);
	KUNIT_ASSERT_TRUE(test,
			  exec_test_wait_atomic_ge(&fx->blocker.runs, 1,
						   EXEC_TEST_TIMEOUT_MS));
	irq_work_sync(&fx->irq_work);
	KUNIT_ASSERT_TRUE(test, atomic_read(&fx->irq_done));

	KUNIT_EXPECT_TRUE(test, fx->worker_in_pool_before);
	KUNIT_EXPECT_TRUE(test, fx->worker_in_pool_after);
	KUNIT_EXPECT_TRUE(test, fx->irq_hit_worker);
	KUNIT_EXPECT_TRUE(test, fx->irq_in_hardirq);
	KUNIT_EXPECT_FALSE(test, fx->irq_in_pool);
	KUNIT_EXPECT_EQ(test, fx->irq_submit_ret, 0);
	KUNIT_EXPECT_EQ(test, fx->irq_inline_ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 1);
	KUNIT_EXPECT_TRUE(test, fx->inline_in_hardirq);
	KUNIT_EXPECT_TRUE(test, fx->inline_in_serial);
	KUNIT_EXPECT_FALSE(test, fx->irq_in_serial_after);
	KUNIT_EXPECT_TRUE(test,
			  exec_test_wait_atomic_ge(&fx->items[0].runs, 1,
						   EXEC_TEST_TIMEOUT_MS));
}

/* An item of the ctx_ep_* cases: never in interrupt context. */
static void ctx_ep_item_fn(struct exec_work *work)
{
	struct ctx_item *it = container_of(work, struct ctx_item, work);

	if (in_interrupt())
		atomic_inc(&it->fx->wrong_ctx);
	exec_test_count(&it->runs);
	exec_test_count(&it->fx->runs);
}

static void ctx_ep_timed_fn(struct exec_work *work)
{
	struct ctx_timed *t = container_of(work, struct ctx_timed, timer.work);

	if (in_interrupt())
		atomic_inc(&t->fx->wrong_ctx);
	exec_test_count(&t->runs);
	exec_test_count(&t->fx->runs);
}

static void ctx_ep_closure_fn(void *arg)
{
	struct ctx_fx *fx = arg;

	if (in_interrupt())
		atomic_inc(&fx->wrong_ctx);
	exec_test_count(&fx->closure_runs);
}

/* One round: each entry point once, on @fx->target, from the interrupt. */
static void ctx_ep_fire(struct ctx_fx *fx, bool hard)
{
	struct exec_executor *ex = fx->target;
	unsigned int r = fx->round;
	struct ctx_item *it = &fx->items[r * CTX_EP_NR];
	int *ret = fx->ep_ret[r];

	if (hard ? !in_hardirq() : !in_serving_softirq())
		atomic_inc(&fx->wrong_ctx);
	if (fx->ep_expect[CTX_EP_SUBMIT] != CTX_EP_SKIP)
		ret[CTX_EP_SUBMIT] = exec_submit(ex, &it[CTX_EP_SUBMIT].work);
	ret[CTX_EP_TRY] = exec_try_submit(ex, &it[CTX_EP_TRY].work);
	ret[CTX_EP_POST] = exec_post(ex, &it[CTX_EP_POST].work);
	ret[CTX_EP_DEFER] = exec_defer(ex, &it[CTX_EP_DEFER].work);
	ret[CTX_EP_DISPATCH] = exec_dispatch(ex, &it[CTX_EP_DISPATCH].work);
	ret[CTX_EP_CLOSURE] = exec_submit_fn_full(ex, ctx_ep_closure_fn, NULL,
						  fx, EXEC_SUBMIT_NOWAIT);
	ret[CTX_EP_TIMED] = exec_submit_after(ex, &fx->timed[r][0].timer,
					      NSEC_PER_MSEC);
	ret[CTX_EP_ARM] = exec_submit_after(ex, &fx->timed[r][1].timer,
					    CTX_EP_FAR_NS);
	ret[CTX_EP_CANCEL] = exec_timer_cancel(&fx->timed[r][1].timer);
	exec_on_work_started(ex);
	exec_on_work_finished(ex);
	atomic_set_release(&fx->irq_done, 1);
}

static void ctx_ep_irq_fn(struct irq_work *work)
{
	ctx_ep_fire(container_of(work, struct ctx_fx, irq_work), true);
}

static void ctx_ep_timer_fn(struct timer_list *timer)
{
	ctx_ep_fire(container_of(timer, struct ctx_fx, timer), false);
}

/* How many of round @r's items (plain and timed) were accepted. */
static int ctx_ep_accepted(struct ctx_fx *fx, unsigned int r)
{
	unsigned int i;
	int n = !fx->ep_ret[r][CTX_EP_TIMED];

	for (i = 0; i < CTX_EP_CLOSURE; i++)
		n += !fx->ep_ret[r][i];
	return n;
}

/* Round 0 from a hard irq_work, round 1 from a timer_list softirq. */
static void ctx_ep_fire_rounds(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	fx->round = 0;
	atomic_set(&fx->irq_done, 0);
	fx->irq_work = IRQ_WORK_INIT_HARD(ctx_ep_irq_fn);
	fx->irq_work_used = true;
	irq_work_queue(&fx->irq_work);
	irq_work_sync(&fx->irq_work);
	KUNIT_ASSERT_TRUE(test, atomic_read_acquire(&fx->irq_done));

	fx->round = 1;
	atomic_set(&fx->irq_done, 0);
	timer_setup(&fx->timer, ctx_ep_timer_fn, 0);
	fx->timer_armed = true;
	mod_timer(&fx->timer, jiffies + 1);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->irq_done, 1,
							 EXEC_TEST_TIMEOUT_MS));
}

/*
 * Both rounds on @ex: every return is the one expected (@expect, indexed
 * by CTX_EP_*), every accepted item and closure runs once, no refused one
 * runs, nothing runs in interrupt context.
 */
static void ctx_ep_run(struct kunit *test, struct exec_executor *ex,
		       const int *expect)
{
	struct ctx_fx *fx = test->priv;
	int items = 0, closures = 0;
	unsigned int r, i;

	KUNIT_ASSERT_NOT_NULL(test, ex);
	fx->target = ex;
	fx->ep_expect = expect;
	for (r = 0; r < CTX_EP_ROUNDS; r++) {
		for (i = 0; i < CTX_EP_NR; i++) {
			exec_work_init(&fx->items[r * CTX_EP_NR + i].work,
				       ctx_ep_item_fn);
			fx->ep_ret[r][i] = CTX_EP_SKIP;
		}
		for (i = 0; i < 2; i++) {
			fx->timed[r][i].fx = fx;
			exec_timer_init(&fx->timed[r][i].timer,
					ctx_ep_timed_fn, NULL);
		}
	}
	ctx_ep_fire_rounds(test);

	for (r = 0; r < CTX_EP_ROUNDS; r++) {
		for (i = 0; i < CTX_EP_NR; i++)
			KUNIT_EXPECT_EQ_MSG(test, fx->ep_ret[r][i], expect[i],
					    "round %u, entry point %u", r, i);
		items += ctx_ep_accepted(fx, r);
		closures += !fx->ep_ret[r][CTX_EP_CLOSURE];
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, items,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->closure_runs,
							 closures,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), items);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->closure_runs), closures);
	for (r = 0; r < CTX_EP_ROUNDS; r++) {
		struct ctx_item *it = &fx->items[r * CTX_EP_NR];

		for (i = 0; i < CTX_EP_CLOSURE; i++)
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&it[i].runs),
					    fx->ep_ret[r][i] ? 0 : 1,
					    "round %u, entry point %u", r, i);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->timed[r][0].runs),
				fx->ep_ret[r][CTX_EP_TIMED] ? 0 : 1);
		/* Cancelled before it came due: never runs. */
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->timed[r][1].runs), 0);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->wrong_ctx), 0);
}

/* Executors that accept everything from interrupt context. */
static const int ctx_ep_all[CTX_EP_NR] = {
	[CTX_EP_CANCEL] = 1,
};

static void ctx_ep_priority(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;

	ctx_create_pool(test, 2, 0);
	KUNIT_ASSERT_EQ(test,
			exec_priority_create(&fx->prio,
					     exec_thread_pool_executor(fx->pool),
					     NULL),
			0);
	ctx_ep_run(test, exec_priority_executor(fx->prio), ctx_ep_all);
}

static void ctx_ep_managed_queue(struct kunit *test)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 1,
		.pool = { .nr_threads = 2 },
	};
	struct ctx_fx *fx = test->priv;

	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&fx->mgr, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_new_queue(fx->mgr, &fx->mq,
							    NULL), 0);
	ctx_ep_run(test, exec_managed_queue_executor(fx->mq), ctx_ep_all);
}

static int ctx_ls_thread(void *arg)
{
	long ret = exec_loop_scheduler_run(arg);

	return ret < 0 ? ret : 0;
}

/* The scheduler's only thread sleeps in its run function meanwhile. */
static void ctx_ep_loop_scheduler(struct kunit *test)
{
	struct ctx_fx *fx = test->priv;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&fx->ls), 0);
	ex = exec_loop_scheduler_executor(fx->ls);
	/* A unit, so that it does not stop for lack of work. */
	exec_on_work_started(ex);
	fx->ls_unit = true;
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->helper,
						     ctx_ls_thread, fx->ls,
						     "exec-ctx-ls"), 0);
	ctx_ep_run(test, ex, ctx_ep_all);
	fx->ls_unit = false;
	exec_on_work_finished(ex);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&fx->helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, fx->helper.ret, 0L);
}

/*
 * Starting a thread sleeps: every submission that may come from interrupt
 * context is refused, and it runs no timed work.  exec_submit() is
 * documented for process context there and is not tried.
 */
static void ctx_ep_thread_per_task(struct kunit *test)
{
	static const int expect[CTX_EP_NR] = {
		[CTX_EP_SUBMIT] = CTX_EP_SKIP,
		[CTX_EP_TRY] = -EAGAIN,
		[CTX_EP_POST] = -EAGAIN,
		[CTX_EP_DEFER] = -EAGAIN,
		[CTX_EP_DISPATCH] = -EAGAIN,
		[CTX_EP_CLOSURE] = -EAGAIN,
		[CTX_EP_TIMED] = -EOPNOTSUPP,
		[CTX_EP_ARM] = -EOPNOTSUPP,
		[CTX_EP_CANCEL] = 0,
	};
	struct ctx_fx *fx = test->priv;

	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&fx->tpt), 0);
	ctx_ep_run(test, exec_thread_per_task_executor(fx->tpt), expect);
}

/* The built-in default pool, started when the module loaded. */
static void ctx_ep_default_executor(struct kunit *test)
{
	ctx_ep_run(test, exec_default_executor(), ctx_ep_all);
}

/* A growing pool: a submission kicks its manager, never starts a thread. */
static void ctx_ep_growing_pool(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1,
		.max_threads = 4,
		.thread.name = "exec-ctx-grow",
	};
	struct ctx_fx *fx = test->priv;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
	ctx_ep_run(test, exec_thread_pool_executor(fx->pool), ctx_ep_all);
}

static struct kunit_case ctx_cases[] = {
	KUNIT_CASE(ctx_pool_from_hardirq),
	KUNIT_CASE(ctx_serial_from_hardirq),
	KUNIT_CASE(ctx_loop_from_hardirq),
	KUNIT_CASE(ctx_serial_and_closures_from_softirq),
	KUNIT_CASE(ctx_bounded_try_submit_from_hardirq),
	KUNIT_CASE(ctx_serial_over_full_pool_from_hardirq),
	KUNIT_CASE(ctx_irq_is_not_the_interrupted_worker),
	KUNIT_CASE(ctx_ep_priority),
	KUNIT_CASE(ctx_ep_managed_queue),
	KUNIT_CASE(ctx_ep_loop_scheduler),
	KUNIT_CASE(ctx_ep_thread_per_task),
	KUNIT_CASE(ctx_ep_default_executor),
	KUNIT_CASE(ctx_ep_growing_pool),
	{}
};

static struct kunit_suite exec_kernel_context_suite = {
	.name = "exec-kernel-context",
	.init = ctx_init,
	.exit = ctx_exit,
	.test_cases = ctx_cases,
};

kunit_test_suites(&exec_kernel_context_suite);

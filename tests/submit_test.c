// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * P0113's vocabulary (include/exec/executor.h): post never runs the item in
 * the caller; dispatch runs it in the caller where the executor allows it
 * (inside a thread pool or a loop, a serial executor that is idle, the
 * inline executor) and posts it otherwise; defer keeps a continuation local
 * to the calling worker.  running_in_this_thread for each executor kind,
 * strand identity, work guards, and the thread pool's stop and join.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

#define SB_ITEMS	64

struct sb_fx;

struct sb_item {
	struct exec_work work;
	struct sb_fx *fx;
	/* What the item does when it runs. */
	void (*action)(struct sb_item *it);
	struct sb_item *other;
	struct exec_executor *target;
	int ret;
	/* What was seen when it ran. */
	atomic_t runs;
	atomic_t discards;
	atomic_t calls;		/* of the closures it submitted */
	bool in_pool;
	bool in_serial;
	bool inside_caller;	/* ran while its submitter was inside a call */
	bool other_ran_before_return;
	unsigned int order;
};

struct sb_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct exec_serial *serial;
	struct exec_test_gate gate;
	atomic_t order;
	atomic_t in_call;	/* a submitter is inside post/dispatch now */
	struct sb_item items[SB_ITEMS];
};

static void sb_func(struct exec_work *work)
{
	struct sb_item *it = container_of(work, struct sb_item, work);
	struct sb_fx *fx = it->fx;

	it->in_pool = fx->pool && exec_thread_pool_running_in_this_thread(fx->pool);
	it->in_serial = fx->serial &&
			exec_serial_running_in_this_thread(fx->serial);
	it->inside_caller = atomic_read(&fx->in_call) != 0;
	it->order = atomic_inc_return(&fx->order);
	if (it->action)
		it->action(it);
	exec_test_count(&it->runs);
}

static void sb_discard(struct exec_work *work)
{
	struct sb_item *it = container_of(work, struct sb_item, work);

	exec_test_count(&it->discards);
}

static struct sb_fx *sb_create(struct kunit *test, unsigned int threads,
			       unsigned long limit)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = threads,
		.queue_limit = limit,
	};
	struct sb_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	unsigned int i;

	if (!fx)
		return NULL;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	for (i = 0; i < SB_ITEMS; i++) {
		exec_work_init_discard(&fx->items[i].work, sb_func, sb_discard);
		fx->items[i].fx = fx;
	}
	if (threads && exec_thread_pool_create(&fx->pool, &attr))
		return NULL;
	fx->ex = exec_thread_pool_executor(fx->pool);
	return fx;
}

static void sb_finish(struct sb_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	if (fx->serial)
		KUNIT_EXPECT_EQ(fx->test, exec_serial_destroy(fx->serial), 0L);
	if (fx->pool)
		KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->pool),
				0L);
}

static bool sb_wait_runs(struct sb_item *it, int n)
{
	return exec_test_wait_atomic_ge(&it->runs, n, EXEC_TEST_TIMEOUT_MS);
}

/* Until the strand's runner has let go of its last batch. */
static bool sb_wait_idle(struct exec_executor *ex)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (exec_pending_count(ex)) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

static void sb_block(struct sb_item *it)
{
	exec_test_gate_pass(&it->fx->gate);
}

/* Submits @it->other with post, inside a window the other item can see. */
static void sb_post_other(struct sb_item *it)
{
	atomic_set(&it->fx->in_call, 1);
	it->ret = exec_post(it->target, &it->other->work);
	it->other_ran_before_return = atomic_read(&it->other->runs) != 0;
	atomic_set(&it->fx->in_call, 0);
}

static void sb_dispatch_other(struct sb_item *it)
{
	atomic_set(&it->fx->in_call, 1);
	it->ret = exec_dispatch(it->target, &it->other->work);
	it->other_ran_before_return = atomic_read(&it->other->runs) != 0;
	atomic_set(&it->fx->in_call, 0);
}

/*
 * post from a worker: the item goes to the queue, never runs in the call.
 * One worker, busy with A, so B can only have run before post returned if
 * post ran it in the caller.
 */
static void submit_post_from_worker_never_runs_in_caller(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct sb_item *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	a = &fx->items[0];
	b = &fx->items[1];
	a->action = sb_post_other;
	a->other = b;
	a->target = fx->ex;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &a->work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(b, 1));
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(a, 1));
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_FALSE(test, a->other_ran_before_return);
	KUNIT_EXPECT_FALSE(test, b->inside_caller);
	KUNIT_EXPECT_LT(test, a->order, b->order);
	KUNIT_EXPECT_TRUE(test, a->in_pool);
	KUNIT_EXPECT_TRUE(test, b->in_pool);
	sb_finish(fx);
}

/* dispatch from a worker of the same pool runs the item before returning. */
static void submit_dispatch_inside_pool_runs_inline(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	struct sb_item *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	a = &fx->items[0];
	b = &fx->items[1];
	a->action = sb_dispatch_other;
	a->other = b;
	a->target = fx->ex;
	KUNIT_EXPECT_EQ(test, exec_dispatch(fx->ex, &a->work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(a, 1));
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_TRUE(test, a->other_ran_before_return);
	KUNIT_EXPECT_TRUE(test, b->inside_caller);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->runs), 1);
	sb_finish(fx);
}

/* dispatch from outside the pool posts: the item runs on a worker. */
static void submit_dispatch_outside_pool_posts(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct sb_item *b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	b = &fx->items[1];
	fx->items[0].action = sb_block;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	/* The only worker is held: an inline run would have happened here. */
	KUNIT_EXPECT_EQ(test, exec_dispatch(fx->ex, &b->work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->runs), 0);
	KUNIT_EXPECT_EQ(test, exec_dispatch(fx->ex, &b->work), -EALREADY);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(b, 1));
	KUNIT_EXPECT_TRUE(test, b->in_pool);
	sb_finish(fx);
}

static void sb_post_then_defer(struct sb_item *it)
{
	struct sb_fx *fx = it->fx;

	KUNIT_EXPECT_EQ(fx->test, exec_post(fx->ex, &fx->items[2].work), 0);
	KUNIT_EXPECT_EQ(fx->test, exec_defer(fx->ex, &fx->items[1].work), 0);
	it->other_ran_before_return = atomic_read(&fx->items[1].runs) != 0;
}

/*
 * defer keeps the continuation with its worker: on a one-worker pool, an
 * item that posts C and then defers B sees B run first, after it returned.
 */
static void submit_defer_runs_after_current_before_queue(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct sb_item *a, *b, *c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	a = &fx->items[0];
	b = &fx->items[1];
	c = &fx->items[2];
	a->action = sb_post_then_defer;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &a->work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(c, 1));
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(b, 1));
	KUNIT_EXPECT_FALSE(test, a->other_ran_before_return);
	KUNIT_EXPECT_LT(test, a->order, b->order);
	KUNIT_EXPECT_LT(test, b->order, c->order);
	sb_finish(fx);
}

/* defer from outside the executor behaves as post. */
static void submit_defer_outside_behaves_as_post(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_defer(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[0], 1));
	KUNIT_EXPECT_TRUE(test, fx->items[0].in_pool);
	sb_finish(fx);
}

/* post and defer never wait for room in a bounded pool. */
static void submit_post_on_full_bounded_pool_eagain(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 1);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = sb_block;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[1].work), 0);
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[2].work), -EAGAIN);
	KUNIT_EXPECT_EQ(test, exec_defer(fx->ex, &fx->items[2].work), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[2].work));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[1], 1));
	sb_finish(fx);
}

static void sb_fn_count(void *arg)
{
	exec_test_count(arg);
}

static void sb_closures(struct sb_item *it)
{
	struct sb_fx *fx = it->fx;
	atomic_t *count = &it->calls;

	/* Inside the pool, dispatch_fn calls the function right here. */
	KUNIT_EXPECT_EQ(fx->test, exec_dispatch_fn(fx->ex, sb_fn_count,
						   count), 0);
	it->other_ran_before_return = atomic_read(count) == 1;
	KUNIT_EXPECT_EQ(fx->test, exec_post_fn(fx->ex, sb_fn_count, count), 0);
	KUNIT_EXPECT_EQ(fx->test, exec_defer_fn(fx->ex, sb_fn_count, count), 0);
}

/* The closure forms: each runs once; dispatch_fn inline inside the pool. */
static void submit_closure_forms_run_once(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	atomic_t outside;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	atomic_set(&outside, 0);
	fx->items[0].action = sb_closures;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[0].calls, 3,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, fx->items[0].other_ran_before_return);
	KUNIT_EXPECT_EQ(test, exec_post_fn(fx->ex, sb_fn_count, &outside), 0);
	KUNIT_EXPECT_EQ(test, exec_dispatch_fn(fx->ex, sb_fn_count, &outside),
			0);
	KUNIT_EXPECT_EQ(test, exec_defer_fn(fx->ex, sb_fn_count, &outside), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&outside, 3,
							 EXEC_TEST_TIMEOUT_MS));
	sb_finish(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].calls), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&outside), 3);
}

/*
 * Closures are reused: once the first round has set the caller's cache up,
 * a thousand rounds of sixteen closures on two workers, which finish them
 * slightly out of order, add at most two chunks per CPU the caller may
 * migrate to (kernel), or per thread (userspace): 16,000 closures without
 * reuse.
 */
static void submit_closures_reused(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	unsigned long first = 0;
	unsigned int round;
	atomic_t count;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	atomic_set(&count, 0);
	for (round = 0; round < 1000; round++) {
		for (i = 0; i < 16; i++)
			KUNIT_ASSERT_EQ(test, exec_post_fn(fx->ex, sb_fn_count,
							   &count), 0);
		KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&count,
			16 * (round + 1), EXEC_TEST_TIMEOUT_MS));
		if (!round)
			first = exec_closures_allocated();
	}
	KUNIT_EXPECT_GT(test, first, 0UL);
	KUNIT_EXPECT_LE(test, exec_closures_allocated() - first,
			2UL * EXEC_CLOSURES_PER_CHUNK * exec_cpu_ids());
	sb_finish(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&count), 16000);
}

static int sb_closures_thread(void *arg)
{
	struct sb_fx *fx = arg;
	atomic_t count;
	int i, ret;

	atomic_set(&count, 0);
	for (i = 0; i < 16; i++) {
		ret = exec_post_fn(fx->ex, sb_fn_count, &count);
		if (ret)
			return ret;
	}
	return exec_test_wait_atomic_ge(&count, 16, EXEC_TEST_TIMEOUT_MS) ?
	       0 : -ETIMEDOUT;
}

/*
 * Closure caches outlive their threads' use of them: fifty threads, one
 * after the other, each submit sixteen closures and exit.  In userspace
 * each takes over the ring the last one left; in the kernel they use their
 * CPUs' caches.  Without that the caches would grow by a chunk a thread.
 */
static void submit_closures_thread_exit(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	struct exec_test_thread t;
	unsigned long before;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	before = exec_closures_allocated();
	for (i = 0; i < 50; i++) {
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t,
				sb_closures_thread, fx, "sb-closures"), 0);
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&t,
				EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, t.ret, 0L);
	}
	KUNIT_EXPECT_LE(test, exec_closures_allocated() - before,
			2UL * EXEC_CLOSURES_PER_CHUNK * exec_cpu_ids());
	sb_finish(fx);
}

/* The inline executor can only run items in the caller. */
static void submit_inline_post_defer_eopnotsupp_dispatch_runs(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 0, 0);
	struct exec_executor *in = exec_inline_executor();
	atomic_t count;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	atomic_set(&count, 0);
	KUNIT_EXPECT_EQ(test, exec_post(in, &fx->items[0].work), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, exec_defer(in, &fx->items[0].work), -EOPNOTSUPP);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[0].work));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 0);
	KUNIT_EXPECT_EQ(test, exec_dispatch(in, &fx->items[0].work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, exec_post_fn(in, sb_fn_count, &count),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, exec_dispatch_fn(in, sb_fn_count, &count), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&count), 1);
	KUNIT_EXPECT_TRUE(test, exec_running_in_this_thread(in));
}

static void sb_record_running(struct sb_item *it)
{
	struct sb_fx *fx = it->fx;

	it->ret = exec_running_in_this_thread(fx->ex) |
		  exec_running_in_this_thread(exec_serial_executor(fx->serial))
			  << 1;
}

/* running_in_this_thread: pool workers, strand items, and nobody else. */
static void submit_running_in_this_thread_per_kind(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	struct exec_executor *sx;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial, fx->ex), 0);
	sx = exec_serial_executor(fx->serial);
	KUNIT_EXPECT_FALSE(test, exec_running_in_this_thread(fx->ex));
	KUNIT_EXPECT_FALSE(test, exec_running_in_this_thread(sx));
	KUNIT_EXPECT_FALSE(test, exec_running_in_this_thread(NULL));
	fx->items[0].action = sb_record_running;
	fx->items[1].action = sb_record_running;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_EQ(test, exec_post(sx, &fx->items[1].work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[0], 1));
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[1], 1));
	/* On the pool only; on the strand, which runs on the pool. */
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, 1);
	KUNIT_EXPECT_EQ(test, fx->items[1].ret, 3);
	sb_finish(fx);
}

/* Strands have identity: equal only to themselves. */
static void submit_strands_compare_by_identity(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct exec_serial *other;
	struct exec_executor *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial, fx->ex), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&other, fx->ex), 0);
	a = exec_serial_executor(fx->serial);
	b = exec_serial_executor(other);
	KUNIT_EXPECT_TRUE(test, exec_executor_equal(a, a));
	KUNIT_EXPECT_FALSE(test, exec_executor_equal(a, b));
	KUNIT_EXPECT_FALSE(test, exec_executor_equal(a, fx->ex));
	KUNIT_EXPECT_TRUE(test, exec_executor_equal(exec_serial_underlying(other),
						    fx->ex));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(other), 0L);
	sb_finish(fx);
}

/*
 * A strand's dispatch: inline from inside the strand; inline from the
 * underlying pool while the strand is idle; queued while the strand is
 * busy; queued from outside.
 */
static void submit_strand_dispatch_rules(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	struct exec_executor *sx;
	struct sb_item *it = NULL;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial, fx->ex), 0);
	sx = exec_serial_executor(fx->serial);

	/* From inside the strand: inline. */
	it = &fx->items[0];
	it->action = sb_dispatch_other;
	it->other = &fx->items[1];
	it->target = sx;
	KUNIT_EXPECT_EQ(test, exec_post(sx, &it->work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(it, 1));
	KUNIT_EXPECT_TRUE(test, it->other_ran_before_return);
	KUNIT_EXPECT_TRUE(test, fx->items[1].in_serial);

	/* From the pool, strand idle: inline, as an item of the strand. */
	KUNIT_EXPECT_TRUE(test, sb_wait_idle(sx));
	it = &fx->items[2];
	it->action = sb_dispatch_other;
	it->other = &fx->items[3];
	it->target = sx;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &it->work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(it, 1));
	KUNIT_EXPECT_EQ(test, it->ret, 0);
	KUNIT_EXPECT_TRUE(test, it->other_ran_before_return);
	KUNIT_EXPECT_TRUE(test, fx->items[3].in_serial);
	KUNIT_EXPECT_TRUE(test, fx->items[3].inside_caller);

	/* From the pool, strand busy: queued behind the busy item. */
	fx->items[4].action = sb_block;
	KUNIT_EXPECT_EQ(test, exec_post(sx, &fx->items[4].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	it = &fx->items[5];
	it->action = sb_dispatch_other;
	it->other = &fx->items[6];
	it->target = sx;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &it->work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(it, 1));
	KUNIT_EXPECT_FALSE(test, it->other_ran_before_return);

	/* From outside: queued. */
	KUNIT_EXPECT_EQ(test, exec_dispatch(sx, &fx->items[7].work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[7].runs), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[6], 1));
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[7], 1));
	KUNIT_EXPECT_FALSE(test, fx->items[6].inside_caller);
	KUNIT_EXPECT_LT(test, fx->items[4].order, fx->items[6].order);
	KUNIT_EXPECT_LT(test, fx->items[6].order, fx->items[7].order);
	sb_finish(fx);
}

struct sb_loop_item {
	struct exec_work work;
	struct exec_loop *loop;
	struct exec_work *other;
	atomic_t *other_runs;
	bool other_ran_before_return;
	int ret;
};

static void sb_loop_dispatch(struct exec_work *work)
{
	struct sb_loop_item *it = container_of(work, struct sb_loop_item, work);

	it->ret = exec_dispatch(exec_loop_executor(it->loop), it->other);
	it->other_ran_before_return = atomic_read(it->other_runs) == 1;
}

/* A loop executor: dispatch inline from inside a run, queued from outside. */
static void submit_loop_dispatch_inline_inside_run(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 0, 0);
	struct sb_loop_item d = { };
	struct exec_executor *lx;
	struct exec_loop *loop;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	lx = exec_loop_executor(loop);
	KUNIT_EXPECT_EQ(test, exec_dispatch(lx, &fx->items[0].work), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 0);
	exec_work_init(&d.work, sb_loop_dispatch);
	d.loop = loop;
	d.other = &fx->items[1].work;
	d.other_runs = &fx->items[1].runs;
	KUNIT_EXPECT_EQ(test, exec_post(lx, &d.work), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 2L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, d.ret, 0);
	KUNIT_EXPECT_TRUE(test, d.other_ran_before_return);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

/* Work guards: one unit each, released once; bad input. */
static void submit_work_guard_release_once(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct exec_work_guard g;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(&g, fx->ex), 0);
	KUNIT_EXPECT_TRUE(test, exec_work_guard_owns(&g));
	KUNIT_EXPECT_PTR_EQ(test, exec_work_guard_executor(&g), fx->ex);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g), 0);
	KUNIT_EXPECT_FALSE(test, exec_work_guard_owns(&g));
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(&g, NULL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_work_guard_owns(&g));
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(NULL, fx->ex), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(NULL), -EINVAL);
	/* Executors that do not track outstanding work ignore guards. */
	KUNIT_EXPECT_EQ(test, exec_work_guard_init(&g, exec_inline_executor()),
			0);
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g), 0);
	exec_on_work_started(NULL);
	exec_on_work_finished(NULL);
	/* A released guard does not hold join up. */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(fx->pool), 0);
	sb_finish(fx);
}

static int sb_join_thread(void *arg)
{
	return exec_thread_pool_join(arg);
}

/*
 * join waits while a guard is held, accepts submissions from outside
 * meanwhile (an operation in flight posting its completion), returns once
 * the guard is released and the work has run, and the pool then refuses
 * outside submissions.
 */
static void submit_pool_join_waits_for_guard(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);
	struct exec_test_thread joiner;
	struct exec_work_guard g;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_work_guard_init(&g, fx->ex), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&joiner, sb_join_thread,
						     fx->pool, "sb-join"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&joiner));
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_TRUE(test, sb_wait_runs(&fx->items[0], 1));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&joiner));
	KUNIT_EXPECT_EQ(test, exec_work_guard_reset(&g), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&joiner,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, joiner.ret, 0L);
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[1].work),
			-ESHUTDOWN);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[1].work));
	sb_finish(fx);
}

/* join waits for queued and running items; two joiners both return. */
static void submit_pool_join_runs_everything_queued(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct exec_test_thread joiners[2];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = sb_block;
	for (i = 0; i < SB_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[i].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&joiners[i],
							     sb_join_thread,
							     fx->pool,
							     "sb-join"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&joiners[0]));
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&joiners[1]));
	exec_test_gate_open(&fx->gate);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&joiners[i],
							      EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, joiners[i].ret, 0L);
	}
	for (i = 0; i < SB_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
	sb_finish(fx);
}

/*
 * stop: the running item finishes, nothing else starts; join returns;
 * submissions fail; destroy hands the rest back and counts it.
 */
static void submit_pool_stop_leaves_queue_to_destroy(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	unsigned int i;
	long discarded;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = sb_block;
	for (i = 0; i < SB_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[i].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	KUNIT_EXPECT_FALSE(test, exec_thread_pool_stopped(fx->pool));
	exec_thread_pool_stop(fx->pool);
	KUNIT_EXPECT_TRUE(test, exec_thread_pool_stopped(fx->pool));
	/* The running item is no longer pending: refused for the stop. */
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work),
			-ESHUTDOWN);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(fx->pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[1].runs), 0);
	discarded = exec_thread_pool_destroy(fx->pool);
	fx->pool = NULL;
	KUNIT_EXPECT_EQ(test, discarded, (long)SB_ITEMS - 1);
	for (i = 1; i < SB_ITEMS; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].discards), 1);
	}
}

static void sb_stop_own_pool(struct sb_item *it)
{
	struct sb_fx *fx = it->fx;

	exec_thread_pool_stop(fx->pool);
	it->ret = exec_thread_pool_join(fx->pool);
	KUNIT_EXPECT_EQ(fx->test, exec_post(fx->ex, &fx->items[1].work),
			-ESHUTDOWN);
}

/* stop from one of the pool's items; join from one is -EDEADLK. */
static void submit_pool_stop_from_item_join_edeadlk(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 2, 0);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->items[0].action = sb_stop_own_pool;
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &fx->items[0].work), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(fx->pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].runs), 1);
	KUNIT_EXPECT_EQ(test, fx->items[0].ret, -EDEADLK);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(NULL), -EINVAL);
	exec_thread_pool_stop(NULL);
	KUNIT_EXPECT_FALSE(test, exec_thread_pool_stopped(NULL));
	sb_finish(fx);
}

struct sb_chain {
	struct exec_work work;
	struct exec_executor *ex;
	unsigned long hops, total;
	unsigned int inline_runs;	/* hops that ran inside dispatch */
	bool in_dispatch;
	int err;
	atomic_t done;
};

static void sb_chain_hop(struct exec_work *work)
{
	struct sb_chain *c = container_of(work, struct sb_chain, work);
	int err;

	if (c->in_dispatch)
		c->inline_runs++;
	if (++c->hops == c->total) {
		exec_test_count(&c->done);
		return;
	}
	c->in_dispatch = true;
	err = exec_dispatch(c->ex, &c->work);
	/* The test reads the chain once done: nothing written after that. */
	if (err) {
		c->err = err;
		exec_test_count(&c->done);
		return;
	}
	c->in_dispatch = false;
}

/*
 * A chain of items, each dispatching its successor from inside the pool,
 * runs mostly inline but never recurses deeper than the bound: every hop
 * runs, none is lost, and the stack survives.
 */
static void submit_dispatch_chain_depth_is_bounded(struct kunit *test)
{
	struct sb_fx *fx = sb_create(test, 1, 0);
	struct sb_chain *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	exec_work_init(&c->work, sb_chain_hop);
	c->ex = fx->ex;
	c->total = 100000;
	atomic_set(&c->done, 0);
	KUNIT_EXPECT_EQ(test, exec_post(fx->ex, &c->work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&c->done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, c->err, 0);
	KUNIT_EXPECT_EQ(test, c->hops, c->total);
	/* 15 of every 16 hops inline; each 16th was posted. */
	KUNIT_EXPECT_GT(test, c->inline_runs, (unsigned int)(c->total / 2));
	KUNIT_EXPECT_LT(test, c->inline_runs, (unsigned int)c->total - 1);
	sb_finish(fx);
}

static struct kunit_case exec_submit_cases[] = {
	KUNIT_CASE(submit_dispatch_chain_depth_is_bounded),
	KUNIT_CASE(submit_post_from_worker_never_runs_in_caller),
	KUNIT_CASE(submit_dispatch_inside_pool_runs_inline),
	KUNIT_CASE(submit_dispatch_outside_pool_posts),
	KUNIT_CASE(submit_defer_runs_after_current_before_queue),
	KUNIT_CASE(submit_defer_outside_behaves_as_post),
	KUNIT_CASE(submit_post_on_full_bounded_pool_eagain),
	KUNIT_CASE(submit_closure_forms_run_once),
	KUNIT_CASE(submit_closures_reused),
	KUNIT_CASE(submit_closures_thread_exit),
	KUNIT_CASE(submit_inline_post_defer_eopnotsupp_dispatch_runs),
	KUNIT_CASE(submit_running_in_this_thread_per_kind),
	KUNIT_CASE(submit_strands_compare_by_identity),
	KUNIT_CASE(submit_strand_dispatch_rules),
	KUNIT_CASE(submit_loop_dispatch_inline_inside_run),
	KUNIT_CASE(submit_work_guard_release_once),
	KUNIT_CASE(submit_pool_join_waits_for_guard),
	KUNIT_CASE(submit_pool_join_runs_everything_queued),
	KUNIT_CASE(submit_pool_stop_leaves_queue_to_destroy),
	KUNIT_CASE(submit_pool_stop_from_item_join_edeadlk),
	{}
};

static struct kunit_suite exec_submit_suite = {
	.name = "exec-submit",
	.test_cases = exec_submit_cases,
};

kunit_test_suites(&exec_submit_suite);

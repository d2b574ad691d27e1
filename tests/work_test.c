// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Work items and the abstract executor: initialisation, the pending bit,
 * double submission, argument checks, and the ops contract seen by an
 * executor written by a user (include/exec/work.h, include/exec/executor.h).
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

struct tw {
	struct exec_work work;
	atomic_t runs;
	atomic_t discards;
	atomic_t pending_in_func;	/* runs that saw the pending bit set */
	int resubmit;			/* how many more times to resubmit */
	atomic_t resubmit_errors;
	struct exec_executor *ex;
};

static void tw_func(struct exec_work *work)
{
	struct tw *t = container_of(work, struct tw, work);

	if (exec_work_pending(work))
		exec_test_count(&t->pending_in_func);
	if (t->resubmit > 0) {
		t->resubmit--;
		if (exec_submit(t->ex, work))
			exec_test_count(&t->resubmit_errors);
	}
	exec_test_count(&t->runs);
}

static void tw_discard(struct exec_work *work)
{
	struct tw *t = container_of(work, struct tw, work);

	exec_test_count(&t->discards);
}

static void tw_init(struct tw *t, struct exec_executor *ex)
{
	exec_work_init_discard(&t->work, tw_func, tw_discard);
	atomic_set(&t->runs, 0);
	atomic_set(&t->discards, 0);
	atomic_set(&t->pending_in_func, 0);
	atomic_set(&t->resubmit_errors, 0);
	t->resubmit = 0;
	t->ex = ex;
}

struct gate_work {
	struct exec_work work;
	struct exec_test_gate *gate;
	atomic_t done;
};

static void gate_func(struct exec_work *work)
{
	struct gate_work *g = container_of(work, struct gate_work, work);

	exec_test_gate_pass(g->gate);
	exec_test_count(&g->done);
}

static void dummy_func(struct exec_work *work)
{
}

static void work_init_leaves_item_idle_with_func_and_no_discard(struct kunit *test)
{
	struct exec_work w;

	w.next = &w;
	w.discard = dummy_func;
	w.flags = ~0UL;
	exec_work_init(&w, tw_func);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&w));
	KUNIT_EXPECT_EQ(test, w.flags, 0UL);
	KUNIT_EXPECT_TRUE(test, w.func == tw_func);
	KUNIT_EXPECT_TRUE(test, w.discard == NULL);
	KUNIT_EXPECT_PTR_EQ(test, w.next, NULL);
}

static void work_init_discard_sets_both_callbacks(struct kunit *test)
{
	struct exec_work w;

	w.flags = ~0UL;
	exec_work_init_discard(&w, tw_func, tw_discard);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&w));
	KUNIT_EXPECT_TRUE(test, w.func == tw_func);
	KUNIT_EXPECT_TRUE(test, w.discard == tw_discard);
}

static void work_static_initializer_equals_work_init(struct kunit *test)
{
	struct exec_work s = EXEC_WORK_INIT(tw_func);
	struct exec_work d;

	exec_work_init(&d, tw_func);
	KUNIT_EXPECT_TRUE(test, s.func == d.func);
	KUNIT_EXPECT_TRUE(test, s.discard == d.discard);
	KUNIT_EXPECT_PTR_EQ(test, s.next, d.next);
	KUNIT_EXPECT_EQ(test, s.flags, d.flags);
}

/* A loop executor runs nothing until asked: the queued state is stable. */
static void work_pending_bit_set_while_queued(struct kunit *test)
{
	struct exec_loop *loop;
	struct tw t;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	tw_init(&t, exec_loop_executor(loop));
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&t.work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(t.ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(loop), 1);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&t.work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(t.ex), 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static void work_pending_bit_cleared_before_func_runs(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_loop *loop;
	struct tw t;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	tw_init(&t, exec_loop_executor(loop));
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.pending_in_func), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	tw_init(&t, exec_thread_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&t.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.pending_in_func), 0);
}

static void work_func_may_resubmit_its_own_item(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_loop *loop;
	struct tw t;

	/* On a loop executor each resubmission is one more queued item. */
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	tw_init(&t, exec_loop_executor(loop));
	t.resubmit = 2;
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(loop), 1);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&t.work));
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(loop), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(loop), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_try_run_one_closure(loop), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.resubmit_errors), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);

	/* On a pool the next run may start while this one is still going. */
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	tw_init(&t, exec_thread_pool_executor(pool));
	t.resubmit = 99;
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&t.runs, 100,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 100);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.resubmit_errors), 0);
}

static void work_double_submission_ealready_and_runs_once(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_test_gate gate;
	struct exec_loop *loop;
	struct gate_work g;
	struct tw t;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	tw_init(&t, exec_loop_executor(loop));
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_try_submit(t.ex, &t.work), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_submit_flags(t.ex, &t.work,
						EXEC_SUBMIT_NOWAIT), -EALREADY);
	KUNIT_EXPECT_TRUE(test, exec_work_pending(&t.work));
	KUNIT_EXPECT_EQ(test, exec_pending_count(t.ex), 1UL);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);

	/* On a pool, held back behind a blocked worker. */
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	exec_test_gate_init(&gate);
	exec_work_init(&g.work, gate_func);
	g.gate = &gate;
	atomic_set(&g.done, 0);
	tw_init(&t, exec_thread_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &g.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&gate, 1));
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(t.ex, &t.work), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_try_submit(t.ex, &t.work), -EALREADY);
	exec_test_gate_open(&gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&t.runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&g.done), 1);
}

static void work_submit_null_executor_einval(struct kunit *test)
{
	struct tw t;

	tw_init(&t, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit(NULL, &t.work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_try_submit(NULL, &t.work), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_flags(NULL, &t.work, 0), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&t.work));
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 0);
}

static void work_submit_null_item_einval(struct kunit *test)
{
	struct exec_loop *loop;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	ex = exec_loop_executor(loop);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_try_submit(ex, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_flags(ex, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_inline_executor(), NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static void work_submit_item_without_func_einval(struct kunit *test)
{
	struct exec_loop *loop;
	struct exec_executor *ex;
	struct exec_work w;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	ex = exec_loop_executor(loop);
	exec_work_init(&w, NULL);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &w), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_try_submit(ex, &w), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_inline_executor(), &w),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_work_pending(&w));
	KUNIT_EXPECT_EQ(test, exec_pending_count(ex), 0UL);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static void closure_count(void *arg)
{
	exec_test_count(arg);
}

static void work_submit_fn_null_executor_or_fn_einval(struct kunit *test)
{
	struct exec_loop *loop;
	atomic_t n = ATOMIC_INIT(0);

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(NULL, closure_count, &n), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(NULL, closure_count, NULL,
						  &n, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_loop_executor(loop), NULL,
					     &n), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_loop_executor(loop)),
			0UL);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&n), 0);
}

static void work_null_executor_pending_zero_and_kind_null(struct kunit *test)
{
	struct exec_loop *loop;

	KUNIT_EXPECT_EQ(test, exec_pending_count(NULL), 0UL);
	KUNIT_EXPECT_STREQ(test, exec_executor_kind(NULL), "null");
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_EXPECT_NOT_NULL(test, exec_executor_kind(exec_loop_executor(loop)));
	KUNIT_EXPECT_STRNEQ(test, exec_executor_kind(exec_loop_executor(loop)),
			    "null");
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

/*
 * An executor written by a user, as executor.h allows: it only queues, and
 * the test plays its worker.  It checks what the library promises the ops:
 * the pending bit is set before ops->submit, a failure is undone by the
 * caller, and EXEC_SUBMIT_NOWAIT reaches the ops for try_submit.
 */
#define CUSTOM_SLOTS	8

struct custom_ex {
	struct exec_executor ex;
	int ret;			/* what ops->submit answers */
	unsigned int calls;
	unsigned int last_flags;
	bool pending_seen;		/* the bit was set on every call */
	unsigned int nr;
	struct exec_work *q[CUSTOM_SLOTS];
};

static int custom_submit(struct exec_executor *ex, struct exec_work *work,
			 unsigned int flags)
{
	struct custom_ex *c = container_of(ex, struct custom_ex, ex);

	c->calls++;
	c->last_flags = flags;
	if (!exec_work_pending(work))
		c->pending_seen = false;
	if (c->ret)
		return c->ret;
	if (c->nr == CUSTOM_SLOTS)
		return -EAGAIN;
	c->q[c->nr++] = work;
	return 0;
}

static unsigned long custom_pending(struct exec_executor *ex)
{
	return container_of(ex, struct custom_ex, ex)->nr;
}

static const struct exec_executor_ops custom_ops = {
	.kind = "custom",
	.submit = custom_submit,
	.pending = custom_pending,
};

/* Start the oldest item as an executor must: clear the bit, then call. */
static void custom_run_one(struct custom_ex *c, bool drop)
{
	struct exec_work *w = c->q[0];
	unsigned int i;

	for (i = 1; i < c->nr; i++)
		c->q[i - 1] = c->q[i];
	c->nr--;
	clear_bit(0, &w->flags);	/* EXEC_WORK_PENDING is bit 0 */
	if (!drop)
		w->func(w);
	else if (w->discard)
		w->discard(w);
}

static int custom_init(struct custom_ex *c)
{
	c->ret = 0;
	c->calls = 0;
	c->last_flags = ~0U;
	c->pending_seen = true;
	c->nr = 0;
	return exec_executor_init(&c->ex, &custom_ops);
}

static void custom_executor_submit_sees_pending_bit_and_flags(struct kunit *test)
{
	struct custom_ex *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct tw t;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, custom_init(c), 0);
	KUNIT_EXPECT_STREQ(test, exec_executor_kind(&c->ex), "custom");
	tw_init(&t, &c->ex);

	KUNIT_EXPECT_EQ(test, exec_submit(&c->ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, c->last_flags & EXEC_SUBMIT_NOWAIT, 0U);
	KUNIT_EXPECT_EQ(test, exec_pending_count(&c->ex), 1UL);
	custom_run_one(c, false);

	KUNIT_EXPECT_EQ(test, exec_try_submit(&c->ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, c->last_flags & EXEC_SUBMIT_NOWAIT,
			EXEC_SUBMIT_NOWAIT);
	custom_run_one(c, false);

	KUNIT_EXPECT_EQ(test, exec_submit_flags(&c->ex, &t.work,
						EXEC_SUBMIT_NOWAIT), 0);
	KUNIT_EXPECT_EQ(test, c->last_flags & EXEC_SUBMIT_NOWAIT,
			EXEC_SUBMIT_NOWAIT);
	custom_run_one(c, false);

	KUNIT_EXPECT_TRUE(test, c->pending_seen);
	KUNIT_EXPECT_EQ(test, c->calls, 3U);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 3);
	exec_executor_fini(&c->ex);
}

static void custom_executor_failed_submit_leaves_item_idle(struct kunit *test)
{
	static const int errs[] = { -ESHUTDOWN, -EAGAIN };
	struct custom_ex *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int i;
	struct tw t;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, custom_init(c), 0);
	tw_init(&t, &c->ex);
	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		c->ret = errs[i];
		KUNIT_EXPECT_EQ(test, exec_submit(&c->ex, &t.work), errs[i]);
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&t.work));
	}
	/* The item is idle again, so it can be submitted and run. */
	c->ret = 0;
	KUNIT_EXPECT_EQ(test, exec_submit(&c->ex, &t.work), 0);
	custom_run_one(c, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	exec_executor_fini(&c->ex);
}

static void custom_executor_double_submission_not_passed_to_ops(struct kunit *test)
{
	struct custom_ex *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct tw t;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, custom_init(c), 0);
	tw_init(&t, &c->ex);
	KUNIT_EXPECT_EQ(test, exec_submit(&c->ex, &t.work), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(&c->ex, &t.work), -EALREADY);
	KUNIT_EXPECT_EQ(test, c->calls, 1U);
	KUNIT_EXPECT_EQ(test, c->nr, 1U);
	custom_run_one(c, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.runs), 1);
	exec_executor_fini(&c->ex);
}

struct closure_arg {
	atomic_t runs;
	atomic_t discards;
};

static void closure_run(void *arg)
{
	exec_test_count(&((struct closure_arg *)arg)->runs);
}

static void closure_discard(void *arg)
{
	exec_test_count(&((struct closure_arg *)arg)->discards);
}

static void custom_executor_closures_run_or_discard(struct kunit *test)
{
	struct custom_ex *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct closure_arg a;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, custom_init(c), 0);
	atomic_set(&a.runs, 0);
	atomic_set(&a.discards, 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(&c->ex, closure_run, &a), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(&c->ex, closure_run,
						  closure_discard, &a, 0), 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(&c->ex, closure_run,
						  closure_discard, &a,
						  EXEC_SUBMIT_NOWAIT), 0);
	KUNIT_EXPECT_TRUE(test, c->pending_seen);
	KUNIT_ASSERT_EQ(test, c->nr, 3U);
	custom_run_one(c, false);
	custom_run_one(c, false);
	custom_run_one(c, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.discards), 1);

	/* A closure the executor refuses is released, and neither called. */
	c->ret = -ESHUTDOWN;
	KUNIT_EXPECT_EQ(test, exec_submit_fn_full(&c->ex, closure_run,
						  closure_discard, &a, 0),
			-ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&a.discards), 1);
	exec_executor_fini(&c->ex);
}

static struct kunit_case exec_work_cases[] = {
	KUNIT_CASE(work_init_leaves_item_idle_with_func_and_no_discard),
	KUNIT_CASE(work_init_discard_sets_both_callbacks),
	KUNIT_CASE(work_static_initializer_equals_work_init),
	KUNIT_CASE(work_pending_bit_set_while_queued),
	KUNIT_CASE(work_pending_bit_cleared_before_func_runs),
	KUNIT_CASE(work_func_may_resubmit_its_own_item),
	KUNIT_CASE(work_double_submission_ealready_and_runs_once),
	KUNIT_CASE(work_submit_null_executor_einval),
	KUNIT_CASE(work_submit_null_item_einval),
	KUNIT_CASE(work_submit_item_without_func_einval),
	KUNIT_CASE(work_submit_fn_null_executor_or_fn_einval),
	KUNIT_CASE(work_null_executor_pending_zero_and_kind_null),
	KUNIT_CASE(custom_executor_submit_sees_pending_bit_and_flags),
	KUNIT_CASE(custom_executor_failed_submit_leaves_item_idle),
	KUNIT_CASE(custom_executor_double_submission_not_passed_to_ops),
	KUNIT_CASE(custom_executor_closures_run_or_discard),
	{}
};

static struct kunit_suite exec_work_suite = {
	.name = "exec-work",
	.test_cases = exec_work_cases,
};

kunit_test_suites(&exec_work_suite);

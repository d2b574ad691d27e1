// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Futures, continuations, spawn and the associated executor
 * (include/exec/future.h, P0113R0 and N4143): results and error results,
 * timed waits, the result read once, then() before and after completion on
 * the chosen executor, -EBUSY/-EINVAL/-EALREADY misuse, discarded work and
 * continuations completing with -ECANCELED, the work guard of a registered
 * continuation, exec_spawn(), bound handlers, many futures from several
 * threads, NULL arguments, and chains of continuations
 * (exec_future_then_future()) with their errors and cancellations.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define FX_WAIT_NS	((uint64_t)EXEC_TEST_TIMEOUT_MS * 1000000ULL)
#define FX_THREADS	4
#define FX_PER_THREAD	250

struct fut_fx {
	struct kunit *test;
	struct exec_thread_pool *one;	/* one worker: gates block it */
	struct exec_thread_pool *two;	/* the continuations' executor */
	struct exec_executor *ex_one;
	struct exec_executor *ex_two;
	struct exec_test_gate gate;
	atomic_t runs;			/* pieces of work that ran */
	atomic_t wrong_executor;	/* work that ran off its executor */
};

/* What a continuation or handler saw, published by @runs. */
struct cont_rec {
	struct exec_executor *ex;	/* where it should run */
	struct exec_executor *other;	/* where it should not */
	atomic_t runs;
	long result;
	bool on_ex;
	bool on_other;
};

static struct fut_fx *ffx_create(struct kunit *test)
{
	struct exec_thread_pool_attr one = { .nr_threads = 1 };
	struct exec_thread_pool_attr two = { .nr_threads = 2 };
	struct fut_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

	if (!fx)
		return NULL;
	fx->test = test;
	exec_test_gate_init(&fx->gate);
	if (exec_thread_pool_create(&fx->one, &one))
		goto err_free_fx;
	if (exec_thread_pool_create(&fx->two, &two))
		goto err_destroy_one;
	fx->ex_one = exec_thread_pool_executor(fx->one);
	fx->ex_two = exec_thread_pool_executor(fx->two);
	return fx;

err_destroy_one:
	exec_thread_pool_destroy(fx->one);
err_free_fx:
	kfree(fx);
	KUNIT_FAIL(test, "cannot create the pools");
	return NULL;
}

static void ffx_finish(struct fut_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->one), 0);
	KUNIT_EXPECT_EQ(fx->test, exec_thread_pool_destroy(fx->two), 0);
	kfree(fx);
}

static void rec_init(struct cont_rec *r, struct exec_executor *ex,
		     struct exec_executor *other)
{
	memset(r, 0, sizeof(*r));
	r->ex = ex;
	r->other = other;
	atomic_set(&r->runs, 0);
}

static void rec_cont(void *arg, long result)
{
	struct cont_rec *r = arg;

	r->result = result;
	r->on_ex = exec_running_in_this_thread(r->ex);
	r->on_other = r->other && exec_running_in_this_thread(r->other);
	exec_test_count(&r->runs);
}

static bool rec_wait(struct cont_rec *r, int n)
{
	return exec_test_wait_atomic_ge(&r->runs, n, EXEC_TEST_TIMEOUT_MS);
}

/* Work: returns 42 on ex_one. */
static long work_42(void *arg)
{
	struct fut_fx *fx = arg;

	if (!exec_running_in_this_thread(fx->ex_one))
		exec_test_count(&fx->wrong_executor);
	exec_test_count(&fx->runs);
	return 42;
}

static long work_eio(void *arg)
{
	struct fut_fx *fx = arg;

	exec_test_count(&fx->runs);
	return -EIO;
}

/* Work: blocks on the gate, then returns 5. */
static long work_gated(void *arg)
{
	struct fut_fx *fx = arg;

	if (!exec_test_gate_pass(&fx->gate))
		return -ETIMEDOUT;
	exec_test_count(&fx->runs);
	return 5;
}

static void future_spawn_wait_gets_result(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut;
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_42, fx),
			0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 42L);
	KUNIT_EXPECT_TRUE(test, exec_future_ready(fut));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->wrong_executor), 0);
	exec_future_put(fut);
	ffx_finish(fx);
}

static void future_error_result_travels_and_executor_keeps_working(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *bad, *good;
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&bad, fx->ex_one, work_eio, fx),
			0);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&good, fx->ex_one, work_42, fx),
			0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(bad, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (long)-EIO);
	KUNIT_EXPECT_EQ(test, exec_future_wait(good, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 42L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 2);
	exec_future_put(bad);
	exec_future_put(good);
	ffx_finish(fx);
}

static void future_wait_times_out_then_succeeds(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut;
	long result = 0;
	u64 start;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_gated,
						fx), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	KUNIT_EXPECT_FALSE(test, exec_future_ready(fut));
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), -ETIMEDOUT);
	start = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 20 * 1000000ULL, &result),
			-ETIMEDOUT);
	/* It slept out its timeout. */
	KUNIT_EXPECT_GE(test, ktime_get_ns() - start, 20 * 1000000ULL);
	KUNIT_EXPECT_EQ(test, result, 0L);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 5L);
	exec_future_put(fut);
	ffx_finish(fx);
}

struct waker {
	struct exec_future *fut;
	u64 start;
	long result;
};

static int waker_wait_forever(void *arg)
{
	struct waker *w = arg;

	return exec_future_wait(w->fut, EXEC_FUTURE_FOREVER, &w->result);
}

/* A sleeping waiter (no timeout) is woken by a completion by hand. */
static void future_sleeping_waiter_woken_by_complete(struct kunit *test)
{
	struct exec_test_thread t;
	struct waker w = { 0 };

	KUNIT_ASSERT_EQ(test, exec_future_create(&w.fut), 0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t, waker_wait_forever,
						     &w, "exec-test-wait"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_FALSE(test, exec_test_thread_done(&t));
	KUNIT_EXPECT_EQ(test, exec_future_complete(w.fut, 77), 0);
	if (!exec_test_thread_join(&t, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(test, "waiter not woken; leaking the future");
		return;
	}
	KUNIT_EXPECT_EQ(test, t.ret, 0L);
	KUNIT_EXPECT_EQ(test, w.result, 77L);
	exec_future_put(w.fut);
}

static void future_wait_twice_ealready(struct kunit *test)
{
	struct exec_future *fut;
	long result = 0;

	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 3), 0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 3L);
	result = 0;
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, FX_WAIT_NS, &result),
			-EALREADY);
	KUNIT_EXPECT_EQ(test, result, 0L);
	/* The result is gone: no continuation can have it either. */
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, exec_inline_executor(),
					       rec_cont, NULL), -EALREADY);
	exec_future_put(fut);
}

static void future_then_before_completion_runs_once_on_its_executor(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut;
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_two, fx->ex_one);
	/* Spawned on one, continued on two. */
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_gated,
						fx), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, fx->ex_two, rec_cont, &r),
			0);
	/* The caller's reference may go at once. */
	exec_future_put(fut);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 0);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, 5L);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	KUNIT_EXPECT_FALSE(test, r.on_other);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	ffx_finish(fx);
}

static void future_then_after_completion_runs_once_on_its_executor(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut;
	unsigned int spins = 0;
	struct cont_rec r;
	u64 deadline;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_two, fx->ex_one);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_42, fx),
			0);
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!exec_future_ready(fut) && !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_EXPECT_TRUE(test, exec_future_ready(fut));
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, fx->ex_two, rec_cont, &r),
			0);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, 42L);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	KUNIT_EXPECT_FALSE(test, r.on_other);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	exec_future_put(fut);
	ffx_finish(fx);
}

/* A future completed by hand (P0113 use_future) continues on its executor. */
static void future_complete_by_hand_runs_continuation(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut;
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_two, fx->ex_one);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, fx->ex_two, rec_cont, &r),
			0);
	KUNIT_EXPECT_FALSE(test, exec_future_ready(fut));
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, -ENOSPC), 0);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, (long)-ENOSPC);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	exec_future_put(fut);
	ffx_finish(fx);
}

static void future_then_twice_ebusy(struct kunit *test)
{
	struct exec_future *fut;
	struct cont_rec r, r2;

	rec_init(&r, exec_inline_executor(), NULL);
	rec_init(&r2, exec_inline_executor(), NULL);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, exec_inline_executor(),
					       rec_cont, &r), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, exec_inline_executor(),
					       rec_cont, &r2), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 8), 0);
	/* On the inline executor: in the completing thread, at once. */
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	KUNIT_EXPECT_EQ(test, r.result, 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&r2.runs), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, exec_inline_executor(),
					       rec_cont, &r2), -EBUSY);
	exec_future_put(fut);
}

static void future_wait_after_then_einval(struct kunit *test)
{
	struct exec_future *fut;
	struct cont_rec r;
	long result = 0;

	rec_init(&r, exec_inline_executor(), NULL);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, exec_inline_executor(),
					       rec_cont, &r), 0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, FX_WAIT_NS, &result),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 1), 0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), -EINVAL);
	KUNIT_EXPECT_EQ(test, result, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	exec_future_put(fut);
}

static void future_complete_twice_ealready(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut, *spawned;
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 1), 0);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 2), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 1L);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 3), -EALREADY);
	exec_future_put(fut);
	/* A spawned future is completed by its work only. */
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&spawned, fx->ex_one,
						work_gated, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_future_complete(spawned, 9), -EINVAL);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_future_wait(spawned, FX_WAIT_NS, &result),
			0);
	KUNIT_EXPECT_EQ(test, result, 5L);
	exec_future_put(spawned);
	ffx_finish(fx);
}

/* A loop executor destroyed with the work queued: -ECANCELED, no run. */
static void future_discarded_by_loop_destroy_ecanceled(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *waited, *continued;
	struct exec_loop *loop;
	struct cont_rec r;
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_two, NULL);
	if (exec_loop_create(&loop)) {
		KUNIT_FAIL(test, "cannot create the loop");
		goto out;
	}
	KUNIT_EXPECT_EQ(test, exec_spawn_future(&waited,
						exec_loop_executor(loop),
						work_42, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_spawn_future(&continued,
						exec_loop_executor(loop),
						work_42, fx), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(continued, fx->ex_two, rec_cont,
					       &r), 0);
	exec_future_put(continued);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 2L);
	KUNIT_EXPECT_TRUE(test, exec_future_ready(waited));
	KUNIT_EXPECT_EQ(test, exec_future_wait(waited, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (long)-ECANCELED);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, (long)-ECANCELED);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
	exec_future_put(waited);
out:
	ffx_finish(fx);
}

/* shutdown_hard while a gate holds the only worker: the queued one fails. */
static void future_discarded_by_shutdown_hard_ecanceled(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *running, *queued;
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&running, fx->ex_one,
						work_gated, fx), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&queued, fx->ex_one, work_42,
						fx), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(fx->one), 1L);
	KUNIT_EXPECT_EQ(test, exec_future_wait(queued, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (long)-ECANCELED);
	exec_future_put(queued);
	KUNIT_EXPECT_FALSE(test, exec_future_ready(running));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_future_wait(running, FX_WAIT_NS, &result),
			0);
	KUNIT_EXPECT_EQ(test, result, 5L);
	/* After the shutdown nothing is accepted, and nothing allocated. */
	KUNIT_EXPECT_EQ(test, exec_spawn_future(&queued, fx->ex_one, work_42,
						fx), -ESHUTDOWN);
	KUNIT_EXPECT_NULL(test, queued);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 1);
	exec_future_put(running);
	ffx_finish(fx);
}

/* A continuation queued on a loop that is destroyed: -ECANCELED, once. */
static void future_continuation_discarded_ecanceled(struct kunit *test)
{
	struct exec_future *fut;
	struct exec_loop *loop;
	struct cont_rec r;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	rec_init(&r, exec_loop_executor(loop), NULL);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, exec_loop_executor(loop),
					       rec_cont, &r), 0);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 0);
	KUNIT_EXPECT_EQ(test, exec_pending_count(exec_loop_executor(loop)),
			1UL);
	exec_future_put(fut);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	KUNIT_EXPECT_EQ(test, r.result, (long)-ECANCELED);
}

/*
 * A test executor that runs items in the submitter and counts outstanding
 * work, to see the guard of a registered continuation.
 */
struct counting_ex {
	struct exec_executor ex;
	atomic_t outstanding;
	atomic_t submitted;
};

static int counting_submit(struct exec_executor *ex, struct exec_work *work,
			   unsigned int flags)
{
	struct counting_ex *c = container_of(ex, struct counting_ex, ex);

	exec_test_count(&c->submitted);
	clear_bit(0, &work->flags);	/* EXEC_WORK_PENDING */
	work->func(work);
	return 0;
}

static void counting_started(struct exec_executor *ex)
{
	atomic_inc(&container_of(ex, struct counting_ex, ex)->outstanding);
}

static void counting_finished(struct exec_executor *ex)
{
	atomic_dec(&container_of(ex, struct counting_ex, ex)->outstanding);
}

static const struct exec_executor_ops counting_ops = {
	.kind = "test-counting",
	.submit = counting_submit,
	.work_started = counting_started,
	.work_finished = counting_finished,
};

static void future_continuation_holds_work_guard(struct kunit *test)
{
	struct counting_ex *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct exec_future *fut;
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, c);
	if (exec_executor_init(&c->ex, &counting_ops)) {
		kfree(c);
		KUNIT_FAIL(test, "exec_executor_init failed");
		return;
	}
	rec_init(&r, &c->ex, NULL);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, &c->ex, rec_cont, &r), 0);
	/* Registered, not submitted: one unit of outstanding work. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c->outstanding), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->submitted), 0);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 6), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->submitted), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	KUNIT_EXPECT_EQ(test, r.result, 6L);
	/* Submitted: the unit is released. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c->outstanding), 0);
	exec_future_put(fut);
	exec_executor_fini(&c->ex);
	kfree(c);
}

static long work_echo(void *arg)
{
	return (long)(uintptr_t)arg;
}

static void spawn_runs_continuation_on_same_executor(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_two, fx->ex_one);
	KUNIT_EXPECT_EQ(test, exec_spawn(fx->ex_two, work_echo,
					 (void *)(uintptr_t)9, rec_cont, &r),
			0);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, 9L);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	KUNIT_EXPECT_FALSE(test, r.on_other);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	ffx_finish(fx);
}

static void spawn_discarded_calls_continuation_ecanceled(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_loop *loop;
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (exec_loop_create(&loop)) {
		KUNIT_FAIL(test, "cannot create the loop");
		goto out;
	}
	rec_init(&r, exec_loop_executor(loop), NULL);
	KUNIT_EXPECT_EQ(test, exec_spawn(exec_loop_executor(loop), work_42, fx,
					 rec_cont, &r), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
	KUNIT_EXPECT_EQ(test, r.result, (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
	/* A refused spawn calls nothing. */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(fx->one), 0L);
	KUNIT_EXPECT_EQ(test, exec_spawn(fx->ex_one, work_42, fx, rec_cont,
					 &r), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, atomic_read(&r.runs), 1);
out:
	ffx_finish(fx);
}

static void bound_handler_completes_on_its_executor(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_handler h;
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_two, fx->ex_one);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, fx->ex_two, rec_cont, &r),
			0);
	KUNIT_EXPECT_PTR_EQ(test, exec_handler_executor(&h, fx->ex_one),
			    fx->ex_two);
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&h, fx->ex_one, 13), 0);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, 13L);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	KUNIT_EXPECT_FALSE(test, r.on_other);
	/* N4143 set_executor is the same binding, once unbound. */
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), 0);
	KUNIT_EXPECT_NULL(test, h.ex);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), -EALREADY);
	KUNIT_EXPECT_EQ(test, exec_set_executor(&h, fx->ex_one, rec_cont, &r),
			0);
	KUNIT_EXPECT_PTR_EQ(test, h.ex, fx->ex_one);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&h), 0);
	ffx_finish(fx);
}

static void unbound_handler_completes_on_fallback(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_handler h;
	struct cont_rec r;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rec_init(&r, fx->ex_one, fx->ex_two);
	exec_handler_init(&h, rec_cont, &r);
	KUNIT_EXPECT_PTR_EQ(test, exec_handler_executor(&h, fx->ex_one),
			    fx->ex_one);
	KUNIT_EXPECT_NULL(test, exec_handler_executor(&h, NULL));
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&h, NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&h, fx->ex_one, -EPIPE), 0);
	KUNIT_EXPECT_TRUE(test, rec_wait(&r, 1));
	KUNIT_EXPECT_EQ(test, r.result, (long)-EPIPE);
	KUNIT_EXPECT_TRUE(test, r.on_ex);
	KUNIT_EXPECT_FALSE(test, r.on_other);
	ffx_finish(fx);
}

struct dispatch_probe {
	struct exec_handler h;
	struct cont_rec r;
	int ret;
	int runs_at_return;	/* handler runs seen when complete returned */
	atomic_t done;
};

static void dispatch_probe_fn(void *arg)
{
	struct dispatch_probe *p = arg;

	p->ret = exec_handler_complete(&p->h, NULL, 21);
	p->runs_at_return = atomic_read(&p->r.runs);
	exec_test_count(&p->done);
}

/*
 * Dispatch semantics: from inside the handler's executor (here a loop
 * executor, run by this thread) the handler is called before
 * exec_handler_complete() returns; from outside it is posted.
 */
static void bound_handler_dispatches_inside_its_executor(struct kunit *test)
{
	struct dispatch_probe *p = kzalloc(sizeof(*p), GFP_KERNEL);
	struct exec_executor *ex;
	struct exec_loop *loop;

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (exec_loop_create(&loop)) {
		KUNIT_FAIL(test, "cannot create the loop");
		goto out;
	}
	ex = exec_loop_executor(loop);
	rec_init(&p->r, ex, NULL);
	atomic_set(&p->done, 0);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&p->h, ex, rec_cont, &p->r),
			0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, dispatch_probe_fn, p), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->done), 1);
	KUNIT_EXPECT_EQ(test, p->ret, 0);
	KUNIT_EXPECT_EQ(test, p->runs_at_return, 1);
	KUNIT_EXPECT_EQ(test, p->r.result, 21L);
	KUNIT_EXPECT_TRUE(test, p->r.on_ex);
	/* From outside the loop: queued, run by the loop. */
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&p->h, NULL, 22), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->r.runs), 1);
	KUNIT_EXPECT_EQ(test, exec_loop_run_queued_closures(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->r.runs), 2);
	KUNIT_EXPECT_EQ(test, p->r.result, 22L);
	KUNIT_EXPECT_TRUE(test, p->r.on_ex);
	/* A queued handler whose executor goes away: -ECANCELED. */
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&p->h, NULL, 23), 0);
	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&p->h), 0);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->r.runs), 3);
	KUNIT_EXPECT_EQ(test, p->r.result, (long)-ECANCELED);
out:
	kfree(p);
}

struct many_ctx {
	struct fut_fx *fx;
	unsigned int id;
};

static long work_many(void *arg)
{
	struct many_ctx *m = arg;

	exec_test_count(&m->fx->runs);
	return (long)m->id * 3 + 1;
}

struct many_thread {
	struct fut_fx *fx;
	unsigned int tid;
	atomic_t wrong;
	struct many_ctx ctx[FX_PER_THREAD];
	struct exec_future *fut[FX_PER_THREAD];
};

static int many_thread_fn(void *arg)
{
	struct many_thread *t = arg;
	unsigned int i;
	long result;

	for (i = 0; i < FX_PER_THREAD; i++) {
		t->ctx[i].fx = t->fx;
		t->ctx[i].id = t->tid * FX_PER_THREAD + i;
		if (exec_spawn_future(&t->fut[i], t->fx->ex_two, work_many,
				      &t->ctx[i]))
			exec_test_count(&t->wrong);
	}
	for (i = 0; i < FX_PER_THREAD; i++) {
		if (!t->fut[i])
			continue;
		result = -1;
		if (exec_future_wait(t->fut[i], FX_WAIT_NS, &result) ||
		    result != (long)t->ctx[i].id * 3 + 1)
			exec_test_count(&t->wrong);
		exec_future_put(t->fut[i]);
	}
	return 0;
}

static void future_many_from_several_threads(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_test_thread *th;
	struct many_thread *mt;
	unsigned int i;
	bool hung = false;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	th = kcalloc(FX_THREADS, sizeof(*th), GFP_KERNEL);
	mt = kcalloc(FX_THREADS, sizeof(*mt), GFP_KERNEL);
	if (!th || !mt) {
		KUNIT_FAIL(test, "out of memory");
		goto out;
	}
	for (i = 0; i < FX_THREADS; i++) {
		mt[i].fx = fx;
		mt[i].tid = i;
		atomic_set(&mt[i].wrong, 0);
		if (exec_test_thread_start(&th[i], many_thread_fn, &mt[i],
					   "exec-test-many"))
			KUNIT_FAIL(test, "cannot start thread %u", i);
	}
	for (i = 0; i < FX_THREADS; i++) {
		if (!exec_test_thread_join(&th[i], EXEC_TEST_TIMEOUT_MS)) {
			hung = true;
			continue;
		}
		KUNIT_EXPECT_EQ(test, atomic_read(&mt[i].wrong), 0);
	}
	if (hung) {
		KUNIT_FAIL(test, "a thread hangs; leaking the fixture");
		return;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs),
			FX_THREADS * FX_PER_THREAD);
out:
	kfree(th);
	kfree(mt);
	ffx_finish(fx);
}

#define FX_RACE	2000

struct race;

struct race_item {
	struct race *rc;
	unsigned int i;
	atomic_t runs;
};

struct race {
	struct exec_future *fut[FX_RACE];
	struct race_item item[FX_RACE];
	atomic_t total;
	atomic_t wrong;
};

static void race_cont(void *arg, long result)
{
	struct race_item *it = arg;

	if (result != (long)it->i)
		exec_test_count(&it->rc->wrong);
	exec_test_count(&it->runs);
	exec_test_count(&it->rc->total);
}

static int race_complete_all(void *arg)
{
	struct race *rc = arg;
	unsigned int i;

	for (i = 0; i < FX_RACE; i++)
		if (exec_future_complete(rc->fut[i], i))
			exec_test_count(&rc->wrong);
	return 0;
}

/* then() racing complete(): each continuation runs once, with its result. */
static void future_then_racing_complete_runs_once(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_test_thread t;
	struct race *rc;
	unsigned int i, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc) {
		KUNIT_FAIL(test, "out of memory");
		goto out;
	}
	for (i = 0; i < FX_RACE; i++) {
		rc->item[i].rc = rc;
		rc->item[i].i = i;
		if (exec_future_create(&rc->fut[i]))
			goto err_put;
	}
	if (exec_test_thread_start(&t, race_complete_all, rc,
				   "exec-test-race")) {
		KUNIT_FAIL(test, "cannot start the helper");
		goto err_put;
	}
	for (i = 0; i < FX_RACE; i++)
		if (exec_future_then(rc->fut[i], fx->ex_two, race_cont,
				     &rc->item[i]))
			exec_test_count(&rc->wrong);
	if (!exec_test_thread_join(&t, EXEC_TEST_TIMEOUT_MS)) {
		KUNIT_FAIL(test, "helper hangs; leaking the fixture");
		return;
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&rc->total, FX_RACE,
							 EXEC_TEST_TIMEOUT_MS));
	msleep(EXEC_TEST_SETTLE_MS);
	for (i = 0; i < FX_RACE; i++)
		if (atomic_read(&rc->item[i].runs) != 1)
			n++;
	KUNIT_EXPECT_EQ(test, n, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->total), FX_RACE);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->wrong), 0);
err_put:
	for (i = 0; i < FX_RACE; i++)
		exec_future_put(rc->fut[i]);
	kfree(rc);
out:
	ffx_finish(fx);
}

static void cont_noop(void *arg, long result)
{
}

static void future_null_arguments_einval(struct kunit *test)
{
	struct exec_executor *ex = exec_inline_executor();
	struct exec_future *fut = (struct exec_future *)1;
	struct exec_handler h;
	long result;

	KUNIT_EXPECT_EQ(test, exec_future_create(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_spawn_future(NULL, ex, work_echo, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_spawn_future(&fut, NULL, work_echo, NULL),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, fut);
	KUNIT_EXPECT_EQ(test, exec_spawn_future(&fut, ex, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_complete(NULL, 0), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_future_ready(NULL));
	KUNIT_EXPECT_EQ(test, exec_future_wait(NULL, 0, &result), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_then(NULL, ex, cont_noop, NULL),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, exec_future_get(NULL));
	exec_future_put(NULL);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, NULL, cont_noop, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, ex, NULL, NULL), -EINVAL);
	/* The refused calls left it usable. */
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 2), 0);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 2L);
	/* An extra reference, dropped twice. */
	KUNIT_EXPECT_PTR_EQ(test, exec_future_get(fut), fut);
	exec_future_put(fut);
	exec_future_put(fut);

	KUNIT_EXPECT_EQ(test, exec_spawn(NULL, work_echo, NULL, cont_noop,
					 NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_spawn(ex, NULL, NULL, cont_noop, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_spawn(ex, work_echo, NULL, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(NULL, ex, cont_noop, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, NULL, cont_noop, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_bind_executor(&h, ex, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_NULL(test, exec_handler_executor(NULL, ex));
	KUNIT_EXPECT_EQ(test, exec_handler_complete(NULL, ex, 0), -EINVAL);
	exec_handler_init(&h, NULL, NULL);
	KUNIT_EXPECT_EQ(test, exec_handler_complete(&h, ex, 0), -EINVAL);
}

/*
 * Chained continuations (exec_future_then_future(), N4143 then): each step
 * records the result it was given and where it ran, and returns the next.
 */
#define CHAIN_STEPS	4

struct chain_fx {
	struct exec_executor *ex;	/* where every step must run */
	atomic_t steps;
	atomic_t wrong_executor;
	long seen[CHAIN_STEPS + 1];
};

/* Appends its index to a good result (1 -> 11 -> 112 ...); errors pass. */
static long chain_step(void *arg, long result)
{
	struct chain_fx *c = arg;
	int i = atomic_read(&c->steps);

	if (c->ex && exec_current_executor() != c->ex)
		exec_test_count(&c->wrong_executor);
	if (i <= CHAIN_STEPS)
		c->seen[i] = result;
	exec_test_count(&c->steps);
	if (result < 0)
		return result;
	return result * 10 + i + 1;
}

/* A step that ignores its input: only a discard keeps 100 from the next. */
static long chain_ignore(void *arg, long result)
{
	chain_step(arg, result);
	return 100;
}

/* A step that turns an error into a result. */
static long chain_recover(void *arg, long result)
{
	chain_step(arg, result);
	return result < 0 ? 7 : result;
}

static long work_one(void *arg)
{
	return 1;
}

/*
 * Chains CHAIN_STEPS steps on @ex after @first, dropping every reference
 * but the last future's at once, and returns that one (NULL on failure).
 */
static struct exec_future *chain_build(struct kunit *test,
				       struct exec_future *first,
				       struct exec_executor *ex,
				       struct chain_fx *c)
{
	struct exec_future *fut = first, *next;
	int i;

	for (i = 0; i < CHAIN_STEPS; i++) {
		KUNIT_EXPECT_EQ(test, exec_future_then_future(&next, fut, ex,
							      chain_step, c),
				0);
		exec_future_put(fut);
		if (!next)
			return NULL;
		fut = next;
	}
	return fut;
}

static void chain_expect(struct kunit *test, struct exec_future *last,
			 struct chain_fx *c, long want)
{
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, last);
	KUNIT_EXPECT_EQ(test, exec_future_wait(last, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, want);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->steps), CHAIN_STEPS);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->wrong_executor), 0);
	exec_future_put(last);
}

static void future_chain_on_pool_and_strand(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut, *last;
	struct exec_serial *strand;
	struct chain_fx c;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	/* On a pool, begun while the first work waits at the gate. */
	memset(&c, 0, sizeof(c));
	c.ex = fx->ex_two;
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_gated,
						fx), 0);
	last = chain_build(test, fut, fx->ex_two, &c);
	KUNIT_EXPECT_FALSE(test, exec_future_ready(last));
	exec_test_gate_open(&fx->gate);
	chain_expect(test, last, &c, 51234L);
	KUNIT_EXPECT_EQ(test, c.seen[0], 5L);
	KUNIT_EXPECT_EQ(test, c.seen[3], 5123L);

	/* On a strand over that pool: every step is the strand's item. */
	KUNIT_ASSERT_EQ(test, exec_serial_create(&strand, fx->ex_two), 0);
	memset(&c, 0, sizeof(c));
	c.ex = exec_serial_executor(strand);
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_two, work_one,
						NULL), 0);
	last = chain_build(test, fut, exec_serial_executor(strand), &c);
	chain_expect(test, last, &c, 11234L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(strand), 0L);
	ffx_finish(fx);
}

static void future_chain_added_after_completion(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut, *last;
	unsigned int spins = 0;
	struct chain_fx c;
	u64 deadline;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	memset(&c, 0, sizeof(c));
	c.ex = fx->ex_two;
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_one,
						NULL), 0);
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!exec_future_ready(fut) && !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_ASSERT_TRUE(test, exec_future_ready(fut));
	last = chain_build(test, fut, fx->ex_two, &c);
	chain_expect(test, last, &c, 11234L);
	ffx_finish(fx);
}

static void future_chain_error_travels_and_recovers(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut, *last, *next;
	struct chain_fx c;
	long result = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	memset(&c, 0, sizeof(c));
	c.ex = fx->ex_two;
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_eio, fx),
			0);
	last = chain_build(test, fut, fx->ex_two, &c);
	chain_expect(test, last, &c, (long)-EIO);
	for (i = 0; i < CHAIN_STEPS; i++)
		KUNIT_EXPECT_EQ(test, c.seen[i], (long)-EIO);

	/* A step may turn the error into a result, which travels on. */
	memset(&c, 0, sizeof(c));
	c.ex = fx->ex_two;
	KUNIT_ASSERT_EQ(test, exec_spawn_future(&fut, fx->ex_one, work_eio, fx),
			0);
	KUNIT_ASSERT_EQ(test, exec_future_then_future(&next, fut, fx->ex_two,
						      chain_recover, &c), 0);
	exec_future_put(fut);
	KUNIT_ASSERT_EQ(test, exec_future_then_future(&last, next, fx->ex_two,
						      chain_step, &c), 0);
	exec_future_put(next);
	KUNIT_EXPECT_EQ(test, exec_future_wait(last, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 72L);
	KUNIT_EXPECT_EQ(test, c.seen[0], (long)-EIO);
	KUNIT_EXPECT_EQ(test, c.seen[1], 7L);
	exec_future_put(last);
	ffx_finish(fx);
}

/*
 * A chained continuation that is discarded (its loop destroyed) or refused
 * (its pool shut down) is called with -ECANCELED, and its future completes
 * with -ECANCELED even though it returns 100: the rest of the chain sees
 * the cancellation.
 */
static void future_chain_discarded_ecanceled(struct kunit *test)
{
	struct fut_fx *fx = ffx_create(test);
	struct exec_future *fut, *mid, *last;
	struct exec_loop *loop;
	struct chain_fx c;
	long result = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	memset(&c, 0, sizeof(c));
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_ASSERT_EQ(test, exec_future_then_future(&mid, fut,
						      exec_loop_executor(loop),
						      chain_ignore, &c), 0);
	KUNIT_ASSERT_EQ(test, exec_future_then_future(&last, mid, fx->ex_two,
						      chain_step, &c), 0);
	exec_future_put(mid);
	/* The next future is the continuation's to complete. */
	KUNIT_EXPECT_EQ(test, exec_future_complete(mid, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 4), 0);
	exec_future_put(fut);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 1L);
	KUNIT_EXPECT_EQ(test, exec_future_wait(last, FX_WAIT_NS, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.steps), 2);
	KUNIT_EXPECT_EQ(test, c.seen[0], (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, c.seen[1], (long)-ECANCELED);
	exec_future_put(last);

	/* Refused by a pool that was shut down: called here, as discarded. */
	memset(&c, 0, sizeof(c));
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_ASSERT_EQ(test, exec_future_then_future(&mid, fut, fx->ex_one,
						      chain_ignore, &c), 0);
	KUNIT_EXPECT_GE(test, exec_thread_pool_shutdown_hard(fx->one), 0L);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 4), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.steps), 1);
	KUNIT_EXPECT_EQ(test, c.seen[0], (long)-ECANCELED);
	KUNIT_EXPECT_EQ(test, exec_future_wait(mid, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (long)-ECANCELED);
	exec_future_put(mid);
	exec_future_put(fut);
	ffx_finish(fx);
}

/*
 * A long chain whose every step is refused (its pool shut down): each step
 * completes the next future in the completer's thread, in a loop, not in
 * nested calls.  The completer is a worker with a small stack (a kthread's
 * in the kernel, 64 KiB in userspace), which nested calls would overflow.
 */
#define FX_CHAIN_LONG	2000
#define FX_SMALL_STACK	(64 * 1024)

struct chain_long {
	struct exec_future *first;
	int ret;
	atomic_t done;
};

static void chain_complete_fn(void *arg)
{
	struct chain_long *cl = arg;

	cl->ret = exec_future_complete(cl->first, 1);
	exec_test_count(&cl->done);
}

static void future_chain_long_refused_chain(struct kunit *test)
{
	struct exec_thread_pool_attr one = { .nr_threads = 1 };
	struct exec_thread_pool *pool, *small;
	struct exec_future *fut, *next;
	struct chain_long cl = { 0 };
	struct exec_executor *ex;
	struct chain_fx c;
	long result = 0;
	int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &one), 0);
	if (exec_test_stack_size_settable())
		one.thread.stack_size = FX_SMALL_STACK;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&small, &one), 0);
	ex = exec_thread_pool_executor(pool);
	memset(&c, 0, sizeof(c));
	KUNIT_ASSERT_EQ(test, exec_future_create(&cl.first), 0);
	fut = exec_future_get(cl.first);
	for (i = 0; i < FX_CHAIN_LONG; i++) {
		if (exec_future_then_future(&next, fut, ex, chain_ignore, &c)) {
			KUNIT_FAIL(test, "step %d not chained", i);
			break;
		}
		exec_future_put(fut);
		fut = next;
	}
	KUNIT_EXPECT_GE(test, exec_thread_pool_shutdown_hard(pool), 0L);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(exec_thread_pool_executor(small),
					     chain_complete_fn, &cl), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&cl.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, cl.ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.steps), i);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, (long)-ECANCELED);
	exec_future_put(fut);
	exec_future_put(cl.first);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(small), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void future_chain_misuse(struct kunit *test)
{
	struct exec_executor *ex = exec_inline_executor();
	struct exec_future *fut, *next = (struct exec_future *)1, *other;
	struct chain_fx c;
	long result;

	memset(&c, 0, sizeof(c));
	KUNIT_EXPECT_EQ(test, exec_future_then_future(NULL, NULL, ex,
						      chain_step, &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_then_future(&next, NULL, ex,
						      chain_step, &c), -EINVAL);
	KUNIT_EXPECT_NULL(test, next);
	KUNIT_ASSERT_EQ(test, exec_future_create(&fut), 0);
	KUNIT_EXPECT_EQ(test, exec_future_then_future(&next, fut, NULL,
						      chain_step, &c), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_then_future(&next, fut, ex, NULL,
						      &c), -EINVAL);
	KUNIT_ASSERT_EQ(test, exec_future_then_future(&next, fut, ex,
						      chain_step, &c), 0);
	/* One continuation per future, whichever kind. */
	KUNIT_EXPECT_EQ(test, exec_future_then_future(&other, fut, ex,
						      chain_step, &c), -EBUSY);
	KUNIT_EXPECT_NULL(test, other);
	KUNIT_EXPECT_EQ(test, exec_future_then(fut, ex, cont_noop, NULL),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, exec_future_wait(fut, 0, &result), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_future_complete(fut, 1), 0);
	/* On the inline executor the step ran in the completer. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c.steps), 1);
	KUNIT_EXPECT_EQ(test, exec_future_wait(next, 0, &result), 0);
	KUNIT_EXPECT_EQ(test, result, 11L);
	/* Its result taken: nothing may continue it any more. */
	KUNIT_EXPECT_EQ(test, exec_future_then_future(&other, next, ex,
						      chain_step, &c),
			-EALREADY);
	KUNIT_EXPECT_NULL(test, other);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.steps), 1);
	exec_future_put(next);
	exec_future_put(fut);
}

static struct kunit_case exec_future_cases[] = {
	KUNIT_CASE(future_spawn_wait_gets_result),
	KUNIT_CASE(future_error_result_travels_and_executor_keeps_working),
	KUNIT_CASE(future_wait_times_out_then_succeeds),
	KUNIT_CASE(future_sleeping_waiter_woken_by_complete),
	KUNIT_CASE(future_wait_twice_ealready),
	KUNIT_CASE(future_then_before_completion_runs_once_on_its_executor),
	KUNIT_CASE(future_then_after_completion_runs_once_on_its_executor),
	KUNIT_CASE(future_complete_by_hand_runs_continuation),
	KUNIT_CASE(future_then_twice_ebusy),
	KUNIT_CASE(future_wait_after_then_einval),
	KUNIT_CASE(future_complete_twice_ealready),
	KUNIT_CASE(future_discarded_by_loop_destroy_ecanceled),
	KUNIT_CASE(future_discarded_by_shutdown_hard_ecanceled),
	KUNIT_CASE(future_continuation_discarded_ecanceled),
	KUNIT_CASE(future_continuation_holds_work_guard),
	KUNIT_CASE(spawn_runs_continuation_on_same_executor),
	KUNIT_CASE(spawn_discarded_calls_continuation_ecanceled),
	KUNIT_CASE(bound_handler_completes_on_its_executor),
	KUNIT_CASE(unbound_handler_completes_on_fallback),
	KUNIT_CASE(bound_handler_dispatches_inside_its_executor),
	KUNIT_CASE(future_many_from_several_threads),
	KUNIT_CASE(future_then_racing_complete_runs_once),
	KUNIT_CASE(future_null_arguments_einval),
	KUNIT_CASE(future_chain_on_pool_and_strand),
	KUNIT_CASE(future_chain_added_after_completion),
	KUNIT_CASE(future_chain_error_travels_and_recovers),
	KUNIT_CASE(future_chain_discarded_ecanceled),
	KUNIT_CASE(future_chain_long_refused_chain),
	KUNIT_CASE(future_chain_misuse),
	{}
};

static struct kunit_suite exec_future_suite = {
	.name = "exec-future",
	.test_cases = exec_future_cases,
};

kunit_test_suites(&exec_future_suite);

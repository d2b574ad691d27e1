// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Per-executor statistics (include/exec/stats.h): after a known workload the
 * counts are exact (submitted, started, completed; refusals of a full
 * bounded pool; discards of a hard shutdown; timed items armed, fired and
 * cancelled), on fixed and growing thread pools, serial, loop and
 * thread-per-task executors (a thread that cannot start: a refusal),
 * priority executors and managed queues (discards of a runner's pool shut
 * down hard) and loop schedulers;
 * concurrent submitters are counted exactly; with timing on, the longest
 * run and queue wait are at least what a known item took; bad input is
 * refused.  The kernel's debugfs file is tested in kernel/tests/.
 */
#include "internal.h"
#include "exec_test.h"

#define STATS_TEST_ITEMS	1000
#define STATS_TEST_SUBMITTERS	4
#define STATS_TEST_PER_SUBMITTER	2000
/* How long the timed items of the timing cases take, at least. */
#define STATS_TEST_SLEEP_MS	30
#define STATS_TEST_MS_NS	1000000ULL

struct stats_fixture {
	struct exec_test_gate gate;
	atomic_t ran;
};

static void stats_count_fn(void *arg)
{
	struct stats_fixture *fx = arg;

	exec_test_count(&fx->ran);
}

static void stats_gate_fn(void *arg)
{
	struct stats_fixture *fx = arg;

	exec_test_gate_pass(&fx->gate);
	exec_test_count(&fx->ran);
}

static void stats_fixture_init(struct stats_fixture *fx)
{
	exec_test_gate_init(&fx->gate);
	atomic_set(&fx->ran, 0);
}

/*
 * Waits until @ex's statistics say @n items completed and nothing is left
 * queued: a worker counts an item after its function returns, a little
 * after the item counted itself, and a serial executor's snapshot taken
 * as a batch ends may count the batch's items both as started and as
 * queued.  A count that is wrong for good times the wait out.
 */
static bool stats_wait_completed(struct exec_executor *ex, u64 n,
				 struct exec_stats *st)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	for (;;) {
		if (exec_executor_stats(ex, st))
			return false;
		if (st->completed >= n && st->started == st->completed &&
		    st->submitted == st->started + st->discarded)
			return true;
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
}

static void stats_refuses_bad_input(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_stats st;

	KUNIT_EXPECT_EQ(test, exec_executor_stats(NULL, &st), -EINVAL);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_EXPECT_EQ(test,
			exec_executor_stats(exec_thread_pool_executor(pool),
					    NULL), -EINVAL);
	/* Kinds that keep none say so, and leave nothing in @st. */
	memset(&st, 0xff, sizeof(st));
	KUNIT_EXPECT_EQ(test, exec_executor_stats(exec_inline_executor(), &st),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, st.submitted, 0ULL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void stats_timing_is_a_switch(struct kunit *test)
{
	bool old = exec_stats_timing();

	exec_stats_set_timing(true);
	KUNIT_EXPECT_TRUE(test, exec_stats_timing());
	exec_stats_set_timing(false);
	KUNIT_EXPECT_FALSE(test, exec_stats_timing());
	exec_stats_set_timing(old);
}

/* @n closures on @ex from this thread; then the counts are exact. */
static void stats_check_workload(struct kunit *test, struct exec_executor *ex,
				 unsigned int nr_threads)
{
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	stats_fixture_init(&fx);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, 0ULL);
	KUNIT_EXPECT_EQ(test, st.started, 0ULL);
	for (i = 0; i < STATS_TEST_ITEMS; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
				0);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, STATS_TEST_ITEMS,
						     &st));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.ran), STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.submitted, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.started, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.discarded, 0ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 0ULL);
	KUNIT_EXPECT_EQ(test, st.timers_armed, 0ULL);
	KUNIT_EXPECT_EQ(test, st.nr_threads, nr_threads);
}

static void stats_fixed_pool_counts_a_workload(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	stats_check_workload(test, ex, 2);
	/* Idle long enough to park: an item then wakes a worker. */
	stats_fixture_init(&fx);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, STATS_TEST_ITEMS + 1,
						     &st));
	KUNIT_EXPECT_GE(test, st.wakeups, 1ULL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

struct stats_chain {
	struct exec_work work;
	struct exec_executor *ex;
	atomic_t hops;
	int failed;
};

#define STATS_TEST_HOPS		100

/* Each hop submits the next from the worker: into the worker's own slot. */
static void stats_chain_fn(struct exec_work *work)
{
	struct stats_chain *c = container_of(work, struct stats_chain, work);

	if (exec_test_count(&c->hops) < STATS_TEST_HOPS &&
	    exec_submit(c->ex, &c->work))
		c->failed++;
}

static void stats_pool_counts_submissions_from_its_workers(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct exec_stats st;
	struct stats_chain c;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	c.ex = exec_thread_pool_executor(pool);
	c.failed = 0;
	atomic_set(&c.hops, 0);
	exec_work_init(&c.work, stats_chain_fn);
	KUNIT_ASSERT_EQ(test, exec_submit(c.ex, &c.work), 0);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(c.ex, STATS_TEST_HOPS,
						     &st));
	KUNIT_EXPECT_EQ(test, c.failed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.hops), STATS_TEST_HOPS);
	KUNIT_EXPECT_EQ(test, st.submitted, (u64)STATS_TEST_HOPS);
	KUNIT_EXPECT_EQ(test, st.started, (u64)STATS_TEST_HOPS);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)STATS_TEST_HOPS);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void stats_growing_pool_counts_a_workload(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = 4,
	};
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	stats_fixture_init(&fx);
	/* Blocked items make the manager add workers; all are counted. */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_gate_fn, &fx),
				0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 2));
	for (i = 0; i < STATS_TEST_ITEMS; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
				0);
	exec_test_gate_open(&fx.gate);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, STATS_TEST_ITEMS + 3,
						     &st));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.ran), STATS_TEST_ITEMS + 3);
	KUNIT_EXPECT_EQ(test, st.submitted, (u64)STATS_TEST_ITEMS + 3);
	KUNIT_EXPECT_EQ(test, st.started, (u64)STATS_TEST_ITEMS + 3);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)STATS_TEST_ITEMS + 3);
	KUNIT_EXPECT_GE(test, st.nr_threads, 1U);
	KUNIT_EXPECT_LE(test, st.nr_threads, 4U);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void stats_serial_counts_a_workload(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_stats st;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
					exec_thread_pool_executor(pool)), 0);
	stats_check_workload(test, exec_serial_executor(serial), 0);
	/*
	 * Its runner was handed to the pool at least once; a strand counts
	 * those runs only once it has made its record (timing turned on),
	 * so that one made per connection pays for no counter it never reads.
	 */
	KUNIT_EXPECT_EQ(test,
			exec_executor_stats(exec_serial_executor(serial), &st),
			0);
	KUNIT_EXPECT_EQ(test, st.wakeups, 0ULL);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);

	exec_stats_set_timing(true);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
					exec_thread_pool_executor(pool)), 0);
	stats_check_workload(test, exec_serial_executor(serial), 0);
	exec_stats_set_timing(false);
	KUNIT_EXPECT_EQ(test,
			exec_executor_stats(exec_serial_executor(serial), &st),
			0);
	KUNIT_EXPECT_GE(test, st.wakeups, 1ULL);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/*
 * @ex holds its queued items until @drain(@owner) runs them: before, they
 * are submitted and none started; after, every one started and completed.
 */
static void stats_check_held_workload(struct kunit *test,
				      struct exec_executor *ex,
				      long (*drain)(void *owner), void *owner)
{
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	stats_fixture_init(&fx);
	for (i = 0; i < STATS_TEST_ITEMS; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
				0);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.started, 0ULL);
	KUNIT_EXPECT_EQ(test, drain(owner), (long)STATS_TEST_ITEMS);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.started, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)STATS_TEST_ITEMS);
	KUNIT_EXPECT_EQ(test, st.discarded, 0ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 0ULL);
	KUNIT_EXPECT_EQ(test, st.nr_threads, 0U);
}

static long stats_loop_drain(void *loop)
{
	return exec_loop_run_queued_closures(loop);
}

static void stats_loop_counts_a_workload(struct kunit *test)
{
	struct exec_loop *loop;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	stats_check_held_workload(test, exec_loop_executor(loop),
				  stats_loop_drain, loop);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

static int stats_loop_run_fn(void *arg)
{
	return exec_loop_run(arg);
}

/* An item for a loop asleep in exec_loop_run() wakes it: counted. */
static void stats_loop_counts_wakeups(struct kunit *test)
{
	struct exec_test_thread thread;
	struct exec_loop *loop;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	ex = exec_loop_executor(loop);
	stats_fixture_init(&fx);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&thread,
						     stats_loop_run_fn, loop,
						     "stats-loop"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, 1, &st));
	KUNIT_EXPECT_EQ(test, st.submitted, 1ULL);
	KUNIT_EXPECT_EQ(test, st.started, 1ULL);
	KUNIT_EXPECT_GE(test, st.wakeups, 1ULL);
	exec_loop_make_loop_exit(loop);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&thread,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, thread.ret, 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
}

#define STATS_TEST_TASKS	20

/*
 * Each item gets a thread: all are counted, and a thread that cannot start
 * refuses its submission, counted as refused.
 */
static void stats_thread_per_task_counts_a_workload(struct kunit *test)
{
	struct exec_thread_per_task *tpt;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);
	ex = exec_thread_per_task_executor(tpt);
	stats_fixture_init(&fx);
	for (i = 0; i < STATS_TEST_TASKS; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
				0);
	exec_fault_inject_thread_start(0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
			-EAGAIN);
	exec_fault_inject_thread_start(-1);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, STATS_TEST_TASKS,
						     &st));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.ran), STATS_TEST_TASKS);
	KUNIT_EXPECT_EQ(test, st.submitted, (u64)STATS_TEST_TASKS);
	KUNIT_EXPECT_EQ(test, st.started, (u64)STATS_TEST_TASKS);
	KUNIT_EXPECT_EQ(test, st.completed, (u64)STATS_TEST_TASKS);
	KUNIT_EXPECT_EQ(test, st.refused, 1ULL);
	KUNIT_EXPECT_EQ(test, st.discarded, 0ULL);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
}

/* A full bounded pool refuses try_submit: counted once per refusal. */
static void stats_counts_refusals_of_a_full_pool(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .queue_limit = 2,
	};
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	stats_fixture_init(&fx);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_gate_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	/* Two items fill the queue; two more are refused. */
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn_full(ex, stats_count_fn,
							  NULL, &fx,
							  EXEC_SUBMIT_NOWAIT),
				i < 2 ? 0 : -EAGAIN);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.refused, 2ULL);
	KUNIT_EXPECT_EQ(test, st.submitted, 3ULL);
	exec_test_gate_open(&fx.gate);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, 3, &st));
	KUNIT_EXPECT_EQ(test, st.started, 3ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 2ULL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* shutdown_hard discards what is queued: counted; later submissions too. */
static void stats_counts_discards_of_shutdown_hard(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	stats_fixture_init(&fx);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_gate_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
				0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(pool), 5L);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
			-ESHUTDOWN);
	exec_test_gate_open(&fx.gate);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, 1, &st));
	KUNIT_EXPECT_EQ(test, st.submitted, 6ULL);
	KUNIT_EXPECT_EQ(test, st.started, 1ULL);
	KUNIT_EXPECT_EQ(test, st.completed, 1ULL);
	KUNIT_EXPECT_EQ(test, st.discarded, 5ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 1ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.ran), 1);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

struct stats_timer {
	struct exec_timer timer;
	atomic_t ran;
};

static void stats_timer_fn(struct exec_work *work)
{
	struct stats_timer *t = container_of(work, struct stats_timer,
					     timer.work);

	exec_test_count(&t->ran);
}

/* One timed item fires, one is cancelled, one is discarded by destroy. */
static void stats_counts_timed_items(struct kunit *test)
{
	struct exec_thread_pool *pool;
	struct stats_timer soon, late;
	struct exec_executor *ex;
	struct exec_stats st;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	ex = exec_thread_pool_executor(pool);
	exec_timer_init(&soon.timer, stats_timer_fn, NULL);
	exec_timer_init(&late.timer, stats_timer_fn, NULL);
	atomic_set(&soon.ran, 0);
	atomic_set(&late.ran, 0);
	KUNIT_ASSERT_EQ(test, exec_submit_after(ex, &soon.timer,
						STATS_TEST_MS_NS), 0);
	KUNIT_ASSERT_EQ(test, exec_submit_after(ex, &late.timer,
						3600ULL * 1000 *
						STATS_TEST_MS_NS), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&soon.ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_timer_cancel(&late.timer), 1);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, 1, &st));
	KUNIT_EXPECT_EQ(test, st.timers_armed, 2ULL);
	KUNIT_EXPECT_EQ(test, st.timers_fired, 1ULL);
	KUNIT_EXPECT_EQ(test, st.timers_cancelled, 1ULL);
	/* The one that fired was submitted and ran like any item. */
	KUNIT_EXPECT_EQ(test, st.submitted, 1ULL);
	KUNIT_EXPECT_EQ(test, st.started, 1ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&late.ran), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

struct stats_submitter {
	struct exec_test_thread thread;
	struct exec_executor *ex;
	struct stats_fixture *fx;
	int failed;
};

static int stats_submitter_fn(void *arg)
{
	struct stats_submitter *s = arg;
	unsigned int i;

	for (i = 0; i < STATS_TEST_PER_SUBMITTER; i++)
		if (exec_submit_fn(s->ex, stats_count_fn, s->fx))
			s->failed++;
	return 0;
}

/* Threads submitting at once are all counted, none twice. */
static void stats_check_concurrent(struct kunit *test, struct exec_executor *ex)
{
	const u64 total = STATS_TEST_SUBMITTERS * STATS_TEST_PER_SUBMITTER;
	struct stats_submitter *subs;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	/* Off the stack: the kernel's stacks are small. */
	subs = kunit_kcalloc(test, STATS_TEST_SUBMITTERS, sizeof(*subs),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, subs);
	stats_fixture_init(&fx);
	for (i = 0; i < STATS_TEST_SUBMITTERS; i++) {
		subs[i].ex = ex;
		subs[i].fx = &fx;
		subs[i].failed = 0;
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&subs[i].thread,
							     stats_submitter_fn,
							     &subs[i],
							     "stats-sub"), 0);
	}
	for (i = 0; i < STATS_TEST_SUBMITTERS; i++) {
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&subs[i].thread,
						EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, subs[i].failed, 0);
	}
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, total, &st));
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&fx.ran), total);
	KUNIT_EXPECT_EQ(test, st.submitted, total);
	KUNIT_EXPECT_EQ(test, st.started, total);
	KUNIT_EXPECT_EQ(test, st.completed, total);
}

static void stats_pool_counts_concurrent_submitters(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	stats_check_concurrent(test, exec_thread_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* Runs @check on a serial executor over a default pool, then both go. */
static void stats_on_serial(struct kunit *test,
			    void (*check)(struct kunit *test,
					  struct exec_executor *ex))
{
	struct exec_thread_pool *pool;
	struct exec_serial *serial;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial,
					exec_thread_pool_executor(pool)), 0);
	check(test, exec_serial_executor(serial));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void stats_serial_counts_concurrent_submitters(struct kunit *test)
{
	stats_on_serial(test, stats_check_concurrent);
}

/*
 * Runs an item held at a gate for STATS_TEST_SLEEP_MS at least, with an
 * item queued behind it meanwhile; the two have completed on return.
 */
static void stats_run_held(struct kunit *test, struct exec_executor *ex,
			   u64 done, struct exec_stats *st)
{
	struct stats_fixture fx;

	stats_fixture_init(&fx);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_gate_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	/* Its item has left the queue: this one is the next timed. */
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx), 0);
	msleep(STATS_TEST_SLEEP_MS);
	exec_test_gate_open(&fx.gate);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, done, st));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.ran), 2);
}

/*
 * With timing on: an item held a known time is the longest run at least
 * that long, and an item queued behind it waited at least as long.  With
 * timing off, nothing is timed.
 */
static void stats_check_timing(struct kunit *test, struct exec_executor *ex)
{
	const u64 least = STATS_TEST_SLEEP_MS * STATS_TEST_MS_NS;
	bool old = exec_stats_timing();
	struct exec_stats st;

	exec_stats_set_timing(false);
	stats_run_held(test, ex, 2, &st);
	KUNIT_EXPECT_EQ(test, st.max_run_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, st.max_wait_ns, 0ULL);

	exec_stats_set_timing(true);
	stats_run_held(test, ex, 4, &st);
	exec_stats_set_timing(old);
	KUNIT_EXPECT_GE(test, st.max_run_ns, least);
	KUNIT_EXPECT_GE(test, st.max_wait_ns, least);
	/* Sanity: nothing here took a minute. */
	KUNIT_EXPECT_LT(test, st.max_run_ns, 60000ULL * STATS_TEST_MS_NS);
	KUNIT_EXPECT_LT(test, st.max_wait_ns, 60000ULL * STATS_TEST_MS_NS);
}

static void stats_pool_times_runs_and_waits(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	stats_check_timing(test, exec_thread_pool_executor(pool));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static void stats_serial_times_runs_and_waits(struct kunit *test)
{
	stats_on_serial(test, stats_check_timing);
}

/* Runs @check on a priority executor over a pool, then both go. */
static void stats_on_priority(struct kunit *test, unsigned int max_running,
			      void (*check)(struct kunit *test,
					    struct exec_executor *ex))
{
	struct exec_priority_attr attr = { .max_running = max_running };
	struct exec_thread_pool *pool;
	struct exec_priority *prio;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio,
					exec_thread_pool_executor(pool), &attr),
			0);
	check(test, exec_priority_executor(prio));
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* Its items run on the pool's threads: none of its own. */
static void stats_check_workload_no_threads(struct kunit *test,
					    struct exec_executor *ex)
{
	struct exec_stats st;

	stats_check_workload(test, ex, 0);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	/* One runner at least went to the pool. */
	KUNIT_EXPECT_GE(test, st.wakeups, 1ULL);
}

static void stats_priority_counts_a_workload(struct kunit *test)
{
	stats_on_priority(test, 2, stats_check_workload_no_threads);
}

static void stats_priority_counts_concurrent_submitters(struct kunit *test)
{
	stats_on_priority(test, 2, stats_check_concurrent);
}

/* One runner: the item queued behind a held one waits for it. */
static void stats_priority_times_runs_and_waits(struct kunit *test)
{
	stats_on_priority(test, 1, stats_check_timing);
}

/*
 * A priority executor whose runner the pool drops (a hard shutdown of the
 * pool) discards its waiting items: counted; a submission that then finds
 * the pool shut down is refused: counted, not submitted.
 */
static void stats_priority_counts_discards_and_refusals(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_priority *prio;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio,
					exec_thread_pool_executor(pool), NULL),
			0);
	ex = exec_priority_executor(prio);
	stats_fixture_init(&fx);
	/* The pool's one thread held: the runner waits in its queue. */
	KUNIT_ASSERT_EQ(test, exec_submit_fn(exec_thread_pool_executor(pool),
					     stats_gate_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
				0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_shutdown_hard(pool), 1L);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx),
			-ESHUTDOWN);
	KUNIT_ASSERT_EQ(test, exec_executor_stats(ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.submitted, 3ULL);
	KUNIT_EXPECT_EQ(test, st.started, 0ULL);
	KUNIT_EXPECT_EQ(test, st.discarded, 3ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 1ULL);
	exec_test_gate_open(&fx.gate);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.ran), 1);
}

/* A managed queue is a priority executor: counted the same way. */
static void stats_managed_queue_counts_refusals(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.name = "stats", .thread_limit = 1, .queue_limit = 2,
	};
	struct exec_thread_pool *pool;
	struct exec_managed_queue *q;
	struct exec_executor *ex;
	struct stats_fixture fx;
	struct exec_stats st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q,
					exec_thread_pool_executor(pool), &attr),
			0);
	ex = exec_managed_queue_executor(q);
	stats_fixture_init(&fx);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_gate_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx.gate, 1));
	/* Two items fill the queue; two more are refused. */
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_submit_fn_full(ex, stats_count_fn,
							  NULL, &fx,
							  EXEC_SUBMIT_NOWAIT),
				i < 2 ? 0 : -EAGAIN);
	exec_test_gate_open(&fx.gate);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, 3, &st));
	KUNIT_EXPECT_EQ(test, st.submitted, 3ULL);
	KUNIT_EXPECT_EQ(test, st.started, 3ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 2ULL);
	KUNIT_EXPECT_EQ(test, st.discarded, 0ULL);
	KUNIT_EXPECT_EQ(test, st.nr_threads, 0U);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static long stats_ls_drain(void *ls)
{
	return exec_loop_scheduler_poll(ls);
}

static void stats_loop_scheduler_counts_a_workload(struct kunit *test)
{
	struct exec_loop_scheduler *ls;

	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	stats_check_held_workload(test, exec_loop_scheduler_executor(ls),
				  stats_ls_drain, ls);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), 0L);
}

static int stats_ls_run_fn(void *arg)
{
	return exec_loop_scheduler_run(arg) < 0;
}

/*
 * Runs @check on a loop scheduler that a thread runs; a unit of
 * outstanding work keeps the run going until @check is done.
 */
static void stats_on_loop_scheduler(struct kunit *test,
				    void (*check)(struct kunit *test,
						  struct exec_executor *ex))
{
	struct exec_test_thread thread;
	struct exec_loop_scheduler *ls;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	ex = exec_loop_scheduler_executor(ls);
	exec_on_work_started(ex);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&thread, stats_ls_run_fn,
						     ls, "stats-ls"), 0);
	check(test, ex);
	exec_on_work_finished(ex);
	KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&thread,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, thread.ret, 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), 0L);
}

/* An item for a thread asleep in a run function wakes it: counted. */
static void stats_check_wakeup(struct kunit *test, struct exec_executor *ex)
{
	struct stats_fixture fx;
	struct exec_stats st;

	stats_fixture_init(&fx);
	msleep(EXEC_TEST_SETTLE_MS);
	KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, stats_count_fn, &fx), 0);
	KUNIT_ASSERT_TRUE(test, stats_wait_completed(ex, 1, &st));
	KUNIT_EXPECT_EQ(test, st.submitted, 1ULL);
	KUNIT_EXPECT_GE(test, st.wakeups, 1ULL);
}

static void stats_loop_scheduler_counts_wakeups(struct kunit *test)
{
	stats_on_loop_scheduler(test, stats_check_wakeup);
}

static void stats_loop_scheduler_times_runs_and_waits(struct kunit *test)
{
	stats_on_loop_scheduler(test, stats_check_timing);
}

static struct kunit_case exec_stats_cases[] = {
	KUNIT_CASE(stats_refuses_bad_input),
	KUNIT_CASE(stats_priority_counts_a_workload),
	KUNIT_CASE(stats_priority_counts_concurrent_submitters),
	KUNIT_CASE(stats_priority_times_runs_and_waits),
	KUNIT_CASE(stats_priority_counts_discards_and_refusals),
	KUNIT_CASE(stats_managed_queue_counts_refusals),
	KUNIT_CASE(stats_loop_scheduler_counts_a_workload),
	KUNIT_CASE(stats_loop_scheduler_counts_wakeups),
	KUNIT_CASE(stats_loop_scheduler_times_runs_and_waits),
	KUNIT_CASE(stats_timing_is_a_switch),
	KUNIT_CASE(stats_fixed_pool_counts_a_workload),
	KUNIT_CASE(stats_pool_counts_submissions_from_its_workers),
	KUNIT_CASE(stats_growing_pool_counts_a_workload),
	KUNIT_CASE(stats_serial_counts_a_workload),
	KUNIT_CASE(stats_loop_counts_a_workload),
	KUNIT_CASE(stats_loop_counts_wakeups),
	KUNIT_CASE(stats_counts_refusals_of_a_full_pool),
	KUNIT_CASE(stats_thread_per_task_counts_a_workload),
	KUNIT_CASE(stats_counts_discards_of_shutdown_hard),
	KUNIT_CASE(stats_counts_timed_items),
	KUNIT_CASE(stats_pool_counts_concurrent_submitters),
	KUNIT_CASE(stats_serial_counts_concurrent_submitters),
	KUNIT_CASE(stats_pool_times_runs_and_waits),
	KUNIT_CASE(stats_serial_times_runs_and_waits),
	{}
};

static struct kunit_suite exec_stats_suite = {
	.name = "exec-stats",
	.test_cases = exec_stats_cases,
};

kunit_test_suites(&exec_stats_suite);

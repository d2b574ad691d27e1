// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Growing thread pools (max_threads above nr_threads): a worker blocked in a
 * sleep gets company while items wait, a hinted worker too even when it
 * spins, a fixed pool and an unhinted spinning worker do not; added workers
 * retire after their idle timeout; a policy sees a consistent state and its
 * desired counts are clamped; bad attributes; and a stress run of blocking
 * and plain items that counts every task.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define PG_STRESS_ITEMS	4000

struct pg_fx;

struct pg_item {
	struct exec_work work;
	struct pg_fx *fx;
};

struct pg_fx {
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct exec_test_gate gate;
	atomic_t runs;
	atomic_t blockers_in;
	bool hint;
	bool spin;
	struct pg_item blocker;
	struct pg_item plain;
};

/* Waits at the gate, sleeping (blocked) or spinning (running). */
static void pg_blocker_fn(struct exec_work *work)
{
	struct pg_fx *fx = container_of(work, struct pg_item, work)->fx;
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);

	if (fx->hint)
		exec_blocking_begin();
	exec_test_count(&fx->blockers_in);
	if (fx->spin) {
		while (!atomic_read_acquire(&fx->gate.open) &&
		       ktime_get_ns() < deadline)
			cpu_relax();
	} else {
		exec_test_gate_pass(&fx->gate);
	}
	if (fx->hint)
		exec_blocking_end();
	exec_test_count(&fx->runs);
}

static void pg_count_fn(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct pg_item, work)->fx->runs);
}

static struct pg_fx *pg_create(struct kunit *test,
			       const struct exec_thread_pool_attr *attr)
{
	struct pg_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

	if (!fx)
		return NULL;
	exec_test_gate_init(&fx->gate);
	if (exec_thread_pool_create(&fx->pool, attr)) {
		kfree(fx);
		return NULL;
	}
	fx->ex = exec_thread_pool_executor(fx->pool);
	fx->blocker.fx = fx;
	fx->plain.fx = fx;
	exec_work_init(&fx->blocker.work, pg_blocker_fn);
	exec_work_init(&fx->plain.work, pg_count_fn);
	return fx;
}

static void pg_finish(struct kunit *test, struct pg_fx *fx)
{
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_GE(test, exec_thread_pool_destroy(fx->pool), 0L);
	kfree(fx);
}

/*
 * One worker, blocked: a second item runs anyway if the pool may grow, on
 * a worker it adds; the item behind a blocked worker of a fixed pool waits.
 */
static void pg_blocked_case(struct kunit *test, bool hint, bool spin,
			    unsigned int max, bool expect_growth)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = max, .concurrency = 1,
		.thread = { .name = "pg-blk" },
	};
	struct pg_fx *fx = pg_create(test, &attr);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->hint = hint;
	fx->spin = spin;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->blocker.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->blockers_in, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->plain.work), 0);
	if (expect_growth) {
		KUNIT_EXPECT_TRUE(test,
				  exec_test_wait_atomic_ge(&fx->runs, 1,
							   EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, exec_thread_pool_nr_live(fx->pool), 2U);
		/* The blocker is still at the gate. */
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->gate.open), 0);
	} else {
		/* Many sampling periods: the item still waits. */
		msleep(100);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->runs), 0);
		KUNIT_EXPECT_EQ(test, exec_thread_pool_nr_live(fx->pool), 1U);
	}
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	pg_finish(test, fx);
}

static void grow_sleeping_worker_gets_company(struct kunit *test)
{
	pg_blocked_case(test, false, false, 2, true);
}

static void grow_hinted_worker_gets_company_even_spinning(struct kunit *test)
{
	pg_blocked_case(test, true, true, 2, true);
}

static void grow_running_worker_gets_none(struct kunit *test)
{
	pg_blocked_case(test, false, true, 2, false);
}

static void grow_fixed_pool_never_grows(struct kunit *test)
{
	pg_blocked_case(test, true, false, 0, false);
	/* A fixed pool has no manager thread. */
	KUNIT_EXPECT_EQ(test, exec_test_count_threads("pg-blk/m"), 0U);
}

/* Submits the plain item from inside (to its worker's own slot), blocks. */
static void pg_post_then_block_fn(struct exec_work *work)
{
	struct pg_fx *fx = container_of(work, struct pg_item, work)->fx;

	if (exec_submit(fx->ex, &fx->plain.work))
		return;
	exec_test_count(&fx->blockers_in);
	exec_test_gate_pass(&fx->gate);
	exec_test_count(&fx->runs);
}

/*
 * What a worker posts to its own slot waits for that worker, or for an idle
 * one to take it: when the worker blocks and none is idle, the pool adds
 * one for it.
 */
static void grow_own_slot_post_of_a_blocked_worker_runs(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = 2, .concurrency = 1,
	};
	struct pg_fx *fx = pg_create(test, &attr);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_work_init(&fx->blocker.work, pg_post_then_block_fn);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->blocker.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->gate.open), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_nr_live(fx->pool), 2U);
	pg_finish(test, fx);
}

/* The added worker exits after its idle timeout; the first one stays. */
static void grow_added_worker_retires_when_idle(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = 3, .concurrency = 1,
		.idle_timeout_ms = 30, .thread = { .name = "pg-ret" },
	};
	struct pg_fx *fx = pg_create(test, &attr);
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->blocker.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->blockers_in, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->plain.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_test_count_threads("pg-ret/1"), 1U);
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 2,
							 EXEC_TEST_TIMEOUT_MS));
	while (exec_thread_pool_nr_live(fx->pool) > 1 &&
	       ktime_get_ns() < deadline)
		exec_test_relax(&spins);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_nr_live(fx->pool), 1U);
	/* Joined by the manager: gone from the task list too. */
	while (exec_test_count_threads("pg-ret/1") && ktime_get_ns() < deadline)
		exec_test_relax(&spins);
	KUNIT_EXPECT_EQ(test, exec_test_count_threads("pg-ret/1"), 0U);
	/* The pool still works, and grows again. */
	atomic_set(&fx->gate.open, 0);
	atomic_set(&fx->blockers_in, 0);
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->blocker.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->blockers_in, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &fx->plain.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->runs, 3,
							 EXEC_TEST_TIMEOUT_MS));
	pg_finish(test, fx);
}

/* A policy that asks for a set number of workers and checks the state. */
struct pg_policy {
	atomic_t calls;
	atomic_t inconsistent;
	atomic_t over;		/* more threads than max_threads seen */
	int desired;		/* read by the policy */
	unsigned int max;
};

static void pg_policy_fn(const struct exec_pool_state *st,
			 struct exec_pool_action *act, void *arg)
{
	struct pg_policy *p = arg;

	if (st->threads != st->active + st->kill_pending +
			   st->create_pending + st->blocked ||
	    st->idle > st->blocked)
		atomic_inc(&p->inconsistent);
	if (st->threads > p->max)
		atomic_inc(&p->over);
	act->desired_threads = READ_ONCE(p->desired);
	act->delay_ms = 2;
	/* Release: the counts above are visible to whoever sees the call. */
	atomic_inc_return(&p->calls);
}

static bool pg_wait_live(struct exec_thread_pool *pool, unsigned int n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (exec_thread_pool_nr_live(pool) != n) {
		if (ktime_get_ns() >= deadline)
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

static void grow_policy_desired_threads_clamped_and_state_consistent(
	struct kunit *test)
{
	struct pg_policy *p = kzalloc(sizeof(*p), GFP_KERNEL);
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = 4,
		.policy = pg_policy_fn, .policy_periodic = true,
		.thread = { .name = "pg-pol" },
	};
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->desired = 3;
	p->max = 4;
	attr.policy_arg = p;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_TRUE(test, pg_wait_live(pool, 3));
	/* Absurd: clamped to max_threads. */
	WRITE_ONCE(p->desired, 1 << 30);
	KUNIT_EXPECT_TRUE(test, pg_wait_live(pool, 4));
	/* Below nr_threads: clamped to it; the added ones retire. */
	WRITE_ONCE(p->desired, 0);
	KUNIT_EXPECT_TRUE(test, pg_wait_live(pool, 1));
	KUNIT_EXPECT_GT(test, atomic_read(&p->calls), 3);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->inconsistent), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->over), 0);
	kfree(p);
}

static void grow_bad_attributes(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool = NULL;

	attr.max_threads = 1;
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(&pool, &attr), -EINVAL);
	attr.max_threads = EXEC_THREAD_POOL_MAX_THREADS + 1;
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(&pool, &attr), -EINVAL);
	attr.max_threads = 4;
	attr.per_cpu = true;
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(&pool, &attr), -EINVAL);
	KUNIT_EXPECT_NULL(test, pool);
	/* Outside a worker the hints do nothing. */
	exec_blocking_begin();
	exec_blocking_end();
	KUNIT_EXPECT_EQ(test, exec_thread_pool_nr_live(NULL), 0U);
}

/* Items that sleep and items that do not, from two submitters. */
struct pg_stress;

struct pg_sitem {
	struct exec_work work;
	struct pg_stress *s;
};

struct pg_stress {
	struct exec_executor *ex;
	struct pg_sitem *items;
	atomic_t runs;
	atomic_t twice;
	atomic_t refused;
	unsigned int first, count;
	u8 *ran;
};

static void pg_stress_fn(struct exec_work *work)
{
	struct pg_sitem *it = container_of(work, struct pg_sitem, work);
	struct pg_stress *s = it->s;
	unsigned int i = it - s->items;

	if (!(i % 128)) {
		if (i % 256)
			exec_blocking_begin();
		msleep(20);
		if (i % 256)
			exec_blocking_end();
	}
	if (s->ran[i]++)
		atomic_inc(&s->twice);
	exec_test_count(&s->runs);
}

static int pg_stress_submitter(void *arg)
{
	struct pg_stress *s = arg;
	unsigned int i;

	for (i = s->first; i < s->first + s->count; i++)
		if (exec_submit(s->ex, &s->items[i].work))
			atomic_inc(&s->refused);
	return 0;
}

static void grow_stress_every_task_runs_once(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 2, .max_threads = 8, .idle_timeout_ms = 5,
		.thread = { .name = "pg-str" },
	};
	struct exec_thread_pool *pool;
	struct exec_test_thread helper;
	struct pg_stress s = { 0 };
	unsigned int i;

	s.items = kcalloc(PG_STRESS_ITEMS, sizeof(*s.items), GFP_KERNEL);
	s.ran = kcalloc(PG_STRESS_ITEMS, 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s.items);
	KUNIT_ASSERT_NOT_NULL(test, s.ran);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	s.ex = exec_thread_pool_executor(pool);
	for (i = 0; i < PG_STRESS_ITEMS; i++) {
		exec_work_init(&s.items[i].work, pg_stress_fn);
		s.items[i].s = &s;
	}
	s.first = PG_STRESS_ITEMS / 2;
	s.count = PG_STRESS_ITEMS / 2;
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&helper,
						     pg_stress_submitter, &s,
						     "pg-sub"), 0);
	for (i = 0; i < PG_STRESS_ITEMS / 2; i++)
		if (exec_submit(s.ex, &s.items[i].work))
			atomic_inc(&s.refused);
	KUNIT_EXPECT_TRUE(test, exec_test_thread_join(&helper,
						      EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&s.runs,
							 PG_STRESS_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_LE(test, exec_thread_pool_nr_live(pool), 8U);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.runs), PG_STRESS_ITEMS);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.twice), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.refused), 0);
	kfree(s.ran);
	kfree(s.items);
}

static struct kunit_case exec_pool_grow_cases[] = {
	KUNIT_CASE(grow_sleeping_worker_gets_company),
	KUNIT_CASE(grow_hinted_worker_gets_company_even_spinning),
	KUNIT_CASE(grow_running_worker_gets_none),
	KUNIT_CASE(grow_fixed_pool_never_grows),
	KUNIT_CASE(grow_own_slot_post_of_a_blocked_worker_runs),
	KUNIT_CASE(grow_added_worker_retires_when_idle),
	KUNIT_CASE(grow_policy_desired_threads_clamped_and_state_consistent),
	KUNIT_CASE(grow_bad_attributes),
	KUNIT_CASE(grow_stress_every_task_runs_once),
	{}
};

static struct kunit_suite exec_pool_grow_suite = {
	.name = "exec-pool-grow",
	.test_cases = exec_pool_grow_cases,
};

kunit_test_suites(&exec_pool_grow_suite);

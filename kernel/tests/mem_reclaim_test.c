// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Forward progress with no memory (Documentation/lifecycle.rst, "Memory
 * reclaim: forward progress"): a thread pool, the equivalent of a
 * WQ_MEM_RECLAIM workqueue, runs what was submitted to it while every
 * allocation of the submitting task, of its workers and of a growing
 * pool's manager fails.
 *
 * The failures are the kernel's own: tests/guest/init.c sets failslab and
 * fail_page_alloc at boot to fail every allocation (probability 100, any
 * gfp, order 0 up) of a task that has make_it_fail set, and of no other
 * (task-filter).  The case marks the test's task, and each worker marks
 * itself from a gate item that holds it, so the failing window covers the
 * submissions and every run.  Each case first checks that a slab and a
 * page allocation of a marked task do fail.  While marked, the test's task
 * asserts nothing (a KUnit report allocates): it records, and judges once
 * unmarked.  kmemleak (kunit-qemu.sh --kmemleak) checks that nothing
 * refused was leaked.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <exec/exec.h>

#include "exec_kunit.h"

#if defined(CONFIG_FAULT_INJECTION) && defined(CONFIG_FAILSLAB) && \
	defined(CONFIG_FAIL_PAGE_ALLOC)

#define MR_WORKERS	2
#define MR_ITEMS	256
#define MR_TIMED	16
/* More closures than the caches of a few CPUs hold without a new chunk. */
#define MR_CLOSURES_MAX	100000
/* Submissions tried once the first closure was refused: all refused too. */
#define MR_REFUSED_MORE	16
/* Closures run before the failures, so that the caches hold some. */
#define MR_WARM_CLOSURES	256

struct mr_item {
	struct exec_work work;
	atomic_t runs;
};

struct mr_timed {
	struct exec_timer timer;
	atomic_t runs;
};

struct mr_fx;

struct mr_gate {
	struct exec_work work;
	struct mr_fx *fx;
	int index;
};

/*
 * @gate: holds the workers until the submissions are made
 * @workers: the tasks the gates ran on, each marked make_it_fail
 */
struct mr_fx {
	struct exec_test_gate gate;
	struct mr_gate gates[MR_WORKERS];
	struct task_struct *workers[MR_WORKERS];
	atomic_t nr_workers;
	struct mr_item items[MR_ITEMS];
	struct mr_timed timed[MR_TIMED];
	atomic_t closures_run;
	atomic_t warm_run;
};

static void mr_item_fn(struct exec_work *work)
{
	atomic_inc(&container_of(work, struct mr_item, work)->runs);
}

static void mr_timed_fn(struct exec_work *work)
{
	atomic_inc(&container_of(work, struct mr_timed, timer.work)->runs);
}

static void mr_closure_fn(void *arg)
{
	atomic_inc(arg);
}

/* A worker marks itself, records itself, and waits for the gate. */
static void mr_gate_fn(struct exec_work *work)
{
	struct mr_gate *g = container_of(work, struct mr_gate, work);
	struct mr_fx *fx = g->fx;

	current->make_it_fail = 1;
	fx->workers[g->index] = get_task_struct(current);
	atomic_inc(&fx->nr_workers);
	exec_test_gate_pass(&fx->gate);
}

/* Whether a slab and a page allocation of the calling task fail now. */
static bool mr_allocs_fail(unsigned int *failed)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_NOWARN);
	void *p = kmalloc(64, GFP_KERNEL | __GFP_NOWARN);
	bool ok = !p && !page;

	*failed += !p + !page;
	kfree(p);
	if (page)
		__free_page(page);
	return ok;
}

static void mr_unmark_workers(struct mr_fx *fx)
{
	int i;

	for (i = 0; i < MR_WORKERS; i++) {
		if (!fx->workers[i])
			continue;
		WRITE_ONCE(fx->workers[i]->make_it_fail, 0);
		put_task_struct(fx->workers[i]);
		fx->workers[i] = NULL;
	}
}

/* What the marked window saw, judged after it. */
struct mr_seen {
	unsigned int probes_failed;
	bool probes_ok;
	int item_ret;
	int timed_ret;
	int closures;
	int closure_ret;
	int refused_more;
	bool items_ran;
	bool timed_ran;
	bool closures_ran;
};

/* Submits everything with the test's task marked; the gate then opens. */
static void mr_submit_marked(struct mr_fx *fx, struct exec_executor *ex,
			     struct mr_seen *s)
{
	int i, ret;

	current->make_it_fail = 1;
	s->probes_ok = mr_allocs_fail(&s->probes_failed);
	for (i = 0; i < MR_ITEMS && !s->item_ret; i++)
		s->item_ret = exec_submit(ex, &fx->items[i].work);
	for (i = 0; i < MR_TIMED && !s->timed_ret; i++)
		s->timed_ret = exec_submit_after(ex, &fx->timed[i].timer,
						 (i + 1) * NSEC_PER_MSEC);
	/* The workers are held: no closure is given back meanwhile. */
	for (i = 0; i < MR_CLOSURES_MAX; i++) {
		ret = exec_submit_fn(ex, mr_closure_fn, &fx->closures_run);
		if (ret) {
			s->closure_ret = ret;
			break;
		}
		s->closures++;
	}
	for (i = 0; s->closure_ret && i < MR_REFUSED_MORE; i++)
		s->refused_more += exec_submit_fn(ex, mr_closure_fn,
						  &fx->closures_run) == -ENOMEM;
	exec_test_gate_open(&fx->gate);
	s->items_ran = true;
	for (i = 0; i < MR_ITEMS; i++)
		s->items_ran &= exec_test_wait_atomic_ge(&fx->items[i].runs, 1,
							 EXEC_TEST_TIMEOUT_MS);
	s->timed_ran = true;
	for (i = 0; i < MR_TIMED; i++)
		s->timed_ran &= exec_test_wait_atomic_ge(&fx->timed[i].runs, 1,
							 EXEC_TEST_TIMEOUT_MS);
	s->closures_ran = exec_test_wait_atomic_ge(&fx->closures_run,
						   s->closures,
						   EXEC_TEST_TIMEOUT_MS);
	s->probes_ok &= mr_allocs_fail(&s->probes_failed);
	current->make_it_fail = 0;
}

static struct mr_fx *mr_fx_create(struct kunit *test)
{
	struct mr_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_test_gate_init(&fx->gate);
	for (i = 0; i < MR_WORKERS; i++) {
		fx->gates[i].fx = fx;
		fx->gates[i].index = i;
		exec_work_init(&fx->gates[i].work, mr_gate_fn);
	}
	for (i = 0; i < MR_ITEMS; i++)
		exec_work_init(&fx->items[i].work, mr_item_fn);
	for (i = 0; i < MR_TIMED; i++)
		exec_timer_init(&fx->timed[i].timer, mr_timed_fn, NULL);
	return fx;
}

/*
 * Intrusive items, timed items and closures on a fixed pool whose workers,
 * like the test's task, can allocate nothing: every item and timed item
 * runs, closures are refused with -ENOMEM once the caches are out of free
 * closures, and each one accepted runs once.
 */
static void fixed_pool_runs_everything_without_memory(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = MR_WORKERS, .thread = { .name = "mr-fixed" },
	};
	struct exec_thread_pool *pool;
	struct mr_fx *fx = mr_fx_create(test);
	struct mr_seen s = {};
	int i;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	/* Closures run and given back: the caches have free ones. */
	for (i = 0; i < MR_WARM_CLOSURES; i++)
		KUNIT_ASSERT_EQ(test,
				exec_submit_fn(exec_thread_pool_executor(pool),
					       mr_closure_fn, &fx->warm_run), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&fx->warm_run,
							 MR_WARM_CLOSURES,
							 EXEC_TEST_TIMEOUT_MS));
	for (i = 0; i < MR_WORKERS; i++)
		KUNIT_ASSERT_EQ(test,
				exec_submit(exec_thread_pool_executor(pool),
					    &fx->gates[i].work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate,
							MR_WORKERS));
	mr_submit_marked(fx, exec_thread_pool_executor(pool), &s);
	mr_unmark_workers(fx);

	KUNIT_EXPECT_TRUE_MSG(test, s.probes_ok,
			      "allocations of a make_it_fail task succeed: fault injection not set (tests/guest/init.c)");
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->nr_workers), MR_WORKERS);
	KUNIT_EXPECT_EQ(test, s.item_ret, 0);
	KUNIT_EXPECT_EQ(test, s.timed_ret, 0);
	KUNIT_EXPECT_TRUE(test, s.items_ran);
	KUNIT_EXPECT_TRUE(test, s.timed_ran);
	KUNIT_EXPECT_GT(test, s.closures, 0);
	KUNIT_EXPECT_EQ(test, s.closure_ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, s.refused_more, MR_REFUSED_MORE);
	KUNIT_EXPECT_TRUE(test, s.closures_ran);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	for (i = 0; i < MR_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
	for (i = 0; i < MR_TIMED; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->timed[i].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->closures_run), s.closures);
	kunit_info(test,
		   "%d items, %d timed items, %d closures accepted and run; then closures refused with -ENOMEM, %d more of %d; allocations failed: %u of the probes, %d of closure chunks",
		   MR_ITEMS, MR_TIMED, s.closures, s.refused_more,
		   MR_REFUSED_MORE, s.probes_failed, 1 + s.refused_more);
}

/* Marks the tasks whose name is @comm (a pool's manager) make_it_fail. */
static int mr_mark_by_name(const char *comm, int mark)
{
	struct task_struct *p;
	int n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (!strcmp(p->comm, comm)) {
			WRITE_ONCE(p->make_it_fail, mark);
			n++;
		}
	}
	rcu_read_unlock();
	return n;
}

/* The threads of the "mr-grow" pool that exist: workers and manager. */
static void mr_sample(unsigned int *threads_max)
{
	*threads_max = max(*threads_max, exec_kunit_count_tasks("mr-grow/"));
}

/* Starts the growing pool's policy asked for. */
static atomic_t mr_grow_asked;

/*
 * The default policy's decision (a worker more while items wait and none is
 * idle), counted: each one the manager carries out with kthread_create(),
 * which fails its first allocation here.
 */
static void mr_grow_policy(const struct exec_pool_state *st,
			   struct exec_pool_action *act, void *arg)
{
	act->create = st->queue_length && !st->idle;
	if (act->create)
		atomic_inc(&mr_grow_asked);
}

/*
 * A growing pool, its one worker held, items waiting: its manager wants
 * more workers and cannot start one (its kthread_create() allocates).  The
 * pool stays at the worker it was created with, and that worker runs every
 * item once the gate opens: growth is best effort, progress is not.
 */
static void growing_pool_progresses_without_growing(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = 3,
		.thread = { .name = "mr-grow" }, .policy = mr_grow_policy,
	};
	struct exec_thread_pool *pool;
	struct mr_fx *fx = mr_fx_create(test);
	unsigned int threads_max = 0, probes = 0;
	bool probes_ok, ran = true;
	int i, ret = 0, managers;
	u64 deadline;

	atomic_set(&mr_grow_asked, 0);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	managers = mr_mark_by_name("mr-grow/m", 1);
	KUNIT_ASSERT_EQ(test, exec_submit(exec_thread_pool_executor(pool),
					  &fx->gates[0].work), 0);
	KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));

	current->make_it_fail = 1;
	probes_ok = mr_allocs_fail(&probes);
	for (i = 0; i < MR_ITEMS && !ret; i++)
		ret = exec_submit(exec_thread_pool_executor(pool),
				  &fx->items[i].work);
	/* Many of the manager's samples (EXEC_POOL_SAMPLE_MS) ask to grow. */
	deadline = exec_test_deadline(100);
	while (!exec_test_expired(deadline)) {
		mr_sample(&threads_max);
		usleep_range(500, 1000);
	}
	exec_test_gate_open(&fx->gate);
	for (i = 0; i < MR_ITEMS; i++)
		ran &= exec_test_wait_atomic_ge(&fx->items[i].runs, 1,
						EXEC_TEST_TIMEOUT_MS);
	mr_sample(&threads_max);
	current->make_it_fail = 0;
	mr_mark_by_name("mr-grow/m", 0);
	mr_unmark_workers(fx);

	KUNIT_EXPECT_TRUE(test, probes_ok);
	KUNIT_EXPECT_EQ(test, managers, 1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, ran);
	/* The worker and the manager, and no other thread, ever. */
	KUNIT_EXPECT_EQ(test, threads_max, 2U);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	for (i = 0; i < MR_ITEMS; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[i].runs), 1);
	/* The policy asked, and every start failed: no thread was added. */
	KUNIT_EXPECT_GT(test, atomic_read(&mr_grow_asked), 0);
	kunit_info(test,
		   "%d items ran on the pool's one worker, at most %u threads (worker and manager); allocations failed: %u of the probes, %d of the manager's starts of a worker",
		   MR_ITEMS, threads_max, probes, atomic_read(&mr_grow_asked));
}

static struct kunit_case exec_mem_reclaim_cases[] = {
	KUNIT_CASE(fixed_pool_runs_everything_without_memory),
	KUNIT_CASE(growing_pool_progresses_without_growing),
	{}
};

static struct kunit_suite exec_mem_reclaim_suite = {
	.name = "exec-mem-reclaim",
	.test_cases = exec_mem_reclaim_cases,
};

kunit_test_suite(exec_mem_reclaim_suite);

#endif /* CONFIG_FAULT_INJECTION && CONFIG_FAILSLAB && CONFIG_FAIL_PAGE_ALLOC */

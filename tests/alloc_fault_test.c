// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Allocation failure at every site: for each public operation that
 * allocates (executors, closures, futures, groups, execution contexts and
 * services), the sweep fails its first allocation, then its second, and so
 * on until the operation makes no more.  Each failure must give -ENOMEM
 * (or succeed anyway, where the operation can do without that memory), and
 * whatever was created must then work and be destroyed with nothing
 * discarded.  Leaks show up under LeakSanitizer in the userspace ASan run
 * and under kmemleak in the test kernel.
 *
 * The failures come from one of two sources, a suite each:
 *
 * exec-alloc-fault     the core's fault point (exec_fault_inject_alloc()),
 *                      which every allocation of the core passes; both
 *                      worlds.
 * exec-alloc-failslab  the kernel's own failslab: the Nth slab allocation
 *                      of the task that runs the operation fails
 *                      (current->fail_nth, as /proc/self/fail-nth sets
 *                      it), so the kernel's allocations on the
 *                      operation's behalf (kthread creation, debugfs, the
 *                      debugging tools' own records) fail in turn too.
 *                      Kernels with CONFIG_FAILSLAB only; tests/guest/init.c
 *                      lets it fail GFP_KERNEL allocations (ignore-gfp-wait
 *                      off) before the suites run.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

/* Where the sweep's failures come from. */
struct af_source {
	/* Fail the allocation after @after more; a negative @after: none. */
	void (*inject)(int after);
	/* Whether the failure asked for has happened. */
	bool (*fired)(void);
	/* More allocations than any operation here makes from this source. */
	int max_allocs;
};

static const struct af_source af_core_fault_point = {
	.inject = exec_fault_inject_alloc,
	.fired = exec_fault_alloc_fired,
	.max_allocs = 64,
};

#ifdef CONFIG_FAILSLAB
/*
 * The kernel's allocations on the operation's behalf, and the records that
 * kmemleak and debug objects keep of each allocation, count here too.
 */
static void af_failslab_inject(int after)
{
	current->fail_nth = after < 0 ? 0 : after + 1;
}

static bool af_failslab_fired(void)
{
	/* should_fail_ex() counts it down to 0 at the failure it injects. */
	return READ_ONCE(current->fail_nth) == 0;
}

static const struct af_source af_failslab = {
	.inject = af_failslab_inject,
	.fired = af_failslab_fired,
	.max_allocs = 512,
};
#endif

/* Set by each suite's init; the suites run one after the other. */
static const struct af_source *af_source = &af_core_fault_point;

/* Creates the object under test in *@objp; 0 or a negative errno. */
typedef int (*af_create_fn)(void **objp, void *arg);
/* Uses it once and destroys it; false if anything went wrong. */
typedef bool (*af_finish_fn)(struct kunit *test, void *obj, void *arg);

/*
 * The sweep.  Returns the number of allocations failed in turn; every
 * operation swept allocates at least once, but one whose memory is a
 * record of the record cache (core/executor.c), @cached: a ring of the
 * record's class that earlier cases on this CPU (the kernel) or thread
 * grew serves it from a free slot, with no allocation to fail, as
 * exec-record-cache checks.
 */
static int __af_sweep(struct kunit *test, const char *what,
		      af_create_fn create, af_finish_fn finish, void *arg,
		      bool cached)
{
	int n, ret, failed = 0;
	void *obj;
	bool fired;

	for (n = 0; n < af_source->max_allocs; n++) {
		obj = NULL;
		af_source->inject(n);
		ret = create(&obj, arg);
		fired = af_source->fired();
		af_source->inject(-1);
		if (!fired) {
			/* It made fewer than n + 1 allocations: done. */
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", what);
			if (!ret)
				KUNIT_EXPECT_TRUE_MSG(test,
						      finish(test, obj, arg),
						      "%s", what);
			break;
		}
		failed++;
		if (ret) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -ENOMEM,
					    "%s, allocation %d", what, n);
			continue;
		}
		/* It did without that memory: it must still work. */
		KUNIT_EXPECT_TRUE_MSG(test, finish(test, obj, arg),
				      "%s, allocation %d", what, n);
	}
	KUNIT_EXPECT_LT_MSG(test, n, af_source->max_allocs, "%s", what);
	if (!cached)
		KUNIT_EXPECT_GT_MSG(test, failed, 0, "%s", what);
	kunit_info(test, "%s: %d allocations failed in turn", what, failed);
	return failed;
}

static int af_sweep(struct kunit *test, const char *what,
		    af_create_fn create, af_finish_fn finish, void *arg)
{
	return __af_sweep(test, what, create, finish, arg, false);
}

struct af_item {
	struct exec_work work;
	atomic_t runs;
};

static void af_item_fn(struct exec_work *work)
{
	exec_test_count(&container_of(work, struct af_item, work)->runs);
}

/* One item through @ex, run within the test timeout. */
static bool af_runs_one(struct exec_executor *ex)
{
	struct af_item it;

	atomic_set(&it.runs, 0);
	exec_work_init(&it.work, af_item_fn);
	if (exec_submit(ex, &it.work))
		return false;
	return exec_test_wait_atomic_ge(&it.runs, 1, EXEC_TEST_TIMEOUT_MS);
}

/* --- thread pools ---------------------------------------------------- */

static int af_pool_create(void **objp, void *arg)
{
	return exec_thread_pool_create((struct exec_thread_pool **)objp, arg);
}

static bool af_pool_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_thread_pool *pool = obj;
	bool ok = af_runs_one(exec_thread_pool_executor(pool));

	return exec_thread_pool_destroy(pool) == 0 && ok;
}

static void alloc_fault_thread_pools(struct kunit *test)
{
	struct exec_thread_pool_attr fixed = { .nr_threads = 2 };
	struct exec_thread_pool_attr growing = {
		.nr_threads = 1, .max_threads = 3,
		.thread = { .name = "af-grow", .cpus = NULL },
	};
	struct exec_test_thread_self *me = kzalloc(sizeof(*me), GFP_KERNEL);

	af_sweep(test, "fixed thread pool", af_pool_create, af_pool_finish,
		 &fixed);
	af_sweep(test, "growing thread pool", af_pool_create, af_pool_finish,
		 &growing);
	/* With a CPU mask, which the pool copies for the workers it adds. */
	KUNIT_ASSERT_NOT_NULL(test, me);
	KUNIT_EXPECT_EQ(test, exec_test_thread_self(me), 0);
	growing.thread.cpus = me->cpus;
	growing.thread.nr_cpu_bits = EXEC_TEST_CPU_BITS;
	af_sweep(test, "growing thread pool with a CPU mask", af_pool_create,
		 af_pool_finish, &growing);
	kfree(me);
}

/* --- executors over a pool ------------------------------------------- */

struct af_over {
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
};

static int af_serial_create(void **objp, void *arg)
{
	struct af_over *o = arg;

	return exec_serial_create((struct exec_serial **)objp, o->ex);
}

static bool af_serial_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_serial *s = obj;
	bool ok = af_runs_one(exec_serial_executor(s));

	return exec_serial_destroy(s) == 0 && ok;
}

/*
 * A strand and its first timed item: the strand's record of timed items is
 * made by that first arm, whose failure leaves the item idle.
 */
struct af_strand_timed {
	struct exec_serial *serial;
	struct exec_timer timer;
	atomic_t runs;
	bool on_strand;
};

static void af_strand_timed_fn(struct exec_work *work)
{
	struct af_strand_timed *st = container_of(work, struct af_strand_timed,
						  timer.work);

	st->on_strand = exec_serial_running_in_this_thread(st->serial);
	exec_test_count(&st->runs);
}

static int af_strand_timed_create(void **objp, void *arg)
{
	struct af_over *o = arg;
	struct af_strand_timed *st;
	int ret;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	ret = exec_serial_create(&st->serial, o->ex);
	if (ret)
		goto err_free;
	exec_timer_init(&st->timer, af_strand_timed_fn, NULL);
	ret = exec_submit_after(exec_serial_executor(st->serial), &st->timer,
				100000);
	if (ret)
		goto err_destroy_serial;
	*objp = st;
	return 0;

err_destroy_serial:
	if (exec_work_pending(&st->timer.work) ||
	    exec_serial_destroy(st->serial))
		ret = -EBADE;
err_free:
	kfree(st);
	return ret;
}

static bool af_strand_timed_finish(struct kunit *test, void *obj, void *arg)
{
	struct af_strand_timed *st = obj;
	bool ok;

	ok = exec_test_wait_atomic_ge(&st->runs, 1, EXEC_TEST_TIMEOUT_MS) &&
	     st->on_strand;
	ok = exec_serial_destroy(st->serial) == 0 && ok;
	kfree(st);
	return ok;
}

static int af_priority_create(void **objp, void *arg)
{
	struct exec_priority_attr attr = { .max_running = 2 };
	struct af_over *o = arg;

	return exec_priority_create((struct exec_priority **)objp, o->ex,
				    &attr);
}

static bool af_priority_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_priority *p = obj;
	bool ok = af_runs_one(exec_priority_executor(p));

	return exec_priority_destroy(p) == 0 && ok;
}

static int af_queue_create(void **objp, void *arg)
{
	struct exec_managed_queue_attr attr = {
		.name = "af", .thread_limit = 2, .queue_limit = 4,
		.time_limit_ns = 10ULL * 1000 * 1000 * 1000,
	};
	struct af_over *o = arg;

	return exec_managed_queue_create((struct exec_managed_queue **)objp,
					 o->ex, &attr);
}

static bool af_queue_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_managed_queue *q = obj;
	bool ok = af_runs_one(exec_managed_queue_executor(q));

	ok = !exec_managed_queue_wait_until_complete(q) && ok;
	return exec_managed_queue_destroy(q) == 0 && ok;
}

/*
 * Closures come from the caller's cache, which allocates only when it is
 * full.  So both workers are held by a gate, and closures queue behind it
 * until one of them needs a new chunk: the allocation swept.
 */
#define AF_CLOSURES_MAX		(1L << 22)

struct af_closures;

struct af_gate {
	struct exec_work work;
	struct af_closures *c;
	atomic_t runs;
};

struct af_closures {
	struct af_over *over;
	struct af_gate gates[2];
	atomic_t gated;
	atomic_t open;
	atomic_t runs;
	long submitted;
};

static void af_gate_fn(struct exec_work *work)
{
	struct af_gate *gate = container_of(work, struct af_gate, work);

	exec_test_count(&gate->c->gated);
	exec_test_wait_atomic_ge(&gate->c->open, 1, EXEC_TEST_TIMEOUT_MS);
	exec_test_count(&gate->runs);
}

static void af_closure_fn(void *arg)
{
	exec_test_count(arg);
}

/* Opens the gate; whether the gates and every closure then ran. */
static bool af_closures_drain(struct af_closures *c)
{
	atomic_set(&c->open, 1);
	return exec_test_wait_atomic_ge(&c->runs, c->submitted,
					EXEC_TEST_TIMEOUT_MS) &&
	       exec_test_wait_atomic_ge(&c->gates[0].runs, 1,
					EXEC_TEST_TIMEOUT_MS) &&
	       exec_test_wait_atomic_ge(&c->gates[1].runs, 1,
					EXEC_TEST_TIMEOUT_MS);
}

/* A failed allocation refuses the submission; the rest all run. */
static int af_closure_create(void **objp, void *arg)
{
	struct af_closures *c = arg;
	struct exec_executor *ex = c->over->ex;
	unsigned long before;
	int i, ret = 0;

	atomic_set(&c->gated, 0);
	atomic_set(&c->open, 0);
	atomic_set(&c->runs, 0);
	c->submitted = 0;
	for (i = 0; i < 2; i++) {
		c->gates[i].c = c;
		atomic_set(&c->gates[i].runs, 0);
		exec_work_init(&c->gates[i].work, af_gate_fn);
		if (exec_submit(ex, &c->gates[i].work))
			return -EIO;
	}
	if (!exec_test_wait_atomic_ge(&c->gated, 2, EXEC_TEST_TIMEOUT_MS))
		return -EIO;
	before = exec_closures_allocated();
	while (exec_closures_allocated() == before) {
		if (c->submitted == AF_CLOSURES_MAX) {
			ret = -ENOSPC;
			break;
		}
		ret = exec_submit_fn(ex, af_closure_fn, &c->runs);
		if (ret)
			break;
		c->submitted++;
	}
	if (!af_closures_drain(c))
		return -EIO;
	*objp = c;
	return ret;
}

static bool af_closure_finish(struct kunit *test, void *obj, void *arg)
{
	struct af_closures *c = obj;

	/* Drained by create: the closures ran. */
	return atomic_read(&c->runs) == c->submitted;
}

static void alloc_fault_executors_over_a_pool(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct af_over o;
	int failed;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&o.pool, &attr), 0);
	o.ex = exec_thread_pool_executor(o.pool);
	failed = af_sweep(test, "serial executor", af_serial_create,
			  af_serial_finish, &o);
	/* One allocation: its timed items' record waits for the first. */
	if (af_source == &af_core_fault_point)
		KUNIT_EXPECT_EQ(test, failed, 1);
	failed = af_sweep(test, "serial executor and its first timed item",
			  af_strand_timed_create, af_strand_timed_finish, &o);
	if (af_source == &af_core_fault_point)
		KUNIT_EXPECT_EQ(test, failed, 2);
	af_sweep(test, "priority executor", af_priority_create,
		 af_priority_finish, &o);
	af_sweep(test, "managed queue", af_queue_create, af_queue_finish, &o);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(o.pool), 0L);
}

static void alloc_fault_closures(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct af_closures c;
	struct af_over o;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&o.pool, &attr), 0);
	o.ex = exec_thread_pool_executor(o.pool);
	c.over = &o;
	af_sweep(test, "closure", af_closure_create, af_closure_finish, &c);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(o.pool), 0L);
}

/* --- the thread manager ---------------------------------------------- */

static int af_manager_create(void **objp, void *arg)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 2, .pool = { .nr_threads = 1, .max_threads = 2 },
	};

	return exec_thread_manager_create((struct exec_thread_manager **)objp,
					  &attr);
}

static bool af_manager_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_thread_manager *m = obj;
	struct exec_managed_queue *q;
	bool ok = false;

	if (!exec_thread_manager_new_queue(m, &q, NULL)) {
		ok = af_runs_one(exec_managed_queue_executor(q));
		ok = !exec_managed_queue_destroy(q) && ok;
	}
	return exec_thread_manager_destroy(m) == 0 && ok;
}

static int af_new_queue_create(void **objp, void *arg)
{
	return exec_thread_manager_new_queue(arg,
					     (struct exec_managed_queue **)objp,
					     NULL);
}

static bool af_new_queue_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_managed_queue *q = obj;
	bool ok = af_runs_one(exec_managed_queue_executor(q));

	return exec_managed_queue_destroy(q) == 0 && ok;
}

static void alloc_fault_thread_manager(struct kunit *test)
{
	struct exec_thread_manager *m;

	af_sweep(test, "thread manager", af_manager_create, af_manager_finish,
		 NULL);
	KUNIT_ASSERT_EQ(test, exec_thread_manager_create(&m, NULL), 0);
	af_sweep(test, "thread manager queue", af_new_queue_create,
		 af_new_queue_finish, m);
	KUNIT_EXPECT_EQ(test, exec_thread_manager_destroy(m), 0);
}

/* --- loops, thread-per-task, futures, groups ------------------------- */

static int af_loop_create(void **objp, void *arg)
{
	return exec_loop_create((struct exec_loop **)objp);
}

static bool af_loop_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_loop *loop = obj;
	struct af_item it;
	bool ok;

	atomic_set(&it.runs, 0);
	exec_work_init(&it.work, af_item_fn);
	ok = !exec_submit(exec_loop_executor(loop), &it.work) &&
	     exec_loop_run_queued_closures(loop) == 1 &&
	     atomic_read(&it.runs) == 1;
	return exec_loop_destroy(loop) == 0 && ok;
}

static int af_ls_create(void **objp, void *arg)
{
	return exec_loop_scheduler_create((struct exec_loop_scheduler **)objp);
}

static bool af_ls_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_loop_scheduler *ls = obj;
	struct af_item it;
	bool ok;

	atomic_set(&it.runs, 0);
	exec_work_init(&it.work, af_item_fn);
	ok = !exec_submit(exec_loop_scheduler_executor(ls), &it.work) &&
	     exec_loop_scheduler_poll(ls) == 1 &&
	     atomic_read(&it.runs) == 1;
	return exec_loop_scheduler_destroy(ls) == 0 && ok;
}

static int af_tpt_create(void **objp, void *arg)
{
	return exec_thread_per_task_create(
		(struct exec_thread_per_task **)objp);
}

static bool af_tpt_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_thread_per_task *tpt = obj;
	bool ok = af_runs_one(exec_thread_per_task_executor(tpt));

	return exec_thread_per_task_destroy(tpt) == 0 && ok;
}

static long af_answer(void *arg)
{
	return 42;
}

static int af_spawn_create(void **objp, void *arg)
{
	return exec_spawn_future((struct exec_future **)objp, arg, af_answer,
				 NULL);
}

static bool af_spawn_finish(struct kunit *test, void *obj, void *arg)
{
	struct exec_future *fut = obj;
	long result = 0;
	bool ok;

	ok = !exec_future_wait(fut, 10ULL * 1000 * 1000 * 1000, &result) &&
	     result == 42;
	exec_future_put(fut);
	return ok;
}

static int af_group_create(void **objp, void *arg)
{
	return exec_group_create((struct exec_group **)objp);
}

static bool af_group_finish(struct kunit *test, void *obj, void *arg)
{
	return exec_group_destroy(obj) == 0;
}

static void alloc_fault_loops_tasks_futures_groups(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;

	af_sweep(test, "loop executor", af_loop_create, af_loop_finish, NULL);
	af_sweep(test, "loop scheduler", af_ls_create, af_ls_finish, NULL);
	af_sweep(test, "thread-per-task executor", af_tpt_create,
		 af_tpt_finish, NULL);
	af_sweep(test, "task group", af_group_create, af_group_finish, NULL);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	__af_sweep(test, "spawned future", af_spawn_create, af_spawn_finish,
		   exec_thread_pool_executor(pool), true);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* --- execution contexts and services ---------------------------------- */

struct af_service {
	struct exec_service svc;
	atomic_t *destroyed;
};

static const struct exec_service_key af_service_key = { .name = "af" };

static void af_service_destroy(struct exec_service *svc)
{
	struct af_service *s = container_of(svc, struct af_service, svc);

	exec_test_count(s->destroyed);
	kfree(s);
}

static const struct exec_service_ops af_service_ops = {
	.destroy = af_service_destroy,
};

/*
 * The service's own memory is its creator's: the sweep fails the
 * library's allocations, the contexts', around it.
 */
static int af_service_make(struct exec_context *ctx, void *arg,
			   struct exec_service **svcp)
{
	struct af_service *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return -ENOMEM;
	exec_service_init(&s->svc, &af_service_key, &af_service_ops);
	s->destroyed = arg;
	*svcp = &s->svc;
	return 0;
}

/* A stand-alone context, and a service of it. */
static int af_context_create(void **objp, void *arg)
{
	struct exec_service *svc;
	struct exec_context *ctx;
	int ret;

	ret = exec_context_create(&ctx);
	if (ret)
		return ret;
	ret = exec_use_service(ctx, &af_service_key, af_service_make, arg,
			       &svc);
	if (ret) {
		exec_context_destroy(ctx);
		return ret;
	}
	*objp = ctx;
	return 0;
}

static bool af_context_finish(struct kunit *test, void *obj, void *arg)
{
	int before = atomic_read(arg);
	bool ok = exec_has_service(obj, &af_service_key);

	return exec_context_destroy(obj) == 1 && ok &&
	       atomic_read(arg) == before + 1;
}

/* A pool, its execution context, and a service of that context. */
static int af_executor_context_create(void **objp, void *arg)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_service *svc;
	struct exec_context *ctx;
	int ret;

	ret = exec_thread_pool_create(&pool, &attr);
	if (ret)
		return ret;
	ctx = exec_executor_context(exec_thread_pool_executor(pool));
	ret = ctx ? exec_use_service(ctx, &af_service_key, af_service_make,
				     arg, &svc) : -ENOMEM;
	if (ret) {
		exec_thread_pool_destroy(pool);
		return ret;
	}
	*objp = pool;
	return 0;
}

static bool af_executor_context_finish(struct kunit *test, void *obj,
				       void *arg)
{
	struct exec_executor *ex = exec_thread_pool_executor(obj);
	int before = atomic_read(arg);
	bool ok;

	ok = exec_has_service(exec_executor_context(ex), &af_service_key) &&
	     af_runs_one(ex);
	/* The pool's context goes with it, destroying the service. */
	return exec_thread_pool_destroy(obj) == 0 && ok &&
	       atomic_read(arg) == before + 1;
}

static void alloc_fault_services(struct kunit *test)
{
	atomic_t destroyed = ATOMIC_INIT(0);

	af_sweep(test, "context and service", af_context_create,
		 af_context_finish, &destroyed);
	af_sweep(test, "executor's context and service",
		 af_executor_context_create, af_executor_context_finish,
		 &destroyed);
}

static struct kunit_case exec_alloc_fault_cases[] = {
	KUNIT_CASE(alloc_fault_thread_pools),
	KUNIT_CASE(alloc_fault_executors_over_a_pool),
	KUNIT_CASE(alloc_fault_closures),
	KUNIT_CASE(alloc_fault_thread_manager),
	KUNIT_CASE(alloc_fault_loops_tasks_futures_groups),
	KUNIT_CASE(alloc_fault_services),
	{}
};

static int alloc_fault_init(struct kunit *test)
{
	af_source = &af_core_fault_point;
	return 0;
}

static struct kunit_suite exec_alloc_fault_suite = {
	.name = "exec-alloc-fault",
	.init = alloc_fault_init,
	.test_cases = exec_alloc_fault_cases,
};

#ifdef CONFIG_FAILSLAB
/* The same cases: KUnit keeps each case's status in its entry. */
static struct kunit_case exec_alloc_failslab_cases[] = {
	KUNIT_CASE(alloc_fault_thread_pools),
	KUNIT_CASE(alloc_fault_executors_over_a_pool),
	KUNIT_CASE(alloc_fault_closures),
	KUNIT_CASE(alloc_fault_thread_manager),
	KUNIT_CASE(alloc_fault_loops_tasks_futures_groups),
	KUNIT_CASE(alloc_fault_services),
	{}
};

static int alloc_failslab_init(struct kunit *test)
{
	af_source = &af_failslab;
	return 0;
}

static void alloc_failslab_exit(struct kunit *test)
{
	af_source = &af_core_fault_point;
}

static struct kunit_suite exec_alloc_failslab_suite = {
	.name = "exec-alloc-failslab",
	.init = alloc_failslab_init,
	.exit = alloc_failslab_exit,
	.test_cases = exec_alloc_failslab_cases,
};

kunit_test_suites(&exec_alloc_fault_suite, &exec_alloc_failslab_suite);
#else
kunit_test_suites(&exec_alloc_fault_suite);
#endif

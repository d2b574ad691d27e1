// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Stress: exec_test_stress_tasks() tasks (10,000,000 by default) from four
 * producer threads into thread pools of 1, 2 and 8 workers, and into 64
 * serial executors sharing one pool.  Every task is checked, not sampled:
 * each has a run counter that must end at exactly 1, and each serial task
 * checks that it is the next one of its producer on its serial executor.
 *
 * Items are intrusive and allocated in bulk.  To keep memory small (and each
 * allocation within what kcalloc() gives in the kernel), a producer owns a
 * chunk of ST_CHUNK items, submits them all, waits until they have all run,
 * checks and resets their counters, and reuses them for its next tasks; the
 * other producers keep the executor busy meanwhile.
 *
 * Closures get a case of their own: threads that submit them and exit at
 * once, generation after generation, every closure counted.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define ST_PRODUCERS	4
#define ST_CHUNK	16384U		/* a multiple of ST_SERIALS */
#define ST_SERIALS	64U
#define ST_SERIAL_POOL_THREADS	4

struct st_ctx;
struct st_producer;

struct st_item {
	struct exec_work work;
	struct st_producer *p;
	unsigned int serial;		/* index of its serial executor */
	/* its rank among its producer's tasks on that serial executor */
	unsigned long seq;
};

/* Touched only by the items of one serial executor, hence plain fields. */
struct st_serial {
	struct exec_serial *serial;
	struct exec_executor *ex;
	atomic_t inside;
	unsigned long next[ST_PRODUCERS];
} ____cacheline_aligned;

struct st_producer {
	struct st_ctx *ctx;
	unsigned int id;
	struct exec_test_thread thread;
	struct st_item *items;
	atomic_t *runs;			/* per item of the current chunk */
	atomic_t done;			/* items of the current chunk run */
	unsigned long tasks;
	/* results, read by the case after the join */
	unsigned long accepted;
	unsigned long submit_errors;
	int first_error;
	unsigned long wrong_runs;
	bool timed_out;
} ____cacheline_aligned;

struct st_ctx {
	struct kunit *test;
	struct exec_executor *ex;	/* NULL: the serial executors */
	struct st_serial *serials;
	atomic_t overlaps;
	atomic_t order_errors;
	struct st_producer producers[ST_PRODUCERS];
};

static void st_pool_func(struct exec_work *work)
{
	struct st_item *it = container_of(work, struct st_item, work);
	struct st_producer *p = it->p;

	atomic_inc(&p->runs[it - p->items]);
	exec_test_count(&p->done);
}

static void st_serial_func(struct exec_work *work)
{
	struct st_item *it = container_of(work, struct st_item, work);
	struct st_producer *p = it->p;
	struct st_serial *ss = &p->ctx->serials[it->serial];

	if (atomic_inc_return(&ss->inside) != 1)
		exec_test_count(&p->ctx->overlaps);
	if (ss->next[p->id] != it->seq)
		exec_test_count(&p->ctx->order_errors);
	ss->next[p->id] = it->seq + 1;
	atomic_dec_return(&ss->inside);
	atomic_inc(&p->runs[it - p->items]);
	exec_test_count(&p->done);
}

/*
 * Wait until @n items of the chunk have run.  Gives up only when nothing
 * has run for EXEC_TEST_TIMEOUT_MS, so a slow machine is not a failure.
 */
static bool st_wait_chunk(struct st_producer *p, int n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;
	int seen = 0, now;

	while ((now = atomic_read_acquire(&p->done)) < n) {
		if (now != seen) {
			seen = now;
			deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
		} else if (exec_test_expired(deadline)) {
			return false;
		}
		exec_test_relax(&spins);
	}
	return true;
}

/* Every submitted item of the chunk ran exactly once; reset for reuse. */
static void st_check_chunk(struct st_producer *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (atomic_read(&p->runs[i]) != 1)
			p->wrong_runs++;
		atomic_set(&p->runs[i], 0);
	}
}

static int st_produce(void *arg)
{
	struct st_producer *p = arg;
	struct st_ctx *ctx = p->ctx;
	unsigned long base, j;
	unsigned int i, n;
	struct st_item *it;
	int ret;

	for (base = 0; base < p->tasks; base += n) {
		n = p->tasks - base < ST_CHUNK ? p->tasks - base : ST_CHUNK;
		atomic_set(&p->done, 0);
		for (i = 0; i < n; i++) {
			it = &p->items[i];
			if (ctx->ex) {
				ret = exec_submit(ctx->ex, &it->work);
			} else {
				j = base + i;
				it->serial = j % ST_SERIALS;
				it->seq = j / ST_SERIALS;
				ret = exec_submit(ctx->serials[it->serial].ex,
						  &it->work);
			}
			if (ret) {
				/* Counted as done so the wait still ends. */
				if (!p->submit_errors++)
					p->first_error = ret;
				atomic_inc(&p->runs[i]);
				exec_test_count(&p->done);
			} else {
				p->accepted++;
			}
		}
		if (!st_wait_chunk(p, n)) {
			WRITE_ONCE(p->timed_out, true);
			return -ETIMEDOUT;
		}
		st_check_chunk(p, n);
	}
	return 0;
}

static void st_free(struct st_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ST_PRODUCERS; i++) {
		kfree(ctx->producers[i].items);
		kfree(ctx->producers[i].runs);
	}
	kfree(ctx->serials);
	kfree(ctx);
}

static struct st_ctx *st_alloc(struct kunit *test, exec_work_fn fn)
{
	struct st_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	unsigned long total = exec_test_stress_tasks();
	struct st_producer *p;
	unsigned int i, k;

	if (!ctx)
		return NULL;
	ctx->test = test;
	atomic_set(&ctx->overlaps, 0);
	atomic_set(&ctx->order_errors, 0);
	for (i = 0; i < ST_PRODUCERS; i++) {
		p = &ctx->producers[i];
		p->ctx = ctx;
		p->id = i;
		p->tasks = total / ST_PRODUCERS + (i < total % ST_PRODUCERS);
		p->items = kcalloc(ST_CHUNK, sizeof(*p->items), GFP_KERNEL);
		p->runs = kcalloc(ST_CHUNK, sizeof(*p->runs), GFP_KERNEL);
		if (!p->items || !p->runs) {
			st_free(ctx);
			return NULL;
		}
		for (k = 0; k < ST_CHUNK; k++) {
			exec_work_init(&p->items[k].work, fn);
			p->items[k].p = p;
		}
	}
	return ctx;
}

/*
 * Run the producers and check what they found.  False if one of them hangs:
 * the caller must then leak the executor and @ctx rather than free them.
 */
static bool st_run(struct kunit *test, struct st_ctx *ctx)
{
	unsigned long accepted = 0, total = 0;
	unsigned int i, started = 0;
	u64 t0 = ktime_get_ns();
	bool ok = true;

	for (i = 0; i < ST_PRODUCERS; i++) {
		if (exec_test_thread_start(&ctx->producers[i].thread, st_produce,
					   &ctx->producers[i], "exec-stress"))
			break;
		started++;
	}
	KUNIT_EXPECT_EQ(test, started, (unsigned int)ST_PRODUCERS);
	for (i = 0; i < started; i++) {
		/* A producer checks in at least every EXEC_TEST_TIMEOUT_MS. */
		while (!exec_test_thread_join(&ctx->producers[i].thread,
					      EXEC_TEST_TIMEOUT_MS)) {
			if (READ_ONCE(ctx->producers[i].timed_out)) {
				ok = false;
				break;
			}
		}
	}
	for (i = 0; i < started; i++) {
		struct st_producer *p = &ctx->producers[i];

		KUNIT_EXPECT_FALSE_MSG(test, p->timed_out,
				       "producer %u: no task ran for %u ms", i,
				       EXEC_TEST_TIMEOUT_MS);
		KUNIT_EXPECT_EQ_MSG(test, p->submit_errors, 0UL,
				    "producer %u: first error %d", i,
				    p->first_error);
		KUNIT_EXPECT_EQ_MSG(test, p->wrong_runs, 0UL,
				    "producer %u: tasks not run exactly once", i);
		accepted += p->accepted;
		total += p->tasks;
	}
	KUNIT_EXPECT_EQ(test, accepted, exec_test_stress_tasks());
	kunit_info(test, "%lu tasks of %lu in %llu ns", accepted, total,
		   (unsigned long long)(ktime_get_ns() - t0));
	return ok;
}

/* After the executor is gone: nothing ran late, a second time. */
static void st_check_no_late_runs(struct kunit *test, struct st_ctx *ctx)
{
	unsigned long late = 0;
	unsigned int i, k;

	for (i = 0; i < ST_PRODUCERS; i++)
		for (k = 0; k < ST_CHUNK; k++)
			late += atomic_read(&ctx->producers[i].runs[k]) != 0;
	KUNIT_EXPECT_EQ(test, late, 0UL);
}

static void st_pool(struct kunit *test, unsigned int nr_threads)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = nr_threads,
		.thread.name = "exec-stress",
	};
	struct exec_thread_pool *pool;
	struct st_ctx *ctx = st_alloc(test, st_pool_func);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	if (exec_thread_pool_create(&pool, &attr)) {
		KUNIT_FAIL(test, "exec_thread_pool_create failed");
		st_free(ctx);
		return;
	}
	ctx->ex = exec_thread_pool_executor(pool);
	if (!st_run(test, ctx))
		return;		/* leak: the pool may still run our items */
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	st_check_no_late_runs(test, ctx);
	st_free(ctx);
}

static void stress_pool_1_worker_every_task_runs_once(struct kunit *test)
{
	st_pool(test, 1);
}

static void stress_pool_2_workers_every_task_runs_once(struct kunit *test)
{
	st_pool(test, 2);
}

static void stress_pool_8_workers_every_task_runs_once(struct kunit *test)
{
	st_pool(test, 8);
}

static void stress_64_serials_keep_order_and_run_every_task_once(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = ST_SERIAL_POOL_THREADS,
		.thread.name = "exec-stress",
	};
	struct exec_thread_pool *pool;
	struct st_ctx *ctx = st_alloc(test, st_serial_func);
	unsigned long sent, ran;
	unsigned int i, s, created = 0;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->serials = kcalloc(ST_SERIALS, sizeof(*ctx->serials), GFP_KERNEL);
	if (!ctx->serials || exec_thread_pool_create(&pool, &attr)) {
		KUNIT_FAIL(test, "setup failed");
		st_free(ctx);
		return;
	}
	for (s = 0; s < ST_SERIALS; s++) {
		atomic_set(&ctx->serials[s].inside, 0);
		if (exec_serial_create(&ctx->serials[s].serial,
				       exec_thread_pool_executor(pool)))
			break;
		ctx->serials[s].ex = exec_serial_executor(ctx->serials[s].serial);
		created++;
	}
	if (created < ST_SERIALS) {
		KUNIT_FAIL(test, "exec_serial_create failed");
		goto out;
	}
	if (!st_run(test, ctx))
		return;		/* leak: the executors may still run items */
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->overlaps), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->order_errors), 0);
	/* Each producer's last task on each serial executor ran as well. */
	for (i = 0; i < ST_PRODUCERS; i++) {
		sent = ctx->producers[i].tasks;
		ran = 0;
		for (s = 0; s < ST_SERIALS; s++)
			ran += ctx->serials[s].next[i];
		KUNIT_EXPECT_EQ_MSG(test, ran, sent, "producer %u", i);
	}
out:
	for (s = 0; s < created; s++)
		KUNIT_EXPECT_EQ(test, exec_serial_destroy(ctx->serials[s].serial),
				0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	st_check_no_late_runs(test, ctx);
	st_free(ctx);
}

/*
 * Closures from threads that come and go: generations of ST_PRODUCERS
 * threads, each submitting ST_CLOSURES closures and exiting at once, its
 * closures still queued, while the next generation starts.  In userspace
 * each exiting thread leaves its cache's ring, closures in flight and all,
 * to the next thread that needs one (core/executor.c); in the kernel the
 * threads share their CPUs' caches.  Every closure has its own counter,
 * which must end at exactly 1.
 */
#define ST_CLOSURE_GENERATIONS	16U
#define ST_CLOSURES		1024U

/* A closure's argument: its own counter, and the count of all of them. */
struct st_closure {
	atomic_t runs;
	atomic_t *total;
};

struct st_closure_thread {
	struct exec_test_thread thread;
	struct exec_test_gate *start;
	struct exec_executor *ex;
	struct st_closure *closures;	/* ST_CLOSURES of them */
};

static void st_closure_fn(void *arg)
{
	struct st_closure *c = arg;

	exec_test_count(&c->runs);
	exec_test_count(c->total);
}

static int st_closure_thread(void *arg)
{
	struct st_closure_thread *t = arg;
	unsigned int i;
	int ret;

	/* The generation's threads take their caches at once. */
	exec_test_gate_pass(t->start);
	for (i = 0; i < ST_CLOSURES; i++) {
		ret = exec_submit_fn(t->ex, st_closure_fn, &t->closures[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void stress_closures_from_threads_that_exit_run_once(struct kunit *test)
{
	const unsigned int nr = ST_CLOSURE_GENERATIONS * ST_PRODUCERS;
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct st_closure_thread *t;
	struct exec_test_gate start;
	unsigned int i, k, wrong = 0;
	atomic_t total;

	atomic_set(&total, 0);
	t = kcalloc(nr, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < nr; i++) {
		t[i].closures = kcalloc(ST_CLOSURES, sizeof(*t[i].closures),
					GFP_KERNEL);
		if (!t[i].closures) {
			KUNIT_FAIL(test, "out of memory");
			goto out_free;
		}
		for (k = 0; k < ST_CLOSURES; k++) {
			atomic_set(&t[i].closures[k].runs, 0);
			t[i].closures[k].total = &total;
		}
	}
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	for (i = 0; i < nr; i++) {
		if (i % ST_PRODUCERS == 0)
			exec_test_gate_init(&start);
		t[i].start = &start;
		t[i].ex = exec_thread_pool_executor(pool);
		KUNIT_ASSERT_EQ(test, exec_test_thread_start(&t[i].thread,
				st_closure_thread, &t[i], "st-closures"), 0);
		/* A generation ends before the next begins, its closures not. */
		if (i % ST_PRODUCERS != ST_PRODUCERS - 1)
			continue;
		KUNIT_ASSERT_TRUE(test, exec_test_gate_wait_for(&start,
								ST_PRODUCERS));
		exec_test_gate_open(&start);
		for (k = i + 1 - ST_PRODUCERS; k <= i; k++) {
			KUNIT_ASSERT_TRUE(test, exec_test_thread_join(
				&t[k].thread, EXEC_TEST_TIMEOUT_MS));
			KUNIT_EXPECT_EQ(test, t[k].thread.ret, 0L);
		}
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&total,
			nr * ST_CLOSURES, EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&total), (int)(nr * ST_CLOSURES));
	for (i = 0; i < nr; i++)
		for (k = 0; k < ST_CLOSURES; k++)
			wrong += atomic_read(&t[i].closures[k].runs) != 1;
	KUNIT_EXPECT_EQ(test, wrong, 0U);
out_free:
	for (i = 0; i < nr; i++)
		kfree(t[i].closures);
	kfree(t);
}

static struct kunit_case exec_stress_cases[] = {
	KUNIT_CASE(stress_pool_1_worker_every_task_runs_once),
	KUNIT_CASE(stress_pool_2_workers_every_task_runs_once),
	KUNIT_CASE(stress_pool_8_workers_every_task_runs_once),
	KUNIT_CASE(stress_64_serials_keep_order_and_run_every_task_once),
	KUNIT_CASE(stress_closures_from_threads_that_exit_run_once),
	{}
};

static struct kunit_suite exec_stress_suite = {
	.name = "exec-stress",
	.test_cases = exec_stress_cases,
};

kunit_test_suites(&exec_stress_suite);

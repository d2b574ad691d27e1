// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: per-CPU pools while CPUs go offline and come
 * back (Documentation/lifecycle.rst, "CPU hotplug").
 *
 * The case takes CPUs 1 to N-1 offline and online again, one at a time, in
 * a loop (remove_cpu(), add_cpu(); a CPU that cannot go offline is left
 * out), while a submitter thread gives two per-CPU pools immediate and
 * timed items from every online CPU: from an interrupt on that CPU
 * (smp_call_function_single()), from a task on it, and from wherever the
 * submitter runs.  Each item counts its runs; a timed one also checks that
 * it did not run before its deadline.  After each change the workers of
 * the CPU must be unbound (offline) or bound to it again (online).
 * Everything submitted must run exactly once, none early.  The figures go
 * to the log.  It runs in the throw-away QEMU guest of scripts/kunit-qemu.sh,
 * whose run also fails on a "no longer affine" line: exec_hotplug_test.ko,
 * a module of its own so that make check-kernel-hotplug can boot 4 CPUs for
 * it alone (make check-kernel loads it after exec_test.ko, on 2 CPUs).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include <kunit/test.h>
#include <exec/exec.h>

#include "pool.h"
#include "exec_test.h"

/* Items each run may submit; the submitter stops when they are used up. */
#define HP_ITEMS	24000U
/* Offline/online cycles of each CPU. */
#define HP_CYCLES	8U
/* How long a CPU stays offline, and online, per cycle. */
#define HP_DWELL_MS	20U
/* Timed items are due within this many ns, so that many span a change. */
#define HP_DELAY_SPAN_NS	(20U * NSEC_PER_MSEC)

struct hp_ctx;

struct hp_item {
	struct exec_work work;
	struct exec_timer timer;
	struct hp_ctx *ctx;
	u64 deadline;
	atomic_t runs;
	bool timed;
	bool submitted;
};

struct hp_ctx {
	struct exec_thread_pool *pool[2];
	struct hp_item *items;
	atomic_t next;
	int allowed;
	atomic_t submitted;
	atomic_t refused;
	atomic_t ran;
	atomic_t early;
	atomic_t from_irq;
	atomic_t from_cpu;
	atomic_t timed;
};

static void hp_ran(struct hp_item *it)
{
	if (it->timed && ktime_get_ns() < it->deadline)
		exec_test_count(&it->ctx->early);
	exec_test_count(&it->runs);
	exec_test_count(&it->ctx->ran);
}

static void hp_run(struct exec_work *work)
{
	hp_ran(container_of(work, struct hp_item, work));
}

static void hp_run_timed(struct exec_work *work)
{
	hp_ran(container_of(work, struct hp_item, timer.work));
}

/* Submits the next item, timed every other one; false when none is left. */
static bool hp_submit_one(struct hp_ctx *ctx)
{
	unsigned int i = atomic_inc_return(&ctx->next) - 1;
	struct exec_executor *ex;
	struct hp_item *it;
	int ret;

	if (i >= HP_ITEMS)
		return false;
	it = &ctx->items[i];
	ex = exec_thread_pool_executor(ctx->pool[i % 2]);
	it->timed = (i / 2) % 2;
	/* Marked first: the item may run before the call returns. */
	it->submitted = true;
	if (it->timed) {
		it->deadline = ktime_get_ns() +
			       (u64)i * 7919 % HP_DELAY_SPAN_NS;
		ret = exec_submit_at(ex, &it->timer, EXEC_CLOCK_MONOTONIC,
				     it->deadline);
		atomic_inc(&ctx->timed);
	} else {
		ret = exec_submit(ex, &it->work);
	}
	if (ret) {
		it->submitted = false;
		atomic_inc(&ctx->refused);
	} else {
		atomic_inc(&ctx->submitted);
	}
	return true;
}

/* On @ctx's target CPU, in hard interrupt context. */
static void hp_submit_irq(void *arg)
{
	struct hp_ctx *ctx = arg;

	if (hp_submit_one(ctx) && hp_submit_one(ctx))
		atomic_add(2, &ctx->from_irq);
}

/*
 * From a task on @cpu: the submitter moves there, with the CPUs held so
 * that @cpu stays online meanwhile; not while a CPU goes or comes, so that
 * the interrupts and the unbound submissions go on then.
 */
static void hp_submit_on(struct hp_ctx *ctx, unsigned int cpu)
{
	if (!cpus_read_trylock())
		return;
	if (cpu_online(cpu) &&
	    !set_cpus_allowed_ptr(current, cpumask_of(cpu)) &&
	    hp_submit_one(ctx) && hp_submit_one(ctx))
		atomic_add(2, &ctx->from_cpu);
	cpus_read_unlock();
}

static int hp_submitter(void *arg)
{
	struct hp_ctx *ctx = arg;
	unsigned int cpu;

	while (!kthread_should_stop()) {
		/* The items are spread over the whole run. */
		if (atomic_read(&ctx->next) >= READ_ONCE(ctx->allowed)) {
			usleep_range(200, 400);
			continue;
		}
		for_each_online_cpu(cpu) {
			/* -ENXIO for a CPU that went offline meanwhile. */
			smp_call_function_single(cpu, hp_submit_irq, ctx, 1);
			hp_submit_on(ctx, cpu);
		}
		/* Unbound: the scheduler takes it anywhere. */
		set_cpus_allowed_ptr(current, cpu_possible_mask);
		if (!hp_submit_one(ctx) || !hp_submit_one(ctx)) {
			while (!kthread_should_stop())
				usleep_range(1000, 2000);
			break;
		}
		cond_resched();
	}
	return 0;
}

/* How many workers of @pool are bound to @cpu alone, and how many of its. */
static unsigned int hp_bound(struct exec_thread_pool *pool, unsigned int cpu,
			     unsigned int *nr)
{
	unsigned int i, bound = 0;

	*nr = 0;
	for (i = 0; i < pool->nr_threads; i++) {
		struct task_struct *task = pool->workers[i].thread.task;

		if (pool->workers[i].cpu != (int)cpu)
			continue;
		++*nr;
		if (cpumask_equal(task->cpus_ptr, cpumask_of(cpu)))
			bound++;
	}
	return bound;
}

static void hp_expect_bound(struct kunit *test, struct hp_ctx *ctx,
			    unsigned int cpu, bool bound)
{
	unsigned int p, nr, n;

	for (p = 0; p < ARRAY_SIZE(ctx->pool); p++) {
		n = hp_bound(ctx->pool[p], cpu, &nr);
		KUNIT_EXPECT_GT(test, nr, 0U);
		KUNIT_EXPECT_EQ_MSG(test, n, bound ? nr : 0U,
				    "pool %u, cpu %u %s", p, cpu,
				    bound ? "online" : "offline");
	}
}

#ifdef CONFIG_HOTPLUG_CPU
static int hp_remove_cpu(unsigned int cpu)
{
	return remove_cpu(cpu);
}

static int hp_add_cpu(unsigned int cpu)
{
	return add_cpu(cpu);
}
#else
static int hp_remove_cpu(unsigned int cpu)
{
	return -EOPNOTSUPP;
}

static int hp_add_cpu(unsigned int cpu)
{
	return -EOPNOTSUPP;
}
#endif

/* Takes @cpu offline and back; false if it cannot go offline. */
static bool hp_cycle(struct kunit *test, struct hp_ctx *ctx, unsigned int cpu)
{
	int ret = hp_remove_cpu(cpu);

	if (ret) {
		kunit_info(test, "cpu %u cannot go offline: %d", cpu, ret);
		return false;
	}
	hp_expect_bound(test, ctx, cpu, false);
	msleep(HP_DWELL_MS);
	ret = hp_add_cpu(cpu);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret)
		hp_expect_bound(test, ctx, cpu, true);
	msleep(HP_DWELL_MS);
	return true;
}

static void hp_check_items(struct kunit *test, struct hp_ctx *ctx)
{
	int submitted = atomic_read(&ctx->submitted);
	unsigned int i, wrong = 0;

	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&ctx->ran, submitted,
							 EXEC_TEST_TIMEOUT_MS));
	/* Late runs, a second one, would show here. */
	msleep(EXEC_TEST_SETTLE_MS);
	for (i = 0; i < HP_ITEMS; i++)
		if (atomic_read(&ctx->items[i].runs) !=
		    (ctx->items[i].submitted ? 1 : 0))
			wrong++;
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->ran),
			atomic_read(&ctx->submitted));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->refused), 0);
}

static void hp_init_items(struct hp_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < HP_ITEMS; i++) {
		exec_work_init(&ctx->items[i].work, hp_run);
		exec_timer_init(&ctx->items[i].timer, hp_run_timed, NULL);
		ctx->items[i].ctx = ctx;
	}
}

/*
 * The workers of a CPU are unbound while it is offline and bound to it
 * again when it is back; the items submitted meanwhile each run once, none
 * before its deadline.
 */
static void hotplug_per_cpu_pools(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .per_cpu = true };
	unsigned int cpu, cycle, toggled = 0, cpus = 0, changes;
	struct task_struct *submitter;
	struct hp_ctx *ctx;
	u64 t0;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "no CONFIG_HOTPLUG_CPU");
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->items = kvcalloc(HP_ITEMS, sizeof(*ctx->items), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->items);
	hp_init_items(ctx);

	attr.thread.name = "hp-one";
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&ctx->pool[0], &attr), 0);
	attr.thread.name = "hp-two";
	attr.nr_threads = 2 * num_online_cpus();
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&ctx->pool[1], &attr), 0);
	for_each_online_cpu(cpu)
		hp_expect_bound(test, ctx, cpu, true);

	/* The changes to come, if every CPU but CPU 0 can go offline. */
	changes = HP_CYCLES * (num_online_cpus() - 1);
	ctx->allowed = HP_ITEMS / (changes + 1);
	submitter = kthread_run(hp_submitter, ctx, "hp-submit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(submitter));
	t0 = ktime_get_ns();
	for (cycle = 0; cycle < HP_CYCLES; cycle++) {
		for (cpu = 1; cpu < nr_cpu_ids; cpu++) {
			if (!cpu_online(cpu))
				continue;
			if (hp_cycle(test, ctx, cpu)) {
				toggled++;
				cpus += !cycle;
			}
			WRITE_ONCE(ctx->allowed, HP_ITEMS / (changes + 1) *
				   (min(toggled, changes) + 1));
		}
	}
	kthread_stop(submitter);

	hp_check_items(test, ctx);
	for_each_online_cpu(cpu)
		hp_expect_bound(test, ctx, cpu, true);
	kunit_info(test,
		   "%u CPUs toggled, %u offline/online changes in %u cycles, %llu ms; items: %d run exactly once of %d submitted (%d timed, %d from interrupts, %d from a task on each CPU), %d early",
		   cpus, toggled, HP_CYCLES,
		   (ktime_get_ns() - t0) / NSEC_PER_MSEC,
		   atomic_read(&ctx->ran), atomic_read(&ctx->submitted),
		   atomic_read(&ctx->timed), atomic_read(&ctx->from_irq),
		   atomic_read(&ctx->from_cpu), atomic_read(&ctx->early));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(ctx->pool[1]), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(ctx->pool[0]), 0L);
	kvfree(ctx->items);
	if (!toggled)
		kunit_skip(test, "no CPU could go offline");
}

static struct kunit_case exec_hotplug_cases[] = {
	KUNIT_CASE(hotplug_per_cpu_pools),
	{}
};

static struct kunit_suite exec_hotplug_suite = {
	.name = "exec-kernel-hotplug",
	.test_cases = exec_hotplug_cases,
};

kunit_test_suites(&exec_hotplug_suite);

MODULE_DESCRIPTION("KUnit test of exec.ko's per-CPU pools under CPU hotplug");
MODULE_IMPORT_NS(EXEC);
MODULE_LICENSE("Dual MIT/GPL");

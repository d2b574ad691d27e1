// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Thread attributes (include/exec/thread_attr.h) of the executors that start
 * threads: the thread pool and the thread-per-task executor.  Items running
 * on those threads read what the system says the thread is (its name in
 * /proc or the kernel's task list, its nice value, its allowed CPUs, its
 * stack size; exec_test_thread_self()) and the test checks it against what
 * was asked.  Impossible attributes fail creation with their documented
 * error before anything is started.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "exec_test.h"

#define TA_THREADS	2
/* A mask long enough to name a CPU that no machine here has. */
#define TA_FAR_BITS	4096U
#define TA_FAR_CPU	(TA_FAR_BITS - 1)

struct ta_fx;

struct ta_item {
	struct exec_work work;
	struct ta_fx *fx;
	struct exec_test_thread_self self;
	int self_ret;
	atomic_t ran;
};

/*
 * @gate: holds the items, so that each runs on a thread of its own and all
 *	are alive while the test counts threads by name
 * @me: the test's own thread, for what the executors' threads inherit
 * @far: a mask of TA_FAR_BITS bits
 */
struct ta_fx {
	struct exec_test_gate gate;
	struct ta_item items[TA_THREADS];
	struct exec_test_thread_self me;
	unsigned long far[TA_FAR_BITS / BITS_PER_LONG];
	unsigned long cpus[EXEC_TEST_CPU_WORDS];
};

static void ta_set_bit(unsigned long *mask, unsigned int bit)
{
	mask[bit / BITS_PER_LONG] |= 1UL << (bit % BITS_PER_LONG);
}

static unsigned int ta_first_bit(const unsigned long *mask, unsigned int bits)
{
	unsigned int bit;

	for (bit = 0; bit < bits; bit++)
		if (mask[bit / BITS_PER_LONG] & (1UL << (bit % BITS_PER_LONG)))
			return bit;
	return bits;
}

static void ta_item_func(struct exec_work *work)
{
	struct ta_item *it = container_of(work, struct ta_item, work);

	it->self_ret = exec_test_thread_self(&it->self);
	exec_test_gate_pass(&it->fx->gate);
	exec_test_count(&it->ran);
}

/*
 * The fixture, with the test thread's own view of itself, and @cpus set
 * to the first CPU the test thread may run on.
 */
static struct ta_fx *ta_fx_create(struct kunit *test)
{
	struct ta_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	unsigned int i, cpu;

	if (!fx)
		return NULL;
	exec_test_gate_init(&fx->gate);
	for (i = 0; i < TA_THREADS; i++) {
		exec_work_init(&fx->items[i].work, ta_item_func);
		fx->items[i].fx = fx;
	}
	KUNIT_EXPECT_EQ(test, exec_test_thread_self(&fx->me), 0);
	cpu = ta_first_bit(fx->me.cpus, EXEC_TEST_CPU_BITS);
	KUNIT_EXPECT_LT(test, cpu, EXEC_TEST_CPU_BITS);
	if (cpu < EXEC_TEST_CPU_BITS)
		ta_set_bit(fx->cpus, cpu);
	return fx;
}

/*
 * Submit TA_THREADS items to @ex and hold them at the gate; then count the
 * threads named @prefix..., let the items go and wait for them.  Returns
 * the count.
 */
static unsigned int ta_run(struct kunit *test, struct ta_fx *fx,
			   struct exec_executor *ex, const char *prefix)
{
	unsigned int i, n;

	for (i = 0; i < TA_THREADS; i++)
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i].work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, TA_THREADS));
	n = exec_test_count_threads(prefix);
	exec_test_gate_open(&fx->gate);
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->items[i].ran, 1,
								 EXEC_TEST_TIMEOUT_MS));
		KUNIT_EXPECT_EQ(test, fx->items[i].self_ret, 0);
	}
	return n;
}

static void ta_expect_cpus(struct kunit *test, const unsigned long *got,
			   const unsigned long *want)
{
	unsigned int i;

	for (i = 0; i < EXEC_TEST_CPU_WORDS; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "CPU mask word %u", i);
}

/* The items' names, in either order, are @a and @b. */
static void ta_expect_names(struct kunit *test, struct ta_fx *fx,
			    const char *a, const char *b)
{
	const char *n0 = fx->items[0].self.comm;
	const char *n1 = fx->items[1].self.comm;

	KUNIT_EXPECT_TRUE_MSG(test, (!strcmp(n0, a) && !strcmp(n1, b)) ||
				    (!strcmp(n0, b) && !strcmp(n1, a)),
			      "names %s and %s, expected %s and %s",
			      n0, n1, a, b);
}

static void pool_workers_have_name_nice_and_cpus(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = TA_THREADS,
		.thread = { .name = "ta-pool", .nice = 5, .set_nice = true,
			    .nr_cpu_bits = EXEC_TEST_CPU_BITS },
	};
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_pool *pool;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	attr.thread.cpus = fx->cpus;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, ta_run(test, fx, exec_thread_pool_executor(pool),
				     "ta-pool/"), TA_THREADS);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	ta_expect_names(test, fx, "ta-pool/0", "ta-pool/1");
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_EQ(test, fx->items[i].self.nice, 5);
		ta_expect_cpus(test, fx->items[i].self.cpus, fx->cpus);
	}
	kfree(fx);
}

/* The CPUs set in @mask (EXEC_TEST_CPU_BITS bits). */
static unsigned int ta_weight(const unsigned long *mask)
{
	unsigned int bit, n = 0;

	for (bit = 0; bit < EXEC_TEST_CPU_BITS; bit++)
		if (mask[bit / BITS_PER_LONG] & (1UL << (bit % BITS_PER_LONG)))
			n++;
	return n;
}

/*
 * A per-CPU pool over the test thread's CPUs has one worker per CPU, each
 * allowed on its CPU alone, together covering them all.
 */
static void per_cpu_pool_binds_one_worker_per_cpu(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.thread = { .name = "ta-pcpu", .nr_cpu_bits = EXEC_TEST_CPU_BITS },
		.per_cpu = true,
	};
	struct ta_fx *fx = ta_fx_create(test);
	unsigned long seen[EXEC_TEST_CPU_WORDS] = { 0 };
	struct exec_thread_pool *pool;
	struct ta_item *items;
	unsigned int i, nr, w;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	nr = ta_weight(fx->me.cpus);
	KUNIT_ASSERT_GT(test, nr, 0U);
	items = kcalloc(nr, sizeof(*items), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, items);
	attr.thread.cpus = fx->me.cpus;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_size(pool), nr);
	/* Held at the gate, the items run on as many workers. */
	for (i = 0; i < nr; i++) {
		exec_work_init(&items[i].work, ta_item_func);
		items[i].fx = fx;
		KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(pool),
						  &items[i].work), 0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, nr));
	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&items[i].ran), 1);
		KUNIT_EXPECT_EQ(test, items[i].self_ret, 0);
		KUNIT_EXPECT_EQ_MSG(test, ta_weight(items[i].self.cpus), 1U,
				    "worker %s", items[i].self.comm);
		for (w = 0; w < EXEC_TEST_CPU_WORDS; w++) {
			KUNIT_EXPECT_EQ(test, seen[w] & items[i].self.cpus[w],
					0UL);
			seen[w] |= items[i].self.cpus[w];
		}
	}
	ta_expect_cpus(test, seen, fx->me.cpus);
	kfree(items);
	kfree(fx);
}

static void tpt_threads_have_name_nice_and_cpus(struct kunit *test)
{
	struct exec_thread_attr attr = {
		.name = "ta-tpt", .nice = 7, .set_nice = true,
		.nr_cpu_bits = EXEC_TEST_CPU_BITS,
	};
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_per_task *tpt;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	attr.cpus = fx->cpus;
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create_attr(&tpt, &attr), 0);
	KUNIT_EXPECT_EQ(test, ta_run(test, fx,
				     exec_thread_per_task_executor(tpt),
				     "ta-tpt/"), TA_THREADS);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	/* Numbered in submission order. */
	KUNIT_EXPECT_STREQ(test, fx->items[0].self.comm, "ta-tpt/0");
	KUNIT_EXPECT_STREQ(test, fx->items[1].self.comm, "ta-tpt/1");
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_EQ(test, fx->items[i].self.nice, 7);
		ta_expect_cpus(test, fx->items[i].self.cpus, fx->cpus);
	}
	kfree(fx);
}

/*
 * No attributes: the executors' own names, and the nice value and CPUs of
 * the thread that starts them (the test's: a kthread in the kernel, like
 * the workers).
 */
static void defaults_keep_names_and_inherit(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = TA_THREADS };
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_per_task *tpt;
	struct exec_thread_pool *pool;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ta_run(test, fx, exec_thread_pool_executor(pool), "exec-pool/");
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	ta_expect_names(test, fx, "exec-pool/0", "exec-pool/1");
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_EQ(test, fx->items[i].self.nice, fx->me.nice);
		ta_expect_cpus(test, fx->items[i].self.cpus, fx->me.cpus);
	}

	exec_test_gate_init(&fx->gate);
	for (i = 0; i < TA_THREADS; i++)
		atomic_set(&fx->items[i].ran, 0);
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create_attr(&tpt, NULL), 0);
	ta_run(test, fx, exec_thread_per_task_executor(tpt), "exec-task");
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_STREQ(test, fx->items[i].self.comm, "exec-task");
		KUNIT_EXPECT_EQ(test, fx->items[i].self.nice, fx->me.nice);
		ta_expect_cpus(test, fx->items[i].self.cpus, fx->me.cpus);
	}
	kfree(fx);
}

/*
 * A mask may name CPUs that are not online as long as one is: the threads
 * run on the online ones.  A nice value is ignored unless set_nice says.
 * A long prefix is cut with the name, to 15 characters.
 */
static void offline_cpus_ignored_nice_unset_long_name_cut(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = TA_THREADS,
		.thread = { .name = "ta-a-long-prefix", .nice = 100,
			    .nr_cpu_bits = TA_FAR_BITS },
	};
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_pool *pool;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	memcpy(fx->far, fx->cpus, sizeof(fx->cpus));
	ta_set_bit(fx->far, TA_FAR_CPU);
	attr.thread.cpus = fx->far;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	KUNIT_EXPECT_EQ(test, ta_run(test, fx, exec_thread_pool_executor(pool),
				     "ta-a-long-prefi"), TA_THREADS);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_STREQ(test, fx->items[i].self.comm,
				   "ta-a-long-prefi");
		KUNIT_EXPECT_EQ(test, fx->items[i].self.nice, fx->me.nice);
		ta_expect_cpus(test, fx->items[i].self.cpus, fx->cpus);
	}
	kfree(fx);
}

/*
 * A name and a CPU mask of the caller's, to be wiped and freed once the
 * executor that was given them is created: it must have copied them.
 */
struct ta_gone {
	char *name;
	unsigned long *mask;
};

static bool ta_gone_new(struct kunit *test, struct ta_fx *fx,
			const char *name, struct ta_gone *g)
{
	g->name = kzalloc(16, GFP_KERNEL);
	g->mask = kzalloc(sizeof(fx->cpus), GFP_KERNEL);
	if (!g->name || !g->mask) {
		kfree(g->name);
		kfree(g->mask);
		KUNIT_FAIL(test, "out of memory");
		return false;
	}
	strcpy(g->name, name);
	memcpy(g->mask, fx->cpus, sizeof(fx->cpus));
	return true;
}

static void ta_gone_wipe(struct ta_fx *fx, struct ta_gone *g)
{
	memset(g->name, 'x', 15);
	memset(g->mask, 0, sizeof(fx->cpus));
	kfree(g->name);
	kfree(g->mask);
}

/*
 * The thread-per-task executor copies its attributes: the name and the
 * mask may go away once it is created.
 */
static void tpt_copies_name_and_mask(struct kunit *test)
{
	struct exec_thread_attr attr = { .nr_cpu_bits = EXEC_TEST_CPU_BITS };
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_per_task *tpt;
	struct ta_gone g;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!ta_gone_new(test, fx, "ta-copy", &g)) {
		kfree(fx);
		return;
	}
	attr.name = g.name;
	attr.cpus = g.mask;
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create_attr(&tpt, &attr), 0);
	ta_gone_wipe(fx, &g);
	KUNIT_EXPECT_EQ(test, ta_run(test, fx,
				     exec_thread_per_task_executor(tpt),
				     "ta-copy/"), TA_THREADS);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	KUNIT_EXPECT_STREQ(test, fx->items[0].self.comm, "ta-copy/0");
	KUNIT_EXPECT_STREQ(test, fx->items[1].self.comm, "ta-copy/1");
	ta_expect_cpus(test, fx->items[0].self.cpus, fx->cpus);
	ta_expect_cpus(test, fx->items[1].self.cpus, fx->cpus);
	kfree(fx);
}

/* ta_item_func(), telling a growing pool that the item blocks. */
static void ta_blocking_item_func(struct exec_work *work)
{
	exec_blocking_begin();
	ta_item_func(work);
	exec_blocking_end();
}

/*
 * A growing pool copies its attributes too: a worker it adds long after
 * its creation, once the caller's name and mask are gone, has the name
 * and the CPUs asked for.  The pool starts with one worker; the first
 * item blocks in it (hinted), so the second item gets a second worker.
 */
static void growing_pool_copies_name_and_mask(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1, .max_threads = TA_THREADS, .concurrency = 1,
		.thread = { .nr_cpu_bits = EXEC_TEST_CPU_BITS },
	};
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_pool *pool;
	struct ta_gone g;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!ta_gone_new(test, fx, "ta-grow", &g)) {
		kfree(fx);
		return;
	}
	attr.thread.name = g.name;
	attr.thread.cpus = g.mask;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ta_gone_wipe(fx, &g);
	for (i = 0; i < TA_THREADS; i++)
		fx->items[i].work.func = ta_blocking_item_func;
	/* And its manager thread, "ta-grow/m". */
	KUNIT_EXPECT_EQ(test, ta_run(test, fx, exec_thread_pool_executor(pool),
				     "ta-grow/"), TA_THREADS + 1);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	ta_expect_names(test, fx, "ta-grow/0", "ta-grow/1");
	for (i = 0; i < TA_THREADS; i++)
		ta_expect_cpus(test, fx->items[i].self.cpus, fx->cpus);
	kfree(fx);
}

/*
 * A lower nice value is legal, but without CAP_SYS_NICE (userspace) the
 * system refuses it: then creation (pool) or submission (thread per task)
 * fails with -EACCES or -EPERM, leaving nothing behind.  The kernel and a
 * privileged process apply it.
 */
static void negative_nice_applied_or_refused(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = TA_THREADS,
		.thread = { .name = "ta-neg", .nice = -5, .set_nice = true },
	};
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_per_task *tpt;
	struct exec_thread_pool *pool = NULL;
	unsigned int i;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ret = exec_thread_pool_create(&pool, &attr);
	if (ret) {
		kunit_info(test, "pool: nice -5 refused: %d", ret);
		KUNIT_EXPECT_TRUE(test, ret == -EACCES || ret == -EPERM);
		KUNIT_EXPECT_NULL(test, pool);
		KUNIT_EXPECT_EQ(test, exec_test_count_threads("ta-neg/"), 0U);
	} else {
		kunit_info(test, "pool: nice -5 applied");
		ta_run(test, fx, exec_thread_pool_executor(pool), "ta-neg/");
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
		for (i = 0; i < TA_THREADS; i++)
			KUNIT_EXPECT_EQ(test, fx->items[i].self.nice, -5);
	}

	/* Checked at creation; refused, if at all, when the thread starts. */
	exec_test_gate_init(&fx->gate);
	atomic_set(&fx->items[0].ran, 0);
	attr.thread.name = "ta-negt";
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create_attr(&tpt,
							       &attr.thread), 0);
	ret = exec_submit(exec_thread_per_task_executor(tpt),
			  &fx->items[0].work);
	if (ret) {
		kunit_info(test, "thread per task: nice -5 refused: %d", ret);
		KUNIT_EXPECT_TRUE(test, ret == -EACCES || ret == -EPERM);
		KUNIT_EXPECT_FALSE(test, exec_work_pending(&fx->items[0].work));
		KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].ran), 0);
	} else {
		kunit_info(test, "thread per task: nice -5 applied");
		exec_test_gate_open(&fx->gate);
		KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fx->items[0].ran), 1);
		KUNIT_EXPECT_EQ(test, fx->items[0].self_ret, 0);
		KUNIT_EXPECT_EQ(test, fx->items[0].self.nice, -5);
		KUNIT_EXPECT_STREQ(test, fx->items[0].self.comm, "ta-negt/0");
	}
	kfree(fx);
}

/*
 * A stack size: applied in userspace (the thread's stack is at least that
 * big, and smaller than the default of several MiB); -EOPNOTSUPP in the
 * kernel, whose stacks have a fixed size.
 */
static void stack_size_applied_or_unsupported(struct kunit *test)
{
	const size_t size = 512 * 1024;
	struct exec_thread_pool_attr attr = {
		.nr_threads = TA_THREADS,
		.thread = { .name = "ta-stack", .stack_size = size },
	};
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_per_task *tpt = NULL;
	struct exec_thread_pool *pool = NULL;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	if (!exec_test_stack_size_settable()) {
		KUNIT_EXPECT_EQ(test, exec_thread_pool_create(&pool, &attr),
				-EOPNOTSUPP);
		KUNIT_EXPECT_NULL(test, pool);
		KUNIT_EXPECT_EQ(test, exec_thread_per_task_create_attr(&tpt,
								       &attr.thread),
				-EOPNOTSUPP);
		KUNIT_EXPECT_NULL(test, tpt);
		kfree(fx);
		return;
	}
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ta_run(test, fx, exec_thread_pool_executor(pool), "ta-stack/");
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_GE(test, fx->items[i].self.stack_size, size);
		KUNIT_EXPECT_LE(test, fx->items[i].self.stack_size, 2 * size);
	}

	exec_test_gate_init(&fx->gate);
	for (i = 0; i < TA_THREADS; i++)
		atomic_set(&fx->items[i].ran, 0);
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create_attr(&tpt,
							       &attr.thread), 0);
	ta_run(test, fx, exec_thread_per_task_executor(tpt), "ta-stack/");
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	for (i = 0; i < TA_THREADS; i++) {
		KUNIT_EXPECT_GE(test, fx->items[i].self.stack_size, size);
		KUNIT_EXPECT_LE(test, fx->items[i].self.stack_size, 2 * size);
	}
	kfree(fx);
}

/* Attributes that no system could apply, each with its error. */
struct ta_bad {
	const char *what;
	struct exec_thread_attr attr;
	int err;
};

static void ta_bad_cases(struct ta_fx *fx, struct ta_bad *bad, size_t *nr)
{
	static unsigned long empty[2];
	size_t n = 0;

	bad[n++] = (struct ta_bad){ "nice 20",
		{ .nice = 20, .set_nice = true }, -EINVAL };
	bad[n++] = (struct ta_bad){ "nice -21",
		{ .nice = -21, .set_nice = true }, -EINVAL };
	bad[n++] = (struct ta_bad){ "empty mask",
		{ .cpus = empty, .nr_cpu_bits = 2 * BITS_PER_LONG }, -EINVAL };
	bad[n++] = (struct ta_bad){ "mask of no bits",
		{ .cpus = fx->cpus, .nr_cpu_bits = 0 }, -EINVAL };
	bad[n++] = (struct ta_bad){ "mask beyond the online CPUs",
		{ .cpus = fx->far, .nr_cpu_bits = TA_FAR_BITS }, -EINVAL };
	bad[n++] = (struct ta_bad){ "NULL mask with bits",
		{ .cpus = NULL, .nr_cpu_bits = 64 }, -EINVAL };
	bad[n++] = (struct ta_bad){ "tiny stack",
		{ .stack_size = 1 },
		exec_test_stack_size_settable() ? -EINVAL : -EOPNOTSUPP };
	if (!exec_test_stack_size_settable())
		bad[n++] = (struct ta_bad){ "any stack size in the kernel",
			{ .stack_size = 1024 * 1024 }, -EOPNOTSUPP };
	*nr = n;
}

static void bad_attributes_fail_creation(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = TA_THREADS };
	struct ta_fx *fx = ta_fx_create(test);
	struct exec_thread_per_task *tpt;
	struct exec_thread_pool *pool;
	struct ta_bad bad[8];
	size_t i, nr;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ta_set_bit(fx->far, TA_FAR_CPU);
	ta_bad_cases(fx, bad, &nr);
	for (i = 0; i < nr; i++) {
		bad[i].attr.name = "ta-bad";
		attr.thread = bad[i].attr;
		pool = NULL;
		KUNIT_EXPECT_EQ_MSG(test, exec_thread_pool_create(&pool, &attr),
				    bad[i].err, "pool, %s", bad[i].what);
		KUNIT_EXPECT_NULL_MSG(test, pool, "pool, %s", bad[i].what);
		tpt = NULL;
		KUNIT_EXPECT_EQ_MSG(test,
				    exec_thread_per_task_create_attr(&tpt,
								     &bad[i].attr),
				    bad[i].err, "thread per task, %s",
				    bad[i].what);
		KUNIT_EXPECT_NULL_MSG(test, tpt, "thread per task, %s",
				      bad[i].what);
	}
	KUNIT_EXPECT_EQ(test, exec_test_count_threads("ta-bad"), 0U);

	/* NULL where not allowed; NULL attributes are the defaults. */
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_create_attr(NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_create_attr(NULL,
							       &attr.thread),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_create(NULL, &attr), -EINVAL);
	kfree(fx);
}

/*
 * A freezable pool's workers, and the threads of a freezable thread-per-task
 * executor, take part in the system's freezer where there is one (the
 * kernel's: they are not PF_NOFREEZE), an ordinary pool's do not; in
 * userspace the flag is accepted and changes nothing.  Both kinds run
 * their items (kernel/tests/freeze_test.c freezes them for real).
 */
static void freezable_threads_marked_where_a_freezer_is(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = TA_THREADS };
	struct exec_thread_attr ta = { .name = "ta-frzt", .freezable = true };
	struct exec_thread_per_task *tpt;
	struct exec_thread_pool *pool;
	struct ta_fx *fx;
	unsigned int i, round;

	for (round = 0; round < 3; round++) {
		fx = ta_fx_create(test);
		KUNIT_ASSERT_NOT_NULL(test, fx);
		attr.thread.name = round ? "ta-frz" : "ta-awake";
		attr.thread.freezable = round;
		if (round < 2) {
			KUNIT_ASSERT_EQ(test,
					exec_thread_pool_create(&pool, &attr),
					0);
			KUNIT_EXPECT_EQ(test,
					ta_run(test, fx,
					       exec_thread_pool_executor(pool),
					       attr.thread.name), TA_THREADS);
			KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool),
					0);
		} else {
			KUNIT_ASSERT_EQ(test,
					exec_thread_per_task_create_attr(&tpt,
									 &ta),
					0);
			KUNIT_EXPECT_EQ(test,
					ta_run(test, fx,
					       exec_thread_per_task_executor(tpt),
					       "ta-frzt"), TA_THREADS);
			KUNIT_EXPECT_EQ(test,
					exec_thread_per_task_destroy(tpt), 0);
		}
		for (i = 0; i < TA_THREADS; i++)
			KUNIT_EXPECT_EQ_MSG(test, fx->items[i].self.freezable,
					    round && exec_test_has_freezer(),
					    "round %u, item %u", round, i);
		kfree(fx);
	}
}

static struct kunit_case exec_thread_attr_cases[] = {
	KUNIT_CASE(pool_workers_have_name_nice_and_cpus),
	KUNIT_CASE(tpt_threads_have_name_nice_and_cpus),
	KUNIT_CASE(per_cpu_pool_binds_one_worker_per_cpu),
	KUNIT_CASE(defaults_keep_names_and_inherit),
	KUNIT_CASE(offline_cpus_ignored_nice_unset_long_name_cut),
	KUNIT_CASE(tpt_copies_name_and_mask),
	KUNIT_CASE(growing_pool_copies_name_and_mask),
	KUNIT_CASE(negative_nice_applied_or_refused),
	KUNIT_CASE(stack_size_applied_or_unsupported),
	KUNIT_CASE(bad_attributes_fail_creation),
	KUNIT_CASE(freezable_threads_marked_where_a_freezer_is),
	{}
};

static struct kunit_suite exec_thread_attr_suite = {
	.name = "exec-thread-attr",
	.test_cases = exec_thread_attr_cases,
};

kunit_test_suites(&exec_thread_attr_suite);

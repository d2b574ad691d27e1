/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers shared by the test suites in tests/.
 *
 * Written against the kernel API only (through core/platform.h), so that the
 * same files build into the kernel's KUnit module and into the userspace
 * runner.  Every wait here has a deadline: a broken executor must fail a case,
 * never hang the run.
 */
#ifndef EXEC_TEST_H
#define EXEC_TEST_H

#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"

/*
 * Number of tasks per stress configuration.  Defined by the runner: from
 * EXEC_STRESS_TASKS in userspace, from a module parameter in the kernel.
 */
unsigned long exec_test_stress_tasks(void);

/* How long a test waits for something that a correct executor does soon. */
#define EXEC_TEST_TIMEOUT_MS	10000U

/* Long enough for a thread that could run to have run, usually. */
#define EXEC_TEST_SETTLE_MS	50U

static inline u64 exec_test_deadline(unsigned int ms)
{
	return ktime_get_ns() + (u64)ms * 1000000ULL;
}

static inline bool exec_test_expired(u64 deadline)
{
	return ktime_get_ns() > deadline;
}

/*
 * Poll rather than sleep on a wait queue: a lost wake-up in the executor
 * under test must not turn into a hang of the test.  Spin briefly first so
 * that short waits stay short, then sleep so that long ones leave the CPU to
 * the threads being waited for.
 */
static inline void exec_test_relax(unsigned int *spins)
{
	if (++*spins < 64)
		cond_resched();
	else
		msleep(1);
}

/* Wait until @v >= @target; false if @ms passed first.  Acquire on success. */
static inline bool exec_test_wait_atomic_ge(atomic_t *v, int target,
					    unsigned int ms)
{
	u64 deadline = exec_test_deadline(ms);
	unsigned int spins = 0;

	while (atomic_read_acquire(v) < target) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

/*
 * Count an event with release semantics: the value-returning atomics are
 * fully ordered in both worlds, so whatever the counting thread wrote before
 * is visible to whoever sees the count through exec_test_wait_atomic_ge().
 */
static inline int exec_test_count(atomic_t *v)
{
	return atomic_inc_return(v);
}

/*
 * A gate that blocks work items until the test opens it, so that queues fill
 * deterministically.  A closed gate still opens by itself after the timeout,
 * so that a case that failed before opening it does not leave a worker
 * blocked for ever.
 */
struct exec_test_gate {
	atomic_t open;
	atomic_t waiting;	/* threads that reached the gate */
};

static inline void exec_test_gate_init(struct exec_test_gate *gate)
{
	atomic_set(&gate->open, 0);
	atomic_set(&gate->waiting, 0);
}

static inline void exec_test_gate_open(struct exec_test_gate *gate)
{
	atomic_set_release(&gate->open, 1);
}

/* Block until the gate opens; false if it timed out instead. */
static inline bool exec_test_gate_pass(struct exec_test_gate *gate)
{
	exec_test_count(&gate->waiting);
	return exec_test_wait_atomic_ge(&gate->open, 1, EXEC_TEST_TIMEOUT_MS);
}

/* Wait until @n threads wait at the gate. */
static inline bool exec_test_gate_wait_for(struct exec_test_gate *gate, int n)
{
	return exec_test_wait_atomic_ge(&gate->waiting, n,
					EXEC_TEST_TIMEOUT_MS);
}

/* Waits until @ex counts @n items not yet started; false after the timeout. */
static inline bool exec_test_wait_pending(struct exec_executor *ex,
					  unsigned long n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	while (exec_pending_count(ex) < n) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

/*
 * An item that counts its runs and the runs that overlapped another run of
 * it; its first run waits at @gate (open it for none), and each run sleeps
 * @sleep_ms.  Discards are counted too.  For the tests of the rule that an
 * item never runs beside itself.
 */
struct exec_test_rerun_item {
	struct exec_work work;
	struct exec_test_gate gate;
	atomic_t inside;
	atomic_t overlaps;
	atomic_t runs;
	atomic_t started;
	atomic_t discarded;
	int sleep_ms;
};

static inline void exec_test_rerun_fn(struct exec_work *work)
{
	struct exec_test_rerun_item *it =
		container_of(work, struct exec_test_rerun_item, work);

	if (atomic_inc_return(&it->inside) > 1)
		atomic_inc(&it->overlaps);
	if (atomic_inc_return(&it->started) == 1)
		exec_test_gate_pass(&it->gate);
	if (it->sleep_ms)
		msleep(it->sleep_ms);
	atomic_dec(&it->inside);
	atomic_inc(&it->runs);
}

static inline void exec_test_rerun_discard(struct exec_work *work)
{
	atomic_inc(&container_of(work, struct exec_test_rerun_item,
				 work)->discarded);
}

/* A new item, owned by @test; @gated: its first run waits at the gate. */
static inline struct exec_test_rerun_item *
exec_test_rerun_new(struct kunit *test, bool gated)
{
	struct exec_test_rerun_item *it =
		kunit_kzalloc(test, sizeof(*it), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, it);
	exec_work_init_discard(&it->work, exec_test_rerun_fn,
			       exec_test_rerun_discard);
	exec_test_gate_init(&it->gate);
	if (!gated)
		exec_test_gate_open(&it->gate);
	return it;
}

/*
 * The hold of the one-run-at-a-time rule: submits @fx, waits until its
 * first run is at its gate, submits it again, and waits until @held(@arg),
 * the executor's count of items held for their runner, is 1.  Returns true
 * then, false at the deadline.
 */
static inline bool exec_test_rerun_hold(struct kunit *test,
					struct exec_executor *ex,
					struct exec_test_rerun_item *fx,
					unsigned int (*held)(void *arg),
					void *arg)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;

	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->work), 0);
	if (!exec_test_gate_wait_for(&fx->gate, 1))
		return false;
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->work), 0);
	while (held(arg) != 1) {
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
	return true;
}

/*
 * A helper thread that runs one function and reports when it is done, so
 * that the test can check whether a blocking call has returned yet, and can
 * give up on it (leaking it) rather than join a thread that never ends.
 */
struct exec_test_thread {
	struct exec_thread thread;
	int (*fn)(void *arg);
	void *arg;
	long ret;
	atomic_t done;
	bool started;
};

static inline int exec_test_thread_main(void *arg)
{
	struct exec_test_thread *t = arg;

	t->ret = t->fn(t->arg);
	exec_test_count(&t->done);
	return 0;
}

static inline int exec_test_thread_start(struct exec_test_thread *t,
					 int (*fn)(void *arg), void *arg,
					 const char *name)
{
	int ret;

	t->fn = fn;
	t->arg = arg;
	t->ret = 0;
	atomic_set(&t->done, 0);
	ret = exec_thread_start(&t->thread, exec_test_thread_main, t, name);
	t->started = !ret;
	return ret;
}

static inline bool exec_test_thread_done(struct exec_test_thread *t)
{
	return atomic_read_acquire(&t->done) != 0;
}

/*
 * Join the thread if it finishes within @ms.  Otherwise it is left running
 * (and whatever it uses must be leaked by the caller): false.
 */
static inline bool exec_test_thread_join(struct exec_test_thread *t,
					 unsigned int ms)
{
	if (!t->started)
		return true;
	if (!exec_test_wait_atomic_ge(&t->done, 1, ms))
		return false;
	exec_thread_join(&t->thread);
	t->started = false;
	return true;
}

/*
 * What the calling thread is, as the system sees it; one implementation per
 * world (tests/user/thread_self.c, kernel/tests/thread_self.c), for the
 * thread attribute tests.
 * @comm: the name: /proc/self/task/TID/comm, or current->comm
 * @nice: getpriority() of the thread, or task_nice(current)
 * @cpus: the CPUs it may run on (sched_getaffinity(), current->cpus_ptr),
 *	the first EXEC_TEST_CPU_BITS of them
 * @stack_size: its stack size (pthread_getattr_np(), THREAD_SIZE)
 */
#define EXEC_TEST_CPU_BITS	256U
#define EXEC_TEST_CPU_WORDS	(EXEC_TEST_CPU_BITS / BITS_PER_LONG)

struct exec_test_thread_self {
	char comm[16];
	int nice;
	unsigned long cpus[EXEC_TEST_CPU_WORDS];
	size_t stack_size;
	bool freezable;
};

/* 0, or a negative errno if the system would not say. */
int exec_test_thread_self(struct exec_test_thread_self *ts);

/*
 * Threads whose name starts with @prefix: in /proc/self/task, or in the
 * kernel's task list (exiting ones included).
 */
unsigned int exec_test_count_threads(const char *prefix);

/* Whether threads can be given a stack size (userspace only). */
bool exec_test_stack_size_settable(void);

/*
 * Whether the system has a freezer that threads take part in
 * (exec_thread_attr.freezable): the kernel's, with CONFIG_FREEZER.
 */
bool exec_test_has_freezer(void);

/*
 * A test that sees the core's internals (internal.h) allocates around the
 * core's allocation fault point: only the operations under test fail.
 */
#ifdef EXEC_CORE_INTERNAL_H
#undef kmalloc
#undef kzalloc
#undef kcalloc
#define kmalloc(size, gfp)	exec_plain_kmalloc(size, gfp)
#define kzalloc(size, gfp)	exec_plain_kzalloc(size, gfp)
#define kcalloc(n, size, gfp)	exec_plain_kcalloc(n, size, gfp)
#endif

#endif /* EXEC_TEST_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The process-wide default executor (N3785 default_executor, N4143
 * system_executor).
 *
 * Submitters read @exec_default_slot inside a read-side section counted in
 * one of two counters, chosen by the low bit of @exec_default_epoch (the
 * scheme of SRCU).  exec_set_default_executor() swaps the slot, flips the
 * epoch, and waits for the counter of the old epoch to drain: after that no
 * submitter can still be using the previous executor.  New submitters count
 * in the other counter, so a steady stream of them cannot starve the setter.
 *
 *   submitter                            setter
 *   idx = READ(epoch) & 1                xchg(slot, new)      (full barrier)
 *   atomic_long_inc_return(readers[idx]) smp_store_mb(epoch, epoch + 1)
 *     (full barrier)                     wait for readers[old idx] == 0
 *   ex = acquire(slot); submit
 *   atomic_long_dec_return()             read_acquire(readers[old idx])
 *     (full barrier)
 *
 * A submitter whose increment the setter did not see reads the slot after
 * the setter's xchg, so it uses the new executor.
 *
 * Until a default is installed the slot is NULL and the built-in thread pool
 * is used, started on first use: one worker per online CPU, growing up to
 * exec_system_max_threads() while its workers block.  N3785 (default_executor):
 * "implementations are encouraged to ensure that separate tasks added to the
 * initial default executor can wait on each other without deadlocks".  A
 * fixed pool cannot: once every worker waits for a task still queued behind
 * it, nothing runs.  A growing pool (pool_grow.c) starts another worker
 * while items wait, none is idle and fewer than one per CPU run, so tasks
 * that sleep waiting for each other make room for the ones they wait for,
 * up to the bound.
 */
#include "internal.h"

static struct exec_executor *exec_default_slot;
static unsigned long exec_default_epoch;
static atomic_long_t exec_default_readers[2];
static DEFINE_MUTEX(exec_default_mutex);
/* Separate: the built-in pool starts inside a read-side section. */
static DEFINE_MUTEX(exec_system_mutex);
static struct exec_thread_pool *exec_system_pool;

/*
 * The bound: EXEC_DEFAULT_MAX_THREADS, as many items as one of the kernel's
 * workqueues runs at once by default (WQ_DFL_ACTIVE), and four per CPU
 * where that is more, so that a large machine keeps room above its one
 * worker per CPU; within what one pool may have.  Each added worker costs a
 * stack, and exits after EXEC_POOL_IDLE_TIMEOUT_MS idle.
 */
static unsigned int exec_system_max_threads(void)
{
	unsigned int cpus = min(exec_online_cpus(),
				EXEC_THREAD_POOL_MAX_THREADS);

	return clamp_t(unsigned int, 4 * cpus, EXEC_DEFAULT_MAX_THREADS,
		       EXEC_THREAD_POOL_MAX_THREADS);
}

static struct exec_executor *exec_system_executor(void)
{
	struct exec_thread_pool *pool;

	/* Pairs with the smp_store_release() below. */
	pool = smp_load_acquire(&exec_system_pool);
	if (likely(pool))
		return exec_thread_pool_executor(pool);
	mutex_lock(&exec_system_mutex);
	pool = exec_system_pool;
	if (!pool) {
		struct exec_thread_pool_attr attr = {
			.thread.name = "exec-system",
			.max_threads = exec_system_max_threads(),
		};

		if (exec_thread_pool_create(&pool, &attr))
			pool = NULL;
		else
			/* Set up before lockless readers see it. */
			smp_store_release(&exec_system_pool, pool);
	}
	mutex_unlock(&exec_system_mutex);
	return pool ? exec_thread_pool_executor(pool) : NULL;
}

static struct exec_executor *exec_default_enter(unsigned int *idx)
{
	struct exec_executor *ex;

	*idx = READ_ONCE(exec_default_epoch) & 1;
	atomic_long_inc_return(&exec_default_readers[*idx]);
	/* Acquire: the executor was set up before it was published. */
	ex = smp_load_acquire(&exec_default_slot);
	return ex ? ex : exec_system_executor();
}

static void exec_default_leave(unsigned int idx)
{
	/*
	 * Fully ordered: the submission is complete before the setter can
	 * see the count drop (pairs with its acquire in the wait loop).
	 */
	atomic_long_dec_return(&exec_default_readers[idx]);
}

struct exec_executor *exec_default_executor(void)
{
	struct exec_executor *ex;

	/* Pairs with the xchg() in exec_set_default_executor(). */
	ex = smp_load_acquire(&exec_default_slot);
	return ex ? ex : exec_system_executor();
}
EXPORT_SYMBOL_GPL(exec_default_executor);

struct exec_executor *exec_set_default_executor(struct exec_executor *ex)
{
	struct exec_executor *old;
	unsigned int idx;

	might_sleep();
	mutex_lock(&exec_default_mutex);
	/* Installed, @ex cannot be destroyed; the old one once unreachable. */
	exec_executor_depend(ex, EXEC_DEP_DEFAULT);
	old = xchg(&exec_default_slot, ex);
	idx = exec_default_epoch & 1;
	/* Full barrier: pairs with atomic_long_inc_return() in enter. */
	smp_store_mb(exec_default_epoch, exec_default_epoch + 1);
	/* Pairs with atomic_long_dec_return() in exec_default_leave(). */
	while (atomic_long_read_acquire(&exec_default_readers[idx]))
		usleep_range(100, 1000);
	exec_executor_undepend(old, EXEC_DEP_DEFAULT);
	mutex_unlock(&exec_default_mutex);
	return old;
}
EXPORT_SYMBOL_GPL(exec_set_default_executor);

int exec_default_submit(struct exec_work *work)
{
	struct exec_executor *ex;
	unsigned int idx;
	int ret;

	ex = exec_default_enter(&idx);
	ret = ex ? exec_submit(ex, work) : -ENOMEM;
	exec_default_leave(idx);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_default_submit);

int exec_default_submit_fn(exec_fn fn, void *arg)
{
	struct exec_executor *ex;
	unsigned int idx;
	int ret;

	might_sleep();
	ex = exec_default_enter(&idx);
	ret = ex ? exec_submit_fn(ex, fn, arg) : -ENOMEM;
	exec_default_leave(idx);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_default_submit_fn);

/**
 * exec_default_shutdown - stop the built-in pool, free library-lifetime memory
 *
 * For the kernel module's exit.
 *
 * Context: Process context; no submission may run concurrently.
 */
void exec_default_shutdown(void)
{
	struct exec_thread_pool *pool = xchg(&exec_system_pool, NULL);

	exec_executor_undepend(xchg(&exec_default_slot, NULL),
			       EXEC_DEP_DEFAULT);
	if (pool)
		exec_thread_pool_destroy(pool);
	exec_local_closures_release();
}

/**
 * exec_default_fork - the default executor across fork()
 * @event: the step of the fork
 *
 * The built-in pool's threads and those of an installed executor stay in
 * the parent.  The child forgets both, leaking their memory on purpose
 * (destroying them would wait for threads it does not have): its default
 * is the built-in pool again, a new one, started on its first use as in a
 * new process.  The mutexes are taken before the fork so that no other
 * thread holds them in the child (one starting the built-in pool, one
 * installing a default), and the read-side counts of the parent's other
 * threads are dropped with them.
 *
 * Context: Process context; from the pthread_atfork() handlers of the
 * userspace library (the kernel has no fork); not from inside a default
 * submission (an item of an inline default executor that forks).
 */
void exec_default_fork(enum exec_fork_event event)
{
	switch (event) {
	case EXEC_FORK_PREPARE:
		/* The order of exec_set_default_executor() and the readers. */
		mutex_lock(&exec_default_mutex);
		mutex_lock(&exec_system_mutex);
		break;
	case EXEC_FORK_PARENT:
		mutex_unlock(&exec_system_mutex);
		mutex_unlock(&exec_default_mutex);
		break;
	case EXEC_FORK_CHILD:
		WRITE_ONCE(exec_system_pool, NULL);
		/* Its dependency stays: the child must not destroy it. */
		WRITE_ONCE(exec_default_slot, NULL);
		atomic_long_set(&exec_default_readers[0], 0);
		atomic_long_set(&exec_default_readers[1], 0);
		mutex_unlock(&exec_system_mutex);
		mutex_unlock(&exec_default_mutex);
		break;
	}
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * N3378's thread manager: growing thread pools (pool_grow.c) shared by
 * managed queues (managed_queue.c).  It adds no mechanism of its own: a
 * queue is a managed queue over one of the pools, chosen in turn, and the
 * queue's limits are the queue's.  What it adds is N3378's lifetime: its
 * destroy waits until every queue is gone and its work done, which the
 * pools see as their dependents (EXEC_DEP_MANAGED_QUEUE, held by a queue
 * until its last item is done, even after the queue's own destroy).
 */
#include "internal.h"

/**
 * struct exec_thread_manager - a thread manager
 * @n_pools: a power of two; set at creation
 * @next_pool: A: the pool the next queue goes to (modulo @n_pools)
 * @nr_creating: A: exec_thread_manager_new_queue() calls in progress
 * @dying: A: exec_thread_manager_destroy() has begun
 * @pools: the pools; set at creation
 */
struct exec_thread_manager {
	unsigned int n_pools;
	atomic_t next_pool;
	atomic_t nr_creating;
	bool dying;
	struct exec_thread_pool *pools[];
};

/* How long destroy sleeps between looks at the queues still there. */
#define EXEC_MANAGER_POLL_MS	2

int exec_thread_manager_create(struct exec_thread_manager **mp,
			       const struct exec_thread_manager_attr *attr)
{
	static const struct exec_thread_manager_attr defaults;
	struct exec_thread_pool_attr pa;
	struct exec_thread_manager *m;
	unsigned int n, cpus, i;
	int ret;

	might_sleep();
	if (!mp)
		return -EINVAL;
	if (!attr)
		attr = &defaults;
	if (attr->n_pools > EXEC_THREAD_MANAGER_MAX_POOLS ||
	    attr->pool.per_cpu || attr->pool.queue_limit)
		return -EINVAL;
	cpus = exec_online_cpus();
	n = attr->n_pools ? attr->n_pools : max(cpus / 8, 1U);
	n = roundup_pow_of_two(n);
	pa = attr->pool;
	if (!pa.concurrency)
		pa.concurrency = max(cpus / n, 1U);
	if (!pa.nr_threads)
		pa.nr_threads = pa.concurrency;
	if (!pa.max_threads)
		pa.max_threads = max(EXEC_THREAD_MANAGER_MAX_THREADS,
				     pa.nr_threads);
	if (!pa.thread.name)
		pa.thread.name = "exec-mgr";

	m = kzalloc(struct_size(m, pools, n), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->n_pools = n;
	for (i = 0; i < n; i++) {
		ret = exec_thread_pool_create(&m->pools[i], &pa);
		if (ret)
			goto err_destroy_pools;
	}
	*mp = m;
	return 0;

err_destroy_pools:
	while (i--)
		exec_thread_pool_destroy(m->pools[i]);
	kfree(m);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_thread_manager_create);

int exec_thread_manager_new_queue(struct exec_thread_manager *m,
				  struct exec_managed_queue **qp,
				  const struct exec_managed_queue_attr *attr)
{
	struct exec_thread_pool *pool;
	int ret;

	might_sleep();
	if (!m || !qp)
		return -EINVAL;
	/*
	 * Full barrier, then @dying: pairs with destroy's store of @dying
	 * before it waits for @nr_creating, so either this call sees the
	 * manager dying, or destroy waits for its queue.
	 */
	atomic_inc_return(&m->nr_creating);
	if (READ_ONCE(m->dying)) {
		ret = -ESHUTDOWN;
	} else {
		pool = m->pools[atomic_inc_return(&m->next_pool) &
				(m->n_pools - 1)];
		ret = exec_managed_queue_create(qp,
						exec_thread_pool_executor(pool),
						attr);
	}
	/* Release: the queue counts on its pool before the count drops. */
	atomic_dec_return(&m->nr_creating);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_thread_manager_new_queue);

unsigned int exec_thread_manager_nr_pools(const struct exec_thread_manager *m)
{
	return m ? m->n_pools : 0;
}
EXPORT_SYMBOL_GPL(exec_thread_manager_nr_pools);

struct exec_thread_pool *exec_thread_manager_pool(struct exec_thread_manager *m,
						  unsigned int i)
{
	return m && i < m->n_pools ? m->pools[i] : NULL;
}
EXPORT_SYMBOL_GPL(exec_thread_manager_pool);

/* Anything, a queue or its work, still depends on one of the pools. */
static bool exec_manager_busy(struct exec_thread_manager *m)
{
	unsigned int i;

	if (atomic_read_acquire(&m->nr_creating))
		return true;
	for (i = 0; i < m->n_pools; i++)
		if (exec_executor_dependents(
			    exec_thread_pool_executor(m->pools[i])))
			return true;
	return false;
}

int exec_thread_manager_destroy(struct exec_thread_manager *m)
{
	unsigned int i;

	might_sleep();
	if (!m)
		return -EINVAL;
	for (i = 0; i < m->n_pools; i++)
		if (exec_thread_pool_running_in_this_thread(m->pools[i]))
			return -EDEADLK;
	/* Full barrier: pairs with the one in new_queue(). */
	smp_store_mb(m->dying, true);
	/*
	 * Queues let go of their pool when their last item is done, from
	 * that item's worker; there is no one to wake a waiter, so destroy
	 * looks every few milliseconds.  It sleeps meanwhile.
	 */
	while (exec_manager_busy(m))
		msleep(EXEC_MANAGER_POLL_MS);
	for (i = 0; i < m->n_pools; i++)
		WARN_ON_ONCE(exec_thread_pool_destroy(m->pools[i]) < 0);
	kfree(m);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_thread_manager_destroy);

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * N3378's thread manager: a set of growing thread pools whose workers serve
 * any number of managed queues (managed_queue.h).  By default each pool
 * keeps as many workers running as it has CPUs, starting more while some
 * block (thread_pool.h, "growing pools"), as the kernel's concurrency-managed
 * workqueues do.
 */
#ifndef EXEC_THREAD_MANAGER_H
#define EXEC_THREAD_MANAGER_H

#include "managed_queue.h"
#include "thread_pool.h"

EXEC_BEGIN_DECLS

struct exec_thread_manager;

/* Most internal pools one manager may have. */
#define EXEC_THREAD_MANAGER_MAX_POOLS	64U
/* A pool's max_threads when the attributes leave it 0. */
#define EXEC_THREAD_MANAGER_MAX_THREADS	256U

/**
 * struct exec_thread_manager_attr - how to build a thread manager
 * @n_pools: the number of internal pools, rounded up to a power of two; each
 *	has its own queue and locks.  0: one per 8 online CPUs, at least one.
 * @pool: each pool's attributes.  Left 0: @pool.concurrency is the online
 *	CPUs divided among the pools (at least 1), @pool.nr_threads is
 *	@pool.concurrency, @pool.max_threads is
 *	EXEC_THREAD_MANAGER_MAX_THREADS (at least @pool.nr_threads), and the
 *	workers are named "exec-mgr/N".  The policy (N3378's
 *	thread_manager_policy) is per pool, as N3378's state is.
 *	@pool.per_cpu and @pool.queue_limit must be 0: limits are the queues'.
 */
struct exec_thread_manager_attr {
	unsigned int n_pools;
	struct exec_thread_pool_attr pool;
};

/**
 * exec_thread_manager_create - start a thread manager
 * @mp: where to store it
 * @attr: its attributes; NULL for the defaults
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL @mp, more than EXEC_THREAD_MANAGER_MAX_POOLS
 * pools, a per-CPU or bounded pool, or pool attributes that
 * exec_thread_pool_create() refuses; -ENOMEM; an error from thread creation.
 */
int exec_thread_manager_create(struct exec_thread_manager **mp,
			       const struct exec_thread_manager_attr *attr);

/**
 * exec_thread_manager_new_queue - a managed queue served by the manager
 * @m: the manager
 * @qp: where to store the queue
 * @attr: the queue's limits (managed_queue.h); NULL for none
 *
 * Queues are spread over the pools in turn.  Destroy the queue with
 * exec_managed_queue_destroy(); the manager outlives it.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL @m or @qp, or limits the queue refuses;
 * -ESHUTDOWN once exec_thread_manager_destroy() has begun; -ENOMEM.
 */
int exec_thread_manager_new_queue(struct exec_thread_manager *m,
				  struct exec_managed_queue **qp,
				  const struct exec_managed_queue_attr *attr);

/**
 * exec_thread_manager_nr_pools - the number of internal pools
 * @m: the manager
 *
 * Context: Any context.
 * Return: the number of pools; 0 for NULL.
 */
unsigned int exec_thread_manager_nr_pools(const struct exec_thread_manager *m);

/**
 * exec_thread_manager_pool - one of the manager's pools
 * @m: the manager
 * @i: its index, below exec_thread_manager_nr_pools()
 *
 * For its figures (exec_thread_pool_nr_live()); items go through queues.
 *
 * Context: Any context.
 * Return: the pool, or NULL for a NULL @m or an index out of range.
 */
struct exec_thread_pool *exec_thread_manager_pool(struct exec_thread_manager *m,
						  unsigned int i);

/**
 * exec_thread_manager_destroy - wait for the queues, then stop the threads
 * @m: the manager
 *
 * As N3378's destructor: blocks until every queue created on @m has been
 * destroyed and the work associated with it has completed (a destroyed
 * queue's items still run), then stops and joins the threads and frees
 * @m.  New queues are refused from the start of the call.
 *
 * Context: Process context; sleeps.  Not from an item of one of its queues.
 * Return: 0; -EINVAL for NULL; -EDEADLK from one of the manager's workers
 * (nothing is done).
 */
int exec_thread_manager_destroy(struct exec_thread_manager *m);

EXEC_END_DECLS

#endif /* EXEC_THREAD_MANAGER_H */

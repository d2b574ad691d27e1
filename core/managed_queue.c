// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The managed queue (N3378): a single-level priority executor
 * (core/priority.c), which gives it the runners (thread_limit), the queue
 * limit, the time limit (a client of the stall watchdog's device,
 * core/watchdog.c) and the destroy that lets the queued items run.  This
 * file is its API: the attributes, and a handle that goes at destroy while
 * the executor lives on until its last item is done.
 */
#include "internal.h"

#define EXEC_MANAGED_QUEUE_NAME	"exec-queue"

/**
 * struct exec_managed_queue - the handle of a managed queue
 * @prio: the executor; set at creation
 */
struct exec_managed_queue {
	struct exec_priority *prio;
};

int exec_managed_queue_create(struct exec_managed_queue **qp,
			      struct exec_executor *underlying,
			      const struct exec_managed_queue_attr *attr)
{
	struct exec_managed_queue_attr a = { 0 };
	struct exec_prio_config cfg = { 0 };
	struct exec_managed_queue *q;
	int ret;

	might_sleep();
	if (attr)
		a = *attr;
	if (!qp || !underlying || !underlying->ops)
		return -EINVAL;
	if (a.thread_limit > EXEC_MANAGED_QUEUE_MAX_THREADS)
		return -EINVAL;
	cfg.nr_levels = 1;
	cfg.max_running = a.thread_limit ? a.thread_limit :
					   EXEC_MANAGED_QUEUE_MAX_THREADS;
	cfg.queue_limit = a.queue_limit;
	cfg.time_limit_ns = a.time_limit_ns;
	cfg.time_limit_fatal = a.time_limit_fatal;
	cfg.managed = true;
	cfg.name = a.name ? a.name : EXEC_MANAGED_QUEUE_NAME;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	ret = exec_prio_create(&q->prio, underlying, &cfg);
	if (ret) {
		kfree(q);
		return ret;
	}
	*qp = q;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_managed_queue_create);

struct exec_executor *exec_managed_queue_executor(struct exec_managed_queue *q)
{
	return q ? exec_priority_executor(q->prio) : NULL;
}
EXPORT_SYMBOL_GPL(exec_managed_queue_executor);

int exec_managed_queue_wait_until_complete(struct exec_managed_queue *q)
{
	might_sleep();
	if (!q)
		return -EINVAL;
	return exec_prio_wait_idle(q->prio);
}
EXPORT_SYMBOL_GPL(exec_managed_queue_wait_until_complete);

long exec_managed_queue_destroy(struct exec_managed_queue *q)
{
	long ret;

	might_sleep();
	if (!q)
		return -EINVAL;
	ret = exec_prio_close(q->prio);
	if (ret >= 0)
		kfree(q);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_managed_queue_destroy);

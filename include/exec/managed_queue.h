/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Managed queue (N3378 managed_queue): an executor over any other executor
 * with limits on how many of its items run at once (a workqueue's
 * max_active), how many may wait to start, and how long one may run.
 *
 * It is the priority executor's machinery (priority.h) with one level: its
 * items start in the order their submissions were accepted, through at most
 * thread_limit runner items on the underlying executor.  What differs is
 * its end: exec_managed_queue_destroy() does not wait for the items already
 * queued, which still run; the queue goes away after the last of them, and
 * until then the underlying executor cannot be destroyed (-EBUSY).
 */
#ifndef EXEC_MANAGED_QUEUE_H
#define EXEC_MANAGED_QUEUE_H

#include "executor.h"

EXEC_BEGIN_DECLS

struct exec_managed_queue;

/* Upper bound of exec_managed_queue_attr::thread_limit; 0 means this. */
#define EXEC_MANAGED_QUEUE_MAX_THREADS	1024U

/**
 * struct exec_managed_queue_attr - attributes of a managed queue
 * @name: its name in reports, copied; NULL for "exec-queue"
 * @thread_limit: most of its items running at once, 1 to
 *	EXEC_MANAGED_QUEUE_MAX_THREADS; 0 for no limit of its own
 *	(EXEC_MANAGED_QUEUE_MAX_THREADS; the underlying executor's threads
 *	bound it then)
 * @queue_limit: most items waiting to start; 0 for no bound.  When it is
 *	reached exec_submit() waits for room and exec_try_submit() fails with
 *	-EAGAIN; so does exec_submit() from one of the queue's own items,
 *	which could otherwise wait for itself.  Timed items that come due are
 *	counted but never refused.
 * @time_limit_ns: an item that runs longer is reported, while it runs:
 *	"exec: queue "NAME": item FUNC ran for N ms (limit M ms)", through
 *	pr_warn() in the kernel and the log callback in userspace
 *	(exec_user_set_log()); 0 for no limit
 * @time_limit_fatal: the report is fatal: BUG() in the kernel, abort() in
 *	userspace (N3378 calls terminate())
 *
 * A zeroed structure (or a NULL pointer) asks for no limits.
 */
struct exec_managed_queue_attr {
	const char *name;
	unsigned int thread_limit;
	unsigned long queue_limit;
	uint64_t time_limit_ns;
	bool time_limit_fatal;
};

/**
 * exec_managed_queue_create - create a managed queue
 * @qp: where to store it
 * @underlying: the executor that runs its items
 * @attr: its attributes, copied; NULL for none
 *
 * Until the last item of the queue is done after
 * exec_managed_queue_destroy(), the queue depends on @underlying:
 * destroying @underlying fails with -EBUSY meanwhile.  With a time limit
 * the queue has a watchdog: an hrtimer in the kernel, a thread in
 * userspace.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL @qp or @underlying or a @thread_limit above
 * EXEC_MANAGED_QUEUE_MAX_THREADS; -ENOMEM; -EAGAIN if the watchdog's
 * thread cannot be started.
 */
int exec_managed_queue_create(struct exec_managed_queue **qp,
			      struct exec_executor *underlying,
			      const struct exec_managed_queue_attr *attr);

/**
 * exec_managed_queue_executor - the managed queue as an abstract executor
 * @q: the managed queue
 *
 * exec_submit() and the other functions of executor.h submit to it,
 * exec_submit_after() and kin arm timed items on it (on the underlying
 * executor's timer base).  exec_dispatch() never runs the item in the
 * caller: it posts.  Units of outstanding work (exec_on_work_started())
 * count as work of the queue for exec_managed_queue_wait_until_complete(),
 * and, forwarded as by a serial executor (serial.h), as work of the
 * underlying executor; so do timed items armed on the queue while they
 * wait, whatever the underlying executor does with its own.
 *
 * Context: Any context.
 * Return: the executor; NULL for NULL.
 */
struct exec_executor *exec_managed_queue_executor(struct exec_managed_queue *q);

/**
 * exec_managed_queue_wait_until_complete - wait until the queue is idle
 * @q: the managed queue
 *
 * Waits for all the work now associated with the queue: items waiting or
 * running, timed items armed on it and not yet due, units of outstanding
 * work, and its runners on the underlying executor.  Work added meanwhile
 * may or may not be waited for.  A destroy after it frees the queue before
 * returning, so the underlying executor can be destroyed at once.
 *
 * Context: Process context; sleeps.
 * Return: 0; -EINVAL for NULL; -EDEADLK when called from an item of @q
 * (nothing is waited for).
 */
int exec_managed_queue_wait_until_complete(struct exec_managed_queue *q);

/**
 * exec_managed_queue_destroy - destroy a managed queue, not waiting
 * @q: the managed queue; the handle is not valid afterwards
 *
 * Returns without waiting for the queue's items: those already queued
 * (timed items that have come due included) still run, in order and within
 * the limits, and the queue is freed after the last of them is done.
 * Timed items armed and not yet due are discarded (their discard callbacks
 * run).  Submissions racing with it may fail with -ESHUTDOWN; submitters
 * waiting for room do.  May be called from one of its own items.
 *
 * Context: Process context; may sleep.
 * Return: the number of timed items discarded (>= 0); -EINVAL for NULL;
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * the queue (as for exec_serial_destroy()).
 */
long exec_managed_queue_destroy(struct exec_managed_queue *q);

EXEC_END_DECLS

#endif /* EXEC_MANAGED_QUEUE_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Work items: the unit of work every executor runs.
 *
 * An exec_work is intrusive: the caller embeds it in its own structure, as a
 * driver embeds a work_struct, and gets back to that structure with
 * container_of() in the work function.  Submitting an intrusive item never
 * allocates and so never fails for lack of memory.
 *
 * Life cycle of one item:
 *
 *   idle --submit--> pending --(executor starts it)--> running --> idle
 *                       |
 *                       +--(executor discards it)--> discard() --> idle
 *
 * The pending bit is cleared just before the work function is called, so the
 * function may submit its own item again.  Once the function has been called
 * the executor never touches the item again: the function may free it.
 *
 * Submitting an item that is already pending fails with -EALREADY and leaves
 * the pending submission alone: the item still runs exactly once.
 *
 * On a thread pool, a serial executor, a loop, a priority executor or a
 * managed queue, an item submitted again while it runs never runs beside
 * itself, as a workqueue's work item never does: a pool starts the second
 * run on the thread of the first once the first has returned, a priority
 * executor or managed queue with several runners on the runner of the
 * first, and the others run one item at a time anyway.  exec_dispatch()
 * from inside the executor runs the item in its caller all the same, and
 * the thread-per-task executor, which runs each item on a thread of its
 * own, makes no such promise.
 *
 * An executor that drops work instead of running it (a loop executor or a
 * serial executor destroyed with work queued, a hard shutdown of a thread
 * pool) hands each dropped item to its discard callback, so its owner can
 * release it.  An item without a discard callback is dropped all the same,
 * and the call that dropped it counts it in its return value.
 */
#ifndef EXEC_WORK_H
#define EXEC_WORK_H

#include "types.h"

EXEC_BEGIN_DECLS

struct exec_work;

/**
 * typedef exec_work_fn - function run (or discarded) for a work item
 * @work: the item; use container_of() to reach the enclosing structure
 */
typedef void (*exec_work_fn)(struct exec_work *work);

/**
 * typedef exec_fn - function of a closure submitted by exec_submit_fn()
 * @arg: the argument given at submission
 */
typedef void (*exec_fn)(void *arg);

/**
 * struct exec_work - an intrusive work item
 * @next: link in the queue that holds the item.  Owned by that queue while
 *	the item is pending; never touched by the caller.
 * @func: run once per accepted submission.
 * @discard: called instead of @func when an executor drops the item; may be
 *	NULL.
 * @flags: EXEC_WORK_* bits; changed only with atomic operations by the
 *	library.
 *
 * Initialise with EXEC_WORK_INIT() or exec_work_init() before first use.
 */
struct exec_work {
	struct exec_work *next;
	exec_work_fn func;
	exec_work_fn discard;
	unsigned long flags;
};

/* The item is queued on an executor and has not started yet. */
#define EXEC_WORK_PENDING	(1UL << 0)
/* The item is a closure allocated by the library (exec_submit_fn()). */
#define EXEC_WORK_CLOSURE	(1UL << 1)
/* The item is the @work of a struct exec_timer (timer.h). */
#define EXEC_WORK_TIMER		(1UL << 2)
/* The item is the @work of a struct exec_periodic (timer.h). */
#define EXEC_WORK_PERIODIC	(1UL << 3)
/*
 * The low EXEC_WORK_FLAG_BITS bits of @flags are the flags above; the rest
 * is private to the library (a timed item keeps there, while it is pending,
 * a pointer to the executor it is armed on, as the kernel's work_struct
 * keeps its pool_workqueue).
 */
#define EXEC_WORK_FLAG_BITS	4
#define EXEC_WORK_FLAG_MASK	((1UL << EXEC_WORK_FLAG_BITS) - 1)

#define EXEC_WORK_INIT(fn) { NULL, (fn), NULL, 0 }

/**
 * exec_work_init - initialise a work item
 * @work: the item
 * @func: function to run
 *
 * Context: Any context.  The item must not be pending.
 */
static inline void exec_work_init(struct exec_work *work, exec_work_fn func)
{
	work->next = NULL;
	work->func = func;
	work->discard = NULL;
	work->flags = 0;
}

/**
 * exec_work_init_discard - initialise a work item with a discard callback
 * @work: the item
 * @func: function to run
 * @discard: function called instead of @func if an executor drops the item
 *
 * Context: Any context.  The item must not be pending.
 */
static inline void exec_work_init_discard(struct exec_work *work,
					  exec_work_fn func,
					  exec_work_fn discard)
{
	exec_work_init(work, func);
	work->discard = discard;
}

/**
 * exec_work_pending - whether the item is queued and not yet started
 * @work: the item
 *
 * The answer may be stale by the time the caller reads it unless the caller
 * otherwise knows that no executor is working on the item.
 *
 * Context: Any context.
 * Return: true if the item is pending.
 */
static inline bool exec_work_pending(const struct exec_work *work)
{
	return __atomic_load_n(&work->flags, __ATOMIC_ACQUIRE) &
	       EXEC_WORK_PENDING;
}

EXEC_END_DECLS

#endif /* EXEC_WORK_H */

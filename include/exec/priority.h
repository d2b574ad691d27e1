/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Priority executor (P0113 6.8, N3785 prioritized pools): an executor over
 * any other executor whose items carry a priority.  Of the items waiting,
 * one of the highest priority starts first, and items of one priority start
 * in the order their submissions were accepted.  An optional aging bound
 * keeps low priorities from starving: an item that has waited longer than
 * the bound starts before items of higher priority.
 *
 * Like a serial executor it runs its items through "runner" items that it
 * submits to the underlying executor, at most max_running of them at once,
 * so at most that many of its items run at the same time.
 */
#ifndef EXEC_PRIORITY_H
#define EXEC_PRIORITY_H

#include "executor.h"

EXEC_BEGIN_DECLS

struct exec_priority;

/* Priority levels: 0 (lowest) to nr_levels - 1 (highest). */
#define EXEC_PRIORITY_DEFAULT_LEVELS	8U
#define EXEC_PRIORITY_MAX_LEVELS	64U
/* Upper bound of exec_priority_attr::max_running. */
#define EXEC_PRIORITY_MAX_RUNNING	1024U

/**
 * struct exec_priority_attr - attributes of a priority executor
 * @nr_levels: number of priority levels, 1 to EXEC_PRIORITY_MAX_LEVELS;
 *	0 for EXEC_PRIORITY_DEFAULT_LEVELS
 * @max_running: how many of its items may run at once on the underlying
 *	executor, 1 to EXEC_PRIORITY_MAX_RUNNING; 0 for 1.  With 1, items
 *	run one at a time and the completion of one happens before the start
 *	of the next, as on a serial executor.
 * @aging_ns: the aging bound in nanoseconds: an item that has waited
 *	longer starts before items of higher priority that have not; 0 for
 *	no aging (strict priorities)
 *
 * A zeroed structure (or a NULL pointer) asks for 8 levels, one item at a
 * time and no aging.
 */
struct exec_priority_attr {
	unsigned int nr_levels;
	unsigned int max_running;
	uint64_t aging_ns;
};

/**
 * exec_priority_create - create a priority executor
 * @priop: where to store it
 * @underlying: the executor that runs its items; must outlive it
 * @attr: its attributes, copied; NULL for the defaults
 *
 * Until exec_priority_destroy() the priority executor depends on
 * @underlying: destroying @underlying fails with -EBUSY meanwhile.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL @priop or @underlying, more than
 * EXEC_PRIORITY_MAX_LEVELS levels or more than EXEC_PRIORITY_MAX_RUNNING
 * runners; -ENOMEM.
 */
int exec_priority_create(struct exec_priority **priop,
			 struct exec_executor *underlying,
			 const struct exec_priority_attr *attr);

/**
 * exec_priority_executor - the priority executor as an abstract executor
 * @prio: the priority executor
 *
 * exec_submit() and the other functions of executor.h submit at the
 * default level, exec_priority_default_level().  exec_dispatch() never
 * runs the item in the caller (that would pass over items of higher
 * priority): it posts.  Units of outstanding work, and its timed items
 * while they wait, are counted on the underlying executor as on a serial
 * executor's (serial.h).
 *
 * Context: Any context.
 * Return: the executor; NULL for NULL.
 */
struct exec_executor *exec_priority_executor(struct exec_priority *prio);

/**
 * exec_priority_default_level - the level of exec_submit() and its kin
 * @prio: the priority executor
 *
 * Context: Any context.
 * Return: nr_levels / 2, the middle level (4 of 0..7 by default); -EINVAL
 * for NULL.
 */
int exec_priority_default_level(const struct exec_priority *prio);

/**
 * exec_priority_submit - submit an intrusive item at a priority
 * @prio: the priority executor
 * @work: an initialised item, owned by the caller
 * @level: its priority, 0 (lowest) to nr_levels - 1 (highest)
 *
 * Allocates nothing.  If the underlying executor refuses the runner that
 * this submission needs, the submission fails with its error and the item
 * is not run.
 *
 * Context: Any context if the underlying executor never waits for room.
 * Return: 0 if the item was accepted; -EINVAL for NULL @prio or @work, an
 * item without a function or @level out of range; -EALREADY if the item
 * is already pending (that submission still runs, once); -ESHUTDOWN once
 * exec_priority_destroy() has begun; the underlying executor's error.
 */
int exec_priority_submit(struct exec_priority *prio, struct exec_work *work,
			 int level);

/**
 * exec_priority_submit_fn - submit a closure at a priority
 * @prio: the priority executor
 * @fn: the function
 * @arg: its argument
 * @level: its priority, 0 (lowest) to nr_levels - 1 (highest)
 *
 * The closure comes from the caller's cache, as with exec_submit_fn().
 *
 * Context: Process context; may sleep.
 * Return: as exec_priority_submit(); -ENOMEM if no closure could be
 * allocated.
 */
int exec_priority_submit_fn(struct exec_priority *prio, exec_fn fn, void *arg,
			    int level);

/**
 * exec_priority_underlying - the executor given to exec_priority_create()
 * @prio: the priority executor
 *
 * Context: Any context.
 * Return: the underlying executor; NULL for NULL.
 */
struct exec_executor *exec_priority_underlying(struct exec_priority *prio);

/**
 * exec_priority_running_in_this_thread - whether the caller runs its item
 * @prio: the priority executor
 *
 * Context: Any context.
 * Return: true if the calling thread is running an item of @prio.
 */
bool exec_priority_running_in_this_thread(const struct exec_priority *prio);

/**
 * exec_priority_destroy - destroy a priority executor
 * @prio: the priority executor
 *
 * Lets the items now running finish, then hands every item not yet
 * started, timed items still armed on it included, to its discard
 * callback.  No submission may race with it; once it has begun,
 * submissions fail with -ESHUTDOWN.  The underlying executor may still
 * hold a runner when it returns; that runner then does nothing.
 *
 * Context: Process context; may sleep.
 * Return: the number of items discarded (>= 0); -EINVAL for NULL;
 * -EDEADLK when called from an item of @prio itself (nothing is done);
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * @prio, as for exec_serial_destroy().
 */
long exec_priority_destroy(struct exec_priority *prio);

EXEC_END_DECLS

#endif /* EXEC_PRIORITY_H */

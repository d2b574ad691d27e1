/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The abstract executor (N3785 "executor"): submit a unit of work, and the
 * approximate number of submitted units not yet started.
 *
 * Every concrete executor embeds a struct exec_executor and fills in an ops
 * table, so a precompiled function can take any executor through a
 * struct exec_executor pointer.  A user may write an executor of their own the
 * same way: fill in struct exec_executor_ops and call exec_executor_init().
 *
 * Errors are negative errno values:
 *   -EINVAL     a NULL executor or item, or an item without a function
 *   -EALREADY   the item is already pending; that submission still runs once
 *   -EAGAIN     a bounded executor is full and the caller asked not to wait
 *   -ESHUTDOWN  the executor no longer accepts work
 *   -ENOMEM     a closure could not be allocated
 */
#ifndef EXEC_EXECUTOR_H
#define EXEC_EXECUTOR_H

#include "types.h"
#include "work.h"

EXEC_BEGIN_DECLS

struct exec_executor;
struct exec_closure_cache;
struct exec_timer_target;

/* Submission flags. */
/* Fail with -EAGAIN instead of waiting for room in a bounded executor. */
#define EXEC_SUBMIT_NOWAIT	(1U << 0)

/**
 * struct exec_executor_ops - what a concrete executor implements
 * @kind: short name of the executor kind ("thread_pool", "serial", ...)
 * @submit: queue @work, whose pending bit the caller has already set.  On
 *	failure the callee leaves the item to the caller, which clears the
 *	pending bit again.
 * @pending: approximate number of submitted items not yet started
 */
struct exec_executor_ops {
	const char *kind;
	int (*submit)(struct exec_executor *ex, struct exec_work *work,
		      unsigned int flags);
	unsigned long (*pending)(struct exec_executor *ex);
};

/**
 * struct exec_executor - the abstract executor embedded in every executor
 * @ops: the concrete executor's operations; set once by exec_executor_init()
 * @closures: cache of closures for exec_submit_fn(); owned by the library
 * @timers: where its timed items are armed (timer.h); NULL if it cannot run
 *	timed work; owned by the library
 */
struct exec_executor {
	const struct exec_executor_ops *ops;
	struct exec_closure_cache *closures;
	struct exec_timer_target *timers;
};

/**
 * exec_executor_init - initialise the abstract part of an executor
 * @ex: the executor
 * @ops: its operations
 *
 * Context: Process context; may sleep.
 * Return: 0, or -ENOMEM if the closure cache cannot be set up.
 */
int exec_executor_init(struct exec_executor *ex,
		       const struct exec_executor_ops *ops);

/**
 * exec_executor_fini - release what exec_executor_init() set up
 * @ex: the executor; no closure of it may still be pending or running
 *
 * Context: Process context; may sleep.
 */
void exec_executor_fini(struct exec_executor *ex);

/**
 * exec_submit - submit an intrusive work item
 * @ex: the executor
 * @work: an initialised item, owned by the caller
 *
 * Allocates nothing.  On a bounded executor that is full, waits for room.
 *
 * Context: Any context for executors that never wait (unbounded thread pool,
 * serial, loop); process context where the executor may wait for room.
 * Return: 0 if the item was accepted; -EINVAL, -EALREADY, -ESHUTDOWN.
 */
int exec_submit(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_try_submit - submit an intrusive work item without waiting
 * @ex: the executor
 * @work: an initialised item, owned by the caller
 *
 * Context: Any context.
 * Return: 0 if accepted; -EAGAIN if a bounded executor is full; -EINVAL,
 * -EALREADY, -ESHUTDOWN.
 */
int exec_try_submit(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_submit_flags - submit an intrusive work item with EXEC_SUBMIT_* flags
 * @ex: the executor
 * @work: an initialised item
 * @flags: EXEC_SUBMIT_* flags
 *
 * Context: as exec_submit(), or any context with EXEC_SUBMIT_NOWAIT.
 * Return: as exec_try_submit().
 */
int exec_submit_flags(struct exec_executor *ex, struct exec_work *work,
		      unsigned int flags);

/**
 * exec_submit_fn - submit a closure: @fn(@arg) runs on @ex
 * @ex: the executor
 * @fn: the function
 * @arg: its argument
 *
 * The closure comes from a cache of the executor's.
 *
 * Context: Process context; may sleep.
 * Return: 0; -ENOMEM if no closure could be allocated; -EINVAL,
 * -ESHUTDOWN.
 */
int exec_submit_fn(struct exec_executor *ex, exec_fn fn, void *arg);

/**
 * exec_submit_fn_full - submit a closure with a discard callback and flags
 * @ex: the executor
 * @fn: the function
 * @discard: called with @arg instead of @fn if the executor drops the closure;
 *	may be NULL
 * @arg: the argument of both
 * @flags: EXEC_SUBMIT_* flags.  With EXEC_SUBMIT_NOWAIT neither allocation
 *	nor submission sleeps.
 *
 * Context: Process context; any context with EXEC_SUBMIT_NOWAIT.
 * Return: as exec_submit_fn(), and -EAGAIN as exec_try_submit().
 */
int exec_submit_fn_full(struct exec_executor *ex, exec_fn fn, exec_fn discard,
			void *arg, unsigned int flags);

/**
 * exec_pending_count - approximate number of submitted items not yet started
 * @ex: the executor
 *
 * Meant for logging and coarse load balancing (N3785
 * uninitiated_task_count): other threads may change it at any moment.
 * Timed items armed on the executor and not yet due are counted.
 *
 * Context: Any context.
 * Return: the count; 0 for a NULL executor.
 */
unsigned long exec_pending_count(struct exec_executor *ex);

/**
 * exec_executor_kind - the kind name of an executor
 * @ex: the executor
 *
 * Context: Any context.
 * Return: its ops' kind, or "null" for a NULL executor.
 */
const char *exec_executor_kind(const struct exec_executor *ex);

/* The process-wide (module-wide, in the kernel) default executor. */

/**
 * exec_default_executor - the current default executor
 *
 * Until exec_set_default_executor() installs another, this is a built-in
 * thread pool with one thread per online CPU, started on first use.  The
 * pointer is only safe to use while no other thread may replace and destroy
 * the default; exec_default_submit() is always safe.
 *
 * Context: Process context (the first call may start the built-in pool).
 * Return: the executor, or NULL if the built-in pool could not be started.
 */
struct exec_executor *exec_default_executor(void);

/**
 * exec_set_default_executor - replace the default executor
 * @ex: the new default, or NULL for the built-in pool
 *
 * When this returns, no submission through exec_default_submit() or
 * exec_default_submit_fn() is still using the previous default, so the
 * caller may destroy it.
 *
 * Context: Process context; may sleep.
 * Return: the previous default, or NULL if it was the built-in pool.
 */
struct exec_executor *exec_set_default_executor(struct exec_executor *ex);

/**
 * exec_default_submit - submit an item to the default executor
 * @work: the item
 *
 * The built-in pool starts on first use: in the kernel the module starts it
 * when it loads, so an intrusive item may be submitted from any context; in
 * userspace the first use (of this or any default-executor function) must
 * come from a thread that may block.
 *
 * Context: as exec_submit() on the default executor, once the built-in pool
 * has started.
 * Return: as exec_submit(); -ENOMEM if the built-in pool cannot start.
 */
int exec_default_submit(struct exec_work *work);

/**
 * exec_default_submit_fn - submit a closure to the default executor
 * @fn: the function
 * @arg: its argument
 *
 * Context: Process context; may sleep.
 * Return: as exec_submit_fn().
 */
int exec_default_submit_fn(exec_fn fn, void *arg);

EXEC_END_DECLS

#endif /* EXEC_EXECUTOR_H */

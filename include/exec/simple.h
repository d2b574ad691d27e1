/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The two executors without a queue of their own: the inline executor (N3785
 * inline_executor) runs each item in the caller, before submission returns;
 * the thread-per-task executor (N3785 thread_executor, N4143
 * thread_per_task_executor) starts a thread for each item.
 */
#ifndef EXEC_SIMPLE_H
#define EXEC_SIMPLE_H

#include "executor.h"
#include "thread_attr.h"

EXEC_BEGIN_DECLS

struct exec_thread_per_task;

/**
 * exec_inline_executor - the inline executor
 *
 * Outstanding work (exec_on_work_started()) means nothing to it: it has
 * nothing to wait for, every item having run when its submission returns.
 *
 * For the same reason exec_work_cancel() finds its items idle (or being
 * run by their submitter, which it does not see from another thread), and
 * exec_executor_flush() and exec_executor_drain() return 0 at once, from
 * anywhere, even from one of its items.
 *
 * Context: Any context; an item runs in the submitter's context.
 * Return: the process-wide inline executor; never NULL.
 */
struct exec_executor *exec_inline_executor(void);

/**
 * exec_thread_per_task_create - create a thread-per-task executor
 * @tptp: where to store it
 *
 * Its threads are named "exec-task" and have the default attributes:
 * exec_thread_per_task_create_attr() with NULL attributes.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int exec_thread_per_task_create(struct exec_thread_per_task **tptp);

/**
 * exec_thread_per_task_create_attr - create one whose threads have attributes
 * @tptp: where to store it
 * @attr: the attributes of every thread it starts (struct exec_thread_attr);
 *	NULL for the defaults.  Copied, name and CPU mask included.
 *
 * With a name prefix the threads are named "prefix/N", N counting the
 * threads the executor started, from 0; without one, "exec-task".  The
 * attributes are checked here; each thread applies its nice value and CPU
 * mask to itself before its item runs, and a submission whose thread could
 * not apply them fails with that error, leaving the item idle and not run.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL @tptp, a nice value outside
 * [EXEC_NICE_MIN, EXEC_NICE_MAX], a CPU mask that names no online CPU, a
 * NULL mask with a non-zero @nr_cpu_bits, or (userspace) a stack size below
 * PTHREAD_STACK_MIN; -EOPNOTSUPP for a non-zero stack size in the kernel;
 * -ENOMEM.
 */
int exec_thread_per_task_create_attr(struct exec_thread_per_task **tptp,
				     const struct exec_thread_attr *attr);

/**
 * exec_thread_per_task_executor - the thread-per-task executor, abstractly
 * @tpt: the executor
 *
 * Submission through it starts a thread; it fails with the thread
 * creation's error (-EAGAIN, -ENOMEM) if none can be started, or with the
 * error with which the system refused the thread's attributes (-EACCES or
 * -EPERM for a nice value, -EINVAL for a CPU mask whose CPUs all went
 * offline).  Starting a thread sleeps, so only exec_submit() and the
 * closures of process context (exec_submit_fn(), exec_post_fn(),
 * exec_dispatch_fn(), exec_defer_fn()) start one: the submissions that may
 * come from atomic context (exec_try_submit(), exec_post(), exec_defer(),
 * exec_dispatch(), EXEC_SUBMIT_NOWAIT) are refused with -EAGAIN, the item
 * left idle and not run.  So are the continuations of groups and latches
 * (group.h), which then run in the thread that emptied the group or opened
 * the latch, as they do when any executor refuses them.
 *
 * It keeps no count of outstanding work (exec_on_work_started()): it has
 * no join that ends once its work is done, and nothing of it stops for
 * lack of work, as P0113's system_executor, whose on_work_started() and
 * on_work_finished() do nothing.  A unit held on it keeps it from being
 * destroyed, and its destroy waits for every item it started.
 *
 * Each item has a thread of its own from its submission on, so nothing
 * queues: exec_work_cancel() takes back an item whose thread has not yet
 * started it (the thread then ends without running anything), and
 * exec_executor_flush() waits for the threads of the submissions made
 * before it.
 *
 * Context: Any context.
 * Return: the executor.
 */
struct exec_executor *exec_thread_per_task_executor(struct exec_thread_per_task *tpt);

/**
 * exec_thread_per_task_destroy - wait for every item, join, free
 * @tpt: the executor
 *
 * Context: Process context; may sleep.  Not from one of its own items.
 * Return: 0; -EINVAL for NULL; -EDEADLK from one of its own items;
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * @tpt: a serial executor over it, its installation as the default
 * executor, a work guard or unit of outstanding work, a future
 * continuation, group notification or latch continuation registered on it,
 * or a handler bound to it (executor.h).  Timed items armed on it are no
 * dependents: they are discarded.
 */
int exec_thread_per_task_destroy(struct exec_thread_per_task *tpt);

EXEC_END_DECLS

#endif /* EXEC_SIMPLE_H */

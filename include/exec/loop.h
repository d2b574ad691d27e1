/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Loop executor (N3785 loop_executor): runs its items, in FIFO order, on a
 * thread that the caller donates by calling one of the closure-executing
 * functions: exec_loop_run(), exec_loop_run_queued_closures() and
 * exec_loop_try_run_one_closure().  Those may not run concurrently with each
 * other (a second one fails with -EBUSY) but may run concurrently with every
 * other function.  Creating a loop executor starts no thread.  In the
 * userspace library, another event loop can drive it instead, through a
 * descriptor (exec_loop_fd() and exec_loop_run_ready() in exec/user.h).
 */
#ifndef EXEC_LOOP_H
#define EXEC_LOOP_H

#include "executor.h"

EXEC_BEGIN_DECLS

struct exec_loop;

/**
 * exec_loop_create - create a loop executor
 * @loopp: where to store it
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int exec_loop_create(struct exec_loop **loopp);

/**
 * exec_loop_executor - the loop executor as an abstract executor
 * @loop: the loop executor
 *
 * It keeps no count of outstanding work (exec_on_work_started()): none of
 * its functions ends for lack of work (exec_loop_run() ends on
 * exec_loop_make_loop_exit() alone, the others with the items they found
 * queued), and N3785's loop_executor has no such notion.  A unit held on
 * it still keeps it from being destroyed.  A loop scheduler
 * (loop_scheduler.h) is the loop that runs until its work is done.
 *
 * Context: Any context.
 * Return: the executor.
 */
struct exec_executor *exec_loop_executor(struct exec_loop *loop);

/**
 * exec_loop_run - run items on the calling thread until told to exit
 * @loop: the loop executor
 *
 * Runs items as they come, sleeping while there are none, until
 * exec_loop_make_loop_exit() is called (N3785 loop()).
 *
 * Context: Process context; sleeps.
 * Return: 0 after an exit request; -EINVAL for NULL; -EBUSY if another
 * closure-executing function is running, or if another event loop drives
 * @loop (exec_loop_fd() in exec/user.h).
 */
int exec_loop_run(struct exec_loop *loop);

/**
 * exec_loop_run_queued_closures - run the items queued at the time of call
 * @loop: the loop executor
 *
 * Runs the items that were already queued when it was called, and none added
 * later; returns when they have all run or when exec_loop_make_loop_exit()
 * is called.  An exit requested inside it does not affect later calls.
 *
 * Context: Any context the items themselves allow; never sleeps.
 * Return: the number of items run (>= 0); -EINVAL; -EBUSY.
 */
long exec_loop_run_queued_closures(struct exec_loop *loop);

/**
 * exec_loop_try_run_one_closure - run the next item, if there is one
 * @loop: the loop executor
 *
 * Context: Any context the item allows; never sleeps.
 * Return: 1 if an item ran, 0 if none was queued; -EINVAL; -EBUSY.
 */
int exec_loop_try_run_one_closure(struct exec_loop *loop);

/**
 * exec_loop_make_loop_exit - make the running loop return
 * @loop: the loop executor
 *
 * exec_loop_run() or exec_loop_run_queued_closures() returns as soon as the
 * item now running (if any) finishes.  No effect when neither is running.
 *
 * Context: Any context.
 */
void exec_loop_make_loop_exit(struct exec_loop *loop);

/**
 * exec_loop_destroy - destroy a loop executor
 * @loop: the loop executor
 *
 * Items never run by a closure-executing function are handed to their
 * discard callbacks and never run.
 *
 * Context: Process context; may sleep.
 * Return: the number of items discarded (>= 0); -EINVAL for NULL; -EBUSY
 * while a closure-executing function is running (nothing is done);
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * @loop: a serial executor over it, its installation as the default
 * executor, a work guard or unit of outstanding work, a future
 * continuation, group notification or latch continuation registered on it,
 * or a handler bound to it (executor.h).  Timed items armed on it are no
 * dependents: they are discarded.
 */
long exec_loop_destroy(struct exec_loop *loop);

EXEC_END_DECLS

#endif /* EXEC_LOOP_H */

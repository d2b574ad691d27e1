/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Loop scheduler (P0113 loop_scheduler): a pool of threads that the program
 * donates by calling its run functions.  Several threads may be inside run
 * functions of one scheduler at once; each item runs on exactly one of
 * them.  Creating a loop scheduler starts no thread.
 *
 * Outstanding work is the number of units counted by exec_on_work_started()
 * (work guards) and not yet released, plus the items queued, plus the items
 * running, plus the timed items armed on the scheduler and not yet queued.
 * When it falls to zero the scheduler stops, as if by
 * exec_loop_scheduler_stop(): every thread in a run function returns.  A
 * stopped scheduler runs nothing (its run functions return 0 at once) until
 * exec_loop_scheduler_restart(); what is submitted meanwhile is queued.
 *
 * Run functions, each returning the number of items it ran:
 *
 *   run            until stopped
 *   run_for/until  until stopped or until a deadline
 *   run_one        until one item has run or stopped
 *   run_one_for/   until one item has run, stopped, or a deadline
 *   run_one_until
 *   poll           the items ready now (and those they post), without
 *                  sleeping
 *   poll_one       the next ready item, if any, without sleeping
 *
 * Items submitted from inside a run function with exec_dispatch() run at
 * once, in the caller; exec_submit(), exec_post() and exec_defer() queue
 * them.  Deadlines are on EXEC_CLOCK_MONOTONIC, as exec_clock_now() reads
 * it; durations are in nanoseconds.
 *
 * Errors, beside those of executor.h:
 *   -EDEADLK  a blocking run function called by a thread already inside a
 *             run function of the same scheduler, or destroy from one
 *   -EBUSY    restart or destroy while a run function is running
 */
#ifndef EXEC_LOOP_SCHEDULER_H
#define EXEC_LOOP_SCHEDULER_H

#include "executor.h"

EXEC_BEGIN_DECLS

struct exec_loop_scheduler;

/**
 * exec_loop_scheduler_create - create a loop scheduler
 * @lsp: where to store it
 *
 * The scheduler starts not stopped, with no outstanding work, so a run
 * function called before anything is submitted (or a work guard taken)
 * stops it and returns 0.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int exec_loop_scheduler_create(struct exec_loop_scheduler **lsp);

/**
 * exec_loop_scheduler_executor - the loop scheduler as an abstract executor
 * @ls: the loop scheduler
 *
 * Submissions through it queue the item (plain, post and defer alike) and
 * wake one sleeping thread if some thread sleeps in a run function.
 * exec_dispatch() runs the item in the caller when the caller is inside a
 * run function of @ls.  Timed items may be armed on it (timer.h).
 *
 * Context: Any context.
 * Return: the executor; NULL for NULL.
 */
struct exec_executor *
exec_loop_scheduler_executor(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_run - run items until the scheduler is stopped
 * @ls: the loop scheduler
 *
 * Runs items as they come, sleeping while there are none, until the
 * scheduler is stopped: by exec_loop_scheduler_stop(), or because its
 * outstanding work fell to zero.  With no outstanding work at the call it
 * stops the scheduler and returns 0 at once.
 *
 * Context: Process context; sleeps.  Not from inside a run function of @ls.
 * Return: the number of items run (>= 0); -EINVAL for NULL; -EDEADLK from
 * inside a run function of @ls; -ESHUTDOWN once destroy has begun; -ENOMEM
 * if the thread had to sleep and no sleep record could be allocated for it
 * before any item ran.
 */
long exec_loop_scheduler_run(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_run_for - run items for at most a duration
 * @ls: the loop scheduler
 * @ns: the duration, in nanoseconds from now (saturating)
 *
 * As exec_loop_scheduler_run_until() with a deadline @ns from now.
 *
 * Context: Process context; sleeps.  Not from inside a run function of @ls.
 * Return: as exec_loop_scheduler_run().
 */
long exec_loop_scheduler_run_for(struct exec_loop_scheduler *ls, uint64_t ns);

/**
 * exec_loop_scheduler_run_until - run items until stopped or a deadline
 * @ls: the loop scheduler
 * @deadline: absolute, on EXEC_CLOCK_MONOTONIC (exec_clock_now())
 *
 * As exec_loop_scheduler_run(), but returns also once @deadline has
 * passed, never before (unless stopped), and after the item running then
 * has returned.
 *
 * Context: Process context; sleeps.  Not from inside a run function of @ls.
 * Return: as exec_loop_scheduler_run().
 */
long exec_loop_scheduler_run_until(struct exec_loop_scheduler *ls,
				   uint64_t deadline);

/**
 * exec_loop_scheduler_run_one - run one item, sleeping until there is one
 * @ls: the loop scheduler
 *
 * Sleeps until an item is ready, runs it and returns; returns 0 without
 * running anything if the scheduler is or becomes stopped first.  With no
 * outstanding work at the call it stops the scheduler.
 *
 * Context: Process context; sleeps.  Not from inside a run function of @ls.
 * Return: 1 if an item ran, 0 if none did; errors as
 * exec_loop_scheduler_run().
 */
long exec_loop_scheduler_run_one(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_run_one_for - run one item, waiting at most a duration
 * @ls: the loop scheduler
 * @ns: the duration, in nanoseconds from now (saturating)
 *
 * Context: Process context; sleeps.  Not from inside a run function of @ls.
 * Return: as exec_loop_scheduler_run_one().
 */
long exec_loop_scheduler_run_one_for(struct exec_loop_scheduler *ls,
				     uint64_t ns);

/**
 * exec_loop_scheduler_run_one_until - run one item, waiting until a deadline
 * @ls: the loop scheduler
 * @deadline: absolute, on EXEC_CLOCK_MONOTONIC (exec_clock_now())
 *
 * Context: Process context; sleeps.  Not from inside a run function of @ls.
 * Return: as exec_loop_scheduler_run_one().
 */
long exec_loop_scheduler_run_one_until(struct exec_loop_scheduler *ls,
				       uint64_t deadline);

/**
 * exec_loop_scheduler_poll - run the items that are ready, without sleeping
 * @ls: the loop scheduler
 *
 * Runs queued items until none is left (items they submit included) or the
 * scheduler is stopped.  Timed items not yet due are not waited for.  May be
 * called from inside an item of @ls: it never sleeps, so cannot deadlock.
 * With no outstanding work at the call it stops the scheduler.
 *
 * Context: Any context the items allow; never sleeps.
 * Return: the number of items run (>= 0); -EINVAL for NULL; -ESHUTDOWN once
 * destroy has begun.
 */
long exec_loop_scheduler_poll(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_poll_one - run the next ready item, if there is one
 * @ls: the loop scheduler
 *
 * Context: Any context the item allows; never sleeps.
 * Return: 1 if an item ran, 0 if none was ready or the scheduler is
 * stopped; errors as exec_loop_scheduler_poll().
 */
long exec_loop_scheduler_poll_one(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_stop - stop the scheduler
 * @ls: the loop scheduler; NULL is ignored
 *
 * Every run function returns as soon as it can: a thread running an item
 * returns when that item returns, a sleeping one is woken.  Does not wait
 * for them.  The scheduler stays stopped until exec_loop_scheduler_restart().
 *
 * Context: Any context.
 */
void exec_loop_scheduler_stop(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_stopped - whether the scheduler is stopped
 * @ls: the loop scheduler
 *
 * Context: Any context.
 * Return: true if it is stopped, or for NULL.
 */
bool exec_loop_scheduler_stopped(const struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_restart - leave the stopped state
 * @ls: the loop scheduler
 *
 * P0113 excludes restart from running concurrently with run functions;
 * this detects it.  Restarting a scheduler that is not stopped does
 * nothing.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL; -EBUSY while a run function of @ls is
 * running (nothing is done); -ESHUTDOWN once destroy has begun.
 */
int exec_loop_scheduler_restart(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_destroy - destroy a loop scheduler
 * @ls: the loop scheduler
 *
 * Items never run, and timed items still armed, are handed to their discard
 * callbacks and never run.  A submission racing with destroy is either
 * discarded with the rest or fails with -ESHUTDOWN; none is lost.  Work
 * guards still held on @ls keep it from being destroyed (below).
 *
 * Context: Process context; may sleep.
 * Return: the number of items discarded (>= 0); -EINVAL for NULL; -EDEADLK
 * from inside a run function of @ls; -EBUSY while a run function of @ls is
 * running in another thread, or another destroy has begun (nothing is
 * done);
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * @ls: a serial executor over it, its installation as the default
 * executor, a work guard or unit of outstanding work, a future
 * continuation, group notification or latch continuation registered on it,
 * or a handler bound to it (executor.h).  Timed items armed on it are no
 * dependents: they are discarded.
 */
long exec_loop_scheduler_destroy(struct exec_loop_scheduler *ls);

EXEC_END_DECLS

#endif /* EXEC_LOOP_SCHEDULER_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A thread pool runs an item on one worker at a time.
 *
 * An item submitted again while it runs is pending again at once, and
 * another worker may take it while the first run goes on.  A workqueue
 * never runs a work item on two workers at once (kernel/workqueue.c,
 * find_worker_executing_work()), and a driver that queues its one work
 * item from every request relies on it.  So here too: the worker that
 * takes an item another worker runs hands it to that worker, which runs it
 * again once the current run has returned.
 *
 * Nothing of the item may be read after its function returns (it may free
 * itself), so the state lives where it outlives the run:
 *
 *  - an item's flags, above its private bits, name the worker that last
 *    started it (EXEC_WORK_RUNNER_MASK), written by the same RMW that
 *    clears its pending bit (exec_work_clear_pending());
 *  - that worker's @run_token holds the item's address from before that
 *    RMW until the worker closes the token, after the run.
 *
 * The hand-over and the close are decided under @consume_lock, which a
 * worker takes anyway for every item it pops off the shared queue:
 *
 *   taker (under consume_lock)            runner
 *                                         run_token = item
 *                                         RMW: clear pending, name runner
 *                                         ... the run ...
 *   pop the item, submitted again;
 *   its flags name the runner, whose
 *   run_token == item: run_token |= HELD
 *                                         (next pop, under consume_lock)
 *                                         HELD? run the item again;
 *                                         run_token = 0
 *
 * So a run costs no atomic operation of its own: the runner leaves its
 * token open when the run returns and closes it in the critical section
 * of its next pop.  Where its next item does not come from a pop (its
 * slot, a steal, a hand-over with a wake-up) or before it waits, it takes
 * @consume_lock to close the token; a taker that got its item that way
 * takes the lock to hand it over, only when the runner's token names it.
 * An item that its run put back in its worker's own slot (a chain) runs on
 * the open token: no other worker can take it meanwhile, as stealers leave
 * a slot's item alone while its worker's token names it.
 *
 * While it is held the item stays pending, so it cannot be submitted a
 * third time: a worker holds at most one item, the one whose token is
 * open.  A cancel takes a held item back under the lock; a stop leaves it
 * held, for destroy's discard; a flush waits for its rerun, as a worker
 * closes its token before it acknowledges a flush.  A runner named by
 * stale flags (the item ran there long ago, or on another pool that lived
 * at the same address) has another token, so the taker runs the item.
 *
 * Closures the library allocated (EXEC_WORK_CLOSURE) are submitted once,
 * and a timed item's runs are kept apart by its timer (core/timer.c): for
 * those the runner writes no token.
 */
#ifndef EXEC_CORE_POOL_RERUN_H
#define EXEC_CORE_POOL_RERUN_H

#include "pool.h"

/* exec_pool_worker::run_token: another worker handed the item over. */
#define EXEC_POOL_HELD		1UL

/*
 * Whether a run of an item with @flags writes the token: the item can be
 * submitted again.
 */
static inline bool exec_pool_may_rerun(unsigned long flags)
{
	return !(flags & (EXEC_WORK_CLOSURE | EXEC_WORK_TIMER));
}

/* The worker of @pool that @flags name, or NULL if none of @pool's. */
static inline struct exec_pool_worker *
exec_pool_runner_of(struct exec_thread_pool *pool, unsigned long flags)
{
	/* The item's private bits below a worker's address. */
	BUILD_BUG_ON(EXEC_WORK_CANCELING >= 1UL << EXEC_WORK_RUNNER_SHIFT);
	BUILD_BUG_ON(__alignof__(struct exec_pool_worker) <
		     1UL << EXEC_WORK_RUNNER_SHIFT);
	return exec_work_runner_of(flags, pool->workers,
				   sizeof(*pool->workers), pool->nr_slots);
}

/*
 * The worker other than @w whose open token is @work, if @work's flags
 * (@flags) name one; a look without the lock, for the caller to confirm
 * under it.  The flags are read once for the whole start: the item's line
 * may be the one its submitter is writing the next item's link into.
 */
static inline struct exec_pool_worker *
exec_pool_runner_hint(struct exec_pool_worker *w, struct exec_work *work,
		      unsigned long flags)
{
	unsigned long name = flags & EXEC_WORK_RUNNER_MASK;
	struct exec_pool_worker *r;

	/* Never run, or last run by @w: the common cases, without a look. */
	if (!name || name == (unsigned long)w)
		return NULL;
	r = exec_pool_runner_of(w->pool, flags);
	if (!r || READ_ONCE(r->run_token) != (unsigned long)work)
		return NULL;
	return r;
}

/*
 * Under @consume_lock: hands @work, which @w took, to the worker whose
 * open token it is; false if there is none, and @w runs it.
 */
static inline bool exec_pool_hand_over_locked(struct exec_pool_worker *w,
					      struct exec_work *work)
{
	struct exec_pool_worker *r;

	lockdep_assert_held(&w->pool->consume_lock);
	r = exec_pool_runner_hint(w, work, READ_ONCE(work->flags));
	if (!r)
		return false;
	WRITE_ONCE(r->run_token, (unsigned long)work | EXEC_POOL_HELD);
	return true;
}

/*
 * Before @w starts @work (flags @flags): its token, if the item can be
 * submitted again; the token is closed, or open on @work itself (a chain),
 * so no other worker holds an item on it.  *@runner: the name to write in
 * the item's flags with the RMW that clears its pending bit, 0 for none
 * (the flags name @w already: the RMW may leave them).
 */
static inline void exec_pool_run_token_set(struct exec_pool_worker *w,
					   struct exec_work *work,
					   unsigned long flags,
					   unsigned long *runner)
{
	*runner = 0;
	w->token_left = NULL;
	if (!exec_pool_may_rerun(flags))
		return;
	/* Before the RMW that clears the pending bit, which orders it. */
	WRITE_ONCE(w->run_token, (unsigned long)work);
	if ((flags & EXEC_WORK_RUNNER_MASK) != (unsigned long)w)
		*runner = (unsigned long)w;
}

/*
 * Under @consume_lock: closes @w's open token.  Returns the item held on
 * it (still pending, so alive), to run now, or NULL.
 */
static inline struct exec_work *exec_pool_token_close_locked(struct exec_pool_worker *w)
{
	struct exec_work *work = w->token_left;
	unsigned long token = READ_ONCE(w->run_token);

	lockdep_assert_held(&w->pool->consume_lock);
	w->token_left = NULL;
	WRITE_ONCE(w->run_token, 0);
	return token & EXEC_POOL_HELD ? work : NULL;
}

/*
 * Under @consume_lock: takes @work back from @w if it is held there (a
 * cancel); with @work NULL, whatever is held there (a discard).  Returns
 * the item taken, or NULL.
 */
static inline struct exec_work *exec_pool_take_held_locked(struct exec_pool_worker *w,
							   struct exec_work *work)
{
	unsigned long token = READ_ONCE(w->run_token);

	lockdep_assert_held(&w->pool->consume_lock);
	if (!(token & EXEC_POOL_HELD) ||
	    (work && token != ((unsigned long)work | EXEC_POOL_HELD)))
		return NULL;
	WRITE_ONCE(w->run_token, token & ~EXEC_POOL_HELD);
	return (struct exec_work *)(token & ~EXEC_POOL_HELD);
}

#endif /* EXEC_CORE_POOL_RERUN_H */

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
 * again as soon as the current run returns.
 *
 * Nothing of the item may be read after its function returns (it may free
 * itself), so the state lives where it outlives the run:
 *
 *  - an item's flags, above its private bits, name the worker that last
 *    started it (EXEC_WORK_RUNNER_MASK), written by the same RMW that
 *    clears its pending bit (exec_work_clear_pending());
 *  - that worker's @run_token holds the item's address from before that
 *    RMW until the run has returned.
 *
 * A worker that takes an item whose flags name another worker of its pool
 * attaches the item to that worker's run, on the one word that decides:
 *
 *   taker                                 runner
 *                                         run_token = item
 *                                         RMW: clear pending, name runner
 *                                         ... the run ...
 *   (item submitted again, taken)
 *   flags name the runner;
 *   run_token == item?
 *   cmpxchg(run_token, item, item|HELD)
 *                                         old = xchg(run_token, 0)
 *                                         old & HELD: run the item again
 *
 * The cmpxchg() succeeds only while the run goes on, and the xchg() that
 * ends the run collects it, so the item is neither left behind nor run
 * twice at once.  Its pending bit stays set while it is held, so it cannot
 * be submitted a third time meanwhile: a worker holds at most one item,
 * the one it runs.  A cancel takes a held item back with a cmpxchg() of its
 * own against the runner's xchg(); a stop leaves it in the token, where
 * destroy discards it.  A runner named by stale flags (the item ran there
 * long ago, or on another pool that lived at the same address) holds
 * another token, so the cmpxchg() fails and the taker runs the item.
 *
 * The cost falls on items that can be submitted again: closures the
 * library allocated (EXEC_WORK_CLOSURE) are submitted once, and a timed
 * item's runs are kept apart by its timer (core/timer.c); for those the
 * runner writes no token and takes no xchg().
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
	unsigned long runner = flags & EXEC_WORK_RUNNER_MASK;
	unsigned long offset = runner - (unsigned long)pool->workers;

	/* The item's private bits below a worker's address. */
	BUILD_BUG_ON(EXEC_WORK_CANCELING >= 1UL << EXEC_WORK_RUNNER_SHIFT);
	BUILD_BUG_ON(__alignof__(struct exec_pool_worker) <
		     1UL << EXEC_WORK_RUNNER_SHIFT);
	/* A stale name may point anywhere: only a whole worker of ours. */
	if (!runner || offset >= pool->nr_slots * sizeof(*pool->workers) ||
	    offset % sizeof(*pool->workers))
		return NULL;
	return &pool->workers[offset / sizeof(*pool->workers)];
}

/*
 * @w took @work, whose flags it read (@flags): if another worker runs it,
 * hand it to that worker and return true; @w then holds nothing.  The
 * flags are read once for the whole start: the item's line may be the one
 * its submitter is writing the next item's link into.
 */
static inline bool exec_pool_hand_to_runner(struct exec_pool_worker *w,
					    struct exec_work *work,
					    unsigned long flags)
{
	unsigned long name = flags & EXEC_WORK_RUNNER_MASK;
	unsigned long token = (unsigned long)work;
	struct exec_pool_worker *r;

	/* Never run, or last run by @w: the common cases, without a look. */
	if (!name || name == (unsigned long)w)
		return false;
	r = exec_pool_runner_of(w->pool, flags);
	if (!r || READ_ONCE(r->run_token) != token)
		return false;
	/* Fully ordered: pairs with the runner's xchg() at the run's end. */
	return cmpxchg(&r->run_token, token, token | EXEC_POOL_HELD) == token;
}

/*
 * Before @w starts @work (flags @flags): its token, if the item can be
 * submitted again; returns whether it wrote one.  *@runner: the name to
 * write in the item's flags with the RMW that clears its pending bit, 0
 * for none (the flags name @w already: the RMW may leave them).
 */
static inline bool exec_pool_run_token_set(struct exec_pool_worker *w,
					   struct exec_work *work,
					   unsigned long flags,
					   unsigned long *runner)
{
	*runner = 0;
	if (!exec_pool_may_rerun(flags))
		return false;
	/* Before the RMW that clears the pending bit, which orders it. */
	WRITE_ONCE(w->run_token, (unsigned long)work);
	if ((flags & EXEC_WORK_RUNNER_MASK) != (unsigned long)w)
		*runner = (unsigned long)w;
	return true;
}

/*
 * The run of @work that wrote a token has returned: @work if another worker
 * handed it over meanwhile (it is still pending, so it is alive), to run
 * again now; NULL otherwise.
 *
 * An item that its run submitted again to its own worker's slot (a chain)
 * is pending there, where only this worker, a cancel or a discard can take
 * it: stealers leave a slot's item alone while its worker's token names it
 * (exec_pool_steal()).  No taker can hold it meanwhile, so the token stays
 * as it is, without the exchange, until the worker takes the item from its
 * slot again (exec_pool_take_left()): it runs it on the same token, or, if
 * a cancel took it away first, ends the token then.
 */
static inline struct exec_work *exec_pool_run_token_end(struct exec_pool_worker *w,
							struct exec_work *work)
{
	if (READ_ONCE(w->next) == work) {
		w->token_left = work;
		return NULL;
	}
	/* Fully ordered: pairs with the taker's and the cancel's cmpxchg(). */
	if (xchg(&w->run_token, 0) & EXEC_POOL_HELD)
		return work;
	return NULL;
}

/*
 * Ends a token left by exec_pool_run_token_end() that the item did not
 * come back to: @w->token_left, if another worker held it meanwhile (after
 * a cancel took it from the slot and it was submitted again), or NULL.
 */
static inline struct exec_work *exec_pool_token_close(struct exec_pool_worker *w)
{
	struct exec_work *work = w->token_left;

	w->token_left = NULL;
	/* Fully ordered: pairs with the taker's and the cancel's cmpxchg(). */
	if (xchg(&w->run_token, 0) & EXEC_POOL_HELD)
		return work;
	return NULL;
}

/*
 * A stop ends the worker's runs: a held item stays held, for destroy's
 * discard (exec_pool_take_held()).
 */
static inline void exec_pool_leave_held(struct exec_pool_worker *w,
					struct exec_work *work)
{
	/* Release: its contents, for whoever takes it back. */
	smp_store_release(&w->run_token,
			  (unsigned long)work | EXEC_POOL_HELD);
}

/*
 * Take @work back from @w if @w holds it (a cancel); with @work NULL, take
 * whatever @w holds (a discard).  Returns the item taken, or NULL.
 */
static inline struct exec_work *exec_pool_take_held(struct exec_pool_worker *w,
						    struct exec_work *work)
{
	unsigned long token = READ_ONCE(w->run_token);

	if (!(token & EXEC_POOL_HELD) ||
	    (work && token != ((unsigned long)work | EXEC_POOL_HELD)))
		return NULL;
	/* Against the runner's xchg(): whoever wins has the item. */
	if (cmpxchg(&w->run_token, token, token & ~EXEC_POOL_HELD) != token)
		return NULL;
	return (struct exec_work *)(token & ~EXEC_POOL_HELD);
}

#endif /* EXEC_CORE_POOL_RERUN_H */

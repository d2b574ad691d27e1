/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A thread pool's idle workers: how a worker goes to sleep, and how a waker
 * picks one, hands it an item and wakes it, with no lock on the waker's way.
 *
 * Each worker has a state word, @idle_state:
 *
 *   EXEC_IDLE_AWAKE    not idle: it runs items, spins, or looks for work
 *   EXEC_IDLE_WAITING  idle: parked or about to park; a waker may claim it
 *   EXEC_IDLE_CLAIMED  claimed by a waker that had no item for it
 *   an item's address  claimed by a waker that handed it this item
 *
 * and it moves:
 *
 *   AWAKE -> WAITING           the worker, under @idle_lock (go_idle)
 *   WAITING -> CLAIMED or item a waker, with cmpxchg() (claim)
 *   WAITING -> AWAKE           the worker, with cmpxchg(), woken by its own
 *                              deadline or back without parking (unidle)
 *   item -> CLAIMED            a cancel of the item, with cmpxchg()
 *   CLAIMED or item -> AWAKE   the worker, with xchg(), as a cancel may take
 *                              the item back meanwhile (unidle)
 *
 * Whoever takes it off WAITING decrements @nr_idle, after the cmpxchg(); the
 * worker increments it before it stores WAITING, so a claim never makes it
 * negative.  A handed item travels in the state word, not in the worker's
 * @next slot, and the worker runs it once it has taken the word back
 * (exec_pool_unidle()): so it cannot meet a submission of the worker's own,
 * which fills the slot when it finds it empty.
 *
 * The idle list orders the idle workers by when they went idle, latest
 * first, for the wakers' preferences (exec_pool_claim()).  Its links change
 * only under @idle_lock; wakers walk it without the lock.  A claimed worker
 * stays on the list until it goes idle again (then it moves to the head) or
 * exits, and walkers skip it.  Every pointer on the list is one of the
 * pool's @workers, which live as long as the pool, so a walk without the
 * lock reads valid workers even while the list changes under it; it may
 * see one twice or miss one, so it is bounded, and when it finds no worker
 * to claim, a walk under the lock, which finds any worker that is WAITING
 * (a worker stores WAITING only under the lock, while it is on the list),
 * decides, and drops the claimed workers it passes from the list.
 *
 * Which of these may run at the same time, on one pool (go_idle, unidle
 * and unlist only on the caller's own worker; "lock": excluded by
 * @idle_lock):
 *
 *                   go_idle  unidle  unlist  claim  claim_locked
 *   go_idle          lock     yes     lock    yes    lock
 *   unidle           yes      yes     yes     yes    yes
 *   unlist           lock     yes     lock    yes    lock
 *   claim            yes      yes     yes     yes    yes
 *   claim_locked     lock     yes     lock    yes    lock
 *
 * The handshake with submitters (thread_pool.c) is unchanged by the lock
 * moving off the waker's way: a worker counts itself in @nr_idle and stores
 * WAITING, with a full barrier, before its last look at the queue, and a
 * submitter reads @nr_idle and the state word after publishing with a full
 * barrier; so either the submitter claims the worker, or the worker sees
 * the item.  A worker that takes itself off WAITING looks at the queue
 * again before it parks or exits.
 *
 * Only thread_pool.c includes this file, so that the wakers' and the woken
 * worker's ways compile into the pool's own functions: as calls into
 * another object they lengthened the kernel's wake-up, from the sleeping
 * submitter's switch to the item's start, under QEMU's TCG
 * (Documentation/benchmarks.rst).
 */
#ifndef EXEC_CORE_POOL_IDLE_H
#define EXEC_CORE_POOL_IDLE_H

#include "pool.h"

/* How many workers a waker looks at without the lock. */
#define EXEC_POOL_WAKE_SCAN	8

/* Takes @w off the idle list.  Caller holds @idle_lock; @w is on it. */
static void exec_pool_unlink(struct exec_thread_pool *pool,
			     struct exec_pool_worker *w)
{
	struct exec_pool_worker *next = w->idle_next;

	lockdep_assert_held(&pool->idle_lock);
	WRITE_ONCE(*w->idle_pprev, next);
	if (next)
		next->idle_pprev = w->idle_pprev;
	w->idle_pprev = NULL;
}

/**
 * exec_pool_go_idle - the worker puts itself on the idle list
 * @w: the calling worker, awake, with nothing in its slot
 * @watching: it also waits for the pool's next timed event
 *
 * Fully ordered after it stores WAITING: pairs with the submitter's
 * publishing xchg() (see the top of the file).
 */
static void exec_pool_go_idle(struct exec_pool_worker *w, bool watching)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_pool_worker *head;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->idle_lock, flags);
	/* Only its own exec_pool_unidle() makes it AWAKE again. */
	WARN_ON_ONCE(READ_ONCE(w->idle_state) != EXEC_IDLE_AWAKE);
	if (w->idle_pprev)
		exec_pool_unlink(pool, w);
	WRITE_ONCE(w->watching, watching);
	WRITE_ONCE(w->idle_cpu, raw_smp_processor_id());
	head = pool->idle_list;
	WRITE_ONCE(w->idle_next, head);
	if (head)
		head->idle_pprev = &w->idle_next;
	w->idle_pprev = &pool->idle_list;
	/* Release: a walker that finds @w finds its link and hints set. */
	smp_store_release(&pool->idle_list, w);
	/* Counted before it can be claimed: a claim's decrement follows. */
	atomic_inc(&pool->nr_idle);
	/* Full barrier: pairs with the submitter's publishing xchg(). */
	smp_store_mb(w->idle_state, EXEC_IDLE_WAITING);
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
}

/**
 * exec_pool_unidle - the worker takes its state back after waiting
 * @w: the calling worker, which went idle
 * @handed: set to the item a waker handed over with its claim, or NULL
 *
 * If no waker claimed it, it leaves WAITING itself, and @nr_idle's
 * decrement is fully ordered before the caller's next look at the queue:
 * pairs with the submitter's publishing xchg() before it reads @nr_idle.
 *
 * Return: whether a waker claimed it.
 */
static bool exec_pool_unidle(struct exec_pool_worker *w, struct exec_work **handed)
{
	/* Acquire: pairs with the claim, for the handed item's contents. */
	unsigned long state = smp_load_acquire(&w->idle_state);

	*handed = NULL;
	if (state == EXEC_IDLE_WAITING) {
		if (try_cmpxchg(&w->idle_state, &state, EXEC_IDLE_AWAKE)) {
			atomic_dec_return(&w->pool->nr_idle);
			return false;
		}
	}
	/*
	 * Claimed: the item, if any, is ours once the word is AWAKE.  An
	 * xchg(), not a store: a cancel may turn the item into CLAIMED until
	 * then (exec_pool_take_back()); fully ordered, so acquire as above.
	 */
	state = xchg(&w->idle_state, EXEC_IDLE_AWAKE);
	/* Only the worker leaves WAITING for AWAKE, and only just above. */
	WARN_ON_ONCE(state == EXEC_IDLE_AWAKE || state == EXEC_IDLE_WAITING);
	exec_stats_inc(&w->nr_woken);
	if (state != EXEC_IDLE_CLAIMED) {
		*handed = (struct exec_work *)state;
		exec_stats_inc(&w->nr_handed);
	}
	return true;
}

/**
 * exec_pool_unlist - an exiting worker leaves the idle list
 * @w: the calling worker, awake
 *
 * Its slot may be started again by another thread; the list holds only
 * workers whose thread is live.
 */
static void exec_pool_unlist(struct exec_pool_worker *w)
{
	struct exec_thread_pool *pool = w->pool;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->idle_lock, flags);
	if (w->idle_pprev)
		exec_pool_unlink(pool, w);
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
}

/* Claims @w if it is WAITING: @mark is EXEC_IDLE_CLAIMED or an item. */
static bool exec_pool_try_claim(struct exec_pool_worker *w, unsigned long mark)
{
	unsigned long waiting = EXEC_IDLE_WAITING;

	/* Full barrier: the item's contents before the pointer. */
	if (!try_cmpxchg(&w->idle_state, &waiting, mark))
		return false;
	atomic_dec(&w->pool->nr_idle);
	return true;
}

/*
 * The walk under the lock: the first worker it can claim, dropping from the
 * list the claimed ones before it, and the one it claims.
 */
static struct exec_pool_worker *exec_pool_claim_locked(
	struct exec_thread_pool *pool, unsigned long mark)
{
	struct exec_pool_worker *w, *next, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->idle_lock, flags);
	for (w = pool->idle_list; w && !found; w = next) {
		next = w->idle_next;
		if (READ_ONCE(w->idle_state) == EXEC_IDLE_WAITING &&
		    exec_pool_try_claim(w, mark))
			found = w;
		if (found || READ_ONCE(w->idle_state) != EXEC_IDLE_WAITING)
			exec_pool_unlink(pool, w);
	}
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
	return found;
}

/*
 * Claims one idle worker, looking at the first few on the list (the ones
 * that went idle last) for the best placed one:
 *
 *  - one that went idle on the waker's CPU, so that a wake-up from an
 *    interrupt (a timer coming due) or from a thread that then sleeps needs
 *    no cross-CPU interrupt when the scheduler keeps the worker where it
 *    was.  Waking an idle CPU is the slowest way to start a thread on a
 *    virtual machine: scripts/trace-wakeup.py saw the switch on an idle
 *    vCPU come later than that of a wakee that preempts its waker or
 *    waits for its waker to sleep, and wakeup_latency's slowest samples
 *    were those woken on the other vCPU (Documentation/benchmarks.rst);
 *  - among equally placed ones, not the one watching for the pool's next
 *    timed event: it would hand the watch back to the clock event device
 *    first, which re-arms the device when something is armed (a system
 *    call in userspace, an hrtimer's re-arm in the kernel).
 *
 * If that finds none to claim (none WAITING among them, or another waker
 * was first), the walk under the lock decides.
 */
static struct exec_pool_worker *exec_pool_claim(struct exec_thread_pool *pool,
						unsigned long mark)
{
	struct exec_pool_worker *w, *best = NULL;
	unsigned int scan, score, best_score = 0;
	int cpu = -1;

	/* Acquire: pairs with the release that put the head there. */
	w = smp_load_acquire(&pool->idle_list);
	/* The CPU only matters with a choice to make. */
	if (w && READ_ONCE(w->idle_next))
		cpu = raw_smp_processor_id();
	for (scan = 0; w && scan < EXEC_POOL_WAKE_SCAN; scan++) {
		if (READ_ONCE(w->idle_state) == EXEC_IDLE_WAITING) {
			score = 1 + !READ_ONCE(w->watching) +
				(READ_ONCE(w->idle_cpu) == cpu) * 2;
			if (score > best_score) {
				best_score = score;
				best = w;
			}
			if (score == 4)
				break;
		}
		w = READ_ONCE(w->idle_next);
	}
	if (best && exec_pool_try_claim(best, mark))
		return best;
	return exec_pool_claim_locked(pool, mark);
}

/**
 * exec_pool_wake_one_with - wake one idle worker, handing it @work
 * @pool: the pool
 * @work: the item to hand over, not published anywhere else; or NULL
 *
 * The worker runs @work first thing (see the top of thread_pool.c).
 *
 * Return: whether a worker was claimed, and so @work handed over: false
 * when no worker was idle.
 */
static bool exec_pool_wake_one_with(struct exec_thread_pool *pool,
			     struct exec_work *work)
{
	struct exec_pool_worker *w;

	w = exec_pool_claim(pool, work ? (unsigned long)work :
					 EXEC_IDLE_CLAIMED);
	if (!w)
		return false;
	exec_parker_unpark(&w->parker);
	return true;
}

/**
 * exec_pool_wake_all - make every worker look at the pool's state again
 * @pool: the pool, whose state the caller has changed, fully ordered
 *
 * Every slot's parker is unparked: a parked worker wakes, takes itself off
 * WAITING and looks; one about to park finds the permit and does the same;
 * one that goes idle after this looks at the state after storing WAITING
 * with a full barrier, which pairs with the caller's change; a busy one
 * only parks once for nothing.  A free slot's parker keeps the permit for
 * its next thread.  No claim, and no look at @nr_idle: the wake-up does not
 * depend on the count, and ends after one pass.
 */
static void exec_pool_wake_all(struct exec_thread_pool *pool)
{
	unsigned int i, used = exec_pool_nr_used(pool);

	for (i = 0; i < used; i++)
		exec_parker_unpark(&pool->workers[i].parker);
}

#endif /* EXEC_CORE_POOL_IDLE_H */

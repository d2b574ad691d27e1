/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Idle sleepers: how a thread of an executor goes to sleep for want of
 * work, and how a waker picks one, claims it and wakes it, with no lock on
 * the waker's way.  The one mechanism of the thread pool's workers
 * (thread_pool.c), the loop scheduler's threads (loop_scheduler.c) and the
 * loop executor's runner (loop.c).
 *
 * A sleeper is a record, struct exec_idle_sleeper, on the idle list of its
 * executor's struct exec_idle.  Its wake-up is an unpark of its thread's
 * parker, or a call of the waker it was given: an attached waker, the
 * thread of another event loop (GLib, libuv, epoll: user/io/loop_fd.c)
 * that drives the executor and is, between two of its calls into it, one
 * more idle thread, woken by an eventfd write instead of an unpark.
 *
 * The handshake, the same for every executor (each side stores, then,
 * after a full barrier, reads what the other stores: at least one of them
 * sees the other's store):
 *
 *   waker (submitter, stopper)           sleeper
 *   publish item / set stop bit          exec_idle_go(): @nr_idle++,
 *   full barrier (the publishing xchg(),   @state = WAITING, full barrier
 *     or the stopper's fetch_or)         look at the queue and the state
 *   if @nr_idle: exec_idle_wake_one()    if nothing to do: park (or return
 *     (claim a WAITING sleeper, wake it)   to the other loop's wait)
 *                                        exec_idle_take()
 *
 * so either the waker claims and wakes the sleeper, or the sleeper sees the
 * item (or the stop) and does not sleep.  A waker that reads @nr_idle as 0
 * makes no system call: an executor whose threads are all busy submits
 * without one, and one whose sleepers sleep has them woken by nothing else.
 *
 * Each sleeper has a state word, @state:
 *
 *   EXEC_IDLE_AWAKE    not idle: it runs items, or looks for work
 *   EXEC_IDLE_WAITING  idle: parked or about to park; a waker may claim it
 *   EXEC_IDLE_CLAIMED  claimed by a waker that had no item for it
 *   an item's address  claimed by a waker that handed it this item (the
 *                      thread pool's exec_pool_hand_to_idle() only)
 *
 * and it moves:
 *
 *   AWAKE -> WAITING           the sleeper, under @lock (exec_idle_go())
 *   WAITING -> CLAIMED or item a waker, with cmpxchg() (exec_idle_claim())
 *   WAITING -> AWAKE           the sleeper, with cmpxchg(), woken by its own
 *                              deadline or back without parking
 *   item -> CLAIMED            a cancel of the item, with cmpxchg() (the
 *                              thread pool's exec_pool_take_back())
 *   CLAIMED or item -> AWAKE   the sleeper, with xchg(), as a cancel may take
 *                              the item back meanwhile (exec_idle_take())
 *
 * Whoever takes it off WAITING decrements @nr_idle, after the cmpxchg(); the
 * sleeper increments it before it stores WAITING, so a claim never makes it
 * negative.
 *
 * The idle list orders the sleepers by when they went idle, latest first,
 * for the wakers' preferences (exec_idle_claim()).  Its links change only
 * under @lock; wakers walk it without the lock.  A claimed sleeper stays on
 * the list until it goes idle again (then it moves to the head) or leaves
 * (exec_idle_unlist()), and walkers skip it.  Every record on the list
 * lives as long as the executor (a pool's workers, a loop scheduler's
 * records, which only its destroy frees, a loop's one record), so a walk
 * without the lock reads valid records even while the list changes under
 * it; it may see one twice or miss one, so it is bounded, and when it
 * finds none to claim, a walk under the lock, which finds any sleeper that
 * is WAITING (one stores WAITING only under the lock, while it is on the
 * list), decides, and drops the claimed ones it passes from the list.
 *
 * Which of these may run at the same time, on one list (go, take and
 * unlist only on the caller's own record; "lock": excluded by @lock):
 *
 *                   go     take    unlist  claim  claim_locked, wake_all
 *   go              lock   yes     lock    yes    lock
 *   take            yes    yes     yes     yes    yes
 *   unlist          lock   yes     lock    yes    lock
 *   claim           yes    yes     yes     yes    yes
 *   claim_locked    lock   yes     lock    yes    lock
 *
 * A wake-up may reach a record whose thread has woken meanwhile, on its
 * own, and used the record again: its next sleep sees a spurious wake-up,
 * which parkers allow, and an attached waker's other loop looks for work
 * in vain.
 *
 * Its functions are inline, so that the wakers' and the woken thread's
 * ways compile into the executors' own functions: as calls into
 * another object they lengthened the kernel's wake-up, from the sleeping
 * submitter's switch to the item's start, under QEMU's TCG
 * (Documentation/benchmarks.rst).
 */
#ifndef EXEC_CORE_IDLE_H
#define EXEC_CORE_IDLE_H

#include "internal.h"

/* exec_idle_sleeper::state, when it is not a handed item's address */
#define EXEC_IDLE_AWAKE		0UL
#define EXEC_IDLE_WAITING	1UL
#define EXEC_IDLE_CLAIMED	2UL

/* How many sleepers a waker looks at without the lock. */
#define EXEC_IDLE_WAKE_SCAN	8

/**
 * struct exec_idle_sleeper - where one thread sleeps for want of work
 * @state: A: EXEC_IDLE_*, or the item a waker handed over with its claim
 * @next: L(lock): link on the idle list; WRITE_ONCE(), as wakers walk the
 *	list without the lock
 * @pprev: L(lock): the link that points at this record on the idle list
 *	(where it stays once claimed), NULL while it is not on it
 * @cpu: L(lock): the CPU it went idle on, a hint for wakers, who read it
 *	without the lock
 * @watching: L(lock): while idle, it also waits for the executor's next
 *	timed event (exec_timers_watch()); wakers prefer other sleepers
 * @wake: A: the attached waker that ends the sleep, or NULL for an unpark
 *	of the parker @wake_arg; stored with release after @wake_arg, read
 *	by the waker that claimed the record
 * @wake_arg: @wake's argument, or the parker; written before @wake
 *
 * "lock" is the lock of the struct exec_idle whose list it is on.
 */
struct exec_idle_sleeper {
	unsigned long state;
	struct exec_idle_sleeper *next;
	struct exec_idle_sleeper **pprev;
	int cpu;
	bool watching;
	void (*wake)(void *arg);
	void *wake_arg;
};

/**
 * struct exec_idle - an executor's idle sleepers
 * @nr_idle: A: sleepers WAITING, counted before they store it and until
 *	just after they leave it; read first by every waker
 * @lock: guards the list's links; raw, as hardirq wakers (a timer's
 *	expiry in the kernel) take it when they walk the list under it
 * @list: L(lock): sleepers by when they went idle, latest first, including
 *	claimed ones not yet idle again; read without the lock by wakers
 *	(stored with release)
 */
struct exec_idle {
	atomic_t nr_idle;
	raw_spinlock_t lock;
	struct exec_idle_sleeper *list;
};

static inline void exec_idle_init(struct exec_idle *idle)
{
	atomic_set(&idle->nr_idle, 0);
	raw_spin_lock_init(&idle->lock);
	idle->list = NULL;
}

static inline void exec_idle_fini(struct exec_idle *idle)
{
	raw_spin_lock_destroy(&idle->lock);
}

/*
 * A record that sleeps on @parker: the thread pool's and the loop
 * scheduler's threads, the loop executor's runner.  Before its first use.
 */
static inline void exec_idle_sleeper_init(struct exec_idle_sleeper *s,
					  struct exec_parker *parker)
{
	s->state = EXEC_IDLE_AWAKE;
	s->next = NULL;
	s->pprev = NULL;
	s->wake_arg = parker;
	s->wake = NULL;
}

/*
 * Gives @s an attached waker: from now on a claim of @s calls @wake(@arg)
 * instead of an unpark.  @s is not WAITING (it may be on the list, claimed
 * or taken back); once it goes idle, the release of its WAITING orders
 * these stores before it, and the claimer's cmpxchg() reads them after.
 */
static inline void exec_idle_set_waker(struct exec_idle_sleeper *s,
				       void (*wake)(void *arg), void *arg)
{
	WRITE_ONCE(s->wake_arg, arg);
	/* Release: pairs with exec_idle_waker()'s acquire. */
	smp_store_release(&s->wake, wake);
}

/* @s's attached waker, or NULL; its argument is then @s->wake_arg. */
static inline void (*exec_idle_waker(struct exec_idle_sleeper *s))(void *)
{
	/* Acquire: pairs with exec_idle_set_waker()'s release. */
	return smp_load_acquire(&s->wake);
}

/* Ends the sleep of @s, which the caller claimed. */
static inline void exec_idle_wake(struct exec_idle_sleeper *s)
{
	void (*wake)(void *arg) = exec_idle_waker(s);

	if (wake)
		wake(READ_ONCE(s->wake_arg));
	else
		exec_parker_unpark(READ_ONCE(s->wake_arg));
}

/* Takes @s off the list.  Caller holds @lock; @s is on it. */
static inline void exec_idle_unlink(struct exec_idle *idle,
				    struct exec_idle_sleeper *s)
{
	struct exec_idle_sleeper *next = s->next;

	lockdep_assert_held(&idle->lock);
	WRITE_ONCE(*s->pprev, next);
	if (next)
		next->pprev = s->pprev;
	s->pprev = NULL;
}

/**
 * exec_idle_go - the sleeper puts itself on the idle list
 * @idle: the executor's sleepers
 * @s: the caller's record, AWAKE
 * @watching: it also waits for the executor's next timed event
 *
 * The sleeper's half of the handshake (see the top): after this, the
 * caller looks at its executor's queue and state, and sleeps only if they
 * give it nothing to do; then, slept or not, it calls exec_idle_take().
 *
 * Fully ordered after it stores WAITING: pairs with the waker's full
 * barrier between its publication (an item's push, a stop bit, a flush's
 * epoch) and its read of @nr_idle.
 */
static inline void exec_idle_go(struct exec_idle *idle,
				struct exec_idle_sleeper *s, bool watching)
{
	struct exec_idle_sleeper *head;
	unsigned long flags;

	raw_spin_lock_irqsave(&idle->lock, flags);
	/* Only its own exec_idle_take() makes it AWAKE again. */
	WARN_ON_ONCE(READ_ONCE(s->state) != EXEC_IDLE_AWAKE);
	if (s->pprev)
		exec_idle_unlink(idle, s);
	WRITE_ONCE(s->watching, watching);
	WRITE_ONCE(s->cpu, raw_smp_processor_id());
	head = idle->list;
	WRITE_ONCE(s->next, head);
	if (head)
		head->pprev = &s->next;
	s->pprev = &idle->list;
	/* Release: a walker that finds @s finds its link and hints set. */
	smp_store_release(&idle->list, s);
	/* Counted before it can be claimed: a claim's decrement follows. */
	atomic_inc(&idle->nr_idle);
	/*
	 * Release: a claimer, whose cmpxchg() reads this, finds the waker
	 * set before (exec_idle_set_waker()).
	 */
	smp_store_release(&s->state, EXEC_IDLE_WAITING);
	/* Full barrier: pairs with the waker's, before it reads @nr_idle. */
	smp_mb();
	raw_spin_unlock_irqrestore(&idle->lock, flags);
}

/**
 * exec_idle_take - the sleeper takes its state back after its sleep
 * @idle: the executor's sleepers
 * @s: the caller's record, which went idle (exec_idle_go())
 * @mark: set to what the waker that claimed it left: EXEC_IDLE_CLAIMED or
 *	the item it handed over; EXEC_IDLE_AWAKE if none claimed it
 *
 * If no waker claimed it, it leaves WAITING itself, and @nr_idle's
 * decrement is fully ordered before the caller's next look at the queue:
 * pairs with the waker's full barrier before it reads @nr_idle.
 *
 * Return: whether a waker claimed it.
 */
static inline bool exec_idle_take(struct exec_idle *idle,
				  struct exec_idle_sleeper *s,
				  unsigned long *mark)
{
	/* Acquire: pairs with the claim, for the handed item's contents. */
	unsigned long state = smp_load_acquire(&s->state);

	*mark = EXEC_IDLE_AWAKE;
	if (state == EXEC_IDLE_WAITING) {
		if (try_cmpxchg(&s->state, &state, EXEC_IDLE_AWAKE)) {
			atomic_dec_return(&idle->nr_idle);
			return false;
		}
	}
	/*
	 * Claimed: the item, if any, is ours once the word is AWAKE.  An
	 * xchg(), not a store: a cancel may turn the item into CLAIMED until
	 * then; fully ordered, so acquire as above.
	 */
	state = xchg(&s->state, EXEC_IDLE_AWAKE);
	/* Only the sleeper leaves WAITING for AWAKE, and only just above. */
	WARN_ON_ONCE(state == EXEC_IDLE_AWAKE || state == EXEC_IDLE_WAITING);
	*mark = state;
	return true;
}

/**
 * exec_idle_unlist - a sleeper leaves the idle list for good
 * @idle: the executor's sleepers
 * @s: the caller's record, AWAKE
 *
 * Before its record goes to another thread (a pool's slot started again,
 * a loop scheduler's record back on its spare list): the list holds only
 * records of threads that will take their state back.
 */
static inline void exec_idle_unlist(struct exec_idle *idle,
				    struct exec_idle_sleeper *s)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&idle->lock, flags);
	if (s->pprev)
		exec_idle_unlink(idle, s);
	raw_spin_unlock_irqrestore(&idle->lock, flags);
}

/* Claims @s if it is WAITING: @mark is EXEC_IDLE_CLAIMED or an item. */
static inline bool exec_idle_try_claim(struct exec_idle *idle,
				       struct exec_idle_sleeper *s,
				       unsigned long mark)
{
	unsigned long waiting = EXEC_IDLE_WAITING;

	/* Full barrier: the item's contents before the pointer. */
	if (!try_cmpxchg(&s->state, &waiting, mark))
		return false;
	atomic_dec(&idle->nr_idle);
	return true;
}

/*
 * The walk under the lock: the first sleeper it can claim, dropping from
 * the list the claimed ones before it, and the one it claims.
 */
static inline struct exec_idle_sleeper *
exec_idle_claim_locked(struct exec_idle *idle, unsigned long mark)
{
	struct exec_idle_sleeper *s, *next, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&idle->lock, flags);
	for (s = idle->list; s && !found; s = next) {
		next = s->next;
		if (READ_ONCE(s->state) == EXEC_IDLE_WAITING &&
		    exec_idle_try_claim(idle, s, mark))
			found = s;
		if (found || READ_ONCE(s->state) != EXEC_IDLE_WAITING)
			exec_idle_unlink(idle, s);
	}
	raw_spin_unlock_irqrestore(&idle->lock, flags);
	return found;
}

/*
 * Claims one sleeper, looking at the first few on the list (the ones that
 * went idle last) for the best placed one:
 *
 *  - one that went idle on the waker's CPU, so that a wake-up from an
 *    interrupt (a timer coming due) or from a thread that then sleeps needs
 *    no cross-CPU interrupt when the scheduler keeps the sleeper where it
 *    was.  Waking an idle CPU is the slowest way to start a thread on a
 *    virtual machine: scripts/trace-wakeup.py saw the switch on an idle
 *    vCPU come later than that of a wakee that preempts its waker or
 *    waits for its waker to sleep, and wakeup_latency's slowest samples
 *    were those woken on the other vCPU (Documentation/benchmarks.rst);
 *  - among equally placed ones, not the one watching for the executor's
 *    next timed event: it would hand the watch back to the clock event
 *    device first, which re-arms the device when something is armed (a
 *    system call in userspace, an hrtimer's re-arm in the kernel).
 *
 * If that finds none to claim (none WAITING among them, or another waker
 * was first), the walk under the lock decides.
 */
static inline struct exec_idle_sleeper *exec_idle_claim(struct exec_idle *idle,
							unsigned long mark)
{
	struct exec_idle_sleeper *s, *best = NULL;
	unsigned int scan, score, best_score = 0;
	int cpu = -1;

	/* Acquire: pairs with the release that put the head there. */
	s = smp_load_acquire(&idle->list);
	/* The CPU only matters with a choice to make. */
	if (s && READ_ONCE(s->next))
		cpu = raw_smp_processor_id();
	for (scan = 0; s && scan < EXEC_IDLE_WAKE_SCAN; scan++) {
		if (READ_ONCE(s->state) == EXEC_IDLE_WAITING) {
			score = 1 + !READ_ONCE(s->watching) +
				(READ_ONCE(s->cpu) == cpu) * 2;
			if (score > best_score) {
				best_score = score;
				best = s;
			}
			if (score == 4)
				break;
		}
		s = READ_ONCE(s->next);
	}
	if (best && exec_idle_try_claim(idle, best, mark))
		return best;
	return exec_idle_claim_locked(idle, mark);
}

/**
 * exec_idle_wake_one - claim one sleeper and wake it
 * @idle: the executor's sleepers
 * @mark: EXEC_IDLE_CLAIMED, or an item handed over with the claim (not
 *	published anywhere else: the sleeper runs it first thing)
 *
 * The waker's half of the handshake, called once @nr_idle was read
 * non-zero after the waker's full barrier (see the top).
 *
 * Return: the sleeper claimed and woken; NULL when none was idle.
 */
static inline struct exec_idle_sleeper *
exec_idle_wake_one(struct exec_idle *idle, unsigned long mark)
{
	struct exec_idle_sleeper *s = exec_idle_claim(idle, mark);

	if (s)
		exec_idle_wake(s);
	return s;
}

/**
 * exec_idle_wake_all - claim and wake every sleeper
 * @idle: the executor's sleepers, whose executor's state the caller has
 *	changed, fully ordered (a stop, a flush's epoch)
 *
 * Under @lock, which excludes exec_idle_go(): a sleeper not yet WAITING
 * looks at the state after its full barrier and sees the change.  The
 * claimed ones leave the list.
 *
 * Return: how many it woke.
 */
static inline unsigned int exec_idle_wake_all(struct exec_idle *idle)
{
	struct exec_idle_sleeper *s, *next;
	unsigned int nr = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&idle->lock, flags);
	for (s = idle->list; s; s = next) {
		next = s->next;
		if (READ_ONCE(s->state) == EXEC_IDLE_WAITING &&
		    exec_idle_try_claim(idle, s, EXEC_IDLE_CLAIMED)) {
			exec_idle_wake(s);
			nr++;
		}
		if (READ_ONCE(s->state) != EXEC_IDLE_WAITING)
			exec_idle_unlink(idle, s);
	}
	raw_spin_unlock_irqrestore(&idle->lock, flags);
	return nr;
}

#endif /* EXEC_CORE_IDLE_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Timed work (include/exec/timer.h): timer bases, arming, expiry,
 * cancellation and periodic items, for every executor that runs timed work.
 *
 * Architecture.  A timer base holds one wheel per clock (core/timer_wheel.h)
 * and a clock event device of the backend (struct exec_clockev: two hrtimers
 * in the kernel, a thread asleep on two timerfds in userspace), which
 * is programmed for the wheel's next event and calls exec_timer_expire() when
 * it comes.  Expiry moves due items out of the wheel and submits each to the
 * executor it was armed on; from there it runs like any other item.  The
 * expiry runs in the clock event's context (hard interrupt in the kernel), so
 * it only hands work over; the work runs on the executor's threads.  In both
 * worlds an idle thread of the owning executor may instead wait for the next
 * event itself (exec_timers_watch()) and expire the base when it wakes,
 * running the first due item without a wake-up of its own; the device is
 * then only a backstop in case that thread stays busy.
 *
 * An executor that runs timed work has a target (struct exec_timer_target):
 * which base, which executor.  A thread pool or a loop executor owns a base;
 * a serial executor shares the base of the executor it runs on and has a
 * target of its own, so its due items go through its own FIFO queue.
 *
 * While an item is pending because of a base, exec_work::flags holds the
 * address of its target above the flag bits (as the kernel's work_struct
 * holds its pool_workqueue), so cancel and expiry find the base from the
 * item alone.  Its state is in exec_timer::link, under the base's lock:
 *
 *   in the wheel    link points at what points at the item
 *   FIRED           handed to the executor, not started
 *   CANCELLED       handed over, then cancelled: it is skipped when dequeued
 *   MOVED_MONO/REAL handed over, then exec_timer_mod(): re-armed when
 *                   dequeued, at @expires
 *   STARTING        dequeued while FIRED, starting: its pending state ends
 *   IDLE            none of these
 *
 * One transition takes no lock: the start of a FIRED item, to STARTING
 * (exec_timer_start_fired()), so that the executors' threads do not meet
 * on the base's lock for every timed item they run.  The other ways out
 * of FIRED (cancel, mod) are compare-and-exchanges under the lock, and
 * whichever comes first wins; a cancel or mod that finds an item
 * STARTING while it is still pending waits for its start to end the
 * pending state, and looks again.
 *
 * An item stops being pending, and its flags lose the target, when it starts
 * or is cancelled or discarded; so a target is never reached through an item
 * after its executor has been destroyed.
 *
 * Running items are known by address in a global hash of running records
 * (struct exec_timer_running, on the runner's stack), which is what
 * exec_timer_cancel_sync() and exec_timer_flush() wait on and where
 * cancelling a running periodic item leaves its mark, since a running item
 * no longer names its base.
 *
 * Lock order: a running record's bucket lock, then a base lock (for the
 * start of an item and the re-arm of a periodic item).  Executors are
 * called with neither held.
 */
#include "timer_wheel.h"
#include "stats_count.h"

#define EXEC_TIMER_IDLE		((struct exec_work **)0UL)
#define EXEC_TIMER_FIRED	((struct exec_work **)1UL)
#define EXEC_TIMER_CANCELLED	((struct exec_work **)2UL)
#define EXEC_TIMER_MOVED_MONO	((struct exec_work **)3UL)
#define EXEC_TIMER_MOVED_REAL	((struct exec_work **)4UL)
#define EXEC_TIMER_STARTING	((struct exec_work **)5UL)
#define EXEC_TIMER_STATE_MAX	5UL

#define EXEC_TIMER_BUCKETS	64

/**
 * struct exec_timer_base - the timed items of one owning executor
 * @lock: guards everything below but @clockev's own fields
 * @dead: L: the owner is being destroyed; nothing can be armed
 * @due: L: items out of the wheel, due, in the order they came due, waiting
 *	to be submitted to their executors (FIFO, linked through next), and
 *	items a watcher left there for its next passes
 *	(exec_timer_leave_due()); written with WRITE_ONCE(), also read
 *	without the lock, as a hint, by the watcher and the device's handler
 * @due_tail: L: the last link of @due
 * @left_by: L: when the clock event device fires at the latest for the
 *	items a watcher left on @due (exec_timer_leave_due()), on the
 *	monotonic clock; EXEC_TIME_NEVER when it left none
 * @handing: L: a thread is submitting @due's items; others leave theirs to
 *	it, so that items reach their executors in the order they came due
 * @programmed: L: per clock, the time of the next event asked for (of the
 *	device or of the watcher), on the core's clock; EXEC_TIME_NEVER if
 *	none.  Also read without the lock by exec_timers_watch_moved()
 * @device: L: per clock, the time @clockev is armed for, on the system's
 *	clock; EXEC_TIME_NEVER if disarmed or fired (exec_timer_sync_device())
 * @wheel: L: per clock, the armed items
 * @watcher: L: the parker of the thread of the owning executor that waits
 *	for the next event itself (exec_timers_watch()), or NULL.  Also read
 *	without the lock, as a hint, by exec_timers_watch()
 * @next: G: link in the list of all bases (exec_timer_bases_lock)
 * @clockev: the backend's clock event device
 */
struct exec_timer_base {
	raw_spinlock_t lock;
	bool dead;
	struct exec_work *due;
	struct exec_work **due_tail;
	u64 left_by;
	bool handing;
	struct exec_parker *watcher;
	u64 programmed[EXEC_CLOCK_COUNT];
	u64 device[EXEC_CLOCK_COUNT];
	struct exec_wheel wheel[EXEC_CLOCK_COUNT];
	struct exec_timer_base *next;
	struct exec_clockev clockev;
};

/**
 * struct exec_timer_target - where an executor's timed items are armed
 * @base: the base
 * @ex: the executor due items are submitted to
 * @nr_armed: L: items of @ex in @base's wheels; written with WRITE_ONCE() as
 *	exec_timers_armed() reads it without the lock
 * @dead: L: @ex is being destroyed; nothing can be armed for it
 * @owns_base: @base was created for @ex and goes with it
 * @counts_work: @ex counts its timed items as outstanding work, from arming
 *	until they reach its queue or are taken back (its ops' work_started
 *	and work_finished); set before anything is armed
 * @nr_arms: L: items filed for @ex, ever, for its statistics
 * @nr_fired: L: items of @ex that came due, ever
 * @nr_cancelled: L: items of @ex that a cancel took back, ever
 *
 * The three counts are written with WRITE_ONCE(), as exec_timers_stats()
 * reads them without the lock.
 *
 * Its address is kept in exec_work::flags above EXEC_WORK_FLAG_BITS bits,
 * hence the alignment.
 */
struct exec_timer_target {
	struct exec_timer_base *base;
	struct exec_executor *ex;
	unsigned long nr_armed;
	bool dead;
	bool owns_base;
	bool counts_work;
	unsigned long nr_arms;
	unsigned long nr_fired;
	unsigned long nr_cancelled;
} __aligned(1 << EXEC_WORK_FLAG_BITS);

/*
 * @ex->timers of an executor whose target is still to be made
 * (exec_timers_share_lazily()): the executor it will share a base with,
 * tagged; EXEC_TIMERS_COUNTS if its items will count as outstanding work.
 */
#define EXEC_TIMERS_LAZY	1UL
#define EXEC_TIMERS_COUNTS	2UL
#define EXEC_TIMERS_TAGS	(EXEC_TIMERS_LAZY | EXEC_TIMERS_COUNTS)

/* @ex->timers as it is: a target, NULL, or a lazy one's tagged source. */
static inline unsigned long exec_timers_word(const struct exec_executor *ex)
{
	/* Pairs with the cmpxchg() of exec_timers_make(). */
	return (unsigned long)smp_load_acquire(&ex->timers);
}

/* @ex's target, or NULL if it has none or its target is still to be made. */
static inline struct exec_timer_target *
exec_timers_target(const struct exec_executor *ex)
{
	unsigned long v = exec_timers_word(ex);

	return v & EXEC_TIMERS_LAZY ? NULL : (struct exec_timer_target *)v;
}

/*
 * The base @ex arms its items on, or will once its target is made; NULL if
 * it has no timers.  The executor a lazy @ex will share with has a target.
 */
static struct exec_timer_base *exec_timers_base_of(const struct exec_executor *ex)
{
	unsigned long v = exec_timers_word(ex);

	if (v & EXEC_TIMERS_LAZY)
		ex = (struct exec_executor *)(v & ~EXEC_TIMERS_TAGS);
	return ex->timers ? exec_timers_target(ex)->base : NULL;
}

static struct exec_timer_target *exec_target_alloc(struct exec_timer_base *base,
						   struct exec_executor *ex,
						   gfp_t gfp)
{
	struct exec_timer_target *target;

	/*
	 * A power-of-two size: kmalloc() aligns it naturally, malloc() to 16
	 * bytes at least, either way enough for the flag bits.
	 */
	BUILD_BUG_ON(sizeof(*target) & (sizeof(*target) - 1));
	target = exec_kzalloc_obj(target, gfp);
	if (!target)
		return NULL;
	if (WARN_ON_ONCE((unsigned long)target & EXEC_WORK_FLAG_MASK)) {
		kfree(target);
		return NULL;
	}
	target->base = base;
	target->ex = ex;
	return target;
}

/*
 * The target of @ex for an arm in *@targetp, made now if it is still to be
 * made (exec_timers_share_lazily()).  Returns 0, -EOPNOTSUPP if @ex has no
 * timers, or -ENOMEM.  Two first arms racing each make one; one is kept.
 */
static int exec_timers_make(struct exec_executor *ex,
			    struct exec_timer_target **targetp)
{
	struct exec_timer_target *lazy, *target, *old;
	struct exec_executor *from;

	lazy = (struct exec_timer_target *)exec_timers_word(ex);
	if (likely(!((unsigned long)lazy & EXEC_TIMERS_LAZY))) {
		*targetp = lazy;
		return lazy ? 0 : -EOPNOTSUPP;
	}
	from = (struct exec_executor *)((unsigned long)lazy & ~EXEC_TIMERS_TAGS);
	target = exec_target_alloc(exec_timers_base_of(from), ex, GFP_ATOMIC);
	if (!target)
		return -ENOMEM;
	target->counts_work = (unsigned long)lazy & EXEC_TIMERS_COUNTS;
	/* Fully ordered: publishes @target's initialisation. */
	old = cmpxchg(&ex->timers, lazy, target);
	if (old != lazy) {
		kfree(target);
		target = old;
	}
	*targetp = target;
	return 0;
}

/* An item of @target left the wheels.  Caller holds the base's lock. */
static inline void exec_target_disarmed(struct exec_timer_target *target)
{
	WRITE_ONCE(target->nr_armed, target->nr_armed - 1);
}

/**
 * struct exec_timer_running - a timed item while its function runs
 * @timer: the item
 * @next: B: link in the bucket's list
 * @frame: names @timer on the runner's frame stack (cancel_sync from inside)
 * @cancelled: B: a cancel came while it ran: a periodic item is not re-armed.
 *	Also set, before the item stops being pending, when it is dequeued
 *	only to be skipped (cancelled) or filed again (moved): it does not
 *	run, so no cancel may count it as a running item to stop
 * @in_fn: B: its function is called, or about to be
 * @rerun: B: the item came due again while its function ran, and another
 *	thread dequeued it: it is left, still pending, to this run, which
 *	starts it again once the function has returned (a timed item runs on
 *	one thread at a time, as a workqueue's delayed work does)
 */
struct exec_timer_running {
	struct exec_timer *timer;
	struct exec_timer_running *next;
	struct exec_frame frame;
	bool cancelled;
	bool in_fn;
	bool rerun;
};

/**
 * struct exec_timer_bucket - running records of the items hashed here
 * @lock: guards @running
 * @running: B: the records
 * @wq: exec_timer_cancel_sync() waits here for an item to become idle,
 *	exec_timer_flush() for its run to end
 */
struct exec_timer_bucket {
	raw_spinlock_t lock;
	struct exec_timer_running *running;
	wait_queue_head_t wq;
} ____cacheline_aligned;

static struct exec_timer_bucket exec_timer_buckets[EXEC_TIMER_BUCKETS];

/* G: every base, for a change of the realtime clock (tests). */
static DEFINE_MUTEX(exec_timer_bases_lock);
static struct exec_timer_base *exec_timer_bases;

/* Added to the realtime clock, to test clock changes without root. */
static s64 exec_realtime_offset;

static void exec_timer_expire(struct exec_clockev *ce);
static void exec_timer_wake_sync(struct exec_timer *t);

/**
 * exec_timer_sys_init - initialise the library-wide timer state
 *
 * Context: Process context, once, before any timer is used (module load;
 * a constructor in userspace).
 */
void exec_timer_sys_init(void)
{
	unsigned int i;

	for (i = 0; i < EXEC_TIMER_BUCKETS; i++) {
		raw_spin_lock_init(&exec_timer_buckets[i].lock);
		init_waitqueue_head(&exec_timer_buckets[i].wq);
	}
}

/**
 * exec_timer_sys_fork - the library-wide timer state across fork()
 * @event: the step of the fork
 *
 * Every bucket lock and the list of bases are taken before the fork, so
 * that no other thread holds them in the child.  The child forgets what
 * belongs to the parent's threads: the bases of the parent's executors
 * (their memory leaks on purpose; their clock event threads stay in the
 * parent, and nothing of the child may reach them through the list), and
 * the records of items that ran on the parent's other threads, which
 * would make a cancel_sync of an item at the same address wait for ever.
 * A child forked from inside a timed item must not return from it (it
 * execs or exits, as any child of a threaded process should).
 *
 * Context: Process context; from the pthread_atfork() handlers of the
 * userspace library (the kernel has no fork).
 */
void exec_timer_sys_fork(enum exec_fork_event event)
{
	unsigned int i;

	switch (event) {
	case EXEC_FORK_PREPARE:
		/*
		 * The list's mutex first: a change of the realtime clock
		 * expires bases, which takes buckets, under it.
		 */
		mutex_lock(&exec_timer_bases_lock);
		/* No path holds two buckets: any order is deadlock-free. */
		for (i = 0; i < EXEC_TIMER_BUCKETS; i++)
			raw_spin_lock(&exec_timer_buckets[i].lock);
		break;
	case EXEC_FORK_PARENT:
		for (i = 0; i < EXEC_TIMER_BUCKETS; i++)
			raw_spin_unlock(&exec_timer_buckets[i].lock);
		mutex_unlock(&exec_timer_bases_lock);
		break;
	case EXEC_FORK_CHILD:
		for (i = 0; i < EXEC_TIMER_BUCKETS; i++) {
			exec_timer_buckets[i].running = NULL;
			init_waitqueue_head(&exec_timer_buckets[i].wq);
			raw_spin_unlock(&exec_timer_buckets[i].lock);
		}
		exec_timer_bases = NULL;
		mutex_unlock(&exec_timer_bases_lock);
		break;
	}
}

static struct exec_timer_bucket *exec_timer_bucket(const struct exec_timer *t)
{
	return &exec_timer_buckets[hash_ptr((void *)t, 6)];
}

static struct exec_timer_target *exec_flags_target(unsigned long flags)
{
	return (struct exec_timer_target *)(flags & ~EXEC_WORK_FLAG_MASK);
}

static bool exec_timer_linked(struct exec_work **link)
{
	return (unsigned long)link > EXEC_TIMER_STATE_MAX;
}

/*
 * An item is armed for @target: one more in its wheels, and one unit of
 * outstanding work if its executor counts them.  Under the base lock:
 * work_started() may be called in any context.
 */
static void exec_target_armed_inc(struct exec_timer_target *target)
{
	WRITE_ONCE(target->nr_armed, target->nr_armed + 1);
	exec_stats_inc(&target->nr_arms);
	if (target->counts_work)
		target->ex->ops->work_started(target->ex);
}

/*
 * Releases the unit of outstanding work of an item armed for @target that
 * has reached the executor's queue or has been taken back.  Called without
 * the base lock, since work_finished() may wake the executor's threads.
 */
static void exec_target_work_finished(struct exec_timer_target *target)
{
	if (target->counts_work)
		target->ex->ops->work_finished(target->ex);
}

/* Ends the item's pending state: drops the pending bit and the target. */
static void exec_timer_release(struct exec_timer *t)
{
	unsigned long flags = READ_ONCE(t->work.flags);

	/*
	 * The only concurrent writers are failing test_and_set_bit()s of
	 * submitters, which leave the word as it is.  The exchange is a full
	 * barrier, as the pending bit's clear in exec_work_run() is.
	 */
	(void)xchg(&t->work.flags,
		   flags & EXEC_WORK_FLAG_MASK & ~EXEC_WORK_PENDING);
}

uint64_t exec_clock_now(enum exec_clock clock)
{
	switch (clock) {
	case EXEC_CLOCK_MONOTONIC:
		return exec_clock_read(EXEC_CLOCK_MONOTONIC);
	case EXEC_CLOCK_REALTIME:
		return exec_clock_read(EXEC_CLOCK_REALTIME) +
		       (u64)READ_ONCE(exec_realtime_offset);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(exec_clock_now);

/*
 * The deadline in [@deadline, @deadline + @slack] with the most trailing zero
 * bits, so that items with overlapping ranges pick the same tick.
 */
static u64 exec_timer_apply_slack(u64 deadline, u64 slack)
{
	u64 latest = deadline + slack;

	if (latest < deadline)
		latest = EXEC_TIME_NEVER;
	if (latest == deadline)
		return deadline;
	return latest & ~((1ULL << (fls64(deadline ^ latest) - 1)) - 1);
}

/* @when (the core's time on @clock) on the system's clock. */
static u64 exec_timer_backend_ns(enum exec_clock clock, u64 when)
{
	if (clock == EXEC_CLOCK_REALTIME && when != EXEC_TIME_NEVER)
		return when - (u64)READ_ONCE(exec_realtime_offset);
	return when;
}

/* exec_timer_program_at() flags */
#define EXEC_TIMER_FORCE	0x1	/* the time on the system's clock moved */
#define EXEC_TIMER_BACKSTOP	0x2	/* a watcher is leaving */

/*
 * How late a due item may come when the thread that watched for it is kept
 * busy by what it took, and no other thread watches: while a watcher
 * exists, the clock event device is armed between half this and this after
 * the next event (exec_timer_sync_device()).
 */
#define EXEC_TIMER_BACKSTOP_NS	200000ULL

/*
 * Early cascades: items moved per step (a step of 32 is brief;
 * Documentation/benchmarks.rst), steps per call at most (a thread taken
 * for new work meanwhile waits no longer), and how far the next event must
 * be for a step to be taken.
 */
#define EXEC_TIMER_EARLY_BATCH		32
#define EXEC_TIMER_EARLY_STEPS		4
#define EXEC_TIMER_EARLY_SLACK_NS	10000ULL

/*
 * The time on @clock, read at most once per pass over a base: *@now caches
 * it, 0 until read.  A read of the clock is cheap with a TSC, but a
 * clocksource such as the HPET costs a device access each time (more than
 * the rest of a pass under an emulator), and a pass needs one time only.
 */
static u64 exec_timer_now(enum exec_clock clock, u64 *now)
{
	if (!*now)
		*now = exec_clock_now(clock);
	return *now;
}

/*
 * Drops @base's lock, then lets the clock event device take what the
 * section programmed (exec_clockev_commit()): in userspace that is a system
 * call, and a thread that makes one while it holds the lock can be
 * preempted on its way out of the kernel, every other user of the base
 * then waiting for it to get a CPU back.  Every unlock of a base's lock
 * that is not nested in another lock goes through here.
 */
static void exec_timer_unlock(struct exec_timer_base *base,
			      unsigned long flags)
{
	raw_spin_unlock_irqrestore(&base->lock, flags);
	exec_clockev_commit(&base->clockev);
}

static void exec_timer_arm_device(struct exec_timer_base *base,
				  enum exec_clock clock, u64 at)
{
	base->device[clock] = at;
	exec_clockev_program(&base->clockev, clock, at);
}

/*
 * Keeps the clock event device in step with @programmed[@clock]: armed
 * for that time while no thread watches.  While a watcher waits for it,
 * or runs what came due (@backstop), the device is only a backstop, in
 * case the watcher stays busy: armed between half
 * EXEC_TIMER_BACKSTOP_NS and EXEC_TIMER_BACKSTOP_NS after the next event,
 * and armed again (for the latter) only when it falls outside that window.
 * So a watcher that takes the items as they come due arms the device once
 * per half EXEC_TIMER_BACKSTOP_NS of deadlines, the device never fires
 * while the watcher keeps up, and each item costs one wake-up.  Leaving
 * the device armed wherever it was, and letting it fire and be re-armed,
 * woke the device's thread again and again through a dense run of
 * deadlines, and timer_lateness's tail was longer than with the window
 * (Documentation/benchmarks.rst).
 */
static void exec_timer_sync_device(struct exec_timer_base *base,
				   enum exec_clock clock, bool backstop,
				   u64 *now)
{
	u64 want = exec_timer_backend_ns(clock, base->programmed[clock]);
	u64 by = clock == EXEC_CLOCK_MONOTONIC ? base->left_by :
						 EXEC_TIME_NEVER;
	u64 dev = base->device[clock], lo, hi;
	const u64 latest = EXEC_TIME_NEVER - 1 - EXEC_TIMER_BACKSTOP_NS;

	lockdep_assert_held(&base->lock);
	/* A one-shot device whose time has passed fired, or is firing. */
	if (dev != EXEC_TIME_NEVER &&
	    dev <= exec_timer_backend_ns(clock, exec_timer_now(clock, now)))
		dev = EXEC_TIME_NEVER;
	if (want == EXEC_TIME_NEVER && by == EXEC_TIME_NEVER) {
		/* Nothing armed: an idle base must not wake at all. */
		if (dev != EXEC_TIME_NEVER)
			exec_timer_arm_device(base, clock, EXEC_TIME_NEVER);
		return;
	}
	if (!backstop && !base->watcher) {
		want = min(want, by);
		if (dev != want)
			exec_timer_arm_device(base, clock, want);
		return;
	}
	/* A deadline centuries away: the window must not wrap. */
	if (want > latest)
		want = latest;
	lo = want + EXEC_TIMER_BACKSTOP_NS / 2;
	hi = want + EXEC_TIMER_BACKSTOP_NS;
	/* Items left on the due list: any time until @by will do. */
	if (by < hi) {
		lo = 0;
		hi = by;
	}
	if (dev < lo || dev > hi)
		exec_timer_arm_device(base, clock, hi);
}

/*
 * Asks for an event at @when on @clock: from the clock event device, or
 * from the watcher, which is woken to take an earlier time.  @now caches
 * the time (exec_timer_now()).  Returns whether anything changed, the
 * device then kept in step; false when @when was already programmed.
 */
static bool exec_timer_program_at(struct exec_timer_base *base,
				  enum exec_clock clock, u64 when,
				  unsigned int flags, u64 *now)
{
	u64 old = base->programmed[clock];

	lockdep_assert_held(&base->lock);
	if (when == old && !flags)
		return false;
	/* Read locklessly by exec_timers_watch_due(). */
	WRITE_ONCE(base->programmed[clock], when);
	/*
	 * The unpark's exchange orders the store above before the watcher's
	 * next look, which its park makes after taking the permit.  A later
	 * time waits for the watcher's next look: a spurious wake-up at the
	 * earlier one.
	 */
	if (base->watcher && (when < old || (flags & EXEC_TIMER_FORCE)))
		exec_parker_unpark(base->watcher);
	exec_timer_sync_device(base, clock, flags & EXEC_TIMER_BACKSTOP, now);
	return true;
}

/* As exec_timer_program_at(), for the next event of @clock's wheel. */
static bool exec_timer_program(struct exec_timer_base *base,
			       enum exec_clock clock, unsigned int flags,
			       u64 *now)
{
	unsigned int lvl;
	u64 tick = exec_wheel_next_event(&base->wheel[clock], &lvl);

	return exec_timer_program_at(base, clock, exec_tick_wake_ns(tick),
				     flags, now);
}

/* Queues a due item for exec_timer_hand_over(). */
static void exec_timer_due(struct exec_timer_base *base, struct exec_timer *t)
{
	struct exec_timer_target *target =
		exec_flags_target(READ_ONCE(t->work.flags));

	t->link = EXEC_TIMER_FIRED;
	t->work.next = NULL;
	/* @due is also read without the lock, as a hint. */
	WRITE_ONCE(*base->due_tail, &t->work);
	base->due_tail = &t->work.next;
	exec_target_disarmed(target);
	exec_stats_inc(&target->nr_fired);
}

/*
 * Expires every item of @wh whose tick is at most @limit, onto @base's due
 * list, cascading the slots it passes.
 */
static void exec_wheel_advance(struct exec_timer_base *base,
			       struct exec_wheel *wh, u64 limit)
{
	struct exec_work *work, *next;

	for (work = exec_wheel_expire(wh, limit); work; work = next) {
		next = work->next;
		exec_timer_due(base, exec_work_timer(work));
	}
}

/*
 * Whether an early cascade (core/timer_wheel.h) on @clock may have items
 * to move and its next event leaves time for a step.  Also a look without
 * the lock, a hint then.  @now caches the time (exec_timer_now()).
 */
static bool exec_timer_early_ready(struct exec_timer_base *base,
				   unsigned int clock, u64 *now)
{
	u64 when = READ_ONCE(base->programmed[clock]);

	return READ_ONCE(base->wheel[clock].early_more) &&
	       when != EXEC_TIME_NEVER &&
	       exec_timer_now(clock, now) + EXEC_TIMER_EARLY_SLACK_NS < when;
}

/*
 * Takes steps of early cascade on each clock, while it is ready for them,
 * EXEC_TIMER_EARLY_STEPS at most, each under the lock, the lock dropped in
 * between.  Called by whoever expires the base (its watcher before it
 * parks, the clock event device), with the lock not held.  @now caches
 * the time per clock (exec_timer_now()), read again after each step; the
 * caller may use what is left there.
 */
static void exec_timer_cascade_early(struct exec_timer_base *base, u64 *now)
{
	unsigned int clock, steps;
	unsigned long flags;
	bool more;

	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		for (steps = 0; steps < EXEC_TIMER_EARLY_STEPS; steps++) {
			if (!exec_timer_early_ready(base, clock, &now[clock]))
				break;
			raw_spin_lock_irqsave(&base->lock, flags);
			more = exec_timer_early_ready(base, clock,
						      &now[clock]) &&
			       exec_wheel_cascade_early(&base->wheel[clock],
							EXEC_TIMER_EARLY_BATCH);
			exec_timer_unlock(base, flags);
			now[clock] = 0;
			if (!more)
				break;
		}
	}
}

/*
 * Submits a due item to its executor.  The executor may start, finish and
 * free it before the call returns: the item is not touched afterwards.
 */
static void exec_timer_submit_due(struct exec_timer *t, unsigned int flags)
{
	struct exec_timer_target *target =
		exec_flags_target(READ_ONCE(t->work.flags));
	struct exec_executor *ex = target->ex;

	exec_trace_timer_fire(ex, &t->work);
	if (ex->ops->submit(ex, &t->work,
			    EXEC_SUBMIT_NOWAIT | EXEC_SUBMIT_FORCE | flags))
		exec_work_discard(&t->work);
	/* Queued (or discarded): the executor counts it now, if it counts. */
	exec_target_work_finished(target);
}

/*
 * Items that a watcher left on the due list for its next passes go to
 * other threads if it stays busy this long: the clock event device fires
 * by then (@left_by; every sync of the device keeps it so, whatever else
 * is armed or cancelled meanwhile).  It is not armed again where it fires
 * sooner anyway (as the backstop of the next event, within
 * EXEC_TIMER_BACKSTOP_NS of it): arming it for every batch cost the
 * watcher a system call each time, which showed in timer_lateness's tail
 * (Documentation/benchmarks.rst).
 */
#define EXEC_TIMER_LEFT_NS	(4 * EXEC_TIMER_BACKSTOP_NS)

/* The caller's items a hand-over pass walks past (exec_timer_hand_over_to()). */
#define EXEC_TIMER_LEAVE_WALK	16

/*
 * Puts @left, due items that a watcher left for its next passes, back at
 * the head of @base's due list, and makes sure that the clock event device
 * fires within EXEC_TIMER_LEFT_NS, in case the watcher stays busy: its
 * handler then hands them to other threads (exec_timer_expire()).  @now is
 * the monotonic time of the pass that found them due, or 0: a time from
 * before the hand-over only makes the device fire that much sooner.
 */
static void exec_timer_leave_due(struct exec_timer_base *base,
				 struct exec_work *left,
				 struct exec_work **left_tail, u64 now)
{
	lockdep_assert_held(&base->lock);
	*left_tail = base->due;
	if (!base->due)
		base->due_tail = left_tail;
	WRITE_ONCE(base->due, left);
	/* Kept by every later sync of the device until they are taken. */
	base->left_by = exec_timer_now(EXEC_CLOCK_MONOTONIC, &now) +
			EXEC_TIMER_LEFT_NS;
	exec_timer_sync_device(base, EXEC_CLOCK_MONOTONIC, true, &now);
}

/*
 * Submits @base's due items.  One thread at a time does it, so that items
 * reach their executors in the order they came due (a serial executor then
 * keeps that order); a caller that finds another at it leaves its items to
 * that one, which loops until the list is empty.  Preemption stays off
 * meanwhile, so that a preempted submitter does not hold up due items.
 *
 * @self, if not NULL, is the executor the caller is a thread of, which
 * waited for these items (exec_timers_unwatch()): the first item due on it
 * is deferred (EXEC_SUBMIT_DEFER), so that the caller runs it next without
 * waking anybody.  With @leave (the caller stays the watcher), the others
 * due on it stay on the due list for the caller's next passes, one item a
 * pass, and the device is armed to fire within EXEC_TIMER_LEFT_NS in case
 * the caller stays busy: its handler then hands them to other threads
 * (exec_timer_leave_due()).  So a batch of short items costs no wake-up,
 * and a batch whose first item blocks still gets other threads.  @now is
 * the monotonic time of the caller's pass, or 0, for that arm.
 *
 * A pass walks past at most EXEC_TIMER_LEAVE_WALK of the caller's items,
 * handing over the others' items among them; the rest of the list stays
 * as it is, in its order, items of other executors in it included, for
 * the caller's next passes.  A watcher that fell behind (preempted while
 * other processes keep the CPUs busy) finds thousands of items due, and
 * walking all of them on each of its one-item passes made catching up
 * quadratic; it never did (Documentation/benchmarks.rst, "Under load").
 *
 * Deferring the whole batch to the caller, with a helper woken only when
 * it took its third item, left the rest waiting for a first item that
 * blocked, however long (a batch whose first item waited for its second
 * never finished).  Submitting the rest as any thread submits, which wakes
 * an idle thread, made userspace timer_lateness, against the raw re-armed
 * io_uring timeout, somewhat later than with the batch deferred; before
 * the watcher, a helper woken for every batch of two or more, with the
 * device armed for every event, made its tail far longer
 * (Documentation/benchmarks.rst).
 */
static void exec_timer_hand_over_to(struct exec_timer_base *base,
				    struct exec_executor *self, bool leave,
				    u64 now)
{
	struct exec_work *list, *next, *left = NULL, **left_tail = &left;
	struct exec_work **tail;
	unsigned int defer, walked = 0;
	bool deferred = false, rest = false;
	unsigned long flags;
	struct exec_timer *t;

	raw_spin_lock_irqsave(&base->lock, flags);
	if (base->handing) {
		exec_timer_unlock(base, flags);
		return;
	}
	base->handing = true;
	preempt_disable();
	while (!rest && (list = base->due)) {
		WRITE_ONCE(base->due, NULL);
		/* The list's last link, should its rest be left. */
		tail = base->due_tail;
		base->due_tail = &base->due;
		base->left_by = EXEC_TIME_NEVER;
		exec_timer_unlock(base, flags);
		for (; list; list = next) {
			next = READ_ONCE(list->next);
			t = exec_work_timer(list);
			defer = 0;
			if (self && exec_flags_target(READ_ONCE(t->work.flags))->ex ==
				    self) {
				if (deferred && leave &&
				    ++walked > EXEC_TIMER_LEAVE_WALK) {
					/* This one on, unwalked. */
					*left_tail = list;
					left_tail = tail;
					rest = true;
					break;
				}
				if (deferred && leave) {
					/* For the caller's next pass. */
					list->next = NULL;
					*left_tail = list;
					left_tail = &list->next;
					continue;
				}
				defer = deferred ? 0 : EXEC_SUBMIT_DEFER;
				deferred = true;
			}
			exec_timer_submit_due(t, defer);
		}
		raw_spin_lock_irqsave(&base->lock, flags);
	}
	if (left)
		exec_timer_leave_due(base, left, left_tail, now);
	base->handing = false;
	exec_timer_unlock(base, flags);
	preempt_enable();
}

static void exec_timer_hand_over(struct exec_timer_base *base)
{
	exec_timer_hand_over_to(base, NULL, false, 0);
}

/* The last tick whose items are all due at @now. */
static bool exec_timer_limit(u64 now, u64 *limit)
{
	u64 tick = exec_ns_to_tick(now);

	if (!tick)
		return false;
	*limit = tick - 1;
	return true;
}

/*
 * Files @t (state IDLE, its flags naming its target) for @deadline on
 * @clock, or queues it as due when that has passed: then returns true, and
 * the caller calls exec_timer_hand_over() once it has dropped the lock.
 */
static bool exec_timer_enqueue(struct exec_timer_base *base,
			       struct exec_timer *t, enum exec_clock clock,
			       u64 deadline)
{
	struct exec_timer_target *target =
		exec_flags_target(READ_ONCE(t->work.flags));
	struct exec_wheel *wh = &base->wheel[clock];
	u64 tick = exec_ns_to_tick(deadline), now = 0, limit;

	lockdep_assert_held(&base->lock);
	WRITE_ONCE(t->expires, deadline);
	exec_target_armed_inc(target);
	exec_trace_timer_arm(target->ex, &t->work, clock, deadline);
	if (clock == EXEC_CLOCK_REALTIME) {
		/* The realtime clock may have gone back since @clk was set. */
		if (deadline <= exec_timer_now(clock, &now)) {
			exec_timer_due(base, t);
			return true;
		}
		if (tick <= wh->clk && exec_timer_limit(now, &limit) &&
		    limit < wh->clk)
			exec_wheel_rebase(wh, limit);
	}
	if (tick <= wh->clk) {
		/* Monotonic: @clk only counts ticks that have passed. */
		exec_timer_due(base, t);
		return true;
	}
	tick = exec_wheel_add(wh, t, tick);
	if (exec_tick_wake_ns(tick) < base->programmed[clock])
		exec_timer_program_at(base, clock, exec_tick_wake_ns(tick), 0,
				      &now);
	return false;
}

/*
 * Moves what is due on each clock to the due list and asks for the next
 * event (@flags as exec_timer_program_at() takes them).  @now caches the
 * time per clock (exec_timer_now()): the caller's look before it took the
 * lock (exec_timer_late()) serves the pass too.  An item that came due
 * between that read and the pass is the next event, in the past, which
 * the watcher's park or the device takes at once.  Such a time may be
 * behind a pass made meanwhile: on the monotonic clock that pass took
 * everything due by then; the realtime clock, which may really go back
 * (exec_wheel_rebase()), is read again here.  Returns whether anything
 * is due.
 */
static bool exec_timer_advance(struct exec_timer_base *base,
			       unsigned int flags, u64 *now)
{
	struct exec_wheel *wh;
	unsigned int clock;
	u64 limit;

	lockdep_assert_held(&base->lock);
	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		/*
		 * Nothing armed on this clock (its wheel is empty) and no
		 * device to disarm: nothing to expire, program or sync, and
		 * no clock to read, whatever @flags say (the watcher's
		 * backstop is for items armed).  Its @clk stays behind; an
		 * item armed later is filed from there, as after any idle
		 * spell.
		 */
		if (base->programmed[clock] == EXEC_TIME_NEVER &&
		    base->device[clock] == EXEC_TIME_NEVER)
			continue;
		wh = &base->wheel[clock];
		if (clock == EXEC_CLOCK_REALTIME)
			now[clock] = 0;
		if (!exec_timer_limit(exec_timer_now(clock, &now[clock]),
				      &limit)) {
			/* The epoch's first tick: nothing due yet. */
		} else if (limit >= wh->clk) {
			exec_wheel_advance(base, wh, limit);
		} else if (clock == EXEC_CLOCK_REALTIME) {
			exec_wheel_rebase(wh, limit);
			exec_wheel_advance(base, wh, limit);
		}
		/* Also for an unchanged time, after the device fired. */
		if (!exec_timer_program(base, clock, flags, &now[clock]))
			exec_timer_sync_device(base, clock,
					       flags & EXEC_TIMER_BACKSTOP,
					       &now[clock]);
	}
	return base->due;
}

/*
 * Whether the next event on some clock is @slack or more in the past.  A
 * look without the lock, for a watcher and for the clock event handler.
 * @now caches the time per clock (exec_timer_now()), for the pass that
 * follows the look: a clock with nothing programmed is not read.
 */
static bool exec_timer_late(struct exec_timer_base *base, u64 slack,
			    u64 *now)
{
	unsigned int clock;
	u64 when;

	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		when = READ_ONCE(base->programmed[clock]);
		if (when != EXEC_TIME_NEVER &&
		    when + slack <= exec_timer_now(clock, &now[clock]))
			return true;
	}
	return false;
}

/*
 * Passes over the base that one call of the clock event's handler makes at
 * most while the next event comes due during the hand-over.  The handler
 * arms the device for the next event before it hands the due items over;
 * if that time has passed by when it returns, the kernel's hrtimer
 * interrupt finds its next expiry in the past, runs the expired timers
 * again, and after its third such retry takes the interrupt for a hang:
 * it programs the next event as far ahead as the interrupt has lasted (up
 * to 100 ms), and every timer of that CPU waits.  Under QEMU's TCG, where
 * a pass with its wake-ups took not much less than the gap between
 * timer_lateness's deadlines, the handler went uncalled for long runs
 * (Documentation/benchmarks.rst).  Taking what came due in the same call
 * keeps the device's next time in the future when the handler returns;
 * the bound keeps one call from holding the CPU while deadlines keep
 * coming.
 */
#define EXEC_TIMER_EXPIRE_PASSES	4

/*
 * The clock event's handler; hard interrupt context in the kernel.  While
 * a thread watches and keeps up, the device leaves the items to it and
 * only arms itself again, as the backstop for the watcher's next event;
 * otherwise it takes what is due, and again while the next event has come
 * meanwhile (EXEC_TIMER_EXPIRE_PASSES).
 */
static void exec_timer_expire(struct exec_clockev *ce)
{
	struct exec_timer_base *base =
		container_of(ce, struct exec_timer_base, clockev);
	u64 now[EXEC_CLOCK_COUNT] = { 0 };
	unsigned int clock, pass;
	unsigned long flags;
	bool due;

	/*
	 * A watcher keeps up: nothing is late by the lower end of the
	 * backstop's window, which the device was armed at or after, and it
	 * has taken every item it left on the due list for its next passes
	 * (exec_timer_leave_due()).
	 */
	if (READ_ONCE(base->watcher) && !READ_ONCE(base->due) &&
	    !exec_timer_late(base, EXEC_TIMER_BACKSTOP_NS / 2, now)) {
		raw_spin_lock_irqsave(&base->lock, flags);
		/* Exact again if the watcher has left meanwhile. */
		for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++)
			exec_timer_sync_device(base, clock, false, &now[clock]);
		exec_timer_unlock(base, flags);
		return;
	}
	for (pass = 0; pass < EXEC_TIMER_EXPIRE_PASSES; pass++) {
		raw_spin_lock_irqsave(&base->lock, flags);
		due = exec_timer_advance(base, 0, now);
		exec_timer_unlock(base, flags);
		if (!due)
			break;
		exec_timer_hand_over(base);
		/* The device is armed for the next event: is it past? */
		memset(now, 0, sizeof(now));
		if (!exec_timer_late(base, 0, now))
			break;
	}
	/*
	 * After the hand-over: the due items do not wait for it.  Not in
	 * hard interrupt context (the kernel's hrtimer), where the steps
	 * would hold up the next event: there the owner's idle threads take
	 * them (exec_timers_watch()).
	 */
	if (exec_clockev_is_thread()) {
		memset(now, 0, sizeof(now));
		exec_timer_cascade_early(base, now);
	}
}

static int exec_timer_check(struct exec_executor *ex, struct exec_timer *t,
			    enum exec_clock clock)
{
	if (unlikely(!ex || !ex->ops || !t || !t->work.func))
		return -EINVAL;
	if (unlikely(!(READ_ONCE(t->work.flags) & EXEC_WORK_TIMER)))
		return -EINVAL;
	if (unlikely((unsigned int)clock >= EXEC_CLOCK_COUNT))
		return -EINVAL;
	return 0;
}

/*
 * Moves a pending item of @target's base to @deadline.  Returns 1; 0 if a
 * cancel had taken it back after it came due (its executor still holds it,
 * but that arm has ended: this is a new one); -EBUSY if it is pending
 * otherwise (a plain submission, another base); or -EAGAIN if it is
 * starting (exec_timer_start_fired()): look again.
 */
static int exec_timer_move(struct exec_timer_target *target,
			   struct exec_timer *t, enum exec_clock clock,
			   u64 deadline)
{
	struct exec_timer_base *base = target->base;
	unsigned long flags, wflags;
	struct exec_work **link;
	bool due = false, moved = false;
	int ret = 1;

	raw_spin_lock_irqsave(&base->lock, flags);
	wflags = READ_ONCE(t->work.flags);
	/* @link is guarded by the lock of the base the item is pending on. */
	link = (wflags & EXEC_WORK_PENDING) &&
	       exec_flags_target(wflags) == target ? READ_ONCE(t->link) :
						     EXEC_TIMER_IDLE;
	if (!(wflags & EXEC_WORK_PENDING) ||
	    exec_flags_target(wflags) != target) {
		ret = -EBUSY;
	} else if (exec_timer_linked(link)) {
		exec_wheel_del(base->wheel, EXEC_CLOCK_COUNT, t);
		exec_target_disarmed(target);
		due = exec_timer_enqueue(base, t, clock, deadline);
		/* The enqueue took a unit of work: release the old one. */
		moved = true;
	} else if (link == EXEC_TIMER_STARTING ||
		   cmpxchg(&t->link, link, clock == EXEC_CLOCK_REALTIME ?
					   EXEC_TIMER_MOVED_REAL :
					   EXEC_TIMER_MOVED_MONO) != link) {
		ret = -EAGAIN;
	} else {
		/* Cancelled: the caller counts this as a new arm. */
		if (link == EXEC_TIMER_CANCELLED)
			ret = 0;
		/*
		 * Dequeued later by the executor, then filed again: read
		 * under the lock, as MOVED takes the locked way.
		 */
		WRITE_ONCE(t->expires, deadline);
	}
	exec_timer_unlock(base, flags);
	if (moved)
		exec_target_work_finished(target);
	if (due)
		exec_timer_hand_over(base);
	return ret;
}

/*
 * Claims an idle item for @target and files it.  Returns 1 if it is due at
 * once (the caller then calls exec_timer_hand_over()), 0 if it is armed,
 * -EALREADY if the item is pending, -ESHUTDOWN.
 */
static int __exec_timer_arm(struct exec_timer_target *target,
			    struct exec_timer *t, enum exec_clock clock,
			    u64 deadline)
{
	struct exec_timer_base *base = target->base;
	unsigned long flags, old;
	bool due;

	old = READ_ONCE(t->work.flags);
	do {
		if (old & EXEC_WORK_PENDING)
			return -EALREADY;
	} while (!try_cmpxchg(&t->work.flags, &old,
			      (old & EXEC_WORK_FLAG_MASK) | EXEC_WORK_PENDING |
				      (unsigned long)target));

	raw_spin_lock_irqsave(&base->lock, flags);
	/*
	 * A cancel that saw the item claimed, before it was filed, took it
	 * back (CANCELLED) and returned 1: that ends this arm.  So does the
	 * discard below; never both.
	 */
	if (unlikely(t->link == EXEC_TIMER_CANCELLED)) {
		t->link = EXEC_TIMER_IDLE;
		exec_timer_release(t);
		exec_timer_unlock(base, flags);
		exec_timer_wake_sync(t);
		return 0;
	}
	if (unlikely(target->dead || base->dead)) {
		exec_timer_unlock(base, flags);
		exec_timer_release(t);
		return -ESHUTDOWN;
	}
	t->link = EXEC_TIMER_IDLE;
	due = exec_timer_enqueue(base, t, clock, deadline);
	exec_timer_unlock(base, flags);
	return due;
}

static int exec_timer_arm(struct exec_executor *ex, struct exec_timer *t,
			  enum exec_clock clock, u64 deadline, bool mod)
{
	struct exec_timer_target *target;
	unsigned int spins = 0;
	unsigned long wflags;
	int ret;

	ret = exec_timer_check(ex, t, clock);
	if (ret)
		return ret;
	ret = exec_timers_make(ex, &target);
	if (unlikely(ret))
		return ret;
	ret = exec_clockev_start(&target->base->clockev);
	if (unlikely(ret))
		return ret;
	for (;;) {
		ret = __exec_timer_arm(target, t, clock, deadline);
		if (ret != -EALREADY || !mod)
			break;
		ret = exec_timer_move(target, t, clock, deadline);
		if (ret == -EAGAIN) {
			exec_backoff_any_context(&spins);
			continue;
		}
		if (ret != -EBUSY)
			return ret;
		/* Pending otherwise, unless it has just started: then arm. */
		wflags = READ_ONCE(t->work.flags);
		if (wflags & EXEC_WORK_PENDING)
			return -EBUSY;
	}
	if (ret == 1) {
		exec_timer_hand_over(target->base);
		ret = 0;
	}
	return ret;
}

int exec_submit_at_slack(struct exec_executor *ex, struct exec_timer *timer,
			 enum exec_clock clock, uint64_t deadline,
			 uint64_t slack)
{
	return exec_timer_arm(ex, timer, clock,
			      exec_timer_apply_slack(deadline, slack), false);
}
EXPORT_SYMBOL_GPL(exec_submit_at_slack);

int exec_submit_at(struct exec_executor *ex, struct exec_timer *timer,
		   enum exec_clock clock, uint64_t deadline)
{
	return exec_timer_arm(ex, timer, clock, deadline, false);
}
EXPORT_SYMBOL_GPL(exec_submit_at);

int exec_submit_after(struct exec_executor *ex, struct exec_timer *timer,
		      uint64_t delay)
{
	u64 now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	u64 deadline = now + delay;

	if (deadline < now)
		deadline = EXEC_TIME_NEVER;
	return exec_timer_arm(ex, timer, EXEC_CLOCK_MONOTONIC, deadline, false);
}
EXPORT_SYMBOL_GPL(exec_submit_after);

int exec_timer_mod(struct exec_executor *ex, struct exec_timer *timer,
		   enum exec_clock clock, uint64_t deadline)
{
	return exec_timer_arm(ex, timer, clock, deadline, true);
}
EXPORT_SYMBOL_GPL(exec_timer_mod);

void exec_timer_init(struct exec_timer *timer, exec_work_fn func,
		     exec_work_fn discard)
{
	exec_work_init_discard(&timer->work, func, discard);
	timer->work.flags = EXEC_WORK_TIMER;
	timer->link = EXEC_TIMER_IDLE;
	timer->expires = 0;
}
EXPORT_SYMBOL_GPL(exec_timer_init);

void exec_periodic_init(struct exec_periodic *periodic, exec_work_fn func,
			exec_work_fn discard)
{
	exec_timer_init(&periodic->timer, func, discard);
	periodic->timer.work.flags |= EXEC_WORK_PERIODIC;
	periodic->period = 0;
	periodic->slack = 0;
	periodic->mode = EXEC_PERIOD_FIXED_RATE;
	periodic->clock = EXEC_CLOCK_MONOTONIC;
	periodic->overruns = 0;
}
EXPORT_SYMBOL_GPL(exec_periodic_init);

int exec_submit_periodic(struct exec_executor *ex,
			 struct exec_periodic *periodic, enum exec_clock clock,
			 uint64_t first, uint64_t period, uint64_t slack,
			 enum exec_period_mode mode)
{
	if (!periodic || !period || (unsigned int)mode > EXEC_PERIOD_FIXED_DELAY ||
	    !(READ_ONCE(periodic->timer.work.flags) & EXEC_WORK_PERIODIC))
		return -EINVAL;
	if (exec_work_pending(&periodic->timer.work))
		return -EALREADY;
	periodic->period = period;
	periodic->slack = slack;
	periodic->mode = mode;
	periodic->clock = clock;
	periodic->overruns = 0;
	return exec_timer_arm(ex, &periodic->timer, clock,
			      exec_timer_apply_slack(first, slack), false);
}
EXPORT_SYMBOL_GPL(exec_submit_periodic);

/*
 * Takes an item pending on a base back.  Returns 1 if a start was prevented;
 * 0 if it is not pending on a base; -EALREADY if it was taken back already;
 * -EAGAIN if it changed while we looked.
 */
/*
 * Locks the base of @t, a timed item pending on one, as its flags were
 * when looked at: returns 1 with the lock held (*@target and *@wflags
 * set, *@flags for the unlock), 0 if @t is not pending on a base, and
 * -EAGAIN if it started or was re-armed elsewhere meanwhile.
 */
static int exec_timer_lock_pending(struct exec_timer *t,
				   struct exec_timer_target **target,
				   unsigned long *wflags, unsigned long *flags)
{
	*wflags = READ_ONCE(t->work.flags);
	*target = exec_flags_target(*wflags);
	if (!(*wflags & EXEC_WORK_PENDING) || !*target)
		return 0;
	raw_spin_lock_irqsave(&(*target)->base->lock, *flags);
	if (READ_ONCE(t->work.flags) == *wflags)
		return 1;
	raw_spin_unlock_irqrestore(&(*target)->base->lock, *flags);
	return -EAGAIN;
}

static int exec_timer_cancel_pending(struct exec_timer *t)
{
	struct exec_timer_target *target;
	struct exec_timer_base *base;
	struct exec_work **link;
	unsigned long flags, wflags;
	int ret;

	ret = exec_timer_lock_pending(t, &target, &wflags, &flags);
	if (ret <= 0)
		return ret;
	base = target->base;
	ret = -EALREADY;
	link = READ_ONCE(t->link);
	if (exec_timer_linked(link)) {
		exec_wheel_del(base->wheel, EXEC_CLOCK_COUNT, t);
		t->link = EXEC_TIMER_IDLE;
		exec_target_disarmed(target);
		exec_timer_release(t);
		ret = 2;
	} else if (link == EXEC_TIMER_STARTING ||
		   (link != EXEC_TIMER_CANCELLED &&
		    cmpxchg(&t->link, link, EXEC_TIMER_CANCELLED) != link)) {
		/* Starting (exec_timer_start_fired()): look again. */
		exec_timer_unlock(base, flags);
		return -EAGAIN;
	} else if (link != EXEC_TIMER_CANCELLED) {
		ret = 1;
	}
	if (ret > 0)
		exec_stats_inc(&target->nr_cancelled);
	exec_timer_unlock(base, flags);
	if (ret > 0)
		exec_trace_timer_cancel(target->ex, &t->work);
	if (ret == 2) {
		/* Taken out of the wheel: its unit of work goes with it. */
		exec_target_work_finished(target);
		ret = 1;
	}
	return ret;
}

/* Marks a running periodic item not to be re-armed; 1 if one was marked. */
static int exec_timer_cancel_running(struct exec_timer *t)
{
	struct exec_timer_bucket *b = exec_timer_bucket(t);
	struct exec_timer_running *r;
	unsigned long flags;
	int ret = 0;

	if (!(READ_ONCE(t->work.flags) & EXEC_WORK_PERIODIC))
		return 0;
	raw_spin_lock_irqsave(&b->lock, flags);
	for (r = b->running; r; r = r->next) {
		if (r->timer == t && !r->cancelled) {
			r->cancelled = true;
			ret = 1;
		}
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

int exec_timer_cancel(struct exec_timer *timer)
{
	unsigned int spins = 0;
	unsigned long wflags;
	int ret;

	if (!timer || !(READ_ONCE(timer->work.flags) & EXEC_WORK_TIMER))
		return -EINVAL;
	for (;;) {
		ret = exec_timer_cancel_pending(timer);
		if (ret == -EAGAIN) {
			exec_backoff_any_context(&spins);
			continue;
		}
		if (ret == -EALREADY)
			return 0;
		if (ret)
			return ret;
		if (exec_timer_cancel_running(timer))
			return 1;
		/*
		 * A periodic item may have been re-armed between the two
		 * looks: it is idle only if it is not pending on a base now.
		 */
		wflags = READ_ONCE(timer->work.flags);
		if (!(wflags & EXEC_WORK_PENDING) || !exec_flags_target(wflags))
			return 0;
	}
}
EXPORT_SYMBOL_GPL(exec_timer_cancel);

static bool exec_timer_idle(struct exec_timer *t)
{
	struct exec_timer_bucket *b = exec_timer_bucket(t);
	struct exec_timer_running *r;
	unsigned long flags;
	bool idle;

	raw_spin_lock_irqsave(&b->lock, flags);
	idle = !exec_work_pending(&t->work);
	for (r = b->running; r && idle; r = r->next)
		idle = r->timer != t;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return idle;
}

/*
 * Tells lockdep that the caller waits for @t's run on its executor, if it
 * is armed: the order is recorded at every cancel_sync of an armed item,
 * whether or not the item runs just then.  The target is read as
 * exec_timer_cancel_pending() reads it: a pending item keeps it.  An item
 * that is not pending has nothing for lockdep to record but a run under
 * way, whose executor the item no longer names.
 */
static void exec_timer_lockdep_wait(struct exec_timer *t)
{
	unsigned long wflags = READ_ONCE(t->work.flags);
	struct exec_timer_target *target = exec_flags_target(wflags);

	if ((wflags & EXEC_WORK_PENDING) && target)
		exec_executor_lockdep_wait(target->ex);
}

int exec_timer_cancel_sync(struct exec_timer *timer)
{
	int ret;

	might_sleep();
	if (EXEC_HAVE_LOCKDEP && timer &&
	    (READ_ONCE(timer->work.flags) & EXEC_WORK_TIMER))
		exec_timer_lockdep_wait(timer);
	ret = exec_timer_cancel(timer);
	if (ret < 0)
		return ret;
	if (exec_frame_find(timer))
		return -EDEADLK;
	wait_event(exec_timer_bucket(timer)->wq, exec_timer_idle(timer));
	return ret;
}
EXPORT_SYMBOL_GPL(exec_timer_cancel_sync);

/*
 * Makes @t, if it is armed, due now on the executor it is armed on, as
 * flush_delayed_work() queues a delayed work whose timer it deleted.
 * An item a mod moved after it came due runs when its executor dequeues
 * it.  Returns 1 if the item was made due or is due already; 0 if it is
 * not pending on a base, or a cancel took it back; -ESHUTDOWN if its
 * executor's timed work was shut down and is discarding it; -EAGAIN if it
 * changed or is starting while we looked.
 */
static int exec_timer_flush_pending(struct exec_timer *t)
{
	struct exec_periodic *periodic =
		container_of(t, struct exec_periodic, timer);
	struct exec_timer_target *target;
	struct exec_timer_base *base;
	struct exec_work **link;
	unsigned long flags, wflags;
	bool due = false;
	int ret;

	ret = exec_timer_lock_pending(t, &target, &wflags, &flags);
	if (ret <= 0)
		return ret;
	base = target->base;
	link = READ_ONCE(t->link);
	if (link == EXEC_TIMER_CANCELLED) {
		ret = 0;
	} else if (link == EXEC_TIMER_IDLE || link == EXEC_TIMER_STARTING) {
		/*
		 * Starting, or claimed by an arm that has not filed it yet
		 * (the link is the last run's): look again.  Idle and dead:
		 * collected by a shutdown, which discards it.
		 */
		ret = link == EXEC_TIMER_IDLE && (target->dead || base->dead) ?
		      -ESHUTDOWN : -EAGAIN;
	} else if (link != EXEC_TIMER_FIRED) {
		/* A periodic item's next period counts from this run. */
		if (wflags & EXEC_WORK_PERIODIC)
			WRITE_ONCE(t->expires, exec_clock_now(periodic->clock));
		if (exec_timer_linked(link)) {
			/*
			 * Out of the wheel onto the due list: its arm's unit
			 * of work goes with the hand-over.
			 */
			exec_wheel_del(base->wheel, EXEC_CLOCK_COUNT, t);
			exec_timer_due(base, t);
			due = true;
		} else if (cmpxchg(&t->link, link, EXEC_TIMER_FIRED) != link) {
			/*
			 * Moved after it came due: its executor, which still
			 * holds it, now runs it instead of filing it again.
			 * The exchange meets exec_timer_start_fired()'s.
			 */
			ret = -EAGAIN;
		}
	}
	exec_timer_unlock(base, flags);
	if (due)
		exec_timer_hand_over(base);
	return ret;
}

/*
 * Whether a flush of @t has nothing left to wait for: @t does not run (no
 * record: a run, a discard, or a start that decides not to run) and is not
 * due to run (pending as a plain submission, or FIRED).  An item armed in
 * a wheel, moved, or taken back by a cancel is flushed.  STARTING is not
 * looked at: a start holds the bucket lock, with its record on, from
 * FIRED until the item is released; a STARTING link seen here is a past
 * run's, of an item an arm has claimed and not yet filed.  The link is
 * read under the base's lock, which the wheel's writes of it hold; an item
 * that has left that base since the flags were read is a new arm, or no
 * longer pending.
 */
static bool exec_timer_flushed(struct exec_timer *t)
{
	struct exec_timer_bucket *b = exec_timer_bucket(t);
	struct exec_timer_target *target;
	struct exec_timer_running *r;
	unsigned long flags, bflags, wflags;
	bool done = true;

	raw_spin_lock_irqsave(&b->lock, bflags);
	for (r = b->running; r && done; r = r->next)
		done = r->timer != t;
	wflags = READ_ONCE(t->work.flags);
	target = exec_flags_target(wflags);
	if (done && (wflags & EXEC_WORK_PENDING) && !target) {
		done = false;
	} else if (done && (wflags & EXEC_WORK_PENDING)) {
		raw_spin_lock_irqsave(&target->base->lock, flags);
		done = READ_ONCE(t->work.flags) != wflags ||
		       t->link != EXEC_TIMER_FIRED;
		raw_spin_unlock_irqrestore(&target->base->lock, flags);
	}
	raw_spin_unlock_irqrestore(&b->lock, bflags);
	return done;
}

int exec_timer_flush(struct exec_timer *timer)
{
	struct exec_timer_target *target;
	struct exec_timer_bucket *b;
	unsigned long wflags;
	unsigned int spins = 0;
	int ret;

	might_sleep();
	if (!timer || !(READ_ONCE(timer->work.flags) & EXEC_WORK_TIMER))
		return -EINVAL;
	if (exec_frame_find(timer))
		return -EDEADLK;
	/*
	 * An item pending on the caller's own executor is refused, as
	 * exec_work_flush() refuses it: a serial executor or a loop cannot
	 * start it while the caller runs, nor a pool whose every worker
	 * waits.  The target is read as exec_timer_lockdep_wait() reads it.
	 */
	wflags = READ_ONCE(timer->work.flags);
	target = exec_flags_target(wflags);
	if ((wflags & EXEC_WORK_PENDING) && target &&
	    exec_running_in_this_thread(target->ex))
		return -EDEADLK;
	if (EXEC_HAVE_LOCKDEP)
		exec_timer_lockdep_wait(timer);
	while ((ret = exec_timer_flush_pending(timer)) == -EAGAIN)
		exec_backoff_any_context(&spins);
	if (ret < 0)
		return ret;
	b = exec_timer_bucket(timer);
	if (!exec_timer_flushed(timer)) {
		ret = 1;
		wait_event(b->wq, exec_timer_flushed(timer));
	}
	return ret;
}
EXPORT_SYMBOL_GPL(exec_timer_flush);

static void exec_timer_wake_sync(struct exec_timer *t)
{
	struct exec_timer_bucket *b = exec_timer_bucket(t);

	/* Full barrier, then the test: pairs with wait_event()'s. */
	smp_mb();
	if (wq_has_sleeper(&b->wq))
		wake_up_all(&b->wq);
}

/* Takes @rec, a running item's record, off its bucket @b. */
static void exec_timer_unrecord(struct exec_timer_bucket *b,
				struct exec_timer_running *rec)
{
	struct exec_timer_running **pp;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	for (pp = &b->running; *pp != rec; pp = &(*pp)->next)
		;
	*pp = rec->next;
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/*
 * Ends the timer state of @t, pending and not to run (under the lock of
 * @base, its base, if it has one), then calls its discard callback unless
 * a cancel took it back first.  As in exec_timer_run(), the item is
 * recorded as running before it stops being pending and until the
 * callback has returned, so that exec_timer_cancel_sync() waits for the
 * callback as it waits for the function: the callback may use the item,
 * which the caller of cancel_sync may free once it returns.  Returns false
 * if a cancel had taken the item back.
 */
static bool exec_timer_end_discarded(struct exec_timer *t,
				     struct exec_timer_base *base)
{
	struct exec_timer_bucket *b = exec_timer_bucket(t);
	struct exec_timer_running rec = { .timer = t, .cancelled = true };
	struct exec_work **link = EXEC_TIMER_IDLE;
	exec_work_fn discard = t->work.discard;
	unsigned long flags, bflags;

	raw_spin_lock_irqsave(&b->lock, bflags);
	rec.next = b->running;
	b->running = &rec;
	if (base) {
		raw_spin_lock_irqsave(&base->lock, flags);
		link = t->link;
		t->link = EXEC_TIMER_IDLE;
		exec_timer_release(t);
		raw_spin_unlock_irqrestore(&base->lock, flags);
	} else {
		test_and_clear_bit(EXEC_WORK_PENDING_BIT, &t->work.flags);
	}
	raw_spin_unlock_irqrestore(&b->lock, bflags);
	if (link != EXEC_TIMER_CANCELLED && discard) {
		exec_frame_push(&rec.frame, t);
		discard(&t->work);
		exec_frame_pop(&rec.frame);
	}
	exec_timer_unrecord(b, &rec);
	exec_timer_wake_sync(t);
	return link != EXEC_TIMER_CANCELLED;
}

/**
 * exec_timer_discard - hand a timed item that will not run back to its owner
 * @work: the item, pending
 *
 * For exec_work_discard(): ends the item's timer state, then calls its
 * discard callback, unless a cancel already took the item back.  Returns
 * false in that case: the item was not discarded.
 *
 * Context: Any context the discard callback allows; no base lock held.
 */
bool exec_timer_discard(struct exec_work *work)
{
	struct exec_timer_target *target;

	target = exec_flags_target(READ_ONCE(work->flags));
	return exec_timer_end_discarded(exec_work_timer(work),
					target ? target->base : NULL);
}

/*
 * Arms a periodic item for its next period, after a run.  Returns as
 * __exec_timer_arm(): 1 if it is due at once, -ESHUTDOWN if its executor is
 * going away.
 */
static int exec_periodic_rearm(struct exec_timer_target *target,
			       struct exec_periodic *p)
{
	u64 next, now = exec_clock_now(p->clock);

	p->overruns = 0;
	if (p->mode == EXEC_PERIOD_FIXED_DELAY) {
		next = now + p->period;
	} else {
		/* The first deadline not yet passed: skip, do not burst. */
		next = p->timer.expires + p->period;
		if (next <= now) {
			p->overruns = (now - next) / p->period + 1;
			next += p->overruns * p->period;
		}
	}
	if (next < now)
		next = EXEC_TIME_NEVER;
	return __exec_timer_arm(target, &p->timer, p->clock,
				exec_timer_apply_slack(next, p->slack));
}

/*
 * Starts @t if it is FIRED, without the base's lock: STARTING, then no
 * longer pending.  Returns false if it is not FIRED (a cancel or a mod
 * came first: exec_timer_run_unlink() takes the lock).
 *
 * The exchange orders the item's state before a cancel's or mod's look,
 * which finds it STARTING while it is pending and waits for the release.
 */
static bool exec_timer_start_fired(struct exec_timer *t)
{
	if (cmpxchg(&t->link, EXEC_TIMER_FIRED, EXEC_TIMER_STARTING) !=
	    EXEC_TIMER_FIRED)
		return false;
	exec_timer_release(t);
	return true;
}

/*
 * For exec_timer_run(): @t, dequeued by the executor of @target, leaves
 * its base (under the base's lock; the caller holds @t's bucket lock, with
 * @rec on it).  Returns @t's link.  A moved item is filed again, *@due set
 * as by exec_timer_enqueue(), or to -ESHUTDOWN if it can be filed nowhere;
 * one not fired is marked in @rec not to run now.
 */
static struct exec_work **exec_timer_run_unlink(struct exec_timer *t,
						struct exec_timer_target *target,
						struct exec_timer_running *rec,
						int *due)
{
	struct exec_timer_base *base = target->base;
	struct exec_work **link;
	unsigned long flags;

	if (exec_timer_start_fired(t))
		return EXEC_TIMER_FIRED;
	raw_spin_lock_irqsave(&base->lock, flags);
	link = t->link;
	t->link = EXEC_TIMER_IDLE;
	if ((link == EXEC_TIMER_MOVED_MONO ||
	     link == EXEC_TIMER_MOVED_REAL) &&
	    unlikely(target->dead || base->dead)) {
		/*
		 * Moved, then dequeued after its executor's timed work was
		 * shut down: it can be filed nowhere, and is discarded, as
		 * the arm of a shut-down executor is refused.
		 */
		exec_timer_release(t);
		*due = -ESHUTDOWN;
	} else if (link == EXEC_TIMER_MOVED_MONO ||
		   link == EXEC_TIMER_MOVED_REAL) {
		*due = exec_timer_enqueue(base, t,
					  link == EXEC_TIMER_MOVED_REAL ?
					  EXEC_CLOCK_REALTIME :
					  EXEC_CLOCK_MONOTONIC,
					  t->expires);
	} else {
		exec_timer_release(t);
	}
	/* Cancelled, or moved (and maybe due again): no run now. */
	if (link != EXEC_TIMER_FIRED)
		rec->cancelled = true;
	exec_timer_unlock(base, flags);
	return link;
}

/*
 * Under @b's lock: whether @t's function runs on another thread now; if so
 * its run is told to start @t again when it returns, and the caller leaves
 * @t, still pending, to it.  A run of @t that the calling thread is inside
 * does not count: it would wait for itself.
 */
static bool exec_timer_leave_to_runner(struct exec_timer_bucket *b,
				       struct exec_timer *t)
{
	struct exec_timer_running *r;

	for (r = b->running; r; r = r->next) {
		if (r->timer != t || !r->in_fn)
			continue;
		if (exec_frame_find(t))
			return false;
		r->rerun = true;
		return true;
	}
	return false;
}

/*
 * One start of @work (exec_timer_run()).  Returns true if it came due
 * again while its function ran, and was left to this run to start again.
 */
static bool exec_timer_run_once(struct exec_work *work)
{
	struct exec_timer *t = exec_work_timer(work);
	struct exec_timer_bucket *b = exec_timer_bucket(t);
	struct exec_timer_running rec = { .timer = t };
	struct exec_work **link = EXEC_TIMER_IDLE;
	struct exec_timer_target *target;
	struct exec_timer_running **pp;
	unsigned long flags, bflags, wflags;
	int due = 0;

	/*
	 * Known as running before it stops being pending: no idle gap.  The
	 * bucket lock is held until then, so that a cancel finds the item
	 * either pending or with its record telling whether it runs.
	 */
	raw_spin_lock_irqsave(&b->lock, bflags);
	if (exec_timer_leave_to_runner(b, t)) {
		raw_spin_unlock_irqrestore(&b->lock, bflags);
		return false;
	}
	rec.next = b->running;
	b->running = &rec;

	wflags = READ_ONCE(work->flags);
	target = exec_flags_target(wflags);
	if (target) {
		link = exec_timer_run_unlink(t, target, &rec, &due);
		rec.in_fn = link == EXEC_TIMER_FIRED;
		raw_spin_unlock_irqrestore(&b->lock, bflags);
		if (!rec.in_fn)
			goto unregister;
	} else {
		rec.in_fn = true;
		raw_spin_unlock_irqrestore(&b->lock, bflags);
		test_and_clear_bit(EXEC_WORK_PENDING_BIT, &work->flags);
	}

	exec_frame_push(&rec.frame, t);
	work->func(work);
	exec_frame_pop(&rec.frame);

unregister:
	raw_spin_lock_irqsave(&b->lock, flags);
	/*
	 * The re-arm happens before the record goes, under its bucket lock,
	 * so a cancel sees the item either running (and marks it) or armed.
	 * An item due again meanwhile is pending: its next start re-arms it.
	 */
	if (target && !rec.cancelled && !rec.rerun &&
	    (wflags & EXEC_WORK_PERIODIC) && link == EXEC_TIMER_FIRED)
		due = exec_periodic_rearm(target,
					  container_of(t, struct exec_periodic,
						       timer));
	if (unlikely(due == -ESHUTDOWN) && work->discard) {
		/*
		 * Discarded: its callback runs while the record is still
		 * there, so that a cancel_sync waits for it too, marked so
		 * that no cancel takes back what the discard ends.
		 */
		rec.cancelled = true;
		raw_spin_unlock_irqrestore(&b->lock, flags);
		exec_frame_push(&rec.frame, t);
		work->discard(work);
		exec_frame_pop(&rec.frame);
		raw_spin_lock_irqsave(&b->lock, flags);
	}
	for (pp = &b->running; *pp != &rec; pp = &(*pp)->next)
		;
	*pp = rec.next;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	if (due == 1)
		exec_timer_hand_over(target->base);
	exec_timer_wake_sync(t);
	return rec.rerun;
}

/**
 * exec_timer_run - start a timed item (exec_work_run() on a timer)
 * @work: the item, just dequeued by its executor
 *
 * An item that comes due while its function runs, and that another thread
 * of the executor dequeues, starts again on this thread once the function
 * has returned, not beside it (exec_timer_leave_to_runner()).
 *
 * Context: The executor's thread, as for any work function.
 */
void exec_timer_run(struct exec_work *work)
{
	while (exec_timer_run_once(work))
		;
}

/**
 * exec_timers_create - give an executor a timer base of its own
 * @ex: the executor, initialised
 *
 * Context: Process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int exec_timers_create(struct exec_executor *ex)
{
	struct exec_timer_base *base;
	struct exec_timer_target *target;
	unsigned int clock;
	u64 clk;
	int ret = -ENOMEM;

	might_sleep();
	base = kzalloc(sizeof(*base), GFP_KERNEL);
	if (!base)
		return -ENOMEM;
	raw_spin_lock_init(&base->lock);
	base->due_tail = &base->due;
	base->left_by = EXEC_TIME_NEVER;
	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		base->programmed[clock] = EXEC_TIME_NEVER;
		base->device[clock] = EXEC_TIME_NEVER;
		if (!exec_timer_limit(exec_clock_now(clock), &clk))
			clk = 0;
		exec_wheel_init(&base->wheel[clock], clk);
	}
	target = exec_target_alloc(base, ex, GFP_KERNEL);
	if (!target)
		goto err_free_base;
	target->owns_base = true;
	ret = exec_clockev_init(&base->clockev, exec_timer_expire);
	if (ret)
		goto err_free_target;

	mutex_lock(&exec_timer_bases_lock);
	base->next = exec_timer_bases;
	exec_timer_bases = base;
	mutex_unlock(&exec_timer_bases_lock);
	ex->timers = target;
	return 0;

err_free_target:
	kfree(target);
err_free_base:
	raw_spin_lock_destroy(&base->lock);
	kfree(base);
	return ret;
}

/**
 * exec_timers_count_work - count @ex's armed items as its outstanding work
 * @ex: the executor, after exec_timers_create() and before anything is armed
 *	on it; its ops have work_started and work_finished
 *
 * From then on, each timed item armed for @ex holds one unit of outstanding
 * work (work_started) until it has been submitted to @ex, cancelled or
 * discarded (work_finished), as an asynchronous operation would.  A unit
 * is released only after the item is in @ex's queue, or after it has been
 * re-armed (exec_timer_mod()), so the count never dips to zero in between.
 *
 * Context: Process context.
 */
void exec_timers_count_work(struct exec_executor *ex)
{
	struct exec_timer_target *target = exec_timers_target(ex);

	if (target && ex->ops->work_started && ex->ops->work_finished)
		target->counts_work = true;
}

/**
 * exec_timers_counts_work - whether @ex counts its armed items as work
 * @ex: the executor
 *
 * For an executor built on @ex, which counts its own armed items (and
 * forwards them to @ex) exactly when @ex counts its: a timed item armed on
 * a strand then holds what the strand runs on as one armed on that would.
 *
 * Context: Any context.
 * Return: true after exec_timers_count_work() on @ex.
 */
bool exec_timers_counts_work(const struct exec_executor *ex)
{
	unsigned long v = exec_timers_word(ex);

	if (v & EXEC_TIMERS_LAZY)
		return v & EXEC_TIMERS_COUNTS;
	return v && ((struct exec_timer_target *)v)->counts_work;
}

/**
 * exec_timers_share - arm an executor's timed items on another's base
 * @ex: the executor (a serial executor)
 * @from: the executor whose base it uses; if that has none, neither has @ex
 *
 * Context: Process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int exec_timers_share(struct exec_executor *ex, struct exec_executor *from)
{
	struct exec_timer_base *base = exec_timers_base_of(from);

	if (!base)
		return 0;
	ex->timers = exec_target_alloc(base, ex, GFP_KERNEL);
	return ex->timers ? 0 : -ENOMEM;
}

/**
 * exec_timers_share_lazily - exec_timers_share(), made at the first arm
 * @ex: the executor (a serial executor), initialised
 * @from: the executor whose base it will use, itself maybe a strand whose
 *	target is still to be made; it must outlive @ex (@ex depends on
 *	it); if it has no base, neither has @ex
 *
 * Nothing is allocated now: most strands never arm an item, and a strand
 * is created per connection.  The first arm allocates the target without
 * sleeping (arming is allowed in any context) and may fail with -ENOMEM.
 * Items armed on @ex count as outstanding work exactly when @from's do
 * (exec_timers_counts_work()).
 *
 * Context: Process context.
 */
void exec_timers_share_lazily(struct exec_executor *ex,
			      struct exec_executor *from)
{
	unsigned long lazy = (unsigned long)from | EXEC_TIMERS_LAZY;
	unsigned long v = exec_timers_word(from);

	if (!v)
		return;
	/* Over a strand still without a target: share with its source. */
	if (v & EXEC_TIMERS_LAZY)
		lazy = (v & ~EXEC_TIMERS_TAGS) | EXEC_TIMERS_LAZY;
	if (exec_timers_counts_work(from) && ex->ops->work_started &&
	    ex->ops->work_finished)
		lazy |= EXEC_TIMERS_COUNTS;
	ex->timers = (struct exec_timer_target *)lazy;
}

/*
 * Takes out of the wheels every item of @target (of all, if @all).  A
 * target with nothing armed, as a strand usually is when destroyed, costs
 * no walk of the wheels.  Caller holds the base's lock.
 */
static struct exec_work *exec_timers_collect(struct exec_timer_base *base,
					     struct exec_timer_target *target,
					     bool all)
{
	struct exec_work *list = NULL, **link, *work;
	unsigned int clock, row, slot;
	struct exec_timer *t;

	if (!all && !target->nr_armed)
		return NULL;
	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		for (row = 0; row < EXEC_WHEEL_ROWS; row++) {
			for (slot = 0; slot < EXEC_WHEEL_LVL_SIZE; slot++) {
				link = &base->wheel[clock].slots[row][slot];
				while ((work = *link)) {
					t = exec_work_timer(work);
					if (!all &&
					    exec_flags_target(READ_ONCE(work->flags)) != target) {
						link = &work->next;
						continue;
					}
					exec_wheel_del(base->wheel,
						       EXEC_CLOCK_COUNT, t);
					t->link = EXEC_TIMER_IDLE;
					exec_target_disarmed(exec_flags_target(
						READ_ONCE(work->flags)));
					work->next = list;
					list = work;
					if (!all && !target->nr_armed)
						return list;
				}
			}
		}
	}
	return list;
}

/**
 * exec_timers_shutdown - stop an executor's timed work
 * @ex: the executor, about to be destroyed
 *
 * Nothing can be armed for @ex any more; its armed items are discarded (their
 * discard callbacks run), but for those a concurrent exec_timer_cancel()
 * takes back first, which it ends instead; due items being handed over have
 * reached it when this returns.  The owner of a base also stops its clock
 * event.  Items already handed over are @ex's to run or discard.
 * Idempotent.
 *
 * Context: Process context; may sleep.
 * Return: the number of items discarded.
 */
long exec_timers_shutdown(struct exec_executor *ex)
{
	struct exec_timer_target *target = exec_timers_target(ex), *owner;
	struct exec_timer_base *base;
	struct exec_work *list, *next;
	struct exec_timer *t;
	unsigned int spins = 0;
	unsigned long flags;
	bool busy, armed;
	long n = 0;

	might_sleep();
	if (!target)
		return 0;
	base = target->base;
	raw_spin_lock_irqsave(&base->lock, flags);
	if (target->dead) {
		exec_timer_unlock(base, flags);
		return 0;
	}
	target->dead = true;
	if (target->owns_base)
		base->dead = true;
	/* Every item is counted when filed, or queued as due (enqueue). */
	armed = target->owns_base || target->nr_arms;
	list = exec_timers_collect(base, target, target->owns_base);
	exec_timer_unlock(base, flags);

	if (target->owns_base)
		exec_clockev_stop(&base->clockev);
	/* A target that never had an item has none being handed over. */
	busy = armed;
	while (busy) {
		/* Due items a watcher left for itself go now. */
		exec_timer_hand_over(base);
		raw_spin_lock_irqsave(&base->lock, flags);
		busy = base->handing || base->due;
		exec_timer_unlock(base, flags);
		if (busy)
			exec_backoff(&spins);
	}

	for (; list; list = next) {
		next = list->next;
		t = exec_work_timer(list);
		/* Its target is alive: a dead one has no armed items. */
		owner = exec_flags_target(READ_ONCE(list->flags));
		exec_target_work_finished(owner);
		/*
		 * Until released, a cancel may still take the item back
		 * (CANCELLED, returning 1): then that cancel ended it, and
		 * it is neither discarded nor counted.
		 */
		if (exec_timer_end_discarded(t, base))
			n++;
	}
	return n;
}

/**
 * exec_timers_free - free what exec_timers_create() or _share() set up
 * @ex: the executor, after exec_timers_shutdown() and after the last of its
 *	items has left its queues
 *
 * Context: Process context; may sleep.
 */
void exec_timers_free(struct exec_executor *ex)
{
	struct exec_timer_target *target = exec_timers_target(ex);
	struct exec_timer_base *base, **pp;
	bool owns_base;

	ex->timers = NULL;
	if (!target)
		return;
	base = target->base;
	owns_base = target->owns_base;
	kfree(target);
	if (!owns_base)
		return;
	mutex_lock(&exec_timer_bases_lock);
	for (pp = &exec_timer_bases; *pp != base; pp = &(*pp)->next)
		;
	*pp = base->next;
	mutex_unlock(&exec_timer_bases_lock);
	exec_clockev_fini(&base->clockev);
	raw_spin_lock_destroy(&base->lock);
	kfree(base);
}

/**
 * exec_timers_armed - timed items armed for an executor and not yet due
 * @ex: the executor
 *
 * Context: Any context.
 * Return: the count, for exec_pending_count().
 */
unsigned long exec_timers_armed(struct exec_executor *ex)
{
	struct exec_timer_target *target = exec_timers_target(ex);

	return target ? READ_ONCE(target->nr_armed) : 0;
}

/**
 * exec_timers_stats - the timed-item counts of an executor's statistics
 * @ex: the executor
 * @st: its statistics, filled in otherwise
 *
 * Context: Any context.
 */
void exec_timers_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_timer_target *target = exec_timers_target(ex);

	if (!target)
		return;
	st->timers_armed = READ_ONCE(target->nr_arms);
	st->timers_fired = READ_ONCE(target->nr_fired);
	st->timers_cancelled = READ_ONCE(target->nr_cancelled);
}

/* Whether @ex owns a timer base that a thread of it may watch. */
static struct exec_timer_base *exec_timers_watchable(struct exec_executor *ex)
{
	struct exec_timer_target *target = exec_timers_target(ex);

	if (!target || !target->owns_base)
		return NULL;
	return target->base;
}

/**
 * exec_timers_watch - let the calling thread wait for the next timed event
 * @ex: the executor the caller is a thread of, which owns its timer base
 * @parker: the caller's parker: unparked when an earlier event is armed
 * @when: set to the times to park until, per clock, on the system clock
 *	(EXEC_TIME_NEVER for none), as exec_parker_park_until() takes them
 * @now: set to the time per clock (exec_clock_now()) if it was read, else 0
 *
 * Where the clock event device is a thread (userspace), a due item costs
 * two wake-ups, the device's and then a worker's; where it is an hrtimer
 * (the kernel), the hard interrupt advances the wheel and submits the
 * item, which hands it to an idle worker and wakes it, all with interrupts
 * off.  A thread of the executor about to wait for work calls this
 * instead, parks until @when, and calls exec_timers_unwatch() when it
 * stops waiting, which hands the due items over with the first one kept
 * for the caller: one wake-up per timed item, and in the kernel an
 * interrupt that only wakes the watcher (the hrtimer of its timed sleep).
 * At most one thread watches a base at a time, and it stays the watcher
 * while it runs what came due (exec_timers_unwatch() with @keep), so that
 * coming back to wait costs no lock.  Meanwhile the device is only a
 * backstop (exec_timer_sync_device()).  Items armed on other
 * executors that share the base (serial executors over this one) are
 * handed over by the watcher too.  In both worlds, a caller also takes
 * a few steps of early cascade first, if the base has some to take and
 * the next event leaves time (core/timer_wheel.h).  The time it read for
 * that, if it did, it leaves in @now (per clock, 0 where it read none),
 * for the caller's own look at the clock before it parks.
 *
 * Context: Process context, a thread of @ex.
 * Return: true if the caller watches (then exec_timers_unwatch() must
 * follow); false if it is not needed (another thread watches, the base is
 * shutting down, the executor shares another's base).
 */
bool exec_timers_watch(struct exec_executor *ex, struct exec_parker *parker,
		       u64 *when, u64 *now)
{
	struct exec_timer_target *target = exec_timers_target(ex);
	struct exec_timer_base *base;
	struct exec_parker *watcher;
	unsigned long flags;
	unsigned int clock;

	memset(now, 0, EXEC_CLOCK_COUNT * sizeof(*now));
	/* An idle thread of the owner: time for early cascades. */
	if (target && target->owns_base)
		exec_timer_cascade_early(target->base, now);
	base = exec_timers_watchable(ex);
	if (!base)
		return false;
	/* Only the watcher itself changes @watcher from itself. */
	watcher = READ_ONCE(base->watcher);
	if (watcher == parker) {
		/*
		 * A time read here may be stale: one programmed after the
		 * read unparks us (exec_timer_program_at()), and the park
		 * returns at once.
		 */
		for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++)
			when[clock] = exec_timer_backend_ns(clock,
				READ_ONCE(base->programmed[clock]));
		/* Items it left for itself: a park that does not sleep. */
		if (READ_ONCE(base->due))
			when[EXEC_CLOCK_MONOTONIC] = 0;
		return true;
	}
	if (watcher)
		return false;
	raw_spin_lock_irqsave(&base->lock, flags);
	if (base->dead || base->watcher) {
		exec_timer_unlock(base, flags);
		return false;
	}
	WRITE_ONCE(base->watcher, parker);
	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		exec_timer_sync_device(base, clock, false, &now[clock]);
		when[clock] = exec_timer_backend_ns(clock,
						    base->programmed[clock]);
	}
	exec_timer_unlock(base, flags);
	return true;
}

/**
 * exec_timers_watch_moved - whether a spinning watcher must look now
 * @ex: the executor, whose thread watches its base
 * @when: what exec_timers_watch() gave the caller to wait until
 *
 * For a watcher that spins before it parks, until @when or for less: a
 * look without the lock, and without a read of the clock, which costs a
 * device access where the clocksource is not the TSC (the kernel's HPET
 * under an emulator).  The spin itself, timed by the caller's local
 * clock, ends at @when; this tells of what came since exec_timers_watch():
 * an earlier event, or items due.
 *
 * Context: Any context.
 * Return: true if items are due or an event earlier than @when was
 * programmed.
 */
bool exec_timers_watch_moved(struct exec_executor *ex, const u64 *when)
{
	struct exec_timer_base *base = ex->timers->base;
	unsigned int clock;

	if (READ_ONCE(base->due))
		return true;
	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++)
		if (exec_timer_backend_ns(clock,
				READ_ONCE(base->programmed[clock])) <
		    when[clock])
			return true;
	return false;
}

/**
 * exec_timers_unwatch - hand over what is due; maybe stop watching
 * @ex: the executor, whose thread may watch its base
 * @parker: the caller's parker, as given to exec_timers_watch()
 * @keep: go on watching: the caller runs what came due and comes back to
 *	wait; false when it leaves for other work, or exits
 *
 * Hands the due items over, the first one due on @ex deferred to the
 * caller, so that it runs it next without waking anybody
 * (EXEC_SUBMIT_DEFER).  With @keep, nothing is done unless something is
 * due, and the device stays a backstop, in case the caller stays busy;
 * without it the device is armed for the next event itself.  A caller
 * that is not the watcher does nothing.
 *
 * Context: Process context, a thread of @ex.
 */
void exec_timers_unwatch(struct exec_executor *ex, struct exec_parker *parker,
			 bool keep)
{
	struct exec_timer_base *base = exec_timers_watchable(ex);
	u64 now[EXEC_CLOCK_COUNT] = { 0 };
	unsigned long flags;
	bool due = false;

	if (!base || READ_ONCE(base->watcher) != parker)
		return;
	/* Its time serves the pass (exec_timer_advance()). */
	if (keep && !READ_ONCE(base->due) && !exec_timer_late(base, 0, now))
		return;
	raw_spin_lock_irqsave(&base->lock, flags);
	if (!keep)
		WRITE_ONCE(base->watcher, NULL);
	/* Nothing armed: nothing comes due, and the device needs nothing. */
	if (!base->dead &&
	    (base->programmed[EXEC_CLOCK_MONOTONIC] != EXEC_TIME_NEVER ||
	     base->programmed[EXEC_CLOCK_REALTIME] != EXEC_TIME_NEVER))
		exec_timer_advance(base, keep ? EXEC_TIMER_BACKSTOP : 0, now);
	/* Also what it left for itself at its last pass. */
	due = base->due;
	exec_timer_unlock(base, flags);
	if (due)
		exec_timer_hand_over_to(base, ex, keep,
					now[EXEC_CLOCK_MONOTONIC]);
}

/**
 * exec_timer_test_set_realtime_offset - move the library's realtime clock
 * @offset: nanoseconds added to the system's CLOCK_REALTIME from now on
 *
 * Lets the tests change the realtime clock where the machine's cannot be
 * changed, through the path a real change takes: every base is told, as
 * clock_was_set() tells hrtimers, and re-examines its realtime items.
 *
 * Context: Process context; may sleep.
 */
void exec_timer_test_set_realtime_offset(s64 offset)
{
	struct exec_timer_base *base;
	unsigned long flags;
	u64 now;
	bool dead;

	WRITE_ONCE(exec_realtime_offset, offset);
	mutex_lock(&exec_timer_bases_lock);
	for (base = exec_timer_bases; base; base = base->next) {
		raw_spin_lock_irqsave(&base->lock, flags);
		dead = base->dead;
		now = 0;
		if (!dead)
			exec_timer_program_at(base, EXEC_CLOCK_REALTIME,
					      base->programmed[EXEC_CLOCK_REALTIME],
					      EXEC_TIMER_FORCE, &now);
		exec_timer_unlock(base, flags);
		/* Items the new time made due go now. */
		if (!dead)
			exec_timer_expire(&base->clockev);
	}
	mutex_unlock(&exec_timer_bases_lock);
}
EXPORT_SYMBOL_FOR_TESTS(exec_timer_test_set_realtime_offset);

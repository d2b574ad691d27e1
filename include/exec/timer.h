/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Scheduled execution (N3785 "scheduled_executor"): run a work item no
 * sooner than a time point, or no sooner than a duration from now.
 *
 * A timed item is a struct exec_timer, intrusive like struct exec_work: the
 * caller embeds it and arming it allocates nothing.  It is armed on an
 * executor that supports timed work (thread pool, serial executor over one,
 * loop executor); when its deadline has passed it is submitted to that
 * executor like any other item, so a serial executor keeps its FIFO order
 * for work that has become due.
 *
 * Rules:
 *  - Never early: the work function never starts before the deadline, read
 *    on the clock the item was armed on.  A deadline already past runs as
 *    soon as possible.
 *  - EXEC_CLOCK_REALTIME deadlines follow changes of the system clock: set
 *    the clock forward past a deadline and the item runs; set it back and
 *    the item waits for the new time to reach its deadline.
 *  - An item is pending (exec_work_pending() on its @work) from the moment
 *    it is armed until its function starts or it is cancelled or
 *    discarded.  Arming a pending item fails with -EALREADY; to move a
 *    pending item, use exec_timer_mod().
 *  - Slack: an item armed with slack S may run anywhere in [deadline,
 *    deadline + S].  The library picks the time in that range that lines up
 *    with other items, so that deadlines close together cost one wakeup.
 *  - If the executor goes away with items still armed, each is discarded:
 *    its discard callback runs instead of its function (see work.h).
 *
 * Times are nanoseconds on the item's clock, as exec_clock_now() reads it.
 * EXEC_TIME_NEVER, the largest value, is a deadline that never comes.
 *
 * Errors, beside those of executor.h:
 *   -EOPNOTSUPP  the executor cannot run timed work (inline, thread per
 *                task, or a serial executor over one of those)
 *   -EDEADLK     exec_timer_cancel_sync() or exec_timer_flush() called from
 *                the item's own function
 */
#ifndef EXEC_TIMER_H
#define EXEC_TIMER_H

#include "types.h"
#include "work.h"

EXEC_BEGIN_DECLS

struct exec_executor;

/**
 * enum exec_clock - the clock a deadline is read on
 * @EXEC_CLOCK_MONOTONIC: time since boot, never set back (CLOCK_MONOTONIC)
 * @EXEC_CLOCK_REALTIME: wall-clock time since the Unix epoch; follows
 *	changes of the system clock (CLOCK_REALTIME)
 */
enum exec_clock {
	EXEC_CLOCK_MONOTONIC = 0,
	EXEC_CLOCK_REALTIME = 1,
};

#define EXEC_CLOCK_COUNT	2

/* A deadline that never comes. */
#define EXEC_TIME_NEVER		(~(uint64_t)0)

/**
 * struct exec_timer - an intrusive timed work item
 * @work: the work item; its function runs when the deadline has passed.
 *	Use container_of() on it to reach the enclosing structure.
 * @link: private: the item's link in the timer wheel while armed, or its
 *	state after it came due
 * @expires: private: the deadline it was last armed for, slack applied;
 *	read it with exec_timer_expires()
 *
 * Initialise with exec_timer_init() before first use.
 */
struct exec_timer {
	struct exec_work work;
	struct exec_work **link;
	uint64_t expires;
};

/**
 * enum exec_period_mode - how a periodic item's next deadline is chosen
 * @EXEC_PERIOD_FIXED_RATE: deadline k is first + k * period; periods that
 *	passed entirely while the item ran late are skipped, not run in a
 *	burst, and counted in exec_periodic_overruns()
 * @EXEC_PERIOD_FIXED_DELAY: the next deadline is one period after the
 *	previous run returned
 */
enum exec_period_mode {
	EXEC_PERIOD_FIXED_RATE = 0,
	EXEC_PERIOD_FIXED_DELAY = 1,
};

/**
 * struct exec_periodic - an intrusive periodic work item
 * @timer: the timed item; cancel it with exec_timer_cancel() or
 *	exec_timer_cancel_sync() on &@timer
 * @period: private: nanoseconds between deadlines
 * @slack: private: slack applied to every deadline
 * @mode: private: enum exec_period_mode
 * @clock: private: enum exec_clock
 * @overruns: private: periods skipped before the current run
 *
 * The item is re-armed after each run, so it must stay valid until a
 * cancel has returned 1 or its discard callback has run.
 */
struct exec_periodic {
	struct exec_timer timer;
	uint64_t period;
	uint64_t slack;
	uint32_t mode;
	uint32_t clock;
	uint64_t overruns;
};

/**
 * exec_clock_now - read a clock
 * @clock: the clock
 *
 * Context: Any context.
 * Return: the time in nanoseconds, or 0 for an unknown clock.
 */
uint64_t exec_clock_now(enum exec_clock clock);

/**
 * exec_timer_init - initialise a timed item
 * @timer: the item
 * @func: function to run when it comes due
 * @discard: function called instead if it is dropped; may be NULL
 *
 * Context: Any context.  The item must not be pending or running.
 */
void exec_timer_init(struct exec_timer *timer, exec_work_fn func,
		     exec_work_fn discard);

/**
 * exec_timer_expires - the deadline an item was last armed for
 * @timer: the item
 *
 * Context: Any context; exact while the item is not being armed.
 * Return: the deadline, slack applied, on the clock it was armed on.
 */
static inline uint64_t exec_timer_expires(const struct exec_timer *timer)
{
	return __atomic_load_n(&timer->expires, __ATOMIC_RELAXED);
}

/**
 * exec_submit_at - run a timed item no sooner than a time point
 * @ex: the executor
 * @timer: an initialised item, not pending
 * @clock: the clock @deadline is read on
 * @deadline: the time point, in nanoseconds
 *
 * Allocates nothing, except for the first item armed on a serial executor,
 * which makes the strand's small record of timed items (without sleeping:
 * a strand per connection that never arms an item never pays for it);
 * O(1) whatever the number of armed items.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL arguments, an item that is not an exec_timer,
 * or an unknown clock; -EALREADY if the item is pending; -EOPNOTSUPP if
 * @ex cannot run timed work; -ENOMEM if the first item of a serial
 * executor could not make its record (the item stays idle; a later call
 * tries again); -ESHUTDOWN if @ex is being destroyed;
 * (userspace) -EAGAIN or another error of thread creation when the thread
 * that waits for deadlines, started with an executor's first timed item,
 * cannot start (the item stays idle; a later call tries again).
 */
int exec_submit_at(struct exec_executor *ex, struct exec_timer *timer,
		   enum exec_clock clock, uint64_t deadline);

/**
 * exec_submit_after - run a timed item no sooner than a duration from now
 * @ex: the executor
 * @timer: an initialised item, not pending
 * @delay: nanoseconds from now, on EXEC_CLOCK_MONOTONIC.  A delay that
 *	would overflow the clock means EXEC_TIME_NEVER.
 *
 * Context: Any context.
 * Return: as exec_submit_at().
 */
int exec_submit_after(struct exec_executor *ex, struct exec_timer *timer,
		      uint64_t delay);

/**
 * exec_submit_at_slack - run a timed item within [@deadline, @deadline + @slack]
 * @ex: the executor
 * @timer: an initialised item, not pending
 * @clock: the clock
 * @deadline: the earliest time the item may start
 * @slack: how much later than @deadline it may start, to share a wakeup
 *	with other items
 *
 * Context: Any context.
 * Return: as exec_submit_at().
 */
int exec_submit_at_slack(struct exec_executor *ex, struct exec_timer *timer,
			 enum exec_clock clock, uint64_t deadline,
			 uint64_t slack);

/**
 * exec_timer_mod - arm a timed item, or move a pending one to a new deadline
 * @ex: the executor; for a pending item it must be the one it is armed on
 * @timer: an initialised item
 * @clock: the clock
 * @deadline: the new deadline
 *
 * Like the kernel's mod_delayed_work(): an item that is armed, or that came
 * due but has not started, gets the new deadline; an idle item is armed.
 * An item that exec_timer_cancel() took back after it came due, and that
 * its executor has not dequeued yet, is idle: it is armed again, on that
 * executor only.
 *
 * Context: Any context.
 * Return: 1 if a pending item was moved; 0 if the item was idle and is now
 * armed; -EBUSY if it is pending on another executor; the errors of
 * exec_submit_at() otherwise.
 */
int exec_timer_mod(struct exec_executor *ex, struct exec_timer *timer,
		   enum exec_clock clock, uint64_t deadline);

/**
 * exec_timer_cancel - cancel a timed item that has not started
 * @timer: the item
 *
 * An armed item is disarmed; an item that came due but has not started is
 * taken back (it will not start); a periodic item that is running is not
 * re-armed after this run.  The discard callback is not called: the caller
 * knows from the return value.  Cancelling an item that was never armed,
 * or has already started, does nothing.
 *
 * Context: Any context.  Not concurrently with the destruction of the
 * executor the item is armed on.
 * Return: 1 if a future start of the item was prevented, 0 if none was
 * pending; -EINVAL for NULL or an item that is not an exec_timer.
 */
int exec_timer_cancel(struct exec_timer *timer);

/**
 * exec_timer_cancel_sync - cancel a timed item and wait until it is idle
 * @timer: the item
 *
 * As exec_timer_cancel(), then waits until the item is neither pending nor
 * running (the guarantee cancel_delayed_work_sync() gives), its discard
 * callback included if one is being called: when this returns, the library
 * no longer uses the item and the caller may free it.  An item taken back
 * after it came due is idle once its executor has dequeued it, which a
 * loop executor does only while it runs.
 *
 * Context: Process context; sleeps.
 * Return: as exec_timer_cancel(); -EDEADLK when called from the item's own
 * function or discard callback (future re-arms are cancelled all the same).
 */
int exec_timer_cancel_sync(struct exec_timer *timer);

/**
 * exec_timer_flush - run a timed item now and wait for that run
 * @timer: the item
 *
 * As the kernel's flush_delayed_work(): an armed item is taken out of its
 * wheel and made due at once on the executor it is armed on, where it
 * queues behind what is queued already (a serial executor keeps its FIFO
 * order); then the call waits until that run has returned.  An item that
 * came due and is queued (or that exec_timer_mod() moved after it came
 * due: it runs when dequeued, not filed again) is waited for until it has
 * run; a run under way is waited for until it returns.  An item that comes
 * due again at once while this waits (re-armed for a time already past) is
 * waited for too.  An item a loop executor holds runs when a thread runs
 * the loop.  A periodic item runs now, once, and stays periodic: its run
 * re-arms it as usual, its next period counting from the flush.  The item
 * may be armed again meanwhile; a new deadline in the future ends the wait.
 *
 * Context: Process context; sleeps.  Not concurrently with the destruction
 * of the executor the item is armed on.
 * Return: 1 if it waited for a run (an armed item was made due and has
 * run, or a queued item or a run under way was waited for); 0 if the item
 * was idle (never armed, run, or taken back by a cancel); -EINVAL for NULL
 * or an item that is not an exec_timer; -EDEADLK when called from the
 * item's own function or discard callback, or, while the item is pending,
 * from inside the executor it is armed on (as exec_work_flush()): the item
 * is left as it is;
 * -ESHUTDOWN if the item is armed on an executor whose timed work is being
 * shut down (by its shutdown or destruction): it will not run, it is being
 * discarded (its discard callback is not waited for); once it has been, the
 * item is idle.
 */
int exec_timer_flush(struct exec_timer *timer);

/**
 * exec_periodic_init - initialise a periodic item
 * @periodic: the item
 * @func: function run at every deadline
 * @discard: function called if the item is dropped (its executor went away
 *	while it was armed); may be NULL
 *
 * Context: Any context.  The item must not be pending or running.
 */
void exec_periodic_init(struct exec_periodic *periodic, exec_work_fn func,
			exec_work_fn discard);

/**
 * exec_submit_periodic - run an item at a first deadline, then periodically
 * @ex: the executor
 * @periodic: an initialised item, not pending
 * @clock: the clock of every deadline
 * @first: the first deadline
 * @period: nanoseconds between deadlines; not 0
 * @slack: slack applied to every deadline (see exec_submit_at_slack())
 * @mode: enum exec_period_mode
 *
 * Runs never overlap: the next deadline is armed after a run returns.
 *
 * Context: Any context.
 * Return: as exec_submit_at(); -EINVAL also for a zero period or an
 * unknown mode.
 */
int exec_submit_periodic(struct exec_executor *ex,
			 struct exec_periodic *periodic, enum exec_clock clock,
			 uint64_t first, uint64_t period, uint64_t slack,
			 enum exec_period_mode mode);

/**
 * exec_periodic_overruns - periods skipped before the current run
 * @periodic: the item; call from its function
 *
 * Context: The item's own function.
 * Return: how many deadlines of a fixed-rate item passed without a run
 * because the previous run ended late; 0 for fixed-delay items.
 */
static inline uint64_t exec_periodic_overruns(const struct exec_periodic *periodic)
{
	return periodic->overruns;
}

EXEC_END_DECLS

#endif /* EXEC_TIMER_H */

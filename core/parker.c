// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The parker's permit protocol, shared by both backends (contract in
 * core/platform.h).  A backend provides only the sleep and the wake-up:
 *
 *   exec_parker_sleep()  sleep until woken; may return spuriously, and must
 *                        return at once if @permit is already set (a wake
 *                        that came before the sleep is not lost)
 *   exec_parker_sleep_until()  the same, bounded by deadlines
 *   exec_parker_wake()   wake the owner sleeping in either, told which
 *
 * The owner sets @sleeping and then tests @permit; unpark() sets @permit and
 * then tests @sleeping, each with a full barrier between its store and its
 * load (Dekker), so either the owner sees the permit and does not sleep, or
 * the waker sees @sleeping and wakes it.  An unpark() that finds the owner
 * awake costs one exchange and one load: no system call.  @sleeping says
 * which of the two sleeps the owner is in (EXEC_PARKER_SLEEP or
 * EXEC_PARKER_SLEEP_UNTIL), published by the same store, so a backend whose
 * two sleeps wake differently knows which wake-up to send.
 */
#include "internal.h"

/**
 * exec_parker_park - sleep until the permit is available, and consume it
 * @parker: the caller's parker; only its owner parks in it
 *
 * Context: Process context; sleeps.
 */
void exec_parker_park(struct exec_parker *parker)
{
	might_sleep();
	/*
	 * Fully ordered: taking the permit pairs with the exchange in
	 * exec_parker_unpark(), so what the waker wrote before is visible.
	 */
	while (!xchg(&parker->permit, 0)) {
		/* Full barrier: pairs with the xchg() in unpark(). */
		smp_store_mb(parker->sleeping, EXEC_PARKER_SLEEP);
		/* Ordered after the store above by its full barrier. */
		if (!smp_load_acquire(&parker->permit))
			exec_parker_sleep(parker);
		/*
		 * A waker that still sees 1 only sends a wake that is not
		 * needed; the next sleep sets it again before its test.
		 */
		WRITE_ONCE(parker->sleeping, 0);
	}
}
EXPORT_SYMBOL_FOR_TESTS(exec_parker_park);

/**
 * exec_parker_unpark - make the permit available and wake the owner
 * @parker: the parker
 *
 * Wakes the owner only if it is (about to be) asleep.
 *
 * Context: Any context, hard interrupt context included; never sleeps.
 */
void exec_parker_unpark(struct exec_parker *parker)
{
	int sleeping;

	/*
	 * A permit already there was given by a waker that also wakes the
	 * owner if needed.  Full barrier between this exchange and the load
	 * of @sleeping: pairs with smp_store_mb() in exec_parker_park().
	 */
	if (xchg(&parker->permit, 1))
		return;
	/* Ordered after the exchange above, which is a full barrier. */
	sleeping = smp_load_acquire(&parker->sleeping);
	if (sleeping)
		exec_parker_wake(parker, sleeping);
}
EXPORT_SYMBOL_FOR_TESTS(exec_parker_unpark);

/**
 * exec_parker_park_until - park, but not past a deadline
 * @parker: the caller's parker
 * @when: absolute deadline per clock (EXEC_CLOCK_*), EXEC_TIME_NEVER for none
 *
 * Returns when the permit is available (and consumes it), when a deadline has
 * passed, or spuriously: callers look at the clock and their condition.
 *
 * Context: Process context; sleeps.
 */
void exec_parker_park_until(struct exec_parker *parker, const u64 *when)
{
	might_sleep();
	/* No deadline: the plain sleep, which some backends wake faster. */
	if (when[0] == U64_MAX && when[1] == U64_MAX) {
		exec_parker_park(parker);
		return;
	}
	/* As in exec_parker_park(): pairs with the xchg() in unpark(). */
	if (xchg(&parker->permit, 0))
		return;
	/*
	 * A deadline that has passed (a timed event's watcher that fell
	 * behind) ends the park before it starts: no sleep to arm and leave.
	 */
	if ((when[0] != U64_MAX && when[0] <= exec_clock_read(0)) ||
	    (when[1] != U64_MAX && when[1] <= exec_clock_read(1)))
		return;
	/* Full barrier: pairs with the xchg() in unpark(). */
	smp_store_mb(parker->sleeping, EXEC_PARKER_SLEEP_UNTIL);
	/* Ordered after the store above by its full barrier. */
	if (!smp_load_acquire(&parker->permit))
		exec_parker_sleep_until(parker, when);
	WRITE_ONCE(parker->sleeping, 0);
	/* A wake that ended the sleep leaves its permit: take it. */
	(void)xchg(&parker->permit, 0);
}
EXPORT_SYMBOL_FOR_TESTS(exec_parker_park_until);

/**
 * exec_parker_first_deadline - the earlier of a timed park's deadlines
 * @when: per clock (0 monotonic, 1 realtime), an absolute deadline, or
 *	U64_MAX for none
 * @clock: set to the clock of the deadline returned
 *
 * For backends that can sleep on one clock only (the kernel's hrtimeout,
 * the futex): the realtime deadline is compared at the current offset
 * between the two clocks.
 *
 * Context: Any context.
 * Return: that deadline, on *@clock; U64_MAX if there is none.
 */
u64 exec_parker_first_deadline(const u64 *when, unsigned int *clock)
{
	u64 real_now, real_as_mono;

	*clock = 0;
	if (when[1] == U64_MAX)
		return when[0];
	real_now = exec_clock_read(1);
	real_as_mono = exec_clock_read(0) +
		       (when[1] > real_now ? when[1] - real_now : 0);
	if (real_as_mono >= when[0])
		return when[0];
	*clock = 1;
	return when[1];
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The parker's permit protocol, shared by both backends: the exported
 * functions around core/parker.h's inline ones, and the timed park.
 */
#include "parker.h"

/**
 * exec_parker_park - sleep until the permit is available, and consume it
 * @parker: the caller's parker; only its owner parks in it
 *
 * Context: Process context; sleeps.
 */
void exec_parker_park(struct exec_parker *parker)
{
	__exec_parker_park(parker);
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
	__exec_parker_unpark(parker);
}
EXPORT_SYMBOL_FOR_TESTS(exec_parker_unpark);

/* The timed half of __exec_parker_park_until(): some deadline is set. */
void exec_parker_park_deadline(struct exec_parker *parker, const u64 *when)
{
	/* As in __exec_parker_park(): pairs with the xchg() in unpark(). */
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
	__exec_parker_park_until(parker, when);
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

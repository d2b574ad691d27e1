/* SPDX-License-Identifier: GPL-2.0 OR MIT */
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
 *
 * The park, the timed park's way in and the unpark are inline here, for the
 * thread pool's wake-up of an idle worker: each call and return on the way
 * from a submission to the woken worker's item is a lookup of translated
 * code under an emulator such as QEMU's TCG, where the kernel benchmark
 * runs.  Everything else calls exec_parker_park(), exec_parker_park_until()
 * and exec_parker_unpark() (core/parker.c), which are these.
 */
#ifndef EXEC_CORE_PARKER_H
#define EXEC_CORE_PARKER_H

#include "internal.h"

/* exec_parker_park(): sleep until the permit is available, and consume it. */
static inline void __exec_parker_park(struct exec_parker *parker)
{
	might_sleep();
	/*
	 * Fully ordered: taking the permit pairs with the exchange in
	 * __exec_parker_unpark(), so what the waker wrote before is visible.
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

/* exec_parker_unpark(): make the permit available and wake the owner. */
static inline void __exec_parker_unpark(struct exec_parker *parker)
{
	int sleeping;

	/*
	 * A permit already there was given by a waker that also wakes the
	 * owner if needed.  Full barrier between this exchange and the load
	 * of @sleeping: pairs with smp_store_mb() in __exec_parker_park().
	 */
	if (xchg(&parker->permit, 1))
		return;
	/* Ordered after the exchange above, which is a full barrier. */
	sleeping = smp_load_acquire(&parker->sleeping);
	if (sleeping)
		exec_parker_wake(parker, sleeping);
}

void exec_parker_park_deadline(struct exec_parker *parker, const u64 *when);

/* exec_parker_park_until(): park, but not past a deadline. */
static inline void __exec_parker_park_until(struct exec_parker *parker,
					    const u64 *when)
{
	might_sleep();
	/* No deadline: the plain sleep, which some backends wake faster. */
	if (when[0] == U64_MAX && when[1] == U64_MAX)
		__exec_parker_park(parker);
	else
		exec_parker_park_deadline(parker, when);
}

#endif /* EXEC_CORE_PARKER_H */

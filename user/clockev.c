// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace clock event device of a timer base (contract in
 * core/platform.h): a thread that sleeps in its parker until the earliest
 * programmed time, then calls the base's handler.
 *
 * With the io_uring backend the sleep is io_uring_enter() on the parker's
 * ring, holding one absolute IORING_OP_TIMEOUT per clock, moved with
 * timeout updates as the base's next event changes; CLOCK_REALTIME
 * timeouts are the kernel's realtime hrtimers, which follow changes of the
 * system clock.  One timeout re-armed for the earliest deadline, rather than
 * one per item, because thousands of timeouts in flight on one ring complete
 * tens of milliseconds late (../shared/BENCHMARKS.md).  The futex backend
 * sleeps in FUTEX_WAIT_BITSET with an absolute timeout instead.
 *
 * Programming an earlier time than the thread sleeps for unparks it, so it
 * takes the new time; a later one waits for the thread's next look, after
 * the event it sleeps for (a spurious call of the handler, which finds
 * nothing due).  The thread is started by the first arm, so executors that
 * never arm a timer have none.
 */
#include "exec_platform.h"
#include "exec/timer.h"
#include "internal.h"

enum {
	EXEC_CLOCKEV_IDLE,
	EXEC_CLOCKEV_RUNNING,
	EXEC_CLOCKEV_STOPPING,
	EXEC_CLOCKEV_STOPPED,
};

static int exec_clockev_thread(void *arg)
{
	struct exec_clockev *ce = arg;
	u64 when[EXEC_CLOCK_COUNT];

	for (;;) {
		when[EXEC_CLOCK_MONOTONIC] =
			READ_ONCE(ce->when[EXEC_CLOCK_MONOTONIC]);
		when[EXEC_CLOCK_REALTIME] =
			READ_ONCE(ce->when[EXEC_CLOCK_REALTIME]);
		exec_parker_park_until(&ce->parker, when);
		/* Pairs with the release in exec_clockev_stop(). */
		if (smp_load_acquire(&ce->state) == EXEC_CLOCKEV_STOPPING)
			return 0;
		ce->handler(ce);
	}
}

/**
 * exec_clockev_init - prepare a clock event device; starts nothing
 * @ce: the device
 * @handler: called when a programmed time has come
 *
 * Context: Process context.
 * Return: 0.
 */
int exec_clockev_init(struct exec_clockev *ce,
		      void (*handler)(struct exec_clockev *ce))
{
	BUILD_BUG_ON(ARRAY_SIZE(ce->when) != EXEC_CLOCK_COUNT);
	ce->handler = handler;
	ce->when[EXEC_CLOCK_MONOTONIC] = EXEC_TIME_NEVER;
	ce->when[EXEC_CLOCK_REALTIME] = EXEC_TIME_NEVER;
	ce->state = EXEC_CLOCKEV_IDLE;
	exec_user_lock_init(&ce->lock);
	return 0;
}

/**
 * exec_clockev_start - start the device's thread, if not yet done
 * @ce: the device
 *
 * Context: Thread context (every userspace caller is).
 * Return: 0; -EAGAIN if the thread cannot be started; -ESHUTDOWN after
 * exec_clockev_stop().
 */
int exec_clockev_start(struct exec_clockev *ce)
{
	int ret = 0;

	/* Pairs with the release below: the thread and parker are set up. */
	if (likely(smp_load_acquire(&ce->state) == EXEC_CLOCKEV_RUNNING))
		return 0;
	pthread_mutex_lock(&ce->lock);
	switch (ce->state) {
	case EXEC_CLOCKEV_IDLE:
		exec_parker_init(&ce->parker);
		ret = exec_fault_thread_start() ? -EAGAIN :
		      exec_thread_start(&ce->thread, exec_clockev_thread, ce,
					"exec-timer");
		if (ret) {
			exec_parker_destroy(&ce->parker);
			break;
		}
		/* Pairs with the acquire at the top: the setup is visible. */
		smp_store_release(&ce->state, EXEC_CLOCKEV_RUNNING);
		break;
	case EXEC_CLOCKEV_RUNNING:
		break;
	default:
		ret = -ESHUTDOWN;
	}
	pthread_mutex_unlock(&ce->lock);
	return ret;
}

/**
 * exec_clockev_program - ask for the handler at @when on @clock
 * @ce: the device
 * @clock: EXEC_CLOCK_MONOTONIC or EXEC_CLOCK_REALTIME
 * @when: absolute time on the system clock, or EXEC_TIME_NEVER
 *
 * Context: Any context; called under the timer base's lock.
 */
void exec_clockev_program(struct exec_clockev *ce, unsigned int clock,
			  u64 when)
{
	u64 old = READ_ONCE(ce->when[clock]);

	WRITE_ONCE(ce->when[clock], when);
	/*
	 * The unpark's exchange orders the store above before the thread's
	 * next look at @when, which its park() makes after taking the permit.
	 */
	if (when < old &&
	    READ_ONCE(ce->state) == EXEC_CLOCKEV_RUNNING)
		exec_parker_unpark(&ce->parker);
}

/**
 * exec_clockev_stop - stop the device: the handler is not called any more
 * @ce: the device
 *
 * Context: Process context; sleeps.  Not from the handler.
 */
void exec_clockev_stop(struct exec_clockev *ce)
{
	pthread_mutex_lock(&ce->lock);
	if (ce->state == EXEC_CLOCKEV_RUNNING) {
		/* Pairs with the acquire in exec_clockev_thread(). */
		smp_store_release(&ce->state, EXEC_CLOCKEV_STOPPING);
		exec_parker_unpark(&ce->parker);
		exec_thread_join(&ce->thread);
		exec_parker_destroy(&ce->parker);
	}
	ce->state = EXEC_CLOCKEV_STOPPED;
	pthread_mutex_unlock(&ce->lock);
	pthread_mutex_destroy(&ce->lock);
}

/* The library-wide timer state, before main() as the kernel's module init. */
static void __attribute__((constructor)) exec_user_timers_init(void)
{
	exec_timer_sys_init();
}

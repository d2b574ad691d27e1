// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace clock event device of a timer base (contract in
 * core/platform.h): one timerfd per clock, the userspace counterpart of the
 * kernel backend's two hrtimers, and a thread that sleeps in poll() on them
 * and calls the base's handler when one expires.
 *
 * The device is the fallback, not the usual way timed items come due: an
 * idle worker of the base's executor normally waits for the base's next
 * event itself (exec_timers_watch() in core/timer.c), parked on its own ring
 * with an absolute timeout, and runs the first due item without waking
 * anybody.  While such a watcher exists the core arms this device only as a
 * backstop, a little after the next event, for a watcher kept busy; it
 * fires on time only while no thread of the executor watches (every worker
 * busy with other work, a loop executor's thread elsewhere).
 *
 * Why timerfds: the device must be re-armed by whichever thread hands the
 * watch back, and timerfd_settime() moves another thread's wake-up time
 * with one system call and without waking it, where a timeout in the
 * thread's own ring can only be moved by that thread, after a wake-up.  A
 * timerfd's expiry is an hrtimer waking the poller, the same as an
 * IORING_OP_TIMEOUT's, and about as late in a timer_lateness reference
 * run (Documentation/benchmarks.rst).  CLOCK_REALTIME
 * timerfds with TFD_TIMER_ABSTIME follow changes of the system clock, as
 * realtime hrtimers do.
 *
 * The thread and the timerfds are created by the first arm (start()), so
 * executors that never arm a timer have neither.
 */
#include "exec_platform.h"
#include "exec/timer.h"
#include "platform.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

enum {
	EXEC_CLOCKEV_IDLE,
	EXEC_CLOCKEV_RUNNING,
	EXEC_CLOCKEV_STOPPING,
	EXEC_CLOCKEV_STOPPED,
};

static const clockid_t exec_clockev_clockid[EXEC_CLOCK_COUNT] = {
	[EXEC_CLOCK_MONOTONIC] = CLOCK_MONOTONIC,
	[EXEC_CLOCK_REALTIME] = CLOCK_REALTIME,
};

/* Arms (or, for EXEC_TIME_NEVER, disarms) one clock's timerfd. */
static void exec_clockev_set(struct exec_clockev *ce, unsigned int clock,
			     u64 when)
{
	struct itimerspec its = { 0 };

	if (when != EXEC_TIME_NEVER) {
		/* 0 would disarm: the earliest real time is 1 ns. */
		when = max_t(u64, when, 1);
		its.it_value.tv_sec = (time_t)(when / 1000000000ULL);
		its.it_value.tv_nsec = (long)(when % 1000000000ULL);
	}
	/* Only EBADF or EINVAL could fail, neither of which we pass. */
	WARN_ON_ONCE(timerfd_settime(ce->tfd[clock], TFD_TIMER_ABSTIME, &its,
				     NULL));
}

static int exec_clockev_thread(void *arg)
{
	struct exec_clockev *ce = arg;
	struct pollfd pfd[EXEC_CLOCK_COUNT + 1];
	unsigned int clock;
	u64 expirations;
	ssize_t n;

	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		pfd[clock].fd = ce->tfd[clock];
		pfd[clock].events = POLLIN;
	}
	pfd[EXEC_CLOCK_COUNT].fd = ce->stop_fd;
	pfd[EXEC_CLOCK_COUNT].events = POLLIN;
	for (;;) {
		/* EINTR from a signal is a spurious wake-up: look again. */
		if (poll(pfd, ARRAY_SIZE(pfd), -1) < 0)
			continue;
		/* Pairs with the release in exec_clockev_stop(). */
		if (smp_load_acquire(&ce->state) == EXEC_CLOCKEV_STOPPING)
			return 0;
		for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
			/* Non-blocking: re-armed meanwhile, it has nothing. */
			if (pfd[clock].revents & POLLIN)
				n = read(ce->tfd[clock], &expirations,
					 sizeof(expirations));
		}
		(void)n;
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
	unsigned int clock;

	BUILD_BUG_ON(ARRAY_SIZE(ce->when) != EXEC_CLOCK_COUNT);
	ce->handler = handler;
	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		ce->when[clock] = EXEC_TIME_NEVER;
		ce->seq[clock] = 0;
		ce->applied[clock] = 0;
		ce->tfd[clock] = -1;
	}
	atomic_set(&ce->committing, 0);
	ce->stop_fd = -1;
	ce->state = EXEC_CLOCKEV_IDLE;
	exec_user_lock_init(&ce->lock);
	return 0;
}

static void exec_clockev_close(struct exec_clockev *ce)
{
	unsigned int clock;

	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		if (ce->tfd[clock] >= 0)
			close(ce->tfd[clock]);
		ce->tfd[clock] = -1;
	}
	if (ce->stop_fd >= 0)
		close(ce->stop_fd);
	ce->stop_fd = -1;
}

/* The timerfds and the stop eventfd; -errno if one cannot be had. */
static int exec_clockev_open(struct exec_clockev *ce)
{
	unsigned int clock;

	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		ce->tfd[clock] = timerfd_create(exec_clockev_clockid[clock],
						TFD_NONBLOCK | TFD_CLOEXEC);
		if (ce->tfd[clock] < 0)
			goto err_close;
	}
	ce->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ce->stop_fd < 0)
		goto err_close;
	return 0;

err_close:
	exec_clockev_close(ce);
	/* EMFILE, ENFILE, ENOMEM: no resources for now. */
	return -EAGAIN;
}

/**
 * exec_clockev_start - create the device's timerfds and thread, if not yet
 * @ce: the device
 *
 * Times programmed before the start are armed by it.
 *
 * Context: Thread context (every userspace caller is).
 * Return: 0; -EAGAIN if the timerfds or the thread cannot be had (fd limit,
 * memory, thread limit); -ESHUTDOWN after exec_clockev_stop().
 */
int exec_clockev_start(struct exec_clockev *ce)
{
	int ret = 0;

	/* Pairs with the release below: the fds and thread are set up. */
	if (likely(smp_load_acquire(&ce->state) == EXEC_CLOCKEV_RUNNING))
		return 0;
	pthread_mutex_lock(&ce->lock);
	switch (ce->state) {
	case EXEC_CLOCKEV_IDLE:
		ret = exec_clockev_open(ce);
		if (ret)
			break;
		ret = exec_fault_thread_start() ? -EAGAIN :
		      exec_thread_start(&ce->thread, exec_clockev_thread, ce,
					"exec-timer");
		if (ret) {
			exec_clockev_close(ce);
			break;
		}
		/*
		 * Pairs with the acquire at the top: the fds and thread are
		 * set up.  From here on commits arm the timerfds; what was
		 * recorded before is armed here, through the same loop as a
		 * commit's, so that this arm and a racing commit's leave the
		 * newer time armed whichever lands last.
		 */
		smp_store_release(&ce->state, EXEC_CLOCKEV_RUNNING);
		exec_clockev_apply(ce);
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
 * @when: absolute time on the system clock, or EXEC_TIME_NEVER to disarm
 *
 * Records the time only: the clock's timerfd is armed by the
 * exec_clockev_commit() that follows the owner's unlock (one system call
 * then, and no wake-up of the thread unless the time comes).
 *
 * Context: Any context; called under the owner's lock (a timer base's, the
 * watchdog's), which serialises the calls for one device.
 */
void exec_clockev_program(struct exec_clockev *ce, unsigned int clock,
			  u64 when)
{
	if (READ_ONCE(ce->when[clock]) == when)
		return;
	WRITE_ONCE(ce->when[clock], when);
	/* Pairs with the acquires in commit() and exec_clockev_apply(). */
	smp_store_release(&ce->seq[clock], ce->seq[clock] + 1);
}

static void exec_clockev_arm_recorded(struct exec_clockev *ce);

/**
 * exec_clockev_apply - arm the timerfds for what program() recorded
 * @ce: the device
 *
 * exec_clockev_commit()'s slow path.  Commits may run at once in several
 * threads, each arming the time it read, so a commit arms again until no
 * program() came between its read of @seq and its arm: an arm of an older
 * time that lands last was made by a commit that then finds @seq moved and
 * arms the newer one.  The timerfd's own lock orders the arms, and the
 * read of @seq after it sees every program() whose commit armed before.
 * Before start(), nothing is armed: start() arms what was recorded.
 *
 * Context: Any context; not under the owner's lock (that is the point).
 */
void exec_clockev_apply(struct exec_clockev *ce)
{
	/*
	 * Counted before the look at @state, which a commit makes out of
	 * the owner's lock: stop() closes the timerfds only once no commit
	 * that saw the device running is left.  The count is fully ordered:
	 * before the look, as stop()'s store is before its look at the
	 * count, and after the records (for start()).
	 */
	atomic_inc_return(&ce->committing);
	if (READ_ONCE(ce->state) == EXEC_CLOCKEV_RUNNING)
		exec_clockev_arm_recorded(ce);
	/* Fully ordered: the arms before it, for stop()'s acquire. */
	atomic_dec_return(&ce->committing);
}

static void exec_clockev_arm_recorded(struct exec_clockev *ce)
{
	unsigned long seq, armed;
	unsigned int clock;

	for (clock = 0; clock < EXEC_CLOCK_COUNT; clock++) {
		/* Pairs with the release in program(): @when is its. */
		seq = smp_load_acquire(&ce->seq[clock]);
		if (seq == READ_ONCE(ce->applied[clock]))
			continue;
		do {
			armed = seq;
			exec_clockev_set(ce, clock, READ_ONCE(ce->when[clock]));
			/* The arm before the second look at @seq. */
			smp_mb();
			/* Pairs with the release in program(), as above. */
			seq = smp_load_acquire(&ce->seq[clock]);
		} while (seq != armed);
		WRITE_ONCE(ce->applied[clock], armed);
	}
}

/**
 * exec_clockev_stop - stop the device: the handler is not called any more
 * @ce: the device
 *
 * The device stays usable: a later start() returns -ESHUTDOWN, as an arm
 * on a pool shut down by exec_thread_pool_shutdown_hard() calls it before
 * it finds the base dead.  exec_clockev_fini() releases the lock.
 *
 * Context: Process context; sleeps.  Not from the handler.
 */
void exec_clockev_stop(struct exec_clockev *ce)
{
	u64 one = 1;
	ssize_t n;

	pthread_mutex_lock(&ce->lock);
	if (ce->state == EXEC_CLOCKEV_RUNNING) {
		/*
		 * Pairs with the acquire in exec_clockev_thread(); fully
		 * ordered, before the look at @committing below, as
		 * exec_clockev_apply()'s count is before its look at @state.
		 */
		smp_store_mb(ce->state, EXEC_CLOCKEV_STOPPING);
		n = write(ce->stop_fd, &one, sizeof(one));
		WARN_ON_ONCE(n != sizeof(one));
		exec_thread_join(&ce->thread);
		/* Pairs with exec_clockev_apply()'s fully ordered count. */
		while (atomic_read_acquire(&ce->committing))
			exec_backoff_sleep();
		exec_clockev_close(ce);
	}
	/* Read without the lock by start(), which a later arm still calls. */
	WRITE_ONCE(ce->state, EXEC_CLOCKEV_STOPPED);
	pthread_mutex_unlock(&ce->lock);
}

/**
 * exec_clockev_fini - release a device, stopped or never started
 * @ce: the device; nothing may use it any more
 *
 * Context: Process context.
 */
void exec_clockev_fini(struct exec_clockev *ce)
{
	pthread_mutex_destroy(&ce->lock);
}

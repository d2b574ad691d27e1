// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace platform: threads, futexes, locks and the per-thread pointer
 * behind the kernel API mirrored in user/include/exec_platform.h.  The parker
 * is in user/parker.c.
 */
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec_platform.h"

/*
 * Initial-exec: the core reads this on every submission to find out whether
 * it runs on one of its own workers, so it must be a plain %fs-relative load
 * rather than a __tls_get_addr() call.
 */
__thread void *exec_user_thread_self __attribute__((tls_model("initial-exec")));

/**
 * exec_user_yield - give the CPU to another runnable thread
 *
 * Backs cond_resched(): a userspace thread spinning on another one that was
 * preempted would otherwise burn its whole time slice.
 */
void exec_user_yield(void)
{
	sched_yield();
}

/**
 * exec_user_spin_wait - the contended half of spin_lock()
 * @lock: the lock, found held
 *
 * Spins on a plain load (no cache-line stealing while the holder works),
 * and yields the CPU now and then in case the holder was preempted.
 */
void exec_user_spin_wait(spinlock_t *lock)
{
	unsigned int spins = 0;

	do {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
			if (++spins % EXEC_USER_SPIN_YIELD)
				cpu_relax();
			else
				sched_yield();
		}
	} while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE));
}

/**
 * exec_user_lock_init - initialise the mutex behind struct mutex
 * @m: the mutex
 *
 * The critical sections are short, so an adaptive mutex spins a little
 * before sleeping, which is what a spinlock holder on another CPU needs; but
 * it does sleep, because a userspace holder may be preempted.
 */
void exec_user_lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(m, &attr);
	pthread_mutexattr_destroy(&attr);
}

/**
 * exec_futex_wait - sleep while *@uaddr still holds @val
 * @uaddr: the futex word
 * @val: the value the caller last saw
 *
 * Returns at once if *@uaddr no longer equals @val (EAGAIN), and may return
 * on a signal (EINTR) or spuriously; callers re-test their condition in a
 * loop, so the error is not reported.
 */
void exec_futex_wait(u32 *uaddr, u32 val)
{
	syscall(SYS_futex, uaddr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/**
 * exec_futex_wait_until - exec_futex_wait() with an absolute deadline
 * @uaddr: the futex word
 * @val: the value the caller last saw
 * @realtime: whether @when is on CLOCK_REALTIME (else CLOCK_MONOTONIC)
 * @when: the deadline in nanoseconds
 *
 * FUTEX_WAIT_BITSET, the futex operation that takes an absolute time on a
 * chosen clock; a realtime wait follows changes of the system clock.
 */
void exec_futex_wait_until(u32 *uaddr, u32 val, bool realtime, u64 when)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when / 1000000000ULL),
		.tv_nsec = (long)(when % 1000000000ULL),
	};

	syscall(SYS_futex, uaddr,
		FUTEX_WAIT_BITSET_PRIVATE | (realtime ? FUTEX_CLOCK_REALTIME : 0),
		val, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

/**
 * exec_futex_wake - wake threads sleeping in exec_futex_wait() on @uaddr
 * @uaddr: the futex word
 * @nr: the most threads to wake (INT_MAX for all)
 */
void exec_futex_wake(u32 *uaddr, int nr)
{
	syscall(SYS_futex, uaddr, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

static void *exec_thread_trampoline(void *arg)
{
	struct exec_thread *thread = arg;

	/*
	 * Named from the thread itself: that is a prctl(), where naming it
	 * from the creator would go through /proc, which may not be mounted.
	 */
	pthread_setname_np(pthread_self(), thread->name);
	return (void *)(intptr_t)thread->fn(thread->arg);
}

/**
 * exec_thread_start - start a worker thread
 * @thread: the thread; must stay valid until exec_thread_join() returns
 * @fn: what it runs; its return value is ignored
 * @arg: @fn's argument
 * @name: the thread's name, truncated to 15 characters; NULL for "exec"
 *
 * The new thread blocks every signal: a library's workers must never be the
 * thread the kernel picks to deliver a process-directed signal to, since the
 * application's handlers do not expect to run there.
 *
 * Return: 0, or a negative errno from pthread_create() (-EAGAIN when out of
 * threads or memory).
 */
int exec_thread_start(struct exec_thread *thread, int (*fn)(void *arg),
		      void *arg, const char *name)
{
	sigset_t all, old;
	int ret;

	thread->fn = fn;
	thread->arg = arg;
	snprintf(thread->name, sizeof(thread->name), "%s",
		 name ? name : "exec");

	/* The new thread inherits the creator's mask; restore ours after. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&thread->tid, NULL, exec_thread_trampoline,
			     thread);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

/**
 * exec_thread_join - wait for a thread started by exec_thread_start()
 * @thread: the thread
 *
 * Blocks until its function has returned, and releases the thread.
 */
void exec_thread_join(struct exec_thread *thread)
{
	pthread_join(thread->tid, NULL);
}

/**
 * exec_online_cpus - number of CPUs currently online
 *
 * Return: at least 1, even when sysconf() cannot tell.
 */
unsigned int exec_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1U;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The library's initialisation, before main() as the kernel's module init,
 * and its fork() handlers.
 *
 * A process that has used the library may fork, a daemon to detach itself
 * above all.  Only the forking thread exists in the child: the library's
 * workers, timer threads and I/O threads stay in the parent, and so do the
 * rings and timers they use, which the child shares through its copies of
 * their descriptors and mappings.  The handlers registered here make the
 * library usable in the child by itself, without the application's help:
 *
 *  prepare  every process-wide lock of the library is taken, so that no
 *           other thread holds one when the child is made and the state
 *           each guards is between two changes;
 *  parent   they are released;
 *  child    they are released, and what belongs to the parent's threads
 *           and executors is forgotten: the child's default executor is a
 *           new built-in pool, started on first use; the timer and
 *           watchdog lists, the running records and the wakeup backend's
 *           rings start empty, and the slab caches take back what the
 *           parent's other threads kept of them (core/default.c,
 *           core/timer.c, core/watchdog.c, user/parker.c, user/slab.c).
 *
 * Executors and I/O contexts made before the fork are the parent's: the
 * child must not use them, nor destroy them (that would wait for threads
 * it does not have); their memory and descriptors stay, unused, in the
 * child.  See Documentation/services.rst.
 *
 * The order is P0113's for services, with the layers as services added
 * from the bottom up (the log first, the default executor last): prepare
 * from the top down, parent and child from the bottom up.  Registered
 * from a constructor, these handlers come before the application's in
 * pthread_atfork()'s order: its prepare handlers run before ours, while
 * the library still works, and its parent and child handlers after ours,
 * when it works again.
 */
#include "platform.h"

static void exec_fork_prepare(void)
{
	exec_default_fork(EXEC_FORK_PREPARE);
	exec_timer_sys_fork(EXEC_FORK_PREPARE);
	exec_watchdog_fork(EXEC_FORK_PREPARE);
	exec_closures_fork(EXEC_FORK_PREPARE);
	exec_static_context_fork(EXEC_FORK_PREPARE);
	exec_parker_fork(EXEC_FORK_PREPARE);
	exec_user_log_fork(EXEC_FORK_PREPARE);
	exec_user_slab_fork(EXEC_FORK_PREPARE);
}

static void exec_fork_resume(enum exec_fork_event event)
{
	exec_user_slab_fork(event);
	exec_user_log_fork(event);
	exec_parker_fork(event);
	exec_static_context_fork(event);
	exec_closures_fork(event);
	exec_watchdog_fork(event);
	exec_timer_sys_fork(event);
	exec_default_fork(event);
}

static void exec_fork_parent(void)
{
	exec_fork_resume(EXEC_FORK_PARENT);
}

static void exec_fork_child(void)
{
	exec_fork_resume(EXEC_FORK_CHILD);
}

static void __attribute__((constructor)) exec_user_init(void)
{
	exec_timer_sys_init();
	/*
	 * Fails only without memory for the handlers: a fork would then
	 * leave the child what it left before they existed.
	 */
	WARN_ON_ONCE(pthread_atfork(exec_fork_prepare, exec_fork_parent,
				    exec_fork_child));
}

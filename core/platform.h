/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The platform interface: everything the shared core asks of the operating
 * system.
 *
 * The core is written against the kernel's own API (atomic_t, spinlock_t,
 * wait_queue_head_t, wait_event(), kmalloc(), READ_ONCE(), smp_mb(), ...).
 * In the kernel those are the real thing; in userspace user/include/
 * exec_platform.h mirrors them on pthreads, futexes and C11-style atomics,
 * the way OpenZFS's zfs_context.h lets kernel code build in userspace.  Which
 * backend is used is decided by which exec_platform.h is on the include path,
 * never by #ifdef in the core.
 *
 * Beyond the mirrored kernel API each backend provides the few things the two
 * worlds do differently, declared here with the same names in both:
 *
 *   struct exec_thread             a worker thread (pthread / kthread)
 *   exec_thread_start()            start one; returns 0 or -errno
 *   exec_thread_start_attr()       the same, with thread attributes
 *   exec_thread_stack_check()      whether a stack size can be had
 *   exec_cpu_online()              whether a CPU is online
 *   exec_thread_join()             wait for it to return and reap it
 *   exec_thread_freeze_point()     a worker between two items: a freezable
 *                                  kthread freezes here during a suspend
 *                                  (no-op in userspace)
 *   exec_freezer_active()          whether a system freeze is in progress
 *                                  (false in userspace)
 *   struct exec_thread_sample      what exec_thread_blocked() remembers
 *   exec_thread_blocked()          whether a busy thread is off CPU
 *   exec_thread_self_get/set()     one pointer of the core's per thread
 *   struct exec_parker             one thread's sleep/wake point
 *   exec_parker_init/destroy()
 *   exec_parker_park()             sleep until unparked (permit semantics)
 *   exec_parker_unpark()           wake the parked thread, or make its next
 *                                  park return at once
 *   exec_online_cpus()             number of online CPUs
 *   exec_cpu_ids()                 one more than the highest CPU number
 *   exec_clock_read()              CLOCK_MONOTONIC or CLOCK_REALTIME, in ns
 *   exec_clock_read_local()        a cheap clock for a thread's own short
 *                                  measures (sched_clock / CLOCK_MONOTONIC)
 *   struct exec_clockev            a clock event device for one timer base:
 *                                  calls its handler when the time programmed
 *                                  on either clock has come (hrtimers /
 *                                  a thread asleep on timerfds)
 *   exec_clockev_is_thread()       whether the device's handler runs in a
 *                                  thread, which may also take the wheel's
 *                                  early cascades: false / true
 *   exec_clockev_init/start/stop/fini()
 *   exec_clockev_program()         (re)program one clock's event
 *   exec_clockev_commit()          after the owner's unlock: arm what
 *                                  program() recorded (nothing / the
 *                                  timerfd, a system call)
 *   exec_parker_park_until()       park, but no later than a deadline
 *   exec_symbol_name()             a function's name for a report (%ps /
 *                                  dladdr(), else its address)
 *   struct exec_cpu_timer          a one-shot timer run in hard interrupt
 *                                  context on the CPU that armed it (an
 *                                  hrtimer; none in userspace:
 *                                  EXEC_HAVE_CPU_TIMER 0)
 *   exec_cpu_timer_init/arm/pending/cancel()
 *   exec_local_closures()          the caller's closure cache: its CPU's
 *                                  (interrupts off) / its thread's
 *   exec_local_closures_release()  free the caches, at module exit
 *   exec_kzalloc_aligned()         a zeroed object aligned as its type
 *                                  asks (kzalloc() / calloc() or
 *                                  aligned_alloc())
 *   struct exec_cpu_watch          told when a CPU goes offline or comes
 *                                  online (a cpuhp multi-instance state;
 *                                  never in userspace: EXEC_HAVE_CPU_WATCH 0)
 *   exec_cpu_watch_add/remove()
 *   exec_cpus_hold/release()       keep CPUs from going offline or coming
 *                                  online meanwhile (cpus_read_lock())
 *   exec_thread_set_cpu()          bind a thread to one CPU, or unbind it
 *   struct exec_lockdep            what the lock validator knows of one
 *                                  executor: a lockdep map and its key
 *                                  (CONFIG_LOCKDEP) / nothing
 *   exec_lockdep_init()            register it; process context, may
 *                                  sleep
 *   exec_lockdep_free()            unregister it and kfree() the object
 *                                  that holds it: at once, or later
 *                                  (lockdep waits for a grace period)
 *   exec_lockdep_run_begin/end()   around an item's run: the map taken
 *                                  as a recursive reader
 *   exec_lockdep_wait()            before a wait for items: the map taken
 *                                  and released as a writer, so that a
 *                                  lock held around the wait and taken by
 *                                  an item is a reported cycle
 *   EXEC_HAVE_LOCKDEP              whether those record anything: 1 / 0
 *   struct exec_lockdep_site       the same for a task group, whose class
 *                                  is its creator's call site's static
 *                                  key (a lockdep_map / nothing)
 *   exec_lockdep_site_init/run_begin/run_end/wait()
 *   EXEC_STEPS_PREEMPTIBLE         whether another thread's few steps
 *                                  (a producer between its two stores)
 *                                  can be preempted: 0 / 1
 *   exec_backoff_sleep()           the last step of a back-off, for a
 *                                  thread waited for that may be waiting
 *                                  for a CPU: cond_resched() / a sleep
 *                                  of some microseconds
 *   exec_stats_file_add/remove()   an executor's statistics file (debugfs /
 *                                  none)
 *
 * and the core gives the backends, declared at the end of this file: its
 * fault points, which the backends' own allocations and thread starts go
 * through; exec_timer_sys_init(), which the backend's initialisation calls
 * first (module init / the library's constructor); its teardown, for the
 * module's exit; the report a statistics file shows; and its state across
 * fork(), for the userspace library's fork handlers.  A backend includes
 * this header and the public ones, never core/internal.h
 * (scripts/check-layout.sh checks user/, and kernel/ but for the test
 * modules of kernel/tests/).
 *
 * The parker is a binary permit, as in LockSupport.park(): unpark() makes the
 * permit available and wakes the owner if it sleeps; park() consumes the
 * permit, sleeping until there is one.  park() may return spuriously; callers
 * recheck their condition.  unpark() costs no system call when the owner is
 * not asleep.
 */
#ifndef EXEC_CORE_PLATFORM_H
#define EXEC_CORE_PLATFORM_H

#include <exec/context.h>
#include <exec/thread_attr.h>

#include "exec_platform.h"

/*
 * Threads with attributes.  The core checks @attr first
 * (exec_thread_attr_check(), which uses the other two); the backend applies
 * it: the name given (already "prefix/N"), the nice value and the CPU mask,
 * set by the new thread itself before it runs @fn, and the stack size.  The
 * thread reports whether that worked before exec_thread_start_attr()
 * returns; if not, it exits without running @fn, is joined, and the error
 * is returned.  @attr->name is not used here; NULL @attr is
 * exec_thread_start().
 */
int exec_thread_start_attr(struct exec_thread *thread, int (*fn)(void *arg),
			   void *arg, const char *name,
			   const struct exec_thread_attr *attr);
/* 0 if threads can have a stack of @size bytes (0: the default), or -errno. */
int exec_thread_stack_check(size_t size);
/* Whether @cpu is online now. */
bool exec_cpu_online(unsigned int cpu);
/*
 * Whether @thread, known to be running an item, is blocked rather than
 * running: approximate, for a growing pool's manager.  Called by one thread
 * at a time per @sample (zeroed before the first call), while @thread has
 * not been joined.
 */
bool exec_thread_blocked(struct exec_thread *thread,
			 struct exec_thread_sample *sample);

/*
 * Prints the stack of @thread, a thread of the library that has not been
 * joined, where the platform can (the kernel); nothing elsewhere.  Any
 * context.
 */
void exec_thread_show_stack(struct exec_thread *thread);

/*
 * CPU hotplug.  exec_cpu_watch_add() registers @watch, set up by the
 * caller (its @fn), for the CPUs that go offline or come online from then
 * on; 0 or -errno.  exec_cpu_watch_remove() unregisters it and returns
 * once no call of @fn runs.  Both may sleep, take the CPU hotplug lock
 * and must not be called with exec_cpus_hold() held or from @fn.
 * exec_cpus_hold() keeps every CPU online or offline until
 * exec_cpus_release().  exec_thread_set_cpu() binds @thread, started and
 * not joined, to @cpu, or with -1 lets it run on any CPU; 0 or -errno.
 * In userspace no watch is ever called and the rest does nothing.
 */
#if EXEC_HAVE_CPU_WATCH
int exec_cpu_watch_add(struct exec_cpu_watch *watch);
void exec_cpu_watch_remove(struct exec_cpu_watch *watch);
void exec_cpus_hold(void);
void exec_cpus_release(void);
int exec_thread_set_cpu(struct exec_thread *thread, int cpu);
#endif

/* Declared once here; each backend defines them (the contract below). */
int exec_clockev_init(struct exec_clockev *ce,
		      void (*handler)(struct exec_clockev *ce));
int exec_clockev_start(struct exec_clockev *ce);
void exec_clockev_program(struct exec_clockev *ce, unsigned int clock,
			  u64 when);
void exec_clockev_stop(struct exec_clockev *ce);
void exec_clockev_fini(struct exec_clockev *ce);

/*
 * Writes the name of the function at @addr into @buf (@size bytes, NUL
 * terminated), as the kernel's %ps prints it: "name" or "name+0xoff", or
 * the address when no name is known.  Any context.
 */
void exec_symbol_name(char *buf, size_t size, const void *addr);
#define EXEC_SYMBOL_NAME_LEN	128

/*
 * Record caches (core/executor.c), which every per-call item of the core
 * (closures and the like) comes from: one per CPU in the kernel, handed out
 * with interrupts off, one per thread in userspace, handed to
 * exec_closure_cache_exit() when its thread exits.  The core allocates
 * from the cache exec_local_closures() returns with interrupts off
 * (local_irq_save()), so that nothing else on the CPU or thread uses it
 * meanwhile.  exec_local_closures_release() frees every cache's memory; the
 * kernel module's exit calls it (through exec_default_shutdown()) once
 * every record has been freed.
 */
#define EXEC_RECORD_CLASSES	4	/* slots of 1, 2, 4 and 8 lines */
#define EXEC_RECORD_LINE	64
struct exec_record_chunk;
/**
 * struct exec_record_ring - the slots of one size class of a cache
 * @chunk: O: the chunk the cursor is in, NULL until the first allocation;
 *	the chunks form a ring; owned by the CPU or thread
 * @index: O: the cursor's slot in @chunk; owned by the CPU or thread
 */
struct exec_record_ring {
	struct exec_record_chunk *chunk;
	unsigned int index;
};

/**
 * struct exec_closure_cache - the records of one CPU or thread
 * @rings: O: one ring per size class; owned by the CPU or thread
 */
struct exec_closure_cache {
	struct exec_record_ring rings[EXEC_RECORD_CLASSES];
};

struct exec_closure_cache *exec_local_closures(void);
void exec_local_closures_release(void);
void exec_closure_cache_exit(struct exec_closure_cache *cache);
void exec_closure_cache_release(struct exec_closure_cache *cache);
void exec_closure_orphans_release(void);

/*
 * Statistics files, per executor (core/stats_count.h): the kernel's are in
 * debugfs; userspace has none (NULL), and reads statistics through
 * exec_executor_stats().  exec_stats_file_remove() takes what
 * exec_stats_file_add() returned.
 */
void *exec_stats_file_add(struct exec_executor *ex, const char *name);
void exec_stats_file_remove(void *file);

/* For backends that sleep on one clock at a time (core/parker.c). */
u64 exec_parker_first_deadline(const u64 *when, unsigned int *clock);

/* exec_parker::sleeping: which sleep the owner is (about to be) in. */
#define EXEC_PARKER_AWAKE	0
#define EXEC_PARKER_SLEEP	1	/* exec_parker_sleep() */
#define EXEC_PARKER_SLEEP_UNTIL	2	/* exec_parker_sleep_until() */

/*
 * Both backends must provide, as functions or static inlines:
 *
 *   int exec_thread_start(struct exec_thread *thread, int (*fn)(void *arg),
 *                         void *arg, const char *name);
 *   void exec_thread_join(struct exec_thread *thread);
 *   void *exec_thread_self_get(void);
 *   void exec_thread_self_set(void *self);
 *   int exec_parker_init(struct exec_parker *parker);
 *   void exec_parker_destroy(struct exec_parker *parker);
 *   void exec_parker_sleep(struct exec_parker *parker);
 *   void exec_parker_wake(struct exec_parker *parker, int sleeping);
 *
 * and struct exec_parker with the fields @permit and @sleeping; park() and
 * unpark() over them are core/parker.c.
 *   unsigned int exec_online_cpus(void);
 *   unsigned int exec_cpu_ids(void);
 *   u64 exec_clock_read(unsigned int clock);     EXEC_CLOCK_* of timer.h
 *   u64 exec_clock_read_local(void);
 *   int exec_clockev_init(struct exec_clockev *ce,
 *                         void (*handler)(struct exec_clockev *ce));
 *   int exec_clockev_start(struct exec_clockev *ce);
 *   void exec_clockev_program(struct exec_clockev *ce, unsigned int clock,
 *                             u64 when);
 *   static inline void exec_clockev_commit(struct exec_clockev *ce);
 *   void exec_clockev_stop(struct exec_clockev *ce);
 *   void exec_clockev_fini(struct exec_clockev *ce);
 *   void exec_parker_sleep_until(struct exec_parker *parker,
 *                                const u64 *when);
 *
 * The clock event device: init() prepares it and cannot fail for lack of a
 * thread; start() is called before each arm, from any context, and may
 * start what the device needs (userspace starts its thread on first use;
 * a kernel hrtimer needs nothing).  program() is called under the base's
 * raw spinlock, from any context, with an absolute time on @clock
 * (EXEC_TIME_NEVER: no event needed); the device calls @handler, from any
 * context it likes, no sooner than that time; it may call it spuriously.
 * A backend whose arm is a system call may only record the time in
 * program(), and arm it in exec_clockev_commit() (static inline in its
 * header), which the owner calls after it drops the lock that program()
 * ran under: a userspace thread that enters the kernel while it holds a
 * spinlock may be preempted on the way out, and everyone waiting for the
 * lock then waits for it to get a CPU back.
 * stop() waits until @handler is not running and never will again.
 *
 * exec_parker_sleep_until() is exec_parker_sleep() bounded by absolute
 * times on each clock (@when[EXEC_CLOCK_*], EXEC_TIME_NEVER for none);
 * core/parker.c builds exec_parker_park_until() on it.  exec_parker_wake()
 * is told which of the two sleeps the owner is in (EXEC_PARKER_SLEEP or
 * EXEC_PARKER_SLEEP_UNTIL), in case the backend wakes them differently;
 * it is called after a full barrier that follows the permit's store (the
 * exchange in exec_parker_unpark()), which a backend may count on instead
 * of a barrier of its own.
 */

/*
 * What the core gives the backends.
 *
 * Fault points (core/executor.c): a backend's thread starts and
 * allocations pass them too, so that the tests' sweeps fail each in turn
 * (exec_fault_inject_*() of core/internal.h arms them): true when this one
 * must fail.
 */
bool exec_fault_thread_start(void);
bool exec_fault_alloc(void);

/* The library-wide timer state: the backend's initialisation, first. */
void exec_timer_sys_init(void);

/*
 * The library's teardown, for the kernel module's exit (kernel/module.c),
 * once no other module uses exec.ko, in this order: the inline executor's
 * execution context, whose services are shut down and destroyed while the
 * default pool can still run what they submit; the default executor (the
 * built-in pool's queue run, its threads joined, the record caches
 * freed); the stall watchdog; the strands' cache.  A userspace process
 * never tears the library down; its tests take these steps
 * (tests/user/library_exit_test.c).
 */
void exec_static_context_release(void);
void exec_default_shutdown(void);
void exec_watchdog_exit(void);
void exec_serial_sys_exit(void);

/*
 * What a statistics file of exec_stats_file_add() shows (core/stats.c):
 * @ex's report, as lines handed to @emit, under the file's @name.
 */
void exec_stats_show(struct exec_executor *ex, const char *name,
		     void (*emit)(void *ctx, const char *line), void *ctx);

/*
 * The core's state across fork(), for the userspace library's
 * pthread_atfork() handlers (user/init.c; the kernel has no fork).  Each
 * takes its locks at EXEC_FORK_PREPARE, so that no other thread holds them
 * when the child is made, releases them at EXEC_FORK_PARENT, and at
 * EXEC_FORK_CHILD releases them and forgets what belongs to the parent's
 * other threads and executors.
 */
void exec_default_fork(enum exec_fork_event event);
void exec_watchdog_fork(enum exec_fork_event event);
void exec_timer_sys_fork(enum exec_fork_event event);
void exec_closures_fork(enum exec_fork_event event);
void exec_static_context_fork(enum exec_fork_event event);

#endif /* EXEC_CORE_PLATFORM_H */

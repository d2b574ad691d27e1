/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel platform: the shared core is written against the kernel API, so
 * here that API is simply the kernel's own.  Beyond it, this header declares
 * what core/platform.h asks every backend for: worker threads (kthreads), the
 * per-task pointer of the core's frame stack, the parker, and the number of
 * online CPUs.  They are implemented in kernel/platform.c.
 *
 * user/include/exec_platform.h is the userspace mirror of this header.
 */
#ifndef EXEC_KERNEL_PLATFORM_H
#define EXEC_KERNEL_PLATFORM_H

#include <linux/atomic.h>
#include <linux/bit_spinlock.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/freezer.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcuwait.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

/*
 * The userspace mirror has a destroy step for its locks (its struct mutex is
 * a pthread mutex); the kernel's locks need nothing.
 */
#define spin_lock_destroy(lock)	((void)(lock))
#define raw_spin_lock_destroy(lock)	((void)(lock))

/*
 * Whether another thread's few steps that a waiter spins for (a producer
 * between its two stores) can be preempted: here they run with interrupts
 * off, so a wait in any context only spins (exec_backoff_any_context()).
 */
#define EXEC_STEPS_PREEMPTIBLE	0

/* The last step of exec_backoff(): a thread waited for runs on its CPU. */
#define exec_backoff_sleep()	cond_resched()

/*
 * A zeroed object of @size bytes that its type wants aligned to @align: the
 * slab caches align every object naturally, so kzalloc().  The userspace
 * mirror aligns it to @align only, where its kmalloc() gives every object
 * of a cache line or more a line of its own, as the slab caches do, at the
 * price of aligned_alloc()'s split chunks: for objects made by the
 * thousand (strands, futures), through exec_kzalloc_obj() (internal.h).
 */
static inline void *exec_kzalloc_aligned(size_t size, size_t align, gfp_t gfp)
{
	return kzalloc(size, gfp);
}

/*
 * The wait annotations (core/platform.h): a lockdep map per executor, with
 * a key of its own registered at run time, as the workqueue gives every
 * workqueue one, so that two executors are two lock classes.  Without
 * CONFIG_LOCKDEP the structure is empty and the calls are nothing.
 */
#ifdef CONFIG_LOCKDEP
/**
 * struct exec_lockdep - what lockdep knows of one executor
 * @map: taken around each item's run and before each wait for items
 * @key: @map's class, registered by exec_lockdep_init()
 * @name: the class's name in lockdep's reports, "exec-<kind>"
 * @free_work: unregisters @key and frees @obj (exec_lockdep_free())
 * @obj: I: the allocation that holds this structure
 */
struct exec_lockdep {
	struct lockdep_map map;
	struct lock_class_key key;
	char name[32];
	struct work_struct free_work;
	void *obj;
};

static inline void exec_lockdep_init(struct exec_lockdep *ld,
				     const char *kind)
{
	snprintf(ld->name, sizeof(ld->name), "exec-%s", kind);
	lockdep_register_key(&ld->key);
	lockdep_init_map(&ld->map, ld->name, &ld->key, 0);
}

void exec_lockdep_free(struct exec_lockdep *ld, void *obj);

#define exec_lockdep_run_begin(ld)	lock_map_acquire_read(&(ld)->map)
#define exec_lockdep_run_end(ld)	lock_map_release(&(ld)->map)

static inline void exec_lockdep_wait(struct exec_lockdep *ld)
{
	lock_map_acquire(&ld->map);
	lock_map_release(&ld->map);
}

#define EXEC_HAVE_LOCKDEP	1

/**
 * struct exec_lockdep_site - what lockdep knows of one task group
 * @map: taken around each of its items' runs and before each wait for
 *	them; its class is the creator's call site's static key, as
 *	spin_lock_init() gives each lock the class of its call site
 */
struct exec_lockdep_site {
	struct lockdep_map map;
};

#define exec_lockdep_site_init(s, name, key)				\
	lockdep_init_map(&(s)->map, (name), (key), 0)
#define exec_lockdep_site_run_begin(s)	lock_map_acquire_read(&(s)->map)
#define exec_lockdep_site_run_end(s)	lock_map_release(&(s)->map)

static inline void exec_lockdep_site_wait(struct exec_lockdep_site *s)
{
	lock_map_acquire(&s->map);
	lock_map_release(&s->map);
}
#else
struct exec_lockdep {
};

#define exec_lockdep_init(ld, kind)	((void)(ld), (void)(kind))
#define exec_lockdep_free(ld, obj)	((void)(ld), kfree(obj))
#define exec_lockdep_run_begin(ld)	((void)(ld))
#define exec_lockdep_run_end(ld)	((void)(ld))
#define exec_lockdep_wait(ld)		((void)(ld))
#define EXEC_HAVE_LOCKDEP	0

struct exec_lockdep_site {
};

#define exec_lockdep_site_init(s, name, key)	((void)(s), (void)(key))
#define exec_lockdep_site_run_begin(s)		((void)(s))
#define exec_lockdep_site_run_end(s)		((void)(s))
#define exec_lockdep_site_wait(s)		((void)(s))
#endif

/*
 * Exports.  The public API, which the core marks EXPORT_SYMBOL_GPL(), goes
 * into the symbol namespace EXEC: Kbuild compiles exec.ko with
 * DEFAULT_SYMBOL_NAMESPACE=EXEC, and a module using it declares
 * MODULE_IMPORT_NS(EXEC).  Internals the test module (exec_test.ko) needs
 * are exported only in the test build (CONFIG_EXEC_KUNIT_TEST, which Kbuild
 * turns into EXEC_KUNIT_TEST), into KUnit's EXPORTED_FOR_KUNIT_TESTING
 * namespace; in any other build they are not exported at all.
 */
#ifdef EXEC_KUNIT_TEST
#include <kunit/visibility.h>
#define EXPORT_SYMBOL_FOR_TESTS(sym)	EXPORT_SYMBOL_IF_KUNIT(sym)
#else
#define EXPORT_SYMBOL_FOR_TESTS(sym)
#endif

/**
 * struct exec_thread - a worker thread of the library: a kthread
 * @task: the kthread; a reference is held until exec_thread_join(), so that
 *	exec_thread_blocked() may look at it after it has exited
 * @fn: what it runs
 * @arg: @fn's argument
 * @self: the core's per-thread pointer (exec_thread_self_get()) while the
 *	thread runs; written and read only by the thread itself
 * @exited: completed by the thread as its very last act, from kernel text
 *	(kthread_complete_and_exit()), so that exec_thread_join() can free
 *	this structure and the module can go away at once
 * @boot: while the thread starts, what it applies to itself and where it
 *	reports (on the creator's stack: exec_thread_start_attr()); NULL when
 *	there is nothing to apply
 */
struct exec_kthread_boot;

/* Nothing: a kthread's scheduler state is read directly. */
struct exec_thread_sample {
};

struct exec_thread {
	struct task_struct *task;
	int (*fn)(void *arg);
	void *arg;
	void *self;
	struct completion exited;
	struct exec_kthread_boot *boot;
};

int exec_thread_start(struct exec_thread *thread, int (*fn)(void *arg),
		      void *arg, const char *name);
void exec_thread_join(struct exec_thread *thread);

void *exec_thread_self_get(void);
void exec_thread_self_set(void *self);

unsigned int exec_online_cpus(void);
unsigned int exec_cpu_ids(void);

/**
 * struct exec_parker - one thread's sleep/wake point
 * @permit: 1 when an unpark() has not been consumed yet
 * @sleeping: EXEC_PARKER_* of core/platform.h: non-zero while the owner is
 *	(about to be) asleep; an unpark() that finds 0 does not touch @wait
 * @wait: the owner's task while it sleeps (or is about to), else NULL.  An
 *	rcuwait takes no lock, so unpark() may be called from hard interrupt
 *	context, also on PREEMPT_RT.
 *
 * See core/platform.h for the contract.
 */
struct exec_parker {
	int permit;
	int sleeping;
	struct rcuwait wait;
};

int exec_parker_init(struct exec_parker *parker);
void exec_parker_destroy(struct exec_parker *parker);
void exec_parker_park(struct exec_parker *parker);
void exec_parker_sleep(struct exec_parker *parker);
void exec_parker_wake(struct exec_parker *parker, int sleeping);
void exec_parker_unpark(struct exec_parker *parker);
void exec_parker_sleep_until(struct exec_parker *parker, const u64 *when);
void exec_parker_park_until(struct exec_parker *parker, const u64 *when);

/* EXEC_CLOCK_MONOTONIC (0) or EXEC_CLOCK_REALTIME (1), in nanoseconds. */
static inline u64 exec_clock_read(unsigned int clock)
{
	return clock ? ktime_get_real_ns() : ktime_get_ns();
}

/*
 * Whether a freeze is in progress (the suspend freezer's, or a cgroup's):
 * the static key that freezing() tests first, which Linux 6.1 introduced
 * (Kbuild looks for it: EXEC_HAVE_FREEZER_ACTIVE).
 */
static inline bool exec_freezer_active(void)
{
#if defined(CONFIG_FREEZER) && defined(EXEC_HAVE_FREEZER_ACTIVE)
	return static_branch_unlikely(&freezer_active);
#else
	return false;
#endif
}

/*
 * A worker between two items: a freezable kthread that the suspend freezer
 * wants frozen freezes here, before it takes the next item.  freezing() is
 * a static branch while no freeze is in progress, and during one it answers
 * no at once for a kthread that is not freezable (PF_NOFREEZE), so the
 * worker loop pays nothing for it otherwise.
 */
static inline void exec_thread_freeze_point(void)
{
	if (unlikely(freezing(current)))
		try_to_freeze();
}

/*
 * Nanoseconds on a clock for the calling thread's own short measures (how
 * long it spun, how long a park lasted): sched_clock, which never touches
 * the clocksource device (the HPET, where the TSC is not trusted), and may
 * differ by a little between CPUs.
 */
static inline u64 exec_clock_read_local(void)
{
	return local_clock();
}

/**
 * struct exec_clockev - a timer base's clock event device: one hrtimer per
 *	clock, absolute, expiring in hard interrupt context (also on
 *	PREEMPT_RT), so the base's handler only hands due work over
 * @timer: per clock (EXEC_CLOCK_*), the hrtimer on that clock; realtime
 *	hrtimers follow changes of the system clock (clock_was_set())
 * @handler: called from the hrtimers' callbacks
 */
struct exec_clockev {
	struct hrtimer timer[2];
	void (*handler)(struct exec_clockev *ce);
};

/*
 * program() arms the hrtimer itself, under the owner's raw spinlock, where
 * nothing preempts it: nothing is left for the commit after the unlock.
 */
static inline void exec_clockev_commit(struct exec_clockev *ce)
{
}

/*
 * The device is an hrtimer, whose handler runs in hard interrupt context:
 * the wheel's early cascades are left to the executor's idle threads
 * (core/timer.c).
 */
static inline bool exec_clockev_is_thread(void)
{
	return false;
}

/**
 * struct exec_cpu_timer - a one-shot timer whose callback runs in hard
 *	interrupt context on the CPU that armed it: an hrtimer, relative,
 *	pinned and hard (core/platform.h)
 * @hr: the hrtimer
 * @fn: the callback; returns a delay in ns to run again after, or 0
 */
struct exec_cpu_timer {
	struct hrtimer hr;
	u64 (*fn)(struct exec_cpu_timer *t);
};

#define EXEC_HAVE_CPU_TIMER	1

void exec_cpu_timer_init(struct exec_cpu_timer *t,
			 u64 (*fn)(struct exec_cpu_timer *t));
void exec_cpu_timer_arm(struct exec_cpu_timer *t, u64 delay_ns);
void exec_cpu_timer_cancel(struct exec_cpu_timer *t);

/* Whether @t is armed, or its callback runs. */
static inline bool exec_cpu_timer_pending(struct exec_cpu_timer *t)
{
	return hrtimer_active(&t->hr);
}

/**
 * struct exec_cpu_watch - told when a CPU goes offline or comes online: an
 *	instance of the module's cpuhp multi-instance state (kernel/hotplug.c)
 * @node: its link in the state's instances
 * @fn: called for each CPU going offline (@online false) or coming online
 *	(true), from that CPU's hotplug thread, with the CPU hotplug lock
 *	held for writing
 */
struct exec_cpu_watch {
	struct hlist_node node;
	void (*fn)(struct exec_cpu_watch *watch, unsigned int cpu, bool online);
};

#define EXEC_HAVE_CPU_WATCH	1

/*
 * hrtimer_setup() where the kernel has it (6.13: Kbuild defines
 * EXEC_HAVE_HRTIMER_SETUP), hrtimer_init() before; for the kernel's own
 * tests too.
 */
static inline void
exec_hrtimer_setup(struct hrtimer *timer,
		   enum hrtimer_restart (*fn)(struct hrtimer *),
		   clockid_t clock, enum hrtimer_mode mode)
{
#ifdef EXEC_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* EXEC_KERNEL_PLATFORM_H */

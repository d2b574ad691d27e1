// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kernel platform: kthreads, the parker, and the core's per-task pointer
 * (see core/platform.h for the contract and kernel/include/exec_platform.h
 * for the types).  Everything else the core uses is the kernel's own API.
 *
 * The per-task pointer.  The core keeps a LIFO stack of frames per thread of
 * execution (core/internal.h) and asks for its top on every submission, so
 * exec_thread_self_get() must be cheap, and it must work for any caller:
 * the library's own kthreads, any other task (a driver's thread that runs a
 * loop executor, or runs serial items through the inline executor), and
 * interrupt context.  A module cannot add a field to task_struct, so:
 *
 *  - The library's own kthreads keep it in their struct exec_thread, found
 *    through kthread_data() once kthread_func() says that current is one of
 *    ours: two calls into the kernel, no lock, no shared cache line written.
 *
 *  - Interrupt context (hardirq, serving softirq, NMI) is not the task it
 *    interrupted: an interrupt that submits to a thread pool while one of its
 *    workers runs an item must not be mistaken for that worker.  Each CPU has
 *    one slot per level.  Frames are pushed and popped within one run of a
 *    handler, which cannot migrate, and a level does not nest in itself on a
 *    CPU, so the slot always holds the frames of the handler running at
 *    that level on that CPU, and NULL between handlers.  (On PREEMPT_RT,
 *    softirqs run in task context with migration disabled and are
 *    serialised per CPU by the BH lock, which gives the same guarantees.)
 *
 *  - Any other task is looked up in a hash table keyed by its task_struct:
 *    256 buckets, each a list under a raw spinlock taken with interrupts
 *    off (usable from any context, also on PREEMPT_RT).  A task has an
 *    entry only while it has a frame pushed, so most buckets are empty, and
 *    exec_thread_self_get() reads an empty bucket without its lock: only the
 *    calling task adds or removes its own entry, so if it has one, it sees
 *    the bucket non-empty.  The cost for a task outside any executor is one
 *    hash and one load; inside one, a lock round trip and a short list walk.
 *    Entries come from a small static pool, then from GFP_ATOMIC memory; if
 *    both fail the frame is not recorded (warned once), which only makes
 *    "am I running inside executor X" answer no for that task.
 */
#include <linux/freezer.h>
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/debug.h>
#include <linux/sched/task.h>

#include "platform.h"
#include "exec_kernel.h"

/* --- threads ----------------------------------------------------------- */

/**
 * struct exec_kthread_boot - what a new kthread applies to itself
 * @attr: the attributes
 * @cpus: @attr's CPU mask as a cpumask, or NULL
 * @started: completed by the kthread once it has applied them; the last
 *	thing it does with this structure, which lives on the creator's stack
 * @status: 0, or the negative errno with which applying them failed
 */
struct exec_kthread_boot {
	const struct exec_thread_attr *attr;
	const struct cpumask *cpus;
	struct completion started;
	int status;
};

/*
 * The CPU mask and the nice value, applied by the new kthread to itself:
 * before it first ran, the kernel may still set the affinity of a new
 * kthread (as kthread() does in recent kernels), and kthread_bind_mask()
 * is not exported to modules.
 */
static int exec_kthread_apply(const struct exec_kthread_boot *boot)
{
	int ret;

	if (boot->cpus) {
		ret = set_cpus_allowed_ptr(current, boot->cpus);
		if (ret)
			return ret;
	}
	if (boot->attr->set_nice)
		set_user_nice(current, boot->attr->nice);
	return 0;
}

static int exec_kthread_main(void *arg)
{
	struct exec_thread *thread = arg;
	struct exec_kthread_boot *boot = thread->boot;
	bool freezable = false;
	int ret;

	if (boot) {
		ret = exec_kthread_apply(boot);
		boot->status = ret;
		freezable = boot->attr->freezable;
		/* The creator may return, and @boot go, from here on. */
		complete(&boot->started);
		if (ret)
			kthread_complete_and_exit(&thread->exited, ret);
	}
	/*
	 * After the creator is released: a thread started during a freeze
	 * freezes here, before it runs anything, and its creator is not held
	 * until the thaw.
	 */
	if (freezable)
		set_freezable();
	thread->fn(thread->arg);
	/*
	 * Completes @exited and exits without returning here: after the
	 * completion no code of this module runs on this thread, so the
	 * joiner may free @thread and the module may be unloaded at once.
	 */
	kthread_complete_and_exit(&thread->exited, 0);
}

/* Creates and wakes the kthread; waits for it to apply @boot, if any. */
static int exec_kthread_run(struct exec_thread *thread, const char *name,
			    struct exec_kthread_boot *boot)
{
	struct task_struct *task;
	int ret = 0;

	thread->boot = boot;
	if (boot)
		init_completion(&boot->started);
	task = kthread_create(exec_kthread_main, thread, "%s",
			      name ? name : "exec");
	if (IS_ERR(task))
		return PTR_ERR(task);
	/* Until exec_thread_join(): exec_thread_blocked() looks at it. */
	get_task_struct(task);
	thread->task = task;
	wake_up_process(task);
	if (boot) {
		wait_for_completion(&boot->started);
		thread->boot = NULL;
		ret = boot->status;
		if (ret) {
			wait_for_completion(&thread->exited);
			put_task_struct(task);
			thread->task = NULL;
		}
	}
	return ret;
}

/**
 * exec_thread_start - start a worker thread (a kthread)
 * @thread: the thread; must stay valid until exec_thread_join() returns
 * @fn: what it runs; its return value is ignored
 * @arg: @fn's argument
 * @name: the thread's name (truncated to TASK_COMM_LEN - 1); NULL for "exec"
 *
 * exec_thread_start_attr() with no attributes.
 *
 * Context: Process context; may sleep.
 * Return: 0; -ENOMEM, or -EINTR if the caller was killed while the kthread
 * was being created.
 */
int exec_thread_start(struct exec_thread *thread, int (*fn)(void *arg),
		      void *arg, const char *name)
{
	return exec_thread_start_attr(thread, fn, arg, name, NULL);
}
EXPORT_SYMBOL_FOR_TESTS(exec_thread_start);

/**
 * exec_thread_start_attr - start a worker thread (a kthread) with attributes
 * @thread: the thread; must stay valid until exec_thread_join() returns
 * @fn: what it runs; its return value is ignored
 * @arg: @fn's argument
 * @name: the thread's name (truncated to TASK_COMM_LEN - 1); NULL for "exec"
 * @attr: checked attributes (exec_thread_attr_check()), or NULL; its name
 *	is not used
 *
 * The kthread is not bound to a CPU, and not freezable unless @attr says
 * so.  With a CPU mask or a nice value in @attr, the new kthread applies
 * them to itself (set_cpus_allowed_ptr(), set_user_nice()) before it runs
 * @fn and before this function returns; if that fails it exits without
 * running @fn and the error is returned.  A freezable one marks itself
 * freezable (set_freezable()) once this function may return, before it
 * runs @fn.  @fn otherwise always runs: nothing else stops
 * the thread.  Every thread started must be joined with exec_thread_join().
 *
 * Context: Process context; may sleep.
 * Return: 0; -EOPNOTSUPP for a non-zero stack size (kernel stacks have a
 * fixed size); -EINVAL for a CPU mask with no active CPU; -ENOMEM, or
 * -EINTR if the caller was killed while the kthread was being created.
 */
int exec_thread_start_attr(struct exec_thread *thread, int (*fn)(void *arg),
			   void *arg, const char *name,
			   const struct exec_thread_attr *attr)
{
	struct exec_kthread_boot boot = { .attr = attr };
	cpumask_var_t cpus;
	unsigned int cpu;
	int ret;

	might_sleep();
	if (attr && attr->stack_size)
		return -EOPNOTSUPP;
	thread->fn = fn;
	thread->arg = arg;
	thread->self = NULL;
	init_completion(&thread->exited);
	if (!attr || (!attr->set_nice && !attr->cpus && !attr->freezable))
		return exec_kthread_run(thread, name, NULL);
	if (!attr->cpus)
		return exec_kthread_run(thread, name, &boot);

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	for_each_set_bit(cpu, attr->cpus, min(attr->nr_cpu_bits, nr_cpu_ids))
		cpumask_set_cpu(cpu, cpus);
	boot.cpus = cpus;
	ret = exec_kthread_run(thread, name, &boot);
	free_cpumask_var(cpus);
	return ret;
}

/**
 * exec_thread_stack_check - whether threads can have a stack of @size bytes
 * @size: the stack size; 0 for the default
 *
 * Context: Any context.
 * Return: 0 for 0; -EOPNOTSUPP otherwise: kernel stacks have a fixed size.
 */
int exec_thread_stack_check(size_t size)
{
	return size ? -EOPNOTSUPP : 0;
}

/**
 * exec_cpu_online - whether a CPU is online now
 * @cpu: the CPU's number
 *
 * Context: Any context.
 * Return: true if @cpu is online.
 */
bool exec_cpu_online(unsigned int cpu)
{
	return cpu < nr_cpu_ids && cpu_online(cpu);
}

/**
 * exec_thread_join - wait until a thread's function has returned
 * @thread: a thread started by exec_thread_start()
 *
 * When this returns the thread runs nothing but the kernel's own exit path:
 * @thread may be freed and the module unloaded.  The kthread is reaped by
 * the kernel.
 *
 * Context: Process context; sleeps.  Not from @thread itself.
 */
void exec_thread_join(struct exec_thread *thread)
{
	might_sleep();
	if (WARN_ON_ONCE(thread->task == current))
		return;
	wait_for_completion(&thread->exited);
	put_task_struct(thread->task);
	thread->task = NULL;
}
EXPORT_SYMBOL_FOR_TESTS(exec_thread_join);

/**
 * exec_thread_blocked - whether a busy kthread is blocked
 * @thread: the thread, started and not joined
 * @sample: unused: the state is read as it is now
 *
 * The scheduler's hooks that concurrency-managed workqueues use to learn
 * that a worker sleeps are not open to modules; its task state is.  A task
 * that is not TASK_RUNNING sleeps (in a wait, a lock, a sleep, I/O).
 *
 * Context: Any context.
 * Return: true if the task is not running or runnable.
 */
bool exec_thread_blocked(struct exec_thread *thread,
			 struct exec_thread_sample *sample)
{
	return !task_is_running(thread->task);
}

/**
 * exec_thread_show_stack - print a library thread's stack, for a report
 * @thread: a thread that has been started and not joined
 *
 * Context: Any context.
 */
void exec_thread_show_stack(struct exec_thread *thread)
{
	if (thread->task)
		sched_show_task(thread->task);
}

/* The calling task's struct exec_thread if it is one of ours, else NULL. */
static struct exec_thread *exec_current_thread(void)
{
	if (!(current->flags & PF_KTHREAD) ||
	    kthread_func(current) != exec_kthread_main)
		return NULL;
	return kthread_data(current);
}

/**
 * exec_online_cpus - number of CPUs online now
 *
 * Context: Any context.
 * Return: at least 1.
 */
unsigned int exec_online_cpus(void)
{
	return max(num_online_cpus(), 1U);
}
EXPORT_SYMBOL_FOR_TESTS(exec_online_cpus);

/**
 * exec_cpu_ids - one more than the highest CPU number there may be
 *
 * Context: Any context.
 * Return: nr_cpu_ids.
 */
unsigned int exec_cpu_ids(void)
{
	return nr_cpu_ids;
}
EXPORT_SYMBOL_FOR_TESTS(exec_cpu_ids);

/**
 * exec_symbol_name - a function's name, as %ps prints it
 * @buf: where to write it
 * @size: the size of @buf
 * @addr: the function
 *
 * Context: Any context.
 */
void exec_symbol_name(char *buf, size_t size, const void *addr)
{
	snprintf(buf, size, "%ps", addr);
}

/* --- the per-task pointer ---------------------------------------------- */

enum {
	EXEC_CTX_SOFTIRQ,
	EXEC_CTX_HARDIRQ,
	EXEC_CTX_NMI,
	EXEC_NR_CTX,
};

struct exec_irq_self {
	void *self[EXEC_NR_CTX];
};

static DEFINE_PER_CPU(struct exec_irq_self, exec_irq_self);

/* Which interrupt level the caller runs at; only when !in_task(). */
static unsigned int exec_irq_level(void)
{
	if (in_nmi())
		return EXEC_CTX_NMI;
	if (in_hardirq())
		return EXEC_CTX_HARDIRQ;
	return EXEC_CTX_SOFTIRQ;
}

#define EXEC_SELF_HASH_BITS	8
#define EXEC_SELF_PREALLOC	64

/**
 * struct exec_self_node - the pointer of one task other than our kthreads
 * @link: B: in its bucket
 * @task: B: the task; NULL while on the free list
 * @self: B: its pointer; never NULL while in a bucket
 */
struct exec_self_node {
	struct hlist_node link;
	struct task_struct *task;
	void *self;
};

/* B: guarded by the bucket's lock */
struct exec_self_bucket {
	raw_spinlock_t lock;
	struct hlist_head head;
};

static struct exec_self_bucket exec_self_table[1U << EXEC_SELF_HASH_BITS];

static struct exec_self_node exec_self_pool[EXEC_SELF_PREALLOC];
static DEFINE_RAW_SPINLOCK(exec_self_pool_lock);
static HLIST_HEAD(exec_self_free);

static struct exec_self_bucket *exec_self_bucket(struct task_struct *task)
{
	return &exec_self_table[hash_ptr(task, EXEC_SELF_HASH_BITS)];
}

static bool exec_self_pooled(struct exec_self_node *node)
{
	return node >= exec_self_pool &&
	       node < exec_self_pool + ARRAY_SIZE(exec_self_pool);
}

static struct exec_self_node *exec_self_node_alloc(void)
{
	struct exec_self_node *node = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&exec_self_pool_lock, flags);
	if (!hlist_empty(&exec_self_free)) {
		node = hlist_entry(exec_self_free.first, struct exec_self_node,
				   link);
		hlist_del(&node->link);
	}
	raw_spin_unlock_irqrestore(&exec_self_pool_lock, flags);
	if (!node)
		node = kmalloc(sizeof(*node), GFP_ATOMIC | __GFP_NOWARN);
	return node;
}

static void exec_self_node_free(struct exec_self_node *node)
{
	unsigned long flags;

	if (!exec_self_pooled(node)) {
		kfree(node);
		return;
	}
	node->task = NULL;
	raw_spin_lock_irqsave(&exec_self_pool_lock, flags);
	hlist_add_head(&node->link, &exec_self_free);
	raw_spin_unlock_irqrestore(&exec_self_pool_lock, flags);
}

/* Under @b->lock: the calling task's node, or NULL. */
static struct exec_self_node *exec_self_find(struct exec_self_bucket *b)
{
	struct exec_self_node *node;

	lockdep_assert_held(&b->lock);
	hlist_for_each_entry(node, &b->head, link)
		if (node->task == current)
			return node;
	return NULL;
}

static void *exec_self_lookup(void)
{
	struct exec_self_bucket *b = exec_self_bucket(current);
	struct exec_self_node *node;
	unsigned long flags;
	void *self = NULL;

	/* Only this task adds its node: if it has one, the bucket is busy. */
	if (hlist_empty(&b->head))
		return NULL;
	raw_spin_lock_irqsave(&b->lock, flags);
	node = exec_self_find(b);
	if (node)
		self = node->self;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return self;
}

static void exec_self_store(void *self)
{
	struct exec_self_bucket *b = exec_self_bucket(current);
	struct exec_self_node *node;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	node = exec_self_find(b);
	if (node && self) {
		/* Another frame pushed or popped: update in place. */
		node->self = self;
		raw_spin_unlock_irqrestore(&b->lock, flags);
		return;
	}
	if (node)			/* the last frame popped */
		hlist_del(&node->link);
	raw_spin_unlock_irqrestore(&b->lock, flags);
	if (node) {
		exec_self_node_free(node);
		return;
	}
	if (!self)
		return;

	/* A first frame: nobody else adds this task's node meanwhile. */
	node = exec_self_node_alloc();
	if (WARN_ON_ONCE(!node))
		return;
	node->task = current;
	node->self = self;
	raw_spin_lock_irqsave(&b->lock, flags);
	hlist_add_head(&node->link, &b->head);
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/**
 * exec_thread_self_get - the core's pointer for the caller
 *
 * Interrupt context has pointers of its own, per CPU and level, distinct
 * from the task it interrupted's.  See the top of this file for the cost.
 *
 * Context: Any context.
 * Return: the pointer last set by exec_thread_self_set() in the same thread
 * of execution, or NULL.
 */
void *exec_thread_self_get(void)
{
	struct exec_thread *thread;

	if (!in_task())
		return this_cpu_read(exec_irq_self.self[exec_irq_level()]);
	thread = exec_current_thread();
	if (thread)
		return thread->self;
	return exec_self_lookup();
}
EXPORT_SYMBOL_FOR_TESTS(exec_thread_self_get);

/**
 * exec_thread_self_set - set the core's pointer for the caller
 * @self: the new value
 *
 * Values are set in LIFO order (frames pushed and popped, core/internal.h):
 * an interrupt handler or a task sets the pointer back to NULL before it
 * returns or exits.
 *
 * Context: Any context; never sleeps.
 */
void exec_thread_self_set(void *self)
{
	struct exec_thread *thread;

	if (!in_task()) {
		this_cpu_write(exec_irq_self.self[exec_irq_level()], self);
		return;
	}
	thread = exec_current_thread();
	if (thread) {
		thread->self = self;
		return;
	}
	exec_self_store(self);
}
EXPORT_SYMBOL_FOR_TESTS(exec_thread_self_set);

/* --- the parker -------------------------------------------------------- */

/*
 * The permit protocol is in core/parker.c; here are only the sleep and the
 * wake-up it asks for.  A parker has one sleeper at most, its owner, so it
 * needs no queue: the owner publishes itself in an rcuwait, and the waker
 * wakes the task it finds there, with no lock on either side.  The task
 * cannot be freed under the waker: the owner takes itself out
 * (finish_rcuwait()) before it can exit, the waker reads the pointer inside
 * an RCU read-side section, and an exited task is freed only after a grace
 * period.  The sleep is in TASK_IDLE: an idle worker neither adds to the
 * load average nor trips the hung task detector, however long it sleeps.
 * A wake-up that comes late (after the owner took itself out) is spurious
 * for whatever the task sleeps on next, which every kernel sleep tolerates.
 *
 * A freezable kthread (exec_thread_attr.freezable) adds TASK_FREEZABLE to
 * that state, as wait_event_freezable() does: the suspend freezer then
 * freezes it where it sleeps, without waking it, and its thaw is a
 * spurious wake-up, after which the owner looks at the permit again, so
 * an unpark that came during the freeze (whose wake-up a frozen task does
 * not get) is seen then.  Kernels before TASK_FREEZABLE wake the kthread
 * instead; it freezes in try_to_freeze() on its way back to sleep.
 */

/* Whether the caller is a kthread that set_freezable() has marked. */
static bool exec_freezable_kthread(void)
{
	return (current->flags & (PF_KTHREAD | PF_NOFREEZE)) == PF_KTHREAD;
}

/* The state a parker's owner sleeps in; see above. */
static unsigned int exec_parker_state(bool freezable)
{
#ifdef TASK_FREEZABLE
	if (freezable)
		return TASK_IDLE | TASK_FREEZABLE;
#endif
	return TASK_IDLE;
}

/**
 * exec_parker_init - initialise a parker
 * @parker: the parker
 *
 * Context: Any context.
 * Return: 0.
 */
int exec_parker_init(struct exec_parker *parker)
{
	parker->permit = 0;
	parker->sleeping = 0;
	rcuwait_init(&parker->wait);
	return 0;
}
EXPORT_SYMBOL_FOR_TESTS(exec_parker_init);

/**
 * exec_parker_destroy - release a parker
 * @parker: the parker; its owner must not be parked in it
 *
 * Context: Any context.
 */
void exec_parker_destroy(struct exec_parker *parker)
{
	WARN_ON_ONCE(READ_ONCE(parker->sleeping));
	WARN_ON_ONCE(rcuwait_active(&parker->wait));
}
EXPORT_SYMBOL_FOR_TESTS(exec_parker_destroy);

/**
 * exec_parker_sleep - the owner's sleep (see core/parker.c)
 * @parker: the caller's parker
 *
 * Context: Process context; sleeps, and a freezable kthread may be frozen
 * meanwhile.
 */
void exec_parker_sleep(struct exec_parker *parker)
{
	bool freezable = exec_freezable_kthread();
	unsigned int state = exec_parker_state(freezable);

	/*
	 * rcuwait_wait_event() with one barrier less per wake-up.  The task
	 * is published, then the task state set (a full barrier) before the
	 * permit is tested: pairs with the exchange of the permit before the
	 * load of the task in exec_parker_unpark() and exec_parker_wake().
	 */
	prepare_to_rcuwait(&parker->wait);
	set_current_state(state);
	while (!READ_ONCE(parker->permit)) {
		schedule();
		/*
		 * Woken with the permit, as nearly always: the caller's
		 * exchange takes it, no need to set the state again (and
		 * pay its barrier) only to test it.  A spurious wake-up sets
		 * the state before the next test, as above.
		 */
		if (READ_ONCE(parker->permit))
			break;
		if (freezable)
			try_to_freeze();
		set_current_state(state);
	}
	finish_rcuwait(&parker->wait);
}

/**
 * exec_parker_wake - wake the owner (see core/parker.c)
 * @parker: the parker
 * @sleeping: which sleep the owner is in; both end the same way here
 *
 * Context: Any context, hard interrupt context included; never sleeps.
 */
void exec_parker_wake(struct exec_parker *parker, int sleeping)
{
	struct task_struct *task;

	/*
	 * rcuwait_wake_up() without its smp_mb(): the exchange of the permit
	 * in exec_parker_unpark(), before this load of the task, is already
	 * the full barrier that pairs with set_current_state() in the
	 * owner's sleep, and this runs on every wake-up of an idle worker.
	 */
	rcu_read_lock();
	task = rcu_dereference(parker->wait.task);
	if (task)
		wake_up_process(task);
	rcu_read_unlock();
}

/**
 * exec_parker_sleep_until - the owner's sleep with deadlines (core/parker.c)
 * @parker: the caller's parker
 * @when: per clock (0 monotonic, 1 realtime), an absolute deadline in
 *	nanoseconds, or U64_MAX for none; one clock at least has a deadline
 *
 * An hrtimer sleep on the clock of the earlier deadline
 * (exec_parker_first_deadline()).
 *
 * Context: Process context; sleeps, and a freezable kthread may be frozen
 * meanwhile.
 */
void exec_parker_sleep_until(struct exec_parker *parker, const u64 *when)
{
	bool freezable = exec_freezable_kthread();
	unsigned int clock;
	ktime_t expires;
	u64 deadline;

	deadline = exec_parker_first_deadline(when, &clock);
	prepare_to_rcuwait(&parker->wait);
	/* Full barrier: as in exec_parker_sleep(). */
	set_current_state(exec_parker_state(freezable));
	if (!READ_ONCE(parker->permit)) {
		/* exec_parker_park_until() sleeps here only with a deadline. */
		expires = ns_to_ktime(min_t(u64, deadline, KTIME_MAX));
		schedule_hrtimeout_range_clock(&expires, 0, HRTIMER_MODE_ABS,
					       clock ? CLOCK_REALTIME :
						       CLOCK_MONOTONIC);
	}
	finish_rcuwait(&parker->wait);
	/* The caller looks again in any case: a freeze first, if one came. */
	if (freezable)
		try_to_freeze();
}

/* --- a timer of the arming CPU -------------------------------------------- */

static enum hrtimer_restart exec_cpu_timer_fire(struct hrtimer *hr)
{
	struct exec_cpu_timer *t = container_of(hr, struct exec_cpu_timer, hr);
	u64 again = t->fn(t);

	if (!again)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(hr, ns_to_ktime(again));
	return HRTIMER_RESTART;
}

/**
 * exec_cpu_timer_init - prepare a timer of the arming CPU (core/platform.h)
 * @t: the timer
 * @fn: its callback, run in hard interrupt context on the CPU that armed
 *	it; returns a delay in nanoseconds to run again after, or 0
 *
 * Context: Any context.
 */
void exec_cpu_timer_init(struct exec_cpu_timer *t,
			 u64 (*fn)(struct exec_cpu_timer *t))
{
	t->fn = fn;
	exec_hrtimer_setup(&t->hr, exec_cpu_timer_fire, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * exec_cpu_timer_arm - run the callback @delay_ns from now, on this CPU
 * @t: the timer
 * @delay_ns: the delay
 *
 * An armed timer is armed again for the new time; callers that want to
 * leave it be look at exec_cpu_timer_pending() first.
 *
 * Context: Any context; the callback runs on the CPU this call ran on.
 */
void exec_cpu_timer_arm(struct exec_cpu_timer *t, u64 delay_ns)
{
	hrtimer_start(&t->hr, ns_to_ktime(delay_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * exec_cpu_timer_cancel - disarm, and wait for a running callback
 * @t: the timer; its owner arms it no more
 *
 * Context: Process context.
 */
void exec_cpu_timer_cancel(struct exec_cpu_timer *t)
{
	hrtimer_cancel(&t->hr);
}

/* --- the clock event device of a timer base ----------------------------- */

static enum hrtimer_restart exec_clockev_fire(struct exec_clockev *ce)
{
	ce->handler(ce);
	/* The handler has re-armed the timer if anything is left. */
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart exec_clockev_fire_mono(struct hrtimer *timer)
{
	return exec_clockev_fire(container_of(timer, struct exec_clockev,
					      timer[0]));
}

static enum hrtimer_restart exec_clockev_fire_real(struct hrtimer *timer)
{
	return exec_clockev_fire(container_of(timer, struct exec_clockev,
					      timer[1]));
}

/**
 * exec_clockev_init - prepare a clock event device (core/platform.h)
 * @ce: the device
 * @handler: called from hard interrupt context when a programmed time came
 *
 * Context: Any context.
 * Return: 0.
 */
int exec_clockev_init(struct exec_clockev *ce,
		      void (*handler)(struct exec_clockev *ce))
{
	ce->handler = handler;
	exec_hrtimer_setup(&ce->timer[0], exec_clockev_fire_mono,
			   CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	exec_hrtimer_setup(&ce->timer[1], exec_clockev_fire_real,
			   CLOCK_REALTIME, HRTIMER_MODE_ABS_HARD);
	return 0;
}

/**
 * exec_clockev_start - nothing to start: hrtimers are ready from init
 * @ce: the device
 *
 * Context: Any context.
 * Return: 0.
 */
int exec_clockev_start(struct exec_clockev *ce)
{
	return 0;
}

/**
 * exec_clockev_program - (re)program one clock's hrtimer
 * @ce: the device
 * @clock: 0 monotonic, 1 realtime
 * @when: absolute time in nanoseconds, or U64_MAX for none
 *
 * Context: Any context; called under the timer base's raw spinlock.
 */
void exec_clockev_program(struct exec_clockev *ce, unsigned int clock,
			  u64 when)
{
	struct hrtimer *timer = &ce->timer[clock];

	if (when == U64_MAX) {
		/* Never waits: -1 if the callback runs, which is harmless. */
		hrtimer_try_to_cancel(timer);
		return;
	}
	hrtimer_start(timer, ns_to_ktime(min_t(u64, when, KTIME_MAX)),
		      HRTIMER_MODE_ABS_HARD);
}

/**
 * exec_clockev_stop - cancel both hrtimers and wait for their callbacks
 * @ce: the device
 *
 * Context: Process context; sleeps.
 */
void exec_clockev_stop(struct exec_clockev *ce)
{
	hrtimer_cancel(&ce->timer[0]);
	hrtimer_cancel(&ce->timer[1]);
}

/**
 * exec_clockev_fini - release a stopped device: nothing to release here
 * @ce: the device
 *
 * Context: Process context.
 */
void exec_clockev_fini(struct exec_clockev *ce)
{
}

/* --- module life ------------------------------------------------------- */

#ifdef CONFIG_LOCKDEP
/*
 * lockdep_unregister_key() waits for an RCU grace period, which at every
 * executor's destroy would slow a test that makes many: the unregistering
 * and the free of the memory that holds the key are left to a workqueue of
 * the module's, where many wait at once and share grace periods.  Module
 * exit drains it.  NULL if it could not be allocated: then at once.
 */
static struct workqueue_struct *exec_lockdep_wq;

static void exec_lockdep_free_fn(struct work_struct *work)
{
	struct exec_lockdep *ld = container_of(work, struct exec_lockdep,
					       free_work);
	void *obj = ld->obj;

	lockdep_unregister_key(&ld->key);
	kfree(obj);
}

/**
 * exec_lockdep_free - unregister an executor's lockdep key, free its holder
 * @ld: registered by exec_lockdep_init(); its map no longer held
 * @obj: the kmalloc()ed object that holds @ld, freed with it
 *
 * Context: Process context.
 */
void exec_lockdep_free(struct exec_lockdep *ld, void *obj)
{
	ld->obj = obj;
	INIT_WORK(&ld->free_work, exec_lockdep_free_fn);
	if (exec_lockdep_wq)
		queue_work(exec_lockdep_wq, &ld->free_work);
	else
		exec_lockdep_free_fn(&ld->free_work);
}

static void exec_lockdep_sys_init(void)
{
	exec_lockdep_wq = alloc_workqueue("exec_lockdep", WQ_UNBOUND, 0);
}

static void exec_lockdep_sys_exit(void)
{
	if (exec_lockdep_wq)
		destroy_workqueue(exec_lockdep_wq);
	exec_lockdep_wq = NULL;
}
#else
static void exec_lockdep_sys_init(void)
{
}

static void exec_lockdep_sys_exit(void)
{
}
#endif

/**
 * exec_platform_init - set up the per-task pointer table
 *
 * Context: Module init.
 */
void exec_platform_init(void)
{
	unsigned int i;

	exec_lockdep_sys_init();

	for (i = 0; i < ARRAY_SIZE(exec_self_table); i++) {
		raw_spin_lock_init(&exec_self_table[i].lock);
		INIT_HLIST_HEAD(&exec_self_table[i].head);
	}
	for (i = 0; i < ARRAY_SIZE(exec_self_pool); i++)
		hlist_add_head(&exec_self_pool[i].link, &exec_self_free);
}

/* Each CPU's closures, used with interrupts off (core/executor.c). */
static DEFINE_PER_CPU(struct exec_closure_cache, exec_cpu_closures);

/**
 * exec_local_closures - the closure cache of the caller's CPU
 *
 * Context: Interrupts off, which keep the caller on the CPU and keep
 * interrupt handlers on it out of the cache.
 * Return: the cache.
 */
struct exec_closure_cache *exec_local_closures(void)
{
	lockdep_assert_irqs_disabled();
	return this_cpu_ptr(&exec_cpu_closures);
}

/**
 * exec_local_closures_release - free every CPU's closures
 *
 * Context: Module exit, once every closure has run.
 */
void exec_local_closures_release(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		exec_closure_cache_release(per_cpu_ptr(&exec_cpu_closures,
						       cpu));
	exec_closure_orphans_release();
}

/**
 * exec_platform_exit - check that no task is left inside an executor
 *
 * Entries still in the table belong to tasks that are inside an executor's
 * frame while the module goes away, which the module's users must prevent;
 * they are reported and left alone.
 *
 * Context: Module exit.
 */
void exec_platform_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exec_self_table); i++)
		WARN_ON_ONCE(!hlist_empty(&exec_self_table[i].head));
	/* Every executor is gone: the last keys are unregistered. */
	exec_lockdep_sys_exit();
}

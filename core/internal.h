/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Shared core internals: the intrusive MPSC queue, the per-thread frame
 * stack, and the work item state helpers used by every executor.
 *
 * Field tags.  The kernel-doc line of every field that more than one
 * thread touches starts with what guards it, one of these (after
 * kernel/workqueue.c's), each in this one sense everywhere in core/,
 * user/ and kernel/ (scripts/check-layout.sh checks the letters):
 *
 *  I: set at creation, read-only afterwards.
 *  L: under the structure's own lock; L(x): under lock x.
 *  A: changed only by atomic operations (atomic_t, cmpxchg(), xchg(),
 *     bit operations); its comment says what its ordering pairs with.
 *  O: written only by one owning thread, which the structure's comment
 *     names; others read it with READ_ONCE() or an acquire.
 *  C: written only by the owner of a consumer side that passes from thread
 *     to thread (a serial executor, a loop) through fully ordered
 *     operations, which order one owner's writes before the next's.
 *  B: under the lock of the hash bucket the object is in.
 *  M: touched only by a growing pool's manager thread (or before it runs).
 *  W: touched only by the watchdog, under its lock (core/watchdog.c).
 *  G: under a global lock, which the comment names.
 *
 * A tag may be followed by who else reads the field, and how ("O, read by
 * exec_executor_stats()").
 */
#ifndef EXEC_CORE_INTERNAL_H
#define EXEC_CORE_INTERNAL_H

#include <exec/exec.h>

#include "extension.h"
#include "platform.h"
#include "trace.h"

#define EXEC_WORK_PENDING_BIT	0

/*
 * Private bit of a plain item (not a timed one, whose bits above the flags
 * hold its target): set with EXEC_WORK_PENDING by exec_work_cancel_sync()
 * while it waits, so that submissions fail with -EALREADY and other cancels
 * and flushes do not wait for an item that is queued nowhere.
 */
#define EXEC_WORK_CANCELING	(1UL << EXEC_WORK_FLAG_BITS)

/*
 * The bits of a plain item's flags above its private ones: the address of
 * the runner that last started it, a thread pool's worker
 * (core/pool_rerun.h) or a priority executor's runner (with several of
 * them, core/priority.c), kept after the run as a workqueue's work_struct
 * keeps its last pool.  Both kinds are cache-line aligned, so their
 * addresses leave these low bits clear, and both read a name back with
 * exec_work_runner_of().  An executor names its runners by address
 * rather than by a number of its own so that a name written by another
 * executor, the item's previous one, points outside its runners: it can
 * never read as one of them.
 */
#define EXEC_WORK_RUNNER_SHIFT	6
#define EXEC_WORK_RUNNER_MASK	(~0UL << EXEC_WORK_RUNNER_SHIFT)

/*
 * The runner that @flags name among the @nr runners of @size bytes of the
 * array @runners, or NULL: the item never ran, or last ran elsewhere (a
 * stale name may point anywhere, so only the start of a runner of the
 * array counts).
 */
static inline void *exec_work_runner_of(unsigned long flags, void *runners,
					size_t size, unsigned long nr)
{
	unsigned long name = flags & EXEC_WORK_RUNNER_MASK;
	unsigned long offset = name - (unsigned long)runners;

	if (!name || offset >= nr * size || offset % size)
		return NULL;
	return (char *)runners + offset / size * size;
}

/*
 * Internal submission flag: the item was accepted earlier (a timed item that
 * came due), so a bounded executor counts it but never refuses it for room.
 */
#define EXEC_SUBMIT_FORCE	(1U << 31)

/*
 * Internal submission flag: the caller of a submission that must not wait
 * for room (EXEC_SUBMIT_NOWAIT) may still sleep: exec_post_fn() and its
 * kin, which allocate with GFP_KERNEL anyway.  Without it, NOWAIT may come
 * from atomic context, so an executor that has to sleep to accept an item
 * at all (the thread-per-task executor starts a thread) refuses it.
 */
#define EXEC_SUBMIT_MAY_SLEEP	(1U << 29)

/*
 * The flags an executor built on another submits with when it must not wait
 * for room there: NOWAIT, keeping its own caller's leave to sleep.
 */
static inline unsigned int exec_submit_nowait_from(unsigned int flags)
{
	return flags | EXEC_SUBMIT_NOWAIT |
	       (flags & EXEC_SUBMIT_NOWAIT ? 0 : EXEC_SUBMIT_MAY_SLEEP);
}

/**
 * exec_tpt_is - whether an executor is a thread-per-task executor
 * @ex: an executor
 *
 * Its dispatch is a post (every item has a thread of its own), which a
 * closure from process context may make with EXEC_SUBMIT_MAY_SLEEP.
 *
 * Context: Any context.
 * Return: true for a thread-per-task executor.
 */
bool exec_tpt_is(const struct exec_executor *ex);

/*
 * The one back-off of a wait for other threads' few steps: a producer
 * between its two stores, submitters leaving a gate, a submission or a
 * take half done.  EXEC_BACKOFF_SPINS turns of cpu_relax(), then turns
 * that leave the CPU a while (exec_backoff_sleep()), as the thread waited
 * for may have been preempted: where other processes keep every CPU busy,
 * it waits for a CPU, and a CPU left idle by its waiters is one the
 * scheduler can move it to.  Never a yield: a waiter that yields keeps its
 * CPU busy, and under EEVDF (Linux 6.6 and later) each sched_yield()
 * moves the caller's deadline a whole slice on, so waiters that yield to
 * each other wait behind every other process's slice
 * (Documentation/benchmarks.rst, "Under load").
 * exec_backoff() is for process context; exec_backoff_any_context() lets
 * others run only where those steps can be preempted at all (userspace,
 * EXEC_STEPS_PREEMPTIBLE), and otherwise only spins.
 */
#define EXEC_BACKOFF_SPINS	1024

static inline void exec_backoff(unsigned int *spins)
{
	if (++*spins < EXEC_BACKOFF_SPINS)
		cpu_relax();
	else
		exec_backoff_sleep();
}

static inline void exec_backoff_any_context(unsigned int *spins)
{
	if (!EXEC_STEPS_PREEMPTIBLE)
		cpu_relax();
	else
		exec_backoff(spins);
}

/*
 * The drain behind a gate, the one way a destroy waits for the calls that
 * came in before it closed its executor: the caller has set its closing
 * state with a fully ordered operation, so that a call that comes in
 * after sees it and leaves at once; this waits, with the one back-off,
 * until @users (read with acquire: pairs with each call's release as it
 * leaves) is at most @floor (the caller's own reference, if it holds one).
 * Process context.
 */
static inline void exec_drain_users(atomic_t *users, int floor)
{
	unsigned int spins = 0;

	while (atomic_read_acquire(users) > floor)
		exec_backoff(&spins);
}

/*
 * The one sleeping poll, for waits that may last a run or a flush (a run
 * to end, a flush's markers, threads to acknowledge): sleeps *@us to
 * twice that, the interval doubling up to a millisecond; *@us starts at
 * 16.  A wake-up per run would cost every item a look at a wait queue,
 * while such a wait may well return a little late.  Process context.
 */
static inline void exec_poll_sleep(unsigned long *us)
{
	usleep_range(*us, *us * 2);
	if (*us < 1000)
		*us *= 2;
}

/*
 * Intrusive multi-producer single-consumer queue, linked through
 * exec_work::next.  The queue is two words: @tail, and @first, the link to
 * the oldest item, which is also the ->next of a stub item standing for the
 * queue's head (exec_mpsc_stub(): only its ->next is ever read or written,
 * and exec_work::next is its first member).  An empty queue's @tail points
 * to the stub; a push whose predecessor is the stub links the item through
 * @first.  (A wait-free concurrent queue in the style of liburcu's
 * wfcqueue; a strand, made per connection, pays for two words and no stub
 * item of its own.)
 *
 * Which operations may run concurrently with which:
 *
 *                  push    pop    unlink  maybe_nonempty
 *   push            yes    yes    yes     yes
 *   pop             yes    no     no      yes
 *   unlink          yes    no     no      yes
 *   maybe_nonempty  yes    yes    yes     yes
 *
 * Consumers (pop, unlink) must be serialised by the caller: a lock, or the
 * rule that only one thread owns the consumer side at a time.
 *
 * push() is wait-free: one xchg on @tail, then a store linking the previous
 * tail to the new item.  Between those two stores the item is in the queue
 * but not reachable from @first; a pop() that meets that gap returns
 * EXEC_MPSC_BUSY and the consumer retries.  In the kernel the two stores run
 * with interrupts off, so the gap lasts a few instructions (unless the host
 * of a virtual machine deschedules that vCPU); in userspace the producer may
 * be preempted in it.  Consumers back off with cond_resched() after spinning
 * a while (exec_mpsc_pop_wait()), and those serialised by a spinlock do so
 * with the lock dropped (exec_mpsc_pop_locked()).
 *
 * Taking the last item out races with a push behind it: the consumer clears
 * @first, then moves @tail back to the stub with cmpxchg().  If that fails,
 * a producer has taken the item as its predecessor and will link through
 * its ->next; the consumer puts @first back and reports the gap.
 */
struct exec_mpsc {
	/* A: producers swap themselves in with xchg() */
	struct exec_work *tail;
	/*
	 * C: the stub's link: written by the consumer, and by the one
	 * producer whose xchg() found the stub; read racily by maybe_nonempty
	 */
	struct exec_work *first;
};

/*
 * A queue whose producers and consumers are different threads under load
 * (a pool's shared queue): @tail alone at the end of one cache line,
 * @first on the next.  A strand's queue, one per connection, is packed
 * instead (struct exec_mpsc): its producer and its owner share
 * @nr_queued's line anyway.
 */
struct exec_mpsc_split {
	char pad[SMP_CACHE_BYTES - sizeof(struct exec_work *)];
	struct exec_mpsc q;
} ____cacheline_aligned;

#define EXEC_MPSC_BUSY	((struct exec_work *)1UL)

/* The stub item: @first is its ->next, the only field of it ever used. */
static inline struct exec_work *exec_mpsc_stub(struct exec_mpsc *q)
{
	BUILD_BUG_ON(offsetof(struct exec_work, next) != 0);
	return (struct exec_work *)&q->first;
}

static inline void exec_mpsc_init(struct exec_mpsc *q)
{
	q->first = NULL;
	q->tail = exec_mpsc_stub(q);
}

static inline void exec_mpsc_push(struct exec_mpsc *q, struct exec_work *work)
{
	struct exec_work *prev;
	unsigned long flags;

	WRITE_ONCE(work->next, NULL);
	local_irq_save(flags);
	/* Full barrier: orders the NULL link before the item is published. */
	prev = xchg(&q->tail, work);
	/* Pairs with smp_load_acquire() of ->next in exec_mpsc_pop(). */
	smp_store_release(&prev->next, work);
	local_irq_restore(flags);
}

/*
 * Detaches @last, the item that @prev (an item, or the stub) links to and
 * whose ->next was read NULL, for a consumer.  A producer may have taken
 * @last as its predecessor meanwhile: once its link is there, @prev is
 * linked past @last to the producer's item instead.  Returns false if that
 * link is still to come: @prev links to @last as before.
 */
static inline bool exec_mpsc_detach_last(struct exec_mpsc *q,
					 struct exec_work *prev,
					 struct exec_work *last)
{
	struct exec_work *next;

	if (READ_ONCE(q->tail) == last) {
		/* Cleared first: a push after the cmpxchg() links through it. */
		WRITE_ONCE(prev->next, NULL);
		/* Fully ordered: pairs with the xchg() in exec_mpsc_push(). */
		if (cmpxchg(&q->tail, last, prev) == last)
			return true;
	}
	/*
	 * @tail moved on from @last: no producer links through @prev now.
	 * Pairs with the producer's release of ->next.
	 */
	next = smp_load_acquire(&last->next);
	WRITE_ONCE(prev->next, next ?: last);
	return next;
}

/*
 * Returns the oldest item, NULL when the queue is empty, or EXEC_MPSC_BUSY
 * when a producer is between its two stores.
 */
static inline struct exec_work *exec_mpsc_pop(struct exec_mpsc *q)
{
	struct exec_work *stub = exec_mpsc_stub(q);
	struct exec_work *head, *next;

	/* Pairs with smp_store_release() of ->next in exec_mpsc_push(). */
	head = smp_load_acquire(&q->first);
	if (!head)
		return READ_ONCE(q->tail) == stub ? NULL : EXEC_MPSC_BUSY;
	/* As above: pairs with the producer's release. */
	next = smp_load_acquire(&head->next);
	if (next) {
		WRITE_ONCE(q->first, next);
		return head;
	}
	if (exec_mpsc_detach_last(q, stub, head))
		return head;
	return EXEC_MPSC_BUSY;
}

/*
 * Takes @work out of the queue wherever it is, for a consumer (cancel).
 * Returns 1 if it was unlinked, 0 if it is not in the queue, or -EAGAIN
 * when a producer is between its two stores ahead of it or right behind it:
 * the caller retries.
 *
 * The walk follows the links from @first, each read with acquire (pairing
 * with the producers' release of ->next in exec_mpsc_push(), so an item
 * reached is fully published).  An item whose ->next is non-NULL is not the
 * last, and no producer writes its ->next any more: only the xchg() of
 * @tail hands a producer the one item whose link it stores.  So a
 * predecessor's link (or @first) is rewritten to skip @work with a plain
 * store, read only by consumers, whom the caller excludes.  The last item
 * is detached as pop detaches it, its predecessor becoming the tail.
 */
static inline int exec_mpsc_unlink(struct exec_mpsc *q, struct exec_work *work)
{
	struct exec_work *prev = exec_mpsc_stub(q), *cur, *next;

	/* Pairs with the release of ->next in exec_mpsc_push(). */
	cur = smp_load_acquire(&prev->next);
	while (cur) {
		/* As above. */
		next = smp_load_acquire(&cur->next);
		if (cur == work) {
			if (next) {
				WRITE_ONCE(prev->next, next);
				return 1;
			}
			return exec_mpsc_detach_last(q, prev, cur) ? 1 :
								     -EAGAIN;
		}
		if (!next)
			return cur == READ_ONCE(q->tail) ? 0 : -EAGAIN;
		prev = cur;
		cur = next;
	}
	return READ_ONCE(q->tail) == prev ? 0 : -EAGAIN;
}

/*
 * Pop for a consumer that knows an item is there (it was counted): waits out
 * a producer that is between its two stores.
 */
static inline struct exec_work *exec_mpsc_pop_wait(struct exec_mpsc *q)
{
	unsigned int spins = 0;
	struct exec_work *work;

	while ((work = exec_mpsc_pop(q)) == EXEC_MPSC_BUSY)
		exec_backoff(&spins);
	return work;
}

/*
 * Pop for consumers serialised by @lock, a spinlock taken with interrupts
 * off: counts the item in *@started under the lock, and waits out a
 * producer between its two stores with the lock dropped, where it may
 * cond_resched() (a vCPU of a virtual machine can stall in that gap for
 * longer than any spin).  Returns NULL when the queue is empty.  Process
 * context.
 */
static inline struct exec_work *exec_mpsc_pop_locked(struct exec_mpsc *q,
						     spinlock_t *lock,
						     unsigned long *started)
{
	unsigned int spins = 0;
	struct exec_work *work;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(lock, flags);
		work = exec_mpsc_pop(q);
		if (work && work != EXEC_MPSC_BUSY)
			WRITE_ONCE(*started, *started + 1);
		spin_unlock_irqrestore(lock, flags);
		if (work != EXEC_MPSC_BUSY)
			return work;
		exec_backoff(&spins);
	}
}

/*
 * Whether the queue may hold an item; lock-free, for any thread.  An item
 * whose push() has returned is always seen: @tail points away from the
 * stub or, while a consumer is detaching the last item, @first does not
 * yet show the items behind it but @tail does.  Callers that use the answer
 * to decide to sleep order their own "I am going to sleep" store before
 * this with a full barrier, pairing with the xchg() in exec_mpsc_push().
 */
static inline bool exec_mpsc_maybe_nonempty(struct exec_mpsc *q)
{
	/*
	 * @first first: it is the consumers' line, while @tail is written by
	 * every push, so a consumer that finds items reachable leaves the
	 * producers' line alone.
	 */
	if (READ_ONCE(q->first))
		return true;
	/* Pairs with the xchg() of @tail in exec_mpsc_push(). */
	return smp_load_acquire(&q->tail) != exec_mpsc_stub(q);
}

/*
 * The per-thread frame stack: each executor that runs items on a thread
 * pushes a frame naming itself while it does, so "is the caller running
 * inside executor X" (destroy from inside, running_in_this_thread, posts from
 * a worker to its own pool) is a walk over a few frames.  A frame pushed
 * around items also names, in @ex, the executor whose items they are, so
 * that exec_current_executor() is the first such frame from the top; other
 * frames (a timed item's record, a group's, a service's, the pool worker's
 * tag) have @ex NULL.
 */
struct exec_frame {
	const void *owner;
	struct exec_frame *prev;
	struct exec_executor *ex;
};

/* Pushes a frame around the items of @ex, owned by @owner. */
static inline void exec_frame_push_ex(struct exec_frame *frame,
				      const void *owner,
				      struct exec_executor *ex)
{
	frame->owner = owner;
	frame->ex = ex;
	frame->prev = exec_thread_self_get();
	exec_thread_self_set(frame);
}

static inline void exec_frame_push(struct exec_frame *frame, const void *owner)
{
	exec_frame_push_ex(frame, owner, NULL);
}

static inline void exec_frame_pop(struct exec_frame *frame)
{
	exec_thread_self_set(frame->prev);
}

static inline struct exec_frame *exec_frame_find(const void *owner)
{
	struct exec_frame *frame;

	for (frame = exec_thread_self_get(); frame; frame = frame->prev)
		if (frame->owner == owner)
			return frame;
	return NULL;
}

/*
 * Starts an item of @ex: clears its pending bit, then calls it.  The RMW
 * orders the clear before the function's reads, and pairs with the RMW of a
 * submitter that found the bit set (-EALREADY): what that submitter wrote
 * before is visible to the function.
 */
void exec_timer_run(struct exec_work *work);

/*
 * The lock validator's view of waits for items (Documentation/cancel.rst,
 * "Lockdep"): every run of an item holds the map of the executor whose
 * threads run it as a recursive reader, every wait for items takes it as a
 * writer.  Both are nothing without a validator (EXEC_HAVE_LOCKDEP 0).
 */
struct exec_lockdep *exec_executor_lockdep_of(struct exec_executor *ex);
void exec_executor_lockdep_wait_of(struct exec_executor *ex);

static inline struct exec_lockdep *
exec_executor_lockdep(struct exec_executor *ex)
{
	return EXEC_HAVE_LOCKDEP ? exec_executor_lockdep_of(ex) : NULL;
}

/* Before a wait for items of @ex, where lockdep learns the order. */
static inline void exec_executor_lockdep_wait(struct exec_executor *ex)
{
	if (EXEC_HAVE_LOCKDEP && ex)
		exec_executor_lockdep_wait_of(ex);
}

/*
 * Clears a plain item's pending bit; with @runner, names its runner in the
 * same RMW (EXEC_WORK_RUNNER_MASK).  @flags: the item's flags, as read.
 */
static inline void exec_work_clear_pending(struct exec_work *work,
					   unsigned long flags,
					   unsigned long runner)
{
	if (!runner) {
		test_and_clear_bit(EXEC_WORK_PENDING_BIT, &work->flags);
		return;
	}
	while (!try_cmpxchg(&work->flags, &flags,
			    (flags & ~(EXEC_WORK_PENDING |
				       EXEC_WORK_RUNNER_MASK)) | runner))
		;
}

/*
 * exec_work_run() of an item whose flags the caller has read (@flags),
 * naming @runner in a plain item's flags (0: none).
 */
static inline void exec_work_run_by(struct exec_executor *ex,
				    struct exec_work *work,
				    unsigned long flags, unsigned long runner)
{
	exec_work_fn func = work->func;
	const void *fn = exec_trace_work_start(ex, work);
	struct exec_lockdep *ld = exec_executor_lockdep(ex);

	if (ld)
		exec_lockdep_run_begin(ld);

	/* The type bits do not change while the item is pending. */
	if (unlikely(flags & EXEC_WORK_TIMER)) {
		exec_timer_run(work);
	} else {
		exec_work_clear_pending(work, flags, runner);
		func(work);
	}
	if (ld)
		exec_lockdep_run_end(ld);
	exec_trace_work_finish(ex, work, fn);
}

static inline void exec_work_run(struct exec_executor *ex,
				 struct exec_work *work)
{
	exec_work_run_by(ex, work, READ_ONCE(work->flags), 0);
}

/*
 * Items that dispatch run in their caller nest on its stack: a chain of
 * items each dispatching its successor from inside the executor would
 * recurse without bound.  Past EXEC_DISPATCH_DEPTH nested inline runs on one
 * thread, dispatch posts instead.  Each inline run pushes a frame owned by
 * exec_dispatch_marker that records its depth, so the depth is that of the
 * innermost such frame: usually the top one, a walk of one step.
 */
#define EXEC_DISPATCH_DEPTH	16
extern const char exec_dispatch_marker;

struct exec_dispatch_frame {
	struct exec_frame frame;
	unsigned int depth;
};

/*
 * Enters an inline run of an item of @ex; false, and nothing pushed, if too
 * deep already.
 */
static inline bool exec_dispatch_enter(struct exec_dispatch_frame *df,
				       struct exec_executor *ex)
{
	struct exec_frame *frame = exec_frame_find(&exec_dispatch_marker);
	unsigned int depth = frame ? container_of(frame,
						  struct exec_dispatch_frame,
						  frame)->depth : 0;

	if (depth >= EXEC_DISPATCH_DEPTH)
		return false;
	df->depth = depth + 1;
	exec_frame_push_ex(&df->frame, &exec_dispatch_marker, ex);
	return true;
}

static inline void exec_dispatch_leave(struct exec_dispatch_frame *df)
{
	exec_frame_pop(&df->frame);
}

bool exec_work_discard(struct exec_work *work);

/*
 * A run record: an executor's thread notes the item it runs, for cancel and
 * flush (exec_run_record_match() reads it).  Written only by that thread.
 */
static inline void exec_run_record_begin(unsigned long *run_seq,
					 struct exec_work **run_work,
					 struct exec_work *work)
{
	/* The last even count first: exec_run_record_match()'s smp_rmb(). */
	smp_wmb();
	WRITE_ONCE(*run_work, work);
	/* @run_work first: pairs with exec_run_record_match()'s acquire. */
	smp_store_release(run_seq, *run_seq + 1);
}

static inline void exec_run_record_end(unsigned long *run_seq)
{
	/* The run's writes first: pairs with the acquires of its readers. */
	smp_store_release(run_seq, *run_seq + 1);
}

/* Cancel and flush (core/cancel.c). */
int exec_cancel_loop(struct exec_executor *ex, struct exec_work *work,
		     int (*take)(struct exec_executor *ex,
				 struct exec_work *work));
void exec_wait_seq(const unsigned long *seq, unsigned long old);
bool exec_run_record_match(const unsigned long *run_seq,
			   struct exec_work *const *run_work,
			   const struct exec_work *work, unsigned long *seq);
int exec_run_record_running(const unsigned long *run_seq,
			    struct exec_work *const *run_work,
			    const void *owner, struct exec_work *work,
			    bool wait);
int exec_flush_barrier(struct exec_executor *ex, bool drain,
		       bool (*empty)(struct exec_executor *ex));
bool exec_timer_discard(struct exec_work *work);

/*
 * What may depend on an executor (exec_executor_check_unused()): each kind
 * is counted from the moment it takes a pointer to the executor that it may
 * use later until it lets go of it.
 */
enum exec_dep_kind {
	EXEC_DEP_SERIAL,	/* a serial executor over it */
	EXEC_DEP_PRIORITY,	/* a priority executor over it */
	EXEC_DEP_MANAGED_QUEUE,	/* a managed queue over it, until its last item */
	EXEC_DEP_DEFAULT,	/* installed as the default executor */
	EXEC_DEP_WORK,		/* a unit of outstanding work, a work guard */
	EXEC_DEP_CONTINUATION,	/* exec_future_then(), not yet submitted */
	EXEC_DEP_GROUP_NOTIFY,	/* exec_group_notify(), armed */
	EXEC_DEP_LATCH,		/* exec_latch_init() with a continuation */
	EXEC_DEP_HANDLER,	/* exec_bind_executor() */
	EXEC_DEP_COUNT,
	/* exec_work_guard_drop(): release the unit of work only */
	EXEC_DEP_NONE = EXEC_DEP_COUNT
};

void exec_executor_depend(struct exec_executor *ex, enum exec_dep_kind kind);
void exec_executor_undepend(struct exec_executor *ex, enum exec_dep_kind kind);
void exec_executor_handover_begin(struct exec_executor *ex,
				  enum exec_dep_kind kind);
void exec_executor_handover_end(struct exec_executor *ex);
void exec_executor_work_started(struct exec_executor *ex);
void exec_executor_work_finished(struct exec_executor *ex);
int exec_work_guard_take(struct exec_work_guard *guard,
			 struct exec_executor *ex, enum exec_dep_kind kind);
int exec_work_guard_drop(struct exec_work_guard *guard,
			 enum exec_dep_kind kind);
bool exec_executor_defers_freely(struct exec_executor *ex);

/*
 * Timed work of an executor (core/timer.c); what user/io/ uses of it, and
 * the loops' wakers, are core/extension.h's.
 */
int exec_timers_create(struct exec_executor *ex);
void exec_serial_test_add_queued(struct exec_serial *serial, int n);
void exec_timers_share_lazily(struct exec_executor *ex,
			      struct exec_executor *from);
void exec_timers_count_work(struct exec_executor *ex);
bool exec_timers_counts_work(const struct exec_executor *ex);
unsigned long exec_timers_armed(struct exec_executor *ex);
bool exec_timers_watch(struct exec_executor *ex, struct exec_parker *parker,
		       u64 *when, u64 *now);
bool exec_timers_watch_moved(struct exec_executor *ex, const u64 *when);
void exec_timers_unwatch(struct exec_executor *ex, struct exec_parker *parker,
			 bool keep);
void exec_timer_test_set_realtime_offset(s64 offset);

/* Closures for executors with a submission function of their own. */
const void *exec_work_symbol(const struct exec_work *work);
struct exec_work *exec_closure_get(exec_fn fn, exec_fn discard, void *arg,
				   gfp_t gfp);
void exec_closure_put(struct exec_work *work);
unsigned long exec_closures_allocated(void);
/*
 * A chunk of a record cache is 4 KiB: a line of links, then 63 slots of a
 * line (closures), 31 of two lines, 15 of four or 7 of eight
 * (core/executor.c).
 */
#define EXEC_CLOSURES_PER_CHUNK	63

/*
 * Every record the core makes per call comes from the caller's record
 * cache (core/executor.c), never from kmalloc() on a submission path
 * (scripts/check-layout.sh counts it in group.c and future.c).
 */
void *exec_record_alloc(size_t size, gfp_t gfp);
void *exec_record_zalloc(size_t size, gfp_t gfp);
void exec_record_free(void *p);
/* A record of the type @p points to, zeroed; its alignment a long's at most. */
#define exec_record_new(p, gfp) ({					\
	BUILD_BUG_ON(__alignof__(*(p)) > sizeof(long));			\
	(typeof(p))exec_record_zalloc(sizeof(*(p)), gfp);		\
})

/**
 * struct exec_dependents - what still depends on one executor
 * @nr: A: how many, of every kind; changed only when a dependent is
 *	created or goes, never per submitted item.  An executor with threads
 *	of its own counts them per kind instead, for destroy's report
 *	(core/executor.c); a strand, made per connection, only in all
 * @handover: A: continuations that have stopped counting in @nr and are
 *	being submitted to the executor (exec_executor_handover_begin()),
 *	and units of outstanding work being released: destroy waits for
 *	these, as the continuation may already have run and told its owner
 *	(the release ended a join) before the submitter (the releaser) is
 *	done with the executor
 */
struct exec_dependents {
	atomic_t nr;
	atomic_t handover;
};

/* Dependents of the executors that live as long as the library. */
extern struct exec_dependents exec_static_dependents;
/* An executor whose table of dependents is in its own memory (a strand). */
void exec_executor_init_embedded(struct exec_executor *ex,
				 const struct exec_executor_ops *ops,
				 struct exec_dependents *deps);
void exec_executor_fini_embedded(struct exec_executor *ex);

/*
 * Fault injection for the tests: after @after more thread starts succeed,
 * the next one fails with -EAGAIN (once); a negative @after turns it off.
 * The fault points themselves, exec_fault_thread_start() and
 * exec_fault_alloc(), are core/platform.h's: the backends' pass them too.
 */
void exec_fault_inject_thread_start(int after);

/*
 * The same for allocations: after @after more allocations of the core
 * succeed, the next one fails (once); a negative @after turns it off.
 * exec_fault_alloc_fired() says whether that failure has happened since.
 */
void exec_fault_inject_alloc(int after);
bool exec_fault_alloc_fired(void);

/* Thread attributes (core/thread_attr.c). */
int exec_thread_attr_check(const struct exec_thread_attr *attr);
int exec_thread_attr_dup(struct exec_thread_attr *dst,
			 const struct exec_thread_attr *src);
void exec_thread_attr_free(struct exec_thread_attr *attr);

/* Execution contexts (core/context.c). */
void exec_executor_context_release(struct exec_executor *ex);

/*
 * The priority executor core (core/priority.c), which the managed queue
 * (core/managed_queue.c) uses with one level.  What the public attributes
 * of each give, and:
 *
 * @queue_limit: most items waiting to start, 0 for no bound; a submission
 *	waits for room (EXEC_SUBMIT_NOWAIT, or from one of its own items:
 *	-EAGAIN); timed items that come due are counted, never refused
 * @time_limit_ns: an item running longer is reported (exec_prio_report()),
 *	while it runs; 0 for none
 * @time_limit_fatal: and the report is fatal (BUG())
 * @managed: destroy (exec_prio_close()) lets the queued items run and the
 *	last of them frees it; the executor counts its outstanding work (timed
 *	items armed on it, exec_on_work_started()) for exec_prio_wait_idle();
 *	it depends on @underlying as EXEC_DEP_MANAGED_QUEUE until then
 * @name: in reports; copied
 */
struct exec_prio_config {
	unsigned int nr_levels;
	unsigned int max_running;
	u64 aging_ns;
	unsigned long queue_limit;
	u64 time_limit_ns;
	bool time_limit_fatal;
	bool managed;
	const char *name;
};

int exec_prio_create(struct exec_priority **priop,
		     struct exec_executor *underlying,
		     const struct exec_prio_config *cfg);
long exec_prio_close(struct exec_priority *p);
int exec_prio_wait_idle(struct exec_priority *p);
unsigned long exec_prio_test_reports(void);
unsigned int exec_priority_test_held(struct exec_executor *ex);

/* thread_pool.c */
unsigned int exec_thread_pool_test_held(struct exec_thread_pool *pool);

/* watchdog.c */

/**
 * struct exec_wd_late - an item of a client that has overrun its deadline
 * @item: what it stands for (exec_work_symbol())
 * @ran_ns: how long it has run
 */
struct exec_wd_late {
	const void *item;
	u64 ran_ns;
};

/**
 * struct exec_wd_client - deadlines the stall watchdog's device serves
 * @next: W: the next client
 * @check: I: called in each pass of the device, under the watchdog's lock
 *	(and so in hard interrupt context in the kernel), which may take the
 *	client's own lock: fills at most @max items that have overrun and
 *	were not reported yet, returns how many, and stores in *@next when
 *	it needs its next look (EXEC_TIME_NEVER for none; now if it has
 *	more to report than @max)
 * @report: I: writes the report of one of them, without the watchdog's lock;
 *	the client stays under the watchdog until it returns
 *
 * Embedded in the client (a priority executor with a time limit).
 */
struct exec_wd_client {
	struct exec_wd_client *next;
	unsigned int (*check)(struct exec_wd_client *c,
			      struct exec_wd_late *late, unsigned int max,
			      u64 *next);
	void (*report)(struct exec_wd_client *c,
		       const struct exec_wd_late *late);
};

int exec_watchdog_add_client(struct exec_wd_client *c);
void exec_watchdog_remove_client(struct exec_wd_client *c);
void exec_watchdog_arm(u64 at);
unsigned long exec_watchdog_test_reports(void);
unsigned long exec_watchdog_test_pool_reports(struct exec_thread_pool *pool);

/*
 * The library-wide state across fork() (exec_default_fork() and the rest)
 * and the library's teardown (exec_default_shutdown() and the rest) are
 * core/platform.h's: the userspace backend's fork handlers call the one,
 * the kernel module's exit the other.
 */

/*
 * Every allocation of the core passes the allocation fault point first, so
 * that the tests can fail each one in turn.  The platform's functions (or,
 * in userspace, macros) are taken before they are renamed here; nothing
 * after this point may include a header that defines them.  The tests'
 * own allocations go around the fault point (exec_plain_*(), see
 * tests/exec_test.h).
 */
static inline void *exec_plain_kmalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp);
}

static inline void *exec_plain_kzalloc(size_t size, gfp_t gfp)
{
	return kzalloc(size, gfp);
}

static inline void *exec_plain_kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kcalloc(n, size, gfp);
}

static inline void *exec_core_kmalloc(size_t size, gfp_t gfp)
{
	return exec_fault_alloc() ? NULL : kmalloc(size, gfp);
}

static inline void *exec_core_kzalloc(size_t size, gfp_t gfp)
{
	return exec_fault_alloc() ? NULL : kzalloc(size, gfp);
}

static inline void *exec_core_kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return exec_fault_alloc() ? NULL : kcalloc(n, size, gfp);
}

static inline void *exec_core_kmemdup(const void *src, size_t len, gfp_t gfp)
{
	return exec_fault_alloc() ? NULL : kmemdup(src, len, gfp);
}

/* A zeroed object of the type @p points to, aligned as that type asks. */
#define exec_kzalloc_obj(p, gfp)					\
	exec_core_kzalloc_aligned(sizeof(*(p)), __alignof__(*(p)), gfp)

static inline void *exec_core_kzalloc_aligned(size_t size, size_t align,
					      gfp_t gfp)
{
	return exec_fault_alloc() ? NULL : exec_kzalloc_aligned(size, align,
								gfp);
}

#undef kmalloc
#undef kzalloc
#undef kcalloc
#undef kmemdup
#define kmalloc(size, gfp)		exec_core_kmalloc(size, gfp)
#define kzalloc(size, gfp)		exec_core_kzalloc(size, gfp)
#define kcalloc(n, size, gfp)		exec_core_kcalloc(n, size, gfp)
#define kmemdup(src, len, gfp)		exec_core_kmemdup(src, len, gfp)

#endif /* EXEC_CORE_INTERNAL_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The loop scheduler (P0113 loop_scheduler): items in an MPSC queue, run by
 * every thread that is inside one of its run functions.  Those threads are
 * the queue's consumers, serialised by @consume_lock for one pop each.
 *
 * Outstanding work is one counter, @work: +1 per submission (until the item
 * has run), per unit of exec_on_work_started() and per timed item armed on
 * the scheduler (core/timer.c calls work_started/work_finished for it, see
 * exec_timers_count_work()).  The decrement that takes it to 0 stops the
 * scheduler.  A run function that finds it at 0 stops it too.
 *
 * @state holds STOPPED, DYING (destroy has begun: no run function may
 * start), CLOSED (no submission may start) and, above them, the number of
 * threads inside run functions, so that restart and destroy see both in one
 * word and refuse with -EBUSY while any thread runs.
 *
 * Idle threads sleep on parkers of sleep records taken from @spare (created
 * on demand, freed by destroy) and put on the idle list, @idle: core/idle.h,
 * the thread pool's mechanism, whose handshake is the scheduler's with
 * three wakers.  A submitter, after its push (an xchg()), claims and wakes
 * one sleeper if @idle.nr_idle says one sleeps; a stopper, after it sets
 * STOPPED, and a flush, after it raises @flush_epoch (both fully ordered),
 * wake them all; a thread that went idle (exec_idle_go()) looks at the
 * queue, the state and the epoch before it parks.  So submitting to a
 * scheduler whose threads are all busy makes no system call.  A thread
 * that leaves a blocking run function (deadline, count) with items still
 * queued and threads asleep wakes one, so that a wake-up it received is
 * passed on rather than lost.
 *
 * Calls from outside the scheduler's threads that may touch it after its
 * last run function has returned (submissions, stop, work_finished) count
 * themselves in @nr_users; destroy sets CLOSED, then waits for @nr_users to
 * drain before it frees anything.
 *
 * Driven by another event loop (user/io/loop_fd.c), the scheduler has one
 * more sleep record, @watched, whose wake-up is a call of the waker it was
 * given (an eventfd's write) rather than an unpark: between two calls of
 * exec_ls_run_armed() the other loop's thread is an idle thread like the
 * others, on the idle list, so a submission that wakes it costs what any
 * wake-up does and an idle scheduler none.
 */
#include "idle.h"
#include "stats_count.h"

#define EXEC_LS_STOPPED		0x1
#define EXEC_LS_DYING		0x2
#define EXEC_LS_CLOSED		0x4
/* One thread inside a run function; the count fills the bits above. */
#define EXEC_LS_RUNNER		0x8
#define EXEC_LS_FLAGS		(EXEC_LS_RUNNER - 1)

/**
 * struct exec_ls_sleeper - where one thread in a run function sleeps
 * @idle: its record on the idle list (core/idle.h), which sleeps on
 *	@parker, or, for @watched, calls the other loop's waker instead
 * @next: L(idle.lock): link on the spare list
 * @parker: the sleep itself; used by one thread at a time, the one that
 *	took the record from the spare list
 * @wake_release: frees the waker's argument when the scheduler is
 *	destroyed; @watched's only, set before it is published
 * @busy: A: a call of exec_ls_run_armed() is inside, for @watched
 */
struct exec_ls_sleeper {
	struct exec_idle_sleeper idle;
	struct exec_ls_sleeper *next;
	struct exec_parker parker;
	void (*wake_release)(void *arg);
	atomic_t busy;
};

/**
 * struct exec_loop_scheduler - a loop scheduler
 * @ex: the abstract executor
 * @queue: items waiting, in submission order
 * @nr_submitted: A: items pushed on @queue, ever (for pending counts)
 * @work: A: outstanding work (see the top)
 * @nr_users: A: calls from outside the run functions in progress; destroy
 *	waits for them
 * @consume_lock: serialises pops from @queue
 * @nr_started: L(consume_lock): items popped from @queue, ever; read
 *	racily for pending counts and statistics
 * @stats: L(consume_lock): the longest run and wait (only its maxima;
 *	written with WRITE_ONCE(), read without the lock)
 * @probe: times one item's wait at a time (core/stats_count.h)
 * @nr_completed: A: items that returned, added by each run function in
 *	batches, at the latest before it sleeps or returns
 * @nr_wakeups: A: sleeping threads woken, counted by their wakers
 * @stats_file: the statistics file of the backend, or NULL; set at
 *	creation, removed first thing by destroy
 * @state: A: EXEC_LS_STOPPED, _DYING, _CLOSED, and the number of threads
 *	in run functions times EXEC_LS_RUNNER
 * @runners: L(consume_lock): the threads inside run functions, for cancel
 *	and flush (struct exec_ls_runner)
 * @flush_epoch: A: raised by each flush (exec_ls_flush_once()); read by
 *	every run function between two items, beside @state
 * @idle: the idle threads' records (core/idle.h); its lock also guards
 *	@spare
 * @spare: L(idle.lock): records not in use
 * @watched: the record of the other event loop that drives the scheduler,
 *	or NULL; installed once with cmpxchg() (exec_ls_attach_waker())
 */
struct exec_loop_scheduler {
	struct exec_executor ex;
	struct exec_mpsc_split queue;
	/* Written by submitters: away from the consumers' head line. */
	atomic_long_t nr_submitted ____cacheline_aligned;
	atomic_long_t work;
	atomic_t nr_users;

	spinlock_t consume_lock ____cacheline_aligned;
	unsigned long nr_started;
	struct exec_stats_run stats;
	struct exec_stats_probe probe;
	atomic_long_t nr_completed;
	atomic_long_t nr_wakeups;
	void *stats_file;
	struct exec_ls_runner *runners;

	atomic_t state ____cacheline_aligned;
	atomic_long_t flush_epoch;
	struct exec_idle idle;
	struct exec_ls_sleeper *spare;
	struct exec_ls_sleeper *watched;
};

static const struct exec_executor_ops exec_ls_ops;

/**
 * struct exec_ls_runner - a thread inside a run function, on its stack
 * @frame: pushed while it is inside; owner is the scheduler
 * @next: L(consume_lock): link on the scheduler's @runners
 * @run_work: O: the item it runs, written before @run_seq turns odd
 * @run_seq: O, read by cancel and flush: odd while it runs an item
 * @flush_ack: O: the last @flush_epoch it read while it held no item
 *
 * O: written only by its thread.
 */
struct exec_ls_runner {
	struct exec_frame frame;
	struct exec_ls_runner *next;
	struct exec_work *run_work;
	unsigned long run_seq;
	unsigned long flush_ack;
};

static struct exec_loop_scheduler *exec_to_ls(struct exec_executor *ex)
{
	return container_of(ex, struct exec_loop_scheduler, ex);
}

static bool exec_ls_is_stopped(const struct exec_loop_scheduler *ls)
{
	return atomic_read(&ls->state) & EXEC_LS_STOPPED;
}

/* Counts a call from outside in @nr_users; false once destroy closed @ls. */
static bool exec_ls_get(struct exec_loop_scheduler *ls)
{
	/*
	 * Full barrier, then the state: pairs with destroy's atomic_fetch_or()
	 * of CLOSED before it waits for @nr_users, so either this call sees
	 * CLOSED or destroy waits for it.
	 */
	atomic_inc_return(&ls->nr_users);
	if (unlikely(atomic_read(&ls->state) & EXEC_LS_CLOSED)) {
		atomic_dec(&ls->nr_users);
		return false;
	}
	return true;
}

static void exec_ls_put(struct exec_loop_scheduler *ls)
{
	/* Release: pairs with the acquire in destroy's wait. */
	atomic_dec_return(&ls->nr_users);
}

/* Wakes one idle thread, if one sleeps; see core/idle.h. */
static void exec_ls_wake_one(struct exec_loop_scheduler *ls)
{
	if (exec_idle_wake_one(&ls->idle, EXEC_IDLE_CLAIMED))
		atomic_long_inc(&ls->nr_wakeups);
}

static void exec_ls_wake_all(struct exec_loop_scheduler *ls)
{
	unsigned int nr = exec_idle_wake_all(&ls->idle);

	if (nr)
		atomic_long_add(nr, &ls->nr_wakeups);
}

/* The caller is a run function or holds @nr_users. */
static void __exec_ls_stop(struct exec_loop_scheduler *ls)
{
	/*
	 * Fully ordered, then @idle.nr_idle: pairs with the sleeper's full
	 * barrier in exec_idle_go() before it looks at the state.
	 */
	atomic_fetch_or(EXEC_LS_STOPPED, &ls->state);
	if (atomic_read(&ls->idle.nr_idle))
		exec_ls_wake_all(ls);
}

static int exec_ls_submit(struct exec_executor *ex, struct exec_work *work,
			  unsigned int flags)
{
	struct exec_loop_scheduler *ls = exec_to_ls(ex);
	struct exec_frame *top = exec_thread_self_get();
	/* An item of @ls submitting: destroy cannot run meanwhile. */
	bool outside = !top || top->owner != ls;

	if (outside && !exec_ls_get(ls))
		return -ESHUTDOWN;
	/* Counted before the push makes the item visible to consumers. */
	atomic_long_inc(&ls->work);
	exec_stats_submit(&ls->probe, work);
	exec_mpsc_push(&ls->queue.q, work);
	atomic_long_inc(&ls->nr_submitted);
	/* The push's xchg() orders it before this read; see core/idle.h. */
	if (atomic_read(&ls->idle.nr_idle))
		exec_ls_wake_one(ls);
	if (outside)
		exec_ls_put(ls);
	return 0;
}

static unsigned long exec_ls_pending(struct exec_executor *ex)
{
	struct exec_loop_scheduler *ls = exec_to_ls(ex);
	long n = atomic_long_read(&ls->nr_submitted) -
		 (long)READ_ONCE(ls->nr_started);

	return n > 0 ? n : 0;
}

static bool exec_ls_running_in_this_thread(const struct exec_executor *ex)
{
	return exec_frame_find(container_of(ex, struct exec_loop_scheduler,
					    ex));
}

static void exec_ls_work_started(struct exec_executor *ex)
{
	atomic_long_inc(&exec_to_ls(ex)->work);
}

static void exec_ls_work_finished(struct exec_executor *ex)
{
	struct exec_loop_scheduler *ls = exec_to_ls(ex);
	long old;

	if (!exec_ls_get(ls))
		return;
	old = atomic_long_read(&ls->work);
	do {
		/* More finished than started: a caller's bug; keep 0. */
		if (WARN_ON_ONCE(old <= 0))
			goto out;
	} while (!atomic_long_try_cmpxchg(&ls->work, &old, old - 1));
	if (old == 1)
		__exec_ls_stop(ls);
out:
	exec_ls_put(ls);
}

/*
 * Runs @work, just popped.  The statistics' maxima are the consumers'
 * shared state, hence the lock, taken only for the timing (core/stats_count.h).
 */
static void exec_ls_run_one(struct exec_loop_scheduler *ls,
			    struct exec_work *work)
{
	u64 start;

	if (unlikely(READ_ONCE(ls->probe.work) == work)) {
		spin_lock(&ls->consume_lock);
		exec_stats_taken(&ls->probe, &ls->stats, work);
		spin_unlock(&ls->consume_lock);
	}
	start = exec_stats_run_begin(&ls->stats, false);
	exec_work_run(&ls->ex, work);
	if (unlikely(start)) {
		spin_lock(&ls->consume_lock);
		exec_stats_run_end(&ls->stats, start, false);
		spin_unlock(&ls->consume_lock);
	}
}

/*
 * A thread enters a run function: on the list of runners, holding
 * nothing, so it has acknowledged every flush so far.
 */
static void exec_ls_runner_add(struct exec_loop_scheduler *ls,
			       struct exec_ls_runner *r)
{
	unsigned long flags;

	r->run_work = NULL;
	r->run_seq = 0;
	exec_frame_push_ex(&r->frame, ls, &ls->ex);
	spin_lock_irqsave(&ls->consume_lock, flags);
	r->flush_ack = atomic_long_read(&ls->flush_epoch);
	r->next = ls->runners;
	ls->runners = r;
	spin_unlock_irqrestore(&ls->consume_lock, flags);
}

static void exec_ls_runner_remove(struct exec_loop_scheduler *ls,
				  struct exec_ls_runner *r)
{
	struct exec_ls_runner **link;
	unsigned long flags;

	spin_lock_irqsave(&ls->consume_lock, flags);
	for (link = &ls->runners; *link != r; link = &(*link)->next)
		;
	*link = r->next;
	spin_unlock_irqrestore(&ls->consume_lock, flags);
	exec_frame_pop(&r->frame);
}

/* Runs @work, noted for cancel and flush as a pool's worker notes its item. */
static void exec_ls_runner_run(struct exec_loop_scheduler *ls,
			       struct exec_ls_runner *r, struct exec_work *work)
{
	exec_run_record_begin(&r->run_seq, &r->run_work, work);
	exec_ls_run_one(ls, work);
	exec_run_record_end(&r->run_seq);
}

/*
 * Between two items a thread holds none: it acknowledges the latest
 * flush (exec_ls_flush_once()).  A read of @state's line, read anyway.
 */
static inline void exec_ls_flush_ack(struct exec_loop_scheduler *ls,
				     struct exec_ls_runner *r)
{
	unsigned long epoch = atomic_long_read(&ls->flush_epoch);

	if (unlikely(epoch != r->flush_ack))
		/* Release: its last run ended before the ack. */
		smp_store_release(&r->flush_ack, epoch);
}

/* Items a run function completes between two additions to the count. */
#define EXEC_LS_COMPLETED_BATCH	64

static struct exec_work *exec_ls_pop(struct exec_loop_scheduler *ls)
{
	if (!exec_mpsc_maybe_nonempty(&ls->queue.q))
		return NULL;
	return exec_mpsc_pop_locked(&ls->queue.q, &ls->consume_lock,
				    &ls->nr_started);
}

static struct exec_ls_sleeper *
exec_ls_sleeper_get(struct exec_loop_scheduler *ls)
{
	struct exec_ls_sleeper *s;
	unsigned long flags;

	raw_spin_lock_irqsave(&ls->idle.lock, flags);
	s = ls->spare;
	if (s)
		ls->spare = s->next;
	raw_spin_unlock_irqrestore(&ls->idle.lock, flags);
	if (s)
		return s;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	if (exec_parker_init(&s->parker)) {
		kfree(s);
		return NULL;
	}
	exec_idle_sleeper_init(&s->idle, &s->parker);
	return s;
}

static void exec_ls_sleeper_put(struct exec_loop_scheduler *ls,
				struct exec_ls_sleeper *s)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ls->idle.lock, flags);
	/* Off the idle list before another thread takes it. */
	if (s->idle.pprev)
		exec_idle_unlink(&ls->idle, &s->idle);
	s->next = ls->spare;
	ls->spare = s;
	raw_spin_unlock_irqrestore(&ls->idle.lock, flags);
}

/* The thread of @s takes its state back, woken or not; see core/idle.h. */
static void exec_ls_unidle(struct exec_loop_scheduler *ls,
			   struct exec_ls_sleeper *s)
{
	unsigned long mark;

	exec_idle_take(&ls->idle, &s->idle, &mark);
}

static inline void exec_ls_flush_ack(struct exec_loop_scheduler *ls,
				     struct exec_ls_runner *r);

/*
 * Puts @s on the idle list.  Full barrier after: the caller then looks at
 * the queue, the state and the flush epoch (core/idle.h).
 */
static void exec_ls_idle(struct exec_loop_scheduler *ls,
			 struct exec_ls_sleeper *s)
{
	exec_idle_go(&ls->idle, &s->idle, false);
}

/*
 * Sleeps until woken, stopped, an item is queued, or @deadline.  @r holds
 * no item: it acknowledges a flush that began before it went on the idle
 * list, where the flusher's wake-up did not find it.
 */
static void exec_ls_sleep(struct exec_loop_scheduler *ls,
			  struct exec_ls_sleeper *s, struct exec_ls_runner *r,
			  u64 deadline)
{
	u64 when[EXEC_CLOCK_COUNT] = {
		[EXEC_CLOCK_MONOTONIC] = deadline,
		[EXEC_CLOCK_REALTIME] = EXEC_TIME_NEVER,
	};

	exec_ls_idle(ls, s);
	/*
	 * After the full barrier: pairs with the flusher's, between its
	 * epoch's increment and its walk of the idle list.
	 */
	exec_ls_flush_ack(ls, r);

	if (!exec_mpsc_maybe_nonempty(&ls->queue.q) && !exec_ls_is_stopped(ls)) {
		if (deadline == EXEC_TIME_NEVER)
			exec_parker_park(&s->parker);
		else
			exec_parker_park_until(&s->parker, when);
	}
	exec_ls_unidle(ls, s);
}

static int exec_ls_enter(struct exec_loop_scheduler *ls)
{
	int old = atomic_read(&ls->state);

	do {
		if (old & EXEC_LS_DYING)
			return -ESHUTDOWN;
	} while (!atomic_try_cmpxchg(&ls->state, &old, old + EXEC_LS_RUNNER));
	return 0;
}

static void exec_ls_leave(struct exec_loop_scheduler *ls)
{
	/*
	 * Fully ordered: what the call did happens before a restart or a
	 * destroy that sees the count drop (their cmpxchg on @state).
	 */
	atomic_sub_return(EXEC_LS_RUNNER, &ls->state);
}

static bool exec_ls_expired(u64 deadline)
{
	return deadline != EXEC_TIME_NEVER &&
	       exec_clock_now(EXEC_CLOCK_MONOTONIC) >= deadline;
}

/*
 * Every run function: runs at most @max items, until stopped, until
 * @deadline (EXEC_TIME_NEVER: none); sleeps for more if @block, else
 * returns when no item is ready.
 */
static long exec_ls_run(struct exec_loop_scheduler *ls, long max,
			u64 deadline, bool block)
{
	struct exec_ls_sleeper *s = NULL;
	struct exec_ls_runner runner;
	struct exec_work *work;
	long n = 0, counted = 0;
	int ret;

	might_sleep_if(block);
	if (!ls)
		return -EINVAL;
	/* P0113: not from a thread already in a run function (it sleeps). */
	if (block && exec_frame_find(ls))
		return -EDEADLK;
	ret = exec_ls_enter(ls);
	if (ret)
		return ret;
	exec_ls_runner_add(ls, &runner);
	if (!atomic_long_read(&ls->work))
		__exec_ls_stop(ls);
	while (n < max && !exec_ls_is_stopped(ls)) {
		if (exec_ls_expired(deadline))
			break;
		exec_ls_flush_ack(ls, &runner);
		work = exec_ls_pop(ls);
		if (work) {
			exec_ls_runner_run(ls, &runner, work);
			/* Fully ordered: the item is done before a stop. */
			if (atomic_long_dec_return(&ls->work) == 0)
				__exec_ls_stop(ls);
			n++;
			if (n - counted >= EXEC_LS_COMPLETED_BATCH) {
				atomic_long_add(n - counted, &ls->nr_completed);
				counted = n;
			}
			if (block && need_resched())
				cond_resched();
			continue;
		}
		if (!block)
			break;
		if (!s) {
			s = exec_ls_sleeper_get(ls);
			if (!s) {
				if (!n)
					n = -ENOMEM;
				break;
			}
		}
		/* A quiet scheduler's statistics are exact. */
		if (n > counted) {
			atomic_long_add(n - counted, &ls->nr_completed);
			counted = n;
		}
		exec_ls_sleep(ls, s, &runner, deadline);
	}
	if (n > counted)
		atomic_long_add(n - counted, &ls->nr_completed);
	/* Pass on a wake-up this thread may have taken and not used. */
	if (block && atomic_read(&ls->idle.nr_idle) && !exec_ls_is_stopped(ls) &&
	    exec_mpsc_maybe_nonempty(&ls->queue.q))
		exec_ls_wake_one(ls);
	exec_ls_runner_remove(ls, &runner);
	if (s)
		exec_ls_sleeper_put(ls, s);
	exec_ls_leave(ls);
	return n;
}

/* @ns from now on the monotonic clock, saturating. */
static u64 exec_ls_deadline_after(u64 ns)
{
	u64 now = exec_clock_now(EXEC_CLOCK_MONOTONIC);

	return now + ns < now ? EXEC_TIME_NEVER : now + ns;
}

long exec_loop_scheduler_run(struct exec_loop_scheduler *ls)
{
	return exec_ls_run(ls, LONG_MAX, EXEC_TIME_NEVER, true);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run);

long exec_loop_scheduler_run_for(struct exec_loop_scheduler *ls, uint64_t ns)
{
	return exec_ls_run(ls, LONG_MAX, exec_ls_deadline_after(ns), true);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run_for);

long exec_loop_scheduler_run_until(struct exec_loop_scheduler *ls,
				   uint64_t deadline)
{
	return exec_ls_run(ls, LONG_MAX, deadline, true);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run_until);

long exec_loop_scheduler_run_one(struct exec_loop_scheduler *ls)
{
	return exec_ls_run(ls, 1, EXEC_TIME_NEVER, true);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run_one);

long exec_loop_scheduler_run_one_for(struct exec_loop_scheduler *ls,
				     uint64_t ns)
{
	return exec_ls_run(ls, 1, exec_ls_deadline_after(ns), true);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run_one_for);

long exec_loop_scheduler_run_one_until(struct exec_loop_scheduler *ls,
				       uint64_t deadline)
{
	return exec_ls_run(ls, 1, deadline, true);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run_one_until);

long exec_loop_scheduler_poll(struct exec_loop_scheduler *ls)
{
	return exec_ls_run(ls, LONG_MAX, EXEC_TIME_NEVER, false);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_poll);

long exec_loop_scheduler_poll_one(struct exec_loop_scheduler *ls)
{
	return exec_ls_run(ls, 1, EXEC_TIME_NEVER, false);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_poll_one);

/**
 * exec_ls_attach_waker - let another event loop drive a scheduler, once
 * @ls: the scheduler
 * @wake: ends the other loop's wait (see the top); called in any context
 * @release: frees *@argp when @ls is destroyed, or NULL
 * @argp: @wake's argument; if @ls has a waker already, and it is @wake,
 *	set to the argument that one was given
 *
 * The other loop counts from now on as an idle thread of @ls: a
 * submission may call @wake.  Items already queued call it at once.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EBUSY if @ls has another waker; -ENOMEM.
 */
int exec_ls_attach_waker(struct exec_loop_scheduler *ls,
			 void (*wake)(void *arg), void (*release)(void *arg),
			 void **argp)
{
	/* Pairs with the cmpxchg() below: a record seen is filled in. */
	struct exec_ls_sleeper *s = smp_load_acquire(&ls->watched), *old;

	if (!s) {
		s = kzalloc(sizeof(*s), GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		exec_idle_sleeper_init(&s->idle, NULL);
		exec_idle_set_waker(&s->idle, wake, *argp);
		s->wake_release = release;
		/* Fully ordered: publishes the record. */
		old = cmpxchg(&ls->watched, NULL, s);
		if (!old) {
			exec_ls_idle(ls, s);
			if (exec_mpsc_maybe_nonempty(&ls->queue.q))
				exec_ls_wake_one(ls);
			return 0;
		}
		kfree(s);
		s = old;
	}
	if (exec_idle_waker(&s->idle) != wake)
		return -EBUSY;
	*argp = s->idle.wake_arg;
	return 0;
}

/**
 * exec_ls_waker_arg - the argument of a scheduler's waker
 * @ls: the scheduler
 * @wake: the waker expected
 *
 * Context: Any context.
 * Return: the argument attached with @wake; NULL if @ls has another waker
 * or none.
 */
void *exec_ls_waker_arg(struct exec_loop_scheduler *ls,
			void (*wake)(void *arg))
{
	/* Pairs with the cmpxchg() of exec_ls_attach_waker(). */
	struct exec_ls_sleeper *s = smp_load_acquire(&ls->watched);

	return s && exec_idle_waker(&s->idle) == wake ? s->idle.wake_arg : NULL;
}

/**
 * exec_ls_run_armed - run what is ready for the other loop, then re-arm
 * @ls: a scheduler with a waker (exec_ls_attach_waker())
 * @reset: undoes the waker's calls so far (the other loop's readiness)
 *
 * The other loop's thread leaves the idle list, runs the items queued at
 * the time of call as exec_loop_scheduler_poll() does (but without
 * stopping a scheduler it finds without work: a watcher may be woken in
 * vain), calls @reset, goes back on the idle list and, if items are
 * queued and @ls is not stopped, wakes an idle thread: itself, last on
 * and first off, unless a thread asleep in a run function was first.
 *
 * Context: The other loop's thread; never sleeps.
 * Return: the number of items run (>= 0); -EBUSY if another call is
 * inside; -ESHUTDOWN once destroy has begun.
 */
long exec_ls_run_armed(struct exec_loop_scheduler *ls,
		       void (*reset)(void *arg))
{
	/* Pairs with the cmpxchg() of exec_ls_attach_waker(). */
	struct exec_ls_sleeper *s = smp_load_acquire(&ls->watched);
	long nr, ret = 0;

	if (atomic_cmpxchg(&s->busy, 0, 1))
		return -EBUSY;
	/* AWAKE only if the attach has not put it on the list yet. */
	if (READ_ONCE(s->idle.state) != EXEC_IDLE_AWAKE)
		exec_ls_unidle(ls, s);
	nr = exec_ls_pending(&ls->ex);
	if (nr)
		ret = exec_ls_run(ls, nr, EXEC_TIME_NEVER, false);
	reset(s->idle.wake_arg);
	exec_ls_idle(ls, s);
	if (exec_mpsc_maybe_nonempty(&ls->queue.q) && !exec_ls_is_stopped(ls))
		exec_ls_wake_one(ls);
	/* Release: our use of the record comes before the next call's. */
	atomic_set_release(&s->busy, 0);
	return ret;
}

void exec_loop_scheduler_stop(struct exec_loop_scheduler *ls)
{
	if (!ls || !exec_ls_get(ls))
		return;
	__exec_ls_stop(ls);
	exec_ls_put(ls);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_stop);

bool exec_loop_scheduler_stopped(const struct exec_loop_scheduler *ls)
{
	return !ls || exec_ls_is_stopped(ls);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_stopped);

int exec_loop_scheduler_restart(struct exec_loop_scheduler *ls)
{
	int old;

	if (!ls)
		return -EINVAL;
	old = atomic_read(&ls->state);
	do {
		if (old & EXEC_LS_DYING)
			return -ESHUTDOWN;
		if (old & ~EXEC_LS_FLAGS)
			return -EBUSY;
		if (!(old & EXEC_LS_STOPPED))
			return 0;
	} while (!atomic_try_cmpxchg(&ls->state, &old, old & ~EXEC_LS_STOPPED));
	return 0;
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_restart);

int exec_loop_scheduler_create(struct exec_loop_scheduler **lsp)
{
	struct exec_loop_scheduler *ls;
	int ret;

	might_sleep();
	if (!lsp)
		return -EINVAL;
	ls = kzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return -ENOMEM;
	ret = exec_executor_init(&ls->ex, &exec_ls_ops);
	if (ret)
		goto err_free_ls;
	ret = exec_timers_create(&ls->ex);
	if (ret)
		goto err_fini_executor;
	exec_timers_count_work(&ls->ex);
	exec_mpsc_init(&ls->queue.q);
	spin_lock_init(&ls->consume_lock);
	exec_idle_init(&ls->idle);
	ls->stats_file = exec_stats_file_add(&ls->ex, "loop-scheduler");
	*lsp = ls;
	return 0;

err_fini_executor:
	exec_executor_fini(&ls->ex);
err_free_ls:
	kfree(ls);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_create);

struct exec_executor *
exec_loop_scheduler_executor(struct exec_loop_scheduler *ls)
{
	return ls ? &ls->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_executor);

long exec_loop_scheduler_destroy(struct exec_loop_scheduler *ls)
{
	struct exec_ls_sleeper *s;
	struct exec_work *work;
	long discarded;
	int old;

	might_sleep();
	if (!ls)
		return -EINVAL;
	if (exec_frame_find(ls))
		return -EDEADLK;
	if (exec_executor_check_unused(&ls->ex))
		return -EBUSY;
	/* DYING stays: no run function starts again. */
	old = atomic_read(&ls->state);
	do {
		if (old & ~EXEC_LS_STOPPED)
			return -EBUSY;
	} while (!atomic_try_cmpxchg(&ls->state, &old, old | EXEC_LS_DYING));
	exec_stats_file_remove(ls->stats_file);

	/* Armed items are discarded, due ones reach the queue first. */
	discarded = exec_timers_shutdown(&ls->ex);
	/* Fully ordered, then @nr_users: pairs with exec_ls_get(). */
	atomic_fetch_or(EXEC_LS_CLOSED, &ls->state);
	/* Its acquire pairs with the release in exec_ls_put(). */
	exec_drain_users(&ls->nr_users, 0);
	while ((work = exec_mpsc_pop_wait(&ls->queue.q))) {
		exec_stats_dropped(&ls->probe, work);
		discarded += exec_work_discard(work);
	}

	/* No thread is in a run function: every record is spare... */
	while ((s = ls->spare)) {
		ls->spare = s->next;
		exec_parker_destroy(&s->parker);
		kfree(s);
	}
	/* ...but the other loop's, which has no parker. */
	s = ls->watched;
	if (s) {
		if (s->wake_release)
			s->wake_release(s->idle.wake_arg);
		kfree(s);
	}
	exec_timers_free(&ls->ex);
	exec_executor_fini(&ls->ex);
	spin_lock_destroy(&ls->consume_lock);
	exec_idle_fini(&ls->idle);
	kfree(ls);
	return discarded;
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_destroy);

/**
 * exec_ls_stats - a loop scheduler's statistics
 * @ex: an executor
 * @st: zeroed by the caller; the scheduler's counts are added
 *
 * Its threads are the callers of its run functions: @st->nr_threads stays
 * 0.  It refuses and discards only once destroyed, when nothing can read
 * them.  An item that returned is counted as completed by the time its
 * thread sleeps or leaves the run function, or runs 64 more.
 *
 * Context: Any context.
 * Return: false if @ex is not a loop scheduler.
 */
bool exec_ls_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_loop_scheduler *ls;

	if (ex->ops != &exec_ls_ops)
		return false;
	ls = exec_to_ls(ex);
	st->completed = atomic_long_read(&ls->nr_completed);
	/*
	 * Completed, then started: an item is counted started under the pop's
	 * lock, whose release orders it before the item's run and its count
	 * as completed; so a snapshot never has more completed than started.
	 */
	smp_rmb();
	st->started = READ_ONCE(ls->nr_started);
	/* A submitter counts its item after the push that a pop may take. */
	st->submitted = max_t(u64, atomic_long_read(&ls->nr_submitted),
			      st->started);
	st->max_run_ns = READ_ONCE(ls->stats.max_run_ns);
	st->max_wait_ns = READ_ONCE(ls->stats.max_wait_ns);
	st->wakeups = atomic_long_read(&ls->nr_wakeups);
	return true;
}

/* @ex's statistics file, if it is a loop scheduler; else NULL. */
void *exec_ls_stats_file(struct exec_executor *ex)
{
	return ex->ops == &exec_ls_ops ? exec_to_ls(ex)->stats_file : NULL;
}

/*
 * Cancel's look: @work in the queue, unlinked under @consume_lock as a pop
 * would take it, and counted as taken; its unit of outstanding work goes
 * with it, which may stop the scheduler as its run would have.
 */
static int exec_ls_take_back(struct exec_executor *ex, struct exec_work *work)
{
	struct exec_loop_scheduler *ls = exec_to_ls(ex);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ls->consume_lock, flags);
	ret = exec_mpsc_unlink(&ls->queue.q, work);
	if (ret == 1)
		WRITE_ONCE(ls->nr_started, ls->nr_started + 1);
	spin_unlock_irqrestore(&ls->consume_lock, flags);
	if (ret != 1)
		return ret;
	exec_stats_dropped(&ls->probe, work);
	atomic_long_inc(&ls->nr_completed);
	if (atomic_long_dec_return(&ls->work) == 0)
		__exec_ls_stop(ls);
	return 1;
}

static int exec_ls_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_ls_take_back);
}

/*
 * A runner that runs @work now, other than @skip, with the sequence count
 * of that run in *@seq; NULL if none.  The caller holds @consume_lock, so
 * the runners on the list stay inside their run functions.
 */
static struct exec_ls_runner *exec_ls_find_run(struct exec_loop_scheduler *ls,
					       struct exec_work *work,
					       struct exec_ls_runner *skip,
					       unsigned long *seq)
{
	struct exec_ls_runner *r;

	for (r = ls->runners; r; r = r->next)
		if (r != skip &&
		    exec_run_record_match(&r->run_seq, &r->run_work, work, seq))
			return r;
	return NULL;
}

/* Whether @r is still on the list and still in the run numbered @seq. */
static bool exec_ls_run_goes_on(struct exec_loop_scheduler *ls,
				struct exec_ls_runner *r, unsigned long seq)
{
	struct exec_ls_runner *it;
	unsigned long flags;
	bool on = false;

	spin_lock_irqsave(&ls->consume_lock, flags);
	for (it = ls->runners; it && !on; it = it->next)
		/* Acquire: the run's writes, once its end is seen. */
		on = it == r && smp_load_acquire(&r->run_seq) == seq;
	spin_unlock_irqrestore(&ls->consume_lock, flags);
	return on;
}

/*
 * Several threads may run @work at once (it is resubmitted while it runs).
 * A runner's record lives on its thread's stack, so the wait looks it up
 * under the lock each time instead of holding on to it.
 */
static int exec_ls_work_running(struct exec_executor *ex,
				struct exec_work *work, bool wait)
{
	struct exec_loop_scheduler *ls = exec_to_ls(ex);
	struct exec_frame *frame = exec_frame_find(ls);
	struct exec_ls_runner *self = frame ?
		container_of(frame, struct exec_ls_runner, frame) : NULL;
	struct exec_ls_runner *r;
	unsigned long flags, seq, us = 16;

	/* Our own record, written only by this thread: no lock. */
	if (self && (self->run_seq & 1) && self->run_work == work)
		return wait ? -EDEADLK : 1;
	spin_lock_irqsave(&ls->consume_lock, flags);
	r = exec_ls_find_run(ls, work, self, &seq);
	spin_unlock_irqrestore(&ls->consume_lock, flags);
	if (!r)
		return 0;
	if (!wait)
		return 1;
	/* One run at a time; a run started after the call may be waited for. */
	do {
		while (exec_ls_run_goes_on(ls, r, seq))
			exec_poll_sleep(&us);
		spin_lock_irqsave(&ls->consume_lock, flags);
		r = exec_ls_find_run(ls, work, self, &seq);
		spin_unlock_irqrestore(&ls->consume_lock, flags);
	} while (r);
	return 1;
}

/* Whether every thread in a run function has acknowledged @epoch. */
static bool exec_ls_flush_acked(struct exec_loop_scheduler *ls,
				unsigned long epoch)
{
	struct exec_ls_runner *r;
	unsigned long flags;
	bool acked = true;

	spin_lock_irqsave(&ls->consume_lock, flags);
	for (r = ls->runners; r && acked; r = r->next)
		/* Acquire: pairs with the runner's release of its ack. */
		acked = (long)(smp_load_acquire(&r->flush_ack) - epoch) >= 0;
	spin_unlock_irqrestore(&ls->consume_lock, flags);
	return acked;
}

/*
 * One flush.  Its threads run items side by side, so the marker's start
 * says only that what was queued before it has been taken (pops are in
 * order, under @consume_lock), not that it has returned.  Then a new
 * epoch, and every sleeping thread woken: a thread acknowledges it between
 * two items, holding none, and it takes one item at a time, so its ack
 * comes after the item it took before the marker.  A thread that enters a
 * run function later holds nothing of before.
 */
static int exec_ls_flush_once(struct exec_loop_scheduler *ls)
{
	unsigned long epoch, us = 16;
	int ret;

	ret = exec_flush_barrier(&ls->ex, false, NULL);
	if (ret)
		return ret;
	/* Fully ordered: after the marker's start, before the wake-ups. */
	epoch = atomic_long_inc_return(&ls->flush_epoch);
	exec_ls_wake_all(ls);
	while (!exec_ls_flush_acked(ls, epoch))
		exec_poll_sleep(&us);
	return 0;
}

/*
 * A drain repeats the flush until a round saw no submission but its own
 * marker's: an item that ran in the round counted what it submitted
 * before it returned.
 */
static int exec_ls_flush(struct exec_executor *ex, bool drain)
{
	struct exec_loop_scheduler *ls = exec_to_ls(ex);
	unsigned long before;
	int ret;

	do {
		before = atomic_long_read(&ls->nr_submitted);
		ret = exec_ls_flush_once(ls);
		if (ret)
			return ret;
	} while (drain && atomic_long_read(&ls->nr_submitted) - before != 1);
	return 0;
}

static const struct exec_executor_ops exec_ls_ops = {
	.kind = "loop_scheduler",
	.submit = exec_ls_submit,
	.pending = exec_ls_pending,
	.running_in_this_thread = exec_ls_running_in_this_thread,
	.work_started = exec_ls_work_started,
	.work_finished = exec_ls_work_finished,
	.cancel = exec_ls_cancel,
	.work_running = exec_ls_work_running,
	.flush = exec_ls_flush,
};

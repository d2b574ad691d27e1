// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The serial executor (strand).
 *
 * Items wait in the serial executor's own MPSC queue.  @nr_queued counts the
 * items pushed and not yet taken; the submitter that raises it from 0 to 1
 * schedules @runner, the one item the serial executor submits to its
 * underlying executor.  From then until @nr_queued falls back to 0 the
 * consumer side belongs to that runner ("ownership"): only it pops, so items
 * run one at a time and in queue order.  A runner takes at most
 * EXEC_SERIAL_BATCH items, then gives the underlying executor back and
 * resubmits itself if more are queued.
 *
 * A runner subtracts what it took only after it has finished with the queue,
 * so two runs of @runner never overlap in their use of it: a submitter cannot
 * see 0 and reschedule the runner before the current run lets go.
 *
 * Lingering.  Over a thread pool without a queue limit (where @runner
 * would take room from submitters), a run that took several items and
 * emptied the queue does not let go at once: it adds EXEC_SERIAL_LINGERING
 * to @nr_queued, standing for no item, and posts @runner to the back of
 * the pool's queue, deferred (no worker woken).  Submitters meanwhile
 * only push and count, as behind a busy runner; the next run takes the
 * addition back first and lets go if nothing came.  Without it, a pool
 * whose workers kept up with one submitter ran each serial executor's
 * items one or two at a time, the submitter scheduling @runner for nearly
 * every item: serial_throughput fell into a slow mode, a few items per
 * run, at well under half the rate of the runs in which the submitter got
 * ahead at the start (Documentation/benchmarks.rst).  Lingering costs a
 * pass through the pool's queue, and no wake-up.
 *
 * Lifetime.  Each scheduled run of @runner holds a reference, and the handle
 * holds one; the structure is freed when the last goes.  exec_serial_destroy()
 * marks the executor dying in @state, waits for a run that is consuming to
 * finish its current item, and then discards what is queued itself.  A run
 * that starts after that finds it dying in @state and only drops its
 * reference, so the underlying executor may still hold @runner after destroy
 * returns.  A strand in its user's memory (exec_serial_init()) cannot be
 * left behind so: its destroy takes @runner back from the underlying
 * executor (exec_work_cancel()), or waits for the run that holds it to drop
 * its reference.  If the underlying executor discards @runner, or refuses
 * it, the owner of the consumer side discards the queued items, so none is
 * stranded.
 *
 * Memory.  A strand is made per connection: struct exec_serial, the
 * public size, is all of it.  What only some strands use is made by its
 * first use: the record of timed items (by the first one armed), the
 * statistics beyond the counts of items (struct exec_serial_record, by
 * timing turned on, or a first discard or refusal), kept in @ex.aux.  The
 * items started and completed are counted by @run_seq, which cancel and
 * flush read anyway; @nr_queued is a 32-bit count; the lock between the
 * owner's pops and a cancel's unlink is a bit of @consume.
 *
 * Outstanding work.  A unit counted on the strand (a work guard, an I/O
 * handler bound to it, a continuation or notification registered on it) is
 * counted on the underlying executor, which is what runs the item the unit
 * waits for (P0113 strand on_work_started: "Calls
 * inner_ex_.on_work_started()").  Timed items armed on the strand count so
 * when the underlying executor counts its own (a loop scheduler, a managed
 * queue; not a thread pool).
 */
#include "stats_count.h"

#define EXEC_SERIAL_BATCH	64

/*
 * Added to @nr_queued while @runner lingers: far above any count of items,
 * so that one read tells both (exec_serial_queued()).
 */
#define EXEC_SERIAL_LINGERING	(INT_MAX / 4 + 1)

/*
 * Items a strand holds at most, far below EXEC_SERIAL_LINGERING / 2 for
 * the submitters counted beyond it at once.
 */
#define EXEC_SERIAL_MAX_QUEUED	(EXEC_SERIAL_LINGERING / 4)

/*
 * A run lingers only after taking at least this many items: a run of one
 * shows items coming one at a time, which lingering does not gather, and
 * its pass cost the next item's wake-up (wakeup_latency over a serial
 * executor; Documentation/benchmarks.rst).
 */
#define EXEC_SERIAL_LINGER_AFTER	2

/* The items that a value of @nr_queued counts. */
static int exec_serial_queued(int count)
{
	return count >= EXEC_SERIAL_LINGERING / 2 ?
	       count - EXEC_SERIAL_LINGERING : count;
}

/**
 * struct exec_strand - a serial executor: what struct exec_serial holds
 * @ex: the abstract executor; @ex.aux is the struct exec_serial_record,
 *	once made (A: installed with cmpxchg(), freed with the strand)
 * @underlying: the executor that runs @runner; set at creation
 * @queue: items waiting, in submission order
 * @nr_queued: A: items pushed on @queue and not yet taken by their owner
 * @state: A: in one word, so that entering, leaving and marking are one
 *	atomic operation each and totally ordered: the runs of @runner (or
 *	its discard) inside their consuming section, at most one taking
 *	items and a second maybe starting (EXEC_SERIAL_CONSUMING); the
 *	references, the handle's and one per scheduled run
 *	(EXEC_SERIAL_REF); EXEC_SERIAL_DYING once exec_serial_destroy() has
 *	begun, read as a hint by submitters and running batches; and, set at
 *	creation, EXEC_SERIAL_LINGER (@underlying is a thread pool without a
 *	queue limit, whose workers may take @runner again later at no cost,
 *	see above) and EXEC_SERIAL_EMBEDDED (exec_serial_init()'s).
 *	exec_serial_destroy() waits on it (wait_var_event()) for the runs to
 *	leave
 * @runner: submitted to @underlying; holds a reference while pending
 * @consume: bit EXEC_SERIAL_CONSUME_LOCK serialises the owner's pops with
 *	a cancel's unlink (exec_serial_pop()), taken with interrupts off, as
 *	a serial executor over the inline executor consumes in its
 *	submitter's (maybe hardirq) context; the bits above it count, under
 *	that lock, the items a cancel took out of @queue that the owner has
 *	not yet counted as taken (credits)
 * @run_work: C: the item the owner runs, written before @run_seq turns odd
 * @run_seq: C, read by cancel, flush and the statistics: odd while the
 *	owner runs an item; half of it is the items completed
 * @deps: @ex's table of dependents, here so that a strand is one
 *	allocation (exec_executor_init_embedded())
 *
 * C: written only by the owner of the consumer side (WRITE_ONCE(), read
 * by exec_executor_stats() with READ_ONCE()); ownership passes through
 * fully ordered operations on @nr_queued, which order one owner's writes
 * before the next's.
 */
struct exec_strand {
	struct exec_executor ex;
	unsigned long consume;
	struct exec_mpsc queue;
	atomic_t nr_queued;
	atomic_t state;
	struct exec_work runner;
	struct exec_executor *underlying;
	struct exec_work *run_work;
	unsigned long run_seq;
	struct exec_dependents deps;
};

/**
 * struct exec_serial_record - what a strand counts once first needed
 * @probe: the queued item being timed (core/stats_count.h)
 * @run: C: the longest run and queue wait timed (@run.started and
 *	@run.completed unused: @run_seq counts them)
 * @nr_discarded: C: items discarded by owners of the consumer side
 * @nr_scheduled: C: runs of @runner scheduled on @underlying since the
 *	record was made
 * @nr_refused: A: submissions refused
 */
struct exec_serial_record {
	struct exec_stats_probe probe;
	struct exec_stats_run run;
	unsigned long nr_discarded;
	unsigned long nr_scheduled;
	atomic_long_t nr_refused;
};

/* @state: the runs inside their consuming section. */
#define EXEC_SERIAL_CONSUMING	0xff
/* @state: one reference. */
#define EXEC_SERIAL_REF		(1 << 8)
#define EXEC_SERIAL_REFS	(0xfffff << 8)
/* @state: in its user's memory (exec_serial_init()). */
#define EXEC_SERIAL_EMBEDDED	(1 << 28)
/* @state: @runner lingers over @underlying (see the top of the file). */
#define EXEC_SERIAL_LINGER	(1 << 29)
/* @state: destroy has begun. */
#define EXEC_SERIAL_DYING	(1 << 30)

/* @consume: the lock bit; the credits above it. */
#define EXEC_SERIAL_CONSUME_LOCK	0
#define EXEC_SERIAL_CREDIT_UNIT		2UL

static bool exec_serial_dying(struct exec_strand *s)
{
	return atomic_read(&s->state) & EXEC_SERIAL_DYING;
}

/*
 * A run enters its consuming section unless destroy has begun: then it
 * only drops its reference.
 */
static bool exec_serial_enter(struct exec_strand *s)
{
	int state = atomic_read(&s->state);

	do {
		if (state & EXEC_SERIAL_DYING)
			return false;
	} while (!atomic_try_cmpxchg(&s->state, &state, state + 1));
	return true;
}

static void exec_serial_lock(struct exec_strand *s, unsigned long *flags)
{
	local_irq_save(*flags);
	bit_spin_lock(EXEC_SERIAL_CONSUME_LOCK, &s->consume);
}

/*
 * Only the holder changes the other bits of @consume (the credits), so the
 * unlock is a plain release store, not another atomic operation per pop.
 */
static void exec_serial_unlock(struct exec_strand *s, unsigned long flags)
{
	__bit_spin_unlock(EXEC_SERIAL_CONSUME_LOCK, &s->consume);
	local_irq_restore(flags);
}

/*
 * Under the lock: changes the credits, the holder's own bits of @consume.
 * A waiter's atomic set of the lock bit, meanwhile, writes the value it
 * reads (the bit is set): a plain store of the holder's loses nothing.
 */
static void exec_serial_credits_add(struct exec_strand *s, unsigned long delta)
{
	WRITE_ONCE(s->consume, READ_ONCE(s->consume) + delta);
}

/*
 * The strand's record, made if it is not there yet (any context: an
 * atomic allocation).  NULL if there is no memory for it: what it would
 * count goes uncounted.
 */
static struct exec_serial_record *exec_serial_record(struct exec_strand *s)
{
	/* Pairs with the cmpxchg() below: a record seen is zeroed. */
	struct exec_serial_record *rec = smp_load_acquire(&s->ex.own.aux);
	struct exec_serial_record *old;

	if (likely(rec))
		return rec;
	rec = kzalloc(sizeof(*rec), GFP_ATOMIC | __GFP_NOWARN);
	if (!rec)
		return NULL;
	/* Fully ordered: publishes the zeroed record. */
	old = cmpxchg(&s->ex.own.aux, NULL, rec);
	if (old) {
		kfree(rec);
		return old;
	}
	return rec;
}

/* The record if it has been made; NULL otherwise. */
static struct exec_serial_record *exec_serial_record_made(struct exec_strand *s)
{
	/* Pairs with the cmpxchg() in exec_serial_record(). */
	return smp_load_acquire(&s->ex.own.aux);
}

/* A submitter, before it publishes @work: time it while timing is on. */
static void exec_serial_stats_submit(struct exec_strand *s,
				     struct exec_work *work)
{
	struct exec_serial_record *rec;

	if (likely(!exec_stats_timing_enabled()))
		return;
	rec = exec_serial_record(s);
	if (rec)
		exec_stats_submit(&rec->probe, work);
}

/* @work leaves the queue without running: free the probe if it is its. */
static void exec_serial_stats_dropped(struct exec_strand *s,
				      struct exec_work *work)
{
	struct exec_serial_record *rec = exec_serial_record_made(s);

	if (unlikely(rec))
		exec_stats_dropped(&rec->probe, work);
}

/* The owner of the consumer side discarded an item. */
static void exec_serial_count_discard(struct exec_strand *s)
{
	struct exec_serial_record *rec = exec_serial_record(s);

	if (rec)
		exec_stats_inc(&rec->nr_discarded);
}

/* exec_serial_pop(): the place of an item a cancel took out. */
#define EXEC_SERIAL_CREDIT	((struct exec_work *)2UL)

/*
 * The owner of the consumer side takes the next item: the oldest one, or
 * EXEC_SERIAL_CREDIT for one that a cancel took out of the queue after it
 * was counted in @nr_queued (or before its submitter counts it), which the
 * owner counts as taken without running it; NULL when the queue is empty.
 * One pop under @consume's lock, so that a cancel's unlink never meets it;
 * a producer between its two stores is waited out with the lock dropped.
 */
static struct exec_work *exec_serial_pop(struct exec_strand *s)
{
	unsigned int spins = 0;
	struct exec_work *work;
	unsigned long flags;

	for (;;) {
		exec_serial_lock(s, &flags);
		if (unlikely(READ_ONCE(s->consume) >=
			     EXEC_SERIAL_CREDIT_UNIT)) {
			exec_serial_credits_add(s, -EXEC_SERIAL_CREDIT_UNIT);
			work = EXEC_SERIAL_CREDIT;
		} else {
			work = exec_mpsc_pop(&s->queue);
		}
		exec_serial_unlock(s, flags);
		if (work != EXEC_MPSC_BUSY)
			return work;
		/* The owner may be a submitter, in any context. */
		exec_backoff_any_context(&spins);
	}
}

/*
 * The owner runs @work, noted for cancel and flush (exec_serial_work_running())
 * as a thread pool's worker notes its item.
 */
static void exec_serial_run_item(struct exec_strand *s, struct exec_work *work)
{
	struct exec_serial_record *rec = exec_serial_record_made(s);

	exec_run_record_begin(&s->run_seq, &s->run_work, work);
	if (unlikely(rec))
		exec_stats_run(&s->ex, &rec->probe, &rec->run, work, false);
	else
		exec_work_run(&s->ex, work);
	exec_run_record_end(&s->run_seq);
}

static const struct exec_executor_ops exec_serial_ops;

/*
 * Strands come from a cache of their own: made by the thousand, they would
 * take a kmalloc() size class half again their size.  Made at the first
 * create (two first creates racing each make one, one is kept: no lock a
 * fork would have to take), destroyed at module exit.
 */
static struct kmem_cache *exec_serial_cache;

static struct exec_serial *exec_serial_alloc(void)
{
	/* Pairs with the cmpxchg() below: a cache seen is initialised. */
	struct kmem_cache *cache = smp_load_acquire(&exec_serial_cache);
	struct kmem_cache *old;

	if (unlikely(!cache)) {
		cache = KMEM_CACHE(exec_serial, 0);
		if (!cache)
			return NULL;
		/* Fully ordered: publishes the cache's initialisation. */
		old = cmpxchg(&exec_serial_cache, NULL, cache);
		if (old) {
			kmem_cache_destroy(cache);
			cache = old;
		}
	}
	if (exec_fault_alloc())
		return NULL;
	return kmem_cache_zalloc(cache, GFP_KERNEL);
}

/**
 * exec_serial_sys_exit - free the strands' cache, at module exit
 *
 * Every strand has been destroyed and freed: the modules that made them
 * have gone.
 *
 * Context: Process context; may sleep.
 */
void exec_serial_sys_exit(void)
{
	kmem_cache_destroy(exec_serial_cache);
	exec_serial_cache = NULL;
}

/* The memory of struct exec_serial, the public size, is the strand. */
static struct exec_strand *exec_strand_of(struct exec_serial *serial)
{
	BUILD_BUG_ON(sizeof(struct exec_strand) != sizeof(struct exec_serial));
	BUILD_BUG_ON(__alignof__(struct exec_strand) >
		     __alignof__(struct exec_serial));
	return (struct exec_strand *)serial;
}

static struct exec_strand *exec_to_serial(struct exec_executor *ex)
{
	return container_of(ex, struct exec_strand, ex);
}

/* The last reference is gone: nothing touches @s any more. */
static void exec_serial_free(struct exec_strand *s)
{
	exec_timers_free(&s->ex);
	kfree(s->ex.own.aux);
	exec_executor_fini_embedded(&s->ex);
	if (!(atomic_read(&s->state) & EXEC_SERIAL_EMBEDDED))
		kmem_cache_free(exec_serial_cache, s);
}

/*
 * Drops a reference, and with @leave the caller's place in the consuming
 * section too, in one operation.  A dying strand's destroy waits for the
 * runs to leave, and an embedded one's for their references too: woken
 * here, without a touch of @s after the decrement (wake_up_var() only
 * hashes the address).
 */
static void exec_serial_put(struct exec_strand *s, bool leave)
{
	/* Fully ordered: our last access to @s comes first. */
	int state = atomic_sub_return(EXEC_SERIAL_REF + leave, &s->state);

	if (!(state & EXEC_SERIAL_REFS)) {
		exec_serial_free(s);
		return;
	}
	if ((state & (EXEC_SERIAL_DYING | EXEC_SERIAL_CONSUMING)) ==
	    EXEC_SERIAL_DYING)
		wake_up_var(&s->state);
}

/*
 * The caller owns the consumer side and at least @nr items are counted:
 * discard them (all but @keep, the caller's own item, which it gives back to
 * its submitter) and anything counted meanwhile, then let go.  With @keep set
 * the caller pops until it has met @keep, which may take more than @nr items
 * when earlier pushes are counted late; the count then dips below zero until
 * their submitters count them, and none of those submitters schedules the
 * runner for an item that is already gone.
 *
 * @keep may be gone too: pushed before it was counted, it was taken (run or
 * dropped) by an earlier owner, whose count included another item, and the
 * queue empties before it is met.  Then the submission has been carried
 * out: false, and the caller reports success.
 */
static bool exec_serial_drop(struct exec_strand *s, int nr,
			     struct exec_work *keep)
{
	struct exec_work *work;
	bool found = true;
	int taken;

	while (nr > 0 || keep) {
		for (taken = 0; taken < nr || keep; taken++) {
			work = exec_serial_pop(s);
			if (!work) {
				keep = NULL;
				found = false;
				break;
			}
			if (work == EXEC_SERIAL_CREDIT)
				continue;
			exec_serial_stats_dropped(s, work);
			if (work == keep) {
				keep = NULL;
				continue;
			}
			exec_serial_count_discard(s);
			exec_work_discard(work);
		}
		nr = atomic_sub_return(taken, &s->nr_queued);
	}
	return found;
}

/* The caller owns the consumer side: hand it to a run of @runner. */
static int exec_serial_schedule(struct exec_strand *s, unsigned int flags)
{
	struct exec_serial_record *rec = exec_serial_record_made(s);
	int ret;

	atomic_add(EXEC_SERIAL_REF, &s->state);
	/* Counted first: once submitted, the run owns the consumer side. */
	if (unlikely(rec))
		exec_stats_inc(&rec->nr_scheduled);
	ret = exec_submit_flags(s->underlying, &s->runner, flags);
	if (ret) {
		if (unlikely(rec))
			WRITE_ONCE(rec->nr_scheduled, rec->nr_scheduled - 1);
		atomic_sub(EXEC_SERIAL_REF, &s->state);
	}
	return ret;
}

/*
 * The caller owns the consumer side, has taken @done items and is done with
 * the queue: hand the count of those back.  If nothing else is queued, the
 * caller took several and @linger (it is a worker of the underlying thread
 * pool, see exec_serial_consume()), @runner lingers instead of letting go
 * (see the top of the file).  Returns the items still queued: the caller
 * lets go at 0 or less (0 too when @runner lingers, already posted), and
 * otherwise passes them on.
 */
static int exec_serial_taken(struct exec_strand *s, int done, bool linger)
{
	if (!linger || done < EXEC_SERIAL_LINGER_AFTER)
		return atomic_sub_return(done, &s->nr_queued);
	/*
	 * Deferred: no worker is woken for it, and the worker that runs
	 * this takes it after what is queued already.
	 */
	if (atomic_add_return(EXEC_SERIAL_LINGERING - done,
			      &s->nr_queued) == EXEC_SERIAL_LINGERING &&
	    !exec_serial_schedule(s, EXEC_SUBMIT_POST | EXEC_SUBMIT_DEFER |
				     EXEC_SUBMIT_NOWAIT))
		return 0;
	return atomic_sub_return(EXEC_SERIAL_LINGERING, &s->nr_queued);
}

/*
 * A run of @runner, or its discard by the underlying executor (@run false):
 * as the owner of the consumer side, run a batch of items or discard them
 * all, then pass ownership on or let it go.  When the underlying executor
 * has no room for @runner (a bounded pool, full: -EAGAIN), the next batch
 * runs here instead, as the runner would have run it: the items were
 * accepted and must neither wait for a room nobody makes nor be dropped.
 * The caller is a thread of the underlying executor (a run of @runner, a
 * dispatch from inside it) or discards for it: never a submitter.
 * @linger: EXEC_SERIAL_LINGER of @s->state, for a run of @runner.
 */
static void exec_serial_consume(struct exec_strand *s, bool run, bool linger)
{
	struct exec_frame frame;
	int avail, done;
	int ret;

	if (!exec_serial_enter(s)) {
		exec_serial_put(s, false);
		return;
	}

	avail = atomic_read(&s->nr_queued);
	/* A lingering run: let go if nothing came. */
	if (avail != exec_serial_queued(avail))
		avail = atomic_sub_return(EXEC_SERIAL_LINGERING,
					  &s->nr_queued);
	while (run && avail > 0) {
		done = 0;
		exec_frame_push_ex(&frame, s, &s->ex);
		while (done < avail && done < EXEC_SERIAL_BATCH &&
		       !exec_serial_dying(s)) {
			struct exec_work *work = exec_serial_pop(s);

			done++;
			if (work == EXEC_SERIAL_CREDIT) {
				exec_serial_count_discard(s);
				continue;
			}
			exec_trace_work_activate(&s->ex, work);
			exec_serial_run_item(s, work);
		}
		exec_frame_pop(&frame);
		/*
		 * Once dying, destroy discards the rest after we leave;
		 * otherwise pass ownership on while still counted as a
		 * consumer, so destroy cannot start draining beside us.
		 */
		if (exec_serial_dying(s))
			break;
		avail = exec_serial_taken(s, done, linger);
		if (avail <= 0)
			break;
		ret = exec_serial_schedule(s, EXEC_SUBMIT_NOWAIT);
		if (!ret)
			break;
		if (ret != -EAGAIN) {
			exec_serial_drop(s, avail, NULL);
			break;
		}
	}
	if (!run && avail > 0)
		exec_serial_drop(s, avail, NULL);
	exec_serial_put(s, true);
}

static void exec_serial_runner_fn(struct exec_work *runner)
{
	struct exec_strand *s = container_of(runner, struct exec_strand, runner);

	exec_serial_consume(s, true,
			    atomic_read(&s->state) & EXEC_SERIAL_LINGER);
}

/* The underlying executor dropped @runner: nobody else would run the queue. */
static void exec_serial_runner_discarded(struct exec_work *runner)
{
	exec_serial_consume(container_of(runner, struct exec_strand, runner),
			    false, false);
}

/*
 * A submission that may not wait found the underlying executor full: the
 * caller owns the consumer side and takes its own item, @work, back out of
 * the queue, as a cancel would, to refuse it.  Nothing runs here, in a
 * submitter that may be in any context: items of others that are counted
 * meanwhile, or whose late count made ours the one that raised @nr_queued
 * from 0, were accepted and go to a run of @runner that the underlying
 * executor counts but never refuses for room (EXEC_SUBMIT_FORCE), as a
 * timed item that came due.  Returns -EAGAIN, or 0 if @work had already
 * been taken by an earlier owner: then it was accepted.
 */
static int exec_serial_refuse(struct exec_strand *s, struct exec_work *work,
			      unsigned int flags)
{
	unsigned int spins = 0;
	unsigned long irqflags;
	int left;
	int ret;

	for (;;) {
		exec_serial_lock(s, &irqflags);
		ret = exec_mpsc_unlink(&s->queue, work);
		exec_serial_unlock(s, irqflags);
		if (ret != -EAGAIN)
			break;
		exec_backoff_any_context(&spins);
	}
	if (ret == 1) {
		exec_serial_stats_dropped(s, work);
		left = atomic_sub_return(1, &s->nr_queued);
	} else {
		left = atomic_read(&s->nr_queued);
	}
	if (left > 0 &&
	    exec_serial_schedule(s, flags | EXEC_SUBMIT_NOWAIT |
				    EXEC_SUBMIT_FORCE))
		exec_serial_drop(s, left, NULL);
	return ret == 1 ? -EAGAIN : 0;
}

/* Whether a submission may push: not once dying, nor beyond the limit. */
static int exec_serial_admit(struct exec_strand *s)
{
	if (unlikely(exec_serial_dying(s)))
		return -ESHUTDOWN;
	if (unlikely(exec_serial_queued(atomic_read(&s->nr_queued)) >=
		     EXEC_SERIAL_MAX_QUEUED))
		return -ENOSPC;
	return 0;
}

static int exec_serial_submit_one(struct exec_executor *ex,
				  struct exec_work *work, unsigned int flags)
{
	struct exec_strand *s = exec_to_serial(ex);
	int ret;

	ret = exec_serial_admit(s);
	if (unlikely(ret))
		return ret;
	exec_serial_stats_submit(s, work);
	exec_mpsc_push(&s->queue, work);
	if (atomic_inc_return(&s->nr_queued) != 1)
		return 0;
	/* A serial executor's submission never waits for room. */
	ret = exec_serial_schedule(s, exec_submit_nowait_from(flags));
	if (likely(!ret))
		return 0;
	if (ret == -EAGAIN && (flags & EXEC_SUBMIT_NOWAIT))
		return exec_serial_refuse(s, work, flags);
	/* Accepted without a try: counted beyond the underlying's limit. */
	if (ret == -EAGAIN)
		ret = exec_serial_schedule(s, exec_submit_nowait_from(flags) |
					      EXEC_SUBMIT_FORCE);
	if (!ret)
		return 0;
	/* Our item may have been taken by an earlier owner: accepted. */
	return exec_serial_drop(s, 1, work) ? ret : 0;
}

static int exec_serial_submit(struct exec_executor *ex, struct exec_work *work,
			      unsigned int flags)
{
	int ret = exec_serial_submit_one(ex, work, flags);
	struct exec_serial_record *rec;

	if (unlikely(ret)) {
		rec = exec_serial_record(exec_to_serial(ex));
		if (rec)
			exec_stats_refused(&rec->nr_refused, ret);
	}
	return ret;
}

static unsigned long exec_serial_pending(struct exec_executor *ex)
{
	struct exec_strand *s = exec_to_serial(ex);
	int n = exec_serial_queued(atomic_read(&s->nr_queued));

	return n > 0 ? n : 0;
}

static bool exec_serial_quiet(struct exec_strand *s)
{
	/* Pairs with the fully ordered decrement of a run leaving. */
	return !(atomic_read_acquire(&s->state) & EXEC_SERIAL_CONSUMING);
}

/*
 * Sets up @s, zeroed, over @underlying; @flags: EXEC_SERIAL_EMBEDDED for
 * exec_serial_init()'s.
 */
static void exec_serial_setup(struct exec_strand *s,
			      struct exec_executor *underlying, int flags)
{
	exec_executor_init_embedded(&s->ex, &exec_serial_ops, &s->deps);
	/*
	 * Timed items are armed on the underlying executor's base, and count
	 * as outstanding work as the underlying's own do (forwarded to it).
	 */
	exec_timers_share_lazily(&s->ex, underlying);
	s->underlying = underlying;
	if (exec_executor_defers_freely(underlying))
		flags |= EXEC_SERIAL_LINGER;
	/* Until exec_serial_destroy(): the underlying cannot go first. */
	exec_executor_depend(underlying, EXEC_DEP_SERIAL);
	exec_mpsc_init(&s->queue);
	exec_work_init_discard(&s->runner, exec_serial_runner_fn,
			       exec_serial_runner_discarded);
	atomic_set(&s->state, flags | EXEC_SERIAL_REF);
}

int exec_serial_create(struct exec_serial **serialp,
		       struct exec_executor *underlying)
{
	struct exec_serial *serial;

	might_sleep();
	if (!serialp || !underlying || !underlying->ops)
		return -EINVAL;
	serial = exec_serial_alloc();
	if (!serial)
		return -ENOMEM;
	exec_serial_setup(exec_strand_of(serial), underlying, 0);
	*serialp = serial;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_serial_create);

int exec_serial_init(struct exec_serial *serial,
		     struct exec_executor *underlying)
{
	if (!serial || !underlying || !underlying->ops)
		return -EINVAL;
	memset(serial, 0, sizeof(*serial));
	exec_serial_setup(exec_strand_of(serial), underlying,
			  EXEC_SERIAL_EMBEDDED);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_serial_init);

struct exec_executor *exec_serial_executor(struct exec_serial *serial)
{
	return serial ? &exec_strand_of(serial)->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_serial_executor);

struct exec_executor *exec_serial_underlying(struct exec_serial *serial)
{
	return serial ? exec_strand_of(serial)->underlying : NULL;
}
EXPORT_SYMBOL_GPL(exec_serial_underlying);

bool exec_serial_running_in_this_thread(const struct exec_serial *serial)
{
	return serial && exec_frame_find(serial);
}
EXPORT_SYMBOL_GPL(exec_serial_running_in_this_thread);

/*
 * Destroy of a strand in its user's memory, once the queue is drained: no
 * run of @runner may still hold it when the memory goes back.  One waiting
 * in the underlying executor's queue is taken back (its discard drops its
 * reference); one under way, or on an executor that cannot cancel, is
 * waited for.
 */
static void exec_serial_wait_runner(struct exec_strand *s)
{
	if ((atomic_read(&s->state) & EXEC_SERIAL_REFS) == EXEC_SERIAL_REF)
		return;
	exec_work_cancel(s->underlying, &s->runner);
	/* Pairs with the fully ordered decrement in exec_serial_put(). */
	wait_var_event(&s->state, (atomic_read_acquire(&s->state) &
				   EXEC_SERIAL_REFS) == EXEC_SERIAL_REF);
}

/*
 * Whether @s is idle at its destroy, as a strand made per connection is at
 * its end: no run holds it or consumes, nothing is queued.  Submission is
 * over (the caller's contract), so nothing will reach it any more: destroy
 * needs neither the dying mark nor a reference of its own, two atomic
 * operations on a line that the last run's worker holds.
 */
static bool exec_serial_idle(struct exec_strand *s)
{
	/* Pairs with the fully ordered decrement of the last run's put. */
	int state = atomic_read_acquire(&s->state);

	return (state & (EXEC_SERIAL_REFS | EXEC_SERIAL_CONSUMING)) ==
	       EXEC_SERIAL_REF && !exec_mpsc_maybe_nonempty(&s->queue);
}

long exec_serial_destroy(struct exec_serial *serial)
{
	struct exec_strand *s;
	struct exec_work *work;
	long discarded = 0;

	might_sleep();
	if (!serial)
		return -EINVAL;
	s = exec_strand_of(serial);
	if (exec_frame_find(s))
		return -EDEADLK;
	if (exec_executor_check_unused(&s->ex))
		return -EBUSY;

	/* Armed items are discarded, due ones reach the queue first. */
	discarded = exec_timers_shutdown(&s->ex);
	if (!discarded && exec_serial_idle(s)) {
		exec_executor_undepend(s->underlying, EXEC_DEP_SERIAL);
		exec_serial_free(s);
		return 0;
	}
	/*
	 * Fully ordered: a run entering after this finds it and leaves; one
	 * inside its consuming section is waited for.
	 */
	if (atomic_fetch_or(EXEC_SERIAL_DYING, &s->state) &
	    EXEC_SERIAL_CONSUMING)
		wait_var_event(&s->state, exec_serial_quiet(s));

	/*
	 * No run of @runner takes items any more, and submission is over
	 * (the caller's contract), so the queue is ours; an empty one, as a
	 * strand's usually is at its end, without the consumer lock.
	 */
	while (exec_mpsc_maybe_nonempty(&s->queue) &&
	       (work = exec_serial_pop(s))) {
		if (work == EXEC_SERIAL_CREDIT)
			continue;
		exec_serial_stats_dropped(s, work);
		discarded += exec_work_discard(work);
	}
	if (atomic_read(&s->state) & EXEC_SERIAL_EMBEDDED)
		exec_serial_wait_runner(s);
	/*
	 * Our timed items are gone from the underlying executor's base and
	 * nothing of ours will be submitted to it again.  @runner may still
	 * wait in its queue (not an embedded strand's); running or
	 * discarding it only drops a reference here, before the underlying
	 * executor's own destroy returns.
	 */
	exec_executor_undepend(s->underlying, EXEC_DEP_SERIAL);
	exec_serial_put(s, false);
	return discarded;
}
EXPORT_SYMBOL_GPL(exec_serial_destroy);

/**
 * exec_serial_test_add_queued - count items that are not there, for tests
 * @serial: an idle serial executor
 * @n: added to its count of queued items; the test takes it back
 *
 * Lets a test reach the limit of queued items without queueing them.
 *
 * Context: Any context.
 */
void exec_serial_test_add_queued(struct exec_serial *serial, int n)
{
	atomic_add(n, &exec_strand_of(serial)->nr_queued);
}
EXPORT_SYMBOL_FOR_TESTS(exec_serial_test_add_queued);

static bool exec_serial_running(const struct exec_executor *ex)
{
	return exec_frame_find(container_of(ex, struct exec_strand, ex));
}

/*
 * P0113 strand dispatch: run @work at once from inside the strand; from its
 * underlying executor, when the strand is idle, take the consumer side here
 * and run a batch as a run of @runner would; otherwise post.
 */
static int exec_serial_dispatch(struct exec_executor *ex,
				struct exec_work *work)
{
	struct exec_strand *s = exec_to_serial(ex);
	struct exec_dispatch_frame df;
	int ret;

	if (!exec_dispatch_enter(&df, ex))
		goto post;
	if (exec_frame_find(s)) {
		exec_work_run(ex, work);
		exec_dispatch_leave(&df);
		return 0;
	}
	if (!exec_running_in_this_thread(s->underlying)) {
		exec_dispatch_leave(&df);
		goto post;
	}
	ret = exec_serial_admit(s);
	if (unlikely(ret)) {
		exec_dispatch_leave(&df);
		return ret;
	}
	exec_serial_stats_submit(s, work);
	exec_mpsc_push(&s->queue, work);
	if (atomic_inc_return(&s->nr_queued) != 1) {
		exec_dispatch_leave(&df);
		return 0;
	}
	/*
	 * Raising the count from 0 made us the owner, as it makes a submitter
	 * schedule @runner: consume here, holding the reference a scheduled
	 * run would hold.  The batch starts with the oldest item, ours unless
	 * an earlier push is still uncounted; either way each item runs once,
	 * in order, and what is left is passed on to @runner.
	 */
	atomic_add(EXEC_SERIAL_REF, &s->state);
	exec_serial_consume(s, true,
			    atomic_read(&s->state) & EXEC_SERIAL_LINGER);
	exec_dispatch_leave(&df);
	return 0;

post:
	return exec_serial_submit(ex, work,
				  EXEC_SUBMIT_POST | EXEC_SUBMIT_NOWAIT);
}

/**
 * exec_serial_stats - a serial executor's statistics
 * @ex: an executor
 * @st: zeroed by the caller; the serial executor's counts are added
 *
 * What was submitted is what was started, discarded, or is still counted
 * as queued.  An item is counted as started when it starts, and leaves the
 * queued count when its batch ends: a snapshot taken between counts it
 * twice in @st->submitted, never not at all.  The discards, refusals,
 * runs scheduled (@st->wakeups) and timings are counted in the strand's
 * record, made by timing turned on or a first discard or refusal.
 *
 * Context: Any context.
 * Return: false if @ex is not a serial executor.
 */
bool exec_serial_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_serial_record *rec;
	struct exec_strand *s;
	unsigned long seq;
	int queued;

	if (ex->ops != &exec_serial_ops)
		return false;
	s = exec_to_serial(ex);
	/*
	 * The queued count first: an item counts in @run_seq when it
	 * starts, before its batch takes it off @nr_queued, so a snapshot
	 * counts an item at least once.
	 */
	queued = exec_serial_queued(atomic_read(&s->nr_queued));
	/* Pairs with the fully ordered atomic_sub_return() of a batch. */
	smp_rmb();
	seq = READ_ONCE(s->run_seq);
	st->started = (seq + 1) / 2;
	st->completed = seq / 2;
	rec = exec_serial_record_made(s);
	if (rec) {
		exec_stats_add_run(st, &rec->run);
		st->discarded = READ_ONCE(rec->nr_discarded);
		st->refused = atomic_long_read(&rec->nr_refused);
		st->wakeups = READ_ONCE(rec->nr_scheduled);
	}
	st->submitted = st->started + st->discarded + max(queued, 0);
	return true;
}

/* P0113: a strand's execution context is its inner executor's. */
static struct exec_executor *
exec_serial_context_executor(struct exec_executor *ex)
{
	return exec_to_serial(ex)->underlying;
}

/*
 * P0113 strand: "on_work_started() Effects: Calls
 * inner_ex_.on_work_started()", and the same for on_work_finished().  A
 * strand has no outstanding work of its own: what a guard on it waits for
 * runs on the underlying executor, whose join or run must wait with it.
 * The unit is no dependent of the underlying executor: the strand is one
 * until its destroy, which a unit held on the strand refuses (a guard, an
 * I/O handler, a continuation or notification not yet handed over), and
 * which releases the units of its timed items before it lets go.
 */
static void exec_serial_work_started(struct exec_executor *ex)
{
	exec_executor_work_started(exec_to_serial(ex)->underlying);
}

static void exec_serial_work_finished(struct exec_executor *ex)
{
	exec_executor_work_finished(exec_to_serial(ex)->underlying);
}

/*
 * Cancel's look: @work in the queue, unlinked under @consume's lock, which
 * every pop of the owner takes; its place in @nr_queued is left to the
 * owner as a credit (exec_serial_pop()), since only the owner changes the
 * count downwards.
 */
static int exec_serial_take_back(struct exec_executor *ex,
				 struct exec_work *work)
{
	struct exec_strand *s = exec_to_serial(ex);
	unsigned long flags;
	int ret;

	exec_serial_lock(s, &flags);
	ret = exec_mpsc_unlink(&s->queue, work);
	if (ret == 1)
		exec_serial_credits_add(s, EXEC_SERIAL_CREDIT_UNIT);
	exec_serial_unlock(s, flags);
	if (ret == 1)
		exec_serial_stats_dropped(s, work);
	return ret;
}

static int exec_serial_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_serial_take_back);
}

/* The owner runs @work: one item at a time, so the caller's if inside. */
static int exec_serial_work_running(struct exec_executor *ex,
				    struct exec_work *work, bool wait)
{
	struct exec_strand *s = exec_to_serial(ex);

	return exec_run_record_running(&s->run_seq, &s->run_work, s,
				       work, wait);
}

/* For a drain's marker, while it runs: nothing queued behind it. */
static bool exec_serial_empty(struct exec_executor *ex)
{
	return !exec_mpsc_maybe_nonempty(&exec_to_serial(ex)->queue);
}

/* In order, one at a time: a marker behind everything is a flush. */
static int exec_serial_flush(struct exec_executor *ex, bool drain)
{
	return exec_flush_barrier(ex, drain, exec_serial_empty);
}

static const struct exec_executor_ops exec_serial_ops = {
	.kind = "serial",
	.submit = exec_serial_submit,
	.pending = exec_serial_pending,
	.running_in_this_thread = exec_serial_running,
	.dispatch = exec_serial_dispatch,
	.work_started = exec_serial_work_started,
	.work_finished = exec_serial_work_finished,
	.context_executor = exec_serial_context_executor,
	.cancel = exec_serial_cancel,
	.work_running = exec_serial_work_running,
	.flush = exec_serial_flush,
};

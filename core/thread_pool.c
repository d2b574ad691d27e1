// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fixed thread pool.
 *
 * Items wait in one shared intrusive MPSC queue (internal.h).  Producers push
 * without a lock; workers pop under @consume_lock, which is almost always
 * uncontended because a worker holds it for one pop.
 *
 * A worker that submits to its own pool (a task that posts its successor)
 * puts the item in its own @next slot instead: no shared cache line is
 * written, and the worker runs it as soon as the current item returns.  The
 * slot is not private: an idle worker takes an item that has sat in another
 * worker's slot for a while (@next is taken with xchg/cmpxchg by whoever gets
 * it first), so a task that posts and then blocks cannot strand its post.
 * After EXEC_POOL_NEXT_STREAK items in a row from its slot a worker serves
 * the shared queue first, so a chain cannot starve the queue.
 *
 * Sleeping and waking.  A worker out of work first spins for a while
 * (counted in @nr_spinning), looking at the queue and the other workers'
 * slots, unless the pool was made not to (@no_spin); then it puts itself
 * on the idle list (@idle, core/idle.h), looks once more, and parks.  A
 * submitter, after publishing its item, wakes one parked worker only if
 * no worker is spinning and some worker is idle:
 * submitting to a busy or spinning pool makes no system call.  The
 * handshake is core/idle.h's, with @nr_spinning read beside @idle.nr_idle
 * after the publishing xchg(): either the submitter sees the idle worker,
 * or the worker, after exec_idle_go(), sees the item in the queue or a slot.
 * A submitter that finds a worker spinning relies on it: a spinning worker
 * that takes an item from the shared queue and sees more behind it wakes
 * the next sleeper itself, so wake-ups are passed on, never absorbed.
 *
 * A submitter from outside the pool that is going to wake a parked worker
 * (it sees one idle and none spinning, before it publishes) hands the item
 * to that worker instead of the shared queue: it claims the worker with
 * the item (core/idle.h: one cmpxchg() on the worker's state word, no
 * lock), then wakes it, and the worker runs the item first thing.  It does
 * so only while the shared queue is empty, so an item never overtakes an
 * earlier one of the same submitter.  That spares the shared queue's push
 * and count and the woken worker's pop under @consume_lock, on the path
 * whose latency the wake-up is.  If no worker is left to claim by then,
 * the item goes the usual way.
 *
 * post, defer and plain submissions from a worker differ only in where the
 * item goes: post puts it on the shared queue, where any worker may take it;
 * defer puts it in the worker's @next slot and wakes nobody (it continues
 * the current item, which is about to return), or, with the slot taken, on
 * the shared queue, still waking nobody: the worker runs the deferred items
 * itself, and passes a wake-up on only if they have taken it
 * EXEC_POOL_DEFER_HELP_NS and more are left; a plain submission uses the
 * slot and still wakes an idle worker, which may steal it.
 *
 * One run at a time.  A worker that takes an item another worker is
 * running, submitted again meanwhile, hands it to that worker, which runs
 * it again when the current run returns, as a workqueue does: the item's
 * flags name its last runner, and the runner's @run_token decides
 * (core/pool_rerun.h).
 *
 * Stopping.  destroy sets EXEC_POOL_STOP and wakes everyone; workers exit
 * once they find no work.  Items keep running until the queue is empty, and a
 * running item may still submit to its own pool (its worker runs that too),
 * so everything submitted before destroy and everything it leads to runs.
 * shutdown_hard sets EXEC_POOL_SHUTDOWN, which refuses all submissions, and
 * discards what is queued.
 *
 * P0113's stop and join.  stop sets EXEC_POOL_HALT: submissions are refused
 * and each worker exits after its current item; what is left queued is
 * discarded by destroy.  join sets EXEC_POOL_JOIN, which refuses nothing:
 * while the pool has outstanding work (work guards, queued or running items)
 * it goes on as before.  The worker that finds itself the last one idle, with
 * no guard held, no item queued and no submitter inside a submission, turns
 * the join into a stop-after-drain by setting EXEC_POOL_STOP (refusing
 * outside submissions from then on); the usual drain runs whatever slipped in
 * meanwhile, and the workers exit.  The last guard released during a join
 * wakes every worker, so that one of them makes that check.
 */
#include "pool.h"
#include "pool_rerun.h"

static const struct exec_executor_ops exec_pool_ops;

/*
 * The pool's idle workers are records of core/idle.h, which has the
 * handshake above and the claim; these say what the pool adds: a worker's
 * counts of its wake-ups, and the items handed over with a claim.
 */

/* The worker goes idle; see exec_idle_go(). */
static void exec_pool_go_idle(struct exec_pool_worker *w, bool watching)
{
	exec_idle_go(&w->pool->idle, &w->idle, watching);
}

/*
 * The worker takes its state back after waiting (exec_idle_take()); *@handed
 * is the item a waker handed over with its claim, or NULL.  Whether a waker
 * claimed it.
 */
static bool exec_pool_unidle(struct exec_pool_worker *w,
			     struct exec_work **handed)
{
	unsigned long mark;

	*handed = NULL;
	if (!exec_idle_take(&w->pool->idle, &w->idle, &mark))
		return false;
	exec_stats_inc(&w->nr_woken);
	if (mark != EXEC_IDLE_CLAIMED) {
		*handed = (struct exec_work *)mark;
		exec_stats_inc(&w->nr_handed);
	}
	return true;
}

/*
 * An exiting worker leaves the idle list: its slot may be started again by
 * another thread.
 */
static void exec_pool_unlist(struct exec_pool_worker *w)
{
	exec_idle_unlist(&w->pool->idle, &w->idle);
}

/*
 * Wakes one idle worker, handing it @work (not published anywhere else; or
 * NULL), which it runs first thing.  Whether a worker was claimed, and so
 * @work handed over: false when none was idle.
 */
static bool exec_pool_wake_one_with(struct exec_thread_pool *pool,
				    struct exec_work *work)
{
	return exec_idle_wake_one(&pool->idle, work ? (unsigned long)work :
						    EXEC_IDLE_CLAIMED);
}

/*
 * Makes every worker look at the pool's state again, which the caller has
 * changed, fully ordered.  Every slot's parker is unparked, not only the
 * idle list's (exec_idle_wake_all()): a parked worker wakes, takes itself
 * off WAITING and looks; one about to park finds the permit and does the
 * same; one that goes idle after this looks at the state after storing
 * WAITING with a full barrier, which pairs with the caller's change; a
 * busy one only parks once for nothing.  A free slot's parker keeps the
 * permit for its next thread.  No claim, and no look at the count: the
 * wake-up does not depend on it, and ends after one pass.
 */
static void exec_pool_wake_all(struct exec_thread_pool *pool)
{
	unsigned int i, used = exec_pool_nr_used(pool);

	for (i = 0; i < used; i++)
		exec_parker_unpark(&pool->workers[i].parker);
}

/* The worker the calling thread is, if it is one of @pool's. */
static struct exec_pool_worker *exec_pool_self(const struct exec_thread_pool *pool)
{
	struct exec_frame *frame = exec_frame_find(pool);

	return frame ? container_of(frame, struct exec_pool_worker, frame) :
		       NULL;
}

static void exec_pool_wake_one(struct exec_thread_pool *pool)
{
	exec_pool_wake_one_with(pool, NULL);
}

/*
 * A per-CPU pool's worker checks, every EXEC_POOL_LOCAL_CHECK_NS while
 * items wait, that it gets through the items left to it
 * (exec_pool_leave_local()): if it has neither started nor finished one
 * since the last look (blocked in an item, or kept off its CPU), another
 * worker is woken.  Hard interrupt context, on the worker's CPU.
 */
static u64 exec_pool_local_check(struct exec_cpu_timer *t)
{
	struct exec_pool_worker *w =
		container_of(t, struct exec_pool_worker, local_timer);
	struct exec_thread_pool *pool = w->pool;
	unsigned long seq = READ_ONCE(w->run_seq);

	if (exec_pool_worker_idle(w) || !exec_pool_has_work(pool) ||
	    (READ_ONCE(pool->state) & EXEC_POOL_CLOSED))
		return 0;
	if (seq == READ_ONCE(w->local_seq) && atomic_read(&pool->idle.nr_idle) &&
	    !atomic_read(&pool->nr_spinning))
		exec_pool_wake_one(pool);
	WRITE_ONCE(w->local_seq, seq);
	return EXEC_POOL_LOCAL_CHECK_NS;
}

/*
 * Whether an item just published may be left to the worker of the calling
 * CPU, in a per-CPU pool: that worker is awake (running an item, between
 * two, or woken), so it takes the item once it is done, on this CPU, as
 * a per-CPU workqueue's worker does.  Waking another worker instead sent
 * timed items that an hrtimer queued in a batch to the other CPU, whose
 * wake-up cost more than the items: the kernel's timer_lateness was
 * later than with the items left to the CPU's worker, which is on a par
 * with an hrtimer then queue_work() (Documentation/benchmarks.rst,
 * executors.rst).
 *
 * Only for items an interrupt submitted (@self NULL), which returns the
 * CPU to the worker at once, and for the worker itself passing a wake-up
 * on (@self): a task that submits keeps its CPU, and leaving its items to
 * the worker there cost a per-CPU pool a fifth to a third of
 * post_throughput.  The caller counts on the worker only then, while the
 * pool cannot be joined (a submission, which destroy and join wait for,
 * or the worker itself), and the worker's local timer makes sure it gets
 * to them.
 */
static bool exec_pool_leave_local(struct exec_thread_pool *pool,
				  struct exec_pool_worker *self)
{
	struct exec_pool_worker *local;

	if (!EXEC_HAVE_CPU_TIMER || !pool->cpu_workers || (!self && in_task()))
		return false;
	local = pool->cpu_workers[raw_smp_processor_id()];
	if (!local || (self && self != local) || exec_pool_worker_idle(local))
		return false;
	if (!exec_cpu_timer_pending(&local->local_timer)) {
		WRITE_ONCE(local->local_seq, READ_ONCE(local->run_seq));
		exec_cpu_timer_arm(&local->local_timer,
				   EXEC_POOL_LOCAL_CHECK_NS);
	}
	return true;
}

/*
 * After publishing an item: the submitter's half of the handshake.  @idle.nr_idle
 * first: it changes only when workers park or wake, so while they are busy
 * or spinning its line stays in the submitter's cache, where @nr_spinning's
 * changes with every item they take.  @self is the worker that submits, or
 * NULL for an outside submitter; @leave whether the item may be left to
 * the worker of the calling CPU (exec_pool_leave_local()).
 */
static void exec_pool_kick(struct exec_thread_pool *pool,
			   struct exec_pool_worker *self, bool leave)
{
	if (atomic_read(&pool->idle.nr_idle)) {
		if (!atomic_read(&pool->nr_spinning) &&
		    !(leave && exec_pool_leave_local(pool, self)))
			exec_pool_wake_one(pool);
	} else if (pool->grow && !atomic_read(&pool->nr_spinning)) {
		/* Every worker busy: a growing pool's manager may add one. */
		exec_grow_kick(pool);
	}
}

/*
 * An outside submitter's item, before it is published: handed to the idle
 * worker it would wake (exec_pool_wake_one_with()).  The same look as
 * exec_pool_kick()'s; when it finds no worker to wake, the caller
 * publishes the item and exec_pool_kick() looks again, after.  Only while
 * the shared queue is empty: a worker runs its slot first, so an item
 * handed over while an earlier one waits there (the same submitter's,
 * seen by a worker that had just gone idle) would overtake it.
 *
 * @idle.nr_idle first, as in exec_pool_kick(): the queue's state is the line
 * that every pop writes, and reading it on every submission while the
 * workers were busy more than halved post_throughput; with the queue
 * looked at only when a worker is idle, post_throughput is that of the
 * tree before the hand-over (Documentation/benchmarks.rst).
 */
static bool exec_pool_hand_to_idle(struct exec_thread_pool *pool,
				   struct exec_work *work)
{
	return atomic_read(&pool->idle.nr_idle) &&
	       !atomic_read(&pool->nr_spinning) &&
	       !exec_pool_has_work(pool) &&
	       !exec_pool_leave_local(pool, NULL) &&
	       exec_pool_wake_one_with(pool, work);
}

/* Room in a bounded pool: reserve a slot, or wait, or fail. */
static int exec_pool_reserve(struct exec_thread_pool *pool, unsigned int flags,
			     bool from_worker)
{
	might_sleep_if(!(flags & EXEC_SUBMIT_NOWAIT) && !from_worker);
	if (flags & EXEC_SUBMIT_FORCE) {
		/* Accepted when it was armed: counted, never refused. */
		atomic_long_inc(&pool->nr_bounded);
		return 0;
	}
	for (;;) {
		if (atomic_long_inc_return(&pool->nr_bounded) <=
		    (long)pool->queue_limit)
			return 0;
		atomic_long_dec_return(&pool->nr_bounded);
		/*
		 * A worker waiting for room in its own pool could wait for
		 * itself, so it gets the non-blocking answer.
		 */
		if ((flags & EXEC_SUBMIT_NOWAIT) || from_worker)
			return -EAGAIN;
		wait_event(pool->room_wq,
			   atomic_long_read(&pool->nr_bounded) <
				   (long)pool->queue_limit ||
			   (READ_ONCE(pool->state) & EXEC_POOL_CLOSED));
		if (READ_ONCE(pool->state) & EXEC_POOL_CLOSED)
			return -ESHUTDOWN;
	}
}

static void exec_pool_unreserve(struct exec_thread_pool *pool)
{
	if (!pool->queue_limit)
		return;
	/* Fully ordered, then wq_has_sleeper(): pairs with wait_event(). */
	atomic_long_dec_return(&pool->nr_bounded);
	if (wq_has_sleeper(&pool->room_wq))
		wake_up_all(&pool->room_wq);
}

static int exec_pool_push(struct exec_thread_pool *pool,
			  struct exec_pool_worker *self, struct exec_work *work,
			  unsigned int flags)
{
	int ret;

	if (pool->queue_limit) {
		ret = exec_pool_reserve(pool, flags, self);
		if (ret)
			return ret;
	}
	if (!self && exec_pool_hand_to_idle(pool, work))
		return 0;
	if (self && !(flags & EXEC_SUBMIT_POST) && !READ_ONCE(self->next)) {
		/* Full barrier: pairs with the idle worker's nr_idle++. */
		(void)xchg(&self->next, work);
		exec_stats_inc(&self->nr_self_submitted);
		/* A deferred item waits for its worker: nobody to wake. */
		if (flags & EXEC_SUBMIT_DEFER)
			return 0;
	} else {
		exec_stats_submit(&pool->probe, work);
		exec_mpsc_push(&pool->queue.q, work);
		atomic_long_inc(&pool->nr_submitted);
		/*
		 * Deferred behind another: its worker takes it after the
		 * current item and the one in its slot, and wakes a helper
		 * only if the batch runs long (exec_pool_defer_help()).
		 */
		if (self && (flags & EXEC_SUBMIT_DEFER)) {
			if (!self->deferred_at)
				self->deferred_at = exec_clock_read_local();
			return 0;
		}
	}
	exec_pool_kick(pool, self, !self);
	return 0;
}

static int exec_pool_submit_one(struct exec_executor *ex,
				struct exec_work *work, unsigned int flags)
{
	struct exec_thread_pool *pool = exec_to_pool(ex);
	struct exec_frame *top = exec_thread_self_get();
	struct exec_pool_worker *self;
	int ret;

	if (top && top->owner == pool)
		self = container_of(top, struct exec_pool_worker, frame);
	else
		self = top ? exec_pool_self(pool) : NULL;
	if (self) {
		/* A stopping pool still takes work from its own items. */
		if (unlikely(READ_ONCE(pool->state) &
			     (EXEC_POOL_SHUTDOWN | EXEC_POOL_HALT)))
			return -ESHUTDOWN;
		return exec_pool_push(pool, self, work, flags);
	}

	/*
	 * Full barrier, then the state: pairs with destroy's state change
	 * before it waits for @nr_submitting, so either this submission sees
	 * the pool stopping, or destroy waits for it to finish.
	 */
	atomic_inc_return(&pool->nr_submitting);
	if (unlikely(READ_ONCE(pool->state) & EXEC_POOL_CLOSED))
		ret = -ESHUTDOWN;
	else
		ret = exec_pool_push(pool, NULL, work, flags);
	/* Release: the push is visible before the count drops. */
	atomic_dec_return(&pool->nr_submitting);
	return ret;
}

static int exec_pool_submit(struct exec_executor *ex, struct exec_work *work,
			    unsigned int flags)
{
	int ret = exec_pool_submit_one(ex, work, flags);

	if (unlikely(ret))
		exec_stats_refused(&exec_to_pool(ex)->nr_refused, ret);
	return ret;
}

static unsigned long exec_pool_pending(struct exec_executor *ex)
{
	struct exec_thread_pool *pool = exec_to_pool(ex);
	long n = atomic_long_read(&pool->nr_submitted) -
		 (long)READ_ONCE(pool->nr_started);
	unsigned int i, used = exec_pool_nr_used(pool);

	for (i = 0; i < used; i++) {
		if (READ_ONCE(pool->workers[i].next))
			n++;
		/* Handed over with a claim, the worker not yet awake. */
		if (READ_ONCE(pool->workers[i].idle.state) > EXEC_IDLE_CLAIMED)
			n++;
		/* Handed to the worker that runs it, to run again. */
		if (READ_ONCE(pool->workers[i].run_token) & EXEC_POOL_HELD)
			n++;
	}
	return n > 0 ? n : 0;
}

/*
 * Pops the next item of the shared queue for @w, under @consume_lock: in
 * the same critical section @w closes its open token (an item held on it
 * comes first, @w->took set to EXEC_POOL_TOOK_RERUN), and an item that
 * another worker runs is handed to it and the next one popped
 * (core/pool_rerun.h).
 */
static struct exec_work *exec_pool_pop_shared(struct exec_pool_worker *w)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work;
	unsigned int spins = 0;
	long handed = 0;
	unsigned long flags;

	if (!exec_mpsc_maybe_nonempty(&pool->queue.q))
		return NULL;
	for (;;) {
		spin_lock_irqsave(&pool->consume_lock, flags);
		work = w->token_left ? exec_pool_token_close_locked(w) : NULL;
		if (work) {
			w->took = EXEC_POOL_TOOK_RERUN;
			break;
		}
		while ((work = exec_mpsc_pop(&pool->queue.q)) &&
		       work != EXEC_MPSC_BUSY) {
			WRITE_ONCE(pool->nr_started, pool->nr_started + 1);
			if (!exec_pool_hand_over_locked(w, work))
				break;
			exec_stats_dropped(&pool->probe, work);
			handed++;
		}
		if (work != EXEC_MPSC_BUSY)
			break;
		spin_unlock_irqrestore(&pool->consume_lock, flags);
		exec_backoff(&spins);
	}
	spin_unlock_irqrestore(&pool->consume_lock, flags);
	/* Handed over: out of the queue, and of its bound. */
	while (pool->queue_limit && handed--)
		exec_pool_unreserve(pool);
	return work;
}

/*
 * Closes @w's open token, taking @consume_lock: the item held on it, to run
 * now (@w->took set to EXEC_POOL_TOOK_RERUN), or NULL.
 */
static struct exec_work *exec_pool_token_close(struct exec_pool_worker *w)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work;
	unsigned long flags;

	spin_lock_irqsave(&pool->consume_lock, flags);
	work = exec_pool_token_close_locked(w);
	spin_unlock_irqrestore(&pool->consume_lock, flags);
	if (work)
		w->took = EXEC_POOL_TOOK_RERUN;
	return work;
}

static struct exec_work *exec_pool_take_next(struct exec_pool_worker *w)
{
	if (!READ_ONCE(w->next))
		return NULL;
	return xchg(&w->next, NULL);
}

/*
 * A worker that takes from the shared queue while items it deferred may be
 * left there: once the batch has run EXEC_POOL_DEFER_HELP_NS, a helper.
 */
static void exec_pool_defer_help(struct exec_pool_worker *w)
{
	if (!exec_mpsc_maybe_nonempty(&w->pool->queue.q)) {
		w->deferred_at = 0;
		return;
	}
	if (exec_clock_read_local() - w->deferred_at < EXEC_POOL_DEFER_HELP_NS)
		return;
	w->deferred_at = 0;
	/* The batch has run long enough: a helper, wherever it is. */
	exec_pool_kick(w->pool, w, false);
}

/*
 * @w took @work from its own slot.  An item its last run put back there (a
 * chain) runs on the open token; another item closes the token first, and
 * waits in the slot behind an item held on it.
 */
static struct exec_work *exec_pool_took_slot(struct exec_pool_worker *w,
					     struct exec_work *work)
{
	struct exec_work *held;

	if (likely(!w->token_left || work == w->token_left))
		return work;
	held = exec_pool_token_close(w);
	if (!held)
		return work;
	/* Release: its contents, for a worker that steals it. */
	smp_store_release(&w->next, work);
	return held;
}

static struct exec_work *exec_pool_take(struct exec_pool_worker *w)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work;

	w->took = EXEC_POOL_TOOK_OTHER;
	if (w->next_streak < EXEC_POOL_NEXT_STREAK) {
		work = exec_pool_take_next(w);
		if (work) {
			w->next_streak++;
			return exec_pool_took_slot(w, work);
		}
	}
	w->next_streak = 0;
	work = exec_pool_pop_shared(w);
	if (!work) {
		work = exec_pool_take_next(w);
		return work ? exec_pool_took_slot(w, work) : NULL;
	}
	if (w->took == EXEC_POOL_TOOK_RERUN)
		return work;
	w->took = EXEC_POOL_TOOK_QUEUE;
	exec_stats_taken(&pool->probe, &w->stats, work);
	/*
	 * Submitters that saw this worker spinning woke nobody, trusting it
	 * to take their items; it takes one, so if more are left it passes
	 * the wake-up on, or a burst would wait behind this one item.  A
	 * worker woken that way does the same, so the chain goes on while
	 * items are left.
	 */
	if (w->was_spinning) {
		w->was_spinning = false;
		if (exec_mpsc_maybe_nonempty(&pool->queue.q))
			exec_pool_kick(pool, w, true);
	} else if (unlikely(w->deferred_at)) {
		exec_pool_defer_help(w);
	}
	return work;
}

/*
 * Look at one other worker's slot.  With @now set, take whatever is there
 * (the caller is about to sleep); otherwise take it only if the same item was
 * there at the previous look, so a worker's own successor normally stays
 * with it.
 */
static struct exec_work *exec_pool_steal(struct exec_pool_worker *w, bool now)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_pool_worker *victim;
	struct exec_work *seen;
	unsigned int tries, used = exec_pool_nr_used(pool);

	for (tries = 0; tries < used; tries++) {
		if (++w->steal_victim >= used)
			w->steal_victim = 0;
		victim = &pool->workers[w->steal_victim];
		if (victim == w)
			continue;
		seen = READ_ONCE(victim->next);
		/* Its worker runs it, or will next: core/pool_rerun.h. */
		if (seen && READ_ONCE(victim->run_token) == (unsigned long)seen)
			seen = NULL;
		if (seen && (now || seen == w->steal_seen)) {
			w->steal_seen = NULL;
			/*
			 * The item may be one a flush waits for: no ack
			 * until it has run.  Before the cmpxchg (a full
			 * barrier): pairs with the flusher's two passes.
			 */
			if (w->flush_ack)
				WRITE_ONCE(w->flush_ack, 0);
			if (cmpxchg(&victim->next, seen, NULL) == seen)
				return seen;
			continue;
		}
		w->steal_seen = seen;
		if (!now)
			break;
	}
	return NULL;
}

static bool exec_pool_stopping(struct exec_thread_pool *pool)
{
	return READ_ONCE(pool->state) & EXEC_POOL_STOP;
}

static bool exec_pool_halted(struct exec_thread_pool *pool)
{
	return READ_ONCE(pool->state) & EXEC_POOL_HALT;
}

/* Sets @bits in @pool->state; fully ordered.  Returns the old state. */
static unsigned long exec_pool_set_state(struct exec_thread_pool *pool,
					 unsigned long bits)
{
	unsigned long old = READ_ONCE(pool->state);

	while (!try_cmpxchg(&pool->state, &old, old | bits))
		;
	return old;
}

/*
 * A join is waiting and the pool has no outstanding work left: the calling
 * worker is the last one idle, no guard is held, nothing is queued, and no
 * outside submitter is inside a submission.  The caller has gone idle with
 * a full barrier (exec_pool_go_idle()), which orders these reads after it;
 * an item that slips in after them is run by the drain that EXEC_POOL_STOP
 * starts.  A worker that a waker claimed, or that has left WAITING itself,
 * is counted in @idle.nr_idle until just after: as if these reads came just
 * before, which is a race the drain covers in the same way.
 */
static bool exec_pool_join_done(struct exec_thread_pool *pool)
{
	return (READ_ONCE(pool->state) & EXEC_POOL_JOIN) &&
	       atomic_read(&pool->idle.nr_idle) == atomic_read(&pool->nr_live) &&
	       !atomic_long_read(&pool->nr_guards) &&
	       !atomic_read(&pool->nr_submitting) &&
	       !exec_pool_has_work(pool);
}

/* A waiting worker has something to do: work queued, or the pool stops. */
static bool exec_pool_wait_over(struct exec_thread_pool *pool)
{
	return exec_pool_has_work(pool) ||
	       (READ_ONCE(pool->state) & (EXEC_POOL_STOP | EXEC_POOL_HALT));
}

/*
 * The worker stops waiting: it takes what came due on the pool's timers,
 * and goes on watching for the next only if it has nothing else to do (a
 * worker busy with other work would make timed items wait for it).
 */
static void exec_pool_unwatch(struct exec_pool_worker *w,
			      struct exec_work *work)
{
	struct exec_thread_pool *pool = w->pool;

	exec_timers_unwatch(&pool->ex, &w->parker,
			    !work && !exec_pool_wait_over(pool));
}

/*
 * A worker a growing pool added has been idle until @deadline (or was told
 * to go, @w->retire): it exits, unless items came, or the pool is stopping
 * or joining, whose last-idle-worker logic counts it.  Called woken by
 * neither a waker nor work, once it has left WAITING itself.
 */
static bool exec_pool_retire_idle(struct exec_pool_worker *w, u64 deadline)
{
	struct exec_thread_pool *pool = w->pool;

	if (!READ_ONCE(w->retire) &&
	    exec_clock_read(EXEC_CLOCK_MONOTONIC) < deadline)
		return false;
	/*
	 * exec_pool_unidle()'s decrement of @idle.nr_idle was fully ordered
	 * before this look: pairs with the submitter's publishing xchg()
	 * before it reads @idle.nr_idle.  Either the submitter did not count
	 * this worker, or this look sees its item.
	 */
	if (READ_ONCE(pool->state) || exec_pool_wait_over(pool)) {
		WRITE_ONCE(w->retire, false);
		return false;
	}
	WRITE_ONCE(w->retire, true);
	w->retired = true;
	/* Fully ordered: a join counts live workers against idle ones. */
	atomic_dec_return(&pool->nr_live);
	if (READ_ONCE(pool->state) & EXEC_POOL_JOIN)
		exec_pool_wake_all(pool);
	return true;
}

/*
 * Between two items, with nothing in its slot, a worker holds nothing that
 * a flush could wait for: it acknowledges the pool's latest flush epoch
 * (see exec_pool_flush_once()).  Reading the epoch costs the worker loop
 * a read of @state's line, which it reads anyway.
 */
static inline struct exec_work *exec_pool_flush_ack(struct exec_pool_worker *w)
{
	unsigned long epoch = atomic_long_read(&w->pool->flush_epoch);
	struct exec_work *held;

	if (likely(epoch == w->flush_ack) || READ_ONCE(w->next))
		return NULL;
	/* An item held on its open token is not run yet: no ack. */
	if (w->token_left) {
		held = exec_pool_token_close(w);
		if (held)
			return held;
	}
	/* Release: its last run ended before the ack. */
	smp_store_release(&w->flush_ack, epoch);
	return NULL;
}

/*
 * The same, for a worker about to park with nothing: unless a waker has
 * handed it an item already.  Acquire on the epoch: a claim made before a
 * flush began is seen here by a worker that reads that flush's epoch.
 */
static void exec_pool_flush_ack_idle(struct exec_pool_worker *w)
{
	unsigned long epoch = atomic_long_read_acquire(&w->pool->flush_epoch);

	if (epoch != w->flush_ack &&
	    READ_ONCE(w->idle.state) == EXEC_IDLE_WAITING)
		/* Release: pairs with the flusher's load-acquire. */
		smp_store_release(&w->flush_ack, epoch);
}

/*
 * How long to spin before parking, in nanoseconds.  After a wake-up that
 * found nothing, or a brief park, the long spin (pool.h); otherwise the
 * short one, while spinning has caught work lately, and none once it has
 * not: a worker that spins before it parks has used CPU time that the
 * scheduler holds against it when it is woken, and its wake-up then waits
 * for the waker to sleep instead of preempting it (architecture.rst).
 */
static u64 exec_pool_spin_budget(const struct exec_pool_worker *w)
{
	if (w->woken_idle || w->parked_briefly)
		return EXEC_POOL_SPIN_LONG_NS;
	return w->spin_credit ? EXEC_POOL_SPIN_NS : 0;
}

/*
 * Spins for up to @budget ns, looking for work every EXEC_POOL_LOOK_NS.
 * A watcher (@when not NULL) also stops when its event comes, @event ns
 * after the start (U64_MAX: not within the spin), or when an earlier one
 * or due items came meanwhile (exec_timers_watch_moved()).  The spin is
 * timed by the local clock only.  Returns an item stolen from another
 * worker's slot, or NULL; sets *@spun_out if the budget ran out with
 * nothing found (rather than the queue showing work, or the pool stopping,
 * or a watched event coming).
 */
static struct exec_work *exec_pool_spin(struct exec_pool_worker *w,
					u64 budget, const u64 *when,
					u64 event, bool *spun_out)
{
	struct exec_thread_pool *pool = w->pool;
	u64 start = exec_clock_read_local(), looked = start, now;
	struct exec_work *work;
	unsigned int i;

	*spun_out = false;
	for (i = 1; ; i++) {
		cpu_relax();
		if (i % EXEC_POOL_CLOCK_EVERY)
			continue;
		now = exec_clock_read_local();
		if (now - looked >= EXEC_POOL_LOOK_NS) {
			looked = now;
			if (exec_pool_wait_over(pool))
				return NULL;
			work = exec_pool_steal(w, false);
			if (work)
				return work;
			if (when && (now - start >= event ||
				     exec_timers_watch_moved(&pool->ex, when)))
				return NULL;
		}
		if (now - start >= budget) {
			*spun_out = true;
			return NULL;
		}
	}
}

/*
 * Whether a watcher has a timed event to wait for: its park ends at a
 * deadline (exec_timers_watch()), not at a submitter's wake-up.
 */
static inline bool exec_pool_event_armed(bool watching, const u64 *when)
{
	return watching && (when[EXEC_CLOCK_MONOTONIC] != EXEC_TIME_NEVER ||
			    when[EXEC_CLOCK_REALTIME] != EXEC_TIME_NEVER);
}

/*
 * A watcher whose next event comes within the long spin spins until it
 * (and a look more): a timed park's wake-up would come later than the
 * event itself.  Returns how far away the event is, 0 if it has come, or
 * U64_MAX if it is beyond the long spin.  @now is the monotonic time
 * exec_timers_watch() read, if it read one (0 if not).
 */
static u64 exec_pool_event_spin(bool watching, const u64 *when, u64 now)
{
	u64 event = when[EXEC_CLOCK_MONOTONIC];

	if (!watching || event == EXEC_TIME_NEVER)
		return U64_MAX;
	/* Items it left on the due list for itself (exec_timers_watch()). */
	if (!event)
		return 0;
	if (!now)
		now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	if (event <= now)
		return 0;
	return event - now > EXEC_POOL_SPIN_LONG_NS ? U64_MAX : event - now;
}

/*
 * The spin of a worker out of work, counted in @nr_spinning so that
 * submitters wake nobody.  Returns an item stolen from another worker's
 * slot, or NULL; sets *@spun_out as exec_pool_spin() does, and also when
 * the worker does not spin at all.  @when is what a watcher parks until,
 * @now the monotonic time exec_timers_watch() read (0 if none).
 */
static inline struct exec_work *exec_pool_wait_spin(struct exec_pool_worker *w,
						    bool watching,
						    const u64 *when, u64 now,
						    bool *spun_out)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work = NULL;
	u64 budget, event;

	/*
	 * A pool that does not spin: not counted as spinning either, so
	 * that a submission wakes the worker as it goes idle.
	 */
	if (pool->no_spin) {
		w->woken_idle = false;
		*spun_out = true;
		return NULL;
	}
	atomic_inc_return(&pool->nr_spinning);
	/*
	 * Woken, and found nothing: the item was run by the worker that
	 * posted it to its own slot, as in a chain of self-posts, each of
	 * which wakes a sleeper.  Spinning longer saves that worker the
	 * system calls; a worker that finds work goes back to the short spin.
	 */
	budget = exec_pool_spin_budget(w);
	event = budget ? exec_pool_event_spin(watching, when, now) : U64_MAX;
	if (event != U64_MAX)
		budget = max(budget, event + EXEC_POOL_LOOK_NS);
	w->woken_idle = false;
	/* No spin at all: as if spun out, without the yield below. */
	*spun_out = true;
	if (budget)
		work = exec_pool_spin(w, budget, watching ? when : NULL,
				      event, spun_out);
	/*
	 * Before it parks, a worker that spun yields its CPU once and looks
	 * again, still counted as spinning so that submitters wake nobody:
	 * with more runnable threads than CPUs, the submitter it waits for
	 * may be the thread its spinning kept off this CPU.  Not a watcher
	 * with an event to wait for: the thread that event waits for is
	 * itself, and where other processes keep the CPUs busy a yield puts
	 * it behind them for a time slice, and the items coming due with it
	 * (Documentation/benchmarks.rst, "Under load").
	 */
	if (!work && budget && *spun_out &&
	    !exec_pool_event_armed(watching, when)) {
		cond_resched();
		if (exec_pool_wait_over(pool))
			*spun_out = false;
	}
	/* Full barrier, before the look at the queue in exec_pool_take(). */
	atomic_dec_return(&pool->nr_spinning);
	return work;
}

/*
 * A worker gone idle with nothing found takes whatever is in another
 * worker's slot, or parks: until woken, or with @timed until @when.  It
 * keeps its spin credit as the park went.  Returns the item stolen, or
 * NULL; sets *@parked if it parked.
 */
static inline struct exec_work *exec_pool_park(struct exec_pool_worker *w,
					       const u64 *when, bool timed,
					       bool *parked)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work = exec_pool_steal(w, true);
	u64 parked_at = work ? 0 : exec_clock_read_local();

	if (!work) {
		exec_pool_flush_ack_idle(w);
		exec_trace_worker_park(&pool->ex, w->index);
		if (timed)
			exec_parker_park_until(&w->parker, when);
		else
			exec_parker_park(&w->parker);
		exec_trace_worker_wake(&pool->ex, w->index);
		*parked = true;
	}
	w->parked_briefly = parked_at &&
		exec_clock_read_local() - parked_at <
			EXEC_POOL_BRIEF_PARK_NS;
	if (w->parked_briefly)
		w->spin_credit = EXEC_POOL_SPIN_CREDIT;
	else if (parked_at && w->spin_credit)
		w->spin_credit--;
	return work;
}

/*
 * The item its waker handed over, @handed, runs first, or, after @work, one
 * it stole on its way to park, next: its slot is empty, as it went idle with
 * nothing in it and only the worker fills it.  Returns the item to run now.
 */
static inline struct exec_work *exec_pool_take_handed(struct exec_pool_worker *w,
						      struct exec_work *work,
						      struct exec_work *handed)
{
	if (handed && work) {
		/* Release: its contents, for a worker that steals it. */
		smp_store_release(&w->next, handed);
	} else if (handed) {
		work = handed;
	}
	return work;
}

/*
 * The pool is stopping: the worker takes what is left in the other
 * workers' slots, and sets *@exit once nothing is left that it could take
 * and no outside submitter is inside a submission.
 */
static struct exec_work *exec_pool_last_look(struct exec_pool_worker *w,
					     bool *exit)
{
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work = exec_pool_steal(w, true);

	/* Acquire: pairs with the release in exec_pool_submit_one(). */
	if (!work && !atomic_read_acquire(&pool->nr_submitting) &&
	    !exec_pool_has_work(pool))
		*exit = true;
	else if (!work)
		cpu_relax();
	return work;
}

/*
 * Wait for work: spin, then park.  Returns an item stolen from another
 * worker's slot, or NULL to make the caller look again.  Sets *@exit when the
 * pool is stopping and nothing is left that this worker could take (items a
 * running item submits are taken by its own worker).
 */
static struct exec_work *exec_pool_wait(struct exec_pool_worker *w, bool *exit)
{
	struct exec_thread_pool *pool = w->pool;
	bool added = w->index >= pool->nr_threads;
	struct exec_work *work = NULL, *handed;
	u64 when[EXEC_CLOCK_COUNT], now[EXEC_CLOCK_COUNT] = { 0 };
	bool watching = false, parked = false, woken, spun_out;

	if (unlikely(exec_pool_halted(pool))) {
		*exit = true;
		return NULL;
	}
	/* Not waiting with a token open: an item may be held on it. */
	if (w->token_left) {
		work = exec_pool_token_close(w);
		if (work)
			return work;
	}
	/* Out of work: whatever it deferred has been taken. */
	w->deferred_at = 0;
	if (exec_pool_stopping(pool))
		return exec_pool_last_look(w, exit);

	/*
	 * While it waits, the worker may also wait for the pool's next
	 * timed event; then it runs the first item due itself.  An added
	 * worker does not, as it may exit: it waits until its idle timeout.
	 */
	if (!added) {
		watching = exec_timers_watch(&pool->ex, &w->parker, when,
					     now);
	} else {
		when[EXEC_CLOCK_MONOTONIC] = exec_grow_idle_deadline(pool);
		when[EXEC_CLOCK_REALTIME] = EXEC_TIME_NEVER;
	}
	work = exec_pool_wait_spin(w, watching, when, now[EXEC_CLOCK_MONOTONIC],
				   &spun_out);
	if (work || !spun_out) {
		w->spin_credit = EXEC_POOL_SPIN_CREDIT;
		/* Before the hand-over, which may set it too. */
		w->was_spinning = !work;
		if (watching)
			exec_pool_unwatch(w, work);
		return work;
	}

	exec_pool_go_idle(w, watching);

	if (exec_pool_wait_over(pool)) {
		/* Look again without sleeping. */
	} else if (unlikely(exec_pool_join_done(pool))) {
		exec_pool_set_state(pool, EXEC_POOL_STOP);
		exec_pool_wake_all(pool);
	} else {
		work = exec_pool_park(w, when, watching || added, &parked);
	}
	woken = exec_pool_unidle(w, &handed);
	if (added && !work && !woken &&
	    exec_pool_retire_idle(w, when[EXEC_CLOCK_MONOTONIC])) {
		*exit = true;
		return NULL;
	}
	w->woken_idle = !work;
	/*
	 * Woken by a submitter (maybe through a passed-on wake-up), or back
	 * without parking: pass it on in turn.  A park that its own deadline
	 * ended (a watcher's timed event, an added worker's idle timeout)
	 * was relied on by no submitter: passing a wake-up on from there
	 * woke the other worker for every deadline the watcher took.
	 */
	w->was_spinning = !work && (woken || !parked);
	work = exec_pool_take_handed(w, work, handed);
	/* Its due items, deferred to this worker. */
	if (watching)
		exec_pool_unwatch(w, work);
	return work;
}

/*
 * Runs @work, whose flags were read as @flags, on @w.  Its token, if it
 * wrote one, stays open after the run (core/pool_rerun.h).
 */
static __always_inline void exec_pool_run(struct exec_pool_worker *w,
					  struct exec_work *work,
					  unsigned long flags)
{
	unsigned long runner;
	u64 t0;

	exec_pool_run_token_set(w, work, flags, &runner);
	/*
	 * Odd while it runs: the manager samples only busy workers, the
	 * watchdog names the item.  The previous run's even @run_seq before
	 * the new @run_fn: pairs with the watchdog's smp_rmb().
	 */
	smp_wmb();
	WRITE_ONCE(w->run_fn, exec_work_symbol(work));
	WRITE_ONCE(w->run_work, work);
	/* @run_fn first: pairs with the watchdog's load-acquire. */
	smp_store_release(&w->run_seq, w->run_seq + 1);
	t0 = exec_stats_run_begin(&w->stats, false);
	exec_work_run_by(&w->pool->ex, work, flags, runner);
	exec_stats_run_end(&w->stats, t0, false);
	/* Release: the run's writes, for a flush that sees it end. */
	smp_store_release(&w->run_seq, w->run_seq + 1);
	if (exec_pool_may_rerun(flags))
		w->token_left = work;
}

/*
 * @w took @work, whose flags it read as @flags, other than by a pop of the
 * shared queue (which looked under the lock already): if another worker's
 * open token is @work, hand it over there; true if it did.
 */
static bool exec_pool_hand_over(struct exec_pool_worker *w,
				struct exec_work *work, unsigned long flags)
{
	struct exec_thread_pool *pool = w->pool;
	unsigned long irqflags;
	bool handed;

	if (likely(!exec_pool_runner_hint(w, work, flags)))
		return false;
	spin_lock_irqsave(&pool->consume_lock, irqflags);
	handed = exec_pool_hand_over_locked(w, work);
	spin_unlock_irqrestore(&pool->consume_lock, irqflags);
	return handed;
}

/* The owner of every worker's @tag frame. */
const char exec_pool_worker_tag;

static int exec_pool_worker_fn(void *arg)
{
	struct exec_pool_worker *w = arg;
	struct exec_thread_pool *pool = w->pool;
	struct exec_work *work;
	unsigned long flags;
	bool exit = false;

	exec_frame_push(&w->tag, &exec_pool_worker_tag);
	exec_frame_push_ex(&w->frame, pool, &pool->ex);
	w->spin_credit = EXEC_POOL_SPIN_CREDIT;
	while (!exit) {
		/* stop: leave what is queued to destroy's discard. */
		if (unlikely(exec_pool_halted(pool)))
			break;
		/* A freezable worker runs nothing while the system freezes. */
		exec_thread_freeze_point();
		w->took = EXEC_POOL_TOOK_OTHER;
		work = exec_pool_flush_ack(w);
		if (!work)
			work = exec_pool_take(w);
		if (!work)
			work = exec_pool_wait(w, &exit);
		if (!work)
			continue;
		w->woken_idle = false;
		/* A held item left the queue's bound when it was handed. */
		if (pool->queue_limit && w->took != EXEC_POOL_TOOK_RERUN)
			exec_pool_unreserve(pool);
		flags = READ_ONCE(work->flags);
		if (w->took == EXEC_POOL_TOOK_OTHER &&
		    exec_pool_hand_over(w, work, flags))
			continue;
		exec_pool_run(w, work, flags);
		if (need_resched())
			cond_resched();
	}
	/* A stop: an item held on its open token stays, for destroy. */
	if (w->token_left) {
		unsigned long irqflags;

		spin_lock_irqsave(&pool->consume_lock, irqflags);
		if (!(READ_ONCE(w->run_token) & EXEC_POOL_HELD))
			WRITE_ONCE(w->run_token, 0);
		w->token_left = NULL;
		spin_unlock_irqrestore(&pool->consume_lock, irqflags);
	}
	/* An exiting worker no longer watches the timers. */
	exec_timers_unwatch(&pool->ex, &w->parker, false);
	exec_pool_unlist(w);
	exec_frame_pop(&w->frame);
	exec_frame_pop(&w->tag);
	if (w->retired)
		exec_grow_worker_exited(w);
	return 0;
}

static void exec_pool_free(struct exec_thread_pool *pool)
{
	unsigned int i;

	/* No submission is left to arm them: each stays disarmed. */
	if (pool->cpu_workers)
		for (i = 0; i < pool->nr_threads; i++)
			exec_cpu_timer_cancel(&pool->workers[i].local_timer);
	kfree(pool->cpu_workers);
	for (i = 0; i < pool->nr_slots; i++)
		if (pool->workers[i].parker_ready)
			exec_parker_destroy(&pool->workers[i].parker);
	exec_grow_free(pool);
	exec_timers_free(&pool->ex);
	exec_executor_fini(&pool->ex);
	spin_lock_destroy(&pool->consume_lock);
	exec_idle_fini(&pool->idle);
	kfree(pool->workers);
	kfree(pool);
}

/* Stops and joins workers [0, @nr) of a pool that never ran any work. */
static void exec_pool_stop_started(struct exec_thread_pool *pool,
				   unsigned int nr)
{
	unsigned int i;

	WRITE_ONCE(pool->state, EXEC_POOL_STOP);
	exec_pool_wake_all(pool);
	for (i = 0; i < nr; i++)
		exec_thread_join(&pool->workers[i].thread);
}

/*
 * The CPUs of a per-CPU pool, in ascending order: the online ones of the
 * mask, or all online ones.  Returns how many, with *@cpusp allocated.
 */
static int exec_pool_cpus(const struct exec_thread_attr *ta,
			  unsigned int **cpusp)
{
	unsigned int limit = exec_cpu_ids(), cpu, n = 0, *cpus;

	if (ta->cpus)
		limit = min(limit, ta->nr_cpu_bits);
	cpus = kcalloc(limit, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < limit; cpu++) {
		if (ta->cpus && !test_bit(cpu, ta->cpus))
			continue;
		if (exec_cpu_online(cpu))
			cpus[n++] = cpu;
	}
	if (!n) {
		kfree(cpus);
		return -EINVAL;
	}
	*cpusp = cpus;
	return n;
}

/* Starts worker @i, bound to @cpu if that is not UINT_MAX. */
int exec_pool_start_worker(struct exec_thread_pool *pool,
				  unsigned int i,
				  const struct exec_thread_attr *ta,
				  unsigned int cpu)
{
	struct exec_thread_attr bound = *ta;
	unsigned long *mask = NULL;
	char name[32];
	int ret;

	if (cpu != UINT_MAX) {
		mask = kcalloc(BITS_TO_LONGS(cpu + 1), sizeof(*mask),
			       GFP_KERNEL);
		if (!mask)
			return -ENOMEM;
		__set_bit(cpu, mask);
		bound.cpus = mask;
		bound.nr_cpu_bits = cpu + 1;
	}
	snprintf(name, sizeof(name), "%s/%u",
		 ta->name ? ta->name : EXEC_POOL_DEFAULT_NAME, i);
	ret = exec_fault_thread_start() ? -EAGAIN :
	      exec_thread_start_attr(&pool->workers[i].thread,
				     exec_pool_worker_fn, &pool->workers[i],
				     name, &bound);
	kfree(mask);
	return ret;
}

/*
 * A pool with @max worker slots, @nr of them in use, its executor and its
 * timers, in *@poolp; no worker started yet.  0, or -ENOMEM, or the
 * executor's or the timers' error.
 */
static int exec_pool_alloc(struct exec_thread_pool **poolp,
			   const struct exec_thread_pool_attr *attr,
			   unsigned int nr, unsigned int max)
{
	struct exec_thread_pool *pool;
	unsigned int i;
	int ret = -ENOMEM;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	pool->workers = kcalloc(max, sizeof(*pool->workers), GFP_KERNEL);
	if (!pool->workers)
		goto err_free_pool;
	if (EXEC_HAVE_CPU_TIMER && attr->per_cpu) {
		pool->cpu_workers = kcalloc(exec_cpu_ids(),
					    sizeof(*pool->cpu_workers),
					    GFP_KERNEL);
		if (!pool->cpu_workers)
			goto err_free_workers;
	}
	ret = exec_executor_init(&pool->ex, &exec_pool_ops);
	if (ret)
		goto err_free_workers;
	ret = exec_timers_create(&pool->ex);
	if (ret)
		goto err_fini_executor;
	exec_mpsc_init(&pool->queue.q);
	spin_lock_init(&pool->consume_lock);
	exec_idle_init(&pool->idle);
	init_waitqueue_head(&pool->room_wq);
	init_waitqueue_head(&pool->join_wq);
	pool->queue_limit = attr->queue_limit;
	pool->freezable = attr->thread.freezable;
	pool->no_spin = attr->no_spin;
	pool->nr_threads = nr;
	pool->nr_slots = max;
	pool->nr_used = nr;
	atomic_set(&pool->nr_live, nr);

	for (i = 0; i < max; i++) {
		pool->workers[i].pool = pool;
		pool->workers[i].index = i;
		pool->workers[i].cpu = -1;
		exec_idle_sleeper_init(&pool->workers[i].idle,
				       &pool->workers[i].parker);
		exec_cpu_timer_init(&pool->workers[i].local_timer,
				    exec_pool_local_check);
	}
	*poolp = pool;
	return 0;

err_fini_executor:
	exec_executor_fini(&pool->ex);
	spin_lock_destroy(&pool->consume_lock);
	exec_idle_fini(&pool->idle);
err_free_workers:
	kfree(pool->cpu_workers);
	kfree(pool->workers);
err_free_pool:
	kfree(pool);
	return ret;
}

/* Undoes exec_pool_alloc(), for a pool none of whose workers is left. */
static void exec_pool_free_unstarted(struct exec_thread_pool *pool)
{
	exec_timers_shutdown(&pool->ex);
	exec_timers_free(&pool->ex);
	exec_executor_fini(&pool->ex);
	spin_lock_destroy(&pool->consume_lock);
	exec_idle_fini(&pool->idle);
	kfree(pool->cpu_workers);
	kfree(pool->workers);
	kfree(pool);
}

/*
 * Starts the workers in use of a pool just allocated, in a per-CPU pool
 * each bound to a CPU of @cpus (@nr_cpus of them), and a growing pool's
 * manager.  On error none of them is left, nor their parkers.
 */
static int exec_pool_start_workers(struct exec_thread_pool *pool,
				   const struct exec_thread_pool_attr *attr,
				   const unsigned int *cpus, int nr_cpus)
{
	unsigned int nr = pool->nr_threads, parked, started;
	int ret;

	/* A CPU's worker is the first one bound to it. */
	for (started = 0; pool->cpu_workers && started < nr; started++)
		if (!pool->cpu_workers[cpus[started % nr_cpus]])
			pool->cpu_workers[cpus[started % nr_cpus]] =
				&pool->workers[started];
	for (parked = 0; parked < nr; parked++) {
		ret = exec_parker_init(&pool->workers[parked].parker);
		if (ret)
			goto err_destroy_parkers;
		pool->workers[parked].parker_ready = true;
		pool->workers[parked].slot = EXEC_SLOT_LIVE;
	}
	for (started = 0; started < nr; started++) {
		if (cpus)
			pool->workers[started].cpu = cpus[started % nr_cpus];
		ret = exec_pool_start_worker(pool, started, &attr->thread,
					     cpus ? cpus[started % nr_cpus] :
						    UINT_MAX);
		if (ret)
			goto err_stop_threads;
	}
	if (pool->nr_slots > nr) {
		ret = exec_grow_create(pool, attr);
		if (ret)
			goto err_stop_threads;
	}
	return 0;

err_stop_threads:
	exec_pool_stop_started(pool, started);
err_destroy_parkers:
	while (parked--)
		exec_parker_destroy(&pool->workers[parked].parker);
	return ret;
}

/*
 * CPU hotplug, the policy: a per-CPU pool's worker stays bound to its CPU
 * while that is online.  When it goes offline the worker is unbound and
 * runs on the other CPUs; when it comes back the worker is bound to it
 * again, as workqueue_offline_cpu() and workqueue_online_cpu() unbind and
 * rebind a per-CPU pool's workers.  Nothing else moves: items wait on the
 * one shared queue, which every worker takes from, so none is tied to the
 * CPU that goes, and an item left to the worker of its CPU
 * (exec_pool_leave_local()) is taken by that worker wherever it runs, or
 * by another one its local timer wakes.  Timed items wait in the pool's
 * timer base, whose hrtimers the kernel moves off a CPU that goes offline
 * with their expiry unchanged (Documentation/lifecycle.rst).
 *
 * Called with the CPUs held (the hotplug thread, or exec_pool_watch_cpus()),
 * so a worker's binding follows its CPU's changes in order.
 */
static void exec_pool_set_cpu(struct exec_pool_worker *w, bool online)
{
	/* Neither fails: @w->cpu is online when bound, any CPU may be had. */
	WARN_ON_ONCE(exec_thread_set_cpu(&w->thread, online ? w->cpu : -1));
}

static void exec_pool_cpu_change(struct exec_cpu_watch *watch,
				 unsigned int cpu, bool online)
{
	struct exec_thread_pool *pool =
		container_of(watch, struct exec_thread_pool, cpu_watch);
	unsigned int i;

	for (i = 0; i < pool->nr_threads; i++)
		if (pool->workers[i].cpu == (int)cpu)
			exec_pool_set_cpu(&pool->workers[i], online);
}

/*
 * Watches the CPUs of a per-CPU pool whose workers have started, then
 * binds each worker as its CPU is now: one may have gone offline, and
 * come back, between the workers' start and the watch.  0 or -errno.
 */
static int exec_pool_watch_cpus(struct exec_thread_pool *pool)
{
	unsigned int i;
	int ret;

	if (!EXEC_HAVE_CPU_WATCH || !pool->cpu_workers)
		return 0;
	pool->cpu_watch.fn = exec_pool_cpu_change;
	ret = exec_cpu_watch_add(&pool->cpu_watch);
	if (ret)
		return ret;
	pool->watching_cpus = true;
	exec_cpus_hold();
	for (i = 0; i < pool->nr_threads; i++)
		exec_pool_set_cpu(&pool->workers[i],
				  exec_cpu_online(pool->workers[i].cpu));
	exec_cpus_release();
	return 0;
}

/*
 * Starts a per-CPU pool's workers with its CPUs held, so that each CPU
 * chosen stays online until its worker is bound to it; then watches them.
 */
static int exec_pool_start_cpus(struct exec_thread_pool **poolp,
				const struct exec_thread_pool_attr *attr)
{
	unsigned int *cpus, nr;
	int ret, nr_cpus;

	exec_cpus_hold();
	nr_cpus = exec_pool_cpus(&attr->thread, &cpus);
	if (nr_cpus < 0) {
		exec_cpus_release();
		return nr_cpus;
	}
	nr = attr->nr_threads ? attr->nr_threads : (unsigned int)nr_cpus;
	/* Per-CPU pools do not grow. */
	ret = attr->max_threads && attr->max_threads != nr ? -EINVAL :
	      exec_pool_alloc(poolp, attr, nr, nr);
	if (!ret) {
		ret = exec_pool_start_workers(*poolp, attr, cpus, nr_cpus);
		if (ret)
			exec_pool_free_unstarted(*poolp);
	}
	exec_cpus_release();
	kfree(cpus);
	if (ret)
		return ret;
	ret = exec_pool_watch_cpus(*poolp);
	if (ret) {
		exec_pool_stop_started(*poolp, nr);
		exec_timers_shutdown(&(*poolp)->ex);
		exec_pool_free(*poolp);
	}
	return ret;
}

int exec_thread_pool_create(struct exec_thread_pool **poolp,
			    const struct exec_thread_pool_attr *attr)
{
	static const struct exec_thread_pool_attr defaults;
	struct exec_thread_pool *pool;
	unsigned int nr, max;
	int ret;

	might_sleep();
	if (!poolp)
		return -EINVAL;
	if (!attr)
		attr = &defaults;
	nr = attr->nr_threads ? attr->nr_threads : exec_online_cpus();
	if (nr > EXEC_THREAD_POOL_MAX_THREADS)
		return -EINVAL;
	ret = exec_thread_attr_check(&attr->thread);
	if (ret)
		return ret;
	max = attr->max_threads ? attr->max_threads : nr;
	if (max < nr || max > EXEC_THREAD_POOL_MAX_THREADS)
		return -EINVAL;

	if (attr->per_cpu) {
		ret = exec_pool_start_cpus(&pool, attr);
		if (ret)
			return ret;
	} else {
		ret = exec_pool_alloc(&pool, attr, nr, max);
		if (ret)
			return ret;
		ret = exec_pool_start_workers(pool, attr, NULL, 0);
		if (ret) {
			exec_pool_free_unstarted(pool);
			return ret;
		}
	}
	snprintf(pool->name, sizeof(pool->name), "%s",
		 attr->thread.name ? attr->thread.name : EXEC_POOL_DEFAULT_NAME);
	exec_watchdog_add_pool(pool);
	pool->stats_file = exec_stats_file_add(&pool->ex, pool->name);
	*poolp = pool;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_create);

struct exec_executor *exec_thread_pool_executor(struct exec_thread_pool *pool)
{
	return pool ? &pool->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_executor);

unsigned int exec_thread_pool_size(const struct exec_thread_pool *pool)
{
	return pool ? pool->nr_threads : 0;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_size);

unsigned int exec_thread_pool_nr_live(const struct exec_thread_pool *pool)
{
	return pool ? atomic_read(&pool->nr_live) : 0;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_nr_live);

bool exec_thread_pool_running_in_this_thread(const struct exec_thread_pool *pool)
{
	return pool && exec_pool_self(pool);
}
EXPORT_SYMBOL_GPL(exec_thread_pool_running_in_this_thread);

/* Hands every item not yet started to its discard callback; counts them. */
static long exec_pool_discard_queued(struct exec_thread_pool *pool)
{
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_work *work;
	long discarded = 0, held = 0;
	unsigned long flags;

	while ((work = exec_mpsc_pop_locked(&pool->queue.q, &pool->consume_lock,
					    &pool->nr_started))) {
		exec_stats_dropped(&pool->probe, work);
		discarded += exec_work_discard(work);
	}
	for (i = 0; i < used; i++) {
		work = xchg(&pool->workers[i].next, NULL);
		if (work)
			discarded += exec_work_discard(work);
		/* Taken off the queue already: not counted against a bound. */
		spin_lock_irqsave(&pool->consume_lock, flags);
		work = exec_pool_take_held_locked(&pool->workers[i], NULL);
		spin_unlock_irqrestore(&pool->consume_lock, flags);
		if (work)
			held += exec_work_discard(work);
	}
	if (pool->queue_limit)
		atomic_long_sub(discarded, &pool->nr_bounded);
	return discarded + held;
}

long exec_thread_pool_shutdown_hard(struct exec_thread_pool *pool)
{
	unsigned long old;
	long timed;

	might_sleep();
	if (!pool)
		return -EINVAL;
	old = READ_ONCE(pool->state);
	do {
		if (old & EXEC_POOL_SHUTDOWN)
			return -ESHUTDOWN;
	} while (!try_cmpxchg(&pool->state, &old, old | EXEC_POOL_SHUTDOWN));

	/* Submitters waiting for room now fail with -ESHUTDOWN. */
	wake_up_all(&pool->room_wq);
	timed = exec_timers_shutdown(&pool->ex);
	timed += exec_pool_discard_queued(pool);
	atomic_long_add(timed, &pool->nr_discarded);
	return timed;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_shutdown_hard);

/* Joins the workers once, however many threads ask at the same time. */
static void exec_pool_join_threads(struct exec_thread_pool *pool)
{
	unsigned int i;

	if (exec_pool_set_state(pool, EXEC_POOL_JOINING) & EXEC_POOL_JOINING) {
		wait_event(pool->join_wq,
			   READ_ONCE(pool->state) & EXEC_POOL_JOINED);
		return;
	}
	/* No worker is added from here on, nor joined by the manager. */
	exec_grow_stop(pool);
	/* Nor bound to a CPU or unbound: their threads are about to go. */
	if (pool->watching_cpus)
		exec_cpu_watch_remove(&pool->cpu_watch);
	for (i = 0; i < pool->nr_used; i++) {
		if (READ_ONCE(pool->workers[i].slot) == EXEC_SLOT_FREE)
			continue;
		exec_thread_join(&pool->workers[i].thread);
		WRITE_ONCE(pool->workers[i].slot, EXEC_SLOT_FREE);
	}
	exec_pool_set_state(pool, EXEC_POOL_JOINED);
	wake_up_all(&pool->join_wq);
}

void exec_thread_pool_stop(struct exec_thread_pool *pool)
{
	if (!pool)
		return;
	exec_pool_set_state(pool, EXEC_POOL_HALT);
	wake_up_all(&pool->room_wq);
	exec_pool_wake_all(pool);
}
EXPORT_SYMBOL_GPL(exec_thread_pool_stop);

bool exec_thread_pool_stopped(const struct exec_thread_pool *pool)
{
	return pool && (READ_ONCE(pool->state) & EXEC_POOL_HALT);
}
EXPORT_SYMBOL_GPL(exec_thread_pool_stopped);

int exec_thread_pool_join(struct exec_thread_pool *pool)
{
	might_sleep();
	if (!pool)
		return -EINVAL;
	if (exec_pool_self(pool))
		return -EDEADLK;
	exec_executor_lockdep_wait(&pool->ex);
	/* Full barrier: pairs with the one in exec_pool_work_finished(). */
	exec_pool_set_state(pool, EXEC_POOL_JOIN);
	/* The last worker to go idle decides; make them all look again. */
	exec_pool_wake_all(pool);
	exec_pool_join_threads(pool);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_join);

long exec_thread_pool_destroy(struct exec_thread_pool *pool)
{
	long discarded;

	might_sleep();
	if (!pool)
		return -EINVAL;
	if (exec_pool_self(pool))
		return -EDEADLK;
	/* Before anything changes: a refused destroy leaves the pool as is. */
	if (exec_executor_check_unused(&pool->ex))
		return -EBUSY;
	/* The items that run yet, due timed ones among them, are waited for. */
	exec_executor_lockdep_wait(&pool->ex);
	/* Before the workers are joined: the watchdog looks at them. */
	exec_watchdog_remove_pool(pool);
	/* Waits for its readers: they look at the workers too. */
	exec_stats_file_remove(pool->stats_file);
	/* Armed items are discarded; those already due still run. */
	discarded = exec_timers_shutdown(&pool->ex);
	exec_pool_set_state(pool, EXEC_POOL_STOP);
	wake_up_all(&pool->room_wq);
	exec_pool_wake_all(pool);
	exec_pool_join_threads(pool);
	/* Submitters that raced with the stop are gone before the memory. */
	exec_drain_users(&pool->nr_submitting, 0);
	/* Only a stop leaves items behind: their owners get them back. */
	discarded += exec_pool_discard_queued(pool);
	exec_pool_free(pool);
	return discarded;
}
EXPORT_SYMBOL_GPL(exec_thread_pool_destroy);

static bool exec_pool_running(const struct exec_executor *ex)
{
	return exec_pool_self(container_of(ex, struct exec_thread_pool, ex));
}

static void exec_pool_work_started(struct exec_executor *ex)
{
	atomic_long_inc(&exec_to_pool(ex)->nr_guards);
}

static void exec_pool_work_finished(struct exec_executor *ex)
{
	struct exec_thread_pool *pool = exec_to_pool(ex);
	long left = atomic_long_dec_return(&pool->nr_guards);

	if (WARN_ON_ONCE(left < 0)) {
		atomic_long_inc(&pool->nr_guards);
		return;
	}
	/*
	 * The decrement is fully ordered before this read, pairing with the
	 * barrier of join's state change: either join's wake-up comes after
	 * the count is 0, or this one does.
	 */
	if (!left && (READ_ONCE(pool->state) & EXEC_POOL_JOIN))
		exec_pool_wake_all(pool);
}

/*
 * Whether @ex is a thread pool (fixed, growing or per-CPU) without a queue
 * limit: an item that one of its workers posts with EXEC_SUBMIT_DEFER then
 * wakes no worker and takes no room from submitters.
 */
bool exec_executor_defers_freely(struct exec_executor *ex)
{
	return ex->ops == &exec_pool_ops && !exec_to_pool(ex)->queue_limit;
}

/* @ex's statistics file, if it is a thread pool; else NULL. */
void *exec_pool_stats_file(struct exec_executor *ex)
{
	return ex->ops == &exec_pool_ops ? exec_to_pool(ex)->stats_file : NULL;
}

/**
 * exec_pool_stats - a thread pool's statistics
 * @ex: an executor
 * @st: zeroed by the caller; the pool's counts are added
 *
 * Context: Any context.
 * Return: false if @ex is not a thread pool.
 */
bool exec_pool_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_thread_pool *pool;
	struct exec_pool_worker *w;
	unsigned int i, used;
	unsigned long seq;

	if (ex->ops != &exec_pool_ops)
		return false;
	pool = exec_to_pool(ex);
	used = exec_pool_nr_used(pool);
	st->submitted = atomic_long_read(&pool->nr_submitted);
	for (i = 0; i < used; i++) {
		w = &pool->workers[i];
		seq = READ_ONCE(w->run_seq);
		st->started += (seq + 1) / 2;
		st->completed += seq / 2;
		st->submitted += READ_ONCE(w->nr_self_submitted) +
				 READ_ONCE(w->nr_handed);
		st->wakeups += READ_ONCE(w->nr_woken);
		exec_stats_add_run(st, &w->stats);
	}
	st->refused = atomic_long_read(&pool->nr_refused);
	st->discarded = atomic_long_read(&pool->nr_discarded);
	st->nr_threads = atomic_read(&pool->nr_live);
	return true;
}

/**
 * exec_pool_show_workers - a line per worker slot of a thread pool
 * @ex: an executor; nothing is written unless it is a thread pool
 * @emit: called with each line
 * @ctx: passed to @emit
 *
 * Each line: the slot, whether a thread is in it, the items it started and
 * completed, what it put in its own slot, its longest run and queue wait
 * timed, and the function of the item it runs now, if any (read as the
 * watchdog reads it).
 *
 * Context: Any context @emit allows; the pool must stay alive meanwhile.
 */
void exec_pool_show_workers(struct exec_executor *ex,
			    void (*emit)(void *ctx, const char *line),
			    void *ctx)
{
	char sym[EXEC_SYMBOL_NAME_LEN], line[EXEC_SYMBOL_NAME_LEN + 160];
	static const char *const slots[] = { "free", "live", "exited" };
	struct exec_thread_pool *pool;
	struct exec_pool_worker *w;
	unsigned int i, used;
	unsigned long seq;
	const void *fn;
	int slot;

	if (ex->ops != &exec_pool_ops)
		return;
	pool = exec_to_pool(ex);
	used = exec_pool_nr_used(pool);
	for (i = 0; i < used; i++) {
		w = &pool->workers[i];
		/* Acquire: pairs with the release that made @run_seq odd. */
		seq = smp_load_acquire(&w->run_seq);
		fn = READ_ONCE(w->run_fn);
		/* Pairs with the worker's smp_wmb() before its next @run_fn. */
		smp_rmb();
		if (!(seq & 1) || READ_ONCE(w->run_seq) != seq)
			fn = NULL;
		if (fn)
			exec_symbol_name(sym, sizeof(sym), fn);
		slot = READ_ONCE(w->slot);
		snprintf(line, sizeof(line),
			 "  worker %u: %s started=%lu completed=%lu self_submitted=%lu max_run_ns=%llu max_wait_ns=%llu%s%s",
			 i, slot >= 0 && slot < (int)ARRAY_SIZE(slots) ?
				    slots[slot] : "?",
			 (seq + 1) / 2, seq / 2,
			 READ_ONCE(w->nr_self_submitted),
			 (unsigned long long)READ_ONCE(w->stats.max_run_ns),
			 (unsigned long long)READ_ONCE(w->stats.max_wait_ns),
			 fn ? " running=" : "", fn ? sym : "");
		emit(ctx, line);
	}
}

/*
 * Cancel's look (exec_cancel_loop()): @work in the shared queue, taken out
 * under @consume_lock as a pop would be; held on the token of the worker
 * that ran it, to run again, taken back under the same lock, against that
 * worker's close of the token (exec_pool_take_held_locked()); in a
 * worker's slot, taken with cmpxchg() against its owner's xchg() and
 * stealers' cmpxchg(); or handed to a woken worker, its state word turned
 * into a plain claim with cmpxchg() against the worker's xchg()
 * (exec_pool_unidle()).  Whoever wins has the item.
 */
static int exec_pool_take_back(struct exec_executor *ex,
			       struct exec_work *work)
{
	struct exec_thread_pool *pool = exec_to_pool(ex);
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_work *held = NULL;
	struct exec_pool_worker *w;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&pool->consume_lock, flags);
	ret = exec_mpsc_unlink(&pool->queue.q, work);
	/* Counted as taken, as a pop counts it: for the pending count. */
	if (ret == 1)
		WRITE_ONCE(pool->nr_started, pool->nr_started + 1);
	for (i = 0; ret != 1 && !held && i < used; i++)
		held = exec_pool_take_held_locked(&pool->workers[i], work);
	spin_unlock_irqrestore(&pool->consume_lock, flags);
	if (held)
		goto held;
	for (i = 0; ret != 1 && i < used; i++) {
		w = &pool->workers[i];
		if (READ_ONCE(w->next) == work &&
		    cmpxchg(&w->next, work, NULL) == work)
			ret = 1;
		else if (READ_ONCE(w->idle.state) == (unsigned long)work &&
			 cmpxchg(&w->idle.state, (unsigned long)work,
				 EXEC_IDLE_CLAIMED) == (unsigned long)work)
			ret = 1;
	}
	if (ret != 1)
		return ret;
	exec_stats_dropped(&pool->probe, work);
	if (pool->queue_limit)
		exec_pool_unreserve(pool);
held:
	/* A held item left the queue and its bound when it was taken. */
	atomic_long_inc(&pool->nr_discarded);
	return 1;
}

/**
 * exec_thread_pool_test_held - how many items wait for their run to return
 * @pool: the pool
 *
 * For the tests: items submitted again while they ran, taken by another
 * worker and handed to the one that runs them (core/pool_rerun.h).
 *
 * Context: Any context.
 * Return: the workers that hold such an item now.
 */
unsigned int exec_thread_pool_test_held(struct exec_thread_pool *pool)
{
	unsigned int i, used = exec_pool_nr_used(pool), n = 0;

	for (i = 0; i < used; i++)
		n += !!(READ_ONCE(pool->workers[i].run_token) & EXEC_POOL_HELD);
	return n;
}
EXPORT_SYMBOL_FOR_TESTS(exec_thread_pool_test_held);

static int exec_pool_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_pool_take_back);
}

/*
 * Which workers run @work now: @run_seq odd with @run_work = @work, read as
 * the watchdog reads @run_fn.  With @wait, waits until each of those runs
 * has returned (its @run_seq moved on); -EDEADLK if one is the caller's.
 */
static int exec_pool_work_running(struct exec_executor *ex,
				  struct exec_work *work, bool wait)
{
	struct exec_thread_pool *pool = exec_to_pool(ex);
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_pool_worker *w, *self = exec_pool_self(pool);
	unsigned long seq;
	int found = 0;

	for (i = 0; i < used; i++) {
		w = &pool->workers[i];
		if (!exec_run_record_match(&w->run_seq, &w->run_work, work,
					   &seq))
			continue;
		if (w == self && wait)
			return -EDEADLK;
		found = 1;
		if (wait && w != self)
			exec_wait_seq(&w->run_seq, seq);
	}
	return found;
}

/* Whether every live worker has acknowledged @epoch. */
static bool exec_pool_flush_acked(struct exec_thread_pool *pool,
				  unsigned long epoch)
{
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_pool_worker *w;

	for (i = 0; i < used; i++) {
		w = &pool->workers[i];
		if (READ_ONCE(w->slot) != EXEC_SLOT_LIVE)
			continue;
		/* Acquire: pairs with the worker's release of its ack. */
		if ((long)(smp_load_acquire(&w->flush_ack) - epoch) < 0)
			return false;
	}
	return true;
}

/*
 * One flush of a pool.  A marker through the shared queue alone is not
 * enough: workers run items side by side, so the marker's start says only
 * that the items queued before it have been taken, not that they have
 * returned, and items in the workers' slots or handed to woken workers
 * never pass through the queue.  So:
 *
 *  1. the marker (exec_flush_barrier()): when it starts, every item pushed
 *     on the shared queue before the call has been taken by a worker (pops
 *     are in order, under @consume_lock; an outside submission is handed
 *     over only while the queue is empty, so a marker handed over says the
 *     same);
 *  2. a new epoch, and every worker woken: each acknowledges it at a point
 *     where it holds no item and its slot is empty (between two items, or
 *     before it parks, unless an item was handed to it).  A worker takes
 *     one item at a time and runs it before the next, so its ack of the
 *     epoch, read after the marker started, comes after the item it took
 *     before the marker, and after the item in its slot, which only it can
 *     refill (with later items).  An item submitted before the call and
 *     handed to a worker was handed before the epoch was raised, so that
 *     worker, parked, sees its claim and does not ack;
 *  3. a worker that steals an item out of another's slot may have acked
 *     already: the steal clears its ack before the cmpxchg that takes the
 *     item, and the victim acks only once its slot is empty, so after the
 *     steal.  The flusher therefore wants two passes in a row in which
 *     every worker has acked: the second reads the thief's ack after the
 *     first read the victim's, and sees it cleared, or set again after the
 *     stolen item ran.
 *
 * A worker whose items keep posting their successors to its own slot
 * (a plain submission from inside the pool) never has it empty: the
 * flush waits until that chain ends.
 */
static int exec_pool_flush_once(struct exec_thread_pool *pool)
{
	unsigned int passes = 0;
	unsigned long epoch, us = 16;
	int ret;

	ret = exec_flush_barrier(&pool->ex, false, NULL);
	if (ret)
		return ret;
	/* Fully ordered: after the marker's start, before the wake-ups. */
	epoch = atomic_long_inc_return(&pool->flush_epoch);
	exec_pool_wake_all(pool);
	while (passes < 2) {
		if (exec_pool_flush_acked(pool, epoch)) {
			passes++;
			continue;
		}
		passes = 0;
		/* Stopping: its workers exit without acknowledging. */
		if (READ_ONCE(pool->state) & EXEC_POOL_CLOSED)
			return -ESHUTDOWN;
		exec_poll_sleep(&us);
	}
	return 0;
}

/* Items ever submitted, by every way: changes whenever one is. */
static unsigned long exec_pool_submissions(struct exec_thread_pool *pool)
{
	unsigned int i, used = exec_pool_nr_used(pool);
	unsigned long n = atomic_long_read(&pool->nr_submitted);

	for (i = 0; i < used; i++)
		n += READ_ONCE(pool->workers[i].nr_self_submitted) +
		     READ_ONCE(pool->workers[i].nr_handed);
	return n;
}

/*
 * A drain repeats the flush until a round saw no submission but its own
 * marker's: an item that ran in the round counted what it submitted
 * before it returned, so before the round ended.
 */
static int exec_pool_flush(struct exec_executor *ex, bool drain)
{
	struct exec_thread_pool *pool = exec_to_pool(ex);
	unsigned long before;
	int ret;

	do {
		before = exec_pool_submissions(pool);
		ret = exec_pool_flush_once(pool);
		if (ret)
			return ret;
	} while (drain && exec_pool_submissions(pool) - before != 1);
	return 0;
}

static const struct exec_executor_ops exec_pool_ops = {
	.kind = "thread_pool",
	.submit = exec_pool_submit,
	.pending = exec_pool_pending,
	.running_in_this_thread = exec_pool_running,
	.work_started = exec_pool_work_started,
	.work_finished = exec_pool_work_finished,
	.cancel = exec_pool_cancel,
	.work_running = exec_pool_work_running,
	.flush = exec_pool_flush,
};

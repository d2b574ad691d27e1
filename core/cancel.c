// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Cancel and flush of plain items: the argument checks, the detection of a
 * caller that would wait for itself, and the waiting, shared by every
 * executor; each executor brings what only it knows (where it keeps a
 * queued item, whether one of its threads runs an item, how to know that
 * everything submitted before a point has run) through its ops.
 *
 * The pending bit arbitrates between a cancel and the executor's start of
 * the item: an executor's take operation (@cancel) unlinks the item under
 * the rule that excludes its consumers, so that a consumer cannot pop it
 * meanwhile, and only then clears the bit (exec_work_discard()).  An item
 * that is pending but found nowhere is between its submitter's
 * test_and_set_bit() and its publication, or between a consumer's take and
 * its start (exec_work_run() clears the bit): both end in a few
 * instructions unless that thread is preempted, and the cancel waits them
 * out (exec_backoff()).
 *
 * Waiting for a run to return polls the executor's own per-thread sequence
 * count (exec_wait_seq()): a wake-up per run would cost every item a look
 * at a wait queue, while a flush or a synchronous cancel may well wait a
 * few microseconds more.
 */
#include "internal.h"

static bool exec_cancel_plain(const struct exec_executor *ex,
			      const struct exec_work *work)
{
	return ex && ex->ops && work && work->func &&
	       !(READ_ONCE(work->flags) &
		 (EXEC_WORK_TIMER | EXEC_WORK_PERIODIC));
}

/**
 * exec_wait_seq - wait until a sequence count moves on
 * @seq: a count that its thread changes when a run returns
 * @old: the value seen while the run went on
 *
 * Polls, spinning a little and then sleeping for growing intervals of up
 * to a millisecond: a flush returns at most that much after the run ends.
 *
 * Context: Process context; may sleep.
 */
void exec_wait_seq(const unsigned long *seq, unsigned long old)
{
	unsigned long us = 16;
	unsigned int spins = 0;

	might_sleep();
	/* Acquire: what the run did before it ended is seen after. */
	while (smp_load_acquire(seq) == old) {
		if (++spins < EXEC_BACKOFF_SPINS / 4) {
			cpu_relax();
			continue;
		}
		exec_poll_sleep(&us);
	}
}

/**
 * exec_run_record_match - whether a run record shows a run of @work
 * @run_seq: the record's count of runs, odd while one goes on, made odd
 *	with a release after @run_work was written (and an smp_wmb() before
 *	that, after the previous run's even count)
 * @run_work: the item of the run under way
 * @work: the item asked about
 * @seq: set to the count of that run, for exec_wait_seq()
 *
 * Every executor that notes its runs for cancel and flush (a pool's
 * worker, a loop scheduler's runner, a serial executor's owner, a loop's
 * thread) is read here.  Both reads of @run_seq are acquires: when the run
 * is seen to have ended, by either, what it did happens before the
 * caller's next step (a synchronous cancel's caller may free the item).
 *
 * Context: Any context.
 * Return: true if the record ran @work at the second read of @run_seq.
 */
bool exec_run_record_match(const unsigned long *run_seq,
			   struct exec_work *const *run_work,
			   const struct exec_work *work, unsigned long *seq)
{
	/* Acquire: pairs with the release that made it odd. */
	*seq = smp_load_acquire(run_seq);
	if (!(*seq & 1) || READ_ONCE(*run_work) != work)
		return false;
	/* Pairs with the owner's smp_wmb() before it wrote @run_work. */
	smp_rmb();
	/* Acquire: pairs with the release that ended the run. */
	return smp_load_acquire(run_seq) == *seq;
}

/**
 * exec_run_record_running - whether a one-at-a-time executor runs @work
 * @run_seq: its run record's count (exec_run_record_match())
 * @run_work: the item of the run under way
 * @owner: what the running thread's frame names (exec_frame_find())
 * @work: the item asked about
 * @wait: wait until that run has returned
 *
 * For executors that run one item at a time and note it in a run record
 * (a serial executor's owner, a loop's thread): their @work_running.
 *
 * Context: Process context; may sleep with @wait.
 * Return: 1 if @work runs (ran, with @wait), 0 if not; -EDEADLK with
 * @wait from inside that very run.
 */
int exec_run_record_running(const unsigned long *run_seq,
			    struct exec_work *const *run_work,
			    const void *owner, struct exec_work *work,
			    bool wait)
{
	unsigned long seq;

	if (!exec_run_record_match(run_seq, run_work, work, &seq))
		return 0;
	if (exec_frame_find(owner))
		return wait ? -EDEADLK : 1;
	if (wait)
		exec_wait_seq(run_seq, seq);
	return 1;
}

/**
 * exec_cancel_loop - the common part of an executor's cancel operation
 * @ex: the executor
 * @work: the item, plain
 * @take: the executor's own look: 1 if it took @work out of wherever it
 *	keeps it (excluding its consumers), still pending; 0 if @work is not
 *	there; -EAGAIN to be called again
 *
 * Context: Process context.
 * Return: EXEC_CANCEL_REMOVED once @work is discarded; EXEC_CANCEL_RUNNING
 * or EXEC_CANCEL_IDLE once it is not pending.
 */
int exec_cancel_loop(struct exec_executor *ex, struct exec_work *work,
		     int (*take)(struct exec_executor *ex,
				 struct exec_work *work))
{
	unsigned int spins = 0;
	unsigned long flags;

	for (;;) {
		/*
		 * Acquire: pairs with the RMW that cleared the bit in
		 * exec_work_run(), after the executor noted the run, so
		 * that @work_running sees it.
		 */
		flags = smp_load_acquire(&work->flags);
		if (!(flags & EXEC_WORK_PENDING) ||
		    (flags & EXEC_WORK_CANCELING))
			break;
		if (take(ex, work) == 1) {
			exec_work_discard(work);
			return EXEC_CANCEL_REMOVED;
		}
		exec_backoff(&spins);
	}
	if (ex->ops->work_running && ex->ops->work_running(ex, work, false) > 0)
		return EXEC_CANCEL_RUNNING;
	return EXEC_CANCEL_IDLE;
}

int exec_work_cancel(struct exec_executor *ex, struct exec_work *work)
{
	if (!exec_cancel_plain(ex, work))
		return -EINVAL;
	if (!ex->ops->cancel)
		return -EOPNOTSUPP;
	return ex->ops->cancel(ex, work);
}
EXPORT_SYMBOL_GPL(exec_work_cancel);

/* Waits for @work's runs on @ex that are under way; -EDEADLK from inside. */
static int exec_work_wait_runs(struct exec_executor *ex,
			       struct exec_work *work)
{
	int ret;

	if (!ex->ops->work_running)
		return 0;
	/* Whether or not a run is under way now: the order is what counts. */
	exec_executor_lockdep_wait(ex);
	ret = ex->ops->work_running(ex, work, true);
	return ret < 0 ? ret : 0;
}

int exec_work_cancel_sync(struct exec_executor *ex, struct exec_work *work)
{
	int ret, wait, removed = 0;
	bool held = false;
	unsigned long old;

	might_sleep();
	for (;;) {
		ret = exec_work_cancel(ex, work);
		if (ret < 0)
			return ret;
		if (ret == EXEC_CANCEL_REMOVED)
			removed = ret;
		/*
		 * Hold the pending bit while we wait, so that the item
		 * cannot be queued again meanwhile, by itself or others.
		 * Another cancel_sync may hold it: it clears it when done.
		 */
		old = READ_ONCE(work->flags);
		if (old & EXEC_WORK_CANCELING)
			break;
		if (old & EXEC_WORK_PENDING)
			continue;
		if (try_cmpxchg(&work->flags, &old, old | EXEC_WORK_PENDING |
						    EXEC_WORK_CANCELING)) {
			held = true;
			break;
		}
	}
	wait = exec_work_wait_runs(ex, work);
	if (held) {
		old = READ_ONCE(work->flags);
		/* Fully ordered: the run's writes come before a new submit. */
		while (!try_cmpxchg(&work->flags, &old,
				    old & ~(EXEC_WORK_PENDING |
					    EXEC_WORK_CANCELING)))
			;
	}
	if (wait < 0)
		return wait;
	return removed ? removed : ret;
}
EXPORT_SYMBOL_GPL(exec_work_cancel_sync);

int exec_work_flush(struct exec_executor *ex, struct exec_work *work)
{
	unsigned int spins = 0;
	unsigned long flags;
	int ret, waited = 0;

	might_sleep();
	if (!exec_cancel_plain(ex, work))
		return -EINVAL;
	exec_executor_lockdep_wait(ex);
	/* Acquire: as in exec_cancel_loop(), for @work_running's look. */
	flags = smp_load_acquire(&work->flags);
	if ((flags & EXEC_WORK_PENDING) && !(flags & EXEC_WORK_CANCELING)) {
		if (exec_running_in_this_thread(ex))
			return -EDEADLK;
		waited = 1;
		/* Until it starts: exec_work_run() clears the bit (acquire). */
		while ((flags = smp_load_acquire(&work->flags)) &
		       EXEC_WORK_PENDING) {
			if (flags & EXEC_WORK_CANCELING)
				break;
			exec_backoff(&spins);
			if (spins >= EXEC_BACKOFF_SPINS)
				usleep_range(50, 100);
		}
	}
	if (!ex->ops->work_running)
		return waited;
	ret = ex->ops->work_running(ex, work, true);
	if (ret < 0)
		return ret;
	return waited || ret;
}
EXPORT_SYMBOL_GPL(exec_work_flush);

/* Executors that queue nothing: nothing submitted before can be waiting. */
static int exec_flush_common(struct exec_executor *ex, bool drain)
{
	might_sleep();
	if (!ex || !ex->ops)
		return -EINVAL;
	if (!ex->ops->flush)
		return -EOPNOTSUPP;
	if (exec_running_in_this_thread(ex) &&
	    ex != exec_inline_executor())
		return -EDEADLK;
	exec_executor_lockdep_wait(ex);
	return ex->ops->flush(ex, drain);
}

int exec_executor_flush(struct exec_executor *ex)
{
	return exec_flush_common(ex, false);
}
EXPORT_SYMBOL_GPL(exec_executor_flush);

int exec_executor_drain(struct exec_executor *ex)
{
	return exec_flush_common(ex, true);
}
EXPORT_SYMBOL_GPL(exec_executor_drain);

/*
 * A marker item that a FIFO executor runs after everything queued before
 * it.  It lives on its flusher's stack, which it may leave as soon as
 * @done is set: the wake-up is on a queue of the library's.
 */
struct exec_barrier {
	struct exec_work work;
	struct exec_executor *ex;
	bool (*empty)(struct exec_executor *ex);
	bool more;
	int done;
};

static DECLARE_WAIT_QUEUE_HEAD(exec_barrier_wq);

static void exec_barrier_end(struct exec_barrier *b, int done)
{
	/* Release: @more before @done; then @b is the flusher's again. */
	smp_store_release(&b->done, done);
	/* Full barrier, then the test: pairs with wait_event(). */
	smp_mb();
	if (wq_has_sleeper(&exec_barrier_wq))
		wake_up_all(&exec_barrier_wq);
}

static void exec_barrier_fn(struct exec_work *work)
{
	struct exec_barrier *b = container_of(work, struct exec_barrier, work);

	b->more = b->empty && !b->empty(b->ex);
	exec_barrier_end(b, 1);
}

static void exec_barrier_discard(struct exec_work *work)
{
	exec_barrier_end(container_of(work, struct exec_barrier, work),
			 -ECANCELED);
}

/**
 * exec_flush_barrier - flush a FIFO executor with a marker item
 * @ex: an executor that starts its items one at a time, in order
 * @drain: submit markers until one finds nothing behind it
 * @empty: whether nothing is queued on @ex, asked by the marker while it
 *	runs; NULL: always
 *
 * When the marker runs, every item queued before it has returned: the
 * executor runs one at a time, in submission order.
 *
 * Context: Process context; may sleep.
 * Return: 0; the marker's submission's error; -ECANCELED if @ex discarded
 * it.
 */
int exec_flush_barrier(struct exec_executor *ex, bool drain,
		       bool (*empty)(struct exec_executor *ex))
{
	struct exec_barrier b;
	int ret;

	do {
		exec_work_init_discard(&b.work, exec_barrier_fn,
				       exec_barrier_discard);
		b.ex = ex;
		b.empty = drain ? empty : NULL;
		b.more = false;
		b.done = 0;
		ret = exec_submit(ex, &b.work);
		if (ret)
			return ret;
		/* Acquire: pairs with the release in exec_barrier_end(). */
		wait_event(exec_barrier_wq, smp_load_acquire(&b.done));
		if (b.done < 0)
			return b.done;
	} while (b.more);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The loop executor: items in an MPSC queue, run by whichever thread calls a
 * closure-executing function.  Those functions exclude each other through the
 * EXEC_LOOP_RUNNING bit of @state, which also makes them the queue's single
 * consumer.  exec_loop_make_loop_exit() sets EXEC_LOOP_EXIT only while
 * EXEC_LOOP_RUNNING is set, and every closure-executing function clears
 * both bits when it returns, so an exit request never outlives the call it
 * was meant for.
 *
 * exec_loop_run() sleeps on a parker when the queue is empty, until the
 * loop's next timed event if it can watch for it (exec_timers_watch()).
 * It sleeps as the thread pool's workers do: its record, @runner, goes on
 * the loop's idle list, @idle, a list of one (core/idle.h, whose handshake
 * it is: a submitter, after its push's xchg(), claims and wakes the runner
 * if @idle.nr_idle says it sleeps; an exit request, after its cmpxchg(),
 * likewise), so a submission to a loop whose runner is busy makes no
 * system call.
 *
 * A thread that drives a loop from a wait of its own (an I/O context's
 * thread, which waits for completions: user/io/) takes the same part
 * through exec_loop_sleep_begin() and exec_loop_sleep_end(), and the
 * submitter calls the waker it gave (exec_loop_set_waker()) instead of
 * the unpark: the record's waker (exec_idle_set_waker()).
 *
 * A loop driven by another event loop (user/io/loop_fd.c) attaches a waker
 * while it is in use (exec_loop_attach_waker()), and exec_loop_run_armed()
 * leaves @runner on the idle list between its calls: the other loop's wait
 * is the sleep, and the waker ends it.
 */
#include "idle.h"
#include "stats_count.h"

#define EXEC_LOOP_RUNNING	0x1
#define EXEC_LOOP_EXIT		0x2

/**
 * struct exec_loop - a loop executor
 * @ex: the abstract executor
 * @queue: items waiting, in submission order
 * @nr_queued: A: items pushed and not yet taken
 * @state: A: EXEC_LOOP_RUNNING, EXEC_LOOP_EXIT
 * @idle: the loop's idle list (core/idle.h), of @runner only
 * @runner: the record of the thread in a closure-executing function, on
 *	@idle while it sleeps (or, with an attached waker, between two calls
 *	of exec_loop_run_armed()); its waker, if any, is the one set with
 *	exec_loop_set_waker() before the loop is used, or once, under
 *	EXEC_LOOP_RUNNING, by exec_loop_attach_waker()
 * @parker: where exec_loop_run() sleeps
 * @probe: the queued item being timed (core/stats_count.h)
 * @stats: C: what the threads in its run functions ran; written by the
 *	one inside (EXEC_LOOP_RUNNING, whose release and cmpxchg order one
 *	caller's writes before the next's), read by exec_executor_stats()
 * @stats_file: the statistics file of the backend, or NULL; set at
 *	creation, removed first thing by destroy
 * @nr_wakeups: A: sleeping exec_loop_run() woken for an item; counted on
 *	that path only, beside its unpark
 * @wake_release: frees @runner's waker's argument when the loop is
 *	destroyed, or NULL
 * @consume_lock: serialises the runner's pops with a cancel's unlink;
 *	raw, as a cancel may come from any context the loop's items run in
 * @run_work: C: the item being run, written before @run_seq turns odd
 * @run_seq: C, read by cancel and flush: odd while an item runs
 */
struct exec_loop {
	struct exec_executor ex;
	struct exec_mpsc_split queue;
	atomic_long_t nr_queued;
	atomic_t state ____cacheline_aligned;
	/*
	 * Read by every submitter, written as the runner sleeps and wakes:
	 * the count, the list's head and the record share one line.
	 */
	struct exec_idle idle ____cacheline_aligned;
	struct exec_idle_sleeper runner;
	struct exec_parker parker;
	struct exec_stats_probe probe;
	struct exec_stats_run stats;
	void *stats_file;
	atomic_long_t nr_wakeups;
	void (*wake_release)(void *arg);
	raw_spinlock_t consume_lock ____cacheline_aligned;
	struct exec_work *run_work;
	unsigned long run_seq;
};

static const struct exec_executor_ops exec_loop_ops;

static struct exec_loop *exec_to_loop(struct exec_executor *ex)
{
	return container_of(ex, struct exec_loop, ex);
}

static int exec_loop_submit(struct exec_executor *ex, struct exec_work *work,
			    unsigned int flags)
{
	struct exec_loop *loop = exec_to_loop(ex);

	exec_stats_submit(&loop->probe, work);
	exec_mpsc_push(&loop->queue.q, work);
	atomic_long_inc(&loop->nr_queued);
	/* The push's xchg() orders it before this read; see core/idle.h. */
	if (atomic_read(&loop->idle.nr_idle) &&
	    exec_idle_wake_one(&loop->idle, EXEC_IDLE_CLAIMED))
		atomic_long_inc(&loop->nr_wakeups);
	return 0;
}

/**
 * exec_loop_set_waker - let a loop's runner sleep in a wait of its own
 * @loop: the loop, not yet used
 * @wake: called by a submitter that finds the runner asleep (between
 *	exec_loop_sleep_begin() and exec_loop_sleep_end()); must end that
 *	sleep, and may be called when it is already over
 * @arg: its argument
 *
 * Context: Before anything is submitted to @loop.
 */
void exec_loop_set_waker(struct exec_loop *loop, void (*wake)(void *arg),
			 void *arg)
{
	exec_idle_set_waker(&loop->runner, wake, arg);
}

/**
 * exec_loop_sleep_begin - the runner is about to sleep in its own wait
 * @loop: a loop with a waker (exec_loop_set_waker())
 *
 * Context: The thread that runs @loop's items.
 * Return: true if it may sleep: a later submission calls the waker;
 * false if items are queued (then exec_loop_sleep_end() is not needed).
 */
bool exec_loop_sleep_begin(struct exec_loop *loop)
{
	exec_idle_go(&loop->idle, &loop->runner, false);
	if (!exec_mpsc_maybe_nonempty(&loop->queue.q))
		return true;
	exec_loop_sleep_end(loop);
	return false;
}

/**
 * exec_loop_sleep_end - the runner's own wait is over
 * @loop: the loop given to exec_loop_sleep_begin()
 *
 * Context: The thread that runs @loop's items.
 */
void exec_loop_sleep_end(struct exec_loop *loop)
{
	unsigned long mark;

	exec_idle_take(&loop->idle, &loop->runner, &mark);
}

/**
 * exec_loop_attach_waker - give a loop in use a waker, once
 * @loop: the loop
 * @wake: as for exec_loop_set_waker()
 * @release: frees the argument when @loop is destroyed, or NULL
 * @argp: the argument; if a waker @wake is attached already, its own
 *	argument is stored here instead (and the one given is not used)
 *
 * Once a waker is attached, exec_loop_run() refuses to run (-EBUSY): its
 * parker would no longer be woken.
 *
 * Context: Any context; not inside a closure-executing function of @loop.
 * Return: 0; -EBUSY if a closure-executing function is running or another
 * waker is set.
 */
int exec_loop_attach_waker(struct exec_loop *loop, void (*wake)(void *arg),
			   void (*release)(void *arg), void **argp)
{
	int ret = 0;

	if (atomic_cmpxchg(&loop->state, 0, EXEC_LOOP_RUNNING) != 0)
		return -EBUSY;
	if (!exec_idle_waker(&loop->runner)) {
		loop->wake_release = release;
		exec_idle_set_waker(&loop->runner, wake, *argp);
	} else if (exec_idle_waker(&loop->runner) == wake) {
		*argp = loop->runner.wake_arg;
	} else {
		ret = -EBUSY;
	}
	atomic_set_release(&loop->state, 0);
	return ret;
}

/**
 * exec_loop_waker_arg - the argument of a loop's waker
 * @loop: the loop
 * @wake: the waker expected
 *
 * Context: Any context.
 * Return: the argument attached with @wake; NULL if @loop has another
 * waker or none.
 */
void *exec_loop_waker_arg(struct exec_loop *loop, void (*wake)(void *arg))
{
	return exec_idle_waker(&loop->runner) == wake ?
	       READ_ONCE(loop->runner.wake_arg) : NULL;
}

static unsigned long exec_loop_pending(struct exec_executor *ex)
{
	long n = atomic_long_read(&exec_to_loop(ex)->nr_queued);

	return n > 0 ? n : 0;
}

static int exec_loop_enter(struct exec_loop *loop, struct exec_frame *frame)
{
	if (atomic_cmpxchg(&loop->state, 0, EXEC_LOOP_RUNNING) != 0)
		return -EBUSY;
	exec_frame_push_ex(frame, loop, &loop->ex);
	return 0;
}

static void exec_loop_leave(struct exec_loop *loop, struct exec_frame *frame)
{
	exec_frame_pop(frame);
	atomic_set_release(&loop->state, 0);
}

static bool exec_loop_exiting(struct exec_loop *loop)
{
	return atomic_read(&loop->state) & EXEC_LOOP_EXIT;
}

/*
 * The next item, or NULL: one pop under @consume_lock, so that a cancel's
 * unlink never meets it.  The caller is the consumer.
 */
static struct exec_work *exec_loop_pop(struct exec_loop *loop)
{
	unsigned int spins = 0;
	struct exec_work *work;
	unsigned long flags;

	for (;;) {
		raw_spin_lock_irqsave(&loop->consume_lock, flags);
		work = exec_mpsc_pop(&loop->queue.q);
		raw_spin_unlock_irqrestore(&loop->consume_lock, flags);
		if (work != EXEC_MPSC_BUSY)
			return work;
		exec_backoff(&spins);
	}
}

/* Runs the next item if there is one; the caller is the consumer. */
static bool exec_loop_run_one(struct exec_loop *loop)
{
	struct exec_work *work = exec_loop_pop(loop);

	if (!work)
		return false;
	atomic_long_dec(&loop->nr_queued);
	exec_run_record_begin(&loop->run_seq, &loop->run_work, work);
	exec_stats_run(&loop->ex, &loop->probe, &loop->stats, work, true);
	exec_run_record_end(&loop->run_seq);
	return true;
}

int exec_loop_run(struct exec_loop *loop)
{
	u64 when[EXEC_CLOCK_COUNT], now[EXEC_CLOCK_COUNT];
	struct exec_frame frame;
	bool watching = false;
	int ret;

	might_sleep();
	if (!loop)
		return -EINVAL;
	/* Submitters would call the waker, not unpark this thread. */
	if (exec_idle_waker(&loop->runner))
		return -EBUSY;
	ret = exec_loop_enter(loop, &frame);
	if (ret)
		return ret;
	while (!exec_loop_exiting(loop)) {
		if (exec_loop_run_one(loop)) {
			if (need_resched())
				cond_resched();
			continue;
		}
		/*
		 * Out of work, the thread also waits for the loop's next
		 * timed event, as an idle pool worker does: what comes due
		 * is queued here, without a wake-up of the clock event
		 * thread and then of this one.
		 */
		watching = exec_timers_watch(&loop->ex, &loop->parker, when,
					     now);
		exec_idle_go(&loop->idle, &loop->runner, watching);
		if (!exec_mpsc_maybe_nonempty(&loop->queue.q) &&
		    !exec_loop_exiting(loop)) {
			if (watching)
				exec_parker_park_until(&loop->parker, when);
			else
				exec_parker_park(&loop->parker);
		}
		exec_loop_sleep_end(loop);
		/* It keeps the watch while it runs what came due. */
		if (watching)
			exec_timers_unwatch(&loop->ex, &loop->parker, true);
	}
	/* Leaving: the clock event device takes the watch back. */
	if (watching)
		exec_timers_unwatch(&loop->ex, &loop->parker, false);
	exec_loop_leave(loop, &frame);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_loop_run);

long exec_loop_run_queued_closures(struct exec_loop *loop)
{
	struct exec_frame frame;
	long nr, done = 0;
	int ret;

	if (!loop)
		return -EINVAL;
	ret = exec_loop_enter(loop, &frame);
	if (ret)
		return ret;
	nr = atomic_long_read(&loop->nr_queued);
	while (done < nr && !exec_loop_exiting(loop) && exec_loop_run_one(loop))
		done++;
	exec_loop_leave(loop, &frame);
	return done;
}
EXPORT_SYMBOL_GPL(exec_loop_run_queued_closures);

/**
 * exec_loop_run_armed - run what is queued, then leave the waker armed
 * @loop: a loop with a waker (exec_loop_attach_waker())
 * @reset: undoes the waker's calls so far (the other loop's readiness),
 *	or NULL
 *
 * Runs the items queued at the time of call, as
 * exec_loop_run_queued_closures() does, then calls @reset, then marks the
 * runner asleep, so that the next submission calls the waker; if items
 * are left (added by those that ran, queued before @reset, or left by an
 * exit request), it calls the waker itself.  While the items run, no
 * submission calls the waker, so @reset after them loses no wake-up,
 * and costs the first item nothing.
 *
 * Context: The thread that drives @loop; never sleeps.
 * Return: the number of items run (>= 0); -EBUSY if a closure-executing
 * function is running.
 */
long exec_loop_run_armed(struct exec_loop *loop, void (*reset)(void *arg))
{
	struct exec_frame frame;
	long nr, done = 0;
	int ret;

	ret = exec_loop_enter(loop, &frame);
	if (ret)
		return ret;
	/*
	 * Off the idle list, where the last call left it (none before the
	 * first): items submitted by those it runs need no wake-up yet.  Only
	 * this thread makes the record AWAKE, so AWAKE read here stays.
	 */
	if (READ_ONCE(loop->runner.state) != EXEC_IDLE_AWAKE)
		exec_loop_sleep_end(loop);
	nr = atomic_long_read(&loop->nr_queued);
	while (done < nr && !exec_loop_exiting(loop) && exec_loop_run_one(loop))
		done++;
	if (reset)
		reset(loop->runner.wake_arg);
	/* Items left: the wake-up it would have had from their submitter. */
	if (!exec_loop_sleep_begin(loop))
		exec_idle_wake(&loop->runner);
	exec_loop_leave(loop, &frame);
	return done;
}

int exec_loop_try_run_one_closure(struct exec_loop *loop)
{
	struct exec_frame frame;
	int ret;

	if (!loop)
		return -EINVAL;
	ret = exec_loop_enter(loop, &frame);
	if (ret)
		return ret;
	ret = exec_loop_run_one(loop);
	exec_loop_leave(loop, &frame);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_loop_try_run_one_closure);

void exec_loop_make_loop_exit(struct exec_loop *loop)
{
	int old;

	if (!loop)
		return;
	old = atomic_read(&loop->state);
	do {
		if (!(old & EXEC_LOOP_RUNNING))
			return;
	} while (!atomic_try_cmpxchg(&loop->state, &old, old | EXEC_LOOP_EXIT));
	/* The cmpxchg orders the bit before this read; see core/idle.h. */
	if (atomic_read(&loop->idle.nr_idle))
		exec_idle_wake_one(&loop->idle, EXEC_IDLE_CLAIMED);
}
EXPORT_SYMBOL_GPL(exec_loop_make_loop_exit);

int exec_loop_create(struct exec_loop **loopp)
{
	struct exec_loop *loop;
	int ret;

	might_sleep();
	if (!loopp)
		return -EINVAL;
	loop = kzalloc(sizeof(*loop), GFP_KERNEL);
	if (!loop)
		return -ENOMEM;
	ret = exec_executor_init(&loop->ex, &exec_loop_ops);
	if (ret)
		goto err_free_loop;
	ret = exec_parker_init(&loop->parker);
	if (ret)
		goto err_fini_executor;
	ret = exec_timers_create(&loop->ex);
	if (ret)
		goto err_destroy_parker;
	exec_mpsc_init(&loop->queue.q);
	exec_idle_init(&loop->idle);
	exec_idle_sleeper_init(&loop->runner, &loop->parker);
	raw_spin_lock_init(&loop->consume_lock);
	loop->stats_file = exec_stats_file_add(&loop->ex, "loop");
	*loopp = loop;
	return 0;

err_destroy_parker:
	exec_parker_destroy(&loop->parker);
err_fini_executor:
	exec_executor_fini(&loop->ex);
err_free_loop:
	kfree(loop);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_loop_create);

struct exec_executor *exec_loop_executor(struct exec_loop *loop)
{
	return loop ? &loop->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_loop_executor);

long exec_loop_destroy(struct exec_loop *loop)
{
	struct exec_work *work;
	long discarded = 0;

	might_sleep();
	if (!loop)
		return -EINVAL;
	if (exec_executor_check_unused(&loop->ex))
		return -EBUSY;
	/* Leaves RUNNING set: the loop is gone for every later caller. */
	if (atomic_cmpxchg(&loop->state, 0, EXEC_LOOP_RUNNING) != 0)
		return -EBUSY;
	exec_stats_file_remove(loop->stats_file);
	/* Armed items are discarded, due ones reach the queue first. */
	discarded = exec_timers_shutdown(&loop->ex);
	while ((work = exec_mpsc_pop_wait(&loop->queue.q)))
		discarded += exec_work_discard(work);
	exec_timers_free(&loop->ex);
	exec_parker_destroy(&loop->parker);
	exec_executor_fini(&loop->ex);
	raw_spin_lock_destroy(&loop->consume_lock);
	exec_idle_fini(&loop->idle);
	if (loop->wake_release)
		loop->wake_release(loop->runner.wake_arg);
	kfree(loop);
	return discarded;
}
EXPORT_SYMBOL_GPL(exec_loop_destroy);

static bool exec_loop_running(const struct exec_executor *ex)
{
	return exec_frame_find(container_of(ex, struct exec_loop, ex));
}

/**
 * exec_loop_stats - a loop executor's statistics
 * @ex: an executor
 * @st: zeroed by the caller; the loop's counts are added
 *
 * A loop refuses nothing and discards only when it is destroyed.
 *
 * Context: Any context.
 * Return: false if @ex is not a loop executor.
 */
bool exec_loop_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_loop *loop;
	long queued;

	if (ex->ops != &exec_loop_ops)
		return false;
	loop = exec_to_loop(ex);
	exec_stats_add_run(st, &loop->stats);
	queued = atomic_long_read(&loop->nr_queued);
	st->submitted = st->started + max(queued, 0L);
	st->wakeups = atomic_long_read(&loop->nr_wakeups);
	return true;
}

/* @ex's statistics file, if it is a loop executor; else NULL. */
void *exec_loop_stats_file(struct exec_executor *ex)
{
	return ex->ops == &exec_loop_ops ? exec_to_loop(ex)->stats_file : NULL;
}

/* Cancel's look: @work in the queue, unlinked under @consume_lock. */
static int exec_loop_take_back(struct exec_executor *ex,
			       struct exec_work *work)
{
	struct exec_loop *loop = exec_to_loop(ex);
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&loop->consume_lock, flags);
	ret = exec_mpsc_unlink(&loop->queue.q, work);
	raw_spin_unlock_irqrestore(&loop->consume_lock, flags);
	if (ret == 1) {
		atomic_long_dec(&loop->nr_queued);
		exec_stats_dropped(&loop->probe, work);
	}
	return ret;
}

static int exec_loop_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_loop_take_back);
}

/* One item runs at a time, on the thread inside a run function. */
static int exec_loop_work_running(struct exec_executor *ex,
				  struct exec_work *work, bool wait)
{
	struct exec_loop *loop = exec_to_loop(ex);

	return exec_run_record_running(&loop->run_seq, &loop->run_work, loop,
				       work, wait);
}

static bool exec_loop_empty(struct exec_executor *ex)
{
	return !exec_mpsc_maybe_nonempty(&exec_to_loop(ex)->queue.q);
}

/*
 * In order, one at a time: a marker behind everything is a flush.  It
 * returns once a thread has run the loop that far.
 */
static int exec_loop_flush(struct exec_executor *ex, bool drain)
{
	return exec_flush_barrier(ex, drain, exec_loop_empty);
}

static const struct exec_executor_ops exec_loop_ops = {
	.kind = "loop",
	.submit = exec_loop_submit,
	.pending = exec_loop_pending,
	.running_in_this_thread = exec_loop_running,
	.cancel = exec_loop_cancel,
	.work_running = exec_loop_work_running,
	.flush = exec_loop_flush,
};

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Statistics of the executors (include/exec/stats.h): the helpers that the
 * executors call on their hot paths, one call per site, all inline.
 *
 * No shared atomic is written per item.  The counts of what runs are kept by
 * whoever runs it (a thread pool's worker, the owner of a serial or loop
 * executor's consumer side) with WRITE_ONCE() and summed by the reader with
 * READ_ONCE(); submissions are counted where the executor already counts
 * them (the pool's @nr_submitted, the queues' @nr_queued); the rare events
 * (refusals, discards, wake-ups of a loop) are counted where they happen,
 * next to costlier work.
 *
 * Timing.  An exec_work has no room for a submission time, so the queue
 * wait is measured on a probe: one item at a time per queue.  A submitter
 * that finds the probe free while timing is on claims it, notes the time
 * and the item, and then publishes the item; the consumer that takes that
 * item out of the queue sees it is the probe's, measures its wait, and
 * frees the probe for a later submission.  Run times are measured around
 * every item while timing is on.  With timing off, the cost per item is a
 * read of the global switch on each side and a read of the probe's item
 * (never written then) by the consumer.
 */
#ifndef EXEC_CORE_STATS_COUNT_H
#define EXEC_CORE_STATS_COUNT_H

#include <exec/stats.h>

#include "internal.h"

/* Read-mostly: written only by exec_stats_set_timing(). */
extern bool exec_stats_timing_on;

/* exec_stats_probe::work while a submitter is filling the probe in. */
#define EXEC_STATS_PROBE_CLAIMED	((struct exec_work *)1UL)

/**
 * struct exec_stats_probe - the one timed item of a queue
 * @work: A: the item being timed; NULL when the probe is free.  Claimed
 *	by a submitter with cmpxchg(), set with release once @since is
 *	written, freed with release by the consumer that takes the item out
 *	of the queue (or discards it)
 * @since: written by the claiming submitter, read by that consumer
 */
struct exec_stats_probe {
	struct exec_work *work;
	u64 since;
};

/**
 * struct exec_stats_run - what one runner (worker, queue owner) has run
 * @started: O: items started, where the executor keeps no count of its own
 * @completed: O: items that returned
 * @max_run_ns: O: the longest run timed
 * @max_wait_ns: O: the longest queue wait of a probe it took
 *
 * O: written only by the runner, with WRITE_ONCE(); read with READ_ONCE().
 * For a queue owned in turns (serial, loop), the hand-over of the consumer
 * side orders one owner's writes before the next owner's.
 */
struct exec_stats_run {
	unsigned long started;
	unsigned long completed;
	u64 max_run_ns;
	u64 max_wait_ns;
};

static inline bool exec_stats_timing_enabled(void)
{
	return READ_ONCE(exec_stats_timing_on);
}

static inline void exec_stats_max(u64 *max, u64 v)
{
	if (v > *max)
		WRITE_ONCE(*max, v);
}

static inline void exec_stats_inc(unsigned long *count)
{
	WRITE_ONCE(*count, *count + 1);
}

/*
 * A submitter, before it publishes @work: time it if timing is on and the
 * probe is free.
 */
static inline void exec_stats_submit(struct exec_stats_probe *probe,
				     struct exec_work *work)
{
	if (likely(!exec_stats_timing_enabled()) || READ_ONCE(probe->work) ||
	    cmpxchg(&probe->work, NULL, EXEC_STATS_PROBE_CLAIMED))
		return;
	probe->since = exec_clock_read(EXEC_CLOCK_MONOTONIC);
	/*
	 * @since before the item: pairs with the acquire in
	 * exec_stats_taken().  The publishing push comes after this.
	 */
	smp_store_release(&probe->work, work);
}

/*
 * The consumer that has taken @work out of the queue (before it runs it):
 * if it is the probe's item, note its wait in @run and free the probe.
 * The pop's acquire ordered the submitter's release of @probe->work
 * before this read.
 */
static inline void exec_stats_taken(struct exec_stats_probe *probe,
				    struct exec_stats_run *run,
				    struct exec_work *work)
{
	if (likely(READ_ONCE(probe->work) != work))
		return;
	/* Pairs with the release in exec_stats_submit(). */
	smp_rmb();
	exec_stats_max(&run->max_wait_ns,
		       exec_clock_read(EXEC_CLOCK_MONOTONIC) - probe->since);
	/* Our read of @since first: pairs with the next claim's cmpxchg. */
	smp_store_release(&probe->work, NULL);
}

/*
 * @work leaves the queue without running (discarded, given back): free
 * the probe if it is @work's.
 */
static inline void exec_stats_dropped(struct exec_stats_probe *probe,
				      struct exec_work *work)
{
	if (unlikely(READ_ONCE(probe->work) == work))
		WRITE_ONCE(probe->work, NULL);
}

/*
 * A runner starts an item.  @count: whether to count it in @run->started
 * (the thread pool counts with its @run_seq instead).  Returns the start
 * time if the run is timed, else 0.
 */
static inline u64 exec_stats_run_begin(struct exec_stats_run *run, bool count)
{
	if (count)
		exec_stats_inc(&run->started);
	if (likely(!exec_stats_timing_enabled()))
		return 0;
	return exec_clock_read(EXEC_CLOCK_MONOTONIC);
}

/* The item begun at @start (exec_stats_run_begin()) has returned. */
static inline void exec_stats_run_end(struct exec_stats_run *run, u64 start,
				      bool count)
{
	if (count)
		exec_stats_inc(&run->completed);
	if (unlikely(start))
		exec_stats_max(&run->max_run_ns,
			       exec_clock_read(EXEC_CLOCK_MONOTONIC) - start);
}

/*
 * The owner of @ex's consumer side runs @work, just taken out of the
 * queue: timed while timing is on, and counted in @run if @count (a serial
 * executor counts a batch at once, exec_stats_ran()).
 */
static inline void exec_stats_run(struct exec_executor *ex,
				  struct exec_stats_probe *probe,
				  struct exec_stats_run *run,
				  struct exec_work *work, bool count)
{
	u64 start;

	exec_stats_taken(probe, run, work);
	start = exec_stats_run_begin(run, count);
	exec_work_run(ex, work);
	exec_stats_run_end(run, start, count);
}

/* The owner of @run has run @n more items (started and completed). */
static inline void exec_stats_ran(struct exec_stats_run *run, long n)
{
	WRITE_ONCE(run->started, run->started + n);
	/* Pairs with the smp_rmb() in exec_stats_add_run(). */
	smp_wmb();
	WRITE_ONCE(run->completed, run->completed + n);
}

/*
 * Adds @run's counts and maxima into @st.  Read apart from each other, the
 * two counts may straddle the end of a batch; @completed first, so that a
 * snapshot never shows more items completed than started.
 */
static inline void exec_stats_add_run(struct exec_stats *st,
				      const struct exec_stats_run *run)
{
	unsigned long completed = READ_ONCE(run->completed);

	/* Pairs with the smp_wmb() in exec_stats_ran(). */
	smp_rmb();
	st->started += READ_ONCE(run->started);
	st->completed += completed;
	st->max_run_ns = max_t(u64, st->max_run_ns, READ_ONCE(run->max_run_ns));
	st->max_wait_ns = max_t(u64, st->max_wait_ns,
				READ_ONCE(run->max_wait_ns));
}

/* A refused submission (@ret, not 0), counted in @refused. */
static inline void exec_stats_refused(atomic_long_t *refused, int ret)
{
	if (ret == -EAGAIN || ret == -ENOSPC || ret == -ESHUTDOWN)
		atomic_long_inc(refused);
}

/*
 * Each executor kind with statistics fills @st for its own executors and
 * returns true, or returns false for an executor of another kind.
 */
bool exec_pool_stats(struct exec_executor *ex, struct exec_stats *st);
bool exec_serial_stats(struct exec_executor *ex, struct exec_stats *st);
bool exec_loop_stats(struct exec_executor *ex, struct exec_stats *st);
bool exec_tpt_stats(struct exec_executor *ex, struct exec_stats *st);
bool exec_priority_stats(struct exec_executor *ex, struct exec_stats *st);
bool exec_ls_stats(struct exec_executor *ex, struct exec_stats *st);
/* core/timer.c: the timed-item counts of @ex's timer target, if any. */
void exec_timers_stats(struct exec_executor *ex, struct exec_stats *st);

/*
 * The statistics files (kernel: debugfs).  exec_stats_show(), the report
 * that a file shows, and the files' creation and removal
 * (exec_stats_file_add(); the userspace backend has none) are
 * core/platform.h's.
 */
void exec_pool_show_workers(struct exec_executor *ex,
			    void (*emit)(void *ctx, const char *line),
			    void *ctx);
/* Each kind with a file: @ex's, or NULL if @ex is of another kind. */
void *exec_pool_stats_file(struct exec_executor *ex);
void *exec_prio_stats_file(struct exec_executor *ex);
void *exec_loop_stats_file(struct exec_executor *ex);
void *exec_ls_stats_file(struct exec_executor *ex);
void *exec_tpt_stats_file(struct exec_executor *ex);
void *exec_stats_test_file(struct exec_executor *ex);

#endif /* EXEC_CORE_STATS_COUNT_H */

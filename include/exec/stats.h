/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Per-executor statistics: how many items were submitted, started,
 * completed, discarded and refused, what happened to timed items, how many
 * wake-ups the executor issued, and the longest queue wait and run time it
 * has seen.  See Documentation/statistics.rst for which executors keep them
 * and what each count means.
 *
 * The counts cost the executors nothing they did not already pay per item:
 * they are kept per worker (or by whoever owns a queue's consumer side) and
 * summed by the reader, or derived from counts the executor keeps anyway.
 * The two times need clock readings, which are taken only while timing is
 * on (exec_stats_set_timing(); off by default in both worlds).
 *
 * A reading is a snapshot taken without stopping the executor: while items
 * are in flight, one count may be a few items ahead of another.  Once the
 * executor is quiet the counts are exact.
 */
#ifndef EXEC_STATS_H
#define EXEC_STATS_H

#include "types.h"

EXEC_BEGIN_DECLS

struct exec_executor;

/**
 * struct exec_stats - statistics of one executor, since its creation
 * @submitted: items accepted for execution (exec_submit() and friends,
 *	and timed items that came due on it)
 * @started: items whose function has been called
 * @completed: items whose function has returned
 * @discarded: items handed to their discard callback instead of running
 *	(shutdown, destroy), armed timed items among them
 * @refused: submissions refused: -EAGAIN or -ENOSPC for lack of room,
 *	-ESHUTDOWN
 * @timers_armed: timed items put on the executor's timer wheel (a periodic
 *	item's re-arming and exec_timer_mod() count again)
 * @timers_fired: timed items that came due
 * @timers_cancelled: timed items taken back by a cancel before they started
 * @wakeups: sleeping threads woken for new items (a serial executor:
 *	times it handed its queue to its underlying executor; a priority
 *	executor or managed queue: runners it submitted there)
 * @max_wait_ns: the longest time a sampled item waited in the queue
 *	before it started; 0 until timing is on (exec_stats_set_timing())
 * @max_run_ns: the longest time an item ran; items are timed only while
 *	timing is on
 * @nr_threads: threads the executor runs items on now (a thread pool's
 *	live workers, a thread-per-task executor's items' threads); 0 for
 *	executors without threads of their own
 */
struct exec_stats {
	uint64_t submitted;
	uint64_t started;
	uint64_t completed;
	uint64_t discarded;
	uint64_t refused;
	uint64_t timers_armed;
	uint64_t timers_fired;
	uint64_t timers_cancelled;
	uint64_t wakeups;
	uint64_t max_wait_ns;
	uint64_t max_run_ns;
	uint32_t nr_threads;
};

/**
 * exec_executor_stats - read an executor's statistics
 * @ex: the executor: a thread pool (fixed or growing), a serial executor,
 *	a loop executor, a thread-per-task executor, a priority executor, a
 *	managed queue or a loop scheduler
 * @st: filled in
 *
 * Reads counters that the executor's threads go on writing: the result is
 * a snapshot, exact once the executor is quiet.  Takes no lock of the
 * executor's.
 *
 * Context: Any context.
 * Return: 0; -EINVAL if @ex or @st is NULL; -EOPNOTSUPP if @ex is of a
 * kind that keeps no statistics (the inline executor, executors written
 * outside the library); @st is then zeroed.
 */
int exec_executor_stats(struct exec_executor *ex, struct exec_stats *st);

/**
 * exec_stats_set_timing - turn the timing of items on or off
 * @on: true to time items from now on
 *
 * While timing is on, every item an executor with statistics runs is timed
 * (two clock readings per item, for @max_run_ns) and one item at a time of
 * each queue is stamped when it is submitted (for @max_wait_ns).  Off by
 * default, as the readings cost as much as a short item's whole hand-off.
 * Applies to every executor.
 *
 * Context: Any context.
 */
void exec_stats_set_timing(bool on);

/**
 * exec_stats_timing - whether items are being timed
 *
 * Context: Any context.
 * Return: the value last set by exec_stats_set_timing(); false at start.
 */
bool exec_stats_timing(void);

EXEC_END_DECLS

#endif /* EXEC_STATS_H */

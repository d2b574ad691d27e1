/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * blocking_mix, written once for both benchmarks (blocking_mix.c): what
 * blocking items cost the other items of an executor of T threads.  One
 * producer submits B blocking items, each sleeping 20 ms as blocking I/O
 * would, then at once N CPU items, each spinning for 20 us.  A pool of
 * exactly T workers runs the CPU items only after its workers are back from
 * the sleeps; an executor that adds threads while its workers block runs
 * them at once.
 *
 *   cpu_done_ms   first submission until the last CPU item has finished
 *   all_done_ms   first submission until every item has finished
 *   ideal_ms      N x 20 us / online CPUs: the CPU items alone, every CPU
 *                 busy with them from the start
 *   threads_max   the peak of the executor's threads, sampled every
 *                 millisecond, and threads_before, their count before the
 *                 first submission
 *
 * Each world keeps only what differs: the executors, the items and their
 * submission, the sleep and the spin (clock_nanosleep() and the thread's
 * CPU time in exec-bench, an hrtimer sleep and local_clock() in
 * exec_kbench.ko), the clock, the sampler and what it counts as the
 * executor's threads, and the signal of the end.
 */
#ifndef EXEC_BENCH_BLOCKING_MIX_H
#define EXEC_BENCH_BLOCKING_MIX_H

#include "bench_common.h"

#define BENCH_BLK_SLEEP_NS	(20 * NSEC_PER_MSEC)
#define BENCH_BLK_SPIN_NS	(20 * NSEC_PER_USEC)
#define BENCH_BLK_SAMPLE_NS	NSEC_PER_MSEC

/**
 * struct bench_blk_item - one task's record, in the world's item
 * @runs: times it ran; must end at 1 (the compiler's atomics, both worlds')
 * @blocking: a blocking task, not a CPU task
 */
struct bench_blk_item {
	unsigned int runs;
	bool blocking;
};

struct bench_blk;

/**
 * struct bench_blk_ops - what a world does for blocking_mix
 * @block: a blocking task's sleep, BENCH_BLK_SLEEP_NS
 * @spin: a CPU task's spin, BENCH_BLK_SPIN_NS
 * @now: the clock of the run's times
 */
struct bench_blk_ops {
	void (*block)(struct bench_blk *bb);
	void (*spin)(struct bench_blk *bb);
	u64 (*now)(void);
};

/**
 * struct bench_blk - one run of blocking_mix
 * @ops: the world's operations
 * @first: task 0's record, inside the world's first item
 * @stride: the size of the world's item
 * @blocking: blocking tasks, submitted first
 * @tasks: CPU tasks
 * @hints: the blocking tasks say so to the executor (exec-bench's --hints)
 * @cpu_left: CPU tasks not yet finished (atomic)
 * @all_left: tasks not yet finished (atomic)
 * @t0: the first submission
 * @cpu_done_ns: when the last CPU task finished
 * @all_done_ns: when the last task finished
 * @cpus: online CPUs, for ideal_ms
 * @threads_max: the peak of the executor's threads
 * @threads_before: the executor's threads before the first submission
 */
struct bench_blk {
	const struct bench_blk_ops *ops;
	struct bench_blk_item *first;
	size_t stride;
	unsigned long blocking;
	unsigned long tasks;
	bool hints;
	unsigned long cpu_left;
	unsigned long all_left;
	u64 t0;
	u64 cpu_done_ns;
	u64 all_done_ns;
	unsigned int cpus;
	unsigned int threads_max;
	unsigned int threads_before;
};

static inline struct bench_blk_item *
bench_blk_item(const struct bench_blk *bb, unsigned long k)
{
	return (struct bench_blk_item *)((char *)bb->first + bb->stride * k);
}

void bench_blk_init(struct bench_blk *bb, const struct bench_blk_ops *ops,
		    struct bench_blk_item *first, size_t stride,
		    unsigned long blocking, unsigned long tasks);
bool bench_blk_run(struct bench_blk *bb, struct bench_blk_item *it);
int bench_blk_verify(const struct bench_blk *bb);
void bench_blk_line(const struct bench_blk *bb, struct bench_line *line);

#endif /* EXEC_BENCH_BLOCKING_MIX_H */

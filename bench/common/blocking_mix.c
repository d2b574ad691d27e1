// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * blocking_mix's body, for exec-bench and exec_kbench.ko alike
 * (blocking_mix.h): the tasks' kinds and their order, the task's body
 * around the world's sleep and spin, the verification and the output
 * line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/time64.h>
#else
#include <exec_platform.h>
#endif

#include "blocking_mix.h"

/**
 * bench_blk_init - start a run: the tasks, the blocking ones first
 * @bb: the run
 * @ops: the world's operations
 * @first: task 0's record
 * @stride: the size of the world's item
 * @blocking: blocking tasks
 * @tasks: CPU tasks
 *
 * The world sets @bb->hints, and after the run @bb->t0, @bb->cpus and the
 * thread counts.
 *
 * Context: Process context.
 */
void bench_blk_init(struct bench_blk *bb, const struct bench_blk_ops *ops,
		    struct bench_blk_item *first, size_t stride,
		    unsigned long blocking, unsigned long tasks)
{
	unsigned long k, total = blocking + tasks;

	bb->ops = ops;
	bb->first = first;
	bb->stride = stride;
	bb->blocking = blocking;
	bb->tasks = tasks;
	bb->hints = false;
	bb->cpu_left = tasks;
	bb->all_left = total;
	bb->t0 = 0;
	bb->cpu_done_ns = 0;
	bb->all_done_ns = 0;
	bb->cpus = 1;
	bb->threads_max = 0;
	bb->threads_before = 0;
	for (k = 0; k < total; k++) {
		bench_blk_item(bb, k)->runs = 0;
		bench_blk_item(bb, k)->blocking = k < blocking;
	}
}

/**
 * bench_blk_run - what a task does
 * @bb: the run
 * @it: the task's record
 *
 * Context: The task's: process context, may sleep.
 * Return: true for the last task: the caller signals the end.
 */
bool bench_blk_run(struct bench_blk *bb, struct bench_blk_item *it)
{
	__atomic_add_fetch(&it->runs, 1, __ATOMIC_RELAXED);
	if (it->blocking) {
		bb->ops->block(bb);
	} else {
		bb->ops->spin(bb);
		if (!__atomic_sub_fetch(&bb->cpu_left, 1, __ATOMIC_ACQ_REL))
			bb->cpu_done_ns = bb->ops->now();
	}
	if (__atomic_sub_fetch(&bb->all_left, 1, __ATOMIC_ACQ_REL))
		return false;
	bb->all_done_ns = bb->ops->now();
	return true;
}

/**
 * bench_blk_verify - check that every task ran exactly once
 * @bb: the run, its executor drained
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail().
 */
int bench_blk_verify(const struct bench_blk *bb)
{
	unsigned long total = bb->blocking + bb->tasks, k, bad = 0;

	for (k = 0; k < total; k++)
		bad += __atomic_load_n(&bench_blk_item(bb, k)->runs,
				       __ATOMIC_RELAXED) != 1;
	if (bad) {
		bench_fail("blocking_mix", "%lu of %lu tasks did not run exactly once",
			   bad, total);
		return -1;
	}
	return 0;
}

/**
 * bench_blk_line - the run's figures on its output line
 * @bb: the run, verified
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_blk_line(const struct bench_blk *bb, struct bench_line *line)
{
	bench_line_uint(line, "blocking", bb->blocking);
	bench_line_uint(line, "tasks", bb->tasks);
	if (bb->hints)
		bench_line_bool(line, "hints", true);
	bench_line_seconds(line, bb->all_done_ns - bb->t0);
	bench_line_ms(line, "cpu_done_ms", bb->cpu_done_ns - bb->t0);
	bench_line_ms(line, "all_done_ms", bb->all_done_ns - bb->t0);
	bench_line_ms(line, "ideal_ms",
		      div_u64((u64)bb->tasks * BENCH_BLK_SPIN_NS, bb->cpus));
	bench_line_uint(line, "threads_max", bb->threads_max);
	bench_line_uint(line, "threads_before", bb->threads_before);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * strand_churn's body, for exec-bench and exec_kbench.ko alike
 * (strand_churn.h): the task's record, the verification and the output
 * line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#else
#include <exec_platform.h>
#endif

#include "strand_churn.h"

void bench_churn_init(struct bench_churn *c, unsigned int *first,
		      size_t stride, unsigned int nr)
{
	c->first = first;
	c->stride = stride;
	c->nr = nr;
	c->left = nr;
	c->create_ns = 0;
	c->run_start = 0;
	c->run_end = 0;
	c->destroy_ns = 0;
	c->grown_bytes = 0;
}

static unsigned int *bench_churn_runs(const struct bench_churn *c,
				      unsigned int i)
{
	return (unsigned int *)((char *)c->first + c->stride * i);
}

/**
 * bench_churn_ran - what a strand's task does
 * @c: the run
 * @runs: the task's count of runs
 *
 * Context: The task's.
 * Return: true for the last task: the caller reads the clock into
 * @c->run_end and signals the end.
 */
bool bench_churn_ran(struct bench_churn *c, unsigned int *runs)
{
	__atomic_add_fetch(runs, 1, __ATOMIC_RELAXED);
	return !__atomic_sub_fetch(&c->left, 1, __ATOMIC_ACQ_REL);
}

/**
 * bench_churn_verify - check that every strand's task ran exactly once
 * @c: the run, its strands destroyed
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail().
 */
int bench_churn_verify(const struct bench_churn *c)
{
	unsigned int i, runs;

	for (i = 0; i < c->nr; i++) {
		runs = __atomic_load_n(bench_churn_runs(c, i),
				       __ATOMIC_RELAXED);
		if (runs != 1) {
			bench_fail("strand_churn", "strand %u's task ran %u times",
				   i, runs);
			return -1;
		}
	}
	return 0;
}

/**
 * bench_churn_line - the run's figures on its output line
 * @c: the run, verified
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_churn_line(const struct bench_churn *c, struct bench_line *line)
{
	u64 run_ns = c->run_end - c->run_start;
	unsigned int n = c->nr;

	bench_line_uint(line, "strands", n);
	bench_line_seconds(line, c->create_ns + run_ns + c->destroy_ns);
	bench_line_uint(line, "create_ns", div_u64(c->create_ns + n / 2, n));
	bench_line_uint(line, "destroy_ns", div_u64(c->destroy_ns + n / 2, n));
	bench_line_int(line, "bytes_per_strand", div_s64(c->grown_bytes, (s32)n));
	bench_line_uint(line, "ops_per_s", bench_rate(n, run_ns));
}

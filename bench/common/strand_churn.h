/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * strand_churn, written once for both benchmarks (strand_churn.c): S
 * strands over one pool are created ("create_ns" a create), each gets one
 * task ("ops_per_s" from the first submission to the last task's end), and,
 * every task having run, each is destroyed ("destroy_ns"), as a server does
 * with a strand per connection.  "bytes_per_strand" is the growth of the
 * memory that holds them while all are alive, over S.
 *
 * Each world keeps only what differs: the strands (libexec's serial
 * executors in both; ordered workqueues in exec_kbench.ko) and their
 * creation, submission and destruction, the clock, and what it counts as
 * the memory (the resident set in exec-bench, the slab caches' pages in
 * exec_kbench.ko).
 */
#ifndef EXEC_BENCH_STRAND_CHURN_H
#define EXEC_BENCH_STRAND_CHURN_H

#include "bench_common.h"

/**
 * struct bench_churn - one run of strand_churn
 * @first: strand 0's count of runs of its task, inside the world's strand
 * @stride: the size of the world's strand
 * @nr: strands
 * @left: tasks yet to run (the compiler's atomics, both worlds')
 * @create_ns: time of all the creates
 * @run_start: when the first task was submitted
 * @run_end: when the last task ran
 * @destroy_ns: time of all the destroys
 * @grown_bytes: the growth of the memory with all strands alive
 */
struct bench_churn {
	unsigned int *first;
	size_t stride;
	unsigned int nr;
	unsigned int left;
	u64 create_ns;
	u64 run_start;
	u64 run_end;
	u64 destroy_ns;
	long long grown_bytes;
};

void bench_churn_init(struct bench_churn *c, unsigned int *first,
		      size_t stride, unsigned int nr);
bool bench_churn_ran(struct bench_churn *c, unsigned int *runs);
int bench_churn_verify(const struct bench_churn *c);
void bench_churn_line(const struct bench_churn *c, struct bench_line *line);

#endif /* EXEC_BENCH_STRAND_CHURN_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * post_throughput, written once for both benchmarks (post_throughput.c): P
 * producers together submit N tasks to one executor of T workers; each
 * task adds 1 to a counter private to the worker (exec-bench) or the CPU
 * (exec_kbench.ko) running it; from the earliest first submission until
 * the executor's destruction has returned, which waits for every task; the
 * counters must sum to N.
 *
 * Each world keeps only what differs: the producer threads and their
 * submission loop, the items and the counters, and the clock.
 */
#ifndef EXEC_BENCH_POST_THROUGHPUT_H
#define EXEC_BENCH_POST_THROUGHPUT_H

#include "bench_common.h"

/**
 * struct bench_post_producer - one producer's share, in the world's
 * @first: the first task it submits
 * @end: one past its last task
 * @start_ns: when it submitted its first task
 * @err: the error that stopped it, or 0
 */
struct bench_post_producer {
	unsigned long first;
	unsigned long end;
	u64 start_ns;
	int err;
};

/**
 * struct bench_post - one run of post_throughput
 * @total: tasks
 * @producers: producers
 * @t0: the earliest first submission
 * @t1: when the executor's destruction returned
 */
struct bench_post {
	unsigned long total;
	unsigned int producers;
	u64 t0;
	u64 t1;
};

void bench_post_init(struct bench_post *r, unsigned long total,
		     unsigned int producers);
void bench_post_share(const struct bench_post *r, unsigned int t,
		      struct bench_post_producer *p);
int bench_post_done(struct bench_post *r,
		    const struct bench_post_producer *p, unsigned int t);
int bench_post_verify(const struct bench_post *r, unsigned long sum);
void bench_post_line(const struct bench_post *r, struct bench_line *line);

#endif /* EXEC_BENCH_POST_THROUGHPUT_H */

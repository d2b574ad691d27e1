/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * chain_latency, written once for both benchmarks (chain_latency.c): one
 * task in flight at a time; each task submits its successor to the same
 * executor, M hops in all.  The successor is the same intrusive item
 * submitted again, which the item's life cycle allows (its pending bit is
 * clear while its function runs) and which keeps every hop's cost the
 * executor's own.
 *
 * Each world keeps only what differs: the item, its submission (and
 * exec-bench's closures and reference pool), the clock read at the last
 * hop and the signal of the end.
 */
#ifndef EXEC_BENCH_CHAIN_LATENCY_H
#define EXEC_BENCH_CHAIN_LATENCY_H

#include "bench_common.h"

/**
 * struct bench_chain - one run of chain_latency
 * @hops: hops run
 * @total: hops to run
 * @err: the error of the submission that broke the chain, or 0
 * @t0: when the first hop was submitted
 * @t1: when the last hop ran
 *
 * @hops is plain: each hop's update happens before it submits the next
 * hop, which the executor orders before that hop starts.
 */
struct bench_chain {
	unsigned long hops;
	unsigned long total;
	int err;
	u64 t0;
	u64 t1;
};

/**
 * bench_chain_hop - count a hop, first thing in the task
 * @c: the run
 *
 * Context: The task's.
 * Return: true for the last hop: the caller reads the clock into @c->t1
 * and signals the end; false: the caller submits the next hop.
 */
static inline bool bench_chain_hop(struct bench_chain *c)
{
	return ++c->hops == c->total;
}

void bench_chain_init(struct bench_chain *c, unsigned long total);
int bench_chain_verify(const struct bench_chain *c);
void bench_chain_line(const struct bench_chain *c, struct bench_line *line);

#endif /* EXEC_BENCH_CHAIN_LATENCY_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chain_latency's body, for exec-bench and exec_kbench.ko alike
 * (chain_latency.h): the run's state, its verification and the output
 * line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#else
#include <exec_platform.h>
#endif

#include "chain_latency.h"

void bench_chain_init(struct bench_chain *c, unsigned long total)
{
	c->hops = 0;
	c->total = total;
	c->err = 0;
	c->t0 = 0;
	c->t1 = 0;
}

/**
 * bench_chain_verify - check a finished run
 * @c: the run, its executor destroyed (which waits for any hop that
 *	should not exist: count after)
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail() when the chain broke or ran a hop
 * too many or too few.
 */
int bench_chain_verify(const struct bench_chain *c)
{
	if (c->err) {
		bench_fail("chain_latency", "hop %lu: error %d", c->hops + 1,
			   c->err);
		return -1;
	}
	if (c->hops != c->total) {
		bench_fail("chain_latency", "%lu hops ran, %lu expected",
			   c->hops, c->total);
		return -1;
	}
	return 0;
}

/**
 * bench_chain_line - the run's figures on its output line
 * @c: the run, verified
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_chain_line(const struct bench_chain *c, struct bench_line *line)
{
	u64 ns = c->t1 - c->t0;

	bench_line_uint(line, "tasks", c->total);
	bench_line_seconds(line, ns);
	bench_line_uint(line, "ns_per_hop", div64_u64(ns + c->total / 2,
						      c->total));
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * post_throughput's body, for exec-bench and exec_kbench.ko alike
 * (post_throughput.h): the producers' shares, the start of the clock, the
 * verification and the output line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#else
#include <exec_platform.h>
#endif

#include "post_throughput.h"

void bench_post_init(struct bench_post *r, unsigned long total,
		     unsigned int producers)
{
	r->total = total;
	r->producers = producers;
	r->t0 = U64_MAX;
	r->t1 = 0;
}

/* Producer @t's share of the tasks: as even as can be, in one piece. */
void bench_post_share(const struct bench_post *r, unsigned int t,
		      struct bench_post_producer *p)
{
	unsigned long n = r->total, nr = r->producers;

	p->first = n / nr * t + min_t(unsigned long, t, n % nr);
	p->end = p->first + n / nr + (t < n % nr ? 1 : 0);
	p->start_ns = U64_MAX;
	p->err = 0;
}

/**
 * bench_post_done - take in a producer that has submitted its share
 * @r: the run
 * @p: the producer, its thread finished
 * @t: its number
 *
 * The clock starts at the earliest of the producers' first submissions.
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail() when its submission failed.
 */
int bench_post_done(struct bench_post *r,
		    const struct bench_post_producer *p, unsigned int t)
{
	r->t0 = min(r->t0, p->start_ns);
	if (p->err) {
		bench_fail("post_throughput", "producer %u: submission failed: %d",
			   t, p->err);
		return -1;
	}
	return 0;
}

/**
 * bench_post_verify - check a finished run
 * @r: the run
 * @sum: the counters' sum, read once the executor is destroyed
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail() when a task did not run once.
 */
int bench_post_verify(const struct bench_post *r, unsigned long sum)
{
	if (sum != r->total) {
		bench_fail("post_throughput", "%lu tasks ran, %lu submitted",
			   sum, r->total);
		return -1;
	}
	return 0;
}

/**
 * bench_post_line - the run's figures on its output line
 * @r: the run, verified
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_post_line(const struct bench_post *r, struct bench_line *line)
{
	bench_line_uint(line, "producers", r->producers);
	bench_line_uint(line, "tasks", r->total);
	bench_line_seconds(line, r->t1 - r->t0);
	bench_line_uint(line, "ops_per_s", bench_rate(r->total, r->t1 - r->t0));
}

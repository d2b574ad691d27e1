// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * serial_throughput's body, for exec-bench and exec_kbench.ko alike
 * (serial_throughput.h): the strands' shares, the verification and the
 * output line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#else
#include <exec_platform.h>
#endif

#include "serial_throughput.h"

/**
 * bench_ser_init - start a run: each strand's share
 * @r: the run
 * @first: strand 0's check, zeroed, inside the world's first strand
 * @stride: the size of the world's strand
 * @nr: strands
 * @total: tasks
 *
 * Context: Process context.
 */
void bench_ser_init(struct bench_ser *r, struct bench_ser_strand *first,
		    size_t stride, unsigned int nr, unsigned long total)
{
	struct bench_ser_strand *s;
	unsigned int k;

	r->first = first;
	r->stride = stride;
	r->nr = nr;
	r->total = total;
	r->left = 0;
	r->t0 = 0;
	r->t1 = 0;
	for (k = 0; k < nr; k++) {
		s = bench_ser_strand(r, k);
		s->total = total / nr + (k < total % nr ? 1 : 0);
		if (s->total)
			r->left++;
	}
}

/**
 * bench_ser_verify - check that every strand ran all its tasks
 * @r: the run, finished
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail() for each strand that did not.
 */
int bench_ser_verify(const struct bench_ser *r)
{
	struct bench_ser_strand *s;
	unsigned int k;
	int ret = 0;

	for (k = 0; k < r->nr; k++) {
		s = bench_ser_strand(r, k);
		if (s->ran != s->total || s->next != s->total) {
			bench_fail("serial_throughput", "strand %u ran %lu of %lu tasks, last number %lu",
				   k, s->ran, s->total, s->next);
			ret = -1;
		}
	}
	return ret;
}

/**
 * bench_ser_line - the run's figures on its output line
 * @r: the run, finished
 * @line: the line, begun by the world
 * @verified: bench_ser_verify() found every strand complete
 *
 * The line is written even with order violations, since it reports them.
 *
 * Context: Process context.
 * Return: 0, or -1 when tasks ran out of order (after bench_fail() if
 * @verified: one failure a run).
 */
int bench_ser_line(const struct bench_ser *r, struct bench_line *line,
		   bool verified)
{
	unsigned long violations = 0;
	unsigned int k;

	for (k = 0; k < r->nr; k++)
		violations += bench_ser_strand(r, k)->violations;
	bench_line_uint(line, "strands", r->nr);
	bench_line_uint(line, "tasks", r->total);
	bench_line_seconds(line, r->t1 - r->t0);
	bench_line_uint(line, "ops_per_s", bench_rate(r->total, r->t1 - r->t0));
	bench_line_uint(line, "order_violations", violations);
	if (!violations)
		return 0;
	if (verified)
		bench_fail("serial_throughput", "%lu tasks ran out of order",
			   violations);
	return -1;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * serial_throughput, written once for both benchmarks
 * (serial_throughput.c): S strands (serial executors over one pool, or
 * ordered workqueues in exec_kbench.ko); one producer submits N tasks
 * round robin over them.  Task i belongs to strand i % S and is number
 * i / S in its order, so an item carries nothing but its work item; each
 * task checks that it is the next of its strand.
 *
 * Each world keeps only what differs: the strands and the pool, the items
 * and their submission, the clock and the signal of the end.
 */
#ifndef EXEC_BENCH_SERIAL_THROUGHPUT_H
#define EXEC_BENCH_SERIAL_THROUGHPUT_H

#include "bench_common.h"

/**
 * struct bench_ser_strand - one strand's order check, in the world's strand
 * @next: the number of the task that must run next
 * @ran: tasks run
 * @total: tasks submitted to it
 * @violations: tasks that ran out of order
 *
 * Plain: the strand orders each task's completion before the next one's
 * start, which is what is tested.
 */
struct bench_ser_strand {
	unsigned long next;
	unsigned long ran;
	unsigned long total;
	unsigned long violations;
};

/**
 * struct bench_ser - one run of serial_throughput
 * @first: strand 0's check, inside the world's first strand
 * @stride: the size of the world's strand
 * @nr: strands
 * @total: tasks
 * @left: strands yet to finish (the compiler's atomics, both worlds')
 * @t0: when the first task was submitted
 * @t1: when the last strand finished
 */
struct bench_ser {
	struct bench_ser_strand *first;
	size_t stride;
	unsigned int nr;
	unsigned long total;
	unsigned int left;
	u64 t0;
	u64 t1;
};

static inline struct bench_ser_strand *
bench_ser_strand(const struct bench_ser *r, unsigned int s)
{
	return (struct bench_ser_strand *)((char *)r->first + r->stride * s);
}

/**
 * bench_ser_ran - what task @i does
 * @r: the run
 * @i: the task's number
 *
 * Inline: it is the whole of every task, which the figure times.
 *
 * Context: The task's.
 * Return: true when the last strand has finished: the caller reads the
 * clock into @r->t1 and signals the end.
 */
static inline bool bench_ser_ran(struct bench_ser *r, unsigned long i)
{
	struct bench_ser_strand *s = bench_ser_strand(r, i % r->nr);
	unsigned long seq = i / r->nr;

	if (seq != s->next)
		s->violations++;
	s->next = seq + 1;
	if (++s->ran != s->total)
		return false;
	/* This strand is done; the last strand to finish ends the clock. */
	return !__atomic_sub_fetch(&r->left, 1, __ATOMIC_ACQ_REL);
}

void bench_ser_init(struct bench_ser *r, struct bench_ser_strand *first,
		    size_t stride, unsigned int nr, unsigned long total);
int bench_ser_verify(const struct bench_ser *r);
int bench_ser_line(const struct bench_ser *r, struct bench_line *line,
		   bool verified);

#endif /* EXEC_BENCH_SERIAL_THROUGHPUT_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * timer_lateness, written once for both benchmarks (timer_lateness.c): K
 * timers armed up front with deadlines uniformly random over 1-50 ms from
 * one start time read just before the first arm, so that slow arming shows
 * up as lateness; each records when its function started.  The lateness is
 * that time less the deadline: the timer's resolution, the wake-up of the
 * thread that notices the deadline and the hand-over of the item to a
 * worker.  None may run early, none more than once.
 *
 * Each world keeps only what differs: the timed items (libexec's
 * exec_submit_at() in both; an io_uring timeout in exec-bench, hrtimers and
 * delayed work in exec_kbench.ko) and how they are armed, the clock of the
 * deadlines (CLOCK_MONOTONIC in both) and the signal that the last timer
 * has run.
 */
#ifndef EXEC_BENCH_TIMER_LATENESS_H
#define EXEC_BENCH_TIMER_LATENESS_H

#include "bench_common.h"

/**
 * struct bench_late_sample - one timer's record, in the world's item
 * @deadline: the offset of its deadline from the start time until it is
 *	armed, then the deadline
 * @ran_ns: when its function started
 * @runs: how many times its function ran (atomic: an item run twice might
 *	run on two workers at once)
 */
struct bench_late_sample {
	u64 deadline;
	u64 ran_ns;
	unsigned int runs;
};

struct bench_late;

/**
 * struct bench_late_ops - what a world does for timer_lateness
 * @arm: arm timer @k for its sample's deadline; 0 or a negative errno
 */
struct bench_late_ops {
	int (*arm)(struct bench_late *l, unsigned long k);
};

/**
 * struct bench_late - one run of timer_lateness
 * @ops: the world's operations
 * @first: timer 0's sample, inside the world's first item
 * @stride: the size of the world's item
 * @total: timers
 * @ran: timers whose function has run (atomic)
 * @t0: the start time
 * @last: when the last timer ran, once verified
 */
struct bench_late {
	const struct bench_late_ops *ops;
	struct bench_late_sample *first;
	size_t stride;
	unsigned long total;
	long ran;
	u64 t0;
	u64 last;
};

static inline struct bench_late_sample *
bench_late_sample(const struct bench_late *l, unsigned long k)
{
	return (struct bench_late_sample *)((char *)l->first + l->stride * k);
}

void bench_late_init(struct bench_late *l, const struct bench_late_ops *ops,
		     struct bench_late_sample *first, size_t stride,
		     unsigned long total);
bool bench_late_ran(struct bench_late *l, struct bench_late_sample *s,
		    u64 now);
int bench_late_arm_all(struct bench_late *l, u64 t0, unsigned long *armed);
int bench_late_latencies(struct bench_late *l, u64 *lat);
void bench_late_line(const struct bench_late *l, u64 *lat,
		     struct bench_line *line);

#endif /* EXEC_BENCH_TIMER_LATENESS_H */

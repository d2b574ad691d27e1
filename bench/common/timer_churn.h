/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * timer_churn, written once for both benchmarks (timer_churn.c): N timers
 * armed with deadlines spread evenly over 1-60 s from the start time, in
 * random order, then all cancelled, in the order they were armed, long
 * before the first deadline: the cost of timeouts that almost never fire (a
 * server's request and idle timeouts).  "arm_ns" and "cancel_ns" are the
 * mean time of one arm and one cancel; every cancel must take back a
 * pending timer, and no timer may run.
 *
 * Each world keeps only what differs: the timers (libexec's struct
 * exec_timer in both; hrtimers and delayed work in exec_kbench.ko), their
 * arming and cancelling, the clock, and what it says of their memory (the
 * growth of the resident set and the item's size in exec-bench, the item's
 * size in exec_kbench.ko).
 */
#ifndef EXEC_BENCH_TIMER_CHURN_H
#define EXEC_BENCH_TIMER_CHURN_H

#include "bench_common.h"

/**
 * struct bench_tchurn - one run of timer_churn
 * @offset: per timer, in the order armed, its deadline's offset from @t0 in
 *	nanoseconds (the world may convert it to its timers' unit)
 * @n: timers
 * @ran: timers whose function ran (the compiler's atomics, both worlds')
 * @t0: when the arming began
 * @t1: when the arming ended
 * @t2: when the cancelling ended
 * @armed: timers armed (@n unless an arm failed)
 * @cancelled: cancels that took back a pending timer
 */
struct bench_tchurn {
	u64 *offset;
	unsigned long n;
	unsigned long ran;
	u64 t0;
	u64 t1;
	u64 t2;
	unsigned long armed;
	unsigned long cancelled;
};

void bench_tchurn_init(struct bench_tchurn *c, u64 *offset, unsigned long n);
void bench_tchurn_ran(struct bench_tchurn *c);
int bench_tchurn_verify(const struct bench_tchurn *c);
void bench_tchurn_line(const struct bench_tchurn *c, struct bench_line *line);

#endif /* EXEC_BENCH_TIMER_CHURN_H */

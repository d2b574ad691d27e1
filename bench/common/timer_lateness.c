// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * timer_lateness's body, for exec-bench and exec_kbench.ko alike
 * (timer_lateness.h): the deadlines, the arming from one start time, the
 * timer's record, the verification and the output line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/time64.h>
#else
#include <exec_platform.h>
#endif

#include "timer_lateness.h"

#define BENCH_LATE_MIN_NS	(1 * NSEC_PER_MSEC)
#define BENCH_LATE_MAX_NS	(50 * NSEC_PER_MSEC)

/*
 * @ran and the samples' @runs are counted with the compiler's atomics,
 * which both worlds have, so that the header needs neither's atomic_t.
 */

/**
 * bench_late_init - start a run: the deadlines' offsets
 * @l: the run
 * @ops: the world's operations
 * @first: timer 0's sample
 * @stride: the size of the world's item
 * @total: timers
 *
 * The random offsets are drawn here, before the clock starts, from
 * BENCH_TIMER_SEED: every run arms the same pattern.
 *
 * Context: Process context.
 */
void bench_late_init(struct bench_late *l, const struct bench_late_ops *ops,
		     struct bench_late_sample *first, size_t stride,
		     unsigned long total)
{
	u64 rng = BENCH_TIMER_SEED;
	unsigned long k;

	l->ops = ops;
	l->first = first;
	l->stride = stride;
	l->total = total;
	l->ran = 0;
	l->t0 = 0;
	l->last = 0;
	for (k = 0; k < total; k++)
		bench_late_sample(l, k)->deadline = BENCH_LATE_MIN_NS +
			bench_rand_below(&rng, BENCH_LATE_MAX_NS -
					 BENCH_LATE_MIN_NS + 1);
}

/**
 * bench_late_ran - what a timer's function does
 * @l: the run
 * @s: the timer's sample
 * @now: the time it started, on the deadlines' clock
 *
 * Context: The timer's; any context.
 * Return: true for the last timer of the run: the caller signals the end.
 */
bool bench_late_ran(struct bench_late *l, struct bench_late_sample *s,
		    u64 now)
{
	s->ran_ns = now;
	__atomic_add_fetch(&s->runs, 1, __ATOMIC_RELAXED);
	return __atomic_add_fetch(&l->ran, 1, __ATOMIC_ACQ_REL) ==
	       (long)l->total;
}

/**
 * bench_late_arm_all - arm every timer, deadlines from @t0
 * @l: the run
 * @t0: the start time, read just before
 * @armed: set to the timers armed
 *
 * Context: Process context.
 * Return: 0, or the negative errno of the arm that failed (the timers
 * armed before it may still run).
 */
int bench_late_arm_all(struct bench_late *l, u64 t0, unsigned long *armed)
{
	unsigned long k;
	int err = 0;

	l->t0 = t0;
	for (k = 0; k < l->total; k++) {
		bench_late_sample(l, k)->deadline += t0;
		err = l->ops->arm(l, k);
		if (err)
			break;
	}
	*armed = k;
	return err;
}

/**
 * bench_late_latencies - verify a finished run and take its lateness
 * @l: the run, every timer of which has returned
 * @lat: filled with each timer's lateness, in the order armed
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail() when a timer did not run exactly
 * once or ran before its deadline.
 */
int bench_late_latencies(struct bench_late *l, u64 *lat)
{
	static const char bench[] = "timer_lateness";
	unsigned long n = l->total, k, bad = 0, early = 0;
	struct bench_late_sample *s;
	u64 last = 0;

	for (k = 0; k < n; k++) {
		s = bench_late_sample(l, k);
		if (s->runs != 1) {
			if (!bad)
				bench_fail(bench, "timer %lu ran %u times", k,
					   s->runs);
			bad++;
			continue;
		}
		if (s->ran_ns < s->deadline) {
			if (!early)
				bench_fail(bench, "timer %lu ran %llu ns before its deadline",
					   k, (unsigned long long)
					   (s->deadline - s->ran_ns));
			early++;
			continue;
		}
		lat[k] = s->ran_ns - s->deadline;
		last = max(last, s->ran_ns);
	}
	if (bad || early) {
		bench_fail(bench, "of %lu timers, %lu did not run exactly once and %lu ran early",
			   n, bad, early);
		return -1;
	}
	l->last = last;
	return 0;
}

/**
 * bench_late_line - the run's figures on its output line
 * @l: the run, verified
 * @lat: its lateness, sorted here
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_late_line(const struct bench_late *l, u64 *lat,
		     struct bench_line *line)
{
	unsigned long n = l->total;

	bench_sort_u64(lat, n);
	bench_line_uint(line, "samples", n);
	bench_line_seconds(line, l->last - l->t0);
	bench_line_uint(line, "p50_ns", bench_percentile(lat, n, 50000));
	bench_line_uint(line, "p99_ns", bench_percentile(lat, n, 99000));
	bench_line_uint(line, "max_ns", lat[n - 1]);
}

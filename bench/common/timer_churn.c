// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * timer_churn's body, for exec-bench and exec_kbench.ko alike
 * (timer_churn.h): the deadlines, the timer's record, the verification and
 * the output line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/time64.h>
#else
#include <exec_platform.h>
#endif

#include "timer_churn.h"

#define BENCH_TCHURN_MIN_NS	(1 * NSEC_PER_SEC)
#define BENCH_TCHURN_MAX_NS	(60 * NSEC_PER_SEC)

/* @span * @i / @d, rounded down, without overflow for @i <= @d < 2^32. */
static u64 bench_tchurn_scale(u64 span, u64 i, u64 d)
{
	u64 q = div64_u64(span, d);

	return q * i + div64_u64((span - q * d) * i, d);
}

/**
 * bench_tchurn_init - start a run: the deadlines' offsets
 * @c: the run
 * @offset: room for @n offsets, the world's
 * @n: timers
 *
 * The offsets are spread evenly over the range, then shuffled
 * (Fisher-Yates) with BENCH_TIMER_SEED's generator, before the clock
 * starts: every run, in either world, arms the same pattern.
 *
 * Context: Process context.
 */
void bench_tchurn_init(struct bench_tchurn *c, u64 *offset, unsigned long n)
{
	u64 rng = BENCH_TIMER_SEED, tmp;
	unsigned long i, j;

	c->offset = offset;
	c->n = n;
	c->ran = 0;
	c->t0 = 0;
	c->t1 = 0;
	c->t2 = 0;
	c->armed = 0;
	c->cancelled = 0;
	for (i = 0; i < n; i++)
		offset[i] = BENCH_TCHURN_MIN_NS + (n > 1 ?
			    bench_tchurn_scale(BENCH_TCHURN_MAX_NS -
					       BENCH_TCHURN_MIN_NS, i, n - 1) :
			    0);
	for (i = n; i > 1; i--) {
		j = bench_rand_below(&rng, i);
		tmp = offset[i - 1];
		offset[i - 1] = offset[j];
		offset[j] = tmp;
	}
}

/**
 * bench_tchurn_ran - what a timer's function does; none should run
 * @c: the run
 *
 * Context: The timer's; any context.
 */
void bench_tchurn_ran(struct bench_tchurn *c)
{
	__atomic_add_fetch(&c->ran, 1, __ATOMIC_RELAXED);
}

/**
 * bench_tchurn_verify - check that every timer was cancelled before its
 * deadline and that none ran
 * @c: the run, its timers quiesced (after the world's join or sync cancel)
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail().
 */
int bench_tchurn_verify(const struct bench_tchurn *c)
{
	unsigned long ran = __atomic_load_n(&c->ran, __ATOMIC_RELAXED);

	if (c->cancelled != c->n || ran) {
		bench_fail("timer_churn", "of %lu timers, %lu were cancelled before their deadline and %lu ran",
			   c->n, c->cancelled, ran);
		return -1;
	}
	return 0;
}

/**
 * bench_tchurn_line - the run's figures on its output line
 * @c: the run, verified
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_tchurn_line(const struct bench_tchurn *c, struct bench_line *line)
{
	unsigned long n = c->n;

	bench_line_uint(line, "tasks", n);
	bench_line_seconds(line, c->t2 - c->t0);
	bench_line_uint(line, "arm_ns", div64_u64(c->t1 - c->t0 + n / 2, n));
	bench_line_uint(line, "cancel_ns", div64_u64(c->t2 - c->t1 + n / 2, n));
}

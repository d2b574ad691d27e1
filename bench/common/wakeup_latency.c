// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wakeup_latency's body, for exec-bench and exec_kbench.ko alike
 * (wakeup_latency.h): the submitter's schedule, the task's record, the
 * verification and the output line's figures.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/ktime.h>
#else
#include <exec_platform.h>
#endif

#include "wakeup_latency.h"

/* Period of the submissions. */
#define BENCH_WAKE_PERIOD_NS	(200 * NSEC_PER_USEC)
/* Time for the workers to go idle before the first sample. */
#define BENCH_WAKE_SETTLE_NS	(10 * NSEC_PER_MSEC)

void bench_wake_init(struct bench_wake *w, const struct bench_wake_ops *ops,
		     struct bench_wake_sample *first, size_t stride,
		     unsigned long total, void *ctx)
{
	w->ops = ops;
	w->first = first;
	w->stride = stride;
	w->total = total;
	w->ran = 0;
	w->ctx = ctx;
}

/*
 * @ran is counted with the compiler's atomics, which both worlds have, so
 * that the header needs neither's atomic_long_t.
 */

/**
 * bench_wake_ran - what a sample's task does
 * @w: the run
 * @s: the task's sample
 *
 * Context: The task's; any context.
 * Return: true for the last sample of the run: the caller signals the end.
 */
bool bench_wake_ran(struct bench_wake *w, struct bench_wake_sample *s)
{
	s->start_ns = ktime_get_ns();
	return __atomic_add_fetch(&w->ran, 1, __ATOMIC_ACQ_REL) ==
	       (long)w->total;
}

/**
 * bench_wake_submit_all - submit every sample, one every period
 * @w: the run
 * @submitted: set to the samples submitted
 *
 * A submission that fails stops the run; the samples after it were never
 * submitted, and those before may still be running.
 *
 * Context: The submitting thread; sleeps.
 * Return: 0, or the negative errno of the failed submission.
 */
int bench_wake_submit_all(struct bench_wake *w, unsigned long *submitted)
{
	const struct bench_wake_ops *ops = w->ops;
	struct bench_wake_sample *s;
	unsigned long k;
	u64 deadline;
	int err = 0;

	deadline = ktime_get_ns() + BENCH_WAKE_SETTLE_NS;
	for (k = 0; k < w->total; k++) {
		ops->sleep_until(deadline);
		s = bench_wake_sample(w, k);
		if (ops->before)
			ops->before(w, k);
		s->submit_ns = ktime_get_ns();
		err = ops->submit(w, k);
		if (ops->after)
			ops->after(w, k);
		if (err)
			break;
		deadline += BENCH_WAKE_PERIOD_NS;
		/*
		 * A submitter more than a period behind (preempted) starts a
		 * new schedule instead of submitting a burst to a busy
		 * executor.
		 */
		if (s->submit_ns > deadline)
			deadline = s->submit_ns + BENCH_WAKE_PERIOD_NS;
	}
	*submitted = k;
	return err;
}

/**
 * bench_wake_latencies - verify a finished run and take its latencies
 * @w: the run, every task of which has returned
 * @lat: filled with each sample's latency, in the order submitted
 *
 * Context: Process context.
 * Return: 0, or -1 after bench_fail() when a sample did not run once.
 */
int bench_wake_latencies(struct bench_wake *w, u64 *lat)
{
	struct bench_wake_sample *s;
	unsigned long k;

	if (__atomic_load_n(&w->ran, __ATOMIC_ACQUIRE) != (long)w->total) {
		bench_fail("wakeup_latency", "%ld samples ran, %lu submitted",
			   w->ran, w->total);
		return -1;
	}
	for (k = 0; k < w->total; k++) {
		s = bench_wake_sample(w, k);
		if (!s->start_ns) {
			bench_fail("wakeup_latency", "sample %lu never ran", k);
			return -1;
		}
		lat[k] = s->start_ns > s->submit_ns ?
			 s->start_ns - s->submit_ns : 0;
	}
	return 0;
}

/**
 * bench_wake_line - the run's figures on its output line
 * @w: the run, verified
 * @lat: its latencies, sorted here
 * @line: the line, begun by the world
 *
 * Context: Process context.
 */
void bench_wake_line(const struct bench_wake *w, u64 *lat,
		     struct bench_line *line)
{
	unsigned long n = w->total;

	bench_sort_u64(lat, n);
	bench_line_uint(line, "samples", n);
	bench_line_seconds(line, bench_wake_sample(w, n - 1)->start_ns -
			   bench_wake_sample(w, 0)->submit_ns);
	bench_line_uint(line, "p50_ns", bench_percentile(lat, n, 50000));
	bench_line_uint(line, "p99_ns", bench_percentile(lat, n, 99000));
	bench_line_uint(line, "p999_ns", bench_percentile(lat, n, 99900));
	bench_line_uint(line, "max_ns", lat[n - 1]);
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * wakeup_latency, written once for both benchmarks (wakeup_latency.c):
 * the executor is idle; one thread submits a task every 200 us, sleeping
 * in between, and each task records when it started.  The latency is the
 * task's start time less the time taken just before its submission, so it
 * includes the submission and the wake-up of an idle worker: what an event
 * handler handing work to an executor waits.
 *
 * Each world keeps only what differs: the items (struct exec_work in
 * exec-bench, libexec's or a workqueue's in exec_kbench.ko) and how they
 * are submitted, the submitting thread (the calling thread in userspace, a
 * kthread in the kernel), its sleep, and the signal that the last sample
 * has run.
 */
#ifndef EXEC_BENCH_WAKEUP_LATENCY_H
#define EXEC_BENCH_WAKEUP_LATENCY_H

#include "bench_common.h"

/**
 * struct bench_wake_sample - one sample, in the world's item
 * @submit_ns: time just before submission
 * @start_ns: time the task started
 *
 * The world's items are cache-line aligned, so that writing the next
 * sample's @submit_ns does not pull in the line a worker has just written.
 */
struct bench_wake_sample {
	u64 submit_ns;
	u64 start_ns;
};

struct bench_wake;

/**
 * struct bench_wake_ops - what a world does for wakeup_latency
 * @submit: submit sample @k's item; 0 or a negative errno
 * @sleep_until: sleep until @deadline (ktime_get_ns() time)
 * @before: called before sample @k's submission is timed, or NULL
 * @after: called after sample @k's submission, or NULL
 */
struct bench_wake_ops {
	int (*submit)(struct bench_wake *w, unsigned long k);
	void (*sleep_until)(u64 deadline);
	void (*before)(struct bench_wake *w, unsigned long k);
	void (*after)(struct bench_wake *w, unsigned long k);
};

/**
 * struct bench_wake - one run of wakeup_latency
 * @ops: the world's operations
 * @first: sample 0, inside the world's first item
 * @stride: the size of the world's item: sample k is @stride * k bytes
 *	after @first
 * @total: samples
 * @ran: samples whose task has started (atomic)
 * @ctx: the world's
 */
struct bench_wake {
	const struct bench_wake_ops *ops;
	struct bench_wake_sample *first;
	size_t stride;
	unsigned long total;
	long ran;
	void *ctx;
};

static inline struct bench_wake_sample *
bench_wake_sample(const struct bench_wake *w, unsigned long k)
{
	return (struct bench_wake_sample *)((char *)w->first + w->stride * k);
}

void bench_wake_init(struct bench_wake *w, const struct bench_wake_ops *ops,
		     struct bench_wake_sample *first, size_t stride,
		     unsigned long total, void *ctx);
bool bench_wake_ran(struct bench_wake *w, struct bench_wake_sample *s);
int bench_wake_submit_all(struct bench_wake *w, unsigned long *submitted);
int bench_wake_latencies(struct bench_wake *w, u64 *lat);
void bench_wake_line(const struct bench_wake *w, u64 *lat,
		     struct bench_line *line);

#endif /* EXEC_BENCH_WAKEUP_LATENCY_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the latency workloads, chain_latency and wakeup_latency.
 *
 * Both run on a thread pool, on a loop executor run by a dedicated thread,
 * on a serial executor over a thread pool, or on the reference pool,
 * condvar_pool (bench-refpool.c); wakeup_latency also on its raw reference,
 * raw_futex (bench-raw.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "bench.h"

/*
 * chain_latency: one task in flight at a time; each task submits its
 * successor to the same executor, M hops in all.  The successor is the same
 * intrusive item submitted again, which the item's life cycle allows (its
 * pending bit is clear while its function runs) and which keeps every hop's
 * cost the executor's own; with --closures each hop is a new closure.
 */

static struct {
	struct exec_executor *ex;
	struct bench_ref_pool *ref;
	struct exec_work work;
	bool closures;
	enum bench_submit submit;
	unsigned long hops;
	unsigned long total;
	int err;
	uint64_t t1;
	sem_t done;
} chain;

static void chain_closure_fn(void *arg);

static void chain_hop(void)
{
	unsigned long n = chain.hops + 1;
	int err;

	/*
	 * @hops is plain: each hop's update happens before it submits the
	 * next hop, which the executor orders before that hop starts.
	 */
	chain.hops = n;
	if (n == chain.total) {
		chain.t1 = bench_now_ns();
		sem_post(&chain.done);
		return;
	}
	if (chain.ref) {
		bench_ref_pool_submit(chain.ref, &chain.work);
		return;
	}
	if (chain.closures)
		err = bench_submit_fn(chain.submit, chain.ex, chain_closure_fn,
				      NULL);
	else
		err = bench_submit_work(chain.submit, chain.ex, &chain.work);
	if (err) {
		chain.err = err;
		sem_post(&chain.done);
	}
}

static void chain_work_fn(struct exec_work *work)
{
	chain_hop();
}

static void chain_closure_fn(void *arg)
{
	chain_hop();
}

int bench_chain_latency(const struct bench_opts *opts)
{
	struct bench_exec be;
	uint64_t t0, ns;
	double secs;
	int err;

	if (sem_init(&chain.done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	if (bench_exec_create(&be, opts->kind, opts->threads))
		return BENCH_EXIT_FAIL;
	chain.ex = be.ex;
	chain.ref = be.ref;
	chain.closures = opts->closures;
	chain.submit = opts->submit;
	chain.total = opts->tasks;
	exec_work_init(&chain.work, chain_work_fn);

	t0 = bench_now_ns();
	err = 0;
	if (chain.ref)
		bench_ref_pool_submit(chain.ref, &chain.work);
	else if (chain.closures)
		err = exec_submit_fn(chain.ex, chain_closure_fn, NULL);
	else
		err = exec_submit(chain.ex, &chain.work);
	if (err) {
		bench_err("exec_submit: %s", strerror(-err));
		bench_exec_destroy(&be);
		return BENCH_EXIT_FAIL;
	}
	if (bench_wait(&chain.done))
		exit(BENCH_EXIT_FAIL);
	if (chain.err) {
		bench_err("chain_latency: hop %lu: submission failed: %s",
			  chain.hops + 1, strerror(-chain.err));
		bench_exec_destroy(&be);
		return BENCH_EXIT_FAIL;
	}
	/* Destroying waits for any hop that should not exist: count after. */
	if (bench_exec_destroy(&be))
		return BENCH_EXIT_FAIL;
	if (chain.hops != chain.total) {
		bench_err("chain_latency: %lu hops ran, %lu expected",
			  chain.hops, chain.total);
		return BENCH_EXIT_FAIL;
	}

	ns = chain.t1 - t0;
	secs = (double)ns / NSEC_PER_SEC;
	bench_out_begin(opts, be.threads);
	bench_out_uint("tasks", chain.total);
	bench_out_double("seconds", "%.6f", secs);
	bench_out_uint("ns_per_hop", (ns + chain.total / 2) / chain.total);
	if (opts->closures)
		bench_out_bool("closures", true);
	bench_out_end();
	return BENCH_EXIT_OK;
}

/*
 * wakeup_latency: the executor is idle; this thread submits a task every
 * 200 us, sleeping in between, and each task records when it started.  The
 * latency is the task's start time less the time taken just before
 * exec_submit(), so it includes the submission and the wakeup of an idle
 * worker: what an event handler handing work to an executor waits.
 */

#define WAKE_PERIOD_NS		(200 * NSEC_PER_USEC)
/* Time for the workers to go idle after the warm-up. */
#define WAKE_SETTLE_NS		(10 * 1000 * NSEC_PER_USEC)

/**
 * struct wake_item - one sample
 * @work: the task
 * @submit_ns: time just before submission
 * @start_ns: time the task started
 *
 * Samples are cache-line aligned, so that writing the next sample's
 * @submit_ns does not pull in the line a worker has just written.
 */
struct wake_item {
	_Alignas(BENCH_CACHELINE) struct exec_work work;
	uint64_t submit_ns;
	uint64_t start_ns;
};

static struct {
	struct wake_item *items;
	unsigned long total;
	unsigned long ran;
	sem_t done;
} wake;

static void wake_fn(struct exec_work *work)
{
	struct wake_item *it = container_of(work, struct wake_item, work);

	it->start_ns = bench_now_ns();
	if (__atomic_add_fetch(&wake.ran, 1, __ATOMIC_ACQ_REL) == wake.total)
		sem_post(&wake.done);
}

int bench_wakeup_latency(const struct bench_opts *opts)
{
	unsigned long n = opts->samples, k;
	uint64_t deadline, *lat = NULL;
	int err, ret = BENCH_EXIT_FAIL;
	struct bench_raw_futex *raw = NULL;
	struct bench_exec be = { .threads = 1 };
	struct wake_item *it;
	double secs;

	if (sem_init(&wake.done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	wake.total = n;
	wake.items = aligned_alloc(BENCH_CACHELINE, n * sizeof(*wake.items));
	lat = malloc(n * sizeof(*lat));
	if (!wake.items || !lat) {
		bench_err("out of memory");
		goto out_free;
	}
	memset(wake.items, 0, n * sizeof(*wake.items));
	for (k = 0; k < n; k++)
		exec_work_init(&wake.items[k].work, wake_fn);

	if (opts->kind == BENCH_RAW_FUTEX) {
		if (bench_raw_futex_start(&raw))
			goto out_free;
	} else if (bench_exec_create(&be, opts->kind, opts->threads)) {
		goto out_free;
	}

	/*
	 * The default timer slack (50 us) would stretch every 200 us period;
	 * only this thread's sleeps are made exact, after the executor's
	 * threads have been created with the default.
	 */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

	deadline = bench_now_ns() + WAKE_SETTLE_NS;
	for (k = 0; k < n; k++) {
		bench_sleep_until(deadline);
		it = &wake.items[k];
		it->submit_ns = bench_now_ns();
		err = 0;
		if (raw)
			err = bench_raw_futex_submit(raw, &it->work);
		else if (be.ref)
			bench_ref_pool_submit(be.ref, &it->work);
		else
			err = exec_submit(be.ex, &it->work);
		if (err) {
			bench_err("exec_submit: %s", strerror(-err));
			/* Samples already queued may still be running. */
			exit(BENCH_EXIT_FAIL);
		}
		deadline += WAKE_PERIOD_NS;
		/*
		 * A submitter more than a period behind (preempted) starts a
		 * new schedule instead of submitting a burst to a busy
		 * executor.
		 */
		if (it->submit_ns > deadline)
			deadline = it->submit_ns + WAKE_PERIOD_NS;
	}
	if (bench_wait(&wake.done))
		exit(BENCH_EXIT_FAIL);
	if (raw)
		bench_raw_futex_stop(raw);
	else if (bench_exec_destroy(&be))
		goto out_free;
	if (wake.ran != n) {
		bench_err("wakeup_latency: %lu samples ran, %lu submitted",
			  wake.ran, n);
		goto out_free;
	}

	for (k = 0; k < n; k++) {
		it = &wake.items[k];
		if (!it->start_ns) {
			bench_err("wakeup_latency: sample %lu never ran", k);
			goto out_free;
		}
		lat[k] = it->start_ns > it->submit_ns ?
			 it->start_ns - it->submit_ns : 0;
	}
	secs = (double)(wake.items[n - 1].start_ns - wake.items[0].submit_ns) /
	       NSEC_PER_SEC;
	if (bench_samples_write(opts, be.threads, lat, n))
		goto out_free;
	qsort(lat, n, sizeof(*lat), bench_cmp_u64);

	bench_out_begin(opts, be.threads);
	bench_out_uint("samples", n);
	bench_out_double("seconds", "%.6f", secs);
	bench_out_uint("p50_ns", bench_percentile(lat, n, 50000));
	bench_out_uint("p99_ns", bench_percentile(lat, n, 99000));
	bench_out_uint("p999_ns", bench_percentile(lat, n, 99900));
	bench_out_uint("max_ns", lat[n - 1]);
	bench_out_end();
	ret = BENCH_EXIT_OK;

out_free:
	free(lat);
	free(wake.items);
	return ret;
}

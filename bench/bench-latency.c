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
#include "common/chain_latency.h"
#include "common/wakeup_latency.h"

/*
 * chain_latency: its body is bench/common/chain_latency.c, the kernel
 * benchmark's too; here are the item, its submission (with --closures each
 * hop is a new closure) and the signal of the end.
 */

static struct {
	struct bench_chain run;
	struct exec_executor *ex;
	struct bench_ref_pool *ref;
	struct exec_work work;
	bool closures;
	enum bench_submit submit;
	sem_t done;
} chain;

static void chain_closure_fn(void *arg);

static void chain_hop(void)
{
	int err;

	if (bench_chain_hop(&chain.run)) {
		chain.run.t1 = bench_now_ns();
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
		chain.run.err = err;
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
	bench_chain_init(&chain.run, opts->tasks);
	exec_work_init(&chain.work, chain_work_fn);

	chain.run.t0 = bench_now_ns();
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
	/* Destroying waits for any hop that should not exist: count after. */
	if (bench_exec_destroy(&be) || bench_chain_verify(&chain.run))
		return BENCH_EXIT_FAIL;

	bench_out_begin(opts, be.threads);
	bench_chain_line(&chain.run, bench_out_line());
	if (opts->closures)
		bench_out_bool("closures", true);
	bench_out_end();
	return BENCH_EXIT_OK;
}

/*
 * wakeup_latency: its body is bench/common/wakeup_latency.c, the kernel
 * benchmark's too; here are the items, the submission to the executor or
 * reference under test, and this thread as the submitter.
 */

/**
 * struct wake_item - one sample's task
 * @work: the task
 * @s: its sample
 *
 * Cache-line aligned, as wakeup_latency.h asks.
 */
struct wake_item {
	_Alignas(BENCH_CACHELINE) struct exec_work work;
	struct bench_wake_sample s;
};

static struct {
	struct bench_wake run;
	struct wake_item *items;
	struct bench_raw_futex *raw;
	struct bench_exec *be;
	sem_t done;
} wake;

static void wake_fn(struct exec_work *work)
{
	struct wake_item *it = container_of(work, struct wake_item, work);

	if (bench_wake_ran(&wake.run, &it->s))
		sem_post(&wake.done);
}

static int wake_submit(struct bench_wake *w, unsigned long k)
{
	struct exec_work *work = &wake.items[k].work;

	if (wake.raw)
		return bench_raw_futex_submit(wake.raw, work);
	if (wake.be->ref) {
		bench_ref_pool_submit(wake.be->ref, work);
		return 0;
	}
	return exec_submit(wake.be->ex, work);
}

static void wake_sleep_until(u64 deadline)
{
	bench_sleep_until(deadline);
}

static const struct bench_wake_ops wake_ops = {
	.submit = wake_submit,
	.sleep_until = wake_sleep_until,
};

int bench_wakeup_latency(const struct bench_opts *opts)
{
	unsigned long n = opts->samples, k, submitted;
	int err, ret = BENCH_EXIT_FAIL;
	struct bench_exec be = { .threads = 1 };
	uint64_t *lat = NULL;

	if (sem_init(&wake.done, 0, 0)) {
		bench_err("sem_init: %s", strerror(errno));
		return BENCH_EXIT_FAIL;
	}
	wake.raw = NULL;
	wake.be = &be;
	wake.items = aligned_alloc(BENCH_CACHELINE, n * sizeof(*wake.items));
	lat = malloc(n * sizeof(*lat));
	if (!wake.items || !lat) {
		bench_err("out of memory");
		goto out_free;
	}
	memset(wake.items, 0, n * sizeof(*wake.items));
	for (k = 0; k < n; k++)
		exec_work_init(&wake.items[k].work, wake_fn);
	bench_wake_init(&wake.run, &wake_ops, &wake.items[0].s,
			sizeof(*wake.items), n, NULL);

	if (opts->kind == BENCH_RAW_FUTEX) {
		if (bench_raw_futex_start(&wake.raw))
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

	err = bench_wake_submit_all(&wake.run, &submitted);
	if (err) {
		bench_err("exec_submit: %s", strerror(-err));
		/* Samples already queued may still be running. */
		exit(BENCH_EXIT_FAIL);
	}
	if (bench_wait(&wake.done))
		exit(BENCH_EXIT_FAIL);
	if (wake.raw)
		bench_raw_futex_stop(wake.raw);
	else if (bench_exec_destroy(&be))
		goto out_free;
	if (bench_wake_latencies(&wake.run, lat))
		goto out_free;
	if (bench_samples_write(opts, be.threads, lat, n))
		goto out_free;

	bench_out_begin(opts, be.threads);
	bench_wake_line(&wake.run, lat, bench_out_line());
	bench_out_end();
	ret = BENCH_EXIT_OK;

out_free:
	free(lat);
	free(wake.items);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * strand_churn: what a strand per connection costs.  S serial executors are
 * created over one pool of T workers, each gets one task, and each is
 * destroyed once its task has run, as a server does with a strand per
 * connection; the figures are the mean cost of one create and of one
 * destroy, the resident memory a live strand holds, and the tasks' rate.
 *
 * The phases are timed apart, so that each figure is the cost of that call
 * alone: all S are created (timed, "create_ns"), then each gets its task
 * (timed from the first submission to the last task's end, "ops_per_s"),
 * then, every task having run, all S are destroyed idle (timed,
 * "destroy_ns").  "bytes_per_strand" is the growth of the current resident
 * set from before the first create to when all S are alive, over S: what
 * the library holds per strand, as the strands' handles (one pointer each)
 * are allocated and touched before it starts.
 */
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <exec/user.h>

#include "bench.h"
#include "common/strand_churn.h"

/**
 * struct churn_task - one strand's task
 * @work: the item submitted to the strand
 * @runs: how often it ran; must end at 1
 */
struct churn_task {
	struct exec_work work;
	unsigned int runs;
};

static struct {
	struct bench_churn run;
	sem_t done;
} churn;

static void churn_fn(struct exec_work *work)
{
	struct churn_task *t = container_of(work, struct churn_task, work);

	if (bench_churn_ran(&churn.run, &t->runs)) {
		churn.run.run_end = bench_now_ns();
		sem_post(&churn.done);
	}
}

/* Creates all @n strands over @under; returns how many were created. */
static unsigned int churn_create(struct exec_serial **strands, unsigned int n,
				 struct exec_executor *under)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = exec_serial_create(&strands[i], under);
		if (bench_unlikely(err)) {
			bench_err("exec_serial_create: strand %u: %s", i,
				  strerror(-err));
			break;
		}
	}
	return i;
}

/* Submits each strand's task and waits for all; false on a failure. */
static bool churn_run(struct exec_serial **strands, struct churn_task *tasks,
		      unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = exec_submit(exec_serial_executor(strands[i]),
				  &tasks[i].work);
		if (bench_unlikely(err)) {
			bench_err("exec_submit: strand %u: %s", i,
				  strerror(-err));
			/* The tasks already queued may still be running. */
			exit(BENCH_EXIT_FAIL);
		}
	}
	return !bench_wait(&churn.done);
}

/* Destroys @n idle strands; false if one still held work. */
static bool churn_destroy(struct exec_serial **strands, unsigned int n)
{
	unsigned int i;
	bool ok = true;
	long left;

	for (i = 0; i < n; i++) {
		left = exec_serial_destroy(strands[i]);
		if (bench_unlikely(left)) {
			bench_err("exec_serial_destroy: strand %u: %ld", i,
				  left);
			ok = false;
		}
	}
	return ok;
}

int bench_strand_churn(const struct bench_opts *opts)
{
	unsigned int n = opts->strands, created = 0, i;
	int ret = BENCH_EXIT_FAIL;
	struct exec_serial **strands;
	struct churn_task *tasks;
	long long rss0, rss1;
	uint64_t t;
	struct bench_exec be;

	if (bench_exec_create(&be, BENCH_THREAD_POOL, opts->threads))
		return BENCH_EXIT_FAIL;
	strands = calloc(n, sizeof(*strands));
	tasks = calloc(n, sizeof(*tasks));
	if (!strands || !tasks || sem_init(&churn.done, 0, 0)) {
		bench_err("out of memory");
		goto out;
	}
	bench_touch(strands, n * sizeof(*strands));
	for (i = 0; i < n; i++)
		exec_work_init(&tasks[i].work, churn_fn);
	bench_churn_init(&churn.run, &tasks[0].runs, sizeof(*tasks), n);

	rss0 = bench_rss_kb();
	t = bench_now_ns();
	created = churn_create(strands, n, be.ex);
	churn.run.create_ns = bench_now_ns() - t;
	rss1 = bench_rss_kb();
	if (created != n || rss0 < 0 || rss1 < 0)
		goto out;
	churn.run.grown_bytes = (rss1 - rss0) * 1024;

	churn.run.run_start = bench_now_ns();
	if (!churn_run(strands, tasks, n))
		exit(BENCH_EXIT_FAIL);

	created = 0;
	t = bench_now_ns();
	if (!churn_destroy(strands, n))
		goto out;
	churn.run.destroy_ns = bench_now_ns() - t;
	if (bench_churn_verify(&churn.run))
		goto out;

	bench_out_begin(opts, be.threads);
	bench_churn_line(&churn.run, bench_out_line());
	bench_out_end();
	ret = BENCH_EXIT_OK;
out:
	if (created && !churn_destroy(strands, created))
		ret = BENCH_EXIT_FAIL;
	if (bench_exec_destroy(&be))
		ret = BENCH_EXIT_FAIL;
	free(tasks);
	free(strands);
	return ret;
}

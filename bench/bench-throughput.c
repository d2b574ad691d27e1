// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the throughput workloads, post_throughput and
 * serial_throughput.
 *
 * Both submit preallocated intrusive items, so that the measured region holds
 * no allocation of the benchmark's own; --closures (post_throughput) measures
 * the library's closure allocation on purpose.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/post_throughput.h"
#include "common/serial_throughput.h"

/*
 * post_throughput: its body is bench/common/post_throughput.c, the kernel
 * benchmark's too; here are the producer threads and their submission, the
 * items and the workers' counters.  Each task adds 1 to a counter private to
 * the worker that runs it, so the tasks share no cache line and the figure
 * is the executor's alone.
 */

/**
 * struct post_counter - the count of one worker
 * @n: tasks this worker ran
 * @shared: this is the overflow counter, which any thread may add to
 */
struct post_counter {
	_Alignas(BENCH_CACHELINE) unsigned long n;
	bool shared;
};

/**
 * struct post_producer - one producer thread
 * @tid: its thread
 * @s: its share
 */
struct post_producer {
	_Alignas(BENCH_CACHELINE) pthread_t tid;
	struct bench_post_producer s;
};

static struct {
	struct exec_executor *ex;
	struct bench_ref_pool *ref;
	struct exec_work *items;
	bool closures;
	enum bench_submit submit;
	pthread_barrier_t start;
	struct post_counter *counters;
	unsigned int nr_counters;
	unsigned int next_counter;
} post;

/* For a thread that is not one of the T workers, which should not happen. */
static struct post_counter post_overflow = { .shared = true };

/*
 * Each thread finds its counter through a thread-local pointer, set up the
 * first time the thread runs a task: a TLS load per task instead of a lookup,
 * and nothing for the executor to provide.
 */
static __thread struct post_counter *post_self;

static struct post_counter *post_counter_get(void)
{
	struct post_counter *c = post_self;
	unsigned int i;

	if (bench_likely(c))
		return c;
	i = __atomic_fetch_add(&post.next_counter, 1, __ATOMIC_RELAXED);
	c = i < post.nr_counters ? &post.counters[i] : &post_overflow;
	post_self = c;
	return c;
}

static inline void post_count(void)
{
	struct post_counter *c = post_counter_get();

	/*
	 * Only this thread writes its own counter, and the main thread reads
	 * it after the workers are joined, so a plain increment is enough.
	 */
	if (bench_likely(!c->shared))
		c->n++;
	else
		__atomic_fetch_add(&c->n, 1, __ATOMIC_RELAXED);
}

static void post_work_fn(struct exec_work *work)
{
	post_count();
}

static void post_closure_fn(void *arg)
{
	post_count();
}

static void *post_producer_main(void *arg)
{
	struct bench_post_producer *p = &((struct post_producer *)arg)->s;
	unsigned long i;
	int err = 0;

	pthread_barrier_wait(&post.start);
	p->start_ns = bench_now_ns();
	if (post.ref) {
		for (i = p->first; i < p->end; i++)
			bench_ref_pool_submit(post.ref, &post.items[i]);
	} else if (post.closures) {
		for (i = p->first; i < p->end && !err; i++)
			err = bench_submit_fn(post.submit, post.ex,
					      post_closure_fn, NULL);
	} else {
		for (i = p->first; i < p->end && !err; i++)
			err = bench_submit_work(post.submit, post.ex,
						&post.items[i]);
	}
	p->err = err;
	return NULL;
}

int bench_post_throughput(const struct bench_opts *opts)
{
	unsigned long n = opts->tasks, sum, i;
	unsigned int nr = opts->producers, started = 0, t;
	struct post_producer *producers;
	struct bench_post run;
	struct bench_exec be;
	int err, ret = BENCH_EXIT_FAIL;

	if (bench_exec_create(&be, opts->kind, opts->threads))
		return BENCH_EXIT_FAIL;

	post.ex = be.ex;
	post.ref = be.ref;
	post.closures = opts->closures;
	post.submit = opts->submit;
	post.nr_counters = be.threads;
	post.counters = aligned_alloc(BENCH_CACHELINE,
				      be.threads * sizeof(*post.counters));
	producers = aligned_alloc(BENCH_CACHELINE, nr * sizeof(*producers));
	if (!opts->closures)
		post.items = calloc(n, sizeof(*post.items));
	if (!post.counters || !producers || (!opts->closures && !post.items)) {
		bench_err("out of memory");
		goto out_destroy;
	}
	memset(post.counters, 0, be.threads * sizeof(*post.counters));
	memset(producers, 0, nr * sizeof(*producers));
	/* Initialising the items also faults their pages in, untimed. */
	if (!opts->closures)
		for (i = 0; i < n; i++)
			exec_work_init(&post.items[i], post_work_fn);

	/*
	 * The producers start together; the clock starts at the earliest of
	 * their first submissions.
	 */
	bench_post_init(&run, n, nr);
	pthread_barrier_init(&post.start, NULL, nr);
	for (t = 0; t < nr; t++) {
		bench_post_share(&run, t, &producers[t].s);
		err = pthread_create(&producers[t].tid, NULL,
				     post_producer_main, &producers[t]);
		if (err) {
			bench_err("pthread_create: %s", strerror(err));
			/* The started ones wait at the barrier forever. */
			exit(BENCH_EXIT_FAIL);
		}
		started++;
	}
	for (t = 0; t < started; t++) {
		pthread_join(producers[t].tid, NULL);
		if (bench_post_done(&run, &producers[t].s, t))
			goto out_destroy;
	}

	/*
	 * Destroying the pool returns once every task has run and the workers
	 * are joined.  That is the end of the measured region: the tasks
	 * share no counter that could tell when the last one ends, and
	 * polling the counters from here would take CPU time from the
	 * workers on a small machine.  The stop and join add about 0.2 ms
	 * (2 workers, measured with --tasks 1), under 0.5% of a default run.
	 * It also orders the workers' plain counter updates before the reads
	 * below.
	 */
	if (bench_exec_destroy(&be))
		goto out_free;
	run.t1 = bench_now_ns();

	sum = post_overflow.n;
	for (t = 0; t < post.nr_counters; t++)
		sum += post.counters[t].n;
	if (bench_post_verify(&run, sum))
		goto out_free;

	bench_out_begin(opts, be.threads);
	bench_post_line(&run, bench_out_line());
	if (opts->closures)
		bench_out_bool("closures", true);
	bench_out_end();
	ret = BENCH_EXIT_OK;
	goto out_free;

out_destroy:
	bench_exec_destroy(&be);
out_free:
	free(post.items);
	free(producers);
	free(post.counters);
	return ret;
}

/*
 * serial_throughput: its body is bench/common/serial_throughput.c, the
 * kernel benchmark's too; here are the serial executors over one pool of T
 * workers, the items and their submission by this thread.
 */

/**
 * struct serial_strand - one serial executor and its order check
 * @serial: the serial executor
 * @ex: it, as an executor
 * @check: its order check
 */
struct serial_strand {
	_Alignas(BENCH_CACHELINE) struct exec_serial *serial;
	struct exec_executor *ex;
	struct bench_ser_strand check;
};

static struct {
	struct bench_ser run;
	struct serial_strand *strands;
	struct exec_work *items;
	sem_t done;
} ser;

static void serial_fn(struct exec_work *work)
{
	if (bench_ser_ran(&ser.run, (unsigned long)(work - ser.items))) {
		ser.run.t1 = bench_now_ns();
		sem_post(&ser.done);
	}
}

int bench_serial_throughput(const struct bench_opts *opts)
{
	unsigned long n = opts->tasks, i;
	unsigned int nr = opts->strands, created = 0, s;
	int err, ret = BENCH_EXIT_FAIL;
	struct bench_exec be;
	bool verified;
	long left;

	if (bench_exec_create(&be, BENCH_THREAD_POOL, opts->threads))
		return BENCH_EXIT_FAIL;

	ser.strands = aligned_alloc(BENCH_CACHELINE,
				    nr * sizeof(*ser.strands));
	ser.items = calloc(n, sizeof(*ser.items));
	if (!ser.strands || !ser.items || sem_init(&ser.done, 0, 0)) {
		bench_err("out of memory");
		goto out;
	}
	memset(ser.strands, 0, nr * sizeof(*ser.strands));
	bench_ser_init(&ser.run, &ser.strands[0].check, sizeof(*ser.strands),
		       nr, n);
	for (s = 0; s < nr; s++) {
		err = exec_serial_create(&ser.strands[s].serial, be.ex);
		if (err) {
			bench_err("exec_serial_create: %s", strerror(-err));
			goto out;
		}
		created++;
		ser.strands[s].ex = exec_serial_executor(ser.strands[s].serial);
		if (bench_warm(ser.strands[s].ex, 1))
			goto out;
	}
	for (i = 0; i < n; i++)
		exec_work_init(&ser.items[i], serial_fn);

	ser.run.t0 = bench_now_ns();
	for (i = 0, s = 0; i < n; i++) {
		err = exec_submit(ser.strands[s].ex, &ser.items[i]);
		if (err) {
			bench_err("exec_submit: %s", strerror(-err));
			/* Tasks already queued may still be running. */
			exit(BENCH_EXIT_FAIL);
		}
		if (++s == nr)
			s = 0;
	}
	if (bench_wait(&ser.done))
		exit(BENCH_EXIT_FAIL);

	verified = !bench_ser_verify(&ser.run);
	bench_out_begin(opts, be.threads);
	if (bench_ser_line(&ser.run, bench_out_line(), verified))
		verified = false;
	bench_out_end();
	ret = verified ? BENCH_EXIT_OK : BENCH_EXIT_FAIL;

out:
	for (s = 0; s < created; s++) {
		left = exec_serial_destroy(ser.strands[s].serial);
		if (left) {
			bench_err("exec_serial_destroy: %ld", left);
			ret = BENCH_EXIT_FAIL;
		}
	}
	if (bench_exec_destroy(&be))
		ret = BENCH_EXIT_FAIL;
	free(ser.items);
	free(ser.strands);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-bench: the reference thread pools, the plain mutex+condvar pool of
 * Documentation/benchmarks.rst's reference figures, written out here so that
 * a workload can run against it in the same process and the same run.
 *
 *   condvar_pool    T threads; one mutex guards one FIFO of items, and an
 *                   idle thread waits on one condition variable, signalled
 *                   once per submission.  What an application writes when
 *                   it needs a pool and has no library.
 *   condvar_spare   the same pool, plus a spare thread started each time a
 *                   thread enters a blocking call (it says so with
 *                   bench_ref_pool_blocking_begin()), so that T threads can
 *                   always run items; once the blocked thread is back and
 *                   more than T threads could run items, one of them exits
 *                   after its current item.  A thread per blocked item, at
 *                   once and without bound: the upper bound of what a pool
 *                   that grows while its workers block can do, at the cost
 *                   of a thread creation per blocking call.
 *
 * The queue links the items through their @next field, as an intrusive
 * executor does: an item is on one executor at a time.  Neither pool is a
 * model of how libexec works.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/**
 * struct bench_ref_pool - a mutex+condvar pool
 * @lock: guards everything below
 * @cond: idle threads wait here for an item or @stop
 * @head: the oldest queued item
 * @tail: the newest queued item
 * @stop: set by bench_ref_pool_stop(): exit once the queue is empty
 * @spare: start a thread per blocking call (condvar_spare)
 * @threads: T, the threads the caller asked for
 * @running: threads in the run loop, blocked ones included
 * @blocked: threads between blocking_begin() and blocking_end()
 * @started: threads ever started, the first T included
 * @tids: the threads ever started, to be joined by bench_ref_pool_stop()
 * @nr_tids: entries of @tids
 * @cap_tids: room in @tids
 * @err: the first error (-errno) starting a spare thread, or 0
 */
struct bench_ref_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct exec_work *head;
	struct exec_work *tail;
	bool stop;
	bool spare;
	unsigned int threads;
	unsigned int running;
	unsigned int blocked;
	unsigned int started;
	pthread_t *tids;
	unsigned int nr_tids;
	unsigned int cap_tids;
	int err;
};

/* The pool whose item this thread runs, for the blocking calls. */
static __thread struct bench_ref_pool *ref_pool_self;

static void *ref_pool_main(void *arg);

/* Starts one thread; called with @p->lock held.  Returns 0 or -errno. */
static int ref_pool_spawn(struct bench_ref_pool *p)
{
	pthread_t *t;
	int err;

	if (p->nr_tids == p->cap_tids) {
		unsigned int cap = p->cap_tids ? 2 * p->cap_tids : 64;

		t = realloc(p->tids, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		p->tids = t;
		p->cap_tids = cap;
	}
	err = pthread_create(&p->tids[p->nr_tids], NULL, ref_pool_main, p);
	if (err)
		return -err;
	p->nr_tids++;
	p->running++;
	p->started++;
	return 0;
}

static void *ref_pool_main(void *arg)
{
	struct bench_ref_pool *p = arg;
	struct exec_work *work;

	ref_pool_self = p;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		/*
		 * A spare thread's job is done once the threads able to run
		 * items are more than T again: this one leaves.
		 */
		if (p->running - p->blocked > p->threads)
			break;
		work = p->head;
		if (!work) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		p->head = work->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->lock);
		work->func(work);
		pthread_mutex_lock(&p->lock);
	}
	p->running--;
	/* Another thread may be waiting for work this one would have run. */
	if (p->head)
		pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * bench_ref_pool_start - start a reference pool
 * @pp: set to it
 * @threads: its threads, T
 * @spare: start a spare thread per blocking call (condvar_spare)
 *
 * Return: 0, or -1 with a message on stderr.
 */
int bench_ref_pool_start(struct bench_ref_pool **pp, unsigned int threads,
			 bool spare)
{
	struct bench_ref_pool *p;
	unsigned int i;
	int err = 0;

	p = calloc(1, sizeof(*p));
	if (!p) {
		bench_err("out of memory");
		return -1;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->threads = threads;
	p->spare = spare;
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < threads && !err; i++)
		err = ref_pool_spawn(p);
	pthread_mutex_unlock(&p->lock);
	if (err) {
		bench_err("reference pool: pthread_create: %s", strerror(-err));
		bench_ref_pool_stop(p);
		return -1;
	}
	*pp = p;
	return 0;
}

/**
 * bench_ref_pool_submit - queue an item
 * @p: the pool
 * @work: the item, its @func set
 */
void bench_ref_pool_submit(struct bench_ref_pool *p, struct exec_work *work)
{
	work->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->next = work;
	else
		p->head = work;
	p->tail = work;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static sem_t ref_pool_warm_done;

static void ref_pool_warm_fn(struct exec_work *work)
{
	sem_post(&ref_pool_warm_done);
}

/**
 * bench_ref_pool_warm - run @nr items through the pool and wait for them
 * @p: the pool
 * @nr: how many
 *
 * What bench_warm() does for libexec's executors, so that neither side
 * times thread start-up or first-touch page faults.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int bench_ref_pool_warm(struct bench_ref_pool *p, unsigned int nr)
{
	struct exec_work *items;
	unsigned int i;
	int ret = 0;

	items = calloc(nr, sizeof(*items));
	if (!items || sem_init(&ref_pool_warm_done, 0, 0)) {
		bench_err("reference pool: warm-up: out of memory");
		free(items);
		return -1;
	}
	for (i = 0; i < nr; i++) {
		exec_work_init(&items[i], ref_pool_warm_fn);
		bench_ref_pool_submit(p, &items[i]);
	}
	for (i = 0; i < nr; i++)
		if (bench_wait(&ref_pool_warm_done))
			ret = -1;
	/* Every item's function has been called: the pool is done. */
	free(items);
	return ret;
}

/**
 * bench_ref_pool_blocking_begin - the calling item is about to block
 *
 * For condvar_spare, starts a spare thread, so that T threads stay able to
 * run items; nothing for condvar_pool or a thread of no reference pool.
 */
void bench_ref_pool_blocking_begin(void)
{
	struct bench_ref_pool *p = ref_pool_self;
	int err;

	if (!p || !p->spare)
		return;
	pthread_mutex_lock(&p->lock);
	p->blocked++;
	err = ref_pool_spawn(p);
	if (err && !p->err)
		p->err = err;
	pthread_mutex_unlock(&p->lock);
}

/**
 * bench_ref_pool_blocking_end - the calling item is back from blocking
 *
 * The surplus thread, if any, leaves after its current item (see
 * ref_pool_main()).
 */
void bench_ref_pool_blocking_end(void)
{
	struct bench_ref_pool *p = ref_pool_self;

	if (!p || !p->spare)
		return;
	pthread_mutex_lock(&p->lock);
	p->blocked--;
	pthread_mutex_unlock(&p->lock);
}

/**
 * bench_ref_pool_started - threads ever started, the first T included
 * @p: the pool
 *
 * Return: the count.
 */
unsigned int bench_ref_pool_started(struct bench_ref_pool *p)
{
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	n = p->started;
	pthread_mutex_unlock(&p->lock);
	return n;
}

/**
 * bench_ref_pool_stop - run what is queued, stop the threads, free the pool
 * @p: the pool
 *
 * Return: 0, or -1 with a message on stderr if a spare thread could not be
 * started (the run then had fewer threads than it should have had).
 */
int bench_ref_pool_stop(struct bench_ref_pool *p)
{
	unsigned int i;
	pthread_t tid;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	/*
	 * Only a running item starts threads, and each such item finishes
	 * before its thread can exit: once the threads joined so far are all
	 * that were started, no more can appear.
	 */
	for (i = 0;; i++) {
		/* Read under the lock: a spawn may move @tids meanwhile. */
		pthread_mutex_lock(&p->lock);
		if (i == p->nr_tids) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		tid = p->tids[i];
		pthread_mutex_unlock(&p->lock);
		pthread_join(tid, NULL);
	}
	if (p->err) {
		bench_err("reference pool: a spare thread: pthread_create: %s",
			  strerror(-p->err));
		ret = -1;
	}
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->tids);
	free(p);
	return ret;
}

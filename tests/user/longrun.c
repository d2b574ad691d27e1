// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-longrun: the long runs of Documentation/testing.rst, on demand (not in
 * `make check`), through the public API of libexec-user only.
 *
 *   exec-longrun count N         N closures through every executor kind, from
 *                                two producers, each task counted exactly
 *                                once in a bitmap; serial ones also checked
 *                                for order
 *   exec-longrun soak SECONDS [BASELINE]
 *                                a mixed workload (closures on a pool, serial
 *                                executors and a loop scheduler; timed items
 *                                armed 0-50 ms ahead, some cancelled) for SECONDS; every
 *                                second it samples the resident set, the
 *                                thread count and the open descriptors, and
 *                                fails if any grows past its level over the
 *                                first BASELINE seconds (default 60; the
 *                                resident set may exceed it by 1 MiB)
 *
 * Each prints JSON lines and exits 0 only if everything was accounted for.
 * scripts/longrun.sh runs both at their full sizes and keeps the output.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <exec/exec.h>

#define LR_PRODUCERS	2
/* Most closures a producer keeps submitted and not yet run. */
#define LR_WINDOW	65536
/* A count run fails if no task ran for this long. */
#define LR_STALL_NS	(60ULL * 1000000000ULL)
/* Thread-per-task starts a thread per task: fewer of them. */
#define LR_TPT_MAX	20000UL

static uint64_t lr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* JSON output: lr_begin(), then a key a call, then lr_end(). */
static void lr_begin(const char *run)
{
	printf("{\"run\":\"%s\"", run);
}

static void lr_u(const char *key, unsigned long v)
{
	printf(",\"%s\":%lu", key, v);
}

static void lr_end(bool ok)
{
	printf(",\"ok\":%s}\n", ok ? "true" : "false");
	fflush(stdout);
}

/* --- count ------------------------------------------------------------- */

struct lr_count {
	struct exec_executor *ex;
	unsigned long n;
	bool ordered;
	uint64_t *seen;		/* one bit per task */
	unsigned long done;	/* tasks run */
	unsigned long done_by[LR_PRODUCERS];	/* ... of each producer */
	unsigned long dups;	/* tasks run more than once */
	unsigned long order_errors;
	/* Per producer, the last index run; written only by ordered tasks. */
	unsigned long last[LR_PRODUCERS];
	unsigned long submitted[LR_PRODUCERS];
	int err;
};

static struct lr_count lr;

/* The closure's argument: index * LR_PRODUCERS + producer. */
static void lr_count_task(void *arg)
{
	unsigned long v = (unsigned long)(uintptr_t)arg;
	unsigned long i = v / LR_PRODUCERS;
	unsigned int p = v % LR_PRODUCERS;
	uint64_t bit = 1ULL << (v % 64);

	if (__atomic_fetch_or(&lr.seen[v / 64], bit, __ATOMIC_RELAXED) & bit)
		__atomic_fetch_add(&lr.dups, 1, __ATOMIC_RELAXED);
	if (lr.ordered) {
		/* The executor orders these tasks: plain accesses. */
		if (lr.last[p] != ULONG_MAX && lr.last[p] >= i)
			lr.order_errors++;
		lr.last[p] = i;
	}
	__atomic_fetch_add(&lr.done_by[p], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&lr.done, 1, __ATOMIC_RELEASE);
}

static void *lr_count_producer(void *arg)
{
	unsigned int p = (unsigned int)(uintptr_t)arg;
	unsigned long v, sent = 0;
	int err;

	for (v = p; v < lr.n; v += LR_PRODUCERS) {
		while (sent - __atomic_load_n(&lr.done_by[p],
					      __ATOMIC_RELAXED) > LR_WINDOW &&
		       !__atomic_load_n(&lr.err, __ATOMIC_RELAXED))
			sched_yield();
		err = exec_submit_fn(lr.ex, lr_count_task, (void *)(uintptr_t)v);
		if (err) {
			__atomic_store_n(&lr.err, err, __ATOMIC_RELAXED);
			break;
		}
		sent++;
	}
	lr.submitted[p] = sent;
	return NULL;
}

/* For a loop scheduler: threads donated to run it until told to stop. */
struct lr_donor {
	struct exec_loop_scheduler *ls;
	struct exec_work_guard guard;
	bool stop;
};

static void *lr_donor_main(void *arg)
{
	struct lr_donor *d = arg;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE))
		exec_loop_scheduler_run_for(d->ls, 10000000);
	return NULL;
}

/* Starts @n threads that run @ls; a work guard keeps them waiting for work. */
static int lr_donors_start(struct lr_donor *d, struct exec_loop_scheduler *ls,
			   pthread_t *threads, unsigned int n)
{
	unsigned int i;

	d->ls = ls;
	d->stop = false;
	if (exec_work_guard_init(&d->guard, exec_loop_scheduler_executor(ls)))
		return -1;
	for (i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, lr_donor_main, d);
	return 0;
}

static void lr_donors_stop(struct lr_donor *d, pthread_t *threads,
			   unsigned int n)
{
	unsigned int i;

	__atomic_store_n(&d->stop, true, __ATOMIC_RELEASE);
	exec_work_guard_reset(&d->guard);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
}

static int lr_count_one(const char *name, struct exec_executor *ex,
			unsigned long n, bool ordered)
{
	size_t words = (n + 63) / 64;
	pthread_t producers[LR_PRODUCERS];
	unsigned long ran, seen = 0, last_done = 0, i;
	uint64_t t0, t1, progress;
	unsigned int p;
	bool ok;

	memset(&lr, 0, sizeof(lr));
	lr.ex = ex;
	lr.n = n;
	lr.ordered = ordered;
	for (p = 0; p < LR_PRODUCERS; p++)
		lr.last[p] = ULONG_MAX;
	lr.seen = calloc(words, sizeof(*lr.seen));
	if (!lr.seen) {
		fprintf(stderr, "exec-longrun: out of memory\n");
		return -1;
	}
	t0 = lr_now();
	progress = t0;
	for (p = 0; p < LR_PRODUCERS; p++)
		pthread_create(&producers[p], NULL, lr_count_producer,
			       (void *)(uintptr_t)p);
	for (p = 0; p < LR_PRODUCERS; p++)
		pthread_join(producers[p], NULL);
	/* Everything submitted: wait until it has run, or stalls. */
	for (;;) {
		ran = __atomic_load_n(&lr.done, __ATOMIC_ACQUIRE);
		if (ran >= lr.submitted[0] + lr.submitted[1])
			break;
		if (ran != last_done) {
			last_done = ran;
			progress = lr_now();
		} else if (lr_now() - progress > LR_STALL_NS) {
			break;
		}
		usleep(1000);
	}
	t1 = lr_now();
	for (i = 0; i < words; i++)
		seen += (unsigned long)__builtin_popcountll(lr.seen[i]);
	ok = !lr.err && seen == n && ran == n && !lr.dups && !lr.order_errors;
	lr_begin("count");
	printf(",\"executor\":\"%s\"", name);
	lr_u("tasks", n);
	lr_u("ran", ran);
	lr_u("distinct", seen);
	lr_u("duplicates", lr.dups);
	lr_u("order_violations", lr.order_errors);
	printf(",\"error\":%d,\"seconds\":%.3f,\"ops_per_s\":%.0f", lr.err,
	       (t1 - t0) / 1e9, ran / ((t1 - t0) / 1e9));
	lr_end(ok);
	free(lr.seen);
	return ok ? 0 : -1;
}

static int lr_count(unsigned long n)
{
	struct exec_thread_pool_attr grow = { .max_threads = 8 };
	struct exec_managed_queue_attr mq_attr = { .name = "longrun" };
	struct exec_thread_pool *pool, *gpool;
	struct exec_thread_per_task *tpt;
	struct exec_loop_scheduler *ls;
	struct exec_managed_queue *mq;
	struct exec_priority *prio;
	struct exec_serial *serial;
	struct lr_donor donor;
	pthread_t donors[2];
	int fails = 0;

	if (exec_thread_pool_create(&pool, NULL) ||
	    exec_thread_pool_create(&gpool, &grow) ||
	    exec_serial_create(&serial, exec_thread_pool_executor(pool)) ||
	    exec_priority_create(&prio, exec_thread_pool_executor(pool),
				 NULL) ||
	    exec_managed_queue_create(&mq, exec_thread_pool_executor(pool),
				      &mq_attr) ||
	    exec_thread_per_task_create(&tpt) ||
	    exec_loop_scheduler_create(&ls)) {
		fprintf(stderr, "exec-longrun: creating the executors failed\n");
		return 1;
	}
	if (lr_donors_start(&donor, ls, donors, 2))
		return 1;

	fails -= lr_count_one("thread_pool", exec_thread_pool_executor(pool),
			      n, false);
	fails -= lr_count_one("thread_pool_growing",
			      exec_thread_pool_executor(gpool), n, false);
	fails -= lr_count_one("serial", exec_serial_executor(serial), n, true);
	fails -= lr_count_one("priority", exec_priority_executor(prio), n,
			      true);
	fails -= lr_count_one("managed_queue", exec_managed_queue_executor(mq),
			      n, false);
	fails -= lr_count_one("loop_scheduler",
			      exec_loop_scheduler_executor(ls), n, false);
	fails -= lr_count_one("default", exec_default_executor(), n, false);
	fails -= lr_count_one("inline", exec_inline_executor(), n, false);
	fails -= lr_count_one("thread_per_task",
			      exec_thread_per_task_executor(tpt),
			      n < LR_TPT_MAX ? n : LR_TPT_MAX, false);

	lr_donors_stop(&donor, donors, 2);
	if (exec_loop_scheduler_destroy(ls) < 0 ||
	    exec_thread_per_task_destroy(tpt) ||
	    exec_managed_queue_destroy(mq) < 0 ||
	    exec_priority_destroy(prio) < 0 ||
	    exec_serial_destroy(serial) < 0 ||
	    exec_thread_pool_destroy(gpool) < 0 ||
	    exec_thread_pool_destroy(pool) < 0) {
		fprintf(stderr, "exec-longrun: destroying the executors failed\n");
		fails++;
	}
	return fails ? 1 : 0;
}

/* --- soak -------------------------------------------------------------- */

#define SOAK_TIMERS	1024
/* Most closures submitted and not yet run: 256 KiB of them. */
#define SOAK_WINDOW	4096
#define SOAK_SERIALS	4

/*
 * A slot's state.  CANCELLED: a plain cancel took it back, perhaps after it
 * came due, so it is idle only once its executor has dequeued it; like
 * FIRED, it is reused after exec_timer_cancel_sync() says it is idle.
 */
enum { SOAK_IDLE, SOAK_ARMED, SOAK_FIRED, SOAK_CANCELLED };

struct soak_timer {
	struct exec_timer timer;
	uint64_t deadline;
	int state;		/* SOAK_*, atomic */
};

static struct {
	unsigned long submitted;	/* closures, by the main thread */
	unsigned long ran;		/* atomic */
	unsigned long armed, cancelled;	/* by the main thread */
	unsigned long fired;		/* atomic */
	unsigned long early;		/* atomic */
	struct soak_timer timers[SOAK_TIMERS];
} soak;

static void soak_task(void *arg)
{
	__atomic_fetch_add(&soak.ran, 1, __ATOMIC_RELEASE);
}

static void soak_timer_fn(struct exec_work *work)
{
	struct soak_timer *t = (struct soak_timer *)((char *)work -
			       offsetof(struct soak_timer, timer.work));

	if (exec_clock_now(EXEC_CLOCK_MONOTONIC) < t->deadline)
		__atomic_fetch_add(&soak.early, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&soak.fired, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&t->state, SOAK_FIRED, __ATOMIC_RELEASE);
}

/* Resident set (KiB), threads and open descriptors of this process. */
static void soak_sample(unsigned long *rss_kb, unsigned long *threads,
			unsigned long *fds)
{
	char line[256];
	struct dirent *de;
	FILE *f;
	DIR *d;

	*rss_kb = *threads = *fds = 0;
	f = fopen("/proc/self/status", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "VmRSS: %lu", rss_kb) == 1)
				continue;
			if (sscanf(line, "Threads: %lu", threads) == 1)
				continue;
		}
		fclose(f);
	}
	d = opendir("/proc/self/fd");
	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				(*fds)++;
		closedir(d);
	}
	/* The directory stream itself was one of them. */
	if (*fds)
		(*fds)--;
}

static uint64_t soak_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int soak_fail(const char *what, int err)
{
	fprintf(stderr, "exec-longrun: soak: %s failed: %d\n", what, err);
	return 1;
}

static int soak_run(unsigned long seconds, unsigned long baseline)
{
	struct exec_executor *targets[2 + SOAK_SERIALS];
	struct exec_serial *serials[SOAK_SERIALS];
	unsigned long rss, thr, fds, rss_base = 0, thr_base = 0, fds_base = 0;
	unsigned long rss_max = 0, thr_max = 0, fds_max = 0, second = 0;
	unsigned long i, k, growth = 0;
	struct exec_loop_scheduler *ls;
	struct exec_thread_pool *pool;
	uint64_t seed = 0x736f616b, t0, next_sample, r;
	struct lr_donor donor;
	pthread_t donor_thread;
	struct soak_timer *t;
	int ret;
	bool ok;

	if (exec_thread_pool_create(&pool, NULL) ||
	    exec_loop_scheduler_create(&ls)) {
		fprintf(stderr, "exec-longrun: creating the executors failed\n");
		return 1;
	}
	targets[0] = exec_thread_pool_executor(pool);
	targets[1] = exec_loop_scheduler_executor(ls);
	for (i = 0; i < SOAK_SERIALS; i++) {
		if (exec_serial_create(&serials[i], targets[0]))
			return soak_fail("exec_serial_create", -1);
		targets[2 + i] = exec_serial_executor(serials[i]);
	}
	for (i = 0; i < SOAK_TIMERS; i++)
		exec_timer_init(&soak.timers[i].timer, soak_timer_fn, NULL);
	if (lr_donors_start(&donor, ls, &donor_thread, 1))
		return soak_fail("exec_work_guard_init", -1);

	t0 = lr_now();
	next_sample = t0;
	while (second < seconds) {
		/* A burst of closures over every executor. */
		for (k = 0; k < 256; k++) {
			r = soak_rand(&seed);
			ret = exec_submit_fn(targets[r % (2 + SOAK_SERIALS)],
					     soak_task, NULL);
			if (ret)
				return soak_fail("exec_submit_fn", ret);
			soak.submitted++;
		}
		/* Arm a few timed items, cancel some of the armed ones. */
		for (k = 0; k < 8; k++) {
			r = soak_rand(&seed);
			t = &soak.timers[r % SOAK_TIMERS];
			switch (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE)) {
			case SOAK_ARMED:
				if (r & 0x300)
					break;
				ret = (r & 0x400) ?
				      exec_timer_cancel_sync(&t->timer) :
				      exec_timer_cancel(&t->timer);
				if (ret == 1) {
					soak.cancelled++;
					t->state = SOAK_CANCELLED;
				}
				break;
			case SOAK_CANCELLED:
			case SOAK_FIRED:
				/* Wait until its function has returned. */
				exec_timer_cancel_sync(&t->timer);
				t->state = SOAK_IDLE;
				/* fall through */
			case SOAK_IDLE:
				t->deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) +
					      (r >> 20) % 50000000;
				t->state = SOAK_ARMED;
				ret = exec_submit_at(targets[(r >> 8) % 2 ? 0 :
							     2 + (r >> 9) %
							     SOAK_SERIALS],
						     &t->timer,
						     EXEC_CLOCK_MONOTONIC,
						     t->deadline);
				if (ret)
					return soak_fail("exec_submit_at", ret);
				soak.armed++;
				break;
			}
		}
		/*
		 * Keep the backlog bounded, and the machine usable.  Each
		 * executor keeps the closures of its largest backlog (their
		 * memory lives as long as the executor), so the bound is what
		 * a steady resident set can be asked of.
		 */
		while (soak.submitted - __atomic_load_n(&soak.ran,
							__ATOMIC_ACQUIRE) >
		       SOAK_WINDOW)
			sched_yield();
		usleep(200);

		if (lr_now() < next_sample)
			continue;
		next_sample += 1000000000ULL;
		second++;
		soak_sample(&rss, &thr, &fds);
		if (second <= baseline) {
			rss_base = rss > rss_base ? rss : rss_base;
			thr_base = thr > thr_base ? thr : thr_base;
			fds_base = fds > fds_base ? fds : fds_base;
			continue;
		}
		rss_max = rss > rss_max ? rss : rss_max;
		thr_max = thr > thr_max ? thr : thr_max;
		fds_max = fds > fds_max ? fds : fds_max;
		if (rss > rss_base + 1024 || thr > thr_base || fds > fds_base) {
			if (!growth) {
				lr_begin("soak");
				lr_u("growth_at_s", second);
				lr_u("rss_kb", rss);
				lr_u("threads", thr);
				lr_u("fds", fds);
				lr_end(false);
			}
			growth++;
		}
		if (!(second % 60)) {
			lr_begin("soak");
			lr_u("second", second);
			lr_u("rss_kb", rss);
			lr_u("threads", thr);
			lr_u("fds", fds);
			lr_u("closures", soak.submitted);
			lr_u("timers_armed", soak.armed);
			lr_end(!growth);
		}
	}

	/* Drain: every closure runs, every timed item fires or is cancelled. */
	while (__atomic_load_n(&soak.ran, __ATOMIC_ACQUIRE) < soak.submitted)
		usleep(1000);
	for (i = 0; i < SOAK_TIMERS; i++) {
		t = &soak.timers[i];
		if (exec_timer_cancel_sync(&t->timer) == 1)
			soak.cancelled++;
	}
	lr_donors_stop(&donor, &donor_thread, 1);
	for (i = 0; i < SOAK_SERIALS; i++)
		if (exec_serial_destroy(serials[i]) < 0)
			return soak_fail("exec_serial_destroy", -1);
	if (exec_loop_scheduler_destroy(ls) < 0 ||
	    exec_thread_pool_destroy(pool) < 0)
		return soak_fail("destroying the executors", -1);

	ok = !growth && soak.ran == soak.submitted &&
	     soak.armed == soak.fired + soak.cancelled && !soak.early;
	lr_begin("soak");
	lr_u("seconds", seconds);
	lr_u("baseline_s", baseline);
	lr_u("closures", soak.submitted);
	lr_u("ran", soak.ran);
	lr_u("timers_armed", soak.armed);
	lr_u("fired", soak.fired);
	lr_u("cancelled", soak.cancelled);
	lr_u("early", soak.early);
	lr_u("rss_base_kb", rss_base);
	lr_u("rss_max_kb", rss_max);
	lr_u("threads_base", thr_base);
	lr_u("threads_max", thr_max);
	lr_u("fds_base", fds_base);
	lr_u("fds_max", fds_max);
	lr_u("growth_samples", growth);
	lr_end(ok);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "count"))
		return lr_count(strtoul(argv[2], NULL, 0));
	if (argc >= 3 && !strcmp(argv[1], "soak")) {
		unsigned long s = strtoul(argv[2], NULL, 0);
		unsigned long b = argc > 3 ? strtoul(argv[3], NULL, 0) : 60;

		if (b >= s) {
			fprintf(stderr,
				"exec-longrun: the baseline must be shorter than the run\n");
			return 2;
		}
		return soak_run(s, b);
	}
	fprintf(stderr,
		"usage: exec-longrun count N\n"
		"       exec-longrun soak SECONDS [BASELINE_SECONDS]\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec-nproc-test: every call that starts threads, with RLIMIT_NPROC
 * reached part-way.  For scripts/check-hostile.sh.
 *
 * RLIMIT_NPROC does not bind root, so a process started as root first
 * becomes nobody (65534).  The limit counts every task of the real user,
 * so the test measures how many that user has (the base) and sets the soft
 * limit to base + the number of threads a case may start; the hard limit
 * stays where it was, so the soft one can be raised again.
 *
 * Each case checks the documented error (exec_thread_pool_create() and a
 * thread-per-task submission: -EAGAIN; the first timed item of an
 * executor, whose deadline thread cannot start: -EAGAIN; the default
 * executor's built-in pool: NULL and -ENOMEM), that nothing is left behind
 * (the process's thread count) and that the objects still work once the
 * limit allows.  Prints one line per case and "N passed, N failed" last;
 * exit status 77 if it cannot drop root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <exec/exec.h>

#define NT_NOBODY	65534
#define NT_ITEMS	10000

static unsigned int nt_base;
static int nt_passed, nt_failed;
static char nt_why[256];

#define NT_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(nt_why, sizeof(nt_why), __VA_ARGS__);	\
			return false;					\
		}							\
	} while (0)

static void nt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The process's threads, from /proc/self/status. */
static unsigned int nt_threads(void)
{
	char line[128];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * Wait until the process is back to its one thread: a joined thread
 * leaves the count a moment after its join returned.
 */
static unsigned int nt_threads_settled(void)
{
	int i;

	for (i = 0; i < 200 && nt_threads() != 1; i++)
		nt_sleep_ms(5);
	return nt_threads();
}

static int nt_set_soft(rlim_t soft)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl))
		return -errno;
	rl.rlim_cur = soft;
	if (rl.rlim_max != RLIM_INFINITY && soft > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NPROC, &rl) ? -errno : 0;
}

static void *nt_nothing(void *arg)
{
	return arg;
}

/* Can one more thread start under a soft limit of @limit? */
static bool nt_can_start(rlim_t limit)
{
	pthread_t t;

	if (nt_set_soft(limit))
		return false;
	if (pthread_create(&t, NULL, nt_nothing, NULL))
		return false;
	pthread_join(t, NULL);
	return true;
}

/*
 * The user's task count as the limit sees it: the smallest limit under
 * which one more thread starts, minus one.  A thread joined a moment ago
 * may still be counted (it is released after its join wakes), so callers
 * that need the count back at a known value poll nt_settle().
 */
static unsigned int nt_count(void)
{
	rlim_t l;

	for (l = 1; l < 65536; l++)
		if (nt_can_start(l))
			return l - 1;
	return 0;
}

/* Wait until the user's tasks are back to the base. */
static bool nt_settle(void)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (nt_count() <= nt_base)
			return true;
		nt_sleep_ms(5);
	}
	return false;
}

/* Allow @n more threads than the base. */
static void nt_allow(unsigned int n)
{
	nt_set_soft(nt_base + n);
}

static atomic_long nt_ran;

static void nt_count_fn(void *arg)
{
	atomic_fetch_add(&nt_ran, 1);
}

static void nt_work_fn(struct exec_work *work)
{
	atomic_fetch_add(&nt_ran, 1);
}

static void nt_timer_fn(struct exec_work *work)
{
	atomic_fetch_add(&nt_ran, 1);
}

static bool nt_wait_ran(long want)
{
	int i;

	for (i = 0; i < 5000 && atomic_load(&nt_ran) < want; i++)
		nt_sleep_ms(1);
	return atomic_load(&nt_ran) == want;
}

/* A pool whose workers cannot all start is not created; none is left. */
static bool nt_pool_partial(unsigned int allowed)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool = NULL;
	int ret;

	nt_allow(allowed);
	ret = exec_thread_pool_create(&pool, &attr);
	nt_allow(64);
	NT_CHECK(ret == -EAGAIN, "create with %u of 2 threads: %d, want -EAGAIN",
		 allowed, ret);
	NT_CHECK(nt_threads_settled() == 1,
		 "%u threads left after the failed create", nt_threads() - 1);
	return true;
}

static bool nt_case_pool_none(void)
{
	return nt_pool_partial(0);
}

static bool nt_case_pool_one_of_two(void)
{
	return nt_pool_partial(1);
}

/*
 * A pool at the limit: it works; a thread-per-task submission and the
 * first timed item fail with -EAGAIN, leave their items idle, and succeed
 * once the limit allows.
 */
static bool nt_case_at_limit(void)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_per_task *tpt = NULL;
	struct exec_thread_pool *pool = NULL;
	struct exec_executor *ex, *tex;
	struct exec_timer timer;
	struct exec_work work;
	bool ok = false;
	int i, ret;

	nt_allow(2);
	ret = exec_thread_pool_create(&pool, &attr);
	NT_CHECK(!ret, "create with 2 of 2 threads: %d", ret);
	ex = exec_thread_pool_executor(pool);
	atomic_store(&nt_ran, 0);
	for (i = 0; i < NT_ITEMS; i++) {
		ret = exec_submit_fn(ex, nt_count_fn, NULL);
		if (ret) {
			snprintf(nt_why, sizeof(nt_why), "submit %d: %d", i,
				 ret);
			goto out_pool;
		}
	}
	if (!nt_wait_ran(NT_ITEMS)) {
		snprintf(nt_why, sizeof(nt_why), "%ld of %d items ran",
			 atomic_load(&nt_ran), NT_ITEMS);
		goto out_pool;
	}

	exec_timer_init(&timer, nt_timer_fn, NULL);
	ret = exec_submit_after(ex, &timer, 1000000);
	if (ret != -EAGAIN) {
		snprintf(nt_why, sizeof(nt_why),
			 "first timed item at the limit: %d, want -EAGAIN", ret);
		goto out_pool;
	}
	ret = exec_thread_per_task_create(&tpt);
	if (ret) {
		snprintf(nt_why, sizeof(nt_why), "tpt create: %d", ret);
		goto out_pool;
	}
	tex = exec_thread_per_task_executor(tpt);
	exec_work_init(&work, nt_work_fn);
	ret = exec_submit(tex, &work);
	if (ret != -EAGAIN) {
		snprintf(nt_why, sizeof(nt_why),
			 "thread-per-task submit at the limit: %d, want -EAGAIN",
			 ret);
		goto out_tpt;
	}
	if (atomic_load(&nt_ran) != NT_ITEMS) {
		snprintf(nt_why, sizeof(nt_why), "a refused item ran");
		goto out_tpt;
	}

	/* One more thread: the deadline thread; the same items, again. */
	nt_allow(3);
	ret = exec_submit_after(ex, &timer, 1000000);
	if (ret) {
		snprintf(nt_why, sizeof(nt_why),
			 "timed item once allowed: %d", ret);
		goto out_tpt;
	}
	ret = exec_submit(tex, &work);
	if (ret != -EAGAIN) {
		snprintf(nt_why, sizeof(nt_why),
			 "thread-per-task submit with the deadline thread started: %d, want -EAGAIN",
			 ret);
		goto out_tpt;
	}
	nt_allow(4);
	ret = exec_submit(tex, &work);
	if (ret) {
		snprintf(nt_why, sizeof(nt_why),
			 "thread-per-task submit once allowed: %d", ret);
		goto out_tpt;
	}
	if (!nt_wait_ran(NT_ITEMS + 2)) {
		snprintf(nt_why, sizeof(nt_why),
			 "%ld items ran after the limit was raised, want %d",
			 atomic_load(&nt_ran), NT_ITEMS + 2);
		goto out_tpt;
	}
	ok = true;
out_tpt:
	nt_allow(64);
	ret = exec_thread_per_task_destroy(tpt);
	if (ok && ret) {
		snprintf(nt_why, sizeof(nt_why), "tpt destroy: %d", ret);
		ok = false;
	}
out_pool:
	nt_allow(64);
	if (exec_thread_pool_destroy(pool) < 0 && ok) {
		snprintf(nt_why, sizeof(nt_why), "pool destroy failed");
		ok = false;
	}
	return ok;
}

/* Items of a growing pool that cannot grow: all run, on the one worker. */
static void nt_block_fn(void *arg)
{
	exec_blocking_begin();
	nt_sleep_ms(20);
	exec_blocking_end();
	atomic_fetch_add(&nt_ran, 1);
}

static bool nt_case_grow_refused(void)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1,
		.max_threads = 4,
	};
	struct exec_thread_pool *pool = NULL;
	struct exec_executor *ex;
	unsigned int live;
	bool ok = false;
	int i, ret;

	/* The worker and the manager; no room to grow. */
	nt_allow(2);
	ret = exec_thread_pool_create(&pool, &attr);
	NT_CHECK(!ret, "growing pool create with room for 2 threads: %d", ret);
	ex = exec_thread_pool_executor(pool);
	atomic_store(&nt_ran, 0);
	for (i = 0; i < 4; i++)
		if (exec_submit_fn(ex, nt_block_fn, NULL))
			goto out;
	for (i = 0; i < 1000; i++)
		if (exec_submit_fn(ex, nt_count_fn, NULL))
			goto out;
	if (!nt_wait_ran(1004)) {
		snprintf(nt_why, sizeof(nt_why), "%ld of 1004 items ran",
			 atomic_load(&nt_ran));
		goto out;
	}
	live = exec_thread_pool_nr_live(pool);
	if (live != 1) {
		snprintf(nt_why, sizeof(nt_why),
			 "%u workers live with room for one", live);
		goto out;
	}
	ok = true;
out:
	if (!ok && !nt_why[0])
		snprintf(nt_why, sizeof(nt_why), "a submission failed");
	nt_allow(64);
	exec_thread_pool_destroy(pool);
	return ok;
}

/* The default executor's pool: NULL and -ENOMEM until it can start. */
static bool nt_case_default(void)
{
	struct exec_executor *ex;
	int ret;

	nt_allow(0);
	ex = exec_default_executor();
	ret = exec_default_submit_fn(nt_count_fn, NULL);
	nt_allow(64);
	NT_CHECK(!ex, "the default executor started with no thread allowed");
	NT_CHECK(ret == -ENOMEM, "default submit: %d, want -ENOMEM", ret);
	NT_CHECK(nt_threads_settled() == 1, "%u threads left",
		 nt_threads() - 1);

	atomic_store(&nt_ran, 0);
	ret = exec_default_submit_fn(nt_count_fn, NULL);
	NT_CHECK(!ret, "default submit once allowed: %d", ret);
	NT_CHECK(nt_wait_ran(1), "the default executor's item did not run");
	return true;
}

/* @leaves_threads: the case leaves threads running on purpose. */
static void nt_run(const char *name, bool (*fn)(void), bool leaves_threads)
{
	bool ok;

	nt_why[0] = '\0';
	ok = fn();
	if (ok && !leaves_threads && !nt_settle()) {
		snprintf(nt_why, sizeof(nt_why),
			 "the user's tasks did not return to %u", nt_base);
		ok = false;
	}
	if (ok) {
		printf("nproc: %s: ok\n", name);
		nt_passed++;
	} else {
		printf("nproc: %s: FAILED: %s\n", name, nt_why);
		nt_failed++;
	}
	fflush(stdout);
}

static int nt_drop_root(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setgid(NT_NOBODY) || setuid(NT_NOBODY))
		return -errno;
	return 0;
}

int main(void)
{
	int ret = nt_drop_root();

	if (ret) {
		printf("nproc: not run: cannot become nobody: %s\n",
		       strerror(-ret));
		return 77;
	}
	if (nt_threads() != 1) {
		printf("nproc: not run: started with %u threads\n",
		       nt_threads());
		return 77;
	}
	nt_base = nt_count();
	nt_allow(64);

	nt_run("pool-no-thread", nt_case_pool_none, false);
	nt_run("pool-one-of-two", nt_case_pool_one_of_two, false);
	nt_run("at-limit", nt_case_at_limit, false);
	nt_run("grow-refused", nt_case_grow_refused, false);
	/* Last: the default executor's pool stays once started. */
	nt_run("default-executor", nt_case_default, true);

	printf("nproc: %d passed, %d failed\n", nt_passed, nt_failed);
	return nt_failed ? 1 : 0;
}

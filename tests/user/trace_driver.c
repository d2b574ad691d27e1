// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program scripts/check-trace.sh traces: it uses the shared library
 * through the public API only, and makes each USDT probe fire at least
 * once.  A one-thread pool parks and is woken (exec_worker_park/_wake);
 * plain items on it are queued, started and finished; items on a serial
 * executor over it are also activated; a timed item is armed and fires,
 * and another is armed and cancelled.  Exits 0 when every item ran and the
 * cancelled one did not.
 */
#include <exec/exec.h>
#include <stdio.h>
#include <time.h>

#define NR_ITEMS	100

static void count(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

static int timed_runs;

static void timed(struct exec_work *work)
{
	__atomic_add_fetch(&timed_runs, 1, __ATOMIC_RELAXED);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(void)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_timer soon, late;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_executor *ex;
	int i, ran = 0, ret = 0;

	if (exec_thread_pool_create(&pool, &attr))
		return 1;
	ex = exec_thread_pool_executor(pool);
	if (exec_serial_create(&serial, ex)) {
		exec_thread_pool_destroy(pool);
		return 1;
	}
	/* Let the worker park, so that the items wake it. */
	pause_ms(50);
	for (i = 0; i < NR_ITEMS; i++) {
		ret |= exec_submit_fn(ex, count, &ran);
		ret |= exec_submit_fn(exec_serial_executor(serial), count, &ran);
	}
	exec_timer_init(&soon, timed, NULL);
	exec_timer_init(&late, timed, NULL);
	ret |= exec_submit_after(ex, &soon, 10 * 1000000ULL);
	ret |= exec_submit_after(ex, &late, 3600 * 1000000000ULL);
	if (exec_timer_cancel_sync(&late) != 1)
		ret = 1;
	pause_ms(100);
	exec_thread_pool_join(pool);
	exec_serial_destroy(serial);
	exec_thread_pool_destroy(pool);
	if (ret || ran != 2 * NR_ITEMS || timed_runs != 1) {
		fprintf(stderr, "trace-driver: ret %d, %d items of %d ran, %d timed of 1\n",
			ret, ran, 2 * NR_ITEMS, timed_runs);
		return 1;
	}
	return 0;
}

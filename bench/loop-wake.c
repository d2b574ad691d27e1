// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * loop-wake: wakeup_latency of a loop executor driven by another library's
 * event loop (examples/loop/), beside that library's own cross-thread
 * wake-up, measured in the same run, interleaved.
 *
 *	loop-wake glib|uv|glib-invoke|glib-split [SAMPLES]
 *
 * A host thread runs the library's loop; this thread, one sample at a
 * time, 200 us apart, alternately submits an item to the loop executor
 * (latency: until the item starts on the host thread) and wakes the host
 * through the library (g_main_context_wakeup(): until
 * g_main_context_iteration() returns; uv_async_send(): until the async
 * callback runs).  Prints the median and the 99th percentile of each, in
 * ns, and their ratios.
 *
 * glib-invoke adds a third sample to each round: a function run on the
 * context the way a GLib program runs one from another thread,
 * g_main_context_invoke() (an idle source attached, the context woken),
 * until it starts; a second reference, reported beside the first.
 * glib-split times, on the host thread, the return from the context's
 * poll, through a poll function of its own (g_main_context_set_poll_func()),
 * and splits each latency there: the wake-up (until poll() returns) and
 * what the host runs before the item starts, or the iteration returns.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <exec/exec.h>
#include <exec/user.h>

#include "../examples/loop/exec-glib.h"
#include "../examples/loop/exec-uv.h"

#define LW_PERIOD_NS	200000L

struct lw_item {
	struct exec_work work;
	unsigned long long submit_ns;
};

static struct exec_loop *lw_loop;
static unsigned long long *lw_exec_lat, *lw_native_lat;
static atomic_ulong lw_exec_n, lw_native_n;
static atomic_ullong lw_native_stamp;
static atomic_int lw_stop;
static unsigned long long *lw_invoke_lat, lw_poll_ns;
static unsigned long long *lw_exec_after, *lw_native_after;
static atomic_ulong lw_invoke_n;
static atomic_ullong lw_invoke_stamp;
static bool lw_split;

static unsigned long long lw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void lw_item_fn(struct exec_work *work)
{
	struct lw_item *it = (struct lw_item *)work;

	unsigned long long now = lw_now();
	unsigned long k = atomic_load(&lw_exec_n);

	if (lw_split)
		lw_exec_after[k] = now - lw_poll_ns;
	lw_exec_lat[k] = now - it->submit_ns;
	atomic_store(&lw_exec_n, k + 1);
}

static void lw_native_seen(unsigned long long t)
{
	unsigned long long s = atomic_exchange(&lw_native_stamp, 0);

	unsigned long k = atomic_load(&lw_native_n);

	if (!s)
		return;
	if (lw_split)
		lw_native_after[k] = t - lw_poll_ns;
	lw_native_lat[k] = t - s;
	atomic_store(&lw_native_n, k + 1);
}

/* GLib */
static GMainContext *lw_ctx;

/* glib-split: when the context's poll returned, on the host thread. */
static gint lw_glib_poll(GPollFD *fds, guint nfds, gint timeout)
{
	gint ret = g_poll(fds, nfds, timeout);

	lw_poll_ns = lw_now();
	return ret;
}

static void *lw_glib_host(void *arg)
{
	GSource *src = exec_glib_source_new(lw_loop);

	if (lw_split)
		g_main_context_set_poll_func(lw_ctx, lw_glib_poll);
	g_main_context_push_thread_default(lw_ctx);
	g_source_attach(src, lw_ctx);
	while (!atomic_load(&lw_stop)) {
		g_main_context_iteration(lw_ctx, TRUE);
		lw_native_seen(lw_now());
	}
	g_source_destroy(src);
	g_source_unref(src);
	g_main_context_pop_thread_default(lw_ctx);
	return NULL;
}

static void lw_glib_wake(void)
{
	g_main_context_wakeup(lw_ctx);
}

static gboolean lw_glib_invoked(gpointer data)
{
	unsigned long long t = lw_now();
	unsigned long k = atomic_load(&lw_invoke_n);

	lw_invoke_lat[k] = t - atomic_exchange(&lw_invoke_stamp, 0);
	atomic_store(&lw_invoke_n, k + 1);
	return G_SOURCE_REMOVE;
}

/* libuv */
static uv_loop_t lw_uv;
static uv_async_t lw_async, lw_stop_async;
static struct exec_uv lw_adapter;

static void lw_uv_async(uv_async_t *a)
{
	lw_native_seen(lw_now());
}

static void lw_uv_stop(uv_async_t *a)
{
	uv_close((uv_handle_t *)&lw_async, NULL);
	uv_close((uv_handle_t *)&lw_stop_async, NULL);
	exec_uv_close(&lw_adapter, NULL);
}

static void *lw_uv_host(void *arg)
{
	uv_run(&lw_uv, UV_RUN_DEFAULT);
	return NULL;
}

static void lw_uv_wake(void)
{
	uv_async_send(&lw_async);
}

static int lw_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void lw_pause(void)
{
	struct timespec ts = { 0, LW_PERIOD_NS };

	nanosleep(&ts, NULL);
}

/* Sleeps until @count reaches @want: one sample in flight at a time. */
static void lw_wait(atomic_ulong *count, unsigned long want)
{
	do
		lw_pause();
	while (atomic_load(count) < want);
}

/* Sorts @lat and returns its median and 99th percentile. */
static void lw_stats(unsigned long long *lat, unsigned long n,
		     unsigned long long *med, unsigned long long *p99)
{
	qsort(lat, n, sizeof(*lat), lw_cmp);
	*med = lat[n / 2];
	*p99 = lat[n * 99 / 100];
}

/* glib-split: the medians of the two parts of each latency in @lat. */
static void lw_print_split(const char *what, unsigned long long *lat,
			   unsigned long long *after, unsigned long n)
{
	unsigned long long *before = calloc(n, sizeof(*before)), bm, am, x;
	unsigned long k;

	if (!before)
		return;
	for (k = 0; k < n; k++)
		before[k] = lat[k] - after[k];
	lw_stats(before, n, &bm, &x);
	lw_stats(after, n, &am, &x);
	printf("  %s: until poll() returns median %llu ns, after it %llu ns\n",
	       what, bm, am);
	free(before);
}

static int lw_alloc(unsigned long n, unsigned long long **a)
{
	*a = calloc(n, sizeof(**a));
	return *a ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 5000, k;
	bool invoke = argc > 1 && !strcmp(argv[1], "glib-invoke");
	bool glib = argc > 1 && (!strcmp(argv[1], "glib") || invoke ||
				 !strcmp(argv[1], "glib-split"));
	void (*wake)(void) = glib ? lw_glib_wake : lw_uv_wake;
	struct lw_item *items;
	unsigned long long em, e99, nm, n99, im, i99;
	pthread_t host;

	if (argc < 2 || (!glib && strcmp(argv[1], "uv")) || !n) {
		fprintf(stderr, "usage: loop-wake glib|uv|glib-invoke|glib-split [SAMPLES]\n");
		return 2;
	}
	lw_split = !strcmp(argv[1], "glib-split");
	items = calloc(n, sizeof(*items));
	if (!items || lw_alloc(n, &lw_exec_lat) ||
	    lw_alloc(n, &lw_native_lat) || lw_alloc(n, &lw_invoke_lat) ||
	    lw_alloc(n, &lw_exec_after) || lw_alloc(n, &lw_native_after) ||
	    exec_loop_create(&lw_loop))
		return 1;
	if (glib) {
		lw_ctx = g_main_context_new();
		pthread_create(&host, NULL, lw_glib_host, NULL);
	} else {
		uv_loop_init(&lw_uv);
		uv_async_init(&lw_uv, &lw_async, lw_uv_async);
		uv_async_init(&lw_uv, &lw_stop_async, lw_uv_stop);
		if (exec_uv_start(&lw_uv, &lw_adapter, lw_loop))
			return 1;
		pthread_create(&host, NULL, lw_uv_host, NULL);
	}
	lw_pause();
	for (k = 0; k < n; k++) {
		exec_work_init(&items[k].work, lw_item_fn);
		items[k].submit_ns = lw_now();
		exec_submit(exec_loop_executor(lw_loop), &items[k].work);
		lw_wait(&lw_exec_n, k + 1);
		atomic_store(&lw_native_stamp, lw_now());
		wake();
		lw_wait(&lw_native_n, k + 1);
		if (!invoke)
			continue;
		atomic_store(&lw_invoke_stamp, lw_now());
		g_main_context_invoke(lw_ctx, lw_glib_invoked, NULL);
		lw_wait(&lw_invoke_n, k + 1);
	}
	atomic_store(&lw_stop, 1);
	if (glib)
		g_main_context_wakeup(lw_ctx);
	else
		uv_async_send(&lw_stop_async);
	pthread_join(host, NULL);
	if (atomic_load(&lw_exec_n) != n || atomic_load(&lw_native_n) != n) {
		fprintf(stderr, "loop-wake: %lu and %lu of %lu samples\n",
			atomic_load(&lw_exec_n), atomic_load(&lw_native_n), n);
		return 1;
	}
	if (lw_split) {
		lw_print_split("exec item", lw_exec_lat, lw_exec_after, n);
		lw_print_split("g_main_context_wakeup()", lw_native_lat,
			       lw_native_after, n);
	}
	lw_stats(lw_exec_lat, n, &em, &e99);
	lw_stats(lw_native_lat, n, &nm, &n99);
	printf("%s: %lu samples each; exec item: median %llu ns, p99 %llu ns; %s: median %llu ns, p99 %llu ns; ratio median %.2f, p99 %.2f\n",
	       argv[1], n, em, e99,
	       glib ? "g_main_context_wakeup()" : "uv_async_send()", nm, n99,
	       (double)em / nm, (double)e99 / n99);
	if (invoke) {
		lw_stats(lw_invoke_lat, n, &im, &i99);
		printf("  second reference, g_main_context_invoke() from this thread: median %llu ns, p99 %llu ns; exec item's ratio to it median %.2f, p99 %.2f\n",
		       im, i99, (double)em / im, (double)e99 / i99);
	}
	exec_loop_destroy(lw_loop);
	if (glib)
		g_main_context_unref(lw_ctx);
	else
		uv_loop_close(&lw_uv);
	return 0;
}

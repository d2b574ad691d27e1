// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A loop executor, then a loop scheduler, run by another library's event
 * loop through the adapters of examples/loop/: built once per library
 * (LA_GLIB, LA_UV, LA_SD_EVENT), on the public API.  Other threads submit, items submit from inside, timed
 * items come due; checked: everything runs once, FIFO per submitter and
 * children after their parents, no timed item early and none later than
 * the host loop's own timers at the same deadlines by more than
 * LA_SLACK_NS, an idle loop costs its host loop no
 * wake-up, and destroying the adapter and the loop with work queued hands
 * every item to its discard callback.  Exit status 0 on success.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exec/exec.h>
#include <exec/user.h>

#if defined(LA_GLIB)
#include "../../examples/loop/exec-glib.h"
#define LA_NAME "glib"
#elif defined(LA_UV)
#include "../../examples/loop/exec-uv.h"
#define LA_NAME "libuv"
#elif defined(LA_SD_EVENT)
#include "../../examples/loop/exec-sd-event.h"
#define LA_NAME "sd-event"
#else
#error "LA_GLIB, LA_UV or LA_SD_EVENT"
#endif

#define LA_THREADS	3
#define LA_PER_THREAD	500
#define LA_TIMED	20
#define LA_STEP_NS	(5 * 1000000ULL)
#define LA_SLACK_NS	(50 * 1000000ULL)

struct la_item {
	struct exec_timer timer;
	int thread;
	int seq;
	unsigned long long deadline;
	int order;
	struct la_item *child;
};

static struct exec_loop *la_loop;
static struct exec_loop_scheduler *la_ls;	/* the second round's */
static struct exec_executor *la_ex;
static int la_ran, la_fifo_errors, la_early, la_failed;
static int la_last_seq[LA_THREADS];
static unsigned long long la_max_late, la_host_max_late;
static atomic_int la_discarded;
static struct la_item la_items[LA_THREADS][LA_PER_THREAD];
static struct la_item la_children[LA_PER_THREAD];
static struct la_item la_timed[LA_TIMED];

#define LA_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, LA_NAME ": line %d: %s\n", __LINE__, #cond); \
		la_failed++;						\
	}								\
} while (0)

static unsigned long long la_now(void)
{
	return exec_clock_now(EXEC_CLOCK_MONOTONIC);
}

static void la_fn(struct exec_work *work)
{
	struct la_item *it = (struct la_item *)work;
	unsigned long long now = la_now();

	it->order = ++la_ran;
	if (it->thread >= 0) {
		if (it->seq <= la_last_seq[it->thread])
			la_fifo_errors++;
		la_last_seq[it->thread] = it->seq;
	}
	if (it->deadline) {
		if (now < it->deadline)
			la_early++;
		else if (now - it->deadline > la_max_late)
			la_max_late = now - it->deadline;
	}
	if (it->child && exec_submit(la_ex, &it->child->timer.work))
		la_fifo_errors++;
}

static void la_discard(struct exec_work *work)
{
	atomic_fetch_add(&la_discarded, 1);
}

static void la_init(struct la_item *it, int thread, int seq)
{
	memset(it, 0, sizeof(*it));
	it->thread = thread;
	it->seq = seq;
	exec_timer_init(&it->timer, la_fn, la_discard);
}

/*
 * The host loop: la_host_init() creates it and attaches the adapter,
 * la_host_run() runs it until @want items ran or @ms passed and returns
 * the number of its iterations, la_host_detach() removes the adapter,
 * la_host_fini() frees the loop.
 */
static int la_timed_out;

/* A host timer came due: how late, by the library's clock. */
static void la_host_fired(unsigned long long deadline)
{
	unsigned long long now = la_now();

	if (now > deadline && now - deadline > la_host_max_late)
		la_host_max_late = now - deadline;
}

#if defined(LA_GLIB)
static GMainContext *la_ctx;
static GSource *la_src;
static int la_glib_ready_polls;

/* Counts the context's polls that found a descriptor ready. */
static gint la_glib_poll(GPollFD *fds, guint nfds, gint timeout)
{
	gint ret = g_poll(fds, nfds, timeout);

	if (ret > 0)
		la_glib_ready_polls++;
	return ret;
}

static gboolean la_glib_timeout(gpointer data)
{
	la_timed_out = 1;
	return G_SOURCE_REMOVE;
}

static int la_host_init(void)
{
	la_ctx = g_main_context_new();
	g_main_context_set_poll_func(la_ctx, la_glib_poll);
	la_src = la_ls ? exec_glib_scheduler_source_new(la_ls) :
			 exec_glib_source_new(la_loop);
	if (!la_src)
		return -1;
	g_source_attach(la_src, la_ctx);
	return 0;
}

static int la_host_run(int want, int ms)
{
	GSource *t = g_timeout_source_new(ms);
	int iterations = 0;

	la_timed_out = 0;
	g_source_set_callback(t, la_glib_timeout, NULL, NULL);
	g_source_attach(t, la_ctx);
	while (la_ran < want && !la_timed_out) {
		g_main_context_iteration(la_ctx, TRUE);
		iterations++;
	}
	g_source_destroy(t);
	g_source_unref(t);
	return iterations;
}

static gboolean la_glib_timer(gpointer data)
{
	la_host_fired(*(unsigned long long *)data);
	return G_SOURCE_REMOVE;
}

/* A host timer at @deadline (CLOCK_MONOTONIC, as g_get_monotonic_time()). */
static void la_host_timer(unsigned long long *deadline)
{
	GSource *t = g_timeout_source_new(0);

	g_source_set_ready_time(t, (*deadline + 999) / 1000);
	g_source_set_callback(t, la_glib_timer, deadline, NULL);
	g_source_attach(t, la_ctx);
	g_source_unref(t);
}

static void la_host_detach(void)
{
	g_source_destroy(la_src);
	g_source_unref(la_src);
}

static void la_host_fini(void)
{
	g_main_context_unref(la_ctx);
}

/* Whatever the context has to do, done without sleeping. */
static void la_glib_settle(void)
{
	int i;

	for (i = 0; i < 4; i++)
		g_main_context_iteration(la_ctx, FALSE);
}

static struct la_item la_one, la_nest, la_nest_child;
static int la_nested_polls, la_nested_child_ran;

/* An item that runs the context's iterations, as a modal dialog would. */
static void la_nest_fn(struct exec_work *work)
{
	int before = la_glib_ready_polls, i;

	la_fn(work);
	for (i = 0; i < 5; i++)
		g_main_context_iteration(la_ctx, FALSE);
	la_nested_polls = la_glib_ready_polls - before;
	la_nested_child_ran = la_nest_child.order != 0;
}

/*
 * An item submitted to the idle context costs it one poll that finds
 * something, and no later one (the source's dispatch writes nothing to the
 * context's own wake-up).  An item that runs a nested iteration: the source
 * is not dispatched inside it, nor does the nested loop find its
 * descriptor ready again and again; what the item submitted runs after.
 */
static void la_glib_wakeups(void)
{
	int ran = la_ran;

	la_glib_settle();
	la_glib_ready_polls = 0;
	la_init(&la_one, -1, 0);
	LA_CHECK(exec_submit(la_ex, &la_one.timer.work) == 0);
	la_host_run(ran + 1, 1000);
	la_glib_settle();
	LA_CHECK(la_ran == ran + 1);
	LA_CHECK(la_glib_ready_polls == 1);

	la_init(&la_nest, -1, 0);
	exec_timer_init(&la_nest.timer, la_nest_fn, la_discard);
	la_init(&la_nest_child, -1, 1);
	la_nest.child = &la_nest_child;
	LA_CHECK(exec_submit(la_ex, &la_nest.timer.work) == 0);
	la_host_run(ran + 3, 1000);
	LA_CHECK(la_ran == ran + 3);
	LA_CHECK(!la_nested_child_ran);
	LA_CHECK(la_nested_polls <= 2);
	LA_CHECK(la_nest_child.order > la_nest.order);
}
#elif defined(LA_UV)
static uv_loop_t la_uv;
static struct exec_uv la_adapter;
static int la_uv_nr_timers;

static void la_uv_timeout(uv_timer_t *t)
{
	la_timed_out = 1;
}

static int la_host_init(void)
{
	la_uv_nr_timers = 0;
	if (uv_loop_init(&la_uv))
		return -1;
	if (la_ls)
		return exec_uv_start_scheduler(&la_uv, &la_adapter, la_ls);
	return exec_uv_start(&la_uv, &la_adapter, la_loop);
}

static int la_host_run(int want, int ms)
{
	uv_timer_t t;
	int iterations = 0;

	la_timed_out = 0;
	uv_timer_init(&la_uv, &t);
	uv_timer_start(&t, la_uv_timeout, ms, 0);
	while (la_ran < want && !la_timed_out) {
		uv_run(&la_uv, UV_RUN_ONCE);
		iterations++;
	}
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(&la_uv, UV_RUN_NOWAIT);
	return iterations;
}

static uv_timer_t la_uv_timers[LA_TIMED];

static void la_uv_timer(uv_timer_t *t)
{
	la_host_fired(*(unsigned long long *)t->data);
	uv_close((uv_handle_t *)t, NULL);
}

/* A host timer at @deadline: libuv's are relative, in milliseconds. */
static void la_host_timer(unsigned long long *deadline)
{
	uv_timer_t *t = &la_uv_timers[la_uv_nr_timers++];
	unsigned long long now;

	uv_update_time(&la_uv);
	now = la_now();
	uv_timer_init(&la_uv, t);
	t->data = deadline;
	uv_timer_start(t, la_uv_timer, *deadline > now ?
		       (*deadline - now + 999999) / 1000000 : 0, 0);
}

static void la_host_detach(void)
{
	exec_uv_close(&la_adapter, NULL);
	uv_run(&la_uv, UV_RUN_NOWAIT);
}

static void la_host_fini(void)
{
	LA_CHECK(uv_loop_close(&la_uv) == 0);
}
#else
static sd_event *la_event;
static sd_event_source *la_src;

static int la_sd_timeout(sd_event_source *s, uint64_t usec, void *data)
{
	la_timed_out = 1;
	return 0;
}

static int la_host_init(void)
{
	if (sd_event_new(&la_event) < 0)
		return -1;
	if (la_ls)
		return exec_sd_event_add_scheduler(la_event, &la_src, la_ls);
	return exec_sd_event_add(la_event, &la_src, la_loop);
}

static int la_host_run(int want, int ms)
{
	sd_event_source *t;
	int iterations = 0;

	la_timed_out = 0;
	if (sd_event_add_time_relative(la_event, &t, CLOCK_MONOTONIC,
				       ms * 1000ULL, 0, la_sd_timeout,
				       NULL) < 0)
		return -1;
	while (la_ran < want && !la_timed_out) {
		if (sd_event_run(la_event, UINT64_MAX) < 0)
			break;
		iterations++;
	}
	sd_event_source_disable_unref(t);
	return iterations;
}

static int la_sd_timer(sd_event_source *s, uint64_t usec, void *data)
{
	la_host_fired(*(unsigned long long *)data);
	return 0;
}

/* A host timer at @deadline, with the finest accuracy sd-event takes. */
static void la_host_timer(unsigned long long *deadline)
{
	LA_CHECK(sd_event_add_time(la_event, NULL, CLOCK_MONOTONIC,
				   (*deadline + 999) / 1000, 1, la_sd_timer,
				   deadline) >= 0);
}

static void la_host_detach(void)
{
	sd_event_source_disable_unref(la_src);
}

static void la_host_fini(void)
{
	sd_event_unref(la_event);
}
#endif

static void *la_submitter(void *arg)
{
	int t = (int)(long)arg, i;

	for (i = 0; i < LA_PER_THREAD; i++) {
		if (exec_submit(la_ex, &la_items[t][i].timer.work))
			return (void *)1;
		if (!(i % 64))
			usleep(100);
	}
	return NULL;
}

static void la_run_everything(void)
{
	pthread_t tid[LA_THREADS];
	unsigned long long now = la_now(), armed;
	int t, i, total;
	void *res;

	for (t = 0; t < LA_THREADS; t++) {
		la_last_seq[t] = -1;
		for (i = 0; i < LA_PER_THREAD; i++)
			la_init(&la_items[t][i], t, i);
	}
	for (i = 0; i < LA_PER_THREAD; i++) {
		la_init(&la_children[i], -1, i);
		la_items[0][i].child = &la_children[i];
	}
	/* Armed in reverse order of their deadlines. */
	for (i = 0; i < LA_TIMED; i++) {
		la_init(&la_timed[i], -1, i);
		la_timed[i].deadline = now + (LA_TIMED - i) * LA_STEP_NS;
		LA_CHECK(exec_submit_at(la_ex, &la_timed[i].timer,
					EXEC_CLOCK_MONOTONIC,
					la_timed[i].deadline) == 0);
		la_host_timer(&la_timed[i].deadline);
	}
	armed = la_now();
	for (t = 0; t < LA_THREADS; t++)
		LA_CHECK(!pthread_create(&tid[t], NULL, la_submitter,
					 (void *)(long)t));
	total = LA_THREADS * LA_PER_THREAD + LA_PER_THREAD + LA_TIMED;
	la_host_run(total, 5000);
	/* The host's timers at the same deadlines, the last one included. */
	la_host_run(total + 1, (LA_TIMED + 1) * LA_STEP_NS / 1000000);
	for (t = 0; t < LA_THREADS; t++) {
		pthread_join(tid[t], &res);
		LA_CHECK(res == NULL);
	}
	LA_CHECK(la_ran == total);
	LA_CHECK(la_fifo_errors == 0);
	for (t = 0; t < LA_THREADS; t++)
		LA_CHECK(la_last_seq[t] == LA_PER_THREAD - 1);
	for (i = 0; i < LA_PER_THREAD; i++)
		LA_CHECK(la_children[i].order > la_items[0][i].order);
	/*
	 * In deadline order, of those armed before they came due: where the
	 * machine is busy (a sanitizer's run beside others), the arming
	 * thread may be preempted for longer than a step, and an item armed
	 * after its deadline runs when it is armed.
	 */
	for (i = 1; i < LA_TIMED; i++)
		if (la_timed[i].deadline > armed)
			LA_CHECK(la_timed[i].order < la_timed[i - 1].order);
	LA_CHECK(la_early == 0);
	LA_CHECK(la_max_late <= la_host_max_late + LA_SLACK_NS);
	printf(LA_NAME ": %d items, latest timed item %llu us late, the host's own timers %llu us\n",
	       total, la_max_late / 1000, la_host_max_late / 1000);
	/* Idle: the host's own timeout is the only thing it wakes for. */
	i = la_host_run(total + 1, 200);
	LA_CHECK(la_ran == total);
	LA_CHECK(i >= 1 && i <= 2);
}

/* Work queued and timed items armed, then the adapter and loop go. */
static void la_destroy_discards(void)
{
	unsigned long long now = la_now();
	int i, ran = la_ran;

	for (i = 0; i < LA_PER_THREAD; i++) {
		la_init(&la_items[0][i], -1, i);
		LA_CHECK(exec_submit(la_ex, &la_items[0][i].timer.work) == 0);
	}
	for (i = 0; i < LA_TIMED; i++) {
		la_init(&la_timed[i], -1, i);
		LA_CHECK(exec_submit_at(la_ex, &la_timed[i].timer,
					EXEC_CLOCK_MONOTONIC,
					now + 1000000000ULL) == 0);
	}
	la_host_detach();
	if (la_ls) {
		exec_on_work_finished(la_ex);
		LA_CHECK(exec_loop_scheduler_destroy(la_ls) ==
			 LA_PER_THREAD + LA_TIMED);
	} else {
		LA_CHECK(exec_loop_destroy(la_loop) == LA_PER_THREAD + LA_TIMED);
	}
	LA_CHECK(la_ran == ran);
	LA_CHECK(atomic_load(&la_discarded) == LA_PER_THREAD + LA_TIMED);
	la_host_fini();
}

/* One round over the executor in @la_ex, its host loop made anew. */
static int la_round(void)
{
	la_ran = 0;
	la_fifo_errors = 0;
	la_early = 0;
	la_max_late = 0;
	la_host_max_late = 0;
	atomic_store(&la_discarded, 0);
	if (la_host_init()) {
		fprintf(stderr, LA_NAME ": no adapter\n");
		return 1;
	}
	la_run_everything();
#if defined(LA_GLIB)
	la_glib_wakeups();
#endif
	la_destroy_discards();
	return 0;
}

int main(void)
{
	if (exec_loop_create(&la_loop)) {
		fprintf(stderr, LA_NAME ": no loop\n");
		return 1;
	}
	la_ex = exec_loop_executor(la_loop);
	if (la_round())
		return 1;
	/*
	 * A loop scheduler, the host loop's thread one more of its threads;
	 * a unit of work keeps it from stopping between the items.
	 */
	la_loop = NULL;
	if (exec_loop_scheduler_create(&la_ls)) {
		fprintf(stderr, LA_NAME ": no loop scheduler\n");
		return 1;
	}
	la_ex = exec_loop_scheduler_executor(la_ls);
	exec_on_work_started(la_ex);
	if (la_round())
		return 1;
	printf("%s: %s\n", LA_NAME, la_failed ? "FAILED" : "ok");
	return la_failed ? 1 : 0;
}

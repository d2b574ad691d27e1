// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: the trace events of include/trace/events/exec.h.
 *
 * Each case attaches probes to the tracepoints (register_trace_<event>(),
 * which kernel/trace.c exports to the test build), drives an executor, and
 * checks the events its items produced, in order, with the executor, its
 * kind and the item's function.  The probes record only the events of this
 * suite's functions (and, for the worker events, of its own pool), so that
 * other work of the kernel does not disturb the order.
 *
 * Without CONFIG_TRACEPOINTS there is nothing to attach to: the cases are
 * skipped.
 */
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include <kunit/test.h>
#include <exec/exec.h>
#include <trace/events/exec.h>

#include "platform.h"
#include "exec_test.h"

enum tr_event {
	TR_QUEUE,
	TR_ACTIVATE,
	TR_START,
	TR_FINISH,
	TR_ARM,
	TR_FIRE,
	TR_CANCEL,
	TR_PARK,
	TR_WAKE,
};

static const char *const tr_names[] = {
	"queue", "activate", "start", "finish", "arm", "fire", "cancel",
	"park", "wake",
};

struct tr_rec {
	enum tr_event event;
	const void *ex;
	const void *work;
	const void *func;
	char kind[EXEC_TRACE_KIND_LEN];
	unsigned int worker;
	unsigned int clock;
	u64 deadline;
};

#define TR_MAX	64

/*
 * struct tr_log - what the probes saw
 * @lock: guards @n and @rec; the probes run in any context, hardirq
 *	included (a timed item fires from an hrtimer)
 * @pool: the executor whose worker events are recorded
 * @n: records in @rec
 * @rec: the events, in the order the probes ran
 * @got: the case's copy of some of them (tr_collect()); the case's only
 */
struct tr_log {
	spinlock_t lock;
	const void *pool;
	unsigned int n;
	struct tr_rec rec[TR_MAX];
	struct tr_rec got[TR_MAX];
};

static void tr_fn(struct exec_work *work)
{
}

static void tr_closure_fn(void *arg)
{
	exec_test_count(arg);
}

static void tr_timer_fn(struct exec_work *work)
{
}

static bool tr_ours(const void *func)
{
	return func == tr_fn || func == tr_closure_fn || func == tr_timer_fn;
}

static void tr_add(struct tr_log *log, const struct tr_rec *r)
{
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	if (log->n < TR_MAX)
		log->rec[log->n++] = *r;
	spin_unlock_irqrestore(&log->lock, flags);
}

static void tr_item(void *data, enum tr_event event, const void *ex,
		    const char *kind, const void *work, const void *func)
{
	struct tr_rec r = {
		.event = event, .ex = ex, .work = work, .func = func,
	};

	if (!tr_ours(func))
		return;
	strscpy(r.kind, kind, sizeof(r.kind));
	tr_add(data, &r);
}

#define TR_ITEM_PROBE(name, event)					\
static void tr_##name(void *data, const void *ex, const char *kind,	\
		      const void *work, const void *func)		\
{									\
	tr_item(data, event, ex, kind, work, func);			\
}

TR_ITEM_PROBE(queue, TR_QUEUE)
TR_ITEM_PROBE(activate, TR_ACTIVATE)
TR_ITEM_PROBE(start, TR_START)
TR_ITEM_PROBE(finish, TR_FINISH)
TR_ITEM_PROBE(fire, TR_FIRE)
TR_ITEM_PROBE(cancel, TR_CANCEL)

static void tr_arm(void *data, const void *ex, const char *kind,
		   const void *work, const void *func, unsigned int clock,
		   u64 deadline)
{
	struct tr_rec r = {
		.event = TR_ARM, .ex = ex, .work = work, .func = func,
		.clock = clock, .deadline = deadline,
	};

	if (!tr_ours(func))
		return;
	strscpy(r.kind, kind, sizeof(r.kind));
	tr_add(data, &r);
}

static void tr_worker(void *data, enum tr_event event, const void *ex,
		      const char *kind, unsigned int worker)
{
	struct tr_log *log = data;
	struct tr_rec r = { .event = event, .ex = ex, .worker = worker };

	if (ex != READ_ONCE(log->pool))
		return;
	strscpy(r.kind, kind, sizeof(r.kind));
	tr_add(log, &r);
}

static void tr_park(void *data, const void *ex, const char *kind,
		    unsigned int worker)
{
	tr_worker(data, TR_PARK, ex, kind, worker);
}

static void tr_wake(void *data, const void *ex, const char *kind,
		    unsigned int worker)
{
	tr_worker(data, TR_WAKE, ex, kind, worker);
}

static void tr_detach(struct tr_log *log);

/*
 * Attaches every probe to a new log, or none: skips the case when there
 * are no tracepoints, fails it when a probe cannot be attached.  Every
 * path after a successful attach must call tr_detach(): the log is the
 * case's memory.
 */
static struct tr_log *tr_attach(struct kunit *test)
{
	struct tr_log *log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "the kernel has no CONFIG_TRACEPOINTS");
	KUNIT_ASSERT_NOT_NULL(test, log);
	spin_lock_init(&log->lock);
	ret = register_trace_exec_work_queue(tr_queue, log);
	if (!ret)
		ret = register_trace_exec_work_activate(tr_activate, log);
	if (!ret)
		ret = register_trace_exec_work_start(tr_start, log);
	if (!ret)
		ret = register_trace_exec_work_finish(tr_finish, log);
	if (!ret)
		ret = register_trace_exec_timer_arm(tr_arm, log);
	if (!ret)
		ret = register_trace_exec_timer_fire(tr_fire, log);
	if (!ret)
		ret = register_trace_exec_timer_cancel(tr_cancel, log);
	if (!ret)
		ret = register_trace_exec_worker_park(tr_park, log);
	if (!ret)
		ret = register_trace_exec_worker_wake(tr_wake, log);
	if (ret) {
		/* Those not attached say -ENOENT, harmlessly. */
		tr_detach(log);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "a probe was refused");
	}
	return log;
}

/* Detaches the probes; none runs on @log once this returns. */
static void tr_detach(struct tr_log *log)
{
	unregister_trace_exec_work_queue(tr_queue, log);
	unregister_trace_exec_work_activate(tr_activate, log);
	unregister_trace_exec_work_start(tr_start, log);
	unregister_trace_exec_work_finish(tr_finish, log);
	unregister_trace_exec_timer_arm(tr_arm, log);
	unregister_trace_exec_timer_fire(tr_fire, log);
	unregister_trace_exec_timer_cancel(tr_cancel, log);
	unregister_trace_exec_worker_park(tr_park, log);
	unregister_trace_exec_worker_wake(tr_wake, log);
	tracepoint_synchronize_unregister();
}

/*
 * Copies into @out, in order, the records of @work (NULL: any item) that
 * are item events; waits up to the test timeout for at least @want.
 */
static unsigned int tr_collect(struct tr_log *log, const void *work,
			       unsigned int want, struct tr_rec *out)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int i, n, spins = 0;
	unsigned long flags;

	for (;;) {
		n = 0;
		spin_lock_irqsave(&log->lock, flags);
		for (i = 0; i < log->n; i++) {
			if (log->rec[i].event == TR_PARK ||
			    log->rec[i].event == TR_WAKE)
				continue;
			if (work && log->rec[i].work != work)
				continue;
			out[n++] = log->rec[i];
		}
		spin_unlock_irqrestore(&log->lock, flags);
		if (n >= want || exec_test_expired(deadline))
			return n;
		exec_test_relax(&spins);
	}
}

/* Expects @n records of @recs to be exactly @events on @ex, with @func. */
static void tr_expect(struct kunit *test, const struct tr_rec *recs,
		      unsigned int n, const enum tr_event *events,
		      unsigned int nr_events, const void *ex, const char *kind,
		      const void *func)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, n, nr_events);
	for (i = 0; i < min(n, nr_events); i++) {
		KUNIT_EXPECT_STREQ_MSG(test, tr_names[recs[i].event],
				       tr_names[events[i]], "event %u", i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, recs[i].ex, ex, "event %u", i);
		KUNIT_EXPECT_STREQ_MSG(test, recs[i].kind, kind, "event %u",
				       i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, recs[i].func, func, "event %u",
					i);
	}
}

/*
 * An item submitted to a pool: queue, start, finish, in that order, on
 * the pool, with its function; a closure's events name its own function,
 * not the library's wrapper.
 */
static void trace_item_queue_start_finish(struct kunit *test)
{
	static const enum tr_event seq[] = { TR_QUEUE, TR_START, TR_FINISH };
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct exec_work work;
	struct tr_log *log;
	atomic_t ran = ATOMIC_INIT(0);
	unsigned int n;

	log = tr_attach(test);
	if (exec_thread_pool_create(&pool, &attr)) {
		tr_detach(log);
		KUNIT_FAIL(test, "no pool");
		return;
	}
	ex = exec_thread_pool_executor(pool);

	exec_work_init(&work, tr_fn);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &work), 0);
	n = tr_collect(log, &work, ARRAY_SIZE(seq), log->got);
	tr_expect(test, log->got, n, seq, ARRAY_SIZE(seq), ex, "thread_pool",
		  tr_fn);

	/* A closure: the item is the library's; only its events are left. */
	spin_lock_irq(&log->lock);
	log->n = 0;
	spin_unlock_irq(&log->lock);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, tr_closure_fn, &ran), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&ran, 1,
							 EXEC_TEST_TIMEOUT_MS));
	n = tr_collect(log, NULL, ARRAY_SIZE(seq), log->got);
	tr_expect(test, log->got, n, seq, ARRAY_SIZE(seq), ex, "thread_pool",
		  tr_closure_fn);

	tr_detach(log);
	exec_thread_pool_destroy(pool);
}

/*
 * A serial executor over a pool hands its item over: queue on the serial
 * executor, activate when its runner takes it, then start and finish,
 * all naming the serial executor.
 */
static void trace_serial_activate(struct kunit *test)
{
	static const enum tr_event seq[] = {
		TR_QUEUE, TR_ACTIVATE, TR_START, TR_FINISH,
	};
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_executor *ex;
	struct exec_work work;
	struct tr_log *log;
	unsigned int n;

	log = tr_attach(test);
	if (exec_thread_pool_create(&pool, &attr)) {
		tr_detach(log);
		KUNIT_FAIL(test, "no pool");
		return;
	}
	if (exec_serial_create(&serial, exec_thread_pool_executor(pool))) {
		tr_detach(log);
		exec_thread_pool_destroy(pool);
		KUNIT_FAIL(test, "no serial executor");
		return;
	}
	ex = exec_serial_executor(serial);

	exec_work_init(&work, tr_fn);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &work), 0);
	n = tr_collect(log, &work, ARRAY_SIZE(seq), log->got);
	tr_expect(test, log->got, n, seq, ARRAY_SIZE(seq), ex, "serial", tr_fn);

	tr_detach(log);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(pool), 0);
	exec_serial_destroy(serial);
	exec_thread_pool_destroy(pool);
}

/*
 * A timed item due in 20 ms: arm (monotonic, its deadline), fire, start,
 * finish.  One due in an hour, then cancelled: arm, cancel, and nothing
 * else.
 */
static void trace_timer_arm_fire_cancel(struct kunit *test)
{
	static const enum tr_event fired[] = {
		TR_ARM, TR_FIRE, TR_START, TR_FINISH,
	};
	static const enum tr_event cancelled[] = { TR_ARM, TR_CANCEL };
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_timer soon, late;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct tr_log *log;
	u64 deadline;
	unsigned int n;

	log = tr_attach(test);
	if (exec_thread_pool_create(&pool, &attr)) {
		tr_detach(log);
		KUNIT_FAIL(test, "no pool");
		return;
	}
	ex = exec_thread_pool_executor(pool);
	exec_timer_init(&soon, tr_timer_fn, NULL);
	exec_timer_init(&late, tr_timer_fn, NULL);

	deadline = exec_clock_now(EXEC_CLOCK_MONOTONIC) + 20 * NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, exec_submit_at(ex, &soon, EXEC_CLOCK_MONOTONIC,
					     deadline), 0);
	n = tr_collect(log, &soon.work, ARRAY_SIZE(fired), log->got);
	tr_expect(test, log->got, n, fired, ARRAY_SIZE(fired), ex, "thread_pool",
		  tr_timer_fn);
	if (n) {
		KUNIT_EXPECT_EQ(test, log->got[0].clock, EXEC_CLOCK_MONOTONIC);
		KUNIT_EXPECT_EQ(test, log->got[0].deadline, deadline);
	}

	KUNIT_EXPECT_EQ(test, exec_submit_after(ex, &late,
						3600ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, exec_timer_cancel_sync(&late), 1);
	/* Anything more than arm and cancel would show up meanwhile. */
	msleep(EXEC_TEST_SETTLE_MS);
	n = tr_collect(log, &late.work, ARRAY_SIZE(cancelled), log->got);
	tr_expect(test, log->got, n, cancelled, ARRAY_SIZE(cancelled), ex,
		  "thread_pool", tr_timer_fn);

	tr_detach(log);
	exec_thread_pool_destroy(pool);
}

/*
 * Waits until the log has an event @first at index @from or later and an
 * event @second after it, or the deadline passes; their indexes go to
 * *@first_at and *@second_at (-1: not seen).
 */
static void tr_wait_pair(struct tr_log *log, unsigned int from,
			 enum tr_event first, enum tr_event second,
			 int *first_at, int *second_at, u64 deadline)
{
	unsigned int i, spins = 0;
	unsigned long flags;

	*first_at = -1;
	*second_at = -1;
	for (;;) {
		spin_lock_irqsave(&log->lock, flags);
		for (i = from; i < log->n && *second_at < 0; i++) {
			if (log->rec[i].event == first && *first_at < 0)
				*first_at = i;
			else if (log->rec[i].event == second &&
				 *first_at >= 0 && (int)i > *first_at)
				*second_at = i;
		}
		spin_unlock_irqrestore(&log->lock, flags);
		if (*second_at >= 0 || exec_test_expired(deadline))
			return;
		exec_test_relax(&spins);
	}
}

/*
 * The one worker of an idle pool parks; an item wakes it: a park, then a
 * wake, of worker 0 of that pool, before the item starts.
 */
static void trace_worker_park_wake(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	struct exec_thread_pool *pool;
	int parked, woken, started;
	struct exec_executor *ex;
	struct exec_work work;
	struct tr_log *log;

	log = tr_attach(test);
	if (exec_thread_pool_create(&pool, &attr)) {
		tr_detach(log);
		KUNIT_FAIL(test, "no pool");
		return;
	}
	ex = exec_thread_pool_executor(pool);
	/* Its worker may have parked before this: wait for the next park. */
	WRITE_ONCE(log->pool, ex);
	exec_work_init(&work, tr_fn);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &work), 0);

	tr_wait_pair(log, 0, TR_START, TR_PARK, &started, &parked, deadline);
	if (parked < 0) {
		KUNIT_FAIL(test, "the idle worker never parked");
		goto out;
	}
	KUNIT_EXPECT_PTR_EQ(test, log->rec[parked].ex, ex);
	KUNIT_EXPECT_STREQ(test, log->rec[parked].kind, "thread_pool");
	KUNIT_EXPECT_EQ(test, log->rec[parked].worker, 0U);

	/* Parked now, or about to: a new item wakes it. */
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &work), 0);
	tr_wait_pair(log, parked + 1, TR_WAKE, TR_START, &woken, &started,
		     deadline);
	KUNIT_EXPECT_GT_MSG(test, woken, parked, "no wake after the park");
	KUNIT_EXPECT_GT_MSG(test, started, woken, "no start after the wake");
	if (woken > parked) {
		KUNIT_EXPECT_PTR_EQ(test, log->rec[woken].ex, ex);
		KUNIT_EXPECT_EQ(test, log->rec[woken].worker, 0U);
	}
out:
	tr_detach(log);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_join(pool), 0);
	exec_thread_pool_destroy(pool);
}

static struct kunit_case exec_trace_cases[] = {
	KUNIT_CASE(trace_item_queue_start_finish),
	KUNIT_CASE(trace_serial_activate),
	KUNIT_CASE(trace_timer_arm_fire_cancel),
	KUNIT_CASE(trace_worker_park_wake),
	{}
};

static struct kunit_suite exec_trace_suite = {
	.name = "exec-trace",
	.test_cases = exec_trace_cases,
};

kunit_test_suites(&exec_trace_suite);

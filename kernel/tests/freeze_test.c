// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Freezable executors through a real suspend freeze (include/exec/
 * thread_attr.h, exec_thread_attr.freezable; Documentation/lifecycle.rst).
 *
 * Not a KUnit case: KUnit runs a module's cases inside the loading task's
 * finit_module(), an uninterruptible wait that the freezer of user space
 * would wait for in vain.  So init (tests/guest/init.c, EXEC_FREEZE=N)
 * drives it through this module's freeze_test parameter, once every module
 * is loaded, with /sys/power/pm_test at "freezer":
 *
 *   "arm"     a freezable pool and an ordinary one, FZ_WORKERS workers
 *             each; a gate item on each freezable worker, which holds it
 *             until the freezer wants it frozen; FZ_ITEMS items queued
 *             behind them and on the ordinary pool; a monitor kthread, not
 *             freezable, that watches the freezable workers' task state;
 *             and a holder kthread, freezable, that keeps the freeze from
 *             completing until the monitor is done
 *   then init writes "freeze" to /sys/power/state: the kernel freezes,
 *   waits the pm_test delay frozen (0 s), and thaws
 *
 * The holder makes the frozen stretch as long as the test needs, whatever
 * the delay: the pm_test delay is an mdelay(), which under QEMU's emulation
 * lasted from a few milliseconds to several seconds.  The freezer retries
 * a task that has not frozen yet, every few milliseconds, for up to
 * freeze_timeout_msecs (20 s); the holder answers its first requests by
 * not freezing, until the monitor has seen what it waits for (or
 * FZ_HOLD_MAX_MS has passed), while the pool's workers, frozen in an
 * earlier pass, stay frozen.
 *   "check"   waits for every item, destroys the pools and judges; the
 *             write fails with -EIO if something was wrong, and reading the
 *             parameter gives the round's result line
 *
 * The monitor, seeing every freezable worker TASK_FROZEN, notes the time,
 * submits FZ_ITEMS more items to each pool, releases the holder once the
 * ordinary pool has run them and FZ_HOLD_MS have passed, and keeps looking
 * until the workers thaw; [@frozen_from, @frozen_until] is then a stretch
 * of time, FZ_HOLD_MS / 2 at least, during which the freezable workers
 * were all frozen.  The check wants: the freeze
 * came while the gates held the workers; no item of the freezable pool ran
 * inside that stretch, and those queued before the freeze and submitted
 * during it all ran after it; the ordinary pool ran everything submitted
 * during the freeze inside it; every item ran exactly once.  And the stall
 * watchdog, its threshold lowered to FZ_WD_THRESH_MS while the monitor sees
 * the workers frozen, reported nothing: the freezable pool's queue, whose
 * items waited since the arm, is not stalled while the system freezes.
 */
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/task.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_kunit.h"

#define FZ_WORKERS	2
#define FZ_ITEMS	8
/* How long a gate holds its worker waiting for the freeze. */
#define FZ_GATE_MS	10000
/* How long the monitor waits for the freeze and for the thaw. */
#define FZ_WATCH_MS	30000
/* The stall watchdog's threshold during the freeze. */
#define FZ_WD_THRESH_MS	500
/* How long the freeze is held at least once the workers are frozen. */
#define FZ_HOLD_MS	(FZ_WD_THRESH_MS * 2)
/* ... and at most. */
#define FZ_HOLD_MAX_MS	10000

enum { FZ_FREEZABLE, FZ_ORDINARY, FZ_POOLS };
enum { FZ_BEFORE, FZ_DURING, FZ_WHEN };

struct fz_round;

struct fz_item {
	struct exec_work work;
	struct fz_round *r;
	atomic_t runs;
	u64 ran_at;
};

/*
 * @workers: the freezable pool's worker tasks, each recorded by its gate
 * @gates_in: gates running; each waits for all, so each has a worker
 * @gate_saw_freezing: gates that returned because the freezer wanted
 *	their worker
 * @frozen_from: the monitor's first time with every freezable worker
 *	frozen, read after it looked; 0 if never
 * @frozen_until: the time before its last look that found them all frozen
 * @wd_thresh: the watchdog's threshold before the monitor lowered it
 * @wd_reports: stalls the watchdog reported while it was lowered
 * @wd_lowered: the monitor has lowered it and not yet put it back
 * @holder_ready: the holder is freezable; a freeze from then on waits for it
 * @release: the monitor lets the holder freeze
 */
struct fz_round {
	struct exec_thread_pool *pools[FZ_POOLS];
	struct task_struct *workers[FZ_WORKERS];
	struct fz_item gates[FZ_WORKERS];
	struct fz_item items[FZ_POOLS][FZ_WHEN][FZ_ITEMS];
	struct task_struct *monitor;
	struct task_struct *holder;
	atomic_t holder_ready;
	atomic_t release;
	atomic_t gates_in;
	atomic_t gate_saw_freezing;
	u64 frozen_from;
	u64 frozen_until;
	u64 wd_thresh;
	unsigned long wd_reports;
	bool wd_lowered;
	int submit_ret;
};

/* L: the parameter's lock (kernel_param_lock), held by set and get. */
static struct fz_round *fz_armed;
static unsigned int fz_rounds, fz_freezes;
static char fz_result[512] = "not run";

static void fz_item_fn(struct exec_work *work)
{
	struct fz_item *it = container_of(work, struct fz_item, work);

	if (!it->ran_at)
		WRITE_ONCE(it->ran_at, ktime_get_ns());
	atomic_inc(&it->runs);
}

/* Holds a freezable worker until the freezer wants it frozen. */
static void fz_gate_fn(struct exec_work *work)
{
	struct fz_item *it = container_of(work, struct fz_item, work);
	struct fz_round *r = it->r;
	u64 deadline = exec_test_deadline(FZ_GATE_MS);

	r->workers[it - r->gates] = get_task_struct(current);
	atomic_inc(&r->gates_in);
	while (atomic_read(&r->gates_in) < FZ_WORKERS &&
	       !exec_test_expired(deadline))
		usleep_range(1000, 2000);
	while (!freezing(current) && !exec_test_expired(deadline))
		usleep_range(1000, 2000);
	if (freezing(current))
		atomic_inc(&r->gate_saw_freezing);
	fz_item_fn(work);
}

static bool fz_task_frozen(struct task_struct *p)
{
#ifdef TASK_FROZEN
	return p && (READ_ONCE(p->__state) & TASK_FROZEN);
#else
	return false;
#endif
}

static bool fz_all_frozen(struct fz_round *r)
{
	unsigned int i;

	for (i = 0; i < FZ_WORKERS; i++)
		if (!fz_task_frozen(READ_ONCE(r->workers[i])))
			return false;
	return true;
}

/* Submits the items of @when to both pools; the first error is kept. */
static void fz_submit(struct fz_round *r, unsigned int when)
{
	unsigned int p, i;
	int ret;

	for (p = 0; p < FZ_POOLS; p++) {
		for (i = 0; i < FZ_ITEMS; i++) {
			ret = exec_submit(exec_thread_pool_executor(r->pools[p]),
					  &r->items[p][when][i].work);
			if (ret && !r->submit_ret)
				r->submit_ret = ret;
		}
	}
}

/* The watchdog's threshold lowered for the freeze, or put back. */
static void fz_watchdog(struct fz_round *r, bool lower)
{
	if (lower == r->wd_lowered)
		return;
	if (lower) {
		r->wd_thresh = exec_watchdog_thresh();
		r->wd_reports = exec_watchdog_test_reports();
		exec_watchdog_set(FZ_WD_THRESH_MS * NSEC_PER_MSEC);
	} else {
		r->wd_reports = exec_watchdog_test_reports() - r->wd_reports;
		exec_watchdog_set(r->wd_thresh);
	}
	r->wd_lowered = lower;
}

/* Whether every item of the ordinary pool submitted during the freeze ran. */
static bool fz_ordinary_done(struct fz_round *r)
{
	unsigned int i;

	for (i = 0; i < FZ_ITEMS; i++)
		if (!atomic_read(&r->items[FZ_ORDINARY][FZ_DURING][i].runs))
			return false;
	return true;
}

/*
 * Freezable: it freezes only once the monitor releases it, or after
 * FZ_HOLD_MAX_MS of being asked, so the freeze stays incomplete (and the
 * pool's workers frozen) until then.  It sleeps where the freezer cannot
 * freeze it, so each request wakes it.
 */
static int fz_holder_fn(void *arg)
{
	struct fz_round *r = arg;
	u64 deadline = 0;

	set_freezable();
	atomic_set(&r->holder_ready, 1);
	while (!kthread_should_stop()) {
		if (freezing(current)) {
			if (!deadline)
				deadline = exec_test_deadline(FZ_HOLD_MAX_MS);
			if (atomic_read(&r->release) ||
			    exec_test_expired(deadline))
				try_to_freeze();
		}
		usleep_range(200, 400);
	}
	return 0;
}

/* Not freezable (kthreads are not by default): it runs through the freeze. */
static int fz_monitor_fn(void *arg)
{
	struct fz_round *r = arg;
	u64 deadline = exec_test_deadline(FZ_WATCH_MS), before;
	bool thawed = false;

	while (!kthread_should_stop()) {
		if (thawed || exec_test_expired(deadline)) {
			usleep_range(1000, 2000);
			continue;
		}
		before = ktime_get_ns();
		if (fz_all_frozen(r)) {
			if (!r->frozen_from) {
				r->frozen_from = ktime_get_ns();
				fz_watchdog(r, true);
				fz_submit(r, FZ_DURING);
			}
			r->frozen_until = before;
			/* @before: the look's own start, maybe before it. */
			if (fz_ordinary_done(r) &&
			    (s64)(before - r->frozen_from) >=
				    (s64)FZ_HOLD_MS * NSEC_PER_MSEC)
				atomic_set(&r->release, 1);
		} else if (r->frozen_from) {
			fz_watchdog(r, false);
			thawed = true;
		}
		usleep_range(200, 400);
	}
	fz_watchdog(r, false);
	return 0;
}

/* Stops the round's kthreads, those that were started. */
static void fz_stop_threads(struct fz_round *r)
{
	if (r->monitor) {
		kthread_stop(r->monitor);
		put_task_struct(r->monitor);
		r->monitor = NULL;
	}
	if (r->holder) {
		kthread_stop(r->holder);
		put_task_struct(r->holder);
		r->holder = NULL;
	}
}

static void fz_round_free(struct fz_round *r)
{
	unsigned int i;

	fz_stop_threads(r);
	for (i = 0; i < FZ_POOLS; i++)
		if (r->pools[i])
			exec_thread_pool_destroy(r->pools[i]);
	for (i = 0; i < FZ_WORKERS; i++)
		if (r->workers[i])
			put_task_struct(r->workers[i]);
	kfree(r);
}

static int fz_arm(void)
{
	struct exec_thread_pool_attr attr = { .nr_threads = FZ_WORKERS };
	struct exec_executor *ex;
	struct fz_round *r;
	unsigned int p, w, i;
	int ret;

	if (fz_armed)
		return -EBUSY;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	for (i = 0; i < FZ_WORKERS; i++) {
		r->gates[i].r = r;
		exec_work_init(&r->gates[i].work, fz_gate_fn);
	}
	for (p = 0; p < FZ_POOLS; p++)
		for (w = 0; w < FZ_WHEN; w++)
			for (i = 0; i < FZ_ITEMS; i++) {
				r->items[p][w][i].r = r;
				exec_work_init(&r->items[p][w][i].work,
					       fz_item_fn);
			}
	for (p = 0; p < FZ_POOLS; p++) {
		attr.thread.name = p == FZ_FREEZABLE ? "fz-frozen" : "fz-awake";
		attr.thread.freezable = p == FZ_FREEZABLE;
		ret = exec_thread_pool_create(&r->pools[p], &attr);
		if (ret)
			goto err;
	}
	for (i = 0; i < FZ_WORKERS; i++) {
		ex = exec_thread_pool_executor(r->pools[FZ_FREEZABLE]);
		ret = exec_submit(ex, &r->gates[i].work);
		if (ret)
			goto err;
	}
	/* Queued behind the gates: they can run only after the freeze. */
	fz_submit(r, FZ_BEFORE);
	r->holder = kthread_run(fz_holder_fn, r, "fz-holder");
	if (IS_ERR(r->holder)) {
		ret = PTR_ERR(r->holder);
		r->holder = NULL;
		goto err;
	}
	get_task_struct(r->holder);
	/* Until it is freezable, a freeze would pass it by. */
	if (!exec_test_wait_atomic_ge(&r->holder_ready, 1,
				      EXEC_TEST_TIMEOUT_MS)) {
		ret = -ETIMEDOUT;
		goto err;
	}
	r->monitor = kthread_run(fz_monitor_fn, r, "fz-monitor");
	if (IS_ERR(r->monitor)) {
		ret = PTR_ERR(r->monitor);
		r->monitor = NULL;
		goto err;
	}
	get_task_struct(r->monitor);
	fz_armed = r;
	return 0;

err:
	/* The gates let go at their deadline; destroy waits for them. */
	fz_round_free(r);
	return ret;
}

/* Whether every item ran once, waiting for them up to the test timeout. */
static bool fz_all_ran_once(struct fz_round *r)
{
	const unsigned int ms = EXEC_TEST_TIMEOUT_MS;
	unsigned int p, w, i;
	struct fz_item *it;
	bool ok = true;

	for (i = 0; i < FZ_WORKERS; i++)
		ok &= exec_test_wait_atomic_ge(&r->gates[i].runs, 1, ms);
	for (p = 0; p < FZ_POOLS; p++)
		for (w = 0; w < FZ_WHEN; w++)
			for (i = 0; i < FZ_ITEMS; i++) {
				it = &r->items[p][w][i];
				ok &= exec_test_wait_atomic_ge(&it->runs, 1, ms);
			}
	return ok;
}

static bool fz_ran_once(struct fz_round *r)
{
	unsigned int p, w, i;

	for (i = 0; i < FZ_WORKERS; i++)
		if (atomic_read(&r->gates[i].runs) != 1)
			return false;
	for (p = 0; p < FZ_POOLS; p++)
		for (w = 0; w < FZ_WHEN; w++)
			for (i = 0; i < FZ_ITEMS; i++)
				if (atomic_read(&r->items[p][w][i].runs) != 1)
					return false;
	return true;
}

/* Items of @pool, @when, that ran inside [from, until], and after @until. */
static void fz_count(struct fz_round *r, unsigned int pool, unsigned int when,
		     unsigned int *inside, unsigned int *after)
{
	unsigned int i;
	u64 t;

	*inside = 0;
	*after = 0;
	for (i = 0; i < FZ_ITEMS; i++) {
		t = r->items[pool][when][i].ran_at;
		if (t >= r->frozen_from && t <= r->frozen_until)
			(*inside)++;
		else if (t > r->frozen_until)
			(*after)++;
	}
}

/* Judges a round; writes its result line.  0 or -EIO. */
static int fz_judge(struct fz_round *r, bool all_ran, bool once)
{
	unsigned int fb_in, fb_after, fd_in, fd_after, od_in, od_after;
	bool ok;

	fz_count(r, FZ_FREEZABLE, FZ_BEFORE, &fb_in, &fb_after);
	fz_count(r, FZ_FREEZABLE, FZ_DURING, &fd_in, &fd_after);
	fz_count(r, FZ_ORDINARY, FZ_DURING, &od_in, &od_after);
	ok = r->frozen_from &&
	     r->frozen_until >= r->frozen_from +
				FZ_HOLD_MS / 2 * NSEC_PER_MSEC &&
	     !r->wd_reports &&
	     atomic_read(&r->gate_saw_freezing) == FZ_WORKERS &&
	     !r->submit_ret && all_ran && once &&
	     fb_after == FZ_ITEMS && fd_after == FZ_ITEMS &&
	     od_in == FZ_ITEMS;
	snprintf(fz_result, sizeof(fz_result),
		 "%s: workers seen frozen %llu us; gates saw the freezer %d/%d; freezable pool ran %u+%u while frozen, queued before %u/%d and submitted during %u/%d after; ordinary pool ran %u/%d submitted during inside; stalls reported %lu; submit %d, all ran %s, once %s; %u freezes in %u rounds",
		 ok ? "ok" : "FAILED",
		 r->frozen_from ? (r->frozen_until - r->frozen_from) / 1000 :
				  0ULL,
		 atomic_read(&r->gate_saw_freezing), FZ_WORKERS, fb_in, fd_in,
		 fb_after, FZ_ITEMS, fd_after, FZ_ITEMS, od_in, FZ_ITEMS,
		 r->wd_reports, r->submit_ret, all_ran ? "yes" : "no", once ? "yes" : "no",
		 fz_freezes + !!r->frozen_from, fz_rounds + 1);
	return ok ? 0 : -EIO;
}

static int fz_check(void)
{
	struct fz_round *r = fz_armed;
	bool all_ran, once;
	int ret;

	if (!r)
		return -EINVAL;
	fz_stop_threads(r);
	all_ran = fz_all_ran_once(r);
	/* Drained and joined: nothing runs any more. */
	exec_thread_pool_destroy(r->pools[FZ_FREEZABLE]);
	exec_thread_pool_destroy(r->pools[FZ_ORDINARY]);
	r->pools[FZ_FREEZABLE] = NULL;
	r->pools[FZ_ORDINARY] = NULL;
	once = fz_ran_once(r);
	ret = fz_judge(r, all_ran, once);
	pr_info("exec-freeze: round %u: %s\n", fz_rounds + 1, fz_result);
	fz_freezes += !!r->frozen_from;
	fz_rounds++;
	fz_armed = NULL;
	fz_round_free(r);
	return ret;
}

static int fz_param_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "arm"))
		return fz_arm();
	if (sysfs_streq(val, "check"))
		return fz_check();
	return -EINVAL;
}

static int fz_param_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", fz_result);
}

static const struct kernel_param_ops fz_param_ops = {
	.set = fz_param_set,
	.get = fz_param_get,
};
module_param_cb(freeze_test, &fz_param_ops, NULL, 0600);
MODULE_PARM_DESC(freeze_test,
		 "Write arm, freeze the system, write check: freezable pools through a suspend freeze (tests/guest/init.c)");

/**
 * exec_freeze_test_exit - release a round armed and never checked
 *
 * Context: Module exit.
 */
void exec_freeze_test_exit(void)
{
	if (!fz_armed)
		return;
	fz_round_free(fz_armed);
	fz_armed = NULL;
}

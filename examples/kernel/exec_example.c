// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_example.ko: a driver that defers work from a timer through exec.ko.
 *
 * The pattern is the one of any driver with a bottom half: something fires
 * in atomic context (here a timer_list callback, which runs in softirq; an
 * interrupt handler works the same way), records what happened, and hands
 * the slow part to a thread.  Instead of a workqueue it uses:
 *
 *  - a thread pool of its own, so its work never waits behind anybody
 *    else's and its threads are named after it (see "ps" for exec-example/N);
 *  - a serial executor on that pool, so its events are processed one at a
 *    time and in the order they happened, on whichever pool thread is free,
 *    without a lock in the processing code.
 *
 * Things to notice:
 *
 *  - In atomic context only the intrusive form, exec_submit() with a
 *    struct exec_work embedded in the driver's own structure, is used.  It
 *    never sleeps and never allocates, so it cannot fail for lack of memory.
 *    (exec_submit_fn() allocates a closure and may sleep: process context
 *    only, unless called through exec_submit_fn_full() with
 *    EXEC_SUBMIT_NOWAIT.)  The pool here is unbounded; a bounded pool
 *    (queue_limit) would need exec_try_submit() in atomic context.
 *
 *  - An item that is still pending is not queued twice: exec_submit()
 *    returns -EALREADY, as schedule_work() returns false.  The statistics
 *    item below relies on it to coalesce many ticks into one update.
 *
 *  - Teardown order matters: first stop the source of submissions (the
 *    timer), then destroy the serial executor (events not yet processed are
 *    handed to their discard callback), then the pool (anything still queued
 *    on it runs; then its threads exit).  After that nothing of this module
 *    runs anywhere and its memory can go.
 *
 * Parameters: period_ms (timer period), burst (events per tick).
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include <exec/exec.h>

#define EXAMPLE_NR_EVENTS	64

static unsigned int period_ms = 20;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "Timer period in milliseconds (default 20)");

static unsigned int burst = 4;
module_param(burst, uint, 0444);
MODULE_PARM_DESC(burst, "Events recorded per timer tick (default 4)");

struct example_dev;

/*
 * One event, recorded in atomic context and processed in a thread.  The
 * work item is embedded: submitting it allocates nothing.
 */
struct example_event {
	struct exec_work work;
	struct example_dev *dev;
	atomic_t in_use;
	u64 seq;
	u64 stamp_ns;
};

struct example_dev {
	struct timer_list timer;
	struct exec_thread_pool *pool;
	struct exec_serial *serial;

	/* Events are reused round-robin; a busy one is skipped. */
	struct example_event events[EXAMPLE_NR_EVENTS];
	unsigned int next_event;	/* only touched by the timer */
	u64 next_seq;			/* only touched by the timer */

	/* Ordered processing: touched only by items of @serial. */
	u64 last_seq;
	u64 max_latency_ns;

	/* Coalesced statistics, run on the pool directly. */
	struct exec_work stats_work;

	atomic64_t recorded;
	atomic64_t processed;
	atomic64_t discarded;
	atomic64_t busy;		/* event still pending: not recorded */
	atomic64_t out_of_order;	/* must stay 0: @serial keeps order */
};

static struct example_dev *example;

/*
 * Runs on a pool thread, one event at a time, in the order the timer
 * recorded them: process context, may sleep, needs no lock for the
 * fields only the serial executor's items touch.
 */
static void example_event_fn(struct exec_work *work)
{
	struct example_event *ev = container_of(work, struct example_event,
						work);
	struct example_dev *dev = ev->dev;
	u64 latency = ktime_get_ns() - ev->stamp_ns;

	might_sleep();
	if (ev->seq <= dev->last_seq && dev->last_seq)
		atomic64_inc(&dev->out_of_order);
	dev->last_seq = ev->seq;
	dev->max_latency_ns = max(dev->max_latency_ns, latency);
	atomic64_inc(&dev->processed);
	/*
	 * The executor stopped touching @work before calling us (that is
	 * why an item may resubmit or free itself), but we still read @ev
	 * above: only now may the timer reuse it.  Had we allocated the
	 * event, we would free it here instead.
	 */
	atomic_set_release(&ev->in_use, 0);
}

/* Called instead of example_event_fn() for events dropped at teardown. */
static void example_event_discard(struct exec_work *work)
{
	struct example_event *ev = container_of(work, struct example_event,
						work);

	atomic64_inc(&ev->dev->discarded);
	atomic_set_release(&ev->in_use, 0);
}

static void example_stats_fn(struct exec_work *work)
{
	struct example_dev *dev = container_of(work, struct example_dev,
					       stats_work);

	pr_debug("exec_example: %lld recorded, %lld processed\n",
		 (long long)atomic64_read(&dev->recorded),
		 (long long)atomic64_read(&dev->processed));
}

/* Softirq context: record, defer, re-arm.  Never sleeps. */
static void example_timer_fn(struct timer_list *t)
{
	struct example_dev *dev = container_of(t, struct example_dev, timer);
	struct example_event *ev;
	unsigned int i;
	int ret;

	for (i = 0; i < burst; i++) {
		ev = &dev->events[dev->next_event];
		dev->next_event = (dev->next_event + 1) % EXAMPLE_NR_EVENTS;
		/*
		 * exec_work_pending() would say whether the event is still
		 * queued, but an event whose function is running is no
		 * longer pending and still in use: the driver keeps its own
		 * flag, cleared by the work function when it is done.
		 */
		if (atomic_cmpxchg_acquire(&ev->in_use, 0, 1)) {
			/* Processing is this far behind: drop, and count. */
			atomic64_inc(&dev->busy);
			continue;
		}
		ev->seq = ++dev->next_seq;
		ev->stamp_ns = ktime_get_ns();
		ret = exec_submit(exec_serial_executor(dev->serial), &ev->work);
		if (ret) {
			/* Not for an unbounded executor that is alive. */
			pr_warn_ratelimited("exec_example: submit: %d\n", ret);
			atomic_set(&ev->in_use, 0);
			continue;
		}
		atomic64_inc(&dev->recorded);
	}

	/* -EALREADY just means an update is already on its way. */
	exec_submit(exec_thread_pool_executor(dev->pool), &dev->stats_work);

	mod_timer(&dev->timer, jiffies + msecs_to_jiffies(period_ms));
}

static int __init example_init(void)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 2,
		.thread.name = "exec-example",
	};
	struct example_dev *dev;
	unsigned int i;
	int ret;

	if (!burst || burst > EXAMPLE_NR_EVENTS || !period_ms)
		return -EINVAL;
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	for (i = 0; i < EXAMPLE_NR_EVENTS; i++) {
		dev->events[i].dev = dev;
		exec_work_init_discard(&dev->events[i].work, example_event_fn,
				       example_event_discard);
	}
	exec_work_init(&dev->stats_work, example_stats_fn);

	ret = exec_thread_pool_create(&dev->pool, &attr);
	if (ret)
		goto err_free;
	ret = exec_serial_create(&dev->serial,
				 exec_thread_pool_executor(dev->pool));
	if (ret)
		goto err_pool;

	example = dev;
	timer_setup(&dev->timer, example_timer_fn, 0);
	mod_timer(&dev->timer, jiffies + msecs_to_jiffies(period_ms));
	pr_info("exec_example: deferring %u events every %u ms\n", burst,
		period_ms);
	return 0;

err_pool:
	exec_thread_pool_destroy(dev->pool);
err_free:
	kfree(dev);
	return ret;
}

static void __exit example_exit(void)
{
	struct example_dev *dev = example;
	long discarded;

	/* 1. No more submissions: the timer neither runs nor re-arms. */
	timer_shutdown_sync(&dev->timer);
	/* 2. The event being processed finishes; the rest are discarded. */
	discarded = exec_serial_destroy(dev->serial);
	/* 3. What is queued on the pool runs, then its threads exit. */
	exec_thread_pool_destroy(dev->pool);

	pr_info("exec_example: %lld recorded, %lld processed, %ld discarded at unload, %lld dropped while busy, %lld out of order, max latency %llu us\n",
		(long long)atomic64_read(&dev->recorded),
		(long long)atomic64_read(&dev->processed), discarded,
		(long long)atomic64_read(&dev->busy),
		(long long)atomic64_read(&dev->out_of_order),
		dev->max_latency_ns / NSEC_PER_USEC);
	WARN_ON(atomic64_read(&dev->recorded) !=
		atomic64_read(&dev->processed) +
		atomic64_read(&dev->discarded));
	kfree(dev);
}

module_init(example_init);
module_exit(example_exit);

MODULE_DESCRIPTION("Example: defer work from a timer through exec.ko");
/* exec.ko exports its API in the symbol namespace EXEC ("EXEC" since 6.13). */
MODULE_IMPORT_NS(EXEC);
MODULE_LICENSE("Dual MIT/GPL");

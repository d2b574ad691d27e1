// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A driver written for workqueues, the input of the semantic patch's own
 * check (make check-kernel-exec-loop): built as it is (wq_sample.ko) and
 * converted by scripts/coccinelle/workqueue-to-exec.cocci
 * (exec_wq_sample.ko), both loaded in the same boot.  At load it runs its
 * items through its two workqueues and checks what the workqueue API
 * promises; a broken promise fails the load with -EIO.  That the original
 * passes shows the checks are the API's; that the converted one passes,
 * that the conversion kept them.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/workqueue.h>

struct sample {
	struct workqueue_struct *wq;
	struct workqueue_struct *pcpu_wq;
	struct work_struct count_work;
	struct work_struct block_work;
	struct work_struct pcpu_work;
	struct delayed_work tick;
	struct completion started;
	struct completion release;
	atomic_t count;
	atomic_t pcpu_count;
	atomic_t ticks;
};

static struct sample sample;

static void count_fn(struct work_struct *work)
{
	struct sample *s = container_of(work, struct sample, count_work);

	atomic_inc(&s->count);
}

static void block_fn(struct work_struct *work)
{
	struct sample *s = container_of(work, struct sample, block_work);

	complete(&s->started);
	wait_for_completion(&s->release);
	atomic_inc(&s->count);
}

static void pcpu_fn(struct work_struct *work)
{
	struct sample *s = container_of(work, struct sample, pcpu_work);

	atomic_inc(&s->pcpu_count);
}

/* Re-arms itself until it has run three times. */
static void tick_fn(struct work_struct *work)
{
	struct sample *s = container_of(to_delayed_work(work), struct sample,
					tick);

	if (atomic_inc_return(&s->ticks) < 3)
		queue_delayed_work(s->wq, &s->tick, 1);
}

static bool wait_ticks(struct sample *s, int want)
{
	int i;

	for (i = 0; i < 200 && atomic_read(&s->ticks) < want; i++)
		msleep(10);
	return atomic_read(&s->ticks) == want;
}

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			pr_err("%s: failed: %s\n", KBUILD_MODNAME, #cond); \
			return -EIO;					\
		}							\
	} while (0)

/* Plain items: queue, flush, an item that blocks beside one that runs. */
static int check_plain(struct sample *s)
{
	CHECK(queue_work(s->wq, &s->count_work));
	flush_work(&s->count_work);
	CHECK(atomic_read(&s->count) == 1);
	CHECK(!work_pending(&s->count_work));

	/* An unbound workqueue runs the second item beside the blocked one. */
	CHECK(queue_work(s->wq, &s->block_work));
	wait_for_completion(&s->started);
	CHECK(queue_work(s->wq, &s->count_work));
	flush_work(&s->count_work);
	CHECK(atomic_read(&s->count) == 2);
	complete(&s->release);
	flush_work(&s->block_work);
	CHECK(atomic_read(&s->count) == 3);

	/* Nothing pending: cancel finds nothing and returns false. */
	CHECK(!cancel_work_sync(&s->count_work));

	CHECK(queue_work(s->pcpu_wq, &s->pcpu_work));
	flush_workqueue(s->pcpu_wq);
	CHECK(atomic_read(&s->pcpu_count) == 1);
	return 0;
}

/* Timed items: a chain, a cancel, a move, a flush. */
static int check_delayed(struct sample *s)
{
	CHECK(queue_delayed_work(s->wq, &s->tick, 1));
	CHECK(wait_ticks(s, 3));
	CHECK(!cancel_delayed_work_sync(&s->tick));

	/* Far off, then cancelled while pending: it never runs. */
	CHECK(queue_delayed_work(s->wq, &s->tick, 100 * HZ));
	CHECK(delayed_work_pending(&s->tick));
	CHECK(!queue_delayed_work(s->wq, &s->tick, 1));
	CHECK(cancel_delayed_work_sync(&s->tick));
	msleep(50);
	CHECK(atomic_read(&s->ticks) == 3);

	/* Far off, then moved to now: it runs once. */
	CHECK(queue_delayed_work(s->wq, &s->tick, 100 * HZ));
	CHECK(mod_delayed_work(s->wq, &s->tick, 0));
	CHECK(wait_ticks(s, 4));
	/* Idle: mod arms it, and returns false. */
	CHECK(!mod_delayed_work(s->wq, &s->tick, 0));
	CHECK(wait_ticks(s, 5));
	cancel_delayed_work_sync(&s->tick);

	/*
	 * Far off, then flushed: it has run when the flush returns.  What
	 * the flush returns is flush_work()'s, whether it still found the
	 * run to wait for: the item queued by the flush may have run by
	 * then, so either value is right.
	 */
	CHECK(queue_delayed_work(s->wq, &s->tick, 100 * HZ));
	flush_delayed_work(&s->tick);
	CHECK(atomic_read(&s->ticks) == 6);
	CHECK(!delayed_work_pending(&s->tick));
	/* Idle: nothing to wait for. */
	CHECK(!flush_delayed_work(&s->tick));
	CHECK(atomic_read(&s->ticks) == 6);
	return 0;
}

static int __init sample_init(void)
{
	struct sample *s = &sample;
	int ret;

	init_completion(&s->started);
	init_completion(&s->release);
	INIT_WORK(&s->count_work, count_fn);
	INIT_WORK(&s->block_work, block_fn);
	INIT_WORK(&s->pcpu_work, pcpu_fn);
	INIT_DELAYED_WORK(&s->tick, tick_fn);
	s->wq = alloc_workqueue("wqs%d", WQ_UNBOUND | WQ_FREEZABLE, 0, 0);
	if (!s->wq)
		return -ENOMEM;
	s->pcpu_wq = alloc_workqueue("wqs-pcpu", WQ_HIGHPRI, 0);
	if (!s->pcpu_wq) {
		destroy_workqueue(s->wq);
		return -ENOMEM;
	}
	ret = check_plain(s);
	if (!ret)
		ret = check_delayed(s);
	if (ret) {
		/* The blocked item, if a check left it blocked. */
		complete(&s->release);
		destroy_workqueue(s->pcpu_wq);
		destroy_workqueue(s->wq);
		return ret;
	}
	pr_info("%s: all checks passed\n", KBUILD_MODNAME);
	return 0;
}

static void __exit sample_exit(void)
{
	/* Queued, then destroyed: destroy runs what is queued first. */
	queue_work(sample.wq, &sample.count_work);
	destroy_workqueue(sample.wq);
	destroy_workqueue(sample.pcpu_wq);
	WARN(atomic_read(&sample.count) != 4,
	     "%s: destroy did not run the queued item\n", KBUILD_MODNAME);
}

module_init(sample_init);
module_exit(sample_exit);
MODULE_DESCRIPTION("A workqueue driver, the semantic patch's test input");
MODULE_LICENSE("Dual MIT/GPL");

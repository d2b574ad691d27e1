// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executors without a queue: inline (runs the item in the submitter) and
 * thread-per-task (starts a thread for each item).
 *
 * A thread-per-task executor keeps a record of every thread it started until
 * the thread is joined.  A finished thread moves its record to @done; the
 * next submission or the destroy joins it, so finished threads do not pile
 * up and destroy leaves no thread behind.
 */
#include "internal.h"
#include "stats.h"

static int exec_inline_submit(struct exec_executor *ex, struct exec_work *work,
			      unsigned int flags)
{
	/* post and defer promise not to run the item in the caller. */
	if (flags & (EXEC_SUBMIT_POST | EXEC_SUBMIT_DEFER))
		return -EOPNOTSUPP;
	exec_work_run(ex, work);
	return 0;
}

/* Every thread may run the inline executor's items: dispatch runs them. */
static bool exec_inline_running(const struct exec_executor *ex)
{
	return true;
}

/*
 * Nothing ever waits on the inline executor: an item runs in its submitter
 * before the submission returns.  So there is nothing to take back (an
 * item found pending is being run by its submitter, which clears the bit
 * first thing), and nothing submitted before a flush is left to wait for.
 * Which thread runs an item is not kept: a run is not seen from others.
 */
static int exec_inline_take_back(struct exec_executor *ex,
				 struct exec_work *work)
{
	return 0;
}

static int exec_inline_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_inline_take_back);
}

static int exec_inline_flush(struct exec_executor *ex, bool drain)
{
	return 0;
}

static const struct exec_executor_ops exec_inline_ops = {
	.kind = "inline",
	.submit = exec_inline_submit,
	.running_in_this_thread = exec_inline_running,
	.cancel = exec_inline_cancel,
	.flush = exec_inline_flush,
};

static struct exec_executor exec_inline = {
	.ops = &exec_inline_ops,
	.dependents = &exec_static_dependents,
};

struct exec_executor *exec_inline_executor(void)
{
	return &exec_inline;
}
EXPORT_SYMBOL_GPL(exec_inline_executor);

struct exec_thread_per_task;

/**
 * struct exec_tpt_thread - one item's thread
 * @thread: the thread
 * @frame: pushed while the item runs; owner is the executor
 * @work: the item
 * @tpt: the executor
 * @next: L(tpt->lock): link on @tpt->done
 */
struct exec_tpt_thread {
	struct exec_thread thread;
	struct exec_frame frame;
	struct exec_work *work;
	struct exec_thread_per_task *tpt;
	struct exec_tpt_thread *next;
};

/**
 * struct exec_thread_per_task - a thread-per-task executor
 * @ex: the abstract executor
 * @lock: guards @done, @nr_live and the counts
 * @done: L: finished threads not yet joined
 * @nr_live: L: threads started and not yet finished; written with
 *	WRITE_ONCE(), as exec_tpt_stats() reads it without the lock
 * @nr_named: L: threads given a name "prefix/N" so far (the next N)
 * @wq: destroy waits here for @nr_live to reach 0
 * @attr: the threads' attributes, a copy owned by the executor
 * @nr_submitted: L: items given a thread
 * @nr_started: L: items whose function was called
 * @nr_completed: L: items whose function returned
 * @nr_refused: L: submissions refused because a thread could not start
 * @stats_file: the statistics file of the backend, or NULL; set at
 *	creation, removed first thing by destroy
 *
 * The counts are written with WRITE_ONCE() under @lock, which each item
 * takes anyway, and read without it by exec_tpt_stats().
 */
struct exec_thread_per_task {
	struct exec_executor ex;
	spinlock_t lock;
	struct exec_tpt_thread *done;
	unsigned long nr_live;
	unsigned int nr_named;
	wait_queue_head_t wq;
	struct exec_thread_attr attr;
	unsigned long nr_submitted;
	unsigned long nr_started;
	unsigned long nr_completed;
	unsigned long nr_refused;
	void *stats_file;
};

static const struct exec_executor_ops exec_tpt_ops;

static struct exec_thread_per_task *exec_to_tpt(struct exec_executor *ex)
{
	return container_of(ex, struct exec_thread_per_task, ex);
}

static int exec_tpt_thread_fn(void *arg)
{
	struct exec_tpt_thread *t = arg;
	struct exec_thread_per_task *tpt = t->tpt;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&tpt->lock, flags);
	exec_stats_inc(&tpt->nr_started);
	spin_unlock_irqrestore(&tpt->lock, flags);
	exec_frame_push(&t->frame, tpt);
	exec_work_run(&tpt->ex, t->work);
	exec_frame_pop(&t->frame);

	spin_lock_irqsave(&tpt->lock, flags);
	exec_stats_inc(&tpt->nr_completed);
	t->next = tpt->done;
	tpt->done = t;
	WRITE_ONCE(tpt->nr_live, tpt->nr_live - 1);
	last = !tpt->nr_live;
	spin_unlock_irqrestore(&tpt->lock, flags);
	if (last)
		wake_up_all(&tpt->wq);
	return 0;
}

static void exec_tpt_reap(struct exec_thread_per_task *tpt)
{
	struct exec_tpt_thread *t;
	unsigned long flags;

	spin_lock_irqsave(&tpt->lock, flags);
	t = tpt->done;
	tpt->done = NULL;
	spin_unlock_irqrestore(&tpt->lock, flags);
	while (t) {
		struct exec_tpt_thread *next = t->next;

		exec_thread_join(&t->thread);
		kfree(t);
		t = next;
	}
}

static int exec_tpt_submit(struct exec_executor *ex, struct exec_work *work,
			   unsigned int flags)
{
	struct exec_thread_per_task *tpt = exec_to_tpt(ex);
	struct exec_tpt_thread *t;
	unsigned long irqflags;
	char name[32];
	int ret;

	might_sleep();
	exec_tpt_reap(tpt);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->work = work;
	t->tpt = tpt;
	spin_lock_irqsave(&tpt->lock, irqflags);
	WRITE_ONCE(tpt->nr_live, tpt->nr_live + 1);
	exec_stats_inc(&tpt->nr_submitted);
	if (tpt->attr.name)
		snprintf(name, sizeof(name), "%s/%u", tpt->attr.name,
			 tpt->nr_named++);
	spin_unlock_irqrestore(&tpt->lock, irqflags);
	ret = exec_fault_thread_start() ? -EAGAIN :
	      exec_thread_start_attr(&t->thread, exec_tpt_thread_fn, t,
				     tpt->attr.name ? name : "exec-task",
				     &tpt->attr);
	if (ret) {
		spin_lock_irqsave(&tpt->lock, irqflags);
		WRITE_ONCE(tpt->nr_live, tpt->nr_live - 1);
		WRITE_ONCE(tpt->nr_submitted, tpt->nr_submitted - 1);
		if (ret == -EAGAIN)
			exec_stats_inc(&tpt->nr_refused);
		spin_unlock_irqrestore(&tpt->lock, irqflags);
		kfree(t);
	}
	return ret;
}

static unsigned long exec_tpt_pending(struct exec_executor *ex)
{
	/* Every accepted item has a thread of its own: none waits to start. */
	return 0;
}

static bool exec_tpt_running(const struct exec_executor *ex)
{
	return exec_frame_find(container_of(ex, struct exec_thread_per_task,
					    ex));
}

/* Each item gets a thread of its own, even one dispatched from an item. */
static int exec_tpt_dispatch(struct exec_executor *ex, struct exec_work *work)
{
	return exec_tpt_submit(ex, work, EXEC_SUBMIT_POST);
}

/**
 * exec_tpt_stats - a thread-per-task executor's statistics
 * @ex: an executor
 * @st: zeroed by the caller; the executor's counts are added
 *
 * Read in the reverse of the order an item goes through them, so that a
 * snapshot never shows more completed than started, nor more started than
 * submitted.  An item's thread is a thread of the executor while it lives.
 *
 * Context: Any context.
 * Return: false if @ex is not a thread-per-task executor.
 */
bool exec_tpt_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_thread_per_task *tpt;

	if (ex->ops != &exec_tpt_ops)
		return false;
	tpt = exec_to_tpt(ex);
	st->completed = READ_ONCE(tpt->nr_completed);
	/* Pairs with the lock release after each count's update. */
	smp_rmb();
	st->started = READ_ONCE(tpt->nr_started);
	/* As above. */
	smp_rmb();
	st->submitted = READ_ONCE(tpt->nr_submitted);
	st->refused = READ_ONCE(tpt->nr_refused);
	st->nr_threads = READ_ONCE(tpt->nr_live);
	return true;
}

/* @ex's statistics file, if it is a thread-per-task executor; else NULL. */
void *exec_tpt_stats_file(struct exec_executor *ex)
{
	return ex->ops == &exec_tpt_ops ? exec_to_tpt(ex)->stats_file : NULL;
}

static const struct exec_executor_ops exec_tpt_ops = {
	.kind = "thread_per_task",
	.submit = exec_tpt_submit,
	.pending = exec_tpt_pending,
	.running_in_this_thread = exec_tpt_running,
	.dispatch = exec_tpt_dispatch,
};

int exec_thread_per_task_create_attr(struct exec_thread_per_task **tptp,
				     const struct exec_thread_attr *attr)
{
	struct exec_thread_per_task *tpt;
	int ret;

	might_sleep();
	if (!tptp)
		return -EINVAL;
	ret = exec_thread_attr_check(attr);
	if (ret)
		return ret;
	tpt = kzalloc(sizeof(*tpt), GFP_KERNEL);
	if (!tpt)
		return -ENOMEM;
	ret = exec_thread_attr_dup(&tpt->attr, attr);
	if (ret)
		goto err_free;
	ret = exec_executor_init(&tpt->ex, &exec_tpt_ops);
	if (ret)
		goto err_free_attr;
	spin_lock_init(&tpt->lock);
	init_waitqueue_head(&tpt->wq);
	tpt->stats_file = exec_stats_file_add(&tpt->ex, tpt->attr.name ?
					      tpt->attr.name :
					      "thread-per-task");
	*tptp = tpt;
	return 0;

err_free_attr:
	exec_thread_attr_free(&tpt->attr);
err_free:
	kfree(tpt);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_thread_per_task_create_attr);

int exec_thread_per_task_create(struct exec_thread_per_task **tptp)
{
	return exec_thread_per_task_create_attr(tptp, NULL);
}
EXPORT_SYMBOL_GPL(exec_thread_per_task_create);

struct exec_executor *exec_thread_per_task_executor(struct exec_thread_per_task *tpt)
{
	return tpt ? &tpt->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_thread_per_task_executor);

static bool exec_tpt_idle(struct exec_thread_per_task *tpt)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&tpt->lock, flags);
	idle = !tpt->nr_live;
	spin_unlock_irqrestore(&tpt->lock, flags);
	return idle;
}

int exec_thread_per_task_destroy(struct exec_thread_per_task *tpt)
{
	might_sleep();
	if (!tpt)
		return -EINVAL;
	if (exec_frame_find(tpt))
		return -EDEADLK;
	if (exec_executor_check_unused(&tpt->ex))
		return -EBUSY;
	exec_stats_file_remove(tpt->stats_file);
	wait_event(tpt->wq, exec_tpt_idle(tpt));
	exec_tpt_reap(tpt);
	exec_executor_fini(&tpt->ex);
	spin_lock_destroy(&tpt->lock);
	exec_thread_attr_free(&tpt->attr);
	kfree(tpt);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_thread_per_task_destroy);

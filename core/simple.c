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
#include "stats_count.h"

static int exec_inline_submit(struct exec_executor *ex, struct exec_work *work,
			      unsigned int flags)
{
	struct exec_frame frame;

	/* post and defer promise not to run the item in the caller. */
	if (flags & (EXEC_SUBMIT_POST | EXEC_SUBMIT_DEFER))
		return -EOPNOTSUPP;
	/* For exec_current_executor() in the item. */
	exec_frame_push_ex(&frame, ex, ex);
	exec_work_run(ex, work);
	exec_frame_pop(&frame);
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
 * @live_next: L(tpt->lock): link on @tpt->live while the thread has not
 *	finished
 * @run: L(tpt->lock): @work while its function runs, else NULL
 * @id: which submission it was, counted from 0 (@tpt->nr_submitted then)
 * @starting: L(tpt->lock): its submitter is still inside the thread's
 *	start, which reads the record after the thread runs: a thread that
 *	finishes meanwhile leaves the record for the submitter to put on
 *	@tpt->done, so that no other submission reaps and frees it early
 * @finished: L(tpt->lock): the thread finished while @starting
 *
 * @work is read and cleared under @tpt->lock by the thread before it runs
 * the item, or by a cancel that takes the item back first.
 */
struct exec_tpt_thread {
	struct exec_thread thread;
	struct exec_frame frame;
	struct exec_work *work;
	struct exec_thread_per_task *tpt;
	struct exec_tpt_thread *next;
	struct exec_tpt_thread *live_next;
	struct exec_work *run;
	unsigned long id;
	bool starting;
	bool finished;
};

/**
 * struct exec_thread_per_task - a thread-per-task executor
 * @ex: the abstract executor
 * @lock: guards @done, @nr_live and the counts
 * @done: L: finished threads not yet joined
 * @live: L: threads not yet finished, for cancel and flush
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
	struct exec_tpt_thread *live;
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
	struct exec_tpt_thread **link;
	struct exec_work *work;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&tpt->lock, flags);
	/* NULL if a cancel took the item back (exec_tpt_take_back()). */
	work = t->work;
	t->work = NULL;
	t->run = work;
	if (work)
		exec_stats_inc(&tpt->nr_started);
	spin_unlock_irqrestore(&tpt->lock, flags);
	if (work) {
		exec_frame_push_ex(&t->frame, tpt, &tpt->ex);
		exec_work_run(&tpt->ex, work);
		exec_frame_pop(&t->frame);
	}

	spin_lock_irqsave(&tpt->lock, flags);
	if (work)
		exec_stats_inc(&tpt->nr_completed);
	t->run = NULL;
	for (link = &tpt->live; *link != t; link = &(*link)->live_next)
		;
	*link = t->live_next;
	if (t->starting) {
		t->finished = true;
	} else {
		t->next = tpt->done;
		tpt->done = t;
	}
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

	/*
	 * Starting a thread sleeps.  A submission that must not wait may
	 * come from atomic context: it is refused, as a full bounded pool
	 * refuses it, unless its caller said that it may sleep.
	 */
	if ((flags & EXEC_SUBMIT_NOWAIT) && !(flags & EXEC_SUBMIT_MAY_SLEEP)) {
		spin_lock_irqsave(&tpt->lock, irqflags);
		exec_stats_inc(&tpt->nr_refused);
		spin_unlock_irqrestore(&tpt->lock, irqflags);
		return -EAGAIN;
	}
	might_sleep();
	exec_tpt_reap(tpt);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->work = work;
	t->tpt = tpt;
	spin_lock_irqsave(&tpt->lock, irqflags);
	WRITE_ONCE(tpt->nr_live, tpt->nr_live + 1);
	t->id = tpt->nr_submitted;
	exec_stats_inc(&tpt->nr_submitted);
	t->live_next = tpt->live;
	tpt->live = t;
	t->starting = true;
	if (tpt->attr.name)
		snprintf(name, sizeof(name), "%s/%u", tpt->attr.name,
			 tpt->nr_named++);
	spin_unlock_irqrestore(&tpt->lock, irqflags);
	ret = exec_fault_thread_start() ? -EAGAIN :
	      exec_thread_start_attr(&t->thread, exec_tpt_thread_fn, t,
				     tpt->attr.name ? name : "exec-task",
				     &tpt->attr);
	if (ret) {
		struct exec_tpt_thread **link;

		spin_lock_irqsave(&tpt->lock, irqflags);
		for (link = &tpt->live; *link != t; link = &(*link)->live_next)
			;
		*link = t->live_next;
		/* A cancel took it meanwhile: accepted, and discarded. */
		if (!t->work)
			ret = 0;
		WRITE_ONCE(tpt->nr_live, tpt->nr_live - 1);
		WRITE_ONCE(tpt->nr_submitted, tpt->nr_submitted - 1);
		if (ret == -EAGAIN)
			exec_stats_inc(&tpt->nr_refused);
		spin_unlock_irqrestore(&tpt->lock, irqflags);
		kfree(t);
		return ret;
	}
	/* Done with the record: a thread that finished leaves it to us. */
	spin_lock_irqsave(&tpt->lock, irqflags);
	t->starting = false;
	if (t->finished) {
		t->next = tpt->done;
		tpt->done = t;
	}
	spin_unlock_irqrestore(&tpt->lock, irqflags);
	return 0;
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

/*
 * Each item gets a thread of its own, even one dispatched from an item.
 * exec_dispatch() may come from atomic context, so this is a post that
 * does not sleep: refused.  exec_dispatch_fn(), from process context,
 * posts its closure with EXEC_SUBMIT_MAY_SLEEP instead (exec_tpt_is()).
 */
static int exec_tpt_dispatch(struct exec_executor *ex, struct exec_work *work)
{
	return exec_tpt_submit(ex, work, EXEC_SUBMIT_POST | EXEC_SUBMIT_NOWAIT);
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

bool exec_tpt_is(const struct exec_executor *ex)
{
	return ex->ops == &exec_tpt_ops;
}

/* @ex's statistics file, if it is a thread-per-task executor; else NULL. */
void *exec_tpt_stats_file(struct exec_executor *ex)
{
	return ex->ops == &exec_tpt_ops ? exec_to_tpt(ex)->stats_file : NULL;
}

/*
 * Cancel's look: an item whose thread has not yet taken it (it takes it
 * under the lock before it runs it) is taken back by its record; the
 * thread then finishes without running anything.
 */
static int exec_tpt_take_back(struct exec_executor *ex, struct exec_work *work)
{
	struct exec_thread_per_task *tpt = exec_to_tpt(ex);
	struct exec_tpt_thread *t;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&tpt->lock, flags);
	for (t = tpt->live; t && !ret; t = t->live_next) {
		if (t->work == work) {
			t->work = NULL;
			ret = 1;
		}
	}
	spin_unlock_irqrestore(&tpt->lock, flags);
	return ret;
}

static int exec_tpt_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_tpt_take_back);
}

/*
 * A live thread that runs @work, other than @skip (@found: must be that
 * one), or NULL.  Records are freed once joined, so a wait looks them up
 * under the lock each time.
 */
static struct exec_tpt_thread *
exec_tpt_find_run(struct exec_thread_per_task *tpt, struct exec_work *work,
		  struct exec_tpt_thread *skip, struct exec_tpt_thread *found)
{
	struct exec_tpt_thread *t;
	unsigned long flags;

	spin_lock_irqsave(&tpt->lock, flags);
	for (t = tpt->live; t; t = t->live_next)
		if (t != skip && t->run == work && (!found || t == found))
			break;
	spin_unlock_irqrestore(&tpt->lock, flags);
	return t;
}

static int exec_tpt_work_running(struct exec_executor *ex,
				 struct exec_work *work, bool wait)
{
	struct exec_thread_per_task *tpt = exec_to_tpt(ex);
	struct exec_frame *frame = exec_frame_find(tpt);
	struct exec_tpt_thread *self = frame ?
		container_of(frame, struct exec_tpt_thread, frame) : NULL;
	struct exec_tpt_thread *t;
	unsigned long us = 16;

	/* Only its own thread changes @self->run. */
	if (self && READ_ONCE(self->run) == work)
		return wait ? -EDEADLK : 1;
	t = exec_tpt_find_run(tpt, work, self, NULL);
	if (!t || !wait)
		return !!t;
	while (exec_tpt_find_run(tpt, work, self, t))
		exec_poll_sleep(&us);
	return 1;
}

/* Whether a thread of a submission before @id is still live. */
static bool exec_tpt_live_before(struct exec_thread_per_task *tpt,
				 unsigned long id)
{
	struct exec_tpt_thread *t;
	unsigned long flags;
	bool live = false;

	spin_lock_irqsave(&tpt->lock, flags);
	for (t = tpt->live; t && !live; t = t->live_next)
		live = (long)(t->id - id) < 0;
	spin_unlock_irqrestore(&tpt->lock, flags);
	return live;
}

/*
 * Every item has a thread of its own from its submission on: a flush waits
 * for the threads of the submissions before it.  A drain goes on while a
 * round saw new submissions, which only items (or others) make.
 */
static int exec_tpt_flush(struct exec_executor *ex, bool drain)
{
	struct exec_thread_per_task *tpt = exec_to_tpt(ex);
	unsigned long before, us;

	do {
		before = READ_ONCE(tpt->nr_submitted);
		us = 16;
		while (exec_tpt_live_before(tpt, before))
			exec_poll_sleep(&us);
	} while (drain && READ_ONCE(tpt->nr_submitted) != before);
	return 0;
}

static const struct exec_executor_ops exec_tpt_ops = {
	.kind = "thread_per_task",
	.submit = exec_tpt_submit,
	.pending = exec_tpt_pending,
	.running_in_this_thread = exec_tpt_running,
	.dispatch = exec_tpt_dispatch,
	.cancel = exec_tpt_cancel,
	.work_running = exec_tpt_work_running,
	.flush = exec_tpt_flush,
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
	exec_executor_lockdep_wait(&tpt->ex);
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

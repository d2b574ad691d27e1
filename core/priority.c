// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The priority executor (P0113 6.8, N3785 prioritized pools).
 *
 * Items wait in one intrusive FIFO per level, linked through exec_work::next,
 * with a bitmap of the levels that hold items: the highest is found with
 * fls64().  Everything that decides which item goes next is guarded by one
 * raw spinlock, held for a few list operations, never while an item runs.
 *
 * Runners.  The executor runs its items through runners, items of its own
 * that it submits to the underlying executor; at most @max_running of them
 * are scheduled or running at once ("reserved").  A runner takes the next
 * item under the lock, runs it without the lock, and goes on until the
 * levels are empty or it has run EXEC_PRIORITY_BATCH items; then it submits
 * itself again if items are left, keeping its reservation, so that other
 * work on the underlying executor gets its turn between batches.
 *
 * A submission that finds no runner reserved reserves the first one and sets
 * @first_pending until that runner starts; while it is set nobody reserves
 * another, so no runner can take the submitted item before the first runner
 * starts, and if the underlying executor refuses it the item is still there
 * to be taken back: the submission fails with the underlying executor's
 * error, as on a serial executor.  With @max_running above 1, a submission or
 * a runner that has just taken an item reserves one more runner while fewer
 * are reserved than there are items waiting or running, so several runners
 * drain the levels, each taking the highest item left.
 *
 * When the last runner's reservation ends while items wait (the underlying
 * executor refused or discarded a runner), nobody would take them: whoever
 * ends it discards them, so no item is ever stranded.
 *
 * Aging.  Nothing is added to struct exec_work.  Each level keeps two times:
 * @tail_ns, when its newest item was queued, and @head_ns, a time no
 * earlier than when its oldest item was queued: the item's own enqueue time
 * if it came to an empty level, else the level's @tail_ns at the moment it
 * became the oldest (it was queued before the newest item, so no later).
 * The levels' oldest items are compared against now - @aging_ns at every
 * take, and the oldest of those that have waited longer runs first.  So an
 * item is never promoted early; it may be promoted late by how long its
 * level kept receiving items before it became the oldest (items queued in a
 * burst are promoted together).  The cost, with aging on: a clock read per
 * submission and per take, and a look at each non-empty level per take.
 *
 * Lifetime.  The handle holds a reference, and each reserved runner one.
 * exec_priority_destroy() sets @dying, waits until no item runs, and
 * discards what waits; a runner that starts later only drops its
 * reference, so the underlying executor may still hold it after destroy.
 */
#include "internal.h"

#define EXEC_PRIORITY_BATCH	64

/**
 * struct exec_prio_level - the items waiting at one priority
 * @head: L: the oldest; NULL when the level is empty
 * @tail: L: the newest
 * @head_ns: L: no earlier than when @head was queued (with aging only)
 * @tail_ns: L: when @tail was queued (with aging only)
 */
struct exec_prio_level {
	struct exec_work *head;
	struct exec_work *tail;
	u64 head_ns;
	u64 tail_ns;
};

/**
 * struct exec_prio_runner - an item the executor submits to its underlying
 * @work: pending while the underlying executor holds it
 * @prio: its executor; set at creation
 * @next_free: L: the next runner not reserved
 */
struct exec_prio_runner {
	struct exec_work work;
	struct exec_priority *prio;
	struct exec_prio_runner *next_free;
};

/**
 * struct exec_priority - a priority executor
 * @ex: the abstract executor
 * @underlying: runs the runners; set at creation
 * @nr_levels: levels 0 .. @nr_levels - 1; set at creation
 * @max_running: runners that may be reserved at once; set at creation
 * @default_level: the level of exec_submit(); set at creation
 * @aging_ns: the aging bound, 0 for none; set at creation
 * @refs: A: references (handle + reserved runners)
 * @lock: guards the fields marked L; raw, as submissions come from any
 *	context, hardirq included, and a priority executor over the inline
 *	executor takes items in the submitter's context
 * @nonempty: L: bit n set when level n holds items
 * @nr_queued: L: items waiting; read locklessly by exec_pending_count()
 * @nr_reserved: L: runners scheduled on @underlying or running
 * @nr_running: L: items taken by a runner and not yet returned
 * @first_pending: L: the only reserved runner has not started yet; no
 *	other runner is reserved meanwhile
 * @dying: L: exec_priority_destroy() has begun
 * @free_runners: L: runners not reserved, linked through @next_free
 * @idle_wq: exec_priority_destroy() waits here for @nr_running to reach 0
 * @runners: the @max_running runners; set at creation
 * @levels: L: the @nr_levels FIFOs
 */
struct exec_priority {
	struct exec_executor ex;
	struct exec_executor *underlying;
	unsigned int nr_levels;
	unsigned int max_running;
	unsigned int default_level;
	u64 aging_ns;
	atomic_t refs;
	raw_spinlock_t lock;
	u64 nonempty;
	unsigned long nr_queued;
	unsigned int nr_reserved;
	unsigned int nr_running;
	bool first_pending;
	bool dying;
	struct exec_prio_runner *free_runners;
	wait_queue_head_t idle_wq;
	struct exec_prio_runner *runners;
	struct exec_prio_level levels[];
};

static const struct exec_executor_ops exec_priority_ops;

static struct exec_priority *exec_to_prio(struct exec_executor *ex)
{
	return container_of(ex, struct exec_priority, ex);
}

static void exec_prio_put(struct exec_priority *p)
{
	if (!atomic_dec_and_test(&p->refs))
		return;
	exec_timers_free(&p->ex);
	exec_executor_fini(&p->ex);
	raw_spin_lock_destroy(&p->lock);
	kfree(p->runners);
	kfree(p);
}

/* Under @lock: @work goes to the back of @level; @now is 0 without aging. */
static void exec_prio_enqueue(struct exec_priority *p, struct exec_work *work,
			      unsigned int level, u64 now)
{
	struct exec_prio_level *l = &p->levels[level];

	work->next = NULL;
	if (l->head) {
		/* Read before the lock: keep the times in queue order. */
		if (now < l->tail_ns)
			now = l->tail_ns;
		l->tail->next = work;
	} else {
		l->head = work;
		l->head_ns = now;
		p->nonempty |= 1ULL << level;
	}
	l->tail = work;
	l->tail_ns = now;
	WRITE_ONCE(p->nr_queued, p->nr_queued + 1);
}

/*
 * Under @lock, with items waiting: the level to take from.  The highest,
 * unless the oldest item of some level has waited longer than the aging
 * bound: then the level whose oldest item is the oldest of those.
 */
static unsigned int exec_prio_pick(struct exec_priority *p)
{
	unsigned int level = fls64(p->nonempty) - 1, l;
	u64 bits = p->nonempty, oldest = U64_MAX, now, t;

	if (!p->aging_ns)
		return level;
	now = ktime_get_ns();
	while (bits) {
		l = __ffs64(bits);
		bits &= bits - 1;
		t = p->levels[l].head_ns;
		/* Ties go to the higher level: it comes later. */
		if (now > t && now - t > p->aging_ns && t <= oldest) {
			oldest = t;
			level = l;
		}
	}
	return level;
}

/* Under @lock: the next item to run, taken off its level; NULL if none. */
static struct exec_work *exec_prio_take(struct exec_priority *p)
{
	struct exec_prio_level *l;
	struct exec_work *work;
	unsigned int level;

	if (!p->nonempty)
		return NULL;
	level = exec_prio_pick(p);
	l = &p->levels[level];
	work = l->head;
	l->head = work->next;
	if (l->head) {
		/* The new head was queued no later than the tail. */
		l->head_ns = l->tail_ns;
	} else {
		l->tail = NULL;
		p->nonempty &= ~(1ULL << level);
	}
	WRITE_ONCE(p->nr_queued, p->nr_queued - 1);
	return work;
}

/* Under @lock: takes @work back off @level; false if it is not there. */
static bool exec_prio_remove(struct exec_priority *p, struct exec_work *work,
			     unsigned int level)
{
	struct exec_prio_level *l = &p->levels[level];
	struct exec_work **link, *prev = NULL;

	for (link = &l->head; *link; prev = *link, link = &prev->next) {
		if (*link != work)
			continue;
		*link = work->next;
		if (l->tail == work)
			l->tail = prev;
		if (!l->head)
			p->nonempty &= ~(1ULL << level);
		else if (!prev)
			l->head_ns = l->tail_ns;
		WRITE_ONCE(p->nr_queued, p->nr_queued - 1);
		return true;
	}
	return false;
}

/* Under @lock: every waiting item, highest level first, linked by ->next. */
static struct exec_work *exec_prio_detach(struct exec_priority *p)
{
	struct exec_work *list = NULL, **link = &list;
	struct exec_prio_level *l;
	unsigned int level;

	while (p->nonempty) {
		level = fls64(p->nonempty) - 1;
		l = &p->levels[level];
		*link = l->head;
		link = &l->tail->next;
		l->head = NULL;
		l->tail = NULL;
		p->nonempty &= ~(1ULL << level);
	}
	WRITE_ONCE(p->nr_queued, 0);
	return list;
}

/* Hands every item of a detached list to its discard callback. */
static long exec_prio_discard_list(struct exec_work *list)
{
	struct exec_work *next;
	long n = 0;

	for (; list; list = next, n++) {
		next = list->next;
		exec_work_discard(list);
	}
	return n;
}

/* Under @lock, with a runner free: reserve it, with a reference. */
static struct exec_prio_runner *exec_prio_reserve(struct exec_priority *p)
{
	struct exec_prio_runner *r = p->free_runners;

	p->free_runners = r->next_free;
	p->nr_reserved++;
	atomic_inc(&p->refs);
	return r;
}

/*
 * Under @lock: @r's reservation ends (its reference is the caller's to
 * drop).  If it was the last while items wait and destroy has not begun,
 * nobody would take them: returns them, detached, for the caller to discard.
 */
static struct exec_work *exec_prio_unreserve(struct exec_priority *p,
					     struct exec_prio_runner *r)
{
	r->next_free = p->free_runners;
	p->free_runners = r;
	p->nr_reserved--;
	if (p->dying || p->nr_reserved || !p->nr_queued)
		return NULL;
	return exec_prio_detach(p);
}

/* Under @lock: whether one more runner would have an item to take. */
static bool exec_prio_want_runner(struct exec_priority *p)
{
	return !p->first_pending && !p->dying &&
	       p->nr_reserved < p->max_running &&
	       p->nr_reserved < p->nr_queued + p->nr_running;
}

/* Ends @r's reservation from outside the lock; discards orphans. */
static void exec_prio_release(struct exec_priority *p,
			      struct exec_prio_runner *r)
{
	struct exec_work *orphans;
	unsigned long flags;

	raw_spin_lock_irqsave(&p->lock, flags);
	orphans = exec_prio_unreserve(p, r);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	exec_prio_discard_list(orphans);
	exec_prio_put(p);
}

/*
 * Submits a runner reserved beside others.  If the underlying executor
 * refuses it, the others drain the levels; if there are none left, the
 * waiting items are discarded.
 */
static void exec_prio_schedule_extra(struct exec_priority *p,
				     struct exec_prio_runner *r,
				     unsigned int flags)
{
	if (likely(!exec_submit_flags(p->underlying, &r->work,
				      flags | EXEC_SUBMIT_NOWAIT)))
		return;
	exec_prio_release(p, r);
}

static void exec_prio_runner_fn(struct exec_work *runner)
{
	struct exec_prio_runner *r = container_of(runner,
						  struct exec_prio_runner,
						  work);
	struct exec_priority *p = r->prio;
	struct exec_prio_runner *extra;
	struct exec_frame frame;
	struct exec_work *work;
	unsigned int done = 0;
	unsigned long flags;
	bool wake = false;

	raw_spin_lock_irqsave(&p->lock, flags);
	p->first_pending = false;
	while (!p->dying && done < EXEC_PRIORITY_BATCH &&
	       (work = exec_prio_take(p))) {
		p->nr_running++;
		extra = exec_prio_want_runner(p) ? exec_prio_reserve(p) : NULL;
		raw_spin_unlock_irqrestore(&p->lock, flags);

		if (extra)
			exec_prio_schedule_extra(p, extra, 0);
		exec_frame_push(&frame, p);
		exec_work_run(work);
		exec_frame_pop(&frame);
		done++;

		raw_spin_lock_irqsave(&p->lock, flags);
		p->nr_running--;
		wake = p->dying && !p->nr_running;
	}
	if (!p->dying && done == EXEC_PRIORITY_BATCH && p->nr_queued) {
		raw_spin_unlock_irqrestore(&p->lock, flags);
		/* Again, keeping the reservation and its reference. */
		if (!exec_submit_flags(p->underlying, &r->work, 0))
			return;
		exec_prio_release(p, r);
		return;
	}
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (wake)
		wake_up_all(&p->idle_wq);
	exec_prio_release(p, r);
}

/* The underlying executor dropped a runner (a hard shutdown of a pool). */
static void exec_prio_runner_discarded(struct exec_work *runner)
{
	struct exec_prio_runner *r = container_of(runner,
						  struct exec_prio_runner,
						  work);
	struct exec_priority *p = r->prio;
	unsigned long flags;

	raw_spin_lock_irqsave(&p->lock, flags);
	p->first_pending = false;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	exec_prio_release(p, r);
}

/* @work is pending and @level in range. */
static int exec_prio_submit_level(struct exec_priority *p,
				  struct exec_work *work, unsigned int level,
				  unsigned int flags)
{
	u64 now = p->aging_ns ? ktime_get_ns() : 0;
	struct exec_prio_runner *r = NULL;
	struct exec_work *orphans;
	unsigned long irqflags;
	bool first = false;
	int ret;

	raw_spin_lock_irqsave(&p->lock, irqflags);
	if (unlikely(p->dying)) {
		raw_spin_unlock_irqrestore(&p->lock, irqflags);
		return -ESHUTDOWN;
	}
	exec_prio_enqueue(p, work, level, now);
	if (!p->nr_reserved) {
		r = exec_prio_reserve(p);
		p->first_pending = true;
		first = true;
	} else if (exec_prio_want_runner(p)) {
		r = exec_prio_reserve(p);
	}
	raw_spin_unlock_irqrestore(&p->lock, irqflags);
	if (!r)
		return 0;
	if (!first) {
		exec_prio_schedule_extra(p, r, flags);
		return 0;
	}

	ret = exec_submit_flags(p->underlying, &r->work, flags);
	if (likely(!ret))
		return 0;
	/*
	 * No runner has started since we reserved the first, so @work is
	 * still queued: take it back and fail.  Items queued beside it have
	 * no runner now: they are discarded.
	 */
	raw_spin_lock_irqsave(&p->lock, irqflags);
	p->first_pending = false;
	if (WARN_ON_ONCE(!exec_prio_remove(p, work, level)))
		ret = 0;
	orphans = exec_prio_unreserve(p, r);
	raw_spin_unlock_irqrestore(&p->lock, irqflags);
	exec_prio_discard_list(orphans);
	exec_prio_put(p);
	return ret;
}

static int exec_priority_submit_op(struct exec_executor *ex,
				   struct exec_work *work, unsigned int flags)
{
	struct exec_priority *p = exec_to_prio(ex);

	return exec_prio_submit_level(p, work, p->default_level, flags);
}

int exec_priority_submit(struct exec_priority *prio, struct exec_work *work,
			 int level)
{
	int ret;

	if (unlikely(!prio || !work || !work->func))
		return -EINVAL;
	if (unlikely(level < 0 || level >= (int)prio->nr_levels))
		return -EINVAL;
	if (test_and_set_bit(EXEC_WORK_PENDING_BIT, &work->flags))
		return -EALREADY;
	ret = exec_prio_submit_level(prio, work, level, 0);
	if (unlikely(ret))
		clear_bit_unlock(EXEC_WORK_PENDING_BIT, &work->flags);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_priority_submit);

int exec_priority_submit_fn(struct exec_priority *prio, exec_fn fn, void *arg,
			    int level)
{
	struct exec_work *work;
	int ret;

	might_sleep();
	if (unlikely(!prio || !fn))
		return -EINVAL;
	if (unlikely(level < 0 || level >= (int)prio->nr_levels))
		return -EINVAL;
	work = exec_closure_get(&prio->ex, fn, NULL, arg, GFP_KERNEL);
	if (unlikely(!work))
		return -ENOMEM;
	ret = exec_priority_submit(prio, work, level);
	if (unlikely(ret))
		exec_closure_put(work);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_priority_submit_fn);

static unsigned long exec_priority_pending(struct exec_executor *ex)
{
	return READ_ONCE(exec_to_prio(ex)->nr_queued);
}

int exec_priority_create(struct exec_priority **priop,
			 struct exec_executor *underlying,
			 const struct exec_priority_attr *attr)
{
	struct exec_priority_attr a = { 0 };
	struct exec_priority *p;
	unsigned int i;
	int ret;

	BUILD_BUG_ON(EXEC_PRIORITY_MAX_LEVELS > 64);
	might_sleep();
	if (attr)
		a = *attr;
	if (!priop || !underlying || !underlying->ops)
		return -EINVAL;
	if (!a.nr_levels)
		a.nr_levels = EXEC_PRIORITY_DEFAULT_LEVELS;
	if (!a.max_running)
		a.max_running = 1;
	if (a.nr_levels > EXEC_PRIORITY_MAX_LEVELS ||
	    a.max_running > EXEC_PRIORITY_MAX_RUNNING)
		return -EINVAL;

	p = kzalloc(sizeof(*p) + a.nr_levels * sizeof(p->levels[0]),
		    GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->runners = kcalloc(a.max_running, sizeof(*p->runners), GFP_KERNEL);
	if (!p->runners) {
		ret = -ENOMEM;
		goto err_free_prio;
	}
	ret = exec_executor_init(&p->ex, &exec_priority_ops);
	if (ret)
		goto err_free_runners;
	/* Timed items are armed on the underlying executor's base. */
	ret = exec_timers_share(&p->ex, underlying);
	if (ret)
		goto err_fini_executor;
	p->underlying = underlying;
	/* Until exec_priority_destroy(): the underlying cannot go first. */
	exec_executor_depend(underlying, EXEC_DEP_PRIORITY);
	p->nr_levels = a.nr_levels;
	p->max_running = a.max_running;
	p->default_level = a.nr_levels / 2;
	p->aging_ns = a.aging_ns;
	atomic_set(&p->refs, 1);
	raw_spin_lock_init(&p->lock);
	init_waitqueue_head(&p->idle_wq);
	for (i = 0; i < a.max_running; i++) {
		exec_work_init_discard(&p->runners[i].work, exec_prio_runner_fn,
				       exec_prio_runner_discarded);
		p->runners[i].prio = p;
		p->runners[i].next_free = p->free_runners;
		p->free_runners = &p->runners[i];
	}
	*priop = p;
	return 0;

err_fini_executor:
	exec_executor_fini(&p->ex);
err_free_runners:
	kfree(p->runners);
err_free_prio:
	kfree(p);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_priority_create);

struct exec_executor *exec_priority_executor(struct exec_priority *prio)
{
	return prio ? &prio->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_priority_executor);

struct exec_executor *exec_priority_underlying(struct exec_priority *prio)
{
	return prio ? prio->underlying : NULL;
}
EXPORT_SYMBOL_GPL(exec_priority_underlying);

int exec_priority_default_level(const struct exec_priority *prio)
{
	return prio ? (int)prio->default_level : -EINVAL;
}
EXPORT_SYMBOL_GPL(exec_priority_default_level);

bool exec_priority_running_in_this_thread(const struct exec_priority *prio)
{
	return prio && exec_frame_find(prio);
}
EXPORT_SYMBOL_GPL(exec_priority_running_in_this_thread);

static bool exec_prio_quiet(struct exec_priority *p)
{
	unsigned long flags;
	bool quiet;

	raw_spin_lock_irqsave(&p->lock, flags);
	quiet = !p->nr_running;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return quiet;
}

long exec_priority_destroy(struct exec_priority *prio)
{
	struct exec_priority *p = prio;
	struct exec_work *list;
	unsigned long flags;
	long discarded;

	might_sleep();
	if (!p)
		return -EINVAL;
	if (exec_frame_find(p))
		return -EDEADLK;
	if (exec_executor_check_unused(&p->ex))
		return -EBUSY;

	/* Armed items are discarded, due ones reach the levels first. */
	discarded = exec_timers_shutdown(&p->ex);
	raw_spin_lock_irqsave(&p->lock, flags);
	p->dying = true;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	wait_event(p->idle_wq, exec_prio_quiet(p));

	/* No runner takes items any more: what waits is ours. */
	raw_spin_lock_irqsave(&p->lock, flags);
	list = exec_prio_detach(p);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	discarded += exec_prio_discard_list(list);
	/* As on a serial executor: a runner still queued only drops a ref. */
	exec_executor_undepend(p->underlying, EXEC_DEP_PRIORITY);
	exec_prio_put(p);
	return discarded;
}
EXPORT_SYMBOL_GPL(exec_priority_destroy);

static bool exec_priority_running(const struct exec_executor *ex)
{
	return exec_frame_find(container_of(ex, struct exec_priority, ex));
}

/*
 * Dispatch never runs the item in the caller, even inside one of its own
 * items: that would pass over the items of higher priority that wait.
 */
static int exec_priority_dispatch(struct exec_executor *ex,
				  struct exec_work *work)
{
	return exec_priority_submit_op(ex, work,
				       EXEC_SUBMIT_POST | EXEC_SUBMIT_NOWAIT);
}

/* As a strand's: its execution context is its underlying executor's. */
static struct exec_executor *
exec_priority_context_executor(struct exec_executor *ex)
{
	return exec_to_prio(ex)->underlying;
}

static const struct exec_executor_ops exec_priority_ops = {
	.kind = "priority",
	.submit = exec_priority_submit_op,
	.pending = exec_priority_pending,
	.running_in_this_thread = exec_priority_running,
	.dispatch = exec_priority_dispatch,
	.context_executor = exec_priority_context_executor,
};

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Cancellation tokens, task groups and latches (include/exec/group.h).
 *
 * A group counts its items twice:
 *
 *  @nr_active  items submitted and not yet returned from their function or
 *              discard callback: what exec_group_wait() and the notify
 *              continuation wait for.  Decrements that do not reach zero are
 *              a lock-free cmpxchg; the one to zero is made under @lock,
 *              which also wakes the waiters and fires the continuation, so
 *              that exec_group_destroy() (which takes @lock) cannot free the
 *              group under the thread that emptied it.
 *  @word       the items queued and not yet started, with the CANCELLED bit
 *              and a cancel epoch above them.  A submission adds one and
 *              records the epoch in its item; an item that starts (or that
 *              its executor drops) takes one off if the epoch is still its
 *              own; exec_group_cancel() bumps the epoch and zeroes the count
 *              in one cmpxchg, so every queued item is either started before
 *              the cancel (and runs) or counted by the cancel (and is
 *              discarded when its executor reaches it, its epoch then being
 *              stale), never both.
 *
 * Executor queues are lock-free and have no removal, and the item's memory
 * belongs to its owner, who may free it from its discard callback; so a
 * removed item stays in its executor's queue and is discarded there.
 *
 * Neither count takes a lock on the submission path.
 */
#include "internal.h"

/* @word: the low half (less one bit) counts queued items. */
#define EXEC_GROUP_QUEUED_BITS	(sizeof(long) * 4 - 1)
#define EXEC_GROUP_QUEUED_MASK	(BIT(EXEC_GROUP_QUEUED_BITS) - 1)
#define EXEC_GROUP_CANCELLED	BIT(EXEC_GROUP_QUEUED_BITS)
#define EXEC_GROUP_EPOCH_ONE	BIT(EXEC_GROUP_QUEUED_BITS + 1)
#define EXEC_GROUP_EPOCH_MASK	(~(EXEC_GROUP_EPOCH_ONE - 1))

#define EXEC_GROUP_ITEM_PENDING_BIT	0

enum exec_group_notify_state {
	EXEC_GROUP_NOTIFY_IDLE,
	EXEC_GROUP_NOTIFY_ARMED,	/* waits for the group to empty */
	EXEC_GROUP_NOTIFY_FIRING,	/* handed to its executor, not started */
};

/**
 * struct exec_group - a task group
 * @word: A: queued items (EXEC_GROUP_QUEUED_MASK), EXEC_GROUP_CANCELLED and
 *	the cancel epoch (EXEC_GROUP_EPOCH_MASK); changed with cmpxchg()
 * @nr_active: A: items counted; falls to zero only under @lock
 * @token: A: requested by exec_group_cancel()
 * @lock: guards the notify fields and the fall of @nr_active to zero; taken
 *	once per emptying of the group and by notify and destroy, never on
 *	the submission path, so it shares the counters' line: a group made
 *	per request is one small allocation, not a line-aligned one
 * @wait: exec_group_wait() sleeps here; woken under @lock
 * @notify_state: L: enum exec_group_notify_state; the group may not be
 *	destroyed unless IDLE, since @notify_work may be queued
 * @notify_ex: L: executor of the continuation
 * @notify_fn: L: the continuation
 * @notify_arg: L: its argument
 * @notify_guard: L: outstanding work on @notify_ex while ARMED
 * @notify_work: the continuation's item; owned by its executor while FIRING
 * @lockdep: I: its items run in it, exec_group_wait() takes it first, so
 *	that a lock held around a wait and taken by an item is reported
 */
struct exec_group {
	atomic_long_t word;
	atomic_long_t nr_active;
	struct exec_cancel_token token;
	spinlock_t lock;
	wait_queue_head_t wait;
	int notify_state;
	struct exec_executor *notify_ex;
	exec_fn notify_fn;
	void *notify_arg;
	struct exec_work_guard notify_guard;
	struct exec_work notify_work;
	struct exec_lockdep_site lockdep;
};

int exec_cancel_request(struct exec_cancel_token *tok)
{
	if (!tok)
		return -EINVAL;
	/* Full barrier: pairs with the acquire of exec_cancel_requested(). */
	if (xchg(&tok->requested, 1UL))
		return -EALREADY;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_cancel_request);

int exec_cancel_token_reset(struct exec_cancel_token *tok)
{
	if (!tok)
		return -EINVAL;
	/* Pairs with the acquire of exec_cancel_requested(). */
	smp_store_release(&tok->requested, 0UL);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_cancel_token_reset);

/* The continuation: also its discard callback, so it is never lost. */
static void exec_group_notify_run(struct exec_work *work)
{
	struct exec_group *g = container_of(work, struct exec_group,
					    notify_work);
	unsigned long flags;
	exec_fn fn;
	void *arg;

	spin_lock_irqsave(&g->lock, flags);
	fn = g->notify_fn;
	arg = g->notify_arg;
	/* From here the group may be destroyed: no more access to it. */
	g->notify_state = EXEC_GROUP_NOTIFY_IDLE;
	spin_unlock_irqrestore(&g->lock, flags);
	fn(arg);
}

/* Hands the continuation to its executor; the state is FIRING. */
static int exec_group_notify_submit(struct exec_group *g,
				    struct exec_executor *ex)
{
	return exec_submit_flags(ex, &g->notify_work,
				 EXEC_SUBMIT_NOWAIT | EXEC_SUBMIT_FORCE);
}

/* The count falls to zero: wake the waiters and fire the continuation. */
static void exec_group_put_last(struct exec_group *g)
{
	struct exec_work_guard guard = { NULL };
	struct exec_executor *ex = NULL;
	unsigned long flags;

	spin_lock_irqsave(&g->lock, flags);
	/*
	 * Fully ordered: what the items did is visible to a waiter that
	 * reads zero with acquire in exec_group_wait().
	 */
	if (atomic_long_dec_and_test(&g->nr_active)) {
		if (g->notify_state == EXEC_GROUP_NOTIFY_ARMED) {
			g->notify_state = EXEC_GROUP_NOTIFY_FIRING;
			ex = g->notify_ex;
			/* The guard's unit moves to this thread. */
			guard.ex = xchg(&g->notify_guard.ex, NULL);
		}
		wake_up_all(&g->wait);
	}
	spin_unlock_irqrestore(&g->lock, flags);
	if (!ex)
		return;
	/* No longer a dependent, but destroy waits until we are done. */
	exec_executor_handover_begin(ex, EXEC_DEP_GROUP_NOTIFY);
	/* FIRING keeps the group alive until the continuation starts. */
	if (exec_group_notify_submit(g, ex))
		exec_group_notify_run(&g->notify_work);
	/* Released once the continuation is the executor's own work. */
	if (guard.ex)
		exec_work_guard_drop(&guard, EXEC_DEP_NONE);
	exec_executor_handover_end(ex);
}

/* One counted item is done; the group is not touched after the decrement. */
static void exec_group_put(struct exec_group *g)
{
	long old = atomic_long_read(&g->nr_active);

	do {
		if (old == 1) {
			exec_group_put_last(g);
			return;
		}
		/* Fully ordered: pairs as the decrement in put_last. */
	} while (!atomic_long_try_cmpxchg(&g->nr_active, &old, old - 1));
}

/*
 * Takes one queued item of @epoch off @word as it starts or is dropped.
 * False if a cancel has already counted it as removed.
 */
static bool exec_group_claim(struct exec_group *g, unsigned long epoch)
{
	long old = atomic_long_read(&g->word);

	do {
		if (((unsigned long)old & EXEC_GROUP_EPOCH_MASK) != epoch)
			return false;
		/* Fully ordered: against the cancel's cmpxchg. */
	} while (!atomic_long_try_cmpxchg(&g->word, &old, old - 1));
	return true;
}

/* Counts a new item; its epoch in *@epoch. */
static int exec_group_enter(struct exec_group *g, unsigned long *epoch)
{
	long old;

	/* Counted first: a waiter never misses an item a cancel removes. */
	atomic_long_inc(&g->nr_active);
	old = atomic_long_read(&g->word);
	do {
		if ((unsigned long)old & EXEC_GROUP_CANCELLED)
			goto err_put;
		if (((unsigned long)old & EXEC_GROUP_QUEUED_MASK) ==
		    EXEC_GROUP_QUEUED_MASK)
			goto err_put;
		/* Fully ordered: against the cancel's cmpxchg. */
	} while (!atomic_long_try_cmpxchg(&g->word, &old, old + 1));
	*epoch = (unsigned long)old & EXEC_GROUP_EPOCH_MASK;
	return 0;

err_put:
	exec_group_put(g);
	return (unsigned long)old & EXEC_GROUP_CANCELLED ? -ECANCELED : -EAGAIN;
}

/* Hands a removed or dropped item to its discard callback. */
static void exec_group_item_discard(struct exec_group *g,
				    struct exec_group_item *item)
{
	exec_group_fn discard = item->discard;

	clear_bit_unlock(EXEC_GROUP_ITEM_PENDING_BIT, &item->state);
	if (discard)
		discard(item);
	exec_group_put(g);
}

/* exec_work::func of a group item: run it, or discard it if removed. */
static void exec_group_item_run(struct exec_work *work)
{
	struct exec_group_item *item = container_of(work,
						    struct exec_group_item,
						    work);
	struct exec_group *g = item->group;
	exec_group_fn func = item->func;
	struct exec_frame frame;

	if (!exec_group_claim(g, item->epoch)) {
		exec_group_item_discard(g, item);
		return;
	}
	/* Release: the function may submit the item again. */
	clear_bit_unlock(EXEC_GROUP_ITEM_PENDING_BIT, &item->state);
	exec_frame_push(&frame, g);
	exec_lockdep_site_run_begin(&g->lockdep);
	func(item);
	exec_lockdep_site_run_end(&g->lockdep);
	exec_frame_pop(&frame);
	exec_group_put(g);
}

/* exec_work::discard of a group item: its executor dropped it. */
static void exec_group_item_dropped(struct exec_work *work)
{
	struct exec_group_item *item = container_of(work,
						    struct exec_group_item,
						    work);
	struct exec_group *g = item->group;

	/* Either still queued or already counted by a cancel: discarded. */
	exec_group_claim(g, item->epoch);
	exec_group_item_discard(g, item);
}

int exec_group_submit(struct exec_group *g, struct exec_executor *ex,
		      struct exec_group_item *item)
{
	unsigned long epoch;
	int ret;

	if (unlikely(!g || !ex || !ex->ops || !item || !item->func))
		return -EINVAL;
	if (test_and_set_bit(EXEC_GROUP_ITEM_PENDING_BIT, &item->state))
		return -EALREADY;
	ret = exec_group_enter(g, &epoch);
	if (unlikely(ret))
		goto err_clear_pending;
	item->group = g;
	item->epoch = epoch;
	item->work.func = exec_group_item_run;
	item->work.discard = exec_group_item_dropped;
	ret = exec_submit(ex, &item->work);
	if (likely(!ret))
		return 0;
	if (!exec_group_claim(g, epoch)) {
		/* A cancel counted it as removed: it is discarded. */
		exec_group_item_discard(g, item);
		return 0;
	}
	exec_group_put(g);
err_clear_pending:
	clear_bit_unlock(EXEC_GROUP_ITEM_PENDING_BIT, &item->state);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_group_submit);

struct exec_group_closure {
	struct exec_group_item item;
	exec_fn fn;
	exec_fn discard;
	void *arg;
};

static void exec_group_closure_run(struct exec_group_item *item)
{
	struct exec_group_closure *c = container_of(item,
						    struct exec_group_closure,
						    item);
	exec_fn fn = c->fn;
	void *arg = c->arg;

	exec_record_free(c);
	fn(arg);
}

static void exec_group_closure_drop(struct exec_group_item *item)
{
	struct exec_group_closure *c = container_of(item,
						    struct exec_group_closure,
						    item);
	exec_fn discard = c->discard;
	void *arg = c->arg;

	exec_record_free(c);
	if (discard)
		discard(arg);
}

int exec_group_submit_fn(struct exec_group *g, struct exec_executor *ex,
			 exec_fn fn, exec_fn discard, void *arg)
{
	struct exec_group_closure *c;
	int ret;

	might_sleep();
	if (!g || !ex || !ex->ops || !fn)
		return -EINVAL;
	c = exec_record_alloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	exec_group_item_init(&c->item, exec_group_closure_run,
			     exec_group_closure_drop);
	c->fn = fn;
	c->discard = discard;
	c->arg = arg;
	ret = exec_group_submit(g, ex, &c->item);
	if (ret)
		exec_record_free(c);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_group_submit_fn);

long exec_group_cancel(struct exec_group *g)
{
	unsigned long w;
	long old;

	if (!g)
		return -EINVAL;
	/* First, so that an item that starts before the cmpxchg can see it. */
	exec_cancel_request(&g->token);
	old = atomic_long_read(&g->word);
	do {
		w = ((unsigned long)old & EXEC_GROUP_EPOCH_MASK) +
		    EXEC_GROUP_EPOCH_ONE;
		w |= EXEC_GROUP_CANCELLED;
		/* Fully ordered: against the claims of starting items. */
	} while (!atomic_long_try_cmpxchg(&g->word, &old, (long)w));
	return (long)((unsigned long)old & EXEC_GROUP_QUEUED_MASK);
}
EXPORT_SYMBOL_GPL(exec_group_cancel);

int exec_group_reset(struct exec_group *g)
{
	if (!g)
		return -EINVAL;
	if (atomic_long_read(&g->nr_active))
		return -EBUSY;
	exec_cancel_token_reset(&g->token);
	/* Fully ordered: the token is clear before a submission succeeds. */
	atomic_long_fetch_andnot(EXEC_GROUP_CANCELLED, &g->word);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_group_reset);

/* A relative timeout for wait_event_hrtimeout(); KTIME_MAX for none. */
static s64 exec_group_ktime(u64 timeout_ns)
{
	return timeout_ns >= (u64)LLONG_MAX ? LLONG_MAX : (s64)timeout_ns;
}

int exec_group_wait(struct exec_group *g, u64 timeout_ns)
{
	int ret;

	if (!g)
		return -EINVAL;
	if (exec_frame_find(g))
		return -EDEADLK;
	/* Whether or not it sleeps this time: as flush_work() does. */
	if (timeout_ns)
		exec_lockdep_site_wait(&g->lockdep);
	/* Acquire: pairs with the decrement to zero in put_last. */
	if (!atomic_long_read_acquire(&g->nr_active))
		return 0;
	if (!timeout_ns)
		return -ETIMEDOUT;
	might_sleep();
	ret = wait_event_hrtimeout(g->wait,
				   !atomic_long_read_acquire(&g->nr_active),
				   exec_group_ktime(timeout_ns));
	return ret ? -ETIMEDOUT : 0;
}
EXPORT_SYMBOL_GPL(exec_group_wait);

int exec_group_notify(struct exec_group *g, struct exec_executor *ex,
		      exec_fn fn, void *arg)
{
	unsigned long flags;
	int ret;

	if (!g || !ex || !ex->ops || !fn)
		return -EINVAL;
	spin_lock_irqsave(&g->lock, flags);
	if (g->notify_state != EXEC_GROUP_NOTIFY_IDLE) {
		spin_unlock_irqrestore(&g->lock, flags);
		return -EBUSY;
	}
	g->notify_ex = ex;
	g->notify_fn = fn;
	g->notify_arg = arg;
	/* Under @lock, so the fall to zero is before or after this. */
	if (atomic_long_read(&g->nr_active)) {
		exec_work_guard_take(&g->notify_guard, ex,
				     EXEC_DEP_GROUP_NOTIFY);
		g->notify_state = EXEC_GROUP_NOTIFY_ARMED;
		spin_unlock_irqrestore(&g->lock, flags);
		return 0;
	}
	g->notify_state = EXEC_GROUP_NOTIFY_FIRING;
	spin_unlock_irqrestore(&g->lock, flags);
	ret = exec_group_notify_submit(g, ex);
	if (ret) {
		spin_lock_irqsave(&g->lock, flags);
		g->notify_state = EXEC_GROUP_NOTIFY_IDLE;
		spin_unlock_irqrestore(&g->lock, flags);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(exec_group_notify);

struct exec_cancel_token *exec_group_token(struct exec_group *g)
{
	return g ? &g->token : NULL;
}
EXPORT_SYMBOL_GPL(exec_group_token);

unsigned long exec_group_count(struct exec_group *g)
{
	long n;

	if (!g)
		return 0;
	n = atomic_long_read(&g->nr_active);
	return n > 0 ? n : 0;
}
EXPORT_SYMBOL_GPL(exec_group_count);

int exec_group_create_key(struct exec_group **gp, struct lock_class_key *key)
{
	struct exec_group *g;

	might_sleep();
	if (!gp)
		return -EINVAL;
	g = exec_kzalloc_obj(g, GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	atomic_long_set(&g->word, 0);
	atomic_long_set(&g->nr_active, 0);
	exec_cancel_token_init(&g->token);
	spin_lock_init(&g->lock);
	init_waitqueue_head(&g->wait);
	g->notify_state = EXEC_GROUP_NOTIFY_IDLE;
	exec_work_init_discard(&g->notify_work, exec_group_notify_run,
			       exec_group_notify_run);
	exec_lockdep_site_init(&g->lockdep, "exec-group", key);
	*gp = g;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_group_create_key);

/* The name in parentheses: the kernel's header makes it a macro. */
int (exec_group_create)(struct exec_group **gp)
{
	static struct lock_class_key exec_group_key;

	return exec_group_create_key(gp, &exec_group_key);
}
EXPORT_SYMBOL_GPL(exec_group_create);

int exec_group_destroy(struct exec_group *g)
{
	unsigned long flags;
	bool busy;

	if (!g)
		return -EINVAL;
	/* Taking @lock waits out a thread still waking the waiters. */
	spin_lock_irqsave(&g->lock, flags);
	busy = atomic_long_read(&g->nr_active) ||
	       g->notify_state != EXEC_GROUP_NOTIFY_IDLE;
	spin_unlock_irqrestore(&g->lock, flags);
	if (busy)
		return -EBUSY;
	spin_lock_destroy(&g->lock);
	kfree(g);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_group_destroy);

/*
 * Latches have no wait queue of their own (struct exec_latch is public and
 * allocated by its user): their waiters share this one and recheck their own
 * latch when woken.  Openings are rare, and a count-down that finds no
 * sleeper makes no wake-up.
 */
static DECLARE_WAIT_QUEUE_HEAD(exec_latch_wq);

/* The latch is done: publish it, then wake its waiters, if any. */
static void exec_latch_set_done(struct exec_latch *l)
{
	/*
	 * Fully ordered: releases what came before to the acquire of @done in
	 * exec_latch_wait(), and is the full barrier before wq_has_sleeper()
	 * that pairs with the waiter's in wait_event_hrtimeout().
	 */
	(void)xchg(&l->done, 1UL);
	if (wq_has_sleeper(&exec_latch_wq))
		wake_up_all(&exec_latch_wq);
}

/* The continuation: also its discard callback, so it is never lost. */
static void exec_latch_run(struct exec_work *work)
{
	struct exec_latch *l = container_of(work, struct exec_latch, work);
	exec_fn fn = l->fn;
	void *arg = l->arg;

	/* The last access to the latch: its owner may free it after. */
	exec_latch_set_done(l);
	fn(arg);
}

static void exec_latch_open(struct exec_latch *l)
{
	struct exec_executor *ex = l->ex;

	if (!l->fn) {
		exec_latch_set_done(l);
		return;
	}
	/* @l may be gone once submitted; destroy of @ex waits for us. */
	exec_executor_handover_begin(ex, EXEC_DEP_LATCH);
	if (exec_submit_flags(ex, &l->work,
			      EXEC_SUBMIT_NOWAIT | EXEC_SUBMIT_FORCE))
		exec_latch_run(&l->work);
	exec_executor_handover_end(ex);
}

int exec_latch_init(struct exec_latch *l, unsigned long count,
		    struct exec_executor *ex, exec_fn fn, void *arg)
{
	if (!l || (fn && (!ex || !ex->ops)) || count > (unsigned long)LONG_MAX)
		return -EINVAL;
	exec_work_init_discard(&l->work, exec_latch_run, exec_latch_run);
	l->ex = ex;
	l->fn = fn;
	l->arg = arg;
	WRITE_ONCE(l->done, 0UL);
	/* Until it opens, the continuation keeps @ex from being destroyed. */
	if (fn)
		exec_executor_depend(ex, EXEC_DEP_LATCH);
	/* Pairs with the cmpxchg of the count-downs of other threads. */
	smp_store_release(&l->count, (long)count);
	if (!count)
		exec_latch_open(l);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_latch_init);

int exec_latch_count_down(struct exec_latch *l)
{
	long old;

	if (!l)
		return -EINVAL;
	old = READ_ONCE(l->count);
	/* Fully ordered: the opener sees every earlier count-down's writes. */
	while (!try_cmpxchg(&l->count, &old, old - 1))
		;
	if (old > 1)
		return 0;
	if (old == 1) {
		exec_latch_open(l);
		return 1;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(exec_latch_count_down);

int exec_latch_wait(struct exec_latch *l, u64 timeout_ns)
{
	int ret;

	if (!l)
		return -EINVAL;
	/* Acquire: pairs with the xchg() in exec_latch_set_done(). */
	if (smp_load_acquire(&l->done))
		return 0;
	if (!timeout_ns)
		return -ETIMEDOUT;
	might_sleep();
	/* Acquire: pairs with the xchg() in exec_latch_set_done(). */
	ret = wait_event_hrtimeout(exec_latch_wq, smp_load_acquire(&l->done),
				   exec_group_ktime(timeout_ns));
	return ret ? -ETIMEDOUT : 0;
}
EXPORT_SYMBOL_GPL(exec_latch_wait);

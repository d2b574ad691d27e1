/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Cooperative cancellation, task groups and latches.
 *
 * N3785 (section IV) leaves cancellation out of the executor interface and
 * prefers an external token that work checks, as the PPL cancellation_token:
 *
 *  - struct exec_cancel_token: its owner requests cancellation from any
 *    context; running work reads it (one atomic load) and stops early by
 *    itself.  Nothing is interrupted.
 *  - struct exec_group: counts the items submitted through it to any
 *    executors, waits for them, runs a continuation when they are all done,
 *    and cancels them: the group's token is requested and every counted item
 *    that has not started is removed - it will never run, its discard
 *    callback runs instead.  Items that already run finish; they can check
 *    the token.
 *  - struct exec_latch: runs a continuation on an executor after a number of
 *    count-downs, and lets threads wait for that.
 *
 * A cancelled item cannot be taken out of its executor's queue (an executor
 * queue is lock-free and has no removal), and its memory belongs to its owner
 * who may free it in the discard callback, so a removed item is discarded
 * when its executor reaches it: the group's function then calls the discard
 * callback instead of the item's function.  exec_group_cancel() returns how
 * many items it removed; exactly that many discard callbacks follow, and
 * exec_group_wait() returns once they all have run.
 *
 * Errors, beside those of executor.h:
 *   -ECANCELED  the group is cancelled; exec_group_reset() opens it again
 *   -EBUSY      a second continuation, or a group still in use
 *   -ETIMEDOUT  a wait ran out of time
 *   -EDEADLK    a wait that would wait for the caller itself
 */
#ifndef EXEC_GROUP_H
#define EXEC_GROUP_H

#include "types.h"
#include "work.h"
#include "executor.h"
#include "timer.h"

EXEC_BEGIN_DECLS

/**
 * struct exec_cancel_token - a cooperative cancellation request
 * @requested: A: non-zero once cancellation is requested; set with xchg()
 *	by exec_cancel_request(), read with an acquire load
 *
 * Initialise with EXEC_CANCEL_TOKEN_INIT or exec_cancel_token_init().
 */
struct exec_cancel_token {
	unsigned long requested;
};

#define EXEC_CANCEL_TOKEN_INIT { 0 }

/**
 * exec_cancel_token_init - initialise a token, not requested
 * @tok: the token
 *
 * Context: Any context.
 */
static inline void exec_cancel_token_init(struct exec_cancel_token *tok)
{
	__atomic_store_n(&tok->requested, 0, __ATOMIC_RELAXED);
}

/**
 * exec_cancel_requested - whether cancellation of @tok has been requested
 * @tok: the token; NULL is never requested
 *
 * One atomic load, for work to call often.  What the requester wrote before
 * exec_cancel_request() is visible to a caller that gets true.
 *
 * Context: Any context.
 * Return: true once requested, until exec_cancel_token_reset().
 */
static inline bool exec_cancel_requested(const struct exec_cancel_token *tok)
{
	return tok && __atomic_load_n(&tok->requested, __ATOMIC_ACQUIRE);
}

/**
 * exec_cancel_request - request cancellation
 * @tok: the token
 *
 * Context: Any context, hard interrupt context included; never sleeps.
 * Return: 0 if this call requested it; -EALREADY if it was already
 * requested; -EINVAL for NULL.
 */
int exec_cancel_request(struct exec_cancel_token *tok);

/**
 * exec_cancel_token_reset - withdraw a request, so the token can be reused
 * @tok: the token
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL.
 */
int exec_cancel_token_reset(struct exec_cancel_token *tok);

struct exec_group;
struct exec_group_item;

/**
 * typedef exec_group_fn - function run (or discarded) for a group item
 * @item: the item; use container_of() to reach the enclosing structure
 */
typedef void (*exec_group_fn)(struct exec_group_item *item);

/**
 * struct exec_group_item - an intrusive item submitted through a group
 * @work: private: what the executor queues
 * @func: run once per accepted submission, unless the group removes it
 * @discard: called instead of @func when the item is removed by
 *	exec_group_cancel() or dropped by its executor; may be NULL
 * @group: private: O: the group of the pending submission, written by the
 *	submitter before the executor can see the item
 * @epoch: private: O: the group's cancel epoch at submission, likewise
 * @state: private: A: EXEC_GROUP_ITEM_PENDING, set by the submission and
 *	cleared just before @func or @discard is called
 *
 * As with struct exec_work, once @func or @discard has been called the
 * library never touches the item again: the callback may free it or submit
 * it again.  Initialise with exec_group_item_init() before first use.
 */
struct exec_group_item {
	struct exec_work work;
	exec_group_fn func;
	exec_group_fn discard;
	struct exec_group *group;
	unsigned long epoch;
	unsigned long state;
};

#define EXEC_GROUP_ITEM_PENDING	(1UL << 0)

/**
 * exec_group_item_init - initialise a group item
 * @item: the item
 * @func: function to run
 * @discard: function called instead if the item is removed; may be NULL
 *
 * Context: Any context.  The item must not be pending.
 */
static inline void exec_group_item_init(struct exec_group_item *item,
					exec_group_fn func,
					exec_group_fn discard)
{
	exec_work_init(&item->work, NULL);
	item->func = func;
	item->discard = discard;
	item->group = NULL;
	item->epoch = 0;
	item->state = 0;
}

/**
 * exec_group_item_pending - whether the item is counted and not yet started
 * @item: the item
 *
 * Context: Any context; the answer may be stale.
 * Return: true from a successful submission until @func or @discard is
 * called.
 */
static inline bool exec_group_item_pending(const struct exec_group_item *item)
{
	return __atomic_load_n(&item->state, __ATOMIC_ACQUIRE) &
	       EXEC_GROUP_ITEM_PENDING;
}

/**
 * exec_group_create - create a task group
 * @gp: where to store it
 *
 * In the kernel with CONFIG_LOCKDEP this is a macro that gives the groups
 * made at each call site a lockdep class of their own, as spin_lock_init()
 * does for locks (exec_group_create_key()).
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int exec_group_create(struct exec_group **gp);

struct lock_class_key;

/**
 * exec_group_create_key - exec_group_create() with the lockdep class given
 * @gp: where to store it
 * @key: the class of the group's lockdep map: its items run in the map and
 *	exec_group_wait() takes it first, so that a lock held around a wait
 *	and taken by one of the group's items is reported by lockdep the first
 *	time both orders occur.  Nothing is recorded without a lock validator
 *	(userspace, or a kernel without CONFIG_LOCKDEP).
 *
 * Context: Process context; may sleep.
 * Return: as exec_group_create().
 */
int exec_group_create_key(struct exec_group **gp, struct lock_class_key *key);

#if defined(__KERNEL__) && defined(CONFIG_LOCKDEP)
#define exec_group_create(gp)						\
	({								\
		static struct lock_class_key __exec_group_key;		\
		exec_group_create_key((gp), &__exec_group_key);		\
	})
#endif

/**
 * exec_group_destroy - destroy an empty task group
 * @g: the group; no submission may race with this call
 *
 * Context: Process context.
 * Return: 0; -EINVAL for NULL; -EBUSY while the group counts items or its
 * notify continuation has not started yet (nothing is done).
 */
int exec_group_destroy(struct exec_group *g);

/**
 * exec_group_submit - submit an item to @ex, counted by @g
 * @g: the group
 * @ex: any executor
 * @item: an initialised item, owned by the caller
 *
 * Allocates nothing and takes no lock.  From a successful return until @item's
 * function or discard callback has returned, the group counts the item.  If
 * a concurrent exec_group_cancel() has counted the item as removed by the time
 * @ex refuses it, the item is discarded (its discard callback runs in the
 * caller) and 0 is returned, as if @ex had accepted it.
 *
 * Context: as exec_submit() on @ex.
 * Return: 0; -EINVAL for NULL arguments or an item without a function;
 * -EALREADY if @item is pending (that submission still runs once);
 * -ECANCELED if @g is cancelled; -EAGAIN if @g already counts the most queued
 * items it can (2^31 - 1 with 64-bit longs); or the error of exec_submit() on
 * @ex (-ESHUTDOWN...), with @item not submitted.
 */
int exec_group_submit(struct exec_group *g, struct exec_executor *ex,
		      struct exec_group_item *item);

/**
 * exec_group_submit_fn - submit a closure to @ex, counted by @g
 * @g: the group
 * @ex: any executor
 * @fn: the function
 * @discard: called with @arg instead of @fn if the closure is removed; may be
 *	NULL
 * @arg: the argument of both
 *
 * The closure is allocated with kmalloc() and freed before @fn or @discard is
 * called.
 *
 * Context: Process context; may sleep.
 * Return: as exec_group_submit(); -ENOMEM.
 */
int exec_group_submit_fn(struct exec_group *g, struct exec_executor *ex,
			 exec_fn fn, exec_fn discard, void *arg);

/**
 * exec_group_cancel - cancel the group's work
 * @g: the group
 *
 * Requests the group's token (exec_group_token()), then removes every counted
 * item that has not started: each will never run, and its discard callback
 * runs when its executor reaches it (or drops it).  Items already running
 * finish; they may check the token.  Until exec_group_reset(), submissions
 * fail with -ECANCELED.
 *
 * Context: Any context; never sleeps.
 * Return: the number of items removed (>= 0); -EINVAL for NULL.
 */
long exec_group_cancel(struct exec_group *g);

/**
 * exec_group_reset - reopen a cancelled group
 * @g: the group
 *
 * Withdraws the token's request and accepts submissions again.  Refused while
 * items of the cancelled generation are counted, so none of them can see the
 * token withdrawn: wait for them first.
 *
 * Context: Any context.
 * Return: 0 (also if @g was not cancelled); -EINVAL for NULL; -EBUSY while
 * the group counts items.
 */
int exec_group_reset(struct exec_group *g);

/**
 * exec_group_wait - wait until the group counts no item
 * @g: the group
 * @timeout_ns: the longest time to wait, in nanoseconds; 0 only tests;
 *	EXEC_TIME_NEVER waits without limit
 *
 * Sleeps; returns when every counted item has returned from its function or
 * discard callback.  Submissions made concurrently may or may not be waited
 * for.  Items removed by exec_group_cancel() are counted until their
 * executor reaches them: a loop executor's must be run (or destroyed).
 *
 * Context: Process context; sleeps unless @timeout_ns is 0.
 * Return: 0; -ETIMEDOUT if items are still counted after @timeout_ns;
 * -EINVAL for NULL; -EDEADLK when called from an item of @g.
 */
int exec_group_wait(struct exec_group *g, uint64_t timeout_ns);

/**
 * exec_group_notify - run @fn(@arg) on @ex once the group is empty
 * @g: the group
 * @ex: the executor of the continuation
 * @fn: the continuation
 * @arg: its argument
 *
 * If the group counts no item now, the continuation is submitted at once;
 * otherwise when the count next falls to zero, by the thread that makes it
 * fall, and until then a work guard holds one unit of outstanding work on @ex
 * (exec_work_guard_init()).  The continuation is the group's own item, so
 * nothing is allocated.  Should @ex refuse it then (shut down), or drop it,
 * @fn(@arg) is called by the thread that emptied the group, or dropped it,
 * rather than lost.  A new continuation may be registered once the previous
 * one has started, from that one too; the continuation may also destroy the
 * group.
 *
 * Context: Any context; never sleeps.
 * Return: 0; -EINVAL for NULL arguments; -EBUSY if a continuation is already
 * registered and has not started; or the error of submitting to @ex (the
 * group was empty and @ex refused it; @fn will not be called).
 */
int exec_group_notify(struct exec_group *g, struct exec_executor *ex,
		      exec_fn fn, void *arg);

/**
 * exec_group_token - the group's cancellation token
 * @g: the group
 *
 * Requested by exec_group_cancel(), withdrawn by exec_group_reset(); for the
 * group's items to check with exec_cancel_requested().
 *
 * Context: Any context.
 * Return: the token, valid as long as the group; NULL for NULL.
 */
struct exec_cancel_token *exec_group_token(struct exec_group *g);

/**
 * exec_group_count - how many items the group counts
 * @g: the group
 *
 * Context: Any context; the answer may be stale.
 * Return: items submitted and not yet returned from their function or
 * discard callback; 0 for NULL.
 */
unsigned long exec_group_count(struct exec_group *g);

/**
 * struct exec_latch - runs a continuation after a number of count-downs
 * @count: A: count-downs still expected; below zero, minus the count-downs
 *	made past zero.  Changed with cmpxchg().
 * @done: A: non-zero once the latch has opened and its continuation, if
 *	any, has started: from then on the library no longer touches the latch
 * @work: the continuation's item
 * @ex: O: the continuation's executor
 * @fn: O: the continuation, or NULL
 * @arg: O: its argument
 *
 * Private: use the functions below.  The latch may be freed once
 * exec_latch_wait() has returned 0.
 */
struct exec_latch {
	long count;
	unsigned long done;
	struct exec_work work;
	struct exec_executor *ex;
	exec_fn fn;
	void *arg;
};

/**
 * exec_latch_init - initialise a latch
 * @l: the latch
 * @count: count-downs that open it; 0 opens it at once
 * @ex: executor of the continuation; may be NULL without @fn
 * @fn: the continuation, run once on @ex when the latch opens; may be NULL
 *	for a latch that is only waited for
 * @arg: its argument
 *
 * Allocates nothing.  The latch must not be in use (a pending continuation).
 * With @count 0 the latch opens here, as exec_latch_count_down() would.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for a NULL @l, @fn without @ex, or a @count above
 * LONG_MAX.
 */
int exec_latch_init(struct exec_latch *l, unsigned long count,
		    struct exec_executor *ex, exec_fn fn, void *arg);

/**
 * exec_latch_count_down - count one down; the last one opens the latch
 * @l: the latch
 *
 * The call that opens the latch submits the continuation to its executor
 * (never waiting for room) and wakes the waiters.  Should the executor refuse
 * or drop the continuation, it runs in the caller, or in the thread that
 * dropped it, rather than being lost.
 *
 * Context: Any context, hard interrupt context included.
 * Return: 1 if this call opened the latch; 0 if it did not; -EINVAL for NULL
 * or if the latch was already open (the count-down is still counted: see
 * exec_latch_excess()).
 */
int exec_latch_count_down(struct exec_latch *l);

/**
 * exec_latch_wait - wait until the latch has opened
 * @l: the latch
 * @timeout_ns: the longest time to wait, in nanoseconds; 0 only tests;
 *	EXEC_TIME_NEVER waits without limit
 *
 * Returns once the latch has opened and its continuation has started, so
 * that the caller may free the latch.
 *
 * Context: Process context; sleeps unless @timeout_ns is 0.
 * Return: 0; -ETIMEDOUT; -EINVAL for NULL.
 */
int exec_latch_wait(struct exec_latch *l, uint64_t timeout_ns);

/**
 * exec_latch_remaining - count-downs still needed to open the latch
 * @l: the latch
 *
 * Context: Any context; the answer may be stale.
 * Return: the count, 0 once open or for NULL.
 */
static inline unsigned long exec_latch_remaining(const struct exec_latch *l)
{
	long c = l ? __atomic_load_n(&l->count, __ATOMIC_ACQUIRE) : 0;

	return c > 0 ? (unsigned long)c : 0;
}

/**
 * exec_latch_excess - count-downs made after the latch had opened
 * @l: the latch
 *
 * Context: Any context; the answer may be stale.
 * Return: how many exec_latch_count_down() calls failed with -EINVAL for
 * coming too late; 0 for NULL.
 */
static inline unsigned long exec_latch_excess(const struct exec_latch *l)
{
	long c = l ? __atomic_load_n(&l->count, __ATOMIC_ACQUIRE) : 0;

	return c < 0 ? (unsigned long)-c : 0;
}

EXEC_END_DECLS

#endif /* EXEC_GROUP_H */

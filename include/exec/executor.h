/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The abstract executor (N3785 "executor"): submit a unit of work, and the
 * approximate number of submitted units not yet started.
 *
 * Every concrete executor embeds a struct exec_executor and fills in an ops
 * table, so a precompiled function can take any executor through a
 * struct exec_executor pointer.  A user may write an executor of their own the
 * same way: fill in struct exec_executor_ops and call exec_executor_init().
 *
 * Errors are negative errno values:
 *   -EINVAL     a NULL executor or item, or an item without a function
 *   -EALREADY   the item is already pending; that submission still runs once
 *   -EAGAIN     a bounded executor is full and the caller asked not to wait
 *   -ESHUTDOWN  the executor no longer accepts work
 *   -ENOMEM     a closure could not be allocated
 */
#ifndef EXEC_EXECUTOR_H
#define EXEC_EXECUTOR_H

#include "types.h"
#include "work.h"

EXEC_BEGIN_DECLS

struct exec_executor;
struct exec_timer_target;
struct exec_context;
struct exec_dependents;

/* Submission flags. */
/* Fail with -EAGAIN instead of waiting for room in a bounded executor. */
#define EXEC_SUBMIT_NOWAIT	(1U << 0)
/*
 * P0113 post: never run the item in the caller.  From inside a thread pool
 * the item goes to the shared queue, where any worker may take it.  An
 * executor that can only run items in the caller (the inline executor)
 * refuses it with -EOPNOTSUPP.
 */
#define EXEC_SUBMIT_POST	(1U << 1)
/*
 * P0113 defer: the item continues the one now running.  Inside a thread
 * pool, the worker keeps it in its local slot and takes it up when the
 * current item returns, with no lock and no wake-up; outside, as POST.
 */
#define EXEC_SUBMIT_DEFER	(1U << 2)

/**
 * struct exec_executor_ops - what a concrete executor implements
 * @kind: short name of the executor kind ("thread_pool", "serial", ...)
 * @submit: queue @work, whose pending bit the caller has already set.  On
 *	failure the callee leaves the item to the caller, which clears the
 *	pending bit again.
 * @pending: approximate number of submitted items not yet started
 * @running_in_this_thread: whether the calling thread is running an item of
 *	the executor now; NULL means never
 * @dispatch: run @work (pending bit set, as for @submit) in the caller if
 *	the executor's rules allow it, else queue it as a post; NULL means
 *	the generic rule: run it in the caller if @running_in_this_thread
 *	says so, else post it
 * @work_started: count one unit of outstanding work (P0113
 *	on_work_started); NULL if the executor does not track it.  Any
 *	context (the timer core calls it under a raw spinlock).  An
 *	executor that runs its items on another forwards the unit there, as
 *	P0113's strand does (it "calls" its inner executor's
 *	on_work_started()), since that one's join or run is what must wait
 *	for it
 * @work_finished: the matching decrement; NULL with @work_started
 * @context_executor: the executor whose execution context (context.h) @ex
 *	shares, as a serial executor shares its underlying executor's; NULL
 *	means @ex has a context of its own
 * @cancel: take @work, a plain item, back if it is queued on @ex: return
 *	EXEC_CANCEL_REMOVED once it is linked nowhere and its discard callback
 *	has been called, otherwise EXEC_CANCEL_RUNNING or EXEC_CANCEL_IDLE
 *	(exec_work_cancel()); NULL if the executor cannot cancel
 * @work_running: whether @work runs on @ex now: 1 if it does, 0 if not;
 *	with @wait set, waits until the runs it saw have returned, and returns
 *	-EDEADLK instead if the calling thread is running @work.  NULL if the
 *	executor does not know (then cancel_sync and flush of an item do not
 *	wait for a run)
 * @flush: wait until everything submitted to @ex before the call has run
 *	and, with @drain, what those items submitted, until a round finds
 *	nothing new (exec_executor_flush(), exec_executor_drain()); called
 *	from outside @ex's own items.  NULL if the executor cannot flush
 */
struct exec_executor_ops {
	const char *kind;
	int (*submit)(struct exec_executor *ex, struct exec_work *work,
		      unsigned int flags);
	unsigned long (*pending)(struct exec_executor *ex);
	bool (*running_in_this_thread)(const struct exec_executor *ex);
	int (*dispatch)(struct exec_executor *ex, struct exec_work *work);
	void (*work_started)(struct exec_executor *ex);
	void (*work_finished)(struct exec_executor *ex);
	struct exec_executor *(*context_executor)(struct exec_executor *ex);
	int (*cancel)(struct exec_executor *ex, struct exec_work *work);
	int (*work_running)(struct exec_executor *ex, struct exec_work *work,
			    bool wait);
	int (*flush)(struct exec_executor *ex, bool drain);
};

/**
 * struct exec_executor - the abstract executor embedded in every executor
 * @ops: the concrete executor's operations; set once by exec_executor_init()
 * @timers: where its timed items are armed (timer.h); NULL if it cannot run
 *	timed work; owned by the library
 * @own: what the executor has of its own
 * @own.context: A: its execution context (context.h), created on first use
 *	by exec_executor_context() and installed with cmpxchg(); NULL until
 *	then; torn down by exec_executor_fini(); owned by the library
 * @own.aux: instead of @own.context, for an executor that shares another's
 *	execution context (@ops->context_executor) and so has none of its
 *	own: the concrete executor's (a serial executor keeps there what it
 *	makes only when first needed)
 * @dependents: what still uses the executor, counted per kind (see
 *	exec_executor_check_unused()); owned by the library; NULL for an
 *	executor not set up by exec_executor_init(), which then counts nothing
 */
struct exec_executor {
	const struct exec_executor_ops *ops;
	struct exec_timer_target *timers;
	union {
		struct exec_context *context;
		void *aux;
	} own;
	struct exec_dependents *dependents;
};

/**
 * exec_executor_init - initialise the abstract part of an executor
 * @ex: the executor
 * @ops: its operations
 *
 * Context: Process context; may sleep.
 * Return: 0, or -ENOMEM.
 */
int exec_executor_init(struct exec_executor *ex,
		       const struct exec_executor_ops *ops);

/**
 * exec_executor_fini - release what exec_executor_init() set up
 * @ex: the executor; no closure of it may still be pending or running, and
 *	exec_executor_check_unused() has said that nothing depends on it
 *
 * Also tears down the executor's execution context, if one was created:
 * its services are shut down, then destroyed (context.h).
 *
 * Context: Process context; may sleep.
 */
void exec_executor_fini(struct exec_executor *ex);

/*
 * Lifetimes.  An executor knows what still holds a pointer to it and may
 * use it later: serial executors over it, its installation as the default
 * executor, units of outstanding work (work guards), future continuations,
 * group notifications and latch continuations registered on it, and
 * handlers bound to it.  Each is counted when it is created and uncounted
 * when it goes, never per submitted item.  Every destroy function asks
 * exec_executor_check_unused() first and, while anything remains, returns
 * -EBUSY and leaves the executor as it was (working), instead of freeing
 * memory that is still reachable.  Timed items armed on an executor are not
 * counted: destroy discards them (timer.h).
 */

/**
 * exec_executor_check_unused - whether an executor may be destroyed
 * @ex: the executor
 *
 * The check every destroy function makes before it does anything, for
 * executors written outside the library too.  When something still depends
 * on @ex it reports, once per boot or process, a warning naming the kind of
 * @ex and what remains: in the kernel a pr_warn() and WARN_ON_ONCE(), in
 * userspace lines on stderr.  A continuation that is being handed to @ex
 * by another thread (its future completed, its group emptied, its latch
 * opened) is waited for rather than reported, so that an owner who saw the
 * continuation run may destroy @ex at once; so is a unit of outstanding
 * work being released, so that an owner who saw the join or run that the
 * unit held end (of @ex, or of the executor @ex runs on, which @ex
 * forwards its units to) may destroy @ex at once.  The count is a
 * snapshot: creating a dependent while the executor is being destroyed is
 * a bug of the caller's.
 *
 * Context: Process context; may sleep while such a hand-over ends.
 * Return: 0 if nothing depends on @ex (or @ex counts nothing); -EBUSY
 * otherwise; -EINVAL for NULL.
 */
int exec_executor_check_unused(struct exec_executor *ex);

/**
 * exec_executor_dependents - how many things still depend on an executor
 * @ex: the executor
 *
 * The sum over every kind counted (see exec_executor_check_unused()).
 *
 * Context: Any context.
 * Return: the count; 0 for NULL.
 */
unsigned long exec_executor_dependents(const struct exec_executor *ex);

/**
 * exec_submit - submit an intrusive work item
 * @ex: the executor
 * @work: an initialised item, owned by the caller
 *
 * Allocates nothing.  On a bounded executor that is full, waits for room.
 *
 * Context: Any context for executors that never wait (unbounded thread pool,
 * serial, loop); process context where the executor may wait for room or
 * starts a thread (the thread-per-task executor, and a serial or priority
 * executor over it).
 * Return: 0 if the item was accepted; -EINVAL, -EALREADY, -ESHUTDOWN.
 */
int exec_submit(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_try_submit - submit an intrusive work item without waiting
 * @ex: the executor
 * @work: an initialised item, owned by the caller
 *
 * A thread-per-task executor cannot start a thread without sleeping: it
 * refuses every submission that must not wait, this one included.
 *
 * Context: Any context.
 * Return: 0 if accepted; -EAGAIN if a bounded executor is full, or @ex is
 * a thread-per-task executor (or one built on it that had to start a run
 * there); -EINVAL, -EALREADY, -ESHUTDOWN.
 */
int exec_try_submit(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_submit_flags - submit an intrusive work item with EXEC_SUBMIT_* flags
 * @ex: the executor
 * @work: an initialised item
 * @flags: EXEC_SUBMIT_* flags
 *
 * Context: as exec_submit(), or any context with EXEC_SUBMIT_NOWAIT.
 * Return: as exec_try_submit().
 */
int exec_submit_flags(struct exec_executor *ex, struct exec_work *work,
		      unsigned int flags);

/**
 * exec_submit_fn - submit a closure: @fn(@arg) runs on @ex
 * @ex: the executor
 * @fn: the function
 * @arg: its argument
 *
 * The closure comes from a cache of the calling CPU's (kernel) or thread's
 * (userspace), reused once it has run; submitting one takes no lock.  Not
 * async-signal-safe.
 *
 * Context: Process context; may sleep.
 * Return: 0; -ENOMEM if no closure could be allocated; -EINVAL,
 * -ESHUTDOWN.
 */
int exec_submit_fn(struct exec_executor *ex, exec_fn fn, void *arg);

/**
 * exec_submit_fn_full - submit a closure with a discard callback and flags
 * @ex: the executor
 * @fn: the function
 * @discard: called with @arg instead of @fn if the executor drops the closure;
 *	may be NULL
 * @arg: the argument of both
 * @flags: EXEC_SUBMIT_* flags.  With EXEC_SUBMIT_NOWAIT neither allocation
 *	nor submission sleeps, and a thread-per-task executor refuses the
 *	closure (-EAGAIN), as exec_try_submit().
 *
 * Context: Process context; any context with EXEC_SUBMIT_NOWAIT.
 * Return: as exec_submit_fn(), and -EAGAIN as exec_try_submit().
 */
int exec_submit_fn_full(struct exec_executor *ex, exec_fn fn, exec_fn discard,
			void *arg, unsigned int flags);

/*
 * Cancel and flush of plain items, as a driver author knows them from the
 * kernel's workqueues (cancel_work(), cancel_work_sync(), flush_work(),
 * flush_workqueue(), drain_workqueue()) and a Tokio user from
 * JoinHandle::abort().  Each takes the executor the item was submitted to:
 * an item is linked in that executor's queue, not in a place of its own.
 * Timed items have their own cancel (timer.h): these return -EINVAL for
 * them.  See Documentation/cancel.rst.
 */

/* exec_work_cancel(): the item was neither pending nor running. */
#define EXEC_CANCEL_IDLE	0
/* It was pending: it is out of the queue and its discard callback ran. */
#define EXEC_CANCEL_REMOVED	1
/* It had started already: the run goes on (or has just ended). */
#define EXEC_CANCEL_RUNNING	2

/**
 * exec_work_cancel - take a queued item back before it runs
 * @ex: the executor @work was submitted to
 * @work: a plain (not timed) item
 *
 * If @work is pending on @ex, it is unlinked from wherever @ex keeps it (a
 * queue, a thread pool worker's slot, the hand-over to a woken worker) and
 * will not run; its discard callback is called once, in the caller, before
 * this returns.  Cancel and the executor's start of the item race on its
 * pending bit, which exactly one of them clears: the item either runs or is
 * discarded, never both, never neither.  An item that has started runs on:
 * use exec_work_cancel_sync() to wait for it.
 *
 * When this returns EXEC_CANCEL_REMOVED, the executor holds no pointer to
 * @work any more: the caller may free it.  @work must not be pending on
 * another executor (cancel would wait until that one starts it).  An item
 * run in its submitter (the inline executor, exec_dispatch()) is not seen as
 * running by other threads.
 *
 * Context: Process context.  Never sleeps unless another thread is in the
 * middle of submitting or starting @work, which it waits out; so not from
 * interrupt context, where that submission may be the very one the
 * interrupt interrupted.  A timed item's exec_timer_cancel() may be called
 * from any context.
 * Return: EXEC_CANCEL_REMOVED, EXEC_CANCEL_RUNNING or EXEC_CANCEL_IDLE;
 * -EINVAL for NULL, a timed item or an item without a function;
 * -EOPNOTSUPP if @ex cannot cancel (an executor written outside the library
 * without the operation).
 */
int exec_work_cancel(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_work_cancel_sync - cancel an item and wait until it is not running
 * @ex: the executor @work was submitted to
 * @work: a plain item
 *
 * As exec_work_cancel(), then, if @work was running, waits until that run
 * has returned.  While it waits, submissions of @work fail with -EALREADY
 * (as queue_work() fails during cancel_work_sync()), so an item that
 * resubmits itself is not pending either when this returns: the caller may
 * free @work at once, unless others submit it again afterwards.
 *
 * Context: Process context; may sleep.
 * Return: as exec_work_cancel(); -EDEADLK, after the cancel, when called
 * from @work's own function (which cannot wait for itself).
 */
int exec_work_cancel_sync(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_work_flush - wait until an item's last submission has run
 * @ex: the executor @work was submitted to
 * @work: a plain item
 *
 * If @work is pending, waits until it has started and that run has
 * returned; if it is running, until that run returns (flush_work()).  A
 * later submission is not waited for.
 *
 * Context: Process context; may sleep.
 * Return: 1 if it waited for something, 0 if @work was idle; -EINVAL as
 * exec_work_cancel(); -EDEADLK from @work's own function, or while @work is
 * pending, from inside @ex (a serial executor or a loop cannot start it
 * while the caller runs).
 */
int exec_work_flush(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_executor_flush - wait until everything submitted so far has run
 * @ex: the executor
 *
 * Waits until every item submitted to @ex before the call (returned from
 * its submission before this began) has run or been discarded, as
 * flush_workqueue() does.  What those items submit, and what others submit
 * meanwhile, may or may not be waited for.  Timed items still armed are
 * not.  @ex stays usable: submissions go on during and after the flush.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EDEADLK from inside @ex (one of its items, a thread running
 * its loop); -ESHUTDOWN if @ex no longer runs items (stopped, shut down);
 * -ECANCELED if @ex discarded the flush's marker (destroyed meanwhile);
 * -EINVAL for NULL; -EOPNOTSUPP if @ex cannot flush.
 */
int exec_executor_flush(struct exec_executor *ex);

/**
 * exec_executor_drain - flush, and flush again until nothing new came
 * @ex: the executor
 *
 * As exec_executor_flush(), repeated until a round finds that the items it
 * waited for submitted nothing more to @ex (drain_workqueue()): chains of
 * items that submit their successors have ended.  Submissions from outside
 * during the drain make it go on; it returns once a round sees none.
 *
 * Context: Process context; may sleep.
 * Return: as exec_executor_flush().
 */
int exec_executor_drain(struct exec_executor *ex);

/*
 * P0113's vocabulary.  post, dispatch and defer take the same intrusive items
 * and closures as exec_submit(), and differ in where the item may run:
 *
 *   post      never in the caller; never waits for room (-EAGAIN instead)
 *   dispatch  in the caller, before returning, when the executor allows it
 *             (the caller already runs inside that thread pool or loop; a
 *             serial executor that is idle, called from its underlying
 *             executor); otherwise as post
 *   defer     a continuation of the item now running: kept local to the
 *             calling worker and run when its current item returns;
 *             otherwise as post
 */

/**
 * exec_post - submit an item that must not run in the caller
 * @ex: the executor
 * @work: an initialised item
 *
 * Never waits, so a thread-per-task executor refuses it (-EAGAIN), as
 * exec_try_submit(): use exec_post_fn() or exec_submit() there.
 *
 * Context: Any context; never sleeps.
 * Return: as exec_try_submit(); -EOPNOTSUPP for an executor that runs items
 * only in the caller (the inline executor, and a serial executor over it
 * that would have to start running in the caller).
 */
int exec_post(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_dispatch - run an item now if the executor allows it, else post it
 * @ex: the executor
 * @work: an initialised item
 *
 * When the item runs in the caller it has run, and may have been freed by
 * its function, by the time this returns.  Timed items are always posted.
 * So that a chain of items dispatching their successors cannot exhaust the
 * stack, a thread already 16 inline runs deep posts instead.
 *
 * Context: Any context the item allows when it may run in the caller;
 * never sleeps otherwise (a thread-per-task executor, whose dispatch is a
 * post, refuses it with -EAGAIN).
 * Return: 0 if the item ran or was queued; as exec_post() otherwise.
 */
int exec_dispatch(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_defer - submit a continuation of the item now running
 * @ex: the executor
 * @work: an initialised item
 *
 * Context: Any context; never sleeps.
 * Return: as exec_post().
 */
int exec_defer(struct exec_executor *ex, struct exec_work *work);

/**
 * exec_post_fn - post a closure: @fn(@arg) runs on @ex, never in the caller
 * @ex: the executor
 * @fn: the function
 * @arg: its argument
 *
 * Context: Process context; may sleep to allocate the closure.
 * Return: as exec_submit_fn(); -EAGAIN, -EOPNOTSUPP as exec_post().
 */
int exec_post_fn(struct exec_executor *ex, exec_fn fn, void *arg);

/**
 * exec_dispatch_fn - call @fn(@arg) now if @ex allows it, else post it
 * @ex: the executor
 * @fn: the function
 * @arg: its argument
 *
 * Running in the caller needs no closure, so allocates nothing.
 *
 * Context: Process context; may sleep.
 * Return: as exec_post_fn().
 */
int exec_dispatch_fn(struct exec_executor *ex, exec_fn fn, void *arg);

/**
 * exec_defer_fn - defer a closure: the continuation of the running item
 * @ex: the executor
 * @fn: the function
 * @arg: its argument
 *
 * Context: Process context; may sleep to allocate the closure.
 * Return: as exec_post_fn().
 */
int exec_defer_fn(struct exec_executor *ex, exec_fn fn, void *arg);

/**
 * exec_running_in_this_thread - whether the caller runs an item of @ex now
 * @ex: the executor
 *
 * Context: Any context.
 * Return: true if the calling thread is running one of @ex's items (for a
 * thread pool: is one of its workers); false otherwise and for NULL.
 */
bool exec_running_in_this_thread(const struct exec_executor *ex);

/**
 * exec_current_executor - the executor whose item the caller is running
 *
 * N3378's "future directions": a way for a closure to find the executor it
 * runs on.  The innermost one: an item of a serial, priority executor or
 * managed queue is theirs, not that of the pool whose worker runs it; an
 * item run by exec_dispatch() in its caller is the dispatched executor's;
 * an item of the inline executor is the inline executor's.  An item of an
 * I/O context's executor (exec_io_executor()) is that executor's, also when
 * it was submitted to a pool of I/O contexts, which hands each item to one
 * of its contexts.  A worker, loop or run function between items, a timed
 * item's discard callback and any other code run by no executor answer
 * for the thread around it.
 *
 * Context: Any context.  In the kernel an interrupt handler is a thread of
 * its own: one that runs no item answers NULL whatever it interrupted.
 * Return: the executor, or NULL if the calling thread runs no item.
 */
struct exec_executor *exec_current_executor(void);

/**
 * exec_executor_equal - whether two handles name the same executor
 * @a: an executor
 * @b: another
 *
 * Executors have identity: two serial executors over one pool are different
 * strands, and a handle equals only itself (P0113 strand comparison).
 *
 * Context: Any context.
 * Return: true if @a and @b are the same executor.
 */
static inline bool exec_executor_equal(const struct exec_executor *a,
				       const struct exec_executor *b)
{
	return a == b;
}

/*
 * Outstanding work (P0113).  An asynchronous operation in flight counts one
 * unit against the executor it will complete on, so that the executor does
 * not consider itself out of work while the operation is outstanding: a
 * thread pool's exec_thread_pool_join() and a loop scheduler's run functions
 * wait for the count to fall to zero.  An executor built on another (a
 * serial or priority executor, a managed queue) forwards each unit to the
 * executor it runs on, as P0113's strand does: a unit on a strand over a
 * pool holds the pool's join.  A managed queue also counts it itself.
 * Executors with nothing that ends for lack of work (the inline, loop and
 * thread-per-task executors) ignore the calls; the unit still keeps them
 * from being destroyed.
 */

/**
 * exec_on_work_started - count one unit of outstanding work against @ex
 * @ex: the executor; NULL is ignored
 *
 * The unit also keeps @ex from being destroyed (-EBUSY) until
 * exec_on_work_finished() releases it.  On an executor built on another
 * it is counted there too (see above), and so holds that one's join or
 * run.
 *
 * Context: Any context.
 */
void exec_on_work_started(struct exec_executor *ex);

/**
 * exec_on_work_finished - release one unit counted by exec_on_work_started()
 * @ex: the executor; NULL is ignored
 *
 * Context: Any context.
 */
void exec_on_work_finished(struct exec_executor *ex);

/**
 * struct exec_work_guard - holds one unit of outstanding work on an executor
 * @ex: A: the executor while the guard holds its unit; NULL once released.
 *	Taken with xchg() by exec_work_guard_reset(), so a unit is released
 *	once however many threads reset the guard.
 */
struct exec_work_guard {
	struct exec_executor *ex;
};

/**
 * exec_work_guard_init - take a unit of outstanding work on @ex
 * @guard: the guard
 * @ex: the executor
 *
 * While the guard holds its unit, destroying @ex fails with -EBUSY.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL arguments (the guard then holds nothing).
 */
int exec_work_guard_init(struct exec_work_guard *guard,
			 struct exec_executor *ex);

/**
 * exec_work_guard_reset - release the guard's unit of outstanding work
 * @guard: the guard
 *
 * Context: Any context.
 * Return: 0; -EALREADY if the guard no longer held a unit (released twice);
 * -EINVAL for NULL.
 */
int exec_work_guard_reset(struct exec_work_guard *guard);

/**
 * exec_work_guard_owns - whether the guard still holds its unit
 * @guard: the guard
 *
 * Context: Any context.
 * Return: true until exec_work_guard_reset() has released it.
 */
static inline bool exec_work_guard_owns(const struct exec_work_guard *guard)
{
	return guard && __atomic_load_n(&guard->ex, __ATOMIC_ACQUIRE);
}

/**
 * exec_work_guard_executor - the executor the guard was taken on
 * @guard: the guard
 *
 * Context: Any context.
 * Return: the executor, or NULL once released.
 */
static inline struct exec_executor *
exec_work_guard_executor(const struct exec_work_guard *guard)
{
	return guard ? __atomic_load_n(&guard->ex, __ATOMIC_ACQUIRE) : NULL;
}

/**
 * exec_pending_count - approximate number of submitted items not yet started
 * @ex: the executor
 *
 * Meant for logging and coarse load balancing (N3785
 * uninitiated_task_count): other threads may change it at any moment.
 * Timed items armed on the executor and not yet due are counted; one that
 * has come due is counted again once it reaches the executor's queue, and
 * may be missed on its way there.
 *
 * Context: Any context.
 * Return: the count; 0 for a NULL executor.
 */
unsigned long exec_pending_count(struct exec_executor *ex);

/**
 * exec_executor_kind - the kind name of an executor
 * @ex: the executor
 *
 * Context: Any context.
 * Return: its ops' kind, or "null" for a NULL executor.
 */
const char *exec_executor_kind(const struct exec_executor *ex);

/* The process-wide (module-wide, in the kernel) default executor. */

/*
 * Most workers the built-in default pool grows to: this, or four per online
 * CPU where that is more, never more than EXEC_THREAD_POOL_MAX_THREADS.
 */
#define EXEC_DEFAULT_MAX_THREADS	256U

/**
 * exec_default_executor - the current default executor
 *
 * Until exec_set_default_executor() installs another, this is a built-in
 * thread pool started on first use with one worker per online CPU, which
 * grows (up to EXEC_DEFAULT_MAX_THREADS, or four per CPU where that is more)
 * while its workers block and items wait: tasks on it may wait for each
 * other (N3785), within that bound.  A wait is seen at once when hinted
 * with exec_blocking_begin(), otherwise within about EXEC_POOL_SAMPLE_MS
 * (thread_pool.h, @max_threads).  The pointer is only safe to use while no
 * other thread may replace and destroy the default; exec_default_submit()
 * is always safe.
 *
 * Context: Process context (the first call may start the built-in pool).
 * Return: the executor, or NULL if the built-in pool could not be started.
 */
struct exec_executor *exec_default_executor(void);

/**
 * exec_set_default_executor - replace the default executor
 * @ex: the new default, or NULL for the built-in pool
 *
 * When this returns, no submission through exec_default_submit() or
 * exec_default_submit_fn() is still using the previous default, so the
 * caller may destroy it.  While installed, an executor depends on being
 * the default: destroying it fails with -EBUSY.
 *
 * Context: Process context; may sleep.
 * Return: the previous default, or NULL if it was the built-in pool.
 */
struct exec_executor *exec_set_default_executor(struct exec_executor *ex);

/**
 * exec_default_submit - submit an item to the default executor
 * @work: the item
 *
 * The built-in pool starts on first use: in the kernel the module starts it
 * when it loads, so an intrusive item may be submitted from any context; in
 * userspace the first use (of this or any default-executor function) must
 * come from a thread that may block.
 *
 * Context: as exec_submit() on the default executor, once the built-in pool
 * has started.
 * Return: as exec_submit(); -ENOMEM if the built-in pool cannot start.
 */
int exec_default_submit(struct exec_work *work);

/**
 * exec_default_submit_fn - submit a closure to the default executor
 * @fn: the function
 * @arg: its argument
 *
 * Context: Process context; may sleep.
 * Return: as exec_submit_fn().
 */
int exec_default_submit_fn(exec_fn fn, void *arg);

EXEC_END_DECLS

#endif /* EXEC_EXECUTOR_H */

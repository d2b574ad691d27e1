/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Futures, continuations, spawn and the associated executor (P0113R0
 * use_future, packaged_task, associated_executor and bind_executor; N4143
 * spawn, spawn_future and set_executor).
 *
 * C has no exceptions: a piece of work returns a long, and a negative errno
 * value there is an error that travels with the result to the future or to
 * the continuation, as any other result does; the executor keeps working.
 * Work that an executor discards instead of running (a hard shutdown of a
 * thread pool, the destroy of a loop or serial executor with it queued)
 * completes with -ECANCELED, so no result is ever lost silently.
 *
 * A future is a reference-counted heap object.  Its creator holds one
 * reference, which exec_future_put() drops; the spawned work and a
 * registered continuation hold their own, so the caller may put its
 * reference at any time.  The result is read once: by exec_future_wait()
 * or by the continuation of exec_future_then() or
 * exec_future_then_future(), never both; the latter's continuation returns
 * a result of its own, which completes a new future, so continuations
 * chain.
 *
 * See Documentation/futures.rst.
 */
#ifndef EXEC_FUTURE_H
#define EXEC_FUTURE_H

#include "executor.h"

EXEC_BEGIN_DECLS

struct exec_future;

/**
 * typedef exec_task_fn - a piece of work that returns a result
 * @arg: the argument given with it
 *
 * Return: the result; a negative errno value is an error result.
 */
typedef long (*exec_task_fn)(void *arg);

/**
 * typedef exec_result_fn - a continuation, or a completion handler
 * @arg: the argument given with it
 * @result: the result of the work it continues, or -ECANCELED if that work
 *	or the continuation itself was discarded
 */
typedef void (*exec_result_fn)(void *arg, long result);

/**
 * typedef exec_then_fn - a continuation whose result completes a future
 * @arg: the argument given with it
 * @result: the result of the future it continues, error results included,
 *	or -ECANCELED if that work or this continuation was discarded
 *
 * Return: the result of the next future; a negative errno value is an error
 * result.  Returning a negative @result unchanged passes the error on down
 * a chain.
 */
typedef long (*exec_then_fn)(void *arg, long result);

/* exec_future_wait(): no timeout. */
#define EXEC_FUTURE_FOREVER	(~(uint64_t)0)

/**
 * exec_future_create - create a future completed by hand
 * @futp: where to store it
 *
 * The promise side of P0113's use_future: an asynchronous operation keeps
 * the future (with a reference of its own, exec_future_get()) and calls
 * exec_future_complete() when it is done.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int exec_future_create(struct exec_future **futp);

/**
 * exec_spawn_future - run @fn(@arg) on @ex; its result completes a future
 * @futp: where to store the future, with one reference for the caller
 * @ex: the executor
 * @fn: the work
 * @arg: its argument
 *
 * N4143 spawn_future, P0113 packaged_task submitted at once.  If @ex
 * discards the work, the future completes with -ECANCELED.  On failure
 * nothing was submitted, nothing is allocated and *@futp is NULL.
 *
 * Context: Process context; may sleep (allocation, and exec_submit() on a
 * bounded executor).
 * Return: 0; -EINVAL for a NULL argument; -ENOMEM; -ESHUTDOWN and the
 * other errors of exec_submit().
 */
int exec_spawn_future(struct exec_future **futp, struct exec_executor *ex,
		      exec_task_fn fn, void *arg);

/**
 * exec_future_complete - complete a future made by exec_future_create()
 * @fut: the future; the caller holds a reference
 * @result: its result
 *
 * Wakes every waiter and submits the continuation, if one is registered.
 *
 * Context: Any context from which the continuation's executor accepts a
 * post (exec_post()).  May sleep if that executor is bounded and full, or
 * refuses every post (the thread-per-task executor, which starts a thread
 * for the continuation: process context there).
 * Return: 0; -EALREADY if the future was already completed (the first
 * result stays); -EINVAL for NULL, or for a future of exec_spawn_future()
 * or exec_future_then_future() (its work, or its continuation, completes
 * it).
 */
int exec_future_complete(struct exec_future *fut, long result);

/**
 * exec_future_ready - whether the future has its result
 * @fut: the future
 *
 * Context: Any context.
 * Return: true once completed (also after the result has been taken);
 * false otherwise and for NULL.
 */
bool exec_future_ready(const struct exec_future *fut);

/**
 * exec_future_wait - wait for the result and take it
 * @fut: the future
 * @timeout_ns: how long to wait, in nanoseconds; 0 does not sleep;
 *	EXEC_FUTURE_FOREVER waits without a limit
 * @result: where to store the result
 *
 * Sleeps (never spins) until the future is complete or the timeout passes.
 * The result is read once: a second successful wait finds it taken.  A
 * future with a continuation gives its result to the continuation, so it
 * cannot be waited for.
 *
 * Context: Process context; sleeps unless @timeout_ns is 0.
 * Return: 0 and the result in *@result; -ETIMEDOUT if not complete in
 * time; -EALREADY if the result was already taken by an earlier wait;
 * -EINVAL for NULL arguments or if a continuation is registered.
 */
int exec_future_wait(struct exec_future *fut, uint64_t timeout_ns,
		     long *result);

/**
 * exec_future_then - run a continuation with the result, on an executor
 * @fut: the future
 * @ex: the executor the continuation runs on
 * @cont: the continuation, called as @cont(@arg, result)
 * @arg: its argument
 *
 * If the future is already complete the continuation is posted at once;
 * otherwise it is posted when the future completes.  Until it has been
 * submitted, the future holds a work guard on @ex (P0113 outstanding work).
 * The continuation holds a reference of its own: the caller may put its
 * reference at once.
 *
 * The continuation runs exactly once.  If @ex refuses it (shut down, or
 * bounded and full when the completer is one of its own workers) it is
 * called in the thread that would have submitted it, and if @ex discards
 * it, in the discarding thread; in both cases with -ECANCELED instead of
 * the result.  On the inline executor it runs in the submitting thread.
 *
 * Context: as exec_future_complete() if the future may be complete.
 * Return: 0; -EBUSY if a continuation is already registered; -EALREADY if
 * the result was already taken by exec_future_wait(); -EINVAL for NULL
 * arguments.
 */
int exec_future_then(struct exec_future *fut, struct exec_executor *ex,
		     exec_result_fn cont, void *arg);

/**
 * exec_future_then_future - continue a future with one that has a result
 * @nextp: where to store the next future, with one reference for the caller
 * @fut: the future to continue
 * @ex: the executor the continuation runs on
 * @fn: the continuation, called as @fn(@arg, result); what it returns
 *	completes *@nextp
 * @arg: its argument
 *
 * N4143's then(), folly's thenValue: exec_future_then() whose continuation
 * returns a result, which completes a new future, so that continuations
 * chain (each may be waited for, or continued in turn).  @fn receives error
 * results as any other (a negative errno value), and returns the next
 * result: returning a negative @result unchanged passes the error on.  If
 * @fn is discarded or refused instead of run (see exec_future_then()), it
 * is still called once, with -ECANCELED, so that it can release @arg, and
 * the next future completes with -ECANCELED whatever it returns: discarded
 * work travels down the chain.  The next future is completed only by the
 * continuation (exec_future_complete() refuses it).  Everything else is as
 * exec_future_then(): posted at once if @fut is already complete, a work
 * guard on @ex until then, the result of @fut taken.
 *
 * Context: Process context; may sleep (allocation), and as
 * exec_future_complete() if the future may be complete.
 * Return: 0; -EBUSY if a continuation is already registered on @fut;
 * -EALREADY if its result was already taken by exec_future_wait(); -EINVAL
 * for NULL arguments; -ENOMEM.  On failure *@nextp is NULL, nothing is
 * registered and @fn is never called.
 */
int exec_future_then_future(struct exec_future **nextp,
			    struct exec_future *fut, struct exec_executor *ex,
			    exec_then_fn fn, void *arg);

/**
 * exec_future_get - take one more reference on a future
 * @fut: the future; the caller holds a reference
 *
 * Context: Any context.
 * Return: @fut (NULL for NULL).
 */
struct exec_future *exec_future_get(struct exec_future *fut);

/**
 * exec_future_put - drop a reference to a future
 * @fut: the future; NULL is ignored
 *
 * The last reference frees it.
 *
 * Context: Any context.
 */
void exec_future_put(struct exec_future *fut);

/**
 * exec_spawn - run @fn(@arg) on @ex, then @cont(@cont_arg, result) on @ex
 * @ex: the executor
 * @fn: the work
 * @arg: its argument
 * @cont: the continuation
 * @cont_arg: its argument
 *
 * N4143 spawn with a continuation: one small allocation, no future.  The
 * continuation runs in the same item, right after @fn, so on @ex and with
 * nothing of @ex's between them.  If @ex discards the item, @cont is called
 * in the discarding thread with -ECANCELED and @fn never runs.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL arguments; -ENOMEM; the errors of
 * exec_submit() (nothing is called then).
 */
int exec_spawn(struct exec_executor *ex, exec_task_fn fn, void *arg,
	       exec_result_fn cont, void *cont_arg);

/**
 * struct exec_handler - a completion handler and its associated executor
 * @fn: the handler, called as @fn(@arg, result)
 * @arg: its argument
 * @ex: the associated executor, or NULL for none
 *
 * P0113 associated_executor: an asynchronous operation completes a handler
 * on the handler's executor if one is bound, else on the operation's own.
 * Set up with exec_handler_init() or exec_bind_executor(); the structure
 * belongs to the caller and is copied when the handler is queued.
 */
struct exec_handler {
	exec_result_fn fn;
	void *arg;
	struct exec_executor *ex;
};

/**
 * exec_handler_init - a handler with no associated executor
 * @h: the handler
 * @fn: its function
 * @arg: its argument
 *
 * Context: Any context.
 */
static inline void exec_handler_init(struct exec_handler *h,
				     exec_result_fn fn, void *arg)
{
	h->fn = fn;
	h->arg = arg;
	h->ex = NULL;
}

/**
 * exec_bind_executor - a handler associated with an executor
 * @h: the handler
 * @ex: the executor it completes on
 * @fn: its function
 * @arg: its argument
 *
 * P0113 bind_executor (executor_wrapper).  N4143's set_executor(ex, fn) is
 * the same thing: exec_set_executor() below is this function.
 *
 * The bound handler depends on @ex: destroying @ex fails with -EBUSY until
 * exec_handler_unbind() lets go of it.  @h must not be bound already; a
 * copy of @h does not count, and must not be unbound.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for NULL arguments.
 */
int exec_bind_executor(struct exec_handler *h, struct exec_executor *ex,
		       exec_result_fn fn, void *arg);

/**
 * exec_handler_unbind - let go of the executor a handler is bound to
 * @h: the handler, bound by exec_bind_executor()
 *
 * @h keeps its function and argument and has no associated executor any
 * more; the executor may then be destroyed.  Completions already queued by
 * exec_handler_complete() are the executor's own items.
 *
 * Context: Any context.
 * Return: 0; -EALREADY if @h was bound to nothing; -EINVAL for NULL.
 */
int exec_handler_unbind(struct exec_handler *h);

/* N4143 set_executor: another name for exec_bind_executor(). */
#define exec_set_executor(h, ex, fn, arg) exec_bind_executor(h, ex, fn, arg)

/**
 * exec_handler_executor - the associated executor of a handler
 * @h: the handler
 * @fallback: the executor to use when none is bound (the operation's own)
 *
 * P0113 get_associated_executor(h, fallback).
 *
 * Context: Any context.
 * Return: the bound executor, else @fallback; NULL when @h is NULL.
 */
struct exec_executor *exec_handler_executor(const struct exec_handler *h,
					    struct exec_executor *fallback);

/**
 * exec_handler_complete - complete an operation: call @h on its executor
 * @h: the handler; copied, the caller may reuse it once this returns
 * @fallback: the executor used when @h has none bound
 * @result: the result passed to the handler
 *
 * With dispatch semantics: if the caller already runs inside the
 * executor, the handler is called before this returns; otherwise it is
 * posted (in one small allocation).  If the executor later discards it,
 * it is called in the discarding thread with -ECANCELED.
 *
 * Context: Process context; may sleep.
 * Return: 0 if the handler ran or was queued; -EINVAL for a NULL handler
 * or function, or no executor at all; -ENOMEM; the errors of exec_submit()
 * (the handler was not called then).
 */
int exec_handler_complete(const struct exec_handler *h,
			  struct exec_executor *fallback, long result);

EXEC_END_DECLS

#endif /* EXEC_FUTURE_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Futures, continuations, spawn and the associated executor
 * (include/exec/future.h, P0113R0 and N4143).
 *
 * A future's life is one word of state bits, changed only by fully ordered
 * atomic read-modify-writes:
 *
 *   COMPLETING  a completer claimed the future: a second one gets -EALREADY
 *   READY       @result is published
 *   THEN        exec_future_then() claimed the continuation slot
 *   ARMED       the continuation's fields are published
 *   TAKEN       exec_future_wait() took the result
 *
 * The completer sets READY and then() sets ARMED, each with one
 * atomic_fetch_or() on the same word, and each looks at what the other set
 * before it: exactly one of them sees both bits and submits the
 * continuation.  THEN and TAKEN are set by cmpxchg, each only if neither is
 * set, so a result goes either to one wait or to the continuation.
 *
 * A chained continuation (exec_future_then_future()) is the same slot with
 * @then_fn instead of @cont and @cont_next, the future its result completes:
 * a future of its own, marked SPAWNED as nobody else may complete it.  The
 * continuation holds a reference on @cont_next until it has completed it.
 *
 * Memory: each future is a record of the caller's record cache
 * (exec_record_new(), core/executor.c), given back by the last
 * exec_future_put().  Only exec_spawn_future()'s futures have work of their
 * own to run: theirs is a struct exec_future_spawned, the future followed
 * by that work, so that the futures made by exec_future_create() and
 * exec_future_then_future(), made one per request, do not carry it.
 * References are held by the creator, by the spawned work (dropped after
 * it has completed the future, or after the discard callback has completed
 * it with -ECANCELED) and by a registered continuation (dropped just before
 * the continuation is called, whether it runs, is discarded or could not
 * be submitted).  exec_spawn() and
 * exec_handler_complete() take one small record each, given back just
 * before its function is called (run or discard), or by the submitter when
 * the submission fails: a warm cache makes none of these calls allocate.
 */
#include "internal.h"

#define EXEC_FUTURE_SPAWNED	0x01	/* completed by its own work only */
#define EXEC_FUTURE_COMPLETING	0x02
#define EXEC_FUTURE_READY	0x04
#define EXEC_FUTURE_THEN	0x08
#define EXEC_FUTURE_ARMED	0x10
#define EXEC_FUTURE_TAKEN	0x20

/**
 * struct exec_future - a future
 * @refs: A: references; the last exec_future_put() frees the future
 * @state: A: EXEC_FUTURE_* bits, see the top of the file
 * @result: O: written by the completer that set COMPLETING, before it sets
 *	READY; read only after READY was seen
 * @wq: where exec_future_wait() sleeps until READY
 * @cont_work: the continuation's item
 * @cont_ex: O: the continuation's executor, written by the then() that set
 *	THEN, before it sets ARMED
 * @cont: O: the continuation, as @cont_ex; NULL for a chained one
 * @then_fn: O: the chained continuation, as @cont_ex; NULL for a plain one
 * @cont_next: O: the future @then_fn's result completes, as @cont_ex; the
 *	continuation holds a reference on it
 * @cont_arg: O: its argument, as @cont_ex
 * @cont_guard: A: outstanding work on @cont_ex from then() until the
 *	continuation has been submitted
 */
struct exec_future {
	atomic_t refs;
	atomic_t state;
	long result;
	wait_queue_head_t wq;
	struct exec_work cont_work;
	struct exec_executor *cont_ex;
	exec_result_fn cont;
	exec_then_fn then_fn;
	struct exec_future *cont_next;
	void *cont_arg;
	struct exec_work_guard cont_guard;
};

/**
 * struct exec_future_spawned - a future of exec_spawn_future()
 * @fut: the future; first, so that exec_future_put() frees the whole
 * @work: the work that completes it
 * @fn: O: its function, set before submission
 * @arg: O: its argument
 */
struct exec_future_spawned {
	struct exec_future fut;
	struct exec_work work;
	exec_task_fn fn;
	void *arg;
};

static void exec_future_init(struct exec_future *fut, unsigned int state,
			     int refs)
{
	atomic_set(&fut->refs, refs);
	atomic_set(&fut->state, state);
	init_waitqueue_head(&fut->wq);
}

static struct exec_future *exec_future_alloc(unsigned int state, int refs)
{
	struct exec_future *fut = exec_record_new(fut, GFP_KERNEL);

	if (fut)
		exec_future_init(fut, state, refs);
	return fut;
}

struct exec_future *exec_future_get(struct exec_future *fut)
{
	if (fut)
		atomic_inc(&fut->refs);
	return fut;
}
EXPORT_SYMBOL_GPL(exec_future_get);

void exec_future_put(struct exec_future *fut)
{
	/* Fully ordered: every use of the future happens before the free. */
	if (fut && atomic_dec_and_test(&fut->refs))
		exec_record_free(fut);
}
EXPORT_SYMBOL_GPL(exec_future_put);

/* Claims the right to complete @fut and stores its result. */
static bool exec_future_claim(struct exec_future *fut, long result)
{
	if (atomic_fetch_or(EXEC_FUTURE_COMPLETING, &fut->state) &
	    EXEC_FUTURE_COMPLETING)
		return false;
	fut->result = result;
	return true;
}

/*
 * Drops the continuation's reference, then calls it: runs exactly once.
 * @ran: it runs on its executor with the result; otherwise it was
 * discarded or refused and @result is -ECANCELED, which is also what a
 * chained continuation's future completes with, whatever it returns.
 * Returns that future, claimed with its result, for exec_future_publish()
 * (with the continuation's reference on it); NULL for a plain one.
 */
static struct exec_future *exec_future_cont_call(struct exec_future *fut,
						 long result, bool ran)
{
	struct exec_future *next = fut->cont_next;
	exec_result_fn cont = fut->cont;
	exec_then_fn then_fn = fut->then_fn;
	void *arg = fut->cont_arg;
	long next_result;

	exec_future_put(fut);
	if (!next) {
		cont(arg, result);
		return NULL;
	}
	next_result = then_fn(arg, result);
	/* Nobody else completes it (SPAWNED): the claim cannot fail. */
	if (WARN_ON_ONCE(!exec_future_claim(next, ran ? next_result :
							 -ECANCELED))) {
		exec_future_put(next);
		return NULL;
	}
	return next;
}

/*
 * Called once READY and ARMED are both set, by whichever of the completer
 * and then() set the second one.  The caller holds a reference; once the
 * item is accepted the future may be gone, so the guard is moved out of it
 * first.  Returns what exec_future_cont_call() returned if the executor
 * refused the continuation, else NULL.
 */
static struct exec_future *exec_future_submit_cont(struct exec_future *fut)
{
	struct exec_executor *ex = fut->cont_ex;
	struct exec_work_guard guard = {
		.ex = xchg(&fut->cont_guard.ex, NULL),
	};
	struct exec_future *next = NULL;
	int ret;

	/* No longer a dependent, but destroy waits until we are done. */
	exec_executor_handover_begin(ex, EXEC_DEP_CONTINUATION);
	ret = exec_post(ex, &fut->cont_work);
	/* An executor that runs items only in the caller, or a full one. */
	if (ret == -EOPNOTSUPP || ret == -EAGAIN)
		ret = exec_submit(ex, &fut->cont_work);
	if (unlikely(ret))
		next = exec_future_cont_call(fut, -ECANCELED, false);
	if (guard.ex)
		exec_work_guard_drop(&guard, EXEC_DEP_NONE);
	/* Now the executor's own work: @ex may be destroyed after this. */
	exec_executor_handover_end(ex);
	return next;
}

/*
 * Publishes the result of @fut, claimed by the caller, and submits its
 * continuation; then, while a chained continuation is refused and so
 * completes its future here, that future's: a loop, where nested calls
 * would take stack for each step of a chain.  @put: drop a reference on
 * @fut once done, the one a chained continuation held on it.
 */
static void exec_future_publish(struct exec_future *fut, bool put)
{
	struct exec_future *next;
	int old;

	while (fut) {
		/*
		 * Full barrier: publishes @result before READY (pairs with
		 * the acquire reads of READY in exec_future_ready() and the
		 * cmpxchg of exec_future_wait()), and pairs with then()'s
		 * fetch_or of ARMED: one of the two sees the other's bit.
		 */
		old = atomic_fetch_or(EXEC_FUTURE_READY, &fut->state);
		next = NULL;
		if (old & EXEC_FUTURE_ARMED)
			next = exec_future_submit_cont(fut);
		/* READY set by a full barrier: pairs with wait_event()'s. */
		if (wq_has_sleeper(&fut->wq))
			wake_up_all(&fut->wq);
		if (put)
			exec_future_put(fut);
		fut = next;
		put = true;
	}
}

static void exec_future_cont_run(struct exec_work *work)
{
	struct exec_future *fut = container_of(work, struct exec_future,
					       cont_work);

	/* READY was seen before the item was submitted: @result is there. */
	exec_future_publish(exec_future_cont_call(fut, fut->result, true),
			    true);
}

static void exec_future_cont_drop(struct exec_work *work)
{
	struct exec_future *fut = container_of(work, struct exec_future,
					       cont_work);

	exec_future_publish(exec_future_cont_call(fut, -ECANCELED, false),
			    true);
}

static int exec_future_settle(struct exec_future *fut, long result)
{
	if (!exec_future_claim(fut, result))
		return -EALREADY;
	exec_future_publish(fut, false);
	return 0;
}

int exec_future_create(struct exec_future **futp)
{
	might_sleep();
	if (!futp)
		return -EINVAL;
	*futp = exec_future_alloc(0, 1);
	return *futp ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_GPL(exec_future_create);

/* The spawned work: completes the future, then drops the work's reference. */
static void exec_future_run(struct exec_work *work)
{
	struct exec_future_spawned *sp = container_of(work,
						      struct exec_future_spawned,
						      work);

	exec_future_settle(&sp->fut, sp->fn(sp->arg));
	exec_future_put(&sp->fut);
}

static void exec_future_drop(struct exec_work *work)
{
	struct exec_future_spawned *sp = container_of(work,
						      struct exec_future_spawned,
						      work);

	exec_future_settle(&sp->fut, -ECANCELED);
	exec_future_put(&sp->fut);
}

int exec_spawn_future(struct exec_future **futp, struct exec_executor *ex,
		      exec_task_fn fn, void *arg)
{
	struct exec_future_spawned *sp;
	int ret;

	might_sleep();
	if (!futp)
		return -EINVAL;
	*futp = NULL;
	if (!ex || !ex->ops || !fn)
		return -EINVAL;
	/* exec_future_put() frees the future's address: the whole object. */
	BUILD_BUG_ON(offsetof(struct exec_future_spawned, fut) != 0);
	sp = exec_record_new(sp, GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	/* One reference for the caller, one for the work. */
	exec_future_init(&sp->fut, EXEC_FUTURE_SPAWNED, 2);
	sp->fn = fn;
	sp->arg = arg;
	exec_work_init_discard(&sp->work, exec_future_run, exec_future_drop);
	ret = exec_submit(ex, &sp->work);
	if (ret)
		goto err_free_future;
	*futp = &sp->fut;
	return 0;

err_free_future:
	exec_record_free(sp);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_spawn_future);

int exec_future_complete(struct exec_future *fut, long result)
{
	if (!fut || (atomic_read(&fut->state) & EXEC_FUTURE_SPAWNED))
		return -EINVAL;
	return exec_future_settle(fut, result);
}
EXPORT_SYMBOL_GPL(exec_future_complete);

bool exec_future_ready(const struct exec_future *fut)
{
	/* Pairs with the fetch_or of READY in exec_future_publish(). */
	return fut && (atomic_read_acquire(&fut->state) & EXEC_FUTURE_READY);
}
EXPORT_SYMBOL_GPL(exec_future_ready);

int exec_future_wait(struct exec_future *fut, uint64_t timeout_ns,
		     long *result)
{
	ktime_t timeout;
	int old;

	if (!fut || !result)
		return -EINVAL;
	if (atomic_read(&fut->state) & EXEC_FUTURE_THEN)
		return -EINVAL;
	if (!exec_future_ready(fut)) {
		if (!timeout_ns)
			return -ETIMEDOUT;
		might_sleep();
		timeout = timeout_ns >= (uint64_t)KTIME_MAX ?
			  KTIME_MAX : ns_to_ktime(timeout_ns);
		if (wait_event_hrtimeout(fut->wq, exec_future_ready(fut),
					 timeout))
			return -ETIMEDOUT;
	}
	old = atomic_read(&fut->state);
	do {
		if (old & EXEC_FUTURE_THEN)
			return -EINVAL;
		if (old & EXEC_FUTURE_TAKEN)
			return -EALREADY;
	} while (!atomic_try_cmpxchg(&fut->state, &old,
				     old | EXEC_FUTURE_TAKEN));
	/* READY was read by acquire in exec_future_ready(): @result is set. */
	*result = fut->result;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_future_wait);

/*
 * Registers the continuation: @cont, or @then_fn completing @next (which
 * then holds a reference for it).
 */
static int exec_future_attach(struct exec_future *fut, struct exec_executor *ex,
			      exec_result_fn cont, exec_then_fn then_fn,
			      struct exec_future *next, void *arg)
{
	int old;

	old = atomic_read(&fut->state);
	do {
		if (old & EXEC_FUTURE_THEN)
			return -EBUSY;
		if (old & EXEC_FUTURE_TAKEN)
			return -EALREADY;
	} while (!atomic_try_cmpxchg(&fut->state, &old,
				     old | EXEC_FUTURE_THEN));
	fut->cont_ex = ex;
	fut->cont = cont;
	fut->then_fn = then_fn;
	fut->cont_next = next;
	fut->cont_arg = arg;
	exec_work_init_discard(&fut->cont_work, exec_future_cont_run,
			       exec_future_cont_drop);
	exec_work_guard_take(&fut->cont_guard, ex, EXEC_DEP_CONTINUATION);
	/* The continuation's reference, dropped by exec_future_cont_call(). */
	exec_future_get(fut);
	/*
	 * Full barrier: publishes the fields above before ARMED, and pairs
	 * with the completer's fetch_or of READY in exec_future_publish().
	 */
	old = atomic_fetch_or(EXEC_FUTURE_ARMED, &fut->state);
	if (old & EXEC_FUTURE_READY)
		exec_future_publish(exec_future_submit_cont(fut), true);
	return 0;
}

int exec_future_then(struct exec_future *fut, struct exec_executor *ex,
		     exec_result_fn cont, void *arg)
{
	if (!fut || !ex || !ex->ops || !cont)
		return -EINVAL;
	return exec_future_attach(fut, ex, cont, NULL, NULL, arg);
}
EXPORT_SYMBOL_GPL(exec_future_then);

int exec_future_then_future(struct exec_future **nextp,
			    struct exec_future *fut, struct exec_executor *ex,
			    exec_then_fn fn, void *arg)
{
	struct exec_future *next;
	int ret;

	might_sleep();
	if (!nextp)
		return -EINVAL;
	*nextp = NULL;
	if (!fut || !ex || !ex->ops || !fn)
		return -EINVAL;
	/*
	 * One reference for the caller, one for the continuation.  Allocated
	 * first, so that a failure leaves @fut as it was.
	 */
	next = exec_future_alloc(EXEC_FUTURE_SPAWNED, 2);
	if (!next)
		return -ENOMEM;
	ret = exec_future_attach(fut, ex, NULL, fn, next, arg);
	if (ret) {
		exec_record_free(next);
		return ret;
	}
	/* The continuation may have completed it already: ours is held. */
	*nextp = next;
	return 0;
}
EXPORT_SYMBOL_GPL(exec_future_then_future);

/* exec_spawn(): the work and its continuation in one item. */
struct exec_spawn {
	struct exec_work work;
	exec_task_fn fn;
	void *arg;
	exec_result_fn cont;
	void *cont_arg;
};

static void exec_spawn_run(struct exec_work *work)
{
	struct exec_spawn *s = container_of(work, struct exec_spawn, work);
	exec_task_fn fn = s->fn;
	exec_result_fn cont = s->cont;
	void *arg = s->arg;
	void *cont_arg = s->cont_arg;

	exec_record_free(s);
	cont(cont_arg, fn(arg));
}

static void exec_spawn_drop(struct exec_work *work)
{
	struct exec_spawn *s = container_of(work, struct exec_spawn, work);
	exec_result_fn cont = s->cont;
	void *cont_arg = s->cont_arg;

	exec_record_free(s);
	cont(cont_arg, -ECANCELED);
}

int exec_spawn(struct exec_executor *ex, exec_task_fn fn, void *arg,
	       exec_result_fn cont, void *cont_arg)
{
	struct exec_spawn *s;
	int ret;

	might_sleep();
	if (!ex || !ex->ops || !fn || !cont)
		return -EINVAL;
	s = exec_record_alloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	exec_work_init_discard(&s->work, exec_spawn_run, exec_spawn_drop);
	s->fn = fn;
	s->arg = arg;
	s->cont = cont;
	s->cont_arg = cont_arg;
	ret = exec_submit(ex, &s->work);
	if (ret)
		goto err_free_spawn;
	return 0;

err_free_spawn:
	exec_record_free(s);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_spawn);

int exec_bind_executor(struct exec_handler *h, struct exec_executor *ex,
		       exec_result_fn fn, void *arg)
{
	if (!h || !ex || !ex->ops || !fn)
		return -EINVAL;
	h->fn = fn;
	h->arg = arg;
	h->ex = ex;
	exec_executor_depend(ex, EXEC_DEP_HANDLER);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_bind_executor);

int exec_handler_unbind(struct exec_handler *h)
{
	struct exec_executor *ex;

	if (!h)
		return -EINVAL;
	ex = h->ex;
	if (!ex)
		return -EALREADY;
	h->ex = NULL;
	exec_executor_undepend(ex, EXEC_DEP_HANDLER);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_handler_unbind);

struct exec_executor *exec_handler_executor(const struct exec_handler *h,
					    struct exec_executor *fallback)
{
	if (!h)
		return NULL;
	return h->ex ? h->ex : fallback;
}
EXPORT_SYMBOL_GPL(exec_handler_executor);

/* exec_handler_complete(): a handler and its result, queued. */
struct exec_handler_op {
	struct exec_work work;
	exec_result_fn fn;
	void *arg;
	long result;
};

static void exec_handler_op_run(struct exec_work *work)
{
	struct exec_handler_op *op = container_of(work, struct exec_handler_op,
						  work);
	exec_result_fn fn = op->fn;
	void *arg = op->arg;
	long result = op->result;

	exec_record_free(op);
	fn(arg, result);
}

static void exec_handler_op_drop(struct exec_work *work)
{
	struct exec_handler_op *op = container_of(work, struct exec_handler_op,
						  work);

	op->result = -ECANCELED;
	exec_handler_op_run(work);
}

int exec_handler_complete(const struct exec_handler *h,
			  struct exec_executor *fallback, long result)
{
	struct exec_executor *ex = exec_handler_executor(h, fallback);
	struct exec_handler_op *op;
	int ret;

	might_sleep();
	if (!h || !h->fn || !ex || !ex->ops)
		return -EINVAL;
	/* The generic dispatch rule needs no item: call the handler here. */
	if (!ex->ops->dispatch && exec_running_in_this_thread(ex)) {
		h->fn(h->arg, result);
		return 0;
	}
	op = exec_record_alloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	exec_work_init_discard(&op->work, exec_handler_op_run,
			       exec_handler_op_drop);
	op->fn = h->fn;
	op->arg = h->arg;
	op->result = result;
	ret = exec_dispatch(ex, &op->work);
	/* dispatch posts without waiting: wait for room, or run in place. */
	if (ret == -EAGAIN || ret == -EOPNOTSUPP)
		ret = exec_submit(ex, &op->work);
	if (ret)
		goto err_free_op;
	return 0;

err_free_op:
	exec_record_free(op);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_handler_complete);

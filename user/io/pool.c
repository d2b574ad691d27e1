// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Pools of I/O contexts (<exec/io.h>): an executor whose workers are the
 * threads of I/O contexts, each asleep in its own ring (or epoll set)
 * between turns.  Userspace only.
 *
 * A completion wakes the thread that took it, and a handler bound to the
 * pool's executor runs on that same thread: the submission from a member
 * thread stays on the member's own context (exec_io_pool_submit()), so the
 * handler joins the items the thread runs before it next waits.  No other
 * thread is woken and nothing moves between threads, which is what a pool
 * of workers parked on futexes cannot give: there, the context's thread
 * takes the completion and wakes a worker to run its handler.
 *
 * Items submitted from outside the pool go to the contexts in turn.  An
 * item never moves to another context once queued: a context's items run
 * in submission order on its thread, and one long item holds up that
 * thread's completions and items only.
 *
 * The pool owns its contexts: exec_io_destroy() refuses them (@pool of
 * struct exec_io), exec_io_pool_destroy() tears them down.
 */
#include "exec_platform.h"
#include "io_internal.h"

/* Contexts of one pool at most: a thread and a ring each. */
#define EXEC_IO_POOL_MAX	1024U

/**
 * struct exec_io_pool - a pool of I/O contexts
 * @ex: its executor
 * @next: A: the turn of the next submission from outside the pool
 * @nr: the number of contexts; set at creation
 * @ios: the contexts; set at creation
 */
struct exec_io_pool {
	struct exec_executor ex;
	atomic_t next;
	unsigned int nr;
	struct exec_io *ios[];
};

static const struct exec_executor_ops exec_io_pool_ops;

static struct exec_io_pool *exec_to_io_pool(const struct exec_executor *ex)
{
	return container_of(ex, struct exec_io_pool, ex);
}

/* The calling thread's own context if it is one of @pool's, else NULL. */
static struct exec_io *exec_io_pool_own(const struct exec_io_pool *pool)
{
	struct exec_io *io = exec_io_current();

	return io && io->pool == pool ? io : NULL;
}

struct exec_io *exec_io_pool_context(struct exec_io_pool *pool)
{
	struct exec_io *io;

	if (!pool)
		return NULL;
	io = exec_io_pool_own(pool);
	if (io)
		return io;
	return pool->ios[(unsigned int)atomic_inc_return(&pool->next) %
			 pool->nr];
}
EXPORT_SYMBOL_GPL(exec_io_pool_context);

/*
 * The item's pending bit is already set (exec_submit_flags()), so it goes
 * straight to the context's loop through its ops, not through
 * exec_submit(), which would find the bit set.
 */
static int exec_io_pool_submit(struct exec_executor *ex,
			       struct exec_work *work, unsigned int flags)
{
	struct exec_executor *inner;

	inner = exec_io_executor(exec_io_pool_context(exec_to_io_pool(ex)));
	return inner->ops->submit(inner, work, flags);
}

static unsigned long exec_io_pool_queued(struct exec_executor *ex)
{
	struct exec_io_pool *pool = exec_to_io_pool(ex);
	struct exec_executor *inner;
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < pool->nr; i++) {
		inner = exec_io_executor(pool->ios[i]);
		n += inner->ops->pending(inner);
	}
	return n;
}

static bool exec_io_pool_running(const struct exec_executor *ex)
{
	struct exec_io *io = exec_io_pool_own(exec_to_io_pool(ex));

	return io && exec_running_in_this_thread(exec_io_executor(io));
}

static const struct exec_executor_ops exec_io_pool_ops = {
	.kind = "io_pool",
	.submit = exec_io_pool_submit,
	.pending = exec_io_pool_queued,
	.running_in_this_thread = exec_io_pool_running,
};

/* Destroys the first @nr contexts of @pool, which has never been used. */
static void exec_io_pool_destroy_contexts(struct exec_io_pool *pool,
					  unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		exec_io_teardown(pool->ios[i]);
}

int exec_io_pool_create(struct exec_io_pool **poolp, unsigned int nr,
			const struct exec_io_attr *attr)
{
	struct exec_io_pool *pool;
	unsigned int i;
	int ret;

	if (!poolp)
		return -EINVAL;
	*poolp = NULL;
	if (!nr)
		nr = exec_online_cpus();
	if (nr > EXEC_IO_POOL_MAX)
		return -EINVAL;
	pool = exec_io_zalloc(sizeof(*pool) + nr * sizeof(pool->ios[0]));
	if (!pool)
		return -ENOMEM;
	ret = exec_executor_init(&pool->ex, &exec_io_pool_ops);
	if (ret)
		goto free_pool;
	for (i = 0; i < nr; i++) {
		ret = exec_io_create(&pool->ios[i], attr);
		if (ret)
			goto destroy_contexts;
		pool->ios[i]->pool = pool;
	}
	pool->nr = nr;
	/* Timed items come due on the first context's clock. */
	ret = exec_timers_share(&pool->ex, exec_io_executor(pool->ios[0]));
	if (ret)
		goto destroy_contexts;
	*poolp = pool;
	return 0;

destroy_contexts:
	exec_io_pool_destroy_contexts(pool, i);
	exec_executor_fini(&pool->ex);
free_pool:
	free(pool);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_io_pool_create);

struct exec_executor *exec_io_pool_executor(struct exec_io_pool *pool)
{
	return pool ? &pool->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_io_pool_executor);

unsigned int exec_io_pool_size(const struct exec_io_pool *pool)
{
	return pool ? pool->nr : 0;
}
EXPORT_SYMBOL_GPL(exec_io_pool_size);

struct exec_io *exec_io_pool_get(struct exec_io_pool *pool, unsigned int i)
{
	return pool && i < pool->nr ? pool->ios[i] : NULL;
}
EXPORT_SYMBOL_GPL(exec_io_pool_get);

long exec_io_pool_cancel_token(struct exec_io_pool *pool,
			       struct exec_cancel_token *tok)
{
	long n = 0, ret;
	unsigned int i;

	if (!pool || !tok)
		return -EINVAL;
	for (i = 0; i < pool->nr; i++) {
		ret = exec_io_cancel_token(pool->ios[i], tok);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}
EXPORT_SYMBOL_GPL(exec_io_pool_cancel_token);

unsigned long exec_io_pool_pending(const struct exec_io_pool *pool)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; pool && i < pool->nr; i++)
		n += exec_io_pending(pool->ios[i]);
	return n;
}
EXPORT_SYMBOL_GPL(exec_io_pool_pending);

long exec_io_pool_destroy(struct exec_io_pool *pool)
{
	long cancelled;
	unsigned int i;

	if (!pool)
		return -EINVAL;
	/* Its thread would wait for itself. */
	if (exec_io_pool_own(pool))
		return -EDEADLK;
	for (i = 0; i < pool->nr; i++)
		if (exec_io_used(pool->ios[i]))
			break;
	if (i < pool->nr || exec_executor_dependents(&pool->ex))
		exec_io_settle(pool->ios, pool->nr);
	/* Every refusal before anything is undone. */
	if (exec_executor_check_unused(&pool->ex))
		return -EBUSY;
	for (i = 0; i < pool->nr; i++)
		if (exec_io_busy(pool->ios[i]))
			return -EBUSY;

	/* Armed items are discarded, due ones reach a context first. */
	cancelled = exec_timers_shutdown(&pool->ex);
	/* Every context cancels at once, then each is waited for. */
	for (i = 0; i < pool->nr; i++)
		cancelled += exec_io_shutdown(pool->ios[i]);
	for (i = 0; i < pool->nr; i++)
		exec_io_teardown(pool->ios[i]);
	exec_timers_free(&pool->ex);
	exec_executor_fini(&pool->ex);
	free(pool);
	return cancelled;
}
EXPORT_SYMBOL_GPL(exec_io_pool_destroy);

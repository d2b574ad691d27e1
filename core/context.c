// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Execution contexts and their services (P0113 execution_context).
 *
 * A context keeps its services on a singly linked list, newest first, which
 * only grows until the context is destroyed.  A service is added under
 * @lock, after a check under the same lock that its key is absent and that
 * shutdown has not begun, and is published with a release store of
 * @services.  Lookups (the use of a present service, has, find) walk the
 * list without the lock, from an acquire load of @services: nodes are
 * unlinked only by the teardown, which runs alone.
 *
 *   adder (under @lock)                    lookup (no lock)
 *   svc->next = services                   s = smp_load_acquire(&services)
 *   smp_store_release(&services, svc)      s->key, s->next, ...
 *
 * exec_use_service() of an absent key calls the create function with no
 * lock held, so that it may sleep and use other services of the context,
 * then adds the new service under @lock, unless a racing thread added the
 * key meanwhile: the racing service is returned and the new one is shut
 * down and destroyed.  A create function that asked for its own key would
 * recurse for ever, so while it runs a frame on the thread's frame stack
 * (internal.h) names the context and the key, and such a call fails with
 * -EDEADLK.
 *
 * Teardown (exec_context_destroy(), or exec_executor_fini() for an
 * executor's context): @shutdown is set under @lock, so nothing is added
 * after it; the shutdown operations run, newest first, over the list as it
 * then is; then the services are unlinked and destroyed one at a time,
 * newest first, so that a destroy operation still finds the older ones.
 *
 * exec_context_notify_fork() walks the list as a lookup does, from one
 * acquire load, newest first for the prepare step and oldest first for
 * the others (P0113's orders), which a singly linked list gives without
 * memory by looking, each time, for the node whose next is the last one
 * notified: quadratic in the number of services, which is small.
 */
#include "internal.h"

/**
 * struct exec_context - an execution context
 * @lock: guards adding to @services and setting @shutdown
 * @services: L: the newest service, linked to older ones through ->next;
 *	stored under @lock with smp_store_release(), read without it with
 *	smp_load_acquire()
 * @shutdown: L: shutdown has begun; read without the lock as a hint by
 *	exec_use_service()'s lookup of a present service
 * @executor: O: the context belongs to an executor; set at creation
 */
struct exec_context {
	spinlock_t lock;	/* adding to @services, setting @shutdown */
	struct exec_service *services;
	bool shutdown;
	bool executor;
};

/* A create function running on this thread: for -EDEADLK. */
struct exec_service_frame {
	struct exec_frame frame;
	const struct exec_context *ctx;
	const struct exec_service_key *key;
};

/* The owner of every exec_service_frame: no executor has this address. */
static const char exec_service_frame_tag;

/*
 * F: the inline executor's context whose lock the fork's prepare step
 * took; only the forking thread uses it, between the steps of a fork.
 */
static struct exec_context *exec_fork_locked_context;

static struct exec_context *exec_context_alloc(bool executor)
{
	struct exec_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	spin_lock_init(&ctx->lock);
	ctx->executor = executor;
	return ctx;
}

static void exec_context_free(struct exec_context *ctx)
{
	spin_lock_destroy(&ctx->lock);
	kfree(ctx);
}

static struct exec_service *
exec_context_lookup(const struct exec_context *ctx,
		    const struct exec_service_key *key)
{
	struct exec_service *svc;

	/* Pairs with smp_store_release() in exec_context_insert(). */
	for (svc = smp_load_acquire(&ctx->services); svc; svc = svc->next)
		if (svc->key == key)
			return svc;
	return NULL;
}

/*
 * Adds @svc unless shutdown has begun (-ESHUTDOWN) or its key is present
 * (-EEXIST, with the present service in *@found).
 */
static int exec_context_insert(struct exec_context *ctx,
			       struct exec_service *svc,
			       struct exec_service **found)
{
	int ret = 0;

	spin_lock(&ctx->lock);
	if (ctx->shutdown) {
		ret = -ESHUTDOWN;
	} else {
		*found = exec_context_lookup(ctx, svc->key);
		if (*found) {
			ret = -EEXIST;
		} else {
			svc->next = ctx->services;
			/* Pairs with smp_load_acquire() in the lookup. */
			smp_store_release(&ctx->services, svc);
		}
	}
	spin_unlock(&ctx->lock);
	return ret;
}

static bool exec_service_valid(const struct exec_service *svc)
{
	return svc->key && svc->ops && svc->ops->destroy;
}

/* A valid service that was never added: shutdown, destroy, as if added. */
static void exec_service_discard(struct exec_service *svc)
{
	if (svc->ops->shutdown)
		svc->ops->shutdown(svc);
	svc->ops->destroy(svc);
}

/* Whether this thread is inside the create function of @key on @ctx. */
static bool exec_service_creating(const struct exec_context *ctx,
				  const struct exec_service_key *key)
{
	struct exec_service_frame *sf;
	struct exec_frame *frame;

	for (frame = exec_thread_self_get(); frame; frame = frame->prev) {
		if (frame->owner != &exec_service_frame_tag)
			continue;
		sf = container_of(frame, struct exec_service_frame, frame);
		if (sf->ctx == ctx && sf->key == key)
			return true;
	}
	return false;
}

int exec_context_create(struct exec_context **ctxp)
{
	might_sleep();
	if (!ctxp)
		return -EINVAL;
	*ctxp = exec_context_alloc(false);
	return *ctxp ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_GPL(exec_context_create);

int exec_context_shutdown(struct exec_context *ctx)
{
	struct exec_service *svc;

	might_sleep();
	if (!ctx)
		return -EINVAL;
	spin_lock(&ctx->lock);
	if (ctx->shutdown) {
		spin_unlock(&ctx->lock);
		return -EALREADY;
	}
	WRITE_ONCE(ctx->shutdown, true);
	svc = ctx->services;
	spin_unlock(&ctx->lock);

	/* Nothing is added from now on, and nothing unlinked before destroy. */
	for (; svc; svc = svc->next)
		if (svc->ops->shutdown)
			svc->ops->shutdown(svc);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_context_shutdown);

/* P0113 shutdown() then destroy(), then the context's own memory. */
static long exec_context_teardown(struct exec_context *ctx)
{
	struct exec_service *svc;
	long destroyed = 0;

	exec_context_shutdown(ctx);
	for (;;) {
		spin_lock(&ctx->lock);
		svc = ctx->services;
		if (svc)
			WRITE_ONCE(ctx->services, svc->next);
		spin_unlock(&ctx->lock);
		if (!svc)
			break;
		svc->ops->destroy(svc);
		destroyed++;
	}
	exec_context_free(ctx);
	return destroyed;
}

long exec_context_destroy(struct exec_context *ctx)
{
	might_sleep();
	if (!ctx)
		return -EINVAL;
	if (ctx->executor)
		return -EBUSY;
	return exec_context_teardown(ctx);
}
EXPORT_SYMBOL_GPL(exec_context_destroy);

static void exec_service_notify_fork(struct exec_service *svc,
				     enum exec_fork_event event)
{
	if (svc->ops->notify_fork)
		svc->ops->notify_fork(svc, event);
}

int exec_context_notify_fork(struct exec_context *ctx,
			     enum exec_fork_event event)
{
	struct exec_service *head, *svc, *done;

	if (!ctx || (event != EXEC_FORK_PREPARE && event != EXEC_FORK_PARENT &&
		     event != EXEC_FORK_CHILD))
		return -EINVAL;
	might_sleep();
	/*
	 * One snapshot of the list for the whole call; nodes are not
	 * unlinked before teardown, and their links never change.  Pairs
	 * with smp_store_release() in exec_context_insert().
	 */
	head = smp_load_acquire(&ctx->services);
	if (event == EXEC_FORK_PREPARE) {
		/* The list is newest first: P0113's reverse order. */
		for (svc = head; svc; svc = svc->next)
			exec_service_notify_fork(svc, event);
		return 0;
	}
	/*
	 * Oldest first, without memory (a child may be short of it): each
	 * pass finds the service added just after the last one notified.
	 */
	for (done = NULL; done != head; done = svc) {
		for (svc = head; svc->next != done; svc = svc->next)
			;
		exec_service_notify_fork(svc, event);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(exec_context_notify_fork);

struct exec_context *exec_executor_context(struct exec_executor *ex)
{
	struct exec_context *ctx, *old;

	while (ex && ex->ops && ex->ops->context_executor)
		ex = ex->ops->context_executor(ex);
	if (!ex || !ex->ops)
		return NULL;
	/* Pairs with the cmpxchg() below: the context was set up before. */
	ctx = smp_load_acquire(&ex->own.context);
	if (likely(ctx))
		return ctx;

	might_sleep();
	ctx = exec_context_alloc(true);
	if (!ctx)
		return NULL;
	/* Fully ordered: the context is set up before it is published. */
	old = cmpxchg(&ex->own.context, NULL, ctx);
	if (old) {
		exec_context_free(ctx);
		return old;
	}
	return ctx;
}
EXPORT_SYMBOL_GPL(exec_executor_context);

/**
 * exec_executor_context_release - tear down an executor's context
 * @ex: the executor, which nothing uses any more
 *
 * Called by exec_executor_fini().  @ex->own.context is cleared only once the
 * context is gone, so that a service that asks for the executor's context
 * during the teardown gets this one, shut down, rather than a new one.
 *
 * Context: Process context; may sleep.
 */
void exec_executor_context_release(struct exec_executor *ex)
{
	struct exec_context *ctx;

	/* One that shares another's context keeps @aux there instead. */
	if (ex->ops && ex->ops->context_executor)
		return;
	ctx = READ_ONCE(ex->own.context);
	if (!ctx)
		return;
	exec_context_teardown(ctx);
	WRITE_ONCE(ex->own.context, NULL);
}

/**
 * exec_static_context_release - tear down the inline executor's context
 *
 * For the kernel module's exit.
 *
 * Context: Process context; may sleep; nothing may use the context.
 */
void exec_static_context_release(void)
{
	exec_executor_context_release(exec_inline_executor());
}

/**
 * exec_static_context_fork - the inline executor's context across fork()
 * @event: the step of the fork
 *
 * The one context the child of a fork can go on using (the others belong
 * to executors whose threads stay in the parent): its lock is taken
 * before the fork, so that no other thread holds it when the child is
 * made, and released after it on both sides.  Its services are not
 * notified: that is exec_context_notify_fork(), the application's call.
 *
 * Context: Process context; from the pthread_atfork() handlers of the
 * userspace library (the kernel has no fork).
 */
void exec_static_context_fork(enum exec_fork_event event)
{
	struct exec_context *locked = exec_fork_locked_context;
	struct exec_context *ctx = READ_ONCE(exec_inline_executor()->own.context);

	switch (event) {
	case EXEC_FORK_PREPARE:
		exec_fork_locked_context = ctx;
		if (ctx)
			spin_lock(&ctx->lock);
		break;
	case EXEC_FORK_PARENT:
		if (locked)
			spin_unlock(&locked->lock);
		break;
	case EXEC_FORK_CHILD:
		/*
		 * One created after the prepare step, by another thread, may
		 * have been inside its lock at the fork: alone now, free it.
		 */
		if (locked)
			spin_unlock(&locked->lock);
		if (ctx && ctx != locked)
			spin_lock_init(&ctx->lock);
		break;
	}
}

int exec_use_service(struct exec_context *ctx,
		     const struct exec_service_key *key,
		     exec_service_create_fn create, void *arg,
		     struct exec_service **svcp)
{
	struct exec_service_frame frame;
	struct exec_service *svc, *found;
	int ret;

	if (!svcp)
		return -EINVAL;
	*svcp = NULL;
	if (!ctx || !key || !create)
		return -EINVAL;
	if (READ_ONCE(ctx->shutdown))
		return -ESHUTDOWN;
	svc = exec_context_lookup(ctx, key);
	if (likely(svc)) {
		*svcp = svc;
		return 0;
	}

	might_sleep();
	if (exec_service_creating(ctx, key))
		return -EDEADLK;
	frame.ctx = ctx;
	frame.key = key;
	svc = NULL;
	exec_frame_push(&frame.frame, &exec_service_frame_tag);
	ret = create(ctx, arg, &svc);
	exec_frame_pop(&frame.frame);
	if (ret)
		return ret;
	/* Without a destroy operation there is no way to release it. */
	if (!svc || !exec_service_valid(svc))
		return -EINVAL;
	/* A service of another context is not ours to destroy. */
	if (cmpxchg(&svc->context, NULL, ctx))
		return -EBUSY;
	if (svc->key != key) {
		ret = -EINVAL;
		goto err_discard_service;
	}
	ret = exec_context_insert(ctx, svc, &found);
	if (!ret) {
		*svcp = svc;
		return 0;
	}
	if (ret == -EEXIST) {
		/* Lost the race: the first service added is the one. */
		*svcp = found;
		ret = 0;
	}
err_discard_service:
	exec_service_discard(svc);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_use_service);

int exec_make_service(struct exec_context *ctx, struct exec_service *svc)
{
	struct exec_service *found;
	int ret;

	if (!ctx || !svc || !exec_service_valid(svc))
		return -EINVAL;
	if (cmpxchg(&svc->context, NULL, ctx))
		return -EBUSY;
	ret = exec_context_insert(ctx, svc, &found);
	if (ret)
		/* The caller keeps the service. */
		WRITE_ONCE(svc->context, NULL);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_make_service);

bool exec_has_service(const struct exec_context *ctx,
		      const struct exec_service_key *key)
{
	return ctx && key && exec_context_lookup(ctx, key);
}
EXPORT_SYMBOL_GPL(exec_has_service);

struct exec_service *exec_find_service(const struct exec_context *ctx,
				       const struct exec_service_key *key)
{
	if (!ctx || !key)
		return NULL;
	return exec_context_lookup(ctx, key);
}
EXPORT_SYMBOL_GPL(exec_find_service);

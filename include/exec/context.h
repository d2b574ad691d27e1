/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Execution contexts and services (P0113 execution_context,
 * execution_context::service, use_service, make_service, has_service).
 *
 * An execution context holds a set of services, each found by its key.  A
 * service is whatever an extension needs to keep per thread pool or per
 * loop (a timer queue, a reactor, a cache): it attaches to the executor
 * through the executor's context, without any change to the executor.
 *
 * Every thread pool, loop executor and thread-per-task executor has a
 * context of its own, created on first use and torn down when the executor
 * is destroyed, after its threads are gone.  A serial executor's context is
 * its underlying executor's (P0113: a strand's context is its inner
 * executor's).  The inline executor's context lives as long as the library.
 * A stand-alone context comes from exec_context_create().
 *
 * Services are intrusive: the user embeds a struct exec_service in an object
 * of their own and fills in its key and its operations.  Keys are compared
 * by address.  When a context goes, every service is shut down, newest
 * first, and then destroyed, newest first (P0113 shutdown() and destroy()),
 * so a service created from another's create function, which is added
 * first, outlives the one that uses it.
 *
 * A process that forks tells a context's services with
 * exec_context_notify_fork() (P0113 execution_context::notify_fork()), so
 * that a service holding descriptors or threads can quiesce before the fork
 * and start again in the parent and the child.  The userspace library
 * makes its own state safe across fork() by itself (pthread_atfork());
 * the services of a context are the application's to notify.  The kernel
 * has no fork of this kind: there the function only calls the services.
 *
 * Errors are negative errno values:
 *   -EINVAL     a NULL argument, or a service without key or destroy
 *               operation, or an unknown fork event
 *   -EEXIST     exec_make_service(): a service with that key is present
 *   -EBUSY      the service already belongs to a context; or the context
 *               belongs to an executor and cannot be destroyed on its own
 *   -EDEADLK    a create function asked for the key it is creating
 *   -ESHUTDOWN  the context's shutdown has begun
 *   -EALREADY   exec_context_shutdown() called a second time
 *   -ENOMEM     no memory for a context
 */
#ifndef EXEC_CONTEXT_H
#define EXEC_CONTEXT_H

#include "executor.h"

EXEC_BEGIN_DECLS

struct exec_context;
struct exec_service;

/**
 * struct exec_service_key - the identity of a kind of service
 * @name: for diagnostics only; keys are compared by address
 *
 * Usually one static const object per kind of service.
 */
struct exec_service_key {
	const char *name;
};

/**
 * enum exec_fork_event - the steps of a fork() (P0113 fork_event)
 * @EXEC_FORK_PREPARE: in the process about to fork, before fork() is called
 * @EXEC_FORK_PARENT: in the parent, after fork() has returned there
 * @EXEC_FORK_CHILD: in the child, after fork() has returned there; only the
 *	thread that called fork() exists in the child
 */
enum exec_fork_event {
	EXEC_FORK_PREPARE,
	EXEC_FORK_PARENT,
	EXEC_FORK_CHILD,
};

/**
 * struct exec_service_ops - what a service implements
 * @shutdown: P0113 service::shutdown(): drop every function object and item
 *	the service holds, stop using other services.  Called once, newest
 *	service first, before any service of the context is destroyed; may
 *	be NULL.
 * @destroy: release the service (free the object it is embedded in).
 *	Called once, newest first, after every service has been shut down;
 *	required.  Services older than this one are still in the context.
 * @notify_fork: P0113 service::notify_fork(): the process forks (@event
 *	says at which step), from exec_context_notify_fork(); may be NULL,
 *	P0113's default, which does nothing.
 *
 * All run in process context and may sleep.
 */
struct exec_service_ops {
	void (*shutdown)(struct exec_service *svc);
	void (*destroy)(struct exec_service *svc);
	void (*notify_fork)(struct exec_service *svc,
			    enum exec_fork_event event);
};

/**
 * struct exec_service - a service, embedded in the user's object
 * @key: its key; set by the creator before the service is added
 * @ops: its operations; set by the creator before the service is added
 * @context: A: the context it belongs to, claimed with cmpxchg() when it
 *	is added; NULL before.  Owned by the library.
 * @next: L(context's lock): the next older service of its context; set
 *	before the service is published and not changed after.  Owned by the
 *	library.
 */
struct exec_service {
	const struct exec_service_key *key;
	const struct exec_service_ops *ops;
	struct exec_context *context;
	struct exec_service *next;
};

/**
 * exec_service_init - initialise a service before it is added to a context
 * @svc: the service
 * @key: its key
 * @ops: its operations
 *
 * Context: Any context.
 */
static inline void exec_service_init(struct exec_service *svc,
				     const struct exec_service_key *key,
				     const struct exec_service_ops *ops)
{
	svc->key = key;
	svc->ops = ops;
	svc->context = NULL;
	svc->next = NULL;
}

/**
 * exec_service_context - the context a service belongs to
 * @svc: the service
 *
 * P0113 service::context().
 *
 * Context: Any context.
 * Return: the context, or NULL for NULL or a service not yet added.
 */
static inline struct exec_context *
exec_service_context(const struct exec_service *svc)
{
	return svc ? __atomic_load_n(&svc->context, __ATOMIC_ACQUIRE) : NULL;
}

/**
 * typedef exec_service_create_fn - creates a service for exec_use_service()
 * @ctx: the context the service is for
 * @arg: the argument given to exec_use_service()
 * @svcp: where to store the new service, initialised with the key being
 *	asked for and its operations, not yet added to any context
 *
 * Runs without any lock of the library held: it may sleep, and it may call
 * exec_use_service() for other keys of the same context.
 *
 * Return: 0 with *@svcp set, or a negative errno value, which
 * exec_use_service() passes on.
 */
typedef int (*exec_service_create_fn)(struct exec_context *ctx, void *arg,
				      struct exec_service **svcp);

/**
 * exec_context_create - create a stand-alone execution context
 * @ctxp: where to store it
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for NULL; -ENOMEM.
 */
int exec_context_create(struct exec_context **ctxp);

/**
 * exec_context_shutdown - shut down every service of a context
 * @ctx: the context
 *
 * P0113 execution_context::shutdown(): calls each service's shutdown
 * operation, newest first, once.  From then on exec_use_service() and
 * exec_make_service() fail with -ESHUTDOWN; services already present stay
 * until the context is destroyed.  Also allowed on an executor's context,
 * for an owner that wants its services quiet before it stops the executor.
 *
 * Context: Process context; may sleep (the shutdown operations may).
 * Return: 0; -EALREADY if shutdown had already begun; -EINVAL for NULL.
 */
int exec_context_shutdown(struct exec_context *ctx);

/**
 * exec_context_notify_fork - tell a context's services that the process forks
 * @ctx: the context
 * @event: EXEC_FORK_PREPARE before fork(), then EXEC_FORK_PARENT in the
 *	parent or EXEC_FORK_CHILD in the child
 *
 * P0113 execution_context::notify_fork(): "For each service object svc in
 * the set: If e == fork_event::prepare, performs svc->notify_fork(e) in
 * reverse order of addition to the set.  Otherwise, performs
 * svc->notify_fork(e) in order of addition to the set."  So the newest
 * service prepares first and the oldest resumes first, as pthread_atfork()
 * orders its handlers.  Services without a notify_fork operation are
 * skipped; services shut down but not yet destroyed are called too.
 *
 * Call it for every event from one thread, while no other thread uses
 * @ctx's services or adds to them: a service added between two events
 * gets only the later ones.  Nothing else is done: the library itself
 * does not need it (in userspace its own state is handled by its
 * pthread_atfork() handlers, see Documentation/services.rst), and in the
 * kernel, which has no such fork, it only calls the services.
 *
 * Context: Process context; may sleep (the notify_fork operations may).
 * Return: 0; -EINVAL for NULL or an unknown @event (no service is called).
 */
int exec_context_notify_fork(struct exec_context *ctx,
			     enum exec_fork_event event);

/**
 * exec_context_destroy - destroy a stand-alone execution context
 * @ctx: the context, from exec_context_create()
 *
 * Shuts the services down if exec_context_shutdown() has not, then destroys
 * them, newest first (P0113 destroy()), then frees the context.  No other
 * call on @ctx or its services may run concurrently or follow.
 *
 * Context: Process context; may sleep.
 * Return: the number of services destroyed (>= 0); -EINVAL for NULL;
 * -EBUSY for an executor's context, which goes with its executor (nothing
 * is done).
 */
long exec_context_destroy(struct exec_context *ctx);

/**
 * exec_executor_context - the execution context of an executor
 * @ex: the executor
 *
 * P0113 executor::context().  Created on the first call for an executor
 * (executors that never use services pay nothing) and torn down by
 * exec_executor_fini(), that is when the executor is destroyed, after its
 * threads are gone.  A serial executor answers with its underlying
 * executor's context; the inline executor's lives as long as the library
 * (in the kernel, until exec.ko unloads: a module must not leave services
 * there whose code unloads with it).
 *
 * Context: Process context; may sleep on the first call for an executor.
 * Return: the context (the same one on every call); NULL for NULL or an
 * executor without ops, or if the context could not be allocated.
 */
struct exec_context *exec_executor_context(struct exec_executor *ex);

/**
 * exec_use_service - the service of a key, created if not yet present
 * @ctx: the context
 * @key: the key
 * @create: creates the service when @key is not present
 * @arg: passed to @create
 * @svcp: where to store the service
 *
 * P0113 use_service().  A present service is found without a lock.  When
 * two threads race to create the same key, both create functions may run,
 * exactly one service is added and returned to both; the other is shut
 * down and destroyed through its own operations.  A service returned stays
 * valid until the context is destroyed.
 *
 * Context: Process context; may sleep (@create may).
 * Return: 0 with *@svcp set; the error of @create; -EINVAL for NULL
 * arguments, or when @create returns no service, or one without key, ops
 * or destroy operation (left alone: the library cannot release it), or
 * one whose key is not @key (shut down and destroyed); -EBUSY when
 * @create returns a service already in a context (left to it); -EDEADLK
 * when called for @key from @key's own create function on @ctx;
 * -ESHUTDOWN once shutdown has begun (a service just created is then shut
 * down and destroyed).  On error *@svcp is NULL.
 */
int exec_use_service(struct exec_context *ctx,
		     const struct exec_service_key *key,
		     exec_service_create_fn create, void *arg,
		     struct exec_service **svcp);

/**
 * exec_make_service - add a service the caller created
 * @ctx: the context
 * @svc: the service, initialised by exec_service_init()
 *
 * P0113 make_service().  On success the context owns @svc and destroys it
 * through its destroy operation; on error the caller still owns it.
 *
 * Context: Process context.
 * Return: 0; -EEXIST if a service with @svc's key is present; -EBUSY if
 * @svc already belongs to a context; -ESHUTDOWN once shutdown has begun;
 * -EINVAL for NULL, or a service without key, ops or destroy operation.
 */
int exec_make_service(struct exec_context *ctx, struct exec_service *svc);

/**
 * exec_has_service - whether a context holds a service of a key
 * @ctx: the context
 * @key: the key
 *
 * P0113 has_service().  Lock-free.
 *
 * Context: Any context.
 * Return: true if present (shutdown does not remove services, destroy
 * does); false otherwise and for NULL arguments.
 */
bool exec_has_service(const struct exec_context *ctx,
		      const struct exec_service_key *key);

/**
 * exec_find_service - the service of a key, if present
 * @ctx: the context
 * @key: the key
 *
 * Lock-free; creates nothing, and works after shutdown has begun.
 *
 * Context: Any context.
 * Return: the service, or NULL if absent or for NULL arguments.
 */
struct exec_service *exec_find_service(const struct exec_context *ctx,
				       const struct exec_service_key *key);

EXEC_END_DECLS

#endif /* EXEC_CONTEXT_H */

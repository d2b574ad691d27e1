// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Execution contexts and services (include/exec/context.h, P0113
 * execution_context): make, has, find and use on a stand-alone context; use
 * creates once; nested use from a create function; -EEXIST, -EBUSY,
 * -EDEADLK, -ESHUTDOWN; shutdown then destroy, each newest first; the
 * contexts of thread pool, loop and thread-per-task executors go with them;
 * a serial executor's, a priority executor's and a managed queue's context
 * is their underlying executor's; racing use creates exactly one service;
 * bad input; notify_fork() in P0113's order, on stand-alone and executors'
 * contexts.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define SV_LOG_MAX	64
#define SV_SHUTDOWN	100	/* log entry: SV_SHUTDOWN + id */
#define SV_DESTROY	200	/* log entry: SV_DESTROY + id */
#define SV_RACERS	4
#define SV_RACE_ROUNDS	20

/* What the services of one case did, in order. */
struct sv_log {
	atomic_t n;
	int ev[SV_LOG_MAX];
	atomic_t creates;
	atomic_t shutdowns;
	atomic_t destroys;
	/* Set by destroy operations: whether key[0] was still present. */
	atomic_t older_present;
};

struct tsvc {
	struct exec_service svc;
	struct sv_log *log;
	int id;
};

static const struct exec_service_key sv_keys[4] = {
	{ .name = "sv-a" }, { .name = "sv-b" },
	{ .name = "sv-c" }, { .name = "sv-d" },
};

static void sv_log_add(struct sv_log *log, int ev)
{
	int i = atomic_inc_return(&log->n) - 1;

	if (i < SV_LOG_MAX)
		log->ev[i] = ev;
}

static struct tsvc *to_tsvc(struct exec_service *svc)
{
	return container_of(svc, struct tsvc, svc);
}

static void sv_shutdown(struct exec_service *svc)
{
	struct tsvc *t = to_tsvc(svc);

	sv_log_add(t->log, SV_SHUTDOWN + t->id);
	atomic_inc(&t->log->shutdowns);
}

static void sv_destroy(struct exec_service *svc)
{
	struct tsvc *t = to_tsvc(svc);
	struct exec_context *ctx = exec_service_context(svc);

	if (t->svc.key != &sv_keys[0] && ctx &&
	    exec_has_service(ctx, &sv_keys[0]))
		atomic_inc(&t->log->older_present);
	sv_log_add(t->log, SV_DESTROY + t->id);
	atomic_inc(&t->log->destroys);
	kfree(t);
}

static const struct exec_service_ops sv_ops = {
	.shutdown = sv_shutdown,
	.destroy = sv_destroy,
};

static const struct exec_service_ops sv_ops_no_destroy = {
	.shutdown = sv_shutdown,
};

static struct tsvc *sv_alloc(struct sv_log *log,
			     const struct exec_service_key *key, int id)
{
	struct tsvc *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	exec_service_init(&t->svc, key, &sv_ops);
	t->log = log;
	t->id = id;
	return t;
}

static void sv_log_init(struct sv_log *log)
{
	memset(log, 0, sizeof(*log));
	atomic_set(&log->n, 0);
	atomic_set(&log->creates, 0);
	atomic_set(&log->shutdowns, 0);
	atomic_set(&log->destroys, 0);
	atomic_set(&log->older_present, 0);
}

/* What a create function does; the argument of sv_create(). */
struct sv_spec {
	struct sv_log *log;
	const struct exec_service_key *key;	/* the key asked for */
	int id;
	int fail;				/* return this error */
	bool no_service;			/* return 0 and no service */
	const struct exec_service_key *wrong_key;	/* create this key */
	bool no_destroy;			/* ops without destroy */
	struct exec_service *foreign;		/* return this service */
	struct sv_spec *nested;			/* use this one first */
	int nested_ret;
	struct exec_service *nested_svc;
	bool self_again;			/* use own key: -EDEADLK */
	int self_ret;
	bool shutdown_ctx;			/* shut the context down */
	atomic_t *arrived;			/* racers: count, then wait */
	int racers;
	struct exec_service *made;		/* the last service created */
};

static int sv_create(struct exec_context *ctx, void *arg,
		     struct exec_service **svcp)
{
	struct sv_spec *sp = arg;
	struct exec_service *again = NULL;
	struct tsvc *t;

	atomic_inc(&sp->log->creates);
	if (sp->nested)
		sp->nested_ret = exec_use_service(ctx, sp->nested->key,
						  sv_create, sp->nested,
						  &sp->nested_svc);
	if (sp->self_again)
		sp->self_ret = exec_use_service(ctx, sp->key, sv_create, sp,
						&again);
	if (sp->shutdown_ctx)
		exec_context_shutdown(ctx);
	if (sp->arrived) {
		atomic_inc_return(sp->arrived);
		/* Hold every racer here until all have missed the lookup. */
		exec_test_wait_atomic_ge(sp->arrived, sp->racers,
					 EXEC_TEST_TIMEOUT_MS);
	}
	if (sp->fail)
		return sp->fail;
	if (sp->no_service)
		return 0;
	if (sp->foreign) {
		*svcp = sp->foreign;
		return 0;
	}
	t = sv_alloc(sp->log, sp->wrong_key ? sp->wrong_key : sp->key, sp->id);
	if (!t)
		return -ENOMEM;
	if (sp->no_destroy)
		t->svc.ops = &sv_ops_no_destroy;
	sp->made = &t->svc;
	*svcp = &t->svc;
	return 0;
}

static void sv_spec_init(struct sv_spec *sp, struct sv_log *log, int key,
			 int id)
{
	memset(sp, 0, sizeof(*sp));
	sp->log = log;
	sp->key = &sv_keys[key];
	sp->id = id;
}

static void sv_expect_log(struct kunit *test, struct sv_log *log,
			  const int *ev, int n)
{
	int i;

	KUNIT_ASSERT_EQ(test, atomic_read(&log->n), n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, log->ev[i], ev[i], "event %d", i);
}

static void service_make_has_find_on_standalone_context(struct kunit *test)
{
	struct exec_context *ctx;
	struct sv_log log;
	struct tsvc *a;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_NULL(test, exec_find_service(ctx, &sv_keys[0]));

	a = sv_alloc(&log, &sv_keys[0], 1);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_NULL(test, exec_service_context(&a->svc));
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &a->svc), 0);
	KUNIT_EXPECT_PTR_EQ(test, exec_service_context(&a->svc), ctx);
	KUNIT_EXPECT_TRUE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[1]));
	KUNIT_EXPECT_PTR_EQ(test, exec_find_service(ctx, &sv_keys[0]),
			    &a->svc);
	KUNIT_EXPECT_NULL(test, exec_find_service(ctx, &sv_keys[1]));
	/* Nothing shut down or destroyed while the context lives. */
	KUNIT_EXPECT_EQ(test, atomic_read(&log.n), 0);

	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.shutdowns), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);
}

static void service_use_creates_once_and_returns_same(struct kunit *test)
{
	struct exec_service *s1 = NULL, *s2 = NULL, *s3 = NULL;
	struct exec_context *ctx;
	struct sv_spec spec;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 0, 1);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);

	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s1), 0);
	KUNIT_ASSERT_NOT_NULL(test, s1);
	KUNIT_EXPECT_PTR_EQ(test, s1->key, &sv_keys[0]);
	KUNIT_EXPECT_PTR_EQ(test, exec_service_context(s1), ctx);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s2), 0);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s3), 0);
	KUNIT_EXPECT_PTR_EQ(test, s2, s1);
	KUNIT_EXPECT_PTR_EQ(test, s3, s1);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.creates), 1);
	KUNIT_EXPECT_PTR_EQ(test, exec_find_service(ctx, &sv_keys[0]), s1);

	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);
}

/*
 * A's create function uses B: B is added first, so A goes first: shutdown
 * A, shutdown B, destroy A, destroy B.
 */
static void service_nested_use_from_create_function(struct kunit *test)
{
	static const int order[] = {
		SV_SHUTDOWN + 1, SV_SHUTDOWN + 2,
		SV_DESTROY + 1, SV_DESTROY + 2,
	};
	struct exec_service *a = NULL, *b = NULL;
	struct sv_spec spec_a, spec_b;
	struct exec_context *ctx;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec_a, &log, 0, 1);
	sv_spec_init(&spec_b, &log, 1, 2);
	spec_a.nested = &spec_b;
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);

	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec_a, &a), 0);
	KUNIT_EXPECT_EQ(test, spec_a.nested_ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, spec_a.nested_svc);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[1], sv_create,
					       &spec_b, &b), 0);
	KUNIT_EXPECT_PTR_EQ(test, b, spec_a.nested_svc);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.creates), 2);
	KUNIT_EXPECT_TRUE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_TRUE(test, exec_has_service(ctx, &sv_keys[1]));

	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 2L);
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
}

static void service_make_existing_key_eexist(struct kunit *test)
{
	struct exec_context *ctx, *other;
	struct tsvc *a, *dup;
	struct sv_log log;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);
	KUNIT_ASSERT_EQ(test, exec_context_create(&other), 0);
	a = sv_alloc(&log, &sv_keys[0], 1);
	dup = sv_alloc(&log, &sv_keys[0], 2);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, dup);

	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &a->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &dup->svc), -EEXIST);
	/* The caller keeps a refused service: not destroyed, not claimed. */
	KUNIT_EXPECT_NULL(test, exec_service_context(&dup->svc));
	KUNIT_EXPECT_PTR_EQ(test, exec_find_service(ctx, &sv_keys[0]),
			    &a->svc);
	/* A service belongs to one context: -EBUSY, here and elsewhere. */
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &a->svc), -EBUSY);
	KUNIT_EXPECT_EQ(test, exec_make_service(other, &a->svc), -EBUSY);
	KUNIT_EXPECT_FALSE(test, exec_has_service(other, &sv_keys[0]));
	KUNIT_EXPECT_EQ(test, atomic_read(&log.n), 0);

	/* The refused one can still go to another context. */
	KUNIT_EXPECT_EQ(test, exec_make_service(other, &dup->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 1L);
	KUNIT_EXPECT_EQ(test, exec_context_destroy(other), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 2);
}

/*
 * Three services, added by make, use, make: every shutdown before any
 * destroy, each newest first; a destroy operation still finds the older
 * services.
 */
static void service_shutdown_then_destroy_reverse_order(struct kunit *test)
{
	static const int order[] = {
		SV_SHUTDOWN + 3, SV_SHUTDOWN + 2, SV_SHUTDOWN + 1,
		SV_DESTROY + 3, SV_DESTROY + 2, SV_DESTROY + 1,
	};
	struct exec_service *s2 = NULL;
	struct exec_context *ctx;
	struct sv_spec spec;
	struct tsvc *s1, *s3;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 1, 2);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);
	s1 = sv_alloc(&log, &sv_keys[0], 1);
	s3 = sv_alloc(&log, &sv_keys[2], 3);
	KUNIT_ASSERT_NOT_NULL(test, s1);
	KUNIT_ASSERT_NOT_NULL(test, s3);

	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &s1->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[1], sv_create,
					       &spec, &s2), 0);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &s3->svc), 0);

	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 3L);
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
	/* Services 3 and 2 found service 1 while they were destroyed. */
	KUNIT_EXPECT_EQ(test, atomic_read(&log.older_present), 2);
}

static void service_use_make_after_shutdown_eshutdown(struct kunit *test)
{
	static const int order[] = {
		SV_SHUTDOWN + 2, SV_SHUTDOWN + 1,
		SV_DESTROY + 2, SV_DESTROY + 1,
	};
	struct exec_service *s = NULL;
	struct exec_context *ctx;
	struct tsvc *s1, *s2, *late;
	struct sv_spec spec;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 0, 9);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);
	s1 = sv_alloc(&log, &sv_keys[0], 1);
	s2 = sv_alloc(&log, &sv_keys[1], 2);
	late = sv_alloc(&log, &sv_keys[2], 3);
	KUNIT_ASSERT_NOT_NULL(test, s1);
	KUNIT_ASSERT_NOT_NULL(test, s2);
	KUNIT_ASSERT_NOT_NULL(test, late);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &s1->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &s2->svc), 0);

	KUNIT_EXPECT_EQ(test, exec_context_shutdown(ctx), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.shutdowns), 2);
	/* Shutdown happens once however often it is asked for. */
	KUNIT_EXPECT_EQ(test, exec_context_shutdown(ctx), -EALREADY);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.shutdowns), 2);

	/* Present services stay until destroy; nothing new comes in. */
	KUNIT_EXPECT_TRUE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_PTR_EQ(test, exec_find_service(ctx, &sv_keys[1]),
			    &s2->svc);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -ESHUTDOWN);
	KUNIT_EXPECT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[3], sv_create,
					       &spec, &s), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &late->svc), -ESHUTDOWN);
	KUNIT_EXPECT_NULL(test, exec_service_context(&late->svc));
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[2]));
	KUNIT_EXPECT_EQ(test, atomic_read(&log.creates), 0);

	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 2L);
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
	kfree(late);
}

/*
 * Shutdown that begins while a create function runs: the new service is
 * not added; it is shut down and destroyed, and use says -ESHUTDOWN.
 */
static void service_created_during_shutdown_is_discarded(struct kunit *test)
{
	static const int order[] = { SV_SHUTDOWN + 1, SV_DESTROY + 1 };
	struct exec_service *s = NULL;
	struct exec_context *ctx;
	struct sv_spec spec;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 0, 1);
	spec.shutdown_ctx = true;
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);

	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -ESHUTDOWN);
	KUNIT_EXPECT_NULL(test, s);
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[0]));
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 0L);
}

static void service_use_own_key_from_create_edeadlk(struct kunit *test)
{
	struct exec_service *s = NULL;
	struct exec_context *ctx;
	struct sv_spec spec;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 0, 1);
	spec.self_again = true;
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);

	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), 0);
	KUNIT_EXPECT_EQ(test, spec.self_ret, -EDEADLK);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.creates), 1);
	KUNIT_EXPECT_NOT_NULL(test, s);
	/* Once created, the key is found as usual. */
	KUNIT_EXPECT_PTR_EQ(test, exec_find_service(ctx, &sv_keys[0]), s);
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);
}

static void service_create_function_errors(struct kunit *test)
{
	struct exec_context *ctx, *other;
	struct exec_service *s = NULL;
	struct sv_spec spec;
	struct sv_log log;
	struct tsvc *owned;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);
	KUNIT_ASSERT_EQ(test, exec_context_create(&other), 0);

	/* The create function's own error, passed on; nothing added. */
	sv_spec_init(&spec, &log, 0, 1);
	spec.fail = -ENOMEM;
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -ENOMEM);
	KUNIT_EXPECT_NULL(test, s);
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[0]));

	/* Success without a service. */
	sv_spec_init(&spec, &log, 0, 1);
	spec.no_service = true;
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -EINVAL);

	/* A service of another key: refused and destroyed. */
	sv_spec_init(&spec, &log, 0, 2);
	spec.wrong_key = &sv_keys[1];
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[1]));
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);

	/* A service of another context: refused, left to its context. */
	owned = sv_alloc(&log, &sv_keys[0], 3);
	KUNIT_ASSERT_NOT_NULL(test, owned);
	KUNIT_EXPECT_EQ(test, exec_make_service(other, &owned->svc), 0);
	sv_spec_init(&spec, &log, 0, 3);
	spec.foreign = &owned->svc;
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, exec_service_context(&owned->svc), other);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);

	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 0L);
	KUNIT_EXPECT_EQ(test, exec_context_destroy(other), 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 2);
}

/* Items of the executor use services of its context. */
struct sv_item {
	struct exec_context *ctx;
	struct sv_spec *spec;
	struct exec_service *svc;
	int ret;
	atomic_t done;
};

static void sv_item_fn(void *arg)
{
	struct sv_item *it = arg;

	it->ret = exec_use_service(it->ctx, it->spec->key, sv_create,
				   it->spec, &it->svc);
	exec_test_count(&it->done);
}

/*
 * Two services on @ex's context: one made by the test, one used from an
 * item that runs on @ex (@run runs the items where the executor needs a
 * donated thread).  Nothing is torn down before @destroy.
 */
static void sv_executor_case(struct kunit *test, struct exec_executor *ex,
			     void (*run)(void *owner), void *owner,
			     void (*destroy)(struct kunit *test, void *owner))
{
	static const int order[] = {
		SV_SHUTDOWN + 2, SV_SHUTDOWN + 1,
		SV_DESTROY + 2, SV_DESTROY + 1,
	};
	struct exec_context *ctx;
	struct sv_item item;
	struct sv_spec spec;
	struct sv_log log;
	struct tsvc *s1;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 1, 2);
	ctx = exec_executor_context(ex);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(ex), ctx);
	/* It goes with its executor, not on its own. */
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), -EBUSY);

	s1 = sv_alloc(&log, &sv_keys[0], 1);
	KUNIT_ASSERT_NOT_NULL(test, s1);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &s1->svc), 0);

	item.ctx = ctx;
	item.spec = &spec;
	item.svc = NULL;
	item.ret = 1;
	atomic_set(&item.done, 0);
	KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, sv_item_fn, &item), 0);
	if (run)
		run(owner);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&item.done, 1,
							 EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, item.ret, 0);
	KUNIT_EXPECT_PTR_EQ(test, exec_find_service(ctx, &sv_keys[1]),
			    item.svc);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.n), 0);

	destroy(test, owner);
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
}

static void sv_pool_destroy(struct kunit *test, void *owner)
{
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(owner), 0);
}

static void service_thread_pool_context_goes_with_pool(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	sv_executor_case(test, exec_thread_pool_executor(pool), NULL, pool,
			 sv_pool_destroy);
}

static void sv_loop_run(void *owner)
{
	exec_loop_run_queued_closures(owner);
}

static void sv_loop_destroy(struct kunit *test, void *owner)
{
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(owner), 0L);
}

static void service_loop_context_goes_with_loop(struct kunit *test)
{
	struct exec_loop *loop;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	sv_executor_case(test, exec_loop_executor(loop), sv_loop_run, loop,
			 sv_loop_destroy);
}

static void sv_tpt_destroy(struct kunit *test, void *owner)
{
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(owner), 0);
}

static void service_thread_per_task_context_goes_with_it(struct kunit *test)
{
	struct exec_thread_per_task *tpt;

	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);
	sv_executor_case(test, exec_thread_per_task_executor(tpt), NULL, tpt,
			 sv_tpt_destroy);
}

static void service_executors_have_contexts_of_their_own(struct kunit *test)
{
	struct exec_loop *l1, *l2;
	struct exec_context *c1;

	KUNIT_ASSERT_EQ(test, exec_loop_create(&l1), 0);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&l2), 0);
	c1 = exec_executor_context(exec_loop_executor(l1));
	KUNIT_EXPECT_NOT_NULL(test, c1);
	KUNIT_EXPECT_PTR_NE(test, exec_executor_context(exec_loop_executor(l2)),
			    c1);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(exec_loop_executor(l1)),
			    c1);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(l1), 0L);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(l2), 0L);
}

/* A serial executor's context is its underlying's, through any depth. */
static void service_serial_reports_underlying_context(struct kunit *test)
{
	struct exec_serial *s1, *s2, *si;
	struct exec_context *ctx, *ictx;
	struct exec_loop *loop;
	struct sv_log log;
	struct tsvc *a;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&s1, exec_loop_executor(loop)),
			0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&s2, exec_serial_executor(s1)),
			0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&si, exec_inline_executor()),
			0);

	/* Asked through the serial executor first: still the loop's. */
	ctx = exec_executor_context(exec_serial_executor(s2));
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(exec_loop_executor(loop)),
			    ctx);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(exec_serial_executor(s1)),
			    ctx);
	ictx = exec_executor_context(exec_inline_executor());
	KUNIT_EXPECT_NOT_NULL(test, ictx);
	KUNIT_EXPECT_PTR_NE(test, ictx, ctx);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(exec_serial_executor(si)),
			    ictx);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(exec_inline_executor()),
			    ictx);

	/* Destroying a serial executor leaves the context to its owner. */
	a = sv_alloc(&log, &sv_keys[0], 1);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &a->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(s2), 0L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(s1), 0L);
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(si), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.n), 0);
	KUNIT_EXPECT_TRUE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);
}

/*
 * A priority executor's and a managed queue's context is their underlying
 * executor's, as a serial executor's (P0113 6.8: a priority executor
 * wraps another); destroying them leaves the context to its owner.
 */
static void service_priority_reports_underlying_context(struct kunit *test)
{
	struct exec_managed_queue_attr qattr = { .thread_limit = 1 };
	struct exec_thread_pool_attr pattr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_managed_queue *q;
	struct exec_priority *prio;
	struct exec_executor *ex;
	struct exec_context *ctx;
	struct sv_log log;
	struct tsvc *a;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &pattr), 0);
	ex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio, ex, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q, ex, &qattr), 0);

	/* Asked through the priority executor first: still the pool's. */
	ctx = exec_executor_context(exec_priority_executor(prio));
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_PTR_EQ(test, exec_executor_context(ex), ctx);
	KUNIT_EXPECT_PTR_EQ(test,
			    exec_executor_context(exec_managed_queue_executor(q)),
			    ctx);

	a = sv_alloc(&log, &sv_keys[0], 1);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &a->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.n), 0);
	KUNIT_EXPECT_TRUE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.shutdowns), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 1);
}

struct sv_race {
	struct exec_context *ctx;
	struct sv_spec spec[SV_RACERS];
	atomic_t arrived;
};

struct sv_racer {
	struct sv_race *race;
	int idx;
	int ret;
	struct exec_service *svc;
	struct exec_test_thread thread;
};

static int sv_racer_fn(void *arg)
{
	struct sv_racer *r = arg;
	struct sv_race *race = r->race;

	r->ret = exec_use_service(race->ctx, &sv_keys[0], sv_create,
				  &race->spec[r->idx], &r->svc);
	return 0;
}

/*
 * SV_RACERS threads miss the lookup together (each create function waits
 * until all have arrived): every create function runs, exactly one service
 * is added and returned to all, the others are shut down and destroyed.
 */
static void service_racing_use_creates_exactly_one(struct kunit *test)
{
	struct sv_racer *racers;
	struct sv_race *race;
	struct sv_log *log;
	int round, i, joined;

	racers = kunit_kzalloc(test, SV_RACERS * sizeof(*racers), GFP_KERNEL);
	race = kunit_kzalloc(test, sizeof(*race), GFP_KERNEL);
	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, racers);
	KUNIT_ASSERT_NOT_NULL(test, race);
	KUNIT_ASSERT_NOT_NULL(test, log);

	for (round = 0; round < SV_RACE_ROUNDS; round++) {
		struct exec_service *winner;

		sv_log_init(log);
		atomic_set(&race->arrived, 0);
		KUNIT_ASSERT_EQ(test, exec_context_create(&race->ctx), 0);
		for (i = 0; i < SV_RACERS; i++) {
			sv_spec_init(&race->spec[i], log, 0, i + 1);
			race->spec[i].arrived = &race->arrived;
			race->spec[i].racers = SV_RACERS;
			racers[i].race = race;
			racers[i].idx = i;
			racers[i].ret = 1;
			racers[i].svc = NULL;
		}
		for (i = 0; i < SV_RACERS; i++)
			KUNIT_ASSERT_EQ(test,
					exec_test_thread_start(&racers[i].thread,
							       sv_racer_fn,
							       &racers[i],
							       "sv-racer"), 0);
		joined = 0;
		for (i = 0; i < SV_RACERS; i++)
			joined += exec_test_thread_join(&racers[i].thread,
							EXEC_TEST_TIMEOUT_MS);
		/* A racer that never returned still uses the context. */
		KUNIT_ASSERT_EQ(test, joined, SV_RACERS);

		winner = exec_find_service(race->ctx, &sv_keys[0]);
		KUNIT_ASSERT_NOT_NULL(test, winner);
		for (i = 0; i < SV_RACERS; i++) {
			KUNIT_EXPECT_EQ(test, racers[i].ret, 0);
			KUNIT_EXPECT_PTR_EQ(test, racers[i].svc, winner);
		}
		KUNIT_EXPECT_EQ(test, atomic_read(&log->creates), SV_RACERS);
		/* Each loser: shut down and destroyed, nothing else. */
		KUNIT_EXPECT_EQ(test, atomic_read(&log->shutdowns),
				SV_RACERS - 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&log->destroys),
				SV_RACERS - 1);
		KUNIT_EXPECT_EQ(test, exec_context_destroy(race->ctx), 1L);
		KUNIT_EXPECT_EQ(test, atomic_read(&log->shutdowns), SV_RACERS);
		KUNIT_EXPECT_EQ(test, atomic_read(&log->destroys), SV_RACERS);
	}
}

static void service_null_arguments_einval(struct kunit *test)
{
	struct exec_service *s = (struct exec_service *)&s;
	struct exec_context *ctx;
	struct exec_service bad;
	struct sv_spec spec;
	struct sv_log log;

	sv_log_init(&log);
	sv_spec_init(&spec, &log, 0, 1);
	KUNIT_EXPECT_EQ(test, exec_context_create(NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);

	KUNIT_EXPECT_EQ(test, exec_use_service(NULL, &sv_keys[0], sv_create,
					       &spec, &s), -EINVAL);
	KUNIT_EXPECT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, NULL, sv_create, &spec,
					       &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], NULL, &spec,
					       &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_make_service(NULL, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, NULL), -EINVAL);
	exec_service_init(&bad, NULL, &sv_ops);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &bad), -EINVAL);
	exec_service_init(&bad, &sv_keys[0], NULL);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &bad), -EINVAL);
	exec_service_init(&bad, &sv_keys[0], &sv_ops_no_destroy);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &bad), -EINVAL);
	KUNIT_EXPECT_FALSE(test, exec_has_service(NULL, &sv_keys[0]));
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, NULL));
	KUNIT_EXPECT_NULL(test, exec_find_service(NULL, &sv_keys[0]));
	KUNIT_EXPECT_NULL(test, exec_find_service(ctx, NULL));
	KUNIT_EXPECT_NULL(test, exec_service_context(NULL));
	KUNIT_EXPECT_NULL(test, exec_executor_context(NULL));
	KUNIT_EXPECT_EQ(test, exec_context_shutdown(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_context_destroy(NULL), -EINVAL);

	/* A service without destroy operation: refused, left alone. */
	spec.no_destroy = true;
	KUNIT_EXPECT_EQ(test, exec_use_service(ctx, &sv_keys[0], sv_create,
					       &spec, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.n), 0);
	KUNIT_ASSERT_NOT_NULL(test, spec.made);
	KUNIT_EXPECT_NULL(test, exec_service_context(spec.made));
	kfree(to_tsvc(spec.made));
	KUNIT_EXPECT_FALSE(test, exec_has_service(ctx, &sv_keys[0]));
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 0L);
}

/* notify_fork events: SV_FORK + 100 * event + id. */
#define SV_FORK		300

static void sv_notify_fork(struct exec_service *svc, enum exec_fork_event ev)
{
	struct tsvc *t = to_tsvc(svc);

	sv_log_add(t->log, SV_FORK + 100 * (int)ev + t->id);
}

static const struct exec_service_ops sv_fork_ops = {
	.shutdown = sv_shutdown,
	.destroy = sv_destroy,
	.notify_fork = sv_notify_fork,
};

static const struct exec_service_key sv_fork_key = { .name = "sv-fork" };

/*
 * P0113 notify_fork(): "If e == fork_event::prepare, performs
 * svc->notify_fork(e) in reverse order of addition to the set.  Otherwise,
 * performs svc->notify_fork(e) in order of addition to the set."  A
 * service without the operation is skipped; one added between two events
 * gets the later ones; services shut down and not yet destroyed are
 * called; bad input calls nobody.
 */
static void service_notify_fork_order(struct kunit *test)
{
	static const int order[] = {
		SV_FORK + 4, SV_FORK + 2, SV_FORK + 1,		/* prepare */
		SV_FORK + 101, SV_FORK + 102, SV_FORK + 104,	/* parent */
		SV_FORK + 201, SV_FORK + 202, SV_FORK + 204,	/* child */
		SV_FORK + 201, SV_FORK + 202, SV_FORK + 204, SV_FORK + 205,
		SV_FORK + 5, SV_FORK + 4, SV_FORK + 2, SV_FORK + 1,
		SV_SHUTDOWN + 5, SV_SHUTDOWN + 4, SV_SHUTDOWN + 3,
		SV_SHUTDOWN + 2, SV_SHUTDOWN + 1,
		SV_FORK + 101, SV_FORK + 102, SV_FORK + 104, SV_FORK + 105,
		SV_DESTROY + 5, SV_DESTROY + 4, SV_DESTROY + 3,
		SV_DESTROY + 2, SV_DESTROY + 1,
	};
	enum exec_fork_event bad;
	struct exec_context *ctx;
	struct tsvc *t[5];
	struct sv_log log;
	int i;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_context_create(&ctx), 0);
	for (i = 0; i < 5; i++) {
		t[i] = kzalloc(sizeof(*t[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t[i]);
		/* Service 3 has no notify_fork operation. */
		exec_service_init(&t[i]->svc, i < 4 ? &sv_keys[i] : &sv_fork_key,
				  i == 2 ? &sv_ops : &sv_fork_ops);
		t[i]->log = &log;
		t[i]->id = i + 1;
	}
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &t[i]->svc), 0);

	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_PREPARE),
			0);
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_PARENT),
			0);
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_CHILD),
			0);
	KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &t[4]->svc), 0);
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_CHILD),
			0);
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_PREPARE),
			0);

	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(NULL, EXEC_FORK_CHILD),
			-EINVAL);
	bad = (enum exec_fork_event)3;
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, bad), -EINVAL);

	KUNIT_EXPECT_EQ(test, exec_context_shutdown(ctx), 0);
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_PARENT),
			0);
	KUNIT_EXPECT_EQ(test, exec_context_destroy(ctx), 5L);
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
}

/*
 * An executor's context is notified as a stand-alone one, and a serial
 * executor's is its underlying executor's: the same services.
 */
static void service_notify_fork_executor_context(struct kunit *test)
{
	static const int order[] = {
		SV_FORK + 2, SV_FORK + 1, SV_FORK + 101, SV_FORK + 102,
	};
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_serial *serial;
	struct exec_context *ctx;
	struct exec_executor *ex;
	struct sv_log log;
	struct tsvc *t[2];
	int i;

	sv_log_init(&log);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, ex), 0);
	ctx = exec_executor_context(ex);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	for (i = 0; i < 2; i++) {
		t[i] = kzalloc(sizeof(*t[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t[i]);
		exec_service_init(&t[i]->svc, &sv_keys[i], &sv_fork_ops);
		t[i]->log = &log;
		t[i]->id = i + 1;
		KUNIT_EXPECT_EQ(test, exec_make_service(ctx, &t[i]->svc), 0);
	}
	ctx = exec_executor_context(exec_serial_executor(serial));
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_PREPARE),
			0);
	KUNIT_EXPECT_EQ(test, exec_context_notify_fork(ctx, EXEC_FORK_PARENT),
			0);
	sv_expect_log(test, &log, order, ARRAY_SIZE(order));
	KUNIT_EXPECT_EQ(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.destroys), 2);
}

static struct kunit_case exec_service_cases[] = {
	KUNIT_CASE(service_make_has_find_on_standalone_context),
	KUNIT_CASE(service_use_creates_once_and_returns_same),
	KUNIT_CASE(service_nested_use_from_create_function),
	KUNIT_CASE(service_make_existing_key_eexist),
	KUNIT_CASE(service_shutdown_then_destroy_reverse_order),
	KUNIT_CASE(service_use_make_after_shutdown_eshutdown),
	KUNIT_CASE(service_created_during_shutdown_is_discarded),
	KUNIT_CASE(service_use_own_key_from_create_edeadlk),
	KUNIT_CASE(service_create_function_errors),
	KUNIT_CASE(service_thread_pool_context_goes_with_pool),
	KUNIT_CASE(service_loop_context_goes_with_loop),
	KUNIT_CASE(service_thread_per_task_context_goes_with_it),
	KUNIT_CASE(service_executors_have_contexts_of_their_own),
	KUNIT_CASE(service_serial_reports_underlying_context),
	KUNIT_CASE(service_priority_reports_underlying_context),
	KUNIT_CASE(service_racing_use_creates_exactly_one),
	KUNIT_CASE(service_null_arguments_einval),
	KUNIT_CASE(service_notify_fork_order),
	KUNIT_CASE(service_notify_fork_executor_context),
	{}
};

static struct kunit_suite exec_service_suite = {
	.name = "exec-service",
	.test_cases = exec_service_cases,
};

kunit_test_suites(&exec_service_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The record cache (core/executor.c) serves every per-call item of the
 * group and future paths: once the caller's cache is warm, a group's
 * closure, a spawn, a handler's operation, a spawned future and a chained
 * future allocate nothing.  The core's allocation fault point, armed to
 * fail the next allocation, never fires during such a call.
 *
 * The kernel's cache is the CPU's, and a test thread may move between the
 * warm-up and the call: each case warms the cache and tries again, a few
 * times; a path that allocates on every call fails every try.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "exec_test.h"

/* Tries of warm-up and call, for a thread that changes CPU between them. */
#define RC_TRIES	20
/* Calls that warm the cache before the one under the fault point. */
#define RC_WARM		4

struct rc_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct exec_group *group;
	struct exec_handler handler;
	atomic_t done;
};

typedef int (*rc_call_fn)(struct rc_fx *fx);

static void rc_fn(void *arg)
{
	atomic_inc(&((struct rc_fx *)arg)->done);
}

static long rc_task(void *arg)
{
	return 7;
}

static void rc_result(void *arg, long result)
{
	if (result == 7)
		atomic_inc(&((struct rc_fx *)arg)->done);
}

static long rc_then(void *arg, long result)
{
	return result + 1;
}

/* Waits until the call's item has run: @done reaches @target. */
static int rc_wait_done(struct rc_fx *fx, int target)
{
	return exec_test_wait_atomic_ge(&fx->done, target,
					EXEC_TEST_TIMEOUT_MS) ? 0 : -ETIMEDOUT;
}

static int rc_group_fn(struct rc_fx *fx)
{
	int ret = exec_group_submit_fn(fx->group, fx->ex, rc_fn, NULL, fx);

	if (ret)
		return ret;
	return exec_group_wait(fx->group, (u64)EXEC_TEST_TIMEOUT_MS *
					  NSEC_PER_MSEC);
}

static int rc_spawn(struct rc_fx *fx)
{
	int target = atomic_read(&fx->done) + 1;
	int ret = exec_spawn(fx->ex, rc_task, NULL, rc_result, fx);

	return ret ? ret : rc_wait_done(fx, target);
}

static int rc_handler(struct rc_fx *fx)
{
	int target = atomic_read(&fx->done) + 1;
	int ret = exec_handler_complete(&fx->handler, NULL, 7);

	return ret ? ret : rc_wait_done(fx, target);
}

static int rc_spawn_future(struct rc_fx *fx)
{
	struct exec_future *fut;
	long result = 0;
	int ret;

	ret = exec_spawn_future(&fut, fx->ex, rc_task, NULL);
	if (ret)
		return ret;
	ret = exec_future_wait(fut, (u64)EXEC_TEST_TIMEOUT_MS * NSEC_PER_MSEC,
			       &result);
	exec_future_put(fut);
	if (!ret && result != 7)
		ret = -EIO;
	return ret;
}

static int rc_then_future(struct rc_fx *fx)
{
	struct exec_future *first, *next;
	long result = 0;
	int ret;

	ret = exec_future_create(&first);
	if (ret)
		return ret;
	ret = exec_future_then_future(&next, first, fx->ex, rc_then, NULL);
	if (ret)
		goto out_put_first;
	ret = exec_future_complete(first, 7);
	if (!ret)
		ret = exec_future_wait(next, (u64)EXEC_TEST_TIMEOUT_MS *
					     NSEC_PER_MSEC, &result);
	if (!ret && result != 8)
		ret = -EIO;
	exec_future_put(next);
out_put_first:
	exec_future_put(first);
	return ret;
}

static void rc_fx_init(struct kunit *test, struct rc_fx *fx)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };

	memset(fx, 0, sizeof(*fx));
	fx->test = test;
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool, &attr), 0);
	fx->ex = exec_thread_pool_executor(fx->pool);
	KUNIT_ASSERT_EQ(test, exec_group_create(&fx->group), 0);
	KUNIT_ASSERT_EQ(test, exec_bind_executor(&fx->handler, fx->ex,
						 rc_result, fx), 0);
}

static void rc_fx_fini(struct rc_fx *fx)
{
	struct kunit *test = fx->test;

	KUNIT_EXPECT_EQ(test, exec_handler_unbind(&fx->handler), 0);
	KUNIT_EXPECT_EQ(test, exec_group_destroy(fx->group), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0L);
}

/*
 * Warms the caller's cache with @call, then makes one more call with the
 * fault point armed; true once such a call succeeds without an allocation.
 */
static bool rc_warm_call_allocates_nothing(struct rc_fx *fx, rc_call_fn call)
{
	struct kunit *test = fx->test;
	unsigned int try, i;
	bool fired;
	int ret;

	for (try = 0; try < RC_TRIES; try++) {
		for (i = 0; i < RC_WARM; i++)
			KUNIT_ASSERT_EQ(test, call(fx), 0);
		exec_fault_inject_alloc(0);
		ret = call(fx);
		fired = exec_fault_alloc_fired();
		exec_fault_inject_alloc(-1);
		KUNIT_EXPECT_TRUE(test, ret == 0 || (fired && ret == -ENOMEM));
		if (!ret && !fired)
			return true;
	}
	return false;
}

static void rc_case(struct kunit *test, rc_call_fn call)
{
	struct rc_fx fx;

	rc_fx_init(test, &fx);
	KUNIT_EXPECT_TRUE(test, rc_warm_call_allocates_nothing(&fx, call));
	rc_fx_fini(&fx);
}

static void record_cache_group_submit_fn_allocates_nothing(struct kunit *test)
{
	rc_case(test, rc_group_fn);
}

static void record_cache_spawn_allocates_nothing(struct kunit *test)
{
	rc_case(test, rc_spawn);
}

static void record_cache_handler_complete_allocates_nothing(struct kunit *test)
{
	rc_case(test, rc_handler);
}

static void record_cache_spawn_future_allocates_nothing(struct kunit *test)
{
	rc_case(test, rc_spawn_future);
}

static void record_cache_then_future_allocates_nothing(struct kunit *test)
{
	rc_case(test, rc_then_future);
}

/*
 * A record that a long-lived owner keeps (futures held across many calls)
 * is skipped by the cursor, and the calls meanwhile still reuse the slots
 * around it: the cache does not grow by one chunk per held record.
 */
static void record_cache_held_records_are_skipped(struct kunit *test)
{
	struct exec_future *held[8];
	unsigned long before;
	struct rc_fx fx;
	unsigned int i;

	rc_fx_init(test, &fx);
	for (i = 0; i < ARRAY_SIZE(held); i++) {
		KUNIT_ASSERT_EQ(test, exec_future_create(&held[i]), 0);
		KUNIT_ASSERT_EQ(test, rc_spawn(&fx), 0);
	}
	before = exec_closures_allocated();
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, rc_spawn_future(&fx), 0);
	/* Each CPU's cache may add a chunk for itself. */
	KUNIT_EXPECT_LE(test, exec_closures_allocated() - before,
			2UL * EXEC_CLOSURES_PER_CHUNK * exec_cpu_ids());
	for (i = 0; i < ARRAY_SIZE(held); i++) {
		KUNIT_EXPECT_EQ(test, exec_future_complete(held[i], 1), 0);
		exec_future_put(held[i]);
	}
	rc_fx_fini(&fx);
}

/* A record of @size, warm: true once one comes without an allocation. */
static bool rc_warm_record(struct kunit *test, size_t size)
{
	unsigned int try, i;
	void *rec;
	bool fired;

	for (try = 0; try < RC_TRIES; try++) {
		for (i = 0; i < RC_WARM; i++) {
			rec = exec_record_alloc(size, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, rec);
			memset(rec, 0x5a, size);
			exec_record_free(rec);
		}
		exec_fault_inject_alloc(0);
		rec = exec_record_alloc(size, GFP_KERNEL);
		fired = exec_fault_alloc_fired();
		exec_fault_inject_alloc(-1);
		if (rec)
			exec_record_free(rec);
		if (rec && !fired)
			return true;
	}
	return false;
}

/*
 * Each size class (one to eight lines, less the record's head) is reused
 * warm; a record larger than the largest comes from the allocator each
 * time, and exec_record_free() gives it back there.
 */
static void record_cache_every_class_is_reused(struct kunit *test)
{
	static const size_t sizes[] = { 56, 120, 248, 504 };
	unsigned int i;
	void *rec;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		KUNIT_EXPECT_TRUE(test, rc_warm_record(test, sizes[i]));
	rec = exec_record_alloc(1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	memset(rec, 0x5a, 1024);
	exec_record_free(rec);
	exec_fault_inject_alloc(0);
	rec = exec_record_alloc(1024, GFP_KERNEL);
	KUNIT_EXPECT_TRUE(test, exec_fault_alloc_fired());
	exec_fault_inject_alloc(-1);
	KUNIT_EXPECT_NULL(test, rec);
	if (rec)
		exec_record_free(rec);
	rec = exec_record_zalloc(1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_EXPECT_EQ(test, ((unsigned char *)rec)[1023], 0);
	exec_record_free(rec);
}

static struct kunit_case exec_record_cache_cases[] = {
	KUNIT_CASE(record_cache_every_class_is_reused),
	KUNIT_CASE(record_cache_group_submit_fn_allocates_nothing),
	KUNIT_CASE(record_cache_spawn_allocates_nothing),
	KUNIT_CASE(record_cache_handler_complete_allocates_nothing),
	KUNIT_CASE(record_cache_spawn_future_allocates_nothing),
	KUNIT_CASE(record_cache_then_future_allocates_nothing),
	KUNIT_CASE(record_cache_held_records_are_skipped),
	{}
};

static struct kunit_suite exec_record_cache_suite = {
	.name = "exec-record-cache",
	.test_cases = exec_record_cache_cases,
};

kunit_test_suite(exec_record_cache_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: an I/O handler bound to an executor built on another (a
 * serial executor, a priority executor, a managed queue), over a thread
 * pool and over a loop scheduler.  The pending operation's unit of
 * outstanding work on the adapter (<exec/io.h>) reaches the pool or the
 * scheduler beneath it: exec_thread_pool_join() and the scheduler's run
 * wait for the operation, and its handler runs on the adapter with its
 * result.  The cases of the other operations are tests/outstanding_test.c.
 */
#include <kunit/test.h>
#include <exec/exec.h>
#include <exec/io.h>

#include "platform.h"
#include "exec_test.h"

#include <fcntl.h>
#include <unistd.h>

/* How long to wait for what should have come when the case failed early. */
#define OIO_SHORT_MS	500U

enum oio_base { OIO_POOL, OIO_LS };
enum oio_kind { OIO_SERIAL, OIO_PRIORITY, OIO_MQ };

struct oio_fx {
	struct kunit *test;
	struct exec_thread_pool *pool;
	struct exec_loop_scheduler *ls;
	struct exec_executor *under;
	struct exec_serial *serial;
	struct exec_priority *prio;
	struct exec_managed_queue *mq;
	struct exec_executor *ex;
	struct exec_io *io;
	struct exec_test_thread ender;
	struct exec_io_op op;
	char buf[8];
	atomic_t calls;
	atomic_t elsewhere;
	long result;
};

static int oio_ender_fn(void *arg)
{
	struct oio_fx *fx = arg;

	if (fx->pool)
		return exec_thread_pool_join(fx->pool);
	return (int)exec_loop_scheduler_run(fx->ls);
}

static void oio_handler(void *arg, long result)
{
	struct oio_fx *fx = arg;

	if (!exec_running_in_this_thread(fx->ex))
		exec_test_count(&fx->elsewhere);
	WRITE_ONCE(fx->result, result);
	exec_test_count(&fx->calls);
}

static void oio_create(struct kunit *test, struct oio_fx *fx,
		       enum oio_base base, enum oio_kind kind)
{
	struct exec_thread_pool_attr pattr = { .nr_threads = 2 };
	struct exec_io_attr attr = { 0 };

	fx->test = test;
	if (base == OIO_POOL) {
		KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&fx->pool,
							      &pattr), 0);
		fx->under = exec_thread_pool_executor(fx->pool);
	} else {
		KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&fx->ls), 0);
		fx->under = exec_loop_scheduler_executor(fx->ls);
	}
	switch (kind) {
	case OIO_SERIAL:
		KUNIT_ASSERT_EQ(test, exec_serial_create(&fx->serial,
							 fx->under), 0);
		fx->ex = exec_serial_executor(fx->serial);
		break;
	case OIO_PRIORITY:
		KUNIT_ASSERT_EQ(test, exec_priority_create(&fx->prio,
							   fx->under, NULL),
				0);
		fx->ex = exec_priority_executor(fx->prio);
		break;
	default:
		KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&fx->mq,
								fx->under,
								NULL), 0);
		fx->ex = exec_managed_queue_executor(fx->mq);
		break;
	}
	/* Handlers without an executor of their own would run beneath. */
	attr.executor = fx->under;
	KUNIT_ASSERT_EQ(test, exec_io_create(&fx->io, &attr), 0);
	exec_io_op_init(&fx->op);
}

/*
 * A read on an empty pipe, its handler bound to the adapter; the join or
 * run begins; the write that completes the read comes later.
 */
static void oio_read(struct kunit *test, enum oio_base base,
		     enum oio_kind kind)
{
	struct exec_handler h;
	struct oio_fx *fx;
	bool held, ended;
	int p[2];

	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx);
	oio_create(test, fx, base, kind);
	KUNIT_ASSERT_EQ(test, pipe2(p, O_CLOEXEC), 0);
	exec_handler_init(&h, oio_handler, fx);
	h.ex = fx->ex;
	KUNIT_EXPECT_EQ(test, exec_io_read(fx->io, &fx->op, p[0], fx->buf,
					   sizeof(fx->buf), (uint64_t)-1, &h),
			0);
	KUNIT_ASSERT_EQ(test, exec_test_thread_start(&fx->ender, oio_ender_fn,
						     fx, "exec-oio-end"), 0);
	msleep(EXEC_TEST_SETTLE_MS);
	held = !exec_test_thread_done(&fx->ender);
	KUNIT_EXPECT_TRUE_MSG(test, held,
			      "%s over %s: returned with a read pending",
			      exec_executor_kind(fx->ex),
			      exec_executor_kind(fx->under));
	KUNIT_EXPECT_EQ(test, write(p[1], "hello", 5), 5);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->calls, 1,
			  held ? EXEC_TEST_TIMEOUT_MS : OIO_SHORT_MS));
	KUNIT_EXPECT_EQ(test, READ_ONCE(fx->result), 5L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->elsewhere), 0);
	KUNIT_EXPECT_EQ(test, memcmp(fx->buf, "hello", 5), 0);

	ended = exec_test_thread_join(&fx->ender, held ? EXEC_TEST_TIMEOUT_MS :
							 OIO_SHORT_MS);
	KUNIT_EXPECT_TRUE(test, ended);
	if (!ended) {
		if (fx->pool)
			exec_thread_pool_stop(fx->pool);
		else
			exec_loop_scheduler_stop(fx->ls);
		KUNIT_ASSERT_TRUE(test, exec_test_thread_join(&fx->ender,
						EXEC_TEST_TIMEOUT_MS));
	}
	/* The scheduler's run ran the handler, through the adapter. */
	if (fx->ls && held)
		KUNIT_EXPECT_GE(test, fx->ender.ret, 1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->calls), 1);
	KUNIT_EXPECT_EQ(test, exec_io_destroy(fx->io), 0L);
	close(p[0]);
	close(p[1]);
	/* The handler's unit is gone once the join or run has ended. */
	if (fx->serial)
		KUNIT_EXPECT_EQ(test, exec_serial_destroy(fx->serial), 0L);
	else if (fx->prio)
		KUNIT_EXPECT_EQ(test, exec_priority_destroy(fx->prio), 0L);
	else
		KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(fx->mq), 0L);
	if (fx->pool)
		KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(fx->pool), 0L);
	else
		KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(fx->ls), 0L);
	kfree(fx);
}

static void outstanding_io_serial_pool(struct kunit *test)
{
	oio_read(test, OIO_POOL, OIO_SERIAL);
}

static void outstanding_io_serial_ls(struct kunit *test)
{
	oio_read(test, OIO_LS, OIO_SERIAL);
}

static void outstanding_io_priority_pool(struct kunit *test)
{
	oio_read(test, OIO_POOL, OIO_PRIORITY);
}

static void outstanding_io_priority_ls(struct kunit *test)
{
	oio_read(test, OIO_LS, OIO_PRIORITY);
}

static void outstanding_io_mq_pool(struct kunit *test)
{
	oio_read(test, OIO_POOL, OIO_MQ);
}

static void outstanding_io_mq_ls(struct kunit *test)
{
	oio_read(test, OIO_LS, OIO_MQ);
}

static struct kunit_case exec_outstanding_io_cases[] = {
	KUNIT_CASE(outstanding_io_serial_pool),
	KUNIT_CASE(outstanding_io_serial_ls),
	KUNIT_CASE(outstanding_io_priority_pool),
	KUNIT_CASE(outstanding_io_priority_ls),
	KUNIT_CASE(outstanding_io_mq_pool),
	KUNIT_CASE(outstanding_io_mq_ls),
	{}
};

static struct kunit_suite exec_outstanding_io_suite = {
	.name = "exec-outstanding-io",
	.test_cases = exec_outstanding_io_cases,
};

kunit_test_suites(&exec_outstanding_io_suite);

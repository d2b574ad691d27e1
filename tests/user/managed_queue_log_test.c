// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: the managed queue's time limit report and the stall
 * watchdog's report reach the application's log callback
 * (exec_user_set_log()) in the format the kernel prints.
 */
#include <kunit/test.h>
#include <exec/exec.h>
#include <exec/user.h>

#include "platform.h"
#include "exec_test.h"

struct mq_log {
	pthread_mutex_t lock;
	char msg[256];
	atomic_t count;
	struct exec_test_gate gate;
	struct exec_work work;
};

static void mq_log_fn(int level, const char *msg, void *arg)
{
	struct mq_log *log = arg;

	if (!strstr(msg, "queue \"mq-log\""))
		return;
	pthread_mutex_lock(&log->lock);
	snprintf(log->msg, sizeof(log->msg), "%s", msg);
	pthread_mutex_unlock(&log->lock);
	exec_test_count(&log->count);
}

static void mq_log_item(struct exec_work *work)
{
	struct mq_log *log = container_of(work, struct mq_log, work);

	exec_test_gate_pass(&log->gate);
}

static void mq_log_gate_fn(void *arg)
{
	exec_test_gate_pass(&((struct mq_log *)arg)->gate);
}

static void mq_log_report_reaches_the_callback(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.name = "mq-log",
		.time_limit_ns = 20ULL * 1000 * 1000,
	};
	static struct mq_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct exec_managed_queue *q;
	struct exec_thread_pool *pool;

	atomic_set(&log.count, 0);
	exec_test_gate_init(&log.gate);
	exec_work_init(&log.work, mq_log_item);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q,
				exec_thread_pool_executor(pool), &attr), 0);
	exec_user_set_log(mq_log_fn, &log);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_managed_queue_executor(q),
					  &log.work), 0);
	/* Reported while it is still stuck at the gate. */
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&log.count, 1,
							 EXEC_TEST_TIMEOUT_MS));
	exec_test_gate_open(&log.gate);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_wait_until_complete(q), 0);
	exec_user_set_log(NULL, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.count), 1);
	pthread_mutex_lock(&log.lock);
	KUNIT_EXPECT_EQ(test, strncmp(log.msg, "exec: queue \"mq-log\": item ",
				      27), 0);
	KUNIT_EXPECT_TRUE(test, strstr(log.msg, " ran for ") != NULL);
	KUNIT_EXPECT_TRUE(test, strstr(log.msg, "(limit 20 ms)") != NULL);
	pthread_mutex_unlock(&log.lock);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static void wd_log_fn(int level, const char *msg, void *arg)
{
	struct mq_log *log = arg;

	if (!strstr(msg, "pool \"wd-log\""))
		return;
	pthread_mutex_lock(&log->lock);
	snprintf(log->msg, sizeof(log->msg), "%s", msg);
	pthread_mutex_unlock(&log->lock);
	exec_test_count(&log->count);
}

static void wd_log_report_reaches_the_callback(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 1,
		.thread = { .name = "wd-log" },
	};
	static struct mq_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	u64 old = exec_watchdog_thresh();
	struct exec_thread_pool *pool;

	atomic_set(&log.count, 0);
	exec_test_gate_init(&log.gate);
	exec_work_init(&log.work, mq_log_item);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	exec_user_set_log(wd_log_fn, &log);
	KUNIT_ASSERT_EQ(test, exec_watchdog_set(20ULL * 1000 * 1000), 0);
	KUNIT_EXPECT_EQ(test, exec_submit(exec_thread_pool_executor(pool),
					  &log.work), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&log.count, 1,
							 EXEC_TEST_TIMEOUT_MS));
	exec_test_gate_open(&log.gate);
	KUNIT_EXPECT_EQ(test, exec_watchdog_set(old), 0);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	exec_user_set_log(NULL, NULL);
	pthread_mutex_lock(&log.lock);
	/* The item's name as %ps prints it, or its address without one. */
	KUNIT_EXPECT_EQ(test, strncmp(log.msg, "exec: pool \"wd-log\": item ",
				      26), 0);
	KUNIT_EXPECT_TRUE(test, strstr(log.msg, " ran for ") != NULL);
	KUNIT_EXPECT_TRUE(test, strstr(log.msg,
				       "(threshold 20 ms), still running"));
	pthread_mutex_unlock(&log.lock);
}

/* The process's threads, from /proc/self/status; -1 if unreadable. */
static long mq_nr_threads(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

#define MQ_TIMED_QUEUES	8

/*
 * Time limits are served by the stall watchdog's one device: managed
 * queues with a time limit start no thread of their own (the first may
 * start the shared device's), and each queue's stuck item is reported.
 */
static void mq_time_limits_share_one_device(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.name = "mq-log",
		.time_limit_ns = 20ULL * 1000 * 1000,
	};
	static struct mq_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct exec_managed_queue *q[MQ_TIMED_QUEUES];
	struct exec_thread_pool_attr pattr = {
		.nr_threads = MQ_TIMED_QUEUES,
	};
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	long before;
	int i;

	atomic_set(&log.count, 0);
	exec_test_gate_init(&log.gate);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &pattr), 0);
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q[0],
				exec_thread_pool_executor(pool), &attr), 0);
	before = mq_nr_threads();
	KUNIT_ASSERT_GT(test, before, 0L);
	for (i = 1; i < MQ_TIMED_QUEUES; i++)
		KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q[i],
					exec_thread_pool_executor(pool),
					&attr), 0);
	KUNIT_EXPECT_EQ(test, mq_nr_threads(), before);

	/* One item each, held at the gate past the limit: reported, each. */
	exec_user_set_log(mq_log_fn, &log);
	for (i = 0; i < MQ_TIMED_QUEUES; i++) {
		ex = exec_managed_queue_executor(q[i]);
		KUNIT_EXPECT_EQ(test, exec_submit_fn(ex, mq_log_gate_fn, &log),
				0);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&log.count,
							 MQ_TIMED_QUEUES,
							 EXEC_TEST_TIMEOUT_MS));
	exec_test_gate_open(&log.gate);
	for (i = 0; i < MQ_TIMED_QUEUES; i++) {
		KUNIT_EXPECT_EQ(test,
				exec_managed_queue_wait_until_complete(q[i]), 0);
		KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q[i]), 0L);
	}
	exec_user_set_log(NULL, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&log.count), MQ_TIMED_QUEUES);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static struct kunit_case exec_managed_queue_log_cases[] = {
	KUNIT_CASE(mq_log_report_reaches_the_callback),
	KUNIT_CASE(mq_time_limits_share_one_device),
	KUNIT_CASE(wd_log_report_reaches_the_callback),
	{}
};

static struct kunit_suite exec_managed_queue_log_suite = {
	.name = "exec-managed-queue-log",
	.test_cases = exec_managed_queue_log_cases,
};

kunit_test_suites(&exec_managed_queue_log_suite);

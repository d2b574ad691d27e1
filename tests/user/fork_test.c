// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: a process that forks after it has used the library, as a
 * daemon does (user/init.c's pthread_atfork() handlers).  The parent uses
 * the default executor, timed items, a pool of its own and an I/O context,
 * some of them still busy across the fork; the child submits to the
 * default executor, arms timed items, creates a pool and an I/O context and
 * runs an I/O operation on a pipe; the parent goes on after the fork.  One
 * case forks again and again while other threads use the library, so that
 * the library's locks are held at random moments.
 *
 * A child reports through its exit status, 0 or the number of the step
 * that failed (fork_steps[]), and is killed when it overruns
 * FORK_CHILD_TIMEOUT_MS: a hung child fails the case instead of hanging
 * the run.  A child does nothing of KUnit's: the case's state is the
 * parent's.
 *
 * ThreadSanitizer cannot follow a threaded process's child that starts
 * threads (it stops it: "starting new threads after multi-threaded fork
 * is not supported", and with die_after_fork=0 "dup thread with used id"
 * at the first pthread_create()), so under it a child exits at once and
 * only the parent's side is checked: the handlers' locking against the
 * other threads, and the parent's work across the fork.
 */
#include <kunit/test.h>
#include <exec/exec.h>
#include <exec/io.h>
#include <exec/user.h>

#include "platform.h"
#include "exec_test.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define FORK_CHILD_RUNS		false
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FORK_CHILD_RUNS		false
#endif
#endif
#ifndef FORK_CHILD_RUNS
#define FORK_CHILD_RUNS		true
#endif

/*
 * AddressSanitizer's runtime (GCC 12's libasan) keeps a thread registry
 * under a lock of its own that no fork handler takes: a child forked while
 * another thread of the parent creates or ends a thread can inherit it
 * held, and then hangs in its first pthread_create() (seen in the case
 * below, with the child's stack in the runtime's ThreadRegistry::Lock()).
 * There, the children of the case whose parent threads keep starting
 * executors do nothing.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FORK_BUSY_CHILD_RUNS	false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORK_BUSY_CHILD_RUNS	false
#endif
#endif
#ifndef FORK_BUSY_CHILD_RUNS
#define FORK_BUSY_CHILD_RUNS	FORK_CHILD_RUNS
#endif

#define FORK_CHILD_TIMEOUT_MS	30000U
#define FORK_ITEMS		64
#define FORK_REPEAT		12

enum fork_step {
	FORK_OK,
	FORK_DEFAULT_SAME,
	FORK_DEFAULT_SUBMIT,
	FORK_DEFAULT_RUN,
	FORK_DEFAULT_TIMER,
	FORK_POOL_CREATE,
	FORK_POOL_RUN,
	FORK_POOL_TIMER,
	FORK_POOL_PERIODIC,
	FORK_IO_CREATE,
	FORK_IO_START,
	FORK_IO_RUN,
	FORK_SET_DEFAULT,
	FORK_POOL_DESTROY,
	FORK_WARNING,
	FORK_STEPS
};

static const char *const fork_steps[FORK_STEPS] = {
	[FORK_OK] = "none",
	[FORK_DEFAULT_SAME] = "the parent's default executor in the child",
	[FORK_DEFAULT_SUBMIT] = "submission to the default executor",
	[FORK_DEFAULT_RUN] = "items of the default executor ran",
	[FORK_DEFAULT_TIMER] = "a timed item on the default executor",
	[FORK_POOL_CREATE] = "a new pool",
	[FORK_POOL_RUN] = "items of the new pool ran",
	[FORK_POOL_TIMER] = "a timed item on the new pool",
	[FORK_POOL_PERIODIC] = "a periodic item on the new pool",
	[FORK_IO_CREATE] = "a new I/O context",
	[FORK_IO_START] = "a read and a write on a pipe started",
	[FORK_IO_RUN] = "the read and the write completed",
	[FORK_SET_DEFAULT] = "exec_set_default_executor()",
	[FORK_POOL_DESTROY] = "the new pool's destroy",
	[FORK_WARNING] = "a warning of the library",
};

static atomic_t fork_warnings;

static void fork_log(int level, const char *msg, void *arg)
{
	if (level <= EXEC_USER_LOG_WARNING)
		atomic_inc(&fork_warnings);
}

static void fork_count_fn(void *arg)
{
	exec_test_count(arg);
}

struct fork_timer {
	struct exec_timer timer;
	atomic_t fired;
};

static void fork_timer_fn(struct exec_work *work)
{
	struct fork_timer *ft = container_of(work, struct fork_timer,
					     timer.work);

	exec_test_count(&ft->fired);
}

static void fork_timer_init(struct fork_timer *ft)
{
	exec_timer_init(&ft->timer, fork_timer_fn, NULL);
	atomic_set(&ft->fired, 0);
}

struct fork_periodic {
	struct exec_periodic periodic;
	atomic_t runs;
};

static void fork_periodic_fn(struct exec_work *work)
{
	struct fork_periodic *fp = container_of(work, struct fork_periodic,
						periodic.timer.work);

	exec_test_count(&fp->runs);
}

/* Every millisecond from one millisecond from now. */
static int fork_periodic_start(struct exec_executor *ex,
			       struct fork_periodic *fp)
{
	exec_periodic_init(&fp->periodic, fork_periodic_fn, NULL);
	atomic_set(&fp->runs, 0);
	return exec_submit_periodic(ex, &fp->periodic, EXEC_CLOCK_MONOTONIC,
				    exec_clock_now(EXEC_CLOCK_MONOTONIC) +
				    NSEC_PER_MSEC, NSEC_PER_MSEC, 0,
				    EXEC_PERIOD_FIXED_RATE);
}

struct fork_io_rec {
	struct exec_io_op op;
	atomic_t calls;
	long result;
};

static void fork_io_fn(void *arg, long result)
{
	struct fork_io_rec *r = arg;

	WRITE_ONCE(r->result, result);
	exec_test_count(&r->calls);
}

static void fork_io_rec_init(struct fork_io_rec *r, struct exec_handler *h)
{
	exec_io_op_init(&r->op);
	atomic_set(&r->calls, 0);
	r->result = 0;
	exec_handler_init(h, fork_io_fn, r);
}

/* @n items on the default executor, all run. */
static int fork_use_default(int n)
{
	atomic_t ran;
	int i;

	atomic_set(&ran, 0);
	for (i = 0; i < n; i++)
		if (exec_default_submit_fn(fork_count_fn, &ran))
			return FORK_DEFAULT_SUBMIT;
	if (!exec_test_wait_atomic_ge(&ran, n, EXEC_TEST_TIMEOUT_MS))
		return FORK_DEFAULT_RUN;
	return FORK_OK;
}

/* A timed item on @ex, fired after @delay_ns. */
static bool fork_timer_fires(struct exec_executor *ex, u64 delay_ns)
{
	struct fork_timer ft;

	fork_timer_init(&ft);
	if (exec_submit_after(ex, &ft.timer, delay_ns))
		return false;
	if (exec_test_wait_atomic_ge(&ft.fired, 1, EXEC_TEST_TIMEOUT_MS))
		return true;
	exec_timer_cancel_sync(&ft.timer);
	return false;
}

/* A write and a read on a pipe through a new I/O context. */
static int fork_use_io(void)
{
	struct fork_io_rec rd, wr;
	struct exec_handler rh, wh;
	char buf[8] = { 0 };
	struct exec_io *io;
	int p[2], ret = FORK_OK;

	if (pipe(p))
		return FORK_IO_CREATE;
	if (exec_io_create(&io, NULL)) {
		ret = FORK_IO_CREATE;
		goto out_close;
	}
	fork_io_rec_init(&rd, &rh);
	fork_io_rec_init(&wr, &wh);
	if (exec_io_read(io, &rd.op, p[0], buf, 4, (uint64_t)-1, &rh) ||
	    exec_io_write(io, &wr.op, p[1], "fork", 4, (uint64_t)-1, &wh)) {
		ret = FORK_IO_START;
	} else if (!exec_test_wait_atomic_ge(&rd.calls, 1,
					     EXEC_TEST_TIMEOUT_MS) ||
		   !exec_test_wait_atomic_ge(&wr.calls, 1,
					     EXEC_TEST_TIMEOUT_MS) ||
		   READ_ONCE(rd.result) != 4 || READ_ONCE(wr.result) != 4 ||
		   memcmp(buf, "fork", 4)) {
		ret = FORK_IO_RUN;
	}
	/* Cancels what did not complete, and waits for it. */
	exec_io_destroy(io);
out_close:
	close(p[0]);
	close(p[1]);
	return ret;
}

/* A new pool: items, a timed item, a periodic one; installed as default. */
static int fork_use_pool(void)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct fork_periodic fp;
	atomic_t ran;
	int i, ret = FORK_OK;

	if (exec_thread_pool_create(&pool, &attr))
		return FORK_POOL_CREATE;
	ex = exec_thread_pool_executor(pool);
	atomic_set(&ran, 0);
	for (i = 0; i < FORK_ITEMS; i++)
		exec_submit_fn(ex, fork_count_fn, &ran);
	if (!exec_test_wait_atomic_ge(&ran, FORK_ITEMS, EXEC_TEST_TIMEOUT_MS))
		ret = FORK_POOL_RUN;
	else if (!fork_timer_fires(ex, 2 * NSEC_PER_MSEC))
		ret = FORK_POOL_TIMER;
	if (ret)
		goto out_destroy;

	if (fork_periodic_start(ex, &fp) ||
	    !exec_test_wait_atomic_ge(&fp.runs, 3, EXEC_TEST_TIMEOUT_MS))
		ret = FORK_POOL_PERIODIC;
	exec_timer_cancel_sync(&fp.periodic.timer);
	if (ret)
		goto out_destroy;

	/* The read-side counts and the mutex of the default are the child's. */
	if (exec_set_default_executor(ex) ||
	    exec_default_executor() != ex || fork_use_default(8) ||
	    exec_set_default_executor(NULL) != ex)
		ret = FORK_SET_DEFAULT;
out_destroy:
	if (exec_thread_pool_destroy(pool) < 0 && !ret)
		ret = FORK_POOL_DESTROY;
	return ret;
}

/* What a child does; returns its exit status. */
static int fork_child(struct exec_executor *parent_default)
{
	int ret;

	exec_user_set_log(fork_log, NULL);
	if (exec_default_executor() == parent_default)
		return FORK_DEFAULT_SAME;
	ret = fork_use_default(FORK_ITEMS);
	if (ret)
		return ret;
	if (!fork_timer_fires(exec_default_executor(), NSEC_PER_MSEC))
		return FORK_DEFAULT_TIMER;
	ret = fork_use_pool();
	if (ret)
		return ret;
	ret = fork_use_io();
	if (ret)
		return ret;
	return atomic_read(&fork_warnings) ? FORK_WARNING : FORK_OK;
}

static void fork_say_tsan(struct kunit *test)
{
	if (!FORK_CHILD_RUNS)
		kunit_info(test, "under ThreadSanitizer the children do nothing");
}

static pid_t fork_start_if(struct exec_executor *parent_default,
			   bool child_runs)
{
	pid_t pid;

	/* Nothing buffered is written twice. */
	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(child_runs ? fork_child(parent_default) : FORK_OK);
	return pid;
}

static pid_t fork_start(struct exec_executor *parent_default)
{
	return fork_start_if(parent_default, FORK_CHILD_RUNS);
}

/* The child's exit status; kills it after FORK_CHILD_TIMEOUT_MS. */
static int fork_wait(struct kunit *test, pid_t pid)
{
	u64 deadline = exec_test_deadline(FORK_CHILD_TIMEOUT_MS);
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			KUNIT_FAIL(test, "waitpid: %d", errno);
			return -1;
		}
		if (exec_test_expired(deadline)) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			KUNIT_FAIL(test, "child %d hung: killed after %u ms",
				   (int)pid, FORK_CHILD_TIMEOUT_MS);
			return -1;
		}
		usleep(1000);
	}
	if (!WIFEXITED(status)) {
		KUNIT_FAIL(test, "child %d died of signal %d", (int)pid,
			   WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		return -1;
	}
	status = WEXITSTATUS(status);
	if (status)
		KUNIT_FAIL(test, "child %d failed at: %s", (int)pid,
			   status < FORK_STEPS ? fork_steps[status] : "?");
	return status;
}

/*
 * The daemon's case: the parent has used the default executor, a timed
 * item and an I/O context, and leaves a periodic item on the default
 * executor, one on a pool of its own and a read on a pipe pending across
 * the fork.  The child gets a default executor of its own, and everything
 * new works there; the parent's items and read go on in the parent.
 */
static void fork_child_uses_library(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct fork_periodic on_default, on_pool;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct fork_io_rec rd;
	struct exec_handler rh;
	char buf[8] = { 0 };
	struct exec_io *io;
	unsigned int to = EXEC_TEST_TIMEOUT_MS;
	int p[2], runs;
	bool ok;
	pid_t pid;

	fork_say_tsan(test);
	KUNIT_ASSERT_EQ(test, fork_use_default(FORK_ITEMS), FORK_OK);
	KUNIT_ASSERT_TRUE(test, fork_timer_fires(exec_default_executor(),
						 NSEC_PER_MSEC));
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, fork_periodic_start(exec_default_executor(),
						  &on_default), 0);
	KUNIT_ASSERT_EQ(test, fork_periodic_start(ex, &on_pool), 0);
	KUNIT_ASSERT_EQ(test, pipe(p), 0);
	KUNIT_ASSERT_EQ(test, exec_io_create(&io, NULL), 0);
	fork_io_rec_init(&rd, &rh);
	KUNIT_ASSERT_EQ(test, exec_io_read(io, &rd.op, p[0], buf, 4,
					   (uint64_t)-1, &rh), 0);

	pid = fork_start(exec_default_executor());
	KUNIT_ASSERT_GE(test, pid, 0);

	/* The parent goes on: its items, its timers, its pending read. */
	KUNIT_EXPECT_EQ(test, fork_use_default(FORK_ITEMS), FORK_OK);
	KUNIT_EXPECT_TRUE(test, fork_timer_fires(ex, NSEC_PER_MSEC));
	runs = atomic_read(&on_pool.runs) + 3;
	ok = exec_test_wait_atomic_ge(&on_pool.runs, runs, to);
	KUNIT_EXPECT_TRUE(test, ok);
	runs = atomic_read(&on_default.runs) + 3;
	ok = exec_test_wait_atomic_ge(&on_default.runs, runs, to);
	KUNIT_EXPECT_TRUE(test, ok);
	KUNIT_EXPECT_EQ(test, write(p[1], "fork", 4), 4);
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&rd.calls, 1, to));
	KUNIT_EXPECT_EQ(test, READ_ONCE(rd.result), 4L);
	KUNIT_EXPECT_EQ(test, memcmp(buf, "fork", 4), 0);

	KUNIT_EXPECT_EQ(test, fork_wait(test, pid), 0);
	KUNIT_EXPECT_EQ(test, fork_use_default(FORK_ITEMS), FORK_OK);

	exec_timer_cancel_sync(&on_default.periodic.timer);
	exec_timer_cancel_sync(&on_pool.periodic.timer);
	KUNIT_EXPECT_GE(test, exec_io_destroy(io), 0L);
	close(p[0]);
	close(p[1]);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/*
 * A default executor installed by the parent stays the parent's: the
 * child's is the built-in one, new, and the child may install its own.
 */
static void fork_child_default_installed(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	pid_t pid;

	fork_say_tsan(test);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	exec_set_default_executor(ex);
	KUNIT_EXPECT_EQ(test, fork_use_default(FORK_ITEMS), FORK_OK);

	pid = fork_start(ex);
	KUNIT_EXPECT_GE(test, pid, 0);
	if (pid > 0)
		KUNIT_EXPECT_EQ(test, fork_wait(test, pid), 0);

	KUNIT_EXPECT_PTR_EQ(test, exec_default_executor(), ex);
	KUNIT_EXPECT_EQ(test, fork_use_default(FORK_ITEMS), FORK_OK);
	KUNIT_EXPECT_PTR_EQ(test, exec_set_default_executor(NULL), ex);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

/* What the parent's other threads do while it forks. */
struct fork_busy {
	atomic_t stop;
	atomic_t rounds;
	struct exec_executor *ex;
};

static int fork_busy_fn(void *arg)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 1 };
	struct fork_busy *b = arg;
	struct exec_thread_pool *pool;
	struct fork_timer ft;
	atomic_t ran;
	int i;

	while (!atomic_read_acquire(&b->stop)) {
		atomic_set(&ran, 0);
		for (i = 0; i < 16; i++)
			exec_default_submit_fn(fork_count_fn, &ran);
		fork_timer_init(&ft);
		if (!exec_submit_after(b->ex, &ft.timer, NSEC_PER_MSEC))
			exec_timer_cancel_sync(&ft.timer);
		/* A base on the list, a pool under the watchdog, and gone. */
		if (!exec_thread_pool_create(&pool, &attr)) {
			exec_submit_fn(exec_thread_pool_executor(pool),
				       fork_count_fn, &ran);
			exec_thread_pool_destroy(pool);
		}
		exec_test_wait_atomic_ge(&ran, 17, EXEC_TEST_TIMEOUT_MS);
		exec_test_count(&b->rounds);
	}
	return 0;
}

/*
 * Forks again and again while two other threads submit to the default
 * executor, arm and cancel timed items and create and destroy pools: the
 * locks those take may be held at any fork, and every child must still
 * find them free.
 */
static void fork_while_threads_use_library(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	struct exec_test_thread threads[2];
	struct exec_thread_pool *pool;
	struct fork_busy busy;
	unsigned int i;
	bool ok;
	pid_t pid;
	int ret;

	fork_say_tsan(test);
	if (!FORK_BUSY_CHILD_RUNS && FORK_CHILD_RUNS)
		kunit_info(test, "under AddressSanitizer the children do nothing");
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	atomic_set(&busy.stop, 0);
	atomic_set(&busy.rounds, 0);
	busy.ex = exec_thread_pool_executor(pool);
	for (i = 0; i < ARRAY_SIZE(threads); i++) {
		ret = exec_test_thread_start(&threads[i], fork_busy_fn, &busy,
					     "fork-busy");
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	ok = exec_test_wait_atomic_ge(&busy.rounds, 2, EXEC_TEST_TIMEOUT_MS);
	KUNIT_EXPECT_TRUE(test, ok);

	for (i = 0; i < FORK_REPEAT; i++) {
		pid = fork_start_if(NULL, FORK_BUSY_CHILD_RUNS);
		KUNIT_EXPECT_GE(test, pid, 0);
		if (pid <= 0 || fork_wait(test, pid))
			break;
	}

	atomic_set_release(&busy.stop, 1);
	for (i = 0; i < ARRAY_SIZE(threads); i++) {
		ok = exec_test_thread_join(&threads[i], EXEC_TEST_TIMEOUT_MS);
		KUNIT_EXPECT_TRUE(test, ok);
	}
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static struct kunit_case exec_fork_cases[] = {
	KUNIT_CASE(fork_child_uses_library),
	KUNIT_CASE(fork_child_default_installed),
	KUNIT_CASE(fork_while_threads_use_library),
	{}
};

static struct kunit_suite exec_fork_suite = {
	.name = "exec-fork",
	.test_cases = exec_fork_cases,
};

kunit_test_suites(&exec_fork_suite);

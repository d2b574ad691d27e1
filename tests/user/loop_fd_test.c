// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: a loop executor driven by a plain epoll loop through its
 * descriptor (exec_loop_fd(), exec_loop_run_ready()).  The loop below is
 * also the epoll adapter: register the descriptor, call
 * exec_loop_run_ready() when it is readable.  Level- and edge-triggered.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <kunit/test.h>
#include <exec/exec.h>
#include <exec/user.h>

#include "platform.h"
#include "exec_test.h"

#define LF_THREADS	3
#define LF_PER_THREAD	500
#define LF_TIMED	20
#define LF_TIMED_STEP_MS 5
/*
 * How much later than its deadline a timed item may run: generous, for
 * sanitizer builds on a loaded machine; the adapters' test compares with
 * the host loops' own timers.
 */
#define LF_LATE_BOUND_NS (250 * NSEC_PER_MSEC)

struct lf_fx;

struct lf_item {
	struct exec_timer timer;	/* .work for plain submissions */
	struct lf_fx *fx;
	int thread;
	int seq;
	u64 deadline;
	u64 ran_at;
	int order;			/* position in the run, from 1 */
	bool nest;			/* calls exec_loop_run_ready() */
	long nested;			/* what that returned */
	struct lf_item *child;		/* submitted from inside this one */
};

struct lf_fx {
	struct kunit *test;
	struct exec_loop *loop;
	struct exec_executor *ex;
	int epfd;
	int ran;			/* the loop's thread only */
	int last_seq[LF_THREADS];
	int fifo_errors;
	int early;
	u64 max_late;
	atomic_t discarded;
	struct lf_item items[LF_THREADS][LF_PER_THREAD];
	struct lf_item children[LF_PER_THREAD];
	struct lf_item timed[LF_TIMED];
};

static void lf_fn(struct exec_work *work)
{
	struct lf_item *it = container_of(work, struct lf_item, timer.work);
	struct lf_fx *fx = it->fx;

	it->order = ++fx->ran;
	if (it->nest)
		it->nested = exec_loop_run_ready(fx->loop);
	it->ran_at = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	if (it->thread >= 0) {
		if (it->seq <= fx->last_seq[it->thread])
			fx->fifo_errors++;
		fx->last_seq[it->thread] = it->seq;
	}
	if (it->deadline) {
		if (it->ran_at < it->deadline)
			fx->early++;
		else if (it->ran_at - it->deadline > fx->max_late)
			fx->max_late = it->ran_at - it->deadline;
	}
	if (it->child && exec_submit(fx->ex, &it->child->timer.work))
		fx->fifo_errors++;
}

static void lf_discard(struct exec_work *work)
{
	struct lf_item *it = container_of(work, struct lf_item, timer.work);

	atomic_inc(&it->fx->discarded);
}

static void lf_init(struct lf_fx *fx, struct lf_item *it, int thread, int seq)
{
	it->fx = fx;
	it->thread = thread;
	it->seq = seq;
	exec_timer_init(&it->timer, lf_fn, lf_discard);
}

static int lf_setup(struct kunit *test, struct lf_fx *fx, bool edge)
{
	struct epoll_event ev = { .events = EPOLLIN | (edge ? EPOLLET : 0) };
	int fd;

	fx->test = test;
	atomic_set(&fx->discarded, 0);
	if (exec_loop_create(&fx->loop))
		return -ENOMEM;
	fx->ex = exec_loop_executor(fx->loop);
	fd = exec_loop_fd(fx->loop);
	KUNIT_EXPECT_GE(test, fd, 0);
	fx->epfd = epoll_create1(EPOLL_CLOEXEC);
	KUNIT_EXPECT_GE(test, fx->epfd, 0);
	if (fd < 0 || fx->epfd < 0)
		return -EINVAL;
	return epoll_ctl(fx->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/*
 * The epoll loop: wait, and run what is ready, until @want items ran or
 * @ms went by without an event.  Returns the number of wake-ups.
 */
static int lf_drive(struct lf_fx *fx, int want, int ms)
{
	struct epoll_event ev;
	int wakeups = 0;

	while (fx->ran < want) {
		int n = epoll_wait(fx->epfd, &ev, 1, ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		wakeups++;
		KUNIT_EXPECT_GE(fx->test, exec_loop_run_ready(fx->loop), 0L);
	}
	return wakeups;
}

static void lf_teardown(struct lf_fx *fx, long discarded)
{
	epoll_ctl(fx->epfd, EPOLL_CTL_DEL, exec_loop_fd(fx->loop), NULL);
	close(fx->epfd);
	KUNIT_EXPECT_EQ(fx->test, exec_loop_destroy(fx->loop), discarded);
}

static bool lf_readable(struct exec_loop *loop)
{
	struct pollfd p = { .fd = exec_loop_fd(loop), .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* The descriptor: readable exactly while items wait; exec_loop_run() off. */
static void loop_fd_readable_while_work_waits(struct kunit *test)
{
	static struct lf_fx fx;
	struct lf_item *a = &fx.items[0][0], *b = &fx.items[0][1];
	int fd;

	memset(&fx, 0, sizeof(fx));
	KUNIT_ASSERT_EQ(test, exec_loop_create(&fx.loop), 0);
	fx.ex = exec_loop_executor(fx.loop);
	fx.test = test;
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_fd(NULL), -EINVAL);
	lf_init(&fx, a, -1, 0);
	lf_init(&fx, b, -1, 1);
	a->child = b;
	a->nest = true;
	b->nest = true;
	/* Queued before the descriptor existed: readable from the start. */
	KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &a->timer.work), 0);
	fd = exec_loop_fd(fx.loop);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, exec_loop_fd(fx.loop), fd);
	KUNIT_EXPECT_TRUE(test, lf_readable(fx.loop));
	KUNIT_EXPECT_EQ(test, exec_loop_run(fx.loop), -EBUSY);
	/* @a ran and queued @b: one item a call, and still readable. */
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), 1L);
	KUNIT_EXPECT_TRUE(test, lf_readable(fx.loop));
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), 1L);
	KUNIT_EXPECT_FALSE(test, lf_readable(fx.loop));
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), 0L);
	KUNIT_EXPECT_EQ(test, fx.ran, 2);
	KUNIT_EXPECT_EQ(test, b->order, 2);
	/* A call from inside an item is refused (and changed nothing). */
	KUNIT_EXPECT_EQ(test, a->nested, -EBUSY);
	KUNIT_EXPECT_EQ(test, b->nested, -EBUSY);
	/* A later submission makes it readable again. */
	lf_init(&fx, a, -1, 2);
	a->child = NULL;
	a->nest = false;
	KUNIT_EXPECT_EQ(test, exec_submit(fx.ex, &a->timer.work), 0);
	KUNIT_EXPECT_TRUE(test, lf_readable(fx.loop));
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), 1L);
	KUNIT_EXPECT_FALSE(test, lf_readable(fx.loop));
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(fx.loop), 0L);
}

struct lf_thread {
	struct lf_fx *fx;
	int t;
};

static void *lf_submitter(void *arg)
{
	struct lf_thread *th = arg;
	struct lf_fx *fx = th->fx;
	int i;

	for (i = 0; i < LF_PER_THREAD; i++) {
		if (exec_submit(fx->ex, &fx->items[th->t][i].timer.work))
			return (void *)1;
		if (!(i % 64))
			usleep(100);
	}
	return NULL;
}

/*
 * Other threads submit, items submit from inside, timed items come due:
 * everything runs once, in FIFO order per submitter, children after their
 * parents, no timed item early or late beyond LF_LATE_BOUND_NS; and the
 * idle loop then makes its watcher wait without a wake-up.
 */
static void lf_threads_and_timers(struct kunit *test, bool edge)
{
	static struct lf_fx fx;
	struct lf_thread th[LF_THREADS];
	pthread_t tid[LF_THREADS];
	int t, i, total, wakeups;
	u64 now;
	void *res;

	memset(&fx, 0, sizeof(fx));
	KUNIT_ASSERT_EQ(test, lf_setup(test, &fx, edge), 0);
	for (t = 0; t < LF_THREADS; t++) {
		fx.last_seq[t] = -1;
		for (i = 0; i < LF_PER_THREAD; i++)
			lf_init(&fx, &fx.items[t][i], t, i);
	}
	for (i = 0; i < LF_PER_THREAD; i++) {
		lf_init(&fx, &fx.children[i], -1, i);
		fx.items[0][i].child = &fx.children[i];
	}
	now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (i = 0; i < LF_TIMED; i++) {
		struct lf_item *it = &fx.timed[i];

		lf_init(&fx, it, -1, i);
		/* Every other one from the loop's thread before it runs. */
		it->deadline = now + (u64)(LF_TIMED - i) * LF_TIMED_STEP_MS *
					 NSEC_PER_MSEC;
		KUNIT_EXPECT_EQ(test, exec_submit_at(fx.ex, &it->timer,
						     EXEC_CLOCK_MONOTONIC,
						     it->deadline), 0);
	}
	for (t = 0; t < LF_THREADS; t++) {
		th[t].fx = &fx;
		th[t].t = t;
		KUNIT_ASSERT_EQ(test, pthread_create(&tid[t], NULL,
						     lf_submitter, &th[t]), 0);
	}
	total = LF_THREADS * LF_PER_THREAD + LF_PER_THREAD + LF_TIMED;
	lf_drive(&fx, total, 5000);
	for (t = 0; t < LF_THREADS; t++) {
		pthread_join(tid[t], &res);
		KUNIT_EXPECT_PTR_EQ(test, res, NULL);
	}
	KUNIT_EXPECT_EQ(test, fx.ran, total);
	KUNIT_EXPECT_EQ(test, fx.fifo_errors, 0);
	for (i = 0; i < LF_PER_THREAD; i++)
		KUNIT_EXPECT_GT(test, fx.children[i].order,
				fx.items[0][i].order);
	for (t = 0; t < LF_THREADS; t++)
		KUNIT_EXPECT_EQ(test, fx.last_seq[t], LF_PER_THREAD - 1);
	/* Timed items in deadline order, none early, none too late. */
	for (i = 1; i < LF_TIMED; i++)
		KUNIT_EXPECT_LT(test, fx.timed[i].order, fx.timed[i - 1].order);
	KUNIT_EXPECT_EQ(test, fx.early, 0);
	KUNIT_EXPECT_LT(test, fx.max_late, (u64)LF_LATE_BOUND_NS);
	kunit_info(test, "%s: latest timed item %llu us late\n",
		   edge ? "edge" : "level",
		   (unsigned long long)(fx.max_late / 1000));
	/* Idle: no wake-up at all. */
	wakeups = lf_drive(&fx, total + 1, 200);
	KUNIT_EXPECT_EQ(test, wakeups, 0);
	lf_teardown(&fx, 0);
}

static void loop_fd_epoll_level(struct kunit *test)
{
	lf_threads_and_timers(test, false);
}

static void loop_fd_epoll_edge(struct kunit *test)
{
	lf_threads_and_timers(test, true);
}

/*
 * Destroyed with items queued and timed items armed, after its watcher
 * stopped watching: each goes to its discard callback, none runs.
 */
static void loop_fd_destroy_discards(struct kunit *test)
{
	static struct lf_fx fx;
	u64 now;
	int i;

	memset(&fx, 0, sizeof(fx));
	KUNIT_ASSERT_EQ(test, lf_setup(test, &fx, false), 0);
	now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (i = 0; i < LF_PER_THREAD; i++) {
		lf_init(&fx, &fx.items[0][i], 0, i);
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex,
						  &fx.items[0][i].timer.work),
				0);
	}
	for (i = 0; i < LF_TIMED; i++) {
		lf_init(&fx, &fx.timed[i], -1, i);
		KUNIT_EXPECT_EQ(test, exec_submit_at(fx.ex, &fx.timed[i].timer,
						     EXEC_CLOCK_MONOTONIC,
						     now + NSEC_PER_SEC), 0);
	}
	KUNIT_EXPECT_TRUE(test, lf_readable(fx.loop));
	lf_teardown(&fx, LF_PER_THREAD + LF_TIMED);
	KUNIT_EXPECT_EQ(test, fx.ran, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx.discarded),
			LF_PER_THREAD + LF_TIMED);
}

/*
 * Armed between two calls, the loop is one sleeper on its idle list
 * (core/idle.h): the first submission claims it and writes the
 * descriptor, the others find no sleeper and write nothing, as they would
 * find exec_loop_run()'s thread already woken.  So a burst costs the
 * submitters one write, and the watcher one wake-up.
 */
static void loop_fd_one_write_per_sleep(struct kunit *test)
{
	static struct lf_fx fx;
	struct exec_stats st;
	u64 count = 0;
	int fd, i;

	memset(&fx, 0, sizeof(fx));
	KUNIT_ASSERT_EQ(test, exec_loop_create(&fx.loop), 0);
	fx.ex = exec_loop_executor(fx.loop);
	fx.test = test;
	fd = exec_loop_fd(fx.loop);
	KUNIT_ASSERT_GE(test, fd, 0);
	/* Armed: nothing queued, the attach's own write read back. */
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), 0L);
	KUNIT_EXPECT_FALSE(test, lf_readable(fx.loop));
	for (i = 0; i < 3; i++) {
		lf_init(&fx, &fx.items[0][i], 0, i + 1);
		KUNIT_EXPECT_EQ(test, exec_submit(fx.ex,
						  &fx.items[0][i].timer.work),
				0);
	}
	KUNIT_EXPECT_EQ(test, read(fd, &count, sizeof(count)),
			(ssize_t)sizeof(count));
	KUNIT_EXPECT_EQ(test, count, 1ULL);
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, exec_executor_stats(fx.ex, &st), 0);
	KUNIT_EXPECT_EQ(test, st.wakeups, 1ULL);
	/* The count was read: the items are still there for the next call. */
	KUNIT_EXPECT_EQ(test, exec_loop_run_ready(fx.loop), 3L);
	KUNIT_EXPECT_EQ(test, fx.ran, 3);
	KUNIT_EXPECT_EQ(test, fx.fifo_errors, 0);
	KUNIT_EXPECT_FALSE(test, lf_readable(fx.loop));
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(fx.loop), 0L);
}

static struct kunit_case exec_loop_fd_cases[] = {
	KUNIT_CASE(loop_fd_readable_while_work_waits),
	KUNIT_CASE(loop_fd_epoll_level),
	KUNIT_CASE(loop_fd_epoll_edge),
	KUNIT_CASE(loop_fd_destroy_discards),
	KUNIT_CASE(loop_fd_one_write_per_sleep),
	{}
};

static struct kunit_suite exec_loop_fd_suite = {
	.name = "exec-loop-fd",
	.test_cases = exec_loop_fd_cases,
};

kunit_test_suites(&exec_loop_fd_suite);

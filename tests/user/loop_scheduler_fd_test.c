// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: a loop scheduler driven by a plain epoll loop through its
 * descriptor (exec_loop_scheduler_fd(), exec_loop_scheduler_run_ready()),
 * alone and beside a thread in exec_loop_scheduler_run().  The descriptor
 * is readable when there is work for the watcher and not otherwise; every
 * item runs once, in FIFO order per submitter, timed items not early; a
 * stop leaves it quiet; destroy discards what is queued.
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

#define LSF_THREADS	3
#define LSF_PER_THREAD	400
#define LSF_TIMED	10
#define LSF_TIMED_STEP_MS 4

struct lsf_fx;

struct lsf_item {
	struct exec_timer timer;	/* .work for plain submissions */
	struct lsf_fx *fx;
	int thread;
	int seq;
	u64 deadline;
	long nested;			/* a run_ready() from inside */
	bool nest;
};

struct lsf_fx {
	struct kunit *test;
	struct exec_loop_scheduler *ls;
	struct exec_executor *ex;
	int epfd;
	pthread_t watcher;		/* the epoll loop's thread */
	atomic_t ran;
	atomic_t on_watcher;
	atomic_t discarded;
	atomic_t early;
	int last_seq[LSF_THREADS];	/* per submitter, under FIFO */
	atomic_t fifo_errors;
	struct lsf_item items[LSF_THREADS][LSF_PER_THREAD];
	struct lsf_item timed[LSF_TIMED];
};

static void lsf_fn(struct exec_work *work)
{
	struct lsf_item *it = container_of(work, struct lsf_item, timer.work);
	struct lsf_fx *fx = it->fx;

	if (pthread_equal(pthread_self(), fx->watcher))
		atomic_inc(&fx->on_watcher);
	if (it->nest)
		it->nested = exec_loop_scheduler_run_ready(fx->ls);
	if (it->deadline &&
	    exec_clock_now(EXEC_CLOCK_MONOTONIC) < it->deadline)
		atomic_inc(&fx->early);
	atomic_inc(&fx->ran);
}

/* On the watcher alone, FIFO per submitter is checked without a lock. */
static void lsf_fifo_fn(struct exec_work *work)
{
	struct lsf_item *it = container_of(work, struct lsf_item, timer.work);
	struct lsf_fx *fx = it->fx;

	if (it->seq <= fx->last_seq[it->thread])
		atomic_inc(&fx->fifo_errors);
	fx->last_seq[it->thread] = it->seq;
	lsf_fn(work);
}

static void lsf_discard(struct exec_work *work)
{
	atomic_inc(&container_of(work, struct lsf_item, timer.work)->fx->discarded);
}

static void lsf_init(struct lsf_fx *fx, struct lsf_item *it, int thread,
		     int seq, exec_work_fn fn)
{
	it->fx = fx;
	it->thread = thread;
	it->seq = seq;
	exec_timer_init(&it->timer, fn, lsf_discard);
}

static struct lsf_fx *lsf_setup(struct kunit *test, bool edge)
{
	struct epoll_event ev = { .events = EPOLLIN | (edge ? EPOLLET : 0) };
	struct lsf_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int fd, t;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	fx->test = test;
	fx->watcher = pthread_self();
	for (t = 0; t < LSF_THREADS; t++)
		fx->last_seq[t] = -1;
	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&fx->ls), 0);
	fx->ex = exec_loop_scheduler_executor(fx->ls);
	/* Held for the life of the watching loop, as a daemon would. */
	exec_on_work_started(fx->ex);
	fd = exec_loop_scheduler_fd(fx->ls);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_fd(fx->ls), fd);
	fx->epfd = epoll_create1(EPOLL_CLOEXEC);
	KUNIT_ASSERT_GE(test, fx->epfd, 0);
	KUNIT_ASSERT_EQ(test, epoll_ctl(fx->epfd, EPOLL_CTL_ADD, fd, &ev), 0);
	return fx;
}

static void lsf_teardown(struct lsf_fx *fx, long discarded)
{
	epoll_ctl(fx->epfd, EPOLL_CTL_DEL, exec_loop_scheduler_fd(fx->ls),
		  NULL);
	close(fx->epfd);
	exec_on_work_finished(fx->ex);
	KUNIT_EXPECT_EQ(fx->test, exec_loop_scheduler_destroy(fx->ls),
			discarded);
	kfree(fx);
}

static bool lsf_readable(struct lsf_fx *fx, int ms)
{
	struct pollfd p = {
		.fd = exec_loop_scheduler_fd(fx->ls), .events = POLLIN
	};

	return poll(&p, 1, ms) == 1;
}

/* The epoll loop: until @want items ran, or @ms without an event. */
static int lsf_drive(struct lsf_fx *fx, int want, int ms)
{
	struct epoll_event ev;
	int wakeups = 0;

	while (atomic_read(&fx->ran) < want) {
		int n = epoll_wait(fx->epfd, &ev, 1, ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		wakeups++;
		KUNIT_EXPECT_GE(fx->test,
				exec_loop_scheduler_run_ready(fx->ls), 0L);
	}
	return wakeups;
}

struct lsf_submitter {
	struct lsf_fx *fx;
	int thread;
};

static void *lsf_submit_main(void *arg)
{
	struct lsf_submitter *sub = arg;
	struct lsf_fx *fx = sub->fx;
	int i;

	for (i = 0; i < LSF_PER_THREAD; i++)
		if (exec_submit(fx->ex, &fx->items[sub->thread][i].timer.work))
			atomic_inc(&fx->fifo_errors);
	return NULL;
}

/* Idle: never readable; readable for an item; quiet again once it ran. */
static void ls_fd_readable_only_with_work(struct kunit *test)
{
	struct lsf_fx *fx = lsf_setup(test, false);
	struct lsf_item *a = &fx->items[0][0];

	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_fd(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_ready(NULL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, lsf_readable(fx, 50));
	/* Woken in vain: nothing runs, nothing stops, still quiet. */
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_ready(fx->ls), 0L);
	KUNIT_EXPECT_FALSE(test, exec_loop_scheduler_stopped(fx->ls));
	KUNIT_EXPECT_FALSE(test, lsf_readable(fx, 0));

	lsf_init(fx, a, 0, 0, lsf_fn);
	a->nest = true;
	KUNIT_EXPECT_EQ(test, exec_submit(fx->ex, &a->timer.work), 0);
	KUNIT_EXPECT_TRUE(test, lsf_readable(fx, 0));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_ready(fx->ls), 1L);
	/* From inside an item: refused, and the watcher's state unharmed. */
	KUNIT_EXPECT_EQ(test, a->nested, -EBUSY);
	KUNIT_EXPECT_FALSE(test, lsf_readable(fx, 20));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->ran), 1);
	lsf_teardown(fx, 0);
}

/*
 * Three threads submit while the epoll loop drives the scheduler: every
 * item runs once, on the watcher, in each submitter's order, with fewer
 * wake-ups than items; then the descriptor is quiet.  Level- and
 * edge-triggered.
 */
static void lsf_submitters(struct kunit *test, bool edge)
{
	struct lsf_fx *fx = lsf_setup(test, edge);
	struct lsf_submitter sub[LSF_THREADS];
	pthread_t th[LSF_THREADS];
	int t, i, wakeups;

	for (t = 0; t < LSF_THREADS; t++)
		for (i = 0; i < LSF_PER_THREAD; i++)
			lsf_init(fx, &fx->items[t][i], t, i, lsf_fifo_fn);
	for (t = 0; t < LSF_THREADS; t++) {
		sub[t].fx = fx;
		sub[t].thread = t;
		KUNIT_ASSERT_EQ(test, pthread_create(&th[t], NULL,
						     lsf_submit_main, &sub[t]),
				0);
	}
	wakeups = lsf_drive(fx, LSF_THREADS * LSF_PER_THREAD, 10000);
	for (t = 0; t < LSF_THREADS; t++)
		pthread_join(th[t], NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->ran),
			LSF_THREADS * LSF_PER_THREAD);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->on_watcher),
			LSF_THREADS * LSF_PER_THREAD);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->fifo_errors), 0);
	KUNIT_EXPECT_GT(test, wakeups, 0);
	KUNIT_EXPECT_LE(test, wakeups, LSF_THREADS * LSF_PER_THREAD);
	KUNIT_EXPECT_FALSE(test, lsf_readable(fx, 20));
	lsf_teardown(fx, 0);
}

static void ls_fd_submitters_level(struct kunit *test)
{
	lsf_submitters(test, false);
}

static void ls_fd_submitters_edge(struct kunit *test)
{
	lsf_submitters(test, true);
}

/* Timed items wake the watcher when due, never before. */
static void ls_fd_timed_items_not_early(struct kunit *test)
{
	struct lsf_fx *fx = lsf_setup(test, false);
	u64 now = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	int i;

	for (i = 0; i < LSF_TIMED; i++) {
		struct lsf_item *it = &fx->timed[i];

		lsf_init(fx, it, -1, i, lsf_fn);
		it->deadline = now + (u64)(i + 1) * LSF_TIMED_STEP_MS *
					 NSEC_PER_MSEC;
		KUNIT_EXPECT_EQ(test, exec_submit_at(fx->ex, &it->timer,
						     EXEC_CLOCK_MONOTONIC,
						     it->deadline), 0);
	}
	lsf_drive(fx, LSF_TIMED, 10000);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->ran), LSF_TIMED);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->early), 0);
	KUNIT_EXPECT_FALSE(test, lsf_readable(fx, 20));
	lsf_teardown(fx, 0);
}

static void *lsf_run_main(void *arg)
{
	return (void *)exec_loop_scheduler_run(arg);
}

/*
 * Beside a thread in exec_loop_scheduler_run(): the two share the items,
 * each runs once; a stop ends the run function and leaves the watcher's
 * descriptor quiet after one call.
 */
static void ls_fd_beside_a_run_thread_and_stop(struct kunit *test)
{
	struct lsf_fx *fx = lsf_setup(test, false);
	pthread_t runner;
	void *ret;
	int i;

	KUNIT_ASSERT_EQ(test, pthread_create(&runner, NULL, lsf_run_main,
					     fx->ls), 0);
	for (i = 0; i < LSF_PER_THREAD; i++) {
		lsf_init(fx, &fx->items[0][i], 0, i, lsf_fn);
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex,
					&fx->items[0][i].timer.work), 0);
		if (i % 16 == 0)
			lsf_drive(fx, i + 1, 1);
	}
	KUNIT_EXPECT_TRUE(test, exec_test_wait_atomic_ge(&fx->ran,
				LSF_PER_THREAD, EXEC_TEST_TIMEOUT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->ran), LSF_PER_THREAD);
	/* Drain a wake-up the run thread left to the watcher. */
	while (lsf_readable(fx, 0))
		exec_loop_scheduler_run_ready(fx->ls);

	exec_loop_scheduler_stop(fx->ls);
	pthread_join(runner, &ret);
	KUNIT_EXPECT_GE(test, (long)ret, 0L);
	/* Woken by the stop, once: the call runs nothing and quiets it. */
	KUNIT_EXPECT_TRUE(test, lsf_readable(fx, 1000));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_run_ready(fx->ls), 0L);
	KUNIT_EXPECT_FALSE(test, lsf_readable(fx, 20));
	lsf_teardown(fx, 0);
}

/* Destroyed with items queued that nobody ran: each is discarded. */
static void ls_fd_destroy_discards_queued(struct kunit *test)
{
	struct lsf_fx *fx = lsf_setup(test, false);
	int i;

	for (i = 0; i < LSF_PER_THREAD; i++) {
		lsf_init(fx, &fx->items[0][i], 0, i, lsf_fn);
		KUNIT_EXPECT_EQ(test, exec_submit(fx->ex,
					&fx->items[0][i].timer.work), 0);
	}
	KUNIT_EXPECT_TRUE(test, lsf_readable(fx, 0));
	lsf_teardown(fx, LSF_PER_THREAD);
}

static struct kunit_case exec_ls_fd_cases[] = {
	KUNIT_CASE(ls_fd_readable_only_with_work),
	KUNIT_CASE(ls_fd_submitters_level),
	KUNIT_CASE(ls_fd_submitters_edge),
	KUNIT_CASE(ls_fd_timed_items_not_early),
	KUNIT_CASE(ls_fd_beside_a_run_thread_and_stop),
	KUNIT_CASE(ls_fd_destroy_discards_queued),
	{}
};

static struct kunit_suite exec_ls_fd_suite = {
	.name = "exec-loop-scheduler-fd",
	.test_cases = exec_ls_fd_cases,
};

kunit_test_suite(exec_ls_fd_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: the clock event device (user/clockev.c) arms its timerfd
 * outside the lock that program() runs under.  A system call made under a
 * userspace spinlock is a point where the holder can be preempted, every
 * other user of the lock then waiting for it (core/platform.h), so
 * program() only records the time and exec_clockev_commit(), called after
 * the unlock, arms it.  Commits race; of racing commits the newest time
 * recorded must be the one left armed, and the handler must still come.
 * The race checked by the second case (an older arm landing after a newer
 * one) is narrow: a commit that armed once and never looked again passed
 * it in five runs out of five; the case checks the end state that the
 * loop guarantees, not that the race happened.
 */
#include <sys/timerfd.h>

#include <kunit/test.h>
#include <exec/exec.h>

#include "platform.h"
#include "exec_test.h"

#define CE_THREADS	4
#define CE_PROGRAMS	20000U
#define CE_AHEAD_NS	(1000ULL * NSEC_PER_SEC)	/* never comes */
#define CE_STEP_NS	(10 * NSEC_PER_MSEC)		/* apart, and the slack */

struct ce_fx {
	struct exec_clockev ce;
	raw_spinlock_t lock;	/* the owner's lock, as a timer base's */
	u64 last;		/* under @lock: the newest time recorded */
	atomic_t fired;
	u64 fired_at;
	unsigned int seed[CE_THREADS];
};

static void ce_handler(struct exec_clockev *ce)
{
	struct ce_fx *fx = container_of(ce, struct ce_fx, ce);

	if (!atomic_read(&fx->fired))
		WRITE_ONCE(fx->fired_at, ktime_get_ns());
	atomic_inc(&fx->fired);
}

static void ce_fx_start(struct kunit *test, struct ce_fx *fx)
{
	memset(fx, 0, sizeof(*fx));
	raw_spin_lock_init(&fx->lock);
	KUNIT_ASSERT_EQ(test, exec_clockev_init(&fx->ce, ce_handler), 0);
	KUNIT_ASSERT_EQ(test, exec_clockev_start(&fx->ce), 0);
}

static void ce_fx_stop(struct ce_fx *fx)
{
	exec_clockev_stop(&fx->ce);
	exec_clockev_fini(&fx->ce);
	raw_spin_lock_destroy(&fx->lock);
}

static void ce_program(struct ce_fx *fx, u64 when)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&fx->lock, flags);
	exec_clockev_program(&fx->ce, EXEC_CLOCK_MONOTONIC, when);
	fx->last = when;
	raw_spin_unlock_irqrestore(&fx->lock, flags);
	exec_clockev_commit(&fx->ce);
}

/*
 * The absolute time the monotonic timerfd is armed for, 0 if disarmed.  The
 * timerfd tells the time left; the clock is read around it, again until
 * the two reads are close (a thread preempted between them would put the
 * time late by as long as it waited), and the later one is used.
 */
static u64 ce_armed(struct kunit *test, struct ce_fx *fx)
{
	struct itimerspec its;
	u64 before, after, rem;
	unsigned int tries = 0;

	do {
		before = ktime_get_ns();
		KUNIT_ASSERT_EQ(test,
				timerfd_gettime(fx->ce.tfd[EXEC_CLOCK_MONOTONIC],
						&its), 0);
		after = ktime_get_ns();
	} while (after - before > NSEC_PER_MSEC && ++tries < 1000);
	rem = (u64)its.it_value.tv_sec * NSEC_PER_SEC +
	      (u64)its.it_value.tv_nsec;
	return rem ? after + rem : 0;
}

/* Within @slack_ns, for the time between the timerfd's read and the clock's. */
static bool ce_near(u64 armed, u64 want, u64 slack_ns)
{
	return armed + slack_ns >= want && armed <= want + slack_ns;
}

static void clockev_arms_after_the_unlock(struct kunit *test)
{
	struct ce_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	u64 when = ktime_get_ns() + CE_AHEAD_NS;
	unsigned long flags;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ce_fx_start(test, fx);
	raw_spin_lock_irqsave(&fx->lock, flags);
	exec_clockev_program(&fx->ce, EXEC_CLOCK_MONOTONIC, when);
	raw_spin_unlock_irqrestore(&fx->lock, flags);
	/* Recorded, not armed: no system call was made under the lock. */
	KUNIT_EXPECT_EQ(test, ce_armed(test, fx), 0ULL);
	exec_clockev_commit(&fx->ce);
	KUNIT_EXPECT_TRUE(test, ce_near(ce_armed(test, fx), when, CE_STEP_NS));
	/* Nothing new recorded: the commit arms nothing. */
	exec_clockev_commit(&fx->ce);
	KUNIT_EXPECT_TRUE(test, ce_near(ce_armed(test, fx), when, CE_STEP_NS));
	ce_program(fx, EXEC_TIME_NEVER);
	KUNIT_EXPECT_EQ(test, ce_armed(test, fx), 0ULL);
	ce_fx_stop(fx);
}

struct ce_arg {
	struct ce_fx *fx;
	unsigned int id;
	u64 base;
};

static int ce_thread(void *data)
{
	struct ce_arg *a = data;
	unsigned int i, *seed = &a->fx->seed[a->id];

	for (i = 0; i < CE_PROGRAMS; i++) {
		*seed = *seed * 1103515245U + 12345U;
		ce_program(a->fx, a->base + (*seed >> 8) % 100000 * CE_STEP_NS);
	}
	return 0;
}

static void clockev_racing_commits_leave_the_newest(struct kunit *test)
{
	struct ce_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	struct exec_thread threads[CE_THREADS];
	struct ce_arg args[CE_THREADS];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ce_fx_start(test, fx);
	for (i = 0; i < CE_THREADS; i++) {
		fx->seed[i] = i + 1;
		args[i] = (struct ce_arg){ fx, i,
					   ktime_get_ns() + CE_AHEAD_NS };
		KUNIT_ASSERT_EQ(test, exec_thread_start(&threads[i], ce_thread,
							&args[i], "ce-race"),
				0);
	}
	for (i = 0; i < CE_THREADS; i++)
		exec_thread_join(&threads[i]);
	/* Each commit re-armed until no newer record came in between. */
	KUNIT_EXPECT_TRUE(test, ce_near(ce_armed(test, fx), fx->last,
					CE_STEP_NS / 2));
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->fired), 0);
	ce_fx_stop(fx);
}

static void clockev_handler_comes_after_the_time(struct kunit *test)
{
	struct ce_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	u64 when = ktime_get_ns() + 20 * NSEC_PER_MSEC;
	u64 give_up = when + 10 * NSEC_PER_SEC;

	KUNIT_ASSERT_NOT_NULL(test, fx);
	ce_fx_start(test, fx);
	ce_program(fx, when);
	while (!atomic_read(&fx->fired) && ktime_get_ns() < give_up)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_GT(test, atomic_read(&fx->fired), 0);
	KUNIT_EXPECT_GE(test, READ_ONCE(fx->fired_at), when);
	ce_fx_stop(fx);
}

static struct kunit_case exec_clockev_cases[] = {
	KUNIT_CASE(clockev_arms_after_the_unlock),
	KUNIT_CASE(clockev_racing_commits_leave_the_newest),
	KUNIT_CASE(clockev_handler_comes_after_the_time),
	{}
};

static struct kunit_suite exec_clockev_suite = {
	.name = "exec-clockev",
	.test_cases = exec_clockev_cases,
};

kunit_test_suites(&exec_clockev_suite);

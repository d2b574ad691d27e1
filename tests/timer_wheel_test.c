// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The timer wheel itself (core/timer_wheel.h), driven directly on a
 * simulated clock: seeded random arms, cancels and re-arms at every level,
 * time advancing in random steps, and, in one of the runs, early cascades
 * between the steps, as an idle watcher makes them.  Each item must come
 * out of exec_wheel_expire() in the first step whose limit reaches its
 * tick (never before, never later), once, in the order of the ticks, unless
 * it was cancelled; at the end the wheel must be empty, every pending bit
 * clear.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "timer_wheel.h"
#include "exec_test.h"

#define TW_ITEMS	1000U
/* Deadlines up to this far ahead: levels 0 to 3 and their cascades. */
#define TW_AHEAD	300000ULL
#define TW_STEPS	6000U

struct tw_item {
	struct exec_timer timer;
	u64 tick;		/* its deadline's tick */
	bool armed;		/* in the wheel */
};

struct tw_run {
	struct exec_wheel wheel;
	struct tw_item items[TW_ITEMS];
	u64 rand;
	unsigned long fired, cancelled, early_steps;
};

static u64 tw_rand(struct tw_run *r)
{
	/* xorshift64 */
	r->rand ^= r->rand << 13;
	r->rand ^= r->rand >> 7;
	r->rand ^= r->rand << 17;
	return r->rand;
}

static void tw_arm(struct tw_run *r, struct tw_item *it, u64 now)
{
	it->tick = now + 1 + tw_rand(r) % TW_AHEAD;
	/* Anywhere inside the tick: only the tick decides. */
	it->timer.expires = (it->tick << EXEC_WHEEL_TICK_SHIFT) |
			    (tw_rand(r) & ((1U << EXEC_WHEEL_TICK_SHIFT) - 1));
	exec_wheel_add(&r->wheel, &it->timer, it->tick);
	it->armed = true;
}

/* Expires up to @now, checking each item that comes out. */
static void tw_expire(struct kunit *test, struct tw_run *r, u64 prev, u64 now)
{
	struct exec_work *work, *next;
	struct tw_item *it;
	u64 last = 0;

	for (work = exec_wheel_expire(&r->wheel, now); work; work = next) {
		next = work->next;
		it = container_of(exec_work_timer(work), struct tw_item, timer);
		KUNIT_EXPECT_TRUE_MSG(test, it->armed, "item %td fired twice",
				      it - r->items);
		KUNIT_EXPECT_LE_MSG(test, it->tick, now, "item %td early",
				    it - r->items);
		KUNIT_EXPECT_GT_MSG(test, it->tick, prev, "item %td late",
				    it - r->items);
		KUNIT_EXPECT_GE_MSG(test, it->tick, last, "item %td out of order",
				    it - r->items);
		last = it->tick;
		it->armed = false;
		r->fired++;
	}
	KUNIT_EXPECT_EQ(test, r->wheel.clk, now);
}

static void tw_cancel(struct tw_run *r, struct tw_item *it)
{
	exec_wheel_del(&r->wheel, 1, &it->timer);
	it->armed = false;
	r->cancelled++;
}

/*
 * Now and then, cancels the next item an early cascade would move, so that
 * cancels, not only the cascade, empty the slot in progress.
 */
static void tw_cancel_early_head(struct tw_run *r)
{
	struct exec_wheel *wh = &r->wheel;
	struct exec_work *head;

	if (wh->early == EXEC_WHEEL_NO_EVENT || tw_rand(r) % 8)
		return;
	head = wh->slots[wh->early_lvl][exec_wheel_digit(wh->early,
							 wh->early_lvl)];
	if (head)
		tw_cancel(r, container_of(exec_work_timer(head),
					  struct tw_item, timer));
}

static void tw_simulate(struct kunit *test, unsigned int early_budget)
{
	struct tw_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u64 start = (1ULL << 30) - 12345, now = start, prev;
	unsigned int i, step, row;
	struct tw_item *it;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rand = 0x9e3779b97f4a7c15ULL;
	exec_wheel_init(&r->wheel, now);
	for (i = 0; i < TW_ITEMS; i++)
		tw_arm(r, &r->items[i], now);

	for (step = 0; step < TW_STEPS; step++) {
		/* Cancel one, or re-arm one that is idle. */
		it = &r->items[tw_rand(r) % TW_ITEMS];
		if (it->armed && tw_rand(r) % 4 == 0)
			tw_cancel(r, it);
		else if (!it->armed)
			tw_arm(r, it, now);
		if (early_budget) {
			tw_cancel_early_head(r);
			exec_wheel_cascade_early(&r->wheel, early_budget);
			if (r->wheel.early != EXEC_WHEEL_NO_EVENT)
				r->early_steps++;
		}
		prev = now;
		now += 1 + tw_rand(r) % 200;
		tw_expire(test, r, prev, now);
	}
	/* Whatever is left comes out on its tick too. */
	while (now < start + 2 * (TW_STEPS * 200ULL + TW_AHEAD)) {
		if (early_budget)
			exec_wheel_cascade_early(&r->wheel, early_budget);
		prev = now;
		now += 1 + tw_rand(r) % 5000;
		tw_expire(test, r, prev, now);
	}

	for (i = 0; i < TW_ITEMS; i++)
		KUNIT_EXPECT_FALSE_MSG(test, r->items[i].armed,
				       "item %u never fired", i);
	for (row = 0; row < EXEC_WHEEL_ROWS; row++)
		KUNIT_EXPECT_EQ_MSG(test, r->wheel.pending[row], 0ULL,
				    "row %u", row);
	KUNIT_EXPECT_GT(test, r->fired, 1000UL);
	KUNIT_EXPECT_GT(test, r->cancelled, 100UL);
	if (early_budget)
		KUNIT_EXPECT_GT(test, r->early_steps, 100UL);
	kunit_info(test, "%lu fired, %lu cancelled, %lu steps with an early cascade",
		   r->fired, r->cancelled, r->early_steps);
}

static void timer_wheel_fires_each_item_on_its_tick(struct kunit *test)
{
	tw_simulate(test, 0);
}

/* Few items a step, so that slots are often half moved when they come. */
static void timer_wheel_early_cascade_fires_each_item_on_its_tick(
	struct kunit *test)
{
	tw_simulate(test, 3);
}

static struct kunit_case exec_timer_wheel_cases[] = {
	KUNIT_CASE(timer_wheel_fires_each_item_on_its_tick),
	KUNIT_CASE(timer_wheel_early_cascade_fires_each_item_on_its_tick),
	{}
};

static struct kunit_suite exec_timer_wheel_suite = {
	.name = "exec-timer-wheel",
	.test_cases = exec_timer_wheel_cases,
};

kunit_test_suites(&exec_timer_wheel_suite);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the timer wheel (core/timer_wheel.h) against a
 * reference, the deadlines of the armed items kept in a plain array.
 *
 * Two wheels, as a timer base has (the monotonic and the realtime clock):
 * an item is filed in the wheel of its index's parity, and unlinked by
 * exec_wheel_del() given both, as core/timer.c does.  The input is a start
 * tick and then a program: arm, re-arm (what
 * exec_timer_mod() does to the wheel), cancel, advance the clock by any
 * amount up to the last tick, step it back and rebase as a realtime clock
 * set backwards makes core/timer.c do, early cascades of any budget, and
 * cancels of the item an early cascade would move next.  After every
 * operation the next event must come no later than the earliest armed
 * deadline (else the clock event would be programmed late), and every
 * expiry must give exactly the armed items whose tick it reached, once,
 * in the order of their ticks.  At the end the clock runs to the last tick
 * and the wheel must be empty.
 */
#include <exec/exec.h>

#include "timer_wheel.h"
#include "fuzz.h"

#define WF_ITEMS	48U
#define WF_MAX_TICK	(exec_ns_to_tick(U64_MAX))

struct wf_item {
	struct exec_timer timer;
	struct exec_wheel *wheel;	/* its clock's */
	u64 tick;
	bool armed;
};

#define WF_WHEELS	2

static struct exec_wheel wf_wheels[WF_WHEELS];
static struct wf_item wf_items[WF_ITEMS];

static struct wf_item *wf_item_of(struct exec_work *work)
{
	return container_of(exec_work_timer(work), struct wf_item, timer);
}

/* The earliest armed tick of @wh, or EXEC_WHEEL_NO_EVENT. */
static u64 wf_min_tick(const struct exec_wheel *wh)
{
	u64 min = EXEC_WHEEL_NO_EVENT;
	unsigned int i;

	for (i = 0; i < WF_ITEMS; i++)
		if (wf_items[i].armed && wf_items[i].wheel == wh &&
		    wf_items[i].tick < min)
			min = wf_items[i].tick;
	return min;
}

static void wf_check_next_event(const struct exec_wheel *wh)
{
	u64 min = wf_min_tick(wh), event;
	unsigned int lvl = 0;

	event = exec_wheel_next_event(wh, &lvl);
	if (min == EXEC_WHEEL_NO_EVENT)
		return;
	fuzz_check(event <= min, "next event %llu after item tick %llu",
		   (unsigned long long)event, (unsigned long long)min);
	fuzz_check(event > wh->clk, "next event %llu at or before clk %llu",
		   (unsigned long long)event, (unsigned long long)wh->clk);
}

static void wf_cancel(struct wf_item *it)
{
	if (!it->armed)
		return;
	exec_wheel_del(wf_wheels, WF_WHEELS, &it->timer);
	it->armed = false;
}

/* Arms @it (again) @delta ticks after the clock, within the last tick. */
static void wf_arm(struct wf_item *it, u64 delta, unsigned int sub)
{
	u64 clk = it->wheel->clk, event;

	wf_cancel(it);
	if (clk >= WF_MAX_TICK)
		return;
	it->tick = delta >= WF_MAX_TICK - clk ? WF_MAX_TICK : clk + 1 + delta;
	/* Anywhere inside the tick: only the tick counts. */
	it->timer.expires = (it->tick << EXEC_WHEEL_TICK_SHIFT) |
			    (sub & ((1U << EXEC_WHEEL_TICK_SHIFT) - 1));
	event = exec_wheel_add(it->wheel, &it->timer, it->tick);
	it->armed = true;
	fuzz_check(event > clk && event <= it->tick,
		   "arm at tick %llu (clk %llu): event %llu",
		   (unsigned long long)it->tick, (unsigned long long)clk,
		   (unsigned long long)event);
}

static void wf_advance(struct exec_wheel *wh, u64 delta)
{
	u64 prev = wh->clk, limit, last = 0;
	struct exec_work *work, *next;
	struct wf_item *it;
	unsigned int i;

	limit = delta >= WF_MAX_TICK - prev ? WF_MAX_TICK : prev + delta;
	for (work = exec_wheel_expire(wh, limit); work; work = next) {
		next = work->next;
		it = wf_item_of(work);
		fuzz_check(it->armed && it->wheel == wh,
			   "item %td expired unarmed, or from another wheel",
			   it - wf_items);
		fuzz_check(it->tick <= limit, "item %td early: tick %llu, limit %llu",
			   it - wf_items, (unsigned long long)it->tick,
			   (unsigned long long)limit);
		fuzz_check(it->tick >= last, "item %td out of order",
			   it - wf_items);
		last = it->tick;
		it->armed = false;
	}
	fuzz_check(wh->clk == limit, "clk %llu, limit %llu",
		   (unsigned long long)wh->clk, (unsigned long long)limit);
	for (i = 0; i < WF_ITEMS; i++)
		fuzz_check(!wf_items[i].armed || wf_items[i].wheel != wh ||
			   wf_items[i].tick > limit,
			   "item %u late: tick %llu, limit %llu", i,
			   (unsigned long long)wf_items[i].tick,
			   (unsigned long long)limit);
}

/* The realtime clock set back: core/timer.c rebases the wheel. */
static void wf_step_back(struct exec_wheel *wh, u64 delta)
{
	u64 clk = wh->clk;

	exec_wheel_rebase(wh, delta > clk ? 0 : clk - delta);
}

/* Cancels the item the early cascade in progress would move next. */
static void wf_cancel_early_head(struct exec_wheel *wh)
{
	struct exec_work *head;

	if (wh->early == EXEC_WHEEL_NO_EVENT)
		return;
	head = wh->slots[wh->early_lvl][exec_wheel_digit(wh->early,
							 wh->early_lvl)];
	if (head)
		wf_cancel(wf_item_of(head));
}

static void wf_op(struct fuzz_in *in)
{
	u8 op = fuzz_u8(in);
	struct wf_item *it = &wf_items[(op >> 3) % WF_ITEMS];
	struct exec_wheel *wh = &wf_wheels[(op >> 3) % WF_WHEELS];
	u64 v;

	switch (op & 7) {
	case 0:
	case 1:
		v = fuzz_scaled(in);
		wf_arm(it, v, fuzz_u8(in) * 4U);
		break;
	case 2:
		wf_cancel(it);
		break;
	case 3:
	case 4:
		wf_advance(wh, fuzz_scaled(in));
		break;
	case 5:
		wf_step_back(wh, fuzz_scaled(in));
		break;
	case 6:
		exec_wheel_cascade_early(wh, 1 + (op >> 4) % 40);
		break;
	default:
		wf_cancel_early_head(wh);
		break;
	}
	wf_check_next_event(&wf_wheels[0]);
	wf_check_next_event(&wf_wheels[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned int i, w, row, ops = 0;
	u64 start;

	memset(wf_items, 0, sizeof(wf_items));
	for (i = 0; i < WF_ITEMS; i++)
		wf_items[i].wheel = &wf_wheels[i % WF_WHEELS];
	/* Any start, the last ticks included. */
	start = fuzz_scaled(&in);
	if (start > WF_MAX_TICK)
		start = WF_MAX_TICK - (start & 0xffff);
	/* The realtime clock elsewhere. */
	exec_wheel_init(&wf_wheels[0], start);
	exec_wheel_init(&wf_wheels[1], fuzz_scaled(&in) % WF_MAX_TICK);
	while (in.n && ops++ < 4096)
		wf_op(&in);
	/* Everything left fires, by the last tick at the latest. */
	for (w = 0; w < WF_WHEELS; w++) {
		wf_advance(&wf_wheels[w], WF_MAX_TICK);
		for (row = 0; row < EXEC_WHEEL_ROWS; row++)
			fuzz_check(!wf_wheels[w].pending[row],
				   "wheel %u row %u: pending %#llx", w, row,
				   (unsigned long long)wf_wheels[w].pending[row]);
	}
	for (i = 0; i < WF_ITEMS; i++)
		fuzz_check(!wf_items[i].armed, "item %u never fired", i);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The timer wheel: armed exec_timers of one clock, ordered by deadline well
 * enough to find the next one in O(levels), with O(1) arm and cancel.
 *
 * A hierarchical wheel with cascading (Varghese and Lauck's scheme 6), chosen
 * over a heap and over the kernel's non-cascading timer wheel:
 *  - a binary heap costs O(log n) per cancel, with a cache miss per level
 *    once the heap outgrows the cache;
 *  - the kernel's timer wheel never cascades and so fires up to 12% of the
 *    timeout late, where an executor must honour deadlines to the
 *    microsecond.
 * Here an item waits in a coarse slot while its deadline is far, and is
 * moved to finer levels as time comes closer ("cascading"), so it fires
 * within one tick of its deadline.  Each item costs no memory beyond its own
 * struct exec_timer: the slot lists are linked through exec_work::next, with
 * exec_timer::link pointing at whatever points at the item (hlist-style),
 * so unlinking touches only the item and its neighbours.
 *
 * Geometry: a tick is 2^10 ns (1.024 us).  Level L has 64 slots of 2^(6L)
 * ticks each; 9 levels cover every 64-bit nanosecond deadline.  Level 0
 * spans 65 us, level 1 4.2 ms, level 2 268 ms, level 3 17 s, level 4 18 min.
 *
 * Invariant: @clk is the last tick whose items have been expired.  An item
 * of tick e > @clk sits at the level L of the highest base-64 digit in which
 * e and @clk differ, in the slot given by e's digit L, which is then larger
 * than @clk's digit L.  So the next slot to process is, at the lowest level
 * that has one, the first non-empty slot above @clk's digit: found with one
 * mask and one find-first-set per level.  A level-0 slot holds items of one
 * tick, which all fire together; a higher slot is cascaded when time reaches
 * its first tick: its items are filed again relative to the new @clk, at
 * lower levels, or fire.
 *
 * All of it is guarded by the lock of the timer base that owns the wheel.
 */
#ifndef EXEC_CORE_TIMER_WHEEL_H
#define EXEC_CORE_TIMER_WHEEL_H

#include "internal.h"

#define EXEC_WHEEL_TICK_SHIFT	10
#define EXEC_WHEEL_LVL_SHIFT	6
#define EXEC_WHEEL_LVL_SIZE	(1U << EXEC_WHEEL_LVL_SHIFT)
#define EXEC_WHEEL_LVL_MASK	(EXEC_WHEEL_LVL_SIZE - 1)
#define EXEC_WHEEL_LEVELS	9
#define EXEC_WHEEL_SLOTS	(EXEC_WHEEL_LEVELS * EXEC_WHEEL_LVL_SIZE)
/* No event: larger than every tick (ticks have 64 - 10 bits). */
#define EXEC_WHEEL_NO_EVENT	U64_MAX

/**
 * struct exec_wheel - armed items of one clock
 * @clk: the last tick expired
 * @pending: bit s of word L: slot s of level L is not empty
 * @slots: heads of the slot lists, linked through exec_work::next
 */
struct exec_wheel {
	u64 clk;
	u64 pending[EXEC_WHEEL_LEVELS];
	struct exec_work *slots[EXEC_WHEEL_LEVELS][EXEC_WHEEL_LVL_SIZE];
};

static inline struct exec_timer *exec_work_timer(struct exec_work *work)
{
	return container_of(work, struct exec_timer, work);
}

static inline u64 exec_ns_to_tick(u64 ns)
{
	return ns >> EXEC_WHEEL_TICK_SHIFT;
}

/*
 * When the items of event tick @tick may run: once the whole tick has passed,
 * so that none starts before its deadline.
 */
static inline u64 exec_tick_wake_ns(u64 tick)
{
	if (tick >= exec_ns_to_tick(U64_MAX))
		return EXEC_TIME_NEVER;
	return (tick + 1) << EXEC_WHEEL_TICK_SHIFT;
}

static inline unsigned int exec_wheel_digit(u64 tick, unsigned int lvl)
{
	return (tick >> (lvl * EXEC_WHEEL_LVL_SHIFT)) & EXEC_WHEEL_LVL_MASK;
}

static inline void exec_wheel_init(struct exec_wheel *wh, u64 clk)
{
	memset(wh, 0, sizeof(*wh));
	wh->clk = clk;
}

/*
 * Files @t, whose deadline tick @tick is later than @wh->clk.  Returns the
 * tick of the slot's event: when it fires or cascades.
 */
static inline u64 exec_wheel_add(struct exec_wheel *wh, struct exec_timer *t,
				 u64 tick)
{
	unsigned int lvl = (fls64(tick ^ wh->clk) - 1) / EXEC_WHEEL_LVL_SHIFT;
	unsigned int slot = exec_wheel_digit(tick, lvl);
	struct exec_work **head = &wh->slots[lvl][slot];
	struct exec_work *first = *head;

	t->work.next = first;
	if (first)
		exec_work_timer(first)->link = &t->work.next;
	*head = &t->work;
	t->link = head;
	wh->pending[lvl] |= 1ULL << slot;
	return tick & ~((1ULL << (lvl * EXEC_WHEEL_LVL_SHIFT)) - 1);
}

/*
 * If @link, the link an item was just unlinked from, is a slot head of @wh
 * that is now empty, clears the slot's pending bit.  Returns whether @link
 * belongs to @wh's slots.
 */
static inline bool exec_wheel_unlinked(struct exec_wheel *wh,
				       struct exec_work **link)
{
	unsigned long first = (unsigned long)&wh->slots[0][0];
	unsigned long addr = (unsigned long)link;
	unsigned long slot;

	if (addr < first || addr >= first + sizeof(wh->slots))
		return false;
	slot = (addr - first) / sizeof(wh->slots[0][0]);
	if (!*link)
		wh->pending[slot / EXEC_WHEEL_LVL_SIZE] &=
			~(1ULL << (slot % EXEC_WHEEL_LVL_SIZE));
	return true;
}

/*
 * Unlinks @t from whichever of the @nr wheels at @wheels it is filed in.
 * Only the last item of a slot can leave it empty, and its link is then the
 * slot head, which tells the wheel.
 */
static inline void exec_wheel_del(struct exec_wheel *wheels, unsigned int nr,
				  struct exec_timer *t)
{
	struct exec_work **link = t->link;
	struct exec_work *next = t->work.next;
	unsigned int i;

	*link = next;
	if (next) {
		exec_work_timer(next)->link = link;
		return;
	}
	for (i = 0; i < nr; i++)
		if (exec_wheel_unlinked(&wheels[i], link))
			return;
}

/*
 * The tick of the next event (fire or cascade), or EXEC_WHEEL_NO_EVENT;
 * @lvlp gets its level.  Events of level L come before those of level L + 1
 * (the latter have @clk's digits below L + 1 all zero and a larger digit
 * L + 1), so the lowest level with a slot above @clk's digit has it.
 */
static inline u64 exec_wheel_next_event(const struct exec_wheel *wh,
					unsigned int *lvlp)
{
	unsigned int lvl, shift, digit;
	u64 above;

	for (lvl = 0; lvl < EXEC_WHEEL_LEVELS; lvl++) {
		shift = lvl * EXEC_WHEEL_LVL_SHIFT;
		digit = exec_wheel_digit(wh->clk, lvl);
		if (digit == EXEC_WHEEL_LVL_MASK)
			continue;
		above = wh->pending[lvl] & (~0ULL << (digit + 1));
		if (!above)
			continue;
		*lvlp = lvl;
		return ((wh->clk >> (shift + EXEC_WHEEL_LVL_SHIFT))
			<< (shift + EXEC_WHEEL_LVL_SHIFT)) |
		       ((u64)__ffs64(above) << shift);
	}
	return EXEC_WHEEL_NO_EVENT;
}

/* Detaches and returns the list of one slot. */
static inline struct exec_work *exec_wheel_take_slot(struct exec_wheel *wh,
						     unsigned int lvl,
						     unsigned int slot)
{
	struct exec_work *list = wh->slots[lvl][slot];

	wh->slots[lvl][slot] = NULL;
	wh->pending[lvl] &= ~(1ULL << slot);
	return list;
}

#endif /* EXEC_CORE_TIMER_WHEEL_H */

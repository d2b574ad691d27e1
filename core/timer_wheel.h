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
 * Early cascades.  A slot of level 2 or 3 holds every item of its span
 * (4.2 ms, 268 ms): thousands, for a busy wheel, all moved at once when
 * time reaches the slot, while the items due at that moment wait, the
 * longer the more there are (Documentation/benchmarks.rst).  So whoever
 * expires the wheel, when the next event leaves it time, moves a few items
 * of the next such slot ahead of time
 * (exec_wheel_cascade_early()) into a second set of lower levels, the
 * early rows, filed relative to the slot's first tick @early as if @clk
 * were already there.  Items armed meanwhile for the slot's span go to the
 * early rows directly.  The slot keeps its pending bit until its event,
 * which then only files what is left and moves the early rows' heads into
 * the lower levels, empty at that moment (exec_wheel_take_early()).  One
 * slot at a time: another level-2 or level-3 slot that comes due before
 * the one in progress is cascaded at its time, as before.
 *
 * All of it is guarded by the lock of the timer base that owns the wheel,
 * but for @early_more, also read without it as a hint.
 */
#ifndef EXEC_CORE_TIMER_WHEEL_H
#define EXEC_CORE_TIMER_WHEEL_H

#include "internal.h"

#define EXEC_WHEEL_TICK_SHIFT	10
#define EXEC_WHEEL_LVL_SHIFT	6
#define EXEC_WHEEL_LVL_SIZE	(1U << EXEC_WHEEL_LVL_SHIFT)
#define EXEC_WHEEL_LVL_MASK	(EXEC_WHEEL_LVL_SIZE - 1)
#define EXEC_WHEEL_LEVELS	9
/* Levels whose slots are cascaded early (from 2 up to this one). */
#define EXEC_WHEEL_EARLY_MIN	2
#define EXEC_WHEEL_EARLY_MAX	3
/* Rows: the levels, then the early rows, levels 0 to EARLY_MAX - 1. */
#define EXEC_WHEEL_ROWS		(EXEC_WHEEL_LEVELS + EXEC_WHEEL_EARLY_MAX)
#define EXEC_WHEEL_EARLY_ROW(lvl)	(EXEC_WHEEL_LEVELS + (lvl))
/* No event: larger than every tick (ticks have 64 - 10 bits). */
#define EXEC_WHEEL_NO_EVENT	U64_MAX

/**
 * struct exec_wheel - armed items of one clock
 * @clk: the last tick expired
 * @early: the first tick of the slot being cascaded early, or
 *	EXEC_WHEEL_NO_EVENT
 * @early_lvl: its level
 * @early_more: an early cascade may have items to move; read without the
 *	lock, as a hint, by exec_timer_early_ready()
 * @pending: bit s of word R: slot s of row R is not empty
 * @slots: heads of the slot lists, linked through exec_work::next; rows
 *	0 to EXEC_WHEEL_LEVELS - 1 are the levels, the rest the early rows
 */
struct exec_wheel {
	u64 clk;
	u64 early;
	unsigned int early_lvl;
	bool early_more;
	u64 pending[EXEC_WHEEL_ROWS];
	struct exec_work *slots[EXEC_WHEEL_ROWS][EXEC_WHEEL_LVL_SIZE];
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
	wh->early = EXEC_WHEEL_NO_EVENT;
}

/* Links @t at the head of slot @slot of row @row. */
static inline void exec_wheel_link(struct exec_wheel *wh, struct exec_timer *t,
				   unsigned int row, unsigned int slot)
{
	struct exec_work **head = &wh->slots[row][slot];
	struct exec_work *first = *head;

	t->work.next = first;
	if (first)
		exec_work_timer(first)->link = &t->work.next;
	*head = &t->work;
	t->link = head;
	wh->pending[row] |= 1ULL << slot;
}

/* Whether @tick falls in the span of the slot being cascaded early. */
static inline bool exec_wheel_in_early(const struct exec_wheel *wh, u64 tick)
{
	return wh->early != EXEC_WHEEL_NO_EVENT && tick >= wh->early &&
	       tick - wh->early < 1ULL << (wh->early_lvl *
					    EXEC_WHEEL_LVL_SHIFT);
}

/*
 * Files @t, whose deadline tick @tick is later than @wh->clk.  Returns the
 * tick of the slot's event: when it fires or cascades.
 */
static inline u64 exec_wheel_add(struct exec_wheel *wh, struct exec_timer *t,
				 u64 tick)
{
	unsigned int lvl;

	if (exec_wheel_in_early(wh, tick)) {
		/* As if @clk were @early; its own tick in slot 0 of level 0. */
		lvl = tick == wh->early ? 0 :
		      (fls64(tick ^ wh->early) - 1) / EXEC_WHEEL_LVL_SHIFT;
		exec_wheel_link(wh, t, EXEC_WHEEL_EARLY_ROW(lvl),
				exec_wheel_digit(tick, lvl));
		return wh->early;
	}
	lvl = (fls64(tick ^ wh->clk) - 1) / EXEC_WHEEL_LVL_SHIFT;
	exec_wheel_link(wh, t, lvl, exec_wheel_digit(tick, lvl));
	if (lvl >= EXEC_WHEEL_EARLY_MIN && lvl <= EXEC_WHEEL_EARLY_MAX &&
	    wh->early == EXEC_WHEEL_NO_EVENT && !wh->early_more)
		WRITE_ONCE(wh->early_more, true);
	return tick & ~((1ULL << (lvl * EXEC_WHEEL_LVL_SHIFT)) - 1);
}

/*
 * If @link, the link an item was just unlinked from, is a slot head of @wh
 * that is now empty, clears the slot's pending bit, but for the slot being
 * cascaded early, whose event must still come.  Returns whether @link
 * belongs to @wh's slots.
 */
static inline bool exec_wheel_unlinked(struct exec_wheel *wh,
				       struct exec_work **link)
{
	unsigned long first = (unsigned long)&wh->slots[0][0];
	unsigned long addr = (unsigned long)link;
	unsigned int row, slot;

	if (addr < first || addr >= first + sizeof(wh->slots))
		return false;
	slot = (addr - first) / sizeof(wh->slots[0][0]);
	row = slot / EXEC_WHEEL_LVL_SIZE;
	slot %= EXEC_WHEEL_LVL_SIZE;
	if (*link || (wh->early != EXEC_WHEEL_NO_EVENT &&
		      row == wh->early_lvl &&
		      slot == exec_wheel_digit(wh->early, row)))
		return true;
	wh->pending[row] &= ~(1ULL << slot);
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
 * The tick of the next event (fire or cascade) of level @from or above, or
 * EXEC_WHEEL_NO_EVENT; @lvlp gets its level.  Events of level L come before
 * those of level L + 1 (the latter have @clk's digits below L + 1 all zero
 * and a larger digit L + 1), so the lowest level with a slot above @clk's
 * digit has it.
 */
static inline u64 exec_wheel_next_event_from(const struct exec_wheel *wh,
					     unsigned int from,
					     unsigned int *lvlp)
{
	unsigned int lvl, shift, digit;
	u64 above;

	for (lvl = from; lvl < EXEC_WHEEL_LEVELS; lvl++) {
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

/* The tick of the next event, or EXEC_WHEEL_NO_EVENT; @lvlp its level. */
static inline u64 exec_wheel_next_event(const struct exec_wheel *wh,
					unsigned int *lvlp)
{
	return exec_wheel_next_event_from(wh, 0, lvlp);
}

/* Detaches and returns the list of one slot (of any row). */
static inline struct exec_work *exec_wheel_take_slot(struct exec_wheel *wh,
						     unsigned int row,
						     unsigned int slot)
{
	struct exec_work *list = wh->slots[row][slot];

	wh->slots[row][slot] = NULL;
	wh->pending[row] &= ~(1ULL << slot);
	return list;
}

/*
 * Moves up to @budget items of the next slot of levels EARLY_MIN to
 * EARLY_MAX into the early rows, choosing that slot first if none is in
 * progress.  Returns whether items are left to move.
 */
static inline bool exec_wheel_cascade_early(struct exec_wheel *wh,
					    unsigned int budget)
{
	struct exec_work **head, *work, *next;
	struct exec_timer *t;
	unsigned int lvl = 0;
	u64 event;

	if (wh->early == EXEC_WHEEL_NO_EVENT) {
		event = exec_wheel_next_event_from(wh, EXEC_WHEEL_EARLY_MIN,
						   &lvl);
		if (event == EXEC_WHEEL_NO_EVENT ||
		    lvl > EXEC_WHEEL_EARLY_MAX) {
			WRITE_ONCE(wh->early_more, false);
			return false;
		}
		wh->early = event;
		wh->early_lvl = lvl;
	}
	head = &wh->slots[wh->early_lvl][exec_wheel_digit(wh->early,
							  wh->early_lvl)];
	for (; budget && (work = *head); budget--) {
		next = work->next;
		*head = next;
		if (next)
			exec_work_timer(next)->link = head;
		t = exec_work_timer(work);
		exec_wheel_add(wh, t, exec_ns_to_tick(t->expires));
	}
	/* The slot keeps its pending bit (exec_wheel_unlinked()). */
	WRITE_ONCE(wh->early_more, *head != NULL);
	return *head;
}

/*
 * At the event of the slot cascaded early, @clk now at its first tick:
 * moves the early rows into the lower levels, which are empty by then
 * (their items all came before this event), and returns the items of
 * @clk's own tick, which are due.  Items found in the lower levels despite
 * that are returned too, to be filed again.
 */
static inline struct exec_work *exec_wheel_take_early(struct exec_wheel *wh)
{
	struct exec_work *list = NULL, *work, *next, *first;
	unsigned int lvl, row, slot;
	u64 pending;

	for (lvl = 0; lvl < wh->early_lvl; lvl++) {
		while (WARN_ON_ONCE(wh->pending[lvl])) {
			work = exec_wheel_take_slot(wh, lvl,
						    __ffs64(wh->pending[lvl]));
			for (; work; work = next) {
				next = work->next;
				work->next = list;
				list = work;
			}
		}
		row = EXEC_WHEEL_EARLY_ROW(lvl);
		pending = wh->pending[row];
		wh->pending[lvl] = pending;
		wh->pending[row] = 0;
		for (; pending; pending &= pending - 1) {
			slot = __ffs64(pending);
			first = wh->slots[row][slot];
			wh->slots[row][slot] = NULL;
			wh->slots[lvl][slot] = first;
			exec_work_timer(first)->link = &wh->slots[lvl][slot];
		}
	}
	wh->early = EXEC_WHEEL_NO_EVENT;
	WRITE_ONCE(wh->early_more, true);
	/* @clk's own tick: slot 0 of level 0, which is never above @clk's. */
	work = exec_wheel_take_slot(wh, 0, 0);
	for (; work; work = next) {
		next = work->next;
		work->next = list;
		list = work;
	}
	return list;
}

/*
 * Files the items of the list @work again, relative to @wh->clk, but those
 * due at @wh->clk, which go to *@tail.  Returns the new tail.
 */
static inline struct exec_work **exec_wheel_file(struct exec_wheel *wh,
						 struct exec_work *work,
						 struct exec_work **tail)
{
	struct exec_work *next;
	struct exec_timer *t;
	u64 tick;

	for (; work; work = next) {
		next = work->next;
		t = exec_work_timer(work);
		tick = exec_ns_to_tick(t->expires);
		if (tick <= wh->clk) {
			*tail = work;
			tail = &work->next;
		} else {
			exec_wheel_add(wh, t, tick);
		}
	}
	return tail;
}

/*
 * Takes every item whose tick is at most @limit out of @wh, cascading the
 * slots it passes, and moves @clk to @limit.  Returns them linked through
 * exec_work::next, in the order they came due.
 */
static inline struct exec_work *exec_wheel_expire(struct exec_wheel *wh,
						  u64 limit)
{
	struct exec_work *due = NULL, **tail = &due, *work;
	unsigned int lvl = 0;
	u64 event;

	for (;;) {
		event = exec_wheel_next_event(wh, &lvl);
		if (event > limit)
			break;
		wh->clk = event;
		work = exec_wheel_take_slot(wh, lvl,
					    exec_wheel_digit(event, lvl));
		/* The early rows first: what is left files into them no more. */
		if (event == wh->early && lvl == wh->early_lvl)
			tail = exec_wheel_file(wh, exec_wheel_take_early(wh),
					       tail);
		tail = exec_wheel_file(wh, work, tail);
	}
	if (limit > wh->clk)
		wh->clk = limit;
	*tail = NULL;
	return due;
}

/*
 * The realtime clock went back behind @wh->clk: file every item again
 * relative to the new time, so that none looks due early.
 */
static inline void exec_wheel_rebase(struct exec_wheel *wh, u64 clk)
{
	struct exec_work *list = NULL, *work, *next;
	unsigned int row, slot;

	for (row = 0; row < EXEC_WHEEL_ROWS; row++) {
		for (slot = 0; slot < EXEC_WHEEL_LVL_SIZE; slot++) {
			for (work = exec_wheel_take_slot(wh, row, slot); work;
			     work = next) {
				next = work->next;
				work->next = list;
				list = work;
			}
		}
	}
	wh->clk = clk;
	wh->early = EXEC_WHEEL_NO_EVENT;
	for (work = list; work; work = next) {
		next = work->next;
		exec_wheel_add(wh, exec_work_timer(work),
			       exec_ns_to_tick(exec_work_timer(work)->expires));
	}
}

#endif /* EXEC_CORE_TIMER_WHEEL_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The priority executor (P0113 6.8, N3785 prioritized pools).
 *
 * Items wait in one intrusive FIFO per level, linked through exec_work::next,
 * with a bitmap of the levels that hold items: the highest is found with
 * fls64().  Everything that decides which item goes next is guarded by one
 * raw spinlock, held for a few list operations, never while an item runs.
 *
 * Runners.  The executor runs its items through runners, items of its own
 * that it submits to the underlying executor; at most @max_running of them
 * are scheduled or running at once ("reserved").  A runner takes the next
 * item under the lock, runs it without the lock, and goes on until the
 * levels are empty or it has run EXEC_PRIORITY_BATCH items; then it submits
 * itself again if items are left, keeping its reservation, so that other
 * work on the underlying executor gets its turn between batches.
 *
 * A submission that finds no runner reserved reserves the first one and sets
 * @first_pending until that runner starts; while it is set nobody reserves
 * another, so no runner can take the submitted item before the first runner
 * starts, and if the underlying executor refuses it the item is still there
 * to be taken back: the submission fails with the underlying executor's
 * error, as on a serial executor.  With @max_running above 1, a submission or
 * a runner that has just taken an item reserves one more runner while fewer
 * are reserved than there are items waiting or running, so several runners
 * drain the levels, each taking the highest item left.
 *
 * When the last runner's reservation ends while items wait (the underlying
 * executor refused or discarded a runner), nobody would take them: whoever
 * ends it discards them, so no item is ever stranded.
 *
 * One run of an item at a time.  An item submitted again while it runs is
 * pending again at once, and with several runners another one could take
 * it and run it beside the first run.  A workqueue never runs a work item
 * twice at once, and neither does a thread pool (core/pool_rerun.h); so
 * here, under the lock that every take and every run's end hold anyway, and
 * with no atomic operation but the one that clears the pending bit: a
 * runner that starts a plain item names itself (its address, as a thread
 * pool worker does) in the item's flags, in that RMW.  A runner that takes
 * an item whose flags name another runner whose @run is that item hands it
 * to that runner (@again) and takes the next; the item stays pending, so
 * it cannot be submitted a third time.  The runner whose run
 * returns runs its @again item next, in the same section of the lock,
 * before anything else and past the batch limit, so a flush that waits for
 * the run waits for the rerun too, and nothing is stranded.  Items there
 * are counted as pending (@nr_again), taken back by a cancel, discarded by
 * destroy (the runner leaves it where it is once @dying is set), and run by
 * a managed queue's close like any queued item.  They no longer count
 * against the queue limit: they left the levels.  A timed item's flags hold
 * its target, not a name: its runs are kept apart by its timer
 * (exec_timer_leave_to_runner()).  A single runner has nobody to hand items
 * to: it names nobody and looks at no flags.
 *
 * Aging.  Nothing is added to struct exec_work.  Each level keeps two times:
 * @tail_ns, when its newest item was queued, and @head_ns, a time no
 * earlier than when its oldest item was queued: the item's own enqueue time
 * if it came to an empty level, else the level's @tail_ns at the moment it
 * became the oldest (it was queued before the newest item, so no later).
 * The levels' oldest items are compared against now - @aging_ns at every
 * take, and the oldest of those that have waited longer runs first.  So an
 * item is never promoted early; it may be promoted late by how long its
 * level kept receiving items before it became the oldest (items queued in a
 * burst are promoted together).  The cost, with aging on: a clock read per
 * submission and per take, and a look at each non-empty level per take.
 *
 * Lifetime.  The handle holds a reference, and each reserved runner one.
 * exec_priority_destroy() sets @dying, waits until no item runs, and
 * discards what waits, on the levels and in the runners' @again; a runner
 * that starts later only drops its
 * reference, so the underlying executor may still hold it after destroy.
 * A managed queue's destroy (exec_prio_close()) sets @closed instead:
 * submissions fail, but the runners go on until the levels are empty, and
 * the last reference, a runner's, frees the executor and lets go of the
 * underlying one (EXEC_DEP_MANAGED_QUEUE).
 *
 * Outstanding work.  Units counted on the executor (work guards, and timed
 * items armed on it where it counts them) are forwarded to the underlying
 * executor, as P0113's strand forwards them to its inner executor: a join
 * of the pool underneath or a run of the loop scheduler waits for them.  A
 * managed queue also counts them itself, for exec_prio_wait_idle(), and
 * counts its timed items always; a priority executor counts those only
 * when the underlying executor counts its own.
 *
 * Queue limit.  With @queue_limit, a submission that finds @nr_queued at the
 * limit waits on @room_wq (or fails with -EAGAIN); a runner that takes an
 * item wakes it.  Timed items that come due (EXEC_SUBMIT_FORCE) were
 * accepted when armed: counted, never refused.
 *
 * Time limit.  With @time_limit_ns, each runner notes under the lock which
 * item it runs and since when.  The executor is a client of the stall
 * watchdog (@wd, core/watchdog.c), whose one clock event device (an hrtimer
 * in the kernel, a thread in userspace) serves every pool and every time
 * limit: each pass of the device asks the executor, under the lock, which
 * items have overrun and when its next item may, and the device is
 * programmed for the earliest such time; a runner that starts an item due
 * before that time asks for it at once (exec_watchdog_arm()).  Each item
 * that has overrun is reported once, while it still runs, so an item stuck
 * for good is reported too.  The device works whether or not the
 * underlying executor has a free thread.  An item that overran and returns
 * before a pass saw it is reported on return.  An item within its limit is
 * never reported.
 */
#include "stats_count.h"

#define EXEC_PRIORITY_BATCH	64

/**
 * struct exec_prio_level - the items waiting at one priority
 * @head: L: the oldest; NULL when the level is empty
 * @tail: L: the newest
 * @head_ns: L: no earlier than when @head was queued (with aging only)
 * @tail_ns: L: when @tail was queued (with aging only)
 */
struct exec_prio_level {
	struct exec_work *head;
	struct exec_work *tail;
	u64 head_ns;
	u64 tail_ns;
};

/**
 * struct exec_prio_runner - an item the executor submits to its underlying
 * @work: pending while the underlying executor holds it
 * @prio: its executor; set at creation
 * @next_free: L: the next runner not reserved
 * @item: L: what the item it runs stands for (exec_work_symbol()); with a
 *	time limit only
 * @started_ns: L: when that item started; with a time limit only
 * @busy: L: it runs an item; with a time limit only
 * @reported: L: that item has been reported for overrunning
 * @frame: pushed on its thread while it runs an item; owner is the executor
 * @run: L: the item it took and runs, NULL between items (cancel, flush)
 * @run_seq: L: items it has taken, ever
 * @again: L: @run, submitted again while it runs and taken by another
 *	runner, which handed it here: it runs next, after @run returns; still
 *	pending meanwhile.  NULL if none; with @max_running above 1 only
 *
 * Cache-line aligned: its address is its name in the flags of the items it
 * runs (EXEC_WORK_RUNNER_MASK), as a thread pool worker's is.
 */
struct exec_prio_runner {
	struct exec_work work;
	struct exec_priority *prio;
	struct exec_prio_runner *next_free;
	const void *item;
	u64 started_ns;
	bool busy;
	bool reported;
	struct exec_frame frame;
	struct exec_work *run;
	unsigned long run_seq;
	struct exec_work *again;
} ____cacheline_aligned;

/**
 * struct exec_priority - a priority executor
 * @ex: the abstract executor
 * @underlying: runs the runners; set at creation
 * @nr_levels: levels 0 .. @nr_levels - 1; set at creation
 * @max_running: runners that may be reserved at once; set at creation
 * @default_level: the level of exec_submit(); set at creation
 * @aging_ns: the aging bound, 0 for none; set at creation
 * @queue_limit: most items waiting, 0 for no bound; set at creation
 * @time_limit_ns: the time limit of an item, 0 for none; set at creation
 * @time_limit_fatal: an overrun is fatal; set at creation
 * @managed: a managed queue (struct exec_prio_config); set at creation
 * @name: in reports; set at creation
 * @refs: A: references (handle + reserved runners + waiters for room or
 *	idle)
 * @lock: guards the fields marked L; raw, as submissions come from any
 *	context, hardirq included, and a priority executor over the inline
 *	executor takes items in the submitter's context
 * @nonempty: L: bit n set when level n holds items
 * @nr_queued: L: items waiting on the levels; read locklessly by
 *	exec_pending_count()
 * @nr_again: L: items waiting in a runner's @again; read locklessly by
 *	exec_pending_count()
 * @nr_reserved: L: runners scheduled on @underlying or running
 * @nr_running: L: items taken by a runner and not yet returned
 * @first_pending: L: the only reserved runner has not started yet; no
 *	other runner is reserved meanwhile
 * @dying: L: exec_priority_destroy() has begun
 * @closed: L: exec_prio_close() has begun: submissions fail, the items
 *	queued still run
 * @nr_units: L: outstanding work of a managed queue: timed items armed on
 *	it, units of exec_on_work_started()
 * @free_runners: L: runners not reserved, linked through @next_free
 * @idle_wq: exec_priority_destroy() waits here for @nr_running to reach
 *	0, exec_prio_wait_idle() for everything to be done
 * @room_wq: submitters wait here for room below @queue_limit
 * @wd: I: with a time limit, the executor as the watchdog's client, on its
 *	list from creation until the last reference goes (@watched); its
 *	link W:
 * @wd_at: L: with a time limit, the time the watchdog's device will look
 *	at the executor by; EXEC_TIME_NEVER if no item needs a look
 * @watched: I: @wd is on the watchdog's list
 * @runners: the @max_running runners; set at creation
 * @probe: times one item's wait at a time (core/stats_count.h)
 * @stats: L: items started and completed, the longest run and wait
 * @nr_accepted: L: submissions accepted, ever
 * @nr_scheduled: L: runners submitted to @underlying, ever
 * @nr_refused: A: submissions refused
 * @nr_discarded: A: items discarded
 * @stats_file: the statistics file of the backend, or NULL; set at
 *	creation, removed first thing by destroy or close
 * @levels: L: the @nr_levels FIFOs
 *
 * The statistics marked L are written with WRITE_ONCE(), as
 * exec_priority_stats() reads them without the lock.
 */
struct exec_priority {
	struct exec_executor ex;
	struct exec_executor *underlying;
	unsigned int nr_levels;
	unsigned int max_running;
	unsigned int default_level;
	u64 aging_ns;
	unsigned long queue_limit;
	u64 time_limit_ns;
	bool time_limit_fatal;
	bool managed;
	char *name;
	atomic_t refs;
	raw_spinlock_t lock;
	u64 nonempty;
	unsigned long nr_queued;
	unsigned int nr_again;
	unsigned int nr_reserved;
	unsigned int nr_running;
	bool first_pending;
	bool dying;
	bool closed;
	unsigned long nr_units;
	struct exec_prio_runner *free_runners;
	wait_queue_head_t idle_wq;
	wait_queue_head_t room_wq;
	struct exec_wd_client wd;
	u64 wd_at;
	bool watched;
	struct exec_prio_runner *runners;
	struct exec_stats_probe probe;
	struct exec_stats_run stats;
	unsigned long nr_accepted;
	unsigned long nr_scheduled;
	atomic_long_t nr_refused;
	atomic_long_t nr_discarded;
	void *stats_file;
	struct exec_prio_level levels[];
};

static const struct exec_executor_ops exec_priority_ops;
static const struct exec_executor_ops exec_managed_queue_ops;

static struct exec_priority *exec_to_prio(struct exec_executor *ex)
{
	return container_of(ex, struct exec_priority, ex);
}

static void exec_prio_put(struct exec_priority *p)
{
	if (!atomic_dec_and_test(&p->refs))
		return;
	if (p->watched)
		exec_watchdog_remove_client(&p->wd);
	exec_timers_free(&p->ex);
	exec_executor_fini(&p->ex);
	/* A managed queue's last item is done: the underlying may go. */
	if (p->managed)
		exec_executor_undepend(p->underlying, EXEC_DEP_MANAGED_QUEUE);
	raw_spin_lock_destroy(&p->lock);
	kfree(p->name);
	kfree(p->runners);
	kfree(p);
}

/* Wakes whoever waits for room, after items were taken or dropped. */
static void exec_prio_wake_room(struct exec_priority *p)
{
	/* Full barrier, then the check: pairs with wait_event(). */
	if (p->queue_limit && wq_has_sleeper(&p->room_wq))
		wake_up_all(&p->room_wq);
}

/* Wakes destroy and wait_until_complete, which recheck their condition. */
static void exec_prio_wake_idle(struct exec_priority *p)
{
	if (wq_has_sleeper(&p->idle_wq))
		wake_up_all(&p->idle_wq);
}

static atomic_long_t exec_prio_reports;

/**
 * exec_prio_test_reports - how many time limit reports have been made
 *
 * For the tests.
 *
 * Context: Any context.
 * Return: the count since the library was loaded.
 */
unsigned long exec_prio_test_reports(void)
{
	return atomic_long_read(&exec_prio_reports);
}
EXPORT_SYMBOL_FOR_TESTS(exec_prio_test_reports);

/**
 * exec_priority_test_held - how many items wait for their run to return
 * @ex: a priority executor or managed queue
 *
 * For the tests: items submitted again while they ran, taken by another
 * runner and handed to the one that runs them (exec_prio_take_runnable()).
 *
 * Context: Any context.
 * Return: the runners of @ex that hold such an item now.
 */
unsigned int exec_priority_test_held(struct exec_executor *ex)
{
	return READ_ONCE(exec_to_prio(ex)->nr_again);
}
EXPORT_SYMBOL_FOR_TESTS(exec_priority_test_held);

/* Reports an item that overran; without locks, as pr_warn() may sleep. */
static void exec_prio_report(struct exec_priority *p, const void *item,
			     u64 ran_ns, bool running)
{
	char sym[EXEC_SYMBOL_NAME_LEN];

	exec_symbol_name(sym, sizeof(sym), item);
	pr_warn("exec: queue \"%s\": item %s ran for %llu ms (limit %llu ms)%s\n",
		p->name, sym, (unsigned long long)div_u64(ran_ns, NSEC_PER_MSEC),
		(unsigned long long)div_u64(p->time_limit_ns, NSEC_PER_MSEC),
		running ? ", still running" : "");
	atomic_long_inc(&exec_prio_reports);
	if (p->time_limit_fatal)
		BUG();
}

/* Under @lock: @r starts @work; the watchdog covers it. */
static void exec_prio_watch_start(struct exec_priority *p,
				  struct exec_prio_runner *r,
				  struct exec_work *work)
{
	u64 due;

	r->item = exec_work_symbol(work);
	r->started_ns = ktime_get_ns();
	r->busy = true;
	r->reported = false;
	due = r->started_ns + p->time_limit_ns;
	if (due < p->wd_at) {
		p->wd_at = due;
		exec_watchdog_arm(due);
	}
}

/*
 * Under @lock: @r's item has returned.  Returns how long it ran if it
 * overran and the watchdog has not reported it yet, else 0.
 */
static u64 exec_prio_watch_end(struct exec_priority *p,
			       struct exec_prio_runner *r)
{
	u64 ran = ktime_get_ns() - r->started_ns;

	r->busy = false;
	if (r->reported || ran < p->time_limit_ns)
		return 0;
	r->reported = true;
	return ran;
}

/*
 * The watchdog's look (struct exec_wd_client): in hard interrupt context in
 * the kernel, on the device's thread in userspace.  Marks as reported, and
 * hands to the watchdog, at most @max items that have overrun; *@next is
 * when the next item that may overrun will, or now if more have than @max.
 */
static unsigned int exec_prio_wd_check(struct exec_wd_client *c,
				       struct exec_wd_late *late,
				       unsigned int max, u64 *next)
{
	struct exec_priority *p = container_of(c, struct exec_priority, wd);
	struct exec_prio_runner *r;
	unsigned int i, nr = 0;
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&p->lock, flags);
	now = ktime_get_ns();
	*next = EXEC_TIME_NEVER;
	for (i = 0; i < p->max_running; i++) {
		r = &p->runners[i];
		if (!r->busy || r->reported)
			continue;
		if (now - r->started_ns < p->time_limit_ns) {
			*next = min(*next, r->started_ns + p->time_limit_ns);
		} else if (nr < max) {
			r->reported = true;
			late[nr].item = r->item;
			late[nr++].ran_ns = now - r->started_ns;
		} else {
			*next = now;
		}
	}
	p->wd_at = *next;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return nr;
}

/* The watchdog's report of an item that is still running. */
static void exec_prio_wd_report(struct exec_wd_client *c,
				const struct exec_wd_late *late)
{
	struct exec_priority *p = container_of(c, struct exec_priority, wd);

	exec_prio_report(p, late->item, late->ran_ns, true);
}

/* Under @lock: @work goes to the back of @level; @now is 0 without aging. */
static void exec_prio_enqueue(struct exec_priority *p, struct exec_work *work,
			      unsigned int level, u64 now)
{
	struct exec_prio_level *l = &p->levels[level];

	work->next = NULL;
	if (l->head) {
		/* Read before the lock: keep the times in queue order. */
		if (now < l->tail_ns)
			now = l->tail_ns;
		l->tail->next = work;
	} else {
		l->head = work;
		l->head_ns = now;
		p->nonempty |= 1ULL << level;
	}
	l->tail = work;
	l->tail_ns = now;
	WRITE_ONCE(p->nr_queued, p->nr_queued + 1);
}

/*
 * Under @lock, with items waiting: the level to take from.  The highest,
 * unless the oldest item of some level has waited longer than the aging
 * bound: then the level whose oldest item is the oldest of those.
 */
static unsigned int exec_prio_pick(struct exec_priority *p)
{
	unsigned int level = fls64(p->nonempty) - 1, l;
	u64 bits = p->nonempty, oldest = U64_MAX, now, t;

	if (!p->aging_ns)
		return level;
	now = ktime_get_ns();
	while (bits) {
		l = __ffs64(bits);
		bits &= bits - 1;
		t = p->levels[l].head_ns;
		/* Ties go to the higher level: it comes later. */
		if (now > t && now - t > p->aging_ns && t <= oldest) {
			oldest = t;
			level = l;
		}
	}
	return level;
}

/* Under @lock: the next item to run, taken off its level; NULL if none. */
static struct exec_work *exec_prio_take(struct exec_priority *p)
{
	struct exec_prio_level *l;
	struct exec_work *work;
	unsigned int level;

	if (!p->nonempty)
		return NULL;
	level = exec_prio_pick(p);
	l = &p->levels[level];
	work = l->head;
	l->head = work->next;
	if (l->head) {
		/* The new head was queued no later than the tail. */
		l->head_ns = l->tail_ns;
	} else {
		l->tail = NULL;
		p->nonempty &= ~(1ULL << level);
	}
	WRITE_ONCE(p->nr_queued, p->nr_queued - 1);
	return work;
}

/*
 * The name of runner @r in the flags of the items it runs
 * (EXEC_WORK_RUNNER_MASK): its address, as a thread pool worker's.  0, for
 * no name, with a single runner, which has nobody to hand items to.
 */
static unsigned long exec_prio_runner_name(struct exec_priority *p,
					   struct exec_prio_runner *r)
{
	BUILD_BUG_ON(__alignof__(struct exec_prio_runner) <
		     1UL << EXEC_WORK_RUNNER_SHIFT);
	if (p->max_running == 1)
		return 0;
	return (unsigned long)r;
}

/*
 * Under @lock: the runner of ours that @work's flags name, or NULL.  They
 * name the runner that last started it, written by the RMW that cleared
 * its pending bit, so before any submission that followed; the name may be
 * stale or another executor's, so the caller checks the runner's fields.
 */
static struct exec_prio_runner *exec_prio_named(struct exec_priority *p,
						struct exec_work *work)
{
	return exec_work_runner_of(READ_ONCE(work->flags), p->runners,
				   sizeof(*p->runners), p->max_running);
}

/* Under @lock: the runner that runs @work now, or NULL. */
static struct exec_prio_runner *exec_prio_runner_of(struct exec_priority *p,
						    struct exec_work *work)
{
	struct exec_prio_runner *r = exec_prio_named(p, work);

	return r && r->run == work ? r : NULL;
}

/*
 * Under @lock, with several runners: the next item for @r from the levels.
 * An item another runner runs now (submitted again during that run) is
 * handed to that runner instead, to run after the run returns, never beside
 * it, as a workqueue's work item: it stays pending, so it cannot come a
 * third time, and a runner has at most one such item, the one it runs.
 */
static struct exec_work *exec_prio_take_runnable(struct exec_priority *p,
						 struct exec_prio_runner *r)
{
	struct exec_prio_runner *runner;
	struct exec_work *work;

	while ((work = exec_prio_take(p))) {
		runner = exec_prio_runner_of(p, work);
		if (!runner || runner == r)
			return work;
		if (WARN_ON_ONCE(runner->again))
			return work;
		runner->again = work;
		WRITE_ONCE(p->nr_again, p->nr_again + 1);
	}
	return NULL;
}

/*
 * Under @lock: the next item for @r to run, or NULL to stop.  The item
 * handed to it comes first, whatever the batch, as no other runner may run
 * it; unless destroy has begun: it stays there for destroy to discard.
 */
static struct exec_work *exec_prio_next(struct exec_priority *p,
					struct exec_prio_runner *r,
					unsigned int done)
{
	struct exec_work *work = r->again;

	if (unlikely(work) && !p->dying) {
		r->again = NULL;
		WRITE_ONCE(p->nr_again, p->nr_again - 1);
		return work;
	}
	if (p->dying || done >= EXEC_PRIORITY_BATCH)
		return NULL;
	if (p->max_running == 1)
		return exec_prio_take(p);
	return exec_prio_take_runnable(p, r);
}

/* Under @lock: takes @work back from the runner it was handed to. */
static bool exec_prio_remove_again(struct exec_priority *p,
				   struct exec_work *work)
{
	struct exec_prio_runner *r;

	if (!p->nr_again)
		return false;
	/* Not by its run: destroy's runners leave the item once they end. */
	r = exec_prio_named(p, work);
	if (!r || r->again != work)
		return false;
	r->again = NULL;
	WRITE_ONCE(p->nr_again, p->nr_again - 1);
	return true;
}

/* Under @lock: takes @work back off @level; false if it is not there. */
static bool exec_prio_remove(struct exec_priority *p, struct exec_work *work,
			     unsigned int level)
{
	struct exec_prio_level *l = &p->levels[level];
	struct exec_work **link, *prev = NULL;

	for (link = &l->head; *link; prev = *link, link = &prev->next) {
		if (*link != work)
			continue;
		*link = work->next;
		if (l->tail == work)
			l->tail = prev;
		if (!l->head)
			p->nonempty &= ~(1ULL << level);
		else if (!prev)
			l->head_ns = l->tail_ns;
		WRITE_ONCE(p->nr_queued, p->nr_queued - 1);
		return true;
	}
	return false;
}

/*
 * Under @lock: every waiting item, highest level first, then those handed
 * to a runner, linked by ->next.
 */
static struct exec_work *exec_prio_detach(struct exec_priority *p)
{
	struct exec_work *list = NULL, **link = &list;
	struct exec_prio_level *l;
	struct exec_prio_runner *r;
	unsigned int level, i;

	while (p->nonempty) {
		level = fls64(p->nonempty) - 1;
		l = &p->levels[level];
		*link = l->head;
		link = &l->tail->next;
		l->head = NULL;
		l->tail = NULL;
		p->nonempty &= ~(1ULL << level);
	}
	WRITE_ONCE(p->nr_queued, 0);
	for (i = 0; p->nr_again && i < p->max_running; i++) {
		r = &p->runners[i];
		if (!r->again)
			continue;
		*link = r->again;
		link = &r->again->next;
		r->again = NULL;
		WRITE_ONCE(p->nr_again, p->nr_again - 1);
	}
	*link = NULL;
	return list;
}

/* Hands every item of a detached list to its discard callback. */
static long exec_prio_discard_list(struct exec_priority *p,
				   struct exec_work *list)
{
	struct exec_work *next;
	long n = 0;

	for (; list; list = next) {
		next = list->next;
		exec_stats_dropped(&p->probe, list);
		n += exec_work_discard(list);
	}
	if (n)
		atomic_long_add(n, &p->nr_discarded);
	return n;
}

/* Under @lock, with a runner free: reserve it, with a reference. */
static struct exec_prio_runner *exec_prio_reserve(struct exec_priority *p)
{
	struct exec_prio_runner *r = p->free_runners;

	p->free_runners = r->next_free;
	p->nr_reserved++;
	exec_stats_inc(&p->nr_scheduled);
	atomic_inc(&p->refs);
	return r;
}

/*
 * Under @lock: @r's reservation ends (its reference is the caller's to
 * drop).  If it was the last while items wait and destroy has not begun,
 * nobody would take them: returns them, detached, for the caller to discard.
 */
static struct exec_work *exec_prio_unreserve(struct exec_priority *p,
					     struct exec_prio_runner *r)
{
	r->next_free = p->free_runners;
	p->free_runners = r;
	p->nr_reserved--;
	if (p->dying || p->nr_reserved || !p->nr_queued)
		return NULL;
	return exec_prio_detach(p);
}

/* Under @lock: whether one more runner would have an item to take. */
static bool exec_prio_want_runner(struct exec_priority *p)
{
	return !p->first_pending && !p->dying &&
	       p->nr_reserved < p->max_running &&
	       p->nr_reserved < p->nr_queued + p->nr_running;
}

/* Ends @r's reservation from outside the lock; discards orphans. */
static void exec_prio_release(struct exec_priority *p,
			      struct exec_prio_runner *r)
{
	struct exec_work *orphans;
	unsigned long flags;

	raw_spin_lock_irqsave(&p->lock, flags);
	orphans = exec_prio_unreserve(p, r);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (orphans) {
		exec_prio_discard_list(p, orphans);
		exec_prio_wake_room(p);
	}
	/* Destroy waits for no item running, wait_idle for no runner. */
	exec_prio_wake_idle(p);
	exec_prio_put(p);
}

/*
 * Submits a runner reserved beside others.  If the underlying executor
 * refuses it, the others drain the levels; if there are none left, the
 * waiting items are discarded.
 */
static void exec_prio_schedule_extra(struct exec_priority *p,
				     struct exec_prio_runner *r,
				     unsigned int flags)
{
	if (likely(!exec_submit_flags(p->underlying, &r->work,
				      exec_submit_nowait_from(flags))))
		return;
	exec_prio_release(p, r);
}

/*
 * Under @lock, which it may drop and retake (*@flags): @r's run has
 * returned.  The run is over for cancel, flush and destroy only once it has
 * been reported, so that nothing is handed to @r between its run and the
 * next: a rerun follows in the same section.
 */
static void exec_prio_run_end(struct exec_priority *p,
			      struct exec_prio_runner *r, u64 start,
			      unsigned long *flags)
{
	const void *item;
	u64 late = 0;

	exec_stats_run_end(&p->stats, start, true);
	if (p->time_limit_ns)
		late = exec_prio_watch_end(p, r);
	if (unlikely(late)) {
		item = r->item;
		raw_spin_unlock_irqrestore(&p->lock, *flags);
		exec_prio_report(p, item, late, false);
		raw_spin_lock_irqsave(&p->lock, *flags);
	}
	p->nr_running--;
	r->run = NULL;
}

static void exec_prio_runner_fn(struct exec_work *runner)
{
	struct exec_prio_runner *r = container_of(runner,
						  struct exec_prio_runner,
						  work);
	struct exec_priority *p = r->prio;
	unsigned long name = exec_prio_runner_name(p, r);
	struct exec_prio_runner *extra;
	struct exec_work *work, *orphans;
	unsigned int done = 0;
	unsigned long flags;
	u64 start;

	raw_spin_lock_irqsave(&p->lock, flags);
	p->first_pending = false;
	while ((work = exec_prio_next(p, r, done))) {
		p->nr_running++;
		r->run = work;
		r->run_seq++;
		exec_stats_taken(&p->probe, &p->stats, work);
		exec_stats_inc(&p->stats.started);
		if (p->time_limit_ns)
			exec_prio_watch_start(p, r, work);
		extra = exec_prio_want_runner(p) ? exec_prio_reserve(p) : NULL;
		raw_spin_unlock_irqrestore(&p->lock, flags);

		exec_trace_work_activate(&p->ex, work);
		exec_prio_wake_room(p);
		if (extra)
			exec_prio_schedule_extra(p, extra, 0);
		exec_frame_push_ex(&r->frame, p, &p->ex);
		start = exec_stats_run_begin(&p->stats, false);
		/* Named, with several runners: a taker hands it to us. */
		exec_work_run_by(&p->ex, work, READ_ONCE(work->flags), name);
		exec_frame_pop(&r->frame);
		done++;

		raw_spin_lock_irqsave(&p->lock, flags);
		exec_prio_run_end(p, r, start, &flags);
	}
	if (!p->dying && done >= EXEC_PRIORITY_BATCH && p->nr_queued) {
		exec_stats_inc(&p->nr_scheduled);
		raw_spin_unlock_irqrestore(&p->lock, flags);
		/* Again, keeping the reservation and its reference. */
		if (!exec_submit_flags(p->underlying, &r->work, 0))
			return;
		exec_prio_release(p, r);
		return;
	}
	/*
	 * In the section that found the levels empty: a submission that
	 * comes after sees no reservation and reserves a runner itself, where
	 * between the two it would leave its item to us, and we would end as
	 * the last runner with an item waiting.
	 */
	orphans = exec_prio_unreserve(p, r);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	/* None: the levels were empty, or destroy takes what is left. */
	WARN_ON_ONCE(orphans);
	/* Items the last take handed to others left the levels: room. */
	if (p->max_running > 1)
		exec_prio_wake_room(p);
	exec_prio_wake_idle(p);
	exec_prio_put(p);
}

/* The underlying executor dropped a runner (a hard shutdown of a pool). */
static void exec_prio_runner_discarded(struct exec_work *runner)
{
	struct exec_prio_runner *r = container_of(runner,
						  struct exec_prio_runner,
						  work);
	struct exec_priority *p = r->prio;
	unsigned long flags;

	raw_spin_lock_irqsave(&p->lock, flags);
	p->first_pending = false;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	exec_prio_release(p, r);
}

/* Whether a submitter waiting for room should look again. */
static bool exec_prio_room(struct exec_priority *p)
{
	unsigned long flags;
	bool room;

	raw_spin_lock_irqsave(&p->lock, flags);
	room = p->dying || p->closed || p->nr_queued < p->queue_limit;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return room;
}

/* exec_prio_submit_now(): the queue limit is reached. */
#define EXEC_PRIO_FULL	1

/* @work is pending and @level in range; EXEC_PRIO_FULL if no room. */
static int exec_prio_submit_now(struct exec_priority *p,
				  struct exec_work *work, unsigned int level,
				  unsigned int flags)
{
	u64 now = p->aging_ns ? ktime_get_ns() : 0;
	struct exec_prio_runner *r = NULL;
	struct exec_work *orphans;
	unsigned long irqflags;
	bool first = false;
	int ret;

	exec_stats_submit(&p->probe, work);
	raw_spin_lock_irqsave(&p->lock, irqflags);
	if (unlikely(p->dying || p->closed)) {
		raw_spin_unlock_irqrestore(&p->lock, irqflags);
		exec_stats_dropped(&p->probe, work);
		return -ESHUTDOWN;
	}
	if (unlikely(p->queue_limit && p->nr_queued >= p->queue_limit &&
		     !(flags & EXEC_SUBMIT_FORCE))) {
		raw_spin_unlock_irqrestore(&p->lock, irqflags);
		exec_stats_dropped(&p->probe, work);
		return EXEC_PRIO_FULL;
	}
	exec_prio_enqueue(p, work, level, now);
	exec_stats_inc(&p->nr_accepted);
	if (!p->nr_reserved) {
		r = exec_prio_reserve(p);
		p->first_pending = true;
		first = true;
	} else if (exec_prio_want_runner(p)) {
		r = exec_prio_reserve(p);
	}
	raw_spin_unlock_irqrestore(&p->lock, irqflags);
	if (!r)
		return 0;
	if (!first) {
		exec_prio_schedule_extra(p, r, flags);
		return 0;
	}

	ret = exec_submit_flags(p->underlying, &r->work, flags);
	if (likely(!ret))
		return 0;
	/*
	 * No runner has started since we reserved the first, so @work is
	 * still queued: take it back and fail.  Items queued beside it have
	 * no runner now: they are discarded.
	 */
	raw_spin_lock_irqsave(&p->lock, irqflags);
	p->first_pending = false;
	if (WARN_ON_ONCE(!exec_prio_remove(p, work, level)))
		ret = 0;
	else
		WRITE_ONCE(p->nr_accepted, p->nr_accepted - 1);
	orphans = exec_prio_unreserve(p, r);
	raw_spin_unlock_irqrestore(&p->lock, irqflags);
	if (ret)
		exec_stats_dropped(&p->probe, work);
	exec_prio_discard_list(p, orphans);
	exec_prio_wake_room(p);
	exec_prio_wake_idle(p);
	exec_prio_put(p);
	return ret;
}

/*
 * @work is pending and @level in range.  Without room, waits for it, or
 * fails with -EAGAIN: with EXEC_SUBMIT_NOWAIT, and from one of its own
 * items, since with every runner busy with items like it the room could
 * never come.  A waiter holds a reference, so a managed queue closed
 * meanwhile is not freed under it; it then fails with -ESHUTDOWN.
 */
static int exec_prio_submit_level(struct exec_priority *p,
				  struct exec_work *work, unsigned int level,
				  unsigned int flags)
{
	int ret = exec_prio_submit_now(p, work, level, flags);

	if (likely(ret != EXEC_PRIO_FULL))
		goto out;
	if ((flags & EXEC_SUBMIT_NOWAIT) || exec_frame_find(p)) {
		ret = -EAGAIN;
		goto out;
	}
	might_sleep();
	atomic_inc(&p->refs);
	do {
		wait_event(p->room_wq, exec_prio_room(p));
		ret = exec_prio_submit_now(p, work, level, flags);
	} while (ret == EXEC_PRIO_FULL);
	/* Counted while our reference keeps a closed queue alive. */
	if (unlikely(ret))
		exec_stats_refused(&p->nr_refused, ret);
	exec_prio_put(p);
	return ret;
out:
	if (unlikely(ret))
		exec_stats_refused(&p->nr_refused, ret);
	return ret;
}

static int exec_priority_submit_op(struct exec_executor *ex,
				   struct exec_work *work, unsigned int flags)
{
	struct exec_priority *p = exec_to_prio(ex);

	return exec_prio_submit_level(p, work, p->default_level, flags);
}

int exec_priority_submit(struct exec_priority *prio, struct exec_work *work,
			 int level)
{
	int ret;

	if (unlikely(!prio || !work || !work->func))
		return -EINVAL;
	if (unlikely(level < 0 || level >= (int)prio->nr_levels))
		return -EINVAL;
	if (test_and_set_bit(EXEC_WORK_PENDING_BIT, &work->flags))
		return -EALREADY;
	exec_trace_work_queue(&prio->ex, work);
	ret = exec_prio_submit_level(prio, work, level, 0);
	if (unlikely(ret))
		clear_bit_unlock(EXEC_WORK_PENDING_BIT, &work->flags);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_priority_submit);

int exec_priority_submit_fn(struct exec_priority *prio, exec_fn fn, void *arg,
			    int level)
{
	struct exec_work *work;
	int ret;

	might_sleep();
	if (unlikely(!prio || !fn))
		return -EINVAL;
	if (unlikely(level < 0 || level >= (int)prio->nr_levels))
		return -EINVAL;
	work = exec_closure_get(fn, NULL, arg, GFP_KERNEL);
	if (unlikely(!work))
		return -ENOMEM;
	ret = exec_priority_submit(prio, work, level);
	if (unlikely(ret))
		exec_closure_put(work);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_priority_submit_fn);

static unsigned long exec_priority_pending(struct exec_executor *ex)
{
	struct exec_priority *p = exec_to_prio(ex);

	return READ_ONCE(p->nr_queued) + READ_ONCE(p->nr_again);
}

/* An executor with a time limit goes under the watchdog. */
static int exec_prio_watch(struct exec_priority *p)
{
	int ret;

	p->wd.check = exec_prio_wd_check;
	p->wd.report = exec_prio_wd_report;
	p->wd_at = EXEC_TIME_NEVER;
	ret = exec_watchdog_add_client(&p->wd);
	if (!ret)
		p->watched = true;
	return ret;
}

/* Every runner starts on the free list, idle. */
static void exec_prio_init_runners(struct exec_priority *p)
{
	unsigned int i;

	for (i = 0; i < p->max_running; i++) {
		exec_work_init_discard(&p->runners[i].work, exec_prio_runner_fn,
				       exec_prio_runner_discarded);
		p->runners[i].prio = p;
		p->runners[i].next_free = p->free_runners;
		p->free_runners = &p->runners[i];
	}
}

/**
 * exec_prio_create - create a priority executor, or a managed queue
 * @priop: where to store it
 * @underlying: the executor that runs its items
 * @cfg: what it is; checked by the caller
 *
 * Context: Process context; may sleep.
 * Return: 0; -ENOMEM; the error of starting the watchdog's device.
 */
int exec_prio_create(struct exec_priority **priop,
		     struct exec_executor *underlying,
		     const struct exec_prio_config *cfg)
{
	const char *name = cfg->name ? cfg->name : "";
	struct exec_priority *p;
	size_t len = strlen(name);
	int ret;

	p = kzalloc(sizeof(*p) + cfg->nr_levels * sizeof(p->levels[0]),
		    GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->runners = kcalloc(cfg->max_running, sizeof(*p->runners),
			     GFP_KERNEL);
	p->name = kmalloc(len + 1, GFP_KERNEL);
	if (!p->runners || !p->name) {
		ret = -ENOMEM;
		goto err_free_prio;
	}
	memcpy(p->name, name, len + 1);
	ret = exec_executor_init(&p->ex, cfg->managed ?
				 &exec_managed_queue_ops : &exec_priority_ops);
	if (ret)
		goto err_free_prio;
	/* Timed items are armed on the underlying executor's base. */
	ret = exec_timers_share(&p->ex, underlying);
	if (ret)
		goto err_fini_executor;
	/*
	 * A managed queue waits for them too (exec_prio_wait_idle()); a
	 * priority executor counts them, forwarded, as the underlying does.
	 */
	if (cfg->managed || exec_timers_counts_work(underlying))
		exec_timers_count_work(&p->ex);
	p->underlying = underlying;
	p->nr_levels = cfg->nr_levels;
	p->max_running = cfg->max_running;
	p->default_level = cfg->nr_levels / 2;
	p->aging_ns = cfg->aging_ns;
	p->queue_limit = cfg->queue_limit;
	p->time_limit_ns = cfg->time_limit_ns;
	p->time_limit_fatal = cfg->time_limit_fatal;
	p->managed = cfg->managed;
	atomic_set(&p->refs, 1);
	raw_spin_lock_init(&p->lock);
	init_waitqueue_head(&p->idle_wq);
	init_waitqueue_head(&p->room_wq);
	exec_prio_init_runners(p);
	if (p->time_limit_ns) {
		ret = exec_prio_watch(p);
		if (ret)
			goto err_free_timers;
	}
	/* Until destroy (a managed queue: its last item), the underlying
	 * cannot go first.
	 */
	exec_executor_depend(underlying, cfg->managed ?
			     EXEC_DEP_MANAGED_QUEUE : EXEC_DEP_PRIORITY);
	p->stats_file = exec_stats_file_add(&p->ex, !cfg->managed ?
					    "priority" : *name ? name :
					    "managed-queue");
	*priop = p;
	return 0;

err_free_timers:
	raw_spin_lock_destroy(&p->lock);
	exec_timers_free(&p->ex);
err_fini_executor:
	exec_executor_fini(&p->ex);
err_free_prio:
	kfree(p->name);
	kfree(p->runners);
	kfree(p);
	return ret;
}

int exec_priority_create(struct exec_priority **priop,
			 struct exec_executor *underlying,
			 const struct exec_priority_attr *attr)
{
	struct exec_prio_config cfg = { 0 };

	BUILD_BUG_ON(EXEC_PRIORITY_MAX_LEVELS > 64);
	might_sleep();
	if (attr) {
		cfg.nr_levels = attr->nr_levels;
		cfg.max_running = attr->max_running;
		cfg.aging_ns = attr->aging_ns;
	}
	if (!priop || !underlying || !underlying->ops)
		return -EINVAL;
	if (!cfg.nr_levels)
		cfg.nr_levels = EXEC_PRIORITY_DEFAULT_LEVELS;
	if (!cfg.max_running)
		cfg.max_running = 1;
	if (cfg.nr_levels > EXEC_PRIORITY_MAX_LEVELS ||
	    cfg.max_running > EXEC_PRIORITY_MAX_RUNNING)
		return -EINVAL;
	cfg.name = "priority";
	return exec_prio_create(priop, underlying, &cfg);
}
EXPORT_SYMBOL_GPL(exec_priority_create);

struct exec_executor *exec_priority_executor(struct exec_priority *prio)
{
	return prio ? &prio->ex : NULL;
}
EXPORT_SYMBOL_GPL(exec_priority_executor);

struct exec_executor *exec_priority_underlying(struct exec_priority *prio)
{
	return prio ? prio->underlying : NULL;
}
EXPORT_SYMBOL_GPL(exec_priority_underlying);

int exec_priority_default_level(const struct exec_priority *prio)
{
	return prio ? (int)prio->default_level : -EINVAL;
}
EXPORT_SYMBOL_GPL(exec_priority_default_level);

bool exec_priority_running_in_this_thread(const struct exec_priority *prio)
{
	return prio && exec_frame_find(prio);
}
EXPORT_SYMBOL_GPL(exec_priority_running_in_this_thread);

static bool exec_prio_quiet(struct exec_priority *p)
{
	unsigned long flags;
	bool quiet;

	raw_spin_lock_irqsave(&p->lock, flags);
	quiet = !p->nr_running;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return quiet;
}

long exec_priority_destroy(struct exec_priority *prio)
{
	struct exec_priority *p = prio;
	struct exec_work *list;
	unsigned long flags;
	long discarded;

	might_sleep();
	if (!p || p->managed)
		return -EINVAL;
	if (exec_frame_find(p))
		return -EDEADLK;
	if (exec_executor_check_unused(&p->ex))
		return -EBUSY;

	exec_stats_file_remove(p->stats_file);
	/* Armed items are discarded, due ones reach the levels first. */
	discarded = exec_timers_shutdown(&p->ex);
	raw_spin_lock_irqsave(&p->lock, flags);
	p->dying = true;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	wait_event(p->idle_wq, exec_prio_quiet(p));

	/* No runner takes items any more: what waits is ours. */
	raw_spin_lock_irqsave(&p->lock, flags);
	list = exec_prio_detach(p);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	discarded += exec_prio_discard_list(p, list);
	/* As on a serial executor: a runner still queued only drops a ref. */
	exec_executor_undepend(p->underlying, EXEC_DEP_PRIORITY);
	exec_prio_put(p);
	return discarded;
}
EXPORT_SYMBOL_GPL(exec_priority_destroy);

/*
 * Under @lock: nothing queued, running, or outstanding, and no runner
 * reserved, so that a destroy that follows frees the queue at once.  A
 * timed item that comes due is queued before its unit is released, so it
 * is always seen.
 */
static bool exec_prio_idle_locked(struct exec_priority *p)
{
	return !p->nr_queued && !p->nr_again && !p->nr_running &&
	       !p->nr_units && !p->nr_reserved;
}

static bool exec_prio_idle(struct exec_priority *p)
{
	unsigned long flags;
	bool idle;

	raw_spin_lock_irqsave(&p->lock, flags);
	idle = exec_prio_idle_locked(p);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return idle;
}

/**
 * exec_prio_wait_idle - wait until a managed queue has no work left
 * @p: the executor
 *
 * Context: Process context; sleeps.
 * Return: 0; -EDEADLK from one of its own items.
 */
int exec_prio_wait_idle(struct exec_priority *p)
{
	might_sleep();
	if (exec_frame_find(p))
		return -EDEADLK;
	/* As for room: a close meanwhile does not free it under us. */
	atomic_inc(&p->refs);
	wait_event(p->idle_wq, exec_prio_idle(p));
	exec_prio_put(p);
	return 0;
}

/**
 * exec_prio_close - a managed queue's destroy: the queued items still run
 * @p: the executor
 *
 * Timed items not yet due are discarded.  The last reference, that of the
 * runner of the last item, frees @p.  If nothing is left to run, that is
 * the caller's: runners that have let go of their reservation are only
 * waking waiters and dropping their references, and are waited for, so
 * that the underlying executor can be destroyed as soon as this returns
 * (after exec_prio_wait_idle(), say).
 *
 * Context: Process context; may sleep.
 * Return: the number of timed items discarded; -EBUSY while something
 * depends on @p.
 */
long exec_prio_close(struct exec_priority *p)
{
	unsigned long flags;
	long discarded;
	bool idle;

	might_sleep();
	if (exec_executor_check_unused(&p->ex))
		return -EBUSY;
	exec_stats_file_remove(p->stats_file);
	/* Due ones reach the levels first, and run. */
	discarded = exec_timers_shutdown(&p->ex);
	raw_spin_lock_irqsave(&p->lock, flags);
	p->closed = true;
	idle = exec_prio_idle_locked(p);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	/* Submitters waiting for room fail with -ESHUTDOWN. */
	wake_up_all(&p->room_wq);
	/* Nothing can reserve a runner now: the others' ends are near. */
	if (idle)
		exec_drain_users(&p->refs, 1);
	exec_prio_put(p);
	return discarded;
}

/*
 * Outstanding work goes on to the underlying executor, which runs the
 * items it stands for (P0113's strand: "Calls inner_ex_.on_work_started()"):
 * its join or run waits for it.  The unit is no dependent of the underlying
 * executor: this one is, until its destroy (a managed queue: its last
 * item), which a unit held on it refuses and which releases the units of
 * its timed items before it lets go.
 */
static void exec_priority_work_started(struct exec_executor *ex)
{
	exec_executor_work_started(exec_to_prio(ex)->underlying);
}

static void exec_priority_work_finished(struct exec_executor *ex)
{
	exec_executor_work_finished(exec_to_prio(ex)->underlying);
}

/*
 * A timed item armed on a managed queue, or exec_on_work_started(): work
 * of the queue's own (exec_prio_wait_idle()), and of the underlying's.
 */
static void exec_managed_queue_work_started(struct exec_executor *ex)
{
	struct exec_priority *p = exec_to_prio(ex);
	unsigned long flags;

	exec_priority_work_started(ex);
	raw_spin_lock_irqsave(&p->lock, flags);
	p->nr_units++;
	raw_spin_unlock_irqrestore(&p->lock, flags);
}

static void exec_managed_queue_work_finished(struct exec_executor *ex)
{
	struct exec_priority *p = exec_to_prio(ex);
	unsigned long flags;
	bool counted;

	raw_spin_lock_irqsave(&p->lock, flags);
	counted = !WARN_ON_ONCE(!p->nr_units);
	if (counted)
		p->nr_units--;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	exec_prio_wake_idle(p);
	/*
	 * Last: the caller's unit keeps @p from being freed (a unit refuses
	 * close, a timed item's is released before close goes on), and the
	 * underlying's may fall to zero only once ours has.
	 */
	if (counted)
		exec_priority_work_finished(ex);
}

static bool exec_priority_running(const struct exec_executor *ex)
{
	return exec_frame_find(container_of(ex, struct exec_priority, ex));
}

/*
 * Dispatch never runs the item in the caller, even inside one of its own
 * items: that would pass over the items of higher priority that wait.
 */
static int exec_priority_dispatch(struct exec_executor *ex,
				  struct exec_work *work)
{
	return exec_priority_submit_op(ex, work,
				       EXEC_SUBMIT_POST | EXEC_SUBMIT_NOWAIT);
}

/* As a strand's: its execution context is its underlying executor's. */
static struct exec_executor *
exec_priority_context_executor(struct exec_executor *ex)
{
	return exec_to_prio(ex)->underlying;
}

/**
 * exec_priority_stats - a priority executor's or managed queue's statistics
 * @ex: an executor
 * @st: zeroed by the caller; the executor's counts are added
 *
 * Its items run on the threads of the executor underneath, so
 * @st->nr_threads stays 0; @st->wakeups counts the runners it submitted
 * there.
 *
 * Context: Any context.
 * Return: false if @ex is neither.
 */
bool exec_priority_stats(struct exec_executor *ex, struct exec_stats *st)
{
	struct exec_priority *p;

	if (ex->ops != &exec_priority_ops && ex->ops != &exec_managed_queue_ops)
		return false;
	p = exec_to_prio(ex);
	exec_stats_add_run(st, &p->stats);
	/*
	 * Accepted under the lock before any runner can start the item:
	 * read after @stats, it counts every item started.
	 */
	smp_rmb();
	st->submitted = READ_ONCE(p->nr_accepted);
	st->discarded = atomic_long_read(&p->nr_discarded);
	st->refused = atomic_long_read(&p->nr_refused);
	st->wakeups = READ_ONCE(p->nr_scheduled);
	return true;
}

/* @ex's statistics file, if it is a priority executor or managed queue. */
void *exec_prio_stats_file(struct exec_executor *ex)
{
	if (ex->ops != &exec_priority_ops && ex->ops != &exec_managed_queue_ops)
		return NULL;
	return exec_to_prio(ex)->stats_file;
}

/*
 * Cancel's look: @work on one of the levels, or handed to the runner that
 * runs it, taken off under @lock.
 */
static int exec_prio_take_back(struct exec_executor *ex, struct exec_work *work)
{
	struct exec_priority *p = exec_to_prio(ex);
	unsigned int level;
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&p->lock, flags);
	for (level = 0; level < p->nr_levels && !ret; level++)
		ret = exec_prio_remove(p, work, level);
	if (!ret)
		ret = exec_prio_remove_again(p, work);
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (!ret)
		return 0;
	exec_stats_dropped(&p->probe, work);
	atomic_long_inc(&p->nr_discarded);
	exec_prio_wake_room(p);
	/* A managed queue's wait_idle may wait for it. */
	exec_prio_wake_idle(p);
	return 1;
}

static int exec_prio_cancel(struct exec_executor *ex, struct exec_work *work)
{
	return exec_cancel_loop(ex, work, exec_prio_take_back);
}

/*
 * Whether runner @r is still in the run numbered @seq, or in the @reruns
 * that follow it; with @work, the run must be of @work.  Runners live as
 * long as the executor.
 */
static bool exec_prio_run_goes_on(struct exec_priority *p,
				  struct exec_prio_runner *r,
				  struct exec_work *work, unsigned long seq,
				  unsigned long reruns)
{
	unsigned long flags;
	bool on;

	raw_spin_lock_irqsave(&p->lock, flags);
	on = r->run && (!work || r->run == work) &&
	     r->run_seq - seq <= reruns;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return on;
}

/*
 * Waits until runner @r has left the run it was in (of @work, if given),
 * and the rerun of the item handed to it meanwhile, if there is one: that
 * follows in the same section of @lock (exec_prio_run_end()).
 */
static bool exec_prio_wait_runner(struct exec_priority *p,
				  struct exec_prio_runner *r,
				  struct exec_work *work)
{
	unsigned long flags, seq, reruns, us = 16;
	bool on;

	raw_spin_lock_irqsave(&p->lock, flags);
	seq = r->run_seq;
	on = r->run && (!work || r->run == work);
	reruns = r->again ? 1 : 0;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (!on)
		return false;
	while (exec_prio_run_goes_on(p, r, work, seq, reruns))
		exec_poll_sleep(&us);
	return true;
}

/* A runner takes an item under @lock and notes it there until it returns. */
static int exec_prio_work_running(struct exec_executor *ex,
				  struct exec_work *work, bool wait)
{
	struct exec_priority *p = exec_to_prio(ex);
	struct exec_frame *frame = exec_frame_find(p);
	struct exec_prio_runner *r;
	unsigned long flags;
	unsigned int i;
	int found = 0;

	raw_spin_lock_irqsave(&p->lock, flags);
	for (i = 0; i < p->max_running; i++) {
		r = &p->runners[i];
		if (r->run != work)
			continue;
		if (&r->frame == frame) {
			found = -EDEADLK;
			break;
		}
		found = 1;
	}
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (found < 0)
		return wait ? -EDEADLK : 1;
	if (!found || !wait)
		return found;
	for (i = 0; i < p->max_running; i++)
		exec_prio_wait_runner(p, &p->runners[i], work);
	return 1;
}

/* A marker per level (exec_prio_flush_once()). */
struct exec_prio_marker {
	struct exec_work work;
	atomic_t *left;
};

static void exec_prio_marker_fn(struct exec_work *work)
{
	struct exec_prio_marker *m = container_of(work,
						  struct exec_prio_marker,
						  work);

	/* Fully ordered: the marker is done with, for its flusher. */
	atomic_dec_return(m->left);
}

/*
 * One flush.  Each level is a FIFO, whatever order the levels are taken
 * in: a marker queued at the tail of every level (counted, never refused
 * for room) has started once everything queued before it at its level has
 * been taken.  A runner notes under @lock the item it takes until it
 * returns, so once every marker started, the flusher waits for the runs
 * under way, and for the reruns of the items handed to their runners: they
 * include every item taken before.
 */
static int exec_prio_flush_once(struct exec_priority *p)
{
	struct exec_prio_marker *m;
	unsigned long us = 16;
	unsigned int level, i;
	atomic_t left;
	int ret = 0;

	m = kcalloc(p->nr_levels, sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	atomic_set(&left, p->nr_levels);
	for (level = 0; level < p->nr_levels; level++) {
		exec_work_init_discard(&m[level].work, exec_prio_marker_fn,
				       exec_prio_marker_fn);
		m[level].left = &left;
		m[level].work.flags |= EXEC_WORK_PENDING;
		ret = exec_prio_submit_level(p, &m[level].work, level,
					     EXEC_SUBMIT_FORCE);
		if (ret) {
			/* The markers not queued count as done. */
			atomic_sub(p->nr_levels - level, &left);
			break;
		}
	}
	while (atomic_read_acquire(&left))
		exec_poll_sleep(&us);
	kfree(m);
	if (ret)
		return ret;
	for (i = 0; i < p->max_running; i++)
		exec_prio_wait_runner(p, &p->runners[i], NULL);
	return 0;
}

/*
 * A drain repeats the flush until a round accepted nothing but its own
 * markers: an item that ran in the round counted what it submitted
 * before it returned.
 */
static int exec_prio_flush(struct exec_executor *ex, bool drain)
{
	struct exec_priority *p = exec_to_prio(ex);
	unsigned long before;
	int ret;

	do {
		before = READ_ONCE(p->nr_accepted);
		ret = exec_prio_flush_once(p);
		if (ret)
			return ret;
	} while (drain && READ_ONCE(p->nr_accepted) - before != p->nr_levels);
	return 0;
}

static const struct exec_executor_ops exec_priority_ops = {
	.kind = "priority",
	.submit = exec_priority_submit_op,
	.pending = exec_priority_pending,
	.running_in_this_thread = exec_priority_running,
	.dispatch = exec_priority_dispatch,
	.work_started = exec_priority_work_started,
	.work_finished = exec_priority_work_finished,
	.context_executor = exec_priority_context_executor,
	.cancel = exec_prio_cancel,
	.work_running = exec_prio_work_running,
	.flush = exec_prio_flush,
};

static const struct exec_executor_ops exec_managed_queue_ops = {
	.kind = "managed_queue",
	.submit = exec_priority_submit_op,
	.pending = exec_priority_pending,
	.running_in_this_thread = exec_priority_running,
	.dispatch = exec_priority_dispatch,
	.work_started = exec_managed_queue_work_started,
	.work_finished = exec_managed_queue_work_finished,
	.context_executor = exec_priority_context_executor,
	.cancel = exec_prio_cancel,
	.work_running = exec_prio_work_running,
	.flush = exec_prio_flush,
};

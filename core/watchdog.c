// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The stall watchdog (include/exec/watchdog.h).
 *
 * Every thread pool is on one list while it exists.  A clock event device
 * calls exec_wd_check() every quarter of the threshold; it looks at each
 * pool under exec_wd_lock, which pool destroy also takes to leave the
 * list, so a pool and its workers stay valid while they are looked at.
 *
 * Nothing on the hot path but what workers already do: a worker makes its
 * @run_seq odd before an item and even after it, and notes the item's
 * function in @run_fn; the pool counts the items it takes in @nr_started.
 * The watchdog compares them with what it saw at its previous looks: a
 * worker whose @run_seq is odd and has not changed since the look at
 * @wd_since runs one item since then at least; a pool with items queued and
 * the same @nr_started since @wd_since has started nothing.  Either is
 * reported once, when that has lasted the threshold, and again only after
 * it has moved on.
 *
 * The same device serves the deadlines of the executors with a time limit
 * (a managed queue's, core/priority.c): each is a client (struct
 * exec_wd_client) on a second list, looked at in every pass, which says
 * what of it has overrun and when it needs its next look; a client that
 * starts an item whose deadline is earlier than that asks for it at once
 * (exec_watchdog_arm()).  The device is programmed for the earliest of the
 * pools' next look and the clients' deadlines, so one device, a thread in
 * userspace, serves every pool and every time limit of the process.
 *
 * Reports are written after exec_wd_lock is dropped (the userspace log
 * callback is the application's code); the kernel's stack dump of a stuck
 * worker is made under it, while the worker's task is known to be held.  A
 * client's reports name it after the lock is dropped too, so a client that
 * leaves the list waits for a pass's reports to be written
 * (exec_watchdog_remove_client()), as a device's stop waits for its
 * handler.
 *
 * Locks, outermost first: exec_wd_lock, a client's own lock (taken by its
 * check), exec_wd_arm_lock (the device's programming, which a client asks
 * for under its own lock).
 */
#include "pool.h"

/* A pass reports at most this many stalls; the next pass, the rest. */
#define EXEC_WD_REPORTS_PER_PASS	8
#define EXEC_WD_MIN_THRESH_NS		NSEC_PER_MSEC

/*
 * @client: the client whose item overran (@fn, @stuck_ns as its
 * exec_wd_late says), or NULL for a pool's stall
 */
struct exec_wd_report {
	struct exec_wd_client *client;
	char pool[EXEC_POOL_NAME_LEN];
	const void *fn;		/* NULL: the pool's queue stalled */
	u64 stuck_ns;
	unsigned long queued;
};

/*
 * Guards the pool and client lists and every pool's and worker's wd_*
 * fields.
 */
static DEFINE_RAW_SPINLOCK(exec_wd_lock);
/* Guards @at and @armable, and serialises the device's programming. */
static DEFINE_RAW_SPINLOCK(exec_wd_arm_lock);
/* Serialises exec_watchdog_set() and exec_watchdog_exit(). */
static DEFINE_MUTEX(exec_wd_mutex);

/**
 * struct exec_wd - the watchdog
 * @pools: L(exec_wd_lock): thread pools, linked through their @wd_next
 * @clients: L(exec_wd_lock): deadline clients, linked through their @next
 * @thresh_ns: A: the threshold, 0 for off; written under exec_wd_lock
 * @ce: the clock event device; initialised on first use
 * @ready: L(exec_wd_mutex): @ce is initialised and started
 * @at: L(exec_wd_arm_lock): the time @ce is programmed for once @armable;
 *	EXEC_TIME_NEVER while a pass runs until something asks for a time
 * @armable: L(exec_wd_arm_lock): @ce may be programmed (it is started, and
 *	this process's: not a forked child's copy)
 * @emitting: A: passes writing clients' reports, which
 *	exec_watchdog_remove_client() waits for
 * @nr_reports: A: reports made, for the tests
 */
static struct exec_wd {
	struct exec_thread_pool *pools;
	struct exec_wd_client *clients;
	u64 thresh_ns;
	struct exec_clockev ce;
	bool ready;
	u64 at;
	bool armable;
	atomic_t emitting;
	atomic_long_t nr_reports;
} exec_wd;

static void exec_wd_emit(const struct exec_wd_report *r, u64 thresh_ns)
{
	char sym[EXEC_SYMBOL_NAME_LEN];
	struct exec_wd_late late;

	if (r->client) {
		late.item = r->fn;
		late.ran_ns = r->stuck_ns;
		r->client->report(r->client, &late);
		return;
	}
	if (r->fn) {
		exec_symbol_name(sym, sizeof(sym), r->fn);
		pr_warn("exec: pool \"%s\": item %s ran for %llu ms (threshold %llu ms), still running\n",
			r->pool, sym,
			(unsigned long long)div_u64(r->stuck_ns, NSEC_PER_MSEC),
			(unsigned long long)div_u64(thresh_ns, NSEC_PER_MSEC));
	} else {
		pr_warn("exec: pool \"%s\": no item started for %llu ms with %lu queued (threshold %llu ms)\n",
			r->pool,
			(unsigned long long)div_u64(r->stuck_ns, NSEC_PER_MSEC),
			r->queued,
			(unsigned long long)div_u64(thresh_ns, NSEC_PER_MSEC));
	}
	atomic_long_inc(&exec_wd.nr_reports);
}

/*
 * A freezable pool while the system freezes: its workers run nothing on
 * purpose, so the time counts as progress, and a stall is timed from the
 * thaw (the freezer is active for a cgroup's freeze too, which passes the
 * kernel's threads by: the watchdog misses stalls of freezable pools
 * meanwhile).
 */
static bool exec_wd_frozen(struct exec_thread_pool *pool)
{
	return pool->freezable && exec_freezer_active();
}

/* Under exec_wd_lock: looks at @w; fills *@r, true, if it is stuck. */
static bool exec_wd_check_worker(struct exec_pool_worker *w, u64 now,
				 u64 thresh, struct exec_wd_report *r)
{
	/* Acquire: pairs with the release that made @run_seq odd. */
	unsigned long seq = smp_load_acquire(&w->run_seq);
	const void *fn;

	if (!(seq & 1) || seq != w->wd_seq || exec_wd_frozen(w->pool)) {
		w->wd_seq = seq;
		w->wd_since = now;
		w->wd_reported = false;
		return false;
	}
	if (w->wd_reported || now - w->wd_since < thresh)
		return false;
	/* A seqcount read: @run_fn is the run's if @run_seq stays @seq. */
	fn = READ_ONCE(w->run_fn);
	/* Pairs with the worker's smp_wmb() before its next @run_fn. */
	smp_rmb();
	if (READ_ONCE(w->run_seq) != seq)
		return false;
	w->wd_reported = true;
	r->fn = fn;
	r->stuck_ns = now - w->wd_since;
	/* Started with the pool, joined only by destroy: its task is held. */
	if (w->index < w->pool->nr_threads)
		exec_thread_show_stack(&w->thread);
	return true;
}

/* Under exec_wd_lock: looks at @pool's queue; as exec_wd_check_worker(). */
static bool exec_wd_check_queue(struct exec_thread_pool *pool, u64 now,
				u64 thresh, struct exec_wd_report *r)
{
	unsigned long started = READ_ONCE(pool->nr_started);
	long queued;

	if (started != pool->wd_started || !exec_pool_has_work(pool) ||
	    exec_wd_frozen(pool)) {
		pool->wd_started = started;
		pool->wd_since = now;
		pool->wd_reported = false;
		return false;
	}
	if (pool->wd_reported || now - pool->wd_since < thresh)
		return false;
	pool->wd_reported = true;
	queued = atomic_long_read(&pool->nr_submitted) - (long)started;
	r->fn = NULL;
	r->stuck_ns = now - pool->wd_since;
	r->queued = queued > 0 ? queued : 0;
	return true;
}

/* A report of @pool's, under exec_wd_lock: named, and counted. */
static void exec_wd_note(struct exec_thread_pool *pool,
			 struct exec_wd_report *r)
{
	r->client = NULL;
	memcpy(r->pool, pool->name, sizeof(pool->name));
	WRITE_ONCE(pool->wd_nr_reports, pool->wd_nr_reports + 1);
}

/*
 * Programs the device for @at unless it is already programmed for an
 * earlier time.  Under exec_wd_arm_lock.
 */
static void exec_wd_program_locked(u64 at)
{
	if (!exec_wd.armable || at >= exec_wd.at)
		return;
	exec_wd.at = at;
	exec_clockev_program(&exec_wd.ce, EXEC_CLOCK_MONOTONIC, at);
}

/**
 * exec_watchdog_arm - a client needs a look no later than @at
 * @at: the deadline of an item it has started (CLOCK_MONOTONIC)
 *
 * For a client that starts an item due before the time its last check
 * returned; the device is programmed for @at unless it is programmed for
 * an earlier time already.
 *
 * Context: Any context; under the client's own lock, if it wishes.
 */
void exec_watchdog_arm(u64 at)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&exec_wd_arm_lock, flags);
	exec_wd_program_locked(at);
	raw_spin_unlock_irqrestore(&exec_wd_arm_lock, flags);
	/* Out of the lock: core/platform.h says why. */
	exec_clockev_commit(&exec_wd.ce);
}

/* Under exec_wd_lock: fills @reports from @nr on with stalled pools. */
static unsigned int exec_wd_check_pools(u64 now, u64 thresh,
					struct exec_wd_report *reports,
					unsigned int nr)
{
	struct exec_thread_pool *pool;
	unsigned int i, used;

	for (pool = exec_wd.pools; pool; pool = pool->wd_next) {
		used = exec_pool_nr_used(pool);
		for (i = 0; i < used && nr < EXEC_WD_REPORTS_PER_PASS; i++) {
			if (exec_wd_check_worker(&pool->workers[i], now,
						 thresh, &reports[nr]))
				exec_wd_note(pool, &reports[nr++]);
		}
		if (nr < EXEC_WD_REPORTS_PER_PASS &&
		    exec_wd_check_queue(pool, now, thresh, &reports[nr]))
			exec_wd_note(pool, &reports[nr++]);
	}
	return nr;
}

/*
 * Under exec_wd_lock: fills @reports from @nr on with the clients' items
 * that overran; lowers *@next to the earliest look a client needs.
 */
static unsigned int exec_wd_check_clients(struct exec_wd_report *reports,
					  unsigned int nr, u64 *next)
{
	struct exec_wd_late late[EXEC_WD_REPORTS_PER_PASS];
	struct exec_wd_client *c;
	unsigned int i, n;
	u64 at;

	for (c = exec_wd.clients; c; c = c->next) {
		/* A full pass still asks each client when to look again. */
		n = c->check(c, late, EXEC_WD_REPORTS_PER_PASS - nr, &at);
		*next = min(*next, at);
		for (i = 0; i < n; i++, nr++) {
			reports[nr].client = c;
			reports[nr].fn = late[i].item;
			reports[nr].stuck_ns = late[i].ran_ns;
		}
	}
	return nr;
}

static void exec_wd_check(struct exec_clockev *ce)
{
	struct exec_wd_report reports[EXEC_WD_REPORTS_PER_PASS];
	unsigned int nr = 0, nr_pools, i;
	u64 now, thresh, next;
	unsigned long flags;

	/* The device has fired: what this pass and the clients ask for. */
	raw_spin_lock_irqsave(&exec_wd_arm_lock, flags);
	exec_wd.at = EXEC_TIME_NEVER;
	raw_spin_unlock_irqrestore(&exec_wd_arm_lock, flags);

	raw_spin_lock_irqsave(&exec_wd_lock, flags);
	thresh = exec_wd.thresh_ns;
	now = exec_clock_read(EXEC_CLOCK_MONOTONIC);
	next = EXEC_TIME_NEVER;
	if (thresh) {
		nr = exec_wd_check_pools(now, thresh, reports, 0);
		next = now + thresh / 4;
	}
	nr_pools = nr;
	nr = exec_wd_check_clients(reports, nr, &next);
	/* Clients named in reports stay until these are written. */
	if (nr > nr_pools)
		atomic_inc(&exec_wd.emitting);
	exec_watchdog_arm(next);
	raw_spin_unlock_irqrestore(&exec_wd_lock, flags);

	for (i = 0; i < nr; i++)
		exec_wd_emit(&reports[i], thresh);
	/*
	 * Fully ordered: the reports' reads of their clients come first;
	 * pairs with the acquire in exec_watchdog_remove_client().
	 */
	if (nr > nr_pools)
		(void)atomic_dec_return(&exec_wd.emitting);
}

/* Under exec_wd_mutex: initialises and starts the device, once. */
static int exec_wd_ready_locked(void)
{
	unsigned long flags;
	int ret;

	if (exec_wd.ready)
		return 0;
	ret = exec_clockev_init(&exec_wd.ce, exec_wd_check);
	if (!ret) {
		ret = exec_clockev_start(&exec_wd.ce);
		if (ret)
			exec_clockev_stop(&exec_wd.ce);
	}
	if (ret)
		return ret;
	exec_wd.ready = true;
	raw_spin_lock_irqsave(&exec_wd_arm_lock, flags);
	exec_wd.at = EXEC_TIME_NEVER;
	exec_wd.armable = true;
	raw_spin_unlock_irqrestore(&exec_wd_arm_lock, flags);
	return 0;
}

int exec_watchdog_set(uint64_t thresh_ns)
{
	unsigned long flags;
	int ret = 0;

	might_sleep();
	if (thresh_ns && thresh_ns < EXEC_WD_MIN_THRESH_NS)
		return -EINVAL;
	mutex_lock(&exec_wd_mutex);
	if (thresh_ns) {
		ret = exec_wd_ready_locked();
		if (ret)
			goto out_unlock;
	}
	raw_spin_lock_irqsave(&exec_wd_lock, flags);
	WRITE_ONCE(exec_wd.thresh_ns, thresh_ns);
	/* Off: the pass the device may still make finds nothing to do. */
	if (thresh_ns)
		exec_watchdog_arm(exec_clock_read(EXEC_CLOCK_MONOTONIC) +
				  thresh_ns / 4);
	raw_spin_unlock_irqrestore(&exec_wd_lock, flags);
out_unlock:
	mutex_unlock(&exec_wd_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(exec_watchdog_set);

uint64_t exec_watchdog_thresh(void)
{
	return READ_ONCE(exec_wd.thresh_ns);
}
EXPORT_SYMBOL_GPL(exec_watchdog_thresh);

/**
 * exec_watchdog_add_pool - put a new thread pool under the watchdog
 * @pool: the pool, its workers started
 *
 * Context: Any context.
 */
void exec_watchdog_add_pool(struct exec_thread_pool *pool)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&exec_wd_lock, flags);
	/* Nothing is stuck before now. */
	pool->wd_since = exec_clock_read(EXEC_CLOCK_MONOTONIC);
	pool->wd_started = READ_ONCE(pool->nr_started);
	pool->wd_next = exec_wd.pools;
	exec_wd.pools = pool;
	raw_spin_unlock_irqrestore(&exec_wd_lock, flags);
}

/**
 * exec_watchdog_remove_pool - take a pool from under the watchdog
 * @pool: the pool, before its workers are joined
 *
 * When this returns, the watchdog no longer looks at @pool.
 *
 * Context: Any context.
 */
void exec_watchdog_remove_pool(struct exec_thread_pool *pool)
{
	struct exec_thread_pool **link;
	unsigned long flags;

	raw_spin_lock_irqsave(&exec_wd_lock, flags);
	for (link = &exec_wd.pools; *link; link = &(*link)->wd_next) {
		if (*link == pool) {
			*link = pool->wd_next;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&exec_wd_lock, flags);
}

/**
 * exec_watchdog_add_client - put a deadline client under the watchdog
 * @c: the client, its @check and @report set
 *
 * Starts the watchdog's device if it is not yet.  From here on every pass
 * of the device calls @c->check; @c asks for an earlier pass with
 * exec_watchdog_arm().
 *
 * Context: Process context; may sleep.
 * Return: 0, or the error of starting the device.
 */
int exec_watchdog_add_client(struct exec_wd_client *c)
{
	unsigned long flags;
	int ret;

	might_sleep();
	mutex_lock(&exec_wd_mutex);
	ret = exec_wd_ready_locked();
	if (!ret) {
		raw_spin_lock_irqsave(&exec_wd_lock, flags);
		c->next = exec_wd.clients;
		exec_wd.clients = c;
		raw_spin_unlock_irqrestore(&exec_wd_lock, flags);
	}
	mutex_unlock(&exec_wd_mutex);
	return ret;
}

/**
 * exec_watchdog_remove_client - take a client from under the watchdog
 * @c: the client
 *
 * When this returns, no pass looks at @c or writes a report of it: a pass
 * that found it has written its reports.  Not from @c's own @report.
 *
 * Context: Any context but the watchdog's own report.
 */
void exec_watchdog_remove_client(struct exec_wd_client *c)
{
	struct exec_wd_client **link;
	unsigned int spins = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&exec_wd_lock, flags);
	for (link = &exec_wd.clients; *link; link = &(*link)->next) {
		if (*link == c) {
			*link = c->next;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&exec_wd_lock, flags);
	/* Acquire: pairs with the decrement after a pass's reports. */
	while (atomic_read_acquire(&exec_wd.emitting))
		exec_backoff_any_context(&spins);
}

/**
 * exec_watchdog_exit - stop the watchdog for good
 *
 * At the kernel module's unloading, after every pool is gone.
 *
 * Context: Process context; may sleep.
 */
void exec_watchdog_exit(void)
{
	unsigned long flags;

	mutex_lock(&exec_wd_mutex);
	raw_spin_lock_irqsave(&exec_wd_arm_lock, flags);
	exec_wd.armable = false;
	raw_spin_unlock_irqrestore(&exec_wd_arm_lock, flags);
	if (exec_wd.ready)
		exec_clockev_stop(&exec_wd.ce);
	exec_wd.ready = false;
	mutex_unlock(&exec_wd_mutex);
}

/**
 * exec_watchdog_fork - the watchdog across fork()
 * @event: the step of the fork
 *
 * Its locks are taken before the fork, so that no other thread holds them
 * in the child.  In the child the watchdog is off, as in a new process:
 * its clock event thread and the parent's pools and clients (executors
 * with a time limit, which are watched no more in the child) stay in the
 * parent, and
 * its device's descriptors are the parent's timer's, which the child must
 * not arm.  The child forgets both (the descriptors stay open, as every
 * other one the parent's executors have); exec_watchdog_set() there
 * starts it afresh.
 *
 * Context: Process context; from the pthread_atfork() handlers of the
 * userspace library (the kernel has no fork).
 */
void exec_watchdog_fork(enum exec_fork_event event)
{
	switch (event) {
	case EXEC_FORK_PREPARE:
		mutex_lock(&exec_wd_mutex);
		raw_spin_lock(&exec_wd_lock);
		raw_spin_lock(&exec_wd_arm_lock);
		break;
	case EXEC_FORK_PARENT:
		raw_spin_unlock(&exec_wd_arm_lock);
		raw_spin_unlock(&exec_wd_lock);
		mutex_unlock(&exec_wd_mutex);
		break;
	case EXEC_FORK_CHILD:
		exec_wd.pools = NULL;
		exec_wd.clients = NULL;
		WRITE_ONCE(exec_wd.thresh_ns, 0);
		exec_wd.ready = false;
		exec_wd.armable = false;
		exec_wd.at = EXEC_TIME_NEVER;
		atomic_set(&exec_wd.emitting, 0);
		raw_spin_unlock(&exec_wd_arm_lock);
		raw_spin_unlock(&exec_wd_lock);
		mutex_unlock(&exec_wd_mutex);
		break;
	}
}

/**
 * exec_watchdog_test_reports - how many stalls the watchdog has reported
 *
 * For the tests.
 *
 * Context: Any context.
 * Return: the count since the library was loaded.
 */
unsigned long exec_watchdog_test_reports(void)
{
	return atomic_long_read(&exec_wd.nr_reports);
}
EXPORT_SYMBOL_FOR_TESTS(exec_watchdog_test_reports);

/**
 * exec_watchdog_test_pool_reports - how many stalls of one pool it reported
 * @pool: the pool
 *
 * For the tests, which count their own pool's reports only: on a loaded
 * machine another pool of the process may stall past a short threshold.
 *
 * Context: Any context.
 * Return: the reports made of @pool's workers and queue.
 */
unsigned long exec_watchdog_test_pool_reports(struct exec_thread_pool *pool)
{
	return READ_ONCE(pool->wd_nr_reports);
}
EXPORT_SYMBOL_FOR_TESTS(exec_watchdog_test_pool_reports);

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The thread pool's structures, shared by the pool (thread_pool.c) and a
 * growing pool's manager (pool_grow.c).  Nothing outside these two files
 * includes this header.
 */
#ifndef EXEC_CORE_POOL_H
#define EXEC_CORE_POOL_H

#include "idle.h"
#include "internal.h"
#include "stats_count.h"

struct exec_thread_pool;
struct exec_pool_grow;

/* exec_pool_worker::slot */
#define EXEC_SLOT_FREE		0	/* no thread */
#define EXEC_SLOT_LIVE		1	/* a thread runs the worker loop */
#define EXEC_SLOT_EXITED	2	/* the thread has exited, not joined */

/*
 * How long a worker spins before parking, in nanoseconds of
 * exec_clock_read_local(): 64 pauses of this project's machines (a pause
 * is 25 ns on them; it is 10 to 140 cycles across x86 generations, and
 * under an emulator such as QEMU's TCG each one leaves the translated
 * code, so a spin counted in pauses lasted many times as long there;
 * Documentation/benchmarks.rst).
 */
#define EXEC_POOL_SPIN_NS	1600
/*
 * ... after a wake-up that found nothing to do, or after a park that
 * another submission ended within EXEC_POOL_BRIEF_PARK_NS, shorter than the
 * long spin itself: that spin would have caught the item, without the
 * submitter's wake-up system call (see exec_pool_park()).  Longer parks keep
 * the short spin, on which prompt wake-ups depend (architecture.rst).
 * 512 pauses.
 */
#define EXEC_POOL_SPIN_LONG_NS	12800
#define EXEC_POOL_BRIEF_PARK_NS	10000
/*
 * A worker spins only while spinning pays: a spin that found work, or a
 * park that ended within EXEC_POOL_BRIEF_PARK_NS, sets its credit to this;
 * a longer park takes one off, and at 0 the worker parks without spinning
 * (architecture.rst: a wake-up waits for the waker to sleep when the wakee
 * spun before it parked).
 */
#define EXEC_POOL_SPIN_CREDIT	4
/*
 * A worker that deferred items behind the one in its slot (a batch of timed
 * items that came due together, a defer from an item) runs them itself
 * until the batch has taken this long, and only then, if items are left,
 * wakes a helper: waking one at once cost each batch of short items the
 * wake-up's system call, and the helper mostly arrived to find the batch
 * done (the watcher of timer_lateness woke the other worker for every
 * deadline it took).
 */
#define EXEC_POOL_DEFER_HELP_NS	20000
/*
 * A per-CPU pool leaves an item submitted on a CPU to that CPU's worker
 * while the worker is awake, as a per-CPU workqueue does, and checks this
 * often that the worker gets through what it was left: if it has not
 * finished an item since, while items wait and nobody spins, another worker
 * is woken (the worker may be blocked in an item; a workqueue learns that
 * from the scheduler, which a module cannot hook).
 */
#define EXEC_POOL_LOCAL_CHECK_NS	20000

/*
 * How often (in nanoseconds) a spinning worker looks at the shared queue
 * and at the other workers' slots.  A look reads the lines that a
 * submitter is writing (the queue's tail, the last item's link), so a
 * worker that looks at every pause takes them from the submitter between
 * any two submissions, and each submission then pays two or three
 * cache-line transfers, slow between vCPUs: a submitter a little slower
 * than its workers fell to a small fraction of its rate
 * (Documentation/benchmarks.rst).  Looking
 * about once a microsecond (32 pauses) lets a batch build up between
 * looks.
 */
#define EXEC_POOL_LOOK_NS	800
/* Pauses between two reads of the clock while a worker spins. */
#define EXEC_POOL_CLOCK_EVERY	4
#define EXEC_POOL_NEXT_STREAK	16

/* The longest name prefix a report gives, with its NUL. */
#define EXEC_POOL_NAME_LEN	16
/* The workers' name prefix when the attributes give none. */
#define EXEC_POOL_DEFAULT_NAME	"exec-pool"

/* exec_pool_worker::took */
#define EXEC_POOL_TOOK_OTHER	0	/* its slot, a steal, a hand-over */
#define EXEC_POOL_TOOK_QUEUE	1	/* a pop, which looked for a runner */
#define EXEC_POOL_TOOK_RERUN	2	/* held on its token: run it again */

/* pool->state bits */
#define EXEC_POOL_STOP		0x1UL	/* destroy: drain, then exit */
#define EXEC_POOL_SHUTDOWN	0x2UL	/* shutdown_hard: refuse everything */
#define EXEC_POOL_HALT		0x4UL	/* stop: exit after the current item */
#define EXEC_POOL_JOIN		0x8UL	/* join: stop once out of work */
#define EXEC_POOL_JOINING	0x10UL	/* a join is joining the threads */
#define EXEC_POOL_JOINED	0x20UL	/* the threads are joined */
/* States in which submissions from outside the workers are refused. */
#define EXEC_POOL_CLOSED	(EXEC_POOL_STOP | EXEC_POOL_SHUTDOWN | \
				 EXEC_POOL_HALT)

/**
 * struct exec_pool_worker - one worker thread
 * @frame: pushed on the worker's thread while it runs; owner is the pool
 * @next: A: an item posted by this worker to its own pool (or handed to it
 *	by its waker while it had stolen one).  Set only by the owner, when
 *	NULL; taken with xchg() by the owner or cmpxchg() by a spinning
 *	worker.
 * @pool: the pool
 * @idle: its record on the pool's idle list (core/idle.h), which sleeps on
 *	@parker; its fields carry their tags there
 * @steal_victim: O: next worker whose slot this one looks at while spinning
 * @steal_seen: O: item seen in that slot at the previous look
 * @next_streak: O: items in a row taken from @next
 * @was_spinning: O: has just stopped spinning for work, or was woken by a
 *	submitter; the first item it takes from the shared queue passes
 *	wake-ups on
 * @deferred_at: O: when it deferred an item behind the one in its slot,
 *	0 if it has not since it last waited (EXEC_POOL_DEFER_HELP_NS)
 * @woken_idle: O: has parked and found no work since it woke; its next
 *	spin is the long one
 * @parked_briefly: O: its last park was woken within
 *	EXEC_POOL_BRIEF_PARK_NS; its next spin is the long one
 * @spin_credit: O: how many more waits spin though their spins catch
 *	nothing (EXEC_POOL_SPIN_CREDIT)
 * @parker: where the worker sleeps
 * @thread: the thread
 * @tag: pushed below @frame, so that exec_blocking_begin() finds the worker
 *	its caller runs on without knowing the pool
 * @index: its slot in the pool's @workers; set at creation
 * @cpu: a per-CPU pool's worker: the CPU it is bound to while that is
 *	online (exec_pool_cpu_change()); -1 in other pools; set at creation
 * @slot: A: EXEC_SLOT_*; FREE to LIVE by the manager before the thread
 *	starts, LIVE to EXITED by the thread as it exits, EXITED to FREE by
 *	whoever joins it (the manager, or destroy after the manager is gone)
 * @parker_ready: M: @parker is initialised (once; destroyed with the pool)
 * @retire: A: an added worker told to exit, or exiting because it was idle
 *	too long (the policy's kill_pending)
 * @retired: O: exits because it retired (exec_pool_retire_idle())
 * @run_seq: O, read by the manager, the watchdog and the statistics: odd
 *	while the worker runs an item; so it has started (@run_seq + 1) / 2
 *	items and completed @run_seq / 2
 * @run_fn: O, read by the watchdog: the function of the item it runs
 *	(exec_work_symbol()), written before @run_seq turns odd
 * @run_work: O, read by cancel and flush: the item it runs, written with
 *	@run_fn
 * @run_token: the item it runs or last ran, if that item can be submitted
 *	again, with EXEC_POOL_HELD once another worker has handed it over to
 *	run again (core/pool_rerun.h); 0 once closed.  Written by the owner
 *	without @consume_lock only while no other worker can hold an item on
 *	it (closed, or open on the item it runs again); read without the lock
 *	as a hint; HELD set and cleared, and the token closed, under
 *	@consume_lock
 * @token_left: O: the item whose run left @run_token open; NULL once closed
 * @took: O: where the item it is about to run came from (EXEC_POOL_TOOK_*)
 * @flush_ack: O: the last @flush_epoch of the pool it read while it held
 *	no item, its slot empty (exec_pool_flush_ack()); 0 once it steals an
 *	item, until the next such read
 * @wd_seq: W: @run_seq at the watchdog's look at @wd_since
 * @wd_since: W: when the watchdog first saw @wd_seq
 * @wd_reported: W: the item seen at @wd_seq has been reported
 * @local_timer: a per-CPU pool's worker, where the platform has timers of
 *	the arming CPU: checks that the worker gets through the items it was
 *	left (exec_pool_local_check())
 * @local_seq: A: @run_seq when @local_timer was armed or last looked
 * @nr_hints: O, read by the manager: exec_blocking_begin() nesting
 * @stats: O, read by exec_executor_stats(): its longest run and queue wait
 * @nr_self_submitted: O, read by exec_executor_stats(): items it put in
 *	its own @next slot
 * @nr_woken: O, read by exec_executor_stats(): times a waker claimed it
 * @nr_handed: O, read by exec_executor_stats(): items handed to it with
 *	the claim
 * @sample: M: for exec_thread_blocked()
 *
 * Tags as in core/internal.h; the owner (O) is the worker's own thread.
 */
struct exec_pool_worker {
	struct exec_frame frame;
	struct exec_work *next;
	struct exec_thread_pool *pool;
	struct exec_idle_sleeper idle;
	unsigned int steal_victim;
	struct exec_work *steal_seen;
	unsigned int next_streak;
	bool was_spinning;
	u64 deferred_at;
	bool woken_idle;
	bool parked_briefly;
	unsigned int spin_credit;
	struct exec_parker parker;
	struct exec_thread thread;
	struct exec_frame tag;
	unsigned int index;
	int cpu;
	int slot;
	bool parker_ready;
	bool retire;
	bool retired;
	unsigned long run_seq;
	const void *run_fn;
	struct exec_work *run_work;
	unsigned long run_token;
	struct exec_work *token_left;
	unsigned int took;
	unsigned long flush_ack;
	struct exec_cpu_timer local_timer;
	unsigned long local_seq;
	unsigned long wd_seq;
	u64 wd_since;
	bool wd_reported;
	int nr_hints;
	struct exec_stats_run stats;
	unsigned long nr_self_submitted;
	unsigned long nr_woken;
	unsigned long nr_handed;
	struct exec_thread_sample sample;
} ____cacheline_aligned;

/**
 * struct exec_thread_pool - the pool
 * @ex: the abstract executor
 * @queue: shared queue of items
 * @nr_submitted: A: items pushed on @queue, ever (for pending counts)
 * @nr_submitting: A: submissions from outside the pool's workers in
 *	progress; destroy waits for them, and workers do not exit under them
 * @consume_lock: serialises pops from @queue
 * @nr_started: L(consume_lock): items popped from @queue, ever
 * @nr_spinning: A: workers spinning for work
 * @idle: the idle workers' records (core/idle.h): @idle.nr_idle, read
 *	first by submitters, and the idle list; its fields carry their tags
 *	there
 * @state: A: EXEC_POOL_* bits
 * @flush_epoch: A: raised by each flush (exec_pool_flush_once()); read by
 *	every worker between two items, beside @state
 * @nr_guards: A: units of outstanding work taken with work guards
 * @queue_limit: most items waiting at once; 0 for no bound; set at creation
 * @nr_bounded: A: items counted against @queue_limit
 * @room_wq: submitters waiting for room in a bounded pool
 * @join_wq: joiners that lost the race to join the threads wait here
 * @nr_threads: number of workers started at creation, which never exit
 *	before the pool stops; set at creation
 * @workers: @nr_slots workers, of which @nr_threads at creation and the
 *	rest as a growing pool's manager starts them
 * @cpu_workers: a per-CPU pool's worker of each CPU (NULL for a CPU it has
 *	none on), exec_cpu_ids() entries; NULL for other pools, and where
 *	the platform has no timers of the arming CPU; set at creation
 * @nr_slots: most workers at once (attr.max_threads); set at creation
 * @nr_used: A: one more than the highest slot ever started; loops over the
 *	workers stop there.  Raised (release) after the slot is set up.
 * @nr_live: A: workers with a thread started and not yet retired
 * @grow: the growing pool's manager, or NULL for a fixed pool; set at
 *	creation
 * @name: its threads' name prefix, for reports; set at creation
 * @freezable: its threads are freezable (exec_thread_attr.freezable); set
 *	at creation
 * @no_spin: its workers park without spinning (attr.no_spin); set at
 *	creation
 * @wd_next: W: the next pool under the watchdog
 * @wd_started: W: @nr_started at the watchdog's look at @wd_since
 * @wd_since: W: when the watchdog first saw @wd_started with items queued
 * @wd_reported: W: that stall has been reported
 * @wd_nr_reports: W: the watchdog's reports of this pool, for the tests
 * @probe: the item of the shared queue being timed (core/stats_count.h)
 * @nr_refused: A: submissions refused, for the statistics
 * @nr_discarded: A: items discarded by shutdown_hard, for the statistics
 * @stats_file: the statistics file of the backend, or NULL; set at creation
 * @cpu_watch: a per-CPU pool's watch of CPUs going offline and coming
 *	online, where the platform has one (exec_pool_watch_cpus())
 * @watching_cpus: @cpu_watch is added; set at creation
 */
struct exec_thread_pool {
	struct exec_executor ex;
	struct exec_mpsc_split queue;
	/* Written by submitters: away from the consumers' head line. */
	atomic_long_t nr_submitted ____cacheline_aligned;
	atomic_t nr_submitting;

	spinlock_t consume_lock ____cacheline_aligned;
	unsigned long nr_started;

	/* Written whenever a worker starts or stops spinning. */
	atomic_t nr_spinning ____cacheline_aligned;
	/* Written when a worker parks or is woken: read first by submitters. */
	struct exec_idle idle ____cacheline_aligned;

	unsigned long state ____cacheline_aligned;
	atomic_long_t flush_epoch;
	atomic_long_t nr_guards;
	unsigned long queue_limit;
	atomic_long_t nr_bounded;
	wait_queue_head_t room_wq;
	wait_queue_head_t join_wq;
	unsigned int nr_threads;
	struct exec_pool_worker *workers;
	struct exec_pool_worker **cpu_workers;
	unsigned int nr_slots;
	unsigned int nr_used;
	atomic_t nr_live;
	struct exec_pool_grow *grow;
	char name[EXEC_POOL_NAME_LEN];
	bool freezable;
	bool no_spin;
	struct exec_thread_pool *wd_next;
	unsigned long wd_started;
	u64 wd_since;
	bool wd_reported;
	unsigned long wd_nr_reports;

	/* Read by every worker per item; written only while timing is on. */
	struct exec_stats_probe probe ____cacheline_aligned;
	atomic_long_t nr_refused;
	atomic_long_t nr_discarded;
	void *stats_file;
	struct exec_cpu_watch cpu_watch;
	bool watching_cpus;
};


static inline struct exec_thread_pool *exec_to_pool(struct exec_executor *ex)
{
	return container_of(ex, struct exec_thread_pool, ex);
}

static inline bool exec_pool_has_work(struct exec_thread_pool *pool)
{
	return exec_mpsc_maybe_nonempty(&pool->queue.q);
}

/* Whether @w is idle and no waker has claimed it yet. */
static inline bool exec_pool_worker_idle(const struct exec_pool_worker *w)
{
	return READ_ONCE(w->idle.state) == EXEC_IDLE_WAITING;
}

static inline unsigned int exec_pool_nr_used(struct exec_thread_pool *pool)
{
	/* Pairs with the release that raises it in exec_grow_start(). */
	return smp_load_acquire(&pool->nr_used);
}

/* pool_grow.c: the manager of a growing pool. */
int exec_grow_create(struct exec_thread_pool *pool,
		     const struct exec_thread_pool_attr *attr);
void exec_grow_stop(struct exec_thread_pool *pool);
void exec_grow_free(struct exec_thread_pool *pool);
void exec_grow_kick(struct exec_thread_pool *pool);
void exec_grow_worker_exited(struct exec_pool_worker *w);
u64 exec_grow_idle_deadline(struct exec_thread_pool *pool);
int exec_pool_start_worker(struct exec_thread_pool *pool, unsigned int i,
			   const struct exec_thread_attr *ta, unsigned int cpu);
extern const char exec_pool_worker_tag;

/* watchdog.c */
void exec_watchdog_add_pool(struct exec_thread_pool *pool);
void exec_watchdog_remove_pool(struct exec_thread_pool *pool);

#endif /* EXEC_CORE_POOL_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A growing thread pool's manager (N3378's thread_manager policy, the
 * concurrency management of the kernel's workqueues).
 *
 * A pool created with max_threads above nr_threads gets a manager thread.
 * The workers stay the pool's (thread_pool.c): one worker loop, one way to
 * sleep and wake.  The manager only decides, from outside, when to start one
 * more, and joins the ones that have exited.
 *
 * When it looks.  It sleeps on its parker while the pool has an idle worker
 * or nothing queued.  A submitter that finds no worker idle or spinning
 * kicks it (exec_grow_kick()): a Dekker pattern on @sleeping,
 *
 *   submitter                            manager going to sleep
 *   publish item (xchg: full barrier)    sleeping = 1 (smp_store_mb())
 *   read sleeping                        look at the queue and nr_idle
 *
 * so either the kick finds it asleep, or it sees the item.  While items
 * wait and no worker is idle it looks every EXEC_POOL_SAMPLE_MS (or the
 * policy's delay): it counts the busy workers that are blocked (hinted by
 * exec_blocking_begin(), or seen by exec_thread_blocked(): the task state
 * in the kernel, the CPU clock in userspace) and asks the policy.  The
 * default policy starts one worker while fewer than @concurrency run.
 *
 * Retiring.  An added worker that stays idle @idle_timeout_ns exits by
 * itself (exec_pool_retire_idle()) and tells the manager, which joins it;
 * a policy that wants fewer workers marks idle added workers @retire and
 * wakes them.  The workers started at creation never retire.
 *
 * Stopping.  A pool that stops, joins or is destroyed stops its manager
 * first (exec_grow_stop()): then nothing starts or joins workers but the
 * joining thread.
 */
#include "pool.h"

/* After starting a worker, the default policy looks again this soon. */
#define EXEC_GROW_RELOOK_NS	(250 * NSEC_PER_USEC)
/* With every slot in use, the default policy has nothing to decide. */
#define EXEC_GROW_FULL_NS	(10 * NSEC_PER_MSEC)

/**
 * struct exec_pool_grow - the manager of a growing pool
 * @pool: the pool; set at creation
 * @parker: where the manager sleeps
 * @sleeping: A: the manager sleeps until kicked
 * @stop: A: exec_grow_stop() was called
 * @nr_exited: A: retired workers not yet joined
 * @threads_since_last_exit: M: workers started since one last exited
 * @concurrency: workers to keep running; set at creation
 * @idle_timeout_ns: how long an added worker idles before it exits; set at
 *	creation
 * @policy: decides; set at creation
 * @policy_arg: its argument; set at creation
 * @periodic: ask the policy every delay, not only when work waits; set at
 *	creation
 * @thread_attr: the added workers' attributes, a copy; set at creation
 * @name: the name prefix, copied
 * @cpus: the CPU mask, copied
 * @thread: the manager thread
 *
 * M: touched only by the manager thread.
 */
struct exec_pool_grow {
	struct exec_thread_pool *pool;
	struct exec_parker parker;
	int sleeping;
	bool stop;
	atomic_t nr_exited;
	unsigned int threads_since_last_exit;
	unsigned int concurrency;
	u64 idle_timeout_ns;
	void (*policy)(const struct exec_pool_state *state,
		       struct exec_pool_action *action, void *arg);
	void *policy_arg;
	bool periodic;
	struct exec_thread_attr thread_attr;
	char name[16];
	unsigned long *cpus;
	struct exec_thread thread;
};

/*
 * Items the workers posted to their own slots: each waits for its worker's
 * current item to return, which may be blocked, or for an idle worker.
 */
static unsigned int exec_grow_slot_items(struct exec_thread_pool *pool)
{
	unsigned int i, n = 0, used = exec_pool_nr_used(pool);

	for (i = 0; i < used; i++)
		n += !!READ_ONCE(pool->workers[i].next);
	return n;
}

/* Items wait and no worker is idle to take them. */
static bool exec_grow_wanted(struct exec_thread_pool *pool)
{
	return !atomic_read(&pool->idle.nr_idle) &&
	       (exec_pool_has_work(pool) || exec_grow_slot_items(pool));
}

void exec_grow_kick(struct exec_thread_pool *pool)
{
	struct exec_pool_grow *g = pool->grow;

	/* After the caller's full barrier: pairs with the manager's. */
	if (READ_ONCE(g->sleeping) && xchg(&g->sleeping, 0))
		exec_parker_unpark(&g->parker);
}

u64 exec_grow_idle_deadline(struct exec_thread_pool *pool)
{
	return exec_clock_read(EXEC_CLOCK_MONOTONIC) +
	       pool->grow->idle_timeout_ns;
}

void exec_grow_worker_exited(struct exec_pool_worker *w)
{
	struct exec_pool_grow *g = w->pool->grow;

	/* Release: pairs with the acquire in exec_grow_reap(). */
	smp_store_release(&w->slot, EXEC_SLOT_EXITED);
	atomic_inc(&g->nr_exited);
	exec_parker_unpark(&g->parker);
}

/* Joins the added workers that have exited; their slots are free again. */
static void exec_grow_reap(struct exec_pool_grow *g)
{
	struct exec_thread_pool *pool = g->pool;
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_pool_worker *w;

	if (!atomic_read(&g->nr_exited))
		return;
	for (i = pool->nr_threads; i < used; i++) {
		w = &pool->workers[i];
		/* Pairs with the release in exec_grow_worker_exited(). */
		if (smp_load_acquire(&w->slot) != EXEC_SLOT_EXITED)
			continue;
		exec_thread_join(&w->thread);
		WRITE_ONCE(w->slot, EXEC_SLOT_FREE);
		atomic_dec(&g->nr_exited);
		g->threads_since_last_exit = 0;
	}
}

/* Starts a worker in a free slot above the ones started at creation. */
static int exec_grow_start(struct exec_pool_grow *g)
{
	struct exec_thread_pool *pool = g->pool;
	struct exec_pool_worker *w = NULL;
	unsigned int i;
	int ret;

	for (i = pool->nr_threads; i < pool->nr_slots; i++) {
		if (READ_ONCE(pool->workers[i].slot) == EXEC_SLOT_FREE) {
			w = &pool->workers[i];
			break;
		}
	}
	if (!w)
		return -ENOSPC;
	if (!w->parker_ready) {
		ret = exec_parker_init(&w->parker);
		if (ret)
			return ret;
		w->parker_ready = true;
	}
	/* What the previous thread of the slot left: not needed any more. */
	WRITE_ONCE(w->retire, false);
	w->retired = false;
	w->nr_hints = 0;
	w->woken_idle = false;
	w->was_spinning = false;
	w->deferred_at = 0;
	w->next_streak = 0;
	w->steal_seen = NULL;
	memset(&w->sample, 0, sizeof(w->sample));
	WRITE_ONCE(w->slot, EXEC_SLOT_LIVE);
	atomic_inc(&pool->nr_live);
	if (i >= pool->nr_used)
		/* Pairs with exec_pool_nr_used(): the slot is set up first. */
		smp_store_release(&pool->nr_used, i + 1);
	ret = exec_pool_start_worker(pool, i, &g->thread_attr, UINT_MAX);
	if (ret) {
		atomic_dec(&pool->nr_live);
		WRITE_ONCE(w->slot, EXEC_SLOT_FREE);
		return ret;
	}
	g->threads_since_last_exit++;
	return 0;
}

/*
 * N3378's state of the pool.  Each live worker is counted once: told to
 * exit (@kill_pending), idle (also @blocked), busy and blocked, or else
 * @active; so threads = active + kill_pending + create_pending + blocked.
 * Workers are started synchronously, so @create_pending is always 0 here.
 */
static void exec_grow_sample(struct exec_pool_grow *g,
			     struct exec_pool_state *st)
{
	struct exec_thread_pool *pool = g->pool;
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_pool_worker *w;
	long queued;

	memset(st, 0, sizeof(*st));
	st->time_ns = exec_clock_read(EXEC_CLOCK_MONOTONIC);
	st->closures_run = READ_ONCE(pool->nr_started);
	queued = atomic_long_read(&pool->nr_submitted) -
		 (long)st->closures_run;
	st->queue_length = (queued > 0 ? queued : 0) +
			   exec_grow_slot_items(pool);
	st->threads_since_last_exit = g->threads_since_last_exit;
	for (i = 0; i < used; i++) {
		w = &pool->workers[i];
		if (READ_ONCE(w->slot) != EXEC_SLOT_LIVE)
			continue;
		st->threads++;
		if (READ_ONCE(w->retire)) {
			st->kill_pending++;
			continue;
		}
		if (exec_pool_worker_idle(w)) {
			st->idle++;
			st->blocked++;
			continue;
		}
		if (!(READ_ONCE(w->run_seq) & 1)) {
			/* Between items, or spinning for the next. */
			st->active++;
			continue;
		}
		if (READ_ONCE(w->nr_hints) > 0 ||
		    exec_thread_blocked(&w->thread, &w->sample))
			st->blocked++;
		else
			st->active++;
	}
}

/* Start workers while items wait, none is idle and too few run. */
static void exec_grow_default_policy(const struct exec_pool_state *st,
				     struct exec_pool_action *act, void *arg)
{
	struct exec_pool_grow *g = arg;

	act->create = st->queue_length && !st->idle &&
		      st->active < g->concurrency;
}

/*
 * How many the default policy's @create starts: one per worker missing to
 * run @concurrency, no more than items wait.  Starting one and looking
 * again EXEC_GROW_RELOOK_NS later cost blocking_mix (T = 2, 8 blocking
 * items first) four such pauses with no CPU item running.
 */
static unsigned int exec_grow_default_count(const struct exec_pool_grow *g,
					    const struct exec_pool_state *st)
{
	unsigned long missing = g->concurrency - st->active;

	return (unsigned int)min_t(unsigned long, missing, st->queue_length);
}

/* Tells up to @nr idle added workers to exit. */
static void exec_grow_retire(struct exec_pool_grow *g, unsigned int nr)
{
	struct exec_thread_pool *pool = g->pool;
	unsigned int i, used = exec_pool_nr_used(pool);
	struct exec_pool_worker *w;

	for (i = used; nr && i-- > pool->nr_threads;) {
		w = &pool->workers[i];
		if (READ_ONCE(w->slot) != EXEC_SLOT_LIVE ||
		    !exec_pool_worker_idle(w) || READ_ONCE(w->retire))
			continue;
		WRITE_ONCE(w->retire, true);
		exec_parker_unpark(&w->parker);
		nr--;
	}
}

/*
 * Carries out the policy's action; returns when to look again, in ns.  The
 * default policy looks again soon after a start: the new worker has had
 * time to take an item, and if that blocks too, the next one starts
 * without waiting a whole sample period.
 */
static u64 exec_grow_apply(struct exec_pool_grow *g,
			   const struct exec_pool_state *st,
			   struct exec_pool_action *act)
{
	struct exec_thread_pool *pool = g->pool;
	unsigned int n, want, have = st->threads - st->kill_pending;
	bool started = false;

	if (act->desired_threads >= 0) {
		WARN_ON_ONCE(act->create);
		want = clamp_t(unsigned int, act->desired_threads,
			       pool->nr_threads, pool->nr_slots);
		if (want > have)
			started = !exec_grow_start(g);
		else if (want < have)
			exec_grow_retire(g, have - want);
	} else if (act->create) {
		n = g->policy == exec_grow_default_policy ?
		    exec_grow_default_count(g, st) : 1;
		while (n-- && have < pool->nr_slots && !exec_grow_start(g)) {
			started = true;
			have++;
		}
	}
	if (started && g->policy == exec_grow_default_policy)
		return EXEC_GROW_RELOOK_NS;
	return (u64)max(act->delay_ms, EXEC_POOL_SAMPLE_MS) * NSEC_PER_MSEC;
}

static int exec_grow_manager_fn(void *arg)
{
	struct exec_pool_grow *g = arg;
	struct exec_thread_pool *pool = g->pool;
	u64 when[EXEC_CLOCK_COUNT] = { 0, EXEC_TIME_NEVER };
	struct exec_pool_action act;
	struct exec_pool_state st;

	while (!READ_ONCE(g->stop)) {
		exec_grow_reap(g);
		if (READ_ONCE(pool->state) ||
		    (!g->periodic && !exec_grow_wanted(pool))) {
			/* Full barrier: pairs with the submitter's xchg(). */
			smp_store_mb(g->sleeping, 1);
			if (!READ_ONCE(pool->state) && !READ_ONCE(g->stop) &&
			    !atomic_read(&g->nr_exited) &&
			    (g->periodic || !exec_grow_wanted(pool)))
				exec_parker_park(&g->parker);
			WRITE_ONCE(g->sleeping, 0);
			if (READ_ONCE(pool->state) && !READ_ONCE(g->stop))
				exec_parker_park(&g->parker);
			continue;
		}
		if (g->policy == exec_grow_default_policy &&
		    atomic_read(&pool->nr_live) >= (int)pool->nr_slots) {
			/* Nothing it could decide: look again much later. */
			when[EXEC_CLOCK_MONOTONIC] =
				exec_clock_read(EXEC_CLOCK_MONOTONIC) +
				EXEC_GROW_FULL_NS;
			exec_parker_park_until(&g->parker, when);
			continue;
		}
		exec_grow_sample(g, &st);
		act.create = false;
		act.desired_threads = -1;
		act.delay_ms = EXEC_POOL_SAMPLE_MS;
		g->policy(&st, &act, g->policy_arg);
		when[EXEC_CLOCK_MONOTONIC] = st.time_ns +
					     exec_grow_apply(g, &st, &act);
		exec_parker_park_until(&g->parker, when);
	}
	return 0;
}

int exec_grow_create(struct exec_thread_pool *pool,
		     const struct exec_thread_pool_attr *attr)
{
	const struct exec_thread_attr *ta = &attr->thread;
	struct exec_pool_grow *g;
	char name[32];
	int ret;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->pool = pool;
	g->concurrency = attr->concurrency ? attr->concurrency :
					     exec_online_cpus();
	g->idle_timeout_ns = (u64)(attr->idle_timeout_ms ?
				   attr->idle_timeout_ms :
				   EXEC_POOL_IDLE_TIMEOUT_MS) * NSEC_PER_MSEC;
	g->policy = attr->policy ? attr->policy : exec_grow_default_policy;
	g->policy_arg = attr->policy ? attr->policy_arg : g;
	g->periodic = attr->policy_periodic;
	atomic_set(&g->nr_exited, 0);
	g->thread_attr = *ta;
	if (ta->name) {
		snprintf(g->name, sizeof(g->name), "%s", ta->name);
		g->thread_attr.name = g->name;
	}
	if (ta->cpus) {
		g->cpus = kmemdup(ta->cpus, BITS_TO_LONGS(ta->nr_cpu_bits) *
					    sizeof(*ta->cpus), GFP_KERNEL);
		ret = -ENOMEM;
		if (!g->cpus)
			goto err_free_grow;
		g->thread_attr.cpus = g->cpus;
	}
	ret = exec_parker_init(&g->parker);
	if (ret)
		goto err_free_cpus;
	pool->grow = g;
	snprintf(name, sizeof(name), "%s/m", ta->name ? ta->name : "exec-pool");
	ret = exec_thread_start_attr(&g->thread, exec_grow_manager_fn, g, name,
				     ta);
	if (ret)
		goto err_destroy_parker;
	return 0;

err_destroy_parker:
	pool->grow = NULL;
	exec_parker_destroy(&g->parker);
err_free_cpus:
	kfree(g->cpus);
err_free_grow:
	kfree(g);
	return ret;
}

void exec_grow_stop(struct exec_thread_pool *pool)
{
	struct exec_pool_grow *g = pool->grow;

	if (!g || READ_ONCE(g->stop))
		return;
	WRITE_ONCE(g->stop, true);
	exec_parker_unpark(&g->parker);
	exec_thread_join(&g->thread);
}

void exec_grow_free(struct exec_thread_pool *pool)
{
	struct exec_pool_grow *g = pool->grow;

	if (!g)
		return;
	exec_grow_stop(pool);
	exec_parker_destroy(&g->parker);
	kfree(g->cpus);
	kfree(g);
	pool->grow = NULL;
}

/* The worker of a growing pool that the calling thread is, if any. */
static struct exec_pool_worker *exec_grow_self(void)
{
	struct exec_frame *tag = exec_frame_find(&exec_pool_worker_tag);
	struct exec_pool_worker *w;

	if (!tag)
		return NULL;
	w = container_of(tag, struct exec_pool_worker, tag);
	return w->pool->grow ? w : NULL;
}

void exec_blocking_begin(void)
{
	struct exec_pool_worker *w = exec_grow_self();

	if (!w)
		return;
	WRITE_ONCE(w->nr_hints, w->nr_hints + 1);
	/* Full barrier: the hint is visible before the manager looks. */
	smp_mb();
	/* Asleep or between samples, the manager looks now. */
	if (w->nr_hints == 1 && exec_grow_wanted(w->pool)) {
		WRITE_ONCE(w->pool->grow->sleeping, 0);
		exec_parker_unpark(&w->pool->grow->parker);
	}
}
EXPORT_SYMBOL_GPL(exec_blocking_begin);

void exec_blocking_end(void)
{
	struct exec_pool_worker *w = exec_grow_self();

	if (!w || WARN_ON_ONCE(w->nr_hints <= 0))
		return;
	WRITE_ONCE(w->nr_hints, w->nr_hints - 1);
}
EXPORT_SYMBOL_GPL(exec_blocking_end);

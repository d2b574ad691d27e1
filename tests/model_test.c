// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A model-based tester: seeded random sequences of the public operations,
 * from several threads, against executors that run and drop the items, with
 * the invariants checked at every event and at the end of every round.
 *
 * One round builds a world: a thread pool P (bounded or not), a serial
 * executor S1 over P, a serial executor S2 over S1, a loop scheduler L
 * driven by a thread of the tester, a serial executor S3 over L, and a task
 * group G.  Operator threads then each perform a sequence of operations
 * drawn from a xorshift generator seeded from the seed and the thread's
 * index, on items that thread owns: submit, try-submit, post, dispatch,
 * defer, closures, timed arm, mod, cancel, cancel_sync, periodic items,
 * group submit, cancel and reset, futures with and without continuations,
 * stopping L (it also stops by itself when its outstanding work falls to 0,
 * and its driver restarts it) and P's shutdown_hard.  The round ends with
 * the destroys, in dependency order, and the counts.
 *
 * The model: every item counts its accepted submissions, its runs, its
 * discards and the cancels that took it back.  Always: no more ended than
 * accepted, runs of one item never overlap, a timed item never starts
 * before its deadline, nothing of an item happens after a cancel_sync of it
 * returned, a serial executor runs one item at a time and each producer's
 * items in submission order.  At the end of a round: every accepted item
 * ended exactly once (ran, was discarded with its callback, or was
 * cancelled), every future completed exactly once, and each destroy
 * returned the number of discard callbacks it made.
 *
 * The operation sequence of thread T depends only on the seed and T, so a
 * failure seen with one thread replays the same operations with that seed.
 * A failure names the seed, the thread and its operation index.
 *
 * tests/user/model_main.c builds this file into build/exec-model, which
 * runs the same rounds for a given seed and number of operations, or for a
 * given time (Documentation/testing.rst).
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "exec_test.h"

#define MODEL_THREADS_MAX	4U
#define MODEL_WORKS		12U	/* intrusive items per thread */
#define MODEL_TIMERS		10U
#define MODEL_PERIODICS		3U
#define MODEL_GITEMS		6U
#define MODEL_ITEMS		(MODEL_WORKS + MODEL_TIMERS + MODEL_PERIODICS + \
				 MODEL_GITEMS)
#define MODEL_RECS		1024U	/* closures and futures per thread */
#define MODEL_HIST		16U	/* events kept per item */

/*
 * The fuzz target (tests/fuzz/api_fuzz.c) runs a round per input, so a
 * round's real waits are its rate: there, the delays of timed items, the
 * long spins and the sleeps are a tenth of the model tester's.  The order
 * of events they provoke (due before, during or after other work) is the
 * same; the bytes of the input choose them the same way.
 */
#ifdef EXEC_MODEL_FUZZ
#define MODEL_TSCALE		10U
#else
#define MODEL_TSCALE		1U
#endif

/* The executors of a round. */
enum { MX_P, MX_S1, MX_S2, MX_L, MX_S3, MX_NR };

enum { MK_WORK, MK_TIMER, MK_PERIODIC, MK_GROUP };

struct model;
struct model_thread;

/**
 * struct model_item - one intrusive item, owned by one operator thread
 * @u: the item the library sees
 * @owner: the thread that submits, arms and cancels it
 * @child: an item that this one's function dispatches or defers, or NULL;
 *	touched only by this item's function
 * @kind: MK_*
 * @idx: its index among its owner's items (children: MODEL_ITEMS + n)
 * @ex: the executor of the current submission (owner, when quiescent)
 * @seq: the serial order number of the submission; 0: not checked
 * @spin_ns: how long the function busies itself
 * @op: the owner's operation index at the submission
 * @lb: the earliest time the function may start, for timed items; only
 *	lowered while the item is not quiescent
 * @nested: run by a dispatch inside a strand item: not a separate turn
 * @reentrant: submitted again while maybe pending: a run of the second
 *	submission may overlap the first's (the pending bit is cleared before
 *	the function is called), so overlaps are allowed
 * @accepted: submissions accepted (counted before the call, taken back on
 *	failure, so that it is never behind the events)
 * @ran: runs (one-shot) or starts (periodic) of the function
 * @discarded: discard callbacks
 * @cancelled: cancels that returned 1
 * @active: callbacks now in progress
 * @fence: set once a cancel_sync returned; nothing may happen after it
 * @needs_sync: a plain cancel took it back; the library may still hold it
 *	until its executor dequeues it, so an arm may find it pending
 * @hist_n: events noted in @hist, ever
 * @hist: the last MODEL_HIST events of its timed operations and callbacks
 *	(model_note()), printed with a failure of the item
 */
struct model_item {
	union {
		struct exec_work work;
		struct exec_timer timer;
		struct exec_periodic periodic;
		struct exec_group_item gitem;
	} u;
	struct model_thread *owner;
	struct model_item *child;
	unsigned int kind;
	unsigned int idx;
	unsigned int ex;
	unsigned int seq;
	unsigned int spin_ns;
	unsigned int op;
	u64 lb;
	bool nested;
	bool reentrant;
	bool needs_sync;
	atomic_t accepted;
	atomic_t ran;
	atomic_t discarded;
	atomic_t cancelled;
	atomic_t active;
	atomic_t fence;
	atomic_t hist_n;
	atomic_long_t hist[MODEL_HIST];
};

/**
 * struct model_rec - a closure or a future of one operator thread
 * @owner: its thread
 * @ex: the executor of the closure or of the spawned task
 * @op: the owner's operation index
 * @fut: the future, kept for a wait (NULL with a continuation, or once
 *	its result was taken)
 * @future: a future's task, not a closure
 * @then: a continuation was registered
 * @ran: the closure or the task ran
 * @discarded: the closure's discard callback ran
 * @conts: continuation calls
 * @result: what the continuation got
 */
struct model_rec {
	struct model_thread *owner;
	unsigned int ex;
	unsigned int op;
	struct exec_future *fut;
	bool future;
	bool then;
	atomic_t ran;
	atomic_t discarded;
	atomic_t conts;
	long result;
};

struct model_thread {
	struct model *m;
	struct exec_test_thread thread;
	unsigned int idx;
	u64 rng;
	unsigned int op;	/* operations done, over all rounds */
	unsigned int nr_ops;	/* to do in this round */
	unsigned int serial_seq[MX_NR];
	struct model_item items[MODEL_ITEMS];
	struct model_item children[MODEL_WORKS];
	struct model_rec *recs;
	unsigned int nr_recs;
};

/**
 * struct model_cfg - what to run
 * @seed: the seed
 * @threads: operator threads, 1 to MODEL_THREADS_MAX
 * @rounds: rounds
 * @ops: operations per thread per round
 * @verbose: print a line per round (userspace driver)
 */
struct model_cfg {
	u64 seed;
	unsigned int threads;
	unsigned int rounds;
	unsigned int ops;
	bool verbose;
};

struct model {
	struct model_cfg cfg;
	unsigned int round;
	u64 rng;		/* the round's own choices */
	struct exec_thread_pool *pool;
	struct exec_serial *s1, *s2, *s3;
	struct exec_loop_scheduler *ls;
	struct exec_group *group;
	struct exec_executor *ex[MX_NR];
	unsigned long queue_limit;
	bool may_shutdown;
	atomic_t shut;		/* P's shutdown_hard has begun */
	atomic_t ending;	/* the destroys of the round's end have begun */
	atomic_t group_cancels;	/* group cancels begun this round */
	atomic_t ex_discards[MX_NR];	/* outside P's workers: model_count_discard() */
	atomic_t running[MX_NR];	/* serial exclusion */
	unsigned int last_seq[MX_NR][MODEL_THREADS_MAX];
	struct exec_test_thread driver;
	atomic_t driver_stop;
	atomic_t burst_done;	/* model_moved_burst() has moved its items */
	unsigned long burst_moved;	/* which of thread 0's, bit per index */
	struct model_thread threads[MODEL_THREADS_MAX];
	unsigned long nr_events;	/* operations done, all threads */
	atomic_t failed;
	char msg[768];
};

static bool model_claim(struct model *m)
{
	return atomic_inc_return(&m->failed) == 1;
}

/*
 * An event of an item, for its history: @op a letter (a arm, p periodic
 * arm, m mod of a pending item, M mod of a quiescent one, c cancel,
 * s cancel_sync, f final cancel, r run, d discard), @ret what the call
 * returned.
 */
static void model_note(struct model_item *it, char op, int ret)
{
	unsigned int n = atomic_inc_return(&it->hist_n) - 1;
	u64 us = exec_clock_now(EXEC_CLOCK_MONOTONIC) / 1000;

	atomic_long_set(&it->hist[n % MODEL_HIST],
			(long)((us & 0xffffffffffULL) << 16 |
			       (u64)(u8)ret << 8 | (u8)op));
}

/* The item's last events, oldest first: "a0@0 r@12 c1@15" (us). */
static void model_history(struct model_item *it, char *buf, size_t len)
{
	unsigned int n = atomic_read(&it->hist_n), i, first;
	size_t off = 0;
	u64 t0 = 0;

	buf[0] = '\0';
	first = n > MODEL_HIST ? n - MODEL_HIST : 0;
	for (i = first; i < n && off < len; i++) {
		u64 e = (u64)atomic_long_read(&it->hist[i % MODEL_HIST]);
		unsigned long long us;
		char op = (char)(e & 0xff);
		int ret = (signed char)((e >> 8) & 0xff);

		if (i == first)
			t0 = e >> 16;
		us = (e >> 16) - t0;
		if (op == 'r' || op == 'd')
			off += snprintf(buf + off, len - off, " %c@%llu", op,
					us);
		else
			off += snprintf(buf + off, len - off, " %c%d@%llu", op,
					ret, us);
	}
}

/* Records the first failure, with the seed and where it happened. */
#define model_fail(m, t, op, fmt, ...)					\
	do {								\
		if (model_claim(m))					\
			snprintf((m)->msg, sizeof((m)->msg),		\
				 "seed %llu threads %u round %u: thread %u op %u: " fmt, \
				 (unsigned long long)(m)->cfg.seed,	\
				 (m)->cfg.threads, (m)->round, (t), (op), \
				 ##__VA_ARGS__);			\
	} while (0)

#define model_item_fail(it, fmt, ...)					\
	do {								\
		char __hist[MODEL_HIST * 12];				\
									\
		model_history(it, __hist, sizeof(__hist));		\
		model_fail((it)->owner->m, (it)->owner->idx, (it)->op,	\
			   "%s item %u on %s: " fmt "; events:%s",	\
			   model_kind_name[(it)->kind],			\
			   (it)->idx, model_ex_name[(it)->ex],		\
			   ##__VA_ARGS__, __hist);			\
	} while (0)

static const char *const model_kind_name[] = {
	"work", "timer", "periodic", "group",
};

static const char *const model_ex_name[] = {
	"P", "S1", "S2", "L", "S3",
};

static bool model_is_serial(unsigned int ex)
{
	return ex == MX_S1 || ex == MX_S2 || ex == MX_S3;
}

/* Whether P's shutdown reaches @ex. */
static bool model_on_pool(unsigned int ex)
{
	return ex == MX_P || ex == MX_S1 || ex == MX_S2;
}

/* xorshift64*: deterministic, the same in both worlds. */
static u64 model_next(u64 *s)
{
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void model_seed(u64 *s, u64 seed, u64 stream)
{
	*s = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (stream + 1) * 0xBF58476D1CE4E5B9ULL;
	if (!*s)
		*s = 1;
	model_next(s);
}

static unsigned int model_below(u64 *s, unsigned int n)
{
	return (unsigned int)((model_next(s) >> 32) % n);
}

static u64 model_now(void)
{
	return exec_clock_now(EXEC_CLOCK_MONOTONIC);
}

static void model_spin(unsigned int ns)
{
	u64 end = model_now() + ns;

	while (model_now() < end)
		cpu_relax();
}

/* Runs (one-shot) or nothing (periodic) + discards + cancels. */
static int model_ended(struct model_item *it)
{
	int n = atomic_read_acquire(&it->discarded) +
		atomic_read_acquire(&it->cancelled);

	if (it->kind != MK_PERIODIC)
		n += atomic_read_acquire(&it->ran);
	return n;
}

/*
 * No accepted submission left and no callback in progress; for a timed
 * item taken back by a plain cancel, also a cancel_sync since (timer.h: a
 * cancel that stops a running periodic item lets that run go on, maybe not
 * yet in its function; a cancelled due item stays queued until dequeued).
 * Called by the owner only.
 */
static bool model_quiescent(struct model_item *it)
{
	if (it->needs_sync)
		return false;
	return model_ended(it) == atomic_read_acquire(&it->accepted) &&
	       !atomic_read_acquire(&it->active);
}

/*
 * The ended count first: each of those events happened after its
 * submission was counted in @accepted, so a read of @accepted after them
 * sees that submission.  Read the other way round, a run that was held up
 * between its two reads (by ThreadSanitizer, say) while its owner armed
 * the item again and cancelled that arm counted the cancel against the
 * older @accepted: "ended 3 times, accepted 2", a failure of the check.
 */
static void model_check_count(struct model_item *it, const char *what)
{
	int ended = model_ended(it);
	int acc = atomic_read_acquire(&it->accepted);

	if (ended > acc)
		model_item_fail(it, "%s: ended %d times, accepted %d (ran %d discarded %d cancelled %d)",
				what, ended, acc, atomic_read(&it->ran),
				atomic_read(&it->discarded),
				atomic_read(&it->cancelled));
}

static void model_enter(struct model_item *it, const char *what)
{
	if (atomic_inc_return(&it->active) != 1 && !READ_ONCE(it->reentrant))
		model_item_fail(it, "%s overlaps another callback", what);
	if (atomic_read_acquire(&it->fence))
		model_item_fail(it, "%s after cancel_sync returned", what);
}

static void model_leave(struct model_item *it)
{
	atomic_dec_return(&it->active);
}

static int model_submit_child(struct model *m, struct model_item *parent);

static void model_run(struct model_item *it)
{
	struct model *m = it->owner->m;
	unsigned int ex = it->ex, t = it->owner->idx;
	bool turn = model_is_serial(ex) && !it->nested;
	u64 now = model_now();

	model_enter(it, "run");
	model_note(it, 'r', 0);
	atomic_inc_return(&it->ran);
	model_check_count(it, "run");
	if (it->kind == MK_TIMER || it->kind == MK_PERIODIC) {
		if (now < READ_ONCE(it->lb))
			model_item_fail(it, "ran %llu ns before its deadline",
					(unsigned long long)(READ_ONCE(it->lb) - now));
	}
	if (turn && atomic_inc_return(&m->running[ex]) != 1)
		model_item_fail(it, "two items of a serial executor at once");
	if (turn && it->seq) {
		if (it->seq <= m->last_seq[ex][t])
			model_item_fail(it, "serial order: seq %u after %u",
					it->seq, m->last_seq[ex][t]);
		m->last_seq[ex][t] = it->seq;
	}
	model_spin(it->spin_ns);
	if (it->child)
		model_submit_child(m, it);
	if (turn)
		atomic_dec_return(&m->running[ex]);
	model_leave(it);
}

/*
 * Whether dropping work of @ex is what the model expects: P was shut down
 * (P and the serial executors over it), a group cancel (group items), or
 * the destroys at the end of the round.
 */
static bool model_may_drop(struct model *m, unsigned int ex, bool group)
{
	return atomic_read_acquire(&m->ending) ||
	       (model_on_pool(ex) && atomic_read_acquire(&m->shut)) ||
	       (group && atomic_read_acquire(&m->group_cancels));
}

/*
 * Counts a discard callback of @ex's items for the check of @ex's destroy,
 * which makes its callbacks in the thread that destroys.  Those a run on a
 * worker of P makes are not the destroy's, though they may come while it
 * waits for that run (serial.h): once P was shut down, a run of S1 that its
 * worker finishes may find P refusing it and drop what it holds, S2's
 * runner and with it S2's queue; after a group cancel, a group item that
 * such a run takes is discarded by the group.  Each item's own count still
 * shows that it ended once.
 */
static void model_count_discard(struct model *m, unsigned int ex)
{
	if (!exec_thread_pool_running_in_this_thread(m->pool))
		atomic_inc_return(&m->ex_discards[ex]);
}

static void model_discard(struct model_item *it)
{
	struct model *m = it->owner->m;

	if (!model_may_drop(m, it->ex, it->kind == MK_GROUP))
		model_item_fail(it, "discarded while its executor is alive");
	model_enter(it, "discard");
	model_note(it, 'd', 0);
	atomic_inc_return(&it->discarded);
	model_count_discard(m, it->ex);
	model_check_count(it, "discard");
	model_leave(it);
}

static void model_work_fn(struct exec_work *w)
{
	model_run(container_of(w, struct model_item, u.work));
}

static void model_work_discard(struct exec_work *w)
{
	model_discard(container_of(w, struct model_item, u.work));
}

static void model_group_fn(struct exec_group_item *g)
{
	model_run(container_of(g, struct model_item, u.gitem));
}

static void model_group_discard(struct exec_group_item *g)
{
	model_discard(container_of(g, struct model_item, u.gitem));
}

/* A parent's function hands its child to the parent's executor. */
static int model_submit_child(struct model *m, struct model_item *parent)
{
	struct model_item *c = parent->child;
	unsigned int how = parent->spin_ns % 3;
	int ret;

	/*
	 * Two runs of a parent submitted again while it ran may overlap:
	 * the child belongs to the runs of a parent that is not reentrant.
	 */
	if (READ_ONCE(parent->reentrant) || !model_quiescent(c))
		return 0;
	c->ex = parent->ex;
	c->seq = 0;
	c->op = parent->op;
	c->spin_ns = parent->spin_ns / 4;
	c->nested = how == 0;
	atomic_inc_return(&c->accepted);
	if (how == 0)
		ret = exec_dispatch(m->ex[c->ex], &c->u.work);
	else if (how == 1)
		ret = exec_defer(m->ex[c->ex], &c->u.work);
	else
		ret = exec_post(m->ex[c->ex], &c->u.work);
	if (ret) {
		atomic_dec_return(&c->accepted);
		/* An executor being destroyed at the end refuses it too. */
		if (!(ret == -ESHUTDOWN && model_may_drop(m, c->ex, false)) &&
		    !(ret == -EAGAIN && m->queue_limit && model_on_pool(c->ex)))
			model_item_fail(c, "child submission: %d", ret);
	}
	return ret;
}

static void model_closure_fn(void *arg)
{
	struct model_rec *r = arg;

	if (atomic_inc_return(&r->ran) + atomic_read(&r->discarded) != 1)
		model_fail(r->owner->m, r->owner->idx, r->op,
			   "closure on %s ran after it ended", model_ex_name[r->ex]);
}

static void model_closure_discard(void *arg)
{
	struct model_rec *r = arg;

	if (!model_may_drop(r->owner->m, r->ex, false))
		model_fail(r->owner->m, r->owner->idx, r->op,
			   "closure on %s discarded while its executor is alive",
			   model_ex_name[r->ex]);
	model_count_discard(r->owner->m, r->ex);
	if (atomic_inc_return(&r->discarded) + atomic_read(&r->ran) != 1)
		model_fail(r->owner->m, r->owner->idx, r->op,
			   "closure on %s discarded after it ended",
			   model_ex_name[r->ex]);
}

static long model_task(void *arg)
{
	struct model_rec *r = arg;

	if (atomic_inc_return(&r->ran) != 1)
		model_fail(r->owner->m, r->owner->idx, r->op,
			   "future task on %s ran twice", model_ex_name[r->ex]);
	return (long)r->op + 1;
}

static void model_cont(void *arg, long result)
{
	struct model_rec *r = arg;
	struct model *m = r->owner->m;

	WRITE_ONCE(r->result, result);
	if (atomic_inc_return(&r->conts) != 1)
		model_fail(m, r->owner->idx, r->op,
			   "continuation called twice");
	if (result != -ECANCELED && result != (long)r->op + 1)
		model_fail(m, r->owner->idx, r->op,
			   "continuation got %ld", result);
	if (result == (long)r->op + 1 && !atomic_read_acquire(&r->ran))
		model_fail(m, r->owner->idx, r->op,
			   "continuation got a result its task never made");
	/* Refused by a pool shut down, or full under its own worker. */
	if (result == -ECANCELED && atomic_read_acquire(&r->ran) &&
	    !atomic_read(&m->shut) && !(r->ex == MX_P && m->queue_limit))
		model_fail(m, r->owner->idx, r->op,
			   "continuation cancelled after its task ran, executors alive");
}

/* --- operations -------------------------------------------------------- */

#ifdef EXEC_MODEL_FUZZ
/*
 * tests/fuzz/api_fuzz.c: the fuzzer's bytes, which make operator thread
 * 0's choices (two bytes each) until they run out, so that a mutation of
 * the input is a change of the operations.
 */
static const u8 *model_fuzz_data;
static size_t model_fuzz_len;
#endif

static unsigned int model_rand(struct model_thread *t, unsigned int n)
{
#ifdef EXEC_MODEL_FUZZ
	unsigned int v;

	if (t->idx == 0 && model_fuzz_len >= 2) {
		v = model_fuzz_data[0] | model_fuzz_data[1] << 8;
		model_fuzz_data += 2;
		model_fuzz_len -= 2;
		return v % n;
	}
#endif
	return model_below(&t->rng, n);
}

static struct model_item *model_pick(struct model_thread *t, unsigned int kind)
{
	static const unsigned int first[] = {
		0, MODEL_WORKS, MODEL_WORKS + MODEL_TIMERS,
		MODEL_WORKS + MODEL_TIMERS + MODEL_PERIODICS,
	};
	static const unsigned int nr[] = {
		MODEL_WORKS, MODEL_TIMERS, MODEL_PERIODICS, MODEL_GITEMS,
	};

	return &t->items[first[kind] + model_rand(t, nr[kind])];
}

/* An error the model allows for a submission to @ex. */
static bool model_allowed(struct model *m, unsigned int ex, int ret,
			  bool may_again)
{
	if (ret == -ESHUTDOWN)
		return model_on_pool(ex) && atomic_read(&m->shut);
	if (ret == -EAGAIN)
		return may_again && m->queue_limit && model_on_pool(ex);
	return false;
}

/* Fills in a quiescent item for a new submission to @ex. */
static void model_prepare(struct model_thread *t, struct model_item *it,
			  unsigned int ex, bool ordered)
{
	it->ex = ex;
	it->op = t->op;
	it->seq = ordered && model_is_serial(ex) ? ++t->serial_seq[ex] : 0;
	it->spin_ns = (model_rand(t, 16) ? model_rand(t, 20000) :
				200000 + model_rand(t, 300000)) / MODEL_TSCALE;
	it->nested = false;
	WRITE_ONCE(it->reentrant, false);
	atomic_set(&it->fence, 0);
	atomic_inc_return(&it->accepted);
}

static void model_op_submit(struct model_thread *t, unsigned int how)
{
	struct model *m = t->m;
	struct model_item *it = model_pick(t, MK_WORK);
	unsigned int ex = model_rand(t, MX_NR);
	struct exec_executor *e = m->ex[ex];
	int ret;

	if (!model_quiescent(it))
		return;
	model_prepare(t, it, ex, true);
	switch (how) {
	case 0:
		ret = exec_submit(e, &it->u.work);
		break;
	case 1:
		ret = exec_try_submit(e, &it->u.work);
		break;
	case 2:
		ret = exec_post(e, &it->u.work);
		break;
	case 3:
		ret = exec_dispatch(e, &it->u.work);
		break;
	default:
		ret = exec_defer(e, &it->u.work);
		break;
	}
	if (ret) {
		atomic_dec_return(&it->accepted);
		if (!model_allowed(m, ex, ret, how != 0))
			model_item_fail(it, "submission (%u) failed: %d", how, ret);
	}
}

/* Submitting a pending item again: -EALREADY, or 0 if it started meanwhile. */
static void model_op_resubmit(struct model_thread *t)
{
	struct model *m = t->m;
	struct model_item *it = model_pick(t, MK_WORK);
	int ret;

	if (model_quiescent(it) || model_is_serial(it->ex))
		return;
	WRITE_ONCE(it->reentrant, true);
	atomic_inc_return(&it->accepted);
	ret = exec_submit(m->ex[it->ex], &it->u.work);
	if (ret) {
		atomic_dec_return(&it->accepted);
		if (ret != -EALREADY && !model_allowed(m, it->ex, ret, false))
			model_item_fail(it, "resubmission failed: %d", ret);
	}
}

static struct model_rec *model_rec(struct model_thread *t, unsigned int ex)
{
	struct model_rec *r;

	if (t->nr_recs >= MODEL_RECS)
		return NULL;
	r = &t->recs[t->nr_recs++];
	memset(r, 0, sizeof(*r));
	r->owner = t;
	r->ex = ex;
	r->op = t->op;
	return r;
}

static void model_op_closure(struct model_thread *t)
{
	struct model *m = t->m;
	unsigned int ex = model_rand(t, MX_NR);
	unsigned int flags = model_rand(t, 2) ? EXEC_SUBMIT_NOWAIT : 0;
	struct model_rec *r = model_rec(t, ex);
	int ret;

	if (!r)
		return;
	ret = exec_submit_fn_full(m->ex[ex], model_closure_fn,
				  model_closure_discard, r, flags);
	if (ret) {
		/* Not submitted: it must never be called. */
		atomic_set(&r->ran, 1000);
		if (!model_allowed(m, ex, ret, flags))
			model_fail(m, t->idx, t->op, "closure on %s: %d",
				   model_ex_name[ex], ret);
	}
}

static void model_op_arm(struct model_thread *t)
{
	struct model *m = t->m;
	struct model_item *it = model_pick(t, MK_TIMER);
	unsigned int ex = model_rand(t, MX_NR);
	u64 delay = model_rand(t, 4) ? model_rand(t, 3000000) / MODEL_TSCALE : 0;
	u64 slack = model_rand(t, 3) ? 0 : model_rand(t, 200000) / MODEL_TSCALE;
	bool was_cancelled = it->needs_sync;
	int ret;

	if (!model_quiescent(it))
		return;
	model_prepare(t, it, ex, false);
	WRITE_ONCE(it->lb, model_now() + delay);
	ret = exec_submit_at_slack(m->ex[ex], &it->u.timer, EXEC_CLOCK_MONOTONIC,
				   it->lb, slack);
	model_note(it, 'a', ret);
	if (ret) {
		atomic_dec_return(&it->accepted);
		if (!(ret == -EALREADY && was_cancelled) &&
		    !model_allowed(m, ex, ret, false))
			model_item_fail(it, "arm failed: %d", ret);
	}
}

static void model_op_mod(struct model_thread *t)
{
	struct model *m = t->m;
	struct model_item *it = model_pick(t, MK_TIMER);
	u64 deadline = model_now() + (model_rand(t, 4) ?
				      model_rand(t, 3000000) / MODEL_TSCALE : 0);
	bool quiet = model_quiescent(it);
	bool was_cancelled = it->needs_sync;
	unsigned int ex = it->ex;
	int ret;

	if (quiet) {
		ex = model_rand(t, MX_NR);
		model_prepare(t, it, ex, false);
		WRITE_ONCE(it->lb, deadline);
	} else {
		/* An arm of it may still start at the old deadline. */
		if (deadline < it->lb)
			WRITE_ONCE(it->lb, deadline);
		/* If it runs now, the new arm may start beside that run. */
		WRITE_ONCE(it->reentrant, true);
		atomic_inc_return(&it->accepted);
	}
	ret = exec_timer_mod(m->ex[ex], &it->u.timer, EXEC_CLOCK_MONOTONIC,
			     deadline);
	model_note(it, quiet ? 'M' : 'm', ret);
	if (ret == 0)
		return;
	atomic_dec_return(&it->accepted);
	if (ret == 1) {
		if (quiet)
			model_item_fail(it, "mod moved an item with no pending arm (cancelled %d)",
					was_cancelled);
		return;
	}
	if (!(ret == -EBUSY && was_cancelled) &&
	    !model_allowed(m, ex, ret, false))
		model_item_fail(it, "mod failed: %d", ret);
}

static struct model_item *model_pick_timed(struct model_thread *t)
{
	return model_pick(t, model_rand(t, 3) ? MK_TIMER : MK_PERIODIC);
}

static void model_op_cancel(struct model_thread *t, bool sync)
{
	struct model_item *it = model_pick_timed(t);
	int ret;

	ret = sync ? exec_timer_cancel_sync(&it->u.timer) :
		     exec_timer_cancel(&it->u.timer);
	model_note(it, sync ? 's' : 'c', ret);
	if (ret < 0 || ret > 1) {
		model_item_fail(it, "cancel%s returned %d", sync ? "_sync" : "",
				ret);
		return;
	}
	if (ret == 1) {
		atomic_inc_return(&it->cancelled);
		model_check_count(it, sync ? "cancel_sync" : "cancel");
		it->needs_sync = true;
	}
	if (!sync)
		return;
	it->needs_sync = false;
	if (atomic_read_acquire(&it->active))
		model_item_fail(it, "a callback still runs after cancel_sync");
	if (model_ended(it) != atomic_read(&it->accepted))
		model_item_fail(it, "after cancel_sync: accepted %d, ended %d (ran %d discarded %d cancelled %d)",
				atomic_read(&it->accepted), model_ended(it),
				atomic_read(&it->ran),
				atomic_read(&it->discarded),
				atomic_read(&it->cancelled));
	atomic_set_release(&it->fence, 1);
}

static void model_op_periodic(struct model_thread *t)
{
	struct model *m = t->m;
	struct model_item *it = model_pick(t, MK_PERIODIC);
	unsigned int ex = model_rand(t, MX_NR);
	u64 first = model_now() + model_rand(t, 2000000) / MODEL_TSCALE;
	u64 period = (200000 + model_rand(t, 2000000)) / MODEL_TSCALE;
	bool was_cancelled = it->needs_sync;
	int ret;

	if (!model_quiescent(it))
		return;
	model_prepare(t, it, ex, false);
	it->spin_ns /= 4;
	WRITE_ONCE(it->lb, first);
	ret = exec_submit_periodic(m->ex[ex], &it->u.periodic,
				   EXEC_CLOCK_MONOTONIC, first, period,
				   model_rand(t, 2) ? 0 :
				   model_rand(t, 100000) / MODEL_TSCALE,
				   model_rand(t, 2) ? EXEC_PERIOD_FIXED_RATE :
						      EXEC_PERIOD_FIXED_DELAY);
	model_note(it, 'p', ret);
	if (ret) {
		atomic_dec_return(&it->accepted);
		if (!(ret == -EALREADY && was_cancelled) &&
		    !model_allowed(m, ex, ret, false))
			model_item_fail(it, "periodic arm failed: %d", ret);
	}
}

static void model_op_group(struct model_thread *t, unsigned int what)
{
	struct model *m = t->m;
	struct model_item *it;
	unsigned int ex;
	long n;
	int ret;

	if (what == 1) {
		atomic_inc_return(&m->group_cancels);
		n = exec_group_cancel(m->group);
		if (n < 0)
			model_fail(m, t->idx, t->op, "group cancel: %ld", n);
		return;
	}
	if (what == 2) {
		ret = exec_group_reset(m->group);
		if (ret && ret != -EBUSY)
			model_fail(m, t->idx, t->op, "group reset: %d", ret);
		return;
	}
	it = model_pick(t, MK_GROUP);
	ex = model_rand(t, MX_NR);
	if (!model_quiescent(it))
		return;
	model_prepare(t, it, ex, true);
	ret = exec_group_submit(m->group, m->ex[ex], &it->u.gitem);
	if (ret) {
		atomic_dec_return(&it->accepted);
		if (!(ret == -ECANCELED && atomic_read(&m->group_cancels)) &&
		    !model_allowed(m, ex, ret, false))
			model_item_fail(it, "group submission failed: %d", ret);
	}
}

static void model_check_future(struct model *m, struct model_rec *r,
			       long result)
{
	if (result == (long)r->op + 1) {
		if (!atomic_read_acquire(&r->ran))
			model_fail(m, r->owner->idx, r->op,
				   "future result without its task");
	} else if (result != -ECANCELED) {
		model_fail(m, r->owner->idx, r->op, "future result %ld",
			   result);
	} else if (atomic_read_acquire(&r->ran)) {
		model_fail(m, r->owner->idx, r->op,
			   "future cancelled after its task ran");
	}
}

static void model_op_future(struct model_thread *t)
{
	struct model *m = t->m;
	unsigned int ex = model_rand(t, 2) ? MX_P : MX_L;
	struct model_rec *r = model_rec(t, ex);
	struct exec_future *f;
	int ret;

	if (!r)
		return;
	r->future = true;
	ret = exec_spawn_future(&f, m->ex[ex], model_task, r);
	if (ret) {
		atomic_set(&r->ran, 1000);
		atomic_set(&r->conts, 1);
		if (!model_allowed(m, ex, ret, false))
			model_fail(m, t->idx, t->op, "spawn_future on %s: %d",
				   model_ex_name[ex], ret);
		return;
	}
	if (model_rand(t, 2)) {
		r->fut = f;
		return;
	}
	r->then = true;
	ret = exec_future_then(f, m->ex[ex], model_cont, r);
	if (ret)
		model_fail(m, t->idx, t->op, "future_then: %d", ret);
	exec_future_put(f);
}

/* Takes the result of a kept future of this thread, if it is there. */
static void model_op_wait(struct model_thread *t)
{
	struct model_rec *r;
	long result;
	int ret;

	if (!t->nr_recs)
		return;
	r = &t->recs[model_rand(t, t->nr_recs)];
	if (!r->fut)
		return;
	ret = exec_future_wait(r->fut,
			       model_rand(t, 2) ? 0 : 100000 / MODEL_TSCALE,
			       &result);
	if (ret == -ETIMEDOUT)
		return;
	if (ret) {
		model_fail(t->m, t->idx, t->op, "future_wait: %d", ret);
		return;
	}
	model_check_future(t->m, r, result);
	exec_future_put(r->fut);
	r->fut = NULL;
}

static void model_op_shutdown(struct model_thread *t)
{
	struct model *m = t->m;
	long n;

	if (!m->may_shutdown || atomic_read(&m->shut))
		return;
	atomic_set(&m->shut, 1);
	n = exec_thread_pool_shutdown_hard(m->pool);
	if (n < 0)
		model_fail(m, t->idx, t->op, "shutdown_hard: %ld", n);
}

static void model_op(struct model_thread *t)
{
	unsigned int r = model_rand(t, 1000);

	if (r < 300)
		model_op_submit(t, model_rand(t, 5));
	else if (r < 330)
		model_op_resubmit(t);
	else if (r < 420)
		model_op_closure(t);
	else if (r < 540)
		model_op_arm(t);
	else if (r < 620)
		model_op_mod(t);
	else if (r < 700)
		model_op_cancel(t, false);
	else if (r < 730)
		model_op_cancel(t, true);
	else if (r < 760)
		model_op_periodic(t);
	else if (r < 850)
		model_op_group(t, 0);
	else if (r < 855)
		model_op_group(t, 1);
	else if (r < 870)
		model_op_group(t, 2);
	else if (r < 920)
		model_op_future(t);
	else if (r < 950)
		model_op_wait(t);
	else if (r < 960)
		exec_loop_scheduler_stop(t->m->ls);
	else if (r < 962)
		model_op_shutdown(t);
	else
		usleep_range((20 + model_rand(t, 300)) / MODEL_TSCALE,
			     400 / MODEL_TSCALE);
}

static int model_thread_fn(void *arg)
{
	struct model_thread *t = arg;
	unsigned int i;

	for (i = 0; i < t->nr_ops && !atomic_read(&t->m->failed); i++) {
		model_op(t);
		t->op++;
	}
	return 0;
}

/* Runs L while the operators work; restarts it when it stopped. */
static int model_driver_fn(void *arg)
{
	struct model *m = arg;
	u64 rng;
	long n;
	int ret;

	model_seed(&rng, m->cfg.seed, 1000 + m->round);
	while (!atomic_read_acquire(&m->driver_stop)) {
		if (exec_loop_scheduler_stopped(m->ls)) {
			ret = exec_loop_scheduler_restart(m->ls);
			if (ret)
				model_fail(m, 99, 0, "restart: %d", ret);
		}
		switch (model_below(&rng, 4)) {
		case 0:
			n = exec_loop_scheduler_poll(m->ls);
			break;
		case 1:
			n = exec_loop_scheduler_run_one_for(m->ls,
							    500000 / MODEL_TSCALE);
			break;
		default:
			n = exec_loop_scheduler_run_for(m->ls,
				(100000 + model_below(&rng, 2000000)) /
				MODEL_TSCALE);
			break;
		}
		if (n < 0)
			model_fail(m, 99, 0, "loop scheduler run: %ld", n);
		/* Due items wait in the queue meanwhile. */
		if ((!n || !model_below(&rng, 4)) &&
		    !atomic_read_acquire(&m->driver_stop))
			usleep_range((50 + model_below(&rng, 1000)) /
				     MODEL_TSCALE, 1100 / MODEL_TSCALE);
	}
	return 0;
}

/* --- a round ----------------------------------------------------------- */

static int model_world_create(struct model *m)
{
	struct exec_thread_pool_attr attr = { .nr_threads = 2 };
	static const unsigned long limits[] = { 0, 0, 2, 8 };
	int ret;

	m->queue_limit = limits[model_below(&m->rng, 4)];
	m->may_shutdown = !model_below(&m->rng, 3);
	attr.queue_limit = m->queue_limit;
	attr.thread.name = "exec-model";
	atomic_set(&m->shut, 0);
	atomic_set(&m->ending, 0);
	atomic_set(&m->group_cancels, 0);
	ret = exec_thread_pool_create(&m->pool, &attr);
	if (ret)
		return ret;
	m->ex[MX_P] = exec_thread_pool_executor(m->pool);
	ret = exec_serial_create(&m->s1, m->ex[MX_P]);
	if (ret)
		goto err_pool;
	m->ex[MX_S1] = exec_serial_executor(m->s1);
	ret = exec_serial_create(&m->s2, m->ex[MX_S1]);
	if (ret)
		goto err_s1;
	m->ex[MX_S2] = exec_serial_executor(m->s2);
	ret = exec_loop_scheduler_create(&m->ls);
	if (ret)
		goto err_s2;
	m->ex[MX_L] = exec_loop_scheduler_executor(m->ls);
	ret = exec_serial_create(&m->s3, m->ex[MX_L]);
	if (ret)
		goto err_ls;
	m->ex[MX_S3] = exec_serial_executor(m->s3);
	ret = exec_group_create(&m->group);
	if (ret)
		goto err_s3;
	return 0;

err_s3:
	exec_serial_destroy(m->s3);
err_ls:
	exec_loop_scheduler_destroy(m->ls);
err_s2:
	exec_serial_destroy(m->s2);
err_s1:
	exec_serial_destroy(m->s1);
err_pool:
	exec_thread_pool_destroy(m->pool);
	return ret;
}

static void model_items_init(struct model_thread *t)
{
	struct model_item *it;
	unsigned int i;

	memset(t->items, 0, sizeof(t->items));
	memset(t->children, 0, sizeof(t->children));
	for (i = 0; i < MODEL_ITEMS; i++) {
		it = &t->items[i];
		it->owner = t;
		it->idx = i;
		if (i < MODEL_WORKS) {
			it->kind = MK_WORK;
			exec_work_init_discard(&it->u.work, model_work_fn,
					       model_work_discard);
			if (i % 2) {
				it->child = &t->children[i];
				it->child->owner = t;
				it->child->idx = MODEL_ITEMS + i;
				it->child->kind = MK_WORK;
				exec_work_init_discard(&it->child->u.work,
						       model_work_fn,
						       model_work_discard);
			}
		} else if (i < MODEL_WORKS + MODEL_TIMERS) {
			it->kind = MK_TIMER;
			exec_timer_init(&it->u.timer, model_work_fn,
					model_work_discard);
		} else if (i < MODEL_WORKS + MODEL_TIMERS + MODEL_PERIODICS) {
			it->kind = MK_PERIODIC;
			exec_periodic_init(&it->u.periodic, model_work_fn,
					   model_work_discard);
		} else {
			it->kind = MK_GROUP;
			exec_group_item_init(&it->u.gitem, model_group_fn,
					     model_group_discard);
		}
	}
}

/* Runs L from this thread until @cond or about @ms passed. */
static void model_drive(struct model *m, unsigned int ms)
{
	u64 deadline = exec_test_deadline(ms);

	do {
		if (exec_loop_scheduler_stopped(m->ls))
			exec_loop_scheduler_restart(m->ls);
		exec_loop_scheduler_run_for(m->ls, 1000000);
	} while (exec_pending_count(m->ex[MX_L]) && !exec_test_expired(deadline));
}

static bool model_conts_done(struct model *m)
{
	struct model_thread *t;
	unsigned int i, j;

	for (i = 0; i < m->cfg.threads; i++) {
		t = &m->threads[i];
		for (j = 0; j < t->nr_recs; j++)
			if (t->recs[j].then && !atomic_read_acquire(&t->recs[j].conts))
				return false;
	}
	return true;
}

/* Whether P's destroy has taken back every item the burst moved. */
static bool model_burst_over(struct model *m)
{
	struct model_item *it;
	unsigned int i;

	if (!atomic_read_acquire(&m->burst_done))
		return false;
	for (i = MODEL_WORKS; i < MODEL_WORKS + MODEL_TIMERS; i++) {
		it = &m->threads[0].items[i];
		if ((READ_ONCE(m->burst_moved) & BIT(i)) &&
		    model_ended(it) != atomic_read_acquire(&it->accepted))
			return false;
	}
	return true;
}

/*
 * Keeps a worker of P busy until the burst has moved its items, then until
 * the destroy has taken them back or for 1 ms (the fuzz target: 0.1 ms),
 * so that they stay queued behind it while P's destroy begins.  It sleeps
 * meanwhile: the burst and the destroy need the CPU more than it does.
 */
static void model_block(void *arg)
{
	struct model *m = arg;
	u64 end = model_now() + 10000000;

	while (!atomic_read_acquire(&m->burst_done) && model_now() < end)
		usleep_range(20, 40);
	end = model_now() + 1000000 / MODEL_TSCALE;
	while (!model_burst_over(m) && model_now() < end)
		usleep_range(20, 40);
}

/*
 * Before P's destroy: timed items of thread 0 come due behind two items
 * that keep P's workers busy, and are moved while they wait in its queue,
 * so that the destroy's workers dequeue moved items of a base already shut
 * down.  They must be discarded (or run), not filed on the dead base.
 */
static void model_moved_burst(struct model *m)
{
	struct model_thread *t = &m->threads[0];
	struct model_item *it;
	unsigned int i;
	int ret;

	WRITE_ONCE(m->burst_moved, 0);
	atomic_set(&m->burst_done, 0);
	if (atomic_read(&m->shut) ||
	    exec_submit_fn(m->ex[MX_P], model_block, m) ||
	    exec_submit_fn(m->ex[MX_P], model_block, m)) {
		atomic_set_release(&m->burst_done, 1);
		return;
	}
	for (i = MODEL_WORKS; i < MODEL_WORKS + MODEL_TIMERS; i++) {
		it = &t->items[i];
		if (!model_quiescent(it) || it->needs_sync)
			continue;
		model_prepare(t, it, MX_P, false);
		/* Past: due at once, queued behind the blockers. */
		WRITE_ONCE(it->lb, 0);
		ret = exec_submit_at(m->ex[MX_P], &it->u.timer,
				     EXEC_CLOCK_MONOTONIC, 0);
		if (ret) {
			atomic_dec_return(&it->accepted);
			model_item_fail(it, "arm before destroy: %d", ret);
			continue;
		}
		/* If it ran meanwhile, the mod arms it again: 0. */
		WRITE_ONCE(it->reentrant, true);
		atomic_inc_return(&it->accepted);
		ret = exec_timer_mod(m->ex[MX_P], &it->u.timer,
				     EXEC_CLOCK_MONOTONIC,
				     model_now() + 1000000);
		model_note(it, 'M', ret);
		if (ret)
			atomic_dec_return(&it->accepted);
		if (ret < 0)
			model_item_fail(it, "mod before destroy: %d", ret);
		WRITE_ONCE(m->burst_moved, m->burst_moved | BIT(i));
	}
	atomic_set_release(&m->burst_done, 1);
}

/* A destroy returned @ret: it must have made that many discard callbacks. */
static void model_check_destroy(struct model *m, unsigned int ex, long ret,
				int before, long slack)
{
	long made = atomic_read(&m->ex_discards[ex]) - before;

	if (ret < 0) {
		model_fail(m, 99, 0, "destroy of %s: %ld", model_ex_name[ex], ret);
		return;
	}
	/* A serial executor's runner queued on it is counted, not ours. */
	if (made > ret || ret - made > slack)
		model_fail(m, 99, 0, "destroy of %s returned %ld, %ld discard callbacks",
			   model_ex_name[ex], ret, made);
}

static void model_round_end(struct model *m)
{
	struct model_thread *t;
	struct model_item *it;
	struct model_rec *r;
	unsigned int i, j, k;
	int before;
	long ret, result;
	u64 deadline;

	/*
	 * No periodic item is re-armed after this.  Timed items are left to
	 * the destroys, which discard those still armed.
	 */
	for (i = 0; i < m->cfg.threads; i++) {
		t = &m->threads[i];
		for (j = 0; j < MODEL_ITEMS; j++) {
			it = &t->items[j];
			if (it->kind != MK_PERIODIC)
				continue;
			ret = exec_timer_cancel(&it->u.timer);
			model_note(it, 'f', ret);
			if (ret == 1)
				atomic_inc_return(&it->cancelled);
			else if (ret)
				model_item_fail(it, "final cancel: %ld", ret);
			model_check_count(it, "final cancel");
		}
	}
	model_drive(m, 200);

	/* Continuations hold work guards on P and L: let them run. */
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!model_conts_done(m) && !exec_test_expired(deadline))
		model_drive(m, 2);
	if (!model_conts_done(m))
		model_fail(m, 99, 0, "a continuation was never called");

	atomic_set_release(&m->ending, 1);
	before = atomic_read(&m->ex_discards[MX_S2]);
	ret = exec_serial_destroy(m->s2);
	model_check_destroy(m, MX_S2, ret, before,
			    atomic_read(&m->group_cancels) ? LONG_MAX : 0);
	before = atomic_read(&m->ex_discards[MX_S3]);
	ret = exec_serial_destroy(m->s3);
	model_check_destroy(m, MX_S3, ret, before,
			    atomic_read(&m->group_cancels) ? LONG_MAX : 0);
	before = atomic_read(&m->ex_discards[MX_S1]);
	ret = exec_serial_destroy(m->s1);
	model_check_destroy(m, MX_S1, ret, before,
			    atomic_read(&m->group_cancels) ? LONG_MAX : 1);
	model_moved_burst(m);
	ret = exec_thread_pool_destroy(m->pool);
	if (ret < 0)
		model_fail(m, 99, 0, "destroy of P: %ld", ret);
	model_drive(m, 50);
	before = atomic_read(&m->ex_discards[MX_L]);
	ret = exec_loop_scheduler_destroy(m->ls);
	model_check_destroy(m, MX_L, ret, before,
			    atomic_read(&m->group_cancels) ? LONG_MAX : 1);
	ret = exec_group_destroy(m->group);
	if (ret)
		model_fail(m, 99, 0, "group destroy: %ld (count %lu)", ret,
			   exec_group_count(m->group));

	for (i = 0; i < m->cfg.threads; i++) {
		t = &m->threads[i];
		for (j = 0; j < 2 * MODEL_ITEMS; j++) {
			if (j >= MODEL_ITEMS && j - MODEL_ITEMS >= MODEL_WORKS)
				break;
			it = j < MODEL_ITEMS ? &t->items[j] :
					       &t->children[j - MODEL_ITEMS];
			if (!it->owner)
				continue;
			if (model_ended(it) != atomic_read(&it->accepted))
				model_item_fail(it, "at the end: accepted %d, ended %d (ran %d discarded %d cancelled %d)%s",
						atomic_read(&it->accepted),
						model_ended(it),
						atomic_read(&it->ran),
						atomic_read(&it->discarded),
						atomic_read(&it->cancelled),
						j >= MODEL_ITEMS ? " (child)" : "");
		}
		for (k = 0; k < t->nr_recs; k++) {
			r = &t->recs[k];
			if (r->fut) {
				ret = exec_future_wait(r->fut, 0, &result);
				if (ret)
					model_fail(m, t->idx, r->op,
						   "kept future not complete: %ld",
						   ret);
				else
					model_check_future(m, r, result);
				exec_future_put(r->fut);
				r->fut = NULL;
			} else if (!r->future &&
				   atomic_read(&r->ran) + atomic_read(&r->discarded) != 1 &&
				   atomic_read(&r->ran) < 1000) {
				model_fail(m, t->idx, r->op,
					   "closure on %s: ran %d, discarded %d",
					   model_ex_name[r->ex],
					   atomic_read(&r->ran),
					   atomic_read(&r->discarded));
			}
		}
	}
}

/*
 * A thread of the round, joined.  The model tester polls, so that a hang
 * is a failure of the round rather than of the test run; the fuzz target
 * blocks in the join (libFuzzer's -timeout reports a hang with its input)
 * rather than wait for the next millisecond of a poll.
 */
static bool model_join(struct exec_test_thread *t)
{
#ifdef EXEC_MODEL_FUZZ
	if (t->started)
		exec_thread_join(&t->thread);
	t->started = false;
	return true;
#else
	return exec_test_thread_join(t, 600000);
#endif
}

/*
 * Starts the operator threads.  The fuzz target's one operator is the
 * calling thread itself, which runs its operations here: a thread made and
 * joined per input would cost more than the operations.
 */
static void model_operate(struct model *m)
{
	struct model_thread *t;
	unsigned int i;

#ifdef EXEC_MODEL_FUZZ
	if (m->cfg.threads == 1) {
		model_thread_fn(&m->threads[0]);
		return;
	}
#endif
	for (i = 0; i < m->cfg.threads; i++) {
		t = &m->threads[i];
		if (exec_test_thread_start(&t->thread, model_thread_fn, t,
					   "exec-model-op"))
			t->nr_ops = 0;
	}
}

static int model_round(struct model *m)
{
	unsigned int first_op[MODEL_THREADS_MAX];
	struct model_thread *t;
	unsigned int i;
	int ret;

	ret = model_world_create(m);
	if (ret)
		return ret;
	memset(m->last_seq, 0, sizeof(m->last_seq));
	for (i = 0; i < MX_NR; i++) {
		atomic_set(&m->running[i], 0);
		atomic_set(&m->ex_discards[i], 0);
	}
	for (i = 0; i < m->cfg.threads; i++) {
		t = &m->threads[i];
		model_items_init(t);
		memset(t->serial_seq, 0, sizeof(t->serial_seq));
		t->nr_recs = 0;
		t->nr_ops = m->cfg.ops;
		first_op[i] = t->op;
	}
	atomic_set(&m->driver_stop, 0);
	ret = exec_test_thread_start(&m->driver, model_driver_fn, m,
				     "exec-model-l");
	if (ret)
		return ret;
	model_operate(m);
	for (i = 0; i < m->cfg.threads; i++) {
		t = &m->threads[i];
		if (!model_join(&t->thread))
			model_fail(m, i, t->op, "operator thread hangs");
		m->nr_events += t->op - first_op[i];
	}
	atomic_set_release(&m->driver_stop, 1);
	/* Out of a long run function: the round end restarts L anyway. */
	exec_loop_scheduler_stop(m->ls);
	model_join(&m->driver);
	model_round_end(m);
	return 0;
}

/**
 * model_run_cfg - run the rounds of @cfg
 * @m: zeroed state
 * @cfg: what to run
 *
 * Return: 0 when no invariant broke (@m->failed 0), else -EIO with the
 * first failure in @m->msg; or the error that kept a round from starting.
 */
static int __maybe_unused model_run_cfg(struct model *m,
					const struct model_cfg *cfg)
{
	unsigned int i;
	int ret = 0;

	m->cfg = *cfg;
	if (!m->cfg.threads || m->cfg.threads > MODEL_THREADS_MAX)
		return -EINVAL;
	model_seed(&m->rng, cfg->seed, 0);
	for (i = 0; i < m->cfg.threads; i++) {
		m->threads[i].m = m;
		m->threads[i].idx = i;
		model_seed(&m->threads[i].rng, cfg->seed, 1 + i);
		m->threads[i].recs = kcalloc(MODEL_RECS, sizeof(struct model_rec),
					     GFP_KERNEL);
		if (!m->threads[i].recs)
			ret = -ENOMEM;
	}
	for (m->round = 0; !ret && m->round < m->cfg.rounds; m->round++) {
		ret = model_round(m);
		if (atomic_read(&m->failed))
			break;
	}
	for (i = 0; i < m->cfg.threads; i++)
		kfree(m->threads[i].recs);
	if (!ret && atomic_read(&m->failed))
		ret = -EIO;
	return ret;
}

#ifndef EXEC_MODEL_DRIVER

/* make check's budget: a fixed seed, a few seconds in either world. */
#define MODEL_KUNIT_SEED	20261125ULL

static void model_case(struct kunit *test, unsigned int threads)
{
	struct model_cfg cfg = {
		.seed = MODEL_KUNIT_SEED + threads,
		.threads = threads,
		.rounds = 4,
		.ops = 400,
	};
	struct model *m;
	int ret;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	ret = model_run_cfg(m, &cfg);
	if (ret == -EIO)
		KUNIT_FAIL(test, "%s (replay: exec-model --seed %llu --threads %u --rounds %u --ops %u)",
			   m->msg, (unsigned long long)cfg.seed, cfg.threads,
			   cfg.rounds, cfg.ops);
	KUNIT_EXPECT_EQ(test, ret, 0);
	kunit_info(test, "seed %llu: %lu operations on %u threads, %u rounds",
		   (unsigned long long)cfg.seed, m->nr_events, threads, cfg.rounds);
}

static void model_one_thread(struct kunit *test)
{
	model_case(test, 1);
}

static void model_three_threads(struct kunit *test)
{
	model_case(test, 3);
}

static struct kunit_case exec_model_cases[] = {
	KUNIT_CASE(model_one_thread),
	KUNIT_CASE(model_three_threads),
	{}
};

static struct kunit_suite exec_model_suite = {
	.name = "exec-model",
	.test_cases = exec_model_cases,
};

kunit_test_suites(&exec_model_suite);

#endif /* EXEC_MODEL_DRIVER */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace parker: one thread's sleep/wake point (see core/platform.h
 * for the contract), on io_uring or on a futex.
 *
 * The permit protocol (park/unpark) is shared with the kernel in
 * core/parker.c; this file provides the sleep and the wake-up it asks for,
 * and the rings behind them.
 *
 * Backends, chosen once per process on first use (EXEC_BACKEND=io_uring or
 * futex forces one):
 *
 *  io_uring  Each parker owns a small ring; the owner sleeps in
 *	io_uring_wait_cqe() on it when it waits with a deadline (the ring
 *	holds the timeouts), a sleep that can later also wait for I/O
 *	completions.  A sleep without a deadline needs nothing the ring
 *	gives, and is the futex sleep below, the fastest to wake (below;
 *	wakeup_latency was further from a bare futex's with every sleep in
 *	the ring than with the futex); the waker knows which sleep it
 *	wakes from @sleeping (core/parker.c).  A waker posts a CQE into the
 *	owner's ring
 *	with IORING_OP_MSG_RING, submitted from a ring of its own thread
 *	("waker ring", created on the thread's first wake, freed when the
 *	thread exits) with IOSQE_CQE_SKIP_SUCCESS so that a successful wake
 *	leaves nothing to reap on the waker's side.  If a thread cannot get a
 *	waker ring (fd or memory limit), it sends the MSG_RING from one
 *	process-wide ring under a mutex instead: any ring can post to any
 *	other, and a posted CQE is exactly what ends the owner's
 *	io_uring_enter() wait, so this is as reliable as the fast path, only
 *	serialised.  A parker whose own ring cannot be created uses the futex
 *	backend by itself (@ring stays NULL).
 *
 *  futex  The permit word is the futex; the owner sleeps in FUTEX_WAIT
 *	while it is 0 and the waker issues FUTEX_WAKE.
 *
 * Why MSG_RING: bench/parker-wake.c measures wake-to-run latency (from the
 * waker's timestamp before its wake system call to the wakee's timestamp
 * after its sleep returns) of the futex and of three ways to wake a thread
 * asleep in its ring: MSG_RING; "eventfd read", a pending IORING_OP_READ
 * of an eventfd in the owner's ring, the waker write(2)s the eventfd; and
 * "FUTEX_WAIT op", a pending IORING_OP_FUTEX_WAIT, Linux >= 6.7, the waker
 * calls FUTEX_WAKE (figures in Documentation/benchmarks.rst).
 *
 * Among the ways to wake a thread asleep in its ring, MSG_RING was the
 * fastest in every run, at the median and in the tail, ahead of the
 * eventfd: it posts the CQE directly, where the eventfd read is retried
 * from task_work after a poll wake-up.  It also needs no fd
 * per parker beyond its ring and no re-arming after each wake.  Its costs
 * are one ring per waking thread (created lazily) and, in a tight
 * two-thread ping-pong, a slower handoff than the futex's
 * (tests/user/parker_test.c).  The FUTEX_WAIT op would let
 * any thread wake with a plain futex call, but is no faster, must be
 * re-armed and needs 6.7.  The futex itself wakes fastest of all, which is
 * why it is the fallback; io_uring is preferred as the sleep that can also
 * wait for I/O completions on the same ring.
 */
/*
 * exec_platform.h first: it defines atomic_fetch_add() and friends as
 * functions, which <stdatomic.h> (pulled in by liburing's barrier.h) would
 * otherwise turn into macro expansions inside it.
 */
#include "exec_platform.h"
#include "exec/timer.h"
#include "exec/user.h"
#include "platform.h"

#include <liburing.h>
#include <unistd.h>

enum exec_backend {
	EXEC_BACKEND_UNDECIDED,
	EXEC_BACKEND_FUTEX,
	EXEC_BACKEND_IO_URING,
};

/*
 * The user_data of the owner's timeouts, and of updates of them, plus the
 * clock ("exec-tm" and "exec-up" in ASCII).
 */
#define EXEC_TIMEOUT_DATA	0x657865632d746d00ULL
#define EXEC_UPDATE_DATA	0x657865632d757000ULL

/*
 * SQ and CQ sizes of an owner's ring.  It submits only timeouts and their
 * updates, one of each per clock at most.
 */
#define EXEC_OWNER_SQ_ENTRIES	4U
#define EXEC_OWNER_CQ_ENTRIES	16U

/* After a failure to create a waker ring, wakes before trying again. */
#define EXEC_WAKER_RETRY	256U

static int exec_backend = EXEC_BACKEND_UNDECIDED;
static pthread_once_t exec_backend_once = PTHREAD_ONCE_INIT;

/*
 * The process-wide ring: it served the probe and then sends the wakes of
 * threads that have no waker ring of their own.  Serialised by the mutex,
 * since a ring's SQ has a single producer.
 */
static struct io_uring exec_shared_ring;
static bool exec_shared_ring_ok;
static pthread_mutex_t exec_shared_lock = PTHREAD_MUTEX_INITIALIZER;

/* This thread's waker ring; the key's destructor frees it at thread exit. */
static pthread_key_t exec_waker_key;
static __thread struct io_uring *exec_waker_ring;
static __thread unsigned int exec_waker_retry;

/* Reap every CQE @ring has; their content does not matter to a parker. */
static void exec_ring_drain(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(ring, head, cqe)
		n++;
	io_uring_cq_advance(ring, n);
}

/*
 * Probe io_uring as the parker will use it: a ring can be set up (not
 * refused by seccomp, by kernel.io_uring_disabled or by a kernel without
 * io_uring), io_uring_enter() works, and the kernel knows MSG_RING with
 * IOSQE_CQE_SKIP_SUCCESS (5.18).  The message is sent to the probe ring
 * itself.  On success the ring is kept as exec_shared_ring.
 *
 * Return: 0, or a negative errno saying why io_uring cannot be used.
 */
static int exec_uring_probe(void)
{
	struct io_uring *ring = &exec_shared_ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	FILE *f;
	int ret, disabled;

	/*
	 * 2 refuses io_uring_setup() to everybody; 1 only to processes
	 * outside kernel.io_uring_group, which setting up a ring tells us.
	 */
	f = fopen("/proc/sys/kernel/io_uring_disabled", "re");
	if (f) {
		ret = fscanf(f, "%d", &disabled);
		fclose(f);
		if (ret == 1 && disabled == 2)
			return -EPERM;
	}

	ret = io_uring_queue_init(2, ring, 0);
	if (ret < 0)
		return ret;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_msg_ring(sqe, ring->ring_fd, 0, EXEC_WAKE_DATA, 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = 0;
	/*
	 * Exactly one CQE comes back: the message on success (the send's own
	 * is skipped), or the send's error (-EINVAL from a kernel that lacks
	 * the opcode or the flag).
	 */
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret >= 0)
		ret = io_uring_peek_cqe(ring, &cqe);
	if (ret >= 0) {
		ret = cqe->user_data == EXEC_WAKE_DATA ? 0 :
		      cqe->res < 0 ? cqe->res : -EINVAL;
		io_uring_cqe_seen(ring, cqe);
	}
	if (ret < 0) {
		io_uring_queue_exit(ring);
		return ret;
	}
	return 0;
}

static void exec_waker_ring_free(void *arg)
{
	struct io_uring *ring = arg;

	io_uring_queue_exit(ring);
	free(ring);
	exec_waker_ring = NULL;
}

/**
 * exec_parker_fork - the wakeup backend across fork()
 * @event: the step of the fork
 *
 * A child of fork() shares its parent's rings: the same io_uring instances
 * through its copies of their descriptors, and the same queues through its
 * copies of their shared mappings, so that anything it submitted to them
 * would race with the parent's own submissions.  The shared ring's lock is
 * taken before the fork, so that the ring is between two submissions and
 * no other thread holds the lock in the child.  The child drops the
 * forking thread's waker ring (it makes a new one at its first wake; the
 * other threads' do not exist in the child) and makes itself a shared
 * ring.  The parent's rings are unmapped and closed in the child only,
 * which leaves them to the parent.  The choice of backend stays, unless
 * the child cannot have a shared ring: then new parkers use the futex.
 *
 * Context: from the pthread_atfork() handlers (user/init.c).
 */
void exec_parker_fork(enum exec_fork_event event)
{
	switch (event) {
	case EXEC_FORK_PREPARE:
		pthread_mutex_lock(&exec_shared_lock);
		break;
	case EXEC_FORK_PARENT:
		pthread_mutex_unlock(&exec_shared_lock);
		break;
	case EXEC_FORK_CHILD:
		if (exec_waker_ring) {
			pthread_setspecific(exec_waker_key, NULL);
			exec_waker_ring_free(exec_waker_ring);
		}
		exec_waker_retry = 0;
		if (exec_shared_ring_ok) {
			io_uring_queue_exit(&exec_shared_ring);
			exec_shared_ring_ok =
				io_uring_queue_init(2, &exec_shared_ring,
						    0) == 0;
			if (!exec_shared_ring_ok)
				__atomic_store_n(&exec_backend,
						 EXEC_BACKEND_FUTEX,
						 __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&exec_shared_lock);
		break;
	}
}

static int exec_uring_setup(void)
{
	int ret;

	ret = exec_uring_probe();
	if (ret)
		return ret;
	ret = pthread_key_create(&exec_waker_key, exec_waker_ring_free);
	if (ret) {
		io_uring_queue_exit(&exec_shared_ring);
		exec_shared_ring_ok = false;
		return -ret;
	}
	/* Under the lock: a fork's child handler reads it. */
	pthread_mutex_lock(&exec_shared_lock);
	exec_shared_ring_ok = true;
	pthread_mutex_unlock(&exec_shared_lock);
	return 0;
}

static void exec_backend_choose(void)
{
	const char *env = getenv("EXEC_BACKEND");
	bool forced = false;
	int ret;

	if (env && *env) {
		if (!strcmp(env, "futex")) {
			exec_user_log(EXEC_USER_LOG_INFO,
				      "wakeup backend futex (forced by EXEC_BACKEND)");
			exec_backend = EXEC_BACKEND_FUTEX;
			return;
		}
		if (!strcmp(env, "io_uring"))
			forced = true;
		else
			exec_user_log(EXEC_USER_LOG_WARNING,
				      "unknown EXEC_BACKEND=%s (want io_uring or futex), using the default",
				      env);
	}

	ret = exec_uring_setup();
	if (ret) {
		exec_user_log(EXEC_USER_LOG_INFO,
			      "wakeup backend futex (io_uring unavailable: %s)",
			      strerror(-ret));
		exec_backend = EXEC_BACKEND_FUTEX;
		return;
	}
	if (forced)
		exec_user_log(EXEC_USER_LOG_INFO,
			      "wakeup backend io_uring (forced by EXEC_BACKEND)");
	exec_backend = EXEC_BACKEND_IO_URING;
}

static enum exec_backend exec_backend_get(void)
{
	/* pthread_once() also orders the choice's stores before our loads. */
	pthread_once(&exec_backend_once, exec_backend_choose);
	return (enum exec_backend)__atomic_load_n(&exec_backend,
						  __ATOMIC_RELAXED);
}

/**
 * exec_user_wakeup_backend - the mechanism parked threads sleep in
 *
 * Makes the process-wide choice if no parker has made it yet.  Parkers whose
 * own ring could not be created use the futex even when this says io_uring.
 *
 * Return: "io_uring" or "futex".
 */
const char *exec_user_wakeup_backend(void)
{
	return exec_backend_get() == EXEC_BACKEND_IO_URING ? "io_uring" :
							      "futex";
}
EXPORT_SYMBOL_GPL(exec_user_wakeup_backend);

/* This thread's waker ring, created on its first wake; NULL if none. */
static struct io_uring *exec_waker_ring_get(void)
{
	struct io_uring *ring = exec_waker_ring;

	if (likely(ring))
		return ring;
	/* Do not pay a failing io_uring_setup() on every wake. */
	if (exec_waker_retry) {
		exec_waker_retry--;
		return NULL;
	}
	ring = malloc(sizeof(*ring));
	if (!ring)
		goto fail;
	if (io_uring_queue_init(2, ring, 0) < 0) {
		free(ring);
		goto fail;
	}
	if (pthread_setspecific(exec_waker_key, ring)) {
		io_uring_queue_exit(ring);
		free(ring);
		goto fail;
	}
	exec_waker_ring = ring;
	return ring;
fail:
	exec_waker_retry = EXEC_WAKER_RETRY;
	return NULL;
}

/*
 * Wake through the shared ring.  Without IOSQE_CQE_SKIP_SUCCESS, and waiting
 * for the send's CQE, so that we know it was delivered; a failure to post
 * into the target's CQ (-EOVERFLOW, only when the kernel cannot allocate an
 * overflow entry) is retried.
 */
static void exec_uring_wake_shared(struct io_uring *target)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret, tries;

	pthread_mutex_lock(&exec_shared_lock);
	for (tries = 0; tries < 100; tries++) {
		ret = -EBADF;
		if (!exec_shared_ring_ok)
			break;
		sqe = io_uring_get_sqe(&exec_shared_ring);
		if (!sqe)
			break;
		io_uring_prep_msg_ring(sqe, target->ring_fd, 0,
				       EXEC_WAKE_DATA, 0);
		ret = io_uring_submit_and_wait(&exec_shared_ring, 1);
		if (ret >= 0)
			ret = io_uring_peek_cqe(&exec_shared_ring, &cqe);
		if (ret >= 0) {
			ret = cqe->res;
			io_uring_cqe_seen(&exec_shared_ring, cqe);
		}
		if (ret >= 0 || (ret != -EOVERFLOW && ret != -ENOMEM &&
				 ret != -EAGAIN && ret != -EINTR))
			break;
		exec_backoff_sleep();
	}
	pthread_mutex_unlock(&exec_shared_lock);
	/* The owner may now sleep for ever: say so rather than hang quietly. */
	WARN_ON_ONCE(ret < 0);
}

/**
 * exec_uring_wake - wake the thread asleep (or about to be) on a ring
 * @target: the ring; its owner waits for a CQE on it
 *
 * Posts a CQE with user_data EXEC_WAKE_DATA into @target, from the calling
 * thread's own waker ring (or the process-wide one), so that the caller
 * never enters @target itself: what it would submit there would become
 * the caller's.  Used by the parkers and by the I/O contexts
 * (user/io/io_uring.c), whose threads wait on their rings.
 *
 * Context: Any thread; one system call.
 */
void exec_uring_wake(struct io_uring *target)
{
	struct io_uring *ring = exec_waker_ring_get();
	struct io_uring_sqe *sqe;

	if (likely(ring)) {
		/* The SQ is empty: every wake submits what it queued. */
		sqe = io_uring_get_sqe(ring);
		if (likely(sqe)) {
			io_uring_prep_msg_ring(sqe, target->ring_fd, 0,
					       EXEC_WAKE_DATA, 0);
			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
			/*
			 * A message to a ring that is neither IOPOLL nor
			 * DEFER_TASKRUN is posted inline, in this very
			 * io_uring_enter(); to a DEFER_TASKRUN ring (an I/O
			 * context's), it is handed to the owner's task work,
			 * which wakes its wait.  Either way, when it returns,
			 * an empty CQ means the message is on its way; a
			 * failure (the owner exiting, no memory) posts a CQE
			 * here at once.
			 */
			if (io_uring_submit(ring) == 1 &&
			    !io_uring_cq_ready(ring))
				return;
			exec_ring_drain(ring);
		}
	}
	exec_uring_wake_shared(target);
}

/*
 * Reaps the owner's CQEs.  Several wakers may each have posted one for one
 * sleep; all are taken now, so that they do not end the next sleep early.
 * A timeout's CQE (fired or cancelled), or a failed update's (the timeout
 * had fired), says the ring has no timeout of that clock any more.
 */
static void exec_owner_drain(struct exec_parker *parker)
{
	struct io_uring *ring = parker->ring;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	u64 data;

	io_uring_for_each_cqe(ring, head, cqe) {
		data = cqe->user_data;
		if ((data & ~1ULL) == EXEC_TIMEOUT_DATA ||
		    (data & ~1ULL) == EXEC_UPDATE_DATA)
			parker->armed[data & 1] = EXEC_TIME_NEVER;
		n++;
	}
	io_uring_cq_advance(ring, n);
}

/* The owner's io_uring sleep: until a CQE (a wake, or a stale one) is in. */
static void exec_uring_sleep(struct exec_parker *parker)
{
	struct io_uring_cqe *cqe;

	/* -EINTR from a signal is a spurious wake: park() loops. */
	io_uring_wait_cqe(parker->ring, &cqe);
	exec_owner_drain(parker);
}

/*
 * Queues the owner's timeout of @clock at @when: a new IORING_OP_TIMEOUT, or
 * an update of the one in the ring, which keeps a single timeout per clock
 * in flight however often the deadline moves.  Returns whether an SQE was
 * queued; the caller submits it.
 */
static bool exec_uring_prep_timeout(struct exec_parker *parker,
				    unsigned int clock, u64 when,
				    struct __kernel_timespec *ts)
{
	struct io_uring *ring = parker->ring;
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (WARN_ON_ONCE(!sqe))
		return false;
	ts->tv_sec = (long long)(when / 1000000000ULL);
	ts->tv_nsec = (long long)(when % 1000000000ULL);
	if (parker->armed[clock] != EXEC_TIME_NEVER) {
		io_uring_prep_timeout_update(sqe, ts,
					     EXEC_TIMEOUT_DATA | clock,
					     IORING_TIMEOUT_ABS);
		sqe->user_data = EXEC_UPDATE_DATA | clock;
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	} else {
		io_uring_prep_timeout(sqe, ts, 0,
				      IORING_TIMEOUT_ABS |
				      (clock ? IORING_TIMEOUT_REALTIME : 0));
		sqe->user_data = EXEC_TIMEOUT_DATA | clock;
	}
	return true;
}

/*
 * The io_uring sleep bounded by the timeouts of @when.  The timeouts that
 * change are submitted by the system call that sleeps: one system call a
 * sleep, as for a sleep without them.
 */
static void exec_uring_sleep_until(struct exec_parker *parker, const u64 *when)
{
	/* The kernel reads them while the SQEs are submitted, in the sleep. */
	struct __kernel_timespec ts[2];
	unsigned int clock, queued = 0;
	bool changed[2] = { false, false };
	int ret;

	for (clock = 0; clock < 2; clock++) {
		/* A timeout no longer wanted may stay: it wakes spuriously. */
		if (when[clock] != EXEC_TIME_NEVER &&
		    when[clock] != parker->armed[clock] &&
		    exec_uring_prep_timeout(parker, clock, when[clock],
					    &ts[clock])) {
			changed[clock] = true;
			queued++;
		}
	}
	if (!queued) {
		exec_uring_sleep(parker);
		return;
	}
	/*
	 * Submitted, then waited for: a failed wait (-EINTR from a signal)
	 * still returns the count submitted, and is a spurious wake-up that
	 * park() loops on.
	 */
	ret = io_uring_submit_and_wait(parker->ring, 1);
	if (ret == (int)queued) {
		for (clock = 0; clock < 2; clock++)
			if (changed[clock])
				parker->armed[clock] = when[clock];
	}
	exec_owner_drain(parker);
}

/*
 * The futex sleep bounded by @when.  A futex waits on one clock: the earlier
 * deadline's.  While it waits on the monotonic clock, a realtime deadline is
 * re-examined at least once a second, since a change of the system clock
 * could bring it closer.
 */
static void exec_futex_sleep_until(struct exec_parker *parker, const u64 *when)
{
	unsigned int clock;
	u64 deadline = exec_parker_first_deadline(when, &clock);

	if (!clock && when[1] != EXEC_TIME_NEVER)
		deadline = min(deadline, exec_clock_read(0) + 1000000000ULL);
	if (deadline == EXEC_TIME_NEVER)
		exec_futex_wait(&parker->permit, 0);
	else
		exec_futex_wait_until(&parker->permit, 0, clock, deadline);
}

/**
 * exec_parker_init - initialise a parker, without a permit
 * @parker: the parker
 *
 * Chooses the process's wakeup backend on first use.  With io_uring, gives
 * the parker a ring of its own; if that fails (fd limit, memory), this
 * parker uses the futex backend instead: parking still works, so that is
 * not an error.
 *
 * Context: Process context.
 * Return: 0.
 */
int exec_parker_init(struct exec_parker *parker)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE,
		.cq_entries = EXEC_OWNER_CQ_ENTRIES,
	};
	struct io_uring *ring;

	parker->permit = 0;
	parker->sleeping = 0;
	parker->ring = NULL;
	parker->armed[0] = EXEC_TIME_NEVER;
	parker->armed[1] = EXEC_TIME_NEVER;
	if (exec_backend_get() != EXEC_BACKEND_IO_URING)
		return 0;

	ring = malloc(sizeof(*ring));
	if (!ring)
		return 0;
	if (io_uring_queue_init_params(EXEC_OWNER_SQ_ENTRIES, ring, &p) < 0) {
		free(ring);
		return 0;
	}
	parker->ring = ring;
	return 0;
}

/**
 * exec_parker_destroy - release a parker's resources
 * @parker: the parker
 *
 * Context: Process context.  Nobody may be parked on @parker or about to
 * unpark it.
 */
void exec_parker_destroy(struct exec_parker *parker)
{
	struct io_uring *ring = parker->ring;

	if (ring) {
		io_uring_queue_exit(ring);
		free(ring);
		parker->ring = NULL;
	}
}

/**
 * exec_parker_sleep - the owner's sleep (see core/parker.c)
 * @parker: the caller's parker
 *
 * In FUTEX_WAIT while @permit is 0, with either backend, so a wake that
 * came first ends it at once.  Signals make it return early; the protocol
 * in core/parker.c loops.
 */
void exec_parker_sleep(struct exec_parker *parker)
{
	exec_futex_wait(&parker->permit, 0);
}

/**
 * exec_parker_sleep_until - the owner's sleep with deadlines (core/parker.c)
 * @parker: the caller's parker
 * @when: per clock (0 monotonic, 1 realtime), an absolute deadline in
 *	nanoseconds on the system clock, or EXEC_TIME_NEVER
 *
 * In its io_uring wait, with the deadlines as timeouts in the ring, or in
 * FUTEX_WAIT on one clock.  Returns also once a deadline has passed, and
 * early on a signal or a stale wake CQE.
 */
void exec_parker_sleep_until(struct exec_parker *parker, const u64 *when)
{
	if (parker->ring)
		exec_uring_sleep_until(parker, when);
	else
		exec_futex_sleep_until(parker, when);
}

/**
 * exec_parker_wake - wake the owner (see core/parker.c)
 * @parker: the parker
 * @sleeping: EXEC_PARKER_SLEEP or EXEC_PARKER_SLEEP_UNTIL, the sleep the
 *	owner is in
 */
void exec_parker_wake(struct exec_parker *parker, int sleeping)
{
	if (parker->ring && sleeping == EXEC_PARKER_SLEEP_UNTIL)
		exec_uring_wake(parker->ring);
	else
		exec_futex_wake(&parker->permit, 1);
}

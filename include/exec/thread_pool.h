/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Fixed thread pool (N3785 thread_pool, N3378 bounded thread_pool, N4143
 * shutdown_hard): a fixed number of worker threads (pthreads in userspace,
 * kthreads in the kernel) run the submitted items, in no promised order.
 */
#ifndef EXEC_THREAD_POOL_H
#define EXEC_THREAD_POOL_H

#include "executor.h"
#include "thread_attr.h"

EXEC_BEGIN_DECLS

struct exec_thread_pool;

/* Largest number of worker threads one pool may have. */
#define EXEC_THREAD_POOL_MAX_THREADS	1024U

/**
 * struct exec_pool_state - a growing pool's state, as its policy sees it
 * @time_ns: when it was taken (CLOCK_MONOTONIC)
 * @closures_run: items the workers have taken from the pool's queue, ever
 * @queue_length: items waiting to start (approximate)
 * @threads: workers: @active + @kill_pending + @create_pending + @blocked
 * @active: workers running an item and not known to be blocked
 * @kill_pending: workers told to exit that have not exited yet
 * @create_pending: workers being started
 * @idle: workers with nothing to do; counted in @blocked, as in N3378
 * @blocked: workers idle, or running an item but blocked (hinted with
 *	exec_blocking_begin() or seen off CPU: approximate)
 * @threads_since_last_exit: workers started since a worker last exited
 *
 * N3378's thread_manager_policy::state, for one pool.
 */
struct exec_pool_state {
	uint64_t time_ns;
	uint64_t closures_run;
	unsigned long queue_length;
	unsigned int threads;
	unsigned int active;
	unsigned int kill_pending;
	unsigned int create_pending;
	unsigned int idle;
	unsigned int blocked;
	unsigned int threads_since_last_exit;
};

/**
 * struct exec_pool_action - what a growing pool's policy decides
 * @create: start one worker (must be false when @desired_threads >= 0)
 * @desired_threads: the number of workers wanted, started one per call or
 *	retired from the idle ones added; -1 leaves it to @create.  Clamped
 *	to [attr.nr_threads, attr.max_threads].
 * @delay_ms: how long before the policy is asked again (at least
 *	EXEC_POOL_SAMPLE_MS)
 *
 * N3378's thread_manager_policy::action.  The pool fills it with @create
 * false, @desired_threads -1 and @delay_ms EXEC_POOL_SAMPLE_MS before each
 * call.
 */
struct exec_pool_action {
	bool create;
	int desired_threads;
	unsigned int delay_ms;
};

/**
 * struct exec_thread_pool_attr - how to build a thread pool
 * @nr_threads: number of workers; 0 means one per online CPU (with
 *	@per_cpu, one per online CPU of @thread.cpus)
 * @queue_limit: most items that may wait to start at once; 0 means no bound.
 *	When the bound is reached, exec_submit() waits for room and
 *	exec_try_submit() fails with -EAGAIN.
 * @thread: the workers' attributes (struct exec_thread_attr): name prefix
 *	(workers are "prefix/N"; NULL means "exec-pool"), nice value, CPU mask
 *	and stack size
 * @per_cpu: bind each worker to one CPU, as a per-CPU (bound) workqueue's
 *	workers are: worker N to the N-th online CPU of @thread.cpus (of all
 *	online CPUs when that is NULL), round robin.  A submission then wakes
 *	the worker of the submitting CPU when that one is idle, so the item
 *	starts without a cross-CPU wake-up.  In the kernel, an item that an
 *	interrupt submits while that worker is awake (running an item, or
 *	about to take one) is left to it and no other worker is woken, as a
 *	per-CPU workqueue keeps its items on their CPU; if the worker then
 *	starts or finishes no item for EXEC_POOL_LOCAL_CHECK_NS (20 us:
 *	blocked in an item, or kept off its CPU) while items wait, another
 *	worker is woken, every 20 us while it stays so.  Other workers still
 *	take those items when they look for work.  In the kernel, a worker
 *	whose CPU goes offline is unbound and runs elsewhere, and is bound
 *	again when the CPU comes back; queued and timed items run as ever,
 *	none lost, none early (Documentation/lifecycle.rst).  Creation, join
 *	and destroy then take the CPU hotplug lock.  In userspace the binding
 *	is an affinity: if its CPU goes offline, the kernel moves the worker
 *	elsewhere for good.
 * @max_threads: most workers at once.  0 or @nr_threads: a fixed pool.
 *	Above @nr_threads the pool grows: while items wait, no worker is idle
 *	and fewer than @concurrency workers are running (the others blocked
 *	in a system call, a lock or a sleep), it starts another worker, as a
 *	concurrency-managed workqueue does.  How it notices a blocked worker:
 *	exec_blocking_begin() at once, otherwise by sampling each busy
 *	worker's state every EXEC_POOL_SAMPLE_MS (in the kernel its task
 *	state; in userspace whether its CPU time advanced), so within about
 *	that long.  Added workers exit after @idle_timeout_ms idle.  Per-CPU
 *	pools do not grow (-EINVAL).
 * @concurrency: how many workers a growing pool keeps running; 0 means one
 *	per online CPU
 * @idle_timeout_ms: how long an added worker may stay idle before it
 *	exits; 0 means EXEC_POOL_IDLE_TIMEOUT_MS
 * @policy: decides when a growing pool starts or retires workers, in place
 *	of the default (start one while items wait, no worker is idle and
 *	fewer than @concurrency run); N3378's thread_manager_policy.  Called
 *	from the pool's manager thread with no lock held; it must not block or
 *	call into the pool.  NULL for the default.
 * @policy_arg: @policy's last argument
 * @policy_periodic: call @policy every action->delay_ms whatever the state
 *	(N3378's invoke_policy_when_no_idle_thread() false); by default it is
 *	called only while items wait and no worker is idle
 * @no_spin: a worker out of work parks at once, as a workqueue's kworker
 *	sleeps when its list is empty, instead of spinning a few
 *	microseconds first for the next item (which saves its submitter the
 *	wake-up).  For pools whose submitters share the CPUs with the
 *	workers and wait for what the items do, as the processes doing I/O
 *	through a block driver do: a worker that spins has used CPU time
 *	that the scheduler then holds against it, so the tasks it wakes
 *	preempt it (Documentation/benchmarks.rst, "The loop driver on
 *	exec").  A submission to such a pool wakes a worker whenever none is
 *	busy.
 */
struct exec_thread_pool_attr {
	unsigned int nr_threads;
	unsigned long queue_limit;
	struct exec_thread_attr thread;
	bool per_cpu;
	unsigned int max_threads;
	unsigned int concurrency;
	unsigned int idle_timeout_ms;
	void (*policy)(const struct exec_pool_state *state,
		       struct exec_pool_action *action, void *arg);
	void *policy_arg;
	bool policy_periodic;
	bool no_spin;
};

/* How often a growing pool looks at its busy workers' states. */
#define EXEC_POOL_SAMPLE_MS		1U
/* How long an added worker stays idle before it exits, by default. */
#define EXEC_POOL_IDLE_TIMEOUT_MS	10000U

/**
 * exec_thread_pool_create - start a thread pool
 * @poolp: where to store the new pool
 * @attr: its attributes; NULL for the defaults
 *
 * The thread attributes (@attr->thread) are checked before anything is
 * allocated.  Each worker applies its nice value and CPU mask to itself
 * before the pool is returned.  If a worker cannot be started, or the
 * system refuses its attributes, the workers already started are stopped,
 * everything is released and the error is returned.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL @poolp, more than
 * EXEC_THREAD_POOL_MAX_THREADS threads, a nice value outside
 * [EXEC_NICE_MIN, EXEC_NICE_MAX], a CPU mask that names no online CPU, a
 * NULL mask with a non-zero @nr_cpu_bits, or (userspace) a stack size below
 * PTHREAD_STACK_MIN; -EOPNOTSUPP for a non-zero stack size in the kernel;
 * -EACCES or -EPERM when the system refuses the nice value (userspace,
 * lowering it without CAP_SYS_NICE); -ENOMEM; -EAGAIN or another error from
 * thread creation.
 */
int exec_thread_pool_create(struct exec_thread_pool **poolp,
			    const struct exec_thread_pool_attr *attr);

/**
 * exec_thread_pool_executor - the pool as an abstract executor
 * @pool: the pool
 *
 * Context: Any context.
 * Return: the executor, valid until the pool is destroyed.
 */
struct exec_executor *exec_thread_pool_executor(struct exec_thread_pool *pool);

/**
 * exec_thread_pool_size - number of worker threads started at creation
 * @pool: the pool
 *
 * Context: Any context.
 * Return: the number of workers started at creation; a growing pool may
 * have more now (exec_thread_pool_nr_live()).
 */
unsigned int exec_thread_pool_size(const struct exec_thread_pool *pool);

/**
 * exec_thread_pool_running_in_this_thread - whether the caller is a worker
 * @pool: the pool
 *
 * Context: Any context.
 * Return: true if the calling thread is one of @pool's workers.
 */
bool exec_thread_pool_running_in_this_thread(const struct exec_thread_pool *pool);

/**
 * exec_thread_pool_shutdown_hard - stop taking and starting work
 * @pool: the pool
 *
 * Items already running finish; items not yet started are handed to their
 * discard callbacks and not run.  From then on every submission fails with
 * -ESHUTDOWN.  The pool must still be destroyed.  May be called from one of
 * the pool's own workers, which then returns to the caller and stops after
 * its current item.
 *
 * Context: Process context; may sleep.
 * Return: the number of items discarded (>= 0), -EINVAL for NULL, or
 * -ESHUTDOWN if the pool was already shut down.
 */
long exec_thread_pool_shutdown_hard(struct exec_thread_pool *pool);

/**
 * exec_thread_pool_stop - make the workers exit as soon as possible (P0113)
 * @pool: the pool
 *
 * Each worker exits once its current item, if any, returns; items not yet
 * started stay queued and are handed to their discard callbacks by
 * exec_thread_pool_destroy().  From then on every submission fails with
 * -ESHUTDOWN.  Does not wait for the workers; exec_thread_pool_join() does.
 * May be called from one of the pool's own items.  No effect on NULL.
 *
 * Context: Any context.
 */
void exec_thread_pool_stop(struct exec_thread_pool *pool);

/**
 * exec_thread_pool_stopped - whether exec_thread_pool_stop() was called
 * @pool: the pool
 *
 * Context: Any context.
 * Return: true once stopped; false for NULL.
 */
bool exec_thread_pool_stopped(const struct exec_thread_pool *pool);

/**
 * exec_thread_pool_join - wait until the pool has run out of work (P0113)
 * @pool: the pool
 *
 * If the pool was not stopped, lets it run until its outstanding work is
 * 0: no work guard held (exec_work_guard_init(), exec_on_work_started()),
 * on the pool or on an executor over it that forwards its units (a
 * serial or priority executor, a managed queue), no item queued and none
 * running.  Submissions are accepted meanwhile, so
 * an asynchronous operation holding a guard can still post its completion.
 * Once the outstanding work has reached 0 the pool refuses submissions from
 * outside its workers with -ESHUTDOWN, as destroy does, and the workers
 * exit.  Then, or after exec_thread_pool_stop(), waits for every worker to
 * exit.  Several threads may join at once.  Timed items still armed are not
 * outstanding work: destroy discards them.  The pool must still be
 * destroyed.
 *
 * Context: Process context; may sleep.  Not from one of the pool's workers.
 * Return: 0; -EINVAL for NULL; -EDEADLK from one of the pool's workers.
 */
int exec_thread_pool_join(struct exec_thread_pool *pool);

/**
 * exec_thread_pool_destroy - wait for all work, stop the workers, free
 * @pool: the pool
 *
 * Every item submitted before the call, and every item those items submit
 * while it waits, runs to completion; then the workers exit and are joined.
 * Submissions from threads other than the pool's own workers fail with
 * -ESHUTDOWN once the call has started.  Timed items still armed, and items
 * left queued by exec_thread_pool_stop(), are handed to their discard
 * callbacks instead.
 *
 * Context: Process context; may sleep.  Not from one of the pool's workers.
 * Return: the number of items discarded (>= 0); -EINVAL for NULL; -EDEADLK
 * when called from one of the pool's own workers (the pool is left
 * untouched);
 * -EBUSY, with a warning and nothing done, while anything still depends on
 * @pool: a serial executor over it, its installation as the default
 * executor, a work guard or unit of outstanding work, a future
 * continuation, group notification or latch continuation registered on it,
 * or a handler bound to it (executor.h).  Timed items armed on it are no
 * dependents: they are discarded.  An
 * installed default executor must be replaced first
 * (exec_set_default_executor()).
 */
long exec_thread_pool_destroy(struct exec_thread_pool *pool);

/**
 * exec_thread_pool_nr_live - the pool's workers now
 * @pool: the pool
 *
 * Context: Any context.
 * Return: the number of worker threads started and not yet exited; 0 for
 * NULL.  A fixed pool's is its size.
 */
unsigned int exec_thread_pool_nr_live(const struct exec_thread_pool *pool);

/**
 * exec_blocking_begin - the calling item is about to block
 *
 * Tells a growing pool that the worker running the caller will block (a
 * read, a sleep, a lock held long), so that it starts another worker at
 * once if items wait, instead of noticing it at its next sample.  Pair with
 * exec_blocking_end(); pairs may nest.  Outside a pool's worker, or on a
 * fixed pool's, it does nothing.
 *
 * Context: Any context; it never sleeps itself.
 */
void exec_blocking_begin(void);

/**
 * exec_blocking_end - the block announced by exec_blocking_begin() is over
 *
 * Context: Any context.
 */
void exec_blocking_end(void);

EXEC_END_DECLS

#endif /* EXEC_THREAD_POOL_H */

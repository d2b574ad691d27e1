// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_kbench: the kernel side of exec-bench (Documentation/benchmarks.rst,
 * "Kernel side").
 *
 * At load time the module runs each workload once for libexec's kernel
 * executors (impl "libexec") and once for each of the kernel's own
 * facilities doing the same job (impl "workqueue", and "hrtimer" for the
 * timer workloads), in the same boot, and prints one JSON line per run:
 *
 *   exec-bench: {"bench":"post_throughput","impl":"libexec",...}
 *
 * The workloads keep the definitions of the userspace exec-bench (bench/);
 * the bodies of post_throughput, chain_latency, wakeup_latency,
 * timer_lateness, timer_churn, serial_throughput, strand_churn and
 * blocking_mix, the output line and the random generator are its own,
 * bench/common/, built into this module too:
 *
 *   post_throughput    @producers kthreads together submit @tasks items to
 *                      one executor; each item adds 1 to a counter of the
 *                      CPU it runs on; from the first submission until
 *                      the executor is destroyed (which returns once every
 *                      item has run); the counters must sum to @tasks
 *   chain_latency      one item in flight: each run of it submits it again,
 *                      @hops runs in all
 *   wakeup_latency     the executor is idle; a kthread submits an item
 *                      every 200 us, sleeping in between (usleep_range());
 *                      each item records its start time less the time
 *                      taken just before its submission; @samples items
 *   timer_lateness     @timer_samples timers armed up front, deadlines
 *                      uniformly random (fixed seed) over 1-50 ms from one
 *                      start time read before the first arm; each records
 *                      the time it ran less its deadline; none may run
 *                      early
 *   timer_churn        @churn_timers timers armed with deadlines spread
 *                      evenly over 1-60 s, in random order, then all
 *                      cancelled in the order armed; the mean time per arm
 *                      and per cancel; every cancel must succeed, no timer
 *                      may run.  "bytes_per_timer" (the size of the item)
 *                      stands in for userspace's "rss_kb"
 *   serial_throughput  @strands serial executors over one pool; the calling
 *                      thread submits @serial_tasks items round robin; each
 *                      item checks that it is the next of its strand
 *   strand_churn       @churn_strands strands over one pool are created
 *                      (timed: "create_ns" a create), each gets one item
 *                      ("ops_per_s" from the first submission to the last
 *                      item's end), and, every item having run, each is
 *                      destroyed ("destroy_ns").  "bytes_per_strand" is
 *                      the growth of the slab caches' pages while all are
 *                      alive, over @churn_strands: the vmstat counters,
 *                      read after the per-CPU differences are folded
 *                      into them (a second's wait before each read)
 *   blocking_mix       the calling thread submits @blocking_tasks items
 *                      that sleep 20 ms each (kb_sleep_until(), an hrtimer
 *                      sleep through usleep_range(), standing for blocking
 *                      I/O as clock_nanosleep() does in userspace), then at
 *                      once @cpu_tasks items that busy-spin 20 us each;
 *                      "cpu_done_ms" is from the first submission until the
 *                      last CPU item has finished, "all_done_ms" until
 *                      every item has, "ideal_ms" @cpu_tasks x 20 us /
 *                      online CPUs.  The spin reads local_clock() (per-CPU,
 *                      ns resolution), not the task's CPU time: the precise
 *                      one, task_sched_runtime(), is not exported, and
 *                      se.sum_exec_runtime only moves at scheduler events.
 *                      Without kernel preemption a spinning worker keeps its
 *                      CPU, so the two differ only by the interrupts taken
 *                      during the spin, which count here and would not in
 *                      userspace's CLOCK_THREAD_CPUTIME_ID.  "threads_max"
 *                      is the peak of the executor's threads, counted every
 *                      ms by a sampler kthread walking the task list (see
 *                      kb_blk_counts(); the sampler and the calling thread
 *                      are not counted, unlike userspace, which counts the
 *                      process's calling thread)
 *
 * The executors compared:
 *
 *   libexec             a thread pool of @threads workers
 *                       (exec_thread_pool_create()); for serial_throughput,
 *                       @strands serial executors over such a pool
 *   workqueue:unbound   alloc_workqueue(WQ_UNBOUND, max_active = @threads)
 *   workqueue:percpu    alloc_workqueue(0, max_active = @threads)
 *   workqueue:ordered   for serial_throughput and strand_churn: one
 *                       alloc_ordered_workqueue() per strand (they share
 *                       the kernel's unbound pool), destroy_workqueue()
 *   workqueue:system    for blocking_mix: queue_work() on system_wq, whose
 *                       per-CPU worker pools are concurrency-managed: when
 *                       a running item sleeps, the pool wakes or creates
 *                       another worker.  It has no size to set: @threads
 *                       is only the size the line reports as asked for.
 *                       The items go to the pool of the producer's CPU.
 *
 * and for the timer workloads:
 *
 *   libexec             exec_submit_at() on EXEC_CLOCK_MONOTONIC, read with
 *                       exec_clock_now(), on a thread pool of @threads
 *                       workers; exec_timer_cancel()
 *   workqueue:*         queue_delayed_work() on the unbound and the per-CPU
 *                       workqueue above; cancel_delayed_work()
 *   hrtimer             raw hrtimers on CLOCK_MONOTONIC, HRTIMER_MODE_ABS,
 *                       whose callbacks (in hard interrupt context) do the
 *                       item's work; hrtimer_try_to_cancel().  No thread
 *                       runs them: their lines say "threads":0.  They are
 *                       the limit, not an executor.
 *   hrtimer:percpu      (timer_lateness only) the same hrtimers, whose
 *                       callbacks queue_work() the item on the per-CPU
 *                       workqueue: the kernel's own way to run precisely
 *                       timed work in a thread, as libexec does, so the
 *                       cost of the thread's wake-up is in both figures;
 *                       the reference of libexec:percpu
 *   hrtimer:unbound     (timer_lateness only) the same on the unbound
 *                       workqueue: the reference of libexec, whose workers
 *                       are not bound to CPUs either
 *
 * Every run first warms its executor (4 items per thread, one per strand),
 * then verifies its result as the userspace runs do: every item ran exactly
 * once, strands kept their order.  A run that does not verify prints
 *
 *   exec-bench: FAIL <bench> <impl>: <why>
 *
 * and its JSON line is left out (serial_throughput still prints its line,
 * which reports the order violations).  Last comes
 *
 *   exec-bench: done: <runs> runs, <failed> failed
 *
 * The default sizes are scaled down from the userspace ones (2,000,000 tasks,
 * 1,000,000 hops, 20,000 samples, 10,000 and 1,000,000 timers) for a guest
 * under QEMU's software emulation; each line says the size it ran with
 * ("tasks", "samples").  blocking_mix keeps the userspace sizes (B = 4T,
 * N = 10,000): its time is mostly sleeping and spinning, which emulation
 * does not slow down.
 * @runs repeats the whole set, the impls interleaved, so that drift of the
 * (shared, emulated) machine hits them alike; run r of a workload starts at
 * its impl r (modulo their number), so that no impl always follows the
 * same one (the teardown of the one before) or holds the same place.
 *
 * @load is the loaded variant's count of spinning processes, which the
 * guest's init (tests/guest/init.c, EXEC_LOAD) runs in user space while
 * this module loads; the module only echoes it into each line ("load":L,
 * left out when 0), as userspace's exec-bench --load does.
 *
 * Loading returns 0 once everything has run, whether or not every run
 * verified (the log says), so the module stays loaded, holding nothing, until
 * it is removed; the harness (scripts/kernel-bench.sh) removes it.  Loading
 * fails only for invalid parameters or when nothing could be set up.
 */
#define pr_fmt(fmt) "exec-bench: " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_events.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include <exec/executor.h>
#include <exec/serial.h>
#include <exec/thread_manager.h>
#include <exec/thread_pool.h>
#include <exec/timer.h>

#include "../common/bench_common.h"
#include "../common/blocking_mix.h"
#include "../common/chain_latency.h"
#include "../common/post_throughput.h"
#include "../common/serial_throughput.h"
#include "../common/strand_churn.h"
#include "../common/timer_churn.h"
#include "../common/timer_lateness.h"
#include "../common/wakeup_latency.h"

#define CREATE_TRACE_POINTS
#include "exec_kbench_trace.h"

static unsigned int threads;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "workers of the pool, max_active of the workqueues (0: one per online CPU)");

static unsigned int producers = 1;
module_param(producers, uint, 0444);
MODULE_PARM_DESC(producers, "post_throughput: producer kthreads (default 1)");

static unsigned long tasks = 200000;
module_param(tasks, ulong, 0444);
MODULE_PARM_DESC(tasks, "post_throughput: tasks (default 200000)");

static unsigned long hops = 100000;
module_param(hops, ulong, 0444);
MODULE_PARM_DESC(hops, "chain_latency: hops (default 100000)");

static unsigned int samples = 2000;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "wakeup_latency: samples (default 2000)");

static unsigned int timer_samples = 2000;
module_param(timer_samples, uint, 0444);
MODULE_PARM_DESC(timer_samples, "timer_lateness: timers (default 2000)");

static unsigned int timer_settle_ms;
module_param(timer_settle_ms, uint, 0444);
MODULE_PARM_DESC(timer_settle_ms, "timer_lateness: sleep between the executor's creation and the first arm, in ms (default 0)");

static unsigned long churn_timers = 100000;
module_param(churn_timers, ulong, 0444);
MODULE_PARM_DESC(churn_timers, "timer_churn: timers (default 100000)");

static unsigned int strands = 64;
module_param(strands, uint, 0444);
MODULE_PARM_DESC(strands, "serial_throughput: serial executors (default 64)");

static unsigned long serial_tasks = 200000;
module_param(serial_tasks, ulong, 0444);
MODULE_PARM_DESC(serial_tasks, "serial_throughput: tasks (default 200000)");

static unsigned int churn_strands = 10000;
module_param(churn_strands, uint, 0444);
MODULE_PARM_DESC(churn_strands, "strand_churn: strands (default 10000)");

static unsigned int blocking_tasks;
module_param(blocking_tasks, uint, 0444);
MODULE_PARM_DESC(blocking_tasks, "blocking_mix: blocking tasks (0: 4 per thread)");

static unsigned long cpu_tasks = 10000;
module_param(cpu_tasks, ulong, 0444);
MODULE_PARM_DESC(cpu_tasks, "blocking_mix: CPU tasks (default 10000)");

static unsigned int runs = 3;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "times the whole set runs (default 3)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "comma-separated workloads to run (default: all)");

/* Only echoed: the guest's init runs the load (tests/guest/init.c). */
static unsigned int load;
module_param(load, uint, 0444);
MODULE_PARM_DESC(load, "spinning processes the guest's user space runs during the load (default 0: none); only echoed into each line as \"load\"");

static unsigned int trace_samples;
module_param(trace_samples, uint, 0444);
MODULE_PARM_DESC(trace_samples, "wakeup_latency: samples of each run traced, from its middle; timer_lateness: timed items of each run of libexec, libexec:percpu, hrtimer:percpu and hrtimer:unbound traced, from the middle of their deadlines (default 0: none; needs a kernel with event tracing)");

/* Longest a run may take before it is declared hung. */
#define KB_TIMEOUT		(120 * HZ)

/* Whether this kernel's debugging options make its figures meaningless. */
#define KB_DEBUG_KERNEL	(IS_ENABLED(CONFIG_KASAN) ||			\
			 IS_ENABLED(CONFIG_PROVE_LOCKING) ||		\
			 IS_ENABLED(CONFIG_DEBUG_OBJECTS_WORK) ||	\
			 IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS))

/**
 * enum kb_impl - the executor a run measures
 * @KB_LIBEXEC: libexec's thread pool (and serial executors over it)
 * @KB_LIBEXEC_PERCPU: libexec's thread pool with a worker bound to each CPU
 *	(exec_thread_pool_attr.per_cpu), as a per-CPU workqueue has
 * @KB_LIBEXEC_MANAGED: a managed queue of a thread manager whose pool
 *	starts with the asked workers and grows while they block
 *	(blocking_mix only)
 * @KB_WQ_UNBOUND: an unbound workqueue
 * @KB_WQ_PERCPU: a per-CPU workqueue
 * @KB_WQ_ORDERED: ordered workqueues (serial_throughput only)
 * @KB_WQ_SYSTEM: system_wq, the kernel's shared concurrency-managed
 *	workqueue (blocking_mix only)
 * @KB_HRTIMER: raw hrtimers (timer workloads only)
 * @KB_HRTIMER_WQ: an hrtimer whose callback queues the work on a per-CPU
 *	workqueue: the kernel's own precise timer with the work run in a
 *	thread, as libexec runs it (timer_lateness only)
 * @KB_HRTIMER_WQ_UNBOUND: the same on an unbound workqueue, the counterpart
 *	of a pool whose workers are not bound to CPUs (timer_lateness only)
 */
enum kb_impl {
	KB_LIBEXEC,
	KB_LIBEXEC_PERCPU,
	KB_LIBEXEC_MANAGED,
	KB_WQ_UNBOUND,
	KB_WQ_PERCPU,
	KB_WQ_ORDERED,
	KB_WQ_SYSTEM,
	KB_HRTIMER,
	KB_HRTIMER_WQ,
	KB_HRTIMER_WQ_UNBOUND,
};

static bool kb_is_libexec(enum kb_impl impl)
{
	return impl == KB_LIBEXEC || impl == KB_LIBEXEC_PERCPU ||
	       impl == KB_LIBEXEC_MANAGED;
}

static const char * const kb_impl_names[] = {
	[KB_LIBEXEC] = "\"impl\":\"libexec\"",
	[KB_LIBEXEC_PERCPU] = "\"impl\":\"libexec\",\"pool\":\"percpu\"",
	[KB_LIBEXEC_MANAGED] =
		"\"impl\":\"libexec\",\"executor\":\"managed_queue\"",
	[KB_WQ_UNBOUND] = "\"impl\":\"workqueue\",\"wq\":\"unbound\"",
	[KB_WQ_PERCPU] = "\"impl\":\"workqueue\",\"wq\":\"percpu\"",
	[KB_WQ_ORDERED] = "\"impl\":\"workqueue\",\"wq\":\"ordered\"",
	[KB_WQ_SYSTEM] = "\"impl\":\"workqueue\",\"wq\":\"system\"",
	[KB_HRTIMER] = "\"impl\":\"hrtimer\"",
	[KB_HRTIMER_WQ] = "\"impl\":\"hrtimer\",\"wq\":\"percpu\"",
	[KB_HRTIMER_WQ_UNBOUND] = "\"impl\":\"hrtimer\",\"wq\":\"unbound\"",
};

/**
 * struct kb_item - a task of either kind
 * @ew: the libexec work item
 * @ww: the workqueue work item
 *
 * Both are 32 bytes on a kernel without work debugging, so the two impls
 * touch the same memory per task.
 */
struct kb_item {
	union {
		struct exec_work ew;
		struct work_struct ww;
	};
};

/**
 * struct kb_queue - where a run submits
 * @ex: a libexec executor, or NULL
 * @wq: a workqueue, used when @ex is NULL
 */
struct kb_queue {
	struct exec_executor *ex;
	struct workqueue_struct *wq;
};

/**
 * kb_submit - submit an item to a queue
 * @q: the queue
 * @it: the item, initialised by kb_item_init() for @q's kind
 *
 * Context: Any context.
 * Return: 0, or a negative errno (-EALREADY for a pending workqueue item).
 */
static inline int kb_submit(const struct kb_queue *q, struct kb_item *it)
{
	if (q->ex)
		return exec_submit(q->ex, &it->ew);
	return queue_work(q->wq, &it->ww) ? 0 : -EALREADY;
}

/**
 * kb_item_init - initialise an item for a queue's kind
 * @q: the queue it will be submitted to
 * @it: the item
 * @efn: its function as a libexec item
 * @wfn: its function as a workqueue item
 */
static void kb_item_init(const struct kb_queue *q, struct kb_item *it,
			 exec_work_fn efn, work_func_t wfn)
{
	if (q->ex)
		exec_work_init(&it->ew, efn);
	else
		INIT_WORK(&it->ww, wfn);
}

/*
 * KB_ITEM_FNS(body) defines body_efn() and body_wfn(), the libexec and the
 * workqueue functions of an item whose work is body(struct kb_item *).
 */
#define KB_ITEM_FNS(body)						\
static void body##_efn(struct exec_work *w)				\
{									\
	body(container_of(w, struct kb_item, ew));			\
}									\
static void body##_wfn(struct work_struct *w)				\
{									\
	body(container_of(w, struct kb_item, ww));			\
}

/**
 * struct kb_exec - the executor of one run
 * @impl: its kind
 * @pool: the libexec pool (KB_LIBEXEC)
 * @manager: the thread manager (KB_LIBEXEC_MANAGED)
 * @queue: its managed queue
 * @q: where to submit
 * @threads: the pool's workers or the workqueue's max_active
 */
struct kb_exec {
	enum kb_impl impl;
	struct exec_thread_pool *pool;
	struct exec_thread_manager *manager;
	struct exec_managed_queue *queue;
	struct kb_queue q;
	unsigned int threads;
};

static unsigned int kb_failed;

static void kb_fail(const char *bench, enum kb_impl impl, const char *fmt,
		    ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("FAIL %s {%s}: %pV\n", bench, kb_impl_names[impl], &vaf);
	va_end(args);
	kb_failed++;
}

/* The impl of the run under way, for bench_fail(). */
static enum kb_impl kb_run_impl;

/* bench/common/'s workloads: why a run does not verify. */
void bench_fail(const char *bench, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	kb_fail(bench, kb_run_impl, "%pV", &vaf);
	va_end(args);
}

/* --- warming up ------------------------------------------------------------ */

static struct {
	atomic_t left;
	struct completion done;
} kb_warm_state;

static void kb_warm_body(struct kb_item *it)
{
	if (atomic_dec_and_test(&kb_warm_state.left))
		complete(&kb_warm_state.done);
}

KB_ITEM_FNS(kb_warm_body)

/**
 * kb_warm - run @nr items on @q and wait for them
 * @q: the queue
 * @nr: how many
 *
 * Starts the workers (libexec) or worker pool (workqueue) before the
 * measured region, as the userspace runs do.
 *
 * Context: Process context; sleeps.
 * Return: 0, or a negative errno.
 */
static int kb_warm(const struct kb_queue *q, unsigned int nr)
{
	struct kb_item *items;
	unsigned int i;
	int err = 0;

	items = kcalloc(nr, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	atomic_set(&kb_warm_state.left, nr);
	init_completion(&kb_warm_state.done);
	for (i = 0; i < nr; i++) {
		kb_item_init(q, &items[i], kb_warm_body_efn, kb_warm_body_wfn);
		err = kb_submit(q, &items[i]);
		if (err)
			break;
	}
	if (err) {
		/* The ones submitted may still run: wait for them. */
		if (atomic_sub_and_test(nr - i, &kb_warm_state.left))
			complete(&kb_warm_state.done);
	}
	wait_for_completion(&kb_warm_state.done);
	/*
	 * Each item's function may still be returning: wait for it before
	 * the items are freed.  Item by item, as the workqueue may be
	 * system_wq, which is not ours to flush.
	 */
	if (!q->ex)
		for (nr = i, i = 0; i < nr; i++)
			flush_work(&items[i].ww);
	kfree(items);
	return err;
}

/* --- creating and destroying the executors ---------------------------------- */

static int kb_exec_destroy(struct kb_exec *e);

/* A thread manager of one pool of @nr workers, and a queue with no limits. */
static int kb_managed_create(struct kb_exec *e, unsigned int nr)
{
	struct exec_thread_manager_attr attr = {
		.n_pools = 1,
		.pool.nr_threads = nr,
		.pool.thread.name = "exec-kbench",
	};
	int err;

	err = exec_thread_manager_create(&e->manager, &attr);
	if (err)
		return err;
	err = exec_thread_manager_new_queue(e->manager, &e->queue, NULL);
	if (err) {
		exec_thread_manager_destroy(e->manager);
		e->manager = NULL;
		return err;
	}
	e->q.ex = exec_managed_queue_executor(e->queue);
	return 0;
}

/**
 * kb_exec_create - create the executor of a run
 * @e: filled in
 * @impl: KB_LIBEXEC, KB_LIBEXEC_PERCPU, KB_WQ_UNBOUND, KB_WQ_PERCPU,
 *	KB_WQ_SYSTEM, or KB_HRTIMER_WQ or KB_HRTIMER_WQ_UNBOUND for the
 *	workqueue their hrtimers queue on
 * @nr: workers, or max_active (not for KB_WQ_SYSTEM, which has its own)
 *
 * Context: Process context; sleeps.
 * Return: 0, or a negative errno.
 */
static int kb_exec_create(struct kb_exec *e, enum kb_impl impl,
			  unsigned int nr)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = nr,
		.thread.name = "exec-kbench",
		.per_cpu = impl == KB_LIBEXEC_PERCPU,
	};
	int err;

	memset(e, 0, sizeof(*e));
	e->impl = impl;
	e->threads = nr;
	switch (impl) {
	case KB_LIBEXEC:
	case KB_LIBEXEC_PERCPU:
		err = exec_thread_pool_create(&e->pool, &attr);
		if (err)
			return err;
		e->q.ex = exec_thread_pool_executor(e->pool);
		break;
	case KB_LIBEXEC_MANAGED:
		err = kb_managed_create(e, nr);
		if (err)
			return err;
		break;
	case KB_WQ_UNBOUND:
	case KB_HRTIMER_WQ_UNBOUND:
		e->q.wq = alloc_workqueue("exec-kbench", WQ_UNBOUND, nr);
		break;
	case KB_WQ_SYSTEM:
		e->q.wq = system_wq;
		break;
	default:
		e->q.wq = alloc_workqueue("exec-kbench", 0, nr);
		break;
	}
	if (!e->q.ex && !e->q.wq)
		return -ENOMEM;
	err = kb_warm(&e->q, 4 * nr);
	if (err)
		kb_exec_destroy(e);
	return err;
}

/**
 * kb_exec_destroy - destroy the executor of a run
 * @e: the executor
 *
 * Returns once every item submitted to it has run (for libexec also once its
 * workers are stopped and joined); except for system_wq, which is not
 * destroyed, so the caller waits for its items itself.
 *
 * Context: Process context; sleeps.
 * Return: 0, or the error of exec_thread_pool_destroy().
 */
static int kb_exec_destroy(struct kb_exec *e)
{
	long n;

	if (e->manager) {
		n = exec_managed_queue_destroy(e->queue);
		return exec_thread_manager_destroy(e->manager) ?: (n ? -EIO : 0);
	}
	if (e->pool)
		return exec_thread_pool_destroy(e->pool);
	if (e->impl != KB_WQ_SYSTEM)
		destroy_workqueue(e->q.wq);
	return 0;
}

/* --- output --------------------------------------------------------------------- */

/* Starts a line with the keys every line has. */
static void kb_line_begin(struct bench_line *l, const char *bench,
			  const struct kb_exec *e, unsigned int run)
{
	bench_line_reset(l);
	bench_line_add(l, "{\"bench\":\"%s\",%s,\"kernel_debug\":%s,\"run\":%u,\"threads\":%u",
		       bench, kb_impl_names[e->impl],
		       KB_DEBUG_KERNEL ? "true" : "false", run, e->threads);
	/* The loaded variant, as userspace's exec-bench --load says it. */
	if (load)
		bench_line_uint(l, "load", load);
}

static void kb_line_end(struct bench_line *l)
{
	bench_line_close(l);
	pr_info("%s\n", l->buf);
}

/* --- post_throughput -------------------------------------------------------- */

static DEFINE_PER_CPU_ALIGNED(unsigned long, kb_post_count);

/*
 * post_throughput's body is bench/common/post_throughput.c, exec-bench's
 * too; here are the producer kthreads and their submission, the items of
 * either kind and the per-CPU counters.
 */

/**
 * struct kb_producer - one producer kthread of post_throughput
 * @s: its share
 * @q: where it submits
 * @items: all items
 * @go: completed when all producers may start
 * @done: completed when it has submitted its share
 */
struct kb_producer {
	struct bench_post_producer s;
	const struct kb_queue *q;
	struct kb_item *items;
	struct completion *go;
	struct completion done;
} ____cacheline_aligned_in_smp;

static void kb_post_body(struct kb_item *it)
{
	this_cpu_inc(kb_post_count);
}

KB_ITEM_FNS(kb_post_body)

static int kb_producer_main(void *arg)
{
	struct kb_producer *p = arg;
	unsigned long i;
	int err = 0;

	wait_for_completion(p->go);
	p->s.start_ns = ktime_get_ns();
	for (i = p->s.first; i < p->s.end && !err; i++)
		err = kb_submit(p->q, &p->items[i]);
	p->s.err = err;
	kthread_complete_and_exit(&p->done, 0);
}

static void kb_post_throughput(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "post_throughput";
	unsigned long n = tasks, sum = 0, i;
	unsigned int nr = producers, t;
	struct kb_producer *prod;
	struct completion go;
	struct task_struct *task;
	struct bench_post post;
	struct kb_item *items;
	struct bench_line line;
	struct kb_exec e;
	int cpu, err;

	items = kvcalloc(n, sizeof(*items), GFP_KERNEL);
	prod = kcalloc(nr, sizeof(*prod), GFP_KERNEL);
	if (!items || !prod) {
		kb_fail(bench, impl, "out of memory");
		goto out_free;
	}
	err = kb_exec_create(&e, impl, threads);
	if (err) {
		kb_fail(bench, impl, "creating the executor: %d", err);
		goto out_free;
	}
	for (i = 0; i < n; i++)
		kb_item_init(&e.q, &items[i], kb_post_body_efn,
			     kb_post_body_wfn);
	for_each_possible_cpu(cpu)
		per_cpu(kb_post_count, cpu) = 0;

	bench_post_init(&post, n, nr);
	init_completion(&go);
	for (t = 0; t < nr; t++) {
		struct kb_producer *p = &prod[t];

		bench_post_share(&post, t, &p->s);
		p->q = &e.q;
		p->items = items;
		p->go = &go;
		init_completion(&p->done);
		task = kthread_run(kb_producer_main, p, "exec-kb-prod/%u", t);
		if (IS_ERR(task)) {
			/* Those started submit nothing: an empty share. */
			for (; t < nr; t++) {
				prod[t].s.err = PTR_ERR(task);
				complete(&prod[t].done);
			}
			for (t = 0; t < nr; t++)
				prod[t].s.end = prod[t].s.first;
			break;
		}
	}
	complete_all(&go);
	for (t = 0; t < nr; t++)
		wait_for_completion(&prod[t].done);
	/* The first failure only: one run, one failure. */
	for (t = 0, err = 0; t < nr && !err; t++)
		err = bench_post_done(&post, &prod[t].s, t);
	if (kb_exec_destroy(&e) && !err) {
		kb_fail(bench, impl, "destroying the executor failed");
		err = -EDEADLK;
	}
	post.t1 = ktime_get_ns();
	if (err)
		goto out_free;

	for_each_possible_cpu(cpu)
		sum += per_cpu(kb_post_count, cpu);
	if (bench_post_verify(&post, sum))
		goto out_free;
	kb_line_begin(&line, bench, &e, run);
	bench_post_line(&post, &line);
	kb_line_end(&line);
out_free:
	kfree(prod);
	kvfree(items);
}

/* --- chain_latency ---------------------------------------------------------- */

/*
 * Its body is bench/common/chain_latency.c, exec-bench's too; here are the
 * item of either kind, its submission, the clock and the completion.
 */
static struct {
	struct bench_chain run;
	const struct kb_queue *q;
	struct kb_item item;
	struct completion done;
} kb_chain;

static void kb_chain_body(struct kb_item *it)
{
	int err;

	if (bench_chain_hop(&kb_chain.run)) {
		kb_chain.run.t1 = ktime_get_ns();
		complete(&kb_chain.done);
		return;
	}
	err = kb_submit(kb_chain.q, it);
	if (err) {
		kb_chain.run.err = err;
		complete(&kb_chain.done);
	}
}

KB_ITEM_FNS(kb_chain_body)

static void kb_chain_latency(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "chain_latency";
	struct bench_line line;
	struct kb_exec e;
	int err;

	err = kb_exec_create(&e, impl, threads);
	if (err) {
		kb_fail(bench, impl, "creating the executor: %d", err);
		return;
	}
	kb_chain.q = &e.q;
	bench_chain_init(&kb_chain.run, hops);
	init_completion(&kb_chain.done);
	kb_item_init(&e.q, &kb_chain.item, kb_chain_body_efn,
		     kb_chain_body_wfn);

	kb_chain.run.t0 = ktime_get_ns();
	err = kb_submit(&e.q, &kb_chain.item);
	if (!err && !wait_for_completion_timeout(&kb_chain.done, KB_TIMEOUT))
		err = -ETIMEDOUT;
	/* Destroying waits for any hop that should not exist: count after. */
	if (kb_exec_destroy(&e) && !err)
		err = -EDEADLK;
	if (err && !kb_chain.run.err)
		kb_chain.run.err = err;
	if (bench_chain_verify(&kb_chain.run))
		return;
	kb_line_begin(&line, bench, &e, run);
	bench_chain_line(&kb_chain.run, &line);
	kb_line_end(&line);
}

/* --- tracing ----------------------------------------------------------------- */

/*
 * With @trace_samples, wakeup_latency runs @trace_samples of its samples,
 * from the middle of each run, with the kernel's ring buffer on; the
 * buffer is printed to the console at the end (ftrace_dump()), where
 * scripts/kernel-trace-wakeup.py cuts each sample into steps.  The events:
 * the scheduler's wake-up and switch, hrtimer starts (the submitter's
 * sleep), the local timer interrupt, and three markers of the benchmark's
 * own (exec_kbench_trace.h): "submit" just before the submission,
 * "return" just after it, "start" first thing in the item, each with the
 * impl.  The same for every impl, so the steps compare.  A kernel without
 * event tracing (the benchmark kernel) compiles all of it to nothing.
 */
static const char * const kb_trace_events[][2] __maybe_unused = {
	{ "sched", "sched_waking" },
	{ "sched", "sched_switch" },
	{ "timer", "hrtimer_start" },
	{ "irq_vectors", "local_timer_entry" },
	{ "irq_vectors", "local_timer_exit" },
	{ "exec_kbench", "kb_mark" },
};

/*
 * And for timer_lateness (kb_late_trace_*()): each hrtimer's expiry with
 * its function (the item's own for hrtimer then queue_work(), libexec's
 * clock event device or a watcher's timed sleep, the tick), libexec's
 * hand-over of a due item, the wake-up as it ends (its flags say whether
 * the wakee is to preempt the current task, when both are on the CPU that
 * records it), migrations, the reschedule interrupt that carries a remote
 * preemption, and the runtime and vruntime of the current task at every
 * update of the fair class's clock (in the wake-up's preemption check
 * too), and libexec's parks.  The item's run is kb_late.
 */
static const char * const kb_late_trace_events[][2] __maybe_unused = {
	{ "sched", "sched_wakeup" },
	{ "sched", "sched_migrate_task" },
	{ "sched", "sched_stat_runtime" },
	{ "timer", "hrtimer_expire_entry" },
	{ "irq_vectors", "reschedule_entry" },
	{ "exec", "exec_timer_fire" },
	{ "exec", "exec_worker_park" },
	{ "exec", "exec_worker_wake" },
	{ "workqueue", "workqueue_queue_work" },
	{ "exec_kbench", "kb_late" },
};

static bool kb_selected(const char *name);

static void kb_trace_setup(void)
{
#ifdef CONFIG_EVENT_TRACING
	unsigned int i;

	if (!trace_samples)
		return;
	tracing_off();
	for (i = 0; i < ARRAY_SIZE(kb_trace_events); i++)
		if (trace_set_clr_event(kb_trace_events[i][0],
					kb_trace_events[i][1], 1))
			pr_warn("trace: no event %s:%s\n",
				kb_trace_events[i][0], kb_trace_events[i][1]);
	if (!kb_selected("timer_lateness"))
		return;
	for (i = 0; i < ARRAY_SIZE(kb_late_trace_events); i++)
		if (trace_set_clr_event(kb_late_trace_events[i][0],
					kb_late_trace_events[i][1], 1))
			pr_warn("trace: no event %s:%s\n",
				kb_late_trace_events[i][0],
				kb_late_trace_events[i][1]);
#else
	if (trace_samples)
		pr_warn("trace: this kernel has no event tracing\n");
#endif
}

/* Whether sample @k of @n is in the traced window. */
static bool kb_traced(unsigned int k, unsigned int n)
{
	unsigned int first = n / 2;

	return trace_samples && k >= first && k - first < trace_samples;
}

/* --- wakeup_latency ---------------------------------------------------------- */

/*
 * Its body is bench/common/wakeup_latency.c, exec-bench's too; here are the
 * items of either kind, their submission, the submitting kthread, its
 * sleep and the trace window.
 */

/**
 * struct kb_wake_item - one sample's task
 * @item: the task
 * @s: its sample
 *
 * Cache-line aligned, as wakeup_latency.h asks.
 */
struct kb_wake_item {
	struct kb_item item;
	struct bench_wake_sample s;
} ____cacheline_aligned_in_smp;

static struct {
	struct bench_wake run;
	const struct kb_queue *q;
	enum kb_impl impl;
	struct kb_wake_item *items;
	int err;
	struct completion submitted_done;
	struct completion done;
} kb_wake;

static void kb_wake_body(struct kb_item *it)
{
	struct kb_wake_item *w = container_of(it, struct kb_wake_item, item);

	trace_kb_mark("start", kb_impl_names[kb_wake.impl]);
	if (bench_wake_ran(&kb_wake.run, &w->s))
		complete(&kb_wake.done);
}

KB_ITEM_FNS(kb_wake_body)

/* Sleeps until @deadline (ktime_get_ns() time). */
static void kb_sleep_until(u64 deadline)
{
	u64 now = ktime_get_ns();
	unsigned long us;

	if (deadline <= now)
		return;
	us = div_u64(deadline - now, NSEC_PER_USEC);
	if (us)
		usleep_range(us, us);
}

static int kb_wake_submit(struct bench_wake *w, unsigned long k)
{
	return kb_submit(kb_wake.q, &kb_wake.items[k].item);
}

/*
 * Tracing stops at the first sample after the window: the window's last
 * item has run while the submitter slept.
 */
static void kb_wake_before(struct bench_wake *w, unsigned long k)
{
	if (kb_traced(k, w->total)) {
		tracing_on();
		trace_kb_mark("submit", kb_impl_names[kb_wake.impl]);
	} else if (k && kb_traced(k - 1, w->total)) {
		tracing_off();
	}
}

static void kb_wake_after(struct bench_wake *w, unsigned long k)
{
	if (kb_traced(k, w->total))
		trace_kb_mark("return", kb_impl_names[kb_wake.impl]);
}

static const struct bench_wake_ops kb_wake_ops = {
	.submit = kb_wake_submit,
	.sleep_until = kb_sleep_until,
	.before = kb_wake_before,
	.after = kb_wake_after,
};

static int kb_wake_submitter(void *arg)
{
	struct bench_wake *w = &kb_wake.run;
	unsigned long k;
	int err;

	err = bench_wake_submit_all(w, &k);
	/* A window that reaches the run's end. */
	if (trace_samples)
		tracing_off();
	kb_wake.err = err;
	/* The samples never submitted count as run, to end the wait. */
	if (err && __atomic_add_fetch(&w->ran, w->total - k, __ATOMIC_ACQ_REL) ==
		   (long)w->total)
		complete(&kb_wake.done);
	kthread_complete_and_exit(&kb_wake.submitted_done, 0);
}

static void kb_wakeup_latency(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "wakeup_latency";
	unsigned int n = samples, k;
	struct task_struct *task;
	struct bench_line line;
	struct kb_exec e;
	u64 *lat;
	int err;

	kb_wake.items = kvcalloc(n, sizeof(*kb_wake.items), GFP_KERNEL);
	lat = kvcalloc(n, sizeof(*lat), GFP_KERNEL);
	if (!kb_wake.items || !lat) {
		kb_fail(bench, impl, "out of memory");
		goto out_free;
	}
	err = kb_exec_create(&e, impl, threads);
	if (err) {
		kb_fail(bench, impl, "creating the executor: %d", err);
		goto out_free;
	}
	for (k = 0; k < n; k++)
		kb_item_init(&e.q, &kb_wake.items[k].item, kb_wake_body_efn,
			     kb_wake_body_wfn);
	kb_wake.q = &e.q;
	kb_wake.impl = impl;
	kb_wake.err = 0;
	bench_wake_init(&kb_wake.run, &kb_wake_ops, &kb_wake.items[0].s,
			sizeof(*kb_wake.items), n, NULL);
	init_completion(&kb_wake.submitted_done);
	init_completion(&kb_wake.done);

	task = kthread_run(kb_wake_submitter, NULL, "exec-kb-wake");
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
	} else {
		wait_for_completion(&kb_wake.submitted_done);
		if (!wait_for_completion_timeout(&kb_wake.done, KB_TIMEOUT))
			err = -ETIMEDOUT;
		else
			err = kb_wake.err;
	}
	if (kb_exec_destroy(&e) && !err)
		err = -EDEADLK;
	if (err) {
		kb_fail(bench, impl, "submission failed: %d", err);
		goto out_free;
	}
	if (bench_wake_latencies(&kb_wake.run, lat))
		goto out_free;
	kb_line_begin(&line, bench, &e, run);
	bench_wake_line(&kb_wake.run, lat, &line);
	kb_line_end(&line);
out_free:
	kvfree(lat);
	kvfree(kb_wake.items);
	kb_wake.items = NULL;
}

/* --- timers: what timer_lateness and timer_churn share ---------------------- */

/*
 * hrtimer_setup() where the kernel has it (6.13, which dropped
 * hrtimer_init(); bench/kernel/Kbuild defines EXEC_HAVE_HRTIMER_SETUP),
 * hrtimer_init() before.
 */
static void kb_hrtimer_setup(struct hrtimer *timer,
			     enum hrtimer_restart (*fn)(struct hrtimer *))
{
#ifdef EXEC_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
#else
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	timer->function = fn;
#endif
}

/*
 * The clock a run's deadlines are on: for libexec the one its users read,
 * exec_clock_now(); ktime_get_ns() otherwise, the same CLOCK_MONOTONIC.
 */
static u64 kb_timer_now(enum kb_impl impl)
{
	if (kb_is_libexec(impl))
		return exec_clock_now(EXEC_CLOCK_MONOTONIC);
	return ktime_get_ns();
}

/*
 * The delay of queue_delayed_work() that does not run the work before
 * @deadline when armed at @now.  Delayed work is jiffy-granular: its timer
 * fires at the tick that brings jiffies to (jiffies when armed) + delay, and
 * the current jiffy began up to a tick before @now, hence rounding up plus
 * one tick.  timer_lateness measures it all the same against the nanosecond
 * deadline it wanted, as it does libexec and hrtimers: the rounding is what
 * a user of delayed work gets.
 */
static unsigned long kb_delay_jiffies(u64 deadline, u64 now)
{
	if (deadline <= now)
		return 0;
	return div_u64(deadline - now + TICK_NSEC - 1, TICK_NSEC) + 1;
}

/*
 * kb_delay_jiffies() of @deadline from now, for a delayed work armed now.
 * The rounding assumes that jiffies is current, which it is not when the
 * CPU that keeps it missed ticks (a guest whose virtual CPU the host did
 * not run, as under load): the timer would then fire as many ticks early
 * as jiffies is behind.  The coarse clock moves with jiffies (the tick
 * updates both), so its lag behind the clock, once a tick or more, is
 * added; below that the delay is kb_delay_jiffies()'s.
 */
static unsigned long kb_delay_jiffies_now(u64 deadline)
{
	u64 coarse = ktime_get_coarse_ns(), now = ktime_get_ns();
	unsigned long delay = kb_delay_jiffies(deadline, now);

	if (delay && now - coarse >= TICK_NSEC)
		delay += div_u64(now - coarse + TICK_NSEC - 1, TICK_NSEC);
	return delay;
}

/* --- timer_lateness ---------------------------------------------------------- */

/**
 * struct kb_late_item - one timer of timer_lateness
 * @et: the libexec timed item
 * @dw: the delayed work item
 * @hr: the hrtimer
 * @hw: the hrtimer and the work item it queues (KB_HRTIMER_WQ)
 * @s: its record (bench/common/timer_lateness.h), the deadline on
 *	kb_timer_now()'s clock
 * @traced: it is in the run's traced window (kb_late_trace_window())
 */
struct kb_late_item {
	union {
		struct exec_timer et;
		struct delayed_work dw;
		struct hrtimer hr;
		struct {
			struct hrtimer hr;
			struct work_struct work;
		} hw;
	};
	struct bench_late_sample s;
	bool traced;
};

/*
 * timer_lateness's body is bench/common/timer_lateness.c, exec-bench's too;
 * here are the timed items of each impl, their arming and the trace window.
 */
static struct {
	struct bench_late run;
	struct kb_exec *e;
	struct kb_late_item *items;
	unsigned long armed;
	struct completion done;
	struct workqueue_struct *wq;	/* the hrtimer impls' workqueue */
	enum kb_impl impl;
	atomic_t traced_left;		/* traced items yet to run */
	struct hrtimer trace_on;	/* starts the traced window */
} kb_late;

/*
 * The item's address that the events of its expiry print: libexec's
 * exec_timer_fire names the exec_work, hrtimer_expire_entry the hrtimer.
 */
static const void *kb_late_trace_item(const struct kb_late_item *it)
{
	if (kb_is_libexec(kb_late.impl))
		return &it->et.work;
	return &it->hw.hr;
}

/* A traced item ran: its mark, and the window's end after the last one. */
static void kb_late_trace_ran(struct kb_late_item *it, u64 now)
{
	trace_kb_late(kb_impl_names[kb_late.impl], kb_late_trace_item(it),
		      it->s.deadline, now);
	if (atomic_dec_and_test(&kb_late.traced_left))
		tracing_off();
}

static void kb_late_ran(struct kb_late_item *it, u64 now)
{
	if (unlikely(it->traced))
		kb_late_trace_ran(it, now);
	if (bench_late_ran(&kb_late.run, &it->s, now))
		complete(&kb_late.done);
}

static void kb_late_efn(struct exec_work *w)
{
	kb_late_ran(container_of(w, struct kb_late_item, et.work),
		    exec_clock_now(EXEC_CLOCK_MONOTONIC));
}

static void kb_late_wfn(struct work_struct *w)
{
	kb_late_ran(container_of(to_delayed_work(w), struct kb_late_item, dw),
		    ktime_get_ns());
}

static enum hrtimer_restart kb_late_hfn(struct hrtimer *t)
{
	kb_late_ran(container_of(t, struct kb_late_item, hr), ktime_get_ns());
	return HRTIMER_NORESTART;
}

static void kb_late_hwwork(struct work_struct *w)
{
	kb_late_ran(container_of(w, struct kb_late_item, hw.work),
		    ktime_get_ns());
}

static enum hrtimer_restart kb_late_hwfn(struct hrtimer *t)
{
	queue_work(kb_late.wq,
		   &container_of(t, struct kb_late_item, hw.hr)->hw.work);
	return HRTIMER_NORESTART;
}

static void kb_late_init(const struct kb_exec *e, struct kb_late_item *it)
{
	switch (e->impl) {
	case KB_HRTIMER_WQ:
	case KB_HRTIMER_WQ_UNBOUND:
		kb_hrtimer_setup(&it->hw.hr, kb_late_hwfn);
		INIT_WORK(&it->hw.work, kb_late_hwwork);
		break;
	case KB_LIBEXEC:
	case KB_LIBEXEC_PERCPU:
		exec_timer_init(&it->et, kb_late_efn, NULL);
		break;
	case KB_HRTIMER:
		kb_hrtimer_setup(&it->hr, kb_late_hfn);
		break;
	default:
		INIT_DELAYED_WORK(&it->dw, kb_late_wfn);
		break;
	}
}

/* Arms timer @k for its deadline.  Return: 0, or a negative errno. */
static int kb_late_arm(struct bench_late *l, unsigned long k)
{
	const struct kb_exec *e = kb_late.e;
	struct kb_late_item *it = &kb_late.items[k];
	unsigned long delay;

	switch (e->impl) {
	case KB_LIBEXEC:
	case KB_LIBEXEC_PERCPU:
		return exec_submit_at(e->q.ex, &it->et, EXEC_CLOCK_MONOTONIC,
				      it->s.deadline);
	case KB_HRTIMER:
		hrtimer_start(&it->hr, ns_to_ktime(it->s.deadline),
			      HRTIMER_MODE_ABS);
		return 0;
	case KB_HRTIMER_WQ:
	case KB_HRTIMER_WQ_UNBOUND:
		hrtimer_start(&it->hw.hr, ns_to_ktime(it->s.deadline),
			      HRTIMER_MODE_ABS);
		return 0;
	default:
		delay = kb_delay_jiffies_now(it->s.deadline);
		return queue_delayed_work(e->q.wq, &it->dw, delay) ? 0 :
		       -EALREADY;
	}
}

static enum hrtimer_restart kb_late_trace_on(struct hrtimer *t)
{
	tracing_on();
	return HRTIMER_NORESTART;
}

/* How far ahead of its first deadline a traced window starts. */
#define KB_LATE_TRACE_LEAD_NS	(2 * NSEC_PER_MSEC)

/*
 * With @trace_samples, the runs of the thread-run impls whose timer is
 * precise (libexec's pools, an hrtimer then queue_work()) trace a window
 * of @trace_samples items: those whose deadlines, offsets from the run's
 * start in @items, come first from the middle of the deadlines on.  The
 * ring buffer is turned on by an hrtimer KB_LATE_TRACE_LEAD_NS before the
 * window's first deadline, so that what runs before it (the vruntime of
 * the CPUs' tasks) is in the trace, and off by the run of the window's
 * last item (kb_late_trace_ran()).  Returns the window's first offset,
 * or 0 for no window; items in it are marked.
 */
static u64 kb_late_trace_window(enum kb_impl impl, struct kb_late_item *items,
				u64 *lat, unsigned int n)
{
	unsigned int k, want = min(trace_samples, n - n / 2), in = 0;
	u64 first, last;

	if (!IS_ENABLED(CONFIG_EVENT_TRACING) || !want ||
	    (impl != KB_LIBEXEC && impl != KB_LIBEXEC_PERCPU &&
	     impl != KB_HRTIMER_WQ && impl != KB_HRTIMER_WQ_UNBOUND))
		return 0;
	/* @lat is free until the run has ended: the offsets, sorted. */
	for (k = 0; k < n; k++)
		lat[k] = items[k].s.deadline;
	sort(lat, n, sizeof(*lat), bench_cmp_u64, NULL);
	first = lat[n / 2];
	last = lat[n / 2 + want - 1];
	for (k = 0; k < n; k++) {
		items[k].traced = items[k].s.deadline >= first &&
				  items[k].s.deadline <= last;
		in += items[k].traced;
	}
	atomic_set(&kb_late.traced_left, in);
	return first;
}

/*
 * Cancels every timer and waits until none is running, so that the items
 * can be freed: after a failure some may still be armed, and even after all
 * have run an hrtimer's core may still be returning from the last callback.
 * Return: how many were still pending.
 */
static unsigned int kb_late_quiesce(const struct kb_exec *e,
				    struct kb_late_item *items, unsigned int n)
{
	unsigned int k, pending = 0;

	for (k = 0; k < n; k++) {
		switch (e->impl) {
		case KB_LIBEXEC:
		case KB_LIBEXEC_PERCPU:
			pending += exec_timer_cancel_sync(&items[k].et) == 1;
			break;
		case KB_HRTIMER:
			pending += hrtimer_cancel(&items[k].hr);
			break;
		case KB_HRTIMER_WQ:
		case KB_HRTIMER_WQ_UNBOUND:
			pending += hrtimer_cancel(&items[k].hw.hr);
			pending += cancel_work_sync(&items[k].hw.work);
			break;
		default:
			pending += cancel_delayed_work_sync(&items[k].dw);
			break;
		}
	}
	return pending;
}

/*
 * Starts the clock, the trace window's hrtimer if there is one (@window,
 * its first deadline's offset), and arms every timer.
 * Return: 0, or the negative errno of the arm that failed.
 */
static int kb_late_arm_all(u64 window)
{
	u64 t0 = kb_timer_now(kb_late.impl);

	if (window) {
		kb_hrtimer_setup(&kb_late.trace_on, kb_late_trace_on);
		hrtimer_start(&kb_late.trace_on,
			      ns_to_ktime(t0 + window - min(window,
					  KB_LATE_TRACE_LEAD_NS)),
			      HRTIMER_MODE_ABS);
	}
	return bench_late_arm_all(&kb_late.run, t0, &kb_late.armed);
}

static const struct bench_late_ops kb_late_ops = {
	.arm = kb_late_arm,
};

static void kb_timer_lateness(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "timer_lateness";
	unsigned int n = timer_samples, k, pending;
	struct kb_exec e = { .impl = impl };
	struct kb_late_item *items;
	u64 *lat, window;
	struct bench_line line;
	unsigned long armed = 0;
	int err = 0;

	items = kvcalloc(n, sizeof(*items), GFP_KERNEL);
	lat = kvcalloc(n, sizeof(*lat), GFP_KERNEL);
	if (!items || !lat) {
		kb_fail(bench, impl, "out of memory");
		goto out_free;
	}
	if (impl != KB_HRTIMER) {
		err = kb_exec_create(&e, impl, threads);
		if (err) {
			kb_fail(bench, impl, "creating the executor: %d", err);
			goto out_free;
		}
	}
	for (k = 0; k < n; k++)
		kb_late_init(&e, &items[k]);
	bench_late_init(&kb_late.run, &kb_late_ops, &items[0].s,
			sizeof(*items), n);
	if (timer_settle_ms)
		msleep(timer_settle_ms);
	kb_late.e = &e;
	kb_late.items = items;
	kb_late.wq = e.q.wq;
	kb_late.impl = impl;
	init_completion(&kb_late.done);
	window = kb_late_trace_window(impl, items, lat, n);

	err = kb_late_arm_all(window);
	armed = kb_late.armed;
	if (!err && !wait_for_completion_timeout(&kb_late.done, KB_TIMEOUT))
		err = -ETIMEDOUT;
	if (window) {
		hrtimer_cancel(&kb_late.trace_on);
		tracing_off();
	}
	pending = kb_late_quiesce(&e, items, n);
	if (impl != KB_HRTIMER && kb_exec_destroy(&e) && !err)
		err = -EDEADLK;
	if (err) {
		kb_fail(bench, impl, "%lu of %u timers armed, %ld ran: error %d",
			armed, n, kb_late.run.ran, err);
		goto out_free;
	}
	if (pending) {
		kb_fail(bench, impl, "of %u timers, %u were still pending",
			n, pending);
		goto out_free;
	}
	if (bench_late_latencies(&kb_late.run, lat))
		goto out_free;
	kb_line_begin(&line, bench, &e, run);
	if (impl == KB_WQ_UNBOUND || impl == KB_WQ_PERCPU)
		bench_line_uint(&line, "hz", HZ);
	bench_late_line(&kb_late.run, lat, &line);
	kb_line_end(&line);
out_free:
	kvfree(lat);
	kvfree(items);
}

/* --- timer_churn ------------------------------------------------------------- */

/*
 * Its body is bench/common/timer_churn.c, exec-bench's too; here are the
 * timers of each impl, their arming and cancelling, and the clock.  The
 * items are arrays of the bare timer type of each impl, so that each
 * touches only the memory its own timers need.
 */

/**
 * struct kb_churn_run - one run of timer_churn in the module
 * @run: the shared run: the deadlines, the times and the counts
 * @e: the executor, unless the impl is KB_HRTIMER
 * @items: the timers, of the impl's type
 *
 * For workqueues, @run's offsets are converted to delays in jiffies.
 */
static struct kb_churn_run {
	struct bench_tchurn run;
	struct kb_exec e;
	void *items;
} kb_tc;

static void kb_churn_efn(struct exec_work *w)
{
	bench_tchurn_ran(&kb_tc.run);
}

static void kb_churn_wfn(struct work_struct *w)
{
	bench_tchurn_ran(&kb_tc.run);
}

static enum hrtimer_restart kb_churn_hfn(struct hrtimer *t)
{
	bench_tchurn_ran(&kb_tc.run);
	return HRTIMER_NORESTART;
}

static size_t kb_churn_size(enum kb_impl impl)
{
	switch (impl) {
	case KB_LIBEXEC:
	case KB_LIBEXEC_PERCPU:
		return sizeof(struct exec_timer);
	case KB_HRTIMER:
		return sizeof(struct hrtimer);
	default:
		return sizeof(struct delayed_work);
	}
}

/*
 * The measured loops: one pair per impl, so that each calls its facility
 * directly, as its users do.  Return: 0, or the error that stopped arming.
 */
static int kb_churn_libexec(struct kb_churn_run *c)
{
	struct bench_tchurn *r = &c->run;
	struct exec_timer *t = c->items;
	unsigned long i;
	int err = 0;

	r->t0 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	for (i = 0; i < r->n; i++) {
		err = exec_submit_at(c->e.q.ex, &t[i], EXEC_CLOCK_MONOTONIC,
				     r->t0 + r->offset[i]);
		if (unlikely(err))
			break;
	}
	r->t1 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	r->armed = i;
	for (i = 0; i < r->armed; i++)
		r->cancelled += exec_timer_cancel(&t[i]) == 1;
	r->t2 = exec_clock_now(EXEC_CLOCK_MONOTONIC);
	return err;
}

static int kb_churn_workqueue(struct kb_churn_run *c)
{
	struct bench_tchurn *r = &c->run;
	struct delayed_work *dw = c->items;
	unsigned long i;
	int err = 0;

	r->t0 = ktime_get_ns();
	for (i = 0; i < r->n; i++) {
		if (unlikely(!queue_delayed_work(c->e.q.wq, &dw[i],
						 r->offset[i]))) {
			err = -EALREADY;
			break;
		}
	}
	r->t1 = ktime_get_ns();
	r->armed = i;
	for (i = 0; i < r->armed; i++)
		r->cancelled += cancel_delayed_work(&dw[i]);
	r->t2 = ktime_get_ns();
	return err;
}

static int kb_churn_hrtimer(struct kb_churn_run *c)
{
	struct bench_tchurn *r = &c->run;
	struct hrtimer *hr = c->items;
	unsigned long i;

	r->t0 = ktime_get_ns();
	for (i = 0; i < r->n; i++)
		hrtimer_start(&hr[i], ns_to_ktime(r->t0 + r->offset[i]),
			      HRTIMER_MODE_ABS);
	r->t1 = ktime_get_ns();
	r->armed = r->n;
	for (i = 0; i < r->n; i++)
		r->cancelled += hrtimer_try_to_cancel(&hr[i]) == 1;
	r->t2 = ktime_get_ns();
	return 0;
}

/* As kb_late_quiesce(), for the timers of timer_churn. */
static void kb_churn_quiesce(struct kb_churn_run *c)
{
	struct delayed_work *dw = c->items;
	struct exec_timer *et = c->items;
	struct hrtimer *hr = c->items;
	unsigned long i;

	for (i = 0; i < c->run.n; i++) {
		switch (c->e.impl) {
		case KB_LIBEXEC:
		case KB_LIBEXEC_PERCPU:
			exec_timer_cancel_sync(&et[i]);
			break;
		case KB_HRTIMER:
			hrtimer_cancel(&hr[i]);
			break;
		default:
			cancel_delayed_work_sync(&dw[i]);
			break;
		}
	}
}

/* Each timer initialised for its impl, before the clock starts. */
static void kb_churn_init_items(struct kb_churn_run *c)
{
	struct delayed_work *dw = c->items;
	struct exec_timer *et = c->items;
	struct hrtimer *hr = c->items;
	unsigned long i;

	for (i = 0; i < c->run.n; i++) {
		switch (c->e.impl) {
		case KB_LIBEXEC:
		case KB_LIBEXEC_PERCPU:
			exec_timer_init(&et[i], kb_churn_efn, NULL);
			break;
		case KB_HRTIMER:
			kb_hrtimer_setup(&hr[i], kb_churn_hfn);
			break;
		default:
			INIT_DELAYED_WORK(&dw[i], kb_churn_wfn);
			break;
		}
	}
}

static int kb_churn_measure(struct kb_churn_run *c)
{
	switch (c->e.impl) {
	case KB_LIBEXEC:
	case KB_LIBEXEC_PERCPU:
		return kb_churn_libexec(c);
	case KB_HRTIMER:
		return kb_churn_hrtimer(c);
	default:
		return kb_churn_workqueue(c);
	}
}

static void kb_timer_churn(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "timer_churn";
	struct kb_churn_run *c = &kb_tc;
	unsigned long n = churn_timers, i;
	struct bench_line line;
	u64 *offset;
	int err;

	memset(c, 0, sizeof(*c));
	c->e.impl = impl;
	offset = kvmalloc_array(n, sizeof(*offset), GFP_KERNEL);
	c->items = kvcalloc(n, kb_churn_size(impl), GFP_KERNEL);
	if (!offset || !c->items) {
		kb_fail(bench, impl, "out of memory");
		goto out_free;
	}
	bench_tchurn_init(&c->run, offset, n);
	/* Delayed work takes jiffies: converted before the clock starts. */
	if (impl == KB_WQ_UNBOUND || impl == KB_WQ_PERCPU)
		for (i = 0; i < n; i++)
			offset[i] = kb_delay_jiffies(offset[i], 0);

	if (impl != KB_HRTIMER) {
		err = kb_exec_create(&c->e, impl, threads);
		if (err) {
			kb_fail(bench, impl, "creating the executor: %d", err);
			goto out_free;
		}
	}
	kb_churn_init_items(c);

	err = kb_churn_measure(c);
	kb_churn_quiesce(c);
	if (impl != KB_HRTIMER && kb_exec_destroy(&c->e) && !err)
		err = -EDEADLK;
	if (err) {
		kb_fail(bench, impl, "%lu of %lu timers armed: error %d",
			c->run.armed, n, err);
		goto out_free;
	}
	if (bench_tchurn_verify(&c->run))
		goto out_free;
	kb_line_begin(&line, bench, &c->e, run);
	bench_tchurn_line(&c->run, &line);
	bench_line_uint(&line, "bytes_per_timer", kb_churn_size(impl));
	kb_line_end(&line);
out_free:
	kvfree(c->items);
	kvfree(offset);
}

/* --- serial_throughput -------------------------------------------------------- */

/*
 * Its body is bench/common/serial_throughput.c, exec-bench's too; here are
 * the strands of either kind, the items, their submission and the clock.
 */

/**
 * struct kb_strand - one strand and its order check
 * @serial: the libexec serial executor, or NULL
 * @q: where its items go: @serial, or an ordered workqueue
 * @check: its order check
 */
struct kb_strand {
	struct exec_serial *serial;
	struct kb_queue q;
	struct bench_ser_strand check;
} ____cacheline_aligned_in_smp;

static struct {
	struct bench_ser run;
	struct kb_strand *strands;
	struct kb_item *items;
	struct completion done;
} kb_ser;

static void kb_serial_body(struct kb_item *it)
{
	if (bench_ser_ran(&kb_ser.run, it - kb_ser.items)) {
		kb_ser.run.t1 = ktime_get_ns();
		complete(&kb_ser.done);
	}
}

KB_ITEM_FNS(kb_serial_body)

static void kb_serial_throughput(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "serial_throughput";
	unsigned long n = serial_tasks, i;
	unsigned int nr = strands, created = 0, s;
	struct kb_exec e = { .impl = impl, .threads = threads };
	struct bench_line line;
	struct kb_strand *st;
	bool ok;
	long left;
	int err;

	kb_ser.strands = kcalloc(nr, sizeof(*kb_ser.strands), GFP_KERNEL);
	kb_ser.items = kvcalloc(n, sizeof(*kb_ser.items), GFP_KERNEL);
	if (!kb_ser.strands || !kb_ser.items) {
		kb_fail(bench, impl, "out of memory");
		goto out_free;
	}
	if (kb_is_libexec(impl)) {
		err = kb_exec_create(&e, impl, threads);
		if (err) {
			kb_fail(bench, impl, "creating the pool: %d", err);
			goto out_free;
		}
	}
	bench_ser_init(&kb_ser.run, &kb_ser.strands[0].check,
		       sizeof(*kb_ser.strands), nr, n);
	init_completion(&kb_ser.done);
	for (s = 0; s < nr; s++) {
		st = &kb_ser.strands[s];
		if (kb_is_libexec(impl)) {
			err = exec_serial_create(&st->serial, e.q.ex);
			if (!err)
				st->q.ex = exec_serial_executor(st->serial);
		} else {
			st->q.wq = alloc_ordered_workqueue("exec-kb-ord%u", 0,
							   s);
			err = st->q.wq ? 0 : -ENOMEM;
		}
		if (err) {
			kb_fail(bench, impl, "creating strand %u: %d", s, err);
			goto out_destroy;
		}
		created++;
		err = kb_warm(&st->q, 1);
		if (err) {
			kb_fail(bench, impl, "warming strand %u: %d", s, err);
			goto out_destroy;
		}
	}
	for (i = 0; i < n; i++)
		kb_item_init(&kb_ser.strands[i % nr].q, &kb_ser.items[i],
			     kb_serial_body_efn, kb_serial_body_wfn);

	kb_ser.run.t0 = ktime_get_ns();
	for (i = 0, s = 0; i < n; i++) {
		err = kb_submit(&kb_ser.strands[s].q, &kb_ser.items[i]);
		if (err) {
			/* The strands are destroyed (drained) below. */
			kb_fail(bench, impl, "task %lu: %d", i, err);
			goto out_destroy;
		}
		if (++s == nr)
			s = 0;
	}
	if (!wait_for_completion_timeout(&kb_ser.done, KB_TIMEOUT)) {
		kb_fail(bench, impl, "timed out");
		goto out_destroy;
	}

	ok = !bench_ser_verify(&kb_ser.run);
	kb_line_begin(&line, bench, &e, run);
	if (!kb_is_libexec(impl))
		bench_line_uint(&line, "max_active", 1);
	bench_ser_line(&kb_ser.run, &line, ok);
	kb_line_end(&line);

out_destroy:
	for (s = 0; s < created; s++) {
		st = &kb_ser.strands[s];
		if (st->serial) {
			left = exec_serial_destroy(st->serial);
			if (left)
				kb_fail(bench, impl, "exec_serial_destroy: %ld",
					left);
		} else {
			destroy_workqueue(st->q.wq);
		}
	}
	if (e.pool && exec_thread_pool_destroy(e.pool))
		kb_fail(bench, impl, "exec_thread_pool_destroy failed");
out_free:
	kvfree(kb_ser.items);
	kfree(kb_ser.strands);
	kb_ser.items = NULL;
	kb_ser.strands = NULL;
}

/* --- strand_churn ------------------------------------------------------------- */

/**
 * struct kb_churn_strand - one strand of strand_churn and its item
 * @serial: the libexec strand, or NULL
 * @q: where its item goes: the strand, or its ordered workqueue
 * @item: its one item
 * @runs: times the item ran; must end at 1 (bench_churn_ran())
 *
 * strand_churn's body is bench/common/strand_churn.c, exec-bench's too;
 * here are the strands of either kind, their items, the clock and the slab
 * caches' pages.
 */
struct kb_churn_strand {
	struct exec_serial *serial;
	struct kb_queue q;
	struct kb_item item;
	unsigned int runs;
};

static struct {
	struct bench_churn run;
	struct completion done;
} kb_sc;

static void kb_sc_body(struct kb_item *it)
{
	struct kb_churn_strand *cs = container_of(it, struct kb_churn_strand,
						  item);

	if (bench_churn_ran(&kb_sc.run, &cs->runs)) {
		kb_sc.run.run_end = ktime_get_ns();
		complete(&kb_sc.done);
	}
}

KB_ITEM_FNS(kb_sc_body)

/*
 * The slab caches' bytes, once the vmstat worker has folded every CPU's
 * differences into the global counters (it runs every second).
 */
static unsigned long kb_slab_bytes(void)
{
	msleep(1500);
	return (global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B)) <<
	       PAGE_SHIFT;
}

static int kb_sc_create(struct kb_churn_strand *cs, const struct kb_exec *e,
			unsigned int i)
{
	int err;

	if (kb_is_libexec(e->impl)) {
		err = exec_serial_create(&cs->serial, e->q.ex);
		if (!err)
			cs->q.ex = exec_serial_executor(cs->serial);
		return err;
	}
	cs->q.wq = alloc_ordered_workqueue("exec-kb-churn%u", 0, i);
	return cs->q.wq ? 0 : -ENOMEM;
}

/* Destroys @cs's strand; false if that reported an error. */
static bool kb_sc_destroy(struct kb_churn_strand *cs)
{
	if (cs->serial)
		return exec_serial_destroy(cs->serial) == 0;
	destroy_workqueue(cs->q.wq);
	return true;
}

/* Gives each of the @nr strands its item; 0 once all have run. */
static int kb_sc_run_items(struct kb_churn_strand *cs, unsigned int nr)
{
	unsigned int i;
	int err;

	init_completion(&kb_sc.done);
	for (i = 0; i < nr; i++)
		kb_item_init(&cs[i].q, &cs[i].item, kb_sc_body_efn,
			     kb_sc_body_wfn);
	kb_sc.run.run_start = ktime_get_ns();
	for (i = 0; i < nr; i++) {
		err = kb_submit(&cs[i].q, &cs[i].item);
		if (err)
			return err;
	}
	if (!wait_for_completion_timeout(&kb_sc.done, KB_TIMEOUT))
		return -ETIMEDOUT;
	return 0;
}

static void kb_strand_churn(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "strand_churn";
	struct kb_exec e = { .impl = impl, .threads = threads };
	unsigned int nr = churn_strands, created = 0, i;
	unsigned long before, alive;
	struct kb_churn_strand *cs;
	u64 t0;
	struct bench_line line;
	bool ok = true;
	int err;

	cs = kvcalloc(nr, sizeof(*cs), GFP_KERNEL);
	if (!cs) {
		kb_fail(bench, impl, "out of memory");
		return;
	}
	if (kb_is_libexec(impl)) {
		err = kb_exec_create(&e, impl, threads);
		if (err) {
			kb_fail(bench, impl, "creating the pool: %d", err);
			goto out_free;
		}
	}
	bench_churn_init(&kb_sc.run, &cs[0].runs, sizeof(*cs), nr);
	before = kb_slab_bytes();
	t0 = ktime_get_ns();
	for (; created < nr; created++) {
		err = kb_sc_create(&cs[created], &e, created);
		if (err) {
			kb_fail(bench, impl, "creating strand %u: %d", created,
				err);
			goto out_destroy;
		}
	}
	kb_sc.run.create_ns = ktime_get_ns() - t0;
	alive = kb_slab_bytes();
	kb_sc.run.grown_bytes = alive > before ? alive - before : 0;
	err = kb_sc_run_items(cs, nr);
	if (err) {
		kb_fail(bench, impl, "running the items: %d", err);
		goto out_destroy;
	}
	t0 = ktime_get_ns();
	for (i = 0; i < created; i++)
		ok = kb_sc_destroy(&cs[i]) && ok;
	kb_sc.run.destroy_ns = ktime_get_ns() - t0;
	created = 0;
	if (!ok) {
		kb_fail(bench, impl, "a destroy failed");
		goto out_destroy;
	}
	if (bench_churn_verify(&kb_sc.run))
		goto out_destroy;
	kb_line_begin(&line, bench, &e, run);
	bench_churn_line(&kb_sc.run, &line);
	kb_line_end(&line);

out_destroy:
	for (i = 0; i < created; i++)
		kb_sc_destroy(&cs[i]);
	if (e.pool && exec_thread_pool_destroy(e.pool))
		kb_fail(bench, impl, "exec_thread_pool_destroy failed");
out_free:
	kvfree(cs);
}

/* --- blocking_mix -------------------------------------------------------------- */

/*
 * Its body is bench/common/blocking_mix.c, exec-bench's too; here are the
 * executors, the items and their submission, the sleep and the spin, the
 * clock, and the sampler of the executor's threads.
 */

/* The prefix of the libexec pool's workers, "exec-kbench/N". */
#define KB_BLK_POOL_COMM	"exec-kbench/"

/**
 * struct kb_blk_item - one task
 * @item: the task
 * @s: its record
 */
struct kb_blk_item {
	struct kb_item item;
	struct bench_blk_item s;
};

static struct {
	struct bench_blk run;
	struct completion done;
} kb_blk;

static void kb_blk_block(struct bench_blk *bb)
{
	kb_sleep_until(ktime_get_ns() + BENCH_BLK_SLEEP_NS);
}

static void kb_blk_spin(struct bench_blk *bb)
{
	u64 t0 = local_clock();

	while (local_clock() - t0 < BENCH_BLK_SPIN_NS)
		cpu_relax();
}

static const struct bench_blk_ops kb_blk_ops = {
	.block = kb_blk_block,
	.spin = kb_blk_spin,
	.now = ktime_get_ns,
};

static void kb_blk_body(struct kb_item *it)
{
	struct kb_blk_item *b = container_of(it, struct kb_blk_item, item);

	if (bench_blk_run(&kb_blk.run, &b->s))
		complete(&kb_blk.done);
}

KB_ITEM_FNS(kb_blk_body)

/*
 * Whether @t is a thread of @impl's executor.  libexec's: the pool's
 * workers, by name (no other pool is alive while blocking_mix runs).
 * system_wq's: the workers of the per-CPU normal-priority pools it queues
 * on, "kworker/CPU:ID" (not "kworker/CPU:IDH", a high-priority pool's, nor
 * "kworker/uN:ID", an unbound pool's), idle ones included.  Those pools
 * are shared with the rest of the kernel, so they count workers that never
 * ran one of our items; in the benchmark's guest little else runs.
 */
static bool kb_blk_counts(const struct task_struct *t, enum kb_impl impl)
{
	size_t len;

	if (impl != KB_WQ_SYSTEM)
		return !strncmp(t->comm, KB_BLK_POOL_COMM,
				sizeof(KB_BLK_POOL_COMM) - 1);
	if (!(t->flags & PF_WQ_WORKER) || strncmp(t->comm, "kworker/", 8) ||
	    !isdigit(t->comm[8]))
		return false;
	len = strnlen(t->comm, sizeof(t->comm));
	return t->comm[len - 1] != 'H';
}

static unsigned int kb_blk_count(enum kb_impl impl)
{
	struct task_struct *t;
	unsigned int n = 0;

	/* Kernel threads are each a process of one thread. */
	rcu_read_lock();
	for_each_process(t)
		n += kb_blk_counts(t, impl);
	rcu_read_unlock();
	return n;
}

/**
 * struct kb_blk_sampler - counts the executor's threads every millisecond
 * @impl: the executor's kind
 * @max: the highest count so far
 */
struct kb_blk_sampler {
	enum kb_impl impl;
	unsigned int max;
};

static int kb_blk_sampler_main(void *arg)
{
	struct kb_blk_sampler *s = arg;
	u64 deadline = ktime_get_ns();

	while (!kthread_should_stop()) {
		WRITE_ONCE(s->max, max(s->max, kb_blk_count(s->impl)));
		/* A fixed schedule: a late sample does not shift the rest. */
		deadline += BENCH_BLK_SAMPLE_NS;
		kb_sleep_until(deadline);
	}
	return 0;
}

static void kb_blocking_mix(enum kb_impl impl, unsigned int run)
{
	static const char bench[] = "blocking_mix";
	unsigned long n = cpu_tasks, b, total, i, submitted = 0;
	struct kb_blk_sampler sampler = { .impl = impl };
	struct bench_blk *bb = &kb_blk.run;
	struct task_struct *task;
	struct kb_blk_item *items;
	unsigned int before;
	struct bench_line line;
	struct kb_exec e;
	int err = 0;

	b = blocking_tasks ? blocking_tasks : 4UL * threads;
	total = n + b;
	items = kvcalloc(total, sizeof(*items), GFP_KERNEL);
	if (!items) {
		kb_fail(bench, impl, "out of memory");
		return;
	}
	err = kb_exec_create(&e, impl, threads);
	if (err) {
		kb_fail(bench, impl, "creating the executor: %d", err);
		goto out_free;
	}
	for (i = 0; i < total; i++)
		kb_item_init(&e.q, &items[i].item, kb_blk_body_efn,
			     kb_blk_body_wfn);
	bench_blk_init(bb, &kb_blk_ops, &items[0].s, sizeof(*items), b, n);
	init_completion(&kb_blk.done);

	before = kb_blk_count(impl);
	sampler.max = before;
	task = kthread_run(kb_blk_sampler_main, &sampler, "exec-kb-sampler");
	if (IS_ERR(task)) {
		kb_fail(bench, impl, "starting the sampler: %ld",
			PTR_ERR(task));
		kb_exec_destroy(&e);
		goto out_free;
	}

	bb->t0 = ktime_get_ns();
	for (i = 0; i < total && !err; i++) {
		err = kb_submit(&e.q, &items[i].item);
		submitted += !err;
	}
	if (!err && !wait_for_completion_timeout(&kb_blk.done, KB_TIMEOUT))
		err = -ETIMEDOUT;
	kthread_stop(task);
	/* system_wq is not destroyed: wait for each item's function. */
	if (impl == KB_WQ_SYSTEM)
		for (i = 0; i < submitted; i++)
			flush_work(&items[i].item.ww);
	if (kb_exec_destroy(&e) && !err)
		err = -EDEADLK;
	if (err) {
		kb_fail(bench, impl, "%lu of %lu tasks submitted: error %d",
			submitted, total, err);
		goto out_free;
	}
	if (bench_blk_verify(bb))
		goto out_free;

	bb->cpus = num_online_cpus();
	bb->threads_max = READ_ONCE(sampler.max);
	bb->threads_before = before;
	kb_line_begin(&line, bench, &e, run);
	bench_blk_line(bb, &line);
	kb_line_end(&line);
out_free:
	kvfree(items);
}

/* --- the module ------------------------------------------------------------------ */

/**
 * struct kb_workload - one workload and the impls it runs on
 * @name: its name in the output
 * @run: runs it once for one impl
 * @impls: the impls, libexec first
 * @nr_impls: how many
 */
struct kb_workload {
	const char *name;
	void (*run)(enum kb_impl impl, unsigned int run);
	enum kb_impl impls[7];
	unsigned int nr_impls;
};

static const struct kb_workload kb_workloads[] = {
	{ "post_throughput", kb_post_throughput,
	  { KB_LIBEXEC, KB_LIBEXEC_PERCPU, KB_WQ_UNBOUND, KB_WQ_PERCPU }, 4 },
	{ "chain_latency", kb_chain_latency,
	  { KB_LIBEXEC, KB_LIBEXEC_PERCPU, KB_WQ_UNBOUND, KB_WQ_PERCPU }, 4 },
	{ "wakeup_latency", kb_wakeup_latency,
	  { KB_LIBEXEC, KB_LIBEXEC_PERCPU, KB_WQ_UNBOUND, KB_WQ_PERCPU }, 4 },
	{ "timer_lateness", kb_timer_lateness,
	  { KB_LIBEXEC, KB_LIBEXEC_PERCPU, KB_WQ_UNBOUND, KB_WQ_PERCPU,
	    KB_HRTIMER_WQ, KB_HRTIMER_WQ_UNBOUND, KB_HRTIMER }, 7 },
	{ "timer_churn", kb_timer_churn,
	  { KB_LIBEXEC, KB_WQ_UNBOUND, KB_WQ_PERCPU, KB_HRTIMER }, 4 },
	{ "serial_throughput", kb_serial_throughput,
	  { KB_LIBEXEC, KB_WQ_ORDERED }, 2 },
	{ "strand_churn", kb_strand_churn, { KB_LIBEXEC, KB_WQ_ORDERED }, 2 },
	{ "blocking_mix", kb_blocking_mix,
	  { KB_LIBEXEC, KB_LIBEXEC_MANAGED, KB_WQ_SYSTEM }, 3 },
};

/* Whether @name is in the comma-separated list @only (NULL or "": all). */
static bool kb_selected(const char *name)
{
	const char *p = only;
	size_t len = strlen(name);

	if (!p || !*p)
		return true;
	while (p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static int __init exec_kbench_init(void)
{
	unsigned int r, w, i, total = 0;

	if (!threads)
		threads = num_online_cpus();
	/* timer_churn's shuffle draws indexes below 2^32. */
	if (!producers || !tasks || !hops || !samples || !timer_samples ||
	    !churn_timers || churn_timers > U32_MAX || !strands ||
	    !serial_tasks || !churn_strands || !cpu_tasks ||
	    threads > EXEC_THREAD_POOL_MAX_THREADS ||
	    threads > WQ_MAX_ACTIVE) {
		pr_err("invalid parameters\n");
		return -EINVAL;
	}
	pr_info("start: online_cpus=%u threads=%u producers=%u tasks=%lu hops=%lu samples=%u timer_samples=%u churn_timers=%lu strands=%u serial_tasks=%lu churn_strands=%u blocking_tasks=%u cpu_tasks=%lu runs=%u load=%u%s\n",
		num_online_cpus(), threads, producers, tasks, hops, samples,
		timer_samples, churn_timers, strands, serial_tasks,
		churn_strands,
		blocking_tasks ? blocking_tasks : 4 * threads, cpu_tasks, runs,
		load, KB_DEBUG_KERNEL ? " (debug kernel: timings distorted)" : "");

	kb_trace_setup();
	for (r = 0; r < runs; r++) {
		for (w = 0; w < ARRAY_SIZE(kb_workloads); w++) {
			const struct kb_workload *wl = &kb_workloads[w];

			if (!kb_selected(wl->name))
				continue;
			for (i = 0; i < wl->nr_impls; i++) {
				kb_run_impl = wl->impls[(r + i) % wl->nr_impls];
				wl->run(kb_run_impl, r);
				total++;
				cond_resched();
			}
		}
	}
	if (trace_samples) {
		tracing_off();
		ftrace_dump(DUMP_ALL);
	}
	pr_info("done: %u runs, %u failed\n", total, kb_failed);
	return 0;
}
module_init(exec_kbench_init);

static void __exit exec_kbench_exit(void)
{
}
module_exit(exec_kbench_exit);

MODULE_DESCRIPTION("libexec kernel benchmark: executors against workqueues and hrtimers");
MODULE_IMPORT_NS(EXEC);
MODULE_LICENSE("Dual MIT/GPL");

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Trace hooks of the core: one inline function per event, called from the
 * executors at the points where the kernel's workqueue has its own
 * tracepoints.  Documentation/tracing.rst describes every event.
 *
 *   exec_work_queue     an item is submitted (its pending bit is set,
 *                       exec_submit_flags(), exec_dispatch(),
 *                       exec_priority_submit())
 *   exec_work_activate  an executor with a queue of its own over another
 *                       one (serial, priority, managed queue) takes an
 *                       item out of it to run it
 *   exec_work_start     an item's function is about to be called
 *   exec_work_finish    it has returned (the item may be freed by then)
 *   exec_timer_arm      a timed item is filed for a deadline
 *   exec_timer_fire     a timed item came due and goes to its executor
 *   exec_timer_cancel   a cancel took an armed item back
 *   exec_worker_park    a pool worker goes to sleep
 *   exec_worker_wake    it is awake again
 *
 * The platform's exec_trace.h maps them, through exec_trace_enabled(event)
 * and exec_trace_emit(event, args...), onto tracepoints
 * (include/trace/events/exec.h) in the kernel, and onto USDT probes of
 * <sys/sdt.h> in userspace, where, built with -DEXEC_NO_SDT or without that
 * header, they compile to nothing.  The arguments, the same in both worlds:
 * the executor, its kind ("thread_pool", ...), the item and its function
 * (a closure's own function), then what is particular to the event.
 *
 * A hook costs one test of a static key (kernel) or of a probe's
 * semaphore (userspace) while nothing is attached.  When something is, it
 * calls its other half, out of line in core/trace.c, which computes the
 * arguments and fires: the hot paths keep their size, and their callers
 * stay inlined.
 */
#ifndef EXEC_CORE_TRACE_H
#define EXEC_CORE_TRACE_H

#include <exec/exec.h>

#include "exec_trace.h"

/* The out-of-line halves, for enabled events only (core/trace.c). */
void exec_trace_work_queue_on(const struct exec_executor *ex,
			      const struct exec_work *work);
void exec_trace_work_activate_on(const struct exec_executor *ex,
				 const struct exec_work *work);
const void *exec_trace_work_start_on(const struct exec_executor *ex,
				     const struct exec_work *work);
void exec_trace_work_finish_on(const struct exec_executor *ex,
			       const struct exec_work *work, const void *fn);
void exec_trace_timer_arm_on(const struct exec_executor *ex,
			     const struct exec_work *work, unsigned int clock,
			     u64 deadline);
void exec_trace_timer_fire_on(const struct exec_executor *ex,
			      const struct exec_work *work);
void exec_trace_timer_cancel_on(const struct exec_executor *ex,
				const struct exec_work *work);
void exec_trace_worker_park_on(const struct exec_executor *ex,
			       unsigned int worker);
void exec_trace_worker_wake_on(const struct exec_executor *ex,
			       unsigned int worker);

static __always_inline void
exec_trace_work_queue(const struct exec_executor *ex,
		      const struct exec_work *work)
{
	if (exec_trace_enabled(exec_work_queue))
		exec_trace_work_queue_on(ex, work);
}

static __always_inline void
exec_trace_work_activate(const struct exec_executor *ex,
			 const struct exec_work *work)
{
	if (exec_trace_enabled(exec_work_activate))
		exec_trace_work_activate_on(ex, work);
}

/*
 * Before an item runs.  Returns its function when exec_work_finish is
 * enabled, for exec_trace_work_finish(): the item may be gone by then.
 */
static __always_inline const void *
exec_trace_work_start(const struct exec_executor *ex,
		      const struct exec_work *work)
{
	if (exec_trace_enabled(exec_work_start) ||
	    exec_trace_enabled(exec_work_finish))
		return exec_trace_work_start_on(ex, work);
	return NULL;
}

/*
 * After an item ran: @work is only a value now; @fn is what
 * exec_trace_work_start() returned (NULL if the event was enabled while
 * the item ran).
 */
static __always_inline void
exec_trace_work_finish(const struct exec_executor *ex,
		       const struct exec_work *work, const void *fn)
{
	if (exec_trace_enabled(exec_work_finish))
		exec_trace_work_finish_on(ex, work, fn);
}

/* @clock: EXEC_CLOCK_*; @deadline: on that clock, in ns. */
static __always_inline void
exec_trace_timer_arm(const struct exec_executor *ex,
		     const struct exec_work *work, unsigned int clock,
		     u64 deadline)
{
	if (exec_trace_enabled(exec_timer_arm))
		exec_trace_timer_arm_on(ex, work, clock, deadline);
}

static __always_inline void
exec_trace_timer_fire(const struct exec_executor *ex,
		      const struct exec_work *work)
{
	if (exec_trace_enabled(exec_timer_fire))
		exec_trace_timer_fire_on(ex, work);
}

static __always_inline void
exec_trace_timer_cancel(const struct exec_executor *ex,
			const struct exec_work *work)
{
	if (exec_trace_enabled(exec_timer_cancel))
		exec_trace_timer_cancel_on(ex, work);
}

/* @worker: the worker's index in its pool. */
static __always_inline void
exec_trace_worker_park(const struct exec_executor *ex, unsigned int worker)
{
	if (exec_trace_enabled(exec_worker_park))
		exec_trace_worker_park_on(ex, worker);
}

static __always_inline void
exec_trace_worker_wake(const struct exec_executor *ex, unsigned int worker)
{
	if (exec_trace_enabled(exec_worker_wake))
		exec_trace_worker_wake_on(ex, worker);
}

#endif /* EXEC_CORE_TRACE_H */

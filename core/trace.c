// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The out-of-line halves of the trace hooks of core/trace.h: called only
 * while their event is enabled, they compute the arguments and fire the
 * platform's event (exec_trace_emit(): a tracepoint, or a USDT probe).
 */
#include "internal.h"

/* The kind of @ex for an event; an executor of the user's may have none. */
static inline const char *exec_trace_kind(const struct exec_executor *ex)
{
	const char *kind = ex->ops->kind;

	return kind ? kind : "custom";
}

void exec_trace_work_queue_on(const struct exec_executor *ex,
			      const struct exec_work *work)
{
	exec_trace_emit(exec_work_queue, ex, exec_trace_kind(ex), work,
			exec_work_symbol(work));
}

void exec_trace_work_activate_on(const struct exec_executor *ex,
				 const struct exec_work *work)
{
	exec_trace_emit(exec_work_activate, ex, exec_trace_kind(ex), work,
			exec_work_symbol(work));
}

/* Fires exec_work_start if it is enabled; the function, for the finish. */
const void *exec_trace_work_start_on(const struct exec_executor *ex,
				     const struct exec_work *work)
{
	const void *fn = exec_work_symbol(work);

	if (exec_trace_enabled(exec_work_start))
		exec_trace_emit(exec_work_start, ex, exec_trace_kind(ex), work,
				fn);
	return fn;
}

void exec_trace_work_finish_on(const struct exec_executor *ex,
			       const struct exec_work *work, const void *fn)
{
	exec_trace_emit(exec_work_finish, ex, exec_trace_kind(ex), work, fn);
}

void exec_trace_timer_arm_on(const struct exec_executor *ex,
			     const struct exec_work *work, unsigned int clock,
			     u64 deadline)
{
	exec_trace_emit(exec_timer_arm, ex, exec_trace_kind(ex), work,
			exec_work_symbol(work), clock, deadline);
}

void exec_trace_timer_fire_on(const struct exec_executor *ex,
			      const struct exec_work *work)
{
	exec_trace_emit(exec_timer_fire, ex, exec_trace_kind(ex), work,
			exec_work_symbol(work));
}

void exec_trace_timer_cancel_on(const struct exec_executor *ex,
				const struct exec_work *work)
{
	exec_trace_emit(exec_timer_cancel, ex, exec_trace_kind(ex), work,
			exec_work_symbol(work));
}

void exec_trace_worker_park_on(const struct exec_executor *ex,
			       unsigned int worker)
{
	exec_trace_emit(exec_worker_park, ex, exec_trace_kind(ex), worker);
}

void exec_trace_worker_wake_on(const struct exec_executor *ex,
			       unsigned int worker)
{
	exec_trace_emit(exec_worker_wake, ex, exec_trace_kind(ex), worker);
}

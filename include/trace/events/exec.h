/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The trace events of exec.ko, in the tracefs directory events/exec/.
 * core/trace.h calls them (through kernel/include/exec_trace.h), and
 * kernel/trace.c creates them; Documentation/tracing.rst describes them.
 *
 * Every event names its executor by kind and address, and an item's event
 * its function: %ps of a closure's own function, else of the item's.
 * Addresses are printed as %p prints them (hashed unless the kernel runs
 * with no_hash_pointers), the same value for the same address.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM exec

#if !defined(_TRACE_EXEC_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_EXEC_H

#include <linux/string.h>
#include <linux/tracepoint.h>

/* Room for the longest kind of the library ("thread_per_task"). */
#define EXEC_TRACE_KIND_LEN	16

DECLARE_EVENT_CLASS(exec_work_class,

	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),

	TP_ARGS(ex, kind, work, func),

	TP_STRUCT__entry(
		__field(const void *, ex)
		__array(char, kind, EXEC_TRACE_KIND_LEN)
		__field(const void *, work)
		__field(const void *, func)
	),

	TP_fast_assign(
		__entry->ex = ex;
		strscpy(__entry->kind, kind, EXEC_TRACE_KIND_LEN);
		__entry->work = work;
		__entry->func = func;
	),

	TP_printk("ex=%s/%p work=%p func=%ps", __entry->kind, __entry->ex,
		  __entry->work, __entry->func)
);

/* exec_submit() and its kin: the item is pending, its executor gets it. */
DEFINE_EVENT(exec_work_class, exec_work_queue,
	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),
	TP_ARGS(ex, kind, work, func)
);

/* A serial, priority or managed queue executor takes it out to run it. */
DEFINE_EVENT(exec_work_class, exec_work_activate,
	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),
	TP_ARGS(ex, kind, work, func)
);

/* Its function is about to be called. */
DEFINE_EVENT(exec_work_class, exec_work_start,
	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),
	TP_ARGS(ex, kind, work, func)
);

/* Its function has returned; the item may have been freed. */
DEFINE_EVENT(exec_work_class, exec_work_finish,
	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),
	TP_ARGS(ex, kind, work, func)
);

/* A timed item is filed for @deadline (ns) on @clock (0 mono, 1 real). */
TRACE_EVENT(exec_timer_arm,

	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func, unsigned int clock, u64 deadline),

	TP_ARGS(ex, kind, work, func, clock, deadline),

	TP_STRUCT__entry(
		__field(const void *, ex)
		__array(char, kind, EXEC_TRACE_KIND_LEN)
		__field(const void *, work)
		__field(const void *, func)
		__field(unsigned int, clock)
		__field(u64, deadline)
	),

	TP_fast_assign(
		__entry->ex = ex;
		strscpy(__entry->kind, kind, EXEC_TRACE_KIND_LEN);
		__entry->work = work;
		__entry->func = func;
		__entry->clock = clock;
		__entry->deadline = deadline;
	),

	TP_printk("ex=%s/%p work=%p func=%ps clock=%s deadline=%llu",
		  __entry->kind, __entry->ex, __entry->work, __entry->func,
		  __entry->clock ? "realtime" : "monotonic",
		  (unsigned long long)__entry->deadline)
);

/* A timed item came due: it goes to its executor. */
DEFINE_EVENT(exec_work_class, exec_timer_fire,
	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),
	TP_ARGS(ex, kind, work, func)
);

/* A cancel took an armed timed item back before it came due. */
DEFINE_EVENT(exec_work_class, exec_timer_cancel,
	TP_PROTO(const void *ex, const char *kind, const void *work,
		 const void *func),
	TP_ARGS(ex, kind, work, func)
);

DECLARE_EVENT_CLASS(exec_worker_class,

	TP_PROTO(const void *ex, const char *kind, unsigned int worker),

	TP_ARGS(ex, kind, worker),

	TP_STRUCT__entry(
		__field(const void *, ex)
		__array(char, kind, EXEC_TRACE_KIND_LEN)
		__field(unsigned int, worker)
	),

	TP_fast_assign(
		__entry->ex = ex;
		strscpy(__entry->kind, kind, EXEC_TRACE_KIND_LEN);
		__entry->worker = worker;
	),

	TP_printk("ex=%s/%p worker=%u", __entry->kind, __entry->ex,
		  __entry->worker)
);

/* Worker @worker (its index) of a pool goes to sleep. */
DEFINE_EVENT(exec_worker_class, exec_worker_park,
	TP_PROTO(const void *ex, const char *kind, unsigned int worker),
	TP_ARGS(ex, kind, worker)
);

/* It is awake again: unparked, its deadline passed, or spuriously. */
DEFINE_EVENT(exec_worker_class, exec_worker_wake,
	TP_PROTO(const void *ex, const char *kind, unsigned int worker),
	TP_ARGS(ex, kind, worker)
);

#endif /* _TRACE_EXEC_H */

/* This part must be outside the protection. */
#include <trace/define_trace.h>

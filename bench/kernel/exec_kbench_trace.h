/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The trace events of exec_kbench.ko, events/exec_kbench/: kb_mark, the
 * benchmark's own marks in a traced wakeup_latency sample, and kb_late, the
 * run of a traced timer_lateness item (module parameter trace_samples=),
 * which scripts/kernel-trace-wakeup.py and scripts/kernel-trace-timer.py
 * read from the dumped ring buffer.  kbench_main.c creates them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM exec_kbench

#if !defined(_EXEC_KBENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EXEC_KBENCH_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

/* Room for the longest of the impls' names (kb_impl_names[]). */
#define KB_TRACE_IMPL_LEN	64

/*
 * @what ("submit", "return" or "start") happened in a sample of @impl:
 * just before its submission, just after, first thing in the item.
 */
TRACE_EVENT(kb_mark,

	TP_PROTO(const char *what, const char *impl),

	TP_ARGS(what, impl),

	TP_STRUCT__entry(
		__array(char, what, 8)
		__array(char, impl, KB_TRACE_IMPL_LEN)
	),

	TP_fast_assign(
		strscpy(__entry->what, what, sizeof(__entry->what));
		strscpy(__entry->impl, impl, sizeof(__entry->impl));
	),

	TP_printk("kb-trace %s {%s}", __entry->what, __entry->impl)
);

/*
 * A traced timer_lateness item of @impl ran: @item is what the events of its
 * expiry name (the exec_work of a libexec item, which exec:exec_timer_fire
 * prints; the hrtimer of an hrtimer then queue_work() item, which
 * timer:hrtimer_expire_entry prints), @deadline and @ran its deadline and
 * the start of its function, in nanoseconds of the run's clock
 * (CLOCK_MONOTONIC).
 */
TRACE_EVENT(kb_late,

	TP_PROTO(const char *impl, const void *item, u64 deadline, u64 ran),

	TP_ARGS(impl, item, deadline, ran),

	TP_STRUCT__entry(
		__array(char, impl, KB_TRACE_IMPL_LEN)
		__field(const void *, item)
		__field(u64, deadline)
		__field(u64, ran)
	),

	TP_fast_assign(
		strscpy(__entry->impl, impl, sizeof(__entry->impl));
		__entry->item = item;
		__entry->deadline = deadline;
		__entry->ran = ran;
	),

	TP_printk("kb-late {%s} item=%p deadline=%llu ran=%llu",
		  __entry->impl, __entry->item,
		  (unsigned long long)__entry->deadline,
		  (unsigned long long)__entry->ran)
);

#endif /* _EXEC_KBENCH_TRACE_H */

/* This part must be outside the protection. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE exec_kbench_trace
#include <trace/define_trace.h>

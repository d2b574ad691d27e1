/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The trace event of exec_kbench.ko, events/exec_kbench/kb_mark: the
 * benchmark's own marks in a traced wakeup_latency sample (module parameter
 * trace_samples=), which scripts/kernel-trace-wakeup.py reads from the
 * dumped ring buffer.  exec_kbench.c creates it.
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

#endif /* _EXEC_KBENCH_TRACE_H */

/* This part must be outside the protection. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE exec_kbench_trace
#include <trace/define_trace.h>

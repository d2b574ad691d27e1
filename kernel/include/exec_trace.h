/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel side of core/trace.h: each hook is a tracepoint of
 * include/trace/events/exec.h (created in kernel/trace.c), behind its
 * static key, so a disabled event costs a no-op.  Without
 * CONFIG_TRACEPOINTS both compile to nothing.
 */
#ifndef EXEC_KERNEL_TRACE_H
#define EXEC_KERNEL_TRACE_H

#include <trace/events/exec.h>

#define exec_trace_enabled(event)	trace_##event##_enabled()
#define exec_trace_emit(event, ...)	trace_##event(__VA_ARGS__)

#endif /* EXEC_KERNEL_TRACE_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Creates the trace events of include/trace/events/exec.h, which core/trace.h
 * fires (Documentation/tracing.rst).
 *
 * The tracepoints are not exported: tracefs, perf and BPF reach them without
 * that.  The test build exports them to exec_test.ko, in KUnit's namespace,
 * so that kernel/tests/trace_test.c can attach probes to them.
 */
#include "exec_platform.h"

#define CREATE_TRACE_POINTS
#include <trace/events/exec.h>

#ifdef CONFIG_TRACEPOINTS
#define EXEC_TRACE_TEST_EXPORT(event) \
	EXPORT_SYMBOL_FOR_TESTS(__tracepoint_##event)

EXEC_TRACE_TEST_EXPORT(exec_work_queue);
EXEC_TRACE_TEST_EXPORT(exec_work_activate);
EXEC_TRACE_TEST_EXPORT(exec_work_start);
EXEC_TRACE_TEST_EXPORT(exec_work_finish);
EXEC_TRACE_TEST_EXPORT(exec_timer_arm);
EXEC_TRACE_TEST_EXPORT(exec_timer_fire);
EXEC_TRACE_TEST_EXPORT(exec_timer_cancel);
EXEC_TRACE_TEST_EXPORT(exec_worker_park);
EXEC_TRACE_TEST_EXPORT(exec_worker_wake);
#endif

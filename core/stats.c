// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Per-executor statistics (include/exec/stats.h): reading them, the timing
 * switch, and the report that the kernel's debugfs files show.  The counting
 * itself is inline, in core/stats_count.h, at the executors' own sites.
 */
#include "stats_count.h"

/* Read-mostly: see exec_stats_set_timing(). */
bool exec_stats_timing_on;

int exec_executor_stats(struct exec_executor *ex, struct exec_stats *st)
{
	if (!st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	if (!ex || !ex->ops)
		return -EINVAL;
	if (!exec_pool_stats(ex, st) && !exec_serial_stats(ex, st) &&
	    !exec_loop_stats(ex, st) && !exec_tpt_stats(ex, st) &&
	    !exec_priority_stats(ex, st) && !exec_ls_stats(ex, st))
		return -EOPNOTSUPP;
	exec_timers_stats(ex, st);
	return 0;
}
EXPORT_SYMBOL_GPL(exec_executor_stats);

/**
 * exec_stats_test_file - an executor's statistics file
 * @ex: the executor
 *
 * For the tests of the kernel's debugfs files.
 *
 * Context: Any context.
 * Return: what exec_stats_file_add() gave it; NULL for a kind without
 * files, or where it has none.
 */
void *exec_stats_test_file(struct exec_executor *ex)
{
	void *file = exec_pool_stats_file(ex);

	if (!file)
		file = exec_prio_stats_file(ex);
	if (!file)
		file = exec_loop_stats_file(ex);
	if (!file)
		file = exec_ls_stats_file(ex);
	if (!file)
		file = exec_tpt_stats_file(ex);
	return file;
}
EXPORT_SYMBOL_FOR_TESTS(exec_stats_test_file);

void exec_stats_set_timing(bool on)
{
	WRITE_ONCE(exec_stats_timing_on, on);
}
EXPORT_SYMBOL_GPL(exec_stats_set_timing);

bool exec_stats_timing(void)
{
	return exec_stats_timing_enabled();
}
EXPORT_SYMBOL_GPL(exec_stats_timing);

#define EXEC_STATS_LINE_LEN	160

/**
 * exec_stats_show - write an executor's statistics as lines of text
 * @ex: the executor
 * @name: its name, for the first line
 * @emit: called with each line, without its newline
 * @ctx: passed to @emit
 *
 * The executor's counts, then (a thread pool) a line per worker slot in
 * use, as the workqueue's debug dump shows a line per pool.
 *
 * Context: Any context @emit allows; @ex must stay alive meanwhile.
 */
void exec_stats_show(struct exec_executor *ex, const char *name,
		     void (*emit)(void *ctx, const char *line), void *ctx)
{
	char line[EXEC_STATS_LINE_LEN];
	struct exec_stats st;
	int ret;

	ret = exec_executor_stats(ex, &st);
	snprintf(line, sizeof(line), "%s \"%s\" threads=%u timing=%s%s",
		 exec_executor_kind(ex), name, st.nr_threads,
		 exec_stats_timing_enabled() ? "on" : "off",
		 ret ? " (no statistics)" : "");
	emit(ctx, line);
	if (ret)
		return;
	snprintf(line, sizeof(line),
		 "  submitted=%llu started=%llu completed=%llu discarded=%llu refused=%llu wakeups=%llu",
		 (unsigned long long)st.submitted,
		 (unsigned long long)st.started,
		 (unsigned long long)st.completed,
		 (unsigned long long)st.discarded,
		 (unsigned long long)st.refused,
		 (unsigned long long)st.wakeups);
	emit(ctx, line);
	snprintf(line, sizeof(line),
		 "  timers: armed=%llu fired=%llu cancelled=%llu",
		 (unsigned long long)st.timers_armed,
		 (unsigned long long)st.timers_fired,
		 (unsigned long long)st.timers_cancelled);
	emit(ctx, line);
	snprintf(line, sizeof(line), "  max_wait_ns=%llu max_run_ns=%llu",
		 (unsigned long long)st.max_wait_ns,
		 (unsigned long long)st.max_run_ns);
	emit(ctx, line);
	exec_pool_show_workers(ex, emit, ctx);
}

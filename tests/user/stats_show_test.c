// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Userspace only: the text of an executor's statistics (core/stats.c,
 * exec_stats_show()), which the kernel shows in its debugfs files
 * (kernel/tests/stats_debugfs_test.c reads those there).  Here the lines
 * are caught as exec_stats_show() hands them over: the header with the
 * kind, the name and the threads; the counts of a known workload; a line
 * per worker of a pool (exec_pool_show_workers()), one of them running
 * the item held at a gate; a single line for an executor without
 * statistics.  The userspace backend makes no files:
 * exec_stats_test_file() is NULL for every kind.
 */
#include <kunit/test.h>
#include <exec/exec.h>

#include "internal.h"
#include "stats_count.h"
#include "exec_test.h"

#include <stdio.h>
#include <string.h>

#define SS_LINES	16
#define SS_LEN		256
#define SS_ITEMS	10
#define SS_THREADS	2

/* The lines exec_stats_show() handed over, and how many there were. */
struct ss_lines {
	unsigned int n;
	char line[SS_LINES][SS_LEN];
};

static void ss_emit(void *ctx, const char *line)
{
	struct ss_lines *l = ctx;

	if (l->n < SS_LINES)
		snprintf(l->line[l->n], SS_LEN, "%s", line);
	l->n++;
}

struct ss_fx {
	struct exec_test_gate gate;
	struct exec_work items[SS_ITEMS], held;
	struct ss_lines out;
};

static atomic_t ss_ran;

static void ss_item_fn(struct exec_work *work)
{
	atomic_inc(&ss_ran);
}

static void ss_held_fn(struct exec_work *work)
{
	struct ss_fx *fx = container_of(work, struct ss_fx, held);

	exec_test_gate_pass(&fx->gate);
}

/* Waits until @ex's statistics count @n completed items. */
static bool ss_wait_completed(struct exec_executor *ex, u64 n)
{
	u64 deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	unsigned int spins = 0;
	struct exec_stats st;

	for (;;) {
		if (exec_executor_stats(ex, &st))
			return false;
		if (st.completed >= n)
			return true;
		if (exec_test_expired(deadline))
			return false;
		exec_test_relax(&spins);
	}
}

/*
 * A pool of two workers, named "ss-pool", that ran SS_ITEMS items and runs
 * one more, held at a gate: the header, the counts (the held item started,
 * not completed), no timers, no times (timing off), and a line per worker
 * whose counts add up to the pool's, the held item's worker "running=".
 */
static void stats_show_pool_report(struct kunit *test)
{
	struct exec_thread_pool_attr attr = { .nr_threads = SS_THREADS };
	unsigned long started = 0, completed = 0, s, c;
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	unsigned int i, w, running = 0, live = 0;
	bool timing = exec_stats_timing();
	struct ss_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	char state[16], want[SS_LEN];

	KUNIT_ASSERT_NOT_NULL(test, fx);
	exec_stats_set_timing(false);
	exec_test_gate_init(&fx->gate);
	atomic_set(&ss_ran, 0);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	for (i = 0; i < SS_ITEMS; i++) {
		exec_work_init(&fx->items[i], ss_item_fn);
		KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->items[i]), 0);
	}
	KUNIT_EXPECT_TRUE(test, ss_wait_completed(ex, SS_ITEMS));
	exec_work_init(&fx->held, ss_held_fn);
	KUNIT_EXPECT_EQ(test, exec_submit(ex, &fx->held), 0);
	KUNIT_EXPECT_TRUE(test, exec_test_gate_wait_for(&fx->gate, 1));

	exec_stats_show(ex, "ss-pool", ss_emit, &fx->out);
	KUNIT_EXPECT_EQ(test, fx->out.n, 4U + SS_THREADS);
	KUNIT_EXPECT_STREQ(test, fx->out.line[0],
			   "thread_pool \"ss-pool\" threads=2 timing=off");
	snprintf(want, sizeof(want),
		 "  submitted=%u started=%u completed=%u discarded=0 refused=0 wakeups=",
		 SS_ITEMS + 1, SS_ITEMS + 1, SS_ITEMS);
	KUNIT_EXPECT_EQ_MSG(test, strncmp(fx->out.line[1], want, strlen(want)),
			    0, "%s", fx->out.line[1]);
	KUNIT_EXPECT_STREQ(test, fx->out.line[2],
			   "  timers: armed=0 fired=0 cancelled=0");
	KUNIT_EXPECT_STREQ(test, fx->out.line[3],
			   "  max_wait_ns=0 max_run_ns=0");
	for (i = 4; i < fx->out.n && i < SS_LINES; i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    sscanf(fx->out.line[i],
					   "  worker %u: %15s started=%lu completed=%lu",
					   &w, state, &s, &c), 4,
				    "%s", fx->out.line[i]);
		KUNIT_EXPECT_EQ(test, w, i - 4);
		live += !strcmp(state, "live");
		started += s;
		completed += c;
		running += strstr(fx->out.line[i], " running=") != NULL;
	}
	KUNIT_EXPECT_EQ(test, live, SS_THREADS);
	KUNIT_EXPECT_EQ(test, started, SS_ITEMS + 1UL);
	KUNIT_EXPECT_EQ(test, completed, (unsigned long)SS_ITEMS);
	KUNIT_EXPECT_EQ(test, running, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ss_ran), SS_ITEMS);

	exec_test_gate_open(&fx->gate);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
	exec_stats_set_timing(timing);
	kfree(fx);
}

/* The inline executor keeps no statistics: the header says so, alone. */
static void stats_show_executor_without_statistics(struct kunit *test)
{
	struct ss_lines *out = kzalloc(sizeof(*out), GFP_KERNEL);
	bool timing = exec_stats_timing();

	KUNIT_ASSERT_NOT_NULL(test, out);
	exec_stats_set_timing(true);
	exec_stats_show(exec_inline_executor(), "in", ss_emit, out);
	exec_stats_set_timing(timing);
	KUNIT_EXPECT_EQ(test, out->n, 1U);
	KUNIT_EXPECT_STREQ(test, out->line[0],
			   "inline \"in\" threads=0 timing=on (no statistics)");
	kfree(out);
}

/* Every kind that has a file in the kernel has none here. */
static void stats_no_files_in_userspace(struct kunit *test)
{
	struct exec_thread_per_task *tpt;
	struct exec_thread_pool *pool;
	struct exec_loop_scheduler *ls;
	struct exec_priority *prio;
	struct exec_serial *serial;
	struct exec_loop *loop;
	struct exec_executor *ex;

	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	ex = exec_thread_pool_executor(pool);
	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio, ex, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_serial_create(&serial, ex), 0);
	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);

	KUNIT_EXPECT_NULL(test, exec_stats_test_file(ex));
	KUNIT_EXPECT_NULL(test,
			  exec_stats_test_file(exec_priority_executor(prio)));
	KUNIT_EXPECT_NULL(test,
			  exec_stats_test_file(exec_serial_executor(serial)));
	KUNIT_EXPECT_NULL(test, exec_stats_test_file(exec_loop_executor(loop)));
	KUNIT_EXPECT_NULL(test,
			  exec_stats_test_file(exec_loop_scheduler_executor(ls)));
	KUNIT_EXPECT_NULL(test,
			  exec_stats_test_file(exec_thread_per_task_executor(tpt)));

	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	KUNIT_EXPECT_GE(test, exec_loop_scheduler_destroy(ls), 0L);
	KUNIT_EXPECT_GE(test, exec_loop_destroy(loop), 0L);
	KUNIT_EXPECT_GE(test, exec_serial_destroy(serial), 0L);
	KUNIT_EXPECT_GE(test, exec_priority_destroy(prio), 0L);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0);
}

static struct kunit_case exec_stats_show_cases[] = {
	KUNIT_CASE(stats_show_pool_report),
	KUNIT_CASE(stats_show_executor_without_statistics),
	KUNIT_CASE(stats_no_files_in_userspace),
	{}
};

static struct kunit_suite exec_stats_show_suite = {
	.name = "exec-stats-show",
	.test_cases = exec_stats_show_cases,
};

kunit_test_suites(&exec_stats_show_suite);

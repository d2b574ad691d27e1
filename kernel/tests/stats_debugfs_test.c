// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel-only KUnit suite: the statistics files in debugfs (kernel/stats.c)
 * of a thread pool, a managed queue, a priority executor, a loop executor,
 * a loop scheduler and a thread-per-task executor.  Each exists
 * while its executor does, under /sys/kernel/debug/exec/, is a regular
 * file of mode 0400 (read-only, root only), reads back the counts of a
 * known workload (and, for a pool, a line per worker), and is gone once
 * the executor is destroyed.  The file is read through a
 * kernel-internal mount of debugfs, so the test does not depend on where
 * (or whether) the guest mounted it.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/string.h>
#include <exec/exec.h>

#include "pool.h"
#include "exec_test.h"

#define SD_POOL_NAME	"stats-dbg"
#define SD_ITEMS	10
#define SD_BUF_LEN	4096

static void sd_count_fn(void *arg)
{
	exec_test_count(arg);
}

/* Reads the whole of @dentry's file into @buf; returns its length or -errno. */
static ssize_t sd_read(struct dentry *dentry, char *buf, size_t len)
{
	struct file_system_type *type = get_fs_type("debugfs");
	struct vfsmount *mnt;
	struct file *file;
	struct path path;
	loff_t pos = 0;
	ssize_t n, total = 0;

	if (!type)
		return -ENODEV;
	mnt = kern_mount(type);
	module_put(type->owner);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	path.mnt = mnt;
	path.dentry = dentry;
	file = dentry_open(&path, O_RDONLY, current_cred());
	if (IS_ERR(file)) {
		kern_unmount(mnt);
		return PTR_ERR(file);
	}
	while (total < (ssize_t)len - 1) {
		n = kernel_read(file, buf + total, len - 1 - total, &pos);
		if (n <= 0) {
			if (n < 0)
				total = n;
			break;
		}
		total += n;
	}
	if (total >= 0)
		buf[total] = '\0';
	fput(file);
	kern_unmount(mnt);
	return total;
}

/* A buffer for a file's contents; skips the case without debugfs. */
static char *sd_buf(struct kunit *test)
{
	char *buf;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		kunit_skip(test, "the kernel has no debugfs");
	buf = kunit_kzalloc(test, SD_BUF_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	return buf;
}

/*
 * Checks that @ex has a file named "@prefix-<n>", 0400, under exec/, whose
 * first line names @kind, and reads it into @buf; gives its name to @name.
 */
static struct dentry *sd_check_file(struct kunit *test,
				    struct exec_executor *ex,
				    const char *prefix, const char *kind,
				    char *name, size_t size, char *buf)
{
	struct dentry *dentry = exec_stats_test_file(ex), *again;
	char want[64];

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dentry));
	strscpy(name, dentry->d_name.name, size);
	KUNIT_EXPECT_EQ(test, strncmp(name, prefix, strlen(prefix)), 0);
	KUNIT_EXPECT_EQ(test, name[strlen(prefix)], '-');
	KUNIT_EXPECT_STREQ(test, (const char *)dentry->d_parent->d_name.name,
			   "exec");
	KUNIT_EXPECT_EQ(test, (unsigned int)d_inode(dentry)->i_mode,
			(unsigned int)(S_IFREG | 0400));
	again = debugfs_lookup(name, dentry->d_parent);
	KUNIT_EXPECT_PTR_EQ(test, again, dentry);
	dput(again);
	KUNIT_ASSERT_GT(test, sd_read(dentry, buf, SD_BUF_LEN), (ssize_t)0);
	kunit_info(test, "%s", buf);
	snprintf(want, sizeof(want), "%s \"%s\" threads=", kind, name);
	KUNIT_EXPECT_EQ_MSG(test, strncmp(buf, want, strlen(want)), 0, "%s",
			    buf);
	return dentry;
}

/* Checks that the file @name has gone from @dir. */
static void sd_check_gone(struct kunit *test, struct dentry *dir,
			  const char *name)
{
	struct dentry *again = debugfs_lookup(name, dir);

	KUNIT_EXPECT_NULL(test, again);
	dput(again);
}

/* SD_ITEMS closures through @ex, waited for until its statistics say so. */
static void sd_run_items(struct kunit *test, struct exec_executor *ex)
{
	unsigned int spins = 0;
	struct exec_stats st;
	atomic_t ran;
	u64 deadline;
	int i;

	atomic_set(&ran, 0);
	for (i = 0; i < SD_ITEMS; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, sd_count_fn, &ran),
				0);
	KUNIT_ASSERT_TRUE(test, exec_test_wait_atomic_ge(&ran, SD_ITEMS,
							 EXEC_TEST_TIMEOUT_MS));
	/* The workers count an item once it has returned. */
	deadline = exec_test_deadline(EXEC_TEST_TIMEOUT_MS);
	while (!exec_executor_stats(ex, &st) && st.completed < SD_ITEMS &&
	       !exec_test_expired(deadline))
		exec_test_relax(&spins);
	KUNIT_ASSERT_EQ(test, st.completed, (u64)SD_ITEMS);
}

static void stats_debugfs_file_shows_a_pools_counts(struct kunit *test)
{
	struct exec_thread_pool_attr attr = {
		.nr_threads = 2,
		.thread = { .name = SD_POOL_NAME },
	};
	struct exec_thread_pool *pool;
	struct exec_executor *ex;
	struct dentry *dentry, *dir;
	char name[64];
	char *buf;

	buf = sd_buf(test);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, &attr), 0);
	ex = exec_thread_pool_executor(pool);
	KUNIT_EXPECT_PTR_EQ(test, exec_stats_test_file(ex), pool->stats_file);
	sd_run_items(test, ex);

	/* /sys/kernel/debug/exec/stats-dbg-<n>: a regular file, 0400. */
	dentry = sd_check_file(test, ex, SD_POOL_NAME, "thread_pool", name,
			       sizeof(name), buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "threads=2"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " submitted=10 started=10 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " completed=10 discarded=0 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " refused=0 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "timers: armed=0 fired=0 cancelled=0"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "  worker 0: live started="));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "  worker 1: live started="));
	KUNIT_EXPECT_NULL(test, strstr(buf, "  worker 2:"));

	/* Gone with its pool; the directory stays. */
	dir = dget(dentry->d_parent);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
	sd_check_gone(test, dir, name);
	dput(dir);
}

#define SD_QUEUE_NAME	"stats-queue"

/* A managed queue has a file too, named after it; so has a priority one. */
static void stats_debugfs_file_shows_a_managed_queues_counts(struct kunit *test)
{
	struct exec_managed_queue_attr attr = {
		.name = SD_QUEUE_NAME, .thread_limit = 1,
	};
	struct exec_thread_pool *pool;
	struct exec_managed_queue *q;
	struct exec_priority *prio;
	struct dentry *dentry, *dir;
	char name[64];
	char *buf;

	buf = sd_buf(test);
	KUNIT_ASSERT_EQ(test, exec_thread_pool_create(&pool, NULL), 0);
	KUNIT_ASSERT_EQ(test, exec_managed_queue_create(&q,
					exec_thread_pool_executor(pool), &attr),
			0);
	sd_run_items(test, exec_managed_queue_executor(q));
	dentry = sd_check_file(test, exec_managed_queue_executor(q),
			       SD_QUEUE_NAME, "managed_queue", name,
			       sizeof(name), buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "threads=0"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " submitted=10 started=10 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " completed=10 discarded=0 "));
	dir = dget(dentry->d_parent);
	KUNIT_EXPECT_EQ(test, exec_managed_queue_destroy(q), 0L);
	sd_check_gone(test, dir, name);

	KUNIT_ASSERT_EQ(test, exec_priority_create(&prio,
					exec_thread_pool_executor(pool), NULL),
			0);
	sd_run_items(test, exec_priority_executor(prio));
	sd_check_file(test, exec_priority_executor(prio), "priority",
		      "priority", name, sizeof(name), buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " submitted=10 started=10 "));
	KUNIT_EXPECT_EQ(test, exec_priority_destroy(prio), 0L);
	sd_check_gone(test, dir, name);
	dput(dir);
	KUNIT_EXPECT_EQ(test, exec_thread_pool_destroy(pool), 0L);
}

static long sd_loop_drain(void *loop)
{
	return exec_loop_run_queued_closures(loop);
}

static long sd_ls_drain(void *ls)
{
	return exec_loop_scheduler_poll(ls);
}

/* SD_ITEMS closures queued on @ex, which @drain(@owner) then runs. */
static void sd_run_held_items(struct kunit *test, struct exec_executor *ex,
			      long (*drain)(void *owner), void *owner)
{
	atomic_t ran;
	int i;

	atomic_set(&ran, 0);
	for (i = 0; i < SD_ITEMS; i++)
		KUNIT_ASSERT_EQ(test, exec_submit_fn(ex, sd_count_fn, &ran),
				0);
	KUNIT_EXPECT_EQ(test, drain(owner), (long)SD_ITEMS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ran), SD_ITEMS);
}

/*
 * A loop executor, a loop scheduler and a thread-per-task executor have a
 * file each, which shows a known workload's counts and goes with them.
 */
static void stats_debugfs_files_of_loops_and_thread_per_task(
	struct kunit *test)
{
	struct exec_thread_per_task *tpt;
	struct exec_loop_scheduler *ls;
	struct dentry *dentry, *dir;
	struct exec_loop *loop;
	char name[64];
	char *buf;

	buf = sd_buf(test);

	KUNIT_ASSERT_EQ(test, exec_loop_create(&loop), 0);
	sd_run_held_items(test, exec_loop_executor(loop), sd_loop_drain, loop);
	dentry = sd_check_file(test, exec_loop_executor(loop), "loop", "loop",
			       name, sizeof(name), buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " submitted=10 started=10 "));
	dir = dget(dentry->d_parent);
	KUNIT_EXPECT_EQ(test, exec_loop_destroy(loop), 0L);
	sd_check_gone(test, dir, name);

	KUNIT_ASSERT_EQ(test, exec_loop_scheduler_create(&ls), 0);
	sd_run_held_items(test, exec_loop_scheduler_executor(ls), sd_ls_drain,
			  ls);
	sd_check_file(test, exec_loop_scheduler_executor(ls), "loop-scheduler",
		      "loop_scheduler", name, sizeof(name), buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " submitted=10 started=10 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " completed=10 "));
	KUNIT_EXPECT_EQ(test, exec_loop_scheduler_destroy(ls), 0L);
	sd_check_gone(test, dir, name);

	KUNIT_ASSERT_EQ(test, exec_thread_per_task_create(&tpt), 0);
	sd_run_items(test, exec_thread_per_task_executor(tpt));
	sd_check_file(test, exec_thread_per_task_executor(tpt),
		      "thread-per-task", "thread_per_task", name, sizeof(name),
		      buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " submitted=10 "));
	KUNIT_EXPECT_EQ(test, exec_thread_per_task_destroy(tpt), 0);
	sd_check_gone(test, dir, name);
	dput(dir);
}

static struct kunit_case exec_stats_debugfs_cases[] = {
	KUNIT_CASE(stats_debugfs_file_shows_a_pools_counts),
	KUNIT_CASE(stats_debugfs_file_shows_a_managed_queues_counts),
	KUNIT_CASE(stats_debugfs_files_of_loops_and_thread_per_task),
	{}
};

static struct kunit_suite exec_stats_debugfs_suite = {
	.name = "exec-stats-debugfs",
	.test_cases = exec_stats_debugfs_cases,
};

kunit_test_suites(&exec_stats_debugfs_suite);

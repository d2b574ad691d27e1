// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The statistics files of the kernel backend: one read-only debugfs file
 * per thread pool, /sys/kernel/debug/exec/<name>-<id>, mode 0400, showing
 * its counts and a line per worker (core/stats.c, exec_stats_show()).
 * Nothing is writable and nothing is read from userspace.
 *
 * A pool's file is removed first thing in its destroy, while its workers
 * are all there; debugfs_remove() waits for the readers that are inside
 * the file's show function.  The file is created "unsafe" (without the
 * debugfs proxy, which has no read_iter, so that the kernel itself can read
 * the file too, as the test does), so the show function takes its own
 * debugfs_file_get() reference, the one debugfs_remove() waits for.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "platform.h"
#include "exec_kernel.h"

/* /sys/kernel/debug/exec; set at module load, removed at unload. */
static struct dentry *exec_debugfs_dir;
/* Makes each file's name unique: pools may share a name. */
static atomic_t exec_stats_file_seq = ATOMIC_INIT(0);

static void exec_stats_seq_line(void *ctx, const char *line)
{
	struct seq_file *m = ctx;

	seq_puts(m, line);
	seq_putc(m, '\n');
}

static int exec_stats_seq_show(struct seq_file *m, void *v)
{
	struct dentry *dentry = file_dentry(m->file);
	struct exec_executor *ex = m->private;
	int ret;

	/* Fails once the file is being removed, with its executor. */
	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	exec_stats_show(ex, dentry->d_name.name, exec_stats_seq_line, m);
	debugfs_file_put(dentry);
	return 0;
}

static int exec_stats_seq_open(struct inode *inode, struct file *file)
{
	return single_open(file, exec_stats_seq_show, inode->i_private);
}

static const struct file_operations exec_stats_seq_fops = {
	.owner = THIS_MODULE,
	.open = exec_stats_seq_open,
	.read_iter = seq_read_iter,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * exec_stats_file_add - create an executor's statistics file
 * @ex: the executor
 * @name: its name; a unique number is appended
 *
 * Context: Process context; may sleep.
 * Return: the file's dentry, to give to exec_stats_file_remove(); an
 * ERR_PTR() (or NULL) if it could not be created, which the executor
 * carries on without.
 */
void *exec_stats_file_add(struct exec_executor *ex, const char *name)
{
	char fname[48];

	if (IS_ERR_OR_NULL(exec_debugfs_dir))
		return NULL;
	snprintf(fname, sizeof(fname), "%s-%d", name,
		 atomic_inc_return(&exec_stats_file_seq));
	return debugfs_create_file_unsafe(fname, 0400, exec_debugfs_dir, ex,
					  &exec_stats_seq_fops);
}

/**
 * exec_stats_file_remove - remove a statistics file
 * @file: what exec_stats_file_add() returned
 *
 * Returns once no reader is inside the file any more.
 *
 * Context: Process context; may sleep.
 */
void exec_stats_file_remove(void *file)
{
	debugfs_remove(file);
}

/**
 * exec_stats_files_init - create the statistics files' directory
 *
 * Called at module load, before any executor exists.  Without debugfs,
 * or if it fails, executors simply have no files.
 *
 * Context: Process context; may sleep.
 */
void exec_stats_files_init(void)
{
	exec_debugfs_dir = debugfs_create_dir("exec", NULL);
}

/**
 * exec_stats_files_exit - remove the statistics files' directory
 *
 * Called at module unload, once every executor is gone.
 *
 * Context: Process context; may sleep.
 */
void exec_stats_files_exit(void)
{
	debugfs_remove(exec_debugfs_dir);
	exec_debugfs_dir = NULL;
}

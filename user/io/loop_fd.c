// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A loop executor or a loop scheduler driven by another event loop
 * (include/exec/user.h): GLib's, libuv's, sd-event's or a plain epoll loop
 * watches one eventfd, and calls exec_loop_run_ready() (or
 * exec_loop_scheduler_run_ready()) when it is readable.  For a loop
 * scheduler the eventfd is the waker of the other loop's sleep record
 * (core/loop_scheduler.c): the other loop is one more idle thread, and the
 * same rules hold.
 *
 * The eventfd is the loop's waker (exec_loop_attach_waker() in
 * core/loop.c): a submission that finds the loop "asleep" writes it, as it
 * would unpark the thread of exec_loop_run().  Between two calls of
 * exec_loop_run_ready() the loop counts as asleep; while one runs it does
 * not, so items submitted from inside items cost no write.  Timed items
 * come due on the timer base's clock event device (user/clockev.c), which
 * submits them: the same write.  An idle loop therefore makes no write at
 * all, and its watcher no wake-up.
 *
 * The count is read (reset) after the items run, while no submission
 * writes it (the loop is not asleep), and written again if items are left
 * behind, so the descriptor is readable exactly while the loop has work: a
 * level-triggered watcher is not woken in vain, and an edge-triggered one
 * sees a new edge for every item it has not run.  Read after, not before:
 * the first item does not wait for a system call.
 */
#include "exec_platform.h"
#include "exec/loop.h"
#include "exec/user.h"
#include "extension.h"

#include <sys/eventfd.h>
#include <unistd.h>

static void exec_loop_fd_wake(void *arg)
{
	u64 one = 1;

	/*
	 * Cannot fail but for a count at its maximum, which still reads
	 * as readable.
	 */
	if (write((int)(long)arg - 1, &one, sizeof(one)) < 0)
		return;
}

/* Reads the count back to 0 (nothing to read is fine: already 0). */
static void exec_loop_fd_reset(void *arg)
{
	u64 count;

	if (read((int)(long)arg - 1, &count, sizeof(count)) < 0)
		return;
}

static void exec_loop_fd_release(void *arg)
{
	close((int)(long)arg - 1);
}

/* The descriptor plus one, so that a valid argument is never NULL. */
static int exec_loop_fd_get(struct exec_loop *loop)
{
	return (int)(long)exec_loop_waker_arg(loop, exec_loop_fd_wake) - 1;
}

/*
 * Makes an eventfd and attaches it with @attach to @obj, or returns the
 * one an earlier (or racing) call attached.
 */
static int exec_fd_attach(void *obj, int (*attach)(void *obj, void **argp))
{
	void *arg;
	int fd, ret;

	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	arg = (void *)(long)(fd + 1);
	ret = attach(obj, &arg);
	if (ret || arg != (void *)(long)(fd + 1))
		close(fd);
	return ret ? ret : (int)(long)arg - 1;
}

static int exec_loop_fd_attach(void *loop, void **argp)
{
	int ret = exec_loop_attach_waker(loop, exec_loop_fd_wake,
					 exec_loop_fd_release, argp);

	/* Items queued before the waker existed must wake the watcher too. */
	if (!ret)
		exec_loop_fd_wake(*argp);
	return ret;
}

int exec_loop_fd(struct exec_loop *loop)
{
	int fd;

	if (!loop)
		return -EINVAL;
	fd = exec_loop_fd_get(loop);
	return fd >= 0 ? fd : exec_fd_attach(loop, exec_loop_fd_attach);
}
EXPORT_SYMBOL_GPL(exec_loop_fd);

long exec_loop_run_ready(struct exec_loop *loop)
{
	if (!loop)
		return -EINVAL;
	if (exec_loop_fd_get(loop) < 0)
		return -EINVAL;
	/* Busy (another caller inside): it resets and re-arms as it leaves. */
	return exec_loop_run_armed(loop, exec_loop_fd_reset);
}
EXPORT_SYMBOL_GPL(exec_loop_run_ready);

/* The scheduler's descriptor, or -1 if it has none. */
static int exec_ls_fd_get(struct exec_loop_scheduler *ls)
{
	return (int)(long)exec_ls_waker_arg(ls, exec_loop_fd_wake) - 1;
}

/* Items queued before the waker existed: the core wakes it for them. */
static int exec_ls_fd_attach(void *ls, void **argp)
{
	return exec_ls_attach_waker(ls, exec_loop_fd_wake,
				    exec_loop_fd_release, argp);
}

int exec_loop_scheduler_fd(struct exec_loop_scheduler *ls)
{
	int fd;

	if (!ls)
		return -EINVAL;
	fd = exec_ls_fd_get(ls);
	return fd >= 0 ? fd : exec_fd_attach(ls, exec_ls_fd_attach);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_fd);

long exec_loop_scheduler_run_ready(struct exec_loop_scheduler *ls)
{
	if (!ls || exec_ls_fd_get(ls) < 0)
		return -EINVAL;
	return exec_ls_run_armed(ls, exec_loop_fd_reset);
}
EXPORT_SYMBOL_GPL(exec_loop_scheduler_run_ready);

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A loop executor driven by another event loop (include/exec/user.h):
 * GLib's, libuv's, sd-event's or a plain epoll loop watches one eventfd,
 * and calls exec_loop_run_ready() when it is readable.
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
#include "internal.h"

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

int exec_loop_fd(struct exec_loop *loop)
{
	void *arg;
	int fd, ret;

	if (!loop)
		return -EINVAL;
	fd = exec_loop_fd_get(loop);
	if (fd >= 0)
		return fd;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	arg = (void *)(long)(fd + 1);
	ret = exec_loop_attach_waker(loop, exec_loop_fd_wake,
				     exec_loop_fd_release, &arg);
	if (ret || arg != (void *)(long)(fd + 1))
		close(fd);
	if (ret)
		return ret;
	fd = (int)(long)arg - 1;
	/* Items queued before the waker existed must wake the watcher too. */
	exec_loop_fd_wake(arg);
	return fd;
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

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Userspace-only API of libexec-user: things that have no meaning in the
 * kernel module.  Not included by exec.h; include it explicitly.
 */
#ifndef EXEC_USER_H
#define EXEC_USER_H

#ifdef __KERNEL__
#error "exec/user.h is for userspace (libexec-user) only"
#endif

#include "types.h"

struct exec_loop;
struct exec_loop_scheduler;

EXEC_BEGIN_DECLS

/**
 * exec_user_wakeup_backend - how idle worker threads sleep and are woken
 *
 * The library chooses once per process, at the first use of a worker's
 * sleep/wake point (or at the first call of this function): io_uring when
 * the kernel offers it (each sleeper waits on a ring of its own and is woken
 * with IORING_OP_MSG_RING), else a futex.  The environment variable
 * EXEC_BACKEND=io_uring or EXEC_BACKEND=futex, read at that moment, forces
 * the choice (io_uring still falls back to the futex when unavailable).  A
 * sleeper whose ring cannot be created (for example at the fd limit) uses
 * the futex on its own, whatever this returns.
 *
 * Context: Any thread.
 * Return: "io_uring" or "futex", a static string.
 */
const char *exec_user_wakeup_backend(void);

/* Levels of the library's messages, those of syslog(3). */
#define EXEC_USER_LOG_ERR	3	/* cannot happen: a bug */
#define EXEC_USER_LOG_WARNING	4	/* a misuse, or a setting ignored */
#define EXEC_USER_LOG_INFO	6	/* a choice made, e.g. the backend */

/**
 * typedef exec_user_log_fn - receives one message of the library
 * @level: EXEC_USER_LOG_ERR, EXEC_USER_LOG_WARNING or EXEC_USER_LOG_INFO
 * @msg: the message, one line without a newline; valid during the call only
 * @arg: the argument given to exec_user_set_log()
 */
typedef void (*exec_user_log_fn)(int level, const char *msg, void *arg);

/**
 * exec_user_set_log - install the callback that receives the library's messages
 * @fn: the callback; NULL (the default) drops every message
 * @arg: passed to @fn
 *
 * The library writes nothing to stderr by itself: its messages (the wakeup
 * backend when EXEC_BACKEND forces it or io_uring is unavailable, an unknown
 * EXEC_BACKEND value, a misuse caught at run time) go to @fn, or nowhere.
 * Install it before the first use of the library to see the backend choice;
 * exec_user_wakeup_backend() tells the choice at any time.
 *
 * @fn may be called from any thread, several at once, and must not call back
 * into the library.  A message being delivered while the callback is
 * replaced may still go to the old one.
 *
 * Context: Any thread.
 */
void exec_user_set_log(exec_user_log_fn fn, void *arg);

/**
 * exec_loop_fd - a descriptor another event loop can watch for the loop
 * @loop: the loop executor
 *
 * For a program whose thread already runs an event loop of its own (GLib,
 * libuv, sd-event, epoll): it watches the returned eventfd for reading and
 * calls exec_loop_run_ready() when it is readable.  The descriptor is
 * readable while items are queued, timed items included once they come
 * due, and not otherwise: an idle loop never wakes the watcher.  It works
 * with level- and edge-triggered watchers.  The first call creates it;
 * later calls return the same one.  It belongs to @loop, which closes it
 * in exec_loop_destroy(): the caller must not close or read it, and must
 * remove it from its watcher before destroying @loop.  From the first
 * call on, @loop is driven by exec_loop_run_ready(), or by
 * exec_loop_run_queued_closures() and exec_loop_try_run_one_closure();
 * exec_loop_run() refuses (-EBUSY).
 *
 * Context: Process context; not inside a closure-executing function of
 * @loop.
 * Return: the descriptor (>= 0); -EINVAL for NULL; -EBUSY while a
 * closure-executing function of @loop runs, or if @loop is the loop of an
 * I/O context; a negative errno from eventfd(2).
 */
int exec_loop_fd(struct exec_loop *loop);

/**
 * exec_loop_run_ready - run what is ready, without blocking, and re-arm
 * @loop: a loop executor with a descriptor (exec_loop_fd())
 *
 * Runs the items queued at the time of call in FIFO order (those they
 * submit run at the next call), resets the descriptor, and leaves it
 * readable if items are still queued (it then stays so for a
 * level-triggered watcher, and shows a new edge to an edge-triggered one),
 * or ready to become readable at the next submission.  It returns early,
 * like exec_loop_run_queued_closures(), if an item calls
 * exec_loop_make_loop_exit().
 *
 * Context: Any context the items allow; never sleeps.
 * Return: the number of items run (>= 0); -EINVAL for NULL or a loop
 * without a descriptor; -EBUSY if another closure-executing function of
 * @loop runs (the descriptor is left as it is: that one re-arms it as it
 * leaves).
 */
long exec_loop_run_ready(struct exec_loop *loop);

/**
 * exec_loop_scheduler_fd - a descriptor another event loop can watch for
 *	a loop scheduler
 * @ls: the loop scheduler
 *
 * exec_loop_fd() for a loop scheduler: the other loop's thread watches the
 * returned eventfd for reading and calls exec_loop_scheduler_run_ready()
 * when it is readable; it counts as one more idle thread of @ls, beside
 * the threads in its run functions, which work as before.  The descriptor
 * is readable when a submission (or a timed item come due) wakes that
 * thread, and when @ls is stopped, until the next call; an idle scheduler
 * never wakes the watcher.  The first call creates it; later calls return
 * the same one.  It belongs to @ls, which closes it in
 * exec_loop_scheduler_destroy(): the caller must not close or read it,
 * and must remove it from its watcher before destroying @ls.  The
 * scheduler stops, as P0113 says, when its outstanding work ends: a
 * program that keeps it for the life of its loop holds a unit of work
 * (exec_on_work_started() or a work guard).
 *
 * Context: Process context; may sleep.
 * Return: the descriptor (>= 0); -EINVAL for NULL; -EBUSY if @ls is
 * driven through another waker; -ENOMEM; a negative errno from eventfd(2).
 */
int exec_loop_scheduler_fd(struct exec_loop_scheduler *ls);

/**
 * exec_loop_scheduler_run_ready - run what is ready, without blocking, and
 *	re-arm
 * @ls: a loop scheduler with a descriptor (exec_loop_scheduler_fd())
 *
 * Runs the items queued at the time of call in FIFO order, as
 * exec_loop_scheduler_poll() does but without stopping a scheduler that
 * it finds without outstanding work (the watcher may have been woken by a
 * stop), resets the descriptor, and leaves it readable if items are still
 * queued and @ls is not stopped, or ready to become readable at the next
 * submission.
 *
 * Context: The watching loop's thread; never sleeps.
 * Return: the number of items run (>= 0); -EINVAL for NULL or a scheduler
 * without a descriptor; -EBUSY if another call is inside; -ESHUTDOWN once
 * exec_loop_scheduler_destroy() has begun.
 */
long exec_loop_scheduler_run_ready(struct exec_loop_scheduler *ls);

EXEC_END_DECLS

#endif /* EXEC_USER_H */

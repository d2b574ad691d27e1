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

EXEC_END_DECLS

#endif /* EXEC_USER_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The library's messages (the wakeup backend chosen, a misuse caught by
 * WARN_ON()): handed to the callback the application installed with
 * exec_user_set_log(), and dropped when there is none.  A library does not
 * write to a process's stderr on its own.
 */
#include <stdarg.h>

#include "platform.h"
#include "exec/user.h"

static pthread_mutex_t exec_log_lock = PTHREAD_MUTEX_INITIALIZER;
static exec_user_log_fn exec_log_fn;
static void *exec_log_arg;

/**
 * exec_user_set_log - install the callback that receives the library's messages
 * @fn: called with a level (EXEC_USER_LOG_*), the message (one line, without
 *	a newline; valid during the call only) and @arg; NULL drops every
 *	message, the default
 * @arg: passed to @fn
 *
 * @fn may be called from any thread, the library's workers included, and
 * from several at once; it must not call back into the library.  A message
 * being delivered while the callback is replaced may still go to the old one.
 *
 * Context: Any thread.
 */
void exec_user_set_log(exec_user_log_fn fn, void *arg)
{
	pthread_mutex_lock(&exec_log_lock);
	exec_log_fn = fn;
	exec_log_arg = arg;
	pthread_mutex_unlock(&exec_log_lock);
}
EXPORT_SYMBOL_GPL(exec_user_set_log);

/**
 * exec_user_log_fork - the log across fork()
 * @event: the step of the fork
 *
 * The lock is taken before the fork, so that no other thread holds it in
 * the child.  The callback stays installed in the child, which has the
 * same code and data.
 *
 * Context: from the pthread_atfork() handlers (user/init.c).
 */
void exec_user_log_fork(enum exec_fork_event event)
{
	if (event == EXEC_FORK_PREPARE)
		pthread_mutex_lock(&exec_log_lock);
	else
		pthread_mutex_unlock(&exec_log_lock);
}

/**
 * exec_user_log - hand a message to the application's log callback
 * @level: EXEC_USER_LOG_*
 * @fmt: printf() format of the message; a trailing newline is dropped
 *
 * Does nothing, not even the formatting, when no callback is installed.
 */
void exec_user_log(int level, const char *fmt, ...)
{
	exec_user_log_fn fn;
	char msg[256];
	va_list ap;
	void *arg;
	int len;

	pthread_mutex_lock(&exec_log_lock);
	fn = exec_log_fn;
	arg = exec_log_arg;
	pthread_mutex_unlock(&exec_log_lock);
	if (!fn)
		return;
	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The core's pr_warn() formats end with one, as the kernel's do. */
	if (len > 0 && (size_t)len < sizeof(msg) && msg[len - 1] == '\n')
		msg[len - 1] = '\0';
	fn(level, msg, arg);
}

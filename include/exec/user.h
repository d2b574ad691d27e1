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

EXEC_END_DECLS

#endif /* EXEC_USER_H */

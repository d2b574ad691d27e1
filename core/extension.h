/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the library's userspace-only facilities (user/io/: the I/O
 * contexts, their pools, the loops driven by another event loop) may use
 * of the core beyond the public headers.  They drive loop executors from
 * waits of their own (an io_uring or epoll wait, another event loop's
 * eventfd) and build an executor of their own (an I/O pool, whose timed
 * items are a context's).  They include this header, the public ones and
 * the platform's exec_platform.h, never core/internal.h
 * (scripts/check-layout.sh); core/internal.h includes it, so that the core
 * compiles against the same declarations.  The functions' kernel-doc is
 * at their definitions (core/loop.c, core/loop_scheduler.c,
 * core/timer.c).
 */
#ifndef EXEC_CORE_EXTENSION_H
#define EXEC_CORE_EXTENSION_H

#include <exec/exec.h>

/* exec_fault_alloc(), which the facilities' allocations pass too. */
#include "platform.h"

/*
 * A loop executor whose runner sleeps in a wait of its own (an I/O
 * context's thread): the waker that ends that wait, set before the loop
 * is used, and the runner's marks around the wait.
 */
void exec_loop_set_waker(struct exec_loop *loop, void (*wake)(void *arg),
			 void *arg);
bool exec_loop_sleep_begin(struct exec_loop *loop);
void exec_loop_sleep_end(struct exec_loop *loop);

/*
 * A loop executor or loop scheduler in use, given a waker once (another
 * event loop's eventfd), and run by that other loop: the items queued,
 * then the waker armed again.
 */
int exec_loop_attach_waker(struct exec_loop *loop, void (*wake)(void *arg),
			   void (*release)(void *arg), void **argp);
void *exec_loop_waker_arg(struct exec_loop *loop, void (*wake)(void *arg));
long exec_loop_run_armed(struct exec_loop *loop, void (*reset)(void *arg));
int exec_ls_attach_waker(struct exec_loop_scheduler *ls,
			 void (*wake)(void *arg), void (*release)(void *arg),
			 void **argp);
void *exec_ls_waker_arg(struct exec_loop_scheduler *ls,
			void (*wake)(void *arg));
long exec_ls_run_armed(struct exec_loop_scheduler *ls,
		       void (*reset)(void *arg));

/*
 * Timed work of an executor built outside the core: its timed items come
 * due on another executor's clock (exec_timers_share(), at creation);
 * at its destroy, exec_timers_shutdown() discards what is armed (and
 * returns how many) and exec_timers_free() lets go of the shared base.
 */
int exec_timers_share(struct exec_executor *ex, struct exec_executor *from);
long exec_timers_shutdown(struct exec_executor *ex);
void exec_timers_free(struct exec_executor *ex);

#endif /* EXEC_CORE_EXTENSION_H */

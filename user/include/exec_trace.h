/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The userspace side of core/trace.h: each hook is a USDT probe of
 * <sys/sdt.h> (Debian's systemtap-sdt-dev), provider "exec", named as the
 * kernel's tracepoint ("exec:exec_work_queue", ...), with the same
 * arguments.  A probe site is a no-op instruction and an ELF note
 * (readelf -n: "stapsdt"); each probe has a semaphore, which a tracer
 * (perf, bpftrace, SystemTap) raises while it is attached, so that the
 * hook computes its arguments only then (user/trace.c defines them).
 *
 * Built with -DEXEC_NO_SDT, or where <sys/sdt.h> is missing, every hook
 * compiles to nothing.
 */
#ifndef EXEC_USER_TRACE_H
#define EXEC_USER_TRACE_H

#include <stdbool.h>

#if !defined(EXEC_NO_SDT) && defined(__has_include)
#if __has_include("sys/sdt.h")
#define EXEC_HAVE_SDT	1
#endif
#endif

#ifdef EXEC_HAVE_SDT

#define _SDT_HAS_SEMAPHORES	1
#define SDT_USE_VARIADIC	1
#include <sys/sdt.h>

/*
 * The semaphores, named as <sys/sdt.h> expects: provider_name_semaphore.
 * The kernel raises one (a uprobe's reference counter) while a tracer is
 * attached to its probe; the hook reads it relaxed, as a hint.  Hidden:
 * the library's own, read without going through the GOT.
 */
#define EXEC_SEMAPHORE	__attribute__((__visibility__("hidden")))
extern unsigned short exec_exec_work_queue_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_work_activate_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_work_start_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_work_finish_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_timer_arm_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_timer_fire_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_timer_cancel_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_worker_park_semaphore EXEC_SEMAPHORE;
extern unsigned short exec_exec_worker_wake_semaphore EXEC_SEMAPHORE;

#define exec_trace_enabled(event)					\
	__builtin_expect(__atomic_load_n(&exec_##event##_semaphore,	\
					 __ATOMIC_RELAXED) != 0, 0)
#define exec_trace_emit(event, ...)	STAP_PROBEV(exec, event, __VA_ARGS__)

#else /* !EXEC_HAVE_SDT */

#define exec_trace_enabled(event)	false
#define exec_trace_emit(event, ...)	do { } while (0)

#endif /* EXEC_HAVE_SDT */

#endif /* EXEC_USER_TRACE_H */

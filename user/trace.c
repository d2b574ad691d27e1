// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The semaphores of the library's USDT probes (user/include/exec_trace.h):
 * one per probe, in the section .probes where tracers look for them.  A
 * tracer attached to a probe raises its semaphore (through the uprobe's
 * reference counter), and the hook then computes its arguments and fires.
 */
#include "exec_platform.h"
#include "exec_trace.h"

#ifdef EXEC_HAVE_SDT
#define EXEC_PROBES	__section(".probes")

unsigned short exec_exec_work_queue_semaphore EXEC_PROBES;
unsigned short exec_exec_work_activate_semaphore EXEC_PROBES;
unsigned short exec_exec_work_start_semaphore EXEC_PROBES;
unsigned short exec_exec_work_finish_semaphore EXEC_PROBES;
unsigned short exec_exec_timer_arm_semaphore EXEC_PROBES;
unsigned short exec_exec_timer_fire_semaphore EXEC_PROBES;
unsigned short exec_exec_timer_cancel_semaphore EXEC_PROBES;
unsigned short exec_exec_worker_park_semaphore EXEC_PROBES;
unsigned short exec_exec_worker_wake_semaphore EXEC_PROBES;
#endif

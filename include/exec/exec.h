/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libexec: executors for the Linux kernel and for userspace.
 *
 * One header for all of the public API.  See Documentation/ for the model.
 */
#ifndef EXEC_EXEC_H
#define EXEC_EXEC_H

#include "types.h"
#include "work.h"
#include "executor.h"
#include "thread_attr.h"
#include "thread_pool.h"
#include "serial.h"
#include "priority.h"
#include "managed_queue.h"
#include "thread_manager.h"
#include "loop.h"
#include "loop_scheduler.h"
#include "simple.h"
#include "timer.h"
#include "context.h"
#include "future.h"
#include "group.h"
#include "watchdog.h"
#include "stats.h"

#endif /* EXEC_EXEC_H */

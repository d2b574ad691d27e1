// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_lockdep_timer_cancel_sync.ko: the planted lockdep report of
 * exec_timer_cancel_sync() of an item armed on a pool while holding a mutex
 * that an item of the pool takes (lockdep_test.h).
 */
#define LD_CASE	ld_timer_cancel_sync_under_lock
#include "lockdep_test.h"

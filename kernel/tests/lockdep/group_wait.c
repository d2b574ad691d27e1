// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_lockdep_group_wait.ko: the planted lockdep report of
 * a wait for a task group while holding a mutex that one of its items
 * takes (lockdep_test.h).
 */
#define LD_CASE	ld_group_wait_under_lock
#include "lockdep_test.h"

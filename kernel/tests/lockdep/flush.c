// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_lockdep_flush.ko: the planted lockdep report of
 * a flush of a pool while holding a mutex that one of its items takes (lockdep_test.h).
 */
#define LD_CASE	ld_flush_under_lock
#include "lockdep_test.h"

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_lockdep_cancel_sync.ko: the planted lockdep report of
 * cancel_sync of a plain item while holding a mutex that an item of the
 * same pool takes (lockdep_test.h).
 */
#define LD_CASE	ld_cancel_sync_under_lock
#include "lockdep_test.h"

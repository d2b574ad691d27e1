// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exec_lockdep_destroy.ko: the planted lockdep report of
 * a pool's destroy (which joins its workers) while holding a mutex that
 * one of its items takes (lockdep_test.h).
 */
#define LD_CASE	ld_destroy_under_lock
#include "lockdep_test.h"

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: sequences of API operations, chosen by the fuzzer's
 * bytes, checked by the model of tests/model_test.c.
 *
 * One input is one round of the model tester with one operator thread:
 * the world of executors (a thread pool, serial executors over it and
 * over a loop scheduler, a task group), the operator's operations
 * (submit, try-submit, post, dispatch, defer, closures, timed arm, mod,
 * cancel, cancel_sync, periodic items, group submit, cancel and reset,
 * futures, the loop's stop, the pool's shutdown_hard), then the destroys.
 * Every choice of the operator is two bytes of the input (see
 * model_rand()); what the input leaves undecided, the world's shape and
 * choices past its end, comes from a generator seeded with a hash of the
 * input, so the same input replays the same operations.  The model's
 * checks are the tester's: every accepted item ran, was discarded or was
 * cancelled exactly once, never early, never twice, every return value
 * as the model expects; a failure aborts with the tester's message.
 *
 * The rate is a round's: tests/model_test.c built with EXEC_MODEL_FUZZ
 * runs the one operator in the calling thread, joins the loop's driver
 * without polling, and makes its delays, spins and sleeps a tenth of the
 * model tester's (MODEL_TSCALE).  Each input still builds its own world
 * and destroys it, with every destroy's count and every item's end
 * checked: nothing of the library's carries over to the next input but
 * what the library keeps per process anyway (its slab caches), so a
 * failing input replays alone.
 */
#define EXEC_MODEL_DRIVER
#define EXEC_MODEL_FUZZ
#include "model_test.c"

#include <stdlib.h>
#include <sys/prctl.h>

#include "fuzz.h"

/* Operations per input at most: a round stays well under a second. */
#define AF_OPS_MAX	200U

/*
 * A round's sleeps are of some microseconds (MODEL_TSCALE): without this,
 * each would last the default timer slack, 50 us, more.  The threads of
 * the rounds are made later, and inherit it.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_cfg cfg = { .threads = 1, .rounds = 1 };
	u64 hash = 0xcbf29ce484222325ULL;	/* FNV-1a */
	struct model *m;
	size_t i;
	int ret;

	for (i = 0; i < size; i++)
		hash = (hash ^ data[i]) * 0x100000001b3ULL;
	cfg.seed = hash;
	/* An operation takes two to eight bytes of choices. */
	cfg.ops = size / 4 + 1 < AF_OPS_MAX ? size / 4 + 1 : AF_OPS_MAX;
	model_fuzz_data = data;
	model_fuzz_len = size;
	m = calloc(1, sizeof(*m));
	if (!m)
		return 0;
	ret = model_run_cfg(m, &cfg);
	fuzz_check(ret != -EIO, "%s", m->msg);
	fuzz_check(!ret, "a round could not start: %d", ret);
	free(m);
	return 0;
}

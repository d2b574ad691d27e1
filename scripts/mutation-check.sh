#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Are the tests able to catch bugs?  Applies one deliberate defect at a time
# to a copy of the tree, builds the userspace suite there and runs the
# suites that should catch it; every defect must be caught (a failed case,
# a crash, or a run that does not finish in time).  On demand, not part of
# `make check`: each defect costs a build and a run (about a minute).
#
#   scripts/mutation-check.sh [NAME...]     (default: every defect)
#
# Prints one line per defect and "N passed, N failed" last, where passed
# means caught.  Exit status 0 only if every defect was caught.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/exec-mutation.XXXXXX)
trap 'rm -rf "$work"' EXIT
timeout_s=${MUTATION_TIMEOUT:-300}

# name|file|old text|new text|what runs (a suite glob of exec-tests, or
# "parker" for the parker test)
#
# The relaxed barrier is the timed park's: its ring sleep does not look at
# the permit again, so only the barrier closes the store-load window, and
# the parker test's spinning waker finds the lost wake when it runs long
# enough (PARKER_TEST_SPIN_HANDOFFS below).  The plain park's barrier is
# not taken: relaxing it is no defect, as its FUTEX_WAIT compares the
# permit after the kernel's own full barrier (the sleep's contract in
# core/parker.c), and no test can tell the two apart.
defects=(
"drop-wakeup|core/thread_pool.c|			exec_pool_wake_one(pool);
	} else if|			;
	} else if|exec-thread-pool"
"relaxed-parker-barrier|core/parker.c|	smp_store_mb(parker->sleeping, EXEC_PARKER_SLEEP_UNTIL);|	WRITE_ONCE(parker->sleeping, EXEC_PARKER_SLEEP_UNTIL);|parker"
"serial-batch-off-by-one|core/serial.c|		while (done < avail \&\& done < EXEC_SERIAL_BATCH \&\&|		while (done <= avail \&\& done < EXEC_SERIAL_BATCH \&\&|exec-serial"
"skip-discard-callback|core/executor.c|	test_and_clear_bit(EXEC_WORK_PENDING_BIT, \&work->flags);
	if (discard)
		discard(work);|	test_and_clear_bit(EXEC_WORK_PENDING_BIT, \&work->flags);|exec-thread-pool"
"timed-item-1us-early|core/timer.c|	u64 tick = exec_ns_to_tick(now);|	u64 tick = exec_ns_to_tick(now + 1000);|exec-timer"
"serial-turn-released-early|core/serial.c|		exec_frame_push(\&frame, s);|		exec_frame_push(\&frame, s);
		avail = atomic_long_sub_return(avail, \&s->nr_queued) + avail;
		if (avail > 0)
			exec_serial_schedule(s, 0);|exec-serial"
"forget-work-guard|core/executor.c|	exec_executor_depend(ex, kind);
	exec_work_start(ex);|	exec_executor_depend(ex, kind);|exec-submit"
)

caught=0
missed=0
(cd "$top" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) |
	(cd "$work" && tar xf -)

for d in "${defects[@]}"; do
	IFS='|' read -r -d '' name file old new what <<<"$d"
	what=${what%$'\n'}
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	cp "$top/$file" "$work/$file"
	if ! python3 - "$work/$file" "$old" "$new" <<'EOF'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace('\\&', '&'), \
	sys.argv[3].replace('\\&', '&')
s = open(path).read()
if s.count(old) != 1:
    sys.exit(1)
open(path, 'w').write(s.replace(old, new))
EOF
	then
		echo "mutation: $name: NOT APPLIED (the text is not in $file once)"
		missed=$((missed + 1))
		continue
	fi
	if [ "$what" = parker ]; then
		target=build-mut/parker-test
		cmd=(env PARKER_TEST_SPIN_HANDOFFS="${PARKER_TEST_SPIN_HANDOFFS:-10000000}"
		     "$work/build-mut/parker-test")
	else
		target=build-mut/exec-tests
		cmd=("$work/build-mut/exec-tests" "$what")
	fi
	if ! make -C "$work" -j2 O=build-mut "$target" >"$work/build.log" 2>&1
	then
		echo "mutation: $name: caught (does not build)"
		caught=$((caught + 1))
	else
		out=$(timeout "$timeout_s" "${cmd[@]}" 2>&1)
		status=$?
		last=$(printf '%s\n' "$out" | tail -1)
		if [ $status -ne 0 ]; then
			echo "mutation: $name: caught by $what (exit $status: $last)"
			caught=$((caught + 1))
		else
			echo "mutation: $name: MISSED by $what ($last)"
			missed=$((missed + 1))
		fi
	fi
	cp "$top/$file" "$work/$file"
done

echo "mutation: $caught passed, $missed failed"
[ "$missed" -eq 0 ]

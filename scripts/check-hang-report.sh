#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# exec-tests' report of a hung case (tests/user/runner.c): a case made to
# outlast EXEC_TEST_TIMEOUT must be reported failed, end the run, and leave
# every thread's stack in the output, so that a hang in CI can be read from
# its log.
#
#   check-hang-report.sh TESTS
#
#   gdb     with gdb on PATH: gdb's backtrace of each thread, the case's
#           own frames named with their source files (not run where this
#           machine does not let gdb attach: the runner then falls back
#           to what no-gdb checks)
#   no-gdb  with gdb out of reach: the stack of every thread that takes
#           signals (the runner's main thread), and the others named
#
# Prints one line per condition and "N passed, N failed" last; a condition
# that cannot be set up here is said so, "not run", and counted neither
# way.

set -u

tests=$(realpath "$1")
case_glob='exec-stress.stress_pool_1_worker_every_task_runs_once'
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
pass=0
fail=0

# hang [ENV...]: the case, far too many tasks for a 1 s limit.
hang()
{
	env "$@" EXEC_STRESS_TASKS=2000000000 EXEC_TEST_TIMEOUT=1 \
		"$tests" "$case_glob" > "$out" 2> "$err"
}

# verdict NAME PROBLEM: PROBLEM empty means passed.
verdict()
{
	if [ -z "$2" ]; then
		echo "ok   $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1: $2"
		sed 's/^/    | /' "$out" "$err" | tail -40
		fail=$((fail + 1))
	fi
}

# ended OUT: the run was ended as a hang, the case counted failed.
ended()
{
	grep -q 'stress_pool_1_worker_every_task_runs_once: timed out after 1 s;' "$out" &&
		grep -q '^0 passed, 1 failed$' "$out"
}

problem=
if ! command -v gdb > /dev/null; then
	problem="gdb is not installed (scripts/install-deps.sh installs it)"
else
	hang
	status=$?
	if [ "$status" -ne 1 ]; then
		problem="exit status $status, not 1"
	elif ! ended; then
		problem="not reported as a timed-out case"
	elif [ "$(grep -c '^Thread [0-9]* (' "$err")" -lt 2 ]; then
		problem="fewer than two threads' stacks from gdb"
	elif ! grep -q 'at tests/stress_test.c:[0-9]' "$err"; then
		problem="no frame of the case's own source in the stacks"
	fi
fi
if [ -n "$problem" ] && grep -q '^ptrace: Operation not permitted' "$err"; then
	echo "not run gdb: this machine does not let gdb attach (ptrace)"
else
	verdict gdb "$problem"
fi

problem=
hang PATH=/nonexistent
status=$?
if [ "$status" -ne 1 ]; then
	problem="exit status $status, not 1"
elif ! ended; then
	problem="not reported as a timed-out case"
elif ! grep -q '^    # no gdb; ' "$err"; then
	problem="the missing gdb not said"
elif ! grep -q '^    # stack of thread [0-9]*:$' "$err" ||
     ! grep -q '__libc_start_main' "$err"; then
	problem="no stack of the main thread"
elif ! grep -q '^    # no stack (signals blocked?) from thread [0-9]*:$' "$err"; then
	problem="the library's threads not named"
fi
verdict no-gdb "$problem"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

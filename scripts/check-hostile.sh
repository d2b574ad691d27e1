#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The userspace suite in a hostile environment: each condition below runs
# the whole of exec-tests and must pass, and where io_uring is taken away
# exec-bench must report that the library fell back to the futex backend.
#
#   check-hostile.sh TESTS BENCH SECCOMP_RUN NPROC_TEST
#
#   affinity-1cpu   the process may run on one CPU only (taskset -c 0)
#   memlock-4k      RLIMIT_MEMLOCK of 4 KiB (io_uring rings on older
#                   kernels are charged to it)
#   seccomp-eperm   io_uring_setup/enter/register refused with EPERM, as
#                   container runtimes' default seccomp profiles do
#   seccomp-enosys  the same with ENOSYS, as a kernel without io_uring
#   sysctl-disabled kernel.io_uring_disabled = 2 (root only; restored
#                   afterwards)
#   nproc-limit     RLIMIT_NPROC reached while threads start: not the whole
#                   suite (its pools could not start) but NPROC_TEST, which
#                   runs as nobody and checks every thread-starting call for
#                   its documented error, that nothing is left behind and
#                   that it works once the limit allows
#
# Prints one line per condition and "N passed, N failed" last.  A condition
# this machine cannot set up (the sysctl not writable) is said so, "not
# run", and counted neither way.

set -u

tests=$1
bench=$2
seccomp_run=$3
nproc_test=$4
pass=0
fail=0
sysctl=/proc/sys/kernel/io_uring_disabled

# run NAME EXPECTED_BACKEND PREFIX...: the suite, then the backend check.
run()
{
	local name=$1 backend=$2 out got
	shift 2

	out=$("$@" timeout 900 "$tests" 2>&1 | tail -1)
	if [ "$out" != "${out#* passed, 0 failed}" ] &&
	   [ "${out%% passed*}" -gt 0 ]; then
		got=$("$@" "$bench" wakeup_latency --samples 200 2>/dev/null |
		      sed -n 's/.*"backend":"\([a-z_]*\)".*/\1/p')
		if [ "$got" = "$backend" ]; then
			echo "hostile: $name: $out; backend $got"
			pass=$((pass + 1))
			return
		fi
		echo "hostile: $name: $out; backend '$got', expected $backend"
	else
		echo "hostile: $name: FAILED: $out"
	fi
	fail=$((fail + 1))
}

run affinity-1cpu io_uring taskset -c 0
run memlock-4k io_uring prlimit --memlock=4096:4096
run seccomp-eperm futex "$seccomp_run" EPERM
run seccomp-enosys futex "$seccomp_run" ENOSYS

if [ -w "$sysctl" ]; then
	old=$(cat "$sysctl")
	trap 'echo "$old" > "$sysctl"' EXIT
	echo 2 > "$sysctl"
	run sysctl-disabled futex env
	echo "$old" > "$sysctl"
	trap - EXIT
else
	echo "hostile: sysctl-disabled: not run: $sysctl is not writable here"
fi

out=$(timeout 300 "$nproc_test" 2>&1)
status=$?
last=$(printf '%s\n' "$out" | tail -1)
if [ "$status" = 77 ]; then
	echo "hostile: nproc-limit: $last"
elif [ "$status" = 0 ] && [ "$last" != "${last#nproc: * passed, 0 failed}" ]; then
	echo "hostile: nproc-limit: ${last#nproc: }"
	pass=$((pass + 1))
else
	printf '%s\n' "$out" | grep -v ': ok$' | sed 's/^/hostile: /'
	echo "hostile: nproc-limit: FAILED (status $status)"
	fail=$((fail + 1))
fi

echo "hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Judges the console log of a KUnit run on the KCSAN test kernel
# (`make check-kernel-kcsan`) for data races.
#
# Usage: kcsan-reports.sh CONSOLE_LOG
#
# scripts/kunit-qemu.sh --kcsan-elsewhere leaves KCSAN reports to this
# check, which says how many there were and where, fails on those of the
# project, and makes sure that KCSAN was on at all: a log
# without KCSAN's boot messages (a kernel without it, a self-test that
# failed) would otherwise pass for a run without races.
#
# A report counts when one of its stacks runs through the project's modules
# (a frame tagged [exec], [exec_test] or [exec_example]): a race between
# two accesses of the kernel's own code alone (the scheduler's idle
# balancing reading a CPU mask, say) is listed as the kernel's and not
# counted, since the project can neither fix nor annotate it.
#
# Prints each report's title line ("BUG: KCSAN: data-race in A / B"), then
# "kcsan: 1 passed, 0 failed" when KCSAN ran and reported nothing of the
# project's, or "kcsan: 0 passed, N failed" for N such reports (at least 1
# when KCSAN did not run), the line scripts/check.sh reads.

set -euo pipefail

log=${1:?usage: kcsan-reports.sh CONSOLE_LOG}
[ -r "$log" ] || { echo "kcsan-reports: no log '$log'" >&2; exit 2; }

failed=0

# KCSAN_EARLY_ENABLE prints the first line before anything else can run;
# KCSAN_SELFTEST the second once its planted races were all caught.
for marker in 'kcsan: enabled early' 'kcsan: selftest: ([0-9]+)/\1 tests passed'; do
	if ! grep -qE "$marker" "$log"; then
		echo "FAIL: no '$marker' in $log: KCSAN did not run"
		failed=1
	fi
done

# Each report, one line: "ours|kernel<TAB>title".  A report runs from its
# "BUG: KCSAN:" line to the rule of '=' that closes it.
classified=$(awk '
	function flush() {
		if (title != "")
			printf "%s\t%s\n", ours ? "ours" : "kernel", title
		title = ""
	}
	/BUG: KCSAN: / {
		flush()
		title = substr($0, index($0, "BUG: KCSAN: "))
		ours = 0
		next
	}
	title != "" && /\[(exec|exec_test|exec_example)\]/ { ours = 1 }
	title != "" && /^(\[[ 0-9.]*\] )?=+$/ { flush() }
	END { flush() }
' "$log")

# Titles without printk's time stamps, each with its count: KCSAN reports a
# given pair of accesses at most once in CONFIG_KCSAN_REPORT_ONCE_IN_MS, so
# a count above 1 is a race seen over a long stretch of the run.
list()
{
	printf '%s\n' "$classified" | sed -n "s/^$1\t//p" | sort | uniq -c |
		sort -rn | sed 's/^/    /'
}

reports=$(printf '%s\n' "$classified" | grep -c '^ours' || true)
kernel=$(printf '%s\n' "$classified" | grep -c '^kernel' || true)
if [ "$kernel" -gt 0 ]; then
	echo "kcsan-reports: $kernel report(s) of the kernel's own code alone, not counted:"
	list kernel
fi
if [ "$reports" -gt 0 ]; then
	echo "kcsan-reports: $reports KCSAN report(s) through the project's modules in $log:"
	list ours
	failed=$((failed + reports))
fi

if [ "$failed" -eq 0 ]; then
	echo "kcsan: 1 passed, 0 failed"
else
	echo "kcsan: 0 passed, $failed failed"
	exit 1
fi

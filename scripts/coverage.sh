#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# coverage.sh OUT TEST_BIN DEMO_BIN
#
# make coverage: runs the userspace suites of make check from a build with
# gcov's instrumentation (OUT, built with --coverage): TEST_BIN (the KUnit
# suites) on io_uring and on the futex fallback, and DEMO_BIN, both linked
# from the library's objects in OUT; then prints, per source file of core/
# and user/, the lines and the branches they reached (gcov -b), the totals,
# and the functions of core/ that no test entered (scripts/coverage-table.sh,
# shared with make coverage-kernel).  Exits non-zero if a suite failed; the
# table is printed either way.

set -u

out=$1 tests=$2 demo=$3
status=0

find "$out" -name '*.gcda' -delete
for backend in io_uring futex; do
	echo "# $tests, EXEC_BACKEND=$backend"
	env EXEC_BACKEND=$backend "$tests" > "$out/coverage-tests-$backend.log" 2>&1 ||
		{ status=1; tail -n 20 "$out/coverage-tests-$backend.log"; }
	tail -n 1 "$out/coverage-tests-$backend.log"
done
echo "# $demo"
"$demo" > "$out/coverage-demo.log" 2>&1 ||
	{ status=1; tail -n 20 "$out/coverage-demo.log"; }
tail -n 1 "$out/coverage-demo.log"

# The table and the list, as make coverage-kernel prints them.
# shellcheck source=scripts/coverage-table.sh
. "$(dirname "${BASH_SOURCE[0]}")/coverage-table.sh"

coverage_table "$out" core user user/io

echo
echo "Functions of core/ that no test entered:"
coverage_unentered "$out" core
exit $status

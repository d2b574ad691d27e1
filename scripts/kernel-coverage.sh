#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# kernel-coverage.sh BUILD_DIR CONSOLE_LOG
#
# make coverage-kernel, after the boot: writes the .gcda files that the
# guest's init printed on the console (scripts/kunit-qemu.sh --gcov, read
# back by scripts/gcov-console.py) beside the .gcno files of BUILD_DIR, the
# Kbuild copy of the tree that exec.ko and exec_test.ko were built in with
# EXEC_GCOV=1; then prints, per source file of core/ and kernel/, the lines
# and the branches the KUnit suites reached (gcov -b), the totals, and the
# functions of core/ that no case entered: the table of make coverage
# (scripts/coverage-table.sh).  Exits non-zero if the counters could not be
# read back whole.

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?kernel-coverage.sh BUILD_DIR CONSOLE_LOG}
log=${2:?kernel-coverage.sh BUILD_DIR CONSOLE_LOG}

"$here/gcov-console.py" "$log" "$out" || exit 1

# shellcheck source=scripts/coverage-table.sh
. "$here/coverage-table.sh"

cd "$here/.." || exit 1
coverage_table "$out" core kernel

echo
echo "Functions of core/ that no KUnit case entered:"
coverage_unentered "$out" core

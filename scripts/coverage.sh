#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# coverage.sh OUT TEST_BIN DEMO_BIN
#
# make coverage: runs the userspace suites of make check from a build with
# gcov's instrumentation (OUT, built with --coverage): TEST_BIN (the KUnit
# suites) on io_uring and on the futex fallback, and DEMO_BIN, both linked
# from the library's objects in OUT; then prints, per source file of core/ and user/, the lines and
# the branches they reached (gcov -b), the totals, and the functions of
# core/ that no test entered.  Exits non-zero if a suite failed; the table
# is printed either way.

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

# gcov -n: the summaries only, no .gcov files.  A header included by
# several objects is reported once per object; the table has the .c files.
summary()
{
	local dir=$1

	for src in "$dir"/*.c; do
		gcov -n -b -o "$out/$dir" "$src" 2>/dev/null |
			awk -v want="$src" '
			/^File / { f = $2; gsub("\047", "", f); keep = (f == want) }
			keep && /^Lines executed:/ {
				split($2, a, ":"); lp = a[2]; sub("%", "", lp); ln = $4 }
			keep && /^Branches executed:/ { bn = $4 }
			keep && /^Taken at least once:/ {
				split($4, a, ":"); bt = a[2]; sub("%", "", bt)
				if (bt == "") { split($3, b, ":"); bt = b[2]; sub("%", "", bt) } }
			END { printf "%s %s %s %s %s\n", want, lp + 0, ln + 0, bt + 0, bn + 0 }'
	done
}

{ summary core; summary user; summary user/io; } > "$out/coverage.txt"
printf '\n%-28s %8s %7s %9s %9s\n' file lines of branches of
awk '{ printf "%-28s %7.1f%% %7d %8.1f%% %9d\n", $1, $2, $3, $4, $5
       if ($1 ~ /^core\//) { cl += $2 * $3 / 100; cn += $3; cb += $4 * $5 / 100; cbn += $5 }
       else { ul += $2 * $3 / 100; un += $3; ub += $4 * $5 / 100; ubn += $5 } }
     END { printf "%-28s %7.1f%% %7d %8.1f%% %9d\n", "core/ total", 100 * cl / cn, cn, 100 * cb / cbn, cbn
           printf "%-28s %7.1f%% %7d %8.1f%% %9d\n", "user/ total", 100 * ul / un, un, 100 * ub / ubn, ubn }' \
	"$out/coverage.txt"

echo
echo "Functions of core/ that no test entered:"
for src in core/*.c; do
	gcov -n -f -o "$out/core" "$src" 2>/dev/null |
		awk -v src="$src" '
		/^Function / { fn = $2; gsub("\047", "", fn) }
		/^File / { fn = "" }
		fn != "" && /^Lines executed:0.00%/ { print "  " src ": " fn; fn = "" }'
done | sort -u
exit $status

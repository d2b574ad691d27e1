# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# The coverage table of make coverage (scripts/coverage.sh, userspace) and
# make coverage-kernel (scripts/kernel-coverage.sh), sourced by both so that
# the two print the same columns from the same gcov summaries.  Run from the
# top of the tree: the source directories (core, user, kernel) are named
# relative to it, and each one's objects, .gcno and .gcda files are in
# OBJ_ROOT/DIR.
#
#   coverage_table OBJ_ROOT DIR...
#       a line per .c file of each DIR: the lines and the branches reached
#       (gcov -b), then a total per DIR; the raw figures ("FILE lines% lines
#       taken% branches") are also left in OBJ_ROOT/coverage.txt
#   coverage_unentered OBJ_ROOT DIR
#       the functions of DIR/*.c whose lines were none of them reached

# gcov -n: the summaries only, no .gcov files.  A header included by several
# objects is reported once per object; the table has the .c files.  gcov
# names a file as the compiler was given it: "core/x.c" in the userspace
# build, an absolute path into Kbuild's copy of the tree in the kernel's.
coverage_summary()
{
	local root=$1 dir=$2 src

	for src in "$dir"/*.c; do
		gcov -n -b -o "$root/$dir" "$src" 2>/dev/null |
			awk -v want="$src" '
			function is_want(f) {
				return f == want || substr(f, length(f) - length(want)) == "/" want
			}
			/^File / { f = $2; gsub("\047", "", f); keep = is_want(f) }
			keep && /^Lines executed:/ {
				split($2, a, ":"); lp = a[2]; sub("%", "", lp); ln = $4 }
			keep && /^Branches executed:/ { bn = $4 }
			keep && /^Taken at least once:/ {
				split($4, a, ":"); bt = a[2]; sub("%", "", bt)
				if (bt == "") { split($3, b, ":"); bt = b[2]; sub("%", "", bt) } }
			END { printf "%s %s %s %s %s\n", want, lp + 0, ln + 0, bt + 0, bn + 0 }'
	done
}

coverage_table()
{
	local root=$1 dir

	shift
	for dir in "$@"; do
		coverage_summary "$root" "$dir"
	done > "$root/coverage.txt"
	printf '\n%-28s %8s %7s %9s %9s\n' file lines of branches of
	awk '
	function row(name, lp, ln, bp, bn) {
		printf "%-28s %7.1f%% %7d %8.1f%% %9d\n", name, lp, ln, bp, bn
	}
	{
		row($1, $2, $3, $4, $5)
		d = $1; sub("/.*", "", d)
		if (!(d in nl)) order[n++] = d
		l[d] += $2 * $3 / 100; nl[d] += $3
		b[d] += $4 * $5 / 100; nb[d] += $5
	}
	END {
		for (i = 0; i < n; i++) {
			d = order[i]
			row(d "/ total", nl[d] ? 100 * l[d] / nl[d] : 0, nl[d],
			    nb[d] ? 100 * b[d] / nb[d] : 0, nb[d])
		}
	}' "$root/coverage.txt"
}

coverage_unentered()
{
	local root=$1 dir=$2 src

	for src in "$dir"/*.c; do
		gcov -n -f -o "$root/$dir" "$src" 2>/dev/null |
			awk -v src="$src" '
			/^Function / { fn = $2; gsub("\047", "", fn) }
			/^File / { fn = "" }
			fn != "" && /^Lines executed:0.00%/ { print "  " src ": " fn; fn = "" }'
	done | sort -u
}

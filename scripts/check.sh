#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Helper of `make check`: runs one test command, reads its counts from the
# runner's own closing line, and keeps a results file that the final summary
# adds up.
#
#   check.sh run NAME RESULTS -- COMMAND...
#	Run COMMAND, showing its output and keeping a copy in
#	RESULTS.d/NAME.log.  The counts are taken from the last closing line
#	the runner printed, in any of these forms:
#	    N passed, N failed[, N skipped]     (plain; a "word:" may precede)
#	    # Totals: pass:N fail:N skip:N      (KTAP, as printed by KUnit)
#	    ok N / not ok N                     (TAP lines, counted)
#	Without any of them the command counts as one test, judged by its exit
#	status.  A command that exits non-zero counts at least one failure even
#	if its own line said otherwise (a sanitizer report, a crash); one that
#	ran no test counts as one failure.  Appends "NAME PASSED FAILED STATUS"
#	to RESULTS and exits non-zero if anything failed.
#
#   check.sh record NAME RESULTS PASSED FAILED
#	Append a result computed by the caller.
#
#   check.sh summary RESULTS
#	Print one line per run, then "N passed, N failed" as the last line.
#	Exits non-zero if any run failed or no run was recorded.

set -u

die()
{
	echo "check.sh: $*" >&2
	exit 2
}

# parse_counts LOG: print "PASSED FAILED" or nothing.
parse_counts()
{
	local log=$1 line

	line=$(grep -E '^([A-Za-z0-9_.-]+: *)?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?[[:space:]]*$' \
		"$log" | tail -n 1)
	if [ -n "$line" ]; then
		echo "$line" | sed -E 's/^([A-Za-z0-9_.-]+: *)?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/'
		return
	fi

	line=$(grep -E '^[[:space:]]*# Totals: pass:[0-9]+ fail:[0-9]+' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		echo "$line" | sed -E 's/.*pass:([0-9]+) fail:([0-9]+).*/\1 \2/'
		return
	fi

	if grep -qE '^(not )?ok [0-9]+' "$log"; then
		echo "$(grep -cE '^ok [0-9]+' "$log") $(grep -cE '^not ok [0-9]+' "$log")"
		return
	fi
}

cmd_run()
{
	local name=$1 results=$2 log status counts passed failed

	shift 2
	[ "${1-}" = "--" ] || die "run: expected -- before the command"
	shift
	mkdir -p "$results.d" || die "cannot create $results.d"
	log=$results.d/$name.log

	echo "=== $name: $*"
	set -o pipefail
	"$@" 2>&1 | tee "$log"
	status=$?
	set +o pipefail

	if [ ! -r "$log" ]; then
		# Removed under us (a `make clean` or a second `make check`
		# in the same output directory): nothing can be trusted.
		echo "=== $name: its log $log vanished during the run"
		counts="0 1"
	else
		counts=$(parse_counts "$log")
	fi
	if [ -n "$counts" ]; then
		passed=${counts% *}
		failed=${counts#* }
	elif [ "$status" -eq 0 ]; then
		passed=1
		failed=0
	else
		passed=0
		failed=1
	fi

	if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
		echo "=== $name: exit status $status; counted as a failure"
		failed=1
	fi
	if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
		echo "=== $name: ran no test; counted as a failure"
		failed=1
	fi

	echo "$name $passed $failed $status" >> "$results"
	echo "=== $name: $passed passed, $failed failed (exit status $status)"
	[ "$failed" -eq 0 ]
}

cmd_record()
{
	[ $# -eq 4 ] || die "record: NAME RESULTS PASSED FAILED"
	mkdir -p "$(dirname "$2")" || die "cannot create $(dirname "$2")"
	echo "$1 $3 $4 $([ "$4" -eq 0 ] && echo 0 || echo 1)" >> "$2"
	echo "=== $1: $3 passed, $4 failed"
	[ "$4" -eq 0 ]
}

cmd_summary()
{
	local results=$1 name passed failed status
	local total_p=0 total_f=0 runs=0 bad=0

	echo
	echo "=== make check summary"
	if [ -f "$results" ]; then
		while read -r name passed failed status; do
			[ -n "$name" ] || continue
			runs=$((runs + 1))
			total_p=$((total_p + passed))
			total_f=$((total_f + failed))
			if [ "$failed" -ne 0 ] || [ "$status" -ne 0 ]; then
				bad=$((bad + 1))
				printf '  FAIL  %-22s %6d passed, %d failed\n' \
					"$name" "$passed" "$failed"
			else
				printf '  ok    %-22s %6d passed, %d failed\n' \
					"$name" "$passed" "$failed"
			fi
		done < "$results"
	fi
	if [ "$runs" -eq 0 ]; then
		echo "  no run was recorded"
		total_f=$((total_f + 1))
		bad=1
	fi
	echo "$total_p passed, $total_f failed"
	[ "$bad" -eq 0 ] && [ "$total_f" -eq 0 ]
}

[ $# -ge 1 ] || die "usage: check.sh run|record|summary ..."
cmd=$1
shift
case $cmd in
run)
	[ $# -ge 3 ] || die "usage: check.sh run NAME RESULTS -- COMMAND..."
	cmd_run "$@"
	;;
record)
	cmd_record "$@"
	;;
summary)
	[ $# -eq 1 ] || die "usage: check.sh summary RESULTS"
	cmd_summary "$1"
	;;
*)
	die "unknown command $cmd"
	;;
esac

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Runs one exec-bench workload on libexec and on a reference, interleaved,
# for ROUNDS rounds (default 5), and prints each figure's median on both
# sides and their ratio: the way this project reads a figure on a shared,
# noisy machine.  The two alternate which goes first in each round, so that
# neither always runs on a cooler (or hotter) machine.
#
#   scripts/bench-vs.sh WORKLOAD REFERENCE [ARGS...]
#
#   scripts/bench-vs.sh wakeup_latency raw_futex
#   scripts/bench-vs.sh timer_lateness raw_uring_timeout
#   scripts/bench-vs.sh wakeup_latency raw_futex --executor loop
#   scripts/bench-vs.sh blocking_mix condvar_spare --threads 2
#   scripts/bench-vs.sh post_throughput idle --load
#
# REFERENCE is the reference's --executor kind, or idle: the same libexec
# run without --load (what the load costs it).  REF_BENCH names another
# program for the reference side, run the same way (build/peer-asio
# timer_lateness --executor io_context).  ARGS go to both sides
# (for instance --samples 5000), except --executor and --threads, which
# pick the libexec executor under test (for instance --executor loop);
# the reference pools (condvar_pool, condvar_spare) take --threads as
# well.  Environment: EXEC_BENCH (default build/exec-bench), REF_BENCH,
# ROUNDS, BENCH_LOG (a file to which every JSON line is appended).  Exit
# status 1 if any run failed or did not verify.

set -u

BENCH=${EXEC_BENCH:-build/exec-bench}
REF_BENCH=${REF_BENCH:-$BENCH}
ROUNDS=${ROUNDS:-5}

if [ $# -lt 2 ]; then
	sed -n '3,26s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
workload=$1
ref=$2
shift 2

if [ ! -x "$BENCH" ] || [ ! -x "$REF_BENCH" ]; then
	echo "bench-vs.sh: $BENCH or $REF_BENCH not found; run 'make bench' first" >&2
	exit 2
fi

# Whether the reference takes the T of --threads: the raw references run
# on one thread, the reference pools on T.
case $ref in
condvar_*)	ref_threads=1 ;;
*)		ref_threads=0 ;;
esac
case $workload in
blocking_mix)		keys='cpu_done_ms all_done_ms threads_max' ;;
wakeup_latency)		keys='p50_ns p99_ns p999_ns max_ns' ;;
timer_lateness)		keys='p50_ns p99_ns max_ns' ;;
chain_latency)		keys='ns_per_hop' ;;
post_throughput | serial_throughput)	keys='ops_per_s' ;;
timer_churn)		keys='arm_ns cancel_ns rss_kb' ;;
strand_churn)		keys='create_ns destroy_ns bytes_per_strand ops_per_s' ;;
*)
	echo "bench-vs.sh: no figures known for '$workload'" >&2
	exit 2
	;;
esac

json_get() {
	printf '%s\n' "$1" |
		sed -n 's/.*"'"$2"'":"\{0,1\}\([^,"}]*\)"\{0,1\}[,}].*/\1/p'
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# The reference's arguments: ARGS without --executor and --threads (for
# idle, without --load and its count), one per line in $tmp/refargs.
: > "$tmp/refargs"
skip=0
for a in "$@"; do
	if [ "$ref" = idle ]; then
		case $skip$a in
		1--*) ;;
		1*) skip=0; continue ;;
		esac
		skip=0
		case $a in
		--load=*) ;;
		--load) skip=1 ;;
		*) printf '%s\n' "$a" >> "$tmp/refargs" ;;
		esac
		continue
	fi
	if [ "$skip" -eq 1 ]; then
		skip=0
		continue
	fi
	case $a in
	--threads=*) [ "$ref_threads" -eq 1 ] &&
		printf '%s\n' "$a" >> "$tmp/refargs" ;;
	--executor=*) ;;
	--threads) [ "$ref_threads" -eq 1 ] &&
		printf '%s\n' "$a" >> "$tmp/refargs" || skip=1 ;;
	--executor) skip=1 ;;
	*) printf '%s\n' "$a" >> "$tmp/refargs" ;;
	esac
done

# run_ref: one reference run, with its arguments read back.
run_ref() {
	set -- --executor "$ref"
	[ "$ref" = idle ] && set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done < "$tmp/refargs"
	run ref "$@"
}

# run SIDE ARGS...: one run, its line kept in $tmp/SIDE.
run() {
	side=$1
	shift
	prog=$BENCH
	[ "$side" = ref ] && prog=$REF_BENCH
	if ! line=$("$prog" "$workload" "$@" 2>"$tmp/err"); then
		echo "bench-vs.sh: $prog $workload $* failed:" >&2
		cat "$tmp/err" >&2
		: > "$tmp/failed"
		return
	fi
	[ -n "${BENCH_LOG:-}" ] && printf '%s\n' "$line" >> "$BENCH_LOG"
	printf '%s\n' "$line" >> "$tmp/$side"
}

: > "$tmp/lib"
: > "$tmp/ref"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	if [ $((i % 2)) -eq 0 ]; then
		run lib "$@"
		run_ref
	else
		run_ref
		run lib "$@"
	fi
	i=$((i + 1))
done

# median SIDE KEY: the median of KEY over SIDE's runs (empty if none).
median() {
	while read -r line; do
		json_get "$line" "$2"
	done < "$tmp/$1" | sort -g > "$tmp/vals"
	n=$(wc -l < "$tmp/vals")
	[ "$n" -gt 0 ] || return
	if [ $((n % 2)) -eq 1 ]; then
		sed -n "$(((n + 1) / 2))p" "$tmp/vals"
	else
		a=$(sed -n "$((n / 2))p" "$tmp/vals")
		b=$(sed -n "$((n / 2 + 1))p" "$tmp/vals")
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%.6g\n", (a + b) / 2 }'
	fi
}

lib_line=$(head -n 1 "$tmp/lib")
echo "# $workload: libexec ($(json_get "$lib_line" executor)," \
	"$(json_get "$lib_line" threads) threads, backend" \
	"$(json_get "$lib_line" backend)) against $ref; medians of" \
	"$(wc -l < "$tmp/lib") and $(wc -l < "$tmp/ref") interleaved runs;" \
	"$(uname -r), $(nproc) CPUs"
printf '%-12s %14s %14s %8s   %s\n' figure libexec "$ref" ratio \
	'libexec runs'
for k in $keys; do
	a=$(median lib "$k")
	b=$(median ref "$k")
	all=$(while read -r line; do json_get "$line" "$k"; done < "$tmp/lib" |
		tr '\n' ' ')
	ratio=$(awk -v a="${a:-0}" -v b="${b:-0}" \
		'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	printf '%-12s %14s %14s %8s   %s\n' "$k" "${a:--}" "${b:--}" \
		"$ratio" "${all% }"
done

[ -e "$tmp/failed" ] && exit 1
exit 0

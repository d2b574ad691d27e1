#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Runs each workload of exec-bench RUNS times (default 3) and prints, per
# workload, the key figures of the median run: the figures for the project's
# notes.  Reference figures (Documentation/benchmarks.rst) are medians of 3 runs
# too, and single runs on shared VMs drift by up to 2x.
#
#   scripts/bench-median.sh [EXTRA-ARGS...]
#
# EXTRA-ARGS go to every run (e.g. --threads 2).  Environment: EXEC_BENCH,
# the binary (default build/exec-bench, from `make bench`); RUNS; BENCH_LOG,
# a file to which every run's JSON line is appended.
#
# The median run is chosen by one figure per workload (the first one listed
# below; for idle_cost cpu_ms), and all of that run's figures are printed,
# so that they come from one run.  Exit status 1 if any run failed or did
# not verify; its stderr is shown.

set -u

BENCH=${EXEC_BENCH:-build/exec-bench}
RUNS=${RUNS:-3}

if [ ! -x "$BENCH" ]; then
	echo "bench-median.sh: $BENCH not found; run 'make bench' first" >&2
	exit 2
fi

# workload, then its figures; the first figure picks the median.
WORKLOADS='post_throughput ops_per_s
chain_latency ns_per_hop
wakeup_latency p50_ns p99_ns p999_ns max_ns
timer_lateness p50_ns p99_ns max_ns
timer_churn arm_ns cancel_ns rss_kb
serial_throughput ops_per_s order_violations
strand_churn create_ns destroy_ns bytes_per_strand ops_per_s
idle_cost cpu_ms wakeups
blocking_mix cpu_done_ms all_done_ms ideal_ms threads_max'

# Value of key $2 in the flat JSON line $1.
json_get() {
	printf '%s\n' "$1" |
		sed -n 's/.*"'"$2"'":"\{0,1\}\([^,"}]*\)"\{0,1\}[,}].*/\1/p'
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

first=$(printf '%s\n' "$WORKLOADS" | head -n 1 | cut -d' ' -f1)
line=$("$BENCH" "$first" --tasks 1 "$@" 2>/dev/null)
echo "# exec-bench medians of $RUNS runs; $(uname -sr), $(nproc) CPUs," \
	"backend $(json_get "$line" backend), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-18s %-8s %-9s %s\n' workload threads seconds \
	'figures of the median run   (the ranking figure in every run)'

status=0
printf '%s\n' "$WORKLOADS" | while read -r name keys; do
	by=${keys%% *}
	: > "$tmp/lines"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		if ! line=$("$BENCH" "$name" "$@" 2>"$tmp/err"); then
			echo "bench-median.sh: $name run $i failed:" >&2
			cat "$tmp/err" >&2
			echo 1 > "$tmp/failed"
			continue
		fi
		[ -n "${BENCH_LOG:-}" ] && printf '%s\n' "$line" >> "$BENCH_LOG"
		# Keep the ranking figure in front, for sort.
		printf '%s %s\n' "$(json_get "$line" "$by")" "$line" \
			>> "$tmp/lines"
	done
	n=$(wc -l < "$tmp/lines")
	if [ "$n" -eq 0 ]; then
		printf '%-18s %s\n' "$name" 'no verified run'
		continue
	fi
	sort -g "$tmp/lines" > "$tmp/sorted"
	med=$(sed -n "$(((n + 1) / 2))p" "$tmp/sorted" | cut -d' ' -f2-)
	all=$(cut -d' ' -f1 "$tmp/sorted" | tr '\n' ' ')
	figs=
	for k in $keys; do
		figs="$figs $k=$(json_get "$med" "$k")"
	done
	printf '%-18s %-8s %-9s %s   (%s: %s)\n' "$name" \
		"$(json_get "$med" threads)" "$(json_get "$med" seconds)" \
		"${figs# }" "$by" "${all% }"
done

[ -e "$tmp/failed" ] && status=1
exit $status

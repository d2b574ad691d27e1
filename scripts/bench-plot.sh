#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Runs a set of exec-bench workloads on libexec's executors and on the
# references, interleaved over ROUNDS rounds, and draws the charts with
# scripts/bench-plot.py (`make bench-plot`).
#
#   scripts/bench-plot.sh BENCH OUTDIR
#
# Each round runs every configuration once, in the opposite order to the
# round before, so that no configuration always follows the same one.  In
# OUTDIR: results.jsonl (the output lines), samples.jsonl (the samples file,
# EXEC_BENCH_SAMPLES), run.txt (what ran, where, when) and the SVG files.
# Environment, with the defaults:
#
#   BENCH_PLOT_ROUNDS=5        rounds
#   BENCH_PLOT_SAMPLES=10000   wakeup_latency's samples, timer_lateness's
#   BENCH_PLOT_TASKS=1000000   post_throughput's, serial_throughput's tasks
#   BENCH_PLOT_HOPS=200000     chain_latency's hops
#   BENCH_PLOT_THREADS="1 2 4" the thread counts of the throughput runs
#   PYTHON3=/usr/bin/python3   the Python that has matplotlib
#
# Exit status 1 if any run failed (the charts are drawn from the others).

set -u

if [ $# -ne 2 ]; then
	sed -n '4,23s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
bench=$1
out=$2
rounds=${BENCH_PLOT_ROUNDS:-5}
samples=${BENCH_PLOT_SAMPLES:-10000}
tasks=${BENCH_PLOT_TASKS:-1000000}
hops=${BENCH_PLOT_HOPS:-200000}
threads=${BENCH_PLOT_THREADS:-1 2 4}
python=${PYTHON3:-/usr/bin/python3}

if [ ! -x "$bench" ]; then
	echo "bench-plot.sh: $bench not found; run 'make bench' first" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
rm -f "$out"/*.svg
: > "$out/results.jsonl"
: > "$out/samples.jsonl"

# The configurations, one exec-bench command line per line.
conf=$out/configs
{
	for e in thread_pool loop serial raw_futex condvar_pool; do
		echo "wakeup_latency --samples $samples --executor $e"
	done
	for e in thread_pool loop serial raw_uring_timeout; do
		echo "timer_lateness --samples $samples --executor $e"
	done
	echo "chain_latency --tasks $hops --executor loop"
	for t in $threads; do
		for e in thread_pool condvar_pool; do
			echo "post_throughput --tasks $tasks --threads $t --executor $e"
		done
		echo "serial_throughput --tasks $tasks --threads $t"
		for e in thread_pool serial condvar_pool; do
			echo "chain_latency --tasks $hops --threads $t --executor $e"
		done
	done
} > "$conf"
tac "$conf" > "$conf.rev"

n=$(wc -l < "$conf")
echo "bench-plot.sh: $rounds rounds of $n runs" >&2
failed=0
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	list=$conf
	[ $((i % 2)) -eq 0 ] && list=$conf.rev
	while read -r args; do
		# $args is split into words on purpose.
		# shellcheck disable=SC2086
		if ! EXEC_BENCH_SAMPLES=$out/samples.jsonl "$bench" $args \
		     >> "$out/results.jsonl" 2> "$out/err"; then
			echo "bench-plot.sh: round $i: $args failed:" >&2
			cat "$out/err" >&2
			failed=$((failed + 1))
		fi
	done < "$list"
	echo "bench-plot.sh: round $i of $rounds done" >&2
done
rm -f "$out/err" "$conf.rev"

commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
note="$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r),"
note="$note exec-bench $commit, $rounds interleaved rounds; read as ratios"
{
	echo "$note"
	echo "BENCH_PLOT_ROUNDS=$rounds BENCH_PLOT_SAMPLES=$samples" \
		"BENCH_PLOT_TASKS=$tasks BENCH_PLOT_HOPS=$hops" \
		"BENCH_PLOT_THREADS='$threads'"
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "failed runs: $failed"
} > "$out/run.txt"

"$python" "$(dirname "$0")/bench-plot.py" --out "$out" --note "$note" \
	"$out/results.jsonl" "$out/samples.jsonl" || exit 1
[ "$failed" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The loaded variant of the latency workloads (Documentation/benchmarks.rst,
# "Loaded variant"): each beside its raw reference under the same load,
# ROUNDS (default 7) interleaved rounds each, through scripts/bench-vs.sh,
# which prints the medians and the ratios.
#
#   scripts/bench-loaded.sh [--throughput] [L [ARGS...]]
#
# L is the load's spinning threads (default: online CPUs); ARGS go to every
# run (for instance --samples 5000).  The pairs are timer_lateness on the
# thread pool and on the loop executor against raw_uring_timeout, and
# wakeup_latency against raw_futex.  --throughput adds post_throughput and
# serial_throughput loaded against the same runs idle (bench-vs.sh's idle
# reference).  Where the Boost.Asio peer is built (make peer-asio; PEER_ASIO,
# default build/peer-asio), timer_lateness on both executors is also run
# against it; where the oneTBB peer is (make peer-tbb; PEER_TBB), --throughput
# runs the two throughput workloads loaded against it loaded too.
# Environment: as bench-vs.sh's (EXEC_BENCH, ROUNDS, BENCH_LOG), PEER_ASIO,
# PEER_TBB.  Exit status 1 if any run failed or did not verify.

set -u

dir=$(dirname "$0")
throughput=0
if [ "${1:-}" = --throughput ]; then
	throughput=1
	shift
fi
case ${1:-} in
'' | --*) load=$(nproc) ;;
*) load=$1; shift ;;
esac
ROUNDS=${ROUNDS:-7}
export ROUNDS

status=0
pair() {
	"$dir/bench-vs.sh" "$@" --load "$load" || status=1
	echo
}

echo "# load: $load spinning threads; $ROUNDS rounds; load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) before"
pair timer_lateness raw_uring_timeout "$@"
pair timer_lateness raw_uring_timeout --executor loop "$@"
if [ -x "${PEER_ASIO:=build/peer-asio}" ]; then
	REF_BENCH=$PEER_ASIO pair timer_lateness io_context "$@"
	REF_BENCH=$PEER_ASIO pair timer_lateness io_context --executor loop "$@"
fi
pair wakeup_latency raw_futex "$@"
if [ "$throughput" -eq 1 ]; then
	pair post_throughput idle "$@"
	pair serial_throughput idle "$@"
	if [ -x "${PEER_TBB:=build/peer-tbb}" ]; then
		REF_BENCH=$PEER_TBB pair post_throughput task_arena "$@"
		REF_BENCH=$PEER_TBB pair serial_throughput task_arena "$@"
	fi
fi
exit $status

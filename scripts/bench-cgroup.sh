#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Runs a command in a CPU cgroup of its own whose weight is the largest the
# kernel takes, so that on a machine shared with other people's builds the
# command (a benchmark, and the --load spinners it starts) gets the CPUs
# whenever it wants them, and its figures are those of a machine busy with
# the benchmark's own load only (Documentation/benchmarks.rst, "Under
# load").  Other work still runs when the command leaves a CPU idle.
#
#   scripts/bench-cgroup.sh COMMAND [ARGS...]
#   scripts/bench-cgroup.sh scripts/bench-loaded.sh --throughput
#
# Needs root and the cpu controller, of cgroup v2 (cpu.weight) or v1
# (cpu.shares); without them it says so and runs the command as it is.
# Environment: EXEC_BENCH_CGROUP, the group's name (default exec-bench).

set -u

name=${EXEC_BENCH_CGROUP:-exec-bench}
dir=

if [ -w /sys/fs/cgroup/cgroup.subtree_control ] &&
   grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	# v2: the controller must be on for the root's children.
	echo +cpu > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	dir=/sys/fs/cgroup/$name
	mkdir -p "$dir" 2>/dev/null && echo 10000 > "$dir/cpu.weight" ||
		dir=
elif [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu ]; then
	dir=/sys/fs/cgroup/cpu/$name
	mkdir -p "$dir" 2>/dev/null && echo 262144 > "$dir/cpu.shares" ||
		dir=
fi
if [ -n "$dir" ] && echo $$ > "$dir/cgroup.procs" 2>/dev/null; then
	:
else
	echo "bench-cgroup.sh: no writable cpu cgroup; running as is" >&2
fi
exec "$@"

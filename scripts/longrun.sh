#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The long runs of Documentation/testing.rst, on demand (not in `make
# check`): 10^8 tasks through every executor kind with exact-once counting,
# and a one-hour soak of a mixed workload that fails if the resident set
# grows more than 1 MiB over its first-minute level, or the threads or the
# open descriptors grow at all.
#
#   scripts/longrun.sh [count|soak|all]     (default all)
#
# Environment: TASKS (default 100000000), SECONDS_SOAK (default 3600),
# BASELINE (default 60), OUT (default build/longrun).  Each run's JSON lines
# go to $OUT/count.json and $OUT/soak.json; the exit status is 0 only if
# every run accounted for everything.
set -eu

cd "$(dirname "$0")/.."
what=${1:-all}
TASKS=${TASKS:-100000000}
SECONDS_SOAK=${SECONDS_SOAK:-3600}
BASELINE=${BASELINE:-60}
OUT=${OUT:-build/longrun}

make -s build/exec-longrun
mkdir -p "$OUT"
status=0

if [ "$what" = count ] || [ "$what" = all ]; then
	echo "longrun: $TASKS tasks through every executor -> $OUT/count.json"
	build/exec-longrun count "$TASKS" > "$OUT/count.json" || status=1
	cat "$OUT/count.json"
fi
if [ "$what" = soak ] || [ "$what" = all ]; then
	echo "longrun: soak for $SECONDS_SOAK s -> $OUT/soak.json"
	build/exec-longrun soak "$SECONDS_SOAK" "$BASELINE" > \
		"$OUT/soak.json" || status=1
	cat "$OUT/soak.json"
fi
if [ "$status" = 0 ]; then
	echo "longrun: all accounted for"
else
	echo "longrun: FAILED"
fi
exit "$status"

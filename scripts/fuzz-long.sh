#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The libFuzzer targets of tests/fuzz/ (tests/fuzz/fuzz.mk), run.
#
#   fuzz-long.sh [SECONDS [TARGET...]]
#	Builds the targets in build-fuzz (FUZZ_O) and runs each for SECONDS
#	(default 3600), one after the other, starting from its committed
#	corpus; new inputs go to build-fuzz/corpus-TARGET, crashes to
#	build-fuzz/crash-TARGET/.  Prints the executions each reached.  To
#	keep an input, copy it into tests/fuzz/corpus/TARGET/ (a finding:
#	once fixed, it stays there as a regression case).
#   fuzz-long.sh --check FUZZ_O SECONDS TARGET
#	make check-fuzz: every corpus input once, then SECONDS of fuzzing
#	into a scratch directory, a failing input kept in FUZZ_O/crash-TARGET/;
#	"N passed, N failed" at the end.  The fuzzing starts from FUZZ_SEED
#	(default 1), so that make check mutates the same way each time and a
#	new finding comes from a change of the code, not from the draw; the
#	long runs draw their own seeds.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# execs LOG: the executions libFuzzer reported last.
execs()
{
	grep -oE '(#[0-9]+|stat::number_of_executed_units: *[0-9]+)' "$1" |
		tail -n 1 | grep -oE '[0-9]+$'
}

scratch=

check_one()
{
	local out=$1 seconds=$2 t=$3 bin crash corpus log pass=0 fail=0

	bin=$(cd "$out" && pwd)/fuzz-$t
	crash=$(cd "$out" && pwd)/crash-$t
	mkdir -p "$crash"
	corpus=$top/tests/fuzz/corpus/$t
	scratch=$(mktemp -d)
	log=$scratch/log
	trap 'rm -rf "$scratch"' EXIT
	if "$bin" -runs=0 -artifact_prefix="$crash/" "$corpus" >"$log" 2>&1; then
		echo "fuzz-$t: corpus of $(ls "$corpus" | wc -l) inputs: ok"
		pass=$((pass + 1))
	else
		tail -n 40 "$log"
		echo "fuzz-$t: corpus: FAILED"
		fail=$((fail + 1))
	fi
	mkdir -p "$scratch/new"
	if (cd "$scratch" && "$bin" -max_total_time="$seconds" \
		-seed="${FUZZ_SEED:-1}" \
		-print_final_stats=1 -artifact_prefix="$crash/" \
		"$scratch/new" "$corpus") >"$log" 2>&1; then
		echo "fuzz-$t: ${seconds}s, $(execs "$log") executions: ok"
		pass=$((pass + 1))
	else
		tail -n 60 "$log"
		echo "fuzz-$t: FAILED; the input is in $crash/"
		fail=$((fail + 1))
	fi
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}

if [ "${1:-}" = --check ]; then
	[ $# = 4 ] || { echo "usage: $0 --check FUZZ_O SECONDS TARGET" >&2; exit 2; }
	check_one "$2" "$3" "$4"
	exit
fi

seconds=${1:-3600}
shift || :
targets=${*:-wheel http api}
out=${FUZZ_O:-build-fuzz}
cd "$top" || exit 2
make --no-print-directory O="$out" CC=clang CFLAGS='-O1 -g' \
	SAN='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	fuzz-build >/dev/null || exit 2
status=0
for t in $targets; do
	mkdir -p "$out/corpus-$t" "$out/crash-$t"
	log=$out/fuzz-$t.log
	"$out/fuzz-$t" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="$out/crash-$t/" \
		"$out/corpus-$t" "tests/fuzz/corpus/$t" >"$log" 2>&1 || status=1
	echo "fuzz-$t: $(execs "$log") executions in ${seconds}s," \
		"exit $status; log $log"
done
exit $status

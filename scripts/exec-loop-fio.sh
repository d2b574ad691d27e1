#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# On demand: fio on exec_loop.ko against the stock loop driver, in the
# same boot, alternating (tests/guest/exec_loop_fio.c): 4 KiB random read
# and random write, O_DIRECT, io_uring, queue depth 1 and 32, numjobs 1
# and 2 (--group_reporting: a job group's summed IOPS and the latency of
# all its I/O), on a disk bound to a filled file on tmpfs.  Prints, per
# job, each driver's median IOPS and median p50/p99 completion latency over
# the rounds, and exec_loop's ratios to the stock driver's.
#
# Usage: exec-loop-fio.sh [--bench-kernel | --kernel DIR] [--rounds N]
#                         [--runtime SEC] [--numjobs LIST] [--jobs LIST]
#                         [--smp N] [--trace [--trace-raw N]]
#
#   --kernel DIR    kernel build directory (default: the debug test kernel
#                   of scripts/kernel-build.sh, built with the loop driver)
#   --bench-kernel  the benchmark kernel of scripts/kernel-bench.sh
#                   (scripts/kernel-config-bench, no debugging; built if
#                   not cached), for the figures; the debug kernel is for
#                   the correctness runs
#   --no-build      with --bench-kernel: fail instead of building it
#   --numjobs LIST  fio's --numjobs values, comma-separated (default 1,2)
#   --jobs LIST     the jobs to run, comma-separated (default all:
#                   randread-qd1,randread-qd32,randwrite-qd1,randwrite-qd32)
#   --trace         with --bench-kernel: the benchmark kernel with event
#                   tracing (cached as "benchtrace", as kernel-bench.sh
#                   --trace builds it); every run is traced in the guest
#                   and summed up in an "exec-fio-trace:" line
#                   (tests/guest/fio_trace.h), printed after the table:
#                   the requests' time in the driver, and each class of
#                   task's CPU time and runnable waits
#   --trace-raw N   with --trace: N lines of each run's trace as well, in
#                   the console log ("exec-fio-raw:" lines)
#   --rounds N      rounds, each running every job on both drivers
#                   (default 5)
#   --runtime SEC   each fio run's time, after 1 s of ramp (default 3)
#   --smp N         guest CPUs (default 2)
#   --modules DIR   an existing build of exec.ko against the same kernel
#                   (on the debug kernel, make kernel-test-modules:
#                   build/kernel/test) instead of a build of its own
#
# Needs Debian's fio (its libraries go into the initramfs) and a kernel
# with CONFIG_SYSVIPC, which fio needs for its shared memory segment, as
# the test kernel of scripts/kernel-config and the benchmark kernel of
# scripts/kernel-config-bench have (see Documentation/benchmarks.rst, "The
# loop driver on exec").  The console log also has each run's guest CPU
# time and context switches ("exec-fio-cpu:" lines).  The console
# log and the modules go under build/exec-loop-fio/ (build/exec-loop-fio/bench/
# for the benchmark kernel).  On a kernel without KUnit (the benchmark
# kernel) exec.ko is built alone, as make kernel-modules builds it.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")

kdir='' rounds=5 runtime=3 smp=2 mods='' bench=0 build=1 numjobs=1,2
jobs='' trace=0 raw=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kdir=${2:?}; shift ;;
	--bench-kernel) bench=1 ;;
	--no-build) build=0 ;;
	--numjobs) numjobs=${2:?}; shift ;;
	--jobs) jobs=${2:?}; shift ;;
	--trace) trace=1 ;;
	--trace-raw) raw=${2:?}; shift ;;
	--rounds) rounds=${2:?}; shift ;;
	--runtime) runtime=${2:?}; shift ;;
	--smp) smp=${2:?}; shift ;;
	--modules) mods=$(cd "${2:?}" && pwd); shift ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) echo "exec-loop-fio: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
die()
{
	echo "exec-loop-fio: error: $*" >&2
	exit 1
}
command -v fio > /dev/null || die "fio missing (apt-get install fio)"
[[ $numjobs =~ ^[1-9][0-9]?(,[1-9][0-9]?){0,7}$ ]] ||
	die "--numjobs takes a comma-separated list of up to 8 numbers"
[[ -z $jobs || $jobs =~ ^rand(read|write)-qd(1|32)(,rand(read|write)-qd(1|32)){0,3}$ ]] ||
	die "--jobs takes a comma-separated list of randread-qd1, randread-qd32, randwrite-qd1, randwrite-qd32"
[ "$bench" = 0 ] || [ -z "$kdir" ] ||
	die "--bench-kernel and --kernel exclude each other"
[ "$trace" = 0 ] || [ "$bench" = 1 ] || die "--trace needs --bench-kernel"
[[ $raw =~ ^[0-9]{1,6}$ ]] || die "--trace-raw takes a number of lines"
[ "$raw" = 0 ] || [ "$trace" = 1 ] || die "--trace-raw needs --trace"
out=$top/build/exec-loop-fio
if [ "$bench" = 1 ]; then
	# The benchmark kernel as scripts/kernel-bench.sh names it, so that
	# both share one cached build.
	bargs=(--config "$here/kernel-config-bench" --name bench)
	if [ "$trace" = 1 ]; then
		# The fragment as kernel-bench.sh --trace writes it, so that
		# kernel-build.sh finds the same cached build.
		mkdir -p "$top/build/kernel-bench"
		cat "$here/kernel-config-bench" "$here/kernel-config-bench-trace" \
			> "$top/build/kernel-bench/kernel-config-benchtrace"
		bargs=(--config "$top/build/kernel-bench/kernel-config-benchtrace"
		       --name benchtrace)
	fi
	[ "$build" = 1 ] || bargs+=(--no-build)
	kdir=$("$here/kernel-build.sh" "${bargs[@]}") ||
		die "no benchmark kernel (scripts/kernel-build.sh failed)"
	out=$out/bench
	[ "$trace" = 0 ] || out=$out-trace
elif [ -z "$kdir" ]; then
	kdir=$("$here/kernel-build.sh" --print-build-dir) ||
		die "no test kernel"
fi
[ -f "$kdir/drivers/block/loop.ko" ] ||
	die "$kdir has no drivers/block/loop.ko (CONFIG_BLK_DEV_LOOP=m)"
# fio keeps its jobs' state in a System V shared memory segment, threads or
# not: without SYSVIPC every run fails with "failed to setup shm segment".
grep -qx 'CONFIG_SYSVIPC=y' "$kdir/.config" ||
	die "$kdir lacks CONFIG_SYSVIPC, which fio needs (shmget)"

mkdir -p "$out"
if [ -z "$mods" ] && grep -qx 'CONFIG_KUNIT=y' "$kdir/.config"; then
	mods=$out/kernel
	make -C "$top" --no-print-directory kernel-test-modules \
		TEST_KDIR="$kdir" TEST_KERNEL_OUT="$mods" \
		> "$out/modules.log" 2>&1 ||
		die "test modules: see $out/modules.log"
elif [ -z "$mods" ]; then
	# No KUnit: exec.ko alone, the module a driver ships against.
	make -C "$top" --no-print-directory kernel-modules KDIR="$kdir" \
		KERNEL_OUT="$out/kernel" > "$out/modules.log" 2>&1 ||
		die "exec.ko: see $out/modules.log"
	mods=$out/kernel/$(basename "$kdir")
fi
if grep -qE '^CONFIG_(KASAN|PROVE_LOCKING)=y' "$kdir/.config"; then
	label="debug kernel ($(basename "$kdir"))"
else
	label="benchmark kernel ($(basename "$kdir"))"
fi
label+=", QEMU ${EXEC_KUNIT_ACCEL:-tcg}, $smp vCPUs, $rounds round(s)"
label+=" of ${runtime} s per run"
"$here/exec-loop.sh" --kdir "$kdir" --symvers "$mods/Module.symvers" \
	--out "$out/exec-loop" > "$out/exec-loop.log" 2>&1 ||
	die "exec_loop.ko: see $out/exec-loop.log"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/exec_loop_fio" \
	"$top/tests/guest/exec_loop_fio.c"

files=()
while read -r lib; do
	files+=(--file "$lib")
done < <(ldd /usr/bin/fio | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }')
files+=(--file /usr/bin/fio)

nnj=$(tr ',' '\n' <<< "$numjobs" | wc -l)
EXEC_KUNIT_LOG=$out/console.log \
	"$here/kunit-qemu.sh" --kernel "$kdir" --quiet --smp "$smp" \
	--memory 2G \
	--timeout $((300 + rounds * 8 * nnj * (runtime + 4) * (3 + trace * 6))) \
	--append "EXEC_FIO_ROUNDS=$rounds EXEC_FIO_RUNTIME=$runtime EXEC_FIO_NUMJOBS=$numjobs EXEC_FIO_JOBS=$jobs EXEC_FIO_TRACE=$trace EXEC_FIO_TRACE_RAW=$raw" \
	--run "$out/exec_loop_fio" "${files[@]}" \
	"$mods/exec.ko" "$kdir/drivers/block/loop.ko" \
	"$out/exec-loop/exec_loop.ko" | tail -n 3

# Terse v3: read IOPS field 8, write IOPS 49; the completion latency
# percentiles ("99.000000%=N", usec) fields 18-37 (read), 59-78 (write).
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$out/console.log" |
	grep '^exec-fio: ' | awk -v rounds="$rounds" -v numjobs="$numjobs" \
	-v label="$label" '
	function pct(first, want,   i, kv) {
		for (i = first; i < first + 20; i++) {
			split($i, kv, "%=")
			if (kv[1] + 0 == want)
				return kv[2] + 0
		}
		return -1
	}
	function median(key, n,   i, j, t, a) {
		for (i = 1; i <= n; i++)
			a[i] = v[key, i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	BEGIN { FS = ";" }
	{
		split($1, head, " ")
		drv = head[3]; job = head[4]
		# The terse line starts after the four words of the prefix.
		sub(/^exec-fio: [0-9]+ [^ ]+ [^ ]+ /, "")
		$0 = $0
		w = job ~ /write/
		k = drv SUBSEP job
		n[k]++
		v[k, "iops", n[k]] = w ? $49 : $8
		v[k, "p50", n[k]] = pct(w ? 59 : 18, 50)
		v[k, "p99", n[k]] = pct(w ? 59 : 18, 99)
		jobs[job] = 1
	}
	END {
		print label
		printf "%-20s %-10s %4s %10s %9s %9s\n", "job", "driver", \
			"runs", "IOPS", "p50 us", "p99 us"
		split("randread-qd1 randread-qd32 randwrite-qd1 randwrite-qd32", base, " ")
		nnj = split(numjobs, nj, ",")
		for (o = 1; o <= 4 * nnj; o++) {
			job = base[(o - 1) % 4 + 1] "-nj" nj[int((o - 1) / 4) + 1]
			if (!(job in jobs))
				continue
			for (d = 1; d <= 2; d++) {
				drv = d == 1 ? "loop" : "exec_loop"
				k = drv SUBSEP job
				for (m = 1; m <= 3; m++) {
					f = m == 1 ? "iops" : m == 2 ? "p50" : "p99"
					for (i = 1; i <= n[k]; i++)
						v[f, i] = v[k, f, i]
					med[drv, f] = median(f, n[k])
				}
				printf "%-20s %-10s %4d %10.0f %9.0f %9.0f\n", job, \
					drv, n[k], med[drv, "iops"], \
					med[drv, "p50"], med[drv, "p99"]
			}
			printf "%-20s %-10s %4s %10.2f %9.2f %9.2f\n", job, \
				"ratio", "", \
				med["exec_loop", "iops"] / med["loop", "iops"], \
				med["exec_loop", "p50"] / med["loop", "p50"], \
				med["exec_loop", "p99"] / med["loop", "p99"]
		}
	}' | tee "$out/table.txt"
if [ "$trace" = 1 ]; then
	echo "traced runs (tests/guest/fio_trace.h):"
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$out/console.log" |
		grep '^exec-fio-trace: ' | sed 's/^exec-fio-trace: //'
fi

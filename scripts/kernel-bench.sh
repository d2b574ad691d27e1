#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The kernel benchmark: builds exec.ko and bench/kernel/exec_kbench.ko
# against a kernel built for benchmarking, boots that kernel in QEMU with
# both modules loaded (exec_kbench.ko runs every workload at load time, for
# libexec, for the kernel's workqueues and, for the timer workloads, for raw
# hrtimers, in the same boot) and prints a side-by-side table from the JSON
# lines of the kernel log.  The initramfs, the guest's command line and
# the boot are those of scripts/qemu-boot.sh, which scripts/kunit-qemu.sh
# boots with too.
#
# Usage: kernel-bench.sh [OPTION]... [PARAM=VALUE]...
#
# PARAM=VALUE pairs are exec_kbench.ko's module parameters (tasks=, hops=,
# samples=, timer_samples=, timer_settle_ms=, churn_timers=, strands=, serial_tasks=, churn_strands=,
# blocking_tasks=, cpu_tasks=, threads=, producers=, runs=, only=); see
# bench/kernel/kbench_main.c.
#
# Options:
#   --debug           use the debug test kernel of scripts/kernel-build.sh
#                     (KASAN, lockdep) instead of the benchmark kernel; the
#                     table says so in its header
#   --kernel DIR      use this kernel build directory
#   --build-kernel    only build (or find) the benchmark kernel, print its
#                     directory and exit
#   --no-build        fail instead of building the benchmark kernel
#   --smp N           guest CPUs (default 2)
#   --load [L]        the loaded variant: the guest's /init runs L processes
#                     (default: one per guest CPU, --smp) that spin on plain
#                     arithmetic at nice 0 in user space while the modules
#                     load, and so while every workload runs, and kills them
#                     once exec_kbench.ko's load has returned (EXEC_LOAD=L on
#                     the kernel command line; tests/guest/init.c); the
#                     module gets load=L, which it only echoes into each
#                     JSON line ("load":L), and the table says "loaded";
#                     on a machine shared with other work, run the script
#                     under scripts/bench-cgroup.sh, or the host's other
#                     work, not the guest's load, makes most of the figures
#                     (Documentation/benchmarks.rst, "The kernel benchmark
#                     under load")
#   --memory SIZE     guest memory (default 1G)
#   --accel A         tcg (default, or $EXEC_KUNIT_ACCEL) or kvm
#   --timeout SEC     QEMU's time limit (default 900)
#   --append ARGS     more of the guest kernel's command line, e.g.
#                     "clocksource=tsc tsc=reliable": under TCG the guest
#                     finds its TSCs unsynchronized and reads the HPET for
#                     every clock read, an emulated device access under
#                     QEMU's global lock, which on a busy host makes the
#                     timed paths that read the clock most the latest
#                     (Documentation/benchmarks.rst, "The kernel benchmark
#                     under load"); the table's header says what was added
#   --log FILE        the console log (default build/kernel-bench/console.log)
#   --table-only FILE print the table of an existing console log and exit
#   --trace N         trace N samples of each wakeup_latency run and N
#                     timed items of each timer_lateness run of libexec,
#                     libexec:percpu, hrtimer:percpu and hrtimer:unbound
#                     (module parameter trace_samples=N) on the benchmark
#                     kernel built with event tracing as well
#                     (scripts/kernel-config-bench-trace, cached as
#                     "benchtrace"), and print where each sample's time
#                     went (scripts/kernel-trace-wakeup.py and
#                     scripts/kernel-trace-timer.py on the console log);
#                     use with only=wakeup_latency or only=timer_lateness,
#                     e.g. `--load --trace 100 only=timer_lateness runs=3`;
#                     the ring buffer's clock is CLOCK_MONOTONIC
#                     (trace_clock=mono), the clock of the items' deadlines
#
# Environment:
#   EXEC_KERNEL_CACHE   cache directory, shared with kernel-build.sh
#                       (default /var/cache/exec-kernel)
#   EXEC_KERNEL_JOBS    parallel make jobs (default: number of CPUs + 1)
#
# The benchmark kernel is Debian's linux-source-6.1, `make tinyconfig` plus
# scripts/kernel-config-bench (no KASAN, lockdep or other debugging), built
# and cached by scripts/kernel-build.sh under the name "bench"
# (bench-linux-6.1-KEY in the same cache as the debug kernel).
#
# Exit status: 0 when every run verified (every task ran once, order held)
# and the log holds a result for every run; 1 otherwise; 2 on a usage or
# setup error.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
# shellcheck source=scripts/qemu-boot.sh
. "$here/qemu-boot.sh"
fragment=$here/kernel-config-bench

kdir=
debug=0
build_only=0
build=1
smp=2
memory=1G
accel=${EXEC_KUNIT_ACCEL:-tcg}
timeout_s=900
log=$top/build/kernel-bench/console.log
table_only=
trace=0
load=0
append=
params=()

log()
{
	echo "kernel-bench: $*" >&2
}

die()
{
	echo "kernel-bench: error: $*" >&2
	exit 2
}

usage()
{
	sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit "$1"
}

while [ $# -gt 0 ]; do
	case $1 in
	--debug) debug=1 ;;
	--kernel) kdir=${2:?}; shift ;;
	--build-kernel) build_only=1 ;;
	--no-build) build=0 ;;
	--smp) smp=${2:?}; shift ;;
	--load)
		# L is optional: the next argument, if it is a number.
		case ${2:-} in
		'' | *[!0-9]*) load=cpus ;;
		*) load=$2; shift ;;
		esac
		;;
	--memory) memory=${2:?}; shift ;;
	--accel) accel=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--append) append=${2:?}; shift ;;
	--log) log=${2:?}; shift ;;
	--table-only) table_only=${2:?}; shift ;;
	--trace) trace=${2:?}; shift ;;
	-h | --help) usage 0 ;;
	*=*) params+=("$1") ;;
	*) echo "kernel-bench: unknown argument '$1'" >&2; usage 2 ;;
	esac
	shift
done
case $trace in
0) ;;
*[!0-9]*) die "--trace takes a number of samples" ;;
*) params+=("trace_samples=$trace") ;;
esac
# Room in the ring buffer for every traced sample of every run (about ten
# events each); what does not fit is overwritten, oldest first.  The kernel
# keeps the buffer at a page per CPU until tracing is first set up from
# tracefs or the command line, and exec_kbench.ko enables its events
# through neither: a boot-time event (one that a boot without user
# processes hardly fires) has the buffer allocated at that size.
[ "$load" != cpus ] || load=$smp
[ "$load" = 0 ] || params+=("load=$load")
cmdline=$(qemu_boot_cmdline EXEC_UNLOAD=1)
[ "$load" = 0 ] || cmdline+=" EXEC_LOAD=$load"
[ -z "$append" ] || cmdline+=" $append"
[ "$trace" = 0 ] ||
	cmdline+=" trace_buf_size=16M trace_event=sched:sched_process_exit trace_clock=mono no_hash_pointers"

# --- the benchmark kernel ------------------------------------------------------

# Prints the benchmark kernel's build directory: scripts/kernel-build.sh
# with the benchmark fragment, cached under its own name.
bench_kernel()
{
	local args=(--config "$fragment" --name bench)

	if [ "$trace" != 0 ]; then
		# One fragment file: kernel-build.sh keys its cache on it.
		mkdir -p "$top/build/kernel-bench"
		cat "$fragment" "$here/kernel-config-bench-trace" \
			> "$top/build/kernel-bench/kernel-config-benchtrace"
		args=(--config "$top/build/kernel-bench/kernel-config-benchtrace"
		      --name benchtrace)
	fi

	[ "$build" = 1 ] || args+=(--no-build)
	"$here/kernel-build.sh" "${args[@]}" ||
		die "no benchmark kernel (scripts/kernel-build.sh failed)"
}

# --- the table -------------------------------------------------------------------

# Reads the console log; prints the table and exits 0 if every run verified
# and each (workload, impl) pair has a result, 1 otherwise.
print_table()
{
	python3 - "$1" "$2" << 'EOF'
import json, re, statistics, sys

path, label = sys.argv[1], sys.argv[2]
prefix = re.compile(r'exec-bench: (\{.*\})\s*$')
runs, fails, done, start = [], [], None, None
for line in open(path, errors='replace'):
    line = re.sub(r'^\[ *[0-9]+\.[0-9]+\] ', '', line.rstrip('\n'))
    m = prefix.search(line)
    if m:
        runs.append(json.loads(m.group(1)))
    elif 'exec-bench: FAIL' in line:
        fails.append(line)
    elif 'exec-bench: done' in line:
        done = line
    elif 'exec-bench: start: ' in line:
        start = line.split('exec-bench: start: ', 1)[1]

loads = sorted({r.get('load', 0) for r in runs})

def col(r):
    return r['impl'] + ''.join(':' + r[k] for k in ('wq', 'pool', 'executor')
                               if k in r)

# (figure key, unit, higher is better, scale)
figures = {
    'post_throughput': [('ops_per_s', 'M/s', True, 1e-6)],
    'serial_throughput': [('ops_per_s', 'M/s', True, 1e-6)],
    'chain_latency': [('ns_per_hop', 'ns/hop', False, 1)],
    'wakeup_latency': [('p50_ns', 'us p50', False, 1e-3),
                       ('p99_ns', 'us p99', False, 1e-3)],
    'timer_lateness': [('p50_ns', 'us p50', False, 1e-3),
                       ('p99_ns', 'us p99', False, 1e-3)],
    'timer_churn': [('arm_ns', 'ns/arm', False, 1),
                    ('cancel_ns', 'ns/cancel', False, 1),
                    ('bytes_per_timer', 'B/timer', False, 1)],
    'strand_churn': [('create_ns', 'ns/create', False, 1),
                     ('destroy_ns', 'ns/destroy', False, 1),
                     ('bytes_per_strand', 'B/strand', False, 1),
                     ('ops_per_s', 'M/s', True, 1e-6)],
    'blocking_mix': [('cpu_done_ms', 'ms cpu_done', False, 1),
                     ('all_done_ms', 'ms all_done', False, 1),
                     ('threads_max', 'threads max', False, 1)],
}
groups = {}
for r in runs:
    groups.setdefault((r['bench'], col(r)), []).append(r)
cols = sorted({c for _, c in groups},
            key=lambda c: (not c.startswith('libexec'),
                           c.startswith('hrtimer'), c == 'hrtimer', c))
sizes = {}
for r in runs:
    if col(r) == 'libexec':
        size = {k: r[k] for k in ('threads', 'producers', 'blocking',
                                  'tasks', 'samples', 'strands') if k in r}
        sizes[r['bench']] = ' '.join('%s=%s' % kv for kv in size.items())

print()
print('Kernel benchmark, %s' % label)
if loads and loads != [0]:
    print('loaded: %s spinning process(es) at nice 0 in the guest\'s user '
          'space during every run' % ', '.join(str(x) for x in loads))
else:
    print('idle: no load in the guest\'s user space')
if start:
    print('module parameters: %s' % start)
print('median of %d run(s) per cell; ratio = best libexec executor '
      '(libexec, libexec:percpu, a worker bound to each CPU, or '
      'libexec:managed_queue, a queue of a growing thread manager) / best '
      'workqueue, '
      '>= 1.00 means libexec is at least as good; hrtimer (raw timers, '
      'the limit), hrtimer:percpu and hrtimer:unbound (an hrtimer queuing '
      'the work on a per-CPU or an unbound workqueue) are not in the '
      'ratio' %
      max((len(v) for v in groups.values()), default=0))
head = ['workload', 'unit'] + cols + ['ratio', 'size']
rows = []
ok = True
for bench, keys in figures.items():
    for key, unit, higher, scale in keys:
        cells, vals = [], {}
        for c in cols:
            g = groups.get((bench, c))
            if not g:
                cells.append('-')
                continue
            v = statistics.median(r[key] for r in g)
            vals[c] = v
            cells.append('%.3g' % (v * scale))
        if not vals:
            continue
        wq = [v for c, v in vals.items() if c.startswith('workqueue')]
        libs = [v for c, v in vals.items() if c.startswith('libexec')]
        ratio = '-'
        if libs and wq:
            lib = max(libs) if higher else min(libs)
            best = max(wq) if higher else min(wq)
            if higher:
                ratio = '%.2f' % (lib / best if best else 0)
            else:
                ratio = '%.2f' % (best / lib if lib else 0)
        else:
            ok = False
        rows.append([bench, unit] + cells + [ratio, sizes.get(bench, '')])
widths = [max(len(str(x)) for x in column) for column in zip(head, *rows)]
for row in [head, ['-' * w for w in widths]] + rows:
    print('  '.join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())
# Each pool against the kernel's own hrtimer-then-queue_work() path on the
# workqueue of its kind: the ratio of each run to the reference's run of the
# same index (seconds apart in the same boot), and their median.
pairs = [('libexec', 'hrtimer:unbound'), ('libexec:percpu', 'hrtimer:percpu')]
for key, unit in (('p50_ns', 'p50'), ('p99_ns', 'p99')):
    for lib, ref in pairs:
        a = {r['run']: r[key] for r in groups.get(('timer_lateness', lib), [])}
        b = {r['run']: r[key] for r in groups.get(('timer_lateness', ref), [])}
        per_run = [a[k] / b[k] for k in sorted(a) if k in b and b[k]]
        if per_run:
            print('timer_lateness %s: %s / %s = %.2f (runs: %s)' %
                  (unit, lib, ref, statistics.median(per_run),
                   ' '.join('%.2f' % x for x in per_run)))
viol = sum(r.get('order_violations', 0) for r in runs)
print('order violations: %d; failed runs: %d' % (viol, len(fails)))
for f in fails:
    print('  ' + f)
if done:
    print(done.split('exec-bench: ', 1)[1])
else:
    print('no "exec-bench: done" line: the module did not finish')
    ok = False
sys.exit(0 if ok and not fails and not viol else 1)
EOF
}

if [ -n "$table_only" ]; then
	print_table "$table_only" "log $table_only"
	exit
fi

if [ "$build_only" = 1 ]; then
	bench_kernel
	exit 0
fi

if [ -z "$kdir" ]; then
	if [ "$debug" = 1 ]; then
		kdir=$("$here/kernel-build.sh" --print-build-dir) ||
			die "no debug kernel (scripts/kernel-build.sh failed)"
	else
		kdir=$(bench_kernel)
	fi
fi
[ -f "$kdir/.config" ] || die "no kernel build directory '$kdir'"
if grep -q '^CONFIG_KASAN=y' "$kdir/.config" ||
	grep -q '^CONFIG_PROVE_LOCKING=y' "$kdir/.config"; then
	label="DEBUG kernel (KASAN/lockdep: timings distorted) $kdir"
else
	label="benchmark kernel (no KASAN/lockdep) $kdir"
fi
[ "$load" = 0 ] || label+=", loaded"

[ "$trace" = 0 ] || label+=" with event tracing"
label+=", QEMU $accel, $smp vCPUs"
[ -z "$append" ] || label+=", guest command line + '$append'"

# --- the modules -----------------------------------------------------------------

# Each kernel gets its own copy of the sources, so the source tree stays
# clean and builds for different kernels do not share objects.
out=$top/build/kernel-bench/$(basename "$kdir")
mkdir -p "$out/exec" "$out/kbench" "$out/common"
find "$out" \( -name '*.[ch]' -o -name Kbuild \) -type f -delete
# The same files as kernel/kernel.mk copies (the Makefile holds the version);
# without CONFIG_EXEC_KUNIT_TEST=m Kbuild builds exec.ko alone.
(cd "$top" && tar cf - Kbuild Makefile core/*.c core/*.h include/exec/*.h \
	include/trace/events/*.h \
	kernel/*.c kernel/*.h kernel/include/*.h kernel/tests/*.c \
	kernel/tests/*.h tests/*.c tests/exec_test.h examples/kernel) |
	tar xf - -C "$out/exec"
# exec_kbench.ko: bench/kernel/ and, beside it as in the tree, the files
# it shares with exec-bench (bench/common/).
cp "$top"/bench/kernel/Kbuild "$top"/bench/kernel/*.[ch] "$out/kbench/"
cp "$top"/bench/common/*.[ch] "$out/common/"

kbuild()
{
	local dir=$1
	shift
	if ! make -C "$kdir" M="$dir" W=1 "$@" modules > "$dir/build.log" 2>&1; then
		cat "$dir/build.log" >&2
		die "module build failed in $dir"
	fi
	if grep -qiE '(^|[^a-z_])warning' "$dir/build.log"; then
		cat "$dir/build.log" >&2
		die "module build warnings in $dir"
	fi
}

log "building exec.ko and exec_kbench.ko against $kdir"
kbuild "$out/exec"
kbuild "$out/kbench" KBUILD_EXTRA_SYMBOLS="$out/exec/Module.symvers" \
	EXEC_INCLUDE="$top/include"

# --- QEMU ------------------------------------------------------------------------

# The boot of scripts/kunit-qemu.sh, scripts/qemu-boot.sh, with the
# topology QEMU picks for -smp N.
initramfs=$(dirname "$log")/initramfs
cpio_file=$(dirname "$log")/initramfs.cpio
qemu_boot_initramfs "$initramfs"
qemu_boot_module "$initramfs" "$out/exec/exec.ko"
qemu_boot_module "$initramfs" "$out/kbench/exec_kbench.ko" "${params[*]}"
qemu_boot_cpio "$initramfs" "$cpio_file"

qemu_accel=$accel
qemu_smp=$smp
qemu_memory=$memory
qemu_timeout=$timeout_s
log "booting $kdir ($accel, $smp CPUs, $memory); console log $log"
qemu_boot "$kdir/arch/x86/boot/bzImage" "$cpio_file" "$cmdline" "$log" ||
	die "cannot boot"
qemu_status=$qemu_boot_status
log "QEMU ran $qemu_boot_seconds s, status $qemu_status"

status=0
print_table "$log" "$label" || status=1
if [ "$trace" != 0 ]; then
	echo
	if grep -q '"bench":"wakeup_latency"' "$log"; then
		python3 "$here/kernel-trace-wakeup.py" "$log" || status=1
	fi
	if grep -q '"bench":"timer_lateness"' "$log"; then
		python3 "$here/kernel-trace-timer.py" --samples 5 "$log" ||
			status=1
	fi
fi
[ "$qemu_status" = 0 ] || { log "QEMU failed or timed out"; status=1; }
if [ "$load" != 0 ]; then
	# Without the prefix: a kernel message may split init's console line.
	for step in started stopped; do
		grep -q " $load spinning processes $step" "$log" ||
			{ log "the load was not $step"; status=1; }
	done
fi
for name in exec.ko exec_kbench.ko; do
	grep -q "exec-init: loaded $name" "$log" ||
		{ log "$name did not load"; status=1; }
done
if grep -qE 'exec-init: (failed|left behind)|BUG:|WARNING:|Oops' "$log"; then
	grep -E 'exec-init: (failed|left behind)|BUG:|WARNING:|Oops' "$log" >&2
	status=1
fi
exit $status

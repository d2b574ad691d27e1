#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Runs the KUnit suites of kernel modules on the debug test kernel of
# scripts/kernel-build.sh, in QEMU, and judges the run from the console log.
# The initramfs, the guest's command line and the boot are those of
# scripts/qemu-boot.sh, which scripts/kernel-bench.sh boots with too.
#
# Usage: kunit-qemu.sh [OPTION]... MODULE.ko["  PARAM=VALUE..."]...
#
# Each MODULE argument is a path to a .ko, optionally followed, in the same
# argument, by its module parameters: "build/kernel/test/exec_test.ko
# stress_tasks=1000".  The modules are loaded in the order given (KUnit runs
# a module's suites while it loads) and then unloaded in reverse order.
#
# Options:
#   --kernel DIR      kernel build directory (default: what
#                     scripts/kernel-build.sh prints, building it if needed)
#   --timeout SEC     QEMU's time limit (default $EXEC_KUNIT_TIMEOUT or 900)
#   --no-unload       leave the modules loaded (skips the unload check)
#   --hold MS         keep the modules loaded MS milliseconds before
#                     unloading them (default 0), so that work a module
#                     starts at load is in flight at unload
#   --append ARGS     more kernel command line, e.g. "kunit.filter_glob=...",
#                     or init's "EXEC_FREEZE=N" (tests/guest/init.c); given
#                     more than once, the arguments add up
#   --trace-events    init enables the trace events of exec.ko in tracefs
#                     once it is loaded, and fails the run unless each of
#                     them shows in the trace after the last load
#   --allow REGEX     a log line matching REGEX (grep -E) is expected: it
#                     and the rest of its report, up to "---[ end trace"
#                     or "</TASK>",
#                     do not fail the run (for a test that provokes a WARN)
#   --expect REGEX    as --allow, and the run fails unless a log line
#                     matches REGEX (for a test that plants a lockdep
#                     report); may be given more than once: each must match
#   --kmemleak        init has kmemleak scan with the modules loaded and
#                     again at the end, and fails the run on any
#                     unreferenced object allocated through our modules
#                     (the kernel must have CONFIG_DEBUG_KMEMLEAK; what
#                     boot leaves is forgotten, and an object with no
#                     frame of ours is listed as the kernel's own)
#   --kcsan-elsewhere KCSAN reports (from "BUG: KCSAN:" to the rule of
#                     '=' that closes each) do not fail the run: the
#                     caller judges them with scripts/kcsan-reports.sh,
#                     which tells the project's races from the kernel's own
#   --gcov            init prints every .gcda of /sys/kernel/debug/gcov/
#                     on the console at the end of the run, in hex lines
#                     that scripts/gcov-console.py turns back into files
#                     (the kernel must have CONFIG_GCOV_KERNEL and the
#                     modules be built with EXEC_GCOV=1); the run fails if
#                     there is none
#   --accel A         QEMU accelerator: tcg (default, or $EXEC_KUNIT_ACCEL)
#                     or kvm
#   --smp N           CPUs (default 2)
#   --memory SIZE     guest memory (default 1G)
#   --quiet           do not copy the console to stdout while it runs
#   --run PROGRAM     a static program that init runs once the modules are
#                     loaded (tests/guest/init.c); it prints KTAP, counted
#                     as KUnit's is, and its failure fails the run
#   --file PATH       copy PATH (a file of this machine, links followed)
#                     into the initramfs at the same path, for --run's
#                     program (a dynamically linked one and its libraries);
#                     may be given more than once
#
# Environment:
#   EXEC_KUNIT_LOG    the console log (default build/kunit/console.log at the
#                     top of the tree); results.ktap and the initramfs go to
#                     the same directory
#   EXEC_KUNIT_TIMEOUT  default of --timeout
#   EXEC_KUNIT_ACCEL    default of --accel
#   EXEC_KERNEL_CACHE   passed on to kernel-build.sh
#
# Fails (exit 1) when a KUnit case or suite reports "not ok", when no KUnit
# suite ran, when a module failed to load or unload or was left loaded, when
# the log has a kernel warning, BUG, Oops, lockdep, KASAN, UBSAN or ODEBUG
# report, a kmemleak report of an object of ours, a stack trace, or a task
# "no longer affine" to a CPU that went offline, or when QEMU timed out or
# init did not get to its final marker, or when an --expect REGEX matches
# no line of the log.  The last line printed is "N passed, N failed"
# (", N skipped" added when some were), counting KUnit cases.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
# shellcheck source=scripts/qemu-boot.sh
. "$here/qemu-boot.sh"

kdir=
timeout_s=${EXEC_KUNIT_TIMEOUT:-900}
unload=1
hold_ms=0
append=
trace_events=0
allow=
expects=()
kcsan_elsewhere=0
kmemleak=0
gcov=0
smp=2
# Software emulation by default (scripts/qemu-boot.sh says why).
accel=${EXEC_KUNIT_ACCEL:-tcg}
memory=1G
quiet=0
run_program=
extra_files=()
log=${EXEC_KUNIT_LOG:-$top/build/kunit/console.log}
mods=()

usage()
{
	sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit "$1"
}

die()
{
	echo "kunit-qemu: error: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kdir=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--no-unload) unload=0 ;;
	--hold) hold_ms=${2:?}; shift ;;
	--append) append+="${append:+ }${2?}"; shift ;;
	--trace-events) trace_events=1 ;;
	--allow) allow=${2:?}; shift ;;
	--expect) expects+=("${2:?}"); shift ;;
	--kcsan-elsewhere) kcsan_elsewhere=1 ;;
	--kmemleak) kmemleak=1 ;;
	--gcov) gcov=1 ;;
	--accel) accel=${2:?}; shift ;;
	--smp) smp=${2:?}; shift ;;
	--memory) memory=${2:?}; shift ;;
	--quiet) quiet=1 ;;
	--run) run_program=${2:?}; shift ;;
	--file) extra_files+=("${2:?}"); shift ;;
	-h | --help) usage 0 ;;
	--) shift; mods+=("$@"); break ;;
	-*) echo "kunit-qemu: unknown option '$1'" >&2; usage 2 ;;
	*) mods+=("$1") ;;
	esac
	shift
done
[ ${#mods[@]} -gt 0 ] || { echo "kunit-qemu: no module given" >&2; usage 2; }
[[ $timeout_s =~ ^[0-9]+$ ]] || die "--timeout wants seconds, not '$timeout_s'"
[[ $hold_ms =~ ^[0-9]+$ ]] || die "--hold wants milliseconds, not '$hold_ms'"

if [ -z "$kdir" ]; then
	kdir=$("$here/kernel-build.sh" --print-build-dir) ||
		die "no test kernel (scripts/kernel-build.sh failed)"
fi
bzimage=$kdir/arch/x86/boot/bzImage
[ -f "$bzimage" ] || die "no kernel image $bzimage"

outdir=$(dirname "$log")
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
log=$outdir/$(basename "$log")
ktap=$outdir/results.ktap
initramfs=$outdir/initramfs
cpio_file=$outdir/initramfs.cpio

# --- the initramfs: /init and /modules/ -------------------------------------

qemu_boot_initramfs "$initramfs"
if [ -n "$run_program" ]; then
	[ -f "$run_program" ] || die "no program '$run_program'"
	cp "$run_program" "$initramfs/check"
	chmod 755 "$initramfs/check"
fi
for file in "${extra_files[@]}"; do
	[ -f "$file" ] || die "no file '$file'"
	mkdir -p "$initramfs/$(dirname "$file")"
	cp -L "$file" "$initramfs/$file"
done

names=()
for arg in "${mods[@]}"; do
	path=${arg%% *}
	params=
	[ "$path" = "$arg" ] || params=${arg#* }
	[ -f "$path" ] || die "no module file '$path'"
	name=$(basename "$path")
	[[ $name == *.ko ]] || die "'$path' is not a .ko file"
	[ ! -e "$initramfs/modules/$name" ] || die "module $name given twice"
	qemu_boot_module "$initramfs" "$path" "$params"
	names+=("$name")
done
qemu_boot_cpio "$initramfs" "$cpio_file"

# --- QEMU -------------------------------------------------------------------

# One CPU per socket: the kernel has no ACPI and finds the CPUs in
# SeaBIOS's MP table, which lists only the first CPU of each socket.
qemu_smp="$smp,sockets=$smp,cores=1,threads=1"
qemu_accel=$accel
qemu_memory=$memory
qemu_timeout=$timeout_s
qemu_echo=$((1 - quiet))
cmdline=$(qemu_boot_cmdline kasan.fault=report \
	"EXEC_UNLOAD=$unload" "EXEC_HOLD_MS=$hold_ms")
[ "$trace_events" = 0 ] || cmdline+=" EXEC_TRACE_EVENTS=1"
[ "$kmemleak" = 0 ] || cmdline+=" EXEC_KMEMLEAK=1"
[ "$gcov" = 0 ] || cmdline+=" EXEC_GCOV=1"
[ -z "$append" ] || cmdline+=" $append"

echo "kunit-qemu: booting $bzimage ($accel, $smp CPUs, $memory) with ${names[*]}"
echo "kunit-qemu: console log: $log"
qemu_boot "$bzimage" "$cpio_file" "$cmdline" "$log" || die "cannot boot"
qemu_status=$qemu_boot_status
elapsed=$qemu_boot_seconds

# --- judging the log --------------------------------------------------------

problems=()
problem()
{
	problems+=("$*")
}

# What init was doing when the run ended: on a timeout, the culprit.
last_step=$(grep -E '^exec-init: ' "$log" | tail -n 1 || true)
case $qemu_status in
0) ;;
124 | 137) problem "QEMU timed out after $timeout_s s; init's last step: ${last_step:-none}" ;;
*) problem "QEMU exited with status $qemu_status" ;;
esac

# The log without printk's "[    1.234567] " time stamps: KUnit's nesting
# is in the indentation that follows them.
plain=$outdir/console.plain
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$log" > "$plain"

# KTAP: version lines, plans, results and diagnostics, at any nesting.
ktap_re='^( {4})*(KTAP version [0-9]+|1\.\.[0-9]+|(not )?ok [0-9]+ |# )'
grep -E "$ktap_re" "$plain" > "$ktap" || true

# Cases are the results one level in (four spaces); parameters of a
# parameterised case, two levels in, are summed up in their case's line.
# A suite that fails with no failed case (its init failed, say) counts as
# one failure.
read -r suites passed failed skipped < <(awk '
	/^    # Subtest: / { suite_case_fail = 0 }
	/^    (not )?ok [0-9]+ / {
		if ($1 == "not") { failed++; suite_case_fail++ }
		else if ($0 ~ / # SKIP/) skipped++
		else passed++
	}
	/^(not )?ok [0-9]+ / {
		suites++
		if ($1 == "not" && !suite_case_fail)
			failed++
		suite_case_fail = 0
	}
	END { print suites + 0, passed + 0, failed + 0, skipped + 0 }
' "$plain")

[ "$suites" -gt 0 ] || problem "no KUnit suite ran"
[ "$failed" -eq 0 ] || problem "$failed KUnit case(s) failed"
rm -f "$outdir/not-ok.txt"
if grep -qE '^(    )*not ok [0-9]+ ' "$plain"; then
	grep -E '^(    )*not ok [0-9]+ ' "$plain" | sed 's/^/    /' |
		head -n 20 > "$outdir/not-ok.txt"
fi

# init's own markers (tests/guest/init.c).
for name in "${names[@]}"; do
	grep -qxF "exec-init: loaded $name" "$plain" ||
		problem "module $name did not load"
done
while IFS= read -r line; do
	problem "${line#exec-init: }"
done < <(grep -E '^exec-init: (failed|left behind|reboot failed|cannot)' \
	"$plain" || true)
grep -qE '^exec-init: done: ' "$plain" ||
	problem "init did not finish (no 'exec-init: done' marker)"

# Kernel reports.  KTAP lines and the echo of the command line are skipped:
# a case's name or message, or an --append, may legitimately contain "BUG"
# or "KASAN".  A line matching --allow starts an
# expected report, whose lines (the Call Trace among them) are ignored up
# to its "---[ end trace" line, or to the "</TASK>" that ends a stack dump
# without one (sched_show_task(), as the stall watchdog prints).  With
# --kcsan-elsewhere, a KCSAN report is skipped up to its closing rule.
bad_re='WARNING:|BUG:|BUG at|kernel BUG|Oops|general protection fault'
bad_re+='|Call Trace|Kernel panic|possible recursive locking'
bad_re+='|inconsistent lock state|circular locking|DEBUG_LOCKS_WARN_ON'
bad_re+='|KASAN|UBSAN|ODEBUG'
# kmemleak: init prints only the reports of ours in full (the kernel's own
# are listed as such, and kmemleak's "N new suspected memory leaks" counts
# both); kmemleak turning itself off would leave the check empty.
bad_re+='|unreferenced object|leak detector disabled|Cannot allocate a kmemleak'
bad_re+='|kmemleak: Memory pool empty'
bad_re+='|list_(add|del) corruption|blocked for more than|rcu: INFO:'
bad_re+='|detected stalls|Attempted to kill init|segfault at'
# The scheduler moved a task off a CPU that went offline and widened its
# affinity (select_fallback_rq()): a per-CPU worker left bound to it.
bad_re+='|no longer affine to cpu'
reports=$outdir/reports.txt
for re in "${expects[@]}"; do
	allow+=${allow:+|}$re
	grep -qE -- "$re" "$plain" ||
		problem "no log line matches the expected report '$re'"
done
awk -v bad="$bad_re" -v allow="$allow" -v ktap="$ktap_re" \
	-v kcsan="$kcsan_elsewhere" '
	$0 ~ ktap { next }
	kcsan && /BUG: KCSAN: / { in_kcsan = 1; next }
	in_kcsan && /^=+$/ { in_kcsan = 0; next }
	in_kcsan { next }
	/^(Kernel c|C)ommand line: / { next }
	allow != "" && $0 ~ allow { expected = 1; next }
	expected && /---\[ end trace|<\/TASK>/ { expected = 0; next }
	expected { next }
	$0 ~ bad { print }
' "$plain" > "$reports"
if [ -s "$reports" ]; then
	problem "the kernel log has $(wc -l < "$reports") report line(s), first: $(head -n 1 "$reports")"
fi

# --- summary ----------------------------------------------------------------

echo
echo "kunit-qemu: $suites suite(s), QEMU ran ${elapsed}s ($accel); log $log, KTAP $ktap"
if [ -s "$outdir/not-ok.txt" ]; then
	echo "kunit-qemu: results not ok:"
	cat "$outdir/not-ok.txt"
fi
if [ -s "$reports" ]; then
	echo "kunit-qemu: kernel reports (all in $reports):"
	head -n 20 "$reports" | sed 's/^/    /'
fi
status=0
if [ ${#problems[@]} -gt 0 ]; then
	status=1
	echo "kunit-qemu: FAILED:"
	printf '    %s\n' "${problems[@]}"
else
	echo "kunit-qemu: OK"
fi
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary+=", $skipped skipped"
echo "$summary"
exit $status

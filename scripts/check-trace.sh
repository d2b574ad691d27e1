#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The library's USDT probes (user/include/exec_trace.h,
# Documentation/tracing.rst).
#
#   check-trace.sh LIB_SO LIB_A DRIVER
#
#   notes       readelf -n LIB_SO: every probe of provider "exec" is there
#               with the kernel tracepoint's name and its number of
#               arguments, and a semaphore; LIB_A has them too
#   fallback    core/trace.c (the probe sites) and core/thread_pool.c (a
#               user of the hooks) compiled as the library is, then with
#               -DEXEC_NO_SDT: the first have probe notes and semaphore
#               references, the second neither (environment: CC, and
#               CPPFLAGS_LIB, the library's preprocessor flags)
#   perf        DRIVER (tests/user/trace_driver.c, linked against LIB_SO,
#               not position independent) run under `perf stat` and
#               `perf record` with every probe attached: each fires as
#               often as the driver's work says, and the activate events
#               name the driver's function
#
# The perf step needs root, perf and uprobes: where the machine does not
# allow it, it says so, "not run", and counts neither way.  It adds the
# probes as perf's sdt_exec:* events and deletes them again, under a lock,
# so that two runs do not share them.  Ends with
# "check-trace: N passed, N failed".

set -u

lib_so=$1
lib_a=$2
driver=$3
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

tmp=$(mktemp -d) || exit 1
cleanup()
{
	[ -z "${probes_added-}" ] || perf probe -q -d 'sdt_exec:*' 2>/dev/null
	[ -z "${tracefs_mounted-}" ] || umount "$tmp/tracefs" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# The events and their number of arguments, as include/trace/events/exec.h.
events="exec_work_queue:4 exec_work_activate:4 exec_work_start:4
exec_work_finish:4 exec_timer_arm:6 exec_timer_fire:4 exec_timer_cancel:4
exec_worker_park:3 exec_worker_wake:3"

# notes FILE > "name nargs semaphore" per probe site of provider exec.
notes()
{
	readelf -n "$1" 2>/dev/null | awk '
		/Provider:/ { prov = $2 }
		/Name:/ { name = $2 }
		/Semaphore:/ { sem = $NF }
		/Arguments:/ { if (prov == "exec") print name, NF - 1, sem }
	'
}

# --- the notes ----------------------------------------------------------------

notes "$lib_so" > "$tmp/so"
notes "$lib_a" > "$tmp/a"
for ev in $events; do
	name=${ev%:*}
	nargs=${ev#*:}
	sites=$(awk -v n="$name" '$1 == n' "$tmp/so" | wc -l)
	bad=$(awk -v n="$name" -v a="$nargs" \
		'$1 == n && ($2 != a || $3 ~ /^0x0+$/)' "$tmp/so" | wc -l)
	if [ "$sites" -gt 0 ] && [ "$bad" -eq 0 ]; then
		echo "notes: exec:$name: $sites site(s), $nargs arguments, semaphore"
		pass
	else
		fail "notes: exec:$name: $sites site(s), $bad without $nargs arguments or a semaphore"
	fi
done
if [ "$(awk '{ print $1 }' "$tmp/a" | sort -u | wc -l)" -eq 9 ]; then
	echo "notes: $(basename "$lib_a"): the 9 probes"
	pass
else
	fail "notes: $(basename "$lib_a") lacks probes: $(awk '{ print $1 }' "$tmp/a" | sort -u | tr '\n' ' ')"
fi

# --- the fallback ---------------------------------------------------------------

cc=${CC:-cc}
cppflags=${CPPFLAGS_LIB:--Iinclude -Icore -Iuser/include -D_GNU_SOURCE}
# build NAME FLAGS: core/trace.c and core/thread_pool.c into $tmp/NAME-*.o
build()
{
	local f

	for f in trace thread_pool; do
		# shellcheck disable=SC2086 # lists of flags
		$cc $cppflags $2 -std=gnu11 -O2 -c -o "$tmp/$1-$f.o" \
			"core/$f.c" || return 1
	done
}
# sites NAME: probe notes of core/trace.c; sems NAME: semaphores
# core/thread_pool.c reads.
sites()
{
	notes "$tmp/$1-trace.o" | wc -l
}
sems()
{
	nm "$tmp/$1-thread_pool.o" | grep -c ' U exec_exec_.*_semaphore$'
}
if build sdt "" && build nosdt -DEXEC_NO_SDT; then
	if [ "$(sites sdt)" -gt 0 ] && [ "$(sems sdt)" -gt 0 ] &&
	   [ "$(sites nosdt)" -eq 0 ] && [ "$(sems nosdt)" -eq 0 ]; then
		echo "fallback: $(sites sdt) probe sites and $(sems sdt) semaphores read; none with -DEXEC_NO_SDT"
		pass
	else
		fail "fallback: $(sites sdt) probe sites, $(sems sdt) semaphores read; with -DEXEC_NO_SDT $(sites nosdt) and $(sems nosdt)"
	fi
else
	fail "fallback: core/trace.c or core/thread_pool.c does not compile"
fi

# --- the probes firing under perf -------------------------------------------

not_run()
{
	echo "perf: not run: $*"
	echo "check-trace: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

command -v perf > /dev/null || not_run "no perf (Debian: linux-perf)"
[ "$(id -u)" -eq 0 ] || not_run "uprobe events need root"
if ! grep -qw tracefs /proc/mounts; then
	mkdir -p "$tmp/tracefs"
	mount -t tracefs nodev "$tmp/tracefs" 2> /dev/null ||
		not_run "tracefs is not mounted and cannot be"
	tracefs_mounted=y
fi
tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -e "$tracefs/uprobe_events" ] || not_run "the kernel has no uprobe events"

exec 9> /tmp/exec-check-trace.lock
flock 9
export PERF_BUILDID_DIR=$tmp/buildid
so=$(realpath "$lib_so")
perf probe -q -d 'sdt_exec:*' 2>/dev/null
perf buildid-cache --add "$so" > "$tmp/perf.log" 2>&1 ||
	not_run "perf buildid-cache: $(tail -n 1 "$tmp/perf.log")"
probes_added=y
estat=()
for ev in $events; do
	name=${ev%:*}
	perf probe -q -x "$so" -a "%sdt_exec:$name" >> "$tmp/perf.log" 2>&1 ||
		not_run "perf probe: $(tail -n 1 "$tmp/perf.log")"
	estat+=(-e "sdt_exec:$name")
done

libdir=$(dirname "$so")
if ! LD_LIBRARY_PATH=$libdir perf stat -x, -o "$tmp/stat" "${estat[@]}" -- \
	"$driver" > "$tmp/driver.log" 2>&1; then
	fail "perf stat: the driver failed: $(tail -n 3 "$tmp/driver.log" "$tmp/stat")"
else
	count()
	{
		awk -F, -v e="sdt_exec:$1" '$3 == e { print $1 + 0 }' "$tmp/stat"
	}
	# expect NAME TEST: the count of NAME passes the awk test TEST on c.
	expect()
	{
		local c

		c=$(count "$1")
		if [ -n "$c" ] && awk -v c="$c" -v q="$(count exec_work_queue)" \
			-v p="$(count exec_worker_park)" \
			-v s="$(count exec_work_start)" "BEGIN { exit !($2) }"
		then
			echo "perf: sdt_exec:$1: $c, as expected ($2)"
			pass
		else
			fail "perf: sdt_exec:$1: '${c}', expected $2"
		fi
	}
	# The driver: 100 closures on a one-thread pool, 100 on a serial
	# executor over it (whose runner the pool queues too), a timed item
	# that fires and one that is cancelled; its worker parks in between.
	expect exec_work_queue 'c >= 200'
	expect exec_work_activate 'c == 100'
	expect exec_work_start 'c >= 201 && c <= q + 1'
	expect exec_work_finish 'c == s'
	expect exec_timer_arm 'c == 2'
	expect exec_timer_fire 'c == 1'
	expect exec_timer_cancel 'c == 1'
	expect exec_worker_park 'c >= 1'
	expect exec_worker_wake 'c == p'
fi

# The function the activate events name is the driver's own count().
want=$(nm "$driver" | awk '$3 == "count" { print $1 }')
if [ -z "$want" ]; then
	fail "perf record: no symbol count in $driver"
elif ! LD_LIBRARY_PATH=$libdir perf record -q -o "$tmp/perf.data" \
	-e sdt_exec:exec_work_activate -- "$driver" > "$tmp/driver.log" 2>&1
then
	fail "perf record: the driver failed: $(tail -n 3 "$tmp/driver.log")"
else
	perf script -i "$tmp/perf.data" 2> /dev/null |
		sed -n 's/.* arg4=\([0-9]*\).*/\1/p' > "$tmp/func"
	n=$(wc -l < "$tmp/func")
	other=$(awk -v w="$((16#$want))" '$1 != w' "$tmp/func" | wc -l)
	if [ "$n" -eq 100 ] && [ "$other" -eq 0 ]; then
		echo "perf record: 100 activate events, each naming count() at 0x$want"
		pass
	else
		fail "perf record: $n activate events, $other not naming count() at 0x$want"
	fi
fi

echo "check-trace: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

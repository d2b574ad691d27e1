#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Builds exec_loop.ko: the kernel's loop block driver (drivers/block/loop.c
# of Debian's linux-source-6.1) with its workqueue converted to exec by
# scripts/coccinelle/workqueue-to-exec.cocci, plus the few edits below that
# let it load beside the stock loop driver.  Nothing of the kernel's text is
# kept in the repository: the converted file is made here, under OUT.
#
# Usage: exec-loop.sh --kdir KDIR --symvers FILE --out DIR [--source TREE]
#
#   --kdir KDIR      kernel build directory to build the module against
#   --symvers FILE   the Module.symvers of the exec.ko it will load beside
#   --out DIR        where loop.c, exec_loop.c, migrate.txt and the module
#                    go
#   --source TREE    a kernel source tree to take loop.c from (default:
#                    KDIR if it has drivers/block/loop.c, else the tarball
#                    /usr/src/linux-source-6.1.tar.xz)
#
# The edits, each checked to apply (a change in loop.c fails the build
# rather than building something else):
#   1. a major number of its own, allocated at load (register_blkdev(0)):
#      loop's fixed LOOP_MAJOR (7) belongs to the stock driver;
#   2. its own names: disks "exec_loopN", the control device
#      "exec-loop-control" on a dynamic misc minor (loop's LOOP_CTRL_MINOR
#      belongs to the stock driver), "exec_loop" in /proc/devices;
#   3. no module aliases: they would have the stock driver's devices and
#      /dev/loop-control load this module.
# (The #include of exec's header and MODULE_IMPORT_NS(EXEC) are the
# conversion's: scripts/coccinelle/workqueue-to-exec.sh adds them.)
# The module's name comes from the file's (exec_loop.c), not from an edit.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
tarball=/usr/src/linux-source-6.1.tar.xz

kdir='' symvers='' out='' source=''
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=${2:?}; shift ;;
	--symvers) symvers=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--source) source=${2:?}; shift ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) echo "exec-loop: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
prog=exec-loop
# shellcheck source=scripts/coccinelle/module-lib.sh
. "$here/coccinelle/module-lib.sh"
if [ -z "$kdir" ] || [ -z "$symvers" ] || [ -z "$out" ]; then
	die "usage: exec-loop.sh --kdir KDIR --symvers FILE --out DIR [--source TREE]"
fi
[ -d "$kdir" ] || die "no kernel build directory $kdir"
[ -f "$symvers" ] || die "no $symvers (build exec.ko first)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# --- loop.c -----------------------------------------------------------------

if [ -z "$source" ] && [ -f "$kdir/drivers/block/loop.c" ]; then
	source=$kdir
fi
if [ -n "$source" ]; then
	cp "$source/drivers/block/loop.c" "$out/loop.c"
else
	[ -f "$tarball" ] || die "no $tarball (apt-get install linux-source-6.1)"
	if [ ! -f "$out/loop.c" ] || [ "$tarball" -nt "$out/loop.c" ]; then
		echo "exec-loop: taking loop.c from $tarball"
		tar -xJOf "$tarball" linux-source-6.1/drivers/block/loop.c \
			> "$out/loop.c.tmp"
		mv "$out/loop.c.tmp" "$out/loop.c"
	fi
fi

# --- the semantic patch ------------------------------------------------------

migrate "$out/loop.c" "$out/exec_loop.c"

# --- the edits ---------------------------------------------------------------

# $1: what; $2: expected count of changed lines; $3...: sed arguments.
edit()
{
	local what=$1 want=$2 got
	shift 2
	sed -E "$@" "$out/exec_loop.c" > "$out/exec_loop.c.tmp"
	got=$(diff "$out/exec_loop.c" "$out/exec_loop.c.tmp" | grep -c '^>' || true)
	[ "$got" = "$want" ] ||
		die "edit '$what': $got line(s) changed, $want expected (loop.c changed?)"
	mv "$out/exec_loop.c.tmp" "$out/exec_loop.c"
	echo "exec-loop: edit: $what ($got line(s))"
}

edit "a major of its own" 7 \
	-e 's/\<LOOP_MAJOR\>/exec_loop_major/g' \
	-e 's/^#include <exec\/exec.h>$/&\n\nstatic int exec_loop_major;/' \
	-e 's/^\tif \(__register_blkdev\(exec_loop_major, "loop", loop_probe\)\) \{$/\texec_loop_major = __register_blkdev(0, "exec_loop", loop_probe);\n\tif (exec_loop_major < 0) {/' \
	-e '/^MODULE_ALIAS_BLOCKDEV_MAJOR\(exec_loop_major\);$/d'
edit "names of its own" 5 \
	-e 's/"loop%d"/"exec_loop%d"/' \
	-e 's/^\t\.minor\t\t= LOOP_CTRL_MINOR,$/\t.minor\t\t= MISC_DYNAMIC_MINOR,/' \
	-e 's/^\t\.name\t\t= "loop-control",$/\t.name\t\t= "exec-loop-control",/' \
	-e 's/^\tunregister_blkdev\(exec_loop_major, "loop"\);$/\tunregister_blkdev(exec_loop_major, "exec_loop");/'
edit "no module aliases" 0 \
	-e '/^MODULE_ALIAS_MISCDEV\(LOOP_CTRL_MINOR\);$/d' \
	-e '/^MODULE_ALIAS\("devname:loop-control"\);$/d'
# Deleted lines do not show as added ones: count what is left.
! grep -nE 'MODULE_ALIAS|LOOP_CTRL_MINOR|\<LOOP_MAJOR\>' "$out/exec_loop.c" ||
	die "an alias or the stock driver's numbers are left"

# --- the build ----------------------------------------------------------------

build_modules "$kdir" "$symvers" exec_loop.o
[ -f "$out/exec_loop.ko" ] || die "no exec_loop.ko after the build"
echo "exec-loop: $out/exec_loop.ko"

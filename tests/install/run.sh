#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run.sh STAGE PKGCONFIGDIR MANDIR WORKDIR [UNINSTALL...]
#
# STAGE is a DESTDIR that `make install` filled; PKGCONFIGDIR and MANDIR are
# where the .pc file and the man pages went, without STAGE.  Builds
# consumer.c in WORKDIR, outside the source tree, with only the flags
# `pkg-config exec-user` gives (the stage is a pkg-config sysroot), once
# linked against the shared library and once statically (`pkg-config
# --static`), and runs both.  Checks that every public function has its
# page in section 3 and that `man exec_submit` shows it, then runs the
# command UNINSTALL (`make uninstall` into the same STAGE), if given, after
# which no file may be left in STAGE.  Ends with "install: N passed, N
# failed".

set -u

stage=$1
pcdir=$2
mandir=$3
work=$4
shift 4
src=$(cd "$(dirname "$0")" && pwd)/consumer.c
public_functions=$(cd "$(dirname "$0")/../../scripts" && pwd)/public-functions.sh
CC=${CC:-cc}
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/../../scripts/check-lib.sh"

finish()
{
	echo "install: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

export PKG_CONFIG_PATH=$stage$pcdir
export PKG_CONFIG_SYSROOT_DIR=$stage

rm -rf "$work" && mkdir -p "$work" && cp "$src" "$work/" || exit 1
cd "$work" || exit 1

step "pkg-config finds exec-user in the stage" \
	pkg-config --exists --print-errors exec-user || finish
version=$(pkg-config --modversion exec-user)
# pkgconf puts the sysroot in front of the variables itself; older
# pkg-config does not.
in_stage()
{
	case $1 in
	"$stage"/*) echo "$1" ;;
	*) echo "$stage$1" ;;
	esac
}
libdir=$(in_stage "$(pkg-config --variable=libdir exec-user)")
includedir=$(in_stage "$(pkg-config --variable=includedir exec-user)")
echo "exec-user $version: libdir $libdir, includedir $includedir"

installed()
{
	local f

	for f in "$includedir/exec/exec.h" "$libdir/libexec-user.a" \
		 "$libdir/libexec-user.so.$version" \
		 "$libdir/libexec-user.so.${version%%.*}" \
		 "$libdir/libexec-user.so"; do
		[ -e "$f" ] || { echo "missing: $f"; return 1; }
	done
	[ "$(readlink "$libdir/libexec-user.so")" = "libexec-user.so.${version%%.*}" ] &&
	[ "$(readlink "$libdir/libexec-user.so.${version%%.*}")" = "libexec-user.so.$version" ]
}
step "headers, libraries and symlinks installed" installed

cflags=$(pkg-config --cflags exec-user)
libs=$(pkg-config --libs exec-user)
static_libs=$(pkg-config --static --libs exec-user)
echo "cflags: $cflags"
echo "libs: $libs"
echo "static libs: $static_libs"

# shellcheck disable=SC2086
step "build against the shared library" \
	$CC -O2 -Wall -Wextra -Werror $cflags -o consumer-shared consumer.c $libs

linked_shared()
{
	readelf -d consumer-shared | grep -q 'NEEDED.*\[libexec-user\.so\.0\]' &&
	LD_LIBRARY_PATH=$libdir ldd consumer-shared |
		grep -q "libexec-user\.so\.0 => $libdir/"
}
step "consumer-shared needs libexec-user.so.0 from the stage" linked_shared
step "run consumer-shared" env LD_LIBRARY_PATH="$libdir" ./consumer-shared

# shellcheck disable=SC2086
step "build statically" \
	$CC -O2 -Wall -Wextra -Werror -static $cflags -o consumer-static \
	consumer.c $static_libs

linked_static()
{
	! readelf -d consumer-static 2>/dev/null | grep -q 'libexec-user' &&
	nm consumer-static | grep -q ' T exec_thread_pool_create$'
}
step "consumer-static carries the library" linked_static
step "run consumer-static" ./consumer-static

# The man pages: one per public function, and man finds them.
man_pages()
{
	local fn missing=0

	for fn in $("$public_functions" "$includedir"/exec/*.h); do
		[ -f "$stage$mandir/man3/$fn.3" ] || {
			echo "no page $stage$mandir/man3/$fn.3"
			missing=1
		}
	done
	[ "$missing" -eq 0 ]
}
step "a man page in $mandir/man3 for every public function" man_pages

man_exec_submit()
{
	local out

	out=$(MANPATH=$stage$mandir MANWIDTH=80 man -P cat exec_submit) ||
		return 1
	echo "$out" | head -n 8
	echo "$out" | grep -q '^ *exec_submit - submit an intrusive work item$' &&
	echo "$out" | grep -q '#include <exec/executor.h>'
}
step "man exec_submit" man_exec_submit

# Only where `make install` puts them by default: man searches there
# without MANPATH.
case $mandir in
/usr/local/share/man | /usr/share/man)
	step "$mandir is on man's own search path" \
		sh -c "env -u MANPATH manpath 2> /dev/null | tr : '\\n' | grep -qx '$mandir'"
	;;
esac

uninstalled()
{
	local left

	"$@" > /dev/null || return 1
	left=$(find "$stage" ! -type d)
	[ -z "$left" ] || { echo "left in the stage: $left"; return 1; }
}
[ $# -eq 0 ] || step "uninstall: nothing left in the stage" uninstalled "$@"

finish

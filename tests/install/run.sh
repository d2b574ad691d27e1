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
srcdir=$(cd "$(dirname "$0")" && pwd)
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

rm -rf "$work" && mkdir -p "$work" &&
	cp "$srcdir/consumer.c" "$srcdir/CMakeLists.txt" "$srcdir/meson.build" \
	"$work/" || exit 1
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

# $1 needs libexec-user.so.0, found in the stage's libdir.
linked_shared()
{
	readelf -d "$1" | grep -q 'NEEDED.*\[libexec-user\.so\.0\]' &&
	LD_LIBRARY_PATH=$libdir ldd "$1" |
		grep -q "libexec-user\.so\.0 => $libdir/"
}

# $1 carries the library and needs no shared library of it.
linked_static()
{
	! readelf -d "$1" 2>/dev/null | grep -q 'libexec-user' &&
	nm "$1" | grep -q ' T exec_thread_pool_create$'
}

# The pair of programs in directory $1, built by $2.
check_pair()
{
	step "$2: consumer-shared needs libexec-user.so.0 from $libdir" \
		linked_shared "$1/consumer-shared"
	step "$2: run consumer-shared" \
		env LD_LIBRARY_PATH="$libdir" "$1/consumer-shared"
	step "$2: consumer-static carries the library" \
		linked_static "$1/consumer-static"
	step "$2: run consumer-static" "$1/consumer-static"
}

# shellcheck disable=SC2086
step "pkg-config: build against the shared library" \
	$CC -O2 -Wall -Wextra -Werror $cflags -o consumer-shared consumer.c $libs
# shellcheck disable=SC2086
step "pkg-config: build statically" \
	$CC -O2 -Wall -Wextra -Werror -static $cflags -o consumer-static \
	consumer.c $static_libs
check_pair . pkg-config

# CMake: the prefix above the libdir's cmake/ExecUser, as a user's
# CMAKE_PREFIX_PATH names it; nothing else is said about the library.
prefix=$(in_stage "$(pkg-config --variable=prefix exec-user)")
step "cmake: find_package(ExecUser CONFIG) in $prefix" \
	cmake -S . -B cmake-build -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_FLAGS='-Wall -Wextra -Werror' -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
step "cmake: build" cmake --build cmake-build
check_pair cmake-build cmake

step "meson: dependency('exec-user') through pkg-config" \
	meson setup --werror -Dwarning_level=2 meson-build .
step "meson: build" meson compile -C meson-build
check_pair meson-build meson

# The man pages: one per public function, and man finds them.
man_pages()
{
	local fn missing=0

	for fn in $("$public_functions" "$includedir"/exec/*.h); do
		# Gzipped in a Debian package.
		[ -f "$stage$mandir/man3/$fn.3" ] ||
		[ -f "$stage$mandir/man3/$fn.3.gz" ] || {
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

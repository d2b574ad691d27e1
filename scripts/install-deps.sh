#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Installs what building libexec-user and running all of its tests need on a
# Debian 12 machine.  Does nothing (no apt-get at all) when every package is
# already installed, so running it before each build costs a few dpkg
# look-ups.  Safe to run any number of times; needs no input.

set -euo pipefail

packages=(
	build-essential	# gcc, g++, make, binutils, libc6-dev
	pkg-config	# the install test builds through pkg-config
	cmake		# make check-install: find_package(ExecUser CONFIG)
	meson		# make check-install: dependency('exec-user')
	ninja-build	# meson's backend
	liburing-dev	# io_uring wakeup backend (headers, .so and .a)
	libglib2.0-dev	# make check-loop-adapters: the GLib adapter
	libuv1-dev	# make check-loop-adapters: the libuv adapter
	libsystemd-dev	# make check-loop-adapters: the sd-event adapter
	systemtap-sdt-dev	# <sys/sdt.h>: the library's USDT probes
	linux-perf	# make check-trace: the probes firing under perf
	libasan8	# gcc's AddressSanitizer runtime
	libubsan1	# gcc's UndefinedBehaviorSanitizer runtime
	libtsan2	# gcc's ThreadSanitizer runtime
	clang		# TSAN_CC=clang if gcc's TSan does not fit; make check-fuzz
	libclang-rt-14-dev	# clang's sanitizer runtimes and libFuzzer
	linux-headers-amd64	# the modules' build against Debian's kernel; its
			# linux-kbuild-* brings scripts/kernel-doc (man pages)
	coccinelle	# spatch: scripts/coccinelle/, exec_loop.ko's conversion
	linux-source-6.1	# exec_loop.ko: drivers/block/loop.c (and the
			# test kernel of scripts/kernel-build.sh)
	dkms		# make check-dkms: exec.ko built by DKMS
	dpkg-dev	# make check-deb: dpkg-buildpackage
	debhelper	# make check-deb: debian/rules (dh, compat 13)
	dh-dkms		# make check-deb: dh_dkms for exec-dkms
	fakeroot	# make check-deb: dpkg-buildpackage's root command
	lintian		# make check-deb: the packages' checks
	man-db		# make check-install: `man exec_submit` on the pages
	groff-base	# man's formatter
	python3-sphinx	# make htmldocs
	curl		# make check-httpd: the HTTP client of its checks
	python3		# make check-httpd: its raw-socket clients
	wrk		# make check-httpd-slow: the rate of others
	python3-matplotlib	# make bench-plot: the SVG charts
	gdb		# exec-tests: a hung case's threads' stacks in the log
)

installed()
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q '^install ok installed$'
}

missing=()
for pkg in "${packages[@]}"; do
	installed "$pkg" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo > /dev/null || {
		echo "install-deps: not root and no sudo; install: ${missing[*]}" >&2
		exit 1
	}
	sudo="sudo -n"
fi

$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q < /dev/null
$sudo env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}" < /dev/null

for pkg in "${missing[@]}"; do
	installed "$pkg" || {
		echo "install-deps: $pkg did not install" >&2
		exit 1
	}
done
echo "install-deps: done"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Builds the debug test kernel that the KUnit suites of our modules run on
# (scripts/kunit-qemu.sh), once, into a cache outside the repository, and
# prints its build directory.  External modules are built against it with
#
#   make -C "$(scripts/kernel-build.sh)" M=/path/to/module/tree
#
# Usage: kernel-build.sh [--print-build-dir] [--no-build] [--no-install]
#                        [--config FRAGMENT --name NAME]
#
#   (default)           build the kernel if the cache has no complete build
#                       for the current key, then print the build directory
#   --print-build-dir   the same, but stdout carries nothing but the path
#                       (it always does: progress goes to stderr); kept as
#                       the name the callers use
#   --no-build          print the directory only if it is already built;
#                       exit 1 otherwise
#   --no-install        never run apt-get; fail if a package is missing
#   --config FRAGMENT   another config fragment on top of tinyconfig (the
#                       benchmark kernel's is scripts/kernel-config-bench)
#   --name NAME         its builds' name in the cache (NAME-linux-6.1-<key>;
#                       default "test"; only "test" updates the "linux" link)
#
# Environment:
#   EXEC_KERNEL_CACHE   cache directory (default /var/cache/exec-kernel);
#                       it survives between CI runs on the same machine
#   EXEC_KERNEL_JOBS    parallel make jobs (default: number of CPUs + 1)
#
# The source is Debian's linux-source-6.1, configured as `make tinyconfig`
# plus scripts/kernel-config.  tinyconfig rather than defconfig because a
# cold build must fit CI on a 2-core machine: defconfig builds thousands of
# drivers that the QEMU guest never uses, each of them slower under KASAN.
#
# The cache key hashes this script's version, the fragment, the exact
# linux-source package version and the compiler: a change to any of them
# means a new build directory (external modules must be built with the
# compiler that built the kernel).  A build directory without its completion
# stamp is a crashed or interrupted build and is started over.

set -euo pipefail

# Bump when a change to this script changes what it builds.
SCRIPT_VERSION=1

SRC_PKG=linux-source-6.1
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
SRC_TOPDIR=linux-source-6.1
STAMP=.exec-kernel-complete
# Build directories are $cache/$PREFIX<key>; other scripts may share the
# cache with their own prefixes, which the clean-up here leaves alone.
name=test

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fragment=$here/kernel-config
cache=${EXEC_KERNEL_CACHE:-/var/cache/exec-kernel}
jobs=${EXEC_KERNEL_JOBS:-$(($(nproc) + 1))}

build=1
install=1
while [ $# -gt 0 ]; do
	arg=$1
	case $arg in
	--print-build-dir) ;;
	--no-build) build=0 ;;
	--no-install) install=0 ;;
	--config) fragment=$(realpath "${2:?--config needs a file}"); shift ;;
	--name) name=${2:?--name needs a name}; shift ;;
	-h | --help)
		sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
		exit 0
		;;
	*)
		echo "kernel-build: unknown argument '$arg'" >&2
		exit 2
		;;
	esac
	shift
done
PREFIX=$name-linux-6.1-

# Everything but the final path goes to stderr, so that callers can use
# $(kernel-build.sh) as the directory.
exec 3>&1 1>&2

log()
{
	echo "kernel-build: $*"
}

die()
{
	echo "kernel-build: error: $*" >&2
	exit 1
}

# --- packages ---------------------------------------------------------------

packages=(
	"$SRC_PKG"		# the kernel source tarball
	build-essential		# gcc, make, libc6-dev (static libc for init)
	bc bison flex		# the kernel build's own tools
	libelf-dev		# objtool (ORC unwinder)
	libssl-dev		# scripts/sign-file, certificate tools
	python3			# a few build scripts
	xz-utils		# unpacking the tarball
	cpio			# the initramfs of kunit-qemu.sh
	qemu-system-x86		# running the test kernel
	linux-headers-amd64	# the module build against Debian's own kernel
)

installed()
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q '^install ok installed$'
}

install_packages()
{
	local missing=() pkg sudo=

	for pkg in "${packages[@]}"; do
		installed "$pkg" || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0

	[ "$install" = 1 ] || die "missing packages: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo > /dev/null ||
			die "not root and no sudo; install: ${missing[*]}"
		sudo="sudo -n"
	fi
	log "installing ${missing[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q < /dev/null
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" < /dev/null
	for pkg in "${missing[@]}"; do
		installed "$pkg" || die "$pkg did not install"
	done
}

# --- the cache key ----------------------------------------------------------

cache_key()
{
	{
		echo "script $SCRIPT_VERSION"
		echo "source $(dpkg-query -W -f='${Version}' "$SRC_PKG")"
		echo "cc $(gcc --version | head -n 1)"
		cat "$fragment"
	} | sha256sum | cut -c 1-16
}

# --- configuration ----------------------------------------------------------

# Every line of the fragment must hold in the final .config; olddefconfig
# drops an option whose dependencies are not met without saying so.
verify_config()
{
	local config=$1 line opt bad=0

	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			if ! grep -qxF "$line" "$config"; then
				opt=${BASH_REMATCH[1]}
				echo "kernel-build: $opt: wanted ${BASH_REMATCH[2]}, got: $(grep -E "^(# )?${opt}[= ]" "$config" || echo 'absent')" >&2
				bad=1
			fi
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			opt=${BASH_REMATCH[1]}
			if grep -qE "^$opt=[ym]$" "$config"; then
				echo "kernel-build: $opt: wanted unset, got: $(grep -E "^$opt=" "$config")" >&2
				bad=1
			fi
		fi
	done < "$fragment"
	[ "$bad" = 0 ] || die "the final .config lacks options of $fragment"
}

configure()
{
	local tree=$1

	log "configuring: tinyconfig + $(basename "$fragment") (log: $tree/config.log)"
	# The %.config target merges a fragment from kernel/configs/ into the
	# current .config and runs olddefconfig on the result.  The merge
	# reports every override, expected here by the dozen: kept in the log.
	cp "$fragment" "$tree/kernel/configs/exec-kunit.config"
	if ! { make -C "$tree" tinyconfig &&
		make -C "$tree" exec-kunit.config; } > "$tree/config.log" 2>&1; then
		tail -n 20 "$tree/config.log" >&2
		die "configuration failed (log: $tree/config.log)"
	fi
	verify_config "$tree/.config"
}

# --- the build --------------------------------------------------------------

build_kernel()
{
	local dir=$1 tmp start

	start=$(date +%s)
	tmp=$dir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log "unpacking $SRC_TARBALL"
	tar -xJf "$SRC_TARBALL" -C "$tmp"
	mv "$tmp/$SRC_TOPDIR" "$dir.src"
	rmdir "$tmp"
	# Renamed only when unpacked whole, so a half-unpacked tree never
	# takes the final name.
	rm -rf "$dir"
	mv "$dir.src" "$dir"

	configure "$dir"

	# `all` on x86 is vmlinux, bzImage and modules, the last of which
	# writes Module.symvers: without it modpost cannot check the
	# symbols of external modules and warns.  modules_prepare is part of
	# it, listed for clarity.
	log "building with -j$jobs (log: $dir/build.log)"
	if ! make -C "$dir" -j"$jobs" all modules_prepare \
		> "$dir/build.log" 2>&1; then
		tail -n 40 "$dir/build.log" >&2
		die "kernel build failed (log: $dir/build.log)"
	fi
	[ -f "$dir/arch/x86/boot/bzImage" ] || die "no bzImage after build"
	[ -f "$dir/Module.symvers" ] || die "no Module.symvers after build"

	echo "$(($(date +%s) - start))" > "$dir/build-seconds"
	touch "$dir/$STAMP"
	log "built in $(cat "$dir/build-seconds") s"
}

main()
{
	local key dir old

	[ -f "$fragment" ] || die "no config fragment $fragment"
	install_packages

	key=$(cache_key)
	dir=$cache/$PREFIX$key

	if [ -f "$dir/$STAMP" ]; then
		touch "$dir/$STAMP" 2>/dev/null || true
		echo "$dir" >&3
		return 0
	fi
	[ "$build" = 1 ] || die "no complete build in $dir (run without --no-build)"

	mkdir -p "$cache"
	# One build at a time per cache; a second caller waits, then finds
	# the stamp.
	exec 9> "$cache/.lock"
	flock 9
	if [ ! -f "$dir/$STAMP" ]; then
		log "no cached kernel for key $key; building into $dir"
		rm -rf "$dir"
		build_kernel "$dir"
	fi
	# The stamp's time is the build's last use.  Builds for other keys
	# (about 2 GB each) go once unused for a day: not at once, since
	# another checkout may still be testing against one.
	touch "$dir/$STAMP"
	for old in "$cache/$PREFIX"*; do
		[ "$old" != "$dir" ] || continue
		if [ -z "$(find "$old/$STAMP" -mmin -1440 2>/dev/null)" ]; then
			log "removing the stale build $old"
			rm -rf "$old"
		fi
	done
	flock -u 9
	[ "$name" != test ] || ln -sfn "$(basename "$dir")" "$cache/linux"

	echo "$dir" >&3
}

main

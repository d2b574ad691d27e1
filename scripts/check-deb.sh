#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-deb.sh KERNELRELEASE VERSION
#
# The Debian packages of debian/, built, installed and used on this machine,
# then purged.  The tree (without .git and build directories) is copied to
# a temporary directory, where `dpkg-buildpackage -us -uc -b` builds
# libexec-user0, libexec-user-dev, libexec-user-doc and exec-dkms next to
# it; lintian must report no error and no warning (debian/*.lintian-overrides
# give the reasons for the overridden ones).  The packages are installed
# with dpkg -i; tests/install/run.sh builds its consumer against the
# installation (pkg-config, CMake and Meson; shared and static) and runs
# it; exec-dkms's postinst must have installed exec.ko, and `dkms build`
# builds it again from /usr/src/libexec-VERSION against Debian's headers of
# KERNELRELEASE.  `dpkg --purge` then removes the packages, after which no
# package, and no file in /usr/src, /usr/lib, /usr/include, /usr/share,
# /lib/modules or the DKMS and doc-base state, may be left that was not
# there before (but the module index files that DKMS's depmod makes for a
# kernel that had none).  Needs root (dpkg -i) and scripts/install-deps.sh's
# dpkg-dev, debhelper, dh-dkms, dkms, lintian, python3-sphinx, cmake and
# meson.  Packages left by an interrupted run are purged first and on exit.
# Ends with "deb: N passed, N failed".

set -u

kver=$1
version=$2
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/check-lib.sh
. "$top/scripts/check-lib.sh"

packages="libexec-user0 libexec-user-dev libexec-user-doc exec-dkms
	libexec-user0-dbgsym"
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

finish()
{
	echo "deb: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

[ "$(id -u)" -eq 0 ] || { fail "not root: dpkg -i needs it"; finish; }
for tool in dpkg-buildpackage dh dh_dkms dkms lintian cmake meson; do
	command -v "$tool" > /dev/null ||
		fail "no $tool (scripts/install-deps.sh installs it)"
done
[ "$failed" -eq 0 ] || finish

purge()
{
	# shellcheck disable=SC2086
	dpkg --purge $packages > "$tmp/purge.log" 2>&1
}

installed_packages()
{
	local p

	for p in $packages; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null |
			grep -q '^[a-z][^n]' && echo "$p"
	done
}

tmp=$(mktemp -d) || exit 1
trap 'purge; rm -rf "$tmp"' EXIT
purge

# Every file, link and directory where the packages put something.
snapshot()
{
	find /usr/src /usr/include /usr/lib/"$arch" /usr/share/man \
		/usr/share/doc /usr/share/doc-base /usr/share/lintian /lib/modules \
		/var/lib/dkms /var/lib/doc-base \
		2>/dev/null | LC_ALL=C sort
}
snapshot > "$tmp/before"

mkdir -p "$tmp/src" || exit 1
(cd "$top" && tar cf - --exclude=./.git --exclude=./build \
	--exclude='./build-*' .) | tar xf - -C "$tmp/src" || exit 1

build()
{
	(cd "$tmp/src" && dpkg-buildpackage -us -uc -b -j2) \
		> "$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; return 1; }
	grep '^dpkg-deb: building' "$tmp/build.log"
}
step "dpkg-buildpackage -us -uc -b" build || finish
changes=$tmp/libexec_${version}-1_$(dpkg-architecture -qDEB_HOST_ARCH).changes

# The overridden tags and their reasons are shown by a second run: with
# --show-overrides, lintian counts them towards --fail-on.
step "lintian: no error, no warning" \
	lintian --fail-on error,warning -I "$changes"
lintian --show-overrides "$changes" 2>&1 | grep -E '^(N|O):'

debs=$(ls "$tmp"/*.deb)
# shellcheck disable=SC2086
step "dpkg -i $(cd "$tmp" && echo *.deb)" dpkg -i $debs
step "installed: $(installed_packages | paste -sd ' ')" \
	test "$(installed_packages | wc -l)" -eq 5

step "the consumer against the packages (tests/install/run.sh)" \
	env -u PKG_CONFIG_PATH "$top/tests/install/run.sh" "" \
	/usr/lib/"$arch"/pkgconfig /usr/share/man "$tmp/consumer"

step "/usr/src/libexec-$version/dkms.conf installed" \
	test -f "/usr/src/libexec-$version/dkms.conf"
# exec-dkms's postinst (dh_dkms) builds and installs the module for the
# kernels that have headers.
dkms status libexec
step "exec.ko installed by exec-dkms's postinst for $kver" \
	test -f "/lib/modules/$kver/updates/dkms/exec.ko"
step "the HTML documentation installed" test -f \
	/usr/share/doc/libexec-user-dev/html/index.html
step "dkms build libexec/$version -k $kver" \
	dkms build --force "libexec/$version" -k "$kver"
module=/var/lib/dkms/libexec/$version/$kver/$(uname -m)/module/exec.ko
step "exec.ko for $kver with version $version" \
	sh -c "modinfo '$module' | grep -q '^vermagic: *$kver ' &&
		modinfo '$module' | grep -qx 'version: *$version'"

# shellcheck disable=SC2086
step "dpkg --purge $packages" dpkg --purge $packages
step "no package left" test -z "$(installed_packages)"
# DKMS's depmod leaves the module index files (modules.dep, ...) of a
# kernel that had none, one with headers but no image: remove those that
# were not there before, and only those.
left()
{
	local f

	for f in /lib/modules/*/modules.*; do
		[ -e "$f" ] && ! grep -qxF "$f" "$tmp/before" && rm -f "$f"
	done
	snapshot > "$tmp/after"
	diff "$tmp/before" "$tmp/after"
}
step "nothing left in /usr, /lib/modules, /var/lib/dkms" left

finish

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-dkms.sh KERNELRELEASE VERSION FILE...
#
# DKMS builds exec.ko from dkms.conf, as a distribution user's DKMS does:
# FILE... (dkms.conf and the module's sources, relative to the current
# directory) are copied to a temporary source tree as
# libexec-VERSION/, then `dkms add`, `dkms build -k KERNELRELEASE` against
# /lib/modules/KERNELRELEASE/build (Debian's headers), and `dkms remove
# --all`.  DKMS's source and module trees are temporary too (--sourcetree,
# --dkmstree), so the system's DKMS state is never touched and a run left
# half-way leaves nothing behind for the next one.  Checks that dkms.conf
# names VERSION, that exec.ko alone is built, for that kernel, with that
# version and without a compiler warning, and that nothing is left in the
# tree after the removal.  Needs dkms (scripts/install-deps.sh), not root:
# only DKMS's module signing key, /var/lib/dkms/mok.key, is the system's (made
# by the first build where it can be written; without it DKMS does not sign).
# Ends with "dkms: N passed, N failed".

set -u

kver=$1
version=$2
shift 2
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

finish()
{
	echo "dkms: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

command -v dkms > /dev/null || {
	fail "no dkms (scripts/install-deps.sh installs it)"
	finish
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The name and version dkms.conf gives, as DKMS reads them: by sourcing it.
# shellcheck disable=SC1091
conf()
{
	(set +u; . ./dkms.conf && eval echo "\"\${$1}\"")
}
name=$(conf PACKAGE_NAME)
step "dkms.conf: PACKAGE_VERSION '$(conf PACKAGE_VERSION)' is the Makefile's $version" \
	test "$(conf PACKAGE_VERSION)" = "$version"
step "dkms.conf builds exec only" \
	test "$(conf 'BUILT_MODULE_NAME[*]')" = exec
[ -n "$name" ] || { fail "dkms.conf has no PACKAGE_NAME"; finish; }

src=$tmp/src/$name-$version
mkdir -p "$src" "$tmp/dkms" || exit 1
tar cf - "$@" | tar xf - -C "$src" || exit 1

dkms_()
{
	dkms "$@" --sourcetree "$tmp/src" --dkmstree "$tmp/dkms"
}

status_is()
{
	local status

	status=$(dkms_ status "$name/$version" -k "$kver")
	echo "dkms status: $status"
	case $1 in
	none) [ -z "$status" ] ;;
	*) echo "$status" | grep -q ": $1\$" ;;
	esac
}

step "dkms add $name/$version" dkms_ add "$name/$version"
step "dkms status: added" status_is added

build=$tmp/dkms/$name/$version
arch_dir=$build/$kver/$(uname -m)
log=$arch_dir/log/make.log
if dkms_ build "$name/$version" -k "$kver"; then
	pass
	step "dkms status: built" status_is built

	# What Kbuild linked, from the log: the modules dkms.conf does not
	# name would be built but not kept.
	modules=$(sed -n 's|^ *LD \[M\] *.*/\([^/]*\.ko\)$|\1|p' "$log" |
		sort -u | paste -sd ' ')
	step "exec.ko alone built (built: $modules)" \
		test "$modules" = exec.ko
	modinfo "$arch_dir/module/exec.ko" > "$tmp/modinfo"
	step "exec.ko is for $kver" \
		grep -q "^vermagic: *$kver " "$tmp/modinfo"
	step "exec.ko has version $version" \
		grep -qx "version: *$version" "$tmp/modinfo"
	echo "--- make.log"
	cat "$log"
	step "no warning in DKMS's make.log" \
		sh -c "! grep -iE '(^|[^a-z_])warning' '$log'"
else
	fail "dkms build $name/$version -k $kver"
	for f in "$log" "$build/build/make.log"; do
		[ -r "$f" ] && cat "$f"
	done
fi

step "dkms remove $name/$version --all" \
	dkms_ remove "$name/$version" --all
step "dkms status: nothing" status_is none
step "nothing left in the DKMS tree" test ! -e "$build"

finish

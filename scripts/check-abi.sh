#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-abi.sh [--static LIB_A] LIB_SO VERSION_SCRIPT SONAME [PUBLIC_HEADER...]
#
# Checks that the shared library carries SONAME; that its dynamic symbol
# table defines exactly the names listed in the generated version script (the
# EXPORT_SYMBOL_GPL() names of core/ and user/), each of them and nothing
# else; that every function the public headers declare (other than their
# static inlines) is among them; and, with --static, that the static library
# defines no other global name either (its internals are local).
# Ends with "abi: N passed, N failed".

set -u

static_lib=
if [ "${1-}" = "--static" ]; then
	static_lib=$2
	shift 2
fi

lib=$1
map=$2
soname=$3
shift 3
passed=0
failed=0

pass()
{
	passed=$((passed + 1))
}

fail()
{
	echo "FAIL: $*"
	failed=$((failed + 1))
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if readelf -d "$lib" | grep -q "(SONAME).*\[$soname\]"; then
	pass
else
	fail "$lib has no SONAME $soname"
fi

sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$map" |
	LC_ALL=C sort -u > "$tmp/expected"
nm -D --defined-only "$lib" | awk 'NF == 3 && $2 != "A" { print $3 }' |
	sed 's/@.*//' | LC_ALL=C sort -u > "$tmp/exported"

if [ -s "$tmp/expected" ]; then
	pass
else
	fail "no EXPORT_SYMBOL_GPL() name found in the sources"
fi

while read -r sym; do
	if grep -qx "$sym" "$tmp/exported"; then
		pass
	else
		fail "exported name $sym is not defined by $lib"
	fi
done < "$tmp/expected"

extra=$(LC_ALL=C comm -13 "$tmp/expected" "$tmp/exported")
if [ -z "$extra" ]; then
	pass
else
	fail "$lib exports names not marked EXPORT_SYMBOL_GPL():" $extra
fi

# Out-of-line functions declared by the public headers: a declaration starts
# in column 0 with its return type; kernel-doc lines start with " *".
if [ $# -gt 0 ]; then
	"$(dirname "$0")/public-functions.sh" "$@" > "$tmp/declared"
	while read -r sym; do
		if grep -qx "$sym" "$tmp/exported"; then
			pass
		else
			fail "public function $sym is not exported"
		fi
	done < "$tmp/declared"
fi

if [ -n "$static_lib" ]; then
	nm -g --defined-only "$static_lib" |
		awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u > "$tmp/static"
	extra=$(LC_ALL=C comm -13 "$tmp/expected" "$tmp/static")
	if [ -z "$extra" ]; then
		pass
	else
		fail "$static_lib defines global names outside the API:" $extra
	fi
	missing=$(LC_ALL=C comm -23 "$tmp/expected" "$tmp/static")
	if [ -z "$missing" ]; then
		pass
	else
		fail "$static_lib does not define:" $missing
	fi
fi

echo "$(wc -l < "$tmp/exported") dynamic symbols exported by $lib"
echo "abi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

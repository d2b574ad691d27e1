#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-abi.sh [--static LIB_A] [--exports LIST] [--baseline OLD_SCRIPT]
#	LIB_SO VERSION_SCRIPT SONAME [PUBLIC_HEADER...]
#
# Checks that the shared library carries SONAME; that its dynamic symbol
# table defines exactly the names listed in the version script, each of them
# and nothing else, each with the version node the script puts it in (none
# is unversioned, "Base"); that every function the public headers declare
# (other than their static inlines) is among them.  The version script's
# nodes are LIBEXEC_USER_<major>.<minor>, each inheriting the one before,
# and no name is in two nodes.  With --exports, LIST (the EXPORT_SYMBOL_GPL()
# names of core/ and user/, one a line) must be the names of the script;
# with --static, the static library defines no other global name (its
# internals are local); with --baseline, the version script of the last
# release, the script only added nodes to it: every released node is still
# there, in the same order, with the same names.  The baseline comparison
# is itself tested on a copy of the script with a name moved out of a
# released node.  Ends with "abi: N passed, N failed".

set -u

static_lib=
exports=
baseline=
while [ $# -gt 0 ]; do
	case $1 in
	--static) static_lib=$2; shift 2 ;;
	--exports) exports=$2; shift 2 ;;
	--baseline) baseline=$2; shift 2 ;;
	*) break ;;
	esac
done

lib=$1
map=$2
soname=$3
shift 3
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if readelf -d "$lib" | grep -q "(SONAME).*\[$soname\]"; then
	pass
else
	fail "$lib has no SONAME $soname"
fi

# parse_map SCRIPT: "node NAME PARENT" per version node, in order, and
# "sym NAME NODE" per global name.
parse_map()
{
	perl -0777 -pe 's{/\*.*?\*/}{}gs' "$1" | awk '
		/^[[:space:]]*[A-Za-z0-9_.]+[[:space:]]*\{/ {
			node = $1
			sub(/\{.*/, "", node)
			scope = ""
			next
		}
		/global:/ { scope = "g"; next }
		/local:/ { scope = "l"; next }
		/^[[:space:]]*\}/ {
			parent = $0
			gsub(/[};[:space:]]/, "", parent)
			print "node", node, parent
			node = ""
			next
		}
		scope == "g" && /;/ {
			sym = $1
			sub(/;.*/, "", sym)
			print "sym", sym, node
		}'
}

# check_nodes SCRIPT: the node names and their chain.
check_nodes()
{
	local prev= name parent

	while read -r name parent; do
		if ! [[ $name =~ ^LIBEXEC_USER_[0-9]+\.[0-9]+$ ]]; then
			fail "version node $name is not LIBEXEC_USER_<major>.<minor>"
		elif [ "$parent" != "$prev" ]; then
			fail "version node $name inherits '${parent}', not the node before it '${prev}'"
		else
			pass
		fi
		prev=$name
	done < <(parse_map "$1" | awk '$1 == "node" { print $2, $3 }')
	[ -n "$prev" ] || fail "$1 has no version node"
}

# only_adds OLD NEW: NEW keeps every node of OLD, in order, with its names.
only_adds()
{
	local old=$1 new=$2 i=0 name ok=0

	parse_map "$old" > "$tmp/old.parsed"
	parse_map "$new" > "$tmp/new.parsed"
	awk '$1 == "node" { print $2 }' "$tmp/new.parsed" > "$tmp/new.nodes"
	while read -r name; do
		i=$((i + 1))
		if [ "$(sed -n "${i}p" "$tmp/new.nodes")" != "$name" ]; then
			echo "released node $name is not node $i of $new"
			ok=1
			continue
		fi
		if ! cmp -s <(awk -v n="$name" '$1 == "sym" && $3 == n { print $2 }' \
				"$tmp/old.parsed" | LC_ALL=C sort) \
			    <(awk -v n="$name" '$1 == "sym" && $3 == n { print $2 }' \
				"$tmp/new.parsed" | LC_ALL=C sort); then
			echo "released node $name changed its names"
			ok=1
		fi
	done < <(awk '$1 == "node" { print $2 }' "$tmp/old.parsed")
	return $ok
}

parse_map "$map" > "$tmp/parsed"
awk '$1 == "sym" { print $2 }' "$tmp/parsed" | LC_ALL=C sort > "$tmp/all"
LC_ALL=C sort -u "$tmp/all" > "$tmp/expected"
awk '$1 == "sym" { print $2 "@@" $3 }' "$tmp/parsed" |
	LC_ALL=C sort > "$tmp/expected.versioned"
nm -D --defined-only "$lib" | awk 'NF == 3 && $2 != "A" { print $3 }' |
	LC_ALL=C sort -u > "$tmp/exported.versioned"
sed 's/@.*//' "$tmp/exported.versioned" | LC_ALL=C sort -u > "$tmp/exported"

check_nodes "$map"
dup=$(uniq -d "$tmp/all")
if [ -z "$dup" ]; then
	pass
else
	fail "names in more than one version node:" $dup
fi

# Every exported name carries its node (objdump -T would say "Base" for an
# unversioned one).
unversioned=$(grep -v '@' "$tmp/exported.versioned")
if [ -z "$unversioned" ]; then
	pass
else
	fail "$lib exports names without a version:" $unversioned
fi
wrong=$(LC_ALL=C comm -13 "$tmp/expected.versioned" \
	<(grep '@' "$tmp/exported.versioned" | sed 's/@@*/@@/'))
if [ -z "$wrong" ]; then
	pass
else
	fail "$lib exports names with a version other than their node's:" $wrong
fi

if [ -n "$exports" ]; then
	missing=$(LC_ALL=C comm -23 "$exports" "$tmp/expected")
	if [ -z "$missing" ]; then
		pass
	else
		fail "EXPORT_SYMBOL_GPL() names in no version node of $map (add them to the newest node, or to a new one after a release):" $missing
	fi
	extra=$(LC_ALL=C comm -13 "$exports" "$tmp/expected")
	if [ -z "$extra" ]; then
		pass
	else
		fail "names in $map that the sources do not mark EXPORT_SYMBOL_GPL():" $extra
	fi
fi

# The comparison with a release catches a name moved out of a released node.
first=$(awk '$1 == "sym" { print $2; exit }' "$tmp/parsed")
perl -pe "s/^\s*\Q$first\E;\s*\n//" "$map" > "$tmp/mutated.map"
if ! only_adds "$map" "$tmp/mutated.map" > /dev/null; then
	pass
else
	fail "the release comparison does not notice $first leaving its node"
fi
if [ -n "$baseline" ]; then
	if [ ! -s "$baseline" ]; then
		fail "the baseline version script $baseline is empty (no $map in the last release?)"
	elif out=$(only_adds "$baseline" "$map"); then
		pass
		echo "version nodes: only added since the baseline $baseline"
	else
		fail "$map changed released version nodes:" "$out"
	fi
else
	echo "version nodes: no release to compare with"
fi

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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# deb-symbols.sh MAP SONAME PACKAGE VERSION
#
# Prints the Debian symbols file of the shared library SONAME in PACKAGE,
# made from its version script MAP (user/libexec-user.map): every global
# name, and every version node (which the library also exports), tagged
# with its node.  A name added in node LIBEXEC_USER_X.Y needs version X.Y.0
# of the library; a node newer than VERSION (the Makefile's, not yet
# released) needs VERSION itself.  dpkg-gensymbols then checks the
# library's exports against it, and fails on any difference.

set -euo pipefail

map=$1
soname=$2
package=$3
version=$4

echo "$soname $package #MINVER#"
echo "* Build-Depends-Package: ${package%%[0-9]*}-dev"
sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' "$map" |
	awk '
	/^[A-Za-z_][A-Za-z0-9_.]* *\{/ { node = $1; print "node " node; next }
	/^[ \t]*(global|local):/ { global = ($1 == "global:"); next }
	/^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
		if (global && node != "") {
			sub(/;.*/, "", $1)
			print "sym " node " " $1
		}
	}' |
	while read -r kind node name; do
		v=${node##*_}.0
		dpkg --compare-versions "$v" le "$version" || v=$version
		case $kind in
		node) echo " $node@$node $v" ;;
		sym) echo " $name@$node $v" ;;
		esac
	done

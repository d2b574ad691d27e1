#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-headers.sh HEADER...
#
# Each public header must compile on its own, included twice (its guard), as
# C99 with -pedantic and as C++, with warnings as errors.  Headers are
# included the way users include them, <exec/NAME.h>, with include/ as the
# only include directory.  Ends with "headers: N passed, N failed".

set -u

CC=${CC:-cc}
CXX=${CXX:-c++}
passed=0
failed=0

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

try()
{
	local what=$1

	shift
	if "$@" 2> "$tmp/err"; then
		passed=$((passed + 1))
	else
		echo "FAIL: $what"
		sed 's/^/    /' "$tmp/err"
		failed=$((failed + 1))
	fi
}

for hdr in "$@"; do
	name=exec/$(basename "$hdr")
	printf '#include <%s>\n#include <%s>\n' "$name" "$name" > "$tmp/t.c"
	cp "$tmp/t.c" "$tmp/t.cc"
	try "$name as C99" "$CC" -std=c99 -pedantic -Wall -Wextra -Werror \
		-Iinclude -c -o "$tmp/t.o" "$tmp/t.c"
	try "$name as C11" "$CC" -std=c11 -pedantic -Wall -Wextra -Werror \
		-Iinclude -c -o "$tmp/t.o" "$tmp/t.c"
	try "$name as C++" "$CXX" -fsyntax-only -pedantic -Wall -Wextra \
		-Werror -Iinclude "$tmp/t.cc"
done

echo "headers: $passed passed, $failed failed"
[ $# -gt 0 ] && [ "$failed" -eq 0 ]

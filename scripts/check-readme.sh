#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-readme.sh README STAGE PKGCONFIGDIR WORKDIR
#
# The library example of README.md, exactly as written: takes the first
# ```sh and ```c blocks of its "## Using the library" section, writes the C
# block to WORKDIR/app.c, runs each `cc` command of the sh block there
# against a `make install` staged in STAGE (a pkg-config sysroot;
# PKGCONFIGDIR is where the .pc file went, without STAGE), and runs each
# program, which must print "in order" and exit with 0.
# Ends with "readme: N passed, N failed".

set -u

readme=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
stage=$2
pcdir=$3
work=$4
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

# block LANG: the first ```LANG block of the section.
block()
{
	awk -v lang="$1" '
		/^## / { in_section = ($0 == "## Using the library") }
		in_section && !done && $0 == "```" lang { on = 1; next }
		on && $0 == "```" { on = 0; done = 1; next }
		on { print }
	' "$readme"
}

rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
block c > app.c
block sh | grep '^cc ' > build.sh
step "README has the example and its cc commands" \
	test -s app.c -a -s build.sh

export PKG_CONFIG_PATH=$stage$pcdir
export PKG_CONFIG_SYSROOT_DIR=$stage
libdir=$(pkg-config --variable=libdir exec-user)
case $libdir in
"$stage"/*) ;;
*) libdir=$stage$libdir ;;
esac

run_app()
{
	local out

	out=$(LD_LIBRARY_PATH=$libdir ./a.out) || return 1
	[ "$out" = "in order" ] || { echo "printed '$out'"; return 1; }
}

while read -r cmd; do
	rm -f a.out
	step "$cmd" sh -c "$cmd"
	step "run (built by: $cmd)" run_app
done < build.sh

echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

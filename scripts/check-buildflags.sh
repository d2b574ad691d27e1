#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-buildflags.sh OUTDIR
#
# Builds the libraries and the demo into OUTDIR the way a Debian package
# does, with the flags of dpkg-buildflags (all hardening features) exported
# in the environment, and checks that they are honoured as given: every
# CPPFLAGS and CFLAGS word on every compiler command line, every LDFLAGS
# word on the link lines; and in the result, fortified calls (__*_chk, from
# -D_FORTIFY_SOURCE), a stack protector, and RELRO with BIND_NOW.
# Ends with "buildflags: N passed, N failed".

set -u

out=$1
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

finish()
{
	echo "buildflags: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

command -v dpkg-buildflags > /dev/null || {
	fail "dpkg-buildflags (dpkg-dev) is not installed"
	finish
}
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
echo "CPPFLAGS=$CPPFLAGS"
echo "CFLAGS=$CFLAGS"
echo "LDFLAGS=$LDFLAGS"

rm -rf "$out"
mkdir -p "$out"
log=$out/build.log
if make --no-print-directory O="$out" all "$out/demo" > "$log" 2>&1; then
	pass
else
	cat "$log"
	fail "the build with dpkg-buildflags failed"
	finish
fi

# has_words LINE WORD...: every WORD is a word of LINE.
has_words()
{
	local line=" $1 " word

	shift
	for word in "$@"; do
		case $line in
		*" $word "*) ;;
		*) echo "missing $word"; return 1 ;;
		esac
	done
}

compiles=0
while read -r line; do
	compiles=$((compiles + 1))
	# shellcheck disable=SC2086
	if why=$(has_words "$line" $CPPFLAGS $CFLAGS); then
		pass
	else
		fail "$why: $line"
	fi
done < <(grep -E '(^| )-c ' "$log")
[ "$compiles" -gt 0 ] || fail "no compiler command line in $log"

links=0
while read -r line; do
	links=$((links + 1))
	# shellcheck disable=SC2086
	if why=$(has_words "$line" $LDFLAGS); then
		pass
	else
		fail "$why: $line"
	fi
done < <(grep -E '(^| )-o [^ ]*(\.so\.[0-9.]+|/demo)( |$)' "$log")
[ "$links" -eq 2 ] || fail "expected 2 link lines (library, demo), found $links"

so=$(ls "$out"/libexec-user.so.*.*.* 2>/dev/null | head -n 1)
if nm -D "$so" | grep -qE ' U __[a-z_]+_chk(@|$)'; then
	pass
else
	fail "$so calls no fortified function (__*_chk)"
fi
if nm -D "$so" | grep -q ' U __stack_chk_fail'; then
	pass
else
	fail "$so has no stack protector"
fi
if readelf -lW "$so" | grep -q GNU_RELRO; then
	pass
else
	fail "$so has no RELRO segment"
fi
if readelf -dW "$so" | grep -qE 'BIND_NOW|FLAGS.*NOW'; then
	pass
else
	fail "$so is not linked with -z now"
fi
finish

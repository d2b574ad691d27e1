#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-man.sh KERNEL_DOC MANDIR HEADER...
#
# The kernel-doc comments of the public headers and the man pages made from
# them (scripts/man-pages.sh, into MANDIR/man3): kernel-doc (KERNEL_DOC)
# reads each header without a warning (a parameter not described or not
# there, a comment that names another function than the prototype below it);
# every function the headers declare (scripts/public-functions.sh) has a
# kernel-doc comment, so a page; and each page has a NAME line that man-db
# reads for whatis and apropos (lexgrog) and is formatted by groff without a
# warning.  Ends with "man: N passed, N failed".

set -u

kernel_doc=$1
mandir=$2
shift 2
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

quiet()
{
	"$@" > "$tmp/out" 2>&1
	local status=$?

	[ -s "$tmp/out" ] && sed 's/^/    /' "$tmp/out"
	[ "$status" -eq 0 ] && [ ! -s "$tmp/out" ]
}

for hdr in "$@"; do
	step "kernel-doc $hdr: no warning" \
		quiet "$kernel_doc" -none -Werror "$hdr"
done

"$(dirname "$0")/public-functions.sh" "$@" > "$tmp/public"
[ -s "$tmp/public" ] || fail "no public function found"
while read -r fn; do
	if [ -f "$mandir/man3/$fn.3" ]; then
		pass
	else
		fail "$fn has no kernel-doc comment: no page $mandir/man3/$fn.3"
	fi
done < "$tmp/public"

# Each tool once over all the pages; both name the page in their lines.
pages=("$mandir"/man3/*.3)
echo "--- ${#pages[@]} pages: whatis entries, groff -ww"
lexgrog "${pages[@]}" > "$tmp/whatis" 2>&1
groff -z -ww -man -Tutf8 "${pages[@]}" > "$tmp/groff" 2>&1 ||
	fail "groff exited with $?: $(cat "$tmp/groff")"
for page in "${pages[@]}"; do
	if ! grep -qF "$page: \"$(basename "$page" .3) - " "$tmp/whatis"; then
		fail "$page: no whatis entry: $(grep -F "$page:" "$tmp/whatis")"
	elif grep -qF "$page:" "$tmp/groff"; then
		fail "$page: groff warns: $(grep -F "$page:" "$tmp/groff")"
	else
		pass
	fi
done

echo "man: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

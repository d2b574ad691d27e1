#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# man-pages.sh KERNEL_DOC VERSION OUTDIR HEADER...
#
# Writes one section-3 man page per function that has a kernel-doc comment
# in the public headers, OUTDIR/man3/NAME.3, from the kernel's own
# scripts/kernel-doc (KERNEL_DOC) run with -man, and the list of the pages'
# names, one a line, to OUTDIR/pages, last (the Makefile's target).
# kernel-doc writes section-9 pages with a kernel title line; each page gets
# a section-3 title line naming libexec-user VERSION and, in its synopsis,
# the #include line of its header (<exec/NAME.h>, as the headers are
# installed).  The date is SOURCE_DATE_EPOCH's, else the last commit's, so
# that the same tree gives the same pages.  kernel-doc's warnings are shown,
# not fatal: `make check-man` fails on them.

set -euo pipefail

kernel_doc=$1
version=$2
out=$3
shift 3

if ! command -v "$kernel_doc" > /dev/null; then
	echo "man-pages: no kernel-doc at '$kernel_doc': install Debian's linux-headers-amd64 (scripts/install-deps.sh), or give KERNEL_DOC=" >&2
	exit 1
fi

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2> /dev/null || date +%s)}
date=$(date -u -d "@$epoch" +%Y-%m-%d)

rm -rf "$out/man3" "$out/pages"
mkdir -p "$out/man3"

# functions HEADER: the functions HEADER documents, as kernel-doc sees them.
functions()
{
	"$kernel_doc" -none -v "$1" 2>&1 |
		sed -n 's/.*: info: Scanning doc for function \([A-Za-z0-9_]*\)$/\1/p'
}

for hdr in "$@"; do
	args=()
	for fn in $(functions "$hdr"); do
		args+=(-function "$fn")
	done
	[ ${#args[@]} -gt 0 ] || continue
	"$kernel_doc" -man "${args[@]}" "$hdr" |
		awk -v dir="$out/man3" -v include="exec/$(basename "$hdr")" \
		    -v version="$version" -v date="$date" '
		/^\.TH / {
			if (page)
				close(page)
			name = $2
			gsub(/"/, "", name)
			page = dir "/" name ".3"
			printf(".TH \"%s\" 3 \"%s\" \"libexec-user %s\" \"libexec manual\"\n",
			       name, date, version) > page
			next
		}
		!page { next }
		{ print > page }
		/^\.SH SYNOPSIS$/ {
			printf(".B \"#include <%s>\"\n.sp\n", include) > page
		}
	'
done

(cd "$out/man3" && ls -- *.3) | sed 's/\.3$//' > "$out/pages.tmp"
[ -s "$out/pages.tmp" ] || {
	echo "man-pages: kernel-doc wrote no page" >&2
	exit 1
}
mv "$out/pages.tmp" "$out/pages"

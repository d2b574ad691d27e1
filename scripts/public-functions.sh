#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# public-functions.sh HEADER...
#
# Prints, sorted, the out-of-line functions the public headers declare: a
# declaration starts in column 0 with its return type, or with the name
# itself when the return type stands alone on the line before; static
# inlines, typedefs and kernel-doc lines (" * ...") are not declarations.

set -u

awk '
	/^exec_[a-z0-9_]+\(/ {
		if (prev !~ /^(static|typedef|#)/) {
			name = $0
			sub(/\(.*/, "", name)
			print name
		}
	}
	/^[a-z].*[ *]exec_[a-z0-9_]+\(/ && !/^(static|typedef|#)/ {
		name = $0
		sub(/\(.*/, "", name)
		sub(/.*[ *]/, "", name)
		print name
	}
	{ prev = $0 }
' "$@" | LC_ALL=C sort -u

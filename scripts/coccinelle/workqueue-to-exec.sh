#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Converts a driver's workqueue use to exec's API with the semantic patch
# workqueue-to-exec.cocci (Debian's coccinelle), then lists what is left.
#
# Usage: workqueue-to-exec.sh [--report] [-o OUT] FILE.c
#
#   (default)   write the converted FILE.c to OUT (default: FILE.c itself),
#               with, when anything changed, #include <exec/exec.h> after
#               its last <linux/...> include and, in a module (one with a
#               MODULE_LICENSE()), MODULE_IMPORT_NS(EXEC) after that, the
#               namespace exec.ko exports its API in
#   --report    convert nothing: print what the patch would leave to a
#               person, and the workqueue uses FILE.c has
#   -o OUT      where the converted file goes
#
# Prints, one a line, "FILE:LINE: exec-migrate: ..." for each site the
# patch does not convert (its notes), then "FILE:LINE: exec-migrate:
# left: ..." for each workqueue name still in the result.  Exit status 0
# when nothing is left, 3 when something is, 1 or 2 on errors.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cocci=$here/workqueue-to-exec.cocci

report=0
out=
while [ $# -gt 0 ]; do
	case $1 in
	--report) report=1 ;;
	-o) out=${2:?-o needs a file}; shift ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
	-*) echo "workqueue-to-exec: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: workqueue-to-exec.sh [--report] [-o OUT] FILE.c" >&2; exit 2; }
src=$1
[ -f "$src" ] || { echo "workqueue-to-exec: no file '$src'" >&2; exit 2; }
command -v spatch > /dev/null ||
	{ echo "workqueue-to-exec: spatch missing (apt-get install coccinelle)" >&2; exit 2; }
out=${out:-$src}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The workqueue API's names, as the result may still hold them.
left_re='\<(struct (work_struct|delayed_work|workqueue_struct|rcu_work)\>'
left_re+='|\<((alloc_ordered_|alloc_|destroy_|flush_|drain_)workqueue'
left_re+='|(queue|schedule|mod)_(delayed_)?work(_on)?'
left_re+='|(cancel|flush)_(delayed_|rcu_)?work(_sync)?'
left_re+='|(delayed_)?work_pending|to_delayed_work|work_busy'
left_re+='|INIT_(DELAYED_|DEFERRABLE_|RCU_)?WORK(_ONSTACK)?'
left_re+='|DECLARE_(DELAYED_)?WORK)[[:space:]]*\('
left_re+='|\<system_[a-z_]*wq\>)'

# Names in comments or strings are not uses: blank both out first.
uses()
{
	sed -E -e 's://.*$::' -e 's:"([^"\\]|\\.)*":"":g' "$1" |
		awk '{
			line = $0
			while (1) {
				if (incomment) {
					e = index(line, "*/")
					if (!e) { line = ""; break }
					line = substr(line, e + 2); incomment = 0
				}
				s = index(line, "/*")
				if (!s) break
				out = out substr(line, 1, s - 1)
				line = substr(line, s + 2); incomment = 1
			}
			print out line; out = ""
		}' | grep -nE "$left_re" | cut -d: -f1 |
		awk -v file="$1" -v what="$2" '
			NR == FNR { want[$1] = 1; next }
			FNR in want {
				line = $0
				sub(/^[ \t]+/, "", line)
				print file ":" FNR ": exec-migrate: " what ": " line
			}' - "$1" || true
}

if [ "$report" = 1 ]; then
	spatch --very-quiet --no-includes --sp-file "$cocci" "$src" |
		grep -E '^[^ ]+:[0-9]+: exec-migrate: ' || true
	uses "$src" uses
	exit 0
fi

spatch --very-quiet --no-includes --sp-file "$cocci" -D patch \
	-o "$tmp/out.c" "$src" > "$tmp/spatch.out"
# spatch prints its diff there too: the notes are the lines of the .cocci.
grep -E '^[^ ]+:[0-9]+: exec-migrate: ' "$tmp/spatch.out" || true
if [ ! -s "$tmp/out.c" ] || cmp -s "$src" "$tmp/out.c"; then
	[ "$src" = "$out" ] || cp "$src" "$out"
	echo "workqueue-to-exec: $src: nothing converted"
else
	# After the last <linux/...> include: exec's headers need the
	# kernel's types and nothing of the driver's own headers.
	awk '
		{ lines[NR] = $0 }
		/^#include <linux\// { last = NR }
		/^MODULE_IMPORT_NS\(EXEC\);/ { imported = 1 }
		END {
			for (i = 1; i <= NR; i++) {
				print lines[i]
				if (i == last)
					print "#include <exec/exec.h>"
				if (!imported && lines[i] ~ /^MODULE_LICENSE\(/)
					print "MODULE_IMPORT_NS(EXEC);"
			}
			if (!last)
				exit 1
		}' "$tmp/out.c" > "$tmp/inc.c" ||
		{ echo "workqueue-to-exec: $src: no #include <linux/...> to put exec's after" >&2; exit 1; }
	cp "$tmp/inc.c" "$out"
fi

uses "$out" left > "$tmp/left"
cat "$tmp/left"
if [ -s "$tmp/left" ]; then
	exit 3
fi

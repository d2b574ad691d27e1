#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-layout.sh FILE...
#
# What the project's layout rules say that can be counted, for each file:
# no function over 80 lines, counted from the line that opens its
# definition (a line that starts with a letter, has a '(' and does not end
# with ';') to its closing brace in the first column; and one back-off (a
# wait for other threads' few steps counts its turns against
# EXEC_BACKOFF_SPINS through exec_backoff(), core/internal.h, never against
# a number of its own, and a destroy's wait for the calls behind its gate
# is exec_drain_users()); and every field tag (the letter that starts a
# field's kernel-doc line, "@field: L:") is one of core/internal.h's
# legend; and no comment quotes a benchmark figure (a number of us, ms or
# M/s, a p50/p99/p999, "interleaved rounds", a ratio such as 1.44x): the
# figures go in Documentation/benchmarks.rst, the comment keeps the reason
# (issue 39); and no two headers of the library (core/, include/exec/,
# user/, kernel/) share a name; and what lies outside core/ takes the core
# through its contracts only (issue 39): user/io/ (the I/O contexts, the
# loops driven by other event loops) includes core/extension.h and no
# other header of core/, core/internal.h least of all; the platform's
# files in user/ include core/platform.h and nothing of core/ or user/io/
# besides; the kernel module's files in kernel/ (its init and exit, the
# debugfs files, the platform) include core/platform.h and nothing else of
# core/, core/internal.h and core/stats_count.h least of all, while the
# test modules of kernel/tests/, which test the core's internals, may;
# core/extension.h includes core/platform.h only, and
# core/platform.h no header of core/; and the group and future submission
# paths (core/group.c, core/future.c) allocate nothing of their own: their
# per-call records come from the record cache (exec_record_alloc(),
# core/executor.c), so a kmalloc()/kzalloc() there is allowed only in the
# functions of ALLOC_ALLOW, which make long-lived objects (issue 39); and
# threads that sleep for want of work sleep on core/idle.h's records: no
# other file declares an idle list or a count of idle threads of its own
# (a field "nr_idle" or "*idle_list"), as the thread pool, the loop
# scheduler and the loop executor each once did (issue 39).  A
# file that fails names each function and its length, or each line.  Ends
# with "layout: N passed, N failed".

set -u
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
MAX_LINES=80
# The field tags of core/internal.h's legend.
TAGS=IALOCBMWG
# What a figure from a benchmark run looks like, conservatively.
FIGURE='[0-9](\.[0-9]+)?[ -]?(us|ms|µs|M/s)\b|M items/s|\bp(50|99|999)\b'
FIGURE="$FIGURE"'|interleaved rounds|[0-9]\.[0-9]+x\b'
# Comment lines that match FIGURE but define or explain a constant rather
# than quote a run: "FILE|TEXT ON THE LINE|why it may stay".
FIGURE_ALLOW=(
	"core/timer_wheel.h|a tick is 2^10 ns (1.024 us)|the wheel's geometry"
	"core/timer_wheel.h|spans 65 us, level 1 4.2 ms|the wheel's geometry"
	"core/timer_wheel.h|(4.2 ms, 268 ms): thousands|the wheel's geometry"
	"core/timer.c|to 100 ms), and every timer|the kernel's hrtimer hang cap"
)

# Files whose submission paths take their records from the record cache,
# and the functions there that may allocate directly: "FILE|FUNCTION".
ALLOC_FILES='core/group.c core/future.c'
ALLOC_ALLOW=(
	"core/group.c|exec_group_create_key"
)
# The one home of idle lists, and what a second one's declaration looks like.
IDLE_HOME=core/idle.h
IDLE_TYPE='(atomic_t|atomic_long_t|int|long|unsigned( int| long)?)'
IDLE_DECL="^[[:space:]]*${IDLE_TYPE}[[:space:]]+nr_idle[[:space:]]*;"
IDLE_DECL="$IDLE_DECL|[*][[:space:]]*idle_list[[:space:]]*;"

# A direct allocation of the core (core/internal.h's wrappers included).
ALLOC_CALL='(^|[^A-Za-z0-9_])(k[mz]alloc|kcalloc|kmemdup|exec_kzalloc_obj)[[:space:]]*[(]'

# none FOUND MESSAGE...: one check, passed if FOUND is empty; otherwise
# failed with MESSAGE and FOUND's lines, indented.
none()
{
	local found=$1

	shift
	if [ -z "$found" ]; then
		pass
	else
		fail "$@"
		printf '%s\n' "$found" | sed 's/^/    /'
	fi
}

# direct_allocs FILE: "LINE: NAME-LINE" of each direct allocation of FILE
# outside the functions ALLOC_ALLOW names for it.
direct_allocs()
{
	local entry allow=

	for entry in "${ALLOC_ALLOW[@]}"; do
		case "$1" in
		*"${entry%%|*}") allow="$allow ${entry#*|}" ;;
		esac
	done
	awk -v call="$ALLOC_CALL" -v allow="$allow" '
		/^[A-Za-z].*\(/ && !/;[ \t]*$/ {
			head = $0
			name = $0
			sub(/\(.*/, "", name)
			sub(/.*[ *(]/, "", name)
		}
		/^}/ { head = ""; name = "" }
		head != "" && $0 !~ /^[ \t]*(\*|\/\*|\/\/)/ && $0 ~ call {
			if (index(" " allow " ", " " name " ") == 0)
				printf "%d: in %s\n", NR, head
		}
	' "$1"
}

# long_functions FILE: "LINES NAME-LINE" for each function over MAX_LINES.
long_functions()
{
	awk -v max="$MAX_LINES" '
		/^[A-Za-z].*\(/ && !/;[ \t]*$/ { start = NR; head = $0 }
		/^}/ && start {
			if (NR - start > max)
				printf "%d %s\n", NR - start, head
			start = 0
		}
	' "$1"
}

# guarded_includes FILE: the headers of core/ and user/io/ that FILE
# includes, as paths from the top, each found where the compiler finds it:
# next to FILE for a quoted name, then in include/, core/ and the
# platform's include directory: kernel/include/ for a file of kernel/ (the
# Kbuild's -I order), else user/include/ (the userspace build's).
guarded_includes()
{
	local dir name path platform=user

	dir=$(dirname "$1")
	case "$(realpath "$1")" in
	"$top"/kernel/*) platform=kernel ;;
	esac
	sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]+)[">].*/\1/p' "$1" |
	while IFS= read -r name; do
		for path in "$dir/$name" "$top/include/$name" "$top/core/$name" \
			"$top/$platform/include/$name"; do
			[ -f "$path" ] || continue
			path=$(realpath "$path")
			case "$path" in
			"$top"/core/* | "$top"/user/io/*)
				printf '%s\n' "${path#"$top"/}" ;;
			esac
			break
		done
	done
}

# includes_allowed FILE: what FILE may include of core/ and user/io/, one
# path a line; "-" for a file that the rule does not concern.
includes_allowed()
{
	case "$1" in
	user/io/* | */user/io/*)
		echo core/extension.h
		find "$top/user/io" -maxdepth 1 -name '*.h' |
			sed "s|^$top/||" ;;
	user/* | */user/*)
		echo core/platform.h ;;
	kernel/tests/* | */kernel/tests/*)
		echo - ;;
	kernel/* | */kernel/*)
		echo core/platform.h ;;
	core/extension.h | */core/extension.h)
		echo core/platform.h ;;
	core/platform.h | */core/platform.h)
		echo ;;
	*)
		echo - ;;
	esac
}

# figures FILE: the comment lines of FILE that quote a figure, less the
# allowed ones.
figures()
{
	local line entry file text

	grep -nE "$FIGURE" "$1" |
	grep -E '^[0-9]+:([[:space:]]*(\*|/\*|//)|.*(/\*|//))' |
	while IFS= read -r line; do
		for entry in "${FIGURE_ALLOW[@]}"; do
			file=${entry%%|*}
			text=${entry#*|}
			text=${text%|*}
			case "$1" in
			*"$file")
				case "$line" in *"$text"*) continue 2 ;; esac ;;
			esac
		done
		printf '%s\n' "$line"
	done
}

for f in "$@"; do
	long=$(long_functions "$f")
	none "$long" "$f: functions over $MAX_LINES lines:"
	tags=$(grep -nE '^ \* @[A-Za-z_0-9]+: [A-Z](\([^)]*\))?[:,]' "$f" |
		grep -vE "^[0-9]+: \* @[A-Za-z_0-9]+: [$TAGS](\(|:|,)")
	none "$tags" "$f: field tags not in core/internal.h's legend:"
	spin=$(grep -nE 'spins\)? *(<|<=|>|>=) *[0-9]' "$f")
	none "$spin" "$f: a back-off of its own (use exec_backoff()):"
	# A destroy's wait for the calls that came in before its gate:
	# exec_drain_users(), not a loop of its own on the count.
	drain=$(awk '/while \(.*atomic_read_acquire\(/ { w = FNR ": " $0; next }
		w != "" && /exec_backoff\(/ { print w } { w = "" }' "$f")
	[ "${f#"$top"/}" = core/internal.h ] && drain=
	none "$drain" "$f: a drain of its own (use exec_drain_users()):"
	case "$f" in
	*.h)
		# One header of each name: "stats.h" meant two files once.
		same=$(find "$top/core" "$top/include/exec" "$top/user" \
			"$top/kernel" -name "$(basename "$f")" | wc -l)
		if [ "$same" -le 1 ]; then
			pass
		else
			fail "$f: $same headers of this name"
		fi
		;;
	esac
	allowed=$(includes_allowed "$f")
	if [ "$allowed" != - ]; then
		bad=$(guarded_includes "$f" | grep -vxF -e "$allowed")
		none "$bad" "$f: includes what it must take through a contract" \
			"(core/platform.h, core/extension.h):"
	fi
	case " $ALLOC_FILES " in
	*" ${f#"$top"/} "*)
		allocs=$(direct_allocs "$f")
		none "$allocs" "$f: an allocation of its own on a submission" \
			"path (exec_record_alloc(), core/executor.c):"
		;;
	esac
	case "$f" in
	*"$IDLE_HOME") ;;
	*)
		idle=$(grep -nE "$IDLE_DECL" "$f")
		none "$idle" "$f: an idle list of its own ($IDLE_HOME):"
		;;
	esac
	figs=$(figures "$f")
	none "$figs" "$f: a benchmark figure in a comment" \
		"(Documentation/benchmarks.rst):"
done

echo "layout: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

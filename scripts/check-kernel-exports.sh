#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-kernel-exports.sh [--test] BUILD_DIR PUBLIC_HEADER...
#
# Checks exec.ko as built in BUILD_DIR (a kernel/kernel.mk staging
# directory): from its Module.symvers, that it exports every function the
# public headers declare (user.h and io.h, the userspace-only API, aside),
# GPL-only and in the symbol namespace EXEC, and nothing else but, with
# --test only (the
# test build, CONFIG_EXEC_KUNIT_TEST=m), the test hooks in KUnit's
# EXPORTED_FOR_KUNIT_TESTING namespace; and that its .modinfo carries a
# version, an author, a license and a description.
# Ends with "kernel-exports: N passed, N failed".

set -u

test_build=
if [ "${1-}" = "--test" ]; then
	test_build=y
	shift
fi
dir=$1
shift
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

symvers=$dir/Module.symvers
if [ ! -r "$symvers" ]; then
	echo "no $symvers"
	echo "kernel-exports: 0 passed, 1 failed"
	exit 1
fi

headers=()
for h in "$@"; do
	case "$(basename "$h")" in
	user.h | io.h) ;;
	*) headers+=("$h") ;;
	esac
done
"$(dirname "$0")/public-functions.sh" "${headers[@]}" > "$tmp/public"

# Module.symvers: CRC, symbol, module, export type, namespace.
awk -F '\t' '$3 ~ /(^|\/)exec$/ { print $2, $4, $5 }' "$symvers" |
	LC_ALL=C sort > "$tmp/exports"
awk '{ print $1 }' "$tmp/exports" > "$tmp/names"

if [ -s "$tmp/public" ] && [ -s "$tmp/exports" ]; then
	pass
else
	fail "no public function or no export of exec found"
fi

while read -r sym; do
	if grep -qx "$sym EXPORT_SYMBOL_GPL EXEC" "$tmp/exports"; then
		pass
	elif grep -qx "$sym" "$tmp/names"; then
		fail "$sym is exported as '$(grep "^$sym " "$tmp/exports" | cut -d' ' -f2-)', not EXPORT_SYMBOL_GPL in EXEC"
	else
		fail "public function $sym is not exported"
	fi
done < "$tmp/public"

hooks=0
while read -r sym type ns; do
	grep -qx "$sym" "$tmp/public" && continue
	if [ -n "$test_build" ] && [ "$ns" = EXPORTED_FOR_KUNIT_TESTING ]; then
		hooks=$((hooks + 1))
		pass
	else
		fail "$sym is exported ($type ${ns:-without namespace}) but is not public API"
	fi
done < "$tmp/exports"
if [ -n "$test_build" ]; then
	if [ "$hooks" -gt 0 ]; then
		pass
	else
		fail "the test build exports no test hook"
	fi
fi

# .modinfo holds NUL-separated "field=value" strings (no modinfo needed).
ko=$dir/exec.ko
objcopy -O binary --only-section=.modinfo "$ko" "$tmp/modinfo" 2>/dev/null
tr '\0' '\n' < "$tmp/modinfo" > "$tmp/modinfo.txt" 2>/dev/null
for field in version author license description; do
	value=$(sed -n "s/^$field=//p" "$tmp/modinfo.txt")
	if [ -n "$value" ]; then
		pass
	else
		fail "$ko has no $field in .modinfo"
	fi
done

echo "exec.ko: $(wc -l < "$tmp/public") public functions, $hooks test hooks exported"
echo "kernel-exports: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

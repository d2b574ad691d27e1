#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Builds the semantic patch's own test: tests/coccinelle/wq_sample.c, a
# driver written for workqueues that checks their promises at load, as it
# is (wq_sample.ko) and converted by workqueue-to-exec.cocci
# (exec_wq_sample.ko).  The conversion must leave nothing.
#
# Usage: build-sample.sh --kdir KDIR --symvers FILE --out DIR
#
#   --kdir KDIR      kernel build directory
#   --symvers FILE   the Module.symvers of exec.ko
#   --out DIR        where the converted file and the modules go

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$(dirname "$here")")

kdir='' symvers='' out=''
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=${2:?}; shift ;;
	--symvers) symvers=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
	*) echo "build-sample: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
prog=build-sample
# shellcheck source=scripts/coccinelle/module-lib.sh
. "$here/module-lib.sh"
if [ -z "$kdir" ] || [ -z "$symvers" ] || [ -z "$out" ]; then
	die "usage: build-sample.sh --kdir KDIR --symvers FILE --out DIR"
fi
[ -f "$symvers" ] || die "no $symvers (build exec.ko first)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

cp "$top/tests/coccinelle/wq_sample.c" "$out/wq_sample.c"
migrate "$out/wq_sample.c" "$out/exec_wq_sample.c"
build_modules "$kdir" "$symvers" wq_sample.o exec_wq_sample.o
echo "build-sample: $out/wq_sample.ko $out/exec_wq_sample.ko"

# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# The one QEMU boot of the project's guests, sourced (not run) by
# scripts/kunit-qemu.sh (the KUnit suites) and scripts/kernel-bench.sh (the
# kernel benchmark): the initramfs with tests/guest/init.c as /init and the
# modules it loads, the guest's kernel command line, the boot itself with
# its time limit, and the capture of the serial console.
#
# Functions:
#   qemu_boot_initramfs DIR
#                     empties DIR and makes it an initramfs tree: /init
#                     (tests/guest/init.c, static), /modules/ with an
#                     empty order file, /dev, /proc, /sys
#   qemu_boot_module DIR PATH [PARAMS]
#                     copies the module PATH into DIR/modules/ and appends
#                     "NAME PARAMS" to its order file (init loads the
#                     modules in that order and unloads them in reverse)
#   qemu_boot_cpio DIR FILE
#                     writes the cpio archive of DIR to FILE
#   qemu_boot_cmdline [ARG]...
#                     prints the guest's command line: the serial console,
#                     panic=-1 and rdinit=/init, then the ARGs (unknown
#                     "name=value" parameters reach init as its environment)
#   qemu_boot KERNEL CPIO CMDLINE LOG
#                     boots the bzImage KERNEL with the initramfs CPIO and
#                     the command line CMDLINE, the console in LOG (\r
#                     dropped, so that it greps as plain lines); sets
#                     qemu_boot_status to QEMU's exit status (124 or 137
#                     when the time limit ended it) and qemu_boot_seconds
#                     to how long it ran
#
# What qemu_boot reads (set by the caller before the call):
#   qemu_accel        tcg or kvm (default tcg: where /dev/kvm exists on
#                     these machines it is nested KVM, on which QEMU aborts
#                     at boot, "failed to set MSR 0x10a", or hangs, while
#                     TCG boots in seconds)
#   qemu_smp          QEMU's -smp argument (default 2)
#   qemu_memory       guest memory (default 1G)
#   qemu_timeout      the time limit in seconds (default 900)
#   qemu_echo         1: copy the console to stdout while it runs (default
#                     0: only to LOG)

qemu_boot_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

qemu_boot_initramfs()
{
	local dir=$1

	rm -rf "$dir"
	mkdir -p "$dir/modules" "$dir/dev" "$dir/proc" "$dir/sys"
	# Static and stripped: the initramfs holds no libc, and a smaller
	# archive unpacks faster under emulation.
	gcc -static -Os -s -Wall -Wextra -Werror -o "$dir/init" \
		"$qemu_boot_top/tests/guest/init.c"
	: > "$dir/modules/order"
}

qemu_boot_module()
{
	local dir=$1 path=$2 params=${3:-}

	cp "$path" "$dir/modules/"
	echo "$(basename "$path") $params" >> "$dir/modules/order"
}

qemu_boot_cpio()
{
	# Uncompressed, so that the kernel needs no decompressor for it; owned
	# by root, as the files of a real initramfs are.
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0) > "$2"
}

qemu_boot_cmdline()
{
	local cmdline="console=ttyS0 panic=-1 rdinit=/init"

	[ $# -eq 0 ] || cmdline+=" $*"
	echo "$cmdline"
}

qemu_boot()
{
	local kernel=$1 cpio=$2 cmdline=$3 log=$4 start

	command -v qemu-system-x86_64 > /dev/null || {
		echo "qemu-boot: qemu-system-x86_64 missing (scripts/kernel-build.sh installs it)" >&2
		return 2
	}
	mkdir -p "$(dirname "$log")"
	start=$(date +%s)
	set +e
	# "max": the richest CPU model TCG emulates, or the host CPU under
	# KVM.  -no-reboot: init's final restart, and the restart after a
	# panic (panic=-1), end QEMU instead of booting again.
	timeout -k 10 "${qemu_timeout:-900}" qemu-system-x86_64 \
		-accel "${qemu_accel:-tcg}" -cpu max -m "${qemu_memory:-1G}" \
		-smp "${qemu_smp:-2}" \
		-display none -vga none -monitor none -nic none \
		-serial stdio -no-reboot \
		-kernel "$kernel" -initrd "$cpio" -append "$cmdline" \
		< /dev/null 2>&1 | tr -d '\r' |
		if [ "${qemu_echo:-0}" = 1 ]; then tee "$log"; else cat > "$log"; fi
	# shellcheck disable=SC2034 # the caller's
	qemu_boot_status=${PIPESTATUS[0]}
	set -e
	# shellcheck disable=SC2034 # the caller's
	qemu_boot_seconds=$(($(date +%s) - start))
}

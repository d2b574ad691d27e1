#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Writes the .gcda files that the test kernel's init printed on the console.

Usage: gcov-console.py CONSOLE_LOG BUILD_DIR

With EXEC_GCOV=1 (scripts/kunit-qemu.sh --gcov), tests/guest/init.c prints
every .gcda under /sys/kernel/debug/gcov/ at the end of the run:

    exec-gcov: file /sys/kernel/debug/gcov/<absolute build path>.gcda
    exec-gcov: data OFFSET HEX          (64 bytes a line)
    exec-gcov: end PATH SIZE CRC32

gcov's debugfs tree mirrors the absolute paths of the objects as they were
built, so each file goes back to that path with the prefix dropped: beside
its .gcno, for gcov to read.

init writes its lines through the tty while the kernel prints its messages
straight to the serial port, so a kernel message can land inside one of
them, a record whole ("[  425.210844] random: crng init done" and its line
end) between two of init's characters.  Such records are taken out of the
log before it is read, which gives init's line back.  Only paths under BUILD_DIR are written (a
.gcda of another build would mix counters of other objects).  A file whose
lines are not contiguous, or whose size or CRC-32 differ from its end line
(a kernel message printed in the middle of a line), fails the run, as does
a log with no file at all.  The .gcda files BUILD_DIR held before are
deleted first, so that none is left from an earlier run.
"""

import os
import re
import sys
import zlib

PREFIX = "/sys/kernel/debug/gcov"
LINE = re.compile(r"^exec-gcov: (file|data|end) (.*)$")
# A kernel message on the console, as CONFIG_PRINTK_TIME prints it: the
# time stamp, the text, the line end (kunit-qemu.sh dropped the \r).
KMSG = re.compile(r"\[ *[0-9]+\.[0-9]+\] [^\n]*\n")


def fail(msg):
    print(f"gcov-console: error: {msg}", file=sys.stderr)
    sys.exit(1)


def parse(log):
    """Returns {debugfs path: bytes} of the files printed whole."""
    files = {}
    cur = None
    data = bytearray()
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            text = KMSG.sub("", f.read())
    except OSError as e:
        fail(f"{log}: {e.strerror}")
    for num, line in enumerate(text.split("\n"), 1):
        m = LINE.match(line.rstrip("\r"))
        if not m:
            continue
        kind, rest = m.groups()
        where = f"{log} (line {num} without the kernel's messages)"
        if kind == "file":
            if cur is not None:
                fail(f"{where}: {cur} has no end line")
            cur, data = rest, bytearray()
        elif kind == "data":
            off, _, digits = rest.partition(" ")
            if cur is None or not off.isdigit() or int(off) != len(data):
                fail(f"{where}: a data line out of place: {line.strip()}")
            try:
                data += bytes.fromhex(digits)
            except ValueError:
                fail(f"{where}: a damaged data line of {cur}")
        else:
            path, size, crc = (rest.rsplit(" ", 2) + ["", ""])[:3]
            if cur is None or path != cur:
                fail(f"{where}: an end line without its file: {path}")
            if not size.isdigit() or int(size) != len(data):
                fail(f"{where}: {cur}: {len(data)} bytes, not {size}")
            if f"{zlib.crc32(data):08x}" != crc:
                fail(f"{where}: {cur}: CRC-32 {zlib.crc32(data):08x}, not {crc}")
            files[cur] = bytes(data)
            cur = None
    if cur is not None:
        fail(f"{cur} has no end line (the run ended in the middle?)")
    return files


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    log, build = sys.argv[1], os.path.abspath(sys.argv[2])
    # Kbuild names the objects by the path it was given, which may go
    # through a symbolic link.
    builds = (build + "/", os.path.realpath(build) + "/")
    files = parse(log)
    if not files:
        fail(f"no .gcda in {log} (was the run made with --gcov?)")

    for top, _, names in os.walk(build):
        for name in names:
            if name.endswith(".gcda"):
                os.unlink(os.path.join(top, name))
    written = 0
    for path, data in sorted(files.items()):
        if not path.startswith(PREFIX + "/") or not path.endswith(".gcda"):
            fail(f"{path}: not a .gcda under {PREFIX}")
        dest = os.path.normpath(path[len(PREFIX):])
        if not dest.startswith(builds):
            print(f"gcov-console: {dest}: not under {build}, skipped",
                  file=sys.stderr)
            continue
        if not os.path.exists(dest[:-len(".gcda")] + ".gcno"):
            fail(f"{dest}: no .gcno beside it (another build's counters?)")
        with open(dest, "wb") as f:
            f.write(data)
        written += 1
    if not written:
        fail(f"no .gcda of {build} in {log}")
    print(f"gcov-console: {written} .gcda files written under {build}")


if __name__ == "__main__":
    main()

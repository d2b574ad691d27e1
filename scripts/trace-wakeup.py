#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where the time of one wake-up goes: exec-bench wakeup_latency under ftrace.

Runs `exec-bench wakeup_latency` (libexec, or a raw reference) with the
scheduler's tracepoints, the futex and io_uring_enter system calls, and
uprobes on the submission and on the task's first instruction enabled, then
cuts every sample into steps and prints the median and p90 of each:

  submit     exec_submit() entered -> the waker's wake system call entered
  syscall    wake system call entered -> sched_waking of the wakee
  sched      sched_waking -> sched_switch onto the wakee
  return     sched_switch onto the wakee -> its sleeping system call returns
  resume     sleeping call returned -> the task's first instruction (wake_fn)
  total      exec_submit() entered -> wake_fn

A sample in which the worker did not sleep (no sched_waking for it) counts
only in "total" and in the "not asleep" count.  Needs root and tracefs.

  scripts/trace-wakeup.py [--bench build/exec-bench] [--samples N]
                          [EXEC-BENCH-ARGS...]

  scripts/trace-wakeup.py --threads 1
  scripts/trace-wakeup.py --executor raw_futex
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

TRACEFS = "/sys/kernel/tracing"
GROUP = "execwake"


def tw(path, text, append=False):
    # os.open: Python's own append mode seeks, which tracefs refuses.
    flags = os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(os.path.join(TRACEFS, path), flags)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def file_offset(binary, symbol):
    """The file offset of @symbol's address, for a uprobe."""
    nm = subprocess.run(["nm", binary], capture_output=True, text=True,
                        check=True).stdout
    addr = None
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol:
            addr = int(parts[0], 16)
    if addr is None:
        return None
    hdr = subprocess.run(["readelf", "-lW", binary], capture_output=True,
                         text=True, check=True).stdout
    for line in hdr.splitlines():
        f = line.split()
        if len(f) > 7 and f[0] == "LOAD":
            off, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if vaddr <= addr < vaddr + filesz:
                return addr - vaddr + off
    return None


def tsc_mhz():
    """TSC ticks per microsecond, as the kernel measured them."""
    log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    m = re.findall(r"tsc: (?:Refined TSC clocksource calibration|"
                   r"Detected)[^\d]*([\d.]+) MHz", log)
    if m:
        return float(m[-1])
    with open("/proc/cpuinfo") as f:
        m = re.search(r"cpu MHz\s*:\s*([\d.]+)", f.read())
    return float(m.group(1))


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * q))]


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("--bench", default="build/exec-bench")
    ap.add_argument("--samples", default="2000")
    args, rest = ap.parse_known_args()
    binary = os.path.abspath(args.bench)
    raw = "raw_futex" in rest

    if not os.path.exists(os.path.join(TRACEFS, "trace")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                       check=True)
    probes = {"submit": "bench_raw_futex_submit" if raw else "exec_submit",
              "run": "wake_fn"}
    tw("tracing_on", "0")
    tw("events/enable", "0")
    tw("trace", "")
    tw("uprobe_events", "")
    for name, sym in probes.items():
        off = file_offset(binary, sym)
        if off is None:
            sys.exit(f"trace-wakeup: no symbol {sym} in {binary}")
        tw("uprobe_events", f"p:{GROUP}/{name} {binary}:0x{off:x}\n", True)
    tw("buffer_size_kb", "65536")
    # The default clock prints microseconds; the TSC gives nanoseconds.
    tw("trace_clock", "x86-tsc")
    for ev in ["sched/sched_waking", "sched/sched_switch",
               "syscalls/sys_enter_futex", "syscalls/sys_exit_futex",
               "syscalls/sys_enter_io_uring_enter",
               "syscalls/sys_exit_io_uring_enter", f"{GROUP}/submit",
               f"{GROUP}/run"]:
        tw(f"events/{ev}/enable", "1")
    tw("tracing_on", "1")
    out = subprocess.run([binary, "wakeup_latency", "--samples",
                          args.samples] + rest, capture_output=True,
                         text=True)
    tw("tracing_on", "0")
    print(out.stdout.strip())
    if out.returncode:
        print(out.stderr, file=sys.stderr)
    with open(os.path.join(TRACEFS, "trace")) as f:
        lines = f.readlines()
    if os.environ.get("TRACE_KEEP"):
        with open(os.environ["TRACE_KEEP"], "w") as f:
            f.writelines(lines)
    tw("events/enable", "0")
    tw("uprobe_events", "")
    tw("trace", "")
    tw("trace_clock", "local")
    tsc_per_us = tsc_mhz()

    # "comm-pid [cpu] flags timestamp: event: args"; a system call's
    # event reads "sys_NAME(args)" on entry and "sys_NAME -> ret" on exit.
    pat = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+):\s+(.*)$")
    events = []
    for line in lines:
        m = pat.match(line)
        if not m:
            continue
        body = m.group(5)
        if body.startswith("sys_"):
            name = "sys_exit" if " -> " in body else "sys_enter"
            args_ = body
        else:
            name, _, args_ = body.partition(": ")
        events.append((int(m.group(4)) / tsc_per_us, int(m.group(2)),
                       int(m.group(3)), name, args_))

    steps = {k: [] for k in ["submit", "syscall", "sched", "return",
                             "resume", "total"]}
    # (total, steps of that sample, wakee on the waker's CPU) per sample
    # with every step, to show what the slowest ones spend their time on.
    full = []
    awake = 0
    n = 0
    i = 0
    while i < len(events):
        t, pid, cpu, name, rest_ = events[i]
        if name != "submit":
            i += 1
            continue
        submitter = pid
        t0 = t
        t_sys = t_waking = t_switch = t_ret = None
        wakee = None
        same_cpu = None
        j = i + 1
        while j < len(events) and events[j][3] != "run" and \
                events[j][3] != "submit":
            tj, pj, cj, nj, rj = events[j]
            if pj == submitter and nj == "sys_enter" and \
                    t_sys is None:
                t_sys = tj
            elif nj == "sched_waking" and t_waking is None:
                m = re.search(r"pid=(\d+)", rj)
                wakee = int(m.group(1))
                t_waking = tj
            elif nj == "sched_switch" and wakee is not None and \
                    f"next_pid={wakee} " in rj + " " and t_switch is None:
                t_switch = tj
                same_cpu = cj == cpu
            elif wakee is not None and pj == wakee and \
                    nj == "sys_exit" and t_ret is None:
                t_ret = tj
            j += 1
        if j >= len(events) or events[j][3] != "run":
            i = j
            continue
        t_run = events[j][0]
        n += 1
        steps["total"].append(t_run - t0)
        if None in (t_sys, t_waking, t_switch, t_ret):
            awake += 1
        else:
            steps["submit"].append(t_sys - t0)
            steps["syscall"].append(t_waking - t_sys)
            steps["sched"].append(t_switch - t_waking)
            steps["return"].append(t_ret - t_switch)
            steps["resume"].append(t_run - t_ret)
            full.append((t_run - t0, [t_sys - t0, t_waking - t_sys,
                                      t_switch - t_waking, t_ret - t_switch,
                                      t_run - t_ret], same_cpu))
        i = j + 1

    print(f"# {n} samples traced, {awake} with the worker not asleep "
          f"(or a step missing)")
    print(f"{'step':<10} {'p50 us':>8} {'p90 us':>8}")
    for k, v in steps.items():
        if v:
            print(f"{k:<10} {statistics.median(v):8.2f} {pct(v, 0.9):8.2f}")
    if not full:
        return
    full.sort(key=lambda f: f[0])
    for label, part in (("all", full), ("slowest 2%", full[-max(1, len(full) // 50):])):
        same = sum(1 for f in part if f[2])
        med = [statistics.median(f[1][k] for f in part) for k in range(5)]
        print(f"# {label}: {len(part)} samples, {same} woken on the "
              f"waker's CPU; step medians (us): " +
              " ".join(f"{x:.2f}" for x in med) +
              f"; total {statistics.median(f[0] for f in part):.2f}")


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: GPL-2.0 OR MIT
"""What the kernel trace scripts share: the events of a ring buffer that
exec_kbench.ko printed on the console (ftrace_dump()), and the figures of
a step's values.

scripts/kernel-trace-wakeup.py and scripts/kernel-trace-timer.py import
it; Python finds it in their directory.  A module, not a script: its name
is one Python can import.
"""
import re
import statistics

# "[ 2.353704]     init-30        0dNh.. 854881us : sched_wakeup: comm=..."
LINE = re.compile(r'^\[\s*[0-9.]+\]\s+(?P<task>\S+)\s+(?P<cpu>\d+)'
                  r'(?P<flags>\S*)\s+(?P<ts>\d+)us\S*\s*:\s+'
                  r'(?P<event>\w+): (?P<rest>.*)$')


def pid_of(task):
    """'comm-pid', as the dump names the current task -> 'pid'."""
    return task.rsplit('-', 1)[-1]


def events(path):
    """Yields (ts us, cpu, pid, task, flags, event, rest) per event line
    of the console log at @path; other lines are skipped.  @flags are the
    dump's context flags (irqs off, need_resched, hard/soft irq, ...)."""
    with open(path, errors='replace') as log:
        for line in log:
            m = LINE.match(line.rstrip('\n'))
            if m:
                yield (int(m['ts']), int(m['cpu']), pid_of(m['task']),
                       m['task'], m['flags'], m['event'], m['rest'])


def trimmed_mean(values, keep=95):
    """The mean of the lowest @keep percent of @values (at least one): an
    unrelated interrupt in a step adds tens of microseconds to it and
    would drown the mean."""
    v = sorted(values)
    return statistics.mean(v[:max(1, len(v) * keep // 100)])


def percentile(values, q):
    """The nearest-rank @q-th percentile of @values: the lowest value
    that at least @q percent of them do not exceed."""
    v = sorted(values)
    return v[min(len(v) - 1, max(0, (len(v) * q + 99) // 100 - 1))]

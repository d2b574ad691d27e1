#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where the time of a kernel wake-up goes: wakeup_latency's traced samples.

Reads the console log of `scripts/kernel-bench.sh --trace N
only=wakeup_latency`, in which exec_kbench.ko printed the ring buffer of its
traced samples (ftrace_dump()), cuts every sample into steps and prints,
per impl, the mean (of the fastest 95%), median and p90 of each, in
microseconds:

  submit   "kb-trace submit" -> sched_waking of the worker (the submission
           up to the wake-up: the executor's own bookkeeping)
  wake     sched_waking -> "kb-trace return" (the wake-up, and the rest of
           the submission)
  sleep    "kb-trace return" -> sched_switch away from the submitter (its
           way to sleep until the next sample: the same code for every
           impl, and under TCG mostly the programming of the local timer)
  switch   sched_switch away from the submitter -> "kb-trace start" (the
           worker switched in, up to the item's first instruction)
  total    "kb-trace submit" -> "kb-trace start"

A sample counts when the item started on the submitter's CPU after the
submitter went to sleep (on a per-CPU pool and a per-CPU workqueue, all of
them); the others are counted apart.  The dump's timestamps are whole
microseconds, so a step's mean over a few hundred samples is the figure
to compare; the median and p90 show its spread.  The slowest 5% of a
step's values are left out of its mean: an unrelated interrupt in a step
adds tens of microseconds to it and would drown the mean.

  scripts/kernel-trace-wakeup.py build/kernel-bench/console.log
"""
import re
import statistics
import sys

from trace_stats import events, percentile, trimmed_mean

MARK = re.compile(r'kb-trace (?P<what>submit|return|start) \{(?P<impl>.*)\}')
STEPS = ('submit', 'wake', 'sleep', 'switch', 'total')


def samples(evs):
    """Yields (impl, {step: us}) per traced sample, or (impl, None)."""
    open_sample = None
    for ts, cpu, pid, _, _, event, rest in evs:
        mark = MARK.search(rest)
        s = open_sample
        if mark and mark['what'] == 'submit':
            if s:
                yield s['impl'], None
            open_sample = {'impl': mark['impl'], 'cpu': cpu, 'pid': pid,
                           'submit': ts}
            continue
        if not s or cpu != s['cpu']:
            if s and mark and mark['what'] == 'start':
                yield s['impl'], None
                open_sample = None
            continue
        if event == 'sched_waking' and 'waking' not in s and \
                'pid=%s ' % s['pid'] not in rest:
            s['waking'] = ts
        elif mark and mark['what'] == 'return':
            s['return'] = ts
        elif event == 'sched_switch' and 'sleep' not in s and \
                'prev_pid=%s ' % s['pid'] in rest:
            s['sleep'] = ts
        elif mark and mark['what'] == 'start':
            open_sample = None
            if all(k in s for k in ('waking', 'return', 'sleep')):
                yield s['impl'], {
                    'submit': s['waking'] - s['submit'],
                    'wake': s['return'] - s['waking'],
                    'sleep': s['sleep'] - s['return'],
                    'switch': ts - s['sleep'],
                    'total': ts - s['submit'],
                }
            else:
                yield s['impl'], None


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    per_impl, other = {}, {}
    for impl, steps in samples(events(sys.argv[1])):
        if steps is None:
            other[impl] = other.get(impl, 0) + 1
        else:
            per_impl.setdefault(impl, []).append(steps)
    if not per_impl:
        print('kernel-trace-wakeup: no traced sample in %s' % sys.argv[1])
        return 1
    print('wakeup_latency, traced samples: mean (fastest 95%) / median / '
          'p90 of each step, us')
    print('%-44s %7s' % ('impl', 'samples') +
          ''.join(' %18s' % s for s in STEPS))
    for impl in sorted(per_impl):
        rows = per_impl[impl]
        cells = []
        for step in STEPS:
            v = [r[step] for r in rows]
            cells.append('%6.2f /%4d /%4d' %
                         (trimmed_mean(v), statistics.median(v),
                          percentile(v, 90)))
        print('%-44s %7d' % (impl, len(rows)) +
              ''.join(' %18s' % c for c in cells))
    for impl in sorted(other):
        print('%s: %d samples not cut (item elsewhere, or events missing)' %
              (impl, other[impl]))
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where the time of a kernel timed item goes: timer_lateness's traced items.

Reads the console log of `scripts/kernel-bench.sh --trace N
only=timer_lateness` (exec_kbench.ko traces a window of N items of each run
of libexec, libexec:percpu, hrtimer:percpu and hrtimer:unbound and prints
the ring buffer, whose clock is CLOCK_MONOTONIC: trace_clock=mono), follows
each item from its deadline to its run and prints, per impl, how many
items took each way and the mean (of the fastest 95%), median and p90 of
each step, in microseconds:

  expire   the deadline -> the item's expiry: timer:hrtimer_expire_entry
           of its own hrtimer (hrtimer then queue_work()), exec:
           exec_timer_fire of the item (libexec: the hand-over by the clock
           event device's hrtimer or by a watching worker)
  wake     the expiry -> the wake-up (sched_wakeup) of the thread that ran
           it, when it was woken after the expiry; 0 otherwise
  switch   the wake-up (or the expiry) -> sched_switch to that thread, when
           it was switched in after it; 0 when it was on its CPU already
  run      -> the item's first instruction (exec_kbench:kb_late)
  total    the deadline -> the run (the item's lateness)

and the ways, by what the runner was doing when its item came due:

  woken:preempt  woken after the expiry, switched in without waiting for
                 a tick of its CPU (the wake-up preempted the current task,
                 or the CPU was idle or its task slept)
  woken:tick     woken after the expiry, switched in at or after the next
                 tick of its CPU (the scheduler tick, tick_sched_timer):
                 the wake-up did not preempt the current task
  queued         runnable already (preempted earlier, or woken before the
                 expiry), switched in after the expiry
  running        on its CPU when the item came due

For the wake-ups, "lag" is the current task's vruntime less the wakee's at
the wake-up, in us: the fair class preempts the current task only when
the wakee is behind it by more than the wake-up granularity (1 ms times
1 + log2(CPUs) for a nice 0 wakee on kernels before EEVDF).  The
current task's is read from the sched_stat_runtime of the wake-up's own
update of the clock; the wakee's from its first sched_stat_runtime once
it runs, less the runtime (its vruntime as placed at the wake-up).

  scripts/kernel-trace-timer.py [--samples K] build/kernel-bench/console.log

--samples K also prints K items of each impl, one line each, the slowest
first: lateness, the way, the CPU of the expiry and of the run, the
runner, the task it replaced and that task's state, and the lag.
"""
import re
import statistics
import sys

from trace_stats import events, percentile, trimmed_mean

LATE = re.compile(r'kb-late \{(?P<impl>.*)\} item=(?P<item>\S+) '
                  r'deadline=(?P<deadline>\d+) ran=(?P<ran>\d+)')
FIELD = re.compile(r'(\w+)=(\S+)')
STEPS = ('expire', 'wake', 'switch', 'run', 'total')
WAYS = ('woken:preempt', 'woken:tick', 'queued', 'running')


def fields(rest):
    return dict(FIELD.findall(rest))


def impl_name(impl):
    """'"impl":"libexec","pool":"percpu"' -> 'libexec:percpu'."""
    vals = re.findall(r'"\w+":"([^"]*)"', impl)
    return ':'.join(vals) if vals else impl


class State:
    """What the trace says so far, per CPU and per task."""

    def __init__(self):
        self.curr = {}          # cpu -> pid on it
        self.switch_in = {}     # pid -> (ts, cpu, prev pid, prev state)
        self.wakeup = {}        # pid -> (ts, waker cpu, target cpu, flags,
                                #         curr pid there, curr vruntime)
        self.vruntime = {}      # pid -> (ts, vruntime ns)
        self.first_run = {}     # pid -> vruntime at its switch-in, once read
        self.prio = {}          # pid -> prio
        self.comm = {}          # pid -> comm
        self.ticks = {}         # cpu -> list of tick timestamps
        self.resched = {}       # cpu -> list of reschedule IPI timestamps
        self.expiry = {}        # item -> (ts, cpu, context)
        self.migrations = {}    # pid -> count
        self.last_expire = {}   # cpu -> function of the last hrtimer expiry
        self.pending = {}       # pid -> samples waiting for its placement


def step(state, ts, cpu, pid, task, flags, event, rest):
    f = fields(rest)
    # Every event is recorded by the task current on its CPU.
    state.curr[cpu] = pid
    state.comm.setdefault(pid, task.rsplit('-', 1)[0])
    if event == 'sched_switch':
        nxt = f.get('next_pid')
        state.curr[cpu] = nxt
        state.switch_in[nxt] = (ts, cpu, f.get('prev_pid'),
                                f.get('prev_state'))
        state.first_run[nxt] = None
        state.prio[nxt] = f.get('next_prio')
        state.comm[nxt] = f.get('next_comm')
    elif event == 'sched_wakeup':
        wpid, target = f.get('pid'), int(f.get('target_cpu', '-1'))
        cur = state.curr.get(target)
        cur_vr = own_vr = None
        if cur is not None and cur in state.vruntime:
            cur_vr = state.vruntime[cur][1]
        if wpid in state.vruntime:
            own_vr = state.vruntime[wpid][1]
        state.wakeup[wpid] = (ts, cpu, target, flags, cur, cur_vr, own_vr)
        state.prio[wpid] = f.get('prio')
        state.comm[wpid] = f.get('comm')
    elif event == 'sched_stat_runtime':
        rpid = f.get('pid')
        vr = int(f.get('vruntime', '0'))
        rt = int(f.get('runtime', '0'))
        state.vruntime[rpid] = (ts, vr)
        if state.first_run.get(rpid, 0) is None:
            state.first_run[rpid] = vr - rt
            for smp, cur_vr in state.pending.pop(rpid, []):
                smp['lag'] = (cur_vr - (vr - rt)) / 1000.0
    elif event == 'sched_migrate_task':
        mpid = f.get('pid')
        state.migrations[mpid] = state.migrations.get(mpid, 0) + 1
    elif event == 'hrtimer_expire_entry':
        fn = f.get('function', '')
        state.last_expire[cpu] = fn
        if fn.startswith('tick_sched_timer'):
            state.ticks.setdefault(cpu, []).append(ts)
        else:
            state.expiry[f.get('hrtimer')] = (ts, cpu, fn)
    elif event == 'reschedule_entry':
        state.resched.setdefault(cpu, []).append(ts)
    elif event == 'exec_timer_fire':
        ctx = 'irq:' + state.last_expire.get(cpu, '?') \
            if len(flags) > 2 and flags[2] in 'hH' else 'task:' + task
        state.expiry[f.get('work')] = (ts, cpu, ctx)


def any_between(times, lo, hi):
    return any(lo < t <= hi for t in times or ())


def sample(state, ts, cpu, pid, m):
    """The steps of the item whose kb_late line this is, or None."""
    late_us = (int(m['ran']) - int(m['deadline'])) / 1000.0
    deadline = ts - late_us
    exp = state.expiry.get(m['item'])
    if not exp or exp[0] < deadline - 1000 or exp[0] > ts:
        return None
    e_ts, e_cpu, e_ctx = exp
    sw = state.switch_in.get(pid)
    wk = state.wakeup.get(pid)
    s = {'late': late_us, 'exp_cpu': e_cpu, 'exp_ctx': e_ctx, 'cpu': cpu,
         'runner': '%s-%s' % (state.comm.get(pid, '?'), pid),
         'prio': state.prio.get(pid), 'lag': None, 'prev': None}
    woken = wk and wk[0] >= e_ts and wk[0] <= ts
    switched = sw and sw[0] >= e_ts and sw[0] <= ts
    if woken and switched and sw[0] >= wk[0]:
        w_ts = wk[0]
        tick = any_between(state.ticks.get(sw[1]), w_ts, sw[0])
        s['way'] = 'woken:tick' if tick else 'woken:preempt'
        s['wake_cpu'] = wk[1]
        s['need_resched'] = len(wk[3]) > 1 and wk[3][1] in 'Nn'
        s['resched_ipi'] = any_between(state.resched.get(sw[1]), w_ts,
                                       sw[0])
        if wk[5] is not None:
            # The wakee's placed vruntime: from its first update once on
            # its CPU, which may come after its run (step()).
            placed = state.first_run.get(pid)
            if placed is not None:
                s['lag'] = (wk[5] - placed) / 1000.0
            else:
                state.pending.setdefault(pid, []).append((s, wk[5]))
            if wk[6] is not None:
                s['lag_sleep'] = (wk[5] - wk[6]) / 1000.0
        s['prev'] = '%s-%s:%s' % (state.comm.get(sw[2], '?'), sw[2], sw[3])
        s.update(expire=e_ts - deadline, wake=w_ts - e_ts,
                 switch=sw[0] - w_ts, run=ts - sw[0])
    elif switched:
        s['way'] = 'queued'
        s['prev'] = '%s-%s:%s' % (state.comm.get(sw[2], '?'), sw[2], sw[3])
        s.update(expire=e_ts - deadline, wake=0, switch=sw[0] - e_ts,
                 run=ts - sw[0])
    else:
        s['way'] = 'running'
        s.update(expire=e_ts - deadline, wake=0, switch=0, run=ts - e_ts)
    s['total'] = late_us
    return s


# A gap in the trace longer than this (us) is between two runs' windows.
WINDOW_GAP_US = 5000


def samples(path, windows):
    """Yields (impl, steps or None) per traced item; appends to @windows
    each run's window: its impl, span (us) and CPU time per task (ns)."""
    state = State()
    win = None
    for ts, cpu, pid, task, flags, event, rest in events(path):
        if not win or ts - win['end'] > WINDOW_GAP_US:
            win = {'impl': None, 'start': ts, 'end': ts, 'runtime': {},
                   'runners': set()}
            windows.append(win)
        win['end'] = ts
        if event == 'kb_late':
            m = LATE.search(rest)
            if m:
                win['impl'] = impl_name(m['impl'])
                win['runners'].add(pid)
                yield win['impl'], sample(state, ts, cpu, pid, m)
            continue
        if event == 'sched_stat_runtime':
            f = fields(rest)
            # A task's first update in the window counts time from
            # before it: left out.
            key = '%s-%s' % (f.get('comm'), f.get('pid'))
            win['runtime'][key] = win['runtime'].get(key, -1) + \
                (int(f.get('runtime', '0')) if key in win['runtime']
                 else 1)
        step(state, ts, cpu, pid, task, flags, event, rest)


def print_windows(windows):
    """Per impl, the CPU time of the runners and of every other task in
    the windows, as a share of the windows' span times 2 CPUs."""
    per_impl = {}
    for w in windows:
        if w['impl']:
            per_impl.setdefault(w['impl'], []).append(w)
    print()
    print('CPU time in the traced windows (from the lead before the first '
          'deadline to the last run), share of span x 2 CPUs, by task:')
    for impl in sorted(per_impl):
        span = sum(w['end'] - w['start'] for w in per_impl[impl]) * 1000.0
        tot = {}
        for w in per_impl[impl]:
            for k, v in w['runtime'].items():
                tot[k] = tot.get(k, 0) + v
        top = sorted(tot.items(), key=lambda x: -x[1])[:6]
        print('%-16s %d windows, %.1f ms: %s' % (
            impl, len(per_impl[impl]), span / 1e6,
            ', '.join('%s %.1f%%' % (k, 100.0 * v / (2 * span))
                      for k, v in top)))


def cell(v):
    if not v:
        return '%18s' % '-'
    return '%7.1f /%4d /%5d' % (trimmed_mean(v), statistics.median(v),
                                percentile(v, 90))


def print_sample(s):
    lag = '-' if s['lag'] is None else '%.0f' % s['lag']
    if s.get('lag_sleep') is not None:
        lag += ' (%.0f before placement)' % s['lag_sleep']
    print('  late %7.0f us  %-13s expire %6.0f wake %6.0f switch %6.0f '
          'run %5.0f  expiry cpu%d %s  run cpu%d %s prio %s  replaced %s  '
          'lag %s us%s' %
          (s['late'], s['way'], s['expire'], s['wake'], s['switch'],
           s['run'], s['exp_cpu'], s['exp_ctx'], s['cpu'], s['runner'],
           s['prio'], s['prev'] or '-', lag,
           ' need_resched' if s.get('need_resched') else '') +
          (' resched_ipi' if s.get('resched_ipi') else ''))


def main():
    args = sys.argv[1:]
    show = 0
    if len(args) == 3 and args[0] == '--samples':
        show = int(args[1])
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    per_impl, uncut, windows = {}, {}, []
    for impl, s in samples(args[0], windows):
        if s is None:
            uncut[impl] = uncut.get(impl, 0) + 1
        else:
            per_impl.setdefault(impl, []).append(s)
    if not per_impl:
        print('kernel-trace-timer: no traced item in %s' % args[0])
        return 1
    print('timer_lateness, traced items: mean (fastest 95%) / median / '
          'p90 of each step, us')
    print('%-16s %5s' % ('impl', 'items') +
          ''.join(' %18s' % st for st in STEPS))
    for impl in sorted(per_impl):
        rows = per_impl[impl]
        print('%-16s %5d' % (impl, len(rows)) +
              ''.join(' ' + cell([r[st] for r in rows]) for st in STEPS))
    print()
    print('ways: items (median lateness, us); for the wake-ups, the lag '
          '(current vruntime - wakee vruntime, us: median, range) and how '
          'many wake-ups set need_resched')
    for impl in sorted(per_impl):
        rows = per_impl[impl]
        parts = []
        for way in WAYS:
            w = [r for r in rows if r['way'] == way]
            if not w:
                continue
            part = '%s %d (%.0f)' % (way, len(w),
                                     statistics.median(r['late'] for r in w))
            lags = [r['lag'] for r in w if r['lag'] is not None]
            if lags:
                part += ' lag %.0f [%.0f..%.0f]' % (
                    statistics.median(lags), min(lags), max(lags))
            nr = sum(1 for r in w if r.get('need_resched'))
            if way.startswith('woken'):
                part += ' need_resched %d' % nr
            parts.append(part)
        cpus = sum(1 for r in rows if r['exp_cpu'] == r['cpu'])
        print('%-16s %s; run on the expiry\'s CPU %d of %d' %
              (impl, ', '.join(parts), cpus, len(rows)))
        runners = {}
        for r in rows:
            runners.setdefault(r['runner'], [r['prio'], 0])[1] += 1
        print('%-16s runners: %s' % ('', ', '.join(
            '%s (prio %s) %d' % (k, v[0], v[1])
            for k, v in sorted(runners.items(), key=lambda x: -x[1][1]))))
    for impl in sorted(uncut):
        print('%s: %d items not cut (expiry not in the trace)' %
              (impl, uncut[impl]))
    print_windows(windows)
    if show:
        for impl in sorted(per_impl):
            print()
            print('%s, the %d latest items:' % (impl, show))
            for s in sorted(per_impl[impl], key=lambda r: -r['late'])[:show]:
                print_sample(s)
    return 0


if __name__ == '__main__':
    sys.exit(main())

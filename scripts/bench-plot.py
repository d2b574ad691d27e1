#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Charts of exec-bench's JSON lines, as SVG files.

  scripts/bench-plot.py [--out DIR] [--note TEXT] FILE...

Each FILE holds JSON lines: exec-bench's output lines (stdout) and the
lines of its samples file (EXEC_BENCH_SAMPLES, those with "samples_ns"), in
any mix.  Writes into DIR (default .), for the workloads present:

  wakeup_latency.svg   CDF of the wake-up latency, one curve per
                       impl/executor/threads, all runs' samples pooled
  timer_lateness.svg   the same for the timer lateness
  post_throughput.svg  ops_per_s against threads, one line per executor
  serial_throughput.svg  the same
  chain_latency.svg    ns_per_hop per executor and threads

References (impl "raw" or a reference pool) are drawn dashed, in grey
tones.  A throughput chart shows each run as a dot and the median of the
runs as the line.  Every curve or series is an SVG group whose id is
"CHART/IMPL/EXECUTOR/THREADS" (for the CDFs, one group per panel:
"cdf:..." and "tail:..."), so that a test can count them.  --note is
printed under each chart (the date, machine and commit of the run).

Exits 1 with "bench-plot: FILE:LINE: ..." on a malformed line, and 1 if
the input holds nothing to plot.
"""
import argparse
import json
import math
import os
import statistics
import sys

CDF_BENCHES = {
    'wakeup_latency': 'wake-up latency (submission to start of the task)',
    'timer_lateness': 'timer lateness (start of the task less its deadline)',
}
# Workload: the figure plotted, its label, whether higher is better.
RESULT_BENCHES = {
    'post_throughput': ('ops_per_s', 'tasks per second', True),
    'serial_throughput': ('ops_per_s', 'tasks per second', True),
    'chain_latency': ('ns_per_hop', 'ns per hop', False),
}
# One colour per executor kind in every chart.
COLOURS = {
    'thread_pool': '#1f77b4', 'loop': '#ff7f0e', 'serial': '#2ca02c',
    'managed_queue': '#9467bd', 'raw_futex': '#000000',
    'raw_uring_timeout': '#000000', 'condvar_pool': '#7f7f7f',
    'condvar_spare': '#8c564b',
}
OTHER_COLOURS = ['#d62728', '#e377c2', '#17becf', '#bcbd22']


class InputError(Exception):
    """A malformed input line."""


def fail(msg):
    print('bench-plot: ' + msg, file=sys.stderr)
    sys.exit(1)


def need(obj, key, kind, check=None):
    """obj[key], which must be of type kind and pass check."""
    if key not in obj:
        raise InputError('no "%s" key' % key)
    val = obj[key]
    # JSON true/false are not numbers here.
    if isinstance(val, bool) or not isinstance(val, kind):
        raise InputError('"%s" is %r, not a %s' %
                         (key, val, getattr(kind, '__name__', 'number')))
    if check and not check(val):
        raise InputError('"%s" is %r, out of range' % (key, val))
    return val


def is_ref(impl):
    return impl != 'libexec'


def series_key(obj):
    """(impl, executor, variant) of a line: what one curve or line is."""
    variant = []
    if obj.get('closures') is True:
        variant.append('closures')
    if isinstance(obj.get('submit'), str):
        variant.append(obj['submit'])
    if isinstance(obj.get('producers'), int) and obj['producers'] != 1:
        variant.append('P=%d' % obj['producers'])
    executor = obj.get('executor', obj['impl'])
    if not isinstance(executor, str):
        raise InputError('"executor" is %r, not a string' % executor)
    return obj['impl'], executor, ' '.join(variant)


def read_line(obj, samples, results):
    if not isinstance(obj, dict):
        raise InputError('not a JSON object')
    bench = need(obj, 'bench', str)
    need(obj, 'impl', str)
    threads = need(obj, 'threads', int, lambda v: v >= 1)
    key = series_key(obj)
    if 'samples_ns' in obj:
        if bench not in CDF_BENCHES:
            raise InputError('samples of %s, which has none to plot' % bench)
        vals = need(obj, 'samples_ns', list, lambda v: len(v) > 0)
        for v in vals:
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise InputError('"samples_ns" holds %r, not a count of ns'
                                 % v)
        if 'samples' in obj and obj['samples'] != len(vals):
            raise InputError('"samples" is %r but "samples_ns" has %d'
                             % (obj['samples'], len(vals)))
        entry = samples.setdefault(bench, {}).setdefault(key + (threads,),
                                                         [[], 0])
        entry[0].extend(vals)
        entry[1] += 1
        return
    need(obj, 'seconds', (int, float), lambda v: v >= 0)
    if bench in RESULT_BENCHES:
        fig = RESULT_BENCHES[bench][0]
        val = need(obj, fig, (int, float), lambda v: v > 0)
        results.setdefault(bench, {}).setdefault(key, {}).setdefault(
            threads, []).append(float(val))


def read_inputs(paths):
    samples, results = {}, {}
    for path in paths:
        try:
            f = open(path, encoding='utf-8')
        except OSError as e:
            fail('%s: %s' % (path, e.strerror))
        with f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                    read_line(obj, samples, results)
                except json.JSONDecodeError as e:
                    fail('%s:%d: not JSON: %s' % (path, n, e.msg))
                except InputError as e:
                    fail('%s:%d: %s' % (path, n, e))
    return samples, results


def label(key, threads=None):
    impl, executor, variant = key
    text = executor if impl in ('libexec', 'raw', executor) else \
        '%s %s' % (impl, executor)
    if impl == 'libexec':
        text = 'libexec ' + text
    if variant:
        text += ' ' + variant
    if threads is not None:
        text += ' (T=%d)' % threads
    return text


def gid(chart, key, threads=None):
    impl, executor, variant = key
    parts = [chart, impl, executor + ('+' + variant.replace(' ', '+')
                                      if variant else '')]
    if threads is not None:
        parts.append(str(threads))
    return '/'.join(parts)


def styles(keys):
    """A colour and a line style per key: libexec solid, references dashed."""
    out, other = {}, 0
    for key in keys:
        colour = COLOURS.get(key[1])
        if not colour or key[2]:
            colour = OTHER_COLOURS[other % len(OTHER_COLOURS)]
            other += 1
        out[key] = (colour, '--' if is_ref(key[0]) else '-')
    return out


def order(keys):
    """libexec's series first, then the references, each by name."""
    return sorted(keys, key=lambda k: (is_ref(k[0]), k[1], k[2], k[3:]))


def cdf_points(vals):
    """(x in us, cumulative fraction) at up to ~1,000 points.

    Every sample would make megabytes of SVG; instead the quantiles at an
    even grid up to 0.99 and a grid even in log(1 - p) beyond, down to one
    sample, so the tail keeps its detail.
    """
    vals = sorted(vals)
    n = len(vals)
    probs = [i / 500 * 0.99 for i in range(501)]
    decades = math.log10(n) - 2 if n > 100 else 0
    steps = max(1, int(decades * 100))
    probs += [1 - 0.01 * 10 ** (-decades * i / steps)
              for i in range(1, steps + 1)]
    xs, ys = [], []
    for p in probs:
        idx = min(n - 1, max(0, math.ceil(p * n) - 1))
        xs.append(max(vals[idx], 1) / 1000)
        ys.append((idx + 1) / n)
    return xs, ys


def footer(fig, note):
    if note:
        fig.text(0.01, 0.005, note, fontsize=7, color='#555555',
                 ha='left', va='bottom')


def plot_cdf(plt, bench, data, out, note):
    keys = order(data.keys())
    sty = styles(keys)
    fig, (ax, tail) = plt.subplots(1, 2, figsize=(11, 4.6))
    for key in keys:
        vals, runs = data[key]
        xs, ys = cdf_points(vals)
        colour, dash = sty[key]
        text = '%s: %d samples, %d run%s' % (label(key[:3], key[3]),
                                             len(vals), runs,
                                             '' if runs == 1 else 's')
        line, = ax.plot(xs, ys, dash, color=colour, lw=1.4, label=text)
        line.set_gid(gid('cdf:' + bench, key[:3], key[3]))
        # The tail panel: the fraction above x, down to one sample.
        n = len(vals)
        txs = [x for x, y in zip(xs, ys) if y < 1]
        tys = [1 - y for y in ys if y < 1]
        txs.append(xs[-1])
        tys.append(1 / n)
        line, = tail.plot(txs, tys, dash, color=colour, lw=1.4)
        line.set_gid(gid('tail:' + bench, key[:3], key[3]))
    ax.set_xscale('log')
    ax.set_ylim(0, 1)
    ax.set_xlabel('%s, us (log)' % bench)
    ax.set_ylabel('fraction of samples at most x')
    ax.grid(True, which='both', alpha=0.3)
    ax.legend(fontsize=7, loc='lower right')
    tail.set_xscale('log')
    tail.set_yscale('log')
    tail.set_xlabel('%s, us (log)' % bench)
    tail.set_ylabel('fraction of samples above x (log)')
    tail.grid(True, which='both', alpha=0.3)
    fig.suptitle('%s: %s' % (bench, CDF_BENCHES[bench]), fontsize=10)
    footer(fig, note)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    save(plt, fig, out, bench)


def ratio_note(ax, x, y, val, ref):
    """Writes val / ref over the point (x, y)."""
    if ref:
        ax.annotate('%.2fx' % (val / ref), (x, y), textcoords='offset points',
                    xytext=(0, 6), ha='center', fontsize=7)


def plot_results(plt, bench, data, out, note):
    fig_key, unit, higher = RESULT_BENCHES[bench]
    scale = 1e6 if fig_key == 'ops_per_s' else 1
    if scale != 1:
        unit = 'million ' + unit
        data = {k: {t: [v / scale for v in runs] for t, runs in d.items()}
                for k, d in data.items()}
    keys = order(data.keys())
    # The reference the ratios are taken to: the first one, by name.
    refs = [k for k in keys if is_ref(k[0])]
    ref = data[refs[0]] if refs else {}
    sty = styles(keys)
    threads = sorted({t for k in keys for t in data[k]})
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    if bench == 'chain_latency':
        # One bar per executor and thread count: the loop has one thread.
        bars = [(k, t) for k in keys for t in sorted(data[k])]
        for i, (key, t) in enumerate(bars):
            runs = data[key][t]
            colour, dash = sty[key]
            bar = ax.bar(i, statistics.median(runs), color=colour,
                         alpha=0.35 if is_ref(key[0]) else 0.8,
                         hatch='//' if is_ref(key[0]) else None,
                         edgecolor=colour)
            bar.patches[0].set_gid(gid(bench, key, t))
            ax.plot([i] * len(runs), runs, '.', color='#000000', ms=4)
            if not is_ref(key[0]) and t in ref:
                med = statistics.median(runs)
                ratio_note(ax, i, med, med, statistics.median(ref[t]))
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([label(k, t) for k, t in bars], rotation=20,
                           ha='right', fontsize=8)
        ax.set_ylabel('%s, median of the runs (dots: each run)' % unit)
    else:
        for key in keys:
            ts = sorted(data[key])
            meds = [statistics.median(data[key][t]) for t in ts]
            colour, dash = sty[key]
            line, = ax.plot(ts, meds, dash, marker='o', color=colour,
                            label=label(key))
            line.set_gid(gid(bench, key))
            for t, med in zip(ts, meds):
                ax.plot([t] * len(data[key][t]), data[key][t], '.',
                        color=colour, ms=3, alpha=0.6)
                if not is_ref(key[0]) and t in ref:
                    ratio_note(ax, t, med, med, statistics.median(ref[t]))
        ax.set_xticks(threads)
        ax.set_xlabel('threads (T)')
        ax.set_ylabel('%s (line: median; dots: each run)' % unit)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    ax.grid(True, axis='y', alpha=0.3)
    title = '%s: %s, %s is better' % (bench, fig_key,
                                       'higher' if higher else 'lower')
    if refs:
        title += '\nlabels: libexec / %s, medians at the same T' % \
            label(refs[0])
    ax.set_title(title, fontsize=10)
    footer(fig, note)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    save(plt, fig, out, bench)


def save(plt, fig, out, name):
    path = os.path.join(out, name + '.svg')
    # No date in the file: the same input gives the same SVG.
    fig.savefig(path, format='svg', metadata={'Date': None})
    plt.close(fig)
    print('bench-plot: wrote %s' % path)


def main():
    ap = argparse.ArgumentParser(
        description='SVG charts of exec-bench JSON lines.')
    ap.add_argument('--out', default='.', help='output directory')
    ap.add_argument('--note', default='', help='text under each chart')
    ap.add_argument('files', nargs='+', metavar='FILE')
    args = ap.parse_args()

    samples, results = read_inputs(args.files)
    if not samples and not results:
        fail('no line to plot in %s' % ' '.join(args.files))

    try:
        import matplotlib
    except ImportError:
        fail('no matplotlib for %s: install python3-matplotlib '
             '(scripts/install-deps.sh)' % sys.executable)
    matplotlib.use('Agg')
    matplotlib.rcParams['svg.hashsalt'] = 'bench-plot'
    matplotlib.rcParams['svg.fonttype'] = 'none'
    import matplotlib.pyplot as plt

    os.makedirs(args.out, exist_ok=True)
    for bench in CDF_BENCHES:
        if bench in samples:
            plot_cdf(plt, bench, samples[bench], args.out, args.note)
    for bench in RESULT_BENCHES:
        if bench in results:
            plot_results(plt, bench, results[bench], args.out, args.note)


if __name__ == '__main__':
    main()

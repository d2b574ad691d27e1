#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-bench-plot.sh BENCH OUTDIR
#
# `make bench-plot` at tiny sizes, one round, into OUTDIR; then:
#  - the samples file has a line per wakeup_latency and timer_lateness run,
#    the references' included, each with every sample, and exec-bench's
#    stdout has none;
#  - every chart exists, is well-formed XML, and holds one curve (an SVG
#    group with the curve's id) per impl/executor/threads in its input, no
#    more, each with a path drawn;
#  - bench-plot.py rejects malformed input with the file and line, and
#    writes no chart then.
# Ends with "bench-plot: N passed, N failed".  PYTHON3 is the Python with
# matplotlib (default /usr/bin/python3).

set -u

bench=$1
out=$2
python=${PYTHON3:-/usr/bin/python3}
plot=$(dirname "$0")/bench-plot.py
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

rm -rf "$out"
mkdir -p "$out"
step "scripts/bench-plot.sh at tiny sizes" \
	env BENCH_PLOT_ROUNDS=1 BENCH_PLOT_SAMPLES=300 BENCH_PLOT_TASKS=20000 \
	BENCH_PLOT_HOPS=20000 BENCH_PLOT_THREADS="1 2" PYTHON3="$python" \
	"$(dirname "$0")/bench-plot.sh" "$bench" "$out/run"

# verify.py prints "ok WHAT" or "FAIL WHAT" per check.
cat > "$out/verify.py" << 'EOF'
import json
import sys
import xml.etree.ElementTree as ET

run = sys.argv[1]
expect_samples = {
    'wakeup_latency': {'thread_pool', 'loop', 'serial', 'raw_futex',
                       'condvar_pool'},
    'timer_lateness': {'thread_pool', 'loop', 'serial', 'raw_uring_timeout'},
}


def check(ok, what):
    print(('ok ' if ok else 'FAIL ') + what)


def lines(name):
    with open('%s/%s' % (run, name)) as f:
        return [json.loads(x) for x in f if x.strip()]


samples = lines('samples.jsonl')
results = lines('results.jsonl')
check(not any('samples_ns' in r for r in results),
      'no samples on exec-bench stdout')
for bench, executors in expect_samples.items():
    got = [s for s in samples if s['bench'] == bench]
    check({s['executor'] for s in got} == executors,
          '%s: samples of %s' % (bench, ' '.join(sorted(executors))))
    check(all(len(s['samples_ns']) == s['samples'] == 300 for s in got),
          '%s: every run wrote its 300 samples' % bench)


def curves(svg, prefix):
    """Ids of the groups starting with prefix, and whether each has a path."""
    tree = ET.parse('%s/%s.svg' % (run, svg))
    out = {}
    for g in tree.iter('{http://www.w3.org/2000/svg}g'):
        gid = g.get('id', '')
        if gid.startswith(prefix):
            drawn = any(p.get('d') for p in
                        g.iter('{http://www.w3.org/2000/svg}path'))
            out[gid[len(prefix):]] = drawn
    return out


def expect(svg, prefix, want):
    try:
        got = curves(svg, prefix)
    except (OSError, ET.ParseError) as e:
        check(False, '%s.svg: %s' % (svg, e))
        return
    check(set(got) == want, '%s.svg: one %scurve per run kind: %s (got %s)'
          % (svg, prefix, ' '.join(sorted(want)), ' '.join(sorted(got))))
    check(all(got.values()), '%s.svg: every %scurve drawn' % (svg, prefix))


for bench in expect_samples:
    want = {'%s/%s/%d' % (s['impl'], s['executor'], s['threads'])
            for s in samples if s['bench'] == bench}
    expect(bench, 'cdf:%s/' % bench, want)
    expect(bench, 'tail:%s/' % bench, want)
expect('post_throughput', 'post_throughput/',
       {'libexec/thread_pool', 'condvar_pool/condvar_pool'})
expect('serial_throughput', 'serial_throughput/', {'libexec/serial'})
expect('chain_latency', 'chain_latency/',
       {'libexec/loop/1'} | {'%s/%d' % (e, t) for t in (1, 2) for e in
                             ('libexec/thread_pool', 'libexec/serial',
                              'condvar_pool/condvar_pool')})
EOF
if "$python" "$out/verify.py" "$out/run" > "$out/verify.log" 2>&1; then
	while read -r status what; do
		case $status in
		ok) pass ;;
		*) fail "$what" ;;
		esac
	done < "$out/verify.log"
else
	cat "$out/verify.log"
	fail "the charts could not be checked"
fi

# rejects FILE-CONTENT WHAT: bench-plot.py must fail on it, naming line 2.
rejects()
{
	local bad=$out/bad.jsonl

	rm -rf "$out/bad"
	head -n 1 "$out/run/results.jsonl" > "$bad"
	printf '%s\n' "$1" >> "$bad"
	if "$python" "$plot" --out "$out/bad" "$bad" > /dev/null \
	   2> "$out/bad.err"; then
		fail "bench-plot.py took $2"
	elif ! grep -q "^bench-plot: $bad:2: " "$out/bad.err"; then
		fail "bench-plot.py on $2: no FILE:2 message: $(cat "$out/bad.err")"
	elif [ -e "$out/bad" ]; then
		fail "bench-plot.py on $2 wrote charts"
	else
		pass
	fi
}

rejects '{"bench":"post_throughput","impl":"libexec",' 'a cut line'
rejects '{"bench":"post_throughput","impl":"libexec","threads":2,"seconds":1}' \
	'a line without ops_per_s'
rejects '{"bench":"chain_latency","impl":"libexec","threads":0,"seconds":1,"ns_per_hop":5}' \
	'threads 0'
rejects '{"bench":"wakeup_latency","impl":"raw","executor":"raw_futex","threads":1,"samples":3,"samples_ns":[1,2]}' \
	'a samples count that does not match'
rejects '{"bench":"timer_lateness","impl":"raw","executor":"raw_futex","threads":1,"samples_ns":[1,"2"]}' \
	'a sample that is a string'
rejects '[1,2]' 'a JSON array'

echo "bench-plot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

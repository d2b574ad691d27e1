#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-httpd-slow.sh HTTPD [ROUNDS [SECONDS [SLOW]]]
#
# examples/httpd.c (built as HTTPD) against slow clients, on 127.0.0.1:
#
#   - the cap of connections (-c 50): the 51st connection gets a 503 and
#     the close, the 50 held are still answered, and once they close new
#     connections are served;
#   - SLOW (default 1000) clients at once, each sending a request head a
#     byte every half second that never ends, and opened again as soon as
#     the server closes it (scripts/httpd-clients.py slow), while wrk
#     measures the requests/s of 32 kept-alive clients for SECONDS
#     (default 2); ROUNDS (default 3) runs without the slow clients and
#     ROUNDS with them, alternating.  The server runs with a header
#     timeout of half a run and its default cap of connections.  Passes
#     when the median rate with them is at least half the median without,
#     no response of wrk's was other than 2xx, the slow clients were
#     closed by the header timeout and got nothing else, and once they are
#     gone the server holds the sockets it held before and still answers.
#
# Everything runs at nice 5, as the machine may be measuring other things.
# The backend follows EXEC_BACKEND.  Prints one line per check, the rates,
# and "httpd-slow: N passed, N failed".

set -u

httpd=$1
rounds=${2:-3}
seconds=${3:-2}
nslow=${4:-1000}
# The header timeout: half a run, so that every slow client is closed
# during each run at least once, and opened again.
tmo=$((seconds * 500))
here=$(cd "$(dirname "$0")" && pwd)
clients=$here/httpd-clients.py
tmp=$(mktemp -d)
# shellcheck source=scripts/check-lib.sh
. "$(dirname "$0")/check-lib.sh"
pid=
spid=

cleanup()
{
	[ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v wrk > /dev/null; then
	echo "httpd-slow: wrk is not installed (scripts/install-deps.sh)"
	echo "httpd-slow: 0 passed, 1 failed"
	exit 1
fi

# start OPTION...: the server, its pid in $pid and its port in $port.
start()
{
	nice -n 5 "$httpd" "$@" > "$tmp/out" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^listening' "$tmp/out" && break
		sleep 0.05
	done
	port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
		"$tmp/out")
	echo "# $(head -1 "$tmp/out")"
	[ -n "$port" ]
}

# stop: SIGTERM, and the server's exit status (0 expected).
stop()
{
	local status

	kill -TERM "$pid"
	wait "$pid"
	status=$?
	pid=
	return "$status"
}

fds() { ls "/proc/$pid/fd" | wc -l; }
# The sockets among them: the library may open an io_uring of its own as
# the load grows (a ring per thread it starts), which is not a leak.
sockets() { find "/proc/$pid/fd" -lname 'socket:*' | wc -l; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
serving() { test "$(curl -sS "http://127.0.0.1:$port/")" = "Hello, world!"; }
clients() { nice -n 5 python3 "$clients" "$port" "$@"; }

# The cap.
if start -c 50; then
	step "past the cap of 50 connections: 503 and the close" clients cap 50
	step "SIGTERM: exit status 0" stop
else
	step "the server starts with -c 50" false
fi

# median N...: the middle value (the lower of the two middle ones).
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# rate: one wrk run's requests/s; its other-than-2xx lines in $tmp/errs.
rate()
{
	nice -n 5 wrk -t1 -c32 -d"${seconds}s" "http://127.0.0.1:$port/" \
		> "$tmp/wrk" 2>&1
	grep -E 'Non-2xx|Socket errors' "$tmp/wrk" >> "$tmp/errs"
	awk '/^Requests\/sec/ { printf "%d\n", $2 }' "$tmp/wrk"
}

if ! start -t "$tmo"; then
	step "the server starts" false
	echo "httpd-slow: $passed passed, $failed failed"
	exit 1
fi
serving
sleep 0.5
fds0=$(fds)
socks0=$(sockets)
rss0=$(rss)
alone=()
slowed=()
: > "$tmp/errs"
: > "$tmp/slow"
for r in $(seq "$rounds"); do
	alone+=("$(rate)")
	# Not through clients(): $! must be python's own pid.
	nice -n 5 python3 "$clients" "$port" slow "$nslow" 0.5 \
		> "$tmp/slow.$r" &
	spid=$!
	for _ in $(seq 200); do
		grep -q "^holding" "$tmp/slow.$r" && break
		sleep 0.05
	done
	slowed+=("$(rate)")
	echo "# round $r: ${alone[-1]} requests/s alone," \
		"${slowed[-1]} with $nslow slow clients; $(fds) fds, $(rss) kB"
	kill -TERM "$spid"
	wait "$spid"
	spid=
	grep -v '^holding' "$tmp/slow.$r" >> "$tmp/slow"
done
sed 's/^/# /' "$tmp/slow"
m0=$(median "${alone[@]}")
m1=$(median "${slowed[@]}")
echo "# medians: $m0 requests/s alone, $m1 with $nslow slow clients," \
	"ratio $(awk -v a="$m1" -v b="$m0" 'BEGIN { printf "%.3f", a / b }')"
step "with $nslow slow clients, at least half the rate alone" \
	test -n "$m0" -a -n "$m1" -a "$((2 * ${m1:-0}))" -ge "${m0:-1}"
step "wrk's responses all 2xx, no socket error" test ! -s "$tmp/errs"
[ -s "$tmp/errs" ] && sed 's/^/# /' "$tmp/errs"
step "the slow clients were closed by the header timeout, nothing else" \
	sh -c "test \"\$(grep -c '^slow: ' '$tmp/slow')\" = $rounds &&
	       ! grep -v ' 0 got another response' '$tmp/slow' | grep -q . &&
	       ! grep -q ' 0 closed by the server' '$tmp/slow'"
# Their sockets closed with them: the server sees the ends.
for _ in $(seq 50); do
	[ "$(sockets)" = "$socks0" ] && break
	sleep 0.1
done
echo "# fds: $fds0 before, $(fds) after, of which sockets $socks0 and" \
	"$(sockets); VmRSS $rss0 kB before, $(rss) kB after"
step "no socket left once the slow clients are gone" \
	test "$(sockets)" = "$socks0"
step "still serving" serving
step "SIGTERM: exit status 0" stop

echo "httpd-slow: $passed passed, $failed failed"
[ "$failed" = 0 ]

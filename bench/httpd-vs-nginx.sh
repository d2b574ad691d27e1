#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bench/httpd-vs-nginx.sh [ROUNDS] [DURATION]
#
# Serves the same small body ("Hello, world!\n", 14 bytes, 200) from nginx
# (Debian's, 2 worker processes, `return 200`) and from examples/httpd.c
# (2 workers) on its io_uring backend and on its epoll backend
# (EXEC_BACKEND=futex), all on 127.0.0.1, and runs `wrk -t1 -c64 -dDURATION
# --latency` against each, interleaved, for ROUNDS rounds (default 5, 5s).
# The order within a round rotates.  Prints each run's requests/s, p50 and
# p99, then the medians and the ratios to nginx's medians.
#
# Installs wrk and nginx (Debian packages) with apt-get when they are
# missing; needs root or sudo for that.  Builds $O/httpd (O=build) first.

set -euo pipefail

rounds=${1:-5}
duration=${2:-5s}
top=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}

need=()
command -v wrk > /dev/null || need+=(wrk)
[ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
	echo "installing ${need[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${need[@]}" < /dev/null > /dev/null
fi
make -C "$top" -s "$O/httpd" > /dev/null
httpd=$top/$O/httpd

tmp=$(mktemp -d)
pids=()
cleanup()
{
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || :
	done
	[ -f "$tmp/nginx.pid" ] && kill -QUIT "$(cat "$tmp/nginx.pid")" \
		2>/dev/null || :
	sleep 0.3
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port()
{
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

nginx_port=$(free_port)
mkdir -p "$tmp/logs"
cat > "$tmp/nginx.conf" << EOF
worker_processes 2;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	keepalive_requests 1000000;
	client_body_temp_path $tmp;
	proxy_temp_path $tmp;
	fastcgi_temp_path $tmp;
	uwsgi_temp_path $tmp;
	scgi_temp_path $tmp;
	server {
		listen 127.0.0.1:$nginx_port;
		default_type text/plain;
		location / { return 200 "Hello, world!\n"; }
	}
}
EOF
/usr/sbin/nginx -p "$tmp" -c "$tmp/nginx.conf"

# Starts httpd on a backend, in this shell so that cleanup() knows its pid.
start_httpd()
{
	EXEC_BACKEND=$1 "$httpd" -w 2 > "$tmp/httpd-$1.out" 2>&1 &
	pids+=($!)
}

# The port a started httpd printed.
httpd_port()
{
	local out=$tmp/httpd-$1.out

	for _ in $(seq 100); do
		grep -q '^listening' "$out" && break
		sleep 0.05
	done
	sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$out"
}
start_httpd io_uring
start_httpd futex
uring_port=$(httpd_port io_uring)
epoll_port=$(httpd_port futex)
grep -q '(io_uring,' "$tmp/httpd-io_uring.out" ||
	echo "warning: io_uring backend not in use: $(cat "$tmp/httpd-io_uring.out")"

names=(nginx httpd-io_uring httpd-epoll)
ports=("$nginx_port" "$uring_port" "$epoll_port")
for i in 0 1 2; do
	curl -sS "http://127.0.0.1:${ports[$i]}/" | grep -q 'Hello, world!' || {
		echo "${names[$i]} does not serve the body"
		exit 1
	}
done

# wrk's latency in microseconds, from "265.00us", "2.10ms" or "1.00s".
to_us()
{
	awk -v v="$1" 'BEGIN {
		n = v + 0
		if (v ~ /us$/) print n
		else if (v ~ /ms$/) print n * 1000
		else if (v ~ /s$/) print n * 1000000
		else print n
	}'
}

echo "wrk -t1 -c64 -d$duration, $rounds rounds, $(nproc) CPUs"
printf '%-6s %-15s %12s %10s %10s\n' round server req/s p50_us p99_us
for r in $(seq "$rounds"); do
	for k in 0 1 2; do
		i=$(( (k + r) % 3 ))
		wrk -t1 -c64 -d"$duration" --latency \
			"http://127.0.0.1:${ports[$i]}/" > "$tmp/wrk" 2>&1
		rps=$(awk '/^Requests\/sec/ { print $2 }' "$tmp/wrk")
		p50=$(to_us "$(awk '$1 == "50%" { print $2 }' "$tmp/wrk")")
		p99=$(to_us "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk")")
		errs=$(awk '/Non-2xx|Socket errors/' "$tmp/wrk")
		printf '%-6s %-15s %12s %10s %10s %s\n' "$r" "${names[$i]}" \
			"$rps" "$p50" "$p99" "$errs"
		echo "${names[$i]} $rps $p50 $p99" >> "$tmp/results"
	done
done

median()
{
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2
	}'
}

echo
printf '%-15s %12s %10s %10s %12s %10s %10s\n' server 'req/s' p50_us \
	p99_us 'req/s ratio' 'p50 ratio' 'p99 ratio'
declare -A med
for n in "${names[@]}"; do
	for col in 2 3 4; do
		med[$n,$col]=$(awk -v n="$n" -v c="$col" '$1 == n { print $c }' \
			"$tmp/results" | median)
	done
done
for n in "${names[@]}"; do
	printf '%-15s %12.0f %10.1f %10.1f %12.3f %10.3f %10.3f\n' "$n" \
		"${med[$n,2]}" "${med[$n,3]}" "${med[$n,4]}" \
		"$(awk -v a="${med[$n,2]}" -v b="${med[nginx,2]}" 'BEGIN { print a / b }')" \
		"$(awk -v a="${med[$n,3]}" -v b="${med[nginx,3]}" 'BEGIN { print a / b }')" \
		"$(awk -v a="${med[$n,4]}" -v b="${med[nginx,4]}" 'BEGIN { print a / b }')"
done
echo "(medians of $rounds; ratios to nginx's medians; for req/s higher is better, for latency lower)"

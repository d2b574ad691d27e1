#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Hostile clients of examples/httpd.c, for scripts/check-httpd.sh and
# scripts/check-httpd-slow.sh.  Each mode prints what went wrong, if
# anything, and exits 1; or 0.
#
#   httpd-clients.py PORT slow N INTERVAL
#       N connections at once, each sending a request head a byte every
#       INTERVAL seconds (a request line, then header lines without end),
#       each opened again as soon as the server closes it.  Prints
#       "holding N" once all are open, then runs until SIGTERM, and prints
#       "slow: N opened, N closed by the server, N got 503, N got another
#       response, N connect errors".
#   httpd-clients.py PORT cap N
#       N connections that send part of a head (the server's cap), then
#       one more, which must get a 503 and the close; once the N close, a
#       request is answered.
#   httpd-clients.py PORT reset-stages ROUNDS
#       ROUNDS rounds of connections reset (SO_LINGER 0, then close) at
#       each stage of a request: just connected, in the request line, in
#       the headers, after the head and before the response, in the body
#       of a large response (GET /files/big.bin), on a kept-alive
#       connection between requests, and in a pipelined sequence.

import selectors, signal, socket, struct, sys, time

port = int(sys.argv[1])
what = sys.argv[2]

HEAD = b"GET / HTTP/1.1\r\nHost: x\r\n"


def fail(msg):
    print(msg)
    sys.exit(1)


def conn(timeout=10):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(timeout)
    return s


def read_all(s):
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


def rst(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def slow(n, interval):
    """Slowloris: N heads that never end, a byte each INTERVAL."""
    sel = selectors.DefaultSelector()
    stats = dict(opened=0, closed=0, busy=0, other=0, errors=0)
    state = {}          # socket -> [bytes sent, next send time]
    stop = []

    def stream(i):
        if i < len(HEAD):
            return HEAD[i:i + 1]
        return b"X: y\r\n"[(i - len(HEAD)) % 6:][:1]

    def open_one(now):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        except OSError:
            stats["errors"] += 1
            s.close()
            return False
        # Spread the sends over the interval.
        state[s] = [0, now + interval * (stats["opened"] % 100) / 100]
        sel.register(s, selectors.EVENT_READ)
        stats["opened"] += 1
        return True

    def drop(s):
        sel.unregister(s)
        del state[s]
        s.close()

    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    now = time.monotonic()
    for _ in range(n):
        if not open_one(now):
            time.sleep(0.01)
    print("holding %d" % len(state), flush=True)
    while not stop:
        for key, _ in sel.select(timeout=0.02):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data.startswith(b"HTTP/1.1 503 "):
                stats["busy"] += 1
            elif data:
                stats["other"] += 1
            else:
                stats["closed"] += 1
            drop(s)
        now = time.monotonic()
        for s, st in list(state.items()):
            if st[1] > now:
                continue
            try:
                s.send(stream(st[0]))
                st[0] += 1
                st[1] = now + interval
            except (BlockingIOError, InterruptedError):
                st[1] = now + interval
            except OSError:
                stats["closed"] += 1
                drop(s)
        while len(state) < n and not stop:
            if not open_one(now):
                break
    print("slow: %(opened)d opened, %(closed)d closed by the server, "
          "%(busy)d got 503, %(other)d got another response, "
          "%(errors)d connect errors" % stats, flush=True)
    if stats["other"]:
        sys.exit(1)


def cap(n):
    held = []
    for _ in range(n):
        s = conn()
        s.sendall(b"GET / HT")
        held.append(s)
    # The server has taken them in the order they came.
    s = conn()
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    r = read_all(s)
    if (not r.startswith(b"HTTP/1.1 503 ") or
            not r.endswith(b"Connection: close\r\n\r\n")):
        fail("connection %d past the cap got %r" % (n + 1, r[:60]))
    # The held ones are still open: each gets its response now.
    for s in held[:3]:
        s.sendall(b"TP/1.1\r\nConnection: close\r\n\r\n")
        if not read_all(s).startswith(b"HTTP/1.1 200 OK"):
            fail("a held connection was not answered")
    for s in held:
        s.close()
    # Once the server has closed them, new connections are served again.
    deadline = time.monotonic() + 5
    while True:
        s = conn()
        s.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
        r = read_all(s)
        if r.startswith(b"HTTP/1.1 200 OK"):
            break
        if time.monotonic() > deadline:
            fail("after the close, still %r" % r[:40])
        time.sleep(0.05)


def reset_stages(rounds):
    big = b"GET /files/big.bin HTTP/1.1\r\nHost: x\r\n\r\n"
    for _ in range(rounds):
        # Just connected.
        rst(conn())
        # In the request line, and in the headers.
        for part in [b"GET /fi", HEAD + b"X-Long: abc"]:
            s = conn()
            s.sendall(part)
            rst(s)
        # A complete head, reset before its response is read.
        s = conn()
        s.sendall(big)
        rst(s)
        # In the body of a large response: a small receive window, so the
        # server's send is under way when the reset comes.
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(10)
        s.connect(("127.0.0.1", port))
        s.sendall(big)
        got = 0
        while got < 20000:
            chunk = s.recv(4096)
            if not chunk:
                fail("the large response ended after %d bytes" % got)
            got += len(chunk)
        rst(s)
        # Kept alive, between two requests.
        s = conn()
        s.sendall(HEAD + b"\r\n")
        r = b""
        while not r.endswith(b"Hello, world!\n"):
            chunk = s.recv(4096)
            if not chunk:
                fail("keep-alive: closed after %r" % r)
            r += chunk
        rst(s)
        # A pipelined sequence: small and large responses, reset after the
        # first bytes of the answers.
        s = conn()
        s.sendall(HEAD + b"\r\n" + big + HEAD + b"\r\n" + big)
        s.recv(100)
        rst(s)


if what == "slow":
    slow(int(sys.argv[3]), float(sys.argv[4]))
elif what == "cap":
    cap(int(sys.argv[3]))
elif what == "reset-stages":
    reset_stages(int(sys.argv[3]))
else:
    fail("unknown mode " + what)

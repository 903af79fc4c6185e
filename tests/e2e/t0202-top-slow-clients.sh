#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0202-top-slow-clients.sh - gpuprof top --listen against hostile clients:
# connections that trickle a request a byte at a time are refused past the
# per-address limit and closed at the request deadline, scrapes from another
# address answer meanwhile (the oldest connection gives way when every slot is
# taken), and a flood of abandoned requests is counted on /metrics, not printed
# line by line. Also the address in the listen message and the option checks.
# Python opens the connections from several loopback addresses (127.0.0.0/8 is
# all local on Linux), each its own "client address" for the server.
. "$(dirname "$0")/lib.sh"
need python3

FAKE="${GP_BUILD_DIR:-$GP_SRC_DIR/build}/tests/fake/libfake-nvml.so"
[ -f "$FAKE" ] || { echo "skip: no $FAKE"; exit 77; }
export GPUPROF_NVML_LIBRARY="$FAKE"

"$GPUPROF" version --build-options 2>&1 | grep -q "top --listen: *yes" ||
	{ echo "skip: built without libmicrohttpd"; exit 77; }

# --- option checks
expect_rc 2 top --listen-timeout 5
err_has "option '--listen-timeout' needs '--listen'"
expect_rc 2 top --listen-per-address 4 --json
err_has "option '--listen-per-address' needs '--listen'"
expect_rc 2 top --listen 9400 --listen-timeout 0
expect_rc 2 top --listen 9400 --listen-timeout 3601
expect_rc 2 top --listen 9400 --listen-per-address 65

# --- hostile clients; a short request deadline keeps the test short
timeout_s=3
port=$((40000 + $$ % 20000))
"$GPUPROF" top --listen "$port" --listen-timeout "$timeout_s" --interval 100 \
	>"$TMP/listen.out" 2>"$TMP/listen.err" &
pid=$!
python3 - "$port" "$timeout_s" "$TMP/metrics.txt" <<'EOF' ||
import http.client, socket, sys, threading, time
port, timeout_s, save = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
PER_ADDRESS = 8  # the default
# a request that never ends: the server must not wait for it
REQ = b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 500

def scrape(src, timeout=5):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(src, 0))
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        return r.status, r.read().decode()
    finally:
        c.close()

def metric(body, name, reason=None):
    for l in body.splitlines():
        if l.startswith(name + "{") and (not reason or f'reason="{reason}"' in l):
            return float(l.rsplit(" ", 1)[1])
    sys.exit(f"no {name} on /metrics")

class Trickler:
    """A client sending its request one byte every half second."""
    def __init__(self, src):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
        self.s.setblocking(False)
        self.src, self.t0, self.closed, self.sent = src, time.monotonic(), None, 0
    def poll(self):  # has the server closed it?
        if self.closed is None:
            try:
                if self.s.recv(4096) == b"":
                    self.closed = time.monotonic()
            except BlockingIOError:
                pass
            except OSError:
                self.closed = time.monotonic()
    def tick(self):
        if self.closed is None:
            try:
                self.sent += self.s.send(REQ[self.sent:self.sent + 1])
            except BlockingIOError:
                pass
            except OSError:
                self.closed = time.monotonic()

def pump(ts, secs, until=lambda: False):
    """Trickles for up to secs seconds, watching for closed connections."""
    end = next_tick = time.monotonic()
    end += secs
    while time.monotonic() < end and not until():
        for t in ts:
            t.poll()
        if time.monotonic() >= next_tick:
            for t in ts:
                t.tick()
            next_tick += 0.5
        time.sleep(0.05)

for _ in range(200):
    try:
        st, body = scrape("127.0.0.1")
        if st == 200:
            break
    except OSError:
        pass
    time.sleep(0.05)
else:
    sys.exit("server did not come up within 10 s")
errors0 = metric(body, "gpuprof_http_client_errors_total")

# 1. one address: past the per-address limit, connections are refused at once
# (well before the request deadline)
mine = [Trickler("127.0.0.1") for _ in range(PER_ADDRESS + 12)]
pump(mine, 2, lambda: sum(t.closed is not None for t in mine) >= 12)
alive = sum(t.closed is None for t in mine)
if alive > PER_ADDRESS:
    sys.exit(f"{alive} trickling connections from one address are open, limit {PER_ADDRESS}")

# 2. eight more addresses fill every slot (64), and scrapes from yet another
# address still answer, while the tricklers go on
others = [Trickler(f"127.0.0.{a}") for a in range(2, 10) for _ in range(PER_ADDRESS)]
ts = mine + others
res, stop = [], threading.Event()
def scraper():
    while not stop.is_set():
        t = time.monotonic()
        try:
            st, body = scrape("127.0.0.50")
            res.append((st, "gpuprof_gpu_up{" in body, time.monotonic() - t))
        except Exception as e:
            res.append((repr(e), False, time.monotonic() - t))
        time.sleep(0.3)
th = threading.Thread(target=scraper)
th.start()
# 3. every trickler is closed by the server at its deadline, whatever it sends
pump(ts, timeout_s + 5, lambda: all(t.closed is not None for t in ts))
stop.set()
th.join()
bad = [r for r in res if r[0] != 200 or not r[1]]
if bad or len(res) < 3:
    sys.exit(f"scrapes failed while slow clients held the connections: {bad[:5]} of {len(res)}")
open_ = [t for t in ts if t.closed is None]
if open_:
    sys.exit(f"{len(open_)} trickling connections still open {timeout_s + 5} s later "
             f"(sent {open_[0].sent} bytes each)")
late = max(t.closed - t.t0 for t in ts)
if late > timeout_s + 4:
    sys.exit(f"a trickling connection lasted {late:.1f} s, the deadline is {timeout_s} s")
for t in ts:
    t.s.close()

# 4. a flood of abandoned requests: counted, not printed
for _ in range(100):
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.60", 0))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHo")
    s.close()
time.sleep(0.5)
st, body = scrape("127.0.0.1")
assert st == 200
errors = metric(body, "gpuprof_http_client_errors_total")
if errors < errors0 + 50:
    sys.exit(f"client errors went from {errors0} to {errors} only")
closed = {r: metric(body, "gpuprof_http_connections_closed_total", r)
          for r in ("timeout", "evicted", "idle")}
if None in closed.values() or closed["timeout"] < 1 or closed["evicted"] < 1:
    sys.exit(f"closed connections not counted: {closed}")
assert "# TYPE gpuprof_http_client_errors_total counter" in body
open(save, "w").write(body)
EOF
	{
		kill "$pid"
		cat "$TMP/listen.err" >&2
		fail "top --listen gave way to slow clients"
	}
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || fail "top --listen exited $rc on SIGTERM"
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMP/metrics.txt" 2>&1 |
		grep -v "label names should be written in 'snake_case' not 'camelCase'" | grep . &&
		fail "promtool rejects the /metrics with the HTTP counters"
fi

# the listen message names the address for a bare port
grep -qF "gpuprof top: serving Prometheus metrics on http://127.0.0.1:$port/metrics" \
	"$TMP/listen.err" || { cat "$TMP/listen.err" >&2; fail "listen message without the address"; }
# no flood on standard error: the listen message and one summary line at exit
n=$(wc -l <"$TMP/listen.err")
[ "$n" -le 2 ] || { head -n 20 "$TMP/listen.err" >&2; fail "$n lines on stderr, expected 2"; }
grep -qE "^gpuprof top: HTTP: [0-9]+ client errors, [0-9]+ slow connections closed" \
	"$TMP/listen.err" || { cat "$TMP/listen.err" >&2; fail "no summary of the client errors"; }

# IPv6 in brackets, where the loopback has IPv6
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	expect_rc 0 top --listen "[::1]:$port" --duration 1
	err_has "serving Prometheus metrics on http://[::1]:$port/metrics"
fi

echo "ok: $NCHECK gpuprof runs"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0316-capture-hostile.sh - captures shaped to stall or mislead the reader are read
# right: 20,000 threads with one NVTX range each and 20,000 domains with one range
# each (each took a linear search per record: 200,000 threads took 32 s), start/end
# ranges across many capture windows (each window's end scanned every start/end
# range seen so far), and every range comes back with its count. Errors in a capture
# name the file and the byte offset. Times are measured by bench/bench_hostile.sh,
# not here.
. "$(dirname "$0")/lib.sh"
need python3

python3 - "$TMP" <<'PY'
import struct, sys
d = sys.argv[1]
def rec(t, payload):
    return struct.pack("<II", t, len(payload)) + payload + b"\0" * ((8 - len(payload) % 8) % 8)
def nvtx(ts, tid, kind, dom=0, ident=0, msg=b""):
    return rec(13, struct.pack("<qIB3xIIQII", ts, tid, kind, dom, 0, ident, 0, 0) + msg)
hdr = b"GPCAPT\r\n" + struct.pack("<II", 1, 16) + rec(1, b'{"schema":"gpuprof.capture/1","pid":7}')
end = rec(2, b'{"reason":"exit","mono_ns":0,"real_ns":0,"cupti_version":0}')
n = 20000
b = [hdr]
for k in range(n):
    b += [nvtx(1000 + k, 10 + k, 1, msg=b"t"), nvtx(2000 + k, 10 + k, 2)]
open(d + "/threads.gpcap", "wb").write(b"".join(b + [end]))
b = [hdr]
for k in range(n):
    b += [nvtx(1000 + k, 1, 6, ident=k + 1, msg=b"d%d" % (k % 100)),
          nvtx(1000 + k, 1, 1, dom=k + 1, msg=b"r"), nvtx(2000 + k, 1, 2, dom=k + 1)]
open(d + "/domains.gpcap", "wb").write(b"".join(b + [end]))
# 2,000 windows, each with 10 start/end ranges ended inside it and one left open (cut)
b, ts, ident = [hdr], 100, 1
for w in range(2000):
    b.append(rec(16, struct.pack("<qII", ts, 1, 5)))
    for k in range(10):
        b += [nvtx(ts + 1 + k, 3, 3, ident=ident, msg=b"se"), nvtx(ts + 20 + k, 4, 4, ident=ident)]
        ident += 1
    b.append(nvtx(ts + 40, 3, 3, ident=ident, msg=b"cut"))
    ident += 1
    b.append(rec(16, struct.pack("<qII", ts + 50, 0, 5)))
    ts += 100
open(d + "/windows.gpcap", "wb").write(b"".join(b + [end]))
# damage: a record of type 0 in the middle; a header of another version
good = hdr + nvtx(10, 1, 1, msg=b"x") + nvtx(20, 1, 2)
open(d + "/damaged.gpcap", "wb").write(good + struct.pack("<II", 0, 8) + b"\0" * 8 + end)
open(d + "/version.gpcap", "wb").write(b"GPCAPT\r\n" + struct.pack("<II", 9, 16) + end)
PY

expect_rc 0 analyze --json "$TMP/threads.gpcap"
python3 - "$OUT" <<'PY' || fail "threads: the report"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
assert {x["name"]: x["count"] for x in r["ranges"]} == {"t": 20000}, r["ranges"]
assert r["overview"]["threads"] >= 20000, r["overview"]["threads"]
assert r["overview"]["capture"]["nvtx_unmatched"] == 0
PY

expect_rc 0 analyze --json "$TMP/domains.gpcap"
python3 - "$OUT" <<'PY' || fail "domains: the report"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
rg = {}
for x in r["ranges"]:
    rg[(x["domain"], x["name"])] = rg.get((x["domain"], x["name"]), 0) + x["count"]
assert len(rg) == 100 and all(v == 200 for v in rg.values()), list(rg.items())[:3]
assert r["overview"]["capture"]["nvtx_unmatched"] == 0
PY

expect_rc 0 analyze --json "$TMP/windows.gpcap"
python3 - "$OUT" <<'PY' || fail "windows: the report"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
assert {x["name"]: x["count"] for x in r["ranges"]} == {"se": 20000}, r["ranges"]
cap = r["overview"]["capture"]
assert len(cap["windows"]) == 2000 and cap["nvtx_cut_by_window"] == 2000, cap["nvtx_cut_by_window"]
PY

expect_rc 1 analyze "$TMP/damaged.gpcap"
err_has "$TMP/damaged.gpcap: at byte 168: damaged record (type 0, size 8)"
expect_rc 0 analyze --salvage "$TMP/damaged.gpcap"
expect_rc 1 analyze "$TMP/version.gpcap"
err_has "$TMP/version.gpcap: at byte 8: capture format version 9"

echo "ok: $NCHECK checks"

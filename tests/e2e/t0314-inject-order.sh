#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0314-inject-order.sh - a thread's records reach the capture in the order it
# made them, however many blocks a flush carries: a Python program with 2
# "epoch" ranges around 3,000 "step" ranges of 200 µs each (many 64 KiB blocks
# per 500 ms flush; the tracer once wrote a thread's blocks newest first and
# the reader paired the pushes and pops wrongly: step total 4.4 s, epochs
# 1.0 s). The totals `gpuprof analyze` reports must match the program's own
# clock within 1 %, no range is unmatched; a capture whose records are out of
# order (written here by hand) is reported as such.
. "$(dirname "$0")/lib.sh"
need python3

# a capture whose thread records go back in time: the reader says so and does not pair across
python3 - "$TMP/disorder.gpcap" <<'PY'
import struct, sys
def rec(t, payload):
    pad = (8 - len(payload) % 8) % 8
    return struct.pack("<II", t, len(payload)) + payload + b"\0" * pad
def nvtx(ts, tid, kind, msg=b""):
    return rec(13, struct.pack("<qIB3xIIQII", ts, tid, kind, 0, 0, 0, 0, 0) + msg)
meta = b'{"schema":"gpuprof.capture/1","pid":7}'
b = b"GPCAPT\r\n" + struct.pack("<II", 1, 16) + rec(1, meta)
# thread 5: a newer block (push "b" at 300, pop at 400) written before the older one
b += nvtx(300, 5, 1, b"b") + nvtx(400, 5, 2)
b += nvtx(100, 5, 1, b"a") + nvtx(200, 5, 2)
# thread 6 in order
b += nvtx(100, 6, 1, b"c") + nvtx(150, 6, 2)
b += rec(2, b'{"reason":"exit","mono_ns":500,"real_ns":0,"cupti_version":0}')
open(sys.argv[1], "wb").write(b)
PY
expect_rc 0 analyze --json "$TMP/disorder.gpcap"
json_ok "$OUT"
python3 - "$OUT" <<'PY' || fail "out-of-order capture"
import json, sys
cap = json.load(open(sys.argv[1]))["ranks"][0]["overview"]["capture"]
assert cap["nvtx_out_of_order"] == 2, cap  # both records of the older block
w = [x["text"] for x in cap["warning_messages"] if "out of order" in x["text"]]
assert len(w) == 1 and "thread 5's" in w[0] and "at byte 168" in w[0], cap
PY
expect_rc 0 analyze "$TMP/disorder.gpcap"
out_has "out of order"

# the Python program (not in a sanitizer build: python3 cannot load its libraries)
if [ "${GP_SANITIZED:-}" = 1 ]; then
	echo "ok: $NCHECK checks (sanitizer build: the Python program skipped)"
	exit 0
fi

use_tracer
[ -e "$B/libgpuprof.so" ] || { echo "skip: no $B/libgpuprof.so"; exit 77; }
export GPUPROF_LIBRARY="$B/libgpuprof.so" PYTHONPATH="$GP_SRC_DIR/python"

cat >"$TMP/epochs.py" <<'PY'
import json, sys, time, gpuprof
assert gpuprof.recording()
steps, step_us = int(sys.argv[1]), int(sys.argv[2])
own = {"step_in": 0, "step_out": 0, "epoch": 0}
clk = time.perf_counter_ns
for e in range(2):
    e0 = clk()
    with gpuprof.range("epoch"):
        for s in range(steps):
            s0 = clk()
            with gpuprof.range("step"):
                s1 = clk()
                end = s1 + step_us * 1000
                while clk() < end:
                    pass
                own["step_in"] += clk() - s1
            own["step_out"] += clk() - s0
    own["epoch"] += clk() - e0
json.dump(own, open(sys.argv[3], "w"))
PY

for steps in 3000 1000; do
	d="$TMP/run-$steps"
	NCHECK=$((NCHECK + 1))
	"$GPUPROF" run --quiet --no-cuda --sample-ms 0 -o "$d" -- \
		python3 "$TMP/epochs.py" "$steps" 200 "$TMP/own-$steps.json" >"$OUT" 2>"$ERR" ||
		fail "$steps steps: gpuprof run exited $?"
	python3 - "$d/report.json" "$TMP/own-$steps.json" "$steps" <<'PY' || fail "$steps steps: totals"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
own = json.load(open(sys.argv[2]))
n = int(sys.argv[3])
rg = {x["name"]: x for x in r["ranges"]}
assert rg["epoch"]["count"] == 2 and rg["step"]["count"] == 2 * n, rg
cap = r["overview"]["capture"]
assert cap["nvtx_unmatched"] == 0 and cap["nvtx_out_of_order"] == 0, cap
ep, st = rg["epoch"]["total_ns"], rg["step"]["total_ns"]
# the program's clock brackets each step: inside the range, and around the calls that open and close it
assert own["step_in"] * 0.99 <= st <= own["step_out"] * 1.01, (st, own)
assert abs(ep - own["epoch"]) <= 0.01 * own["epoch"], (ep, own)
print("steps %d: step %.4f s (own %.4f-%.4f), epoch %.4f s (own %.4f)" %
      (n, st / 1e9, own["step_in"] / 1e9, own["step_out"] / 1e9, ep / 1e9, own["epoch"] / 1e9))
PY
done

echo "ok: $NCHECK checks"

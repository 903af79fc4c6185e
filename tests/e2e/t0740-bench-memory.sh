#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0740-bench-memory.sh - memory per iteration in `gpuprof bench` of traces: a
# generated profile_memory trace (bench/gen_trace.c) gets per ProfilerStep the
# peak and the at-end allocated bytes, the at-end bytes equal analyze's
# memory.devices[].step_growth and the highest peak its peak_allocated_bytes
# (two computations, one curve); the statistics are those of the samples;
# the warm-up leaves the first step out of the memory as of the times; the
# text shows memory beside the time; a hand-written Kineto trace with two GPUs
# and a CPU gives the most loaded GPU's numbers, exactly; a trace without
# memory events has null memory.
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace

"$GEN" --steps 6 -o "$TMP/g.json" >/dev/null 2>&1 || fail "gen_trace"
expect_rc 0 analyze --json "$TMP/g.json"
cp "$OUT" "$TMP/a.json"
expect_rc 0 bench --json "$TMP/g.json"
json_ok "$OUT"
cp "$OUT" "$TMP/b.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/a.json" "$TMP/b.json" <<'PY' || fail "steps against analyze (above)"
import json, statistics, sys
a = json.load(open(sys.argv[1]))
r = a["ranks"][0] if "ranks" in a else a
dev = [d for d in r["memory"]["devices"] if d["device"] == 0][0]
ends = [s["allocated_at_end_bytes"] for s in dev["step_growth"] if not s["incomplete"]]
s = json.load(open(sys.argv[2]))["series"][0]
peak, end = s["peak_memory_bytes"], s["memory_at_end_bytes"]
assert s["n"] == len(peak) == len(end) == len(ends), (s["n"], len(peak), len(ends))
assert end == ends, (end, ends)
assert max(peak) == dev["peak_allocated_bytes"], (max(peak), dev["peak_allocated_bytes"])
assert all(p >= e for p, e in zip(peak, end))
for key, x in (("memory_stats", peak), ("memory_at_end_stats", end)):
    st = s[key]
    assert st["min_bytes"] == min(x) and st["max_bytes"] == max(x), st
    assert abs(st["mean_bytes"] - statistics.mean(x)) < 1e-3 * statistics.mean(x), st
    assert abs(st["std_bytes"] - statistics.stdev(x)) <= 1e-6 * statistics.stdev(x), st
PY

# the warm-up: the first step is left out of the memory as of the times
expect_rc 0 bench --json --warmup 1 "$TMP/g.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/b.json" "$OUT" <<'PY' || fail "warm-up (above)"
import json, sys
a = json.load(open(sys.argv[1]))["series"][0]
b = json.load(open(sys.argv[2]))["series"][0]
assert b["n"] == a["n"] - 1
assert b["peak_memory_bytes"] == a["peak_memory_bytes"][1:]
assert b["memory_at_end_bytes"] == a["memory_at_end_bytes"][1:]
PY

# the text: memory beside the time, peak and at end
expect_rc 0 bench "$TMP/g.json"
out_has "  memory  peak   mean "
out_has "          at end mean "
grep -q "^  memory  peak   mean [0-9.]* GiB ± [0-9.]* [KMG]*i*B  min [0-9.]* GiB  max [0-9.]* GiB$" "$OUT" ||
	fail "the peak line"
expect_rc 0 bench --markdown "$TMP/g.json"
out_has "peak memory (mean)"

# two GPUs and the CPU, Total Allocated: steps of 1 ms from 1 ms; GPU 0 holds 1 MiB
# before, each step allocates 4 MiB at +0.1 ms and frees 3 MiB at +0.5 ms; GPU 1 holds
# 2.5 MiB throughout; the CPU's 1 GiB never counts
python3 - "$TMP/two.json" <<'PY' || fail "writing the trace"
import json, sys
MI = 1 << 20
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1, "tid": 1,
       "ts": 1000 * (i + 1), "dur": 1000} for i in range(4)]
def mem(ts, b, total, dtype, dev):
    ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1,
               "tid": 1, "ts": ts, "args": {"Device Type": dtype, "Device Id": dev,
               "Addr": 0, "Bytes": b, "Total Allocated": total, "Total Reserved": 64 * MI}})
mem(500, MI, MI, 1, 0)
mem(500, 5 * MI // 2, 5 * MI // 2, 1, 1)
mem(600, 1 << 30, 1 << 30, 0, -1)
total = MI
for i in range(4):
    s = 1000 * (i + 1)
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
               "tid": 1, "ts": s + 10, "dur": 5, "args": {"correlation": i + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": s + 20,
               "dur": 100, "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    total += 4 * MI
    mem(s + 100, 4 * MI, total, 1, 0)
    total -= 3 * MI
    mem(s + 500, -3 * MI, total, 1, 0)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
expect_rc 0 bench --json "$TMP/two.json"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "two GPUs (above)"
import json, sys
MI = 1 << 20
s = json.load(open(sys.argv[1]))["series"][0]
# GPU 0 peaks 5, 6, 7, 8 MiB and ends 2, 3, 4, 5 MiB; GPU 1 stays at 2.5 MiB
assert s["n"] == 4, s["n"]
assert s["peak_memory_bytes"] == [5 * MI, 6 * MI, 7 * MI, 8 * MI], s["peak_memory_bytes"]
assert s["memory_at_end_bytes"] == [5 * MI // 2, 3 * MI, 4 * MI, 5 * MI], s["memory_at_end_bytes"]
PY

# no memory events: null, as unknown
python3 - "$TMP/two.json" "$TMP/nomem.json" <<'PY' || fail "writing the trace"
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if e["name"] != "[memory]"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 bench --json "$TMP/nomem.json"
[ "$(json_get "$OUT" '[d["series"][0][k] for k in ("peak_memory_bytes", "memory_at_end_bytes", "memory_stats", "memory_at_end_stats")]')" = \
	"[None, None, None, None]" ] || fail "null memory"
expect_rc 0 bench "$TMP/nomem.json"
grep -q "memory" "$OUT" && fail "memory shown without memory events"

done_ok

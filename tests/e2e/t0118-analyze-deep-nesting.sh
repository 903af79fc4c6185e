#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0118-analyze-deep-nesting.sh - host events nested tens of thousands deep (a hostile or
# broken trace: equal times nest, each holding the next) are summarised exactly, in memory of
# the events' size: an operator's GPU time (gpu_ns) is every kernel launched inside it, once
# per enclosing instance, its innermost instance's (gpu_self_ns) once; an annotation's is the
# union of its kernels per instance, its range projection first start to last end.
# (Operators once took O(depth) per kernel: 1.7 s for the first file here, 10 s for 50,000
# of each; annotations kept every (instance, kernel) pair: killed at 24 GB for a 4.5 MB file.)
. "$(dirname "$0")/lib.sh"
need python3
python3 - "$TMP" <<'PY'
import json, os, sys
# operators and their launch calls all at one (ts, dur): each holds the next (runtime calls
# included), D operators around K launches; each kernel 1 us, one after the other
D, K = 30000, 30000
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::deep", "pid": 1, "tid": 1, "ts": 1000, "dur": 5}
      for _ in range(D)]
for j in range(K):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": 1000, "dur": 5, "args": {"correlation": j + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2000 + 2 * j,
               "dur": 1, "args": {"correlation": j + 1, "stream": 7, "device": 0}})
json.dump({"traceEvents": ev}, open(os.path.join(sys.argv[1], "ops.json"), "w"))
# D annotations at one (ts, dur) around K launches at distinct times; kernels of 0.5 us, 1 us apart
D, K = 3000, 3000
ev = [{"ph": "X", "cat": "user_annotation", "name": "deep", "pid": 1, "tid": 1, "ts": 1000,
       "dur": 10000} for _ in range(D)]
for j in range(K):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": 1000 + 0.25 * j, "dur": 0.125, "args": {"correlation": j + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20000 + j,
               "dur": 0.5, "args": {"correlation": j + 1, "stream": 7, "device": 0}})
json.dump({"traceEvents": ev}, open(os.path.join(sys.argv[1], "ann.json"), "w"))
PY

expect_rc 0 analyze --json "$TMP/ops.json"
json_ok "$OUT"
python3 - "$OUT" <<'PY' || fail "operator GPU times (above)"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
row = [x for x in r["cpu_ops"] if x["name"] == "aten::deep"][0]
D, K = 30000, 30000
assert row["count"] == D, row
assert row["gpu_ns"] == D * K * 1000, row
assert row["gpu_self_ns"] == K * 1000, row
PY

expect_rc 0 analyze --json "$TMP/ann.json"
json_ok "$OUT"
python3 - "$OUT" <<'PY' || fail "annotation GPU times (above)"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
D, K = 3000, 3000
a = [x for x in r["annotations"] if x["name"] == "deep"][0]
assert a["count"] == D and a["gpu_ops"] == D * K, a
assert a["gpu_ns"] == D * K * 500, a  # disjoint kernels: the union is their sum
g = [x for x in r["ranges"] if x["name"] == "deep"][0]
assert g["gpu_ops"] == D * K, g
assert g["gpu_projected_ns"] == D * ((K - 1) * 1000 + 500), g
PY
done_ok

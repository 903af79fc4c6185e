#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile module calls: 100000 nested nn.Module events and 20000 distinct sibling calls, a
# kernel launched in the innermost: analyze finishes, the tree keeps 64 levels and 10000 nodes
# and says what it left out, the deep calls' kernel still counts in the kept ancestors.
. "$(dirname "$0")/lib.sh"
need python3
python3 - "$TMP/deep.json" <<'PY'
import json, sys
ev, n = [], 100000
for i in range(n):  # Deep_0 holds Deep_1 holds ... (1 µs each side)
    ev.append({"ph": "X", "cat": "python_function", "name": "nn.Module: Deep_%d" % i,
               "pid": 1, "tid": 1, "ts": i, "dur": 2 * (n - i) + 10})
for i in range(20000):
    ev.append({"ph": "X", "cat": "python_function", "name": "nn.Module: Wide_%d" % i,
               "pid": 1, "tid": 1, "ts": 10 ** 6 + 10 * i, "dur": 5})
ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
           "ts": n + 1, "dur": 1, "args": {"correlation": 1}})
ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": n + 3, "dur": 4,
           "args": {"correlation": 1, "stream": 7, "device": 0}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
expect_rc 0 analyze --json "$TMP/deep.json"
json_ok "$OUT"
[ "$(json_get "$OUT" 'd["ranks"][0]["modules"] is not None')" = True ] ||
	{ echo "skip: this build keeps no nn.Module calls"; exit 77; }
python3 - "$OUT" <<'PY' || fail "bounds (above)"
import json, sys
m = json.load(open(sys.argv[1]))["ranks"][0]["modules"]
tr = m["truncated"]
assert tr["calls_dropped"] == 100000 - 64, tr
assert tr["nodes_dropped"] == 64 + 20000 - 10000, tr
cl = {c["name"]: c for c in m["classes"]}
assert cl["Deep"]["count"] == 64 and cl["Deep"]["gpu_time_ns"] == 64 * 4000, cl["Deep"]
assert cl["Wide"]["count"] == 20000, cl["Wide"]
d, n = 0, m["tree"][0]
while n:
    d += 1
    n = n["children"][0] if n["children"] else None
assert d == 64, d
PY
expect_rc 0 analyze "$TMP/deep.json"
out_has "(truncated: calls nested over 64 levels or past 10000 tree nodes left out, see --json)"
done_ok

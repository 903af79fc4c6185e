#!/bin/bash
# SPDX-License-Identifier: MIT
# t0191-review-compare.sh - compare's explanation of an op whose GPU time moved speaks of
# TFLOP/s only when the op does FLOPs: a copy_ that got slower is not "0.000 TFLOP/s
# achieved, was 0.000"; a GEMM that got slower still says its TFLOP/s.
. "$(dirname "$0")/lib.sh"
need python3

python3 "$GP_SRC_DIR/tests/e2e/gen_roofline.py" "$TMP/g.json" "$TMP/exp.json" ||
	fail "gen_roofline.py failed"
# base and new: gen_roofline.py's trace plus an fp32 copy whose kernel takes 100 µs, then
# 300 µs (new); with --what mm, the mm's kernels take twice as long instead
python3 - "$TMP/g.json" "$TMP" <<'PY' || fail "could not write the traces"
import json, sys
def write(path, copy_us, mm_scale):
    d = json.load(open(sys.argv[1]))
    ev = d["traceEvents"]
    for e in ev:
        if e.get("cat") == "kernel" and e["name"].startswith("sm90_xmma_gemm"):
            e["dur"] *= mm_scale
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 190,
               "dur": 5, "args": {"External id": 9, "Input Dims": [[4096, 4096], [4096, 4096], []],
                                  "Input type": ["float", "float", "Scalar"],
                                  "Concrete Inputs": ["", "", "False"]}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": 191, "dur": 2, "args": {"External id": 9, "correlation": 999}})
    ev.append({"ph": "X", "cat": "kernel", "name": "copy_kernel", "pid": 0, "tid": 7, "ts": 500,
               "dur": copy_us, "args": {"External id": 9, "correlation": 999, "device": 0,
                                        "stream": 7}})
    json.dump(d, open(path, "w"))
t = sys.argv[2]
write(t + "/b.json", 100, 1)
write(t + "/n.json", 300, 1)
write(t + "/m.json", 100, 2)
PY
for s in b n m; do
	expect_rc 0 analyze --json -o "$TMP/$s.r.json" "$TMP/$s.json"
done
run compare --json "$TMP/b.r.json" "$TMP/n.r.json"
python3 - "$OUT" <<'PY' || fail "the copy's explanation (above)"
import json, sys
d = json.load(open(sys.argv[1]))
ex = [e for g in d["groups"] for e in g.get("explanations") or [] if e.get("id") == "op_time"]
if not ex:
    print("no op_time explanation"); sys.exit(1)
t = ex[0]["text"]
print(t)
if "aten::copy_" not in t or "TFLOP/s" in t:
    sys.exit(1)
PY
run compare "$TMP/b.r.json" "$TMP/n.r.json"
out_has "Op aten::copy_"
grep -q "0.000 TFLOP/s achieved" "$OUT" && fail "the copy's explanation speaks of TFLOP/s"
run compare "$TMP/b.r.json" "$TMP/m.r.json"
grep -q "Op aten::mm .*TFLOP/s achieved" <(tr -d '\n' <"$OUT" | sed 's/  */ /g') ||
	fail "the GEMM's explanation lost its TFLOP/s"
done_ok

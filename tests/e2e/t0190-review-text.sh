#!/bin/bash
# SPDX-License-Identifier: MIT
# t0190-review-text.sh - the text of the new sections says what the JSON says: a roofline
# share under 0.05 % prints "<0.1%", not "0.0%" (roofline_pct lies in (0, 100]); a finding's
# evidence value cut to its 63 bytes ends in "…" and wraps within the width instead of
# reading as the whole value past the margin.
. "$(dirname "$0")/lib.sh"
need python3

# gen_roofline.py's trace plus an fp32 copy of 8 elements whose kernel runs 100 µs: its
# roofline (64 bytes at 3.35 TB/s) is about 0.00002 % of its time
python3 "$GP_SRC_DIR/tests/e2e/gen_roofline.py" "$TMP/g.json" "$TMP/exp.json" ||
	fail "gen_roofline.py failed"
python3 - "$TMP/g.json" "$TMP/t.json" <<'PY' || fail "could not extend the trace"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 190,
           "dur": 5, "args": {"External id": 9, "Input Dims": [[8], [8], []],
                              "Input type": ["float", "float", "Scalar"],
                              "Concrete Inputs": ["", "", "False"]}})
ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
           "ts": 191, "dur": 2, "args": {"External id": 9, "correlation": 999}})
ev.append({"ph": "X", "cat": "kernel", "name": "copy_kernel", "pid": 0, "tid": 7, "ts": 500,
           "dur": 100, "args": {"External id": 9, "correlation": 999, "device": 0,
                                "stream": 7}})
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 analyze --json -o "$TMP/r.json" "$TMP/t.json"
pct=$(json_get "$TMP/r.json" \
	'[o["roofline_pct"] for o in d["ranks"][0]["roofline"]["ops"] if o["name"] == "aten::copy_"][0]')
python3 -c "import sys; p = float(sys.argv[1]); sys.exit(0 if 0 < p < 0.05 else 1)" "$pct" ||
	fail "aten::copy_'s roofline_pct is $pct, not in (0, 0.05)"
expect_rc 0 analyze "$TMP/t.json"
grep -E '^  aten::copy_ ' "$OUT" | grep -q '<0\.1%' || fail "the copy's roofline is not '<0.1%'"
grep -E '^  aten::copy_ ' "$OUT" | grep -q ' 0\.0%' && fail "the copy's roofline prints as 0.0%"

# hostile sizes (2^53 per dim: the parsers' limit) give absurd rates: the cells keep their
# columns and the MFU line its '%'
python3 - "$TMP/g.json" "$TMP/h.json" "$TMP/v.json" <<'PY' || fail "could not write the traces"
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("name") == "aten::mm":
        e["args"]["Input Dims"] = [[2**53, 2**53], [2**53, 2**53]]
json.dump(d, open(sys.argv[2], "w"))
# a V100 (no fp8 peak) whose only modelled op is an fp8 GEMM: MFU is null for want of a peak
d = json.load(open(sys.argv[1]))
d["deviceProperties"][0].update(name="Tesla V100-SXM2-16GB", numSms=80,
                                totalGlobalMem=16945512448)
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("name") not in ("aten::foo", "foo_kernel")]
for e in d["traceEvents"]:
    if e.get("name") == "aten::mm":
        e["name"] = "aten::_scaled_mm"
        e["args"]["Input Dims"] = [[1024, 2048], [2048, 4096], [], [], [], [], []]
        e["args"]["Input type"] = ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float",
                                   "", "", ""]
json.dump(d, open(sys.argv[3], "w"))
PY
COLUMNS=100 "$GPUPROF" analyze "$TMP/h.json" >"$TMP/h.txt" || fail "analyze of huge shapes failed"
sed -n '/^Roofline$/,/^$/p' "$TMP/h.txt" >"$TMP/hb.txt"
grep -q '^  MFU .*% of the peak' "$TMP/hb.txt" || fail "the MFU line lost its '%'"
no_width_over 100 "$TMP/hb.txt"
expect_rc 0 analyze --json -o "$TMP/v.json.out" "$TMP/v.json"
[ "$(json_get "$TMP/v.json.out" 'd["ranks"][0]["roofline"]["mfu_pct"]')" = None ] ||
	fail "MFU is not null on a V100 running fp8"
cov=$(json_get "$TMP/v.json.out" 'd["ranks"][0]["roofline"]["coverage_pct"] >= 50')
[ "$cov" = True ] || fail "the fp8 trace's coverage is under 50 %"
expect_rc 0 analyze "$TMP/v.json"
out_has "MFU       - (an op's data type has no peak on this GPU)"

# the device line says why there are no peaks: no deviceProperties is not "not in the table";
# with --peak-tbps alone the bandwidth is shown and the TFLOP/s peaks said missing
python3 - "$TMP/g.json" "$TMP/nodev.json" <<'PY' || fail "could not write the trace"
import json, sys
d = json.load(open(sys.argv[1]))
del d["deviceProperties"]
json.dump(d, open(sys.argv[2], "w"))
PY
COLUMNS=200 "$GPUPROF" analyze "$TMP/nodev.json" >"$TMP/nd.txt" || fail "analyze failed"
grep -q "^  device    GPU not described by the trace: no peaks (--peak-tflops and --peak-tbps" \
	"$TMP/nd.txt" || fail "the device line of a trace without deviceProperties"
grep "^  device    GPU not" "$TMP/nd.txt" | grep -q "table" && fail "no deviceProperties read as a GPU not in the table"
COLUMNS=200 "$GPUPROF" analyze --peak-tbps 2 "$TMP/nodev.json" >"$TMP/nd.txt" || fail "analyze failed"
grep "^  device    GPU not" "$TMP/nd.txt" | grep -q ": 2.000 TB/s; no TFLOP/s peaks (--peak-tflops gives them)" ||
	fail "the device line with --peak-tbps alone"

# modules of a trace without any GPU activity (a CPU run): the GPU times are no
# measurement, so the text shows host times only and '-' where the GPU's would be
python3 - "$TMP/cpu.json" <<'PY' || fail "could not write the trace"
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0,
       "dur": 1000, "args": {}}]
for k in range(3):
    ev.append({"ph": "X", "cat": "python_function", "name": "nn.Module: Block_%d" % k,
               "pid": 1, "tid": 1, "ts": 10 + 100 * k, "dur": 50,
               "args": {"Python id": k + 1, "Python parent id": 0}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
expect_rc 0 analyze "$TMP/cpu.json"
out_has "no GPU activity in this trace: host times only"
grep -qE '^ +- +- +3 +150\.0 µs  Block$' "$OUT" || fail "the class row of a CPU-only trace"
grep -qE '^ +- +3 +150\.0 µs  Block ×3$' "$OUT" || fail "the tree row of a CPU-only trace"
grep -A12 '^Modules' "$OUT" | grep -q ' 0 ns' && fail "a CPU-only trace's module GPU time prints as 0 ns"
[ "$(json_get "$TMP/r.json" 'd["ranks"][0]["gpu"]["has_gpu"]')" = True ] || fail "generated trace has no GPU"

# a long evidence value (the Qwen trace's flash attention Input Dims) is marked as cut and
# stays within 80 and 60 columns
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
Q="$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
[ -e "$Q" ] || { echo "skip: no $Q"; exit 77; }
for w in 80 60; do
	COLUMNS=$w "$GPUPROF" analyze "$Q" >"$TMP/q.txt" || fail "analyze of the Qwen trace failed"
	sed -n '/^Findings$/,$p' "$TMP/q.txt" >"$TMP/f.txt"
	grep -q 'top_op_input_dims=\[\[16,' "$TMP/f.txt" || fail "no top_op_input_dims evidence"
	tr -d '\n' <"$TMP/f.txt" | grep -q '\[\], …,' || fail "the cut shape text has no '…'"
	no_width_over $w "$TMP/f.txt"
	NCHECK=$((NCHECK + 1))
done
done_ok

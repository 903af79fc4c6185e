#!/bin/bash
# SPDX-License-Identifier: MIT
# t0172-roofline-missing.sh - what the roofline cannot know it says, and guesses nothing: a
# trace without shapes, without deviceProperties, with a GPU not in the table (generated from
# gen_roofline.py's trace, and the shared traces of each case when present); a trace without
# GPU activity has no roofline.
. "$(dirname "$0")/lib.sh"
need python3

python3 "$GP_SRC_DIR/tests/e2e/gen_roofline.py" "$TMP/t.json" "$TMP/exp.json" ||
	fail "gen_roofline.py failed"
python3 - "$TMP" <<'EOF2' || fail "could not write the variants"
import json, sys
d = json.load(open(sys.argv[1] + "/t.json"))
nodev = dict(d, deviceProperties=[])
json.dump(nodev, open(sys.argv[1] + "/nodev.json", "w"))
unk = json.loads(json.dumps(d))
unk["deviceProperties"][0]["name"] = "AMD Radeon Graphics"
json.dump(unk, open(sys.argv[1] + "/unknown.json", "w"))
noshape = json.loads(json.dumps(d))
for e in noshape["traceEvents"]:
    for k in ("Input Dims", "Input type", "Concrete Inputs"):
        e["args"].pop(k, None)
json.dump(noshape, open(sys.argv[1] + "/noshape.json", "w"))
EOF2

# check FILE MISSING MATCHED: roofline.missing and device.matched; rows keep their numbers
# and have no peak-dependent ones when the peaks are unknown
check() {
	expect_rc 0 analyze --json -o "$TMP/r.json" "$1"
	python3 - "$TMP/r.json" "$2" "$3" <<'EOF3' || fail "$1: the roofline section is wrong (above)"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]["roofline"]
want, matched = json.loads(sys.argv[2]), json.loads(sys.argv[3])
bad = []
if r["missing"] != want:
    bad.append(f"missing {r['missing']} != {want}")
if r["device"]["matched"] != matched:
    bad.append(f"matched {r['device']['matched']} != {matched}")
if matched is None:
    if r["mfu_pct"] is not None or r["device"]["peak_tbps"] is not None or \
            any(v is not None for v in r["device"]["peak_tflops"].values()):
        bad.append("peaks or MFU without a matched GPU")
    for o in r["ops"]:
        if any(o[k] is not None for k in ("roofline_pct", "headroom_ns", "bound", "peak_tflops")):
            bad.append(f"{o['name']}: peak-dependent numbers without peaks")
        if o["achieved_tflops"] is None or o["flops"] is None:
            bad.append(f"{o['name']}: no achieved TFLOP/s")
if "shapes" in want and r["ops"]:
    bad.append("rows without shapes")
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF3
}

check "$TMP/nodev.json" '["deviceProperties"]' null
check "$TMP/unknown.json" '["gpu not in table"]' null
check "$TMP/noshape.json" '["shapes"]' '"H100 SXM"'
expect_rc 0 analyze "$TMP/unknown.json"
out_has "gpu not in table: its peaks are unknown"
expect_rc 0 analyze "$TMP/noshape.json"
out_has "shapes: the ops carry no Input Dims"
# --peak-tflops and --peak-tbps stand in for an unknown GPU
expect_rc 0 analyze --json --peak-tflops 500 --peak-tbps 2 -o "$TMP/r.json" "$TMP/unknown.json"
[ "$(json_get "$TMP/r.json" 'd["ranks"][0]["roofline"]["missing"]')" = "[]" ] ||
	fail "the options did not stand in for the table"

T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
if [ -d "$T" ]; then
	[ -f "$T/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz" ] &&
		check "$T/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz" \
			'["shapes"]' '"A100 40GB"'
	[ -f "$T/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz" ] &&
		check "$T/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz" \
			'["gpu not in table"]' null
	[ -f "$T/hta/trace_diff_test_test.json.gz" ] &&
		check "$T/hta/trace_diff_test_test.json.gz" '[]' '"V100 SXM2"'
	if [ -f "$T/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" ]; then
		expect_rc 0 analyze --json -o "$TMP/r.json" \
			"$T/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
		[ "$(json_get "$TMP/r.json" 'd["ranks"][0]["roofline"]')" = None ] ||
			fail "a trace without GPU activity has a roofline"
	fi
fi
done_ok

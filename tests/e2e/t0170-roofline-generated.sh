#!/bin/bash
# SPDX-License-Identifier: MIT
# t0170-roofline-generated.sh - a generated Kineto trace with known shapes and durations
# (gen_roofline.py) gives exactly the FLOPs, bytes, GPU time, TFLOP/s, TB/s, roofline % and
# headroom computed by hand from docs/analyses/roofline.md; the text lists the rows by
# headroom; --peak-tflops/--peak-tbps override the table.
. "$(dirname "$0")/lib.sh"
need python3

python3 "$GP_SRC_DIR/tests/e2e/gen_roofline.py" "$TMP/t.json" "$TMP/exp.json" ||
	fail "gen_roofline.py failed"
expect_rc 0 analyze --json -o "$TMP/r.json" "$TMP/t.json"
python3 - "$TMP/r.json" "$TMP/exp.json" <<'EOF' || fail "roofline rows differ (above)"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]["roofline"]
exp = json.load(open(sys.argv[2]))
bad = []
def near(a, b, tol=1e-6):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))
if r["device"]["matched"] != "H100 SXM" or r["missing"] != []:
    bad.append(f"device {r['device']} missing {r['missing']}")
got = r["ops"]
if [o["name"] for o in got] != [o["name"] for o in exp["rows"]]:
    bad.append(f"rows {[o['name'] for o in got]} != {[o['name'] for o in exp['rows']]}")
for g, e in zip(got, exp["rows"]):
    for k in ("flops", "bytes", "gpu_time_ns", "count", "headroom_ns", "model", "dtype", "bound"):
        if g[k] != e[k]:
            bad.append(f"{e['name']}: {k} {g[k]} != {e[k]}")
    for k in ("achieved_tflops", "achieved_tbps", "roofline_pct", "peak_tflops"):
        if not near(g[k], e[k]):
            bad.append(f"{e['name']}: {k} {g[k]} != {e[k]}")
for k in ("gpu_time_ns", "modeled_gpu_time_ns", "model_flops", "mfu_window_ns"):
    if r[k] != exp[k]:
        bad.append(f"{k} {r[k]} != {exp[k]}")
if not near(r["mfu_pct"], exp["mfu_pct"]):
    bad.append(f"mfu_pct {r['mfu_pct']} != {exp['mfu_pct']}")
if not near(r["coverage_pct"], 100.0 * exp["modeled_gpu_time_ns"] / exp["gpu_time_ns"]):
    bad.append(f"coverage_pct {r['coverage_pct']}")
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

# the text: the roofs, coverage, MFU and the rows, most headroom first
expect_rc 0 analyze "$TMP/t.json"
out_has "Roofline"
out_has "NVIDIA H100 80GB HBM3 = H100 SXM"
out_has "coverage  81.0% of the ops' GPU time"
sed -n '/^  op .*headroom$/{n;p;q}' "$OUT" | grep -q "aten::mm" ||
	fail "the first row is not aten::mm, the most headroom"

# at 80 columns the block fits (names and shapes cut, numbers kept with their units)
COLUMNS=80 "$GPUPROF" analyze "$TMP/t.json" | sed -n '/^Roofline$/,/^$/p' >"$TMP/block.txt"
grep -q "TFLOP/s" "$TMP/block.txt" || fail "no Roofline block at 80 columns"
no_width_over 80 "$TMP/block.txt"

# options: every dtype at the given peak, source "option"
expect_rc 0 analyze --json --peak-tflops 100 --peak-tbps 2 -o "$TMP/o.json" "$TMP/t.json"
[ "$(json_get "$TMP/o.json" 'd["ranks"][0]["roofline"]["device"]["source"]')" = option ] ||
	fail "source is not 'option'"
[ "$(json_get "$TMP/o.json" '[o["peak_tflops"] for o in d["ranks"][0]["roofline"]["ops"]]')" = \
	"[100, 100, 100]" ] || fail "the rows do not use --peak-tflops"
expect_rc 2 analyze --peak-tflops 0 "$TMP/t.json"
err_has "--peak-tflops"
expect_rc 2 analyze --peak-tbps x "$TMP/t.json"
done_ok

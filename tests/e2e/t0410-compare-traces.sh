#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0410-compare-traces.sh - `gpuprof compare` on HTA's trace_diff pair
# (control vs test, one rank each): the kernel and operator diff is checked
# row by row against tracediff.py, which reads the raw gzip JSON with the
# standard library only; the step-time verdict (6 steps against 6, all of
# test slower: p = 2/924, a regression, exit 3) and its reverse (exit 0);
# a per-table threshold; an analyze report against a trace; the Markdown
# and text shapes; determinism; errors. Skips (77) without ../shared/traces.
. "$(dirname "$0")/lib.sh"
need python3

H="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/hta"
B="$H/trace_diff_control_control.json.gz"
N="$H/trace_diff_test_test.json.gz"
if [ ! -f "$B" ] || [ ! -f "$N" ]; then
	echo "skip: no trace_diff traces under '$H'"
	exit 77
fi
DIFF="$GP_SRC_DIR/tests/e2e/tracediff.py"

# --- the diff against the independent computation
expect_rc 3 compare --json "$B" "$N"
json_ok "$OUT"
cp "$OUT" "$TMP/cmp.json"

# the verdict: step time, 6 complete steps a side, every test step slower
NCHECK=$((NCHECK + 1))
python3 - "$TMP/cmp.json" <<'EOF' || fail "verdict (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpuprof.compare/1" and d["kind"] == "report", d["kind"]
assert d["verdict"] == "regression" and d["regression"] is True
assert d["base"]["input"] == "trace" and d["new"]["input"] == "trace"
g = d["groups"][0]
assert (g["base_rank"], g["new_rank"]) == (3, 1), g["name"]
assert any(w["id"] == "ranks_paired" for w in d["warnings"])
m = {x["metric"]: x for x in g["metrics"]}
s = m["step_time"]
assert s["n_base"] == 6 and s["n_new"] == 6, s
assert s["base"] == 76763500 and s["new"] == 116910000, s
assert abs(s["p"] - 2 / 924) < 1e-6 and s["verdict"] == "slower" and s["regression"], s
assert d["regressions"] == [{"group": "rank 3", "metric": "step_time", "title": "step time",
                             "delta_pct": s["delta_pct"], "p": s["p"]}], d["regressions"]
# totals without samples are never a regression
for k in ("gpu_busy", "gpu_idle_pct", "compute", "communication", "memcpy", "kernel_time"):
    assert m[k]["samples"] is False and m[k]["p"] is None and not m[k]["regression"], m[k]
assert m["gpu_busy"]["base"] == 388587000 and m["gpu_busy"]["new"] == 717943000
assert m["kernel_time"]["base"] == g["kernels"]["base_total_ns"]
ids = [e["id"] for e in g["explanations"]]
assert "top_kernels" in ids and "gpu_time_by_type" in ids and "gpu_idle" in ids, ids
EOF

# the reverse: the same step change is an improvement, exit 0
expect_rc 0 compare "$N" "$B"
out_has "improvement: step time -34.3%"
out_has "== rank 1 (new: rank 3)"

# a per-table threshold: tracediff.py reads it from the output's threshold_pct
expect_rc 3 compare --json --threshold-for kernels=50 --threshold-for operators=1 "$B" "$N"
cp "$OUT" "$TMP/cmp50.json"
[ "$(json_get "$TMP/cmp50.json" 'd["groups"][0]["kernels"]["threshold_pct"]')" = 50 ] ||
	fail "kernels threshold"

# an analyze report against a trace: the same diff
"$GPUPROF" analyze --json "$B" -o "$TMP/base-report.json" || fail "analyze"
expect_rc 3 compare --json "$TMP/base-report.json" "$N"
[ "$(json_get "$OUT" 'd["base"]["input"]')" = report ] || fail "base input"
cp "$OUT" "$TMP/cmp-report.json"

# the three diffs against the independent computation from the raw traces
NCHECK=$((NCHECK + 1))
python3 "$DIFF" "$B" "$N" "$TMP/cmp.json" "$TMP/cmp50.json" "$TMP/cmp-report.json" ||
	fail "the diff differs from tracediff.py (above)"
# a report trimmed with --top: a warning, and the diff says it is incomplete
"$GPUPROF" analyze --json --top 5 "$B" -o "$TMP/top5.json" || fail "analyze --top"
expect_rc 3 compare --json "$TMP/top5.json" "$N"
[ "$(json_get "$OUT" 'd["groups"][0]["kernels"]["complete"]')" = False ] || fail "complete"
[ "$(json_get "$OUT" '[w["id"] for w in d["warnings"]].count("table_trimmed")')" = 2 ] ||
	fail "trimmed warnings"

# --- the text and Markdown shapes
expect_rc 3 compare "$B" "$N"
cp "$OUT" "$TMP/text"
[ "$(head -n 1 "$OUT")" = "regression: step time +52.3% (p = 0.0022) on rank 3" ] ||
	fail "first line of the text"
out_has "step time               76.76 ms     116.91 ms    +52.3% 1.523 ["
out_has "20 of 197 rows, by |delta total|"
# one percent style in every command (analyze's, bench's, the page's): "52.3%", never "52.3 %"
NCHECK=$((NCHECK + 1))
grep -nE '[0-9] %' "$OUT" && fail "a percentage with a space before '%' (above)"
out_has "threshold 5%"
out_has "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"
# prose (the inputs, the tables' summaries, why, warnings) wraps at 100 columns, a number
# never apart from its unit; only the tables' rows may be wider
python3 - "$OUT" <<'EOF' || fail "the text's prose is not wrapped (above)"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
row = re.compile(r"^(  (added|removed|slower|faster|same|status) |metric |\S.* (faster|slower|same|inconclusive|better|worse|slower \(REGRESSION\))$)")
wide = [l for l in lines if len(l) > 100 and not row.match(l)]
assert not wide, wide
assert any(l.startswith("why:") for l in lines) and any(l.startswith("    ") for l in lines), lines
cut = [l for l in lines if re.match(r"^\s+(ms|µs|ns|s|%)\b", l)]
assert not cut, cut
EOF
expect_rc 3 compare --top 0 "$B" "$N"
# the kernel and operator rows (the critical path, module and op diffs follow them)
[ "$(sed '/^\(critical path\|modules\|ops (roofline)\): /,$d' "$OUT" |
	grep -c '^  \(added\|removed\|slower\|faster\|same\) ')" -eq $((197 + 179)) ] ||
	fail "--top 0 shows every row"
expect_rc 3 compare --markdown --top 3 "$B" "$N"
NCHECK=$((NCHECK + 1))
grep -nE '[0-9] %' "$OUT" && fail "Markdown: a percentage with a space before '%' (above)"
python3 - "$OUT" <<'EOF' || fail "markdown (above)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert lines[0] == "### gpuprof compare: regression", lines[0]
assert lines[2] == "**regression: step time +52.3% (p = 0.0022) on rank 3**", lines[2]
assert lines[4].startswith("base `") and "(trace) -> new `" in lines[4], lines[4]
i = lines.index("#### rank 3 (new: rank 1)")
assert lines[i + 2] == "| metric | base | new | Δ | ratio [95% CI] | p | n | verdict |", lines[i + 2]
assert lines[i + 3] == "|---|---:|---:|---:|---|---:|---:|---|"
assert lines[i + 4].startswith("| step time | 76.76 ms | 116.91 ms | +52.3% | 1.523 ["), lines[i + 4]
assert lines[i + 4].endswith("| 0.0022 | 6/6 | **slower (regression)** |"), lines[i + 4]
alld = [l for l in lines if l.startswith("<details><summary>")]
# the kernel and operator diffs (then the module and op diffs where the reports have them)
det = [l for l in alld if not l.startswith(("<details><summary>modules:", "<details><summary>ops (roofline):"))]
assert len(det) == 2 and det[0].startswith("<details><summary>kernels: 170 names"), det
assert lines.count("</details>") == len(alld)
k = lines.index("| status | calls | base total | new total | Δ total | per call | p | name |")
rows = lines[k + 2:k + 5]
assert all(r.count(" | ") == 7 and r.startswith("| ") and r.endswith("` |") for r in rows), rows
# p: Welch's t of the per-call time over the 18 and 21 calls (not significant)
assert rows[1].startswith("| slower | 18 -> 21 | 32.88 ms | 92.08 ms | +59.20 ms | +140.0% | 0.0575 | `ncclKernel_AllReduce"), rows[1]
assert lines[k + 6] == "3 of 197 rows, by |delta total|; --top 0 or --json for all", lines[k + 6]
assert "**why**" in lines and "**warnings**" in lines
EOF

# deterministic
expect_rc 3 compare "$B" "$N"
cmp -s "$OUT" "$TMP/text" || fail "two runs differ"
# -o: written atomically, still exit 3
expect_rc 3 compare --json -o "$TMP/o.json" "$B" "$N"
out_empty
cmp -s "$TMP/o.json" "$TMP/cmp.json" || fail "-o differs from stdout"

# --- errors
expect_rc 1 compare --rank 5 "$B" "$N"
err_one_line
err_has "rank 5"
err_has "$B"
expect_rc 1 compare "$B" "$TMP/missing.json.gz"
err_one_line
err_has "'$TMP/missing.json.gz'"
expect_rc 2 compare "$B"
expect_rc 2 compare --threshold 0 "$B" "$N"
expect_rc 2 compare --threshold-for kernel=5 "$B" "$N"
err_has "no metric 'kernel'"
done_ok

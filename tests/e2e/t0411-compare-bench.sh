#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0411-compare-bench.sh - `gpuprof compare` on bench results ("gpuprof.bench/1")
# that python3 writes: identical (same, exit 0), a 20 % slowdown with 30
# samples (a regression, exit 3), 4 samples a side (+20 %: slower by Welch's t, exit 3),
# a throughput-only improvement (twice the batch in the same time), one
# series a side with other names (paired, with a warning), a warm-up on one
# side only, per-metric thresholds, the Markdown shape, and the errors:
# malformed JSON (exit 1, the file named), bench against report (exit 1).
. "$(dirname "$0")/lib.sh"
need python3

# bench FILE NAME N MEDIAN_NS [BATCH [WARMUP [TAGS_JSON]]]: a bench result with one series
bench() {
	python3 - "$@" <<'EOF' || fail "writing '$1'"
import json, sys
path, name, n, t = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
batch = float(sys.argv[5]) if len(sys.argv) > 5 else 1
warmup = int(sys.argv[6]) if len(sys.argv) > 6 else 3
tags = json.loads(sys.argv[7]) if len(sys.argv) > 7 else {}
# a little spread, the same on every run: t * (1 + 0.002 * (i % 5))
times = [t * (1 + 0.002 * (i % 5)) for i in range(n)]
doc = {"schema": "gpuprof.bench/1", "gpuprof_version": "0.1.0", "tags": tags,
       "source": {"kind": "command", "args": name.split()}, "seed": 1,
       "series": [{"name": name, "rate_name": "runs/s", "batch_size": batch,
                   "warmup": warmup, "n": n, "times_ns": times, "gpu_ns": None,
                   "peak_memory_bytes": None, "warnings": []}]}
json.dump(doc, open(path, "w"), indent=1)
EOF
}

bench "$TMP/a.json" "sleep 0.02" 30 20000000
bench "$TMP/a2.json" "sleep 0.02" 30 20000000
bench "$TMP/slow.json" "sleep 0.02" 30 24000000
bench "$TMP/a4.json" "sleep 0.02" 4 20000000
bench "$TMP/slow4.json" "sleep 0.02" 4 24000000
bench "$TMP/batch2.json" "sleep 0.02" 30 20000000 2
bench "$TMP/other.json" "sleep 0.03" 30 30000000
bench "$TMP/nowarm.json" "sleep 0.02" 30 20000000 1 0
bench "$TMP/fp16.json" "sleep 0.02" 30 16000000 1 3 '{"dtype": "fp16"}'

# identical: same, exit 0
expect_rc 0 compare "$TMP/a.json" "$TMP/a2.json"
[ "$(head -n 1 "$OUT")" = "same: no significant change of 5% or more (alpha 0.01)" ] ||
	fail "first line"
out_has "== series 'sleep 0.02'"
out_has "time"
expect_rc 0 compare --json "$TMP/a.json" "$TMP/a2.json"
json_ok "$OUT"
[ "$(json_get "$OUT" '(d["verdict"], d["regression"], [m["verdict"] for m in d["groups"][0]["metrics"]])')" = \
	"('same', False, ['same', 'same'])" ] || fail "identical verdicts"

# 20 % slower with 30 samples a side: a regression, exit 3
expect_rc 3 compare --json "$TMP/a.json" "$TMP/slow.json"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "regression (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "bench" and d["verdict"] == "regression" and d["regression"] is True
m = {x["metric"]: x for x in d["groups"][0]["metrics"]}
t = m["time"]
assert t["verdict"] == "slower" and t["regression"] and t["unit"] == "ns", t
assert abs(t["delta_pct"] - 20) < 1e-6 and abs(t["ratio"] - 1.2) < 1e-9, t
assert t["ratio_lo"] <= 1.2 <= t["ratio_hi"] and t["p"] < 1e-6, t
assert t["n_base"] == 30 and t["n_new"] == 30 and t["samples"] is True
r = m["throughput"]
assert r["verdict"] == "slower" and r["better"] == "higher" and r["unit"] == "runs/s", r
assert abs(r["base"] - 1e9 / 20080000) < 1e-6, r  # the median of batch / t: t * 1.004
assert [x["metric"] for x in d["regressions"]] == ["time", "throughput"], d["regressions"]
assert d["summary"].startswith("regression: time +20.0% (p < 0.0001) for 'sleep 0.02'"), d["summary"]
EOF
expect_rc 3 compare "$TMP/a.json" "$TMP/slow.json"
out_has "slower (REGRESSION)"
# the same with the threshold of time above 20 %: throughput (-16.7 %) still regresses
expect_rc 3 compare --json --threshold-for time=25 "$TMP/a.json" "$TMP/slow.json"
[ "$(json_get "$OUT" '[m["verdict"] for m in d["groups"][0]["metrics"]]')" = "['same', 'slower']" ] ||
	fail "time=25"
expect_rc 0 compare --threshold 25 "$TMP/a.json" "$TMP/slow.json"
# the other way round: faster, exit 0
expect_rc 0 compare "$TMP/slow.json" "$TMP/a.json"
out_has "improvement: time -16.7%"

# 4 samples a side, +20 %: too few for the rank test (2 / C(8, 4) = 0.029 >= alpha),
# so Welch's t on the log times decides: slower, exit 3 (issue 21, item 7)
expect_rc 3 compare --json "$TMP/a4.json" "$TMP/slow4.json"
[ "$(json_get "$OUT" '(d["verdict"], d["groups"][0]["metrics"][0]["verdict"], d["groups"][0]["metrics"][0]["test"], d["groups"][0]["metrics"][0]["reason"])')" = \
	"('regression', 'slower', 'welch_t_log', None)" ] ||
	fail "4 samples"
expect_rc 3 compare "$TMP/a4.json" "$TMP/slow4.json"
head -n 1 "$OUT" | grep -q "^regression: time +20.0% (p < 0.0001) for 'sleep 0.02'" ||
	fail "regression line"
out_has "time and throughput: 4 and 4 values, too few for the rank test: Welch's t-test on the log"
# --min-samples 5 asks for 5 a side: inconclusive, exit 0
expect_rc 0 compare --json --min-samples 5 "$TMP/a4.json" "$TMP/slow4.json"
[ "$(json_get "$OUT" '(d["verdict"], d["groups"][0]["metrics"][0]["reason"])')" = \
	"('inconclusive', 'too few samples: 4 and 4, at least 5 per side needed')" ] ||
	fail "min samples"
# the same 4 values a side: the 95 % interval is inside +-5 %: same, exit 0
expect_rc 0 compare --json "$TMP/a4.json" "$TMP/a4.json"
[ "$(json_get "$OUT" '(d["verdict"], d["groups"][0]["metrics"][0]["verdict"])')" = \
	"('same', 'same')" ] || fail "same 4"

# throughput only: twice the batch in the same time
expect_rc 0 compare --json "$TMP/a.json" "$TMP/batch2.json"
[ "$(json_get "$OUT" '(d["verdict"], [(m["metric"], m["verdict"]) for m in d["groups"][0]["metrics"]])')" = \
	"('improvement', [('time', 'same'), ('throughput', 'faster')])" ] || fail "throughput only"
[ "$(json_get "$OUT" '"%.6f" % d["groups"][0]["metrics"][1]["delta_pct"]')" = 100.000000 ] ||
	fail "throughput delta"
[ "$(json_get "$OUT" '[w["id"] for w in d["warnings"]]')" = "['batch_differs']" ] ||
	fail "batch warning"

# one series a side with other names: paired, and said so
expect_rc 3 compare --json "$TMP/a.json" "$TMP/other.json"
[ "$(json_get "$OUT" '(d["groups"][0]["base_series"], d["groups"][0]["new_series"], d["warnings"][0]["id"])')" = \
	"('sleep 0.02', 'sleep 0.03', 'series_paired')" ] || fail "pairing"
expect_rc 3 compare "$TMP/a.json" "$TMP/other.json"
out_has "== series 'sleep 0.02' (new: 'sleep 0.03')"
out_has "each side has one series: 'sleep 0.02' (base) is compared with 'sleep 0.03' (new)"

# a warm-up on one side only
expect_rc 0 compare "$TMP/a.json" "$TMP/nowarm.json"
out_has "series 'sleep 0.02': new has no warm-up and base has 3 iterations"

# fp32 -> fp16 tag and a 1.25x speedup: the reduced-precision explanation
expect_rc 0 compare --json "$TMP/a.json" "$TMP/fp16.json"
[ "$(json_get "$OUT" '[e["id"] for e in d["groups"][0]["explanations"]]')" = "['reduced_precision']" ] ||
	fail "fp16 explanation"
[ "$(json_get "$OUT" 'd["tag_changes"]')" = "[{'base': None, 'key': 'dtype', 'new': 'fp16'}]" ] ||
	fail "tag changes"

# --markdown: a summary line with the verdict, then a table
expect_rc 3 compare --markdown "$TMP/a.json" "$TMP/slow.json"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "markdown (above)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert lines[0] == "### gpuprof compare: regression", lines[0]
assert lines[2].startswith("**regression: time +20.0% (p < 0.0001) for 'sleep 0.02'"), lines[2]
assert lines[2].endswith("**"), lines[2]
i = lines.index("#### series `sleep 0.02`")
head = lines[i + 2]
assert head == "| metric | base | new | Δ | ratio [95% CI] | p | n | verdict |", head
assert lines[i + 3] == "|---|---:|---:|---:|---|---:|---:|---|"
t, r = lines[i + 4], lines[i + 5]
assert t.startswith("| time | 20.08 ms | 24.10 ms | +20.0% | 1.200 ["), t
assert t.endswith("| <0.0001 | 30/30 | **slower (regression)** |"), t
assert r.startswith("| throughput | 49.80 runs/s | 41.50 runs/s | -16.7% |"), r
for row in (t, r):
    assert row.count("|") == head.count("|"), row
assert lines[-1] != "" or lines[-2] != "", "ends with one newline"
EOF
expect_rc 0 compare --markdown "$TMP/a.json" "$TMP/a2.json"
[ "$(head -n 1 "$OUT")" = "### gpuprof compare: same" ] || fail "markdown same"
expect_rc 2 compare --markdown --json "$TMP/a.json" "$TMP/a2.json"

# --- errors: one line naming the file, exit 1
printf '{"schema": "gpuprof.bench/1", "series": [{"name": "s", "times_ns": [1, 2,' >"$TMP/trunc.json"
expect_rc 1 compare "$TMP/a.json" "$TMP/trunc.json"
err_one_line
err_has "'$TMP/trunc.json'"
out_empty
printf '{"schema": "gpuprof.bench/1", "series": [{"name": "s", "times_ns": [1, "x"]}]}' \
	>"$TMP/bad.json"
expect_rc 1 compare "$TMP/bad.json" "$TMP/a.json"
err_one_line
err_has "gpuprof: error: '$TMP/bad.json': series[0].times_ns[1] is not a number of 0 or more"
printf 'not json at all\n' >"$TMP/garbage.json"
expect_rc 1 compare "$TMP/a.json" "$TMP/garbage.json"
err_has "$TMP/garbage.json"
printf '{"schema": "gpuprof.other/3"}' >"$TMP/other-schema.json"
expect_rc 1 compare "$TMP/a.json" "$TMP/other-schema.json"
err_has "schema 'gpuprof.other/3' is not one that compare reads"

# bench against report: exit 1, both named
python3 - "$TMP/report.json" <<'EOF' || fail "writing the report"
import json, sys
json.dump({"schema": "gpuprof.analyze/1", "compat": "none", "tags": {},
           "ranks": [{"rank": 0, "kernels": [], "cpu_ops": [], "steps": []}]},
          open(sys.argv[1], "w"))
EOF
expect_rc 1 compare "$TMP/a.json" "$TMP/report.json"
err_one_line
err_has "cannot compare a bench result ('$TMP/a.json') with an analyze report ('$TMP/report.json')"
expect_rc 1 compare "$TMP/report.json" "$TMP/a.json"
err_has "cannot compare a bench result ('$TMP/a.json')"

# the docs
expect_rc 0 help compare
out_has "gpuprof.compare/1"
expect_rc 0 compare -h
out_has "usage: gpuprof compare [options] BASE NEW"
done_ok

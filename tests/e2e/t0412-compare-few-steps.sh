#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0412-compare-few-steps.sh - `gpuprof compare` on the few steps of a profiled
# run (schedule(active=3..5); issue 21, item 7) and on runs that are not alike.
# Synthetic traces written here: 4 steps 55 % slower is a regression (exit 3) in
# every output, decided by Welch's t on the log step times with its interval of
# the ratio; 40 pairs of the same code with noise (2 to 5 steps a side) are never
# a regression; a pair on other GPUs, world sizes and precisions warns of each in
# the text, the JSON, the Markdown and the page (headless Chromium, when there);
# the explanations are sentences. Then HTA's trace_diff pair cut to 3 and 4
# steps (slower, exit 3), trace_filter's two ranks (the same code, 2 steps: no
# regression) and a trace against itself (same). The real traces are skipped
# when ../shared/traces is absent.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"

# gen.py FILE GPU WORLD DTYPE SEED NOISE STEP_MS...: a Kineto trace with one
# ProfilerStep per STEP_MS (times lognormal noise of sigma NOISE, seeded), each
# with a launch and a kernel of 80 % of the step whose name shows DTYPE
cat >"$TMP/gen.py" <<'EOF'
import json, math, random, sys

def write(path, gpu, world, dtype, seed, noise, steps):
    rng = random.Random(int(seed))
    ev, t, cid = [], 1000, 1
    for k, ms in enumerate(steps):
        dur = int(float(ms) * 1000 * math.exp(rng.gauss(0, float(noise))))  # us
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (10 + k),
                   "pid": 100, "tid": 100, "ts": t, "dur": dur, "args": {"External id": cid}})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100,
                   "ts": t + 10, "dur": 40, "args": {"External id": cid + 1}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
                   "tid": 100, "ts": t + 20, "dur": 10,
                   "args": {"External id": cid + 1, "correlation": cid + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "void gemm_kernel<%s, %s>(%s const*)" %
                   (dtype, dtype, dtype), "pid": 0, "tid": 7, "ts": t + 50,
                   "dur": int(dur * 0.8), "args": {"External id": cid + 1, "device": 0,
                   "stream": 7, "correlation": cid + 1}})
        t += dur + 5
        cid += 2
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": gpu, "totalGlobalMem": 85018279936,
                                 "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": int(world)},
           "traceEvents": ev}
    json.dump(doc, open(path, "w"))

if __name__ == "__main__":
    write(*sys.argv[1:7], sys.argv[7:])
EOF
trace() {
	python3 "$TMP/gen.py" "$@" || fail "writing '$1'"
}

A100="NVIDIA A100-SXM4-80GB"
# --- 4 steps, 55 % slower: a regression, exit 3, in every output
trace "$TMP/base4.json" "$A100" 8 float 1 0.01 10 10 10 10
trace "$TMP/slow4.json" "$A100" 8 float 2 0.01 15.5 15.5 15.5 15.5
expect_rc 3 compare --json "$TMP/base4.json" "$TMP/slow4.json"
json_ok "$OUT"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "4 steps, 55 % slower (above)"
import json, sys
d = json.load(open(sys.argv[1]))
s = [m for m in d["groups"][0]["metrics"] if m["metric"] == "step_time"][0]
assert (s["n_base"], s["n_new"]) == (4, 4), s
assert s["test"] == "welch_t_log" and s["p"] < 0.01, s
assert 1.45 < s["ratio"] < 1.65 and 1.05 < s["ratio_lo"] <= s["ratio"] <= s["ratio_hi"], s
assert s["verdict"] == "slower" and s["regression"] and s["reason"] is None, s
assert d["verdict"] == "regression" and d["regression"] is True, d["verdict"]
assert d["options"]["min_samples"] == 2, d["options"]
# the same GPU, world size and precision: nothing to warn of
assert not [w for w in d["warnings"] if w["id"].endswith("_differs")], d["warnings"]
EOF
expect_rc 3 compare "$TMP/base4.json" "$TMP/slow4.json"
head -n 1 "$OUT" | grep -Eq "^regression: step time \+5[0-9]\.[0-9]% \(p (< 0\.0001|= 0\.00[0-9]+)\) on rank 0$" ||
	fail "summary line: $(head -n 1 "$OUT")"
grep -q "^step time .* slower (REGRESSION)$" "$OUT" || fail "text verdict"
out_has "step time: 4 and 4 values, too few for the rank test: Welch's t-test on the log values"
expect_rc 3 compare --markdown "$TMP/base4.json" "$TMP/slow4.json"
out_has "### gpuprof compare: regression"
out_has "**slower (regression)**"
expect_rc 3 compare -o "$TMP/cmp4.json" --json "$TMP/base4.json" "$TMP/slow4.json"
out_empty
# the other way round: faster, exit 0; with --min-samples 5: too few, exit 0
expect_rc 0 compare "$TMP/slow4.json" "$TMP/base4.json"
head -n 1 "$OUT" | grep -q "^improvement: step time -3[0-9]\.[0-9]%" || fail "improvement"
expect_rc 0 compare --min-samples 5 "$TMP/base4.json" "$TMP/slow4.json"
out_has "too few samples: 4 and 4, at least 5 per side needed"

# --- the same code with noise: never a regression (2 to 5 steps a side, 2 % noise)
NPAIRS=40
python3 - "$TMP" "$NPAIRS" <<'EOF' || fail "writing the noise pairs"
import sys
sys.path.insert(0, sys.argv[1])
import gen
for i in range(1, int(sys.argv[2]) + 1):
    n = 2 + i % 4
    for side, seed in (("a", 100 + i), ("b", 200 + i)):
        gen.write("%s/n%d%s.json" % (sys.argv[1], i, side), "NVIDIA A100-SXM4-80GB", 8,
                  "float", seed, 0.02, [10] * n)
EOF
NCHECK=$((NCHECK + 1))
for i in $(seq 1 "$NPAIRS"); do
	"$GPUPROF" compare --json "$TMP/n${i}a.json" "$TMP/n${i}b.json" >"$TMP/n$i.out" 2>"$ERR"
	rc=$?
	[ "$rc" -eq 0 ] || fail "noise pair $i exited $rc"
done
python3 - "$TMP" "$NPAIRS" <<'EOF' || fail "noise pairs (above)"
import collections, json, sys
seen = collections.Counter()
for i in range(1, int(sys.argv[2]) + 1):
    d = json.load(open("%s/n%d.out" % (sys.argv[1], i)))
    s = d["groups"][0]["metrics"][0]
    assert d["verdict"] in ("same", "inconclusive") and not s["regression"], (i, d["summary"])
    seen[(s["n_base"], d["verdict"])] += 1
# with 4 and 5 steps of 2 % noise, the interval rules out 5 %: some are "same"
assert sum(v for (n, verdict), v in seen.items() if verdict == "same") > 0, seen
print("noise pairs:", dict(seen))
EOF

# --- runs that are not alike: other GPU, world size and precision, in every output
trace "$TMP/h100.json" "NVIDIA H100 80GB HBM3" 2 c10::BFloat16 3 0.01 8 8 8 8
expect_rc 0 compare --json "$TMP/base4.json" "$TMP/h100.json"
[ "$(json_get "$OUT" 'sorted(w["id"] for w in d["warnings"])')" = \
	"['gpu_differs', 'precision_differs', 'world_size_differs']" ] || fail "warning ids"
cp "$OUT" "$TMP/unlike.json"
for fmt in "" --markdown; do
	# shellcheck disable=SC2086
	expect_rc 0 compare $fmt "$TMP/base4.json" "$TMP/h100.json"
	out_has "the runs are on different GPUs (base $A100, new NVIDIA H100 80GB HBM3)"
	out_has "the world size differs (base 8 ranks, new 2)"
	out_has "mostly fp32 in base (100%"
	out_has "mostly bf16 in new (100%)"
done

# --- the explanations are sentences, not lists of keys
expect_rc 0 compare "$TMP/base4.json" "$TMP/h100.json"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/unlike.json" <<'EOF' || fail "explanations (above)"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
ex = [e["text"] for g in d["groups"] for e in g["explanations"]]
assert len(ex) >= 2, ex
for t in ex:
    assert not t[0].islower() and t.endswith("."), t
    assert not re.search(r"\b(cpu_exec|COMPUTATION|MEMORY|delta_|_ns)\b", t), t
# in the text, as paragraphs under "why:"
assert "why:\n  - The mean step time fell from 10." in text, text
EOF

# --- the page: the warnings are there, the explanations are sentences without a dump
expect_rc 0 report -q -o "$TMP/unlike.html" "$TMP/unlike.json"
if python3 -c "import sys; sys.path.insert(0, '$E'); import cdp; sys.exit(0 if cdp.find_chromium() else 1)"; then
	NCHECK=$((NCHECK + 1))
	python3 - "$E" "$TMP/unlike.html" "$TMP/unlike.json" <<'EOF' || fail "the page (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import cdp
JS = """(function () {
  return Array.prototype.slice.call(document.querySelectorAll('[data-gp-finding]')).map(function (e) {
    var ev = e.querySelector('.gp-evidence');
    return { id: e.getAttribute('data-gp-finding'), severity: e.getAttribute('data-severity'),
             title: e.querySelector('.gp-title').textContent, evidence: ev ? ev.textContent : null };
  });
})()"""
r = cdp.run(sys.argv[2], timeout=60, eval_expr=JS)
assert r["state"] == "ok" and r["errors"] == [] and r["requests"] == [], r
f = r["value"]
d = json.load(open(sys.argv[3]))
warn = {x["id"]: x["title"] for x in f if x["severity"] == "warning"}
for w in d["warnings"]:
    assert warn.get(w["id"]) == w["text"], (w, warn)
assert "different GPUs" in warn["gpu_differs"] and "world size" in warn["world_size_differs"]
ex = [e for g in d["groups"] for e in g["explanations"]]
shown = [x for x in f if x["severity"] == "info" and x["id"] != "tag_change"]
assert [x["title"] for x in shown] == [e["text"] for e in ex], (shown, ex)
for x in shown:
    assert x["evidence"] is None, ("an evidence dump on the page", x)
EOF
else
	echo "note: no chromium, the page check is left out"
fi

# --- the real traces
H="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/hta"
if [ ! -f "$H/trace_diff_control_control.json.gz" ] || [ ! -f "$H/trace_diff_test_test.json.gz" ]; then
	echo "note: no trace_diff traces under '$H': the real pairs are left out"
	done_ok
fi
# trace_diff: A100 rank 3 of 8 against V100 rank 1 of 2, 6 steps each, cut to fewer
"$GPUPROF" analyze --json --top 0 "$H/trace_diff_control_control.json.gz" >"$TMP/ctl.json" ||
	fail "analyze control"
"$GPUPROF" analyze --json --top 0 "$H/trace_diff_test_test.json.gz" >"$TMP/tst.json" ||
	fail "analyze test"
python3 - "$TMP" <<'EOF' || fail "cutting steps"
import json, sys
tmp = sys.argv[1]
for side in ("ctl", "tst"):
    d = json.load(open("%s/%s.json" % (tmp, side)))
    for name, a, b in (("3", 1, 4), ("4", 0, 4), ("0", 0, 3)):
        e = json.loads(json.dumps(d))
        e["ranks"][0]["steps"] = e["ranks"][0]["steps"][a:b]
        json.dump(e, open("%s/%s%s.json" % (tmp, side, name), "w"))
EOF
for n in 3 4; do
	expect_rc 3 compare --json "$TMP/ctl$n.json" "$TMP/tst$n.json"
	NCHECK=$((NCHECK + 1))
	python3 - "$OUT" "$n" <<'EOF' || fail "trace_diff cut to $n steps (above)"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
s = d["groups"][0]["metrics"][0]
assert s["metric"] == "step_time" and (s["n_base"], s["n_new"]) == (n, n), s
assert s["test"] == "welch_t_log" and s["verdict"] == "slower" and s["regression"], s
assert 1.4 < s["ratio"] < 1.65 and s["ratio_lo"] > 1.05, s
ids = [w["id"] for w in d["warnings"]]
assert "gpu_differs" in ids and "world_size_differs" in ids, ids
assert "precision_differs" not in ids, ids  # fp32 on both
EOF
done
# the first 3 steps (a slow warm-up on the test side): p = 0.035 and its 95 % interval
# excludes 1, yet not significant at alpha 0.01: the reason says why, no contradiction
expect_rc 0 compare --json "$TMP/ctl0.json" "$TMP/tst0.json"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "trace_diff's first 3 steps (above)"
import json, sys
s = json.load(open(sys.argv[1]))["groups"][0]["metrics"][0]
assert s["test"] == "welch_t_log" and s["verdict"] == "inconclusive" and 0.01 <= s["p"] < 0.05, s
assert s["ratio_lo"] > 1, s
assert "the 95 % interval excludes 1, which is evidence at the 95 % level only" in s["reason"], s
EOF
expect_rc 3 compare "$H/trace_diff_control_control.json.gz" "$H/trace_diff_test_test.json.gz"
out_has "rank 3: the runs are on different GPUs (base NVIDIA A100-PG509-200, new Tesla V100-SXM2-16GB)"
out_has "rank 3: the world size differs (base 8 ranks, new 2)"
# trace_filter: two ranks of the same run, 2 steps each: no regression, no false alarm
F0="$H/trace_filter_sampled_rank-0.json.gz" F1="$H/trace_filter_sampled_rank-1.json.gz"
if [ -f "$F0" ] && [ -f "$F1" ]; then
	expect_rc 0 compare --json "$F0" "$F1"
	[ "$(json_get "$OUT" '(d["verdict"], d["groups"][0]["metrics"][0]["verdict"], d["groups"][0]["metrics"][0]["test"])')" = \
		"('inconclusive', 'inconclusive', 'welch_t_log')" ] || fail "trace_filter ranks"
fi
# a trace against itself (3 steps): the same
C="$H/nccl_parser_config_nccl_data.json.gz"
if [ -f "$C" ]; then
	expect_rc 0 compare --json "$C" "$C"
	[ "$(json_get "$OUT" '(d["verdict"], d["groups"][0]["metrics"][0]["verdict"])')" = \
		"('same', 'same')" ] || fail "a trace against itself"
fi
done_ok

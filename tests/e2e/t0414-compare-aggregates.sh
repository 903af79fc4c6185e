#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0414-compare-aggregates.sh - `gpuprof compare` of two gpuprof.aggregate/1 documents
# (aggpage_doc.py writes them as `gpuprof aggregate --json` does): a run 20 % slower on every
# rank is a regression (exit 3) on the job's step time tested over the ranks' step means
# (Mann-Whitney U, 8 and 8 values), a faster one an improvement (exit 0) with the straggler
# explained, a rerun of the same job no regression; the job's lines (slowest rank's step,
# total wait, top straggler's blame), busbw per (process group, collective) and the ranks
# matched by number carry the documents' numbers; the JSON has the documented shape;
# --threshold-for, --rank and --markdown apply; ranks on one side, another world size and
# a desynchronisation are warnings; an aggregate against an analyze report, a bench result
# or a trace, and a directory of two aggregates, are errors naming the files; 1,024 ranks
# compare and the text lists the top ranks only. The same on real aggregates (gpuprof aggregate
# of ranks bench/gen-ranks.py wrote): a straggler twice as slow is a regression naming it, the
# job against itself is "same", another seed (other bucket sizes) no regression with the
# sizes named (collective_bytes_differ), one rank fewer a warning.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
cd "$TMP" || exit 1

A="python3 $E/aggpage_doc.py"
$A base.json --ranks 8 || fail "aggdoc"
$A worse.json --ranks 8 --seed 2 --scale 1.2 || fail "aggdoc"
$A better.json --ranks 8 --seed 3 --scale 0.85 --straggler-ms 4 || fail "aggdoc"
$A same.json --ranks 8 --seed 4 || fail "aggdoc"
$A six.json --ranks 6 --seed 5 --desync || fail "aggdoc"

# --- worse: a regression, exit 3, the lines named
expect_rc 3 compare base.json worse.json
out_has "regression: step time (rank means) +"
out_has "base 'base.json' (aggregate) -> new 'worse.json' (aggregate)"
for l in "== job" "step time (rank means)" "slowest rank's mean step" "wait (per rank)" "total wait" \
	"exposed comm (per rank)" "top straggler's blame" "== collectives" "busbw allreduce (pg 0)" \
	"busbw allgather (pg 0)" "busbw reduce_scatter (pg 1)" "== ranks" "8 of 8 ranks"; do
	out_has "$l"
done
run compare --json -o worse-cmp.json base.json worse.json
[ "$RC" -eq 3 ] || fail "compare --json -o: exit $RC, expected 3"
NCHECK=$((NCHECK + 1))
python3 - <<'EOF' || fail "the JSON of two aggregates (above)"
import json, math, statistics
b, n, d = (json.load(open(f)) for f in ("base.json", "worse.json", "worse-cmp.json"))

# the documented shape (docs/cli/gpuprof-compare.md, JSON)
TOP = {"schema", "gpuprof_version", "kind", "base", "new", "options", "verdict", "regression",
       "regressions", "summary", "groups", "unmatched", "tag_changes", "warnings"}
assert TOP <= set(d), TOP - set(d)
assert d["schema"] == "gpuprof.compare/1" and d["kind"] == "aggregate", d["kind"]
assert d["base"] == {"path": "base.json", "input": "aggregate", "tags": {}}, d["base"]
assert d["new"]["input"] == "aggregate"
METRIC = {"metric": str, "title": str, "unit": str, "better": str, "samples": bool, "statistic": str,
          "n_base": (int, type(None)), "n_new": (int, type(None)), "base": (int, float), "new": (int, float),
          "delta": (int, float), "delta_pct": (int, float, type(None)), "ratio": (int, float, type(None)),
          "ratio_lo": (int, float, type(None)), "ratio_hi": (int, float, type(None)), "p": (int, float, type(None)),
          "threshold_pct": (int, float), "verdict": str, "reason": (str, type(None)),
          "direction": (str, type(None)), "regression": bool}
for g in d["groups"]:
    assert isinstance(g["name"], str) and isinstance(g["explanations"], list), g
    for m in g["metrics"]:
        for k, t in METRIC.items():
            assert k in m and isinstance(m[k], t), (g["name"], m["metric"], k, m.get(k))
        assert m["verdict"] in ("faster", "slower", "better", "worse", "same", "inconclusive"), m
        assert m["samples"] == (m["statistic"] == "median") and (m.get("test") is not None or m["p"] is None), m
        assert m["regression"] == (m["verdict"] in ("slower", "worse")) or not m["samples"], m

groups = {g["name"]: g for g in d["groups"]}
assert [g["name"] for g in d["groups"]] == ["job", "collectives"] + ["rank %d" % r["rank"] for r in b["ranks"]]
job = {m["metric"]: m for m in groups["job"]["metrics"]}
assert list(job) == ["step_time", "max_step_mean", "wait", "total_wait", "exposed_comm", "straggler_blame"], list(job)

# the job's step time: the ranks' step means as samples, every new rank slower: the rank test
s = job["step_time"]
assert s["samples"] and s["n_base"] == 8 and s["n_new"] == 8 and s["test"] == "mann_whitney", s
assert s["base"] == statistics.median(r["step_mean_ns"] for r in b["ranks"]), s
assert s["new"] == statistics.median(r["step_mean_ns"] for r in n["ranks"]), s
assert abs(s["p"] - 2 / math.comb(16, 8)) <= 1e-6, s["p"]  # six decimals in the JSON
assert s["verdict"] == "slower" and s["regression"], s
assert {"group": "job", "metric": "step_time", "title": s["title"], "delta_pct": s["delta_pct"], "p": s["p"]} in d["regressions"], d["regressions"]
assert d["verdict"] == "regression" and d["regression"] is True
# one value a side: never a regression
assert job["max_step_mean"]["base"] == max(r["step_mean_ns"] for r in b["ranks"])
assert job["max_step_mean"]["new"] == max(r["step_mean_ns"] for r in n["ranks"])
assert job["total_wait"]["base"] == sum(r["wait_ns"] for r in b["ranks"]), job["total_wait"]
assert job["total_wait"]["new"] == sum(r["wait_ns"] for r in n["ranks"]), job["total_wait"]
assert job["straggler_blame"]["base"] == b["stragglers"][0]["blame_ns"], job["straggler_blame"]
for k in ("max_step_mean", "total_wait", "straggler_blame"):
    assert not job[k]["samples"] and job[k]["p"] is None and not job[k]["regression"], job[k]
assert job["exposed_comm"]["n_base"] == 8, job["exposed_comm"]

# busbw per (process group, collective), higher is better
cm = groups["collectives"]["metrics"]
assert [(m["pg"], m["collective"]) for m in cm] == [(c["pg"], c["name"]) for c in b["collectives"]], cm
for m in cm:
    bc = [c for c in b["collectives"] if (c["pg"], c["name"]) == (m["pg"], m["collective"])][0]
    nc = [c for c in n["collectives"] if (c["pg"], c["name"]) == (m["pg"], m["collective"])][0]
    assert m["metric"] == "busbw" and m["unit"] == "GB/s" and m["better"] == "higher", m
    assert (m["base"], m["new"]) == (bc["busbw_gbps"], nc["busbw_gbps"]), m
    assert m["direction"] == "worse" and m["title"] == "busbw %s (pg %s)" % (m["collective"], m["pg"]), m

# the ranks, matched by number, one value a side
for r in b["ranks"]:
    g = groups["rank %d" % r["rank"]]
    nr = [x for x in n["ranks"] if x["rank"] == r["rank"]][0]
    assert (g["base_rank"], g["new_rank"]) == (r["rank"], r["rank"]), g
    ms = {m["metric"]: m for m in g["metrics"]}
    assert list(ms) == ["step_mean", "step_p50", "step_p95", "wait", "exposed_comm", "compute", "gpu_idle_pct", "peak_memory"], list(ms)
    for k, key in (("step_mean", "step_mean_ns"), ("step_p95", "step_p95_ns"), ("wait", "wait_ns"),
                   ("compute", "compute_ns"), ("gpu_idle_pct", "gpu_idle_pct"), ("peak_memory", "peak_memory_bytes")):
        assert (ms[k]["base"], ms[k]["new"]) == (r[key], nr[key]), (k, ms[k])
        assert not ms[k]["samples"] and not ms[k]["regression"], ms[k]
assert d["unmatched"] == {"base": [], "new": []} and d["warnings"] == [], (d["unmatched"], d["warnings"])
EOF

# --- better: an improvement, exit 0, the straggler explained
expect_rc 0 compare --json base.json better.json
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "improvement (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "improvement" and not d["regression"] and d["regressions"] == [], d["summary"]
job = [g for g in d["groups"] if g["name"] == "job"][0]
assert {m["metric"]: m for m in job["metrics"]}["step_time"]["verdict"] == "faster"
e = [x for x in job["explanations"] if x["id"] == "straggler"]
assert e and e[0]["evidence"]["base_rank"] == e[0]["evidence"]["new_rank"] == 3, job["explanations"]
assert e[0]["evidence"]["new_blame_ns"] < e[0]["evidence"]["base_blame_ns"], e
assert "Rank 3 stays the top straggler; its blame fell from 64.80 ms to 21.60 ms" in e[0]["text"], e
EOF
# --- the same job again: no regression
expect_rc 0 compare base.json same.json
NCHECK=$((NCHECK + 1))
head -1 "$OUT" | grep -Eq "^(same|inconclusive)" || fail "a rerun of the same job: $(head -1 "$OUT")"

# --- thresholds per metric, --rank, Markdown
expect_rc 0 compare --threshold-for step_time=30 --threshold-for exposed_comm=30 --threshold-for busbw=50 base.json worse.json
NCHECK=$((NCHECK + 1))
grep -E "^busbw allreduce \(pg 0\) .* same$" "$OUT" >/dev/null || fail "busbw threshold 50% not applied"
expect_rc 3 compare --json --rank 3 base.json worse.json
NCHECK=$((NCHECK + 1))
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=[g["name"] for g in d["groups"]]; assert n == ["job", "collectives", "rank 3"], n; assert d["options"]["rank"] == 3' "$OUT" ||
	fail "--rank 3"
expect_rc 1 compare --rank 99 base.json worse.json
err_has "'base.json' has no rank 99 (ranks: 0, 1, 2, 3, 4, 5, 6, 7)"
expect_rc 3 compare --markdown --top 3 base.json worse.json
out_has "### gpuprof compare: regression"
out_has "#### ranks"
out_has "| rank | step mean | new | Δ |"
out_has "_3 of 8 ranks, by |delta| of the mean step"

# --- ranks on one side, another world size, a desynchronisation: warnings
run compare --json base.json six.json
[ "$RC" -le 3 ] || fail "compare base six: exit $RC"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'EOF' || fail "warnings (above)"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [w["id"] for w in d["warnings"]]
assert d["unmatched"] == {"base": ["rank 6", "rank 7"], "new": []}, d["unmatched"]
assert ids.count("unmatched_rank") == 2 and "world_size_differs" in ids and "desync" in ids, ids
w = [x["text"] for x in d["warnings"] if x["id"] == "desync"][0]
assert w.startswith("new has a desynchronisation (process group 0, seq 57, rank 5)"), w
assert len([g for g in d["groups"] if g.get("base_rank") is not None]) == 6
EOF

# --- kinds that do not compare: errors naming both files
"$B/gen_trace" --steps 4 -o t.json 2>/dev/null || fail "gen_trace"
"$GPUPROF" analyze --json t.json >a.json || fail "analyze"
expect_rc 1 compare base.json a.json
err_has "cannot compare an aggregate ('base.json') with an analyze report ('a.json')"
err_one_line
expect_rc 1 compare a.json base.json
err_has "cannot compare an aggregate ('base.json') with an analyze report ('a.json')"
expect_rc 1 compare t.json base.json
err_has "cannot compare an aggregate ('base.json') with a trace ('t.json')"
"$GPUPROF" bench --json --runs 3 -- true >bench.json 2>/dev/null || fail "bench"
expect_rc 1 compare bench.json base.json
err_has "cannot compare an aggregate ('base.json') with a bench result ('bench.json')"
mkdir two && cp base.json worse.json two/
expect_rc 1 compare two base.json
err_has "'two': holds more than one aggregate ('two/base.json', 'two/worse.json')"
python3 -c 'import json; json.dump({"schema": "gpuprof.aggregate/1", "ranks": [{"rank": 1.5}]}, open("bad.json", "w"))'
expect_rc 1 compare base.json bad.json
err_has "'bad.json': ranks[0].rank is not an integer"

# --- real aggregates: `gpuprof aggregate` of ranks bench/gen-ranks.py wrote (8 ranks on 2
# hosts, rank 5 slower a step, node-1's clock off): against rank 5 twice as slow, a
# regression naming it; against another seed (another model: other bucket sizes), no
# regression and the sizes named; against one rank fewer, no regression and rank 7 named
GEN="python3 $GP_SRC_DIR/bench/gen-ranks.py --jobs 2 --straggler 5"
H2="--hosts 2 --host-offset-us node-1=1234.5"
$GEN $H2 --ranks 8 --straggler-ms 5 --out rb >/dev/null || fail "gen-ranks"
$GEN $H2 --ranks 8 --straggler-ms 10 --out rw >/dev/null || fail "gen-ranks"
$GEN $H2 --ranks 8 --straggler-ms 5 --seed 7 --out rs >/dev/null || fail "gen-ranks"
$GEN --ranks 7 --hosts 1 --straggler-ms 5 --out r7 >/dev/null || fail "gen-ranks" # 7: one host
for j in rb rw rs r7; do
	"$GPUPROF" aggregate -q --json -o $j.json $j || fail "aggregate $j"
done
expect_rc 3 compare rb.json rw.json
out_has "regression: step time (rank means) +"
out_has "Rank 5 stays the top straggler; its blame rose from"
expect_rc 0 compare rb.json rb.json
NCHECK=$((NCHECK + 1))
head -1 "$OUT" | grep -q "^same" || fail "an aggregate against itself: $(head -1 "$OUT")"
run compare --json rb.json rs.json
[ "$RC" -eq 0 ] || fail "another seed: exit $RC"
run compare --json -o r7-cmp.json rb.json r7.json
[ "$RC" -eq 0 ] || fail "one rank fewer: exit $RC"
NCHECK=$((NCHECK + 1))
python3 - "$GPUPROF" <<'EOF2' || fail "real aggregates (above)"
import json, subprocess, statistics, sys
b, w, s = (json.load(open(f)) for f in ("rb.json", "rw.json", "rs.json"))
d = json.loads(subprocess.run([sys.argv[1], "compare", "--json", "rb.json", "rw.json"],
                              capture_output=True, text=True).stdout)
job = {m["metric"]: m for m in [g for g in d["groups"] if g["name"] == "job"][0]["metrics"]}
assert job["step_time"]["base"] == statistics.median(r["step_mean_ns"] for r in b["ranks"]), job["step_time"]
assert job["step_time"]["new"] == statistics.median(r["step_mean_ns"] for r in w["ranks"]), job["step_time"]
assert job["step_time"]["regression"] and job["step_time"]["delta_pct"] > 5, job["step_time"]
assert job["straggler_blame"]["base"] == b["stragglers"][0]["blame_ns"] and job["straggler_blame"]["new"] == w["stragglers"][0]["blame_ns"]
assert w["stragglers"][0]["blame_ns"] > 1.5 * b["stragglers"][0]["blame_ns"], (b["stragglers"][0], w["stragglers"][0])
e = [x for g in d["groups"] for x in g["explanations"] if x["id"] == "straggler"][0]
assert e["evidence"]["base_rank"] == e["evidence"]["new_rank"] == 5, e
cm = [m for g in d["groups"] if g["name"] == "collectives" for m in g["metrics"]]
assert [(m["pg"], m["collective"]) for m in cm] == [(c["pg"], c["name"]) for c in b["collectives"]], cm
assert d["warnings"] == [], d["warnings"]
# another seed: not worse, and the collective whose sizes differ is named
d = json.loads(subprocess.run([sys.argv[1], "compare", "--json", "rb.json", "rs.json"],
                              capture_output=True, text=True).stdout)
assert d["verdict"] != "regression" and not d["regressions"], d["summary"]
ws = [x for x in d["warnings"] if x["id"] == "collective_bytes_differ"]
diff = [c for c in b["collectives"] for y in s["collectives"] if (c["pg"], c["name"]) == (y["pg"], y["name"]) and
        abs(c["bytes"] / c["count"] - y["bytes"] / y["count"]) > 0.01 * max(c["bytes"] / c["count"], y["bytes"] / y["count"])]
assert diff and len(ws) == len(diff), (ws, diff)
assert ws[0]["text"].startswith("collective %s of process group %s moves other sizes" % (diff[0]["name"], diff[0]["pg"])), ws
# one rank fewer: rank 7 only in base, the world size named, no regression
d = json.load(open("r7-cmp.json"))
assert d["unmatched"] == {"base": ["rank 7"], "new": []} and not d["regression"], d["unmatched"]
assert {"world_size_differs", "unmatched_rank"} <= {x["id"] for x in d["warnings"]}, d["warnings"]
EOF2

# --- 1,024 ranks
$A big.json --ranks 1024 --straggler 700 || fail "aggdoc"
$A big2.json --ranks 1024 --straggler 700 --seed 9 --scale 1.1 || fail "aggdoc"
expect_rc 3 compare big.json big2.json
out_has "20 of 1024 ranks, by |delta| of the mean step"
NCHECK=$((NCHECK + 1))
[ "$(grep -c . "$OUT")" -lt 60 ] || fail "the text of 1,024 ranks has $(grep -c . "$OUT") lines"
done_ok

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0760-history-changes.sh - `gpuprof history changes`, `show` and `check` on SQLite:
#   - a CSV of 100 runs with a 3 % step in step_time_ns at run 60 (lower is better), a 3 %
#     fall of throughput at run 88 (higher is better: a regression), a metric of 6 % noise
#     (unstable at the 2 % threshold): the steps are found at their rows, with the commit and
#     time of that row and the segments' means and standard deviations as Python computes
#     them from the CSV; the unstable series has none; the directions are right;
#   - `show`: a sparkline as wide as the terminal allows, a marker under the step's column;
#   - `check`: exit 3 for the recent throughput fall (not for the step 40 runs back), with the
#     runs either side named; exit 0 on a series without a recent change;
#   - the noise guard: runs of a slower trace whose timeline shows throttling are stored but
#     make no change point; the same runs clean do;
#   - `check` on results added from traces: a step of 20 runs of a 2-layer model then 8 of a
#     3-layer one exits 3 and explains it with compare's tables of the two traces either side,
#     from another directory than the one they were added from by relative names;
#   - the Chromium filters (--min-steppiness, --min-median-change) drop the step they judge;
#   - several METRIC-PATTERNs: the series matching any; one matching none is an error;
#   - bad options: one clear usage error each.
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace
need_history_sqlite

DB="$TMP/h.sqlite"
python3 - "$TMP/h.csv" <<'PY'
import random, sys
rng = random.Random(7)
with open(sys.argv[1], "w") as f:
    f.write("time,commit,step_time_ns,throughput,jitter\n")
    for i in range(100):
        st = 1.0e6 * (1.03 if i >= 60 else 1.0) * (1 + rng.gauss(0, 0.004))
        tp = 5000 * (0.97 if i >= 88 else 1.0) * (1 + rng.gauss(0, 0.003))
        ji = 100 * (1 + rng.gauss(0, 0.06))
        f.write("2026-%02d-%02dT06:00:00Z,c%04d%s,%.1f,%.3f,%.4f\n" %
                (1 + i // 28, 1 + i % 28, i, "f" * 36, st, tp, ji))
PY
expect_rc 0 history import --db "$DB" --csv "$TMP/h.csv"

expect_rc 0 history changes --db "$DB" --json
json_ok "$OUT"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/h.csv" <<'PY' || fail "changes (above)"
import csv, json, statistics, sys
series = {s["metric"]: s for s in json.load(open(sys.argv[1]))}
rows = list(csv.DictReader(open(sys.argv[2])))
assert sorted(series) == ["jitter", "step_time_ns", "throughput"], sorted(series)

def seg(col, a, b):
    v = [float(r[col]) for r in rows[a:b]]
    return statistics.fmean(v), statistics.pstdev(v), len(v)

for name, at, regression in (("step_time_ns", 60, True), ("throughput", 88, True)):
    s = series[name]
    assert s["count"] == 100 and s["clean"] == 100 and s["noisy"] == 0, s
    assert not s["unstable"] and s["noise"] < 0.01, s
    steps = [c for c in s["changes"] if c["kind"] == "step"]
    assert len(steps) == 1, s["changes"]
    c = steps[0]
    assert abs(c["index"] - at) <= 2, (name, c)
    i = c["index"]
    assert c["commit"] == rows[i]["commit"] and c["run_id"] == i + 1, (c, rows[i])
    assert c["regression"] is regression, c
    assert 0.02 < abs(c["rel_change"]) < 0.04 and c["pvalue"] < 0.01, c
    # the segments E-divisive compared: the points of its window either side
    b, a = c["before"], c["after"]
    mb, sb, nb = seg(name, i - b["n"], i)
    ma, sa, na = seg(name, i, i + a["n"])
    assert (nb, na) == (b["n"], a["n"]), (b, a)
    for got, want in ((b["mean"], mb), (a["mean"], ma), (b["sd"], sb), (a["sd"], sa)):
        assert abs(got - want) <= 1e-6 * abs(want) + 1e-9, (name, got, want)
    assert abs(c["rel_change"] - (a["mean"] - b["mean"]) / b["mean"]) < 2e-6, c  # JSON: 6 decimals
j = series["jitter"]
assert j["unstable"] and j["changes"] == [] and j["noise"] > 0.03, j
assert series["step_time_ns"]["better"] == "lower" and series["throughput"]["better"] == "higher"
assert series["throughput"]["last"]["commit"] == rows[-1]["commit"]
PY

# the text: one table per series with changes, the unstable one said so
expect_rc 0 history changes --db "$DB"
out_has "step_time_ns  on csv"
out_has "  worse"
out_has "UNSTABLE"
out_has "3 series, 2 with change points, 1 unstable"
grep -q '[[:space:]]$' "$OUT" && fail "a line of 'history changes' ends in spaces"

# show: the sparkline fits $COLUMNS, a marker under the step's column
COLUMNS=100 expect_rc 0 history show --db "$DB" step_time_ns
no_width_over 100 "$OUT"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "show (above)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
spark = [l for l in lines if set(l.strip()) <= set("▁▂▃▄▅▆▇█·") and l.strip()]
assert len(spark) == 1, lines
s = spark[0][2:]
assert len(s) == 96, len(s)
mark = lines[lines.index(spark[0]) + 1]
col = mark.index("^") - 2
assert abs(col - 60 * 96 // 100) <= 2, (col, mark)
# the columns after the step are higher than before it
lo, hi = s[: col - 2], s[col + 2 :]
assert max(lo) < min(hi), (lo, hi)
PY
expect_rc 1 history show --db "$DB" nothing-like-this
err_has "no series matches 'nothing-like-this'"

# check: the throughput fall is 12 runs old (within the last 30), the step 40 runs old is not
expect_rc 3 history check --db "$DB"
out_has "REGRESSION  throughput  on csv"
out_has "the runs either side: run 88 (c0087fff)"
out_has "no comparison: the runs are rows of a CSV file, not results to compare"
out_has "checked 3 series: 1 regression, 0 improvements, 1 unchanged, 1 unstable"
expect_rc 0 history check --db "$DB" step_time_ns
expect_rc 3 history check --db "$DB" --recent 50 step_time_ns
expect_rc 3 history check --db "$DB" --json
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "check --json (above)"
import json, sys
d = json.load(open(sys.argv[1]))
v = {s["metric"]: s["verdict"] for s in d["series"]}
assert v == {"jitter": "unstable", "step_time_ns": "unchanged", "throughput": "regression"}, v
assert d["regressions"] == 1 and len(d["explanations"]) == 1, d["regressions"]
e = d["explanations"][0]
assert e["before"]["run_id"] == e["change"]["run_id"] - 1 == e["after"]["run_id"] - 1, e
# CSV line numbers count the header: the run before the change is line index + 1
assert e["compare"] is None and e["before"]["source"].endswith("h.csv:%d" % (e["change"]["index"] + 1)), e
PY

# Otava's test alone: the same steps (its 5 % magnitude made 2 %)
expect_rc 0 history changes --db "$DB" --otava --min-magnitude 0.02 --json step_time_ns
NCHECK=$((NCHECK + 1))
[ "$(json_get "$OUT" '[c["index"] for c in d[0]["changes"]]')" = "$(
	"$GPUPROF" history changes --db "$DB" --json step_time_ns |
		python3 -c 'import json,sys; print([c["index"] for c in json.load(sys.stdin)[0]["changes"]])')" ] ||
	fail "Otava's test and the GPU options disagree on a clean step"

# the Chromium filters: a step whose steppiness, or whose medians' relative change, is below
# the option's value is dropped; just below its own, it stays
expect_rc 0 history changes --db "$DB" --json step_time_ns
st=$(json_get "$OUT" '[c["steppiness"] for c in d[0]["changes"] if c["kind"] == "step"][0]')
mc=$(python3 - "$TMP/h.csv" "$(json_get "$OUT" '[c["index"] for c in d[0]["changes"]][0]')" <<'PY'
import csv, statistics, sys
v = [float(r["step_time_ns"]) for r in csv.DictReader(open(sys.argv[1]))]
i = int(sys.argv[2])
print(abs(statistics.median(v[i:]) / statistics.median(v[:i]) - 1))
PY
)
steps() { json_get "$OUT" '[c["index"] for c in d[0]["changes"] if c["kind"] == "step"]'; }
for opt in "--min-steppiness $st" "--min-median-change $mc"; do
	set -- $opt
	lo=$(python3 -c "print($2 - 0.002)")
	hi=$(python3 -c "print(min(1, $2 + 0.002))")
	expect_rc 0 history changes --db "$DB" --json "$1" "$lo" step_time_ns
	[ "$(steps)" != "[]" ] || fail "$1 $lo dropped the step"
	expect_rc 0 history changes --db "$DB" --json "$1" "$hi" step_time_ns
	[ "$(steps)" = "[]" ] || fail "$1 $hi kept the step: $(steps)"
done
expect_rc 2 history changes --db "$DB" --otava --min-steppiness 0.5
err_has "--otava runs Otava's test alone"

# the noise guard: results from run directories, 24 clean runs of the 2-layer model with 6
# throttled runs of the 3-layer one among them: no change point; marked clean, they make one
. "$(dirname "$0")/history-timeline.sh"
timeline() { history_timeline "$1" "$2" 1980 "$3" 1; } # DIR TRACE REASONS
for i in $(seq 1 30); do
	"$GEN" --steps 4 --layers 2 --seed "$i" -o "$TMP/small$i.json" 2>/dev/null || fail "gen_trace"
done
for i in $(seq 1 8); do
	"$GEN" --steps 4 --layers 3 --seed "$((100 + i))" -o "$TMP/big$i.json" 2>/dev/null ||
		fail "gen_trace"
done
paths=()
paths_clean=()
for i in $(seq 1 30); do
	if [ "$i" -ge 13 ] && [ "$i" -le 18 ]; then
		timeline "$TMP/noisy/r$i" "$TMP/big$((i - 12)).json" 32 # sw_thermal
		timeline "$TMP/clean/r$i" "$TMP/big$((i - 12)).json" 0
	else
		timeline "$TMP/noisy/r$i" "$TMP/small$i.json" 0
		timeline "$TMP/clean/r$i" "$TMP/small$i.json" 0
	fi
	paths+=("$TMP/noisy/r$i")
	paths_clean+=("$TMP/clean/r$i")
done
NDB="$TMP/noise.sqlite"
CDB="$TMP/clean.sqlite"
for i in $(seq 0 29); do
	t=$((1790000000 + i * 3600))
	expect_rc 0 history add --db "$NDB" --commit "n$i" --time "$t" "${paths[$i]}"
	expect_rc 0 history add --db "$CDB" --commit "n$i" --time "$t" "${paths_clean[$i]}"
done
for db in "$NDB" "$CDB"; do
	expect_rc 0 history changes --db "$db" --min-magnitude 0.2 --json step_time.mean
	cp "$OUT" "$db.changes"
done
NCHECK=$((NCHECK + 1))
python3 - "$NDB.changes" "$CDB.changes" <<'PY' || fail "noise guard in change detection (above)"
import json, sys
noisy, clean = (json.load(open(p)) for p in sys.argv[1:])
n = [s for s in noisy if s["testbed"].startswith("host=node7")][0]
c = [s for s in clean if s["testbed"].startswith("host=node7")][0]
assert n["count"] == 30 and n["noisy"] == 6 and n["clean"] == 24, n
assert n["changes"] == [], n["changes"]
assert c["noisy"] == 0 and len(c["changes"]) >= 1, c
assert any(12 <= x["index"] <= 13 and x["regression"] for x in c["changes"]), c["changes"]
PY

# check on traces: 20 runs of the 2-layer model, then 8 of the 3-layer one; compare explains.
# The 2-layer ones are added by a name relative to $TMP: check, run from elsewhere, finds them
TDB="$TMP/traces.sqlite"
for i in $(seq 1 20); do
	(cd "$TMP" && "$GPUPROF" history add --db "$TDB" --commit "s$i" \
		--time "$((1790000000 + i * 60))" "small$i.json" 2>/dev/null) || fail "add small$i.json"
done
[ "$PWD" != "$(cd "$TMP" && pwd)" ] || cd /
for i in $(seq 1 8); do
	expect_rc 0 history add --db "$TDB" --commit "b$i" --time "$((1790002000 + i * 60))" \
		"$TMP/big$i.json"
done
# a wide terminal: the line naming the two files is not wrapped
COLUMNS=1000 expect_rc 3 history check --db "$TDB" --min-magnitude 0.2 step_time.mean
out_has "REGRESSION  step_time.mean"
out_has "the runs either side: run 20 (s20) '$TMP/small20.json' and run 21 (b1) '$TMP/big1.json'"
out_has "compared as \`gpuprof compare\` does:"
# compare's own text, indented: its verdict on the step time and its kernel table
python3 - "$OUT" <<'PY' || fail "the explanation is not compare's (above)"
import sys
t = open(sys.argv[1], encoding="utf-8").read()
body = t.split("compared as `gpuprof compare` does:\n", 1)[1]
lines = [l for l in body.splitlines() if l.strip()]
assert lines and all(l.startswith("    ") for l in lines[:10]), lines[:10]
assert "step" in body.lower() and "kernel" in body.lower(), body[:600]
PY
# the same tables `gpuprof compare` of the two traces prints (one pair of runs: compare may
# well call it inconclusive; the history's step is what the gate decides on)
cp "$OUT" "$TMP/check.txt"
run compare --top 10 "$TMP/small20.json" "$TMP/big1.json"
python3 - "$TMP/check.txt" "$OUT" <<'PY' || fail "the explanation differs from compare's text (above)"
import sys
check = open(sys.argv[1], encoding="utf-8").read()
cmp = [l for l in open(sys.argv[2], encoding="utf-8").read().splitlines() if l.strip()]
body = check.split("compared as `gpuprof compare` does:\n", 1)[1]
for l in cmp:
    if l.startswith(("base ", "  (trace)")):
        continue  # compare's header names its own arguments
    assert ("    " + l) in body, l
PY

# bad options: one usage error each
expect_rc 2 history changes --db "$DB" --window 1
err_has "--window"
expect_rc 2 history changes --db "$DB" --max-pvalue 2
err_has "option '--max-pvalue' expects a number from 0 to 1"
expect_rc 2 history changes --db "$DB" --min-magnitude x
err_has "option '--min-magnitude'"
expect_rc 2 history show --db "$DB"
err_has "history show takes a METRIC-PATTERN"

# several METRIC-PATTERNs: the series matching any; one that matches none fails the gate
expect_rc 0 history changes --db "$DB" --json step_time_ns 'through*'
[ "$(json_get "$OUT" '[s["metric"] for s in d]')" = "['step_time_ns', 'throughput']" ] ||
	fail "changes of two patterns: $(json_get "$OUT" '[s["metric"] for s in d]')"
expect_rc 3 history check --db "$DB" step_time_ns throughput
out_has "checked 2 series: 1 regression"
expect_rc 1 history check --db "$DB" throughput thruput
err_has "no series matches 'thruput'"
expect_rc 1 history show --db "$DB" --json step_time_ns nothing-like-this
err_has "no series matches 'nothing-like-this'"
done_ok

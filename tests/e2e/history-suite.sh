# SPDX-License-Identifier: MIT
# history-suite.sh - the checks of `gpuprof history` that every backend must pass, sourced
# by t0750 (SQLite) and t0752 (PostgreSQL) after lib.sh, with DB (the --db value) and
# db_sql SQL (runs one statement on that database) defined. Needs gen_trace and python3.

"$GEN" --steps 4 -o "$TMP/t.json" >/dev/null 2>&1 || fail "gen_trace"
expect_rc 0 analyze --json -o "$TMP/a.json" "$TMP/t.json"
expect_rc 0 bench --json -o "$TMP/b.json" "$TMP/t.json"

nruns() {
	"$GPUPROF" history export --jsonl --db "$DB" | wc -l
}

# add: a report and a bench result, tags, commit, branch, time; one run each
expect_rc 0 history add --db "$DB" --commit c0ffee --branch main --time 1700000000 \
	--tag dtype=bf16 --tag "note=a b" "$TMP/a.json" "$TMP/b.json"
[ "$(nruns)" = 2 ] || fail "two runs after add"
expect_rc 0 history export --jsonl --db "$DB"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/a.json" "$TMP/b.json" <<'PY' || fail "export (above)"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
a = json.load(open(sys.argv[2]))["ranks"][0]
b = json.load(open(sys.argv[3]))["series"][0]
assert [r["kind"] for r in runs] == ["analyze", "bench"], runs
for r in runs:
    assert r["commit"] == "c0ffee" and r["branch"] == "main", r
    assert r["time_ns"] == 1700000000 * 10**9, r
    assert r["tags"] == {"dtype": "bf16", "note": "a b"}, r["tags"]
    assert r["noisy"] is False and r["noise_reason"] is None
m = {x["name"]: x for x in runs[0]["metrics"]}
ss = a["step_stats"]
assert m["step_time.mean"]["value"] == ss["mean_ns"] and m["step_time.mean"]["unit"] == "ns"
assert m["step_time.p95"]["value"] == ss["p95_ns"] and m["step_time.p95"]["better"] == "lower"
assert abs(m["throughput.steps_per_s"]["value"] - 1e9 / ss["mean_ns"]) < 1e-6
assert m["throughput.steps_per_s"]["better"] == "higher"
g = a["gpu"]
assert abs(m["gpu.busy_pct"]["value"] - 100 * g["busy_ns"] / g["window_ns"]) < 1e-5
exp = g["communication_ns"] - round(g["communication_ns"] * g["comm_comp_overlap_pct"] / 100)
assert m["gpu.exposed_comm_ns"]["value"] == exp
peak = max(d["peak_allocated_bytes"] for d in a["memory"]["devices"])
assert m["memory.peak_bytes"]["value"] == peak and m["memory.peak_bytes"]["unit"] == "bytes"
for k in a["kernels"]:
    assert m["kernel/%s/total_ns" % k["name"]]["value"] == k["total_ns"], k["name"]
m = {x["name"]: x for x in runs[1]["metrics"]}
pre = "bench/%s/" % b["name"]
assert m[pre + "time.p99"]["value"] == b["stats"]["p99_ns"]
assert m[pre + "throughput.items_per_s"]["value"] == b["throughput"]["items_per_s"]
assert m[pre + "throughput.items_per_s"]["better"] == "higher"
assert m[pre + "memory.peak.max"]["value"] == b["memory_stats"]["max_bytes"]
# the testbed: stable facts only
assert runs[0]["testbed"].startswith("gpu=NVIDIA H100 80GB HBM3 x1"), runs[0]["testbed"]
PY

# list: one line per series, JSON too; a pattern
expect_rc 0 history list --db "$DB" --json 'step_time.*'
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "list --json (above)"
import json, sys
l = json.load(open(sys.argv[1]))
assert [s["metric"] for s in l] == ["step_time.%s" % k for k in
                                     ("max", "mean", "median", "min", "p95", "std")], l
assert all(s["count"] == 1 and s["noisy"] == 0 and s["last_commit"] == "c0ffee" for s in l)
PY
expect_rc 0 history list --db "$DB" 'bench/*'
out_has "time.p99"

# a failed add of several results writes nothing: a compare result and an unknown schema
echo '{"schema": "gpuprof.analyze/9", "ranks": []}' >"$TMP/future.json"
expect_rc 1 history add --db "$DB" "$TMP/a.json" "$TMP/future.json"
err_has "future.json"
err_has "gpuprof.analyze/9"
err_one_line
[ "$(nruns)" = 2 ] || fail "a failed add wrote runs"
expect_rc 1 history add --db "$DB" "$TMP/b.json" "$TMP/nonexistent.json"
err_has "nonexistent.json"
[ "$(nruns)" = 2 ] || fail "a failed add wrote runs"

# import --csv: Otava's layout; bad cells name the file, the line and the column
cat >"$TMP/otava.csv" <<'CSV'
time,commit,metric1,throughput_per_s
2026.01.01 3:00:00 +0100,aaa0,154023,10.43
2026-01-02T02:00:00Z,aaa1,138455,
"2026-01-03 02:00:00",'aaa2',143112,10.29
CSV
expect_rc 0 history import --db "$DB" --csv "$TMP/otava.csv"
expect_rc 0 history export --jsonl --db "$DB"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "import (above)"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])][2:]
assert [r["commit"] for r in runs] == ["aaa0", "aaa1", "aaa2"], runs
t0 = 1767232800 * 10**9   # 2026-01-01 02:00 UTC
assert [r["time_ns"] for r in runs] == [t0, t0 + 86400 * 10**9, t0 + 2 * 86400 * 10**9]
assert [len(r["metrics"]) for r in runs] == [2, 1, 2]
m = {x["name"]: x for x in runs[0]["metrics"]}
assert m["metric1"]["value"] == 154023 and m["metric1"]["better"] == "lower"
assert m["throughput_per_s"]["better"] == "higher"
PY
printf 'time,commit,m\n2026-01-01,a,1\n2026-01-02,b,12x\n' >"$TMP/nan.csv"
expect_rc 1 history import --db "$DB" --csv "$TMP/nan.csv"
err_has "nan.csv': line 3, column 'm': '12x' is not a number"
printf 'commit,m\na,1\n' >"$TMP/notime.csv"
expect_rc 1 history import --db "$DB" --csv "$TMP/notime.csv"
err_has "notime.csv': line 1: no time column"
printf 'time,m\n2026-01-01,1\n2026-01-02\n' >"$TMP/short.csv"
expect_rc 1 history import --db "$DB" --csv "$TMP/short.csv"
err_has "short.csv': line 3: 1 cells, the header has 2"
[ "$(nruns)" = 5 ] || fail "a failed import wrote runs"
# a metric named twice, a value under a column without a name: refused (their values would
# be lost); a trailing comma's empty column is not; a spreadsheet's byte order mark is skipped
printf 'time,commit,m,x,m\n2026-01-01,a,1,2,3\n' >"$TMP/twice.csv"
expect_rc 1 history import --db "$DB" --csv "$TMP/twice.csv"
err_has "twice.csv': line 1: columns 3 and 5 are both named 'm'"
printf 'time,commit,m,\n2026-01-01,a,1,\n2026-01-02,b,1,7\n' >"$TMP/noname.csv"
expect_rc 1 history import --db "$DB" --csv "$TMP/noname.csv"
err_has "noname.csv': line 3, column 4: '7' under a column without a name"
[ "$(nruns)" = 5 ] || fail "a failed import wrote runs"
printf '\xef\xbb\xbftime,commit,bom_ms,\r\n2026-01-01,bom1,5,\r\n' >"$TMP/bom.csv"
expect_rc 0 history import --db "$DB" --csv "$TMP/bom.csv"
expect_rc 0 history list --db "$DB" --json bom_ms
[ "$(json_get "$OUT" '[(s["count"], s["last_commit"], s["unit"]) for s in d]')" = "[(1, 'bom1', 'ms')]" ] ||
	fail "a CSV with a byte order mark: $(cat "$OUT")"

# the noise guard: a run directory whose timeline shows throttling, another process,
# or SM clocks below the testbed's usual is stored, marked, with its reason
. "$(dirname "$0")/history-timeline.sh"
timeline() { history_timeline "$1" "$TMP/t.json" "$2" "$3" "$4"; } # DIR CLOCK_MHZ REASONS PROCS
timeline "$TMP/r1" 1980 0 1
timeline "$TMP/r2" 1975 1 1     # gpu_idle only: not throttling
timeline "$TMP/r3" 1985 0 1
timeline "$TMP/hot" 1980 32 1   # sw_thermal
timeline "$TMP/shared" 1980 0 2
timeline "$TMP/slow" 1500 0 1
for r in r1 r2 r3 hot shared slow; do
	expect_rc 0 history add --db "$DB" --commit "$r" "$TMP/$r"
done
expect_rc 0 history export --jsonl --db "$DB"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "noise guard (above)"
import json, sys
runs = {r["commit"]: r for r in map(json.loads, open(sys.argv[1])) if r["kind"] == "trace"}
tb = runs["r1"]["testbed"]
assert tb == "host=node7;gpu=NVIDIA H100 80GB HBM3 x1;driver=550.54.15;cuda=12.4", tb
assert all(r["testbed"] == tb for r in runs.values()), "temperatures or clocks in the key"
for c in ("r1", "r2", "r3"):
    assert runs[c]["noisy"] is False, runs[c]["noise_reason"]
assert runs["hot"]["noisy"] and "throttled (sw_thermal) in 1 of 20 samples" in runs["hot"]["noise_reason"]
assert runs["shared"]["noisy"] and "another process on GPU 0" in runs["shared"]["noise_reason"]
r = runs["slow"]["noise_reason"]
assert runs["slow"]["noisy"] and "SM clock 1501 MHz, below the testbed's usual 1981 MHz" in r, r
PY
expect_rc 0 history list --db "$DB" --json step_time.mean
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "list counts noisy points (above)"
import json, sys
l = {s["testbed"]: s for s in json.load(open(sys.argv[1]))}
s = [v for k, v in l.items() if k.startswith("host=node7")][0]
assert s["count"] == 6 and s["noisy"] == 3, s
PY

# a database of a newer schema version is refused, with nothing written
db_sql "UPDATE schema_version SET version = 99"
expect_rc 1 history list --db "$DB"
err_has "schema version 99"
err_has "use a newer gpuprof"
err_one_line
db_sql "UPDATE schema_version SET version = 2"
expect_rc 0 history list --db "$DB"

# an aggregate and a report of several ranks: the job's metrics, the ranks' prefixed, the
# testbed with every host and GPU
python3 "$GP_SRC_DIR/bench/gen-ranks.py" --ranks 4 --hosts 2 --steps 3 --out "$TMP/ranks" \
	>/dev/null || fail "gen-ranks.py"
expect_rc 0 aggregate --json -o "$TMP/agg.json" "$TMP/ranks"
expect_rc 0 analyze --json -o "$TMP/ranks.json" "$TMP/ranks"
expect_rc 0 history add --db "$DB" --commit multi "$TMP/agg.json" "$TMP/ranks.json"
expect_rc 0 history export --jsonl --db "$DB"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" "$TMP/agg.json" "$TMP/ranks.json" <<'PY' || fail "aggregate, ranks (above)"
import json, sys
runs = [r for r in map(json.loads, open(sys.argv[1])) if r["commit"] == "multi"]
agg, rep = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert [r["kind"] for r in runs] == ["aggregate", "analyze"], runs
m = {x["name"]: x for x in runs[0]["metrics"]}
for key in ("step_mean_ns", "exposed_comm_ns", "gpu_idle_ns"):
    assert m["job/%s.median" % key]["value"] == agg["table"][key]["median"], key
    assert m["job/%s.max" % key]["value"] == agg["table"][key]["max"], key
assert m["job/gpu_busy_ns.median"]["better"] == "higher"
m = {x["name"]: x for x in runs[1]["metrics"]}
for r in rep["ranks"]:
    assert m["rank%d/step_time.mean" % r["rank"]]["value"] == r["step_stats"]["mean_ns"]
hosts = sorted({r["host"] for r in rep["ranks"]})
assert len(hosts) == 2, hosts
for r in runs:
    assert r["testbed"].startswith("host=%s;gpu=" % ",".join(hosts)), r["testbed"]
    assert " x4" in r["testbed"], r["testbed"]
PY

# change points and the gate read the same series on both backends: a 4 % step at row 40 of 60
python3 - "$TMP/gate.csv" <<'PY'
import random, sys
rng = random.Random(11)
with open(sys.argv[1], "w") as f:
    f.write("time,commit,gate_ns\n")
    for i in range(60):
        f.write("%d,g%02d,%.1f\n" % (1790000000 + i * 86400, i,
                                     2e6 * (1.04 if i >= 40 else 1) * (1 + rng.gauss(0, 0.003))))
PY
expect_rc 0 history import --db "$DB" --csv "$TMP/gate.csv" --testbed gate-pool
expect_rc 0 history changes --db "$DB" --json gate_ns
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "changes on this backend (above)"
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s) == 1 and s[0]["testbed"] == "gate-pool" and s[0]["count"] == 60, s
c = s[0]["changes"]
assert len(c) == 1 and c[0]["index"] == 40 and c[0]["commit"] == "g40", c
assert c[0]["regression"] and 0.03 < c[0]["rel_change"] < 0.05, c
PY
expect_rc 3 history check --db "$DB" gate_ns
out_has "REGRESSION  gate_ns  on gate-pool"

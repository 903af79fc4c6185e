#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0601-aggregate-traces.sh - `gpuprof aggregate` on the real two-rank traces of ../shared/traces
# (HTA's trace_filter sampled ranks 0 and 1 of 128): given the traces (analysed first) or their
# analyze reports, the same document; the per-rank table is each rank's own `analyze`; the 126
# ranks not given are named in a warning; their collectives match by (pg, seq).
. "$(dirname "$0")/lib.sh"
need python3
src="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/hta"
[ -f "$src/trace_filter_sampled_rank-1.json.gz" ] || { echo "skip: no ../shared/traces"; exit 77; }
R0="$src/trace_filter_sampled_rank-0.json.gz"
R1="$src/trace_filter_sampled_rank-1.json.gz"

run aggregate --json "$R0" "$R1"
if grep -q "not available" "$ERR"; then
	echo "skip: this gpuprof has no aggregate command yet"
	exit 77
fi
[ "$RC" -eq 0 ] || fail "aggregate of the traces exited $RC"
json_ok "$OUT"
cp "$OUT" "$TMP/from-traces.json"
expect_rc 0 analyze --json -o "$TMP/r0.json" "$R0"
expect_rc 0 analyze --json -o "$TMP/r1.json" "$R1"
run aggregate --json "$TMP/r0.json" "$TMP/r1.json"
[ "$RC" -eq 0 ] || fail "aggregate of the reports exited $RC"
cp "$OUT" "$TMP/from-reports.json"

python3 - "$TMP/from-traces.json" "$TMP/from-reports.json" "$TMP/r0.json" "$TMP/r1.json" <<'PY' ||
import json, sys
t, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
own = [json.load(open(p))["ranks"][0] for p in sys.argv[3:5]]
for k in ("ranks", "stragglers", "collectives", "desync", "unmatched", "clock", "table"):
    a, b = t[k], r[k]
    if k == "ranks":  # the file differs: the trace or its report
        a = [{x: v for x, v in o.items() if x != "file"} for o in a]
        b = [{x: v for x, v in o.items() if x != "file"} for o in b]
    assert a == b, (k, a, b)
assert [x["rank"] for x in r["ranks"]] == [0, 1]
assert r["world_size"] == 128
assert any("126 ranks are missing: 2-127" in w for w in r["warnings"]), r["warnings"]
for row, o in zip(r["ranks"], own):
    ss, g = o.get("step_stats") or {}, o["gpu"]
    want = {"steps": ss.get("count"), "step_mean_ns": ss.get("mean_ns"),
            "step_p50_ns": ss.get("median_ns"), "step_p95_ns": ss.get("p95_ns"),
            "gpu_busy_ns": g.get("busy_ns"), "gpu_idle_ns": g.get("idle_ns"),
            "compute_ns": g.get("compute_ns"), "communication_ns": g.get("communication_ns"),
            "collectives": len(o["collectives"]["ledger"]), "host": o.get("host")}
    for k, v in want.items():
        got = row[k]
        ok = got == v or (isinstance(v, float) and got is not None and abs(got - v) <= 1e-6 * abs(v))
        assert ok, ("rank", row["rank"], k, got, v)
    if g.get("idle_pct") is not None:
        assert abs(row["gpu_idle_pct"] - g["idle_pct"]) <= 1e-6, (row["gpu_idle_pct"], g["idle_pct"])
if all(len(o["collectives"]["ledger"]) for o in own):
    assert r["collectives"] and sum(c["count"] for c in r["collectives"]) > 0, r["collectives"]
PY
	fail "the aggregate of the real ranks disagrees with their own reports"
NCHECK=$((NCHECK + 1))
done_ok

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A generated trace (bench/gen_trace) is valid JSON, and gpuprof's core metrics on it equal
# those of the plain-Python baseline (bench/baseline.py) to the nanosecond.
set -eu
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
gen="$GP_BUILD_DIR/gen_trace"
[ -x "$gen" ] || { echo "skip: gen_trace not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" --size-mb 3 --steps 3 --seed 7 -o "$tmp/t.json"
"$GPUPROF" analyze --json --top 0 -o "$tmp/r.json" "$tmp/t.json"
python3 "$GP_SRC_DIR/bench/baseline.py" "$tmp/t.json" >"$tmp/b.json"
python3 - "$tmp/r.json" "$tmp/b.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
b = json.load(open(sys.argv[2]))["metrics"]
g = r["gpu"]
bad = []
for k in ("window_ns", "busy_ns", "idle_ns", "compute_ns", "non_compute_ns"):
    if g[k] != b[k]:
        bad.append(f"{k}: gpuprof {g[k]} python {b[k]}")
if abs(g["comm_comp_overlap_pct"] - b["comm_comp_overlap_pct"]) > 1e-3:
    bad.append(f"overlap: {g['comm_comp_overlap_pct']} vs {b['comm_comp_overlap_pct']}")
ours = {row["stream"]: row for row in g["idle_breakdown"]}
for row in b["idle_breakdown"]:
    o = ours.get(row["stream"], {})
    for k in ("host_wait_ns", "kernel_wait_ns", "other_ns"):
        if o.get(k) != row[k]:
            bad.append(f"idle stream {row['stream']} {k}: {o.get(k)} vs {row[k]}")
bt = {k["name"]: k for k in b["kernels_top"]}
for k in r["kernels"][: len(bt)]:
    p = bt.get(k["name"])
    if not p or any(p[f] != k[f] for f in ("total_ns", "count", "min_ns", "max_ns")) \
            or abs(p["med_ns"] - k["med_ns"]) > 0.5 or abs(p["std_ns"] - k["std_ns"]) > 1e-3 * p["std_ns"]:
        bad.append(f"kernel {k['name'][:40]}: {k} vs {p}")
print("\n".join(bad) or "gpuprof and the Python baseline agree")
sys.exit(1 if bad else 0)
PY

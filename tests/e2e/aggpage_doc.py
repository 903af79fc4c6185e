#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
aggpage_doc.py - hand-written gpuprof.aggregate/1 documents (what `gpuprof aggregate --json`
writes, docs/cli/gpuprof-aggregate.md) for the tests of `report` and `compare` (t0504, t0414):
a job of N ranks on N/8 hosts with NCCL collectives in two process groups, one
straggler rank that the others wait for, a wait heatmap, the per-rank table with
its min/max/mean/median rows and the robust outliers, as `gpuprof aggregate --json`
writes them (doubles with six decimals at most, as its JSON writer writes them).
Deterministic for a seed.

  python3 aggpage_doc.py OUT.json --ranks 8 [--seed 1] [--scale 1.0] [--straggler 3]
                    [--straggler-ms 12] [--desync] [--no-memory] [--bins 100]

--scale multiplies every rank's step and compute time (a slower or faster run).
"""
import argparse
import json
import math
import random
import statistics

METRICS = ["steps", "step_mean_ns", "step_p50_ns", "step_p95_ns", "gpu_busy_ns", "gpu_idle_ns",
           "gpu_idle_pct", "compute_ns", "communication_ns", "exposed_comm_ns", "wait_ns",
           "collectives", "peak_memory_bytes", "gpu_clock_mhz", "clock_offset_ns",
           "clock_uncertainty_ns"]


def make(n, seed=1, scale=1.0, straggler=3, straggler_ms=12.0, desync=False, memory=True,
         bins=100, steps=6):
    rnd = random.Random(seed)
    hosts = max(1, n // 8)
    straggler = straggler % n
    step = 120e6 * scale
    ncoll = steps * 20  # collectives per rank
    ranks = []
    for r in range(n):
        host = "node-%d" % (r * hosts // n)
        slow = straggler_ms * 1e6 if r == straggler else 0.0
        mean = step + slow + rnd.gauss(0, 0.6e6)
        compute = (0.62 * step + slow) * steps * (1 + rnd.gauss(0, 0.004))
        comm = 0.25 * step * steps * (1 + rnd.gauss(0, 0.01))
        wait = 0.0 if r == straggler else (slow + straggler_ms * 1e6) * steps * 0.9 * (1 + rnd.gauss(0, 0.05))
        busy = compute + comm * 0.6
        window = mean * steps
        idle = max(0.0, window - busy)
        ranks.append({
            "rank": r, "host": host, "file": "%s_%d.1700000000000.pt.trace.json.gz" % (host, 4000 + r),
            "clock_offset_ns": 0 if r * hosts // n == 0 else int(37000 * (r * hosts // n) + 113),
            "clock_uncertainty_ns": 0 if r * hosts // n == 0 else 1200,
            "steps": steps,
            "step_mean_ns": int(mean), "step_p50_ns": int(mean - 0.2e6), "step_p95_ns": int(mean + 1.5e6),
            "gpu_busy_ns": int(busy), "gpu_idle_ns": int(idle), "gpu_idle_pct": round(100 * idle / window, 2),
            "compute_ns": int(compute), "communication_ns": int(comm),
            "exposed_comm_ns": int(comm * 0.4), "wait_ns": int(wait), "collectives": ncoll,
            "peak_memory_bytes": int(38.5 * 2**30 + rnd.randint(0, 2**26)) if memory else None,
            "gpu_model": "NVIDIA H100 80GB HBM3", "gpu_clock_mhz": 1980 if r != straggler else 1410,
            "outliers": [],
        })
    # the table and the robust outliers (|x - median| > 3 * 1.4826 * MAD, MAD > 0)
    table = {}
    for m in METRICS:
        vals = [(x[m], x["rank"]) for x in ranks if x[m] is not None]
        if not vals:
            table[m] = None
            continue
        v = [a for a, _ in vals]
        lo = min(vals)
        hi = max(vals, key=lambda t: (t[0], -t[1]))
        med = statistics.median(v)
        table[m] = {"min": lo[0], "max": hi[0], "mean": sum(v) / len(v), "median": med,
                    "min_rank": lo[1], "max_rank": hi[1]}
        mad = statistics.median([abs(a - med) for a in v])
        if mad > 0 and m not in ("clock_offset_ns", "clock_uncertainty_ns"):
            for x in ranks:
                if x[m] is not None and abs(x[m] - med) > 3 * 1.4826 * mad:
                    x["outliers"].append(m)
    blame = straggler_ms * 1e6 * steps * 0.9
    stragglers = [{"rank": straggler, "blame_ns": int(blame), "last_count": int(ncoll * 0.9),
                   "collectives": ncoll, "last_arrival_pct": 90.0, "p_value": 1e-30,
                   "significant": True, "caused_wait_ns": int(blame * (n - 1)), "cause": "compute",
                   "cause_detail": "compute %.1f ms per step longer than the median rank" % straggler_ms}]
    other = (straggler + 1) % n
    if n > 1:
        stragglers.append({"rank": other, "blame_ns": int(blame * 0.02), "last_count": 3,
                           "collectives": ncoll, "last_arrival_pct": 2.5, "p_value": 0.93,
                           "significant": False, "caused_wait_ns": int(blame * 0.02 * (n - 1)), "cause": None,
                           "cause_detail": None})
    colls = []
    for pg, desc, name, count, size, factor in (("0", "default_pg", "allreduce", steps * 12, 26550272, 2 * (n - 1) / n),
                                                ("0", "default_pg", "allgather", steps * 4, 8388608, (n - 1) / n),
                                                ("1", "tp_group", "reduce_scatter", steps * 4, 4194304, (n - 1) / n)):
        transfer_ns = int(count * size / (180.0 / scale))  # 180 GB/s = 180 B/ns
        algbw = count * size / transfer_ns  # B/ns = GB/s
        colls.append({"pg": pg, "pg_desc": desc, "name": name, "count": count, "ranks": n,
                      "bytes": count * size, "transfer_ns": transfer_ns,
                      "wait_ns": int(sum(x["wait_ns"] for x in ranks) * count / ncoll),
                      "skew_ns": {"mean": int(straggler_ms * 1e6 * 0.9), "p95": int(straggler_ms * 1.1e6), "max": int(straggler_ms * 1.3e6)},
                      "algbw_gbps": algbw, "busbw_gbps": algbw * factor, "factor": factor,
                      "cross_host": hosts > 1})
    colls.sort(key=lambda c: -c["wait_ns"])
    # the wait heatmap: rank x bin, the straggler's wait 0, the others' in bursts per step
    span = steps * step + steps * straggler_ms * 1e6
    bin_ns = int(math.ceil(span / bins))
    wait = []
    for x in ranks:
        row = []
        for b in range(bins):
            if x["rank"] == straggler:
                row.append(0)
            else:
                phase = (b * steps) % bins
                row.append(int(x["wait_ns"] / (steps * 3)) if phase < 3 * steps else int(rnd.random() * 2e4))
        wait.append(row)
    heatmap = {"start_ns": 1700000000000000000, "bin_ns": bin_ns, "ranks": [x["rank"] for x in ranks],
               "wait_ns": wait}
    findings = [{"id": "straggler", "severity": "medium",
                 "title": "Rank %d arrives last at 90%% of the collectives: the others wait %.1f ms for it" % (straggler, blame / 1e6),
                 "evidence": {"rank": straggler, "blame_ns": int(blame), "last_arrival_pct": 90.0, "cause": "compute"},
                 "suggestion": "Look at rank %d's own report: its compute is longer than the others'." % straggler,
                 "impact_pct": 9.1},
                {"id": "clock-skew", "severity": "info",
                 "title": "Host clocks differ by up to %.1f µs; aligned on rank 0's host" % (37.1 * (hosts - 1)),
                 "evidence": {"max_offset_ns": int(37000 * (hosts - 1) + 113), "max_uncertainty_ns": 1200},
                 "suggestion": None, "impact_pct": None}]
    doc = {"schema": "gpuprof.aggregate/1", "gpuprof_version": "0.9.0-test",
           "inputs": [{"file": x["file"], "rank": x["rank"]} for x in ranks],
           "world_size": n, "backend": "nccl",
           "clock": {"reference_rank": 0, "method": "collective-bounds", "collectives_used": ncoll * hosts,
                     "max_uncertainty_ns": 1200 if hosts > 1 else 0},
           "ranks": ranks, "table": table, "stragglers": stragglers, "collectives": colls,
           "desync": None, "unmatched": 3, "heatmap": heatmap, "findings": findings}
    if desync:
        bad = (straggler + 2) % n
        doc["desync"] = {"pg": "0", "seq": 57, "rank": bad, "kind": "missing", "collective": "allreduce",
                         "expected": {"name": "allreduce", "dtype": "Float", "bytes": 26550272, "group_size": n},
                         "found": None,
                         "detail": "rank %d has no allreduce seq 57 of process group 0; the other %d ranks ran it" % (bad, n - 1)}
        doc["warnings"] = ["rank %d: the collectives after process group 0 seq 57 are not compared" % bad]
        doc["findings"].insert(0, {"id": "collective-desync", "severity": "high",
                                   "title": "Ranks desynchronised at allreduce seq 57 of process group 0: rank %d lacks it" % bad,
                                   "evidence": {"pg": "0", "seq": 57, "rank": bad}, "suggestion": "Look for a collective under a rank-dependent branch.",
                                   "impact_pct": None})
    return doc


def as_written(v):
    """@p v with its doubles as gpuprof's JSON writer writes them: six decimals at most."""
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, dict):
        return {k: as_written(x) for k, x in v.items()}
    if isinstance(v, list):
        return [as_written(x) for x in v]
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--straggler", type=int, default=3)
    ap.add_argument("--straggler-ms", type=float, default=12.0)
    ap.add_argument("--desync", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--bins", type=int, default=100)
    a = ap.parse_args()
    d = make(a.ranks, a.seed, a.scale, a.straggler, a.straggler_ms, a.desync, not a.no_memory, a.bins)
    with open(a.out, "w") as f:
        json.dump(as_written(d), f)


if __name__ == "__main__":
    main()

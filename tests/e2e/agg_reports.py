#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""agg_reports.py - small gpuprof.analyze/1 reports with collectives ledgers, written from a
true timeline whose answers are known: NCCL collectives that end together, a straggler that
arrives late, hosts whose clocks read true time + their offset. For the aggregate tests
(t0600) and for timing aggregate on many ranks.

usage: agg_reports.py OUT --ranks N [--per-host K] [--offset-ns H=NS ...] [--straggler R
       --late-ns NS] [--collectives C] [--drop R:SEQ] [--no-ledger R] [--schema R:SCHEMA]
       [--world W] [--only N]
prints the truth as JSON: {"offsets": {rank: ns}, "straggler": R, "busbw_gbps": x}
"""
import argparse
import json
import os

T0 = 1_700_000_000_000_000_000
GAP = 10_000_000
XFER = 1_000_000
BYTES = 26_550_272


def jitter(r, c):
    z = (r * 1_000_003 + c * 7_919 + 1) * 0x9E3779B97F4A7C15 % (1 << 64)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 % (1 << 64)
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB % (1 << 64)
    return (z ^ (z >> 31)) % 50_000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--per-host", type=int, default=0)
    ap.add_argument("--offset-ns", action="append", default=[])
    ap.add_argument("--straggler", type=int, default=-1)
    ap.add_argument("--late-ns", type=int, default=0)
    ap.add_argument("--collectives", type=int, default=40)
    ap.add_argument("--per-step", type=int, default=4)
    ap.add_argument("--drop", default=None)
    ap.add_argument("--no-ledger", type=int, default=-1)
    ap.add_argument("--schema", default=None)
    ap.add_argument("--world", type=int, default=0)
    ap.add_argument("--only", type=int, default=0)
    a = ap.parse_args()
    n, C = a.ranks, a.collectives
    host_off = {}
    for s in a.offset_ns:
        h, v = s.split("=")
        host_off[int(h)] = int(v)
    drop = tuple(map(int, a.drop.split(":"))) if a.drop else None
    bad_schema = (int(a.schema.split(":")[0]), a.schema.split(":", 1)[1]) if a.schema else None
    world = a.world or n

    def host(r):
        return r // a.per_host if a.per_host else None

    def delta(r):
        return host_off.get(host(r) if a.per_host else r, 0)

    def arrive(r, c):
        return T0 + c * GAP + jitter(r, c) + (a.late_ns if r == a.straggler else 0)

    ends = [max(arrive(r, c) for r in range(n)) + XFER for c in range(C)]
    os.makedirs(a.out, exist_ok=True)
    steps = C // a.per_step
    for r in range(a.only or n):
        d = delta(r)
        compute = steps * 20_000_000 + (C * a.late_ns if r == a.straggler else 0)
        ro = {
            "rank": r,
            "host": None if host(r) is None else "node-%d" % host(r),
            "overview": {"start_ns": T0 + d, "span_ns": C * GAP,
                         "distributed": {"rank": r, "world_size": world, "backend": "nccl"},
                         "devices": [{"id": 0, "active": True, "name": "NVIDIA H100 80GB HBM3"}]},
            "gpu": {"busy_ns": compute, "idle_ns": 1000, "idle_pct": 1.5, "compute_ns": compute,
                    "communication_ns": 4_000_000, "comm_comp_overlap_pct": 25.0,
                    "idle_breakdown_total": {"host_wait_ns": 1000}},
            "step_stats": {"count": steps, "mean_ns": 40_000_000, "median_ns": 40_000_000,
                           "p95_ns": 41_000_000, "breakdown_pct": {"dataloader_pct": 1.0}},
            "memory": {"devices": [{"peak_allocated_bytes": 1_000_000 + r}]},
            "findings": [],
        }
        if r != a.no_ledger:
            ledger = []
            for c in range(C):
                if drop and drop == (r, c):
                    continue
                ledger.append({"pg": "0", "seq": c, "name": "allreduce",
                               "kernel": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                               "in_nelems": BYTES // 4, "out_nelems": BYTES // 4, "dtype": "Float",
                               "bytes": BYTES, "group_size": n, "in_split": "[]", "out_split": "[]",
                               "src_rank": None, "dst_rank": None, "step": c // a.per_step,
                               "cpu_start_ns": arrive(r, c) + d - 20_000,
                               "start_ns": arrive(r, c) + d, "end_ns": ends[c] + d})
            ro["collectives"] = {"seq_source": "trace",
                                 "process_groups": [{"name": "0", "desc": "default_pg",
                                                     "ranks": list(range(n)), "size": n}],
                                 "ledger": ledger}
        schema = bad_schema[1] if bad_schema and bad_schema[0] == r else "gpuprof.analyze/1"
        doc = {"schema": schema, "gpuprof_version": "test", "compat": "none", "ranks": [ro]}
        with open(os.path.join(a.out, "rank%d.json" % r), "w") as f:
            json.dump(doc, f)
    print(json.dumps({"offsets": {r: -(delta(r) - delta(0)) for r in range(n)},
                      "straggler": a.straggler,
                      "busbw_gbps": BYTES / XFER * 2 * (n - 1) / n}))


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare `gpuprof analyze --json` with the reference numbers of ../shared/traces.

Usage: reference.py hta|tb GPUPROF TRACES_DIR

hta: `--compat hta` against Holistic Trace Analysis: temporal breakdown, idle
     breakdown per stream, kernel-type breakdown, comm/comp overlap, the
     top-5 kernels, within 0.1 percentage point or 1 us, and the queue length
     per stream (mean to HTA's 2 decimals, max exactly).
tb:  `--compat tb` (the plugin's Communication rule) against the TensorBoard plugin: the
     step-time breakdown within 0.5 point, GPU utilisation, est. SM efficiency
     and est. achieved occupancy; and against the stdlib script: the raw
     GPU busy time and window, and the top-5 kernels (sum and count).
Every trace must be analysed without error; traces without GPU events must say
so. Prints one line per check that fails and exits 1 if any did.
"""
import ast
import glob
import json
import os
import subprocess
import sys

PT = 0.1  # percentage points
US = 1.0  # microseconds

failures = []
checks = 0


def check(trace, what, ours, ref, tol, unit=""):
    global checks
    checks += 1
    if ours is None or ref is None or abs(ours - ref) > tol + 1e-9:
        failures.append(f"{trace}: {what}: ours {ours}{unit} vs reference {ref}{unit} (tolerance {tol})")


def analyze(gpuprof, path, compat):
    cmd = [gpuprof, "analyze", "--json", "--top", "0", "--compat", compat, path]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{os.path.basename(path)}: analyze failed ({p.returncode}): {p.stderr.strip()}")
        return None
    rep = json.loads(p.stdout)
    assert rep["schema"] == "gpuprof.analyze/1", rep.get("schema")
    return rep["ranks"][0]


def us(ns):
    return None if ns is None else ns / 1000.0


def check_hta(name, r, ref):
    h = ref["hta"]
    gpu = r["gpu"]
    errors = h.get("errors", {})
    tb = h.get("temporal_breakdown") or []
    if not gpu.get("has_gpu"):
        if tb:
            failures.append(f"{name}: no GPU activity reported, HTA found some")
        return
    if tb and "temporal_breakdown" not in errors:
        t = tb[0]
        check(name, "window us", us(gpu["window_ns"]), t["kernel_time(us)"], US)
        check(name, "idle us", us(gpu["idle_ns"]), t["idle_time(us)"], US)
        check(name, "compute us", us(gpu["compute_ns"]), t["compute_time(us)"], US)
        check(name, "non-compute us", us(gpu["non_compute_ns"]), t["non_compute_time(us)"], US)
        for k, rk in (("idle_pct", "idle_time_pctg"), ("compute_pct", "compute_time_pctg"),
                      ("non_compute_pct", "non_compute_time_pctg")):
            check(name, k, gpu[k], t[rk], PT)
    if "idle_time_breakdown" not in errors:
        ours = {row["stream"]: row for row in gpu["idle_breakdown"]}
        for row in h.get("idle_time_breakdown") or []:
            o = ours.get(row["stream"])
            key = row["idle_category"] + "_ns"
            check(name, f"idle {row['idle_category']} stream {row['stream']} us",
                  us(o[key]) if o else None, row["idle_time"], US)
    kt = h.get("kernel_type_breakdown") or []
    if kt:
        ours = {row["type"]: row for row in gpu["kernel_types"]}
        for row in kt:
            o = ours.get(row["kernel_type"])
            check(name, f"kernel type '{row['kernel_type']}' %", o["pct"] if o else None,
                  row["percentage"], PT)
            check(name, f"kernel type '{row['kernel_type']}' us", us(o["ns"]) if o else None,
                  row["sum"], US)
    ov = (h.get("comm_comp_overlap") or [{}])[0].get("comp_comm_overlap_pctg")
    if ov is not None and ov == ov:  # not NaN
        check(name, "comm/comp overlap %", gpu["comm_comp_overlap_pct"], ov, PT)
    elif kt:
        if gpu["comm_comp_overlap_pct"] is not None:
            failures.append(f"{name}: overlap should be null without communication")
    # queue length per stream: HTA prints the mean to 2 decimals
    q = h.get("queue_length_by_rank_stream") or {}
    if isinstance(q, str):
        q = ast.literal_eval(q)
    ours = {row["stream"]: row for row in (r.get("launches") or {}).get("queue") or []}
    for rs, v in q.items():
        stream = int(rs.strip("()").split(",")[1])
        o = ours.get(stream)
        check(name, f"queue length stream {stream} mean", o["mean"] if o else None, v["mean"], 0.005)
        check(name, f"queue length stream {stream} max", o["max"] if o else None, v["max"], 0.0)
    top = (h.get("top5_kernels") or {}).get("0") or []
    rows = r.get("hta_kernels") or r.get("kernels") or []
    for i, k in enumerate(top):
        # the reference truncates names to 80 characters, and templated kernels
        # often share that prefix: take the candidate nearest the reference sum
        match = [x for x in rows if x["name"].startswith(k["name"][:80])]
        if not match:
            failures.append(f"{name}: top kernel {i} '{k['name'][:60]}' not found")
            continue
        best = min(match, key=lambda x: abs(x["total_ns"] / 1000.0 - k["sum_us"]))
        check(name, f"top kernel {i} sum us", us(best["total_ns"]), k["sum_us"], US)
        check(name, f"top kernel {i} rank", float(rows.index(best)), float(i), 0.0)


def check_tb(name, r, ref):
    tb = ref.get("tb_plugin") or {}
    bd = tb.get("step_breakdown_us_pct")
    stats = r.get("step_stats") or {}
    pct = stats.get("breakdown_pct") or {}
    keys = {"Kernel": "kernel_pct", "Memcpy": "memcpy_pct", "Memset": "memset_pct",
            "Communication": "communication_pct", "Runtime": "runtime_pct",
            "DataLoader": "dataloader_pct", "CPU Exec": "cpu_exec_pct", "Other": "other_pct"}
    if bd:
        for k, v in bd.items():
            check(name, f"step breakdown {k} %", pct.get(keys[k]), v[1], 0.5)
    # the stdlib script's unfiltered GPU union and window (one device); it sums
    # float µs, so its last digits carry rounding error: 1 µs tolerance
    gu = (ref.get("stdlib_ref") or {}).get("gpu_union_us_by_pid") or {}
    if len(gu) == 1:
        u = next(iter(gu.values()))
        check(name, "raw GPU busy us", us(r["gpu"]["busy_ns"]), u["union_us"], US)
        check(name, "raw GPU window us", us(r["gpu"]["window_ns"]), u["window_us"], US)
    # raw (unfiltered) top-5 kernels of the stdlib script: sums and exact counts
    rows = r.get("kernels") or []
    for i, k in enumerate((ref.get("stdlib_ref") or {}).get("top5") or []):
        match = [x for x in rows if x["name"].startswith(k["name"][:80])]
        best = min(match, key=lambda x: abs(x["total_ns"] / 1000.0 - k["sum_us"])) if match else None
        check(name, f"raw top kernel {i} sum us", us(best["total_ns"]) if best else None, k["sum_us"], US)
        check(name, f"raw top kernel {i} count", best["count"] if best else None, k["count"], 0)
    util = {str(u["device"]): u for u in r.get("gpu_utilization") or []}
    for dev, v in (tb.get("gpu_utilization") or {}).items():
        check(name, f"gpu {dev} utilization", (util.get(dev) or {}).get("utilization"), v, 0.001)
    for dev, v in (tb.get("est_sm_efficiency") or {}).items():
        if v is not None:
            check(name, f"gpu {dev} est. SM efficiency",
                  (util.get(dev) or {}).get("sm_efficiency"), v, 0.001)
    for dev, v in (tb.get("est_achieved_occupancy_pct") or {}).items():
        if v is not None:
            check(name, f"gpu {dev} est. achieved occupancy %",
                  (util.get(dev) or {}).get("achieved_occupancy_pct"), v, PT)


def main():
    mode, gpuprof, traces = sys.argv[1], sys.argv[2], sys.argv[3]
    refs = sorted(glob.glob(os.path.join(traces, "reference", "*.json")))
    if not refs:
        print(f"no reference files under {traces}")
        return 77
    for refpath in refs:
        ref = json.load(open(refpath))
        path = os.path.join(traces, ref["file"])
        name = os.path.basename(ref["file"])
        r = analyze(gpuprof, path, "hta" if mode == "hta" else "tb")
        if r is None:
            continue
        if mode == "hta":
            check_hta(name, r, ref)
        else:
            check_tb(name, r, ref)
    for f in failures:
        print("FAIL", f)
    print(f"{mode}: {checks} checks over {len(refs)} traces, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

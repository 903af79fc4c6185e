#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""baseline.py - the Python baseline for bench/bench_analyze.sh (stdlib only).

Loads a Kineto trace (.json or .json.gz) with json.load and computes, in plain Python over the
loaded events, the core metrics `gpuprof analyze` reports, with HTA's definitions (without HTA's
last-step filter and ceil/floor rounding, as gpuprof does by default):

  GPU events  ph X events of cat kernel/gpu_memcpy/gpu_memset (legacy Kernel/Memcpy/Memset)
  window      last GPU end - first GPU start
  busy        union of all GPU events; idle = window - busy
  compute     union of COMPUTATION events (HTA name rules: not nccl/hip/hccl/ncclKernel, not
              ^Memcpy/^Memset/^dma); non_compute = busy - compute
  overlap     |union(COMP) & union(COMM)| / |union(COMM)| * 100 (null without communication)
  kernel_types  HTA-style sweep labels ("COMPUTATION overlapping COMMUNICATION", ...)
  idle_breakdown  per stream, each gap between consecutive GPU events: host_wait when the
              launching runtime call (same correlation) started after the previous event ended,
              else kernel_wait when the gap < 30 us, else other
  kernels     cat kernel grouped by name: count, sum, mean, median, min, max, sample std
  steps       ProfilerStep#N CPU annotations: duration list

Times are integer nanoseconds (float us * 1000, rounded). Prints one JSON line:
  {"file", "bytes", "events", "load_s", "analyze_s", "total_s", "metrics": {...}}
With --load-only it stops after json.load and prints the load time.
"""
import gzip
import json
import re
import statistics
import sys
import time

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
KERNEL_CATS = {"kernel", "Kernel"}
STEP_CATS = {"user_annotation", "Operator", "cpu_op"}
COMM_RE = re.compile(r"(^nccl)|(^hip)|(^hccl)|(ncclKernel)")
MEM_RE = re.compile(r"^(hip)?Memcpy|^(hip)?Memset|^dma")
KERNEL_WAIT_NS = 30000
COMP, COMM, MEM = 0, 1, 2
TYPE_NAMES = ("COMPUTATION", "COMMUNICATION", "MEMORY")


def ns(v):
    return v * 1000 if isinstance(v, int) else int(round(v * 1000))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return json.load(f)


def union(iv):
    """Sorted, merged list of [s, e) from an iterable of (s, e)."""
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def total(u):
    return sum(e - s for s, e in u)


def intersect(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            t += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def kernel_type(name):
    if COMM_RE.search(name):
        return COMM
    if MEM_RE.search(name):
        return MEM
    return COMP


def type_sweep(per_type):
    """HTA-style breakdown: time with each combination of types active."""
    pts = []
    for t, u in enumerate(per_type):
        for s, e in u:
            pts.append((s, 1, t))
            pts.append((e, -1, t))
    pts.sort()
    active = [0, 0, 0]
    out = {}
    last = None
    for x, d, t in pts:
        if last is not None and x > last:
            key = tuple(i for i in range(3) if active[i])
            if key:
                out[key] = out.get(key, 0) + x - last
        active[t] += d
        last = x
    busy = sum(out.values()) or 1
    res = [{"type": " overlapping ".join(TYPE_NAMES[i] for i in k), "ns": v,
            "pct": round(v * 100.0 / busy, 4)} for k, v in out.items()]
    res.sort(key=lambda r: -r["ns"])
    return res


def analyze(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    gpu = []  # (ts, end, stream, corr, name)
    rt_ts = {}
    steps = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if cat in GPU_CATS:
            a = e.get("args") or {}
            ts = ns(e["ts"])
            stream = a.get("stream", e.get("tid"))
            gpu.append((ts, ts + ns(e.get("dur", 0)), stream, a.get("correlation"), e["name"], cat))
        elif cat in RUNTIME_CATS:
            a = e.get("args") or {}
            c = a.get("correlation")
            if c is not None:
                rt_ts[c] = ns(e["ts"])
        elif cat in STEP_CATS and e.get("name", "").startswith("ProfilerStep#"):
            steps.append((ns(e["ts"]), e["name"], ns(e.get("dur", 0))))

    m = {"gpu_events": len(gpu)}
    if not gpu:
        m["window_ns"] = None
        return m
    lo = min(g[0] for g in gpu)
    hi = max(g[1] for g in gpu)
    per_type = [[], [], []]
    for g in gpu:
        per_type[kernel_type(g[4])].append((g[0], g[1]))
    per_type = [union(x) for x in per_type]
    busy = union((g[0], g[1]) for g in gpu)
    window = hi - lo
    busy_ns = total(busy)
    compute_ns = total(per_type[COMP])
    comm_ns = total(per_type[COMM])
    m.update({
        "window_ns": window,
        "busy_ns": busy_ns,
        "idle_ns": window - busy_ns,
        "compute_ns": compute_ns,
        "non_compute_ns": busy_ns - compute_ns,
        "idle_pct": round((window - busy_ns) * 100.0 / window, 4) if window else None,
        "comm_comp_overlap_pct": (round(intersect(per_type[COMP], per_type[COMM]) * 100.0 / comm_ns, 4)
                                  if comm_ns else None),
        "kernel_types": type_sweep(per_type),
    })

    by_stream = {}
    for g in gpu:
        by_stream.setdefault(g[2], []).append(g)
    idle = []
    for s in sorted(by_stream, key=str):
        evs = sorted(by_stream[s])
        hw = kw = ot = 0
        for prev, cur in zip(evs, evs[1:]):
            gap = cur[0] - prev[1]
            if gap <= 0:
                continue
            launch = rt_ts.get(cur[3])
            if launch is not None and launch > prev[1]:
                hw += gap
            elif gap < KERNEL_WAIT_NS:
                kw += gap
            else:
                ot += gap
        idle.append({"stream": s, "host_wait_ns": hw, "kernel_wait_ns": kw, "other_ns": ot})
    m["idle_breakdown"] = idle

    groups = {}
    for g in gpu:
        if g[5] in KERNEL_CATS:
            groups.setdefault(g[4], []).append(g[1] - g[0])
    ks = []
    for name, d in groups.items():
        ks.append({"name": name, "count": len(d), "total_ns": sum(d),
                   "avg_ns": sum(d) / len(d), "med_ns": statistics.median(d),
                   "min_ns": min(d), "max_ns": max(d),
                   "std_ns": statistics.stdev(d) if len(d) > 1 else None})
    ks.sort(key=lambda k: (-k["total_ns"], k["name"]))
    m["kernel_names"] = len(ks)
    m["kernels_top"] = ks[:10]
    steps.sort()
    m["steps"] = [{"name": n, "dur_ns": d} for _, n, d in steps]
    return m


def main(argv):
    load_only = "--load-only" in argv
    paths = [a for a in argv if a != "--load-only"]
    if len(paths) != 1:
        print("usage: baseline.py [--load-only] TRACE.json[.gz]", file=sys.stderr)
        return 2
    path = paths[0]
    t0 = time.perf_counter()
    doc = load(path)
    t1 = time.perf_counter()
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = {"file": path, "events": len(events), "load_s": round(t1 - t0, 3)}
    if not load_only:
        m = analyze(doc)
        t2 = time.perf_counter()
        out.update({"analyze_s": round(t2 - t1, 3), "total_s": round(t2 - t0, 3), "metrics": m})
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
